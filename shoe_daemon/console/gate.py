"""The way in, shared by the croupier's console and the pit's page (shoe_floor/pit/server.py):
a POST's Origin, a JSON body of bounded size, and whose PIN or badge a sign-in carries,
through the sign-in throttle (throttle.py), counted before the slow hash.

Each server keeps its own people file (with its own roles), throttle and sessions; what a
request must meet to get in is written once, here.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from shoe_daemon.console.people import PeopleFile, Person
from shoe_daemon.console.schema import REQUEST_ID, Field, Invalid
from shoe_daemon.console.sessions import Session, Sessions
from shoe_daemon.console.throttle import Attempt, NotNow, Throttle, is_screen

MAX_BODY = 8 * 1024  # bytes: the largest request is a reason of 300 characters
HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "frame-ancestors 'none'; form-action 'self'",
}

SIGN_IN = {
    "id": REQUEST_ID,
    "method": Field("pin or badge", choices=("pin", "badge")),
    "person": Field("the person's id", required=False, max_len=32),
    "pin": Field("the PIN", required=False, max_len=64),
    "badge": Field("the badge", required=False, max_len=64),
}


class Refusal(Exception):
    """A request refused: its status, why, and more to say (a money rule's code)."""

    def __init__(self, status: int, reason: str, more: dict[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.more = more or {}


def json_response(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, content_type="application/json",
                        body=json.dumps(body, separators=(",", ":")).encode())


def error_response(status: int, reason: str, more: dict[str, Any] | None = None
                   ) -> web.Response:
    return json_response({"error": reason, **(more or {})}, status)


def refused(error: Exception) -> web.Response | None:
    """The JSON answer to a request refused while it was served (None: not a refusal, a
    fault of the server's own or a redirect)."""
    if isinstance(error, Refusal):
        return error_response(error.status, error.reason, error.more)
    if isinstance(error, Invalid):
        return error_response(400, str(error))
    if isinstance(error, web.HTTPRequestEntityTooLarge):
        return error_response(413, f"a request body may hold at most {MAX_BODY} bytes")
    if isinstance(error, web.HTTPException) and error.status >= 400:
        return error_response(error.status, error.reason)
    return None


def secure(response: web.StreamResponse, tls: bool) -> web.StreamResponse:
    """The headers every answer carries (a stream has sent its own)."""
    if not response.prepared:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        if tls:
            response.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
    return response


def live_session(sessions: Sessions, people: PeopleFile, token: str | None,
                 ended: Callable[[Session, str], None]) -> Session:
    """The live session of a cookie's token, its person still in the people file with that
    role; else 401, and each session found past its time or its person's is `ended`."""
    session, why = sessions.find(token)
    if session is None:
        if why == "expired":
            for gone in sessions.expired():
                ended(gone, "expired")
            raise Refusal(401, "your session has expired: sign in again")
        raise Refusal(401, "not signed in")
    person = people.roster().get(session.person)
    if person is None or person.role is not session.role:
        sessions.close(session)
        ended(session, "removed")
        raise Refusal(401, f"{session.person} is no longer configured as a "
                           f"{session.role.value}: signed out")
    return session


def set_session_cookie(response: web.Response, name: str, token: str, tls: bool,
                       longest: float) -> None:
    """HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Secure with
    TLS; it lasts no longer than the session may."""
    response.set_cookie(name, token, httponly=True, samesite="Strict", secure=tls, path="/",
                        max_age=int(longest))


def clear_session_cookie(response: web.Response, name: str, tls: bool) -> None:
    response.del_cookie(name, path="/", secure=tls, httponly=True, samesite="Strict")


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise Invalid(f"the key {key!r} is given twice")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise Invalid(f"{name} is not JSON")


def parse_json(data: bytes) -> Any:
    """A body as JSON: UTF-8, no key twice, no NaN; Invalid saying why not."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Invalid("the body is not UTF-8") from None
    try:
        return json.loads(text, object_pairs_hook=_strict_object, parse_constant=_no_constant)
    except ValueError as e:  # JSONDecodeError and Invalid
        raise Invalid(f"the body is not valid JSON: {e}") from None


async def read_json(request: web.Request) -> Any:
    if request.content_type != "application/json":
        raise Refusal(415, "the body must be application/json")
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise Refusal(413, f"a request body may hold at most {MAX_BODY} bytes")
    return parse_json(await request.read())


def same_origin(request: web.Request, tls: bool) -> None:
    """A POST comes from this server's own page, or is refused (403)."""
    origin = request.headers.get("Origin")
    own = f"{'https' if tls else 'http'}://{request.host}"
    if origin is None:
        raise Refusal(403, "a request without an Origin header is refused")
    if origin != own:
        raise Refusal(403, f"a request from another origin ({origin}) is refused")
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        raise Refusal(403, f"a {site} request is refused")


def loopback_hosts(shown: str, port: int) -> set[str]:
    """The Host headers a server on loopback answers to: this machine's names alone (no DNS
    rebinding)."""
    return {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"{shown}:{port}"}


def _signed_in(check: asyncio.Future[Person | None]) -> str | None:
    """Whose PIN a finished check matched (None: no one, or the check failed)."""
    if check.cancelled() or check.exception() is not None:
        return None
    person = check.result()
    return person.id if person is not None else None


@dataclass
class Gate:
    """Whose PIN or badge a request carries, for one server's people and throttle."""

    people: PeopleFile
    throttle: Throttle
    screens: frozenset[str]
    log: Any = None

    def at_screen(self, request: web.Request) -> bool:
        return is_screen(request.remote or "", self.screens)

    async def identify(self, request: web.Request, data: dict[str, str], noun: str,
                       what: str) -> tuple[Person | None, str]:
        """Whose PIN or badge this is (None: nobody's), through the throttle, counted before
        the slow hash: a sign-in and a supervisor's approval meet the same checks. A failure
        is logged as `what` (never the PIN or the badge)."""
        method = data["method"]
        wanted = {"pin": {"person", "pin"}, "badge": {"badge"}}[method]
        given = set(data) - {"id", "method"}
        if given != wanted:
            raise Refusal(400, f"{noun} by {method} takes {' and '.join(sorted(wanted))}, and "
                               "nothing else")
        remote = request.remote or "?"
        roster = self.people.roster()
        named = data.get("person")
        attempt = Attempt(method, named if named and roster.get(named) else None, remote,
                          self.at_screen(request))
        try:
            ticket = self.throttle.admit(attempt)
        except NotNow as e:
            raise Refusal(429, e.reason) from None
        if method == "pin":
            # The slot is the hash's until the hash ends, even if the client goes away.
            checking = asyncio.get_running_loop().run_in_executor(
                None, roster.check_pin, data["person"], data["pin"])
            checking.add_done_callback(lambda f: self.throttle.done(ticket, _signed_in(f)))
            person = await asyncio.shield(checking)
        else:
            person = roster.by_badge(data["badge"])
            self.throttle.done(ticket, person.id if person is not None else None)
        if person is None and self.log is not None:  # never the PIN or the badge
            self.log.warning(what, person=attempt.person, method=method, remote=remote,
                             at_screen=attempt.screen)
        return person, remote


def cookie_name(name: str, tls: bool) -> str:
    """A session cookie's name: with TLS `__Host-` makes the browser keep it to this origin,
    TLS and path / only."""
    return f"__Host-{name}" if tls else name
