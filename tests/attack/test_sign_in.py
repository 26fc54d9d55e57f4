"""Attacks on the console's sign-in, against the real daemon process over HTTP (issue 19,
items 1, 2, 3 and 9): each ends by proving the attack refused, nothing lost, nothing kept
that an unauthenticated client sent, and no PIN or badge in any log, file or record.

What the throttle allows is console/throttle.py's: a person's PIN has PIN.free free
failures at a place (the table's screen, elsewhere), then a delay of PIN.first seconds.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
import sys
import time

from hil.floor_servers import wait_for as wait_until
from hil.processes import ROOT, start_daemon, stop
from shoe_daemon.console.throttle import ADDRESS, PIN
from tests.attack.sign_in_support import (
    ANA_BADGE,
    ANA_PIN,
    BOB_BADGE,
    BOB_PIN,
    CY_PIN,
    PEOPLE,
    SCREEN,
    SECRETS,
    Flood,
    console_daemon,
    leaks,
    ledger_bodies,
    log_lines,
    rss_kib,
    run,
    sign_in_body,
)
from tests.console_support import Client, people_by_cli
from tests.pty_shoe import PtyShoe, wait_for_log

WRONG = [f"{n:08d}" for n in range(31_000_000, 31_000_400)]  # never one of PEOPLE's PINs


def test_a_parallel_pin_burst_meets_the_count_and_her_badge_still_works(tmp_path):
    """64 connections at the table's screen send ana's wrong PINs as fast as they can; her
    right PIN goes in once she is delayed. At most PIN.free + 1 PINs are hashed (one at a
    time: the log says each), every other guess is 429 unhashed, her right PIN too, and her
    badge still signs her in."""
    proc, url = console_daemon(tmp_path)
    try:
        answers: list[tuple[int, str]] = []
        mine: list[tuple[int, str]] = []

        async def attack() -> None:
            flood = Flood(url, SCREEN, 64)
            guesses = (f"{n:08d}" for n in itertools.count(31_000_000))  # none is hers
            delayed = asyncio.Event()
            give_up = time.monotonic() + 30

            async def guess() -> None:
                for pin in guesses:
                    status, body = await flood.post("/api/sign-in", sign_in_body("ana", pin))
                    answers.append((status, body.get("error", "")))
                    if status == 429 and "too many failed" in body["error"]:
                        delayed.set()
                    done = delayed.is_set() and bool(mine) and len(answers) > 200
                    if done or time.monotonic() > give_up:
                        return

            async def her_pin() -> None:  # her own connection, inside the burst
                await asyncio.wait_for(delayed.wait(), 30)
                screen = Flood(url, SCREEN, 1)
                status, body = await screen.post("/api/sign-in", sign_in_body("ana", ANA_PIN))
                mine.append((status, body.get("error", "")))
                await screen.close()

            await asyncio.gather(her_pin(), *(guess() for _ in range(64)))
            await flood.close()

        run(attack())
        assert len(answers) >= 200
        hashed = [a for a in answers if a[0] == 401]
        assert len(hashed) == PIN.free + 1, answers[:20]
        assert all(status == 429 for status, _ in answers if status != 401)
        assert mine[0][0] == 429 and "too many failed sign-ins" in mine[0][1]
        assert "a badge still signs you in" in mine[0][1]
        checked = log_lines(tmp_path, "console.sign_in_failed")
        assert len(checked) == PIN.free + 1  # one line per PIN hashed
        assert not log_lines(tmp_path, "console.signed_in")
        c = Client(url)
        status, body = c.badge(ANA_BADGE)
        assert status == 200 and body["me"]["person"] == "ana"
        locks = wait_until(lambda: ledger_bodies(tmp_path / "state", "console.lockout"),
                           what="the lockout record")
        assert [(b["what"], b["person"], b["place"], b["failures"]) for b in locks] == \
            [("pin", "ana", "screen", PIN.free + 1)]
    finally:
        assert stop(proc) == 0
    assert not leaks([tmp_path / "daemon.log"], SECRETS)


def test_another_address_cannot_keep_the_supervisor_or_the_screen_out(tmp_path):
    """A guesser at 127.0.0.2 spends ana's PIN tries from elsewhere: at the table's screen
    she signs in at once by PIN and by badge; from elsewhere (127.0.0.3) her PIN waits out
    the delay, then works. A croupier's mistyped PINs at the screen never stop her. A
    sprayer at 127.0.0.4 across people is throttled by address. Elsewhere the staff list
    is refused."""
    proc, url = console_daemon(tmp_path)
    try:
        guesser = Client(url, "127.0.0.2")
        for pin in WRONG[:PIN.free + 1]:
            assert guesser.sign_in("ana", pin)[0] == 401
        started = time.monotonic()
        for pin in WRONG[10:30]:  # the delay: refused unhashed, nothing more counted
            assert guesser.sign_in("ana", pin)[0] == 429
        assert guesser.sign_in("ana", ANA_PIN)[0] == 429
        screen = Client(url)
        assert screen.sign_in("ana", ANA_PIN)[0] == 200
        assert screen.badge(ANA_BADGE)[0] == 200
        tablet = Client(url, "127.0.0.3")  # ana elsewhere: the delay holds for her there
        status, body = tablet.sign_in("ana", ANA_PIN)
        assert status == 429 and "try again in" in body["error"]
        wait_until(lambda: time.monotonic() - started > PIN.first + 0.2, PIN.first + 2,
                   what="the delay to pass")
        assert tablet.sign_in("ana", ANA_PIN)[0] == 200  # the delay passed

        for pin in WRONG[40:40 + PIN.free + 2]:  # bob mistypes at the screen
            assert screen.sign_in("bob", pin)[0] in (401, 429)
        assert screen.sign_in("bob", BOB_PIN)[0] == 429  # bob's own PIN waits ...
        assert screen.badge(BOB_BADGE)[0] == 200  # ... not his badge
        assert screen.sign_in("ana", ANA_PIN)[0] == 200  # ... and never ana

        sprayer = Client(url, "127.0.0.4")
        tried = [sprayer.sign_in(person, WRONG[60 + n])[0]
                 for n, person in enumerate(["ana", "bob", "cy", "nobody", "root"] * 3)]
        assert tried.count(401) == ADDRESS.free + 1 and set(tried[ADDRESS.free + 1:]) == {429}
        assert sprayer.badge(ANA_BADGE)[0] == 429  # everything from that address waits
        assert screen.sign_in("cy", CY_PIN)[0] == 200  # the screen is not touched

        status, body, _ = guesser.get("/api/people")
        assert status == 403 and "ana" not in json.dumps(body) and "Weber" not in json.dumps(body)
        status, body, _ = screen.get("/api/people")
        assert status == 200 and {p["id"] for p in body["people"]} == {"ana", "bob", "cy"}
        locks = wait_until(lambda: len(ledger_bodies(tmp_path / "state", "console.lockout"))
                           >= 3 and ledger_bodies(tmp_path / "state", "console.lockout"))
        seen = {(b["what"], b["person"], b["place"], b["remote"]) for b in locks}
        assert ("pin", "ana", "elsewhere", "127.0.0.2") in seen
        assert ("pin", "bob", "screen", SCREEN) in seen
        assert ("address", None, "elsewhere", "127.0.0.4") in seen
        assert not any(b["person"] == "ana" and b["place"] == "screen" for b in locks)
    finally:
        assert stop(proc) == 0


def test_100000_unauthenticated_requests_leave_the_daemon_s_memory_flat(tmp_path):
    """Bad sign-ins (wrong PINs, unknown people, wrong badges), garbage bodies, unknown
    routes and the staff list, each with a fresh request id, from eight addresses at once:
    the daemon's RSS after the first 10,000 stays within BOUND_KIB to the end."""
    proc, url = console_daemon(tmp_path)
    total, warm, sources = 100_000, 10_000, [f"127.0.0.{n}" for n in range(2, 10)]
    samples: list[tuple[int, int]] = []
    statuses: dict[int, int] = {}
    try:
        async def flood() -> float:
            floods = [Flood(url, source, 16) for source in sources]
            counter = iter(range(total))
            people = ["ana", "bob", "cy"] + [f"ghost{n}" for n in range(50)]

            async def one(n: int, f: Flood) -> int:
                kind = n % 10
                if kind < 3:
                    return (await f.post("/api/sign-in", sign_in_body(
                        people[n % len(people)], WRONG[n % len(WRONG)])))[0]
                if kind < 5:
                    return (await f.post("/api/sign-in", sign_in_body(
                        badge=f"BADGE-{n:07d}")))[0]
                if kind == 5:
                    return (await f.post("/api/sign-in", raw=b'{"id": "' + str(n).encode()
                                         + b'", "method": [1, {"x": NaN}]'))[0]
                if kind == 6:
                    return (await f.post("/api/sign-in", raw=b"x" * 9000))[0]
                if kind == 7:
                    return (await f.get(f"/api/no-such-route/{n}"))[0]
                if kind == 8:
                    return (await f.get("/api/people"))[0]
                return (await f.post("/api/actions", {"id": f"{n:032d}", "kind": "void"}))[0]

            async def worker(f: Flood) -> None:
                for n in counter:
                    status = await one(n, f)
                    statuses[status] = statuses.get(status, 0) + 1
                    if n % 5000 == 0:
                        samples.append((n, rss_kib(proc.pid)))

            began = time.monotonic()
            await asyncio.gather(*(worker(f) for f in floods for _ in range(16)))
            took = time.monotonic() - began
            for f in floods:
                await f.close()
            return took

        took = run(flood())
        samples.append((total, rss_kib(proc.pid)))
        time.sleep(1)
        samples.append((total + 1, rss_kib(proc.pid)))
        assert sum(statuses.values()) == total
        assert set(statuses) <= {401, 403, 404, 400, 413, 429}, statuses
        base = max(rss for n, rss in samples if n <= warm)
        after = [rss for n, rss in samples if n > warm]
        print(f"\n100,000 unauthenticated requests in {took:.1f} s "
              f"({total / took:.0f}/s); RSS KiB by request: {samples}; statuses {statuses}")
        assert max(after) - base < BOUND_KIB, samples
        status, _ = Client(url).badge(ANA_BADGE)  # the table still serves its staff
        assert status == 200
    finally:
        assert stop(proc) == 0


