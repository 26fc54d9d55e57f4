"""`shoe-daemon people ...`: who may sign in at the croupier's console, and whose badge the
shoe's KEY takes (shoe_daemon/console/people.py, docs/console.md); the commands themselves
are shoe_daemon/console/people_commands.py (`shoe-floor people` runs them over the pit's).

Run it as the daemon's user, like the other commands that write its state: `sudo -u
shoe-daemon shoe-daemon people add ...`. The running daemon takes the change at its next
sign-in or KEY.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from shoe_daemon.console import people_commands
from shoe_daemon.console.people import PeopleError, PeopleFile, Role, people_paths
from shoe_daemon.service import config


def add_people_parser(subparsers: Any) -> argparse.ArgumentParser:
    people = subparsers.add_parser(
        "people", help="the people of the table: console sign-in and supervisors' badges",
        description="Add, remove and list the people who may sign in at the croupier's "
                    "console and whose badge the shoe's KEY takes (docs/console.md). Secrets "
                    "are asked for, never given as arguments, and stored hashed.")

    def where(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", type=Path, help="the daemon's TOML file (its state_dir and "
                                                   "people)")
        p.add_argument("--state-dir", type=Path, help="or the daemon's state dir")

    people_commands.add_people_commands(people, Role, where, "shoe-daemon people", "supervisor")
    return people


def _file(args: argparse.Namespace) -> PeopleFile:
    if args.config is not None:
        ns = argparse.Namespace(config=args.config, state_dir=args.state_dir)
        settings = config.load(ns)
        return people_paths(settings.state_dir, settings.people)
    if args.state_dir is None:
        raise PeopleError("give --config, or --state-dir")
    return people_paths(args.state_dir)




def run_people(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    return people_commands.run_people(args, _file, out)
