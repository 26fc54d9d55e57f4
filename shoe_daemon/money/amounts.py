"""Amounts of money: `decimal.Decimal` only, never float, in a currency's smallest unit.

Every amount that enters the money package passes `to_decimal` (or `Currency.amount`):
a `Decimal`, an `int` or a plain decimal string ("1170", "12.50") is taken; a float, a bool,
NaN, an infinity, an exponent ("1E3"), a sign other than a leading "-", spaces or anything
longer than 15 integer digits is refused with an `AmountError` naming what was given. A float
cannot say 0.05 exactly, so it would put a rounding error in the ledger before any rule ran.

All arithmetic runs in `CONTEXT` (a fixed decimal context: the process's global context
may be changed by anyone), and every rounding is explicit: `Currency.floor` (a commission,
docs/money.md "Rounding") and `Currency.toward_zero` (a banker's partner's share). Sums and
differences of amounts in one unit are exact and need none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import (
    ROUND_DOWN,
    ROUND_FLOOR,
    ROUND_HALF_EVEN,
    Context,
    Decimal,
    DivisionByZero,
    InvalidOperation,
    Overflow,
)
from typing import Any

#: The one decimal context of the money package: 40 digits (an amount has at most 15 before
#: the point and a few after), and every invalid operation an error, never a NaN.
CONTEXT = Context(
    prec=40, rounding=ROUND_HALF_EVEN, traps=[InvalidOperation, DivisionByZero, Overflow]
)
#: No table handles 10**15 of anything; a longer number is a mistake or an attack.
LIMIT = Decimal(10) ** 15
_PLAIN = re.compile(r"-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,8})?")
ZERO = Decimal(0)


class AmountError(ValueError):
    """An amount that is not an exact decimal in the currency's unit; says what was given."""


def to_decimal(value: Any, what: str = "amount") -> Decimal:
    """`value` as an exact Decimal: a Decimal, an int or a plain decimal string only."""
    if isinstance(value, bool) or value is None:
        raise AmountError(f"{what}: {value!r} is not an amount")
    if isinstance(value, float):
        raise AmountError(
            f"{what}: {value!r} is a float; money is decimal, never float: give it as a "
            "string such as '12.50' or as a Decimal"
        )
    if isinstance(value, int):
        number = Decimal(value)
    elif isinstance(value, Decimal):
        if not value.is_finite():
            raise AmountError(f"{what}: {value!r} is not a finite amount")
        number = value
    elif isinstance(value, str):
        if len(value) > 32 or not _PLAIN.fullmatch(value):
            raise AmountError(
                f"{what}: {value[:40]!r} is not a plain decimal amount (digits, an optional "
                "leading '-', an optional '.' and decimals; no exponent, no spaces)"
            )
        number = Decimal(value)
    else:
        raise AmountError(f"{what}: a {type(value).__name__} is not an amount")
    if abs(number) >= LIMIT:
        raise AmountError(f"{what}: {value!r} is too large for a table's money")
    return number


@dataclass(frozen=True)
class Currency:
    """A house's currency: its code, its name and the smallest amount it counts (`unit`).

    Every amount is a whole number of `unit`s; its text form (`text`, the serialised form)
    has exactly `places` decimals, so the same amount is always the same string."""

    code: str  # "CHF"
    name: str  # "Swiss franc"
    unit: Decimal  # the smallest amount paid or taken: Decimal("0.05")

    places: int = field(init=False, repr=False, compare=False)  # decimals: 2 for 0.05
    quantum: Decimal = field(init=False, repr=False, compare=False)  # Decimal("0.01")
    spec: str = field(init=False, repr=False, compare=False)  # its format: ".2f"

    def __post_init__(self) -> None:
        if not isinstance(self.unit, Decimal) or not self.unit.is_finite() or self.unit <= 0:
            raise AmountError(f"{self.code}: the unit must be a positive Decimal, not "
                              f"{self.unit!r}")
        places = max(0, -int(self.unit.normalize().as_tuple().exponent))
        if places > 8:
            raise AmountError(f"{self.code}: a unit of {self.unit} is finer than 8 decimals")
        object.__setattr__(self, "places", places)
        object.__setattr__(self, "quantum", Decimal(1).scaleb(-places))
        object.__setattr__(self, "spec", f".{places}f")

    def amount(self, value: Any, what: str = "amount") -> Decimal:
        """`value` (see `to_decimal`) as a whole number of units, in canonical form."""
        number = to_decimal(value, what)
        if CONTEXT.remainder(number, self.unit) != 0:
            raise AmountError(
                f"{what}: {number} is not a whole number of the {self.name}'s smallest "
                f"unit ({self.unit} {self.code})"
            )
        return number.quantize(self.quantum, context=CONTEXT)

    def text(self, value: Decimal) -> str:
        """The serialised form: a plain string with exactly `places` decimals ("1170.00")."""
        if type(value) is not Decimal or not value.is_finite() or CONTEXT.remainder(
                value, self.unit):
            value = self.amount(value)  # says what is wrong with it
        # a whole number of units has at most `places` decimals: nothing is rounded here;
        # a zero is "0.00" whatever its sign
        return format(value if value else ZERO, self.spec)

    def floor(self, value: Decimal) -> Decimal:
        """Down to a whole unit (toward minus infinity): a commission the house takes."""
        return self._round(value, ROUND_FLOOR)

    def toward_zero(self, value: Decimal) -> Decimal:
        """To a whole unit toward zero: a share never larger than its exact part."""
        return self._round(value, ROUND_DOWN)

    def percent(self, value: Decimal, percent: Decimal) -> Decimal:
        """`percent` % of `value`, floored to the unit (docs/money.md, "Rounding")."""
        return self.floor(CONTEXT.divide(CONTEXT.multiply(value, percent), 100))

    def _round(self, value: Decimal, rounding: str) -> Decimal:
        units = CONTEXT.divide(value, self.unit).to_integral_value(rounding=rounding)
        return CONTEXT.multiply(units, self.unit).quantize(self.quantum, context=CONTEXT)


def add(*values: Decimal) -> Decimal:
    """An exact sum in the money context (the global context may be anything)."""
    total = ZERO
    for value in values:
        total = CONTEXT.add(total, value)
    return total


def is_multiple(value: Decimal, step: Decimal) -> bool:
    return CONTEXT.remainder(value, step) == 0
