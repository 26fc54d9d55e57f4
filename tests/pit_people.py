"""The pit's people for tests: a people file written as `shoe-floor people add` writes it
(the same Roster and PeopleFile), and a sign-in over real HTTP giving the session's cookie."""

from __future__ import annotations

import http.client
import json
import ssl
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from shoe_daemon.console.people import Person
from shoe_floor.pit.people import PitRole, pit_people

PINS = {"boss": "4711", "watcher": "5822", "inspector": "6933"}
ROLES = {"boss": PitRole.PIT_BOSS, "watcher": PitRole.SURVEILLANCE,
         "inspector": PitRole.REGULATOR}
NAMES = {"boss": "Paul Boss", "watcher": "Sara Watts", "inspector": "Ines Regul"}


def write_people(path: Path, ids: tuple[str, ...] = tuple(PINS), badges: bool = False) -> Path:
    """The pit's people file at `path` (its key beside it): each of `ids` with its PIN (and
    badge `badge-<id>`)."""
    people = pit_people(path)
    roster = people.load(create_key=True)
    for pid in ids:
        roster = roster.with_person(Person(pid, NAMES[pid], ROLES[pid]))
        roster = roster.pin_for(pid, PINS[pid])
        if badges:
            roster = roster.badge_for(pid, f"badge-{pid}")
    people.save(roster)
    return path


def connection(url: str, source: str = "", timeout: float = 20.0) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    bind = (source, 0) if source else None
    if parts.scheme == "https":
        return http.client.HTTPSConnection(parts.hostname, parts.port, timeout=timeout,
                                           source_address=bind,
                                           context=ssl._create_unverified_context())
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout,
                                      source_address=bind)


def request(url: str, method: str, path: str, body: object = None, cookie: str = "",
            source: str = "", origin: str | None = "") -> tuple[int, dict[str, str], bytes]:
    """One request; a POST says the page's own Origin unless `origin` is given (None: none)."""
    conn = connection(url, source)
    headers = {"Host": urlsplit(url).netloc}
    if cookie:
        headers["Cookie"] = cookie
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if method == "POST" and origin is not None:
        headers["Origin"] = origin or f"{urlsplit(url).scheme}://{urlsplit(url).netloc}"
    try:
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def sign_in_body(person: str, pin: str | None = None) -> dict[str, str]:
    return {"id": uuid.uuid4().hex, "method": "pin", "person": person,
            "pin": PINS[person] if pin is None else pin}


def sign_in(url: str, person: str = "boss", source: str = "") -> str:
    """Signed in by PIN; the session's Cookie header."""
    status, headers, body = request(url, "POST", "/api/sign-in", sign_in_body(person),
                                    source=source)
    assert status == 200, body
    return headers["Set-Cookie"].split(";", 1)[0]


def sign_in_page(page: Any, person: str = "boss") -> None:
    """Signed in on the page as a person does at the pit's screen: their name's tile, the
    PIN on the pad, OK; back when the board is shown."""
    page.wait_for_selector(f'#people button[data-person="{person}"]')
    page.click(f'#people button[data-person="{person}"]')
    for digit in PINS[person]:
        page.click(f'#pin-pad .key[data-digit="{digit}"]')
    page.click("#pin-ok")
    page.wait_for_selector("body[data-screen='floor']")
