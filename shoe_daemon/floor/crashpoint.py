"""Crash points: named places where the floor's kill tests have a process die as `kill -9`
would, at an exact step of its work rather than at an instant a test guesses.

Inert unless the environment of the process names a point: `SHOE_FLOOR_CRASH_POINT=NAME` or
`NAME:N` kills the process with SIGKILL (sent to itself) the Nth time it reaches NAME (the
first time without N). No configuration file, flag or setting reaches it; an unknown name
is refused when the module loads. Unarmed, a point costs one comparison. This is the fail
point of FreeBSD's fail(9), etcd's gofail or TiKV's fail-rs, reduced to the one action the
floor's tests need: a real process, really killed, deterministically (tests/floor/
test_floor_kills.py).
"""

from __future__ import annotations

import json
import os
import signal
import threading

VARIABLE = "SHOE_FLOOR_CRASH_POINT"

POINTS = {
    "link.before_publish": "the link has read committed records from the ledger and packed "
                           "them into a message it has not yet handed to MQTT",
    "link.before_cursor": "the broker has acknowledged messages beyond the cursor; the "
                          "cursor that moves over them is not yet written",
    "collector.before_commit": "a batch's records are written in its transaction, which is "
                               "not committed",
    "collector.before_ack": "a batch carrying records is committed, none of its messages "
                            "acknowledged",
}


def _armed(text: str) -> tuple[str, int] | None:
    if not text:
        return None
    name, _, count = text.partition(":")
    if name not in POINTS or not (count or "1").isdigit() or int(count or "1") < 1:
        raise ValueError(f"{VARIABLE}={text!r}: not NAME or NAME:N with N >= 1 and NAME one "
                         f"of {', '.join(POINTS)}")
    return name, int(count or "1")


_ARMED = _armed(os.environ.get(VARIABLE, ""))
_passes = 0
_lock = threading.Lock()


def crash_point(name: str) -> None:
    """Die here, now, with SIGKILL, if the environment armed `name` and this is its pass."""
    global _passes
    if _ARMED is None or _ARMED[0] != name:
        return
    with _lock:
        _passes += 1
        if _passes < _ARMED[1]:
            return
    os.write(2, (json.dumps({"event": "crash_point", "point": name, "pass": _passes}) +
                 "\n").encode())
    os.kill(os.getpid(), signal.SIGKILL)
