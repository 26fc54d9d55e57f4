"""`shoe-daemon run`: the live service's loop. It opens the shoe's transport (again, with
back-off, whenever it goes away), turns the link, feeds the watchdog and the status, and
stops cleanly on SIGTERM or SIGINT.

The work is the link's (drivers/link.py: bytes, frames in order, ACKs, the lamp, the raw
capture) and the table's (service/table.py: the game, the audit ledger, the results file,
the display); the loop only wires them and keeps them turning. It is single-threaded, so a
frame's effects happen in one order and a hung loop is one thing the watchdog can see.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import structlog

from drivers.link import ShoeLink
from drivers.transport import Transport, TransportLost, make_transport
from shoe_daemon import __version__
from shoe_daemon.audit.ledger import Ledger, LedgerError
from shoe_daemon.console.actions import Action, Refused
from shoe_daemon.console.desk import Desk, Keys
from shoe_daemon.console.handoff import DoneThenFailed
from shoe_daemon.console.people import Role, people_paths
from shoe_daemon.console.replay_file import ReplayFileWriter, beside
from shoe_daemon.console.server import ConsoleServer
from shoe_daemon.console.sessions import Sessions
from shoe_daemon.console.throttle import lockout_words
from shoe_daemon.console.till import Till
from shoe_daemon.display import TableDisplay
from shoe_daemon.floor.link import FloorLink
from shoe_daemon.game.houses import get_profile
from shoe_daemon.odds.monitor import OddsMonitor
from shoe_daemon.service.config import Config
from shoe_daemon.service.notify import Notifier
from shoe_daemon.service.status import FloorStatus, ServiceStatus, StatusReporter
from shoe_daemon.service.table import Table

READ_TIMEOUT = 0.1  # s: how long one read may wait; bounds the reaction to SIGTERM
FLOOR_DRAIN = 2.0  # s a clean stop gives a connected floor link to send the last records
LOCKOUTS_SHOWN = 5  # sign-in lockouts in force the status names at most
ODDS_DRAIN = 5.0  # s a clean stop gives the odds monitor to finish (the rest: at the next start)


def transport_for(config: Config) -> Transport:
    """The transport the `transport` setting names, built from the settings."""
    return make_transport(config.transport, config.as_dict())


def code_sha256() -> str:
    """A hash of the installed code (shoe_daemon and drivers), recorded at every start."""
    digest = hashlib.sha256()
    for package in ("shoe_daemon", "drivers"):
        root = Path(importlib.import_module(package).__file__ or "").parent
        for path in sorted(root.rglob("*.py")):
            digest.update(f"{package}/{path.relative_to(root)}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


class ServiceLoop:
    """One table's service: a transport, its link, the table above it, the status.

    `display` is where the table display's states go (the HTTP server's `publish`); None:
    no display. `console`: the croupier's console's server (started), whose inbox the loop
    serves between its turns; None: no console, and the table plays exactly as without one.
    LedgerError if the ledger cannot be opened, OSError if the results file or the capture
    cannot, FloorConfigError (naming the setting) if the floor's CA or certificate cannot be
    used, or the table has no signing key for the link to sign with.
    """

    def __init__(self, config: Config, transport: Transport, ledger: Ledger | None = None,
                 results: TextIO | None = None,
                 display: Callable[[bytes], None] | None = None,
                 console: ConsoleServer | None = None) -> None:
        self.config = config
        self.transport = transport
        self.log = structlog.get_logger("shoe_daemon").bind(table=config.table)
        self.stop_event = threading.Event()
        # The link first: a table without a signing key stops here, before the ledger opens.
        self.floor = FloorLink(config.floor, config.state_dir) if config.floor else None
        ledger = ledger or Ledger(config.state_dir, log=self.log)
        captures = config.state_dir / "captures"
        captures.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self.capture_path: Path = captures / f"{stamp}-{os.getpid()}.cap"
        # The raw line, badges included: the daemon's alone (0600), like its ledger.
        self.capture = os.fdopen(os.open(self.capture_path, os.O_WRONLY | os.O_APPEND
                                         | os.O_CREAT, 0o600), "ab")
        self.console = console
        self.desk: Desk | None = None
        self.lockouts: list[dict[str, Any]] = []  # console.lockout bodies, while in force
        if console is not None:
            self.desk = Desk(console.people, console.inbox, console.publish_console, self.log,
                             ReplayFileWriter(beside(self.capture_path), self.log))
        # The table display gets committed state only: one view for each committed batch of
        # frames, or after a rebuild from the ledger. The floor and the console get the same
        # public view, whether or not the HTTP display is on.
        sinks = [sink for sink in (display, self.floor and self.floor.publish_state,
                                   console and console.publish_view) if sink]
        screen = TableDisplay(config.table, _fan_out(sinks), config.display_language,
                              config.display_terms) if sinks else None
        if results is None:
            results = sys.stdout if config.results == "-" else open(  # noqa: SIM115
                config.results, "a+", encoding="utf-8")
        till = None
        if config.money is not None and self.desk is not None:
            till = Till.of(config.profile, config.money, self.log)
        profile = get_profile(config.profile)
        self.monitor = (OddsMonitor(profile, config.state_dir, self.log.bind(part="odds"))
                        if config.odds == "on" else None)
        told = [notify for notify in (self.floor and self.floor.notify,
                                      self.monitor and self.monitor.notify) if notify]
        self.table = Table(profile, ledger, results, screen, log=self.log,
                           on_commit=_tell_all(told) if told else None,
                           console=self.desk, till=till,
                           keys=None if self.desk is not None else self._keys())
        self.link = ShoeLink(self.table, transport, capture=self.capture, log=self.log)
        self.notifier = Notifier()
        self.reporter = StatusReporter(config.table, config.profile, config.state_dir,
                                       self.notifier, self.status)

    def _keys(self) -> Keys:
        """With the console off, the shoe's KEY is decided against the people file all the
        same; with no supervisor there, no KEY is taken, and the log says so now."""
        keys = Keys(people_paths(self.config.state_dir, self.config.people), self.log)
        if not any(p.role is Role.SUPERVISOR for p in keys.roster.people):
            self.log.warning("supervisor.none_configured", people=str(keys.people.path),
                             why="a shoe's KEY is refused: add one with shoe-daemon people")
        return keys

    def status(self) -> ServiceStatus:
        """The service as `systemctl status` and status.json tell it."""
        table, machine = self.table, self.table.machine
        hold = table.hold
        where = table.where()
        return ServiceStatus(
            shoe_connected=self.transport.is_open, transport=self.transport.name,
            awaiting=self.transport.where, ledger_ok=not table.ledger_down,
            ledger_error=table.ledger_error, backlog=table.backlog, state=machine.state,
            shoe=where["shoe"], coup=where["coup"],
            hold=(hold.code, hold.rule) if hold is not None else None, floor=self._floor(),
            latches=tuple(f"{latch.id} ({latch.code})" for latch in machine.latches),
            odds=self.monitor.words(where) if self.monitor is not None else "",
            lockouts=tuple(lockout_words(b) for b in self.lockouts
                           if b["until_ns"] > time.time_ns()),
            syncing=self.link.receiver.waiting, unseen=machine.unseen)

    def _floor(self) -> FloorStatus | None:
        link = self.floor
        if link is None:
            return None
        return FloorStatus(link.config.url, link.connected, link.down_since, link.backlog(),
                           link.acked)

    # ---- life cycle ----------------------------------------------------------------------

    def restore(self) -> None:
        """The table as the ledger has it, and delivery resuming after its last frame."""
        receiver = self.table.restore()
        self.link.resume(receiver)
        if self.desk is not None and self.desk.replay_file is not None:
            self.desk.replay_file.resume(receiver.last_in_order, receiver.boot_id)

    def stop(self, *_: Any) -> None:
        self.stop_event.set()
        if self.desk is not None:
            self.desk.inbox.wake()

    def serve_console(self) -> None:
        """The console's actions, taken between the link's turns in this one thread, so that
        each is ordered with the shoe's frames exactly as it is committed. What is taken gets
        its outcome; what is not (withdrawn, or past its deadline) was never done
        (console/handoff.py)."""
        desk = self.desk
        if desk is None:
            return
        for handoff in desk.inbox.take():
            if not handoff.take():
                continue
            try:
                outcome = self.table.act(handoff.action)
            except Refused as e:
                handoff.refused(e)
            except DoneThenFailed as e:
                handoff.done(e.outcome)  # it is in the ledger: that is the answer
                raise  # and the table's failure stops the loop, as a frame's would
            except Exception:
                self.log.exception("console.action_failed", kind=handoff.action.kind,
                                   **self.table.where())
                handoff.refused(Refused(500, "the table failed to take it: nothing was done"))
            else:
                if self.transport.is_open:  # a resolved latch turns the lamp at once; a
                    with contextlib.suppress(TransportLost):  # line gone is found next turn
                        self.link.send_lamp()
                handoff.done(outcome)

    def serve_lockouts(self) -> None:
        """The console's sign-in lockouts (console/throttle.py) into the ledger now, each a
        `console.lockout` record (the pit's alarm), and kept for the status while in force."""
        if self.desk is None:
            return
        for kind, body in self.desk.inbox.records():
            self.table.record(kind, body)
            self.lockouts.append(body)
        now = time.time_ns()
        self.lockouts = [b for b in self.lockouts if b["until_ns"] > now][-LOCKOUTS_SHOWN:]

    def serve_monitor(self, now: bool = False) -> None:
        """The odds monitor's findings to the table, between the link's turns: committed with
        the next frames or on the line's next quiet turn (`Table.note`), or `now` when the
        link is not being served. Nothing of them is said before the ledger has them."""
        if self.monitor is not None:
            table = self.table
            self.monitor.deliver(table.record if now else table.note, table.where())

    def _drain_monitor(self) -> None:
        """At a clean stop: up to ODDS_DRAIN s for the monitor to finish what it owes."""
        monitor = self.monitor
        if monitor is None or not monitor.running:
            return
        monitor.stop(drain=ODDS_DRAIN)
        deadline = time.monotonic() + ODDS_DRAIN + 2.0
        while monitor.running and time.monotonic() < deadline:
            monitor.join(0.05)
            self.serve_monitor(now=True)
        self.serve_monitor(now=True)

    def _sessions_ended(self, why: str, sessions: list[tuple[str, str, str]]) -> None:
        for person, role, session in sessions:
            self.table.end_session(Action(Sessions.new_id() + Sessions.new_id(), "sign_out", person,
                                          Role(role), {"why": why, "session": session}))

    def install_signal_handlers(self) -> None:
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)

    def run(self) -> int:
        table = self.table
        self.reporter.starting()
        try:
            self.restore()
            if self.desk is not None:  # a killed daemon's sessions: signed out now
                self._sessions_ended("restarted", table.open_sessions())
            table.record("daemon.start", {
                "version": __version__, "code_sha256": code_sha256(), "table": self.config.table,
                "profile": self.config.profile, "config": self.config.as_dict(), "pid": os.getpid(),
            })
            table.configure_money()
            if table.till is not None and self.desk is not None and \
                    self.desk.replay_file is not None:  # where the money began, for a replay
                self.desk.replay_file.money(table.till.money.snapshot())
            if self.desk is not None and (people := self.desk.changed_people()) is not None:
                table.record("console.people", people)
        except LedgerError as e:
            self.log.error("ledger.unusable", error=str(e))
            self.reporter.failed(f"audit ledger unusable: {e}")
            return 1
        if self.floor is not None:
            self.floor.start()  # the ledger verified, the start committed: it sends from its cursor
        if self.monitor is not None:
            self.monitor.start()  # reads the ledger from the shoes it compares with
        self.log.info("daemon.start", version=__version__, profile=self.config.profile,
                      transport=self.transport.name, capture=str(self.capture_path))
        wait = self.config.reconnect_min
        down_since: float | None = None
        try:
            while not self.stop_event.is_set():
                self.reporter.beat()
                if not self.transport.is_open:
                    try:
                        self.transport.open()
                    except TransportLost as e:
                        if down_since is None:
                            down_since = time.monotonic()
                            self.log.warning("shoe.unavailable", error=str(e), retry_in=wait)
                            table.record("transport", {"event": "unavailable", "detail": str(e)})
                        self.reporter.ready()  # running: STATUS says it waits for the shoe
                        self._pause(wait)
                        wait = min(wait * 2, self.config.reconnect_max)
                        continue
                    outage = None if down_since is None else time.monotonic() - down_since
                    self.log.info("shoe.connected", transport=self.transport.name,
                                  after_s=None if outage is None else round(outage, 3))
                    table.record("transport", {"event": "connected",
                                               "detail": self.transport.name})
                    wait, down_since = self.config.reconnect_min, None
                    self.link.connected()
                    self.reporter.ready()
                try:
                    self.link.serve(READ_TIMEOUT)  # the lamp first: the shoe can vanish there too
                except TransportLost as e:
                    self.log.warning("shoe.lost", error=str(e), **table.where())
                    table.record("transport", {"event": "lost", "detail": str(e)})
                    self.transport.close()
                    down_since = time.monotonic()
                self.serve_console()
                self.serve_lockouts()
                self.serve_monitor()
        except Exception:
            # Unexpected: say so with the traceback, exit non-zero, let systemd restart us.
            self.log.exception("daemon.crash", **table.where())
            return 1
        finally:
            self.reporter.stopping()
            self.transport.close()
            if self.console is not None:
                self.serve_console()  # what was already handed over is answered
                self._sessions_ended("stopped", [(s.person, s.role.value, s.id)
                                                 for s in self.console.close_sessions()])
            self._drain_monitor()
            table.record("daemon.stop", table.where())
            if self.floor is not None:
                self.floor.stop(drain=FLOOR_DRAIN)
            self.link.log_stats(force=True)
            with contextlib.suppress(OSError):
                self.capture.close()
            if self.desk is not None and self.desk.replay_file is not None:
                self.desk.replay_file.close()
            if table.results is not None:
                table.results.flush()
            self.log.info("daemon.stop", **table.where())
        return 0

    def _pause(self, seconds: float) -> None:
        """Wait for the shoe's next reopen, still pinging the watchdog from this loop."""
        deadline = time.monotonic() + seconds
        while not self.stop_event.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            if self.desk is not None:  # the console works while the shoe is away
                self.desk.inbox.wait(min(left, self.reporter.slice))
                self.serve_console()
                self.serve_lockouts()
            else:
                self.stop_event.wait(min(left, self.reporter.slice))
            self.serve_monitor(now=True)
            self.reporter.beat()


def _tell_all(calls: list[Callable[[], None]]) -> Callable[[], None]:
    if len(calls) == 1:
        return calls[0]

    def tell() -> None:
        for call in calls:
            call()

    return tell


def _fan_out(sinks: list[Callable[[bytes], None]]) -> Callable[[bytes], None]:
    if len(sinks) == 1:
        return sinks[0]

    def send(state: bytes) -> None:
        for sink in sinks:
            sink(state)

    return send
