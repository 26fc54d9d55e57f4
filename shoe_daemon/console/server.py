"""The croupier's console: its page and HTTP JSON API (docs/console.md), served by aiohttp
on its own listener, in its own thread with its own event loop, never on the display's.

The table's loop hands over what changed and goes on (`publish_view`, `publish_console`);
the server hands actions to the loop through the inbox and awaits the outcome without
blocking, by the contract of console/handoff.py; the answers are kept for their retries
(console/answers.py). What every request meets, in order:
- its size (`MAX_BODY`) and, off loopback, TLS (the daemon refuses to start without it);
- the `Host` it names (on loopback only this machine's names: no DNS rebinding);
- for a POST: an `Origin` that is this console's own (and `Sec-Fetch-Site` if sent), a JSON
  body (no duplicate keys, no NaN), exactly the fields the request takes (schema.py);
- a session (an HttpOnly, SameSite=Strict cookie) where one is needed, its person still
  configured with that role;
- a sign-in: the throttle (throttle.py), counted before the slow hash; nothing of a refused
  one is kept but its count;
- the action's kind and arguments, and the role it needs;
- its client-made request id: a retry gets the first answer, or waits for it;
- then the table's own checks, in its loop.
A refusal is a JSON `{"error": ...}` with its status, and leaves nothing in the ledger. A
fault of the console's own (a ledger the recall cannot read) is a 500 that says only that,
and is logged with its traceback (`console.fault`): never a 404, never the traceback sent.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

from shoe_daemon.console.actions import (
    ACTIONS,
    Action,
    ActionKind,
    Approval,
    Refused,
    arguments,
)
from shoe_daemon.console.answers import (
    Answer,
    Answers,
    LedgerActions,
    Reply,
    Work,
    action_body,
    asked,
)
from shoe_daemon.console.gate import (
    HEADERS,
    MAX_BODY,
    SIGN_IN,
    Gate,
    clear_session_cookie,
    cookie_name,
    error_response,
    json_response,
    live_session,
    loopback_hosts,
    read_json,
    refused,
    same_origin,
    secure,
    set_session_cookie,
)
from shoe_daemon.console.gate import Refusal as _Error
from shoe_daemon.console.handoff import ADMIT, ANSWER, Inbox, Outcome
from shoe_daemon.console.people import PeopleFile, Role
from shoe_daemon.console.recall import NoSuchCoup
from shoe_daemon.console.schema import REQUEST_ID, Field, Invalid, check_object
from shoe_daemon.console.sessions import Session, Sessions
from shoe_daemon.console.throttle import Lockout, Throttle
from shoe_daemon.display.background import BackgroundServer
from shoe_daemon.display.words import data as words_data

STATIC = Path(str(resources.files("shoe_daemon.console") / "static"))
SWEEP = 5.0  # s between looks for sessions past their time
KEEPALIVE = 15.0
QUEUE_SIZE = 32
APPROVAL = {
    "method": Field("pin or badge", choices=("pin", "badge")),
    "person": Field("the supervisor's id", required=False, max_len=32),
    "pin": Field("her PIN", required=False, max_len=64),
    "badge": Field("her badge", required=False, max_len=64),
}
ONLY_ID = {"id": REQUEST_ID}
NOT_ACCEPTED = "the supervisor's PIN or badge was not accepted"
SCREENS = frozenset({"127.0.0.1", "::1"})  # the table's own screens: the Pi's kiosk
EMPTY_CONSOLE = b'{"latches":[],"key_refusals":[],"lamp":"","reports":[],"money":null}'


@dataclass(eq=False)
class _Client:
    queue: asyncio.Queue[bytes]
    session: str
    task: asyncio.Task[Any] | None = None


class ConsoleServer(BackgroundServer):
    """The console's page and API for one table; `inbox` is what the table's loop serves.

    `recall(shoe, coup)` answers the recall page (console/recall.py), off the event loop;
    `ledger` answers a retry whose session is gone (console/answers.py). `admit` and
    `answer` are the handoff's deadlines (console/handoff.py).
    """

    NAME = "console"

    def __init__(self, host: str, port: int, *, people: PeopleFile,
                 recall: Callable[[int | None, int | None], dict[str, Any]] | None = None,
                 ssl_context: ssl.SSLContext | None = None, idle: float = 900,
                 longest: float = 43200, log: Any = None, admit: float = ADMIT,
                 answer: float = ANSWER, ledger: LedgerActions | None = None,
                 loopback: bool = True, screens: frozenset[str] = SCREENS) -> None:
        super().__init__(host, port, log)
        self.people = people
        self.recall = recall
        self.ssl_context = ssl_context
        self.loopback = loopback
        self.admit = admit
        self.answer = max(answer, admit)
        self.inbox = Inbox()
        self.sessions = Sessions(idle, longest)
        self.screens = screens
        self.throttle = Throttle(on_lockout=self._locked_out)
        self.gate = Gate(people, self.throttle, screens, log)
        self.answers = Answers(longest, ledger)
        self._view = b"{}"
        self._console = EMPTY_CONSOLE
        self._hosts: set[str] = set()

    @property
    def tls(self) -> bool:
        return self.ssl_context is not None

    @property
    def cookie(self) -> str:
        return cookie_name("console", self.tls)

    # ---- any thread ----------------------------------------------------------------------------

    def publish_view(self, view: bytes) -> None:
        """The table display's public view, as committed; never blocks."""
        self.call_soon(self._set, "_view", view)

    def publish_console(self, state: bytes) -> None:
        """The console's own state (latches, refused KEYs), as committed; never blocks."""
        self.call_soon(self._set, "_console", state)

    def close_sessions(self, timeout: float = 2.0) -> list[Session]:
        """Every session ended now (the daemon stops); they are returned for the ledger."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return []

        async def close() -> list[Session]:
            gone = self.sessions.close_all()
            for session in gone:
                self._drop_streams(session.id)
                self.answers.forget(session.id)
            return gone

        try:
            return asyncio.run_coroutine_threadsafe(close(), loop).result(timeout)
        except (concurrent.futures.TimeoutError, RuntimeError):
            return []

    # ---- the server's loop: set-up --------------------------------------------------------------

    async def _bind(self) -> None:
        app = web.Application(middlewares=[self._guard], client_max_size=MAX_BODY)
        app.router.add_get("/", self._page)
        app.router.add_get("/words.json", self._words)
        app.router.add_get("/api/people", self._people)
        app.router.add_post("/api/sign-in", self._sign_in)
        app.router.add_post("/api/sign-out", self._sign_out)
        app.router.add_get("/api/me", self._me)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/events", self._events, allow_head=False)
        app.router.add_post("/api/actions", self._actions)
        app.router.add_get("/api/recall", self._recall)
        app.router.add_static("/static/", STATIC)
        shown = await self._listen(app, self.ssl_context)
        port = self.port
        self.url = f"{'https' if self.tls else 'http'}://{shown}:{port}/"
        if self.loopback:
            self._hosts = loopback_hosts(shown, port)

    async def _serve(self) -> None:
        assert self._stopped is not None
        sweeper = asyncio.create_task(self._sweep())
        known = asyncio.create_task(self.answers.ready())  # the ledger's actions, read early
        await self._stopped.wait()
        sweeper.cancel()  # no session ends as expired while the streams end
        known.cancel()
        await super()._serve()

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP)
            for session in self.sessions.expired():
                self._ended(session, "expired")

    def _set(self, name: str, value: bytes) -> None:
        setattr(self, name, value)
        if not self._clients:
            return  # nobody watching: kept for the next request or stream
        event = b"event: state\ndata: " + self._shared() + b"\n\n"
        for client in list(self._clients):
            try:
                client.queue.put_nowait(event)
            except asyncio.QueueFull:  # a stuck screen: dropped, it reconnects from the whole
                self._clients.discard(client)
                if client.task is not None:
                    client.task.cancel()

    def _shared(self) -> bytes:
        return b'{"view":' + self._view + b',"console":' + self._console + b"}"

    # ---- the server's loop: what every request meets --------------------------------------------

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            if self._hosts and request.host not in self._hosts:
                raise _Error(421, f"this console answers to {sorted(self._hosts)[0]}, not "
                                  f"{request.host!r}")
            if request.method == "POST":
                same_origin(request, self.tls)
            response = await handler(request)
        except Exception as e:  # a refusal answered; the console's own fault logged whole
            answer = refused(e)
            if answer is None:
                if isinstance(e, web.HTTPException):
                    raise
                if self.log is not None:
                    self.log.exception("console.fault", method=request.method,
                                       path=request.path)
                answer = self._error(500, "the console could not answer this: the fault is "
                                          "logged at the table")
            response = answer
        return secure(response, self.tls)

    def _session(self, request: web.Request) -> Session:
        return live_session(self.sessions, self.people, request.cookies.get(self.cookie),
                            self._ended)

    def _first_time(self, request_id: str) -> None:
        """A sign-in's id: new, or refused as replayed (nothing is kept for it here; the
        sign-in's record makes it known)."""
        if self.answers.known(request_id):
            raise _Error(409, f"request {request_id} was seen before: refused as replayed")

    async def _submit(self, action: Action, answer: Answer | None = None) -> Outcome:
        """The action to the table's loop and its outcome, by the handoff's contract; the
        table's refusal (nothing kept) as _Error."""
        handoff = self.inbox.submit(action, self.admit)
        if answer is not None:
            answer.handoff = handoff
        try:
            outcome = await handoff.outcome()
        except Refused as e:
            body = e.body()
            raise _Error(e.status, e.reason, {k: v for k, v in body.items() if k != "error"}) \
                from None
        self.answers.committed(outcome)
        return outcome

    async def _answer(self, session: Session, request_id: str, what: str,
                      work: Work) -> web.Response:
        """The answer to a request of this session: the first one for a retry, or `work`'s.
        Waited for at most `answer` s; past it, and only while the table's loop has the
        action (taken, not finished), 202: ask again with the same id."""
        await self.answers.ready()
        try:
            answer = self.answers.ask(session, request_id, what, work)
        except Refused as e:
            raise _Error(e.status, e.reason) from None
        try:
            try:
                status, body = await asyncio.wait_for(asyncio.shield(answer.task), self.answer)
            except TimeoutError:
                if answer.still_being_done:
                    return self._json({"in_progress": True, "id": request_id,
                                       "message": "the table took it and is still doing it: "
                                                  "ask again with the same request id for its "
                                                  "outcome"}, 202)
                status, body = await asyncio.shield(answer.task)  # done, or withdrawn now
        except Exception:  # the ledger unreadable for a past answer: nothing kept, ask again
            if self.log is not None:
                self.log.exception("console.answer_failed", id=request_id)
            raise _Error(503, "the answer could not be read: ask again with the same "
                              "request id") from None
        return self._json(body, status)

    def _ended(self, session: Session, why: str) -> None:
        """A session ended without its person asking: its streams close, its answers go, and
        the ledger gets its sign-out (never refused)."""
        self._drop_streams(session.id)
        self.answers.forget(session.id)
        self.inbox.submit(Action(Sessions.new_id() + Sessions.new_id(), "sign_out",
                                 session.person, session.role,
                                 {"why": why, "session": session.id}), None)
        if self.log is not None:
            self.log.info("console.signed_out", person=session.person, why=why,
                          session=session.id)

    def _drop_streams(self, session_id: str) -> None:
        for client in list(self._clients):
            if client.session == session_id and client.task is not None:
                client.task.cancel()

    _json = staticmethod(json_response)
    _error = staticmethod(error_response)

    # ---- the routes ----------------------------------------------------------------------------

    async def _page(self, _: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    async def _words(self, _: web.Request) -> web.Response:
        """The one words file the table display reads, so that the page says the table's
        terms in the table's language (docs/console.md, "The page")."""
        return web.json_response(words_data())

    def _table(self) -> dict[str, str]:
        """Which table this is, and its language: said on the sign-in screen too."""
        view = json.loads(self._view)
        return {"name": view.get("table", ""), "house": view.get("house", ""),
                "language": view.get("language", "en"), "terms": view.get("terms", "fr")}

    async def _people(self, request: web.Request) -> web.Response:
        """Who may sign in (for the name tiles), to the table's own screens alone: names and
        ids, never a role or secret. Elsewhere a person types their id: a client that is not
        a screen learns nothing of the staff."""
        if not self._at_screen(request):
            raise _Error(403, "the staff list is shown only on the table's own screens: "
                              "type your staff id", {"table": self._table()})
        roster = self.people.roster()
        people = [{"id": p.id, "name": p.name, "pin": p.pin is not None} for p in roster.people]
        return self._json({"table": self._table(), "people": people})

    def _at_screen(self, request: web.Request) -> bool:
        return self.gate.at_screen(request)

    def _locked_out(self, lockout: Lockout) -> None:
        """A delay started: logged, and handed to the table's loop for the ledger."""
        body = lockout.body()
        if self.log is not None:
            self.log.warning("console.lockout", **body)
        self.inbox.record("console.lockout", body)

    async def _sign_in(self, request: web.Request) -> web.Response:
        """Checked, counted before the slow hash (throttle.py), then the session. Nothing of
        a refused attempt is kept but its count: not its request id, not an unknown person."""
        data = check_object(await read_json(request), SIGN_IN, "a sign-in")
        method = data["method"]
        person, remote = await self.gate.identify(request, data, "a sign-in",
                                             "console.sign_in_failed")
        if person is None:
            raise _Error(401, "sign-in refused: wrong PIN, or a badge or person not "
                              "configured at this table")
        self._first_time(data["id"])
        session_id = Sessions.new_id()
        await self._submit(Action(data["id"], "sign_in", person.id, person.role,
                                  {"method": method, "session": session_id}))
        token = self.sessions.open(person.id, person.name, person.role, session_id, method)
        session, _ = self.sessions.find(token)
        assert session is not None
        if self.log is not None:
            self.log.info("console.signed_in", person=person.id, role=person.role.value,
                          method=method, session=session_id, remote=remote)
        response = self._json({"me": self._me_of(session)})
        set_session_cookie(response, self.cookie, token, self.tls, self.sessions.longest)
        return response

    async def _sign_out(self, request: web.Request) -> web.Response:
        session = self._session(request)
        data = check_object(await read_json(request), ONLY_ID, "a sign-out")
        response = await self._answer(session, data["id"], asked("sign_out", None),
                                      lambda answer: self._signed_out(answer, session))
        if response.status == 200:
            clear_session_cookie(response, self.cookie, self.tls)
        return response

    async def _signed_out(self, answer: Answer, session: Session) -> Reply:
        try:
            await self._submit(Action(answer.id, "sign_out", session.person, session.role,
                                      {"why": "asked", "session": session.id}), answer)
        except _Error as e:
            return e.status, {"error": e.reason, **e.more}
        self.sessions.close(session)
        self._drop_streams(session.id)
        self.answers.forget(session.id)
        if self.log is not None:
            self.log.info("console.signed_out", person=session.person, why="asked",
                          session=session.id)
        return 200, {"signed_out": session.person}

    def _me_of(self, session: Session) -> dict[str, Any]:
        """Who is signed in, and the kinds they may take only with a supervisor's approval."""
        return {**session.public(self.sessions.idle, self.sessions.longest),
                "needs_approval": [k.name for k in ACTIONS.values()
                                   if k.api and k.needs_approval(session.role)]}

    async def _me(self, request: web.Request) -> web.Response:
        session = self._session(request)
        return self._json({"me": self._me_of(session)})

    async def _state(self, request: web.Request) -> web.Response:
        session = self._session(request)
        me = json.dumps(self._me_of(session)).encode()
        return web.Response(body=self._shared()[:-1] + b',"me":' + me + b"}",
                            content_type="application/json")

    async def _actions(self, request: web.Request) -> web.Response:
        """An action of the signed-in person; with `approval`, a supervisor's PIN or badge
        authorises it (contract 1). A retry (its id known) gets its first answer before any
        approval is looked at: the PIN is hashed once, for the first request alone."""
        session = self._session(request)
        body = await read_json(request)
        if not isinstance(body, dict):
            raise Invalid("an action must be a JSON object")
        unknown = sorted(set(body) - {"id", "kind", "args", "approval"})
        if unknown:
            raise Invalid(f"an action: unknown field {unknown[0]!r} (it takes id, kind, args "
                          "and approval)")
        request_id = REQUEST_ID.check("id", body.get("id"))
        kind = ACTIONS.get(body.get("kind")) if isinstance(body.get("kind"), str) else None
        if kind is None or not kind.api:
            raise Invalid(f"unknown action kind {body.get('kind')!r} (known: "
                          f"{', '.join(k for k, v in ACTIONS.items() if v.api)})")
        args = arguments(kind.name, body.get("args"))
        approval = None if body.get("approval") is None else check_object(
            body["approval"], APPROVAL, "an approval")
        what = asked(kind.name, args)
        await self.answers.ready()
        if approval is not None and not self.answers.known(request_id):
            approved_by = await self._approval(request, session, kind, approval)
        else:
            approved_by = None
            if kind.needs_approval(session.role) and not self.answers.known(request_id):
                needs = " or ".join(sorted(r.value for r in kind.roles))
                raise _Error(403, f"{kind.name} needs a {needs}: {session.person} is a "
                                  f"{session.role.value}")
        action = Action(request_id, kind.name, session.person, session.role, args,
                        approved_by)
        return await self._answer(session, request_id, what,
                                  lambda answer: self._act(answer, action))

    async def _approval(self, request: web.Request, session: Session, kind: ActionKind,
                        data: dict[str, str]) -> Approval:
        """A supervisor's PIN or badge for this one action: checked as a sign-in is (the
        throttle, counted before the hash; one answer, 401, for every failure); refused
        where the action needs no approval, or the approver is not a supervisor."""
        if not kind.needs_approval(session.role) and not kind.supervised:
            raise _Error(400, f"{kind.name} needs no supervisor: do it without her approval")
        person, remote = await self.gate.identify(request, data, "an approval",
                                             "console.approval_failed")
        if person is None:
            raise _Error(401, NOT_ACCEPTED)
        if person.role is not Role.SUPERVISOR:
            if self.log is not None:
                self.log.warning("console.approval_refused", person=person.id,
                                 role=person.role.value, kind=kind.name, by=session.person,
                                 remote=remote)
            raise _Error(403, f"{person.id} is a {person.role.value}: only a supervisor may "
                              "approve")
        if self.log is not None:
            self.log.info("console.approved", person=person.id, method=data["method"],
                          kind=kind.name, by=session.person, remote=remote)
        return Approval(person.id, person.role, data["method"])

    async def _act(self, answer: Answer, action: Action) -> Reply:
        try:
            outcome = await self._submit(action, answer)
        except _Error as e:
            return e.status, {"error": e.reason, **e.more}
        return 200, action_body(outcome)

    async def _recall(self, request: web.Request) -> web.Response:
        self._session(request)
        if self.recall is None:
            raise _Error(503, "the recall is not available")
        unknown = sorted(set(request.query) - {"shoe", "coup"})
        if unknown:
            raise Invalid(f"the recall takes shoe and coup, not {unknown[0]!r}")
        numbers: dict[str, int | None] = {}
        for name in ("shoe", "coup"):
            text = request.query.get(name)
            if text is not None and (not text.isdigit() or not 1 <= int(text) <= 999_999):
                raise Invalid(f"{name!r} must be a number from 1")
            numbers[name] = int(text) if text is not None else None
        if numbers["shoe"] is not None and numbers["coup"] is None:
            raise Invalid("give the coup with the shoe")
        loop = asyncio.get_running_loop()
        try:
            found = await loop.run_in_executor(None, self.recall, numbers["shoe"],
                                               numbers["coup"])
        except NoSuchCoup as e:
            raise _Error(404, str(e)) from None
        return self._json(found)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        session = self._session(request)
        client = _Client(asyncio.Queue(QUEUE_SIZE), session.id, asyncio.current_task())
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                               "X-Accel-Buffering": "no", **HEADERS})
        await response.prepare(request)
        client.queue.put_nowait(b"event: state\ndata: " + self._shared() + b"\n\n")
        self._clients.add(client)
        try:
            await response.write(b"retry: 1000\n\n")
            while True:
                try:
                    event = await asyncio.wait_for(client.queue.get(), KEEPALIVE)
                except TimeoutError:
                    await response.write(b": keep-alive\n\n")
                    continue
                await response.write(event)
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        except Exception:  # the stream is under way: logged and closed, no second answer
            if self.log is not None:
                self.log.exception("console.fault", method=request.method, path=request.path)
        finally:
            self._clients.discard(client)
        if request.transport is not None:
            request.transport.close()
        return response


def tls_context(cert: str, key: str) -> ssl.SSLContext:
    """The console's TLS (1.2 at least); OSError or ssl.SSLError if the files will not do."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context

