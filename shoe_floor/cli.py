"""`shoe-floor`: the pit's side of the floor (docs/floor.md).

    shoe-floor collect --config floor.toml   every table's records into the store
    shoe-floor serve --config floor.toml [--http HOST:PORT]   the pit's live page
    shoe-floor people list|add|set-pin|set-badge|clear-pin|clear-badge|remove --config F
    shoe-floor export --config floor.toml --out DIR [--from T] [--to T] [--table NAME ...]
    shoe-floor report --config floor.toml [--from T] [--to T | --all] [--table NAME ...]
        [--shifts HH:MM,...] [--csv | --json]   the floor's shift report, per table and in total
    shoe-floor verify DIR [--public-key PEM] [--table-keys DIR]  a floor export, every table
    shoe-floor keygen | rotate-key | public-key --config floor.toml   the floor's signing key
    shoe-floor lodge-key --config floor.toml TABLE FILE   file a table's public key
    shoe-floor acl [--prefix P] [--collector NAME] [--pit NAME] [--feed NAME]   the ACL
    shoe-floor broker-conf [--port N] [--bind ADDR] [--ca-file F ...]   mosquitto's snippet
"""

from __future__ import annotations

import argparse
import json
import signal
import sqlite3
import sys
import threading
from pathlib import Path

import structlog

