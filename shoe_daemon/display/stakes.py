"""The money a table display shows, as the croupier's console enters it (issue 12): at Chemin
de Fer the bank and the banco called, at Punto Banco the table limits; at both the stakes on
the table and the last coup's payouts. The display only shows them: the console owns them,
records them in the audit ledger first, and hands the display these values
(`TableDisplay.set_bank`, `set_limits`, `set_stakes`, `set_payouts`) once committed. Absent
(None), nothing is shown. A player is shown by his seat or box, never by name.

Amounts are `decimal.Decimal`, never float: in the view each is an object with the exact
amount as a string at the currency's precision, the ISO 4217 currency, and the amount as the
display's language writes it (Babel's CLDR data), in German e.g.
`{"value": "1500.00", "currency": "CHF", "text": "1.500,00 CHF"}` (docs/display.md, "The
table's money").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

#: What a stake or bet is played as: Chemin de Fer's kinds of play (banco_solo, banco, share,
#: banco_with_table, table, outsider, difference) and Punto Banco's bets (punto, banco,
#: egalite, simple_nine, colour_nine, swiss_nine); a payout's line also "bank" (the
#: banker's) and "partner" (his partner's, 000 rule 4).
PLAYS = ("banco_solo", "banco", "share", "banco_with_table", "table", "outsider", "difference",
         "punto", "egalite", "simple_nine", "colour_nine", "swiss_nine", "bank", "partner")
NO_CURRENCY = "XXX"  # ISO 4217's code for no currency: 002's credits, 004's chips
#: How a payout's line ended (the settlement's own words).
RESULTS = ("won", "lost", "returned", "stays")

#: The bets a limit may be given for; `table`: the two sides' bets alike.
BETS = ("table", "banco", "punto", "egalite", "swiss_nine")


def _check_amount(what: str, value: Any) -> None:
    if not isinstance(value, Decimal) or not value.is_finite():
        raise TypeError(f"{what} must be a finite decimal.Decimal, not {value!r}")
    if value < 0:
        raise ValueError(f"{what} is negative: {value}")


def _check_currency(currency: str) -> None:
    """An ISO 4217 code, or one of its form for a currency no longer in it (000's Danzig
    gulden, "DZG"): Babel writes those with their code."""
    if not isinstance(currency, str) or not re.fullmatch(r"[A-Z]{3}", currency):
        raise ValueError(f"{currency!r} is not an ISO 4217 currency code")


def _check_seat(what: str, seat: int | None) -> None:
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or seat < 1):
        raise ValueError(f"{what} must be a seat number from 1, not {seat!r}")


@dataclass(frozen=True)
class Bank:
    """Chemin de Fer: the bank as it stands for the coup to come."""

    amount: Decimal  # what the bank holds: the most the punters may stake against it
    currency: str  # ISO 4217, e.g. "EUR", "CHF"
    holder_seat: int | None = None  # the seat holding the bank (None: not said)
    banco_seat: int | None = None  # the seat that called banco (the whole bank), if any
    suivi: bool = False  # that banco is a banco suivi (the loser of a banco calls again)
    called: str | None = None  # the bank as the house calls it: "Banque Fr. 1,170"

    def __post_init__(self) -> None:
        _check_amount("bank amount", self.amount)
        _check_currency(self.currency)
        _check_seat("holder_seat", self.holder_seat)
        _check_seat("banco_seat", self.banco_seat)
        if self.suivi and self.banco_seat is None:
            raise ValueError("a banco suivi needs the seat that called it (banco_seat)")


@dataclass(frozen=True)
class BetLimit:
    bet: str  # one of BETS
    minimum: Decimal
    maximum: Decimal | None  # None: no maximum

    def __post_init__(self) -> None:
        if self.bet not in BETS:
            raise ValueError(f"bet {self.bet!r} is not one of {', '.join(BETS)}")
        _check_amount(f"{self.bet} minimum", self.minimum)
        if self.maximum is None:
            return
        _check_amount(f"{self.bet} maximum", self.maximum)
        if self.minimum > self.maximum:
            raise ValueError(f"{self.bet}: minimum {self.minimum} is above maximum {self.maximum}")


@dataclass(frozen=True)
class Limits:
    """Punto Banco: the table's limits, one row a bet, in the order shown."""

    currency: str
    bets: tuple[BetLimit, ...]

    def __post_init__(self) -> None:
        _check_currency(self.currency)
        if not self.bets:
            raise ValueError("limits need at least one bet")


