"""What the console's records do to the game: the shoe's KEY taken for a person, and the
actions. One answer for every place that plays records: the live table, its restore from
the ledger, the recall, and `shoe-daemon replay --console`.

A `BTN,KEY` is decided when it comes, with the console on or off (the daemon's people
file; with nobody configured no KEY is taken): the badge is looked up among the
people (people.py) and the frame is recorded with the person's id it was taken for in place
of the badge (`fields[1]`, `-` for an unknown badge) and the decision beside it (`badge`):
`{"person", "role", "taken", "why"}`. Only a configured supervisor's badge is taken; any
other KEY reaches the game not at all (the hold stays). Playing the record again follows the
recorded decision, never today's people file, so a later change of the people cannot
change what an old KEY meant.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drivers.messages import BTN_KEY, Button, Message
from drivers.records import frame_message
from shoe_daemon.console.actions import ACTIONS, Action, Lines, Table
from shoe_daemon.console.people import Role, Roster

UNKNOWN_BADGE = "-"
NO_SUPERVISOR = "no supervisor is configured at this table (shoe-daemon people add)"


def is_key(message: Message) -> bool:
    return isinstance(message, Button) and message.name == BTN_KEY


def decide_key(roster: Roster, badge: str) -> dict[str, Any]:
    """What a KEY's badge is taken for: a configured supervisor's, or refused (and why)."""
    person = roster.by_badge(badge)
    if person is None:
        nobody = not any(p.role is Role.SUPERVISOR for p in roster.people)
        return {"person": None, "role": None, "taken": False,
                "why": NO_SUPERVISOR if nobody else
                "not the badge of anyone configured at this table"}
    if person.role is not Role.SUPERVISOR:
        return {"person": person.id, "role": person.role.value, "taken": False,
                "why": f"{person.id} is a {person.role.value}, not a supervisor"}
    return {"person": person.id, "role": person.role.value, "taken": True, "why": None}


def key_record(body: dict[str, Any], decision: Mapping[str, Any]) -> dict[str, Any]:
    """A KEY frame's record: the person's id where the badge was, and the decision."""
    fields = [BTN_KEY, decision["person"] or UNKNOWN_BADGE]
    return {**body, "fields": fields, "badge": dict(decision)}


def game_message(message: Message, body: Mapping[str, Any]) -> Message | None:
    """What the game plays for a recorded frame: a decided KEY as the person it was taken
    for, or nothing if it was refused; any other frame as it came."""
    decision = body.get("badge")
    if decision is None or not is_key(message):
        return message
    return Button(BTN_KEY, decision["person"]) if decision["taken"] else None


def play_frame(machine: Any, body: Mapping[str, Any]) -> Lines:
    message = game_message(frame_message(dict(body)), body)
    return machine.handle(message) if message is not None else []


def play_action(table: Table, body: Mapping[str, Any]) -> Lines:
    """A recorded action applied again: its check passed when it was taken."""
    action = Action.of_record(body)
    return ACTIONS[action.kind].apply(table, action)
