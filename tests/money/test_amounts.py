"""Amounts are exact decimals in a currency's unit; floats and the like are refused at the
boundary; players read them in their house's conventions."""

from __future__ import annotations

import decimal
from decimal import Decimal

import pytest

from shoe_daemon.money.amounts import AmountError, Currency, to_decimal
from shoe_daemon.money.display import Locale, format_bank, format_money
from shoe_daemon.money.houses import MONEY_PROFILES

CHF = MONEY_PROFILES["baden"].currency.value
GBP = MONEY_PROFILES["clermont-2015"].currency.value


@pytest.mark.parametrize("value", [1170.0, 0.1, float("nan"), True, None, [1], b"12",
                                   Decimal("NaN"), Decimal("Infinity"), "1E3", "1e3", " 12",
                                   "12 ", "+12", "1_000", "12.", ".5", "0x10", "١٢", "--1",
                                   "1" * 16, "9" * 40])
def test_not_an_amount(value: object) -> None:
    with pytest.raises(AmountError):
        to_decimal(value)


def test_float_refusal_says_why() -> None:
    with pytest.raises(AmountError, match="never float"):
        to_decimal(12.5, "stake")


@pytest.mark.parametrize(("value", "expected"), [(1170, "1170"), ("1170", "1170"),
                                                  ("0.05", "0.05"), ("-30.5", "-30.5"),
                                                  (Decimal("12.50"), "12.50")])
def test_amounts_taken(value: object, expected: str) -> None:
    assert to_decimal(value) == Decimal(expected)


def test_currency_unit_and_canonical_text() -> None:
    assert CHF.amount("1170") == Decimal("1170.00") and CHF.text(Decimal(1170)) == "1170.00"
    assert CHF.amount("0.35") == Decimal("0.35")
    with pytest.raises(AmountError, match="smallest unit"):
        CHF.amount("0.03")
    with pytest.raises(AmountError, match="smallest unit"):
        GBP.amount("0.005")
    whole = Currency("XXX", "chip", Decimal(1))
    assert whole.text(Decimal("12.0")) == "12"
    with pytest.raises(AmountError):
        whole.amount("12.5")


@pytest.mark.parametrize(("won", "percent", "expected"), [
    ("600", "5", "30.00"),  # 003's worked example
    ("613", "5", "30.65"),
    ("0.95", "5", "0.00"),  # 0.0475 -> 0.00: down, never up
    ("1.05", "5", "0.05"),  # 0.0525 -> 0.05
    ("33", "2.5", "0.80"),  # 0.825 -> 0.80
])
def test_commission_rounds_down_to_the_unit(won: str, percent: str, expected: str) -> None:
    assert CHF.percent(Decimal(won), Decimal(percent)) == Decimal(expected)


def test_rounding_ignores_the_global_context() -> None:
    with decimal.localcontext() as ctx:
        ctx.prec = 3
        ctx.rounding = decimal.ROUND_UP
        assert CHF.percent(Decimal("123456"), Decimal(5)) == Decimal("6172.80")
        assert CHF.toward_zero(Decimal("-0.07")) == Decimal("-0.05")


@pytest.mark.parametrize(("name", "amount", "text"), [
    ("baden", "1170", "Banque Fr. 1,170"),
    ("baden", "1169.50", "Banque Fr. 1,169.50"),
    ("baden", "1234567", "Banque Fr. 1,234,567"),
    ("clermont-2015", "1170", "Bank £1,170"),
    ("zoppot-1934", "10", "10 Guildens banco"),
    ("zoppot-1934", "2400", "2400 Guildens banco"),
    ("eight-pack", "1170", "Bank 1,170 credits"),
    ("shimmy", "999", "Bank 999 chips"),
])
def test_the_bank_as_players_read_it(name: str, amount: str, text: str) -> None:
    p = MONEY_PROFILES[name]
    assert format_bank(Decimal(amount), p.currency.value, p.locale.value) == text


def test_negative_and_fractional_amounts() -> None:
    p = MONEY_PROFILES["clermont-2015"]
    assert format_money(Decimal("-30.5"), p.currency.value, p.locale.value) == "-£30.50"
    assert format_money(Decimal("0.05"), CHF, MONEY_PROFILES["baden"].locale.value) == "Fr. 0.05"


def test_a_locale_needs_its_bank_form() -> None:
    with pytest.raises(ValueError, match="money"):
        Locale("Fr.", True, True, ",", ".", "Banque")
    with pytest.raises(ValueError, match="differ"):
        Locale("Fr.", True, True, ".", ".", "{money}")


def test_a_zero_has_no_sign() -> None:
    assert CHF.text(-Decimal("0.00")) == "0.00" and CHF.text(Decimal("-0")) == "0.00"
    with pytest.raises(AmountError):
        CHF.text(Decimal("0.03"))
