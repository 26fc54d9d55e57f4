"""The page's settings: a `[pit]` table in the collector's own floor.toml, which also gives
the broker login (`[floor]`) and the store (`[collector] database`) the page reads.

```toml
[pit]
http = "127.0.0.1:8090"   # HOST:PORT; port 0 takes any free port
client_id = "pit-1"       # the page's broker client id (the collector's login, its own id)
poll = 1.0                # s between two readings of the store
behind_grace = 5.0        # s a table's change may wait for its records before "behind"
```
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shoe_floor.config import CollectorConfig, CollectorConfigError, parse


@dataclass(frozen=True)
class PitConfig:
    floor: CollectorConfig
    host: str = "127.0.0.1"
    port: int = 8090
    client_id: str = "pit"
    poll: float = 1.0
    behind_grace: float = 5.0


_KEYS = {"http", "client_id", "poll", "behind_grace"}


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
    floor = parse(data, base)
    section = data.get("pit", {})
    if not isinstance(section, dict):
        raise CollectorConfigError("pit: must be a table ([pit])")
    unknown = sorted(set(section) - _KEYS)
    if unknown:
        raise CollectorConfigError(f"pit.{unknown[0]}: unknown setting "
                                   f"(known: {', '.join(sorted(_KEYS))})")
    address = http if http is not None else section.get("http", "127.0.0.1:8090")
    if not isinstance(address, str):
        raise CollectorConfigError("pit.http: must be a string HOST:PORT")
    host, port = parse_http(address)
    client_id = section.get("client_id", f"{floor.client_id}-pit")
    if not isinstance(client_id, str) or not client_id or set(client_id) & set("/+#"):
        raise CollectorConfigError("pit.client_id: must be a name without / + #")
    if client_id == floor.client_id:
        raise CollectorConfigError("pit.client_id: must differ from collector.client_id (the "
                                   "broker would end one session for the other)")
    values: dict[str, float] = {}
    for key, default in (("poll", 1.0), ("behind_grace", 5.0)):
        value = section.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise CollectorConfigError(f"pit.{key}: must be a number of seconds > 0")
        values[key] = float(value)
    return PitConfig(floor, host, port, client_id, values["poll"], values["behind_grace"])
