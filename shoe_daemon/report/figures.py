"""The figures of a shift, per shoe, from the ledger's records (docs/report.md says what each
means).

`ShiftReport` is fed every record in ledger order (those before the range too: they say
who held the bank when it began) and counts those of the range, records `first` to `last`
(as an export's: from the first record at or after the time asked to the last before the
end): the coups (`coup.result`), the money (`money.settlement`, corrected
by a supervisor's `money.correction` where one reopened it), the bank's history
(`money.bank`), the voids with who voided them (the console's `action`, the shoe's `KEY`
and `VOID` frames, the resolution of a hold) and the supervisors' corrections. Amounts are
`Decimal` throughout and strings in the house's currency in `to_dict`; nothing is a float.
A hand's Schokolade is what its settlements set aside (003, issue 20) and what the banker
asked for (`money.bank` `schokolade`, a ledger written before); a player is named by his key
(`passes_to: "seat 2"`), an earlier ledger's place numbers read as keys (money/legacy.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from shoe_daemon.audit.layout import iso
from shoe_daemon.audit.ledger import Record
from shoe_daemon.display.words import table_words
from shoe_daemon.game.houses import UnknownProfileError
from shoe_daemon.game.results import OUTCOMES
from shoe_daemon.game.rules import Game
from shoe_daemon.money.amounts import ZERO, Currency
from shoe_daemon.money.houses import get_money_profile
from shoe_daemon.money.legacy import current_form
from shoe_daemon.money.profile import Bet, MoneyProfile

Coup = tuple[int, int]
VOIDED = ("void", "cancelled")
#: The changes of a bank someone holds (an export that begins with one begins in his hand).
HELD_CHANGES = ("settled", "schokolade", "garage", "suite", "new_shoe", "corrected")
ENDING = ("settled", "suite")  # changes of a bank held that may leave it not held


class ReportError(ValueError):
    """The records cannot be reported on (no profile with money rules, a record unreadable)."""


def _decimal(value: Any) -> Decimal:
    try:
        return Decimal(str(value))
    except ArithmeticError as error:
        raise ReportError(f"not an amount: {value!r}") from error


@dataclass
class Side:
    """What one side won and lost: `won` the sum of its winning lines' nets, `lost` the sum
    of its losing lines' (as a positive amount), `net` the two together."""

    staked: Decimal = ZERO
    won: Decimal = ZERO
    lost: Decimal = ZERO

    def add(self, line: Mapping[str, Any], played: bool) -> None:
        """A settlement line; `played`: its coup was played (not void or cancelled)."""
        net = _decimal(line["net"])
        if played and line.get("stake") and line["result"] != "stays":
            self.staked += _decimal(line["staked"])
        if net > 0:
            self.won += net
        elif net < 0:
            self.lost -= net

    @property
    def net(self) -> Decimal:
        return self.won - self.lost

    def to_dict(self, c: Currency, staked: bool) -> dict[str, str]:
        out = {"won": c.text(self.won), "lost": c.text(self.lost), "net": c.text(self.net)}
        return {"staked": c.text(self.staked), **out} if staked else out


@dataclass(eq=False)
class Hand:
    """One banker's bank within one shoe: how he came by it, from what to what, what he set
    aside, how it ended."""

    holder: str | None
    partner: str | None
    taken: str  # in turn, open bank, the offer, auction, before the range, from shoe N
    start: Decimal | None  # None: an open bank until its first coup
    index: int  # the ledger record it starts at (or the first of the range)
    amount: Decimal | None = None  # the bank now
    coups: int = 0  # settled coups with stakes
    won: int = 0
    lost: int = 0
    egalite: int = 0
    schokolade: Decimal = ZERO
    garage: Decimal = ZERO
    ended: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        self.amount = self.start

    def to_dict(self, c: Currency) -> dict[str, Any]:
        def text(value: Decimal | None) -> str | None:
            return None if value is None else c.text(value)

        return {"holder": self.holder, "partner": self.partner, "taken": self.taken,
                "from": text(self.start), "to": text(self.amount), "coups": self.coups,
                "won": self.won, "lost": self.lost, "egalite": self.egalite,
                "schokolade": c.text(self.schokolade), "garage": c.text(self.garage),
                "ended": self.ended, "ledger_index": self.index}


