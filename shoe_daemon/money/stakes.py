"""One stake and the bank it is played against, with their serialised forms.

A stake's `amount` is what the player put down; its `value` is what it is worth in play
(the amount, or half of it over the line at 001). Every stake is its own line (000 rule 2:
"Each stake must be placed separately."), numbered s1, s2, ... in the order placed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any

from shoe_daemon.money.amounts import ZERO, Currency
from shoe_daemon.money.players import Player


class RecordError(ValueError):
    """A serialised form that cannot be read back; says which field."""


class StakeKind(StrEnum):
    BANCO_SOLO = "banco_solo"  # 000 I
    BANCO = "banco"  # 000 II: the banco player's own part
    SHARE = "share"  # 000 II: a shareholder's part of a banco
    WITH_TABLE = "banco_with_table"  # 000 III: the punter's own stake
    TABLE = "table"  # a seated player's stake: the general game, or the table's part of III
    OUTSIDER = "outsider"  # a player not seated
    DIFFERENCE = "difference"  # 000 III: what the banco with the table answers for at closing


#: The kinds a banco call makes (the player holds the hand and may have the suivi).
BANCO_FORMS = frozenset({StakeKind.BANCO_SOLO, StakeKind.BANCO, StakeKind.WITH_TABLE})


@dataclass(frozen=True)
class Stake:
    id: str
    who: Player
    kind: StakeKind
    amount: Decimal
    value: Decimal
    over_line: bool = False
    box: int | None = None  # an outsider's box (001: "the box in front of them")
    of: str | None = None  # a share's or a difference's banco stake

    def to_dict(self, currency: Currency) -> dict[str, Any]:
        return {
            "id": self.id,
            "who": self.who.key,
            "kind": self.kind.value,
            "amount": currency.text(self.amount),
            "value": currency.text(self.value),
            "over_line": self.over_line,
            "box": self.box,
            "of": self.of,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], currency: Currency) -> Stake:
        try:
            return cls(
                id=_text(data["id"], "id"),
                who=Player.parse(data["who"]),
                kind=StakeKind(data["kind"]),
                amount=currency.amount(data["amount"], "amount"),
                value=currency.amount(data["value"], "value"),
                over_line=_flag(data["over_line"], "over_line"),
                box=_optional_int(data["box"], "box"),
                of=None if data["of"] is None else _text(data["of"], "of"),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise RecordError(f"stake {dict(data)!r}: {error}") from None


@dataclass(frozen=True)
class BankInPlay:
    """The bank a round is played against, as it stood when betting opened."""

    banker: Player
    amount: Decimal | None  # None: an open bank (000 rule 5), fixed when betting closes
    partner: Player | None = None
    partner_amount: Decimal = ZERO
    anchor: int | None = None  # the banker in turn's place: Prime is counted from it
    last_banker: Player | None = None  # the banker before one out of turn (000 rule 26)
    suivi: Player | None = None  # who may banco first (the suivi)

    def to_dict(self, currency: Currency) -> dict[str, Any]:
        return {
            "banker": self.banker.key,
            "amount": None if self.amount is None else currency.text(self.amount),
            "partner": None if self.partner is None else self.partner.key,
            "partner_amount": currency.text(self.partner_amount),
            "anchor": self.anchor,
            "last_banker": None if self.last_banker is None else self.last_banker.key,
            "suivi": None if self.suivi is None else self.suivi.key,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], currency: Currency) -> BankInPlay:
        def player(key: str) -> Player | None:
            return None if data[key] is None else Player.parse(data[key])

        try:
            banker = Player.parse(data["banker"])
            amount = None if data["amount"] is None else currency.amount(data["amount"])
            return cls(banker, amount, player("partner"),
                       currency.amount(data["partner_amount"]),
                       _optional_int(data["anchor"], "anchor"), player("last_banker"),
                       player("suivi"))
        except (KeyError, TypeError, ValueError) as error:
            raise RecordError(f"bank {dict(data)!r}: {error}") from None


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > 40:
        raise RecordError(f"{what}: not a short text: {value!r}")
    return value


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise RecordError(f"{what}: not true or false: {value!r}")
    return value


def _optional_int(value: Any, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{what}: not a whole number: {value!r}")
    return value
