"""The table's limits: the `[money]` table of the configuration over the seed's figures.

Where the seed prints a figure (000: "The minimum stake for the bank is 10 Guildens", "The
minimum stake for a punter is 2 Guildens", "Maximum 2400 Guldens"; 001, 003, 004: 5 %) it is
the default and the table may set its own (001: "The Inspector has the right to change the
minimum stake limits at any time"); where the seed leaves it to the table (003: "Die
Mindesteinsätze ... werden am Spieltisch angezeigt") the configuration must give it, and a
table without it is refused at start with the setting's name. A TOML float is refused like
any float: write `min_bank = 50` or `min_bank = "0.50"`.

The limits in force are part of every round's record (`TableLimits.to_dict`): a settlement
is recomputed from the round it was played under, whatever the configuration says later.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from shoe_daemon.game.rules import Game
from shoe_daemon.money.amounts import AmountError, is_multiple, to_decimal
from shoe_daemon.money.display import format_money
from shoe_daemon.money.players import MAX_PLACES
from shoe_daemon.money.profile import Limit, MoneyProfile, SetAside, Term
from shoe_daemon.money.refusals import Refusal


class LimitsError(ValueError):
    """A `[money]` setting is missing or wrong; the message names it."""


@dataclass(frozen=True)
class TableLimits:
    chip: Decimal  # every stake is a whole number of chips
    commission_percent: Decimal
    min_stake: Decimal  # Punto Banco: of Punto, Banco and Egalité
    max_stake: Decimal | None  # None: no maximum
    places: int = 0  # Chemin de fer: the table's places; Punto Banco: its boxes
    min_bank: Decimal | None = None  # Chemin de fer only
    max_bank: Decimal | None = None
    nine_min_stake: Decimal | None = None  # Punto Banco's Swiss Nine bets
    nine_max_stake: Decimal | None = None
    #: 003: the Schokolade set aside by the settlement (SET_ASIDE, the ruling of issue 20)
    #: or only when the banker asks for it (ASKED: "kann der Bankhalter ... zur Seite
    #: stellen lassen"), as before issue 20.
    schokolade: str = "set_aside"

    def to_dict(self) -> dict[str, Any]:
        """Amounts as strings, None for no limit or not used; `schokolade` only when the
        table asks for it (so a round of the default reads as before issue 20)."""
        asked = {"schokolade": ASKED} if self.schokolade == ASKED else {}
        return {**asked,
            "chip": str(self.chip),
            "commission_percent": str(self.commission_percent),
            "min_stake": str(self.min_stake),
            "max_stake": _text(self.max_stake),
            "places": self.places,
            "min_bank": _text(self.min_bank),
            "max_bank": _text(self.max_bank),
            "nine_min_stake": _text(self.nine_min_stake),
            "nine_max_stake": _text(self.nine_max_stake),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableLimits:
        def opt(key: str) -> Decimal | None:
            return None if data.get(key) is None else to_decimal(data[key], key)

        return cls(
            chip=to_decimal(data["chip"], "chip"),
            commission_percent=to_decimal(data["commission_percent"], "commission_percent"),
            min_stake=to_decimal(data["min_stake"], "min_stake"),
            max_stake=opt("max_stake"),
            places=int(data["places"]),
            min_bank=opt("min_bank"),
            max_bank=opt("max_bank"),
            nine_min_stake=opt("nine_min_stake"),
            nine_max_stake=opt("nine_max_stake"),
            schokolade=_schokolade(data.get("schokolade", SET_ASIDE), "schokolade"),
        )


def put_down(profile: MoneyProfile, limits: TableLimits, amount: Decimal, what: str,
             minimum: Term[Any]) -> None:
    """`amount` is something a player puts down (a stake, a bet, a bank, a bid, a share, a
    garage): more than nothing (`no_amount`, citing the `minimum` it must reach) and a whole
    number of the table's chip (`not_a_chip`); else a Refusal saying which."""
    money = format_money(amount, profile.currency.value, profile.locale.value)
    if amount == 0:
        raise Refusal("no_amount", f"a {what} of {money} is nothing: enter the amount "
                      "put down", minimum.source)
    if amount < 0:
        raise Refusal("no_amount", f"a {what} cannot be negative ({money})", minimum.source)
    if not is_multiple(amount, limits.chip):
        chip = format_money(limits.chip, profile.currency.value, profile.locale.value)
        raise Refusal("not_a_chip", f"{money} is not a whole number of the table's chip "
                      f"({chip})", profile.chip.source)


