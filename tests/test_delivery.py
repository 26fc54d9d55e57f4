"""Receiver verdicts, and exactly-once in-order delivery through a hostile channel."""

from __future__ import annotations

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from drivers.delivery import DeliveryStats, Receiver, Verdict
from drivers.framing import Frame, FrameDecoder, encode
from drivers.messages import Button, Card, Heartbeat, Hello, Message
from drivers.sync import ROUNDS
from tests.test_framing import SPEC_EXAMPLES
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


def test_new_boot_hello_off_zero_leaves_the_host_to_sync_again() -> None:
    # Boot B's first frame went by unheard: where its numbering stands is unknown, so the
    # host takes nothing (it used to expect 0 and drop the rest of the window for ever).
    receiver = Receiver(expected=50, boot_id=BOOT_A)
    assert receiver.receive(hello(BOOT_B, seq=3)) == Verdict(False, None, "unsynced")
    assert (receiver.expected, receiver.boot_id, receiver.synced) == (None, BOOT_B, False)
    assert receiver.stats == DeliveryStats(resets=1, unsynced=1)
    # Boot B's HELLO numbered 0, still in the shoe's window: the numbering starts there.
    assert receiver.receive(hello(BOOT_B)) == Verdict(True, 0, "reset")
    assert receiver.receive(frame(1)) == Verdict(True, 1, "accepted")


# ---- a host without state: it syncs with the shoe before it takes a frame ----------------
# docs/shoe-line-protocol.md, "The host without state"; drivers/sync.py.


class Host:
    """A host without state hearing the raw line: the decoder and delivery, as the link has."""

    def __init__(self, receiver: Receiver | None = None) -> None:
        self.decoder = FrameDecoder()
        self.receiver = receiver or Receiver()
        self.delivered: list[int] = []
        self.acks: list[int] = []
        self.verdicts: list[Verdict] = []

    def hear(self, *chunks: bytes) -> None:
        for chunk in chunks:
            for got in self.decoder.feed(chunk):
                verdict = self.receiver.receive(got)
                self.verdicts.append(verdict)
                if verdict.accepted:
                    self.delivered.append(got.seq)
                if verdict.ack is not None:
                    assert verdict.ack in self.delivered, "acknowledged a frame never taken"
                    self.acks.append(verdict.ack)


def raw(seq: int, message: Message | None = None) -> bytes:
    return encode(seq, Heartbeat(seq) if message is None else message)


def window(first: int, last: int) -> list[bytes]:
    """One go-back-N round: the frames `first` to `last` (wrapping at 65535)."""
    return [raw(seq % 65536) for seq in range(first, last + 1)]


def damaged(frame_bytes: bytes, at: str) -> bytes:
    """The frame with one byte changed where `at` says: its `$` (the frame becomes noise),
    a body byte (a bad CRC) or its CRC's last hex digit (a bad CRC again)."""
    index = {"dollar": 0, "body": 2, "crc": len(frame_bytes) - 3}[at]
    changed = b"#" if at == "dollar" else (b"9" if frame_bytes[index:index + 1] != b"9" else b"8")
    return frame_bytes[:index] + changed + frame_bytes[index + 1:]


def test_a_host_without_state_takes_no_frame_it_happens_to_hear() -> None:
    # The old rule took the first frame heard and acknowledged it, and with it every frame
    # before it that nobody heard: a 1.0 shoe's first coups were published wrong.
    host = Host()
    host.hear(*window(4242, 4250))
    assert host.delivered == [] and host.acks == []
    assert {v.kind for v in host.verdicts} == {"unsynced"}
    assert host.receiver.waiting and not host.receiver.synced
    assert host.receiver.stats == DeliveryStats(unsynced=9)


def test_a_host_without_state_syncs_at_the_start_of_the_resend_rounds() -> None:
    host = Host()
    host.hear(*window(4242, 4245))  # the port opened in the middle of a round
    for _ in range(ROUNDS):
        host.hear(*window(4240, 4245))
    assert host.delivered == list(range(4240, 4246))
    assert host.acks[0] == 4240
    taken = [i for i, v in enumerate(host.verdicts) if v.accepted]
    assert taken[0] == 4 + 6 * (ROUNDS - 1), "synced before ROUNDS rounds started at 4240"
    assert host.receiver.stats.syncs == 1 and host.receiver.synced and not host.receiver.waiting
    # Then on as any host: the next round's copies are duplicates, acknowledged again.
    host.hear(*window(4240, 4245), raw(4246))
    assert host.delivered == list(range(4240, 4247)) and host.acks[-1] == 4246


