"""The pit's odds and integrity monitor at a live table (issue 14, sections 2 and 3).

```
table's loop ──commit──> ledger ──(read-only)──> monitor's thread ──request──> worker process
      ^                                            tracker.py            <──answer── checks.py
      └──── take(): records to commit ─────────── findings
```

- It reads the committed ledger, never the loop's memory: its own read-only SQLite
  connection, woken by `notify()` (the table committed; it reads `defer` seconds later,
  off the committing frame's path) and every `poll` seconds. What it
  knows of the table is what the ledger holds (tracker.py), so a restart picks up where the
  records say.
- The computation runs in a worker process (worker.py): the loop never waits for it, and
  the interpreter's lock it would hold in a thread never delays a frame.
- What it found goes back to the table's loop as records to commit (`take()`), as the
  console's actions do: the loop commits them between two turns of the shoe's link
  (`table.record`), stamping an exposure that comes after its coup has begun as late
  (live.stamp). Only once they are committed does anything say them: the monitor reads them
  back from the ledger, and then the status line and the log say them (`words`).

Nothing here ever reaches the table display or the results file: the display is built from
the published lines and the game's public state, and none of these is either.
"""

from __future__ import annotations

import contextlib
import json
import queue
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from shoe_daemon.audit.follow import LedgerFollower
from shoe_daemon.audit.ledger import Record
from shoe_daemon.game.rules import HouseProfile
from shoe_daemon.odds.live import stamp, status_words
from shoe_daemon.odds.slugs import EARLIER
from shoe_daemon.odds.tracker import (
    EXPOSURE,
    INTEGRITY,
    INTEGRITY_ALARM,
    INVENTORY,
    KINDS,
    ODDS_ALARM,
    Finding,
    Task,
    Tracker,
)
from shoe_daemon.odds.worker import Worker, WorkerFailed

BATCH = 2000  # records read at once
DEFER = 0.05  # s from a commit to reading it: the deciding frame's path is over by then
OWED_SHOES = 12  # shoes back a restart still does what the monitor owes (a day's shoes)
TASK_TIMEOUT = 60.0  # s a computation may take before the worker is killed and restarted

_WANTED = ("SELECT idx, kind, body FROM records WHERE idx > ? AND idx <= ? AND (kind IN ('result', "
           + ", ".join(f"'{k}'" for k in KINDS)
           + ") OR (kind = 'frame' AND (body LIKE '%\"type\":\"CARD\"%' OR body LIKE "
           "'%\"type\":\"BTN\"%'))) ORDER BY idx LIMIT ?")
_LAST_OWN = ("SELECT body FROM records WHERE kind IN ("
             + ", ".join(f"'{k}'" for k in KINDS) + ") ORDER BY idx DESC LIMIT 1")
_SHOES_BACK = ("SELECT idx, body FROM records WHERE kind = 'frame' AND body LIKE "
               "'%\"fields\":[\"SHOE\"%' ORDER BY idx DESC")


