"""A settled coup: each stake's line in the house's payment order, the commission, the bank.

`Line` is one stake's (or the bank's) result: what was put down (`staked`), what of it was
in play (`in_play`, covered by the bank), the `result` (won, lost, returned, stays), what the
croupier hands back (`paid`), what stays on the table for the next coup (`carried`: the
bank kept, a Punto Banco stake after égalité), the `commission` taken on it, and the `net`
gain (paid + carried - staked). Money is conserved to the unit: the nets and the commission
add up to zero (`Settlement.balance`), which every settlement is checked for when made.

The serialised form (`to_dict`, amounts as strings with the currency's decimals) is the
ledger's `money.settlement` record; `from_dict` reads it back, and `first_difference` names
the first field where a recorded settlement and its recomputation disagree.

`Result` reads what a settlement needs from the published `coup.result` line
(shoe_daemon/game/results.py): the outcome and, for Swiss Nine, the Banco side's cards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from shoe_daemon.game.cards import is_card
from shoe_daemon.game.results import OUTCOMES
from shoe_daemon.money.amounts import CONTEXT, Currency, add
from shoe_daemon.money.players import place_of, seat_key
from shoe_daemon.money.stakes import RecordError

WON, LOST, RETURNED, STAYS = "won", "lost", "returned", "stays"
RESULTS = (WON, LOST, RETURNED, STAYS)


@dataclass(frozen=True)
class Result:
    """What a settlement reads from a `coup.result` line."""

    shoe: int
    coup: int
    profile: str
    outcome: str  # banker, punter, egalite, cancelled, void
    banker_cards: tuple[str, ...]
    swiss_nine: tuple[str, ...] | None = None  # as the line reports it (Punto Banco)

    @property
    def void(self) -> bool:
        """A cancelled (000 rule 24) or void coup: every stake goes back."""
        return self.outcome in ("cancelled", "void")

    @classmethod
    def of_line(cls, line: Mapping[str, Any]) -> Result:
        """From a published `coup.result` line; RecordError says what is wrong with it."""
        try:
            if line.get("event") != "coup.result":
                raise RecordError(f"not a coup.result line: {line.get('event')!r}")
            shoe, coup, outcome = line["shoe"], line["coup"], line["outcome"]
            for number in (shoe, coup):
                if isinstance(number, bool) or not isinstance(number, int) or number < 1:
                    raise RecordError(f"shoe and coup are numbers from 1, not {number!r}")
            if outcome not in OUTCOMES:
                raise RecordError(f"outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
            cards = tuple(line["banker"]["cards"])
            if not all(isinstance(c, str) and is_card(c) for c in cards):
                raise RecordError(f"banker's cards {list(cards)!r} are not card codes")
            nine = line.get("swiss_nine")
            return cls(shoe, coup, str(line["profile"]), outcome, cards,
                       None if nine is None else tuple(nine))
        except RecordError:
            raise
        except (KeyError, TypeError, AttributeError) as error:
            raise RecordError(f"coup.result line: {error!r}") from None


@dataclass(frozen=True)
class Line:
    who: str  # a player's key ("seat 3", "outsider A"), "box 4", or "house" (Punto Banco)
    kind: str  # the stake's kind; "bank" (the banker's), "partner", "house"; a Punto Banco bet
    stake: str | None  # the stake's id
    staked: Decimal
    in_play: Decimal
    result: str
    paid: Decimal
    carried: Decimal
    commission: Decimal
    net: Decimal

    def __post_init__(self) -> None:
        if self.result not in RESULTS:
            raise ValueError(f"result {self.result!r} is not one of {RESULTS}")
        if CONTEXT.subtract(CONTEXT.add(self.paid, self.carried), self.staked) != self.net:
            raise ValueError(f"line {self.stake or self.who}: paid {self.paid} + carried "
                             f"{self.carried} - staked {self.staked} is not net {self.net}")

    def to_dict(self, currency: Currency) -> dict[str, Any]:
        text = currency.text
        return {"who": self.who, "kind": self.kind, "stake": self.stake,
                "staked": text(self.staked), "in_play": text(self.in_play),
                "result": self.result, "paid": text(self.paid), "carried": text(self.carried),
                "commission": text(self.commission), "net": text(self.net)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], currency: Currency) -> Line:
        return cls(str(data["who"]), str(data["kind"]), data["stake"],
                   *(currency.amount(data[k], k) for k in ("staked", "in_play")),
                   str(data["result"]),
                   *(currency.amount(data[k], k) for k in ("paid", "carried", "commission",
                                                           "net")))


@dataclass(frozen=True)
class BankAfter:
    """The Chemin de fer bank after the coup."""

    holder: str  # the banker's key
    before: Decimal  # the bank in play
    after: Decimal  # the bank that stays (0 when it ends)
    partner_after: Decimal  # the partner's part of `after`
    uncovered: Decimal  # the part of the bank nobody staked against in a coup it won
    ends: bool  # the bank leaves the banker (a loss, or 002's rotation)
    passes_to: int | None  # the place whose turn it is to bank, when it ends
    #: 003's Schokolade set aside by this settlement (issue 20: "gehört im nächsten Spiel
    #: nicht mehr zur Banksumme"); None where the house sets nothing aside, and in a ledger
    #: written before issue 20, where the uncovered part stayed in the bank until the banker
    #: asked for it (a `schokolade` action): the record then has no `set_aside`.
    set_aside: Decimal | None = None

    def to_dict(self, currency: Currency) -> dict[str, Any]:
        out = {"holder": self.holder, "before": currency.text(self.before),
               "after": currency.text(self.after),
               "partner_after": currency.text(self.partner_after),
               "uncovered": currency.text(self.uncovered), "ends": self.ends,
               "passes_to": seat_key(self.passes_to)}
        if self.set_aside is not None:
            out["set_aside"] = currency.text(self.set_aside)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], currency: Currency) -> BankAfter:
        """Read back; `passes_to` as a player's key or, written before issue 20, a place."""
        set_aside = data.get("set_aside")
        return cls(str(data["holder"]), currency.amount(data["before"]),
                   currency.amount(data["after"]), currency.amount(data["partner_after"]),
                   currency.amount(data["uncovered"]), bool(data["ends"]),
                   place_of(data["passes_to"]),
                   None if set_aside is None else currency.amount(set_aside, "set_aside"))


