"""Hardware in the loop: the real daemon process against the simulated shoe process.

`run_table(...)` starts `python -m hil.shoe` (a pty or a simulated USB device), starts
`shoe-daemon run` on it, waits for the shoe to deal everything and be acknowledged, stops
the daemon with SIGTERM, and returns the daemon's published results beside the shoe's
ground truth. `python -m hil.harness demo` is the README's live table: the display's URL,
then each published line in words (hil/readable.py), or as JSON with `--json`.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from hil.readable import describe

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class TableRun:
    results: list[dict[str, Any]]
    truth: list[dict[str, Any]]
    shoe_rc: int
    daemon_rc: int
    daemon_log: str
    shoe_log: str
    workdir: Path
    lamps: list[str] = field(default_factory=list)

    @property
    def coup_results(self) -> list[dict[str, Any]]:
        return [r for r in self.results if r["event"] == "coup.result"]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


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
    extra: list[str] | tuple[str, ...] = (),
) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    """Start the simulated shoe; return the process and the JSON line it announced."""
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


def start_daemon(
    workdir: Path, profile: str, *, usb: bool = False, results: str | None = None,
    extra: list[str] | tuple[str, ...] = (), http: str = "127.0.0.1:0",
) -> subprocess.Popen[str]:
    """The real daemon; its display on any free port unless `http` says otherwise."""
    cmd = [sys.executable, "-m", "shoe_daemon.service.cli", "run", "--profile", profile,
           "--state-dir", str(workdir / "state"),
           "--results", results or str(workdir / "results.jsonl"),
           "--log-format", "json", "--reconnect-min", "0.05", "--reconnect-max", "0.5",
           "--http", http]
    env = dict(os.environ)
    if usb:
        cmd += ["--transport", "usb", "--usb-backend", "hil.usb_device:from_environment"]
        env["SHOE_SIM_USB_SOCKET"] = str(workdir / "usb.sock")
    else:
        cmd += ["--port", str(workdir / "shoe")]
    cmd += list(extra)
    log = (workdir / "daemon.log").open("a")  # restarts append: one log per run
    out = subprocess.PIPE if results == "-" else subprocess.DEVNULL  # "-": read by the caller
    return subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=log, text=True, env=env)


def display_url(workdir: Path, proc: subprocess.Popen[str], timeout: float = 10.0) -> str:
    """The display's URL, from the daemon's `display.listening` log line."""
    deadline = time.monotonic() + timeout
    log = workdir / "daemon.log"
    while time.monotonic() < deadline:
        for line in log.read_text().splitlines() if log.exists() else []:
            if '"display.listening"' in line:
                return str(json.loads(line)["url"])
        if proc.poll() is not None:
            raise RuntimeError(f"the daemon exited {proc.returncode}: {log.read_text()[-2000:]}")
        time.sleep(0.05)
    raise RuntimeError("the daemon did not announce its display")


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


def run_table(
    workdir: Path, profile: str, *, timeout: float = 120.0, usb: bool = False,
    shoe_args: dict[str, Any] | None = None,
) -> TableRun:
    """One whole HIL run; returns what the daemon published and what it should have."""
    workdir.mkdir(parents=True, exist_ok=True)
    shoe, _ = start_shoe(workdir, profile, usb=usb, **(shoe_args or {}))
    daemon = start_daemon(workdir, profile, usb=usb)
    try:
        shoe_rc = shoe.wait(timeout)
    except subprocess.TimeoutExpired:
        shoe.kill()
        shoe_rc = shoe.wait()
    daemon_rc = stop(daemon)
    stop(shoe)
    lamps_path = workdir / "lamps.log"
    return TableRun(
        results=_jsonl(workdir / "results.jsonl"),
        truth=_jsonl(workdir / "truth.jsonl"),
        shoe_rc=shoe_rc,
        daemon_rc=daemon_rc,
        daemon_log=(workdir / "daemon.log").read_text(),
        shoe_log=(workdir / "shoe.log").read_text(),
        workdir=workdir,
        lamps=lamps_path.read_text().split() if lamps_path.exists() else [],
    )


def relay(stream: IO[str], as_json: bool) -> None:
    """The daemon's published lines to stdout: as they are with --json, else in words."""
    watched = True
    for text in stream:  # read to the end, so the daemon never blocks on a full pipe
        if not watched:
            continue
        try:
            print(text.rstrip("\n") if as_json else describe(json.loads(text)), flush=True)
        except BrokenPipeError:  # the watcher went away (`| head`): end the demo quietly
            watched = False
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            os.kill(os.getpid(), signal.SIGTERM)


def demo(profile: str, shoes: int, pace: float, seed: int, http: str,
         faults: list[str], as_json: bool) -> int:
    """A live table: the simulated shoe deals at a croupier's pace, the daemon serves the table
    display and publishes each result, shown in words (or as its JSON line)."""
    def _stop(*_: Any) -> None:
        raise KeyboardInterrupt  # SIGTERM too: stop both children and remove the folder

    signal.signal(signal.SIGTERM, _stop)
    info = sys.stderr if as_json else sys.stdout  # with --json, stdout is the lines alone
    reader: threading.Thread | None = None
    with tempfile.TemporaryDirectory(prefix="shoe-demo-") as tmp:
        workdir = Path(tmp)
        shoe, hello = start_shoe(workdir, profile, shoes=shoes, seed=seed, pace=pace,
                                 faults=faults)
        daemon = start_daemon(workdir, profile, results="-", http=http)
        try:
            print(f"table display: {display_url(workdir, daemon)} (open it in a browser)",
                  file=info, flush=True)
            print(f"simulated {profile} shoe, seed {seed}, on {hello.get('pty')}; daemon log "
                  f"in {workdir / 'daemon.log'}; Ctrl-C to stop", file=info, flush=True)
            assert daemon.stdout is not None
            reader = threading.Thread(target=relay, args=(daemon.stdout, as_json))
            reader.start()
            while shoe.poll() is None and daemon.poll() is None:
                time.sleep(0.2)
        except KeyboardInterrupt:
            pass
        except RuntimeError as failed:  # the daemon did not start: say why, not a traceback
            print(f"demo: {failed}", file=sys.stderr)
            return 1
        finally:
            stop(shoe)
            stop(daemon)
            if reader is not None:
                reader.join()  # the daemon's last lines, up to its exit
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hil.harness", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="a live table: simulated shoe and daemon together")
    d.add_argument("--profile", default="baden")
    d.add_argument("--shoes", type=int, default=1)
    d.add_argument("--pace", type=float, default=0.15, help="seconds between shoe messages")
    d.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    d.add_argument("--http", default="127.0.0.1:8080",
                   help="where the daemon serves the table display (port 0: any free port)")
    d.add_argument("--fault", action="append", default=[], metavar="NAME[=VALUE]",
                   help="the simulated shoe's fault switches (docs/simulated-shoe.md)")
    d.add_argument("--json", action="store_true",
                   help="print the daemon's published JSON lines instead of words")
    args = parser.parse_args(argv)
    return demo(args.profile, args.shoes, args.pace, args.seed, args.http, args.fault,
                args.json)


if __name__ == "__main__":
    sys.exit(main())
