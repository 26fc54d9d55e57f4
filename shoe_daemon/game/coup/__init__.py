"""The coup machine: `CoupMachine` decides each coup from the shoe's messages.

See shoe_daemon/game/coup/machine.py for the machine and docs/coup-machine.md.
"""

from shoe_daemon.game.coup.core import Coup, Hold, Shoe
from shoe_daemon.game.coup.machine import CoupMachine
from shoe_daemon.game.coup.public import (
    CoupState,
    HoldState,
    LatchState,
    ReportState,
    ShoeState,
    TableState,
)
from shoe_daemon.game.coup.states import BETWEEN_COUPS, IN_COUP, STATES

__all__ = [
    "BETWEEN_COUPS",
    "IN_COUP",
    "STATES",
    "Coup",
    "CoupMachine",
    "CoupState",
    "Hold",
    "HoldState",
    "LatchState",
    "ReportState",
    "Shoe",
    "ShoeState",
    "TableState",
]
