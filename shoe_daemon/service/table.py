"""The table: the shoe's frames through the coup machine, kept in the audit ledger before
anything is published or acknowledged, then the results file, the log and the display.

It is the application above the shoe link (`drivers.link.Application`): the link hands it
each frame accepted in order and asks it to `commit()` before acknowledging; what the table
does with a frame is the game's, what it keeps is the ledger's.

Crash safety (docs/audit.md): the ledger is the truth. A frame counts as received only once
committed, with every line it decided, so the shoe resends whatever a crash or a full disk
lost. At start (`restore`) the coup machine is rebuilt by playing the ledger's frames again,
delivery resumes after the last recorded frame, and the results file gets exactly the
recorded lines it lacks; after a failed commit (`rewind`) the game goes back the same way.

The order of events, one method a step (docs/architecture.md, "The table's order of
events"; the state they move and its invariants: service/batch.py): a frame is played
(`frame_received`), committed with its batch (`commit`), then shown (`acknowledged`); a
refused commit drops the batch and leaves the game ahead of the ledger until rebuilt
(`rewind`); a console action is a batch of its own (`act`).

Without a ledger (`shoe-daemon replay`) the table plays and publishes only.

With the croupier's console (`console`, a `Desk`): the coup machine latches holds and
faults, a shoe's KEY is decided against the people and recorded as the person it was taken
for (console/play.py), a `BTN,SHOE` that did not start its shoe when it came is recorded as
such (`started: false`, so a restore starts from one that did), and the console's actions
are taken between the link's turns (`act`): admitted against the table now, applied, and
committed with the lines they decided before anything is published or answered
(console/actions.py). The restore then plays the ledger's frames and actions in their order.

With the table's money (`till`, console/till.py; the configuration's `[money]`): the money
follows the coup machine's moments (a shoe started, a coup started by `BTN,DEAL`, a coup
decided) and the console's money actions; the records each frame or action made go into
the same transaction, after its lines, each a ledger record whose kind is its `event`. The
restore starts the money from the `money.table` record of the shoe it restores from (the
bank outlives the shoe) and plays the same frames and actions through it again.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import structlog

from drivers.delivery import RESET, SYNC, Receiver
from drivers.framing import Frame
from drivers.messages import Button, Fault, Hello, Message
from drivers.records import (
    frame_body,
    frame_message,
    hello_boot_id,
    opens_shoe,
    restore_point,
)
from shoe_daemon.audit.ledger import LOST, Ledger, LedgerError, Record
from shoe_daemon.console.actions import Action, Refused, admit
from shoe_daemon.console.desk import KeyDecider, TableConsole
from shoe_daemon.console.handoff import DoneThenFailed, Outcome
from shoe_daemon.console.people import Roster
from shoe_daemon.console.play import game_message, is_key, key_record, play_action, play_frame
from shoe_daemon.console.shown_money import house_writing, shown_money
from shoe_daemon.console.till import MONEY_KINDS, Till
from shoe_daemon.game.coup import BETWEEN_COUPS, CoupMachine
from shoe_daemon.game.rules import HouseProfile
from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.settlement import first_difference
from shoe_daemon.money.stakes import RecordError
from shoe_daemon.service.batch import Batch, Item, Standing, Unshown
from shoe_daemon.service.lost_ledger import lost_ledger

if TYPE_CHECKING:
    from shoe_daemon.display import TableDisplay

CLOCK_STEP_NS = 1_000_000_000  # wall clock moving 1 s off the monotonic clock is a step

REPLAYED = ("frame", "action", "money.limits")  # what the restore plays again, in order
_NOTED = (Hello, Fault, Button)  # frames the log mentions besides what they decide


def _drop(*_: Any) -> NoReturn:
    raise structlog.DropEvent


SILENT = structlog.wrap_logger(
    structlog.ReturnLogger(), processors=[_drop],
    wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
"""A logger that says nothing, at next to no cost: a table given no log (a replay)."""


@dataclass(frozen=True)
class HoldInForce:
    """The hold the table is in, as its `irregularity` line published it."""

    code: str
    rule: str


class Table:
    """One table's game, its ledger, its results file and its display.

    Public status, for the loop and `systemctl status`: `ledger_down` and `ledger_error`
    (why), `backlog` (records waiting for the ledger), `hold`, `where()`, `machine.state`.
    """

    def __init__(self, profile: HouseProfile, ledger: Ledger | None = None,
                 results: TextIO | None = None, display: TableDisplay | None = None,
                 log: Any = None, on_commit: Callable[[], None] | None = None,
                 console: TableConsole | None = None, till: Till | None = None,
                 keys: KeyDecider | None = None) -> None:
        self.ledger = ledger
        self.on_commit = on_commit  # told after each commit (the floor link); must not block
        self.results = results
        self.display = display
        self.log = log if log is not None else SILENT
        self.console = console
        self.keys = keys  # the KEY's decision with the console off (None: the game's alone)
        self.till = till
        self.machine = self._new_machine(profile)
        self.published: list[dict[str, Any]] = []  # the lines, when there is no results file
        self.frame: int | None = None  # seq of the frame being played, for the log
        self.boot_id: str | None = None
        self.ledger_down = False
        self.ledger_error = ""
        # The order of events (service/batch.py): the batch in flight, what the display
        # has yet to take, the game against the ledger; and the events with no frame
        # behind them, first in the next transaction and never dropped.
        self.batch = Batch()
        self.unshown = Unshown()
        self.standing = Standing.IN_STEP
        self._backlog: list[Item] = []
        # The console's positions in the frame stream: frames committed in this process.
        self.frames_committed = 0
        self.last_seq: int | None = None  # the last committed frame's
        self._hold: HoldInForce | None = None
        self._money_shown: int | None = None  # the till's version the display last took
        self._summary: tuple[int, dict[str, Any]] | None = None  # the money's, by version
        self._clock_offset = time.time_ns() - time.monotonic_ns()

    # ---- status ----------------------------------------------------------------------------

    @property
    def lamp(self) -> str:
        """The game's lamp; RED whatever the game while the ledger refuses writes."""
        return "RED" if self.ledger_down else self.machine.lamp

    @property
    def backlog(self) -> int:
        """Records (events, frames, lines) waiting for the ledger to take them."""
        return len(self._backlog) + len(self.batch.records)

    @property
    def hold(self) -> HoldInForce | None:
        """The hold in force, if the coup is on hold."""
        return self._hold if self.machine.state == "on_hold" else None

    @property
    def frames_played(self) -> int:
        """Frames this process has played, committed or about to be: the console's positions."""
        return self.frames_committed + self.batch.frames

    @property
    def roster(self) -> Roster:
        """The people now configured (the console's); nobody without the console."""
        return self.console.roster if self.console is not None else Roster()

    def _new_machine(self, profile: HouseProfile) -> CoupMachine:
        machine = CoupMachine(profile, latching=self.console is not None)
        if self.till is not None:
            machine.keep_moments()  # the money closes, settles and starts shoes by them
        return machine

    def where(self) -> dict[str, Any]:
        m = self.machine
        shoe = m.shoe.number if m.shoe else None
        coup = m.coup.number if m.coup else None
        return {"shoe": shoe, "coup": coup, "frame": self.frame}

    # ---- the link's application: play, commit, publish ---------------------------------------

    def frame_received(self, frame: Frame, kind: str) -> None:
        """Played: the frame through the game; its record, lines and the money's records
        join the batch, which waits for `commit()`."""
        message = frame.message
        self.frame = frame.seq
        if isinstance(message, _NOTED):
            self._note(message, kind)
        decision = None
        unseen = self.machine.unseen
        if self.console is None:
            body = self._key_decided(frame.seq, message)
            game = message if body is None else game_message(message, body)
            lines = self.machine.handle(game) if game is not None else []
        else:
            lines, body, decision = self._console_frame(frame.seq, message)
        money = self._money_moved()
        joined = unseen == 0 < self.machine.unseen  # the first frame of a shoe it never saw
        if joined:
            self.log.warning("shoe.unseen", **self.machine.unseen_said(), **self.where())
        records: list[Item] = []
        if self.ledger is not None:
            if kind == SYNC:
                records.append(("transport", {"event": "synced", "detail": f"seq {frame.seq}"}))
            records.append(("frame", body or frame_body(frame.seq, message)))
            if joined:
                records.append(("shoe.unseen", {"seq": frame.seq, **self.machine.unseen_said()}))
            records += [("result", {"line": line}) for line in lines]
            records += [(record["event"], record) for record in money]
        elif money:
            lines = [*lines, *money]  # a replay prints the money's records among the lines
        self.batch.played(frame.seq, records, lines, decision)
        self._track_hold(lines)
        self.unshown.view = True

    def commit(self) -> bool:
        """Committed: the backlog and the batch into the ledger, then its lines published;
        False (refused), nothing published and the batch dropped, if the ledger would not
        take it or the game is ahead of the ledger."""
        if self.ledger is not None:
            self._check_clock()
            if self.batch.empty:
                return True  # nothing new: the backlog waits for `idle`
            if self.standing is Standing.AHEAD or self._append(self.batch.records) is None:
                self.batch.taken()  # dropped whole, its money with it
                self._fell_ahead()
                return False
        self._committed(self.batch.taken())
        return True

    def _committed(self, batch: Batch) -> None:
        """The batch is in the ledger: its KEY decisions to the console file, the positions
        move on, its lines are published; the display takes them after the ACK."""
        writer = self.console.replay_file if self.console is not None else None
        if writer is not None:
            for key in batch.keys:
                writer.key(self.frames_committed + key.frame + 1, key.seq, key.decision)
        self.frames_committed += batch.frames
        if batch.last_seq is not None:
            self.last_seq = batch.last_seq
        self.unshown.money = self.unshown.money or self.till is not None
        for line in batch.lines:
            self._publish(line)

    def _fell_ahead(self) -> None:
        """The game played what the ledger refused (a batch, or an action it could not be
        rebuilt after): AHEAD, so nothing more played on it is committed, until it is rebuilt
        (`rewind`, or before the next action)."""
        self.standing = Standing.AHEAD

    def acknowledged(self) -> None:
        """Shown: the committed batch to the console and the display, one view for the whole
        batch, after the ACK: the shoe never waits for the screen, and a burst of frames
        costs one view."""
        if self.console is not None:
            self._console_state()
        if self.display is None or not self.unshown.view:
            return
        self.unshown.view = False
        self._show_money()
        try:
            for line in self.unshown.taken_lines():
                self.display.record(line)
        except Exception:
            self.log.exception("display.failed", **self.where())
        self._show()

    def idle(self) -> None:
        if self._backlog and self.ledger is not None:
            self._append([])

    def rewind(self) -> Receiver | None:
        """After a refused commit the game ran ahead of the ledger: rebuilt from it, in step
        again. None while the ledger cannot even be read (the shoe keeps resending)."""
        try:
            return self._rebuild()
        except LedgerError:
            return None

    def record(self, kind: str, body: dict[str, Any]) -> None:
        """An event with no frame behind it: committed now if the ledger takes it, else later."""
        self._backlog.append((kind, body))
        self._append([])

    def note(self, kind: str, body: dict[str, Any]) -> None:
        """An event with no frame behind it that can wait a moment: committed ahead of the
        next frames, in their transaction, or when the line is quiet (`idle`), so it never
        costs a deciding frame a commit of its own (the odds monitor's findings)."""
        self._backlog.append((kind, body))

    # ---- start: the ledger is the truth ----------------------------------------------------------

    def restore(self) -> Receiver:
        """Verify the ledger, rebuild the game, complete the results file; where delivery
        resumes. LedgerError if the ledger is unusable."""
        assert self.ledger is not None
        count = self.ledger.verify()
        if count == 0 and self.results is not None and self.results is not sys.stdout:
            lost = lost_ledger(self.results)  # published before, by a ledger now gone
            if lost is not None:
                self.ledger.append(LOST, lost)
                self.log.error("ledger.lost", **lost)
        receiver = self._rebuild()
        self.unshown.money = True
        self._show_money()
        self._show()
        republished = self._complete_results()
        self.log.info("ledger.restored", records=count, state=self.machine.state,
                      republished=republished, **self.where())
        if self.machine.state not in BETWEEN_COUPS:
            self._backlog.append(("restore", {"state": self.machine.state, **self.where()}))
        return receiver

    def _rebuild(self) -> Receiver:
        """Rebuilt: the game and delivery as the ledger has them, its frames (and with the
        console its actions) since the last BTN,SHOE that started its shoe when it came; the
        game is in step with the ledger again. LedgerError if the ledger cannot be read.

        Shoes and the shoe's boot id in records `audit prune` removed come from its record.
        """
        assert self.ledger is not None
        kept = self.ledger.start()
        shoes, start, before, last = kept.shoes, kept.first_idx, kept.shoes, None
        from_shoe = False
        for record in self.ledger.records(kinds=("frame",)):
            if opens_shoe(record.body):
                shoes += 1
                if restore_point(record.body):
                    start, before, from_shoe = record.idx, shoes - 1, True
            last = record.body
        if self.till is not None:
            self._restore_money(start if from_shoe and last is not None else None)
        self.machine = self._new_machine(self.machine.profile)
        self._hold = None
        self.unshown.lines.clear()  # the display is rebuilt from the ledger, which has them
        if self.console is None:  # a KEY as it was decided then
            frames = [m for r in self.ledger.records(start, ("frame",))
                      if (m := game_message(frame_message(r.body), r.body)) is not None]
            replayed = self.machine.restore(frames, max(before, 0))
        else:
            replayed = self.machine.restore((), max(before, 0))
            money: list[dict[str, Any]] = []
            for record in self.ledger.records(start, REPLAYED):
                lines, made = self.play_recorded(record)
                replayed += lines
                money += made
            if self.till is not None:
                self._money_checked(start, money)
        self._track_hold(replayed)
        recorded = [r.body["line"] for r in self.ledger.records(start, ("result",))]
        if self.display is not None:
            self.display.rebuild(recorded)
        if replayed != recorded:
            self.log.error("ledger.replay_mismatch", replayed=len(replayed),
                           recorded=len(recorded))
        self.standing = Standing.IN_STEP
        if last is None:  # no frame kept (the console's actions may be): syncs with the shoe
            return Receiver()
        self.boot_id = self._last_boot_id() or kept.boot_id
        return Receiver.resuming(last["seq"], self.boot_id)

    def _last_boot_id(self) -> str | None:
        assert self.ledger is not None
        boot = None
        for record in self.ledger.records(kinds=("frame",)):
            boot = hello_boot_id(record.body) or boot
        return boot

    def _complete_results(self) -> int:
        """Append the recorded lines the results file lacks (a crash between commit and write)."""
        if self.results is None or self.results is sys.stdout or self.ledger is None:
            return 0
        self.results.seek(0)
        text = self.results.read()
        if text and not text.endswith("\n"):  # torn by a crash mid-write: drop the tail
            whole = text[: text.rfind("\n") + 1]
            self.results.truncate(len(whole.encode()))
            text = whole
        have = text.count("\n") - self.ledger.start().results  # lines of pruned records
        missing = [r.body["line"] for r in self.ledger.records(kinds=("result",))][max(have, 0):]
        for line in missing:
            self.results.write(json.dumps(line) + "\n")
        self.results.flush()
        os.fsync(self.results.fileno())
        return len(missing)

    # ---- the ledger ---------------------------------------------------------------------------

    def _append(self, records: list[Item]) -> list[Record] | None:
        """The backlog, then `records`, durably in the ledger (the records made); None (said
        once per outage, the backlog kept) if the ledger refuses them."""
        assert self.ledger is not None
        try:
            made = self.ledger.append_many(self._backlog + records)
        except LedgerError as e:
            if not self.ledger_down:
                self.log.error("ledger.write_failed", error=str(e), **self.where())
            self.ledger_down = True
            self.ledger_error = str(e.__cause__ or e)
            return None
        self._backlog.clear()
        if self.on_commit is not None:
            self.on_commit()
        if self.ledger_down:
            self.ledger_down = False
            self.log.info("ledger.recovered", **self.where())
        return made

    def _check_clock(self) -> None:
        offset = time.time_ns() - time.monotonic_ns()
        if abs(offset - self._clock_offset) > CLOCK_STEP_NS:
            self._backlog.append(("clock.step", {"jump_ns": offset - self._clock_offset}))
            self.log.warning("clock.step", jump_s=round((offset - self._clock_offset) / 1e9, 3))
        self._clock_offset = offset

    # ---- the croupier's console --------------------------------------------------------------

    def _console_frame(self, seq: int, message: Message
                       ) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any] | None]:
        """A frame played at a table with the console: a KEY decided against the people, a
        SHOE that did not start its shoe marked so. Returns its lines, its record and a
        KEY's decision."""
        assert self.console is not None
        body = frame_body(seq, message)
        game: Message | None = message
        decision = None
        if is_key(message):
            people = self.console.changed_people()
            if people is not None:
                self._backlog.append(("console.people", people))
            assert isinstance(message, Button) and message.arg is not None
            decision = self.console.decide_key(message.arg, self.where(),
                                               frame=self.frames_played + 1, seq=seq)
            body = key_record(body, decision)
            game = game_message(message, body)
        lines = self.machine.handle(game) if game is not None else []
        if opens_shoe(body) and (self.machine.state != "waiting_for_stakes"
                                 or self.machine.waiting):
            body["started"] = False  # it waited, or was held: no restore starts here
        return lines, body, decision

    def _key_decided(self, seq: int, message: Message) -> dict[str, Any] | None:
        """With the console off, a KEY decided against the people (`keys`) as the console
        decides it: its record, with the person's id in place of the badge. None for any
        other frame, or with no `keys` (the game alone: a replay told to trust KEYs)."""
        if self.keys is None or not is_key(message):
            return None
        people = self.keys.changed_people()
        if people is not None:
            self._backlog.append(("console.people", people))
        assert isinstance(message, Button) and message.arg is not None
        return key_record(frame_body(seq, message), self.keys.decide(message.arg,
                                                                      self.where()))

    def act(self, action: Action) -> Outcome:
        """One of the console's actions, in the table's loop, as a batch of its own: the game
        in step with the ledger first; admitted against the table now and applied (played);
        the action, the lines it decided and the money's records committed in one
        transaction, the action first; then published and shown. Refused, with nothing kept
        and the game as the ledger has it, if it may not be taken or the ledger refuses it.
        Once committed it is done: a failure after the commit is DoneThenFailed, with the
        outcome."""
        assert self.console is not None
        if self.ledger is not None and self.standing is Standing.AHEAD:
            try:  # the game ran ahead of a refused commit: back to the ledger first
                self._rebuild()
            except LedgerError:
                return self._ledger_refused(action)
        people = self.console.changed_people()
        if people is not None:
            self._backlog.append(("console.people", people))
        kind = admit(self, action)
        try:
            lines = kind.apply(self, action)
            money = self._money_moved()
        except Refused:
            raise  # the money's rules refused it: the money is as it was, nothing kept
        except ValueError as e:  # the game refused what the check let through: nothing kept
            self._rewind_game()
            raise Refused(409, str(e)) from e
        except Exception:  # unexpected: nothing kept, and the game as the ledger has it
            self._rewind_game()
            raise
        record = action.record()
        index = None
        if self.ledger is not None:
            made = self._append([("action", record), *(("result", {"line": x}) for x in lines),
                                 *((x["event"], x) for x in money)])
            if made is None:
                self._rewind_game()
                return self._ledger_refused(action)
            index = next(r.idx for r in made if r.kind == "action")
        outcome = Outcome(record, lines, index, money)
        try:
            self._action_committed(action, outcome)
        except Exception as e:
            raise DoneThenFailed(outcome) from e
        return outcome

    def _action_committed(self, action: Action, outcome: Outcome) -> None:
        """The action is in the ledger: to the console file and the journal, its lines
        published, and shown at once, as a batch of its own."""
        assert self.console is not None
        self.unshown.money = self.unshown.money or bool(outcome.money)
        writer = self.console.replay_file
        if writer is not None:
            writer.action(self.frames_committed, self.last_seq, outcome.record)
        approval = action.approved_by
        self.log.info("console.action", kind=action.kind, by=action.by, role=action.role.value,
                      approved_by=None if approval is None else approval.person,
                      args=dict(action.args), ledger_index=outcome.index, **self.where())
        for line in outcome.lines:
            self._publish(line)
        self._track_hold(outcome.lines)
        self.unshown.view = True
        self.acknowledged()

    def replay_action(self, body: dict[str, Any]) -> None:
        """A recorded action played again where no ledger is kept (`replay --console`): its
        lines (and the money's records) are published with the next commit, in their order
        among the frames'."""
        lines = self._replay_played(body)
        self._track_hold(lines)
        self.batch.lines += [*lines, *self._money_moved()]

    def _ledger_refused(self, action: Action) -> Outcome:
        """Refused: the ledger would not take it. A sign-out is never refused: it is kept
        for the ledger, which takes it as soon as it can."""
        if action.kind == "sign_out":
            self.end_session(action)
            return Outcome(action.record(), [], None)
        raise Refused(503, "the audit ledger refused the record: nothing was done; try again")

    def end_session(self, action: Action) -> None:
        """A sign-out no one can refuse (a session expired, the daemon stops): recorded now if
        the ledger takes it, else as soon as it does."""
        self.record("action", action.record())
        if self.console is not None and self.console.replay_file is not None:
            self.console.replay_file.action(self.frames_committed, self.last_seq,
                                            action.record())

    def open_sessions(self) -> list[tuple[str, str, str]]:
        """(person, role, session) signed in after the last start and never signed out: a
        daemon that was killed left them; the next start signs them out."""
        assert self.ledger is not None
        starts = [r.idx for r in self.ledger.records(kinds=("daemon.start",))]
        if not starts:
            return []
        open_: dict[str, tuple[str, str, str]] = {}
        for record in self.ledger.records(starts[-1], ("action",)):
            body = record.body
            session = body.get("args", {}).get("session")
            if body.get("kind") == "sign_in" and session:
                open_[session] = (body["by"], body["role"], session)
            elif body.get("kind") == "sign_out":
                open_.pop(session, None)
        return list(open_.values())

    def play_recorded(self, record: Record) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """One of the ledger's frames, actions or changes of limits by the configuration
        (`REPLAYED`) played again, as the restore plays them: the lines it decided and the
        money's records it made (what the ledger recorded after it, if all is well)."""
        if record.kind == "money.limits":
            return [], self._replay_limits(record.body) if self.till is not None else []
        if record.kind not in ("frame", "action"):
            return [], []
        lines = self._replay(record)
        return lines, self._money_moved()

    def _replay(self, record: Record) -> list[dict[str, Any]]:
        """A frame or an action of the ledger played again (restore)."""
        if record.kind == "frame":
            return play_frame(self.machine, record.body)
        return self._replay_played(record.body)

    def _replay_played(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """A recorded action played again. A money action the rules refuse now (a ledger
        written by other software) is said, and changes nothing."""
        try:
            return play_action(self, body)
        except Refused as e:
            self.log.error("money.replay_refused", kind=body.get("kind"), id=body.get("id"),
                           reason=e.reason)
            return []

    # ---- the table's money ----------------------------------------------------------------------

    def _money_moved(self) -> list[dict[str, Any]]:
        """What the money did since it was last asked: the game's moments followed, and the
        records they (and any money action) made, in order, for the commit."""
        till = self.till
        if till is None:
            return []
        till.follow(self.machine.take_moments())
        return till.take()

    def _restore_money(self, shoe_start: int | None) -> None:
        """The money as the `money.table` record of the shoe restored from has it (in the same
        transaction as its BTN,SHOE frame); from the configuration where there is none."""
        assert self.till is not None and self.ledger is not None
        snapshot = None
        if shoe_start is not None:
            for record in self.ledger.records(shoe_start + 1):
                if record.kind == "money.table":
                    snapshot = record.body
                    break
                if record.kind != "result" and record.kind not in MONEY_KINDS:
                    break
        try:
            self.till.restore(snapshot)
        except RecordError as e:
            self.log.error("money.snapshot_unreadable", error=str(e))
            self.till.restore(None)

    def _replay_limits(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """A change of limits the configuration made, played again at its place."""
        assert self.till is not None
        op = self.till.replayed_op(body)
        if op is None:
            return []  # a person's: played again with the person's action
        try:
            self.till.apply(op)
        except Refusal as e:
            self.log.error("money.replay_refused", kind="limits", reason=str(e))
        return self.till.take()

    def _money_checked(self, start: int, replayed: list[dict[str, Any]]) -> None:
        """The money's records played again against those the ledger holds since `start`:
        a difference (a ledger written by other software) is said, and the last settlement
        is kept as recorded, for a supervisor to reopen."""
        assert self.till is not None and self.ledger is not None
        recorded = [r.body for r in self.ledger.records(start, MONEY_KINDS)]
        if replayed == recorded:
            return
        self.log.error("money.replay_mismatch", replayed=len(replayed), recorded=len(recorded),
                       first=first_difference(recorded, replayed, "records"))
        settled = [r for r in recorded if r.get("event") == "money.settlement"]
        if settled:
            self.till.recorded(settled[-1])

    def configure_money(self) -> None:
        """At start, after the restore: the configuration's `[money]` as the limits from the
        next round, if the file changed since the money last took it (a supervisor's change
        otherwise stands). Recorded as a `money.limits` record of the configuration's."""
        till = self.till
        if till is None:
            return
        op = till.configured_op()
        if op is None:
            return
        try:
            records = till.apply(op)
        except Refusal as e:
            self.log.error("money.configuration_refused", reason=str(e))
            return
        till.take()
        self._backlog += [(r["event"], r) for r in records]
        if self.ledger is None or self._append([]) is not None:
            self.unshown.money = True
        self.log.info("money.limits", source="configuration", limits=records[0]["limits"])

    def _rewind_game(self) -> None:
        """The game ran ahead of the ledger with an action that was not kept: back to the
        ledger. If even reading it fails, the game stays ahead: the next commit fails too,
        and the link rewinds."""
        if self.ledger is None:
            return
        try:
            self._rebuild()
        except LedgerError:
            self._fell_ahead()

    def _show_money(self) -> None:
        """The money's public part to the display (console/shown_money.py), once the records
        that changed it are committed, never before: called with the committed batch's view.

        A house that keeps stakes private shows none before betting closes; a fault here is
        the screen's, logged and never raised, as `_show`'s."""
        till, display = self.till, self.display
        if till is None or display is None or not self.unshown.money:
            return
        self.unshown.money = False
        if self._money_shown == till.version:
            return
        self._money_shown = till.version
        try:
            shown = shown_money(till.money, till.settlement)
            if display.write is None:
                display.set_amounts(house_writing(till.money))
            display.set_bank(shown.bank)
            display.set_limits(shown.limits)
            display.set_stakes(shown.stakes)
            display.set_payouts(shown.payouts)
        except Exception:
            self.log.exception("display.money_failed", **self.where())

    def _console_state(self) -> None:
        assert self.console is not None
        try:
            self.console.state(self.machine.latches, self.lamp, self.machine.reports,
                               self._money_summary())
        except Exception:
            self.log.exception("console.failed", **self.where())

    def _money_summary(self) -> dict[str, Any] | None:
        """The money as the console shows it, built again only when it changed."""
        till = self.till
        if till is None:
            return None
        if self._summary is None or self._summary[0] != till.version:
            self._summary = (till.version, till.summary())
        return self._summary[1]

    # ---- what a frame says besides the game ---------------------------------------------------

    def _note(self, message: Message, kind: str) -> None:
        if isinstance(message, Hello):
            rebooted = kind == RESET and self.boot_id not in (None, message.boot_id)
            self.boot_id = message.boot_id
            if rebooted and self.ledger is not None:
                self._backlog.append(("transport", {"event": "shoe.reboot",
                                                    "detail": message.boot_id}))
            (self.log.warning if rebooted else self.log.info)(
                "shoe.reboot" if rebooted else "shoe.hello",
                model=message.model, serial=message.serial, firmware=message.firmware,
                boot_id=message.boot_id, **self.where())
        elif isinstance(message, Fault):
            self.log.warning("shoe.fault", code=message.code, on=message.on, **self.where())

    def _track_hold(self, lines: list[dict[str, Any]]) -> None:
        """The hold in force, from the lines that raise and lift holds."""
        for line in lines:
            event = line["event"]
            if event == "irregularity" and line["hold"]:
                self._hold = HoldInForce(line["code"], line["rule"])
            elif event == "irregularity.resolved":
                self._hold = None

    # ---- publishing -----------------------------------------------------------------------------

    def _publish(self, line: dict[str, Any]) -> None:
        """A committed result or irregularity: to the results file, then the log; the display
        takes it once the batch is acknowledged. (A money record is here only in a replay,
        which prints it among the lines.)"""
        event = line["event"]
        if event.startswith("money."):
            if self.results is None:
                self.published.append(line)
            return
        if self.display is not None:
            self.unshown.lines.append(line)
        if self.results is None:
            self.published.append(line)
        else:
            self.results.write(json.dumps(line) + "\n")
            self.results.flush()
        where = {"shoe": line["shoe"], "coup": line["coup"], "frame": self.frame}
        if event == "coup.result":
            self.log.info(event, outcome=line["outcome"], **where)
        elif event == "irregularity":
            self.log.warning(event, code=line["code"], rule=line["rule"], hold=line["hold"],
                             detail=line["detail"], **where)
        else:
            self.log.info(event, code=line["code"], how=line["how"], by=line["by"], **where)

    def _show(self) -> None:
        """The committed state to the display (a snapshot handed over, never awaited).

        The screen is secondary to the table: a fault in building it is logged, never raised.
        """
        if self.display is None:
            return
        try:
            self.display.show(self.machine)
        except Exception:
            self.log.exception("display.failed", **self.where())