@dataclass
class ShoeFigures:
    shoe: int
    coups: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    first: int | None = None  # its first and last coup numbers in the range
    last: int | None = None
    earliest: int | None = None  # wall times
    latest: int | None = None
    settlements: dict[Coup, Mapping[str, Any]] = field(default_factory=dict)
    hands: list[Hand] = field(default_factory=list)
    offers: list[dict[str, Any]] = field(default_factory=list)
    voids: list[dict[str, Any]] = field(default_factory=list)
    corrections: list[dict[str, Any]] = field(default_factory=list)

    def seen(self, coup: int | None, wall_ns: int) -> None:
        if coup is not None:
            self.first = coup if self.first is None else min(self.first, coup)
            self.last = coup if self.last is None else max(self.last, coup)
        self.earliest = wall_ns if self.earliest is None else min(self.earliest, wall_ns)
        self.latest = wall_ns if self.latest is None else max(self.latest, wall_ns)


def money_figures(profile: MoneyProfile, settlements: list[Mapping[str, Any]]
                  ) -> dict[str, Any]:
    """The drop, the stakes, the commission and each side's wins and losses of these
    settlements (docs/report.md)."""
    c = profile.currency.value
    staked = drop = commission = ZERO
    counted = 0
    cdf = profile.game is Game.CHEMIN_DE_FER
    sides: dict[str, Side] = {"bank": Side(), "punters": Side()} if cdf else {
        **{b.value: Side() for b in Bet}, "house": Side()}
    for settlement in settlements:
        commission += _decimal(settlement["commission"])
        stakes = [line for line in settlement["lines"] if line.get("stake")]
        if settlement.get("counts") and stakes:
            counted += 1
        for line in stakes:
            if settlement.get("outcome") in VOIDED or line["result"] == "stays":
                continue  # nothing was played; a bet that stays is counted when decided
            staked += _decimal(line["staked"])
            if line["result"] in ("won", "lost"):
                drop += _decimal(line["in_play"])
        played = settlement.get("outcome") not in VOIDED
        for line in settlement["lines"]:
            if cdf:
                sides["punters" if line.get("stake") else "bank"].add(line, played)
            else:
                sides.get(line["kind"], sides["house"]).add(line, played)
    out: dict[str, Any] = {
        "settled": len(settlements), "with_stakes": counted, "staked": c.text(staked),
        "drop": c.text(drop), "commission": c.text(commission),
        "sides": {name: side.to_dict(c, staked=name not in ("bank", "house"))
                  for name, side in sides.items()},
    }
    if not cdf:
        house = sides["house"]
        out["house"] = {"net": c.text(house.net), "commission": c.text(commission),
                        "result": c.text(house.net + commission)}
    return out


