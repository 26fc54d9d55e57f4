"""The coup machine's states, and the groups of them the parts and the service ask about.

- `no_shoe`: nothing loaded yet (`BTN,SHOE` not seen).
- `waiting_for_stakes`: a shoe is loaded, no coup dealt yet.
- `dealing`: `BTN,DEAL` pressed, the four cards punter, banker, punter, banker coming.
- `punter_to_declare`: the punter has a choice (CARTE or RESTE).
- `punter_drawing`: the punter draws; his third card is awaited.
- `banker_to_play`: the banker draws or, where he has a choice, may STAND.
- `decided`: the coup's result is out; waiting for the next DEAL.
- `on_hold`: an irregularity stops play until the croupier or a supervisor acts.

The moves between them are the transition table in `shoe_daemon.game.coup.machine`.
"""

from __future__ import annotations

STATES = [
    "no_shoe",
    "waiting_for_stakes",
    "dealing",
    "punter_to_declare",
    "punter_drawing",
    "banker_to_play",
    "decided",
    "on_hold",
]
IN_COUP = ("dealing", "punter_to_declare", "punter_drawing", "banker_to_play")
BETWEEN_COUPS = ("no_shoe", "waiting_for_stakes", "decided")  # a DEAL or SHOE may come
NOT_HELD = [state for state in STATES if state != "on_hold"]
