"""The console's side of the table's loop: the people its KEYs are decided with, the
inbox of actions the console's server hands over (console/handoff.py: the contract and its
deadlines), the console file beside the capture, and the console's own state (the latches,
refused KEYs) pushed to the server.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from shoe_daemon.console.actions import report_words
from shoe_daemon.console.handoff import Inbox
from shoe_daemon.console.people import PeopleFile, Roster
from shoe_daemon.console.play import decide_key
from shoe_daemon.console.replay_file import ReplayFileWriter
from shoe_daemon.game.coup import LatchState, ReportState

NOTICES = 5  # refused KEYs the console keeps showing


def report_view(report: ReportState) -> dict[str, Any]:
    """A report as the console offers it: the house's rule, and whether it may be taken now
    (in the croupier's words; the rule once, in `rule`)."""
    why_not = None if report.why_not is None else report_words(report.kind, report.why_not,
                                                                 report.rule)
    return {"kind": report.kind, "code": report.code, "applies": report.applies,
            "rule": report.rule, "why_not": why_not, "positions": list(report.positions)}


def latch_view(latch: LatchState) -> dict[str, Any]:
    """A latch as the console shows it: the shoe's way out by its button, never a card."""
    return {
        "id": latch.id, "kind": latch.kind, "code": latch.code, "rule": latch.rule,
        "action": latch.action, "shoe": latch.shoe, "coup": latch.coup, "held": latch.held,
        "ways": list(latch.ways), "supervisor": latch.supervisor,
        "lifted": latch.lifted.split()[0] if latch.lifted else None,
        "lifted_by": latch.lifted_by, "fault_on": latch.fault_on,
    }


class TableConsole(Protocol):
    """What the table asks of its console: the live `Desk`, or a console file replayed."""

    replay_file: ReplayFileWriter | None

    @property
    def roster(self) -> Roster: ...

    def decide_key(self, badge: str, where: dict[str, Any], frame: int,
                   seq: int) -> dict[str, Any]: ...

    def changed_people(self) -> dict[str, Any] | None: ...

    def state(self, latches: tuple[LatchState, ...], lamp: str = "",
              reports: tuple[ReportState, ...] = (),
              money: dict[str, Any] | None = None) -> None: ...


class KeyDecider(Protocol):
    """What decides the shoe's KEY with the console off: `Keys`, or a replay's."""

    def decide(self, badge: str, where: dict[str, Any]) -> dict[str, Any]: ...

    def changed_people(self) -> dict[str, Any] | None: ...


class Keys:
    """The shoe's KEY decided against the people file (play.py `decide_key`), said in the
    log by the person's id, never by the badge; and the people's public part when it changed,
    for the ledger. The console's Desk decides with it, and so does the table with the
    console off (`people` None: nobody is configured, and no KEY is taken)."""

    def __init__(self, people: PeopleFile | None, log: Any = None) -> None:
        self.people = people
        self.log = log
        self._roster_digest = ""

    @property
    def roster(self) -> Roster:
        return self.people.roster() if self.people is not None else Roster()

    def decide(self, badge: str, where: dict[str, Any]) -> dict[str, Any]:
        """Whose badge it is, and whether it is taken (a supervisor's)."""
        decision = decide_key(self.roster, badge)
        if self.log is not None:
            if decision["taken"]:
                self.log.info("supervisor.key", person=decision["person"], **where)
            else:
                self.log.warning("supervisor.key_refused", person=decision["person"],
                                 why=decision["why"], **where)
        return decision

    def changed_people(self) -> dict[str, Any] | None:
        """The roster's public part when it changed since last asked (for the ledger:
        what each id meant then); None if unchanged."""
        roster = self.roster
        if roster.digest == self._roster_digest:
            return None
        self._roster_digest = roster.digest
        return {"sha256": roster.digest, "people": [p.public() for p in roster.people]}


class Desk:
    """What the table's loop keeps for the console. `show` gets the console's own state
    (JSON bytes) whenever it changes; it must not block (the server's `publish_console`)."""

    def __init__(self, people: PeopleFile, inbox: Inbox | None = None,
                 show: Callable[[bytes], None] | None = None, log: Any = None,
                 replay_file: ReplayFileWriter | None = None) -> None:
        self.people = people
        self.keys = Keys(people, log)
        self.inbox = inbox or Inbox()
        self.show = show
        self.log = log
        self.replay_file = replay_file
        self.refusals: deque[dict[str, Any]] = deque(maxlen=NOTICES)
        self._latches: tuple[Any, ...] | None = None  # what was shown last

    @property
    def roster(self) -> Roster:
        return self.people.roster()

    def decide_key(self, badge: str, where: dict[str, Any], frame: int = 0,
                   seq: int = 0) -> dict[str, Any]:
        """The shoe's KEY: whose badge it is, and whether it is taken (a supervisor's);
        a refusal is shown on the console too."""
        decision = self.keys.decide(badge, where)
        if not decision["taken"]:
            self.refusals.append({"at": time.time(), "person": decision["person"],
                                  "why": decision["why"], "shoe": where.get("shoe"),
                                  "coup": where.get("coup")})
            self._latches = None  # show the notice
        return decision

    def changed_people(self) -> dict[str, Any] | None:
        return self.keys.changed_people()

    def state(self, latches: tuple[LatchState, ...], lamp: str = "",
              reports: tuple[ReportState, ...] = (),
              money: dict[str, Any] | None = None) -> None:
        """The console's own state (the latches, refused KEYs, the shoe's lamp, the reports
        the croupier may make now, the table's money: the croupier's, never the display's),
        pushed when it changed."""
        if (latches, lamp, reports, money) == self._latches or self.show is None:
            return
        self._latches = (latches, lamp, reports, money)
        body = {"latches": [latch_view(latch) for latch in latches],
                "key_refusals": list(self.refusals), "lamp": lamp,
                "reports": [report_view(report) for report in reports], "money": money}
        self.show(json.dumps(body, separators=(",", ":")).encode())