class ShiftReport:
    """Feed every record in order (`feed`), then `to_dict`."""

    def __init__(self, first: int, last: int, start_ns: int | None = None,
                 end_ns: int | None = None, profile: str | None = None,
                 display: Mapping[str, Any] | None = None):
        self.span = (first, last)  # the range's records, by index
        self.start_ns, self.end_ns = start_ns, end_ns  # the times asked, as asked
        self.profile: MoneyProfile | None = None
        self.table: str | None = None
        self.display = display or {}  # the table's display_language and display_terms
        self._profile(profile)
        self.shoes: dict[int, ShoeFigures] = {}
        self.shoe: int | None = None  # the shoe in play
        self.hand: Hand | None = None  # the bank's hand in play, in the range
        self.bank: dict[str, Any] | None = None  # the bank's state as last recorded
        self.settlement: Mapping[str, Any] | None = None  # the last one, for its bank record
        self.txn: list[Record] = []
        self.txn_key: tuple[str, int, int] | None = None
        self.key: tuple[str, int] | None = None  # the last supervisor's KEY at the shoe
        self.records = 0
        self.first: int | None = None
        self.last: int | None = None

    def _profile(self, name: Any) -> None:
        if isinstance(name, str):
            try:
                self.profile = get_money_profile(name)
            except UnknownProfileError:
                self.profile = None

    def inside(self, record: Record) -> bool:
        return self.span[0] <= record.idx <= self.span[1]

    # --- feeding ----------------------------------------------------------------------------

    def feed(self, record: Record) -> None:
        key = (record.boot, record.wall_ns, record.mono_ns)
        if key != self.txn_key:
            self.flush()
            self.txn_key = key
        self.txn.append(record)

    def flush(self) -> None:
        records, self.txn = self.txn, []
        for record in records:
            self._record(record, records)

    def _record(self, record: Record, txn: list[Record]) -> None:
        body = record.body if isinstance(record.body, dict) else {}
        inside = self.inside(record)
        if inside:
            self.records += 1
            self.first = self.first if self.first is not None else record.idx
            self.last = record.idx
        kind = record.kind
        if kind == "daemon.start":
            self._profile(body.get("profile"))
            self.table = body.get("table", self.table)
            config = body.get("config")
            if isinstance(config, dict) and record.idx <= self.span[1]:  # as the range ran
                self.display = {"language": config.get("display_language"),
                                "terms": config.get("display_terms")}
        elif kind == "frame" and body.get("type") == "BTN" and body.get("fields", [None])[0] \
                == "KEY" and len(body.get("fields", [])) > 1:
            badge = body.get("badge") if isinstance(body.get("badge"), dict) else {}
            self.key = (str(body["fields"][1]), str(badge.get("role") or "supervisor"))
        elif kind == "result":
            line = body.get("line")
            if isinstance(line, dict) and line.get("event") == "coup.result":
                self._result(record, line, txn, inside)
        elif kind == "money.settlement":
            self.settlement = body
            if inside:
                figures = self._shoe(body.get("shoe"), None, record.wall_ns)
                figures.settlements[(body["shoe"], body["coup"])] = body
        elif kind == "money.correction":
            self._correction(record, body, inside)
        elif kind == "money.bank":
            self._bank(record, body, inside)
        elif kind in ("money.round", "money.shoe") and isinstance(body.get("shoe"), int):
            self.shoe = body["shoe"]

    def _shoe(self, shoe: Any, coup: Any, wall_ns: int) -> ShoeFigures:
        if not isinstance(shoe, int):
            raise ReportError(f"a record without its shoe: {shoe!r}")
        self.shoe = shoe
        figures = self.shoes.setdefault(shoe, ShoeFigures(shoe))
        figures.seen(coup if isinstance(coup, int) else None, wall_ns)
        return figures

    # --- coups and voids ------------------------------------------------------------------------

    def _result(self, record: Record, line: dict[str, Any], txn: list[Record],
                inside: bool) -> None:
        self.shoe = line.get("shoe") if isinstance(line.get("shoe"), int) else self.shoe
        if not inside:
            return
        figures = self._shoe(line.get("shoe"), line.get("coup"), record.wall_ns)
        outcome = line.get("outcome")
        if outcome in figures.coups:
            figures.coups[outcome] += 1
        if outcome in VOIDED:
            figures.voids.append({"coup": line.get("coup"), "outcome": outcome,
                                  **self._who_voided(record, line, txn),
                                  "irregularities": list(line.get("irregularities") or []),
                                  "time": iso(record.wall_ns), "ledger_index": record.idx})

    def _who_voided(self, record: Record, line: dict[str, Any], txn: list[Record]
                    ) -> dict[str, Any]:
        """Who voided the coup and how: the console's void (its action, in the transaction
        of the result), a supervisor's KEY and VOID at the shoe, or 000 rule 24."""
        before = [r for r in txn if r.idx < record.idx]
        action = next((r.body for r in reversed(before) if r.kind == "action"
                       and isinstance(r.body, dict) and r.body.get("kind") == "void"), None)
        if line.get("outcome") == "cancelled":
            return {"how": "000 rule 24: the shoe ran short", "by": None, "role": None,
                    "reason": None}
        if action is not None:
            args = action.get("args") if isinstance(action.get("args"), dict) else {}
            return {"how": "the console's void", "by": action.get("by"),
                    "role": action.get("role"), "reason": args.get("reason")}
        resolved = next((r.body["line"] for r in before if r.kind == "result"
                         and isinstance(r.body.get("line"), dict)
                         and r.body["line"].get("event") == "irregularity.resolved"
                         and r.body["line"].get("how") == "VOID"), None)
        if resolved is not None:
            return {"how": f"KEY and VOID at the shoe, lifting {resolved.get('code')}",
                    "by": resolved.get("by"), "role": "supervisor", "reason": None}
        by, role = self.key if self.key is not None else (None, None)
        return {"how": "KEY and VOID at the shoe", "by": by, "role": role, "reason": None}

    def _correction(self, record: Record, body: dict[str, Any], inside: bool) -> None:
        if not inside:
            return
        figures = self._shoe(body.get("shoe"), body.get("coup"), record.wall_ns)
        entry = {k: body.get(k) for k in ("change", "how", "coup", "stake", "who", "amount",
                                          "by", "reason")}
        figures.corrections.append({**entry, "time": iso(record.wall_ns),
                                    "ledger_index": record.idx})
        if body.get("change") == "settlement" and isinstance(body.get("settlement"), dict):
            corrected = body["settlement"]
            figures.settlements[(corrected["shoe"], corrected["coup"])] = corrected
            if corrected.get("outcome") == "void":
                figures.voids.append({"coup": body.get("coup"), "outcome": "void",
                                      "how": "a supervisor reopened the settlement as void",
                                      "by": body.get("by"), "role": "supervisor",
                                      "reason": body.get("reason"), "irregularities": [],
                                      "time": iso(record.wall_ns),
                                      "ledger_index": record.idx})

    # --- the bank -------------------------------------------------------------------------

    def _bank(self, record: Record, body: dict[str, Any], inside: bool) -> None:
        state = body.get("bank") if isinstance(body.get("bank"), dict) else None
        change = body.get("change")
        if not inside:
            if state is not None:
                self.bank = state
            return
        if change == "new_shoe":
            self.shoe = body.get("shoe") if isinstance(body.get("shoe"), int) else self.shoe
        shoe = self.shoe
        if shoe is None:
            raise ReportError(f"record {record.idx}: a change of the bank before any shoe")
        figures = self._shoe(shoe, None, record.wall_ns)
        if self.hand is None and self.bank is not None and self.bank.get("phase") == "held":
            self._open(figures, self.bank.get("holder"), self.bank.get("partner"),
                       "held before the range", self.bank.get("amount"), record.idx)
        elif self.hand is None and self.bank is None and state is not None and \
                change in HELD_CHANGES and (change in ENDING or state.get("phase") == "held"):
            # an export's first record: the bank as it stood. A change that leaves the bank
            # as it found it says whether one was held (a table's first new shoe finds it
            # vacant: no hand was held before); a settlement or a Suite may have ended it.
            holder = body.get("who") if change == "suite" else (
                (self.settlement or {}).get("bank") or {}).get("holder") \
                if change == "settled" else state.get("holder")
            self._open(figures, holder, state.get("partner"), "held before the range",
                       self._before(change, body, state), record.idx)
        hand = self.hand
        if hand is not None and all(h is not hand for h in figures.hands):  # a new shoe
            hand.ended = {"how": "held on into the next shoe", "shoe": None, "coup": None}
            self._open(figures, hand.holder, hand.partner, "held on from the shoe before",
                       None if hand.amount is None else str(hand.amount), record.idx)
            hand = self.hand
        amount = body.get("amount")
        if change in ("take", "accept") or (change == "award" and body.get("who")):
            taken = {"take": "in turn" if amount is not None else "open bank (000 rule 5)",
                     "accept": "the offer at the last bank sum",
                     "award": "the auction"}[change]
            self._open(figures, body.get("who"), body.get("partner"), taken, amount, record.idx)
        elif change == "open_bank_fixed" and hand is not None:
            hand.start = hand.amount = _decimal(amount)
        elif change in ("decline", "bid", "to_auction", "award"):
            figures.offers.append({"change": change, "who": body.get("who"),
                                   "amount": amount, "ledger_index": record.idx})
        elif change in ("schokolade", "garage") and hand is not None:
            setattr(hand, change, getattr(hand, change) + _decimal(amount))
        elif change == "suite" and hand is not None:
            hand.ended = {"how": "Suite", "shoe": shoe, "coup": None, "amount": amount,
                          "paid": body.get("paid")}
            self.hand = None
        elif change == "settled" and hand is not None:
            self._settled(hand, body, state)
        if state is not None:
            self.bank = state
            if self.hand is not None and state.get("phase") == "held" and \
                    state.get("amount") is not None:
                self.hand.amount = _decimal(state["amount"])

    def _before(self, change: str, body: dict[str, Any], state: dict[str, Any]) -> Any:
        """The bank's sum before a change of a bank held (the change's record gives the
        state after it)."""
        if change == "settled":
            return ((self.settlement or {}).get("bank") or {}).get("before")
        if change == "suite":
            return body.get("amount")
        if change in ("schokolade", "garage") and state.get("amount") is not None:
            return str(_decimal(state["amount"]) + _decimal(body.get("amount")))
        return state.get("amount")

    def _open(self, figures: ShoeFigures, holder: Any, partner: Any, taken: str,
              amount: Any, index: int) -> None:
        self.hand = Hand(holder, partner, taken, None if amount is None else _decimal(amount),
                         index)
        figures.hands.append(self.hand)

    def _settled(self, hand: Hand, body: dict[str, Any], state: dict[str, Any] | None) -> None:
        outcome = body.get("outcome")
        settlement = self.settlement or {}
        if settlement.get("counts"):
            hand.coups += 1
            if outcome == "banker":
                hand.won += 1
            elif outcome == "punter":
                hand.lost += 1
            elif outcome == "egalite":
                hand.egalite += 1
        after = settlement.get("bank") or {}
        if after.get("set_aside") is not None:  # 003's Schokolade, set aside by the settlement
            hand.schokolade += _decimal(after["set_aside"])
        if state is not None and state.get("phase") != "held":
            how = "lost" if outcome == "punter" else "rotation"
            hand.ended = {"how": how, "shoe": body.get("shoe"), "coup": body.get("coup"),
                          "amount": after.get("before"),
                          "passes_to": current_form(after).get("passes_to"),
                          "paid": body.get("paid")}
            hand.amount = ZERO
            self.hand = None

    # --- the report ----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        self.flush()
        profile = self.profile
        if profile is None:
            raise ReportError("no daemon.start names a house profile with money rules: "
                              "nothing to report the money by")
        c = profile.currency.value
        shoes = []
        every: list[Mapping[str, Any]] = []
        coups = dict.fromkeys(OUTCOMES, 0)
        for number in sorted(self.shoes):
            figures = self.shoes[number]
            settlements = list(figures.settlements.values())
            for void in figures.voids:  # what each void handed back
                settled = figures.settlements.get((number, void["coup"]))
                stakes = [ln for ln in (settled or {}).get("lines", []) if ln.get("stake")]
                void["stakes"] = len(stakes)
                void["returned"] = c.text(sum((_decimal(ln["staked"]) for ln in stakes), ZERO))
            every += settlements
            for outcome, n in figures.coups.items():
                coups[outcome] += n
            shoes.append({
                "shoe": number, "coups": {"first": figures.first, "last": figures.last,
                                          "decided": sum(figures.coups.values()),
                                          **figures.coups},
                "time": {"earliest": None if figures.earliest is None else iso(figures.earliest),
                         "latest": None if figures.latest is None else iso(figures.latest)},
                **money_figures(profile, settlements),
                "bank": [hand.to_dict(c) for hand in figures.hands],
                "offers": figures.offers, "voids": figures.voids,
                "corrections": figures.corrections,
            })
        words = table_words(self.display.get("language"), self.display.get("terms"))
        return {
            "table": self.table, "profile": profile.name, "game": profile.game.value,
            "display": {"language": words.language, "terms": words.terms},
            "currency": {"code": c.code, "name": c.name},
            "range": {"from": None if self.start_ns is None else iso(self.start_ns),
                      "to": None if self.end_ns is None else iso(self.end_ns)},
            "records": {"first": self.first, "last": self.last, "count": self.records},
            "shoes": shoes,
            "total": {"shoes": len(shoes), "coups": {"decided": sum(coups.values()), **coups},
                      **money_figures(profile, every),
                      "voids": sum(len(s["voids"]) for s in shoes),
                      "corrections": sum(len(s["corrections"]) for s in shoes)},
        }
