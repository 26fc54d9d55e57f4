"""The answers to the console's requests, kept for their retries (docs/console.md, "The
handoff and its answers").

A request that changes something carries an id the client made. A client that lost the
answer (a dropped connection, a timeout) or was told the table is still doing it asks again
with the same id, and gets the first answer, the same status and body, or waits for it; the
action is never done twice. Who gets which answer:
- a request id is its session's. The same session asking again with the same contents gets
  the answer; other contents under that id are refused (422). Another session's id is
  refused (409): it is never another person's answer, nor taken as new (it may be being done).
- an action the ledger holds whose session is gone (the daemon restarted, or the session
  ended) is answered from the ledger, found by its id (the `action` record carries it), for
  the person who took it; for anyone else its id is refused (409).
- nothing is kept for a request before its session was checked, nor for one refused before
  it reaches the table (bad fields, the wrong role: asked again, it is refused again), nor
  for one answered "nothing was done" (503): the retry with the same id is a new attempt.

Bounds: a session's answers live with the session (its longest life), at most PER_SESSION
of them (the oldest finished go first) and IN_PROGRESS being done at once (one more is
refused, 429, keeping nothing); of the ledger's actions, those of the last `keep` seconds,
at most RECORDED, by id only (index, person, what it asked), the body read again when asked.
The book is the console server's, on its event loop's thread alone (no locks).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shoe_daemon.audit.reader import AuditError, LedgerReader
from shoe_daemon.console.actions import Refused
from shoe_daemon.console.handoff import Handoff, Outcome
from shoe_daemon.console.sessions import Session

PER_SESSION = 200  # answers a session keeps
IN_PROGRESS = 8  # a session's requests being done at once
RECORDED = 50_000  # the ledger's actions known by id

Reply = tuple[int, dict[str, Any]]  # the HTTP status and the JSON body
NOT_DONE = (503,)  # nothing was done (not taken in time, the ledger refused): not kept


def asked(kind: str, args: Any) -> str:
    """What a request asks, to tell its retry from another request under the same id (a
    field given as null is one not given, as the schema takes it)."""
    if isinstance(args, dict):
        args = {k: v for k, v in args.items() if v is not None}
    return json.dumps({"kind": kind, "args": args or {}}, sort_keys=True,
                      separators=(",", ":"))


def action_body(outcome: Outcome) -> dict[str, Any]:
    """The answer to a committed action: its record, its index, what it decided (never a
    detail naming a card) and the money's records it made (all but the table's whole at a
    new shoe, `money.table`, which holds the last coup's line and its cards)."""
    keep = ("event", "shoe", "coup", "code", "outcome")
    return {"ok": True, "action": outcome.record, "ledger_index": outcome.index,
            "lines": [{k: line[k] for k in keep if k in line} for line in outcome.lines],
            "money": [r for r in outcome.money if r["event"] != "money.table"]}


@dataclass(frozen=True)
class Recorded:
    """An action the ledger holds, by its request id."""

    index: int
    by: str
    asked: str
    at: float  # time.monotonic() it was committed, as near as known


class LedgerActions:
    """The daemon's ledger read for the answers (read-only, off the event loop): the actions
    of the last while, and an action's answer as it was given."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir

    def since(self, wall_ns: int) -> dict[str, Recorded]:
        """The actions committed from `wall_ns` (time.time_ns()) on, by id, oldest first;
        none if there is no ledger yet."""
        try:
            reader = LedgerReader(self.state_dir)
        except AuditError:
            return {}
        try:
            if not reader.made():
                return {}
            now_wall, now = time.time_ns(), time.monotonic()
            found: dict[str, Recorded] = {}
            for idx, wall, body in reader.db.execute(
                    "SELECT idx, wall_ns, body FROM records WHERE kind = 'action' "
                    "AND wall_ns >= ? ORDER BY idx", (wall_ns,)):
                action = json.loads(body)
                found[action["id"]] = Recorded(idx, action["by"],
                                               asked(action["kind"], action["args"]),
                                               now - (now_wall - wall) / 1e9)
            return found
        except (sqlite3.Error, ValueError, KeyError, TypeError):
            return {}  # unreadable: the daemon's own check at start says so and stops
        finally:
            reader.close()

    def reply(self, index: int) -> Reply:
        """The answer to the action at `index`, from its transaction: the action, then the
        lines it decided and the money's records (one commit: one time and process)."""
        reader = LedgerReader(self.state_dir)
        try:
            reader.db.execute("BEGIN")
            records = reader.records(index)
            action = next(records)
            lines, money = [], []
            for record in records:
                if (record.boot, record.mono_ns) != (action.boot, action.mono_ns):
                    break
                if record.kind == "result":
                    lines.append(record.body["line"])
                else:
                    money.append(record.body)
        finally:
            reader.close()
        return 200, action_body(Outcome(action.body, lines, index, money))


@dataclass(eq=False)
class Answer:
    """One request's answer: being made (`task` not done), or made."""

    id: str
    session: str
    asked: str
    task: asyncio.Future[Reply] = field(init=False)
    handoff: Handoff | None = None  # set once it is handed to the table's loop

    @property
    def still_being_done(self) -> bool:
        """True only while the table's loop has it and has not finished it."""
        return not self.task.done() and self.handoff is not None and self.handoff.taken


