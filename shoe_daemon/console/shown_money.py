"""What of the table's money the public display may show (issue 12: "The public display shows
the bank ('Banque Fr. 1,170'), the banco called, and the payouts once decided, never a stake
before betting closes if the house keeps them private").

Built from the till after the table has committed the records that changed it, never
before (service/table.py), as the display's own types (display/stakes.py): the bank as it
stands and the banco called (Chemin de Fer), the table's limits (Punto Banco), the stakes on
the table, and the last settlement's payouts. Players are shown by seat or box, never by
name: an outsider's label stays on the console. A house whose `stakes_public` term is false
shows no stake until betting closes (docs/money.md; every house's seed is silent and each
profile says why it shows them).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from shoe_daemon.display.stakes import (
    Bank,
    BetLimit,
    Limits,
    Payout,
    Payouts,
    Stakes,
    Wager,
)
from shoe_daemon.money.amounts import Currency
from shoe_daemon.money.bank import Phase
from shoe_daemon.money.display import Locale, format_bank, format_money
from shoe_daemon.money.limits import TableLimits
from shoe_daemon.money.round import Round
from shoe_daemon.money.stakes import BANCO_FORMS
from shoe_daemon.money.table import TableMoney

#: A settlement's line that is no player's: the casino's at Punto Banco.
HOUSE = "house"


@dataclass(frozen=True)
class ShownMoney:
    bank: Bank | None
    limits: Limits | None
    stakes: Stakes | None
    payouts: Payouts | None


def house_writing(money: TableMoney) -> Callable[[Decimal], str]:
    """How the house writes an amount ("Fr. 1,170", its profile's locale), for every amount
    the display shows: the same as its bank's call, whatever the display's language."""
    return functools.partial(_written, money.profile.currency.value, money.profile.locale.value)


def _written(currency: Currency, locale: Locale, amount: Decimal) -> str:
    return format_money(amount, currency, locale)


def shown_money(money: TableMoney, settlement: Mapping[str, Any] | None) -> ShownMoney:
    """The public part of `money` and of the last `settlement` record (as committed)."""
    code = money.profile.currency.value.code
    return ShownMoney(_bank(money) if money.cdf else None,
                      None if money.cdf else _limits(money.limits, code),
                      _stakes(money, code), _payouts(settlement))


def _place(key: str) -> int | None:
    """ "seat 3" and "box 3" are 3; an outsider ("outsider A") shows no label."""
    kind, _, number = key.partition(" ")
    return int(number) if kind in ("seat", "box") else None


def _bank(money: TableMoney) -> Bank | None:
    """The bank held for the coup to come, with the banco called against it. None while it is
    vacant, offered or auctioned, and for an open bank whose sum the stakes fix (000 rule 5)."""
    bank, profile = money.bank, money.profile
    if bank is None or bank.phase is not Phase.HELD or bank.amount is None:
        return None
    banco = None
    if isinstance(money.round, Round):
        banco = next((s for s in money.round.stakes if s.kind in BANCO_FORMS), None)
    if banco is not None and not _public(money):
        banco = None  # the call is a stake: hidden with them until betting closes
    holder = None if bank.holder is None else bank.holder.seat
    return Bank(bank.amount, profile.currency.value.code, holder,
                None if banco is None else banco.who.seat,
                banco is not None and bank.suivi == banco.who,
                format_bank(bank.amount, profile.currency.value, profile.locale.value))


def _limits(limits: TableLimits, code: str) -> Limits:
    """Punto Banco's limits: Punto, Banco and Egalité alike ("table"), the Swiss Nine bets."""
    rows = [BetLimit("table", limits.min_stake, limits.max_stake)]
    if limits.nine_min_stake is not None:
        rows.append(BetLimit("swiss_nine", limits.nine_min_stake, limits.nine_max_stake))
    return Limits(code, tuple(rows))


def _public(money: TableMoney) -> bool:
    current = money.round
    return bool(money.profile.stakes_public.value) or (current is not None and
                                                        current.closed is not None)


def _stakes(money: TableMoney, code: str) -> Stakes | None:
    """The stakes on the table; none before betting closes where the house keeps them
    private."""
    current = money.round
    if current is None or not _public(money):
        return None
    if isinstance(current, Round):
        wagers = tuple(Wager(s.who.seat, s.kind.value, s.amount) for s in current.stakes)
    else:
        wagers = tuple(Wager(b.box, b.bet.value, b.amount) for b in current.bets)
    if not wagers:
        return None
    return Stakes(code, wagers, current.closed is not None)


def _payouts(record: Mapping[str, Any] | None) -> Payouts | None:
    """The settlement's lines as the players read them: staked, handed back in all."""
    if record is None:
        return None
    dec = Decimal
    lines = tuple(Payout(_place(x["who"]), x["kind"], dec(x["staked"]),
                         dec(x["paid"]) + dec(x["carried"]), x["result"])
                  for x in record["lines"] if x["who"] != HOUSE)
    return Payouts(record["currency"], record["shoe"], record["coup"], lines,
                   dec(record["commission"]), not record["counts"])
