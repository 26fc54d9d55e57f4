"""The page's settings: a `[pit]` table in the collector's own floor.toml, which also says
where the broker is (`[floor]`: its address, CA and topic prefix), the store the page reads
(`[collector] database`) and the tables' lodged keys it checks each status message with
(`[collector] table_keys`, or `[pit] table_keys` where the page runs on a machine of its own).

The page has its own broker login, never the collector's: the broker's ACL lets it read the
tables' public topics (state, online, head) and nothing else, and write nothing (docs/
floor.md, "Where it reads"). It is given in `[pit]` with the same keys as any login; the
collector's password file is never read by the page.

```toml
[pit]
http = "127.0.0.1:8090"   # HOST:PORT; port 0 takes any free port
username = "shoe-floor-pit"          # the page's broker login (this is the default)
password_file = "pit.password"       # or password = "...", or cert_file and key_file
client_id = "pit-1"       # the page's broker client id
poll = 1.0                # s between two readings of the store
behind_grace = 5.0        # s a table's change may wait for its records before "behind"
clock_skew = 2.0          # s the tables' clocks may be behind the page's (heartbeats)
# table_keys = "/etc/shoe-floor/table-keys"   # default: [collector] table_keys
name = "Salle Europe"     # the floor's name, said on the sign-in screen
people = "pit-people.json"  # who may sign in (`shoe-floor people`); its key pit-people.key
screens = ["127.0.0.1", "::1"]  # the pit's own screens: only they show the name tiles
cert = "pit.crt"          # TLS: required off loopback (PINs never cross a network in clear)
key = "pit.key"
idle = 900                # s without a request before a session ends
session = 43200           # s a session lasts at most
```
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shoe_daemon.console.throttle import is_loopback, screen_set
from shoe_daemon.floor.config import FloorConfig, FloorConfigError, parse_floor
from shoe_daemon.floor.topics import DEFAULT_PIT
from shoe_floor.config import CollectorConfigError, database_of, table_keys_of
from shoe_floor.pit.people import PEOPLE_FILE

LOGIN = ("username", "password", "password_file", "cert_file", "key_file")


@dataclass(frozen=True)
class PitConfig:
    broker: FloorConfig  # the page's own login (the broker's address and CA from [floor])
    database: str        # the collector's store, read only
    host: str = "127.0.0.1"
    port: int = 8090
    client_id: str = "pit"
    poll: float = 1.0
    behind_grace: float = 5.0
    table_keys: Path = Path("table-keys")  # DIR/<table>/*.pub.pem: what checks the tables
    clock_skew: float = 2.0
    people: Path = Path(PEOPLE_FILE)
    name: str = "the floor"
    screens: frozenset[str] = frozenset({"127.0.0.1", "::1"})
    cert: str = ""
    key: str = ""
    idle: float = 900.0
    session: float = 43200.0


_KEYS = {"http", "client_id", "poll", "behind_grace", "clock_skew", "table_keys", "name",
         "people", "screens", "cert", "key", "idle", "session", *LOGIN}


def parse_http(text: str) -> tuple[str, int]:
    """`HOST:PORT` (an IPv6 host in brackets) for the page's address."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise CollectorConfigError(f"pit.http: {text!r} must be HOST:PORT, e.g. 127.0.0.1:8090")
    return host, int(port)


def load(path: Path, http: str | None = None) -> PitConfig:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise CollectorConfigError(f"{path}: {e}") from e
    return parse_pit(data, path.parent, http)