def _text(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


CHEMIN_DE_FER_KEYS = frozenset(
    {"chip", "commission_percent", "min_stake", "max_stake", "places", "min_bank", "max_bank",
     "schokolade"}
)
SET_ASIDE, ASKED = "set_aside", "asked"
PUNTO_BANCO_KEYS = frozenset(
    {"chip", "commission_percent", "min_stake", "max_stake", "boxes", "nine_min_stake",
     "nine_max_stake"}
)


def table_limits(profile: MoneyProfile, settings: Mapping[str, Any] | None = None) -> TableLimits:
    """The limits of a table of `profile` from its `[money]` settings (None: none given)."""
    settings = {} if settings is None else settings
    if not isinstance(settings, Mapping):
        raise LimitsError("money: must be a table ([money])")
    cdf = profile.game is Game.CHEMIN_DE_FER
    known = CHEMIN_DE_FER_KEYS if cdf else PUNTO_BANCO_KEYS
    unknown = sorted(set(settings) - known)
    if unknown:
        raise LimitsError(f"money.{unknown[0]}: unknown setting for a {profile.game} table "
                          f"(known: {', '.join(sorted(known))})")
    unit = profile.currency.value.unit
    chip = _amount(settings, "chip", profile.chip, profile)
    if chip is None or chip <= 0 or not is_multiple(chip, unit):
        raise LimitsError(f"money.chip: {chip} is not a positive multiple of the currency's unit "
                          f"({unit} {profile.currency.value.code})")
    rate = _amount(settings, "commission_percent", profile.commission, profile)
    if rate is None or not 0 <= rate < 100:
        raise LimitsError(f"money.commission_percent: {rate} is not a percentage from 0 to "
                          "below 100")
    min_stake = _amount(settings, "min_stake", profile.min_stake, profile)
    max_stake = _amount(settings, "max_stake", profile.max_stake, profile)
    _pair(chip, "min_stake", min_stake, "max_stake", max_stake)
    if min_stake is None:
        raise LimitsError(f"money.min_stake: {profile.name} needs a minimum stake")
    if cdf:
        rules = profile.chemin_de_fer
        assert rules is not None
        places = _count(settings, "places", rules.places.value)
        min_bank = _amount(settings, "min_bank", profile.min_bank, profile)
        max_bank = _amount(settings, "max_bank", profile.max_bank, profile)
        if min_bank is None:
            raise LimitsError(f"money.min_bank: {profile.name} needs a minimum bank")
        _pair(chip, "min_bank", min_bank, "max_bank", max_bank)
        schokolade = _schokolade(settings.get("schokolade", SET_ASIDE), "money.schokolade")
        if "schokolade" in settings and rules.set_aside.value is not SetAside.SCHOKOLADE:
            raise LimitsError(f"money.schokolade: {profile.name} sets no Schokolade aside "
                              f"({rules.set_aside.source})")
        return TableLimits(chip, rate, min_stake, max_stake, places, min_bank, max_bank,
                           schokolade=schokolade)
    pb = profile.punto_banco
    assert pb is not None
    boxes = _count(settings, "boxes", pb.boxes.value)
    nine_min = _amount(settings, "nine_min_stake", pb.nine_limits, profile)
    nine_max = _amount(settings, "nine_max_stake", pb.nine_limits, profile)
    _pair(chip, "nine_min_stake", nine_min, "nine_max_stake", nine_max)
    if nine_min is None:
        raise LimitsError("money.nine_min_stake: the Swiss Nine bets need a minimum")
    return TableLimits(chip, rate, min_stake, max_stake, boxes, nine_min_stake=nine_min,
                       nine_max_stake=nine_max)


def _amount(settings: Mapping[str, Any], key: str, term: Term[Any], profile: MoneyProfile
            ) -> Decimal | None:
    """A setting if given ("none": no limit), else the seed's figure; a limit the seed leaves
    to the table is required."""
    if key in settings:
        value = settings[key]
        if isinstance(value, str) and value.strip().lower() == "none" and key.startswith(
                ("max_", "nine_max")):
            return None
        try:
            number = to_decimal(value, f"money.{key}")
        except AmountError as error:
            raise LimitsError(str(error)) from None
        if number < 0:
            raise LimitsError(f"money.{key}: {number} is negative")
        return number
    if isinstance(term.value, Decimal):
        return term.value
    if term.value is Limit.NONE:
        return None
    raise LimitsError(f"money.{key}: {profile.name} leaves it to the table, so the "
                      f"configuration must give it ({term.source})")


def _pair(chip: Decimal, low_key: str, low: Decimal | None, high_key: str,
          high: Decimal | None) -> None:
    for key, value in ((low_key, low), (high_key, high)):
        if value is not None and (value <= 0 or not is_multiple(value, chip)):
            raise LimitsError(f"money.{key}: {value} is not a positive number of chips ({chip})")
    if low is not None and high is not None and low > high:
        raise LimitsError(f"money.{low_key}: {low} is above money.{high_key} {high}")


def _schokolade(value: Any, key: str) -> str:
    if value not in (SET_ASIDE, ASKED):
        raise LimitsError(f"{key}: {SET_ASIDE!r} (by the settlement, the default) or "
                          f"{ASKED!r} (when the banker asks), not {value!r}")
    return str(value)


def _count(settings: Mapping[str, Any], key: str, default: int) -> int:
    value = settings.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= MAX_PLACES:
        raise LimitsError(f"money.{key}: must be a whole number from 2 to {MAX_PLACES}, "
                          f"not {value!r}")
    return value
