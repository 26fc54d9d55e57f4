"""The pit's HTTP server: the table display's SSE server (shoe_daemon/display/sse.py), for a
whole floor.

One Server-Sent Events stream per screen carries every table: first the whole board (event
`tiles`), then one `tile` event per table whose tile changed, and a `floor` event when the
floor's summary changes. A change of the counts alone (a tile's foot: most of what a reading
of the store moves, the stored tip of every table that committed in the last second) is not
a whole tile: the feet of all the tables whose counts alone changed in one piece of news go
as one `foot` event, which the page applies to the tiles it has. A few hundred tables at a
croupier's pace are then about one event a second per table's own change, and one for each
reading of the store. Each screen has a bounded queue; one that lets it fill (a stuck tab, a
dead network) is dropped, and its EventSource reconnects and starts again from the board.

Signed in (docs/floor.md, "Sign-in at the pit"): the page itself and its files load for
anyone, to show the sign-in screen; every other route needs a session of a person in the
pit's people file (shoe_floor/pit/people.py), in an HttpOnly, SameSite=Strict cookie
(`__Host-` and Secure with TLS). A sign-in is the console's (shoe_daemon/console/gate.py):
the same throttle counted before the slow hash, name tiles only at the pit's own screens.
Every POST meets the Origin check, and on loopback every request the Host check.

Each route declares the roles that may use it (`ROUTES`); a route that changes anything
on the floor says so, and may never admit the regulator: the server refuses to start with
such a route, and refuses (403) a regulator any changing request. Today only sign-in and
sign-out are POSTs: they change the person's own session alone.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

from shoe_daemon.console.gate import (
    MAX_BODY,
    SIGN_IN,
    Gate,
    Refusal,
    clear_session_cookie,
    cookie_name,
    json_response,
    live_session,
    loopback_hosts,
    read_json,
    refused,
    same_origin,
    secure,
    set_session_cookie,
)
from shoe_daemon.console.people import PeopleFile
from shoe_daemon.console.schema import REQUEST_ID, check_object
from shoe_daemon.console.sessions import Session, Sessions
from shoe_daemon.console.throttle import Lockout, Throttle
from shoe_daemon.display.sse import SseServer
from shoe_floor.pit.board import Board
from shoe_floor.pit.people import EVERYONE, PitRole

QUEUE_SIZE = 2048  # events a screen may lag behind before it is dropped
STATIC = Path(str(resources.files("shoe_floor.pit") / "static"))

SWEEP = 5.0  # s between looks for sessions past their time
SCREENS = frozenset({"127.0.0.1", "::1"})  # the pit's own screens, by default
SIGN_OUT = {"id": REQUEST_ID}
SESSION = web.RequestKey("session", Session)  # the request's session, once the guard found it

News = Callable[[Board, int], list[str]]


@dataclass(frozen=True)
class Access:
    """Who may use a route: `roles` (empty: anyone, signed in or not), and whether it
    changes anything on the floor (then never the regulator)."""

    roles: frozenset[PitRole]
    changes: bool = False


ANYONE = Access(frozenset())
SIGNED_IN = Access(EVERYONE)
ROUTES: Mapping[tuple[str, str], Access] = {
    ("GET", "/"): ANYONE,  # the page: its sign-in screen
    ("GET", "/static"): ANYONE,
    ("GET", "/api/people"): ANYONE,  # which floor; the name tiles at the pit's screens
    ("POST", "/api/sign-in"): ANYONE,
    ("POST", "/api/sign-out"): SIGNED_IN,  # one's own session alone
    ("GET", "/api/me"): SIGNED_IN,
    ("GET", "/api/tiles"): SIGNED_IN,
    ("GET", "/api/events"): SIGNED_IN,
}
OWN_SESSION = frozenset({("POST", "/api/sign-in"), ("POST", "/api/sign-out")})


class RouteRuleBroken(ValueError):
    """A route's declaration breaks the rules of `check_routes`."""


def check_routes(routes: Mapping[tuple[str, str], Access]) -> None:
    """Every route that may change anything (any method but GET, save signing oneself in
    and out) is declared as changing, and no changing route admits the regulator."""
    for (method, path), access in routes.items():
        if method != "GET" and (method, path) not in OWN_SESSION and not access.changes:
            raise RouteRuleBroken(f"{method} {path}: a {method} changes something: declare it "
                                  "`changes=True`")
        if access.changes and (not access.roles or PitRole.REGULATOR in access.roles):
            raise RouteRuleBroken(f"{method} {path}: changes the floor, so it names its roles, "
                                  "never the regulator (read-only)")


