"""Hostile input at the console's API, through the real server and loop: each refused with
a clear error and its status, and nothing of it in the ledger."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.console_support import ConsoleTable, console_table, new_id


@pytest.fixture
def table(tmp_path: Path) -> Iterator[ConsoleTable]:
    with console_table(tmp_path / "state") as t:
        t.shoe.feed("HELLO:0badcafe SHOE DEAL 9C ??")  # a hold to resolve
        yield t


def kept(t: ConsoleTable) -> list[Any]:
    return t.kept()


def refused(t: ConsoleTable, send: Any, status: int, words: str) -> dict[str, Any]:
    """`send()` is refused with `status` and an error saying `words`, and keeps nothing."""
    before, state = kept(t), t.machine.public
    got = send()
    code, body = got[0], got[1]
    assert code == status, (code, body)
    assert isinstance(body, dict) and words in body["error"], body
    assert kept(t) == before and t.machine.public == state
    return body


RESOLVE = {"kind": "resolve", "args": {"latch": "hold-1-1-1", "way": "ENTER", "card": "5D",
                                       "reason": "keyed in"}}


def test_malformed_and_oversized_requests(table):
    c = table.client()
    c.sign_in("bob", "1234")
    post = c.post
    refused(table, lambda: post("/api/actions", raw=b"{not json"), 400, "not valid JSON")
    refused(table, lambda: post("/api/actions", raw=b"[1, 2]"), 400, "must be a JSON object")
    refused(table, lambda: post("/api/actions", raw=b'{"id": "a", "id": "b"}'), 400,
            "given twice")
    refused(table, lambda: post("/api/actions", raw=b'{"id": NaN}'), 400, "not JSON")
    refused(table, lambda: post("/api/actions", raw=b"\xff\xfe"), 400, "not UTF-8")
    refused(table, lambda: post("/api/actions", {**RESOLVE, "id": new_id(), "extra": 1}), 400,
            "unknown field 'extra'")
    refused(table, lambda: post("/api/actions", RESOLVE), 400, "'id' must be a string")
    refused(table, lambda: post("/api/actions", {**RESOLVE, "id": "short"}), 400,
            "'id' must be 16 to 64")
    refused(table, lambda: post("/api/actions", {**RESOLVE, "id": "x" * 20 + "$"}), 400,
            "'id' is not a unique id")
    refused(table, lambda: post("/api/actions", {"id": new_id(), "kind": "explode"}), 400,
            "unknown action kind 'explode'")
    refused(table, lambda: post("/api/actions", {"id": new_id(), "kind": "sign_in",
                                                 "args": {"method": "pin"}}), 400,
            "unknown action kind 'sign_in'")
    bad_args = [({"latch": "hold-1-1-1", "way": "ENTER", "card": "5D"}, "'reason' is required"),
                ({"latch": "hold-1-1-1", "way": "FLY", "reason": "xyz"}, "'way' must be one of"),
                ({"latch": "'; DROP", "reason": "xyz"}, "'latch' is not an open latch's id"),
                ({"latch": "hold-1-1-1", "way": "ENTER", "card": "ZZ", "reason": "xyz"},
                 "'card' must be"),
                ({"latch": "hold-1-1-1", "reason": 7}, "'reason' must be a string"),
                ({"latch": "hold-1-1-1", "reason": "x" * 301}, "'reason' must be 3 to 300"),
                ({"latch": "hold-1-1-1", "reason": "line\nbreak"}, "control characters"),
                ({"latch": "hold-1-1-1", "reason": "ok!", "by": "ana"}, "unknown field 'by'")]
    for args, words in bad_args:
        refused(table, lambda a=args: post("/api/actions", {"id": new_id(), "kind": "resolve",
                                                            "args": a}), 400, words)
    refused(table, lambda: post("/api/actions", raw=json.dumps(
        {"id": new_id(), **RESOLVE, "pad": "x" * 9000}).encode()), 413, "at most 8192 bytes")
    refused(table, lambda: post("/api/actions", raw=b"{}", headers={
        "Content-Type": "text/plain"}), 415, "application/json")
    # The table's own checks: a way out the hold does not take, a latch that is not open.
    refused(table, lambda: c.act("resolve", latch="hold-1-1-1", way="OK", reason="xyz"), 409,
            "is lifted by ENTER, not OK")
    body = refused(table, lambda: c.act("resolve", latch="hold-1-1-1", reason="xyz"), 409,
                   "play still holds: lift it with ENTER")
    assert body["rule"] == "shoe-line-protocol CARD ??" and "CARD ??" not in body["error"]
    refused(table, lambda: c.act("resolve", latch="hold-1-1-1", way="OK", card="5D",
                                 reason="xyz"), 409, "is lifted by ENTER")
    refused(table, lambda: c.act("resolve", latch="hold-1-1-2", reason="xyz"), 409,
            "resolved already: no open latch by that id")
    # And after all that, the right request still works.
    assert c.post("/api/actions", {"id": new_id(), **RESOLVE})[0] == 200


def test_without_a_sign_in_and_with_the_wrong_role(table):
    stranger = table.client()
    refused(table, lambda: stranger.post("/api/actions", {"id": new_id(), **RESOLVE}), 401,
            "not signed in")
    for path in ("/api/state", "/api/recall", "/api/me", "/api/events"):
        refused(table, lambda p=path: stranger.get(p), 401, "not signed in")
    refused(table, lambda: stranger.post("/api/sign-out", {"id": new_id()}), 401,
            "not signed in")
    stranger.cookie = "console=forged-token"
    refused(table, lambda: stranger.post("/api/actions", {"id": new_id(), **RESOLVE}), 401,
            "not signed in")
    bob = table.client()
    bob.sign_in("bob", "1234")
    refused(table, lambda: bob.act("void", reason="misdeal"), 403,
            "void needs a supervisor: bob is a croupier")


def test_a_supervisors_hold_refuses_a_croupier(tmp_path):
    with console_table(tmp_path / "state") as t:
        t.shoe.feed("HELLO:0badcafe SHOE:1 DEAL 9C 5D 9C")  # foreign card: KEY, then OK
        bob = t.client()
        bob.sign_in("bob", "1234")
        refused(t, lambda: bob.act("resolve", latch="hold-1-1-1", way="OK", reason="took it"),
                403, "this hold is a supervisor's; bob is a croupier")
        ana = t.client()
        ana.sign_in("ana", "4711")
        assert ana.act("resolve", latch="hold-1-1-1", way="OK", reason="took it out")[0] == 200


def test_a_request_sent_again_gets_its_first_answer_and_is_done_once(table):
    c = table.client()
    c.sign_in("bob", "1234")
    request = {"id": new_id(), **RESOLVE}
    first = c.post("/api/actions", request)
    assert first[0] == 200
    after = kept(table)
    again = c.post("/api/actions", {**request, "args": {**RESOLVE["args"], "way": "ENTER"}})
    assert again[:2] == first[:2]  # the same status and body: done once
    assert kept(table) == after
    # The same id with other contents, or from another session: refused, nothing kept.
    body = refused(table, lambda: c.post("/api/actions", {**request, "args": {
        **RESOLVE["args"], "reason": "another reason"}}), 422, "sent before with other contents")
    assert request["id"] in body["error"]
    ana = table.client()
    ana.sign_in("ana", "4711")
    refused(table, lambda: ana.post("/api/actions", request), 409, "sent in another session")
    # A request refused before the table saw it is refused again, and keeps nothing.
    bad = {"id": new_id(), "kind": "void", "args": {"reason": "xyz"}}
    refusal = refused(table, lambda: c.post("/api/actions", bad), 403, "void needs a supervisor")
    assert refused(table, lambda: c.post("/api/actions", bad), 403, "needs a") == refusal
    # A sign-in's id is spent by its record: sent again, it is refused as replayed.
    sign = {"id": new_id(), "method": "pin", "person": "cy", "pin": "5555"}
    other = table.client()
    assert other.post("/api/sign-in", sign)[0] == 200
    refused(table, lambda: table.client().post("/api/sign-in", sign), 409, "replayed")


def test_requests_from_another_origin_or_host(table):
    c = table.client()
    c.sign_in("bob", "1234")
    send = c.post
    refused(table, lambda: send("/api/actions", {"id": new_id(), **RESOLVE},
                                origin="http://evil.example"), 403, "from another origin")
    refused(table, lambda: send("/api/actions", {"id": new_id(), **RESOLVE}, origin=None), 403,
            "without an Origin")
    refused(table, lambda: send("/api/actions", {"id": new_id(), **RESOLVE},
                                headers={"Sec-Fetch-Site": "cross-site"}), 403,
            "a cross-site request is refused")
    refused(table, lambda: send("/api/sign-in", {"id": new_id(), "method": "pin",
                                                 "person": "ana", "pin": "4711"},
                                origin="null"), 403, "another origin")
    # DNS rebinding: a page of another name that resolves here.
    refused(table, lambda: c.get("/api/state", headers={"Host": f"evil.example:{c.port}"}),
            421, "this console answers to")
    refused(table, lambda: send("/api/actions", {"id": new_id(), **RESOLVE},
                                headers={"Host": f"evil.example:{c.port}"},
                                origin=f"http://evil.example:{c.port}"), 421,
            "this console answers to")


def test_a_session_after_sign_out(table):
    c = table.client()
    c.sign_in("bob", "1234")
    old = c.cookie
    status, body, headers = c.post("/api/sign-out", {"id": new_id()})
    assert status == 200 and body == {"signed_out": "bob"}
    assert "Max-Age=0" in headers["set-cookie"] or "expires" in headers["set-cookie"].lower()
    c.cookie = old  # kept by a thief, or a stale tab
    refused(table, lambda: c.post("/api/actions", {"id": new_id(), **RESOLVE}), 401,
            "not signed in")
    refused(table, lambda: c.get("/api/state"), 401, "not signed in")
    outs = [r.body for r in table.records("action") if r.body["kind"] == "sign_out"]
    assert [(o["by"], o["args"]["why"]) for o in outs] == [("bob", "asked")]


def test_failed_pins_delay_that_person_alone_and_the_delay_is_recorded(table):
    """At the table's screen: a person's mistyped PINs delay that person's PIN only, never
    another's, never a badge; the delay is a `console.lockout` record, never the PIN."""
    c = table.client()
    before = kept(table)
    for pin in ("0000", "1111", "2222", "3333", "5555"):  # the free tries
        assert c.sign_in("ana", pin)[0] == 401
    assert kept(table) == before  # a failure inside the free tries is not a ledger record
    assert c.sign_in("ana", "6666")[0] == 401  # the sixth starts a delay
    status, body = c.sign_in("ana", "4711")
    assert status == 429 and "too many failed sign-ins" in body["error"]
    assert "a badge still signs you in" in body["error"]
    assert c.sign_in("bob", "1234")[0] == 200  # another person at the same screen
    assert c.badge("SUP-77")[0] == 200  # her badge: possession beats the guessed PIN
    assert c.sign_in("ana", "4711")[0] == 200  # ... and it cleared her PIN's failures here
    lockouts = table.records("console.lockout")
    assert [(r.body["what"], r.body["person"], r.body["place"], r.body["failures"])
            for r in lockouts] == [("pin", "ana", "screen", 6)]
    assert lockouts[0].body["remote"] == "127.0.0.1" and lockouts[0].body["delay_s"] == 5.0
    assert not any(secret in json.dumps(r.body) for r in lockouts for secret in
                   ("4711", "6666", "SUP-77"))
    mixed = {"id": new_id(), "method": "pin", "person": "ana", "pin": "4711", "badge": "x"}
    assert c.post("/api/sign-in", mixed)[0] == 400