def parse_pit(data: dict[str, Any], base: Path | None = None,
              http: str | None = None) -> PitConfig:
    floor = data.get("floor")
    if not isinstance(floor, dict):
        raise CollectorConfigError("floor: missing (the broker's address, CA and topic "
                                   "prefix, and the collector's login)")
    section = data.get("pit", {})
    if not isinstance(section, dict):
        raise CollectorConfigError("pit: must be a table ([pit])")
    unknown = sorted(set(section) - _KEYS)
    if unknown:
        raise CollectorConfigError(f"pit.{unknown[0]}: unknown setting "
                                   f"(known: {', '.join(sorted(_KEYS))})")
    broker = _login(floor, section, base)
    database = database_of(data, base)
    address = http if http is not None else section.get("http", "127.0.0.1:8090")
    if not isinstance(address, str):
        raise CollectorConfigError("pit.http: must be a string HOST:PORT")
    host, port = parse_http(address)
    collector_id = data.get("collector", {}).get("client_id", floor.get("username"))
    client_id = section.get("client_id", f"{collector_id}-pit")
    if not isinstance(client_id, str) or not client_id or set(client_id) & set("/+#"):
        raise CollectorConfigError("pit.client_id: must be a name without / + #")
    if client_id == collector_id:
        raise CollectorConfigError("pit.client_id: must differ from collector.client_id (the "
                                   "broker would end one session for the other)")
    values: dict[str, float] = {}
    for key, default in (("poll", 1.0), ("behind_grace", 5.0), ("clock_skew", 2.0)):
        value = section.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise CollectorConfigError(f"pit.{key}: must be a number of seconds > 0")
        values[key] = float(value)
    keys = table_keys_of(section, "pit", base) if "table_keys" in section else \
        table_keys_of(data.get("collector", {}), "pit", base)
    return PitConfig(broker, database, host, port, client_id, values["poll"],
                     values["behind_grace"], keys, values["clock_skew"],
                     **_sign_in(section, base, host))


def _path(value: object, key: str, base: Path | None) -> str:
    if not isinstance(value, str) or not value:
        raise CollectorConfigError(f"pit.{key}: must be a file's path")
    path = Path(value)
    return str(path if path.is_absolute() or base is None else base / path)


def _sign_in(section: dict[str, Any], base: Path | None, host: str) -> dict[str, Any]:
    """Who signs in, where and for how long; TLS off loopback (as the console's)."""
    out: dict[str, Any] = {"people": Path(_path(section.get("people", PEOPLE_FILE), "people",
                                                base))}
    name = section.get("name", "the floor")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 80:
        raise CollectorConfigError("pit.name: the floor's name, 1 to 80 characters")
    out["name"] = name.strip()
    screens = section.get("screens", ["127.0.0.1", "::1"])
    if not isinstance(screens, list) or not all(isinstance(a, str) for a in screens):
        raise CollectorConfigError("pit.screens: a list of addresses, e.g. [\"10.0.4.20\"]")
    try:
        out["screens"] = screen_set(screens)
    except ValueError as e:
        raise CollectorConfigError(f"pit.screens: {e}") from None
    if ("cert" in section) != ("key" in section):
        raise CollectorConfigError("pit.cert and pit.key: give both or neither")
    if "cert" in section:
        out["cert"] = _path(section["cert"], "cert", base)
        out["key"] = _path(section["key"], "key", base)
    elif not is_loopback(host):
        raise CollectorConfigError(
            f"pit.http: {host} is not loopback: PINs and sessions would cross the network in "
            "clear; give pit.cert and pit.key (TLS), or serve on 127.0.0.1")
    for key, default in (("idle", 900), ("session", 43200)):
        value = section.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise CollectorConfigError(f"pit.{key}: must be a number of seconds")
        out[key] = float(value)
    if not 60 <= out["idle"] <= out["session"]:
        raise CollectorConfigError("pit.idle and pit.session: need 60 <= idle <= session")
    return out


def _login(floor: dict[str, Any], section: dict[str, Any], base: Path | None) -> FloorConfig:
    """The page's login: the broker's address, CA and prefix from `[floor]`, who it is from
    `[pit]`. A wrong login setting is named as `pit.<key>`."""
    merged = {k: v for k, v in floor.items() if k not in LOGIN}
    merged.update({k: section[k] for k in LOGIN if k in section})
    merged.setdefault("username", DEFAULT_PIT)
    try:
        broker = parse_floor(merged, base)
    except FloorConfigError as e:
        said = str(e)
        if said.split(":", 1)[0].removeprefix("floor.") not in LOGIN:
            raise CollectorConfigError(said) from e
        said = "pit." + said.removeprefix("floor.").replace("(or floor.password,",
                                                            "(or pit.password,")
        if said.startswith("pit.password_file: missing"):
            said += ("; the page's own broker login, made with scripts/floor-table-"
                     f"credentials {merged['username']} FILE")
        raise CollectorConfigError(said) from e
    assert broker is not None
    if broker.username == floor.get("username"):
        raise CollectorConfigError(
            f"pit.username: {broker.username!r} is the collector's login (floor.username); "
            "the page has its own, which the broker lets read only the tables' public topics")
    return broker
