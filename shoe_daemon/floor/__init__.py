"""The table's link to the floor: its ledger to the floor's MQTT broker (docs/floor.md)."""

from shoe_daemon.floor.config import FloorConfig, FloorConfigError, parse_floor
from shoe_daemon.floor.cursor import acked_index, backlog
from shoe_daemon.floor.link import FloorLink

__all__ = ["FloorConfig", "FloorConfigError", "FloorLink", "acked_index", "backlog", "parse_floor"]
