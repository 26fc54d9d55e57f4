"""A shoe frame as the audit ledger records it, and what the ledger's readers ask of one.

The ledger stores each accepted frame as `{"seq", "type", "fields"}` (JSON). Everything that
reads those bodies back (the daemon's rebuild, `audit prune`, the ledger's own carry-over)
asks the same few questions; the protocol's answers live here, beside the message types.
"""

from __future__ import annotations

from typing import Any

from drivers.messages import BTN_SHOE, SEQ_MODULUS, SHOE_TO_HOST, Message, parse

FrameBody = dict[str, Any]


def frame_body(seq: int, message: Message) -> FrameBody:
    """The ledger's record of one accepted frame."""
    return {"seq": seq, "type": message.TYPE, "fields": list(message.fields())}


def frame_message(body: FrameBody) -> Message:
    """The message a recorded frame carried, validated as the decoder would."""
    return parse(body["type"], body["fields"], SHOE_TO_HOST)


def opens_shoe(body: FrameBody) -> bool:
    """`BTN,SHOE`: a freshly shuffled shoe was loaded."""
    return body["type"] == "BTN" and body["fields"][:1] == [BTN_SHOE]


def restore_point(body: FrameBody) -> bool:
    """A `BTN,SHOE` that started its shoe when it came, so that the game can be rebuilt from
    it alone. The daemon records `started: false` on one that did not (it waited behind a
    hold or the croupier's console's latch, or came inside a coup); older records never say
    so, and every `BTN,SHOE` of theirs counts as before."""
    return opens_shoe(body) and body.get("started", True) is not False


def hello_boot_id(body: FrameBody) -> str | None:
    """The boot id a `HELLO` announces (its fifth field), or None for any other frame."""
    return body["fields"][4] if body["type"] == "HELLO" else None


def next_seq(seq: int) -> int:
    """The number after `seq`: 65535 wraps to 0."""
    return (seq + 1) % SEQ_MODULUS