@pytest.mark.parametrize("at", ["dollar", "body", "crc"])
def test_a_damaged_frame_at_the_head_of_a_round_never_makes_it_sync_late(at: str) -> None:
    # The head of every round damaged: the frame after it comes after dropped bytes, so it
    # never counts as a round start, however many rounds come.
    host = Host()
    rounds = [damaged(raw(100), at), *window(101, 104)]
    for _ in range(3 * ROUNDS):
        host.hear(*rounds)
    assert host.delivered == [] and host.acks == []
    for _ in range(ROUNDS):
        host.hear(*window(100, 104))
    assert host.delivered == [100, 101, 102, 103, 104]
    assert host.acks[0] == 100


def test_damaged_heads_between_clean_rounds_only_delay_the_sync() -> None:
    host = Host()
    clean, broken = window(100, 104), [damaged(raw(100), "body"), *window(101, 104)]
    host.hear(*clean, *broken, *clean, *broken, *broken, *clean)
    assert host.delivered == []  # the clean rounds' starts: 2 (the first has nothing before)
    host.hear(*clean)
    assert host.delivered == [100, 101, 102, 103, 104]


def test_noise_before_the_head_of_a_round_is_not_a_start() -> None:
    host = Host()
    for _ in range(3 * ROUNDS):
        host.hear(b"~~xx", *window(100, 104))
    assert host.delivered == []
    host.hear(*window(100, 104), *window(100, 104), *window(100, 104))
    assert host.delivered[0] == 100


def test_a_head_lost_whole_in_a_round_is_forgotten_when_the_next_round_starts_lower() -> None:
    # Frame 100 vanished without a trace in two rounds running, then in another after a
    # whole round: 101 started three rounds, but 100 was heard between them, which is
    # lower. The host syncs at 100, never at 101.
    host = Host()
    lost_head, whole = window(101, 104), window(100, 104)
    host.hear(*whole, *lost_head, *lost_head, *whole, *lost_head)
    assert host.delivered == []
    host.hear(*whole, *whole)
    assert host.delivered == [100, 101, 102, 103, 104]


def test_a_frame_sent_twice_in_a_row_does_not_start_a_round() -> None:
    # Every round with one frame doubled (the duplicate switch): the doubled frame is not
    # the window's start and does not hold the sync back either.
    host = Host()
    doubled = [*window(100, 102), raw(102), *window(103, 104)]
    for _ in range(ROUNDS + 1):
        host.hear(*doubled)
    assert host.delivered[0] == 100
    assert host.delivered == [100, 101, 102, 103, 104]


def test_a_hello_numbered_0_syncs_at_once() -> None:
    # A 1.0 shoe at power-up deals without waiting for its HELLO's ACK: the port opened
    # after it, the host hears 5.. first; the next round starts at the HELLO, which opens
    # the boot, so nothing before it can have been missed.
    frames = [hello(BOOT_A).raw, *window(1, 9)]
    host = Host()
    host.hear(*frames[5:], frames[0])
    assert host.delivered == [0]
    assert host.verdicts[-1] == Verdict(True, 0, "reset")
    host.hear(*frames[1:])
    assert host.delivered == list(range(10)) and host.receiver.boot_id == BOOT_A


def test_a_reconnect_hello_of_a_boot_never_seen_does_not_strand_the_host() -> None:
    # The simulated shoe reconnects: a HELLO of its boot numbered after its unacknowledged
    # frames goes first, then the window from its oldest with the HELLO in its place. A host
    # without state used to expect 0 for this new boot and drop everything after it.
    reconnect = hello(BOOT_A, seq=57).raw
    round_ = [*window(50, 56), reconnect]
    host = Host()
    host.hear(reconnect, *round_)
    for _ in range(ROUNDS - 1):
        host.hear(*round_)
    assert host.delivered == list(range(50, 58))
    assert host.receiver.boot_id == BOOT_A
    assert host.receiver.stats.resets == 1


def test_a_reconnect_hello_alone_in_the_window_syncs_on_its_resends() -> None:
    host = Host()
    reconnect = hello(BOOT_A, seq=57).raw
    host.hear(*[reconnect] * ROUNDS)
    assert host.delivered == []
    host.hear(reconnect)
    assert host.delivered == [57] and host.acks == [57]


def test_the_resend_rounds_across_65535() -> None:
    host = Host()
    for _ in range(ROUNDS + 1):
        host.hear(*window(65533, 65538))
    assert host.delivered == [65533, 65534, 65535, 0, 1, 2]


def test_a_window_that_moves_while_the_host_watches_does_not_strand_it() -> None:
    # The host before it acknowledged 100 and 101 just as it went away: the shoe's rounds
    # start at 102 from then on, and the host syncs there.
    host = Host()
    host.hear(*window(100, 104), *window(100, 104), *window(102, 104))
    for _ in range(ROUNDS):
        host.hear(*window(102, 105))
    assert host.delivered == [102, 103, 104, 105]


