"""A terse notation for what a shoe sends, so a test or a corpus case reads like the deal.

Tokens, separated by white space (`#` starts a comment to the end of the line):
- a card: its code (`9C`, `TD`, `??`), then `!` if it came out face up, then `@P` or
  `@B` for a table position sensor's destination: `9C`, `5S!`, `7D@P`, `??!`;
- a button: `DEAL`, `CARTE`, `RESTE`, `STAND`, `VOID`, `OK`, or with its argument after
  a colon: `SHOE`, `SHOE:8`, `TABLE:B`, `FREE:P`, `EXPOSE:P1`, `ENTER:9C`, `KEY:4711`;
- `CUT`, `EMPTY`, `HB:42`, `FAULT:JAM:ON`, `HELLO:7f3a9c01`.
"""

from __future__ import annotations

import re

from drivers.messages import BUTTONS, Button, Card, Cut, Empty, Fault, Heartbeat, Hello, Message

_CARD = re.compile(r"^(\?\?|[A2-9TJQK][CDHS])(!?)(?:@([PB]))?$")


def parse_token(token: str) -> Message:
    card = _CARD.match(token)
    if card:
        code, up, dest = card.groups()
        return Card(code, "U" if up else "D", dest)
    name, _, arg = token.partition(":")
    if name in BUTTONS:
        return Button(name, arg or None)
    if name == "CUT":
        return Cut()
    if name == "EMPTY":
        return Empty()
    if name == "HB":
        return Heartbeat(int(arg))
    if name == "FAULT":
        code, _, state = arg.partition(":")
        return Fault(code, state == "ON")
    if name == "HELLO":
        return Hello(1, "SIM-SHOE", "SIM0001", "0.1.0", arg)
    raise ValueError(f"not a shoe script token: {token!r}")


def parse_script(text: str) -> list[Message]:
    tokens = []
    for line in text.splitlines():
        tokens.extend(line.split("#", 1)[0].split())
    return [parse_token(t) for t in tokens]
