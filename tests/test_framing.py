"""Framing against docs/shoe-line-protocol.md's examples, every drop reason, any byte stream."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from drivers.framing import (
    MAX_FRAME_BYTES,
    DecoderStats,
    Frame,
    FrameDecoder,
    SequenceNumbers,
    crc16,
    encode,
)
from drivers.messages import (
    HOST_TO_SHOE,
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
)
from tests.test_messages import host_messages, shoe_messages

# docs/shoe-line-protocol.md, "Examples", verbatim (each line ends in \r\n on the wire).
SPEC_EXAMPLES: list[tuple[bytes, int, Message]] = [
    (
        b"$0,HELLO,1,ACME-S8,SN0042,2.3.1,7f3a9c01*E8B3",
        0,
        Hello(1, "ACME-S8", "SN0042", "2.3.1", "7f3a9c01"),
    ),
    (b"$1,BTN,SHOE*5578", 1, Button("SHOE")),
    (b"$2,BTN,DEAL*5E4A", 2, Button("DEAL")),
    (b"$3,CARD,9C,D*FBAD", 3, Card("9C", "D")),
    (b"$4,CARD,TD,D*37D4", 4, Card("TD", "D")),
    (b"$5,CARD,4H,D*C32E", 5, Card("4H", "D")),
    (b"$6,CARD,KS,D*9EDD", 6, Card("KS", "D")),
    (b"$7,CUT*AD8C", 7, Cut()),
    (b"$8,CARD,??,D*AB29", 8, Card("??", "D")),
    (b"$9,CARD,5S,U*F7D1", 9, Card("5S", "U")),
    (b"$10,EMPTY*651B", 10, Empty()),
    (b"$11,HB,42*5360", 11, Heartbeat(42)),
    (b"$12,FAULT,JAM,ON*86E9", 12, Fault("JAM", True)),
    (b"$13,BTN,CARTE*06AC", 13, Button("CARTE")),
    (b"$14,BTN,RESTE*7CDB", 14, Button("RESTE")),
    (b"$15,BTN,STAND*B24A", 15, Button("STAND")),
    (b"$16,CARD,7D,D,P*B484", 16, Card("7D", "D", "P")),
]
EXAMPLE_FRAMES = [Frame(seq, message, line + b"\r\n") for line, seq, message in SPEC_EXAMPLES]
EXAMPLE_STREAM = b"".join(frame.raw for frame in EXAMPLE_FRAMES)


def raw_frame(body: bytes, crc: str | None = None) -> bytes:
    """A frame with any body, bypassing encode's checks, to feed the decoder bad input."""
    return b"$%s*%s\r\n" % (body, (crc or f"{crc16(body):04X}").encode())


def fits(seq: int, message: Message) -> bool:
    """Whether the frame for this message stays within MAX_FRAME_BYTES."""
    body = ",".join((str(seq), message.TYPE, *message.fields()))
    return len(body) + 8 <= MAX_FRAME_BYTES


def decode(data: bytes) -> tuple[list[Frame], DecoderStats]:
    decoder = FrameDecoder()
    return decoder.feed(data), decoder.stats


def test_crc_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize("expected", EXAMPLE_FRAMES, ids=lambda f: f.raw.decode().strip())
def test_spec_example_decodes_and_reencodes(expected: Frame) -> None:
    frames, stats = decode(expected.raw)
    assert frames == [expected]
    assert stats == DecoderStats(frames=1)
    assert encode(expected.seq, expected.message) == expected.raw


def test_spec_examples_as_one_stream() -> None:
    assert decode(EXAMPLE_STREAM) == (EXAMPLE_FRAMES, DecoderStats(frames=len(EXAMPLE_FRAMES)))


def test_spec_examples_byte_by_byte() -> None:
    decoder = FrameDecoder()
    frames: list[Frame] = []
    for i in range(len(EXAMPLE_STREAM)):
        frames += decoder.feed(EXAMPLE_STREAM[i : i + 1])
    assert frames == EXAMPLE_FRAMES
    assert decoder.stats == DecoderStats(frames=len(EXAMPLE_FRAMES))


def feed_in_chunks(data: bytes, cuts: list[int]) -> tuple[list[Frame], DecoderStats]:
    decoder = FrameDecoder()
    bounds = [0, *sorted(cut % (len(data) + 1) for cut in cuts), len(data)]
    frames = [f for lo, hi in itertools.pairwise(bounds) for f in decoder.feed(data[lo:hi])]
    return frames, decoder.stats


@given(st.lists(st.integers(min_value=0), max_size=40))
def test_spec_examples_in_random_chunks(cuts: list[int]) -> None:
    assert feed_in_chunks(EXAMPLE_STREAM, cuts) == decode(EXAMPLE_STREAM)


