"""The pit's HTTP server for real (aiohttp on a free port, plain HTTP clients): the page, the
board's snapshot, one stream for every table (the board first, then only the tiles that
changed), read-only routes, and a stuck screen dropped without slowing the others. Each
client signs in first (tests/attack/test_pit_signin.py attacks the sign-in)."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from shoe_floor.pit.board import Board
from shoe_floor.pit.people import CHANGERS, EVERYONE, PitRole, pit_people
from shoe_floor.pit.server import ROUTES, Access, PitServer, RouteRuleBroken, check_routes
from tests.display_client import get, wait_for
from tests.floor.test_pit_board import Table, news, row
from tests.pit_people import request, sign_in, write_people

COOKIES: dict[int, str] = {}  # a server's port: the session a test signed in with


def cookie(server: PitServer) -> str:
    if server.port not in COOKIES:
        COOKIES[server.port] = sign_in(server.url)
    return COOKIES[server.port]


def signed_get(server: PitServer, path: str) -> tuple[int, dict[str, str], bytes]:
    return request(server.url, "GET", path, cookie=cookie(server))


class Stream:
    """`GET /api/events`, each event as (kind, parsed data)."""

    def __init__(self, url: str, cookie: str):
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=20)
        self.conn.request("GET", "/api/events", headers={"Cookie": cookie})
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type").startswith("text/event-stream")

    def next(self, kinds: tuple[str, ...] = ("tiles", "tile", "floor", "foot")
             ) -> tuple[str, dict]:
        kind, data = None, b""
        while True:
            line = self.response.readline()
            if not line:
                raise EOFError("the stream ended")
            line = line.rstrip(b"\r\n")
            if not line:
                if kind in kinds:
                    return kind, json.loads(data)
                kind, data = None, b""
            elif line.startswith(b"event: "):
                kind = line[7:].decode()
            elif line.startswith(b"data: "):
                data = line[6:]

    def close(self) -> None:
        self.conn.close()


def people_at(path: Path):
    people = pit_people(write_people(path / "pit-people.json", ("boss",)))
    people.load()
    return people


@pytest.fixture
def server(tmp_path) -> Iterator[PitServer]:
    s = PitServer(Board(), "127.0.0.1", 0, people=people_at(tmp_path), queue_size=16)
    s.start()
    yield s
    s.stop()
    COOKIES.pop(s.port, None)


def state(server: PitServer, table: str, payload: bytes) -> None:
    server.post(lambda board, now: board.state(table, payload, True, now))


def test_the_page_its_files_and_the_snapshot(server):
    status, headers, body = get(server.url, "/")
    assert status == 200 and b"/static/pit.js" in body
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    for name in ("pit.js", "pit.css"):
        assert get(server.url, f"/static/{name}")[0] == 200
    table = Table()
    state(server, "t1", table.play("SHOE"))
    assert get(server.url, "/api/tiles")[0] == 401  # the page loads; its data needs a session
    wait_for(lambda: json.loads(signed_get(server, "/api/tiles")[2])["tiles"], what="a tile")
    board = json.loads(signed_get(server, "/api/tiles")[2])
    assert [t["table"] for t in board["tiles"]] == ["t1"]
    assert board["tiles"][0]["shoe"]["number"] == 1 and board["floor"]["tables"] == 1


@pytest.mark.parametrize(("method", "path"), [("POST", "/"), ("PUT", "/api/tiles"),
                                              ("DELETE", "/api/events"), ("POST", "/api/events")])
def test_read_only_every_other_method_is_refused(server, method, path):
    assert request(server.url, method, path, cookie=cookie(server))[0] == 405


def test_one_stream_carries_every_table_and_only_what_changed(server):
    tables = {f"t{n}": Table(name=f"t{n}") for n in range(1, 4)}
    for name, table in tables.items():
        state(server, name, table.play("SHOE"))
    wait_for(lambda: server.board.tables() == ["t1", "t2", "t3"], what="three tiles")
    stream = Stream(server.url, cookie(server))
    _, board = stream.next(("tiles",))
    assert [t["table"] for t in board["tiles"]] == ["t1", "t2", "t3"]
    state(server, "t2", tables["t2"].play("DEAL"))
    _, data = stream.next(("tile",))
    assert data["tile"]["table"] == "t2" and data["tile"]["state"] == "dealing"
    assert data["now"] > 0
    state(server, "t2", tables["t2"].views[-1])  # the same view again: nothing to send
    state(server, "t3", tables["t3"].play("DEAL"))
    _, data = stream.next(("tile",))
    assert data["tile"]["table"] == "t3"
    stream.close()


def test_a_floor_of_300_tables_is_one_board_then_one_event_per_change(server):
    tables = {f"T{n:03d}": Table(name=f"T{n:03d}") for n in range(300)}
    for name, table in tables.items():
        state(server, name, table.play("SHOE"))
    wait_for(lambda: len(server.board.tables()) == 300, what="300 tiles")
    stream = Stream(server.url, cookie(server))
    _, board = stream.next(("tiles",))
    assert [t["table"] for t in board["tiles"]] == sorted(tables)
    assert board["floor"]["tables"] == 300
    state(server, "T150", tables["T150"].play("DEAL 9C"))
    _, data = stream.next(("tile",))
    assert data["tile"]["table"] == "T150" and data["tile"]["coup"]["number"] == 1
    state(server, "T007", tables["T007"].play("DEAL"))
    assert stream.next(("tile",))[1]["tile"]["table"] == "T007"  # nothing else between
    stream.close()


def test_a_reading_of_the_store_moving_counts_alone_is_one_event_of_their_feet(server):
    tables = {f"t{n}": Table(name=f"t{n}") for n in range(1, 4)}
    for name, table in tables.items():
        state(server, name, table.play("SHOE DEAL 9C 2D KH 3S"))
    server.post(lambda board, now: board.store(news(*(row(t, tip=5) for t in tables)), now))
    wait_for(lambda: server.board.tables() == sorted(tables) and all(
        json.loads(server.board.tile_json(t))["store"]["tip"] == 5 for t in tables),
             what="the first reading")
    stream = Stream(server.url, cookie(server))
    stream.next(("tiles",))
    # The next reading: t1's and t3's tips moved, t2's did not.
    server.post(lambda board, now: board.store(news(row("t1", tip=9), row("t2", tip=5),
                                                    row("t3", tip=7)), now))
    kind, data = stream.next(("tile", "foot"))
    assert kind == "foot" and data["now"] > 0
    assert [(f["table"], f["store"]["tip"]) for f in data["feet"]] == [("t1", 9), ("t3", 7)]
    assert set(data["feet"][0]) == {"table", "store", "reported", "alarms"}
    # A change the table shows is its whole tile, as before.
    state(server, "t2", tables["t2"].play("DEAL"))
    kind, data = stream.next(("tile", "foot"))
    assert kind == "tile" and data["tile"]["table"] == "t2"
    assert data["tile"]["coup"]["number"] == 2 and data["tile"]["store"]["tip"] == 5
    stream.close()


def test_many_screens_at_once(server):
    table = Table()
    state(server, "t1", table.play("SHOE"))
    wait_for(lambda: server.board.tables() == ["t1"], what="the tile")
    streams = [Stream(server.url, cookie(server)) for _ in range(30)]
    wait_for(lambda: server.clients == 30, what="30 screens")
    state(server, "t1", table.play("DEAL"))
    for stream in streams:
        assert stream.next(("tiles",))[1]["tiles"][0]["state"] == "waiting_for_stakes"
        assert stream.next(("tile",))[1]["tile"]["state"] == "dealing"
        stream.close()
    assert server.dropped == 0


def test_a_stuck_screen_is_dropped_and_the_others_keep_up(server):
    stuck = socket.socket()
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a tiny window, never read
    stuck.connect(("127.0.0.1", server.port))
    stuck.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nCookie: "
                  f"{cookie(server)}\r\n\r\n".encode())
    good = Stream(server.url, cookie(server))
    good.next(("tiles",))
    wait_for(lambda: server.clients == 2, what="both screens")
    views = [Table(name="t1").play("SHOE")]
    pad = json.loads(views[0])
    for n in range(1, 3001):  # 3000 changes of a big tile: more than any socket buffers
        pad["state_words"] = f"change {n} " + "x" * 2000
        state(server, "t1", json.dumps(pad).encode())
        if n % 500 == 0:
            while good.next(("tile",))[1]["tile"]["state_words"].split()[1] != str(n):
                pass
        time.sleep(0.0005)
    wait_for(lambda: server.dropped == 1, what="the stuck screen dropped")
    assert server.clients == 1
    assert reads_to_the_end(stuck)  # the server closed it: reading ends, it does not hang
    stuck.close()
    good.close()


def reads_to_the_end(sock: socket.socket) -> bool:
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
    with pytest.raises(OSError):
        PitServer(Board(), "127.0.0.1", server.port, people=server.people).start()


# ---- who may use each route ------------------------------------------------------------------


def test_every_route_declares_its_roles_and_none_that_changes_admits_the_regulator(server):
    check_routes(ROUTES)  # the routes served today keep the rule
    bound = {(r.method, r.resource.canonical) for r in server._runner.app.router.routes()
             if r.method != "HEAD"}
    assert bound == set(ROUTES)  # and every route bound is declared
    signed = {route for route, access in ROUTES.items() if access.roles}
    assert signed == {("POST", "/api/sign-out"), ("GET", "/api/me"), ("GET", "/api/tiles"),
                      ("GET", "/api/events")}
    for method, path in signed:
        if method == "GET":
            assert get(server.url, path)[0] == 401


@pytest.mark.parametrize(("route", "access", "why"), [
    (("POST", "/api/ack"), Access(EVERYONE, changes=True), "never the regulator"),
    (("POST", "/api/ack"), Access(frozenset(), changes=True), "never the regulator"),
    (("POST", "/api/ack"), Access(CHANGERS), "declare it"),
    (("DELETE", "/api/alarm"), Access(frozenset({PitRole.PIT_BOSS})), "declare it"),
])
def test_a_route_that_would_let_the_regulator_change_anything_is_refused_at_start(
        tmp_path, route, access, why):
    routes = {**ROUTES, route: access}
    with pytest.raises(RouteRuleBroken, match=why):
        check_routes(routes)
    with pytest.raises(RouteRuleBroken):
        PitServer(Board(), "127.0.0.1", 0, people=people_at(tmp_path), routes=routes)
    check_routes({**ROUTES, route: Access(CHANGERS, changes=True)})  # the right declaration
