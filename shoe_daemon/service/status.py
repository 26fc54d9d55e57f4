"""What the running daemon is doing, said three ways: `systemctl status` (sd_notify STATUS=
lines), `STATE_DIR/status.json` (rewritten atomically on every change and every
`FILE_EVERY` seconds as a heartbeat), and the `shoe-daemon status` command, which reads that
file and the audit ledger read-only and never disturbs the daemon.

`shoe-daemon status` exits 0 when the daemon runs and serves the table, 1 when it runs but
the table is not in play (starting, waiting for the shoe, a hold, the ledger unwritable, or no
heartbeat for `STALE_AFTER` seconds: a hung loop), 3 when it is not running (the LSB code
`systemctl status` uses), 2 when the state cannot be read.

The floor link (docs/floor.md), when configured, is reported beside the table and never
changes the table's state or the exit code: a dead broker only delays the floor. Its backlog
moves with every commit, so status.json carries it as of the last write (a heartbeat at most
`FILE_EVERY` old) and the command reads it fresh from the ledger and the link's cursor.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from drivers.records import opens_shoe
from shoe_daemon.console.throttle import lockout_words
from shoe_daemon.service.notify import Notifier

STATUS_FILE = "status.json"
FILE_EVERY = 30.0  # s between heartbeat rewrites of status.json when nothing changed
STALE_AFTER = 3 * FILE_EVERY  # s without a heartbeat: the loop is stuck
SLICE = 1.0  # s: the longest single wait in the loop when no watchdog interval is given

RUNNING, NOT_IN_PLAY, CANNOT_READ, NOT_RUNNING = 0, 1, 2, 3
UNMADE = "not made yet"  # the ledger's file is there, its tables not yet
ODDS_ALARMS = ("odds.alarm", "integrity.alarm")  # the odds monitor's (docs/odds.md)
ALARMS_SHOWN = 5
LOCKOUT = "console.lockout"  # the console's sign-in throttle (console/throttle.py)

_STATE_WORDS = {
    "no_shoe": "no shoe loaded",
    "waiting_for_stakes": "waiting for stakes",
    "dealing": "dealing",
    "punter_to_declare": "waiting for the punter's declaration",
    "punter_drawing": "punter drawing",
    "banker_to_play": "waiting for the banker",
    "decided": "coup decided",
}


def _iso(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class FloorStatus:
    """The floor link as the loop sees it."""

    broker: str  # mqtts://HOST:PORT
    connected: bool
    down_since: float | None  # Unix time the broker was lost (or the link began without it)
    backlog: int  # committed records the broker has not acknowledged
    acked: int  # the highest record index it has acknowledged, with all before it


@dataclass(frozen=True)
class ServiceStatus:
    """What the reporter reads of the running service each time it reports (the loop fills
    it from its transport and its table's public status)."""

    shoe_connected: bool
    transport: str  # the transport's name
    awaiting: str  # where the shoe is awaited, for a person ("/dev/shoe")
    ledger_ok: bool
    ledger_error: str  # why the ledger refuses writes, while it does
    backlog: int  # records waiting for the ledger
    state: str  # the coup machine's
    shoe: int | None
    coup: int | None
    hold: tuple[str, str] | None  # code and rule of the hold in force
    floor: FloorStatus | None = None  # None: no [floor], no link
    latches: tuple[str, ...] = ()  # the console's open latches ("hold-1-4-1 (WRONG_ORDER)")
    odds: str = ""  # the odds monitor's words: the coup to come, alarms (for the pit)
    lockouts: tuple[str, ...] = ()  # the console's sign-in delays in force, in words
    syncing: bool = False  # frames heard, none taken yet: the link waits to sync (no state)
    unseen: int = 0  # frames of a shoe in play whose start the table never saw, not played


def _clock(unix: float) -> str:
    return datetime.fromtimestamp(unix, UTC).strftime("%H:%M:%S UTC")


def _floor_words(floor: FloorStatus | None) -> str:
    """Said only while the link is down: the table plays on regardless."""
    if floor is None or floor.connected:
        return ""
    since = f" since {_clock(floor.down_since)}" if floor.down_since else ""
    return f"; floor link down{since}, records kept to send"


class StatusReporter:
    """Turns the service's state into STATUS= lines, watchdog pings and status.json."""

    def __init__(self, table: str, profile: str, state_dir: Path, notifier: Notifier,
                 observe: Callable[[], ServiceStatus]) -> None:
        self.table = table
        self.profile = profile
        self.observe = observe
        self.notifier = notifier
        self.path = state_dir / STATUS_FILE
        self.text = "starting"
        self.phase = "starting"
        every = notifier.ping_every
        self.slice = SLICE if every is None else min(SLICE, every / 2)
        self._written: tuple[Any, ...] = ()
        self._written_at = 0.0

    # ---- life cycle: the loop calls these ------------------------------------------------

    def starting(self) -> None:
        self._say("starting", f"{self._table()}: verifying the audit ledger")

    def failed(self, why: str) -> None:
        self._say("failed", f"{self._table()}: {why}")

    def ready(self) -> None:
        """READY=1: the ledger is verified and the shoe's port was tried (open or awaited)."""
        if self.phase == "starting":
            self.phase = "running"
            self.text = self.line()
            self.notifier.ready(self.text)
            self._write(force=True)

    def beat(self) -> None:
        """From the main loop: ping the watchdog, say what changed."""
        self.notifier.tick()
        if self.phase != "running":
            return
        self.text = self.line()
        self.notifier.status(self.text)
        self._write()

    def stopping(self) -> None:
        self.phase = "stopped"
        self.notifier.stopping(f"{self._table()}: stopping")
        self._say("stopped", f"{self._table()}: stopped")

    # ---- the words --------------------------------------------------------------------------

    def _table(self) -> str:
        return f"Table {self.table} {self.profile}"

    def line(self) -> str:
        """One line a person reads in `systemctl status`."""
        s = self.observe()
        locked = f"; sign-in throttled: {'; '.join(s.lockouts)}" if s.lockouts else ""
        return f"{self._table()}: {self._doing(s)}{_floor_words(s.floor)}{locked}"

    @staticmethod
    def _doing(s: ServiceStatus) -> str:
        if not s.ledger_ok:
            return f"HOLD: ledger unwritable ({s.ledger_error})"
        if not s.shoe_connected:
            return f"waiting for the shoe on {s.awaiting}"
        if s.syncing:
            return ("waiting to sync with the shoe (no state to resume from: acknowledging "
                    "nothing until its numbering is known)")
        if s.state == "no_shoe" and s.unseen:
            return ("joined a shoe in play: none of its coups is published; waiting for the "
                    "next shoe (BTN,SHOE)")
        where = []
        if s.shoe is not None:
            where.append(f"shoe {s.shoe}")
        if s.coup is not None:
            where.append(f"coup {s.coup}")
        if s.hold is not None:
            doing = f"HOLD: {s.hold[0]} ({s.hold[1]})"
        else:
            doing = _STATE_WORDS.get(s.state, s.state.replace("_", " "))
        if s.latches:  # the console's: no coup starts until each is resolved there
            doing += f"; {len(s.latches)} open on the console: {', '.join(s.latches)}"
        odds = f"; {s.odds}" if s.odds else ""
        return f"{' '.join(where) + ', ' if where else ''}{doing}{odds}"

    def _say(self, phase: str, text: str) -> None:
        self.phase, self.text = phase, text
        self.notifier.status(text)
        self._write(force=True)

    # ---- status.json -------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        s = self.observe()
        return {
            "pid": os.getpid(),
            "phase": self.phase,
            "status": self.text,
            "table": self.table,
            "profile": self.profile,
            "transport": s.transport,
            "shoe_connected": s.shoe_connected,
            "ledger_ok": s.ledger_ok,
            "backlog": s.backlog,
            "state": s.state,
            "shoe": s.shoe,
            "coup": s.coup,
            "hold": s.hold[0] if s.hold else None,
            "latches": list(s.latches),
            "odds": s.odds,
            "lockouts": list(s.lockouts),
            "syncing": s.syncing,
            "unseen": s.unseen,
            "watchdog_s": self.notifier.watchdog_interval,
            "ready_sent": self.notifier.ready_sent,
            "floor": None if s.floor is None else {
                "broker": s.floor.broker, "connected": s.floor.connected,
                "down_since": s.floor.down_since, "backlog": s.floor.backlog,
                "acked": s.floor.acked},
        }

    def _write(self, force: bool = False) -> None:
        """Atomically (write, rename), on change or as a heartbeat; a full disk only skips it.
        The floor's counters alone are no change: they move with every commit."""
        now = time.monotonic()
        snap = self.snapshot()
        floor = snap["floor"]
        key = tuple(v for k, v in snap.items() if k != "floor") + (
            (floor["connected"], floor["down_since"]) if floor else (None,))
        if not force and key == self._written and now - self._written_at < FILE_EVERY:
            return
        self._written, self._written_at = key, now
        snap["updated_ns"] = time.time_ns()
        snap["updated"] = _iso(snap["updated_ns"])
        tmp = self.path.with_name(f".{STATUS_FILE}.tmp")
        with contextlib.suppress(OSError):
            tmp.write_text(json.dumps(snap) + "\n")
            os.replace(tmp, self.path)


# ---- `shoe-daemon status` ---------------------------------------------------------------------


@dataclass
class Summary:
    """What `shoe-daemon status` found; `lines` are printed, `code` is the exit status."""

    code: int
    lines: list[str] = field(default_factory=list)


def pid_alive(pid: int) -> bool:
    """A live (not zombie) process running shoe-daemon: a reused pid is not ours."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z" and b"shoe" in cmdline


def _ledger_facts(state_dir: Path) -> dict[str, Any]:
    """The ledger's count, chain and seals, and its latest events, read-only. `unmade` is
    the ledger file's time (ns) when the file is there without its tables yet."""
    from shoe_daemon.audit.reader import AuditError, LedgerReader, VerifyFailed

    facts: dict[str, Any] = {"records": 0, "chain": "absent", "last": {}, "hold": None,
                             "unmade": None, "alarms": [], "lockouts": {}}
    try:
        reader = LedgerReader(state_dir)
    except AuditError as e:
        facts["chain"] = str(e)
        return facts
    last: dict[str, Any] = facts["last"]
    try:
        if not reader.made():  # the daemon's first start, between the file and its tables
            facts["chain"] = UNMADE
            with contextlib.suppress(OSError):
                facts["unmade"] = reader.path.stat().st_mtime_ns
            return facts
        for record in reader.checked():
            facts["records"] += 1
            last[record.kind] = record
            if record.kind == "daemon.start":
                last.pop("daemon.stop", None)
            elif record.kind == "frame" and opens_shoe(record.body):
                facts["alarms"] = []  # the odds monitor's alarms of the shoe in play only
            elif record.kind in ODDS_ALARMS:
                facts["alarms"].append(record.body)
            elif record.kind == LOCKOUT:  # the latest of each bucket
                body = record.body
                facts["lockouts"][(body.get("what"), body.get("person"), body.get("place"),
                                   body.get("remote") if body.get("what") == "address"
                                   else None)] = body
            elif record.kind == "result":
                line = record.body["line"]
                if line["event"] == "coup.result":
                    last["coup.result"] = record
                elif line["event"] == "irregularity" and line.get("hold"):
                    facts["hold"] = line
                elif line["event"] == "irregularity.resolved":
                    facts["hold"] = None
        facts["chain"] = "good"
    except VerifyFailed as e:
        facts["chain"] = f"BROKEN: {e}"
    except sqlite3.Error as e:
        facts["chain"] = f"unreadable: {e}"
    finally:
        reader.close()
    return facts


def summarise(state_dir: Path, now_ns: int | None = None) -> Summary:
    """The running daemon in a few lines, from status.json and the ledger (read-only)."""
    now_ns = time.time_ns() if now_ns is None else now_ns
    status: dict[str, Any] | None = None
    try:
        status = json.loads((state_dir / STATUS_FILE).read_text())
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as e:
        return Summary(CANNOT_READ, [f"cannot read {state_dir / STATUS_FILE}: {e}"])
    facts = _ledger_facts(state_dir)
    last = facts["last"]
    start = last.get("daemon.start")
    if status is not None:
        pid = status["pid"]
        running = pid_alive(pid) and status["phase"] not in ("stopped", "failed")
    else:
        pid = start.body.get("pid") if start else None
        running = pid is not None and pid_alive(pid) and "daemon.stop" not in last
    # The daemon's first start makes the ledger's file, then its tables, then status.json: a
    # ledger without tables, made since the last status.json (if any) and lately, is a start
    # under way, not a broken ledger.
    made_ns = facts["unmade"]
    starting = (not running and made_ns is not None and now_ns - made_ns < STALE_AFTER * 1e9
                and (status is None or status["updated_ns"] <= made_ns))
    if starting:
        lines = ["daemon: starting (making its audit ledger)"]
        code = NOT_IN_PLAY
    else:
        lines = [f"daemon: running, pid {pid}"
                 + (f", started {_iso(start.wall_ns)}" if start else "")
                 if running else "daemon: not running" + (f" (last pid {pid})" if pid else "")]
        code = RUNNING if running else NOT_RUNNING
    if status is not None:
        age = (now_ns - status["updated_ns"]) / 1e9
        lines.append(f"status: {status['status']} (as of {status['updated']}, {age:.0f} s ago)")
        if running and age > STALE_AFTER:
            lines.append(f"WARNING: no heartbeat for {age:.0f} s: the main loop may be stuck")
            code = NOT_IN_PLAY
        elif running and (not status["shoe_connected"] or not status["ledger_ok"]
                          or status["hold"] or status.get("latches")
                          or status.get("syncing") or (status.get("unseen") and
                          status["state"] == "no_shoe") or status["phase"] != "running"):
            code = NOT_IN_PLAY
        if status.get("latches"):
            lines.append(f"open on the console: {', '.join(status['latches'])} (no coup starts "
                         "until each is resolved there)")
    elif running:
        lines.append(f"status: no {STATUS_FILE} yet")
        code = NOT_IN_PLAY
    if "transport" in last:
        t = last["transport"]
        lines.append(f"shoe: {t.body['event']} ({t.body.get('detail', '')}) "
                     f"at {_iso(t.wall_ns)}")
    if "coup.result" in last:
        r = last["coup.result"]
        line = r.body["line"]
        lines.append(f"last result: shoe {line['shoe']} coup {line['coup']} "
                     f"{line.get('outcome', '')} at {_iso(r.wall_ns)}")
    if facts["hold"] is not None:
        h = facts["hold"]
        lines.append(f"open hold: {h['code']} ({h['rule']}) at shoe {h['shoe']} coup {h['coup']}")
    lines += _odds_lines(last.get("odds.exposure"), facts["alarms"])
    lines += [f"sign-in lockout: {lockout_words(body)}"
              for body in facts["lockouts"].values() if body.get("until_ns", 0) > now_ns]
    if facts["chain"] == UNMADE:
        lines.append("ledger: being made by the starting daemon" if running or starting else
                     "ledger: its file has no tables: a first start stopped before making "
                     "them (the next start makes them)")
    else:
        lines.append(f"ledger: {facts['records']} records, chain and seals {facts['chain']}")
    if facts["chain"] not in ("good", "absent") and running:
        code = NOT_IN_PLAY
    floor = _floor_line(state_dir, status.get("floor") if status else None, running,
                        facts["chain"] != UNMADE)
    if floor:
        lines.append(floor)
    return Summary(code, lines)


def _odds_lines(exposure: Any, alarms: list[dict[str, Any]]) -> list[str]:
    """The odds monitor's last exposure, the shoe in play's integrity alarms, and the bets
    in the players' favour now with the alarm that said so (for the pit; the table's display
    never shows them). Every alarm is in the ledger; the turns back and forth are not listed."""
    lines = []
    if exposure is not None:
        late = " (committed late)" if exposure.body.get("late") else ""
        lines.append(f"odds at {_iso(exposure.wall_ns)}{late}: {exposure.body['words']}")
    latest: dict[str, dict[str, Any]] = {}
    for alarm in alarms:
        if "test" in alarm:
            lines.append(f"alarm: {alarm['words']}")
        else:
            latest[alarm["bet"]] = alarm
    favoured = [a for a in latest.values() if a["turned"] == "players"]
    lines += [f"alarm: {a['words']}" for a in favoured[-ALARMS_SHOWN:]]
    turns = len(alarms) - sum(1 for a in alarms if "test" in a)
    if turns > len(favoured):
        lines.append(f"({turns} turns of bets to and from the players in this shoe in the "
                     "ledger)")
    return lines


def _floor_line(state_dir: Path, said: dict[str, Any] | None, running: bool,
                made: bool = True) -> str | None:
    """The floor link: as the daemon last said (connected or not) while it runs, with the
    backlog and cursor read now from the files (a ledger not `made` yet holds nothing to
    send). None when the table has no floor link (the daemon's status.json names none and no
    link ever kept a cursor here)."""
    from shoe_daemon.floor.cursor import backlog, cursor_path, read_cursor

    if said is None and not cursor_path(state_dir).exists():
        return None
    try:
        waiting, acked = backlog(state_dir) if made else 0, read_cursor(state_dir).idx
    except (ValueError, sqlite3.Error) as e:
        return f"floor: cannot read the link's cursor or the ledger: {e}"
    counts = f"the broker has acknowledged every record through {acked}; {waiting} to send"
    if said is None or not running:
        return f"floor: link not running; {counts}"
    if said["connected"]:
        return f"floor: connected to {said['broker']}; {counts}"
    since = f" since {_iso(int(said['down_since'] * 1e9))}" if said.get("down_since") else ""
    return f"floor: DOWN{since}, {said['broker']} unreachable; {counts}"


def run_status(state_dir: Path) -> int:
    summary = summarise(state_dir)
    print("\n".join(summary.lines))
    return summary.code
