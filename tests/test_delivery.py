"""Receiver verdicts, and exactly-once in-order delivery through a hostile channel."""

from __future__ import annotations

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from drivers.delivery import DeliveryStats, Receiver, Verdict
from drivers.framing import Frame, FrameDecoder, encode
from drivers.messages import Button, Card, Heartbeat, Hello, Message
from tests.test_messages import shoe_events

BOOT_A = "7f3a9c01"
BOOT_B = "0badf00d"


def frame(seq: int, message: Message | None = None) -> Frame:
    message = Heartbeat(seq) if message is None else message
    return Frame(seq, message, encode(seq, message))


def hello(boot_id: str, seq: int = 0) -> Frame:
    return frame(seq, Hello(1, "ACME-S8", "SN0042", "2.3.1", boot_id))


def test_in_order_frames_are_accepted_and_acked() -> None:
    receiver = Receiver(expected=0, boot_id=BOOT_A)
    assert [receiver.receive(frame(seq)) for seq in range(3)] == [
        Verdict(True, 0, "accepted"),
        Verdict(True, 1, "accepted"),
        Verdict(True, 2, "accepted"),
    ]
    assert (receiver.expected, receiver.last_in_order) == (3, 2)
    assert receiver.stats == DeliveryStats(accepted=3)


def test_duplicate_and_gap_are_dropped_and_last_in_order_reacked() -> None:
    receiver = Receiver(expected=10)
    assert receiver.receive(frame(12)) == Verdict(False, None, "gap")
    assert receiver.receive(frame(9)) == Verdict(False, None, "duplicate")
    assert receiver.receive(frame(10)) == Verdict(True, 10, "accepted")
    assert receiver.receive(frame(10)) == Verdict(False, 10, "duplicate")
    assert receiver.receive(frame(12)) == Verdict(False, 10, "gap")
    assert receiver.expected == 11
    assert receiver.stats == DeliveryStats(accepted=1, duplicates=2, gaps=2)


def test_wrap_around_65535_to_0() -> None:
    receiver = Receiver(expected=65534)
    assert receiver.receive(frame(65534)).kind == "accepted"
    assert receiver.receive(frame(0)) == Verdict(False, 65534, "gap")
    assert receiver.receive(frame(65535)) == Verdict(True, 65535, "accepted")
    assert receiver.expected == 0
    assert receiver.receive(frame(0)) == Verdict(True, 0, "accepted")
    assert receiver.receive(frame(65535)) == Verdict(False, 0, "duplicate")
    assert receiver.receive(frame(65520)) == Verdict(False, 0, "duplicate")
    assert receiver.receive(frame(5)) == Verdict(False, 0, "gap")


def test_half_ring_splits_gap_from_duplicate() -> None:
    receiver = Receiver(expected=0)
    assert receiver.receive(frame(32767)).kind == "gap"
    assert receiver.receive(frame(32768)).kind == "duplicate"


def test_first_frame_syncs_a_host_without_state() -> None:
    receiver = Receiver()
    assert receiver.receive(frame(4242)) == Verdict(True, 4242, "sync")
    assert receiver.receive(frame(4242)) == Verdict(False, 4242, "duplicate")
    assert receiver.receive(frame(4243)) == Verdict(True, 4243, "accepted")
    assert receiver.stats == DeliveryStats(accepted=2, duplicates=1, syncs=1)


def test_hello_with_new_boot_id_resets_numbering() -> None:
    receiver = Receiver(expected=700, boot_id=BOOT_A)
    assert receiver.receive(hello(BOOT_B)) == Verdict(True, 0, "reset")
    assert (receiver.expected, receiver.last_in_order, receiver.boot_id) == (1, 0, BOOT_B)
    assert receiver.receive(frame(1)) == Verdict(True, 1, "accepted")
    assert receiver.stats == DeliveryStats(accepted=2, resets=1)


def test_hello_resets_a_host_without_state() -> None:
    receiver = Receiver()
    assert receiver.receive(hello(BOOT_A)) == Verdict(True, 0, "reset")
    assert receiver.stats == DeliveryStats(accepted=1, resets=1)


