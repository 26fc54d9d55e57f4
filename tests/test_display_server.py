"""The display's real aiohttp server: snapshot, stream, read-only, many and stuck clients."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from shoe_daemon.display.server import DisplayServer
from tests.display_client import Sse, get, wait_for

ROOT = Path(__file__).resolve().parent.parent


def state(n: int, pad: int = 0) -> bytes:
    return json.dumps({"n": n, "pad": "x" * pad}).encode()


@pytest.fixture
def server() -> Iterator[DisplayServer]:
    s = DisplayServer("127.0.0.1", 0, initial=state(0), queue_size=8)
    s.start()
    yield s
    s.stop()


@pytest.fixture
def unthrottled() -> Iterator[DisplayServer]:
    s = DisplayServer("127.0.0.1", 0, initial=state(0), queue_size=8, min_interval=0.0)
    s.start()
    yield s
    s.stop()


def test_binds_any_free_port_and_reports_its_url(server):
    assert server.port != 0 and server.url == f"http://127.0.0.1:{server.port}/"


def test_the_page_and_its_files(server):
    status, headers, body = get(server.url, "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b"/static/display.js" in body and b"/static/display.css" in body
    for path in ("/static/display.js", "/static/display.css"):
        assert get(server.url, path)[0] == 200
    assert headers["Cache-Control"] == "no-store"
    assert "default-src 'self'" in headers["Content-Security-Policy"]


def test_the_snapshot_is_the_last_published_state(server):
    assert json.loads(get(server.url, "/api/state")[2]) == {"n": 0, "pad": ""}
    server.publish(state(1))
    server.publish(state(2))
    wait_for(lambda: json.loads(get(server.url, "/api/state")[2])["n"] == 2, what="state 2")
    status, headers, _ = get(server.url, "/api/state")
    assert status == 200 and headers["Content-Type"].startswith("application/json")


def test_the_stream_starts_with_the_full_state_then_pushes_each_change(server):
    server.publish(state(1))
    wait_for(lambda: json.loads(get(server.url, "/api/state")[2])["n"] == 1, what="state 1")
    first = Sse(server.url)
    assert first.next_state()["n"] == 1
    assert first.raw[0] == b"retry: 1000\n"  # EventSource reconnects within a second
    server.publish(state(2))
    assert first.next_state()["n"] == 2
    server.publish(state(3))
    assert first.next_state()["n"] == 3
    first.close()
    again = Sse(server.url)  # a reconnect: the full state first
    assert again.next_state()["n"] == 3
    again.close()


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize("path", ["/", "/api/state", "/api/events", "/static/display.js"])
def test_read_only_every_other_method_is_refused(server, method, path):
    status, headers, _ = get(server.url, path, method)
    assert status == 405 and "POST" not in headers.get("Allow", "")


def test_head_of_the_stream_is_refused_rather_than_left_open(server):
    assert get(server.url, "/api/events", "HEAD")[0] == 405
    assert get(server.url, "/api/state", "HEAD")[0] == 200


def test_many_displays_at_once(server):
    clients = [Sse(server.url) for _ in range(40)]
    wait_for(lambda: server.clients == 40, what="40 clients")
    for n in range(1, 6):  # changes further apart than the 20 ms interval: each one is sent
        server.publish(state(n))
        time.sleep(0.03)
    for client in clients:
        assert [client.next_state()["n"] for _ in range(6)] == [0, 1, 2, 3, 4, 5]
        client.close()
    assert server.dropped == 0


def test_a_burst_of_changes_is_sent_at_most_fifty_a_second_ending_with_the_latest(server):
    client = Sse(server.url)
    assert client.next_state()["n"] == 0
    start, sent = time.monotonic(), server.sent
    for n in range(1, 201):  # 200 changes as fast as the table can make them
        server.publish(state(n))
        time.sleep(0.0005)
    seen = [client.next_state()["n"]]
    while seen[-1] != 200:
        seen.append(client.next_state()["n"])
    elapsed = time.monotonic() - start
    assert seen == sorted(seen) and len(seen) <= elapsed / 0.02 + 2, (len(seen), elapsed)
    assert server.sent - sent == len(seen) < 200
    assert json.loads(get(server.url, "/api/state")[2])["n"] == 200
    client.close()


def test_a_stuck_display_is_dropped_and_never_slows_publishing(unthrottled):
    server = unthrottled  # every state sent, however close: the most a stuck client can get
    stuck = socket.socket()
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a tiny window, never read
    stuck.connect(("127.0.0.1", server.port))
    stuck.sendall(b"GET /api/events HTTP/1.1\r\nHost: table\r\n\r\n")
    good = Sse(server.url)
    assert good.next_state()["n"] == 0
    wait_for(lambda: server.clients == 2, what="both clients")
    published: list[int] = []

    def table() -> None:  # the table's side: it publishes and goes on
        for n in range(1, 301):  # 300 snapshots of 64 KiB: far more than any socket buffers
            server.publish(state(n, pad=65536))
            published.append(n)
            time.sleep(0.002)

    publisher = threading.Thread(target=table, daemon=True)
    publisher.start()
    for n in range(50, 301, 50):  # the healthy display keeps up with every snapshot
        while good.next_state()["n"] < n:
            pass
    # A publish() that waited on the stuck socket would never return once its buffers filled.
    publisher.join(60)
    assert not publisher.is_alive() and published[-1] == 300, f"stuck after {published[-1:]}"
    wait_for(lambda: server.dropped == 1, what="the stuck client dropped")
    assert server.clients == 1
    # The stuck client's connection is gone: reading it now ends, it does not hang.
    assert _reads_to_the_end(stuck)
    stuck.close()
    # It reconnects and resyncs: the full, latest state first.
    assert Sse(server.url).next_state()["n"] == 300
    good.close()


def _reads_to_the_end(sock: socket.socket) -> bool:
    """True once the server has closed or aborted the connection (EOF or a reset)."""
    sock.settimeout(10)
    try:
        while sock.recv(1 << 20):
            pass
    except ConnectionResetError:
        pass
    except TimeoutError:
        return False
    return True


def test_an_address_in_use_is_refused(server):
    other = DisplayServer("127.0.0.1", server.port, initial=b"{}")
    with pytest.raises(OSError):
        other.start()


def _run_daemon(tmp_path: Path, http: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shoe_daemon.service.cli", "run", "--profile", "baden",
         "--state-dir", str(tmp_path / "state"), "--results", str(tmp_path / "r.jsonl"),
         "--port", str(tmp_path / "no-shoe"), "--http", http],
        cwd=ROOT, capture_output=True, text=True, timeout=30)


def test_the_daemon_stops_at_start_naming_the_setting_when_the_port_is_taken(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = _run_daemon(tmp_path, f"127.0.0.1:{port}")
    assert run.returncode == 2, run.stderr
    assert f"setting 'http': cannot serve the display on 127.0.0.1:{port}" in run.stderr


def test_the_daemon_refuses_a_bad_address(tmp_path):
    run = _run_daemon(tmp_path, "localhost")
    assert run.returncode == 2 and "setting 'http'" in run.stderr
