"""A faulty capture still yields every frame exactly once, in order, through a strict receiver."""

from __future__ import annotations

import functools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.delivery import Receiver
from drivers.framing import FrameDecoder, encode
from drivers.messages import Button, Card, Cut, Heartbeat, Hello
from drivers.records import next_seq
from hil.capture import (
    Faults,
    clean_capture,
    damage,
    in_order,
    noise,
    number,
    read_capture,
    save_capture,
)
from hil.capture import write_capture as write
from hil.dealer import deal_shoes


def receive(data: bytes, start_seq: int = 0) -> list:
    """Decode, then take only the next expected number; a new boot's HELLO restarts at 0."""
    expected = start_seq
    boots: set[str] = set()
    taken = []
    for frame in FrameDecoder().feed(data):
        if isinstance(frame.message, Hello) and frame.message.boot_id not in boots:
            boots.add(frame.message.boot_id)
            expected = 0
        if frame.seq == expected:
            taken.append(frame.message)
            expected = next_seq(expected)
    return taken


def receive_in_chunks(data: bytes, sizes: list[int]) -> list:
    decoder, frames, at, k = FrameDecoder(), [], 0, 0
    while at < len(data):
        n = sizes[k % len(sizes)]
        frames += decoder.feed(data[at:at + n])
        at, k = at + n, k + 1
    return frames


@functools.cache
def two_boots() -> tuple:
    """Two sessions back to back (the shoe rebooted): 2 + 1 one-pack shoes."""
    a = deal_shoes("baden", 2, 11, packs=1)
    b = deal_shoes("baden-punto-banco", 1, 12, packs=1)
    return tuple(a.messages + b.messages)


def test_numbering_wraps_and_restarts_on_hello() -> None:
    messages = [Cut(), Heartbeat(1), Button("DEAL"), Hello(1, "S", "N", "F", "0000abcd"), Cut()]
    assert [seq for seq, _ in number(messages, 65534)] == [65534, 65535, 0, 0, 1]


def test_clean_capture_is_every_frame_once() -> None:
    messages = list(two_boots())
    data = write(messages)
    assert data == clean_capture(messages)
    assert data.count(b"$") == len(messages)
    assert receive(data) == messages


def test_each_fault_kind_alone() -> None:
    messages = list(two_boots())
    clean = write(messages)
    for faults in (Faults(noise=0.5), Faults(damage=0.5), Faults(duplicate=0.5),
                   Faults(drop_then_resend=0.5)):
        data = write(messages, faults, seed=3)
        assert data != clean, faults
        assert receive(data) == messages, faults
        assert in_order(data) == messages, faults


def test_faults_really_happen() -> None:
    messages = list(two_boots())
    data = write(messages, Faults.all(0.3), seed=1)
    frames = FrameDecoder().feed(data)
    assert len(frames) > len(messages) * 1.2  # resends and duplicates
    assert len(data) > len(clean_capture(messages)) * 1.5  # plus noise and damaged copies


def test_wrapping_numbers_without_hello() -> None:
    messages = [m for m in two_boots()[1:] if not isinstance(m, Hello)][:300]
    data = write(messages, Faults.all(0.3), seed=5, start_seq=65500)
    assert receive(data, start_seq=65500) == messages


def test_deterministic_for_a_seed() -> None:
    messages = list(two_boots())
    assert write(messages, Faults.all(0.2), seed=9) == write(messages, Faults.all(0.2), seed=9)
    assert write(messages, Faults.all(0.2), seed=9) != write(messages, Faults.all(0.2), seed=10)


def test_save_and_read(tmp_path) -> None:
    data = write([Card("9C", "D")], Faults.all(0.5), seed=2)
    path = save_capture(tmp_path / "c.cap", data)
    assert read_capture(path) == data


probability = st.floats(min_value=0, max_value=1, allow_nan=False)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), noise=probability, damage=probability,
       duplicate=probability, drop=probability,
       chunks=st.lists(st.integers(1, 200), min_size=1, max_size=5))
def test_any_faults_yield_the_clean_messages(seed, noise, damage, duplicate, drop, chunks):
    messages = list(two_boots())
    faults = Faults(noise=noise, damage=damage, duplicate=duplicate, drop_then_resend=drop)
    data = write(messages, faults, seed=seed)
    assert receive(data) == messages
    # The same, fed to the decoder in arbitrary pieces.
    frames = receive_in_chunks(data, chunks)
    assert [f.raw for f in frames] == [f.raw for f in FrameDecoder().feed(data)]


def test_the_drivers_receiver_takes_the_same() -> None:
    messages = list(two_boots())
    data = write(messages, Faults.all(0.3), seed=4)
    receiver = Receiver()
    taken = [f.message for f in FrameDecoder().feed(data) if receiver.receive(f).accepted]
    assert taken == messages
    assert receiver.stats.duplicates and receiver.stats.gaps


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seq=st.integers(0, 65535), pick=st.integers(0, 10_000))
def test_noise_and_damage_never_pass_for_a_frame(seed, seq, pick) -> None:
    """The bytes the faults add are never taken: only the good frame after them is."""
    messages = two_boots()
    frame = encode(seq, messages[pick % len(messages)])
    rng = random.Random(seed)
    damaged = damage(frame, rng)
    assert damaged != frame
    taken = FrameDecoder().feed(noise(rng) + damaged + noise(rng) + frame)
    assert [f.raw for f in taken] == [frame]
