"""Amounts as the players read them: "Banque Fr. 1,170", "£1,170", "10 Guildens banco".

A house's conventions are data (`Locale`, held in its money profile with the reason for
each choice): the currency's sign and where it goes, the thousands and decimal separators,
and how the bank is called. A whole amount is written without decimals ("Fr. 1,170"), any
other with all of the currency's ("Fr. 1,169.50"), as a croupier calls it.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from shoe_daemon.money.amounts import Currency


@dataclass(frozen=True)
class Locale:
    sign: str  # "Fr.", "£", "Guildens"
    sign_first: bool  # "Fr. 1,170" (True) or "1,170 chips" (False)
    space: bool  # a space between the sign and the number
    group: str  # thousands separator: ",", "'" or "" for none
    point: str  # decimal separator
    bank: str  # how the bank is shown, around "{money}": "Banque {money}", "{money} banco"

    def __post_init__(self) -> None:
        if "{money}" not in self.bank:
            raise ValueError(f"the bank's form {self.bank!r} must contain {{money}}")
        if self.group == self.point:
            raise ValueError("the thousands and decimal separators must differ")


def format_money(amount: Decimal, currency: Currency, locale: Locale) -> str:
    """`amount` as players read it: "Fr. 1,170", "-£30.50", "2400 Guildens"."""
    value = currency.amount(amount)
    negative = value < 0
    digits = format(abs(value), "f")
    whole, _, fraction = digits.partition(".")
    if fraction.strip("0") == "":
        fraction = ""
    groups = []
    while len(whole) > 3 and locale.group:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    number = locale.group.join([whole, *groups])
    if fraction:
        number += locale.point + fraction
    gap = " " if locale.space else ""
    text = f"{locale.sign}{gap}{number}" if locale.sign_first else f"{number}{gap}{locale.sign}"
    return f"-{text}" if negative else text


def format_bank(amount: Decimal, currency: Currency, locale: Locale) -> str:
    """The bank as the table shows it: "Banque Fr. 1,170"."""
    return locale.bank.format(money=format_money(amount, currency, locale))