BOUND_KIB = 4096  # RSS growth allowed after the warm-up (the allocator's noise)


def test_lockouts_are_recorded_shown_in_status_and_no_secret_is_anywhere(tmp_path):
    """A lockout is a `console.lockout` ledger record naming the person and the address,
    said in `shoe-daemon status` and on the systemd status line; after sign-ins by PIN and
    badge, no PIN or badge is in the log, the console file, status.json, the results or any
    ledger record."""
    proc, url = console_daemon(tmp_path)
    state = tmp_path / "state"
    try:
        guesser = Client(url, "127.0.0.2")
        for pin in WRONG[:PIN.free + 1]:
            assert guesser.sign_in("ana", pin)[0] == 401
        lock = wait_until(lambda: ledger_bodies(state, "console.lockout"), what="the record")[0]
        assert lock["what"] == "pin" and lock["person"] == "ana"
        assert lock["remote"] == "127.0.0.2" and lock["place"] == "elsewhere"
        assert lock["delay_s"] == PIN.first and lock["until_ns"] > time.time_ns()
        done = subprocess.run([sys.executable, "-m", "shoe_daemon.service.cli", "status",
                               "--state-dir", str(state)], cwd=ROOT, capture_output=True,
                              text=True, timeout=60)
        assert "sign-in lockout: ana's PIN from elsewhere delayed until" in done.stdout
        assert "the last from 127.0.0.2" in done.stdout
        said = wait_until(lambda: "sign-in throttled" in (state / "status.json").read_text()
                          and json.loads((state / "status.json").read_text())["status"])
        assert "ana's PIN from elsewhere delayed until" in said
        screen = Client(url)
        assert screen.sign_in("ana", ANA_PIN)[0] == 200
        assert screen.badge(BOB_BADGE)[0] == 200
        assert screen.badge("SUP-Q7Z93K-ANX")[0] == 401  # a near miss, logged without it
    finally:
        assert stop(proc) == 0
    files = [tmp_path / "daemon.log", state / "status.json", *state.glob("captures/*.jsonl")]
    assert len(files) >= 3
    assert not leaks(files, [*SECRETS, "SUP-Q7Z93K-ANX", *WRONG[:PIN.free + 1]])
    records = json.dumps(ledger_bodies(state))
    assert not [s for s in (*SECRETS, *WRONG[:PIN.free + 1]) if s in records]