def test_retransmitted_hello_of_current_boot_is_a_duplicate() -> None:
    receiver = Receiver()
    receiver.receive(hello(BOOT_A))
    receiver.receive(frame(1))
    assert receiver.receive(hello(BOOT_A.upper())) == Verdict(False, 1, "duplicate")
    assert receiver.stats.resets == 1


def test_hello_of_a_boot_given_at_start_is_not_a_reset() -> None:
    receiver = Receiver(expected=1, boot_id=BOOT_A)
    assert receiver.receive(hello(BOOT_A)) == Verdict(False, None, "duplicate")


def test_old_boot_hello_does_not_reset_again() -> None:
    receiver = Receiver()
    receiver.receive(hello(BOOT_A))
    receiver.receive(hello(BOOT_B))
    receiver.receive(frame(1))
    assert receiver.receive(hello(BOOT_A)) == Verdict(False, 1, "duplicate")
    assert receiver.boot_id == BOOT_B


def test_new_boot_hello_off_zero_resets_but_is_a_gap() -> None:
    receiver = Receiver(expected=50, boot_id=BOOT_A)
    assert receiver.receive(hello(BOOT_B, seq=3)) == Verdict(False, None, "gap")
    assert (receiver.expected, receiver.boot_id) == (0, BOOT_B)
    assert receiver.stats == DeliveryStats(gaps=1, resets=1)


@pytest.mark.parametrize("expected", [-1, 65536, True])
def test_receiver_rejects_bad_expected(expected: object) -> None:
    with pytest.raises(ValueError):
        Receiver(expected=expected)  # type: ignore[arg-type]


WINDOW = 16
"""The shoe keeps up to 16 unacknowledged frames (docs/shoe-line-protocol.md, "Delivery")."""


class Shoe:
    """A go-back-N sender over a planned list of (seq, message), as docs/shoe-line-protocol.md says.

    Two rules keep the simulation inside what the protocol can promise, since frames
    carry no boot_id: a reboot happens only once everything was acknowledged, and it
    flushes the line (power cycle); after a HELLO the shoe waits for its ACK before
    sending more, so a lost HELLO cannot let a new frame pass for an old number.
    """

    def __init__(self, plan: list[tuple[int, Message]]) -> None:
        self.plan = plan
        self.raw = [encode(seq, message) for seq, message in plan]
        self.base = 0
        self.next = 0

    def can_send(self) -> bool:
        if self.next >= len(self.plan) or self.next - self.base >= WINDOW:
            return False
        if self.next > self.base and isinstance(self.plan[self.next - 1][1], Hello):
            return False
        return not isinstance(self.plan[self.next][1], Hello) or self.base == self.next

    def send(self) -> bytes:
        self.next += 1
        return self.raw[self.next - 1]

    def resend(self) -> list[bytes]:
        return self.raw[self.base : self.next]

    def on_ack(self, ack: int) -> None:
        if self.base == self.next:
            return
        distance = (ack - self.plan[self.base][0]) % 65536
        if distance < self.next - self.base:
            self.base += distance + 1

    @property
    def done(self) -> bool:
        return self.base == len(self.plan)


def make_plan(start: int, sessions: list[list[Message]]) -> list[tuple[int, Message]]:
    """Session 0 continues a known boot from `start`; each later one is a reboot."""
    plan: list[tuple[int, Message]] = []
    for number, messages in enumerate(sessions):
        seq = start
        if number:
            boot_id = f"{0xB0070000 + number:08x}"
            messages = [Hello(1, "ACME-S8", "SN0042", "2.3.1", boot_id), *messages]
            seq = 0
        for message in messages:
            plan.append((seq, message))
            seq = (seq + 1) % 65536
    return plan


def damage(raw: bytes, data: st.DataObject) -> bytes:
    """One substituted byte, never a new `$`: CRC-16 detects every such burst, so the
    damage can only ever drop a frame, never forge one."""
    index = data.draw(st.integers(0, len(raw) - 1), label="at")
    value = data.draw(st.integers(0, 255).filter(lambda v: v not in (raw[index], 0x24)))
    return raw[:index] + bytes([value]) + raw[index + 1 :]


