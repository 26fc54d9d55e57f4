"""The monitor's worker process: `python -m shoe_daemon.odds.worker`.

The exact odds take some milliseconds of pure Python per coup (several times that on a
Raspberry Pi). Run in a thread of the daemon they would hold the interpreter's lock while
the shoe's next frame waits for the table's loop; in a process of their own they run on
another core and the loop never waits for them.

One request a line on stdin, one answer a line on stdout, both JSON:
`{"id": N, "task": "coup" | "end", ...}` (checks.py says the rest) answered by
`{"id": N, "ok": true, "result": {...}, "ms": M}` or `{"id": N, "ok": false, "error": "..."}`.
It ends at the end of its input. It reads nothing else and writes nothing else.

`Worker` is the monitor's handle on the process (started on first use, restarted after a
failure): both ends of the pipe live in this one module, so its protocol is read in one place.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from shoe_daemon.odds.checks import after_coup, at_shoe_end
from shoe_daemon.odds.law import CoupLaw
from shoe_daemon.odds.shoe import Shoe

NICE = 19  # the worker's priority below the daemon's, where SCHED_IDLE is not to be had
COMMAND = (sys.executable, "-m", "shoe_daemon.odds.worker")
TASKS: Mapping[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "coup": after_coup, "end": at_shoe_end}


def answer(request: Mapping[str, Any]) -> dict[str, Any]:
    """One request's answer; a failure is an answer too, never an exit."""
    started = time.perf_counter()
    try:
        result = TASKS[request["task"]](request)
    except Exception as e:  # said to the monitor, which logs it; the worker goes on
        return {"id": request.get("id"), "ok": False, "error": f"{type(e).__name__}: {e}"}
    return {"id": request.get("id"), "ok": True, "result": result,
            "ms": round((time.perf_counter() - started) * 1000, 3)}


def serve(requests: TextIO, answers: TextIO) -> None:
    CoupLaw.of(Shoe.full(1))  # the shoe-independent table, built once before the first coup
    for line in requests:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as e:
            reply: dict[str, Any] = {"id": None, "ok": False, "error": f"not JSON: {e}"}
        else:
            reply = answer(request)
        answers.write(json.dumps(reply, separators=(",", ":")) + "\n")
        answers.flush()


class WorkerFailed(Exception):
    """The worker process died, hung or answered nonsense."""


class Worker:
    """The worker process, started on first use and again after a failure."""

    def __init__(self, command: tuple[str, ...] = COMMAND) -> None:
        self.command = command
        self._proc: subprocess.Popen[str] | None = None
        self._next = 0

    def ask(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        proc = self._proc
        if proc is None or proc.poll() is not None:
            proc = self._proc = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                bufsize=1)
        assert proc.stdin is not None and proc.stdout is not None
        self._next += 1
        try:
            proc.stdin.write(json.dumps({**request, "id": self._next}, separators=(",", ":"))
                             + "\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], timeout)
            line = proc.stdout.readline() if ready else ""
        except (OSError, ValueError) as e:
            self.close()
            raise WorkerFailed(f"the worker's pipe failed: {e}") from e
        if not line:
            self.close()
            raise WorkerFailed("the worker did not answer within "
                               f"{timeout:.0f} s" if not ready else "the worker exited")
        answer = json.loads(line)
        if answer.get("id") != self._next:
            self.close()
            raise WorkerFailed(f"the worker answered request {answer.get('id')}, not "
                               f"{self._next}")
        return answer

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            if proc.stdin is not None:
                proc.stdin.close()
        try:
            proc.wait(2.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def _yield_to_the_daemon() -> None:
    """Run only when a core is idle (Linux's SCHED_IDLE), else at the lowest nice: the
    daemon's loop first, wherever the cores are few. Late figures say they are late."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(NICE)


if __name__ == "__main__":
    _yield_to_the_daemon()
    serve(sys.stdin, sys.stdout)