from shoe_daemon.audit import keys
from shoe_daemon.audit.cli import add_export_arguments, add_range_arguments
from shoe_daemon.audit.reader import AuditError, VerifyFailed
from shoe_daemon.console.people_commands import add_people_commands, run_people
from shoe_daemon.floor.topics import DEFAULT_COLLECTOR, DEFAULT_PIT, DEFAULT_PREFIX
from shoe_daemon.report.cli import SHIFTS, asked_range, parse_shifts
from shoe_daemon.report.figures import ReportError
from shoe_floor.broker import BROKER_FILES, DEPLOYED, BrokerFiles, acl_text, broker_conf
from shoe_floor.collector import Collector
from shoe_floor.config import CollectorConfigError, load
from shoe_floor.export import export_floor, load_config
from shoe_floor.pit.config import load as load_pit
from shoe_floor.pit.people import PitRole, pit_people
from shoe_floor.pit.service import Pit
from shoe_floor.report import floor_report, render_csv, render_text
from shoe_floor.store import Store
from shoe_floor.table_keys import LodgeRefused, lodge
from shoe_floor.verify import verify_floor


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="shoe-floor", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    collect = sub.add_parser("collect", help="every table's records into the store")
    collect.add_argument("--config", type=Path, required=True)
    serve = sub.add_parser("serve", help="the pit's live page of every table")
    serve.add_argument("--config", type=Path, required=True)
    serve.add_argument("--http", metavar="HOST:PORT", help="instead of [pit] http")
    _people_parser(sub)
    ex = sub.add_parser("export", help="the regulator's signed export of many tables")
    ex.add_argument("--config", type=Path, required=True)
    add_export_arguments(ex)
    ex.add_argument("--table", action="append", metavar="NAME",
                    help="only this table (repeatable; default: every table)")
    rep = sub.add_parser("report", help="the floor's shift report, per table and in total",
                         description="Each table's shift report (as its own `shoe-daemon "
                                     "report` gives it) and the floor's total per currency, "
                                     "from the store's proven records (docs/floor.md).")
    rep.add_argument("--config", type=Path, required=True)
    add_range_arguments(rep)
    rep.add_argument("--all", action="store_true", help="every record held, not the shift")
    rep.add_argument("--shifts", type=parse_shifts, default=parse_shifts(SHIFTS),
                     metavar="HH:MM,...",
                     help=f"the floor's local times the shifts begin (default {SHIFTS})")
    rep.add_argument("--table", action="append", metavar="NAME",
                     help="only this table (repeatable; default: every table)")
    form = rep.add_mutually_exclusive_group()
    form.add_argument("--csv", action="store_true", help="a row per table and per total")
    form.add_argument("--json", action="store_true", help="the figures as JSON")
    ve = sub.add_parser("verify", help="check a floor export, every table in it")
    ve.add_argument("export", type=Path, metavar="DIR")
    ve.add_argument("--public-key", type=Path, metavar="PEM",
                    help="the floor key lodged (default: the export's own floor.pub.pem)")
    ve.add_argument("--table-keys", type=Path, metavar="DIR",
                    help="the tables' keys lodged, DIR/<table>/*.pub.pem: each table's "
                         "signatures must use its own")
    ve.add_argument("--without-table-signatures", action="store_true",
                    help="accept an export made before the floor kept the tables' signatures: "
                         "vouched for by the floor's key alone")
    for name, text in (("keygen", "make the floor's first signing key"),
                       ("rotate-key", "make a new current signing key (old ones are kept)"),
                       ("public-key", "print the floor's public key and its key id, to lodge")):
        k = sub.add_parser(name, help=text)
        k.add_argument("--config", type=Path, required=True)
    lk = sub.add_parser("lodge-key", help="check a table's public key and file it where the "
                        "collector reads it ([collector] table_keys)")
    lk.add_argument("--config", type=Path, required=True)
    lk.add_argument("table", help="the table's broker username (its name in the topics)")
    lk.add_argument("file", type=Path, help="its public key: `shoe-daemon audit public-key`")
    acl = sub.add_parser("acl", help="print the broker's ACL file")
    acl.add_argument("--prefix", default=DEFAULT_PREFIX)
    acl.add_argument("--collector", default=DEFAULT_COLLECTOR, help="the collector's login")
    acl.add_argument("--pit", default=DEFAULT_PIT, help="the pit page's login")
    acl.add_argument("--feed", action="append", default=[], metavar="LOGIN",
                     help="a read-only records feed (surveillance): reads every table's "
                          "records and public topics, writes nothing (repeatable)")
    conf = sub.add_parser("broker-conf", help="print the broker's configuration snippet",
                          formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    conf.add_argument("--port", type=int, default=8883)
    conf.add_argument("--bind", default="0.0.0.0")
    for name, default in vars(DEPLOYED).items():
        flag = "--" + name.replace("_", "-")
        conf.add_argument(flag, type=Path, default=default, help=BROKER_FILES[name])
    return parser


def _people_parser(sub: argparse._SubParsersAction) -> None:
    people = sub.add_parser(
        "people", help="who may sign in at the pit's page, and as what",
        description="Add, remove and list the pit's people (pit_boss, surveillance, "
                    "regulator): the file [pit] people, beside floor.toml (docs/floor.md). "
                    "Secrets are asked for, never given as arguments, and stored hashed.")

    def where(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", type=Path, required=True, help="the floor's floor.toml")

    add_people_commands(people, PitRole, where, "shoe-floor people", "pit_boss")


def _people(args: argparse.Namespace) -> int:
    return run_people(args, lambda a: pit_people(load_pit(a.config).people))


def _log() -> None:
    structlog.configure(processors=[structlog.processors.add_log_level,
                                    structlog.processors.TimeStamper(fmt="iso"),
                                    structlog.processors.JSONRenderer()])


def _until_stopped() -> threading.Event:
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    return stop


def _collect(config_path: Path) -> int:
    collector = Collector(load(config_path))
    signal.signal(signal.SIGTERM, lambda *_: collector.request_stop())
    signal.signal(signal.SIGINT, lambda *_: collector.request_stop())
    collector.start()
    collector.wait()
    collector.stop()
    return 0


def _serve(args: argparse.Namespace) -> int:
    pit = Pit(load_pit(args.config, args.http))
    stop = _until_stopped()
    try:
        pit.start()
    except OSError as e:
        print(f"shoe-floor: pit.http: cannot serve on {pit.config.host}:{pit.config.port}: "
              f"{e.strerror or e}", file=sys.stderr)
        return 2
    while not stop.wait(1.0):
        pass
    pit.stop()
    return 0


def _open_store(database: str) -> Store:
    """The collector's store, to read; AuditError (exit 2) saying why it cannot be opened."""
    try:
        return Store(database, create=False)
    except ImportError as e:
        raise AuditError(f"collector.database: PostgreSQL needs psycopg, the floor extra "
                         f"(pip install 'shoe-daemon[floor]'): {e}") from e
    except sqlite3.Error as e:
        raise AuditError(f"collector.database: {database}: {e}") from e
    except Exception as e:
        psycopg = sys.modules.get("psycopg")
        if psycopg is None or not isinstance(e, psycopg.Error):
            raise
        raise AuditError(f"collector.database: cannot connect: {str(e).strip()}") from e


def _export(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    store = _open_store(config.database)
    try:
        floor = export_floor(store, config.state_dir, config.table_keys, args.out,
                             args.start, args.end, args.table)
    finally:
        store.close()
    for entry in floor["tables"]:
        r = entry["records"]
        print(f"{entry['dir']}: records {r['first']}..{r['last']} ({r['count']}), "
              f"{entry['coups']} coups" + ("; the table stopped at its last record"
                                           if entry["stopped"] else ""))
        if not entry["complete"] and not entry["stopped"]:
            print(f"shoe-floor export: {entry['table_id']}: the range ends at the floor's "
                  "verified tip: records after it had not reached the floor (said in its "
                  "manifest)", file=sys.stderr)
        if entry["alarms"]:
            print(f"shoe-floor export: {entry['table_id']}: {entry['alarms']} floor alarm(s) "
                  "about records of the range (listed in its manifest)", file=sys.stderr)
    if floor["without_records"]:
        print(f"no records in the range: {', '.join(floor['without_records'])}")
    print(f"exported {len(floor['tables'])} table(s) to {args.out}; signed by the floor's "
          f"key id {floor['key_id']}")
    return 0


def _report(args: argparse.Namespace) -> int:
    """The current shift in the floor's local time unless a range or --all is given."""
    start, end, shift = asked_range(args.start, args.end, args.all, args.shifts)
    config = load_config(args.config)
    store = _open_store(config.database)
    try:
        floor = floor_report(store, config.table_keys, start, end, args.table)
    finally:
        store.close()
    floor["shift"] = shift
    if args.json:
        print(json.dumps(floor, indent=2, ensure_ascii=False))
    elif args.csv:
        sys.stdout.write(render_csv(floor))
    else:
        sys.stdout.write(render_text(floor))
    return 0


def _keys(args: argparse.Namespace) -> int:
    state_dir = load_config(args.config).state_dir
    if args.command == "keygen":
        made = keys.keygen(state_dir)
        print(f"made {keys.keys_dir(state_dir) / made.stem}.key, key id {made.key_id}")
    elif args.command == "rotate-key":
        made = keys.rotate(state_dir)
        print(f"rotated: {made.stem} is current, key id {made.key_id}; old public keys kept")
    else:
        current = keys.load_current(state_dir)
        sys.stdout.write(current.public_pem.decode())
        print(f"key id: {current.key_id}")
    return 0


def _lodge_key(args: argparse.Namespace) -> int:
    root = load(args.config).table_keys
    try:
        pem = args.file.read_bytes()
    except OSError as e:
        print(f"shoe-floor lodge-key: {args.file}: {e.strerror or e}", file=sys.stderr)
        return 2
    try:
        kid, path, new = lodge(root, args.table, pem, str(args.file))
    except LodgeRefused as e:
        print(f"shoe-floor lodge-key: refused: {e}", file=sys.stderr)
        return 2
    if new:
        print(f"lodged key id {kid} for table {args.table}: {path} (a running collector takes "
              "it at the table's next message; no restart)")
    else:
        print(f"key id {kid} is lodged for table {args.table} already: {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "acl":
        sys.stdout.write(acl_text(args.prefix, args.collector, args.pit, tuple(args.feed)))
        return 0
    if args.command == "broker-conf":
        files = BrokerFiles(**{name: getattr(args, name) for name in vars(DEPLOYED)})
        sys.stdout.write(broker_conf(files, port=args.port, bind=args.bind))
        return 0
    prog = f"shoe-floor {args.command}"
    try:
        if args.command == "verify":
            for line in verify_floor(args.export, args.public_key, args.table_keys,
                                     args.without_table_signatures):
                print(line)
            return 0
        if args.command in ("keygen", "rotate-key", "public-key"):
            return _keys(args)
        if args.command == "lodge-key":
            return _lodge_key(args)
        if args.command == "people":
            return _people(args)
        _log()
        if args.command == "collect":
            return _collect(args.config)
        if args.command == "serve":
            return _serve(args)
        if args.command == "report":
            return _report(args)
        return _export(args)
    except CollectorConfigError as e:
        print(f"shoe-floor: {e}", file=sys.stderr)
        return 2
    except VerifyFailed as e:
        print(f"{prog}: FAILED: {e}" + ("; nothing reported" if args.command == "report"
                                           else ""), file=sys.stderr)
        return 1
    except (AuditError, ReportError, keys.KeyProblem, OSError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
