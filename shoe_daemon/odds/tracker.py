"""What the monitor knows of the table, read from the committed ledger alone: each shoe's
cards in the order read, its coups, and the monitor's own records so far. It says what to
compute (`Task`) and turns what was computed into the records to commit (`Finding`), with
the rules that say once: an alarm per bet per shoe (live.FavourWatch), one slug alarm per
shoe, one record of each kind per shoe's end.

Pure: no I/O, no threads. `monitor.py` feeds it the ledger's records in order, runs its
tasks in the worker process and hands its findings to the table's loop.

A shoe is named by the ledger index of its `BTN,SHOE` frame (`opened_at`) and by the
number the game gave it (from its coups' results). Its size is `BTN,SHOE`'s packs argument,
or the house's packs. It ends when its last coup is decided, or when another `BTN,SHOE`
comes first (replaced before its last coup). A shoe whose `BTN,SHOE` was not read (the
ledger was pruned inside it) is never inventoried nor compared.

At start the monitor reads the ledger from the `BTN,SHOE` of the EARLIER-th shoe before the
one in play (or before the shoe of the monitor's last record, monitor.py); `caught_up` then
keeps only what is still owed, so a stop or a crash loses no coup's figures and repeats none.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from drivers.messages import Button, Card, MessageError
from drivers.records import frame_message, opens_shoe
from shoe_daemon.audit.ledger import Record
from shoe_daemon.game.cards import UNREADABLE
from shoe_daemon.game.rules import HouseProfile
from shoe_daemon.odds.bets import Bet
from shoe_daemon.odds.checks import slug_alarm_words
from shoe_daemon.odds.live import SYSTEM, TURNED_TO_PLAYERS, FavourWatch, alarm_body
from shoe_daemon.odds.slugs import EARLIER

EXPOSURE, ODDS_ALARM = "odds.exposure", "odds.alarm"
INVENTORY, INTEGRITY, INTEGRITY_ALARM = "shoe.inventory", "shoe.integrity", "integrity.alarm"
#: The record kinds the monitor writes (docs/audit.md).
KINDS = (EXPOSURE, ODDS_ALARM, INVENTORY, INTEGRITY, INTEGRITY_ALARM)
UNREADABLE_CODE = "UNREADABLE_CARD"


@dataclass
class ShoeLog:
    opened_at: int
    packs: int
    complete: bool  # its BTN,SHOE was read
    number: int | None = None
    cards: list[str] = field(default_factory=list)
    unreadable_at: list[int] = field(default_factory=list)
    waiting: deque[int] = field(default_factory=deque)  # `??` not yet keyed in nor given up
    coups: list[tuple[int, list[str], list[str]]] = field(default_factory=list)
    outcomes: list[str] = field(default_factory=list)
    ended: str | None = None
    monitored: bool = False  # a record of the monitor's names it: the monitor ran in it
    exposures: set[int] = field(default_factory=set)  # coups whose odds were given
    favour: FavourWatch = field(default_factory=FavourWatch)
    since: dict[str, int] = field(default_factory=dict)  # bet -> coup it favoured players from
    slug_alarm: bool = False
    end_alarms: set[str] = field(default_factory=set)  # tests alarmed at its end
    inventoried: bool = False
    checked: bool = False

    def earlier_view(self) -> dict[str, Any]:
        return {"shoe": self.number, "opened_at": self.opened_at, "cards": list(self.cards),
                "coups": [[read, p, b] for read, p, b in self.coups]}


@dataclass(frozen=True)
class Task:
    """Something to compute: `kind` "coup" (after a coup) or "end" (at a shoe's end), and
    the request for the worker (checks.py)."""

    kind: str
    opened_at: int
    request: dict[str, Any]
    after_coup: int | None = None


@dataclass(frozen=True)
class Finding:
    """A record to commit through the table's loop."""

    kind: str
    body: dict[str, Any]


class Tracker:
    def __init__(self, profile: HouseProfile) -> None:
        self.profile = profile
        self.shoes: list[ShoeLog] = []  # the shoe in play last; up to EARLIER before it
        self.tasks: deque[Task] = deque()
        self.live = False  # False while catching up with the ledger at start
        self.last_exposure: dict[str, Any] | None = None  # the last committed
        self.alarms: list[dict[str, Any]] = []  # alarms committed for the shoe in play
        self.last_own: int | None = None  # the shoe (opened_at) of the monitor's last record

    # ---- reading the ledger ------------------------------------------------------------------

    @property
    def current(self) -> ShoeLog | None:
        return self.shoes[-1] if self.shoes else None

    def _by_opened(self, opened_at: Any) -> ShoeLog | None:
        return next((s for s in self.shoes if s.opened_at == opened_at), None)

    def feed(self, record: Record) -> list[tuple[str, dict[str, Any]]]:
        """One committed record, in ledger order. Returns the monitor's own records read back
        (kind, body): committed, so the status and the log may now say them."""
        kind, body = record.kind, record.body
        if kind == "frame":
            self._frame(record.idx, body)
        elif kind == "result":
            self._line(body.get("line") or {})
        elif kind in KINDS:
            self.last_own = body.get("opened_at")
            self._own(kind, body)
            return [(kind, body)]
        return []

    def _frame(self, idx: int, body: Mapping[str, Any]) -> None:
        if body.get("type") not in ("CARD", "BTN"):
            return
        try:
            message = frame_message(dict(body))
        except (MessageError, KeyError, TypeError, ValueError):
            return
        if isinstance(message, Button) and opens_shoe(dict(body)):
            shoe = self.current
            if shoe is not None and shoe.ended is None:
                self._end(shoe, "replaced by a new shoe before its last coup")
            packs = int(message.arg) if message.arg and message.arg.isdigit() else None
            self._open(ShoeLog(idx, packs or self.profile.packs, complete=True))
        elif isinstance(message, Card):
            shoe = self.current
            if shoe is None:  # the records read begin inside a shoe
                shoe = self._open(ShoeLog(idx, self.profile.packs, complete=False))
            if message.code == UNREADABLE:
                shoe.unreadable_at.append(len(shoe.cards))
                shoe.waiting.append(len(shoe.cards))
            shoe.cards.append(message.code)

    def _open(self, shoe: ShoeLog) -> ShoeLog:
        self.shoes.append(shoe)
        ended = [s for s in self.shoes[:-1] if s.complete and s.ended]
        owed = {t.opened_at for t in self.tasks}  # read ahead of the computing: keep them
        keep = [*ended[-EARLIER:], shoe]
        self.shoes = [s for s in self.shoes if s in keep or s.opened_at in owed]
        self.alarms = []
        return shoe

    def _line(self, line: Mapping[str, Any]) -> None:
        shoe = self.current
        if shoe is None:
            return
        event = line.get("event")
        if event == "irregularity.resolved" and line.get("code") == UNREADABLE_CODE:
            if shoe.waiting:
                at = shoe.waiting.popleft()
                how = str(line.get("how", ""))
                if how.startswith("ENTER "):
                    shoe.cards[at] = how.split()[1]
        elif event == "coup.result":
            number = line.get("shoe")
            if shoe.number is not None and number != shoe.number:
                shoe = next((s for s in self.shoes if s.number == number), shoe)
            shoe.number = number
            coup = int(line.get("coup", 0))
            shoe.coups.append((len(shoe.cards), list(line["punter"]["cards"]),
                               list(line["banker"]["cards"])))
            shoe.outcomes.append(line.get("outcome", ""))
            if line.get("last_coup"):
                self._end(shoe, f"its last coup, coup {coup}, decided")
            elif shoe.ended is None and shoe.complete:
                self._coup_task(shoe, coup)

    def _own(self, kind: str, body: Mapping[str, Any]) -> None:
        shoe = self._by_opened(body.get("opened_at"))
        if shoe is None:
            return
        shoe.monitored = True
        if kind == EXPOSURE:
            shoe.exposures.add(body["for_coup"])
            if shoe is self.current:
                self.last_exposure = dict(body)
        elif kind == ODDS_ALARM:
            if not self.live:  # live, the watch is already ahead of what is read back
                shoe.favour.recorded(body)
                if body["turned"] == TURNED_TO_PLAYERS:
                    shoe.since[body["bet"]] = body["for_coup"]
            if shoe is self.current:
                self.alarms.append(dict(body))
        elif kind == INTEGRITY_ALARM:
            if body.get("test") == "slugs":
                shoe.slug_alarm = True
            else:
                shoe.end_alarms.add(body.get("test", ""))
            if shoe is self.current:
                self.alarms.append(dict(body))
        elif kind == INVENTORY:
            shoe.inventoried = True
        elif kind == INTEGRITY:
            shoe.checked = True

    # ---- what to compute ---------------------------------------------------------------------

    def _earlier(self, shoe: ShoeLog) -> list[dict[str, Any]]:
        before = [s for s in self.shoes if s.complete and s.ended and s is not shoe
                  and s.opened_at < shoe.opened_at]
        return [s.earlier_view() for s in before[-EARLIER:]]

    def _base(self, shoe: ShoeLog) -> dict[str, Any]:
        return {"profile": self.profile.name, "packs": shoe.packs, "shoe": shoe.number,
                "opened_at": shoe.opened_at, "cards": list(shoe.cards),
                "earlier": self._earlier(shoe)}

    def _coup_task(self, shoe: ShoeLog, coup: int) -> None:
        request = {**self._base(shoe), "after_coup": coup}
        self.tasks.append(Task("coup", shoe.opened_at, request, coup))

    def _end(self, shoe: ShoeLog, why: str) -> None:
        shoe.ended = why
        if not shoe.complete:
            return
        request = {**self._base(shoe), "unreadable_at": list(shoe.unreadable_at),
                   "outcomes": list(shoe.outcomes), "ended": why}
        self.tasks.append(Task("end", shoe.opened_at, request))

    def caught_up(self) -> None:
        """The ledger as it was at start is read: keep only the tasks still owed, and from now
        on every task is new.

        Owed: every task from the shoe of the monitor's last record on whose record is not
        in the ledger (the figures a stop or a crash left unsaid, or that a monitor running
        behind a fast table had not reached: computed now, stamped late); in that shoe, not
        the coups before the monitor's first figures in it. With no record of the monitor's
        read (its first start, or it was off for long: monitor.py), only the coup to come
        is owed: history from before it ran is not done again."""
        if self.live:
            return
        self.live = True
        current = self.current
        if self.last_own is not None:
            anchor = self.last_own
            owed = [t for t in self.tasks if t.opened_at >= anchor and not self._done(t)]
        else:
            last = next((t for t in reversed(self.tasks) if t.kind == "coup"), None)
            owed = ([last] if last is not None and current is not None
                    and last.opened_at == current.opened_at and current.ended is None else [])
        self.tasks = deque(owed)

    def _done(self, task: Task) -> bool:
        shoe = self._by_opened(task.opened_at)
        if shoe is None:
            return True
        if task.kind == "end":
            return shoe.inventoried
        coup = (task.after_coup or 0) + 1
        return coup in shoe.exposures or (bool(shoe.exposures) and coup < min(shoe.exposures))

    def take(self) -> Iterator[Task]:
        """The tasks to run now, oldest first (none while catching up)."""
        while self.live and self.tasks:
            yield self.tasks.popleft()

    # ---- what was computed, as records -------------------------------------------------------

    def done(self, task: Task, result: Mapping[str, Any]) -> list[Finding]:
        shoe = self._by_opened(task.opened_at)
        if shoe is None:
            return []
        if task.kind == "coup":
            return self._after_coup(shoe, task, result)
        return self._at_end(shoe, result)

    def _after_coup(self, shoe: ShoeLog, task: Task, result: Mapping[str, Any]
                    ) -> list[Finding]:
        found: list[Finding] = []
        after = task.after_coup or 0
        body = result.get("exposure")
        if body is not None and after + 1 not in shoe.exposures:
            shoe.exposures.add(after + 1)
            found.append(Finding(EXPOSURE, dict(body)))
            watched = [Bet(b["bet"], b["pays"], Fraction(b["ev"]), "") for b in body["bets"]
                       if b.get("house")]
            for turn in shoe.favour.update(watched):
                since = shoe.since.get(turn.bet)
                if turn.to == TURNED_TO_PLAYERS:
                    shoe.since[turn.bet] = after + 1
                found.append(Finding(ODDS_ALARM, alarm_body(
                    turn, body["shoe"], shoe.opened_at, after, since)))
        shuffle = result.get("shuffle")
        if shuffle and shuffle["alarm"] and not shoe.slug_alarm:
            shoe.slug_alarm = True
            found.append(Finding(INTEGRITY_ALARM, self._slug_alarm(shoe, after, shuffle)))
        return found

    def _slug_alarm(self, shoe: ShoeLog, after: int | None, shuffle: Mapping[str, Any]
                    ) -> dict[str, Any]:
        return {"by": SYSTEM, "shoe": shoe.number, "opened_at": shoe.opened_at,
                "test": "slugs", "after_coup": after, "cards_in_slugs": shuffle["cards_in_slugs"],
                "threshold": shuffle["threshold"],
                "compared_with": [c for c in shuffle["compared_with"] if c.get("slugs")],
                "words": slug_alarm_words(shoe.number, after, shuffle)}

    def _at_end(self, shoe: ShoeLog, result: Mapping[str, Any]) -> list[Finding]:
        if shoe.inventoried:
            return []
        shoe.inventoried = shoe.checked = True
        found = [Finding(INVENTORY, dict(result["inventory"])),
                 Finding(INTEGRITY, dict(result["integrity"]))]
        shuffle = result["integrity"]["shuffle"]
        if shuffle["alarm"] and not shoe.slug_alarm:
            shoe.slug_alarm = True
            found.append(Finding(INTEGRITY_ALARM, self._slug_alarm(shoe, None, shuffle)))
        for alarm in result.get("end_alarms", []):
            if alarm["test"] in shoe.end_alarms:
                continue
            shoe.end_alarms.add(alarm["test"])
            found.append(Finding(INTEGRITY_ALARM, {
                "by": SYSTEM, "shoe": shoe.number, "opened_at": shoe.opened_at, **alarm}))
        return found