def test_encode_button_shoe() -> None:
    assert encode(1, Button("SHOE")) == b"$1,BTN,SHOE*5578\r\n"


def test_encode_host_to_shoe_and_decode_with_that_registry() -> None:
    ack, lamp = encode(65535, Ack(16)), encode(0, Lamp("AMBER"))
    decoder = FrameDecoder(HOST_TO_SHOE)
    assert [(f.seq, f.message) for f in decoder.feed(ack + lamp)] == [
        (65535, Ack(16)),
        (0, Lamp("AMBER")),
    ]
    assert decode(ack)[1] == DecoderStats(unparsable=1)


@pytest.mark.parametrize("seq", [-1, 65536, True, 1.0])
def test_encode_rejects_bad_seq(seq: object) -> None:
    with pytest.raises(ValueError):
        encode(seq, Cut())  # type: ignore[arg-type]


def test_noise_is_counted() -> None:
    frame = EXAMPLE_FRAMES[1].raw
    frames, stats = decode(b"\x00junk" + frame + b"\r\n\xff" + frame + b"tail")
    assert frames == [EXAMPLE_FRAMES[1]] * 2
    assert stats == DecoderStats(frames=2, noise_bytes=5 + 3 + 4)


def test_bad_crc_is_counted() -> None:
    frames, stats = decode(raw_frame(b"1,BTN,SHOE", "5579") + EXAMPLE_FRAMES[2].raw)
    assert frames == [EXAMPLE_FRAMES[2]]
    assert stats == DecoderStats(frames=1, bad_crc=1)


def test_damaged_body_is_bad_crc() -> None:
    frames, stats = decode(b"$1,BTN,SHOF*5578\r\n")
    assert (frames, stats) == ([], DecoderStats(bad_crc=1))


def key_frame(length: int) -> bytes:
    """A BTN,KEY frame of exactly `length` bytes, padded through the badge id."""
    prefix = b"0,BTN,KEY,"
    badge = b"k" * (length - len(prefix) - 8)
    return raw_frame(prefix + badge)


def test_frame_of_max_length_is_accepted() -> None:
    frame = key_frame(MAX_FRAME_BYTES)
    assert len(frame) == 128
    frames, stats = decode(frame)
    assert stats == DecoderStats(frames=1)
    assert [f.raw for f in frames] == [frame]
    assert frames[0].message == Button("KEY", "k" * 110)
    assert encode(0, frames[0].message) == frame


def test_overlong_frame_is_dropped_and_next_survives() -> None:
    frame = key_frame(MAX_FRAME_BYTES + 1)
    assert len(frame) == 129
    with pytest.raises(ValueError):
        encode(0, Button("KEY", "k" * 111))
    frames, stats = decode(frame + b"ab" + EXAMPLE_FRAMES[7].raw)
    assert frames == [EXAMPLE_FRAMES[7]]
    assert stats == DecoderStats(frames=1, overlong=1, noise_bytes=2)


def test_overlong_is_known_at_128_bytes_without_waiting() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"$" + b"x" * (MAX_FRAME_BYTES - 2))
    assert decoder.stats.overlong == 0
    decoder.feed(b"x")
    assert decoder.stats.overlong == 1
    assert decoder.feed(b"x" * 1000 + EXAMPLE_FRAMES[3].raw) == [EXAMPLE_FRAMES[3]]
    assert decoder.stats == DecoderStats(frames=1, overlong=1)


@pytest.mark.parametrize(
    "body",
    [
        b"65536,CUT",
        b"-1,CUT",
        b"01,CUT",
        b"+1,CUT",
        b"x,CUT",
        b",CUT",
        b"7",
        b"",
        b"7,",
        b"7,NOPE",
        b"7,cut",
        b"7,CUT,",
        b"7,CARD,9C",
        b"7,CARD,9C,D,P,P",
        b"7,BTN,SHOE,0",
        b"7,ACK,3",
        b"7,LAMP,RED",
        b"7,BTN,KEY,a*b",
        b"7,BTN,KEY,\x7f",
        b"7,BTN,KEY,\x01",
        b"7,BTN,KEY,\xc3\xa9",
    ],
)
def test_unparsable_is_counted(body: bytes) -> None:
    frames, stats = decode(raw_frame(body) + EXAMPLE_FRAMES[9].raw)
    assert frames == [EXAMPLE_FRAMES[9]]
    assert stats == DecoderStats(frames=1, unparsable=1)


