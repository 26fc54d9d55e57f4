"""The table's link to the floor: its ledger to the floor's MQTT broker (docs/floor.md).

The settings are imported at once; the link (paho) and the cursor only when asked for, so
that reading a configuration (`check-config`, `status`, `audit prune`) does not load the MQTT
client it will not use.
"""

from __future__ import annotations

import importlib
from typing import Any

from shoe_daemon.floor.config import FloorConfig, FloorConfigError, parse_floor

_LAZY = {"FloorLink": "shoe_daemon.floor.link", "acked_index": "shoe_daemon.floor.cursor",
         "backlog": "shoe_daemon.floor.cursor"}

__all__ = ["FloorConfig", "FloorConfigError", "FloorLink", "acked_index", "backlog", "parse_floor"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
