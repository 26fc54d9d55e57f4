"""The money's tests at a live table: the real service loop, ledger and console server (the
console's test table, tests/console_support.py) with a `[money]` table, two people signed
in (bob, a croupier; ana, a supervisor), and coups dealt by the test with the outcome it
wants (naturals: decided at the fourth card under every house's drawing rules)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.console_support import Client, ConsoleTable, console_table
from tests.money.support import SETTINGS

SUITS = "CDHS"


def deal(outcome: str, n: int, banker: tuple[str, str] | None = None) -> str:
    """The four cards of a coup decided at once with `outcome` (punter, banker, égalité), the
    suits turning with `n` so that no card comes more often than the packs hold."""
    a, b = SUITS[n % 4], SUITS[(n + 1) % 4]
    punter, bank = {"banker": ((f"2{a}", f"3{b}"), (f"9{a}", f"K{b}")),
                    "punter": ((f"9{a}", f"K{b}"), (f"2{a}", f"3{b}")),
                    "egalite": ((f"9{a}", f"K{b}"), (f"9{b}", f"Q{a}"))}[outcome]
    if banker is not None:
        bank = banker
    return f"DEAL {punter[0]} {bank[0]} {punter[1]} {bank[1]}"


class Play:
    """A live table with its money: the croupier's and supervisor's requests, coups dealt."""

    def __init__(self, table: ConsoleTable) -> None:
        self.t = table
        self.bob = table.client()
        assert self.bob.sign_in("bob", "1234")[0] == 200
        self.ana = table.client()
        assert self.ana.sign_in("ana", "4711")[0] == 200
        self.coups = 0  # dealt in this shoe
        self.dealt = 0

    def ok(self, kind: str, /, as_: Client | None = None, **args: str) -> dict[str, Any]:
        status, body = (as_ or self.bob).act(kind, **args)
        assert status == 200, (kind, args, body)
        return body

    def refused(self, kind: str, status: int, code: str | None = None, /,
                as_: Client | None = None, **args: str) -> dict[str, Any]:
        """Refused with `status` (and the money's `code`, with its rule), nothing kept."""
        before = self.t.kept()
        money = self.t.loop.table.till.money if self.t.loop.table.till else None
        got, body = (as_ or self.bob).act(kind, **args)
        assert got == status, (kind, args, body)
        if code is not None:
            assert body["code"] == code and body["rule"], body
            # Each refusal's seed quote once (issue 20): plain words, the rule apart.
            assert body["rule"] not in body["error"] and "rule:" not in body["error"], body
        assert self.t.kept() == before
        if money is not None:
            assert self.t.loop.table.till.money is money
        return body

    def hello(self) -> None:
        """The shoe (re)starts: a HELLO with a boot id of its own, so that a daemon that
        resumed a ledger takes this shoe's frames from 0."""
        self.t.shoe.feed(f"HELLO:{secrets.token_hex(4)}")

    def shoe(self) -> None:
        self.t.shoe.feed("SHOE")
        self.coups = 0

    def coup(self, outcome: str, banker: tuple[str, str] | None = None) -> dict[str, Any]:
        """One coup dealt (in a new shoe every three coups): its money.settlement."""
        if self.coups >= 3:
            self.shoe()
        self.t.shoe.feed(deal(outcome, self.dealt, banker))
        self.coups += 1
        self.dealt += 1
        return self.money("money.settlement")[-1]

    def money(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [r.body for r in self.t.records()
                if r.kind.startswith("money.") and (kind is None or r.kind == kind)]

    def seat(self, *places: int) -> None:
        for place in places:
            self.ok("sit", seat=str(place))

    def bank(self) -> dict[str, Any]:
        till = self.t.loop.table.till
        assert till is not None and till.money.bank is not None
        return till.money.bank.to_dict()


@contextmanager
def money_table(state: Path, profile: str, **money: Any) -> Iterator[Play]:
    with console_table(state, profile, money={**SETTINGS[profile], **money}) as t:
        play = Play(t)
        play.hello()
        play.shoe()
        yield play


def nets(settlement: dict[str, Any]) -> dict[str, str]:
    return {(line["stake"] or line["who"]): line["net"] for line in settlement["lines"]}