def test_a_hello_of_another_boot_past_0_starts_the_watch_again() -> None:
    host = Host()
    host.hear(*window(100, 104), *window(100, 104))
    host.hear(hello(BOOT_B, seq=3).raw)  # the shoe rebooted and reconnected meanwhile
    host.hear(*window(1, 2), hello(BOOT_B, seq=3).raw)
    assert host.delivered == []  # two round starts of the old boot no longer count
    assert host.receiver.boot_id == BOOT_B


def test_the_spec_examples_through_a_host_without_state() -> None:
    # The spec's example frames, as a 1.0 shoe sends them at power-up into a port opened
    # late: the host first hears $9 to $16, then the resend round from the HELLO.
    examples = [line + b"\r\n" for line, _, _ in SPEC_EXAMPLES]
    host = Host()
    host.hear(*examples[9:], *examples)
    assert host.delivered == list(range(17))
    assert host.acks == list(range(17))
    messages = [f.message for f in FrameDecoder().feed(b"".join(examples))]
    assert [m for _, _, m in SPEC_EXAMPLES] == messages


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


class LateHostShoe:
    """A go-back-N shoe (1.0 or 1.1) whose host opens the port after it began: what it sent
    before is lost. The channel keeps the order of the bytes, as a serial line does."""

    def __init__(self, plan: list[tuple[int, Message]], waits_for_hello: bool) -> None:
        self.plan = plan
        self.waits_for_hello = waits_for_hello
        self.base = 0
        self.next = 0

    def can_send(self) -> bool:
        if self.next >= len(self.plan) or self.next - self.base >= WINDOW:
            return False
        hello_unacked = any(isinstance(m, Hello) for _, m in self.plan[self.base:self.next])
        return not (self.waits_for_hello and hello_unacked)

    def new(self) -> list[bytes]:
        self.next += 1
        return [encode(*self.plan[self.next - 1])]

    def round(self) -> list[bytes]:
        return [encode(*entry) for entry in self.plan[self.base:self.next]]

    def on_ack(self, ack: int) -> None:
        if self.base < self.next:
            covered = (ack - self.plan[self.base][0]) % 65536
            if covered < self.next - self.base:
                self.base += covered + 1

    @property
    def done(self) -> bool:
        return self.base == len(self.plan)


@settings(deadline=None)
@given(
    start=st.integers(0, 65535) | st.integers(65520, 65535),
    messages=st.lists(shoe_events, min_size=1, max_size=40),
    power_up=st.booleans(),
    waits_for_hello=st.booleans(),
    data=st.data(),
)
def test_a_host_joining_late_takes_every_unacknowledged_frame_once(
    start: int, messages: list[Message], power_up: bool, waits_for_hello: bool,
    data: st.DataObject,
) -> None:
    # The shoe began before the host opened the port (at power-up, or mid-stream after a
    # host that kept nothing): every frame it still holds reaches the application exactly
    # once, in order, and no ACK ever covers a frame the host did not take, whatever noise
    # and damage the line adds. (A frame lost whole after the port opened is the one thing
    # left out: drivers/sync.py says what that costs.)
    if power_up:
        messages = [Hello(1, "ACME-S8", "SN0042", "2.3.1", BOOT_A), *messages]
        start = 0
    plan = [((start + i) % 65536, m) for i, m in enumerate(messages)]
    shoe = LateHostShoe(plan, waits_for_hello)
    host = Host()
    opened = data.draw(st.integers(0, 60), label="the port opens at step")

    def transmit(frames: list[bytes], step: int, faults: bool) -> None:
        for sent in frames:
            if step < opened:
                continue  # nobody on the line: lost
            fate = data.draw(st.sampled_from(["ok", "ok", "ok", "noise", "damage"]),
                             label="fate") if faults else "ok"
            if fate == "noise":
                sent = b"~x~" + sent
            elif fate == "damage":
                sent = damage(sent, data)
            before = len(host.acks)
            host.hear(sent)
            lost = faults and data.draw(st.booleans(), label="ack lost")
            for ack in host.acks[before:]:
                if not lost:
                    shoe.on_ack(ack)

    steps = data.draw(st.integers(0, 150), label="steps")
    for step in range(steps):
        if data.draw(st.booleans(), label="new frame") and shoe.can_send():
            transmit(shoe.new(), step, faults=True)
        else:
            transmit(shoe.round(), step, faults=True)
    for _ in range(20 * len(plan) + 20):  # then the line heals
        if shoe.done:
            break
        while shoe.can_send():
            transmit(shoe.new(), steps + opened, faults=False)
        transmit(shoe.round(), steps + opened, faults=False)
    event(f"synced at the window's start: {host.receiver.stats.syncs > 0}")
    assert shoe.done
    assert host.delivered == [seq for seq, _ in plan]
