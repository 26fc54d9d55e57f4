"""Hardware in the loop: the real daemon process against the simulated shoe process.

`run_table(...)` starts `python -m hil.shoe` (a pty or a simulated USB device), starts
`shoe-daemon run` on it, waits for the shoe to deal everything and be acknowledged, stops
the daemon with SIGTERM, and returns the daemon's published results beside the shoe's
ground truth. `python -m hil.harness demo` is the README's live table: the display's URL,
then each published line in words (hil/readable.py), or as JSON with `--json`; with
`--floor`, several tables and the floor they publish to (hil/floor_demo.py); with
`--console`, the croupier's console and the house's money, the shoe waiting on its DEAL
button (hil/console_demo.py; `--croupier`: hil/croupier.py).
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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from hil.console_demo import ConsoleDemo
from hil.deal_button import press_deal
from hil.processes import ROOT, display_url, start_daemon, start_shoe, stop
from hil.readable import describe
from shoe_daemon.display.words import LANGUAGES, TERMS, Words

__all__ = ["ROOT", "TableRun", "display_url", "press_deal", "run_table", "start_daemon",
           "start_shoe", "stop"]


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


def relay(stream: IO[str], as_json: bool, terms: Words | None = None,
          under: Callable[[dict[str, Any]], list[str]] | None = None) -> None:
    """The daemon's published lines to stdout: as they are with --json, else in words, the
    game named in the table's `terms`, each followed by the lines `under` gives for it (a
    coup's settlement)."""
    watched = True
    for text in stream:  # read to the end, so the daemon never blocks on a full pipe
        if not watched:
            continue
        try:
            if as_json:
                print(text.rstrip("\n"), flush=True)
                continue
            line = json.loads(text)
            print(describe(line, terms), flush=True)
            for more in under(line) if under is not None else ():
                print(more, flush=True)
        except BrokenPipeError:  # the watcher went away (`| head`): end the demo quietly
            watched = False
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            os.kill(os.getpid(), signal.SIGTERM)


def demo(profile: str, shoes: int, pace: float, seed: int, http: str,
         faults: list[str], as_json: bool, terms: Words | None = None,
         console: str | None = None, croupier: bool = False) -> int:
    """A live table: the simulated shoe deals at a croupier's pace, the daemon serves the table
    display and publishes each result, shown in words (or as its JSON line). With `console`
    (its HOST:PORT), the croupier's console and the table's money too (hil/console_demo.py):
    the shoe waits for its DEAL button, pressed by Enter or, with `croupier`, by the demo's
    croupier."""
    def _stop(*_: Any) -> None:
        raise KeyboardInterrupt  # SIGTERM too: stop both children and remove the folder

    signal.signal(signal.SIGTERM, _stop)
    info = sys.stderr if as_json else sys.stdout  # with --json, stdout is the lines alone
    reader: threading.Thread | None = None
    with tempfile.TemporaryDirectory(prefix="shoe-demo-") as tmp:
        workdir = Path(tmp)
        terms = terms or Words()
        table = None if console is None else ConsoleDemo(workdir, profile, console, terms)
        shoe, hello = start_shoe(workdir, profile, shoes=shoes, seed=seed, pace=pace,
                                 faults=faults,
                                 deal_button=None if table is None else table.button)
        daemon = start_daemon(workdir, profile, results="-", http=http,
                              extra=["--display-language", terms.language,
                                     "--display-terms", terms.terms,
                                     *(table.flags if table is not None else ())])
        try:
            print(f"table display: {display_url(workdir, daemon)} (open it in a browser)",
                  file=info, flush=True)
            url = table.announce(daemon, info) if table is not None else None
            print(f"simulated {profile} shoe, seed {seed}, on {hello.get('pty')}; daemon log "
                  f"in {workdir / 'daemon.log'}; Ctrl-C to stop", file=info, flush=True)
            assert daemon.stdout is not None
            reader = threading.Thread(target=relay, args=(
                daemon.stdout, as_json, terms, None if table is None else table.settlement))
            reader.start()
            if table is not None and url is not None:
                table.start_dealing(url, croupier, seed, info)
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
            if table is not None and reader is not None:
                table.finish(info)
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
    d.add_argument("--display-language", choices=LANGUAGES, default="en",
                   help="the table's display language (the daemon's setting): the display "
                        "and the console in it, the game's terms in the lines printed too")
    d.add_argument("--display-terms", choices=TERMS, default="french",
                   help="the game's terms: french in every language, or the language's own")
    d.add_argument("--console", action="store_true",
                   help="the croupier's console on, with the house's money: demo people whose "
                        "PINs it prints, and the shoe waiting for its DEAL button (Enter)")
    d.add_argument("--console-at", default="127.0.0.1:8081", metavar="HOST:PORT",
                   help="with --console: where the console is served (port 0: any free port)")
    d.add_argument("--croupier", action="store_true",
                   help="with --console: the demo's croupier stakes and deals by himself "
                        "through the console's API")
    d.add_argument("--json", action="store_true",
                   help="print the daemon's published JSON lines instead of words")
    d.add_argument("--floor", action="store_true",
                   help="the floor: a broker, the collector into SQLite and --tables tables, "
                        "each result as the floor stored it (docs/floor.md)")
    d.add_argument("--tables", type=int, default=3, help="with --floor: how many tables")
    args = parser.parse_args(argv)
    if args.floor:
        from hil.floor_demo import floor_demo

        return floor_demo(args.profile, args.tables, args.shoes, args.pace, args.seed,
                          args.json)
    if args.croupier and not args.console:
        parser.error("--croupier goes with --console")
    return demo(args.profile, args.shoes, args.pace, args.seed, args.http, args.fault,
                args.json, Words(args.display_language, args.display_terms),
                args.console_at if args.console else None, args.croupier)


if __name__ == "__main__":
    sys.exit(main())
