"""The `shoe-daemon` command line."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from shoe_daemon.audit import cli as audit
from shoe_daemon.game.houses import PROFILES
from shoe_daemon.odds import cli as odds
from shoe_daemon.report import cli as report
from shoe_daemon.service import config, logs, people_cli, replay
from shoe_daemon.service.prune import add_prune_parser, prune

if TYPE_CHECKING:
    from shoe_daemon.console.server import ConsoleServer


def _seq(text: str) -> int:
    """A frame's sequence number, 0 to 65535."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"not a sequence number (0 to 65535): {text!r}")
    return int(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoe-daemon", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser(
        "replay",
        help="play a raw shoe capture and print each decided coup as a JSON line",
    )
    rp.add_argument("--profile", required=True, choices=sorted(PROFILES), help="house rules")
    rp.add_argument("capture", type=Path, help="file of raw shoe-to-host bytes")
    where = rp.add_mutually_exclusive_group()
    where.add_argument("--console", type=Path, metavar="FILE",
                       help="the console file the daemon wrote beside the capture "
                            "(captures/*.console.jsonl): play its actions too")
    where.add_argument("--resume", type=_seq, metavar="SEQ",
                       help="delivery resumes after frame SEQ, as the daemon that wrote the "
                            "capture resumed from its ledger (its log's line.resumed); "
                            "without it, a capture that begins mid-stream is played from the "
                            "shoe's resend rounds")
    keys = rp.add_mutually_exclusive_group()
    keys.add_argument("--people", type=Path, metavar="FILE",
                      help="decide each KEY against this people file, as the daemon does "
                           "(its key: people.key beside it, or --people-key)")
    keys.add_argument("--trust-keys", action="store_true",
                      help="take every KEY, as a daemon that did not decide them (old "
                           "captures); without this, --people or --console no KEY is taken")
    rp.add_argument("--people-key", type=Path, metavar="FILE",
                    help="the people file's key (default: people.key beside it)")
    run = sub.add_parser("run", help="run the daemon against a shoe")
    config.add_arguments(run)
    check = sub.add_parser("check-config", help="validate the settings and say what the "
                           "service will do (exit 2 naming a bad setting)")
    config.add_arguments(check)
    status = sub.add_parser("status", help="summarise the running daemon from its state "
                            "directory, read-only (exit 0 serving, 1 not in play, 3 not running)")
    status.add_argument("--state-dir", type=Path, help="the daemon's state directory")
    status.add_argument("--config", type=Path, help="or the TOML file naming it")
    add_prune_parser(audit.add_audit_parser(sub))
    odds.add_odds_parser(sub)
    report.add_report_parser(sub)
    people_cli.add_people_parser(sub)
    return parser


def _run(args: argparse.Namespace) -> int:
    try:
        settings = config.load(args)
        settings.state_dir.mkdir(parents=True, exist_ok=True)
    except config.ConfigError as e:
        print(f"shoe-daemon run: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"shoe-daemon run: setting 'state_dir': cannot make {settings.state_dir}: "
              f"{e.strerror or e}", file=sys.stderr)
        return 2
    why = config.unusable(settings)
    if why:
        print(f"shoe-daemon run: {why}", file=sys.stderr)
        return 2
    logs.configure(settings.log_format)
    log = structlog.get_logger("shoe_daemon").bind(table=settings.table)
    # Starting the display takes a moment (aiohttp's import): a SIGTERM or SIGINT meanwhile
    # is kept and honoured as a clean stop once the daemon's own handlers are in place.
    early: list[int] = []
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda n, _: early.append(n))
    from shoe_daemon.audit.ledger import LedgerError
    from shoe_daemon.floor.config import FloorConfigError
    from shoe_daemon.service.loop import ServiceLoop, transport_for

    try:
        transport = transport_for(settings)
    except (ValueError, ImportError, AttributeError) as e:
        print(f"shoe-daemon run: transport: {e}", file=sys.stderr)
        return 2
    server = None
    address = config.http_address(settings.http)
    if address is not None:
        from shoe_daemon.display.server import DisplayServer

        server = DisplayServer(*address, initial=b"{}", log=log)
        try:
            url = server.start()
        except OSError as e:
            print(f"shoe-daemon run: setting 'http': cannot serve the display on "
                  f"{settings.http}: {e.strerror or e}", file=sys.stderr)
            return 2
        log.info("display.listening", url=url)
    try:
        console = _console(settings, log)
    except _Refused as e:
        if server is not None:
            server.stop()
        print(f"shoe-daemon run: {e}", file=sys.stderr)
        return 2
    try:
        try:
            service = ServiceLoop(settings, transport,
                                  display=server.publish if server is not None else None,
                                  console=console)
        except LedgerError as e:
            print(f"shoe-daemon run: audit ledger: {e}", file=sys.stderr)
            return 1
        except OSError as e:
            print(f"shoe-daemon run: {config.failed_start(e, settings)}", file=sys.stderr)
            return 2
        except FloorConfigError as e:  # the CA, the certificate or the signing key unusable
            print(f"shoe-daemon run: setting {e}", file=sys.stderr)
            return 2
        service.install_signal_handlers()
        if early:
            service.stop()
        return service.run()
    finally:
        if server is not None:
            server.stop()
        if console is not None:
            console.stop()


