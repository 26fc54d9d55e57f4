"""Latches: with the croupier's console on, every hold and every shoe fault waits for the
console's resolution, signed by a person with a reason.

The shoe's own ways out of a hold stay exactly what they are (holds.py): `OK`, `ENTER`,
`CARTE`/`RESTE`, `OK`/`STAND`, a supervisor's `KEY` then `OK` or `VOID` lift the hold and
the coup goes on as they say. What the console adds is a latch that outlives the hold:

- a hold opens a latch; the shoe's way out lifts the hold and marks the latch lifted (how,
  by whom), and the latch stays open until the console resolves it;
- the console may instead take the way out itself (the same buttons, `ENTER` with the card
  keyed in on the screen, a supervisor's `OK` for a supervisor's hold), lifting the hold
  and closing the latch in one resolution; its supervisor's `void` ends any hold;
- `FAULT,<code>,ON` opens a latch for that fault (`JAM`, `READER`, `COVER_OPEN`,
  `POWER_LOW`); `OFF` marks it cleared. A croupier resolves it once the shoe reports it
  cleared; while the shoe still reports it only a supervisor may (an override, with his
  reason: a sensor that sticks must not stop the table for good).

While any latch is open the lamp is red and no coup may start: a `DEAL` or `SHOE` between
coups waits, with everything the shoe sends after it, and is played in order once the last
latch is resolved. The coup in play may still be finished (its hold lifted on the shoe).
Faults never wait: a `FAULT,...,OFF` must be seen while play waits. Without the console a
machine opens no latches and plays exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from drivers.messages import Button, Card, Fault, Message
from shoe_daemon.game.coup.core import Core, Latch
from shoe_daemon.game.coup.holds import Holds
from shoe_daemon.game.coup.states import BETWEEN_COUPS

#: What each shoe fault cites and what the croupier is told (shoe-line-protocol, FAULT).
FAULTS: Mapping[str, tuple[str, str]] = MappingProxyType({
    "JAM": ("shoe-line-protocol FAULT JAM",
            "The shoe reports a jam: clear it. Once the shoe reports it cleared, resolve it "
            "on the console with what was done."),
    "READER": ("shoe-line-protocol FAULT READER",
               "The card reader reports a fault: check the shoe before the next coup, then "
               "resolve it on the console with what was done."),
    "COVER_OPEN": ("shoe-line-protocol FAULT COVER_OPEN",
                   "The shoe's cover is open: close it, check the shoe, then resolve it on "
                   "the console with what was found."),
    "POWER_LOW": ("shoe-line-protocol FAULT POWER_LOW",
                  "The shoe reports low power: restore it, then resolve it on the console."),
})
STARTS_A_COUP = ("SHOE", "DEAL")


class Latches:
    def __init__(self, core: Core, holds: Holds) -> None:
        self.core = core
        self.holds = holds

    # ---- what waits --------------------------------------------------------------------------

    def waits(self, message: Message) -> bool:
        """Whether a message must wait (play is not held): behind one that waits already, in
        order, or because it would start a coup while a latch is open. Faults never wait."""
        if isinstance(message, Fault):
            return False
        return bool(self.holds.queue) or self.blocks(message)

    def blocks(self, message: Message) -> bool:
        """A coup may not start now: a latch is open and this would start one."""
        return (bool(self.core.latches) and isinstance(message, Button)
                and message.name in STARTS_A_COUP and self.core.state in BETWEEN_COUPS)

    # ---- what opens and closes them ---------------------------------------------------------

    def fault(self, fault: Fault) -> None:
        """`FAULT,code,ON` opens (or re-arms) that fault's latch; `OFF` marks it cleared."""
        core = self.core
        key = f"fault-{fault.code}"
        latch = core.latches.get(key)
        if latch is None and fault.on:
            rule, action = FAULTS[fault.code]
            shoe, coup = core.where()
            latch = core.latches[key] = Latch(key, "fault", fault.code, rule, action, shoe, coup)
        if latch is not None:
            latch.on = fault.on

    def resolve(self, latch_id: str, by: str, way: str | None, card: str | None,
                route: Callable[[Card], None]) -> None:
        """The console's resolution of one latch, by `by`: with a way out while the machine
        still holds for it (the hold is lifted as that button would lift it), else a
        sign-off. ValueError, and nothing changed, if it cannot resolve it so."""
        core = self.core
        latch = core.latches.get(latch_id)
        if latch is None:
            raise ValueError(f"no open latch {latch_id!r}")
        hold = latch.hold
        if hold is not None:
            way_out = hold.way_out
            if way not in way_out.console_ways:
                raise ValueError(f"{latch.code} is lifted by {' or '.join(way_out.console_ways)}"
                                 f", not {way}")
            if hold is not core.held or core.state != "on_hold":
                raise ValueError(f"{latch_id} holds no play now")
            if way == "DISMISS":  # a report dismissed by the console's supervisor
                self.holds.dismiss(by)
            else:
                button = Button(way, card) if way == "ENTER" else Button(way)
                if way_out.supervised:
                    self.holds.supervisor = by
                if not self.holds.resolve(button, route, by=by):
                    raise ValueError(f"{way} does not lift {latch.code}")
        elif way is not None:
            raise ValueError(f"{latch_id} was lifted on the shoe already: resolve it without "
                             "a way out")
        del core.latches[latch_id]

    def close(self, latch_id: str | None) -> None:
        """A latch resolved by the console's void of its coup."""
        if latch_id is not None:
            self.core.latches.pop(latch_id, None)


def only_supervisor(latch: Latch) -> bool:
    """Whether only a supervisor may resolve this latch now: his own hold, or a fault the
    shoe still reports (an override)."""
    if latch.kind == "fault":
        return latch.on
    return latch.hold is not None and latch.hold.way_out.supervised


def console_ways(latch: Latch) -> tuple[str, ...]:
    """The ways out the console may take now: the hold's, while it holds play; else none
    (a sign-off)."""
    return latch.hold.way_out.console_ways if latch.hold is not None else ()