@pytest.mark.parametrize(
    "damaged",
    [
        b"$1,BTN,SHOE*5578\n",
        b"$1,BTN,SHOE*5578\r\r\n",
        b"$1,BTN,SHOE*557\r\n",
        b"$1,BTN,SHOE*55788\r\n",
        b"$1,BTN,SHOE5578\r\n",
        b"$1,BTN,SHOE*\r\n",
        b"$1,BTN,SHOE\r\n",
        b"$\r\n",
        b"$\n",
        b"$1,BTN,SHOE* 578\r\n",
    ],
)
def test_malformed_trailer_is_truncated(damaged: bytes) -> None:
    frames, stats = decode(damaged + EXAMPLE_FRAMES[4].raw)
    assert frames == [EXAMPLE_FRAMES[4]]
    assert stats == DecoderStats(frames=1, truncated=1)


def test_lower_case_crc_is_rejected() -> None:
    body = b"0,HELLO,1,ACME-S8,SN0042,2.3.1,7f3a9c01"
    assert f"{crc16(body):04X}" == "E8B3"
    frames, stats = decode(raw_frame(body, "e8b3"))
    assert (frames, stats) == ([], DecoderStats(truncated=1))


def test_dollar_inside_a_frame_resyncs() -> None:
    frames, stats = decode(b"$1,BTN,SH" + EXAMPLE_FRAMES[5].raw)
    assert frames == [EXAMPLE_FRAMES[5]]
    assert stats == DecoderStats(frames=1, truncated=1)


def test_dollar_inside_an_overlong_frame_resyncs() -> None:
    frames, stats = decode(b"$" + b"y" * 300 + EXAMPLE_FRAMES[6].raw)
    assert frames == [EXAMPLE_FRAMES[6]]
    assert stats == DecoderStats(frames=1, overlong=1)


def test_partial_frame_waits_for_more() -> None:
    decoder = FrameDecoder()
    raw = EXAMPLE_FRAMES[0].raw
    assert decoder.feed(raw[:-1]) == []
    assert decoder.feed(raw[-1:]) == [EXAMPLE_FRAMES[0]]
    assert decoder.feed(b"") == []
    assert decoder.stats == DecoderStats(frames=1)


def test_sequence_numbers_wrap() -> None:
    numbers = SequenceNumbers(65534)
    assert [numbers.next() for _ in range(4)] == [65534, 65535, 0, 1]
    assert SequenceNumbers().next() == 0
    with pytest.raises(ValueError):
        SequenceNumbers(65536)


@given(st.integers(0, 65535), shoe_messages)
def test_any_shoe_message_round_trips(seq: int, message: Message) -> None:
    if not fits(seq, message):
        with pytest.raises(ValueError, match="more than 128"):
            encode(seq, message)
        return
    raw = encode(seq, message)
    assert decode(raw) == ([Frame(seq, message, raw)], DecoderStats(frames=1))


@given(st.integers(0, 65535), host_messages)
def test_any_host_message_round_trips(seq: int, message: Message) -> None:
    raw = encode(seq, message)
    assert FrameDecoder(HOST_TO_SHOE).feed(raw) == [Frame(seq, message, raw)]


# Garbage biased towards the bytes that matter to the decoder, so partial frames,
# stray trailers and over-long runs all come up.
tricky = st.sampled_from([b"$", b"*", b"\r", b"\n", b"\r\n", b",", b"7,CUT", b"*AD8C", b"x" * 130])
garbage = st.lists(tricky | st.binary(max_size=20), max_size=8).map(b"".join)


@given(st.binary(max_size=600), st.lists(st.integers(min_value=0), max_size=20))
def test_arbitrary_bytes_never_raise_and_chunking_is_invisible(
    data: bytes, cuts: list[int]
) -> None:
    frames, stats = decode(data)
    assert feed_in_chunks(data, cuts) == (frames, stats)
    assert stats.frames == len(frames)


@given(garbage, st.lists(st.integers(min_value=0), max_size=20))
def test_tricky_garbage_never_raises_and_chunking_is_invisible(
    data: bytes, cuts: list[int]
) -> None:
    assert feed_in_chunks(data, cuts) == decode(data)


@given(
    st.lists(st.tuples(st.integers(0, 65535), shoe_messages, garbage), max_size=12),
    garbage,
    st.lists(st.integers(min_value=0), max_size=20),
)
def test_frames_survive_interleaved_garbage(
    items: list[tuple[int, Message, bytes]], lead: bytes, cuts: list[int]
) -> None:
    # Garbage may hold `$`: the partial frame it starts is abandoned at the next
    # frame's `$`, so every valid frame still comes out. Only garbage that is
    # itself a valid frame (vanishingly unlikely) is ruled out.
    for chunk in [lead, *(g for _, _, g in items)]:
        assume(not decode(chunk)[0])
    expected: list[Frame] = []
    stream = [lead]
    for seq, message, junk in items:
        if not fits(seq, message):
            continue
        raw = encode(seq, message)
        expected.append(Frame(seq, message, raw))
        stream += [raw, junk]
    data = b"".join(stream)
    frames, stats = feed_in_chunks(data, cuts)
    assert frames == expected
    assert stats.frames == len(expected)