class _Refused(Exception):
    """The console cannot start as configured; the message names the setting."""


def _console(settings: config.Config, log: Any) -> ConsoleServer | None:
    """The croupier's console's server, started on its own listener; None when it is off."""
    address = config.console_address(settings)
    if address is None:
        return None
    import ssl

    from shoe_daemon.console.answers import LedgerActions
    from shoe_daemon.console.people import PeopleError, people_paths
    from shoe_daemon.console.recall import Recall
    from shoe_daemon.console.server import ConsoleServer, tls_context

    people = people_paths(settings.state_dir, settings.people)
    try:
        roster = people.load(create_key=True)
    except PeopleError as e:
        raise _Refused(f"setting 'people': {e}") from None
    context = None
    if settings.console_cert:
        try:
            context = tls_context(settings.console_cert, settings.console_key)
        except (OSError, ssl.SSLError) as e:
            raise _Refused(f"settings 'console_cert' and 'console_key': cannot serve TLS with "
                           f"them: {e}") from None
    recall = Recall(settings.state_dir, settings.profile)
    console = ConsoleServer(*address, people=people, recall=recall.answer, ssl_context=context,
                            idle=settings.console_idle, longest=settings.console_session,
                            log=log, admit=settings.console_admit,
                            answer=settings.console_answer,
                            ledger=LedgerActions(settings.state_dir),
                            loopback=config.is_loopback(address[0]),
                            screens=config.console_screens(settings))
    try:
        url = console.start()
    except OSError as e:
        raise _Refused(f"setting 'console': cannot serve the console on {settings.console}: "
                       f"{e.strerror or e}") from None
    log.info("console.listening", url=url, people=len(roster.people))
    if not any(p.role.value == "supervisor" for p in roster.people):
        log.warning("console.no_supervisor", people=str(people.path))
    return console


def _status(args: argparse.Namespace) -> int:
    from shoe_daemon.service.status import CANNOT_READ, run_status

    state_dir = args.state_dir
    if state_dir is None and args.config is not None:
        try:
            state_dir = config.load(argparse.Namespace(config=args.config)).state_dir
        except config.ConfigError as e:
            print(f"shoe-daemon status: {e}", file=sys.stderr)
            return CANNOT_READ
    if state_dir is None:
        print("shoe-daemon status: give --state-dir, or --config naming state_dir",
              file=sys.stderr)
        return CANNOT_READ
    return run_status(Path(state_dir))


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "replay":
        if not args.capture.is_file():
            print(f"shoe-daemon replay: no such capture file: {args.capture}", file=sys.stderr)
            return 2
        if args.console is not None and not args.console.is_file():
            print(f"shoe-daemon replay: no such console file: {args.console}", file=sys.stderr)
            return 2
        try:
            return replay.run(args.profile, args.capture, console=args.console,
                              people=args.people, people_key=args.people_key,
                              trust_keys=args.trust_keys, resume=args.resume)
        except BrokenPipeError:
            # The reader went away (`| head`): stop quietly, as Unix filters do.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    if args.command == "run":
        return _run(args)
    if args.command == "audit":
        return audit.run_audit(args, lambda a: prune(a) if a.audit_command == "prune" else None)
    if args.command == "check-config":
        from shoe_daemon.service.check_config import run_check_config

        return run_check_config(args)
    if args.command == "status":
        return _status(args)
    if args.command == "odds":
        return odds.run_odds(args)
    if args.command == "report":
        return report.run_report(args)
    if args.command == "people":
        return people_cli.run_people(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