def test_a_key_with_the_console_off_is_decided_against_the_people_file(tmp_path):
    """No console, a people file: a croupier's badge at the shoe's KEY lifts nothing, the
    supervisor's does; the ledger records each as the person's id with the decision, the
    results say `by: ana`, and no log, result or record holds a badge. `replay --people`
    decides the capture's KEYs the same way; plain `replay` takes none and says so."""
    state = tmp_path / "state"
    people_by_cli(state, PEOPLE)
    shoe = PtyShoe(tmp_path)
    proc = start_daemon(tmp_path, "baden")
    try:
        wait_for_log(tmp_path, "shoe.connected")
        shoe.send(f"HELLO:0badcafe SHOE:1 DEAL 9C 5D 9C OK KEY:{BOB_BADGE} OK")
        wait_for_log(tmp_path, "supervisor.key_refused")
        shoe.send(f"KEY:{ANA_BADGE} OK KH 3S")
        wait_for_log(tmp_path, "coup.result")
    finally:
        assert stop(proc) == 0
        shoe.close()
    results = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    resolved = [r for r in results if r["event"] == "irregularity.resolved"]
    assert [(r["code"], r["by"]) for r in resolved] == [("FOREIGN_CARD", "ana")]
    keys = [b for b in ledger_bodies(state, "frame") if b.get("badge")]
    assert [(b["fields"], b["badge"]["taken"]) for b in keys] == [
        (["KEY", "bob"], False), (["KEY", "ana"], True)]
    assert keys[0]["badge"]["why"] == "bob is a croupier, not a supervisor"
    files = [tmp_path / "daemon.log", tmp_path / "results.jsonl", state / "status.json"]
    assert not leaks(files, SECRETS)
    assert not [s for s in SECRETS if s in json.dumps(ledger_bodies(state))]

    capture = next(state.glob("captures/*.cap"))
    assert capture.stat().st_mode & 0o077 == 0  # the raw line, badges in it: the daemon's
    replay = [sys.executable, "-m", "shoe_daemon.service.cli", "replay", "--profile", "baden"]
    same = subprocess.run([*replay, "--people", str(state / "people.json"), str(capture)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert same.returncode == 0 and [json.loads(x) for x in same.stdout.splitlines()] == results
    assert not leaks_in(same.stdout + same.stderr)
    plain = subprocess.run([*replay, str(capture)], cwd=ROOT, capture_output=True, text=True,
                           timeout=60)
    assert "2 KEY(s) refused: no --people given" in plain.stderr
    assert not any(json.loads(x)["event"] == "irregularity.resolved"
                   for x in plain.stdout.splitlines())


def test_with_nobody_configured_a_key_lifts_nothing_and_the_log_says_why(tmp_path):
    shoe = PtyShoe(tmp_path)
    proc = start_daemon(tmp_path, "baden", staff=False)
    try:
        wait_for_log(tmp_path, "shoe.connected")
        shoe.send(f"HELLO:0badcafe SHOE:1 DEAL 9C 5D 9C OK KEY:{ANA_BADGE} OK")
        wait_for_log(tmp_path, "supervisor.key_refused")
    finally:
        assert stop(proc) == 0
        shoe.close()
    assert log_lines(tmp_path, "supervisor.none_configured")
    refused = log_lines(tmp_path, "supervisor.key_refused")
    assert refused[0]["why"].startswith("no supervisor is configured at this table")
    results = (tmp_path / "results.jsonl").read_text()
    assert "irregularity.resolved" not in results and "FOREIGN_CARD" in results
    assert not leaks([tmp_path / "daemon.log", tmp_path / "results.jsonl"], SECRETS)
    assert [p[0] for p in PEOPLE] == ["ana", "bob", "cy"]


def leaks_in(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]
