"""Shoe Line Protocol messages (docs/shoe-line-protocol.md): one class per frame TYPE.

Every constructor validates, so a Message object is always exactly what the spec
allows: the encoder can trust it and a decoded frame can be re-encoded to the same
bytes. `parse` is the one way wire text becomes a Message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar, TypeAlias

PROTO_VERSION = 1
SEQ_MODULUS = 65536
"""Sequence numbers (frame seq and the ACK field) run 0..65535, then wrap to 0."""

RANKS = "A23456789TJQK"
SUITS = "CDHS"
UNREADABLE = "??"
READABLE_CARDS = frozenset(rank + suit for rank in RANKS for suit in SUITS)
CARD_CODES = READABLE_CARDS | {UNREADABLE}
FACE_DOWN = "D"
FACE_UP = "U"
FACES = frozenset({FACE_DOWN, FACE_UP})
PUNTER = "P"
BANKER = "B"
SIDES = frozenset({PUNTER, BANKER})

BTN_SHOE = "SHOE"
BTN_DEAL = "DEAL"
BTN_CARTE = "CARTE"
BTN_RESTE = "RESTE"
BTN_STAND = "STAND"
BTN_TABLE = "TABLE"
BTN_FREE = "FREE"  # since protocol 1.1
BTN_EXPOSE = "EXPOSE"
BTN_ENTER = "ENTER"
BTN_KEY = "KEY"
BTN_VOID = "VOID"
BTN_OK = "OK"
BUTTONS = frozenset(
    {
        BTN_SHOE,
        BTN_DEAL,
        BTN_CARTE,
        BTN_RESTE,
        BTN_STAND,
        BTN_TABLE,
        BTN_FREE,
        BTN_EXPOSE,
        BTN_ENTER,
        BTN_KEY,
        BTN_VOID,
        BTN_OK,
    }
)
BUTTONS_WITHOUT_ARG = frozenset({BTN_DEAL, BTN_CARTE, BTN_RESTE, BTN_STAND, BTN_VOID, BTN_OK})
EXPOSABLE = frozenset({"P1", "P2", "B1", "B2"})
MAX_DECKS = 16

FAULT_CODES = frozenset({"JAM", "READER", "COVER_OPEN", "POWER_LOW"})
LAMP_COLOURS = frozenset({"GREEN", "AMBER", "RED"})

_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_FIELD_FORBIDDEN = frozenset(",$*")


class MessageError(ValueError):
    """A message that is not exactly what docs/shoe-line-protocol.md allows."""


def _fail(type_: str, what: str, value: object) -> MessageError:
    return MessageError(f"{type_}: {what}, got {value!r}")


def _choice(type_: str, what: str, value: object, allowed: frozenset[str]) -> None:
    """Check membership without tripping over unhashable or non-str values."""
    if not isinstance(value, str) or value not in allowed:
        raise _fail(type_, f"{what} must be one of {sorted(allowed)}", value)


def _text(type_: str, what: str, value: object) -> None:
    """Free text must survive the body: printable ASCII, non-empty, no `,` `$` `*`."""
    if (
        not isinstance(value, str)
        or not value
        or not value.isascii()
        or not value.isprintable()
        or not _FIELD_FORBIDDEN.isdisjoint(value)
    ):
        raise _fail(type_, f"{what} must be non-empty printable ASCII without , $ *", value)


def _natural(type_: str, what: str, value: object, limit: int | None = None) -> None:
    """Integers are ints, not bools, and never negative."""
    if type(value) is not int or value < 0 or (limit is not None and value >= limit):
        bound = f" below {limit}" if limit is not None else ""
        raise _fail(type_, f"{what} must be a non-negative integer{bound}", value)


def decimal(text: str) -> int | None:
    """The value of a canonical decimal (ASCII digits, no sign, no leading zero), else None.

    One spelling per number keeps decode -> encode byte-identical.
    """
    if text.isascii() and text.isdigit() and (text[0] != "0" or len(text) == 1):
        return int(text)
    return None


def _wire_int(type_: str, what: str, text: str) -> int:
    value = decimal(text)
    if value is None:
        raise _fail(type_, f"{what} must be a decimal integer", text)
    return value


def _arity(type_: str, fields: Sequence[str], low: int, high: int | None = None) -> None:
    high = low if high is None else high
    if not low <= len(fields) <= high:
        count = str(low) if low == high else f"{low} to {high}"
        raise MessageError(f"{type_}: expected {count} fields, got {len(fields)}: {list(fields)!r}")


@dataclass(frozen=True, slots=True)
class Hello:
    """First frame after power-up or reconnect; a new boot_id restarts the numbering."""

    TYPE: ClassVar[str] = "HELLO"
    proto: int
    model: str
    serial: str
    firmware: str
    boot_id: str

    def __post_init__(self) -> None:
        if type(self.proto) is not int or self.proto != PROTO_VERSION:
            raise _fail(self.TYPE, f"proto must be {PROTO_VERSION}", self.proto)
        _text(self.TYPE, "model", self.model)
        _text(self.TYPE, "serial", self.serial)
        _text(self.TYPE, "firmware", self.firmware)
        boot_id = self.boot_id
        if not isinstance(boot_id, str) or len(boot_id) != 8 or not _HEX_DIGITS.issuperset(boot_id):
            raise _fail(self.TYPE, "boot_id must be 8 hex digits", boot_id)

    def fields(self) -> tuple[str, ...]:
        return (str(self.proto), self.model, self.serial, self.firmware, self.boot_id)

    @classmethod
    def from_fields(cls, fields: Sequence[str]) -> Hello:
        _arity(cls.TYPE, fields, 5)
        proto, model, serial, firmware, boot_id = fields
        return cls(_wire_int(cls.TYPE, "proto", proto), model, serial, firmware, boot_id)


@dataclass(frozen=True, slots=True)
class Card:
    """A card left the shoe; `??` when the reader could not read it."""

    TYPE: ClassVar[str] = "CARD"
    code: str
    face: str
    dest: str | None = None

    def __post_init__(self) -> None:
        _choice(self.TYPE, "code", self.code, CARD_CODES)
        _choice(self.TYPE, "face", self.face, FACES)
        if self.dest is not None:
            _choice(self.TYPE, "dest", self.dest, SIDES)

    def fields(self) -> tuple[str, ...]:
        if self.dest is None:
            return (self.code, self.face)
        return (self.code, self.face, self.dest)

    @classmethod
    def from_fields(cls, fields: Sequence[str]) -> Card:
        _arity(cls.TYPE, fields, 2, 3)
        return cls(fields[0], fields[1], fields[2] if len(fields) == 3 else None)


@dataclass(frozen=True, slots=True)
class Cut:
    """The cut card passed the reader."""

    TYPE: ClassVar[str] = "CUT"

    def fields(self) -> tuple[str, ...]:
        return ()

    @classmethod
    def from_fields(cls, fields: Sequence[str]) -> Cut:
        _arity(cls.TYPE, fields, 0)
        return cls()


@dataclass(frozen=True, slots=True)
class Empty:
    """The empty sensor reports no cards left."""

    TYPE: ClassVar[str] = "EMPTY"

    def fields(self) -> tuple[str, ...]:
        return ()

    @classmethod
    def from_fields(cls, fields: Sequence[str]) -> Empty:
        _arity(cls.TYPE, fields, 0)
        return cls()


@dataclass(frozen=True, slots=True)
class Button:
    """A croupier button; `arg` is kept as wire text so it round-trips unchanged."""

    TYPE: ClassVar[str] = "BTN"
    name: str
    arg: str | None = None

    def __post_init__(self) -> None:
        name, arg = self.name, self.arg
        _choice(self.TYPE, "name", name, BUTTONS)
        if name in BUTTONS_WITHOUT_ARG:
            if arg is not None:
                raise _fail(self.TYPE, f"{name} takes no argument", arg)
        elif name == BTN_SHOE:
            if arg is not None:
                decks = decimal(arg) if isinstance(arg, str) else None
                if decks is None or not 1 <= decks <= MAX_DECKS:
                    raise _fail(self.TYPE, f"SHOE decks must be 1 to {MAX_DECKS}", arg)
        elif name in (BTN_TABLE, BTN_FREE):
            _choice(self.TYPE, f"{name} side", arg, SIDES)
        elif name == BTN_EXPOSE:
            _choice(self.TYPE, "EXPOSE card", arg, EXPOSABLE)
        elif name == BTN_ENTER:
            _choice(self.TYPE, "ENTER card code", arg, READABLE_CARDS)
        else:
            _text(self.TYPE, "KEY badge id", arg)

    def fields(self) -> tuple[str, ...]:
        if self.arg is None:
            return (self.name,)
        return (self.name, self.arg)

    @classmethod
    def from_fields(cls, fields: Sequence[str]) -> Button:
        _arity(cls.TYPE, fields, 1, 2)
        return cls(fields[0], fields[1] if len(fields) == 2 else None)


@dataclass(frozen=True, slots=True)
class Fault:
    """A hardware condition raised (`on`) or cleared."""

    TYPE: ClassVar[str] = "FAULT"
    code: str
    on: bool

    def __post_init__(self) -> None:
        _choice(self.TYPE, "code", self.code, FAULT_CODES)
        if type(self.on) is not bool:
            raise _fail(self.TYPE, "on must be a bool", self.on)

    def fields(self) -> tuple[str, ...]:
        return (self.code, "ON" if self.on else "OFF")

    @classmethod
    def from_fields(cls, fields: Sequence[str]) -> Fault:
        _arity(cls.TYPE, fields, 2)
        code, state = fields
        if state not in ("ON", "OFF"):
            raise _fail(cls.TYPE, "state must be ON or OFF", state)
        return cls(code, state == "ON")


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Sent at least once a second while nothing else is, so silence means a dead line."""

    TYPE: ClassVar[str] = "HB"
    uptime_s: int

    def __post_init__(self) -> None:
        _natural(self.TYPE, "uptime_s", self.uptime_s)

    def fields(self) -> tuple[str, ...]:
        return (str(self.uptime_s),)

    @classmethod
    def from_fields(cls, fields: Sequence[str]) -> Heartbeat:
        _arity(cls.TYPE, fields, 1)
        return cls(_wire_int(cls.TYPE, "uptime_s", fields[0]))