class OddsMonitor:
    """One table's monitor: `start()` its thread, `notify()` on each commit, `deliver()` its
    findings from the loop, `stop()` and `join()` at the end (module note)."""

    def __init__(self, profile: HouseProfile, state_dir: Path, log: Any, *, poll: float = 1.0,
                 defer: float = DEFER, task_timeout: float = TASK_TIMEOUT,
                 worker: Worker | None = None) -> None:
        self.tracker = Tracker(profile)
        self._ledger = LedgerFollower(state_dir)  # follows a ledger put back (audit/follow.py)
        self.log = log
        self.poll = poll
        self.defer = defer
        self.task_timeout = task_timeout
        self.worker = worker or Worker()
        self._last = 0  # the highest record index read
        self._wake = threading.Event()
        self._stop_at: float | None = None  # monotonic: stop when idle, or at this time
        self._outbox: queue.SimpleQueue[Finding] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._said: tuple[dict[str, Any] | None, tuple[dict[str, Any], ...]] = (None, ())
        # (task kind, worker ms) of the latest tasks: bench/odds.py reads them
        self.computed: deque[tuple[str, float]] = deque(maxlen=1000)

    # ---- the table's loop's side ---------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="odds-monitor", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        """The table committed: look at the ledger now. Returns at once."""
        self._wake.set()

    def take(self) -> list[Finding]:
        """What the monitor found, for the loop to commit, oldest first; never blocks."""
        out = []
        while True:
            try:
                out.append(self._outbox.get_nowait())
            except queue.Empty:
                return out

    def deliver(self, record: Callable[[str, dict[str, Any]], None],
                where: Mapping[str, Any]) -> int:
        """Commit what was found through the table (`record`, in the loop's thread); an
        exposure or a bet's alarm for a coup that has begun is stamped late first."""
        found = self.take()
        for finding in found:
            body = finding.body
            if finding.kind in (EXPOSURE, ODDS_ALARM):
                body = stamp(body, where)
            record(finding.kind, body)
        return len(found)

    def words(self, where: Mapping[str, Any]) -> str:
        """The status line's part: the committed odds of the coup to come, and the alarms
        raised in the shoe in play."""
        exposure, alarms = self._said
        parts = []
        if exposure is not None and exposure["shoe"] == where.get("shoe"):
            parts.append(status_words(exposure))
        integrity = [a for a in alarms if a.get("test") and a.get("shoe") == where.get("shoe")]
        if integrity:
            parts.append("INTEGRITY ALARM: " + ", ".join(
                sorted({str(a["test"]) for a in integrity})))
        return "; ".join(parts)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self, drain: float = 0.0) -> None:
        """Finish what is owed for up to `drain` seconds (the loop goes on taking what is
        found meanwhile), then stop the thread and the worker. What is left undone is done
        at the next start: the ledger says what is owed."""
        self._stop_at = time.monotonic() + drain
        self._wake.set()

    def join(self, timeout: float) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    # ---- the monitor's thread ---------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._catch_up()
            while True:
                self._read()
                task = next(self.tracker.take(), None)
                if task is not None:
                    if self._stop_at is not None and time.monotonic() > self._stop_at:
                        break
                    self._compute(task)
                    continue
                if self._stop_at is not None:
                    break
                if self._wake.wait(self.poll) and self._stop_at is None:
                    # Let the commit that woke us finish its path first (publish, ACK,
                    # display): our reading and parsing would hold the interpreter's lock.
                    time.sleep(self.defer)
                self._wake.clear()
        except Exception:
            self.log.exception("odds.monitor_failed")
        finally:
            self.worker.close()
            self._ledger.close()

    def _conn(self) -> sqlite3.Connection | None:
        return self._ledger.conn()

    def _catch_up(self) -> None:
        """Read the ledger from where what is owed can be known (tracker.caught_up): the
        BTN,SHOE of the EARLIER-th shoe before the shoe of the monitor's last record, if that
        shoe is at most OWED_SHOES back; else before the shoe in play (its first start, or
        it was off for long: history from before it ran is not done again)."""
        db = self._conn()
        history = 0  # the ledger as it is now: what the table commits meanwhile is news
        if db is not None:
            history = db.execute("SELECT COALESCE(MAX(idx), 0) FROM records").fetchone()[0]
            last = db.execute(_LAST_OWN).fetchone()
            anchor = None
            with contextlib.suppress(ValueError, AttributeError):
                anchor = json.loads(last[0]).get("opened_at") if last else None
            shoes = []
            for idx, body in db.execute(_SHOES_BACK):
                with contextlib.suppress(ValueError):
                    if json.loads(body).get("type") == "BTN":
                        shoes.append(idx)
            # shoes: newest first; the first shoe read back is the anchor's, if near enough
            first = shoes.index(anchor) if anchor in shoes[:OWED_SHOES + 1] else 0
            back = shoes[first:first + EARLIER + 1]
            if back:
                self._last = back[-1] - 1
        self._read(upto=history)
        self.tracker.caught_up()

    def _read(self, upto: int = 2**62) -> None:
        """The records committed since the last read, up to index `upto`."""
        db = self._conn()
        if db is None:
            return
        while True:
            rows = db.execute(_WANTED, (self._last, upto, BATCH)).fetchall()
            for idx, kind, body in rows:
                self._last = idx
                try:
                    record = Record(idx, 0, 0, "", kind, json.loads(body), "", "", "")
                except ValueError:
                    continue
                for own_kind, own in self.tracker.feed(record):
                    self._said_now(own_kind, own)
            if len(rows) < BATCH:
                break
        tracker = self.tracker
        self._said = (tracker.last_exposure, tuple(tracker.alarms))

    def _said_now(self, kind: str, body: Mapping[str, Any]) -> None:
        """One of the monitor's records, read back committed: the log says it."""
        if not self.tracker.live:
            return
        where = {"shoe": body.get("shoe")}
        if kind == EXPOSURE:
            self.log.info("odds.exposure", coup=body["for_coup"], favourable=body["favourable"],
                          late=body.get("late", False), **where)
        elif kind in (ODDS_ALARM, INTEGRITY_ALARM):
            self.log.warning(kind, words=body["words"], **where)
        elif kind in (INVENTORY, INTEGRITY):
            self.log.info(kind, words=body["words"], **where)

    def _compute(self, task: Task) -> None:
        for attempt in (1, 2):
            try:
                answer = self.worker.ask({"task": task.kind, **task.request}, self.task_timeout)
                break
            except WorkerFailed as e:
                self.log.error("odds.worker_failed", error=str(e), attempt=attempt,
                               task=task.kind, shoe=task.request.get("shoe"))
        else:
            return
        if not answer.get("ok"):
            self.log.error("odds.task_failed", error=answer.get("error"), task=task.kind,
                           shoe=task.request.get("shoe"))
            return
        self.computed.append((task.kind, float(answer.get("ms", 0.0))))
        result = answer["result"]
        if "exposure_error" in result:
            self.log.info("odds.no_exposure", why=result["exposure_error"],
                          shoe=task.request.get("shoe"), after_coup=task.after_coup)
        for finding in self.tracker.done(task, result):
            self._outbox.put(finding)