@dataclass(frozen=True)
class Settlement:
    profile: str
    shoe: int
    coup: int
    outcome: str
    currency: Currency
    lines: tuple[Line, ...]
    commission: Decimal
    bank: BankAfter | None = None  # Chemin de fer
    suivi: str | None = None  # who has the suivi in the next coup
    counts: bool = True  # money was in play and the coup was played (not void or cancelled)
    rules: tuple[str, ...] = field(default=())  # the terms applied, by name (profile.term)
    #: The term whose order the lines are in (they are paid line by line as they come):
    #: "chemin_de_fer.payment_order" (000 rule 26), "punto_banco.payment_order".
    order: str | None = None

    def __post_init__(self) -> None:
        if self.balance() != 0:
            raise ValueError(f"shoe {self.shoe} coup {self.coup}: money is not conserved "
                             f"(nets and commission add up to {self.balance()})")
        if add(*(line.commission for line in self.lines)) != self.commission:
            raise ValueError("the commission is not the sum of the lines' commissions")

    def balance(self) -> Decimal:
        """What was lost minus what was won and taken: always 0."""
        return add(*(line.net for line in self.lines), self.commission)

    @property
    def carried(self) -> tuple[Line, ...]:
        """The players' lines that stay on the table for the next coup."""
        return tuple(line for line in self.lines if line.result == STAYS)

    def to_dict(self) -> dict[str, Any]:
        c = self.currency
        return {
            "event": "money.settlement",
            "profile": self.profile,
            "shoe": self.shoe,
            "coup": self.coup,
            "outcome": self.outcome,
            "currency": c.code,
            "lines": [line.to_dict(c) for line in self.lines],
            "commission": c.text(self.commission),
            "bank": None if self.bank is None else self.bank.to_dict(c),
            "suivi": self.suivi,
            "counts": self.counts,
            "rules": list(self.rules),
            "order": self.order,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], currency: Currency) -> Settlement:
        try:
            if data["event"] != "money.settlement" or data["currency"] != currency.code:
                raise RecordError(f"not a money.settlement in {currency.code}")
            return cls(str(data["profile"]), int(data["shoe"]), int(data["coup"]),
                       str(data["outcome"]), currency,
                       tuple(Line.from_dict(x, currency) for x in data["lines"]),
                       currency.amount(data["commission"]),
                       None if data["bank"] is None else BankAfter.from_dict(data["bank"],
                                                                               currency),
                       data["suivi"], bool(data["counts"]), tuple(data["rules"]),
                       data.get("order"))
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError) as error:
            raise RecordError(f"settlement record: {error}") from None


def first_difference(recorded: Any, computed: Any, path: str = "") -> str | None:
    """The first place where two serialised forms differ, in words; None when equal."""
    here = path or "the record"
    if isinstance(computed, Mapping):
        if not isinstance(recorded, Mapping):
            return f"{here}: recorded {recorded!r}, the rules give an object"
        for key in computed:
            if key not in recorded:
                return f"{path + '.' if path else ''}{key}: missing from the record"
            found = first_difference(recorded[key], computed[key],
                                     f"{path + '.' if path else ''}{key}")
            if found:
                return found
        extra = [k for k in recorded if k not in computed]
        return f"{path + '.' if path else ''}{extra[0]}: not in the rules' settlement" if extra \
            else None
    if isinstance(computed, Sequence) and not isinstance(computed, str):
        if not isinstance(recorded, Sequence) or isinstance(recorded, str):
            return f"{here}: recorded {recorded!r}, the rules give a list"
        for i, (a, b) in enumerate(zip(recorded, computed, strict=False)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(recorded) != len(computed):
            return f"{here}: {len(recorded)} recorded, the rules give {len(computed)}"
        return None
    if type(recorded) is not type(computed) or recorded != computed:
        return f"{here}: recorded {recorded!r}, the rules give {computed!r}"
    return None
