"""Real daemons for the floor's tests: `shoe-daemon run` with a `[floor]` table in its
configuration file, against its simulated shoe over a pty (hil/processes.py), in a working
directory of its own (the `tables` fixture makes them)."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from hil.floor_servers import Broker, wait_for
from hil.harness import start_daemon, start_shoe, stop
from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.floor.cursor import backlog

PROFILE = "baden"


@dataclass
class RealTable:
    """A real daemon with a floor link, its simulated shoe, and its state directory."""

    name: str
    workdir: Path
    toml: Path
    http: str = "off"
    shoe: subprocess.Popen | None = None
    daemon: subprocess.Popen | None = None
    starts: int = 0
    truth: list[dict] = field(default_factory=list)

    @property
    def state(self) -> Path:
        return self.workdir / "state"

    def start_shoe(self, shoes: int, pace: float, seed: int) -> None:
        self.shoe, _ = start_shoe(self.workdir, PROFILE, shoes=shoes, pace=pace, seed=seed)

    def start_daemon(self, floor: bool = True, env: dict[str, str] | None = None) -> None:
        """`floor` False: without its configuration file, so without a link (records it
        commits wait for a later run's link); `env`: a crash point to arm."""
        config = ["--config", str(self.toml)] if floor else []
        self.daemon = start_daemon(self.workdir, PROFILE, http=self.http, env=env,
                                   extra=[*config, "--table", self.name])
        self.starts += 1

    def status(self) -> dict:
        try:
            return json.loads((self.state / "status.json").read_text())
        except (OSError, ValueError):
            return {}

    def log(self) -> str:
        return (self.workdir / "daemon.log").read_text()

    def records(self) -> list:
        """The ledger, read when the daemon has stopped (assert_exact compares it)."""
        ledger = Ledger(self.state)
        try:
            return list(ledger.records())
        finally:
            ledger.close()

    def finish(self, timeout: float = 120.0, shoe_off: bool = False) -> None:
        """The shoe deals to the end, the link sends what it holds (after an outage it comes
        back within paho's reconnect delay), and the daemon stops cleanly: its link sends
        the stop record before it goes (a link down at the stop would keep it for the next
        start). `shoe_off`: the shoe is unplugged where it is rather than dealt out."""
        assert self.shoe is not None and self.daemon is not None
        if shoe_off:
            stop(self.shoe)
        else:
            assert self.shoe.wait(timeout) == 0, (self.workdir / "shoe.log").read_text()[-2000:]
        wait_for(lambda: backlog(self.state) == 0, 60, 0.1, f"{self.name}'s link to send all")
        # A daemon restarted just now may still be importing (its backlog can be nil from its
        # predecessor): a SIGTERM before its handlers are in place would kill it, not stop it.
        wait_for(lambda: self.log().count('"event": "daemon.start"') >= self.starts, 30, 0.1,
                 f"{self.name}'s daemon to be up")
        assert stop(self.daemon) == 0, self.log()[-3000:]

    def close(self) -> None:
        for proc in (self.daemon, self.shoe):
            if proc is not None:
                stop(proc)

    def coups(self) -> list[dict]:
        results = self.workdir / "results.jsonl"
        return [line for line in map(json.loads, results.read_text().splitlines())
                if line["event"] == "coup.result"]


def table_toml(broker: Broker, name: str, directory: Path, port: int | None = None,
               keepalive: int = 2) -> Path:
    """The daemon's configuration file: only its `[floor]` table (flags give the rest)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "floor.password").write_text(broker.login(name) + "\n")
    path = directory / "shoe-daemon.toml"
    path.write_text("\n".join([
        "[floor]", f'broker = "mqtts://127.0.0.1:{port or broker.port}"', f'username = "{name}"',
        'password_file = "floor.password"', f'ca_file = "{broker.certs.ca}"',
        f'topic_prefix = "{broker.config(name, "").topic_prefix}"',
        f"keepalive = {keepalive}"]) + "\n")
    return path