@dataclass(frozen=True, slots=True)
class Ack:
    """Host to shoe: cumulative acknowledgement up to and including `seq`."""

    TYPE: ClassVar[str] = "ACK"
    seq: int

    def __post_init__(self) -> None:
        _natural(self.TYPE, "seq", self.seq, SEQ_MODULUS)

    def fields(self) -> tuple[str, ...]:
        return (str(self.seq),)

    @classmethod
    def from_fields(cls, fields: Sequence[str]) -> Ack:
        _arity(cls.TYPE, fields, 1)
        return cls(_wire_int(cls.TYPE, "seq", fields[0]))


@dataclass(frozen=True, slots=True)
class Lamp:
    """Host to shoe: the status lamp (ready, waiting for a declaration, on hold)."""

    TYPE: ClassVar[str] = "LAMP"
    colour: str

    def __post_init__(self) -> None:
        _choice(self.TYPE, "colour", self.colour, LAMP_COLOURS)

    def fields(self) -> tuple[str, ...]:
        return (self.colour,)

    @classmethod
    def from_fields(cls, fields: Sequence[str]) -> Lamp:
        _arity(cls.TYPE, fields, 1)
        return cls(fields[0])


Message: TypeAlias = Hello | Card | Cut | Empty | Button | Fault | Heartbeat | Ack | Lamp

SHOE_TO_HOST: Mapping[str, type[Message]] = MappingProxyType(
    {cls.TYPE: cls for cls in (Hello, Card, Cut, Empty, Button, Fault, Heartbeat)}
)
HOST_TO_SHOE: Mapping[str, type[Message]] = MappingProxyType(
    {cls.TYPE: cls for cls in (Ack, Lamp)}
)


def parse(
    type_: str, fields: Sequence[str], registry: Mapping[str, type[Message]] = SHOE_TO_HOST
) -> Message:
    """Build the message for one direction; anything not exactly valid is a MessageError."""
    cls = registry.get(type_)
    if cls is None:
        raise MessageError(f"unknown message type {type_!r} for this direction")
    return cls.from_fields(fields)
