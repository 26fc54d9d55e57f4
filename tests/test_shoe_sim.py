"""The simulated shoe (`python -m hil.shoe`) against a minimal host, over real ptys and a
real Unix socket, in real processes: every croupier message arrives exactly once, in order,
whatever the line does, and the capture replays to the truth."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import select
import socket
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import serial

from drivers.delivery import Receiver
from drivers.framing import FrameDecoder, encode
from drivers.messages import Ack, Heartbeat, Hello, Lamp, Message
from hil.faults import parse_faults
from hil.harness import press_deal
from hil.shoe import is_deal, session_for
from shoe_daemon.service.replay import TrustedKeys, replay_bytes

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 20.0  # s for one shoe process, at most


@dataclass
class Host:
    """A minimal host: decode, deliver in order, acknowledge; a LAMP now and then."""

    delivered: list[Message] = field(default_factory=list)
    receiver: Receiver = field(default_factory=Receiver)
    decoder: FrameDecoder = field(default_factory=FrameDecoder)
    seq: int = 0
    reopens: int = 0
    lamps: int = 0

    def feed(self, data: bytes) -> bytes:
        """Bytes from the shoe in, bytes to the shoe out."""
        out = bytearray()
        for frame in self.decoder.feed(data):
            verdict = self.receiver.receive(frame)
            if verdict.accepted:
                self.delivered.append(frame.message)
                if len(self.delivered) % 25 == 0:
                    out += self._frame(Lamp(("GREEN", "AMBER", "RED")[self.lamps % 3]))
                    self.lamps += 1
            if verdict.ack is not None:
                out += self._frame(Ack(verdict.ack))
        return bytes(out)

    def _frame(self, message: Message) -> bytes:
        frame = encode(self.seq, message)
        self.seq = (self.seq + 1) % 65536
        return frame


def start_shoe(tmp_path: Path, *args: str, where: str = "pty") -> tuple[subprocess.Popen,
                                                                          dict]:
    cmd = [sys.executable, "-m", "hil.shoe", "--capture", str(tmp_path / "shoe.cap"),
           "--truth", str(tmp_path / "truth.jsonl"), "--give-up", "10", *args]
    if where == "pty":
        cmd += ["--pty-link", str(tmp_path / "shoe")]
    else:
        cmd += ["--usb-socket", str(tmp_path / "usb.sock")]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 10)
    assert ready, "the shoe printed nothing"
    line = proc.stdout.readline()
    assert line, proc.stderr.read() if proc.stderr else ""
    return proc, json.loads(line)


def open_link(link: Path, proc: subprocess.Popen, use_pyserial: bool = False):
    """Open the port the symlink points at; wait while it is unplugged."""
    deadline = time.monotonic() + 5
    while True:
        try:
            if use_pyserial:
                port = serial.Serial(str(link), timeout=0)
                return port, port.fileno()
            fd = os.open(link, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            return None, fd
        except (OSError, serial.SerialException):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def play_pty_host(proc: subprocess.Popen, link: Path, host: Host,
                  use_pyserial: bool = False) -> None:
    """Play the host until the shoe exits; reopen the link whenever the port goes away."""
    port, fd = open_link(link, proc, use_pyserial)
    deadline = time.monotonic() + TIMEOUT
    try:
        while proc.poll() is None:
            assert time.monotonic() < deadline, "the shoe did not finish in time"
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(fd, 4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:  # hung up: the cable was pulled
                if port is not None:
                    port.close()
                else:
                    os.close(fd)
                fd = -1
                if proc.poll() is not None:
                    return
                try:
                    port, fd = open_link(link, proc, use_pyserial)
                except OSError:
                    return
                host.reopens += 1
                continue
            reply = host.feed(data)
            if reply:
                with contextlib.suppress(OSError):
                    os.write(fd, reply)
    finally:
        if fd >= 0:
            if port is not None:
                port.close()
            else:
                os.close(fd)


def finish(proc: subprocess.Popen) -> str:
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err


def assert_delivered_exactly(delivered: list[Message], expected: list[Message]) -> None:
    """The croupier's messages, each once and in order; between them only the shoe's own
    heartbeats and HELLOs (a reconnect's, a reboot's)."""
    i = 0
    extras = []
    for message in delivered:
        if i < len(expected) and message == expected[i]:
            i += 1
        else:
            assert isinstance(message, Heartbeat | Hello), (i, message, expected[i:i + 3])
            extras.append(message)
    assert i == len(expected), f"only {i} of {len(expected)} croupier messages arrived"


def check_capture(tmp_path: Path, profile: str) -> None:
    truth = [json.loads(line) for line in (tmp_path / "truth.jsonl").read_text().splitlines()]
    outcome = replay_bytes((tmp_path / "shoe.cap").read_bytes(), profile, keys=TrustedKeys())
    assert [ln for ln in outcome.lines if ln["event"] == "coup.result"] == truth
    assert truth


def expected_session(profile: str, shoes: int, seed: int, packs: int | None,
                     faults: list[str]):
    _, game = parse_faults(faults)
    return session_for(profile, shoes, seed, packs, game)


def fault_args(faults: list[str]) -> list[str]:
    return [a for f in faults for a in ("--fault", f)]


def test_clean_line_delivers_the_session_once_in_order(tmp_path: Path) -> None:
    args = ["--profile", "baden", "--shoes", "1", "--seed", "3", "--packs", "2",
            "--lamp-log", str(tmp_path / "lamps.log")]
    proc, hello = start_shoe(tmp_path, *args)
    link = tmp_path / "shoe"
    assert set(hello) == {"pty", "link", "boot_id"}
    assert hello["link"] == str(link) and os.readlink(link) == hello["pty"]
    host = Host()
    play_pty_host(proc, link, host)
    err = finish(proc)
    assert proc.returncode == 0, err
    session = expected_session("baden", 1, 3, 2, [])
    assert hello["boot_id"] == session.messages[0].boot_id
    assert_delivered_exactly(host.delivered, session.messages)
    assert host.delivered[0] == session.messages[0]
    check_capture(tmp_path, "baden")
    assert not link.exists(), "the shoe removes its link when it exits"
    lamps = [line.split() for line in (tmp_path / "lamps.log").read_text().splitlines()]
    assert len(lamps) == host.lamps > 0
    assert [colour for _, colour in lamps[:3]] == ["GREEN", "AMBER", "RED"][:len(lamps)]
    assert abs(float(lamps[0][0]) - time.time()) < 60


@pytest.mark.parametrize(("profile", "seed", "faults"), [
    ("zoppot-1934", 5, ["noise=0.1", "damage=0.03", "drop=0.03", "duplicate=0.05",
                        "lost_ack=0.2"]),
    ("clermont-2015", 6, ["unplug=2", "lost_ack=0.1"]),
    ("baden-punto-banco", 7, ["reboot=2", "drop=0.03", "damage=0.02"]),
    ("shimmy", 8, ["all"]),
])
def test_faulty_line_still_delivers_exactly_once(tmp_path: Path, profile: str, seed: int,
                                                 faults: list[str]) -> None:
    args = ["--profile", profile, "--shoes", "1", "--seed", str(seed), "--packs", "2",
            *fault_args(faults)]
    proc, _ = start_shoe(tmp_path, *args)
    host = Host()
    play_pty_host(proc, tmp_path / "shoe", host)
    err = finish(proc)
    assert proc.returncode == 0, err
    session = expected_session(profile, 1, seed, 2, faults)
    assert_delivered_exactly(host.delivered, session.messages)
    check_capture(tmp_path, profile)
    line, _ = parse_faults(faults)
    if line.unplug:
        assert err.count("unplug:") == line.unplug and host.reopens >= line.unplug, err
    if line.reboot:
        assert err.count("reboot:") == line.reboot, err
        boots = {m.boot_id for m in host.delivered if isinstance(m, Hello)}
        assert len(boots) == line.reboot + 1


def test_pyserial_host_that_opens_late_gets_the_hello_again(tmp_path: Path) -> None:
    """pyserial flushes the input when it opens the port: the HELLO is simply sent again."""
    args = ["--profile", "eight-pack", "--shoes", "1", "--seed", "12", "--packs", "1"]
    proc, _ = start_shoe(tmp_path, *args)
    time.sleep(0.4)  # the HELLO went out into the pty before anyone opened it
    host = Host()
    play_pty_host(proc, tmp_path / "shoe", host, use_pyserial=True)
    assert finish(proc) and proc.returncode == 0
    session = expected_session("eight-pack", 1, 12, 1, [])
    assert_delivered_exactly(host.delivered, session.messages)
    check_capture(tmp_path, "eight-pack")


def test_the_shoe_sends_nothing_after_its_hello_until_it_is_acknowledged(
        tmp_path: Path) -> None:
    """Protocol 1.1: the HELLO (again every 300 ms) and nothing else until its ACK."""
    proc, _ = start_shoe(tmp_path, "--profile", "baden", "--shoes", "1", "--seed", "4",
                         "--packs", "1")
    _, fd = open_link(tmp_path / "shoe", proc)
    decoder = FrameDecoder()
    heard: list = []

    def listen(until) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + 5
        while not until() and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.05)[0]:
                heard.extend(decoder.feed(os.read(fd, 4096)))

    try:
        end = time.monotonic() + 1.0  # a host that listens and says nothing for a while
        listen(lambda: time.monotonic() > end)
        assert heard and all(isinstance(f.message, Hello) and f.seq == 0 for f in heard)
        os.write(fd, encode(0, Ack(0)))
        listen(lambda: any(f.seq == 1 for f in heard))
        assert [f.message for f in heard if f.seq == 1] == [session_for(
            "baden", 1, 4, 1, None).messages[1]]
    finally:
        proc.terminate()
        finish(proc)
        os.close(fd)


def listen(fd: int, seconds: float) -> list:
    """The frames a host that never answers hears on `fd` for `seconds`."""
    decoder, heard = FrameDecoder(), []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if select.select([fd], [], [], 0.02)[0]:
            with contextlib.suppress(BlockingIOError):
                heard += decoder.feed(os.read(fd, 4096))
    return heard


def test_what_the_shoe_writes_while_no_host_has_the_port_is_lost(tmp_path: Path) -> None:
    # As on a real line: the HELLOs sent before anyone opened the port are gone, not kept
    # in the pty for the host that opens it later (it opens here without flushing).
    proc, _ = start_shoe(tmp_path, "--profile", "baden", "--shoes", "1", "--seed", "4")
    time.sleep(1.2)  # the HELLO and three resends of it into a port nobody has open
    _, fd = open_link(tmp_path / "shoe", proc)
    try:
        heard = listen(fd, 0.25)  # at most one resend comes in a quarter of a second
    finally:
        os.close(fd)
        proc.terminate()
        err = finish(proc)
    assert len(heard) <= 1, heard
    assert (tmp_path / "shoe.cap").read_bytes().count(b"$0,HELLO,") >= 4
    unheard = int(err.rsplit("unheard_bytes=", 1)[1].split()[0])
    assert unheard >= 3 * len(encode(0, Hello(1, "SIM-SHOE", "SIM0001", "0.1.0", "00000000")))


def test_a_1_0_shoe_deals_at_power_up_without_waiting_for_its_hellos_ack(
        tmp_path: Path) -> None:
    # The host listens and never answers: a 1.0 shoe whose croupier began at power-up
    # fills its window with his messages after the HELLO and resends it from the HELLO.
    proc, _ = start_shoe(tmp_path, "--profile", "baden", "--shoes", "1", "--seed", "4",
                         "--packs", "1", "--proto", "1.0", "--deal-at-power-up",
                         "--pace", "0.01")
    _, fd = open_link(tmp_path / "shoe", proc)
    try:
        heard = listen(fd, 1.0)
    finally:
        os.close(fd)
        proc.terminate()
        finish(proc)
    session = session_for("baden", 1, 4, 1, None).messages
    numbers = sorted({f.seq for f in heard})
    assert numbers == list(range(16)), numbers  # the whole window, nothing past it
    assert {f.seq: f.message for f in heard} == dict(enumerate(session[:16]))
    starts = [f.seq for prev, f in itertools.pairwise(heard) if f.seq < prev.seq]
    assert starts and set(starts) == {0}  # each resend round from the HELLO


def test_a_1_1_shoe_whose_croupier_began_at_power_up_keeps_his_messages(
        tmp_path: Path) -> None:
    # Protocol 1.1: nothing but the HELLO until its ACK; the croupier went on meanwhile,
    # and what he did comes out at once, in order, when the HELLO is acknowledged.
    proc, _ = start_shoe(tmp_path, "--profile", "baden", "--shoes", "1", "--seed", "4",
                         "--packs", "1", "--deal-at-power-up", "--pace", "0.1")
    _, fd = open_link(tmp_path / "shoe", proc)
    try:
        before = listen(fd, 1.0)
        os.write(fd, encode(0, Ack(0)))
        after = listen(fd, 0.15)
    finally:
        os.close(fd)
        proc.terminate()
        finish(proc)
    assert before and {(f.seq, type(f.message)) for f in before} == {(0, Hello)}
    session = session_for("baden", 1, 4, 1, None).messages
    fresh = sorted({f.seq: f.message for f in after if f.seq > 0}.items())
    assert len(fresh) >= 7, fresh  # ten paced messages by now, sent together
    assert [m for _, m in fresh] == session[1:len(fresh) + 1]


@pytest.mark.parametrize("proto", ["1.0", "1.1"])
def test_a_shoe_dealing_before_the_host_opens_loses_nothing(tmp_path: Path,
                                                           proto: str) -> None:
    # The host (pyserial, which flushes on open) comes 1.5 s after the croupier began:
    # it syncs with the shoe (a HELLO numbered 0) and gets every message exactly once.
    args = ["--profile", "baden", "--shoes", "1", "--seed", "9", "--packs", "1",
            "--proto", proto, "--deal-at-power-up", "--pace", "0.02"]
    proc, _ = start_shoe(tmp_path, *args)
    time.sleep(1.5)
    host = Host()
    play_pty_host(proc, tmp_path / "shoe", host, use_pyserial=True)
    assert finish(proc) and proc.returncode == 0
    assert_delivered_exactly(host.delivered, session_for("baden", 1, 9, 1, None).messages)
    check_capture(tmp_path, "baden")


def test_idle_shoe_sends_heartbeats(tmp_path: Path) -> None:
    proc, _ = start_shoe(tmp_path, "--profile", "baden", "--shoes", "0", "--seed", "1",
                         "--linger", "2.3")
    host = Host()
    play_pty_host(proc, tmp_path / "shoe", host)
    finish(proc)
    assert proc.returncode == 0
    assert isinstance(host.delivered[0], Hello)
    beats = [m.uptime_s for m in host.delivered[1:] if isinstance(m, Heartbeat)]
    assert len(beats) >= 3 and beats == sorted(beats)  # at start of the linger, then each second


def test_no_host_gives_up(tmp_path: Path) -> None:
    proc, _ = start_shoe(tmp_path, "--profile", "baden", "--shoes", "1", "--seed", "1",
                         "--give-up", "1")
    err = finish(proc)
    assert proc.returncode == 3
    assert "no ACK progress" in err
    assert (tmp_path / "shoe.cap").read_bytes().startswith(b"$0,HELLO,1,")
    assert not (tmp_path / "shoe").exists()


def test_sigterm_exits_cleanly(tmp_path: Path) -> None:
    proc, _ = start_shoe(tmp_path, "--profile", "baden", "--shoes", "1", "--seed", "1",
                         "--pace", "0.2")
    time.sleep(0.5)
    proc.terminate()
    err = finish(proc)
    assert proc.returncode == 0, err
    assert "terminated" in err
    assert not (tmp_path / "shoe").exists()
    assert (tmp_path / "truth.jsonl").read_text().count("\n") > 5


def play_socket_host(proc: subprocess.Popen, path: Path, host: Host) -> int:
    """A minimal USB-side host on the Unix socket; reconnects when the device goes away."""
    connects = 0
    deadline = time.monotonic() + TIMEOUT
    sock: socket.socket | None = None
    while proc.poll() is None:
        assert time.monotonic() < deadline, "the shoe did not finish in time"
        if sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(str(path))
            except OSError:
                sock.close()
                sock = None
                time.sleep(0.02)
                continue
            connects += 1
        ready, _, _ = select.select([sock], [], [], 0.05)
        if not ready:
            continue
        try:
            data = sock.recv(4096)
        except OSError:
            data = b""
        if not data:  # unplugged
            sock.close()
            sock = None
            continue
        reply = host.feed(data)
        if reply:
            with contextlib.suppress(OSError):
                sock.sendall(reply)
    if sock is not None:
        sock.close()
    return connects


def test_usb_socket_mode(tmp_path: Path) -> None:
    faults = ["unplug=1", "lost_ack=0.1", "noise=0.05", "face_up=0.2", "unreadable=0.1"]
    args = ["--profile", "clermont-2015", "--shoes", "1", "--seed", "21", "--packs", "2",
            *fault_args(faults)]
    proc, hello = start_shoe(tmp_path, *args, where="usb")
    assert set(hello) == {"usb_socket", "boot_id"}
    assert hello["usb_socket"] == str(tmp_path / "usb.sock")
    host = Host()
    connects = play_socket_host(proc, tmp_path / "usb.sock", host)
    err = finish(proc)
    assert proc.returncode == 0, err
    assert connects == 2, err
    session = expected_session("clermont-2015", 1, 21, 2, faults)
    assert_delivered_exactly(host.delivered, session.messages)
    hellos = [m for m in host.delivered if isinstance(m, Hello)]
    assert len(hellos) == 2 and {m.boot_id for m in hellos} == {hello["boot_id"]}
    check_capture(tmp_path, "clermont-2015")
    assert not (tmp_path / "usb.sock").exists()


def croupiers(delivered: list[Message]) -> list[Message]:
    """What the croupier did, as the host heard it (the shoe's own HELLOs and HBs left out)."""
    return [m for m in delivered if not isinstance(m, Heartbeat | Hello)]


def until(condition, seconds: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.02)


def test_the_deal_button_deals_one_coup_a_press_and_keeps_early_presses(
        tmp_path: Path) -> None:
    button = tmp_path / "deal"
    proc, hello = start_shoe(tmp_path, "--profile", "baden", "--shoes", "1", "--seed", "3",
                             "--packs", "1", "--deal-button", str(button))
    assert hello["deal_button"] == str(button) and stat.S_ISFIFO(button.stat().st_mode)
    session = session_for("baden", 1, 3, 1, None).messages
    deals = [i for i, m in enumerate(session) if is_deal(m)]
    press_deal(button)
    press_deal(button)  # both before any host is there: kept for coups 1 and 2
    host = Host()
    player = threading.Thread(target=play_pty_host, args=(proc, tmp_path / "shoe", host))
    player.start()
    try:
        def heard_up_to(n: int) -> bool:  # everything before the croupier's message n
            return len(croupiers(host.delivered)) >= n - 1

        until(lambda: heard_up_to(deals[2]))
        beats = len(host.delivered)
        time.sleep(1.5)  # waiting for the third press: heartbeats, nothing of the croupier's
        assert croupiers(host.delivered) == session[1:deals[2]]
        assert len(host.delivered) > beats
        with button.open("w") as fifo:  # half a line is no press
            fifo.write("press")
        time.sleep(0.5)
        assert croupiers(host.delivered) == session[1:deals[2]]
        press_deal(button)  # ends that line: one press, coup 3 and nothing of coup 4
        until(lambda: heard_up_to(deals[3]))
        time.sleep(0.5)
        assert croupiers(host.delivered) == session[1:deals[3]]
        for _ in deals[3:]:
            press_deal(button)
        player.join(TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.terminate()
        player.join(TIMEOUT)
    err = finish(proc)
    assert proc.returncode == 0, err
    assert_delivered_exactly(host.delivered, session)
    check_capture(tmp_path, "baden")
    waited = [line.split("coup ")[1] for line in err.splitlines() if "DEAL button" in line]
    assert waited == ["3", "4"], err
    assert not button.exists(), "the shoe removes its button when it exits"
    with pytest.raises(RuntimeError, match="no DEAL button"):
        press_deal(button)


def test_a_deal_button_nobody_holds_is_a_clear_error(tmp_path: Path) -> None:
    stale = tmp_path / "stale"
    os.mkfifo(stale)  # left by a shoe that was killed: nobody reads it
    with pytest.raises(RuntimeError, match="no shoe holds"):
        press_deal(stale)
    plain = tmp_path / "plain"
    plain.write_text("")
    with pytest.raises(RuntimeError, match="not a FIFO"):
        press_deal(plain)
    cmd = [sys.executable, "-m", "hil.shoe", "--profile", "baden", "--seed", "1",
           "--capture", str(tmp_path / "c"), "--truth", str(tmp_path / "t"),
           "--pty-link", str(tmp_path / "shoe")]
    refused = subprocess.run([*cmd, "--deal-button", str(plain)], cwd=ROOT,
                             capture_output=True, text=True, timeout=20)
    assert refused.returncode == 2 and "is not a FIFO" in refused.stderr
    assert plain.read_text() == "" and not (tmp_path / "shoe").exists()
    proc, _ = start_shoe(tmp_path, "--profile", "baden", "--seed", "1",
                         "--deal-button", str(stale))  # a stale button is made anew
    try:
        press_deal(stale)
    finally:
        proc.terminate()
        assert "terminated" in finish(proc)
    assert not stale.exists()
