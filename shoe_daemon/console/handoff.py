"""The handoff of an action from the console's server to the table's loop: one contract,
its two deadlines named (docs/console.md, "The handoff and its answers").

The server runs in its own thread; the table's loop is the one thread that plays the shoe's
frames and the only one that commits. The server hands an action over (`Inbox.submit`) and
gets a `Handoff`, whose `concurrent.futures.Future` carries the outcome back; the loop takes
what waits between two turns of the shoe's link (`Inbox.take`, then `Handoff.take`), acts,
and sets the outcome. The loop never waits for the server.

The deadlines:
- ADMIT: the loop takes an action within `admit` seconds of its handing over, or not at all.
  Both ends check it. At the deadline the server withdraws an action the loop has not taken
  (`Future.cancel`, which fails once the loop has it); the loop refuses, unseen, one it takes
  later (`Handoff.take`). Either way nothing of it was done, and the answer says so.
- ANSWER: once the loop has taken an action, its outcome comes whatever the time it takes;
  one HTTP request waits at most `answer` seconds (>= `admit`) for it, then answers that it
  is still being done (console/answers.py). The outcome is kept for the retry with the same
  request id, which gets it.

What each answer means, and why it is true:
- 200 with `ledger_index`: done; the ledger holds the action at that index (the loop set the
  outcome after the commit).
- 503 "nothing was done": the loop never took it (withdrawn, or refused past the deadline),
  or the ledger refused the commit and the game was rewound.
- another refusal (400, 403, 409): the table's checks refused it; nothing is kept.
- 202 "still being done": said only while the loop has it (`Future.running()`): taken, not
  finished. Ask again with the same request id for its outcome.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from shoe_daemon.console.actions import Action, Refused

ADMIT = 10.0  # s: the loop takes an action within this of its handing over, or never
ANSWER = 30.0  # s: the longest one HTTP request waits for the outcome of an action taken
RECORDS_WAITING = 256  # the server's records for the ledger the loop has not taken yet
NOT_TAKEN = "the table did not get to it in time: nothing was done; try again"


@dataclass(frozen=True)
class Outcome:
    """A committed action: its record, the lines it decided, where the ledger put it, and
    the money's records it made."""

    record: dict[str, Any]
    lines: list[dict[str, Any]]
    index: int | None
    money: list[dict[str, Any]] = field(default_factory=list)


class DoneThenFailed(Exception):
    """The table committed an action, then failed (its results file, ...): the outcome
    stands and is the answer; the failure is the table's, as after a frame's commit."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(f"action {outcome.record.get('id')} committed at {outcome.index}, "
                         "then the table failed")
        self.outcome = outcome


@dataclass(eq=False)
class Handoff:
    """One action handed over: `deadline` (time.monotonic()) is ADMIT's, None for an action
    no one may refuse (a session's end)."""

    action: Action
    deadline: float | None
    future: concurrent.futures.Future[Outcome] = field(
        default_factory=concurrent.futures.Future)

    # ---- the table's loop -----------------------------------------------------------------------

    def take(self) -> bool:
        """The loop takes it: True if it is the loop's now, which must then give its outcome
        (`done` or `refused`); False if it is not to be done: the server withdrew it, or its
        deadline passed (refused here, unseen). Either False means nothing of it was done."""
        if not self.future.set_running_or_notify_cancel():
            return False
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.future.set_exception(Refused(503, NOT_TAKEN))
            return False
        return True

    def done(self, outcome: Outcome) -> None:
        """Its outcome, once committed (the loop's thread)."""
        self.future.set_result(outcome)

    def refused(self, refusal: Refused) -> None:
        """Refused, with nothing of it kept (the loop's thread)."""
        self.future.set_exception(refusal)

    # ---- the server's event loop ----------------------------------------------------------------

    @property
    def taken(self) -> bool:
        """The loop has it and has not finished it: the one moment "still being done" is true."""
        return self.future.running()

    async def outcome(self) -> Outcome:
        """Its outcome: Refused (503, nothing was done) if the loop has not taken it by the
        deadline, which withdraws it; once taken, however long the loop takes. Refused too
        for the table's own refusals."""
        waiting = asyncio.wrap_future(self.future)
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            try:
                return await asyncio.wait_for(asyncio.shield(waiting), max(left, 0.0))
            except TimeoutError:
                if self.future.cancel():  # not taken: withdrawn, so nothing was done
                    raise Refused(503, NOT_TAKEN) from None
        return await waiting  # taken: the loop gives its outcome


class Inbox:
    """Actions from the server's thread to the table's loop, oldest first; and the records
    the server has for the ledger that answer nobody (`record`, `records`: a sign-in
    lockout)."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Handoff] = queue.SimpleQueue()
        self._ready = threading.Event()
        self._records: deque[tuple[str, dict[str, Any]]] = deque(maxlen=RECORDS_WAITING)

    def submit(self, action: Action, admit: float | None) -> Handoff:
        """Hand an action over; the loop takes it within `admit` seconds or not at all (None:
        it may not be refused, a session's end)."""
        handoff = Handoff(action, None if admit is None else time.monotonic() + admit)
        self._queue.put(handoff)
        self._ready.set()
        return handoff

    def take(self) -> list[Handoff]:
        """Everything waiting, oldest first (the loop's thread; never blocks)."""
        self._ready.clear()
        taken = []
        while True:
            try:
                taken.append(self._queue.get_nowait())
            except queue.Empty:
                return taken

    def record(self, kind: str, body: dict[str, Any]) -> None:
        """A record for the ledger, committed by the loop at its next turn (`records`);
        never blocks. The server bounds how many it makes; past RECORDS_WAITING the oldest
        waiting is dropped rather than memory growing."""
        self._records.append((kind, body))
        self._ready.set()

    def records(self) -> list[tuple[str, dict[str, Any]]]:
        """The records waiting, oldest first (the loop's thread)."""
        taken = []
        while self._records:
            taken.append(self._records.popleft())
        return taken

    def wait(self, timeout: float) -> None:
        """Sleep until an action or a record comes or `timeout` passes (the loop, while the
        shoe is away)."""
        self._ready.wait(timeout)

    def wake(self) -> None:
        self._ready.set()