class PitServer(SseServer):
    """The pit's page, its board at /api/tiles and one stream for the whole floor, to the
    people of `people` signed in."""

    STATIC = STATIC
    SNAPSHOT = "/api/tiles"
    NAME = "pit"

    def __init__(self, board: Board, host: str, port: int, *, people: PeopleFile,
                 name: str = "the floor", screens: frozenset[str] = SCREENS,
                 ssl_context: ssl.SSLContext | None = None, idle: float = 900,
                 longest: float = 43200, loopback: bool = True,
                 queue_size: int = QUEUE_SIZE, log: Any = None,
                 applied: Callable[[Board], None] | None = None,
                 routes: Mapping[tuple[str, str], Access] = ROUTES) -> None:
        check_routes(routes)
        super().__init__(host, port, queue_size, log)
        self.board = board
        self.applied = applied  # called on the loop after each piece of news
        self.people = people
        self.name = name
        self.ssl_context = ssl_context
        self.loopback = loopback
        self.routes = routes
        self.sessions = Sessions(idle, longest)
        self.throttle = Throttle(on_lockout=self._locked_out)
        self.gate = Gate(people, self.throttle, screens, log)
        self._hosts: set[str] = set()
        self._floor = b""

    @property
    def tls(self) -> bool:
        return self.ssl_context is not None

    @property
    def cookie(self) -> str:
        return cookie_name("pit", self.tls)

    # ---- the server's loop: set-up ----------------------------------------------------------

    async def _bind(self) -> None:
        app = web.Application(middlewares=[self._guard], client_max_size=MAX_BODY)
        app.router.add_get("/", self._page)
        app.router.add_get("/api/people", self._people_list)
        app.router.add_post("/api/sign-in", self._sign_in)
        app.router.add_post("/api/sign-out", self._sign_out)
        app.router.add_get("/api/me", self._me)
        app.router.add_get(self.SNAPSHOT, self._snapshot)
        app.router.add_get("/api/events", self._events, allow_head=False)
        app.router.add_static("/static/", self.STATIC)
        shown = await self._listen(app, self.ssl_context)
        self.url = f"{'https' if self.tls else 'http'}://{shown}:{self.port}/"
        if self.loopback:
            self._hosts = loopback_hosts(shown, self.port)

    async def _serve(self) -> None:
        sweeper = asyncio.create_task(self._sweep())
        assert self._stopped is not None
        await self._stopped.wait()
        sweeper.cancel()
        await super()._serve()

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP)
            for session in self.sessions.expired():
                self._ended(session, "expired")

    def owner(self, request: web.Request) -> str:
        session = request.get(SESSION)
        return session.id if session is not None else ""

    # ---- the server's loop: what every request meets ---------------------------------------

    def _access(self, request: web.Request) -> Access | None:
        """The route's declaration (None: no such route, answered 404 or 405)."""
        route = request.match_info.route
        resource = route.resource
        if resource is None or route.method not in ("GET", "POST", "HEAD"):
            return None
        path = resource.canonical
        method = "GET" if route.method == "HEAD" else route.method
        access = self.routes.get((method, path))
        if access is None:
            raise Refusal(500, f"{method} {path} declares no roles: refused")
        return access

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            if self._hosts and request.host not in self._hosts:
                raise Refusal(421, f"this page answers to {sorted(self._hosts)[0]}, not "
                                   f"{request.host!r}")
            if request.method == "POST":
                same_origin(request, self.tls)
            access = self._access(request)
            if access is not None and access.roles:
                session = self._session(request)
                if session.role not in access.roles or (
                        access.changes and session.role is PitRole.REGULATOR):
                    raise Refusal(403, f"{session.person} is a {session.role.value}: this "
                                       "is not theirs to do")
                request[SESSION] = session
            response = await handler(request)
        except Exception as e:
            answer = refused(e)
            if answer is None:
                raise
            response = answer
        return secure(response, self.tls)

    def _session(self, request: web.Request) -> Session:
        return live_session(self.sessions, self.people, request.cookies.get(self.cookie),
                            self._ended)

    def _ended(self, session: Session, why: str) -> None:
        self.end_streams(session.id)
        if self.log is not None:
            self.log.info("pit.signed_out", person=session.person, why=why,
                          session=session.id)

    def _locked_out(self, lockout: Lockout) -> None:
        if self.log is not None:
            self.log.warning("pit.lockout", **lockout.body())

    # ---- the routes -------------------------------------------------------------------------

    async def _people_list(self, request: web.Request) -> web.Response:
        """Which floor this is; who may sign in (names for the tiles) to the pit's own
        screens alone, never a role or secret. Elsewhere a person types their id."""
        floor = {"name": self.name}
        if not self.gate.at_screen(request):
            raise Refusal(403, "the staff list is shown only on the pit's own screens: type "
                               "your staff id", {"floor": floor})
        people = [{"id": p.id, "name": p.name, "pin": p.pin is not None}
                  for p in self.people.roster().people]
        return json_response({"floor": floor, "people": people})

    async def _sign_in(self, request: web.Request) -> web.Response:
        data = check_object(await read_json(request), SIGN_IN, "a sign-in")
        person, remote = await self.gate.identify(request, data, "a sign-in",
                                                  "pit.sign_in_failed")
        if person is None:
            raise Refusal(401, "sign-in refused: wrong PIN, or a badge or person not "
                               "configured at this pit")
        token = self.sessions.open(person.id, person.name, person.role, Sessions.new_id(),
                                   data["method"])
        session, _ = self.sessions.find(token)
        assert session is not None
        if self.log is not None:
            self.log.info("pit.signed_in", person=person.id, role=person.role.value,
                          method=data["method"], session=session.id, remote=remote)
        response = json_response({"me": self._me_of(session)})
        set_session_cookie(response, self.cookie, token, self.tls, self.sessions.longest)
        return response

    async def _sign_out(self, request: web.Request) -> web.Response:
        session = request[SESSION]
        check_object(await read_json(request), SIGN_OUT, "a sign-out")
        self.sessions.close(session)
        self._ended(session, "asked")
        response = json_response({"signed_out": session.person})
        clear_session_cookie(response, self.cookie, self.tls)
        return response

    def _me_of(self, session: Session) -> dict[str, Any]:
        return {**session.public(self.sessions.idle, self.sessions.longest),
                "floor": self.name}

    async def _me(self, request: web.Request) -> web.Response:
        return json_response({"me": self._me_of(request[SESSION])})

    def post(self, news: News) -> None:
        """Run `news(board, now)` on the server's loop; never blocks the caller."""
        self.call_soon(self._apply, news)

    def snapshot(self) -> bytes:
        return self._board_json()

    def first_event(self) -> bytes:
        return b"event: tiles\ndata: " + self._board_json() + b"\n\n"

    def _apply(self, news: News) -> None:
        now = time.time_ns()
        try:
            changed = news(self.board, now)
        except Exception as e:  # one bad message must not stop the page
            if self.log is not None:
                self.log.error("pit.news_failed", error=repr(e))
            return
        if self.applied is not None:
            self.applied(self.board)
        stamp = str(now // 1_000_000).encode()
        feet = [table for table in changed if self.board.foot_only(table)]
        events = [b'event: tile\ndata: {"now":' + stamp + b',"tile":'
                  + self.board.tile_json(table) + b"}\n\n"
                  for table in changed if not self.board.foot_only(table)]
        if feet:
            events.append(b'event: foot\ndata: {"now":' + stamp + b',"feet":['
                          + b",".join(self.board.foot_json(table) for table in feet)
                          + b"]}\n\n")
        floor = self._floor_json(now)
        if floor[1] != self._floor:
            self._floor = floor[1]
            events.append(b"event: floor\ndata: " + floor[0] + b"\n\n")
        for event in events:
            self.fan_out(event)

    def _floor_json(self, now: int) -> tuple[bytes, bytes]:
        """The floor's summary as sent, and without its clock (to see whether it changed)."""
        summary = self.board.floor(now)
        plain = json.dumps({**summary, "now": 0}, sort_keys=True).encode()
        return json.dumps(summary, sort_keys=True).encode(), plain

    def _board_json(self) -> bytes:
        now = time.time_ns()
        tiles = b",".join(self.board.tile_json(t) for t in self.board.tables())
        return b'{"floor":' + self._floor_json(now)[0] + b',"tiles":[' + tiles + b"]}"