def test_a_failed_sign_in_keeps_no_request_id(table):
    """A refused sign-in's id is not kept (nothing an unauthenticated client sends grows
    the server): the same id signs in once the PIN is right, and is spent then."""
    c = table.client()
    request = {"id": new_id(), "method": "pin", "person": "bob", "pin": "9999"}
    assert c.post("/api/sign-in", request)[0] == 401
    good = {**request, "pin": "1234"}
    assert c.post("/api/sign-in", good)[0] == 200
    assert c.post("/api/sign-in", good)[0] == 409


def test_the_wrong_method_and_path(table):
    c = table.client()
    status, body, _ = c.request("PUT", "/api/actions", {"id": new_id()})
    assert status == 405 and "error" in body
    status, body, _ = c.get("/api/nothing")
    assert status == 404 and "error" in body
    status, body, _ = c.request("POST", "/api/state", {"id": new_id()})
    assert status == 405


def test_badge_sign_in_and_the_people_tiles_show_no_role_or_secret(table):
    c = table.client()
    status, body, _ = c.get("/api/people")
    assert status == 200
    assert body["people"] == [{"id": "ana", "name": "Ana Weber", "pin": True},
                              {"id": "bob", "name": "Bob Marti", "pin": True},
                              {"id": "cy", "name": "Cy Rossi", "pin": True}]
    table_said = body["table"]  # the sign-in screen says which table it is
    status, body, headers = c.post("/api/sign-in", {"id": new_id(), "method": "badge",
                                                    "badge": "SUP-77"})
    assert status == 200 and body["me"]["person"] == "ana" and body["me"]["method"] == "badge"
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    status, state, _ = c.get("/api/state")
    assert status == 200 and state["me"]["role"] == "supervisor"
    view = state["view"]
    assert table_said == {"name": view["table"], "house": view["house"],
                          "language": view["language"], "terms": view["terms"]}
    coup = state["view"]["coup"]
    assert state["view"]["state"] == "on_hold" and coup["punter"]["cards"] == [None]
