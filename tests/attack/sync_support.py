"""The shoe's line and the table's ledger under attack (tests/attack/test_sync.py): the real
simulated shoe process (hil/shoe.py) on a real pty, the real daemon process opening it when
the test says, the ledger's files removed behind the daemon's back as a careless operator's
`rm` would, and what each published checked against the croupier's ground truth."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.framing import Frame, FrameDecoder
from hil.processes import ROOT, start_daemon, start_shoe, stop
from shoe_daemon.audit.ledger import Ledger

TIMEOUT = 90.0  # s for a shoe process to deal everything, at most


def jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def coups(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in lines if line["event"] == "coup.result"]


def wait_for(done: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


@dataclass
class SyncTable:
    """A simulated shoe and the daemon that opens its port; `workdir` holds both."""

    workdir: Path
    profile: str = "baden"
    shoe: subprocess.Popen[str] | None = None
    daemon: subprocess.Popen[str] | None = None
    daemon_rcs: list[int] = field(default_factory=list)

    @property
    def state(self) -> Path:
        return self.workdir / "state"

    def start_shoe(self, *, seed: int, shoes: int, packs: int, pace: float,
                   proto: str = "1.1", faults: tuple[str, ...] = (),
                   baud: int | None = None) -> None:
        """The shoe powers up and its croupier begins dealing, whether or not a host listens."""
        self.shoe, _ = start_shoe(self.workdir, self.profile, shoes=shoes, seed=seed,
                                  packs=packs, pace=pace, faults=faults, baud=baud,
                                  extra=["--proto", proto, "--deal-at-power-up",
                                         "--give-up", "60"])

    def start_daemon(self) -> None:
        self.daemon = start_daemon(self.workdir, self.profile, http="off")

    def stop_daemon(self) -> None:
        assert self.daemon is not None
        self.daemon_rcs.append(stop(self.daemon))
        self.daemon = None

    def finish(self) -> int:
        """The shoe deals to its end (every frame acknowledged); then the daemon stops."""
        assert self.shoe is not None
        try:
            rc = self.shoe.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.shoe.kill()
            rc = self.shoe.wait()
        if self.daemon is not None:
            self.stop_daemon()
        return rc

    def close(self) -> None:
        for proc in (self.shoe, self.daemon):
            if proc is not None:
                stop(proc, timeout=5)

    # ---- what the table published and kept -------------------------------------------------

    @property
    def truth(self) -> list[dict[str, Any]]:
        return jsonl(self.workdir / "truth.jsonl")

    @property
    def published(self) -> list[dict[str, Any]]:
        return jsonl(self.workdir / "results.jsonl")

    @property
    def log(self) -> str:
        path = self.workdir / "daemon.log"
        return path.read_text() if path.exists() else ""

    @property
    def shoe_log(self) -> str:
        return (self.workdir / "shoe.log").read_text()

    def kept(self) -> list[tuple[str, dict[str, Any]]]:
        """The ledger at its path, verified as the next start verifies it: (kind, body)."""
        ledger = Ledger(self.state)
        try:
            ledger.verify()
            return [(r.kind, r.body) for r in ledger.records()]
        finally:
            ledger.close()

    def first_heard(self) -> Frame:
        """The first whole frame the daemon heard: its first capture's (the raw line)."""
        capture = sorted((self.state / "captures").glob("*.cap"))[0]
        return next(iter(FrameDecoder().feed(capture.read_bytes())))

    def audit_verify(self) -> subprocess.CompletedProcess[str]:
        """`shoe-daemon audit verify --state-dir`, as an auditor runs it."""
        return subprocess.run(
            [sys.executable, "-m", "shoe_daemon.service.cli", "audit", "verify",
             "--state-dir", str(self.state)],
            cwd=ROOT, capture_output=True, text=True, check=False)

    def remove_ledger(self, names: str = "ledger.*") -> list[str]:
        """The ledger's files removed, as `rm STATE/ledger.*` would (the key with them)."""
        gone = sorted(p.name for p in self.state.glob(names))
        for name in gone:
            (self.state / name).unlink(missing_ok=True)
        return gone

    def detail(self) -> str:
        return (f"\nshoe log:\n{self.shoe_log[-2000:]}\ndaemon log:\n{self.log[-4000:]}")


def frames_once_in_order(kept: list[tuple[str, dict[str, Any]]]) -> None:
    """Every frame the ledger holds follows the one before it (a HELLO numbered 0 restarts
    the count): none twice, none skipped."""
    seqs = [(body["seq"], body["type"]) for kind, body in kept if kind == "frame"]
    for (before, _), (seq, kind) in itertools.pairwise(seqs):
        assert seq == (before + 1) % 65536 or (kind == "HELLO" and seq == 0), (before, seq)
