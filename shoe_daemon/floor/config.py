"""The `[floor]` table of a TOML file: where the broker is and who this table is to it.

No `[floor]` table means no link. A wrong value is refused at start with a message naming
the setting (`floor.broker`, `floor.password_file`, ...), as the daemon's own settings are.
The collector (shoe_floor) reads the same table from its own file for its broker login.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from shoe_daemon.floor.topics import DEFAULT_PREFIX, check_name


class FloorConfigError(ValueError):
    """A `[floor]` setting is missing or wrong; the message names it."""


@dataclass(frozen=True)
class FloorConfig:
    host: str
    port: int
    username: str   # also the table's name in its topics (the broker ACL's %u)
    password: str
    ca_file: Path
    topic_prefix: str = DEFAULT_PREFIX
    cert_file: Path | None = None  # a client certificate, optional
    key_file: Path | None = None
    keepalive: int = 30
    session_expiry: int = 7 * 24 * 3600  # seconds the broker keeps a session when offline
    heartbeat: float = 5.0  # s between two signed head reports at most, while connected

    @property
    def table(self) -> str:
        return self.username

    @property
    def url(self) -> str:
        return f"mqtts://{self.host}:{self.port}"


_KEYS = {"broker", "username", "password", "password_file", "ca_file", "topic_prefix",
         "cert_file", "key_file", "keepalive", "session_expiry", "heartbeat"}


def parse_floor(table: dict[str, Any] | None, base: Path | None = None) -> FloorConfig | None:
    """The link's settings from a parsed `[floor]` table (None: no link). Relative paths are
    taken from `base`, the directory of the file they were written in."""
    if table is None:
        return None
    if not isinstance(table, dict):
        raise FloorConfigError("floor: must be a table ([floor])")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise FloorConfigError(f"floor.{unknown[0]}: unknown setting "
                               f"(known: {', '.join(sorted(_KEYS))})")
    host, port = _broker(_text(table, "broker"))
    username = _text(table, "username")
    why = check_name(username)
    if why:
        raise FloorConfigError(f"floor.username: {username!r} {why}")
    prefix = _text(table, "topic_prefix", DEFAULT_PREFIX).strip("/")
    if not prefix or set(prefix) & set("+#\0") or prefix.startswith("$"):
        raise FloorConfigError(f"floor.topic_prefix: {prefix!r} is not a topic prefix")
    cert = _path(table, "cert_file", base, required=False)
    key = _path(table, "key_file", base, required=False)
    if (cert is None) != (key is None):
        raise FloorConfigError("floor.cert_file: a client certificate needs both cert_file "
                               "and key_file")
    return FloorConfig(host, port, username, _password(table, base, cert is not None),
                       _path(table, "ca_file", base, required=True), prefix, cert, key,
                       _number(table, "keepalive", 30), _number(table, "session_expiry",
                                                                7 * 24 * 3600),
                       _seconds(table, "heartbeat", 5.0))


def _text(table: dict[str, Any], key: str, default: str | None = None) -> str:
    value = table.get(key, default)
    if value is None:
        raise FloorConfigError(f"floor.{key}: missing")
    if not isinstance(value, str) or not value:
        raise FloorConfigError(f"floor.{key}: must be a non-empty string, not {value!r}")
    return value


def _number(table: dict[str, Any], key: str, default: int) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise FloorConfigError(f"floor.{key}: must be a positive whole number, not {value!r}")
    return value


def _seconds(table: dict[str, Any], key: str, default: float) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 3600:
        raise FloorConfigError(f"floor.{key}: must be a number of seconds, more than 0 and at "
                               f"most 3600, not {value!r}")
    return float(value)


def _broker(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    if parts.scheme != "mqtts":
        raise FloorConfigError(f"floor.broker: {url!r} must be mqtts://HOST:PORT (the link "
                               "speaks TLS only)")
    try:
        port = parts.port or 8883
    except ValueError as e:
        raise FloorConfigError(f"floor.broker: {url!r}: {e}") from e
    if not parts.hostname or parts.path not in ("", "/") or parts.username:
        raise FloorConfigError(f"floor.broker: {url!r} must be mqtts://HOST:PORT, credentials "
                               "in floor.username and floor.password_file")
    return parts.hostname, port


def _path(table: dict[str, Any], key: str, base: Path | None, required: bool) -> Path | None:
    if key not in table and not required:
        return None
    path = Path(_text(table, key))
    path = path if path.is_absolute() or base is None else base / path
    if not path.is_file():
        raise FloorConfigError(f"floor.{key}: {path} is not a readable file")
    return path


def _password(table: dict[str, Any], base: Path | None, has_cert: bool) -> str:
    if "password" in table and "password_file" in table:
        raise FloorConfigError("floor.password: give password or password_file, not both")
    if "password" in table:
        return _text(table, "password")
    if "password_file" not in table:
        if has_cert:
            return ""
        raise FloorConfigError("floor.password_file: missing (or floor.password, or a client "
                               "certificate)")
    path = _path(table, "password_file", base, required=True)
    assert path is not None
    try:
        secret = path.read_text().strip()
    except OSError as e:
        raise FloorConfigError(f"floor.password_file: {e}") from e
    if not secret:
        raise FloorConfigError(f"floor.password_file: {path} is empty")
    return secret
