"""The people commands (list, add, remove, set-pin, set-badge, clear-pin, clear-badge) over
one people file: `shoe-daemon people` runs them over the table's file with the console's
roles (shoe_daemon/service/people_cli.py), `shoe-floor people` over the pit's with the
pit's (shoe_floor/cli.py).

A secret (PIN, badge) is never an argument (it would show in `ps` and the shell's history),
never printed and never stored in clear: it is asked for without echo on a terminal (twice,
to confirm), or read as one line from standard input when that is not a terminal (a script,
a badge reader); `add --pin --badge` reads two lines then, the PIN first, then the badge.
"""

from __future__ import annotations

import argparse
import fcntl
import getpass
import sys
from collections.abc import Callable
from enum import StrEnum
from typing import TextIO

from shoe_daemon.console.people import (
    PeopleError,
    PeopleFile,
    Person,
    check_badge,
    check_id,
    check_name,
    check_pin,
)


def add_people_commands(people: argparse.ArgumentParser, roles: type[StrEnum],
                        where: Callable[[argparse.ArgumentParser], None], prog: str,
                        example_role: str) -> None:
    """list, add, remove, set-pin, set-badge, clear-pin, clear-badge under `people`, for a
    file whose people take `roles`; `where` adds the options that find the file."""
    people.set_defaults(people_roles=roles, people_prog=prog)
    sub = people.add_subparsers(dest="people_command", required=True, metavar="COMMAND")
    ls = sub.add_parser("list", help="list the people (never a secret)")
    where(ls)
    add = sub.add_parser(
        "add", help="add a person (or replace one with the same id)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="secrets: on a terminal each is asked for without echo, twice. Otherwise\n"
               "each is one line of standard input: with --pin and --badge two lines,\n"
               "the PIN first, then the badge:\n"
               f"  printf '%s\\n%s\\n' \"$PIN\" \"$BADGE\" | {prog} add ana \\\n"
               f"      --name 'Ana Weber' --role {example_role} --pin --badge --config FILE")
    where(add)
    add.add_argument("id", help="the person's id: 1 to 32 of a-z 0-9 . _ -")
    add.add_argument("--name", required=True, help="the name shown at sign-in")
    add.add_argument("--role", required=True, choices=[r.value for r in roles])
    add.add_argument("--pin", action="store_true", help="ask for a PIN (4 to 12 digits)")
    add.add_argument("--badge", action="store_true", help="ask for the badge (or scan it)")
    rm = sub.add_parser("remove", help="remove a person")
    where(rm)
    rm.add_argument("id")
    for name, what in (("set-pin", "PIN"), ("set-badge", "badge")):
        p = sub.add_parser(name, help=f"ask for a new {what} for a person")
        where(p)
        p.add_argument("id")
    for name, what in (("clear-pin", "PIN"), ("clear-badge", "badge")):
        p = sub.add_parser(name, help=f"remove a person's {what}")
        where(p)
        p.add_argument("id")


def read_secret(what: str, stdin: TextIO | None = None, asked: tuple[str, ...] = ()) -> str:
    """One secret: without echo, twice, on a terminal; else a line of standard input.
    `asked`: every secret this command reads, in order (two lines for a PIN and a badge),
    so that a missing line says which."""
    stdin = stdin or sys.stdin
    if stdin.isatty():
        first = getpass.getpass(f"{what}: ")
        if getpass.getpass(f"{what} again: ") != first:
            raise PeopleError(f"the two {what}s differ")
        return first
    line = stdin.readline()
    if not line:
        if len(asked) > 1:
            lines = ", then ".join(f"the {a}" for a in asked)
            raise PeopleError(f"standard input needs {len(asked)} lines, {lines}; line "
                              f"{asked.index(what) + 1} (the {what}) is missing")
        raise PeopleError(f"no {what} on standard input")
    return line.rstrip("\r\n")


def run_people(args: argparse.Namespace, file_of: Callable[[argparse.Namespace], PeopleFile],
               out: TextIO = sys.stdout) -> int:
    """One people command (`add_people_commands` set its roles and name); `file_of` finds
    the file; a wrong file or setting is said and exits 2."""
    cmd = args.people_command
    roles: type[StrEnum] = args.people_roles
    prog: str = args.people_prog
    try:
        people = file_of(args)
        if cmd == "list":
            roster = people.load()
            if not roster.people:
                print(f"no people in {people.path}", file=out)
            for p in roster.people:
                print(f"{p.id:16} {p.role.value:10} pin:{'yes' if p.pin else 'no ':3} "
                      f"badge:{'yes' if p.badge else 'no ':3} {p.name}", file=out)
            return 0
        people.path.parent.mkdir(parents=True, exist_ok=True)
        people.key_path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = people.path.with_name(f".{people.path.name}.lock")
        with lock_path.open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # two editors never lose each other's change
            roster = people.load(create_key=True)
            pid = check_id(args.id)
            if cmd == "add":
                person = Person(pid, check_name(args.name), roles(args.role))
                roster = roster.with_person(person)
                asked = ("PIN",) * args.pin + ("badge",) * args.badge
                if args.pin:
                    roster = roster.pin_for(pid, check_pin(read_secret("PIN", asked=asked)))
                if args.badge:
                    roster = roster.badge_for(pid, check_badge(read_secret("badge",
                                                                           asked=asked)))
                said = f"added {pid} ({args.role})"
            elif cmd == "remove":
                roster = roster.without(pid)
                said = f"removed {pid}"
            elif cmd == "set-pin":
                roster = roster.pin_for(pid, check_pin(read_secret("PIN")))
                said = f"new PIN for {pid}"
            elif cmd == "set-badge":
                roster = roster.badge_for(pid, check_badge(read_secret("badge")))
                said = f"new badge for {pid}"
            elif cmd == "clear-pin":
                roster = roster.pin_for(pid, None)
                said = f"no PIN for {pid}"
            else:
                roster = roster.badge_for(pid, None)
                said = f"no badge for {pid}"
            people.save(roster)
        print(f"{said}: {people.path}", file=out)
        return 0
    except ValueError as e:  # PeopleError, and the owner's configuration errors
        print(f"{prog} {cmd}: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"{prog} {cmd}: {e}", file=sys.stderr)
        return 2
