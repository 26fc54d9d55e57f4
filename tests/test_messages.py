"""Message validation and parsing against the tables of docs/shoe-line-protocol.md."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.messages import (
    BUTTONS,
    BUTTONS_WITHOUT_ARG,
    CARD_CODES,
    EXPOSABLE,
    FAULT_CODES,
    HOST_TO_SHOE,
    LAMP_COLOURS,
    READABLE_CARDS,
    SHOE_TO_HOST,
    Ack,
    Button,
    Card,
    Cut,
    Empty,
    Fault,
    Heartbeat,
    Hello,
    Lamp,
    Message,
    MessageError,
    parse,
)

# Strategies shared with test_framing and test_delivery.
field_text = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters=",$*"),
    min_size=1,
    max_size=16,
)
boot_ids = st.text(alphabet="0123456789abcdefABCDEF", min_size=8, max_size=8)
hellos = st.builds(Hello, st.just(1), field_text, field_text, field_text, boot_ids)
cards = st.builds(
    Card,
    st.sampled_from(sorted(CARD_CODES)),
    st.sampled_from(["D", "U"]),
    st.sampled_from([None, "P", "B"]),
)
buttons = st.one_of(
    st.builds(Button, st.sampled_from(sorted(BUTTONS_WITHOUT_ARG))),
    st.builds(Button, st.just("SHOE"), st.none() | st.integers(1, 16).map(str)),
    st.builds(Button, st.sampled_from(["TABLE", "FREE"]), st.sampled_from(["P", "B"])),
    st.builds(Button, st.just("EXPOSE"), st.sampled_from(sorted(EXPOSABLE))),
    st.builds(Button, st.just("ENTER"), st.sampled_from(sorted(READABLE_CARDS))),
    st.builds(Button, st.just("KEY"), field_text),
)
shoe_events: st.SearchStrategy[Message] = st.one_of(
    cards,
    st.just(Cut()),
    st.just(Empty()),
    buttons,
    st.builds(Fault, st.sampled_from(sorted(FAULT_CODES)), st.booleans()),
    st.builds(Heartbeat, st.integers(0, 10**12)),
)
shoe_messages: st.SearchStrategy[Message] = hellos | shoe_events
host_messages: st.SearchStrategy[Message] = st.one_of(
    st.builds(Ack, st.integers(0, 65535)),
    st.builds(Lamp, st.sampled_from(sorted(LAMP_COLOURS))),
)


@given(shoe_messages)
def test_shoe_messages_round_trip_through_fields(message: Message) -> None:
    assert parse(message.TYPE, message.fields()) == message


@given(host_messages)
def test_host_messages_round_trip_through_fields(message: Message) -> None:
    assert parse(message.TYPE, message.fields(), HOST_TO_SHOE) == message


def test_registries_split_by_direction() -> None:
    assert set(SHOE_TO_HOST) == {"HELLO", "CARD", "CUT", "EMPTY", "BTN", "FAULT", "HB"}
    assert set(HOST_TO_SHOE) == {"ACK", "LAMP"}
    for type_, cls in {**SHOE_TO_HOST, **HOST_TO_SHOE}.items():
        assert type_ == cls.TYPE


def test_button_names_follow_the_spec_table() -> None:
    table = {"SHOE", "DEAL", "CARTE", "RESTE", "STAND", "TABLE", "FREE", "EXPOSE", "ENTER", "KEY",
             "VOID"}
    assert table | {"OK"} == BUTTONS
    assert BUTTONS_WITHOUT_ARG < BUTTONS


@pytest.mark.parametrize(
    ("type_", "fields", "expected"),
    [
        (
            "HELLO",
            ["1", "ACME-S8", "SN0042", "2.3.1", "7F3A9C01"],
            Hello(1, "ACME-S8", "SN0042", "2.3.1", "7F3A9C01"),
        ),
        ("CARD", ["AS", "D"], Card("AS", "D")),
        ("CARD", ["??", "U", "B"], Card("??", "U", "B")),
        ("CUT", [], Cut()),
        ("EMPTY", [], Empty()),
        ("BTN", ["SHOE", "8"], Button("SHOE", "8")),
        ("BTN", ["SHOE", "16"], Button("SHOE", "16")),
        ("BTN", ["TABLE", "B"], Button("TABLE", "B")),
        ("BTN", ["FREE", "P"], Button("FREE", "P")),  # since 1.1
        ("BTN", ["FREE", "B"], Button("FREE", "B")),
        ("BTN", ["EXPOSE", "P2"], Button("EXPOSE", "P2")),
        ("BTN", ["ENTER", "QH"], Button("ENTER", "QH")),
        ("BTN", ["KEY", "badge 0042"], Button("KEY", "badge 0042")),
        ("BTN", ["VOID"], Button("VOID")),
        ("BTN", ["OK"], Button("OK")),
        ("FAULT", ["COVER_OPEN", "OFF"], Fault("COVER_OPEN", False)),
        ("FAULT", ["POWER_LOW", "ON"], Fault("POWER_LOW", True)),
        ("HB", ["0"], Heartbeat(0)),
    ],
)
def test_parse_valid(type_: str, fields: list[str], expected: Message) -> None:
    assert parse(type_, fields) == expected


def test_fault_wire_state() -> None:
    assert Fault("JAM", True).fields() == ("JAM", "ON")
    assert Fault("READER", False).fields() == ("READER", "OFF")


def test_card_fields_omit_missing_dest() -> None:
    assert Card("9C", "D").fields() == ("9C", "D")
    assert Card("9C", "D", "P").fields() == ("9C", "D", "P")


@pytest.mark.parametrize(
    ("type_", "fields"),
    [
        ("NOPE", []),
        ("card", ["9C", "D"]),
        ("ACK", ["1"]),
        ("LAMP", ["RED"]),
        ("HELLO", ["2", "M", "S", "F", "7f3a9c01"]),
        ("HELLO", ["01", "M", "S", "F", "7f3a9c01"]),
        ("HELLO", ["1", "M", "S", "F", "7f3a9c0"]),
        ("HELLO", ["1", "M", "S", "F", "7f3a9c0g"]),
        ("HELLO", ["1", "M", "S", "F", "7f3a9c011"]),
        ("HELLO", ["1", "", "S", "F", "7f3a9c01"]),
        ("HELLO", ["1", "M", "S", "7f3a9c01"]),
        ("CARD", ["9C"]),
        ("CARD", ["9C", "D", "P", "X"]),
        ("CARD", ["1C", "D"]),
        ("CARD", ["10C", "D"]),
        ("CARD", ["9c", "D"]),
        ("CARD", ["9X", "D"]),
        ("CARD", ["?", "D"]),
        ("CARD", ["9C", "d"]),
        ("CARD", ["9C", "X"]),
        ("CARD", ["9C", "D", "X"]),
        ("CARD", ["9C", "D", ""]),
        ("CUT", [""]),
        ("EMPTY", ["1"]),
        ("BTN", []),
        ("BTN", ["PUSH"]),
        ("BTN", ["deal"]),
        ("BTN", ["DEAL", "1"]),
        ("BTN", ["OK", ""]),
        ("BTN", ["SHOE", ""]),
        ("BTN", ["SHOE", "0"]),
        ("BTN", ["SHOE", "17"]),
        ("BTN", ["SHOE", "08"]),
        ("BTN", ["SHOE", "+8"]),
        ("BTN", ["SHOE", " 8"]),
        ("BTN", ["TABLE"]),
        ("BTN", ["TABLE", "X"]),
        ("BTN", ["FREE"]),
        ("BTN", ["FREE", "p"]),
        ("BTN", ["FREE", "PB"]),
        ("BTN", ["FREE", "P", "B"]),
        ("BTN", ["EXPOSE"]),
        ("BTN", ["EXPOSE", "P3"]),
        ("BTN", ["ENTER"]),
        ("BTN", ["ENTER", "??"]),
        ("BTN", ["ENTER", "ZZ"]),
        ("BTN", ["KEY"]),
        ("BTN", ["KEY", ""]),
        ("BTN", ["SHOE", "8", "9"]),
        ("FAULT", ["JAM"]),
        ("FAULT", ["JAM", "on"]),
        ("FAULT", ["JAM", "1"]),
        ("FAULT", ["FIRE", "ON"]),
        ("HB", []),
        ("HB", ["-1"]),
        ("HB", ["1.5"]),
        ("HB", ["007"]),
        ("HB", ["١٢"]),
        ("HB", ["1", "2"]),
    ],
)
def test_parse_rejects(type_: str, fields: list[str]) -> None:
    with pytest.raises(MessageError):
        parse(type_, fields)


@pytest.mark.parametrize(
    ("type_", "fields"),
    [
        ("CARD", ["9C", "D"]),
        ("ACK", []),
        ("ACK", ["65536"]),
        ("ACK", ["-1"]),
        ("ACK", ["1", "2"]),
        ("LAMP", ["BLUE"]),
        ("LAMP", ["green"]),
    ],
)
def test_parse_rejects_host_to_shoe(type_: str, fields: list[str]) -> None:
    with pytest.raises(MessageError):
        parse(type_, fields, HOST_TO_SHOE)


@pytest.mark.parametrize(
    "build",
    [
        lambda: Hello(True, "M", "S", "F", "7f3a9c01"),
        lambda: Hello(1, "M,N", "S", "F", "7f3a9c01"),
        lambda: Hello(1, "M", "S$", "F", "7f3a9c01"),
        lambda: Hello(1, "M", "S", "F*", "7f3a9c01"),
        lambda: Hello(1, "M\t", "S", "F", "7f3a9c01"),
        lambda: Hello(1, "Mé", "S", "F", "7f3a9c01"),
        lambda: Card(["9C"], "D"),  # type: ignore[arg-type]
        lambda: Button("KEY", "a,b"),
        lambda: Button("SHOE", 8),  # type: ignore[arg-type]
        lambda: Fault("JAM", 1),  # type: ignore[arg-type]
        lambda: Heartbeat(-1),
        lambda: Heartbeat(True),
        lambda: Heartbeat("5"),  # type: ignore[arg-type]
        lambda: Ack(65536),
        lambda: Lamp("OFF"),
    ],
)
def test_constructors_validate(build: object) -> None:
    with pytest.raises(MessageError):
        build()  # type: ignore[operator]


def test_message_error_is_value_error_with_reason() -> None:
    with pytest.raises(ValueError, match="face"):
        parse("CARD", ["9C", "X"])
