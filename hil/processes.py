"""The simulated shoe and the real daemon as processes, for the demos, the tests and the
benches: each started as a person would start it, in a working directory of its own."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def start_shoe(
    workdir: Path,
    profile: str,
    *,
    shoes: int = 1,
    seed: int = 1,
    faults: list[str] | tuple[str, ...] = (),
    pace: float | None = None,
    baud: int | None = None,
    usb: bool = False,
    packs: int | None = None,
    deal_button: Path | None = None,
    extra: list[str] | tuple[str, ...] = (),
) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    """Start the simulated shoe; return the process and the JSON line it announced.
    `deal_button`: the FIFO the shoe makes for its DEAL button (`hil.deal_button.press_deal`)."""
    cmd = [sys.executable, "-m", "hil.shoe", "--profile", profile, "--shoes", str(shoes),
           "--seed", str(seed), "--capture", str(workdir / "shoe.cap"),
           "--truth", str(workdir / "truth.jsonl"), "--lamp-log", str(workdir / "lamps.log")]
    cmd += ["--usb-socket", str(workdir / "usb.sock")] if usb else [
        "--pty-link", str(workdir / "shoe")]
    if packs:
        cmd += ["--packs", str(packs)]
    if pace is not None:
        cmd += ["--pace", str(pace)]
    if baud is not None:
        cmd += ["--baud", str(baud)]
    if deal_button is not None:
        cmd += ["--deal-button", str(deal_button)]
    for fault in faults:
        cmd += ["--fault", fault]
    cmd += list(extra)
    shoe_err = (workdir / "shoe.log").open("w")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=shoe_err, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.wait(5)
        raise RuntimeError(f"simulated shoe did not start: {(workdir / 'shoe.log').read_text()}")
    return proc, json.loads(line)


def simulated_staff(state_dir: Path) -> None:
    """The simulated table's supervisors (hil/dealer.py's badges, no PINs), as a casino
    configures its own: without them the daemon takes none of the shoe's KEYs. Kept if a
    people file is there already."""
    from hil.dealer import SUPERVISOR_BADGES
    from shoe_daemon.console.people import Person, Role, people_paths

    file = people_paths(state_dir)
    if file.path.exists():
        return
    state_dir.mkdir(parents=True, exist_ok=True)
    roster = file.load(create_key=True)
    for n, badge in enumerate(SUPERVISOR_BADGES, 1):
        roster = roster.with_person(Person(f"sim-{n}", f"Inspector {n}", Role.SUPERVISOR))
        roster = roster.badge_for(f"sim-{n}", badge)
    file.save(roster)


def start_daemon(
    workdir: Path, profile: str, *, usb: bool = False, results: str | None = None,
    extra: list[str] | tuple[str, ...] = (), http: str = "127.0.0.1:0",
    env: dict[str, str] | None = None, staff: bool = True,
) -> subprocess.Popen[str]:
    """The real daemon; its display on any free port unless `http` says otherwise; `env`:
    more environment (a test's crash point, shoe_daemon/floor/crashpoint.py); `staff`: the
    simulated table's supervisors configured unless people are already (`simulated_staff`)."""
    if staff:
        simulated_staff(workdir / "state")
    cmd = [sys.executable, "-m", "shoe_daemon.service.cli", "run", "--profile", profile,
           "--state-dir", str(workdir / "state"),
           "--results", results or str(workdir / "results.jsonl"),
           "--log-format", "json", "--reconnect-min", "0.05", "--reconnect-max", "0.5",
           "--http", http]
    env = {**os.environ, **(env or {})}
    if usb:
        cmd += ["--transport", "usb", "--usb-backend", "hil.usb_device:from_environment"]
        env["SHOE_SIM_USB_SOCKET"] = str(workdir / "usb.sock")
    else:
        cmd += ["--port", str(workdir / "shoe")]
    cmd += list(extra)
    log = (workdir / "daemon.log").open("a")  # restarts append: one log per run
    out = subprocess.PIPE if results == "-" else subprocess.DEVNULL  # "-": read by the caller
    return subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=log, text=True, env=env)


def display_url(workdir: Path, proc: subprocess.Popen[str], timeout: float = 10.0,
                event: str = "display.listening") -> str:
    """The display's URL, from the daemon's `display.listening` log line (or `event`'s:
    `console.listening` for the croupier's console)."""
    deadline = time.monotonic() + timeout
    log = workdir / "daemon.log"
    while time.monotonic() < deadline:
        for line in log.read_text().splitlines() if log.exists() else []:
            if f'"{event}"' in line:
                return str(json.loads(line)["url"])
        if proc.poll() is not None:
            raise RuntimeError(f"the daemon exited {proc.returncode}: {log.read_text()[-2000:]}")
        time.sleep(0.05)
    raise RuntimeError(f"the daemon did not announce {event}")


def console_url(workdir: Path, proc: subprocess.Popen[str], timeout: float = 10.0) -> str:
    """The croupier's console's URL (`--console`), from the daemon's log."""
    return display_url(workdir, proc, timeout, "console.listening")


def stop(proc: subprocess.Popen[str], timeout: float = 30.0) -> int:
    """SIGTERM, then SIGKILL after `timeout`: the unit's TimeoutStopSec (30 s), the time
    systemd gives it. The daemon's last commits fsync, which a busy disk can hold for seconds."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()
