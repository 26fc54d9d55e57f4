"""The `shoe-daemon` command line."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from shoe_daemon import replay
from shoe_daemon.profiles import PROFILES


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoe-daemon", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser(
        "replay",
        help="play a raw shoe capture and print each decided coup as a JSON line",
    )
    rp.add_argument("--profile", required=True, choices=sorted(PROFILES), help="house rules")
    rp.add_argument("capture", type=Path, help="file of raw shoe-to-host bytes")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "replay":
        if not args.capture.is_file():
            print(f"shoe-daemon replay: no such capture file: {args.capture}", file=sys.stderr)
            return 2
        try:
            return replay.run(args.profile, args.capture)
        except BrokenPipeError:
            # The reader went away (`| head`): stop quietly, as Unix filters do.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
