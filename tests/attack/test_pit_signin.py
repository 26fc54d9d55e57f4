"""Attacks on the pit's sign-in (issue 21, "People at the pit"), against the real `shoe-floor
serve` process (its real broker and PostgreSQL behind it), over HTTP from several loopback
addresses (127.0.0.2 ... as other machines; 127.0.0.1 is the pit's own screen):
- wrong PINs in parallel from elsewhere: no more hashed than the throttle allows, and the
  right PIN by its owner at the pit's screen still signs in at once;
- unknown people and badges from many addresses: refused, the screen never locked out;
- a flood of unauthenticated requests and failed sign-ins: the process's memory stays flat;
- a forged cookie, and an expired one (an in-process server whose sessions last 1 s);
- a POST from another Origin, or none: refused, the session untouched;
- serving off loopback without `[pit] cert` and `key`: refused before anything listens; with
  them, TLS and a `__Host-`, Secure cookie.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from shoe_daemon.console.throttle import ADDRESS, PIN, STRANGERS_ELSEWHERE
from shoe_floor.pit.board import Board
from shoe_floor.pit.people import pit_people
from shoe_floor.pit.server import PitServer
from tests.attack.pit_support import ROOT, Process
from tests.pit_people import connection, request, sign_in, sign_in_body


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_parallel_wrong_pins_from_elsewhere_hash_no_more_than_the_throttle_allows(floor):
    proc, url = floor.pit()
    sources = [f"127.0.0.{n}" for n in range(2, 10)]

    def guess(n: int) -> int:
        body = sign_in_body("boss", f"{1000 + n:04d}")
        return request(url, "POST", "/api/sign-in", body, source=sources[n % len(sources)])[0]

    answers: list[int] = []
    with ThreadPoolExecutor(16) as pool:  # waves of 16 at once, until the PIN is delayed
        for wave in range(40):
            answers += pool.map(guess, range(wave * 16, wave * 16 + 16))
            if proc.events("pit.lockout"):
                break
    # From elsewhere even the right PIN waits now, and says a badge would not.
    status, _, body = request(url, "POST", "/api/sign-in", sign_in_body("boss"),
                              source="127.0.0.2")
    assert status == 429 and b"badge" in body
    hashed = len(proc.events("pit.sign_in_failed"))
    assert set(answers) <= {401, 429} and answers.count(401) == hashed
    assert 1 <= hashed <= PIN.free + 1  # the PIN's bucket elsewhere: then a delay
    assert len(proc.events("pit.lockout")) >= 1
    # Its owner, at the pit's screen, with the right PIN: at once.
    status, _, body = request(url, "POST", "/api/sign-in", sign_in_body("boss"),
                              source="127.0.0.1")
    assert status == 200 and json.loads(body)["me"]["role"] == "pit_boss"


def test_strangers_from_many_addresses_never_lock_the_screen_out(floor):
    _, url = floor.pit()

    def stranger(n: int) -> int:
        body = {"id": f"stranger-{n:012d}", "method": "badge", "badge": f"forged-{n}"}
        return request(url, "POST", "/api/sign-in", body,
                       source=f"127.0.{n % 200 + 1}.{n % 250 + 2}")[0]

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(stranger, range(STRANGERS_ELSEWHERE.free + 30)))
    assert answers.count(401) == STRANGERS_ELSEWHERE.free + 1 and 429 in answers
    assert 200 not in answers
    # The screen: its people sign in by PIN and by badge as if nothing happened.
    assert request(url, "POST", "/api/sign-in", sign_in_body("watcher"))[0] == 200
    badge = {"id": "screen-badge-000001", "method": "badge", "badge": "badge-inspector"}
    status, _, body = request(url, "POST", "/api/sign-in", badge)
    assert status == 200 and json.loads(body)["me"]["role"] == "regulator"
    # One address spraying PINs over people delays that address alone.
    for n in range(ADDRESS.free + 1):  # the last starts its delay
        person = ("boss", "watcher", "inspector")[n % 3]
        assert request(url, "POST", "/api/sign-in", sign_in_body(person, f"{9000 + n}"),
                       source="127.0.0.77")[0] == 401
    assert request(url, "POST", "/api/sign-in", sign_in_body("boss"),
                   source="127.0.0.77")[0] == 429
    assert request(url, "POST", "/api/sign-in", sign_in_body("boss"),
                   source="127.0.0.78")[0] == 200


def test_a_flood_of_unauthenticated_requests_leaves_memory_flat(floor):
    proc, url = floor.pit()
    pid = proc.proc.pid

    def flood(start: int, count: int) -> None:
        def one(n: int) -> None:
            source = f"127.1.{n % 250 + 1}.{n // 250 % 250 + 1}"
            if n % 3 == 0:
                assert request(url, "GET", "/api/tiles", cookie=f"pit=forged{n}",
                               source=source)[0] == 401
            elif n % 3 == 1:
                assert request(url, "GET", "/api/events", source=source)[0] == 401
            else:
                body = {"id": f"flood-{n:016d}", "method": "badge", "badge": f"b{n}"}
                assert request(url, "POST", "/api/sign-in", body,
                               source=source)[0] in (401, 429)

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(one, range(start, start + count)))

    flood(0, 1000)  # warm: the allocator, the LRU of addresses filling
    before = rss_kib(pid)
    flood(1000, 4000)
    after = rss_kib(pid)
    assert after - before < 8 * 1024, f"RSS grew {after - before} KiB over 4000 requests"
    assert request(url, "POST", "/api/sign-in", sign_in_body("boss"))[0] == 200


def test_a_forged_cookie_is_refused_and_an_expired_one_too(floor, tmp_path):
    _, url = floor.pit()
    real = sign_in(url)
    name, token = real.split("=", 1)
    for forged in (f"{name}={token[:-2]}AA", f"{name}=", f"{name}={'A' * 43}",
                   f"__Host-pit={token}"):
        assert request(url, "GET", "/api/tiles", cookie=forged)[0] == 401
    assert request(url, "GET", "/api/tiles", cookie=real)[0] == 200
    # Expired: a server whose sessions are idle after 1 s and last 2 s at most.
    people = pit_people(tmp_path / "pit-people.json")
    people.load()
    server = PitServer(Board(), "127.0.0.1", 0, people=people, idle=1.0, longest=2.0)
    short = server.start()
    try:
        cookie = sign_in(short)
        assert request(short, "GET", "/api/me", cookie=cookie)[0] == 200
        time.sleep(1.3)
        status, _, body = request(short, "GET", "/api/me", cookie=cookie)
        assert status == 401 and b"expired" in body
        cookie = sign_in(short)
        for _ in range(4):  # used, never idle: still ends at its longest
            time.sleep(0.6)
            request(short, "GET", "/api/me", cookie=cookie)
        assert request(short, "GET", "/api/me", cookie=cookie)[0] == 401
    finally:
        server.stop()


def test_a_post_from_another_origin_or_none_is_refused(floor):
    proc, url = floor.pit()
    cookie = sign_in(url)
    for origin in ("http://evil.example", "null", f"{url}.evil.example",
                   url.replace("http://", "https://")):
        status, _, body = request(url, "POST", "/api/sign-out", {"id": "o" * 20},
                                  cookie=cookie, origin=origin)
        assert status == 403 and b"another origin" in body
        assert request(url, "POST", "/api/sign-in", sign_in_body("boss"),
                       origin=origin)[0] == 403
    assert request(url, "POST", "/api/sign-out", {"id": "o" * 20}, cookie=cookie,
                   origin=None)[0] == 403
    assert request(url, "GET", "/api/me", cookie=cookie)[0] == 200  # untouched
    assert len(proc.events("pit.signed_in")) == 1
    # A Host that is not this machine's (DNS rebinding): refused on loopback.
    conn = connection(url)
    conn.request("GET", "/api/me", headers={"Host": "attacker.example", "Cookie": cookie})
    assert conn.getresponse().status == 421
    conn.close()


def test_serving_off_loopback_needs_tls(floor, certs):
    toml = floor.root / "open.toml"
    toml.write_text(floor.toml.read_text() + 'client_id = "pit-open"\n')
    refused = subprocess.run([sys.executable, "-m", "shoe_floor.cli", "serve", "--config",
                              str(toml), "--http", "0.0.0.0:0"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert "pit.http: 0.0.0.0 is not loopback" in refused.stderr and "pit.cert" in refused.stderr
    # With a certificate and its key: HTTPS, and the cookie is the browser's __Host- kind.
    toml.write_text(floor.toml.read_text() + f'client_id = "pit-tls"\ncert = "{certs.cert}"\n'
                    f'key = "{certs.key}"\n')
    proc = Process(["-m", "shoe_floor.cli", "serve", "--config", str(toml), "--http",
                    "0.0.0.0:0"], floor.root / "pit-tls.log")
    floor.procs.append(proc)
    url = proc.wait_event("pit.listening")["url"]
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    https = f"https://127.0.0.1:{port}"
    status, headers, _ = request(https, "POST", "/api/sign-in", sign_in_body("boss"))
    assert status == 200
    cookie = headers["Set-Cookie"]
    assert cookie.startswith("__Host-pit=") and "Secure" in cookie and "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie and "Path=/" in cookie
    assert "max-age=31536000" in headers["Strict-Transport-Security"]
    # The staff list stays at the pit's screens: 127.0.0.1 is one, 127.0.0.2 is not.
    assert request(https, "GET", "/api/people", source="127.0.0.2")[0] == 403