@settings(deadline=None)
@given(
    start=st.integers(0, 65535) | st.integers(65520, 65535),
    sessions=st.lists(st.lists(shoe_events, max_size=30), min_size=1, max_size=3),
    data=st.data(),
)
def test_go_back_n_delivers_exactly_once_in_order(
    start: int, sessions: list[list[Message]], data: st.DataObject
) -> None:
    plan = make_plan(start, sessions)
    shoe = Shoe(plan)
    decoder = FrameDecoder()
    receiver = Receiver(expected=start, boot_id="0000abcd")
    line: list[bytes] = []
    delivered: list[tuple[int, Message]] = []

    def arrive(raw: bytes, ack_lost: bool) -> None:
        for got in decoder.feed(raw):
            verdict = receiver.receive(got)
            if verdict.accepted:
                delivered.append((got.seq, got.message))
            if verdict.ack is not None and not ack_lost:
                shoe.on_ack(verdict.ack)

    def reboot_if_due() -> None:
        if shoe.base == shoe.next < len(plan) and isinstance(plan[shoe.next][1], Hello):
            line.clear()

    steps = data.draw(st.integers(0, 300), label="steps")
    for _ in range(steps):
        reboot_if_due()
        action = data.draw(st.sampled_from(["send", "deliver", "deliver", "drop", "timeout"]))
        if action == "send" and shoe.can_send():
            line.append(shoe.send())
        elif action == "deliver" and line:
            index = data.draw(st.integers(0, len(line) - 1), label="reorder")
            fate = data.draw(st.sampled_from(["ok", "ok", "duplicate", "damage"]), label="fate")
            raw = line[index] if fate == "duplicate" else line.pop(index)
            if fate == "damage":
                raw = damage(raw, data)
            arrive(raw, ack_lost=data.draw(st.booleans(), label="ack lost"))
        elif action == "drop" and line:
            line.pop(data.draw(st.integers(0, len(line) - 1), label="drop"))
        elif action == "timeout":
            line += shoe.resend()

    # Then the line heals: in-order delivery, timeouts resend what is missing.
    for _ in range(len(line) + 20 * len(plan) + 20):
        if shoe.done:
            break
        reboot_if_due()
        while shoe.can_send():
            line.append(shoe.send())
        if not line:
            line += shoe.resend()
        arrive(line.pop(0), ack_lost=False)
    event(f"wrapped: {any(seq == 65535 for seq, _ in plan[:-1])}")
    event(f"rebooted: {len(sessions) > 1}")
    event(f"gaps: {receiver.stats.gaps > 0}, duplicates: {receiver.stats.duplicates > 0}")
    event(f"damaged: {decoder.stats.bad_crc + decoder.stats.truncated > 0}")
    assert shoe.done
    assert delivered == plan
    assert receiver.stats.accepted == len(plan)
    assert receiver.stats.resets == len(sessions) - 1


def test_go_back_n_across_wrap_and_reboot_example() -> None:
    """A fixed run: a lost frame across 65535 -> 0, a retransmission, then a reboot."""
    plan = make_plan(65534, [[Card("9C", "D"), Card("TD", "D"), Button("DEAL")], [Button("OK")]])
    raws = [encode(seq, message) for seq, message in plan]
    decoder = FrameDecoder()
    receiver = Receiver(expected=65534, boot_id="0000abcd")
    verdicts = [
        receiver.receive(f)
        for raw in [raws[0], raws[2], raws[1], raws[2], raws[1], raws[3], raws[3], raws[4]]
        for f in decoder.feed(raw)
    ]
    assert [(v.kind, v.ack) for v in verdicts] == [
        ("accepted", 65534),
        ("gap", 65534),
        ("accepted", 65535),
        ("accepted", 0),
        ("duplicate", 0),
        ("reset", 0),
        ("duplicate", 0),
        ("accepted", 1),
    ]
