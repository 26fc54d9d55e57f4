"""The collector's file (`shoe-floor collect --config floor.toml`): its broker login in a
`[floor]` table of the same shape as a table's, and its own `[collector]` settings, among them
where the tables' lodged public keys are (`table_keys`, required: a collector that cannot
tell a table's records from a forger's is not one)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shoe_daemon.floor.config import FloorConfig, FloorConfigError, parse_floor


class CollectorConfigError(ValueError):
    """A setting is missing or wrong; the message names it."""


@dataclass(frozen=True)
class CollectorConfig:
    broker: FloorConfig
    database: str           # postgresql://... or the path of an SQLite file
    client_id: str          # stable: the broker keeps this collector's session under it
    table_keys: Path        # DIR/<table>/*.pub.pem: each table's lodged public keys
    group: str = "shoe-floor"  # the shared subscription's group: collectors that share
    batch_size: int = 500   # records per transaction at most (whole messages: a few more)
    batch_wait: float = 0.05  # s to wait for a batch to fill once a message is in
    gap_grace: float = 1.0  # s a gap may last (records still on their way) before resend
    resend_every: float = 5.0  # s between two resend requests for the same gap
    short_grace: float = 10.0  # s a table short by its head may stay so once asked, unalarmed


_DEFAULTS = CollectorConfig.__dataclass_fields__
_KEYS = {"database", "client_id", "table_keys", "group", "batch_size", "batch_wait",
         "gap_grace", "resend_every", "short_grace"}


def load(path: Path) -> CollectorConfig:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise CollectorConfigError(f"{path}: {e}") from e
    return parse(data, path.parent)


def parse(data: dict[str, Any], base: Path | None = None) -> CollectorConfig:
    try:
        broker = parse_floor(data.get("floor"), base)
    except FloorConfigError as e:
        raise CollectorConfigError(str(e)) from e
    if broker is None:
        raise CollectorConfigError("floor: missing (the collector's broker login)")
    section = _section(data)
    unknown = sorted(set(section) - _KEYS)
    if unknown:
        raise CollectorConfigError(f"collector.{unknown[0]}: unknown setting "
                                   f"(known: {', '.join(sorted(_KEYS))})")
    values: dict[str, Any] = {"broker": broker, "database": database_of(data, base),
                              "client_id": _text(section, "client_id", broker.username),
                              "group": _text(section, "group", "shoe-floor")}
    for key in ("batch_size",):
        value = section.get(key, _DEFAULTS[key].default)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= 65535:
            raise CollectorConfigError(f"collector.{key}: must be a whole number 1 to 65535")
        values[key] = value
    for key in ("batch_wait", "gap_grace", "resend_every", "short_grace"):
        value = section.get(key, _DEFAULTS[key].default)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise CollectorConfigError(f"collector.{key}: must be a number of seconds >= 0")
        values[key] = float(value)
    values["table_keys"] = table_keys_of(section, "collector", base)
    return CollectorConfig(**values)


def table_keys_of(section: dict[str, Any], name: str, base: Path | None = None) -> Path:
    """`table_keys` of a section (`collector`, or `pit` for a page on its own machine): the
    directory of the tables' lodged public keys, relative to `base`."""
    table_keys = section.get("table_keys") if isinstance(section, dict) else None
    if not isinstance(table_keys, str) or not table_keys:
        raise CollectorConfigError(
            f"{name}.table_keys: missing (the directory of the tables' lodged public keys, "
            "DIR/<table>/*.pub.pem: " + ("the collector stores only records signed by their "
                                         "table)" if name == "collector" else
                                         "the page shows only what the tables signed; it "
                                         "reads collector.table_keys of the same file "
                                         "unless pit.table_keys is given)"))
    keys_dir = Path(table_keys)
    return keys_dir if keys_dir.is_absolute() or base is None else base / keys_dir


def require_keys_dir(path: Path, name: str) -> None:
    """CollectorConfigError, naming `<name>.table_keys`, if `path` is not a directory."""
    if not path.is_dir():
        raise CollectorConfigError(
            f"{name}.table_keys: {path} is not a directory: make it, and lodge each table's "
            "public key there (`shoe-floor lodge-key TABLE FILE`)")


def database_of(data: dict[str, Any], base: Path | None = None) -> str:
    """`[collector] database`: a PostgreSQL URL, or an SQLite file (relative to `base`). The
    pit's page reads it too, without the collector's broker login."""
    database = _section(data).get("database")
    if not isinstance(database, str) or not database:
        raise CollectorConfigError("collector.database: missing (postgresql://... or the path "
                                   "of an SQLite file)")
    if not database.startswith(("postgresql://", "postgres://")) and base is not None:
        database = str(base / database)
    return database


def _section(data: dict[str, Any]) -> dict[str, Any]:
    section = data.get("collector", {})
    if not isinstance(section, dict):
        raise CollectorConfigError("collector: must be a table ([collector])")
    return section


def _text(section: dict[str, Any], key: str, default: str) -> str:
    value = section.get(key, default)
    if not isinstance(value, str) or not value or set(value) & set("/+#"):
        raise CollectorConfigError(f"collector.{key}: must be a name without / + #")
    return value