def _check_play(play: str) -> None:
    if play not in PLAYS:
        raise ValueError(f"play {play!r} is not one of {', '.join(PLAYS)}")


@dataclass(frozen=True)
class Wager:
    """One stake or bet on the table: where it lies, what it plays, how much."""

    place: int | None  # the seat (Chemin de Fer) or box (Punto Banco); None: an outsider
    play: str  # one of PLAYS
    amount: Decimal

    def __post_init__(self) -> None:
        _check_seat("place", self.place)
        _check_play(self.play)
        _check_amount("stake", self.amount)


@dataclass(frozen=True)
class Stakes:
    """The stakes on the table for the coup to come (or in play, once betting closed)."""

    currency: str
    wagers: tuple[Wager, ...]
    closed: bool  # "Rien ne va plus": betting closed, nothing changes now

    def __post_init__(self) -> None:
        _check_currency(self.currency)


@dataclass(frozen=True)
class Payout:
    """One line of a coup's settlement: what was staked and what goes back to the player."""

    place: int | None  # seat or box; None: an outsider
    play: str  # one of PLAYS
    staked: Decimal
    paid: Decimal  # handed back in all, the stake included (0: lost)
    result: str  # one of RESULTS

    def __post_init__(self) -> None:
        _check_seat("place", self.place)
        _check_play(self.play)
        _check_amount("staked", self.staked)
        _check_amount("paid", self.paid)
        if self.result not in RESULTS:
            raise ValueError(f"result {self.result!r} is not one of {', '.join(RESULTS)}")


@dataclass(frozen=True)
class Payouts:
    """A decided coup's settlement, as it was committed."""

    currency: str
    shoe: int
    coup: int
    lines: tuple[Payout, ...]
    commission: Decimal  # the commission or Taxe the house took
    void: bool = False  # a cancelled or void coup: every stake returned (000 rule 24)

    def __post_init__(self) -> None:
        _check_currency(self.currency)
        _check_amount("commission", self.commission)


#: The house's way of writing an amount ("Fr. 1,170"), from the table's money; None: the
#: display's language's (Babel).
Write = Callable[[Decimal], str] | None


def money(value: Decimal, currency: str, locale: str, write: Write = None) -> dict[str, str]:
    """An amount as the view sends it: exact, its currency, and as the house writes it when
    the table's money says how (so the bank's call and every other amount read alike), else
    as the language writes it (XXX, no currency: chips or credits, the number alone)."""
    from babel.numbers import format_currency, format_decimal, get_currency_precision

    exact = value.quantize(Decimal(1).scaleb(-get_currency_precision(currency)))
    if write is not None:
        text = write(exact)
    elif currency == NO_CURRENCY:
        text = format_decimal(exact, locale=locale)
    else:
        text = format_currency(exact, currency, locale=locale)
    return {"value": str(exact), "currency": currency, "text": text}


def bank_view(bank: Bank | None, locale: str, write: Write = None) -> dict[str, Any] | None:
    if bank is None:
        return None
    return {"amount": money(bank.amount, bank.currency, locale, write), "called": bank.called,
            "holder_seat": bank.holder_seat, "banco_seat": bank.banco_seat, "suivi": bank.suivi}


def stakes_view(stakes: Stakes | None, locale: str, write: Write = None
                ) -> dict[str, Any] | None:
    if stakes is None:
        return None
    return {"closed": stakes.closed, "wagers": [
        {"place": w.place, "play": w.play,
         "amount": money(w.amount, stakes.currency, locale, write)}
        for w in stakes.wagers]}


def payouts_view(payouts: Payouts | None, locale: str, write: Write = None
                 ) -> dict[str, Any] | None:
    if payouts is None:
        return None
    currency = payouts.currency
    return {"shoe": payouts.shoe, "coup": payouts.coup, "void": payouts.void,
            "commission": money(payouts.commission, currency, locale, write),
            "lines": [{"place": x.place, "play": x.play, "result": x.result,
                       "staked": money(x.staked, currency, locale, write),
                       "paid": money(x.paid, currency, locale, write)} for x in payouts.lines]}


def limits_view(limits: Limits | None, locale: str, write: Write = None
                ) -> dict[str, Any] | None:
    if limits is None:
        return None
    currency = limits.currency
    return {"currency": currency, "bets": [
        {"bet": row.bet, "minimum": money(row.minimum, currency, locale, write),
         "maximum": None if row.maximum is None else money(row.maximum, currency, locale, write)}
        for row in limits.bets]}
