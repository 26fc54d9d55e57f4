"""Attacks on the supervisor's approval (contract 1), against the real daemon process, its
console over HTTP and a shoe on a real pty: a croupier's screen guessing her PIN in
parallel, a croupier approving, a captured approval replayed, an approval sent with an
action that needs none. Throughout, the croupier's own session stays his, nothing is kept
of a refused approval, and no PIN or badge is in any log, record or file.

Decision (an approval for an action that needs none): refused, 400, before her PIN or
badge is looked at. An approval is a supervisor's authority for what the croupier may not
do alone; one recorded where it authorised nothing would tell an inspector she ruled on
something she did not, and checking it would hand out a PIN oracle for nothing.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import aiohttp

from hil.floor_servers import wait_for as wait_until
from hil.processes import console_url, start_daemon, stop
from shoe_daemon.console.throttle import PIN
from tests.attack.sign_in_support import (
    ANA_BADGE,
    BOB_PIN,
    CY_PIN,
    PEOPLE,
    SCREEN,
    SECRETS,
    leaks,
    ledger_bodies,
    log_lines,
)
from tests.console_support import Client, people_by_cli
from tests.pty_shoe import PtyShoe, wait_for_log

NOT_ACCEPTED = "the supervisor's PIN or badge was not accepted"


def void(approval: dict[str, str] | None, request_id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"id": request_id or uuid.uuid4().hex, "kind": "void",
                            "args": {"reason": "the players protest the deal"}}
    return body | ({"approval": approval} if approval is not None else {})


def wrong(n: int) -> dict[str, str]:
    return {"method": "pin", "person": "ana", "pin": f"{31_000_000 + n:08d}"}


async def burst(url: str, cookie: str, bodies: list[dict[str, Any]],
                source: str = SCREEN) -> list[tuple[int, Any]]:
    """Every body at once, each on its own connection, in one session (the cookie)."""
    base = url.rstrip("/")
    async with aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=len(bodies), local_addr=(source, 0)),
            timeout=aiohttp.ClientTimeout(total=60)) as session:
        async def one(body: dict[str, Any]) -> tuple[int, Any]:
            async with session.post(base + "/api/actions", data=json.dumps(body).encode(),
                                    headers={"Origin": base, "Cookie": cookie,
                                             "Content-Type": "application/json"}) as r:
                return r.status, json.loads(await r.read())

        return list(await asyncio.gather(*(one(b) for b in bodies)))


def voids(state: Path) -> list[dict[str, Any]]:
    return [b for b in ledger_bodies(state, "action") if b["kind"] == "void"]


def test_attacks_on_the_approval_leave_the_croupiers_session_and_her_pin(tmp_path):
    state = tmp_path / "state"
    people_by_cli(state, PEOPLE)
    shoe = PtyShoe(tmp_path)
    proc = start_daemon(tmp_path, "baden", staff=False,
                        extra=["--console", f"{SCREEN}:0"])
    try:
        url = console_url(tmp_path, proc, timeout=30)
        wait_for_log(tmp_path, "shoe.connected")
        shoe.send("HELLO:0badcafe SHOE:1 DEAL 9C 5D")  # a coup in play: a void needs her
        wait_until(lambda: any("5D" in json.dumps(b) for b in ledger_bodies(state, "frame")),
                   30)
        bob = Client(url)
        assert bob.sign_in("bob", BOB_PIN)[0] == 200
        assert bob.cookie is not None

        def still_bob() -> None:
            status, body, _ = bob.get("/api/me")
            assert status == 200 and (body["me"]["person"], body["me"]["role"]) == (
                "bob", "croupier")

        # 1. 64 wrong PINs for her at once from his screen: counted before the hash, one
        # hash at a time for her, then her PIN is delayed; one answer for every failure.
        answers = asyncio.run(burst(url, bob.cookie, [void(wrong(n)) for n in range(64)]))
        statuses = [s for s, _ in answers]
        assert set(statuses) <= {401, 429}, answers
        assert all(b == {"error": NOT_ACCEPTED} for s, b in answers if s == 401)
        hashed = log_lines(tmp_path, "console.approval_failed")
        assert statuses.count(401) == len(hashed) <= PIN.free + 1
        assert all(h["person"] == "ana" and h["at_screen"] for h in hashed)
        # Then more, one after another, until her PIN at the screen is delayed.
        for n in range(64, 64 + PIN.free + 2):
            status, body, _ = bob.post("/api/actions", void(wrong(n)))
            if status == 429:
                break
        assert status == 429 and "too many failed" in body["error"]
        wait_until(lambda: any(x["what"] == "pin" and x["person"] == "ana"
                               for x in ledger_bodies(state, "console.lockout")), 10,
                   what="her PIN's lockout in the ledger")
        still_bob()
        assert voids(state) == []

        # 2. A croupier's PIN is no approval: 403, nothing kept.
        status, body, _ = bob.post("/api/actions", void({"method": "pin", "person": "cy",
                                                         "pin": CY_PIN}))
        assert status == 403 and "only a supervisor" in body["error"]

        # 3. An approval for an action that needs none: refused before anything is checked
        # (her PIN is delayed, yet the answer is 400, not 429).
        status, body, _ = bob.post("/api/actions", {
            "id": uuid.uuid4().hex, "kind": "punter_bac",
            "args": {"reason": "he threw his cards in"}, "approval": wrong(999)})
        assert status == 400 and "needs no supervisor" in body["error"]
        still_bob()
        assert voids(state) == []

        # Her badge still approves (possession beats a guessed PIN).
        request = void({"method": "badge", "badge": ANA_BADGE})
        status, first, _ = bob.post("/api/actions", request)
        assert status == 200, first
        assert first["action"]["approved_by"] == {"person": "ana", "role": "supervisor",
                                                  "method": "badge"}

        # 4. The approved request replayed: in his session, its first answer and nothing
        # done again, even with the badge swapped for a wrong one; in another session, or
        # with no session, refused.
        replays = asyncio.run(burst(url, bob.cookie, [request] * 10 + [
            {**request, "approval": {"method": "badge", "badge": "STOLEN-COPY"}}] * 10))
        assert all(r == (200, first) for r in replays)
        assert len(voids(state)) == 1
        cy = Client(url)
        assert cy.sign_in("cy", CY_PIN)[0] == 200
        status, body, _ = cy.post("/api/actions", request)
        assert status == 409 and "another session" in body["error"]
        assert Client(url).post("/api/actions", request)[0] == 401
        assert len(voids(state)) == 1
        still_bob()
    finally:
        assert stop(proc) == 0
        shoe.close()
    assert (void_record := voids(state)[0])["by"] == "bob"
    assert void_record["approved_by"]["person"] == "ana"
    files = [tmp_path / "daemon.log", *state.rglob("*")]
    assert leaks([f for f in files if f.is_file()], SECRETS) == []
