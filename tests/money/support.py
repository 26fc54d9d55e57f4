"""Helpers for the money tests: a table driven by actions, and result lines built the way
the coup machine publishes them (shoe_daemon/game/results.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import pytest

from hil.money_ledger import SETTINGS
from shoe_daemon.game import results
from shoe_daemon.game.rules import Game, swiss_nine
from shoe_daemon.money.houses import MONEY_PROFILES
from shoe_daemon.money.limits import TableLimits, table_limits
from shoe_daemon.money.profile import MoneyProfile
from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.table import TableMoney

CHEMIN_DE_FER = [n for n, p in MONEY_PROFILES.items() if p.game is Game.CHEMIN_DE_FER]

#: Card pairs for a side's first two cards by what they make.
WINNING = {"banker": (("2C", "3D"), ("9H", "KD")), "punter": (("9H", "KD"), ("2C", "3D")),
           "egalite": (("4C", "3D"), ("5H", "2S"))}


def profile(name: str) -> MoneyProfile:
    return MONEY_PROFILES[name]


def limits(name: str, **more: Any) -> TableLimits:
    return table_limits(MONEY_PROFILES[name], {**SETTINGS[name], **more})


def line(name: str, shoe: int, coup: int, outcome: str,
         banker: Sequence[str] | None = None, punter: Sequence[str] | None = None
         ) -> dict[str, Any]:
    """A coup.result line as the daemon publishes it."""
    if outcome in ("cancelled", "void"):
        p_cards, b_cards = ("2C",), ()
    else:
        p_cards, b_cards = WINNING[outcome]
    p_cards = tuple(punter) if punter is not None else p_cards
    b_cards = tuple(banker) if banker is not None else b_cards
    pb = MONEY_PROFILES[name].game is Game.PUNTO_BANCO
    nine = swiss_nine(b_cards[:2]) if pb and len(b_cards) >= 2 else (() if pb else None)
    return results.coup_result(shoe=shoe, coup=coup, profile=name, outcome=outcome,
                               punter=p_cards, banker=b_cards, last_coup=False,
                               irregularities=(), swiss_nine=nine)


def refused(desk: Desk, code: str, op: str, **fields: Any) -> Refusal:
    """The action is refused with `code`, and nothing changed."""
    before = desk.table
    with pytest.raises(Refusal) as caught:
        desk.do(op, **fields)
    assert caught.value.code == code, caught.value
    assert desk.table is before
    return caught.value


class Desk:
    """A croupier at a table: actions in, records kept, every step remembered for replay."""

    def __init__(self, name: str, seated: Sequence[int] = (), **more: Any) -> None:
        self.profile = MONEY_PROFILES[name]
        self.limits = limits(name, **more)
        self.table = TableMoney.start(self.profile, self.limits)
        self.steps: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        self.coup = 0
        self.shoe = 1
        for place in seated:
            self.do("sit", seat=place)

    def do(self, op: str, **fields: Any) -> list[dict[str, Any]]:
        action = {"op": op, **fields}
        self.table, records = self.table.apply(action)
        self.steps.append((action, records))
        return records

    def coup_played(self, outcome: str, **cards: Any) -> dict[str, Any]:
        """Close the round for the next coup and settle it; the settlement record."""
        return self.coup_played_records(outcome, **cards)[0]

    def coup_played_records(self, outcome: str, **cards: Any) -> list[dict[str, Any]]:
        """Close the round for the next coup and settle it; the settlement's records."""
        self.coup += 1
        self.do("close", shoe=self.shoe, coup=self.coup)
        return self.do("settle", result=line(self.profile.name, self.shoe, self.coup,
                                             outcome, **cards))

    @property
    def bank(self) -> Mapping[str, Any]:
        assert self.table.bank is not None
        return self.table.bank.to_dict()


def amounts(settlement: Mapping[str, Any], field: str = "net") -> dict[str, Decimal]:
    """Each line's `field` by stake id (the bank's by "bank", a partner's by "partner")."""
    return {(ln["stake"] or ln["kind"]): Decimal(ln[field]) for ln in settlement["lines"]}
