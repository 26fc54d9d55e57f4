"""`shoe-floor`: the pit's side of the floor (docs/floor.md).

    shoe-floor collect --config floor.toml   every table's records into the store
    shoe-floor acl [--prefix P] [--collector NAME]   the broker's ACL file
    shoe-floor broker-conf [--port N] [--bind ADDR]  the broker's configuration snippet
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

import structlog

from shoe_daemon.floor.topics import DEFAULT_COLLECTOR, DEFAULT_PREFIX
from shoe_floor.broker import acl_text, broker_conf
from shoe_floor.collector import Collector
from shoe_floor.config import CollectorConfigError, load


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="shoe-floor", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    collect = sub.add_parser("collect", help="every table's records into the store")
    collect.add_argument("--config", type=Path, required=True)
    acl = sub.add_parser("acl", help="print the broker's ACL file")
    acl.add_argument("--prefix", default=DEFAULT_PREFIX)
    acl.add_argument("--collector", default=DEFAULT_COLLECTOR)
    conf = sub.add_parser("broker-conf", help="print the broker's configuration snippet")
    conf.add_argument("--port", type=int, default=8883)
    conf.add_argument("--bind", default="0.0.0.0")
    args = parser.parse_args(argv)
    if args.command == "acl":
        sys.stdout.write(acl_text(args.prefix, args.collector))
        return 0
    if args.command == "broker-conf":
        sys.stdout.write(broker_conf(port=args.port, bind=args.bind))
        return 0
    try:
        config = load(args.config)
    except CollectorConfigError as e:
        print(f"shoe-floor: {e}", file=sys.stderr)
        return 2
    structlog.configure(processors=[structlog.processors.add_log_level,
                                    structlog.processors.TimeStamper(fmt="iso"),
                                    structlog.processors.JSONRenderer()])
    collector = Collector(config)
    signal.signal(signal.SIGTERM, lambda *_: collector.request_stop())
    signal.signal(signal.SIGINT, lambda *_: collector.request_stop())
    collector.start()
    collector.wait()
    collector.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
