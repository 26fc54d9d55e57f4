"""The money a table display shows, as the croupier's console enters it (issue 12): at Chemin
de Fer the bank, at Punto Banco the table limits. The display only shows them: the console
owns them, records them in the audit ledger first, and hands the display these values
(`TableDisplay.set_bank`, `set_limits`) once committed. Absent (None), nothing is shown.

Amounts are `decimal.Decimal`, never float: in the view each is an object with the exact
amount as a string at the currency's precision, the ISO 4217 currency, and the amount as the
display's language writes it (Babel's CLDR data), in German e.g.
`{"value": "1500.00", "currency": "CHF", "text": "1.500,00 CHF"}` (docs/display.md, "Bank
and limits").
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

#: The bets a limit may be given for; `table`: the two sides' bets alike.
BETS = ("table", "banco", "punto", "egalite", "swiss_nine")


def _check_amount(what: str, value: Any) -> None:
    if not isinstance(value, Decimal) or not value.is_finite():
        raise TypeError(f"{what} must be a finite decimal.Decimal, not {value!r}")
    if value < 0:
        raise ValueError(f"{what} is negative: {value}")


def _check_currency(currency: str) -> None:
    from babel.numbers import is_currency  # Babel at first use: the daemon starts faster

    if not isinstance(currency, str) or not is_currency(currency):
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
    maximum: Decimal

    def __post_init__(self) -> None:
        if self.bet not in BETS:
            raise ValueError(f"bet {self.bet!r} is not one of {', '.join(BETS)}")
        _check_amount(f"{self.bet} minimum", self.minimum)
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


def money(value: Decimal, currency: str, locale: str) -> dict[str, str]:
    """An amount as the view sends it: exact, its currency, and as the language writes it."""
    from babel.numbers import format_currency, get_currency_precision

    exact = value.quantize(Decimal(1).scaleb(-get_currency_precision(currency)))
    return {"value": str(exact), "currency": currency,
            "text": format_currency(exact, currency, locale=locale)}


def bank_view(bank: Bank | None, locale: str) -> dict[str, Any] | None:
    if bank is None:
        return None
    return {"amount": money(bank.amount, bank.currency, locale),
            "holder_seat": bank.holder_seat, "banco_seat": bank.banco_seat, "suivi": bank.suivi}


def limits_view(limits: Limits | None, locale: str) -> dict[str, Any] | None:
    if limits is None:
        return None
    return {"currency": limits.currency, "bets": [
        {"bet": row.bet, "minimum": money(row.minimum, limits.currency, locale),
         "maximum": money(row.maximum, limits.currency, locale)} for row in limits.bets]}