Work = Callable[[Answer], Awaitable[Reply]]


class Answers:
    """The answers kept, per session and from the ledger; `keep` is a session's longest
    life (s)."""

    def __init__(self, keep: float, ledger: LedgerActions | None = None) -> None:
        self.keep = keep
        self.ledger = ledger
        self._by_id: dict[str, Answer] = {}
        self._sessions: dict[str, dict[str, Answer]] = {}
        self._recorded: dict[str, Recorded] = {}
        self._loaded: asyncio.Future[dict[str, Recorded]] | None = None

    def __len__(self) -> int:
        """Answers kept (the ledger's actions known by id not counted)."""
        return len(self._by_id)

    async def ready(self) -> None:
        """The ledger's actions of the last `keep` seconds known (read once, off the loop)."""
        if self.ledger is None or (self._loaded is not None and self._loaded.done()):
            return
        if self._loaded is None:
            since = time.time_ns() - int(self.keep * 1e9)
            self._loaded = asyncio.get_running_loop().run_in_executor(
                None, self.ledger.since, since)
            self._loaded.add_done_callback(self._merge)
        await asyncio.shield(self._loaded)

    def _merge(self, loaded: asyncio.Future[dict[str, Recorded]]) -> None:
        if not loaded.cancelled() and loaded.exception() is None:
            self._recorded = {**loaded.result(), **self._recorded}
            self._trim()

    def ask(self, session: Session, request_id: str, asked: str, work: Work) -> Answer:
        """The answer to this request: the one kept for it, or one being made now (by
        `work`, or from the ledger). Refused (409, 422, 429), keeping nothing, as the
        module says."""
        answer = self._by_id.get(request_id)
        if answer is not None:
            if answer.session != session.id:
                raise Refused(409, f"request {request_id} was sent in another session: "
                                   "refused (a new request takes a new id)")
            if answer.asked != asked:
                raise Refused(422, f"request {request_id} was sent before with other "
                                   "contents: refused (a new request takes a new id)")
            return answer
        mine = self._sessions.get(session.id, {})
        if sum(not a.task.done() for a in mine.values()) >= IN_PROGRESS:
            raise Refused(429, f"{IN_PROGRESS} requests of this session are still being "
                               "done: wait for their answers")
        recorded = self._recorded.get(request_id)
        if recorded is not None:
            if recorded.by != session.person:
                raise Refused(409, f"request {request_id} was another person's: refused")
            if recorded.asked != asked:
                raise Refused(422, f"request {request_id} was sent before with other "
                                   "contents: refused (a new request takes a new id)")
            work = self._from_ledger(recorded)
        answer = Answer(request_id, session.id, asked)
        answer.task = asyncio.ensure_future(work(answer))
        answer.task.add_done_callback(lambda _: self._finished(answer))
        self._by_id[request_id] = answer
        self._sessions.setdefault(session.id, {})[request_id] = answer
        self._bound(self._sessions[session.id])
        return answer

    def known(self, request_id: str) -> bool:
        """Whether this id was answered or committed already (a sign-in's must be new)."""
        return request_id in self._by_id or request_id in self._recorded

    def committed(self, outcome: Outcome) -> None:
        """An action the table committed: its id is known by the ledger's answer from now."""
        if outcome.index is None:
            return
        record = outcome.record
        self._recorded[record["id"]] = Recorded(outcome.index, record["by"],
                                                asked(record["kind"], record["args"]),
                                                time.monotonic())
        self._trim()

    def forget(self, session_id: str) -> None:
        """A session ended: its answers go (those still being done once done); its
        committed actions are answered from the ledger from now."""
        for request_id, answer in self._sessions.pop(session_id, {}).items():
            if answer.task.done():
                self._by_id.pop(request_id, None)

    def _finished(self, answer: Answer) -> None:
        """An answer made: kept while its session lives. One that says nothing was done
        (503), or that could not be made (the ledger unreadable for it, the server stopping),
        is not kept: the retry with the same id tries again."""
        task = answer.task
        if answer.session in self._sessions and not task.cancelled() and \
                task.exception() is None and task.result()[0] not in NOT_DONE:
            return
        if self._by_id.get(answer.id) is answer:
            del self._by_id[answer.id]
        self._sessions.get(answer.session, {}).pop(answer.id, None)

    def _bound(self, mine: dict[str, Answer]) -> None:
        """At most PER_SESSION answers in a session: the oldest finished go first."""
        while len(mine) > PER_SESSION:
            oldest = next((k for k, a in mine.items() if a.task.done()), None)
            if oldest is None:
                return
            del mine[oldest]
            self._by_id.pop(oldest, None)

    def _trim(self) -> None:
        """The ledger's actions of the last `keep` seconds, at most RECORDED."""
        old = time.monotonic() - self.keep
        while self._recorded:
            first = next(iter(self._recorded))
            if len(self._recorded) <= RECORDED and self._recorded[first].at >= old:
                return
            del self._recorded[first]

    def _from_ledger(self, recorded: Recorded) -> Work:
        ledger = self.ledger

        async def work(_: Answer) -> Reply:
            if ledger is None:
                return 409, {"error": "this request was answered in a session that ended: "
                                      "see the recall for what was done"}
            return await asyncio.get_running_loop().run_in_executor(None, ledger.reply,
                                                                    recorded.index)

        return work
