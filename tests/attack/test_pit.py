"""Attacks on the pit (issue 19, items 5, 7 and 9, and the lockout's alarm): the real broker,
`shoe-floor collect` and `shoe-floor serve` as processes, a real PostgreSQL, and real tables
(the daemon dealing a scripted shoe, or its floor link alone), over MQTT and HTTP.

- Forged `state`, `online` and `head`, with the table's own broker login, retained and not:
  unsigned, signed with the forger's key or another table's, a genuine signature over other
  bytes or of another kind, and genuine old ones replayed. None is shown on the page (its
  /api/tiles, all its event stream, a fresh page, Chromium), each is alarmed, the genuine
  state stays; a table gone cannot be kept alive.
- A broker restarted with a second records subscriber present and a table that then goes
  quiet: the pit is whole again within seconds, with no table action; and when the records
  cannot come back (the table's link stopped), an alarm within the grace, and a word when
  they do.
- Two tables whose names shared one lodged-key directory: keys and exports kept apart.
- A `console.lockout` record in a table's ledger: an alarm at the pit.

Each ends with the attack refused or repaired, nothing lost, nothing recorded twice.
"""

from __future__ import annotations

import json
import time

from playwright.sync_api import sync_playwright

from hil.floor_servers import COLLECTOR, PIT, PREFIX, wait_for
from shoe_daemon.audit import keys
from shoe_daemon.console.throttle import Lockout
from shoe_daemon.floor.cursor import acked_index
from shoe_daemon.floor.head import parse_head
from shoe_daemon.floor.outbox import message
from shoe_daemon.floor.signing import Signer, Stamp
from shoe_daemon.floor.topics import HEAD, ONLINE, RECORDS, STATE
from shoe_floor.chain import BAD_SIGNATURE, LOCKOUT, REPAIRED, SHORT, STALE, UNKNOWN_KEY, UNSIGNED
from shoe_floor.names import directory_for, legacy_directory_for
from tests.attack.pit_support import (
    Floor,
    Forger,
    Recorder,
    Sse,
    floor_cli,
    settle,
    tile_of,
    tiles,
)
from tests.floor.conftest import Listener
from tests.pit_people import sign_in_page
from tests.test_display_browser import SHOTS, launch, wait_until

HELD = "SHOE DEAL 2C 5D@P"  # the banker's card at the punter's place: a hold (000 rule 12)


def pit_login(floor: Floor):
    return floor.broker.config(PIT, floor.broker.secret(PIT).read_text().strip())


def forged_view(genuine: bytes) -> bytes:
    """The table's held view, the hold taken out: what a forger would have the pit show."""
    view = json.loads(genuine)
    view.update(state="ready", hold=None, state_words="FORGED: all is well")
    return json.dumps(view).encode()


def kinds(floor: Floor, table: str) -> set[tuple[str, str]]:
    """The table's alarms naming no record: (kind, the topic the detail starts with)."""
    return {(a["kind"], a["detail"].split(" ", 1)[0]) for a in floor.alarms(table)
            if a["idx"] is None}


# ---- forged status messages -----------------------------------------------------------------

def test_forged_views_and_heads_are_never_shown_and_each_is_alarmed(floor: Floor, tmp_path):
    held = floor.table("t-held")
    other = floor.table("t-other")  # a table of the floor: only its key is used
    keys.keygen(tmp_path / "forger")  # a key of the forger's own
    own, theirs = Signer(tmp_path / "forger"), Signer(other.state)
    recorder = Recorder(pit_login(floor))
    floor.collector()
    _, url = floor.pit()
    sse = Sse(url)
    held.deal(HELD)
    tile_of(url, "t-held", lambda t: t["lamp"] == "hold" and t["online"], what="the hold")
    views = recorder.on(held.topic(STATE))
    genuine, genuine_props = views[-1]
    old_view, old_props = next(v for v in views if b"on_hold" not in v[0])
    heads = wait_for(lambda: (lambda h: h if len(h) >= 2 else None)(
        recorder.on(held.topic(HEAD))), what="two heads")
    fake = forged_view(genuine)
    future = Stamp(2**62, 1)  # newer than anything the table will sign
    forger = Forger(held.config, "t-held-thief")
    try:
        attempts = [
            (STATE, fake, None, UNSIGNED),
            (STATE, fake, own.sign_status(STATE, "t-held", future, fake).properties(),
             UNKNOWN_KEY),
            (STATE, fake, theirs.sign_status(STATE, "t-held", future, fake).properties(),
             UNKNOWN_KEY),
            (STATE, fake, genuine_props, BAD_SIGNATURE),  # a genuine signature, other bytes
            (STATE, heads[-1][0], heads[-1][1], BAD_SIGNATURE),  # a head's, as a state
            (STATE, old_view, old_props, STALE),  # the table's own view from before the hold
            (HEAD, b'{"acked":0,"every_ms":1000,"head":0,"online":null,"state":null,'
                   b'"wall_ns":0}', None, UNSIGNED),
            (HEAD, heads[0][0], heads[0][1], STALE),  # the table's own first head, again
        ]
        for leaf, payload, props, _ in attempts:
            for retain in (False, True):
                assert forger.publish(held.topic(leaf), payload, props, retain) == 0
        settle(1.0)
    finally:
        forger.close()

    # The page kept the table's own view: the hold, and says what it did not show (the
    # table's next heartbeat is its own head again; its view has not changed since).
    t = tile_of(url, "t-held", lambda t: STATE in {u["topic"] for u in t["unverified"]},
                what="the refusal on the tile")
    assert t["lamp"] == "hold" and t["hold"]["code"] == "WRONG_ORDER" and t["online"]
    assert b"FORGED" not in json.dumps(tiles(url)).encode()
    # Each refused at the collector too, and alarmed, named by topic and kind; the store
    # kept the table's own view.
    wanted = {(kind, leaf) for leaf, _, _, kind in attempts}
    wait_for(lambda: kinds(floor, "t-held") >= wanted, 20, 0.2, "every attempt alarmed")
    unknown = [a for a in floor.alarms("t-held") if a["kind"] == UNKNOWN_KEY]
    assert len(unknown) == 2 and any("lodged for table 't-other'" in a["detail"]
                                     for a in unknown)
    row = next(r for r in floor.read(lambda s: s.tables()) if r["table"] == "t-held")
    assert bytes(row["state"]) == genuine and row["online"] == "online"
    # A page started now, the broker's copies forged: it shows nothing it cannot check.
    _, later = floor.pit("pit-2")
    t = tile_of(later, "t-held", lambda t: t["online"] and t["unverified"], what="a later page")
    assert t["lamp"] != "ready" and b"FORGED" not in json.dumps(t).encode()
    # Chromium, once: the tile as the pit sees it.
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(url)
        sign_in_page(page)
        tile = '.tile[data-table="t-held"]'
        wait_until(page, f"(document.querySelector('{tile}') || {{dataset: {{}}}}).dataset"
                         ".lamp === 'hold'")
        wait_until(page, f"document.querySelector('{tile} .unverified') !== null")
        assert "FORGED" not in page.inner_text("#tiles")
        assert "UNVERIFIED" in page.inner_text(tile)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator(tile).screenshot(path=str(SHOTS / "pit-tile-forged.png"))
        browser.close()
    sse.close()
    assert b"FORGED" not in sse.raw and b"WRONG_ORDER" in sse.raw
    recorder.close()


def test_a_table_gone_cannot_be_kept_alive_on_the_pit(floor: Floor):
    gone = floor.table("t-gone", heartbeat=1.0, keepalive=2)
    recorder = Recorder(pit_login(floor))
    floor.collector()
    _, url = floor.pit()
    daemon = gone.deal("SHOE")
    tile_of(url, "t-gone", lambda t: t["online"] and t["lamp"] == "ready", what="alive")
    words = recorder.on(gone.topic(ONLINE))
    heads = wait_for(lambda: (lambda h: h if len(h) >= 3 else None)(
        recorder.on(gone.topic(HEAD))), what="three heads")
    daemon.kill()  # power lost: no word from the table; its last will, from the broker
    daemon.wait(20)
    began = time.monotonic()
    tile_of(url, "t-gone", lambda t: t["online"] is False, 10, "the last will")
    print(f"figure: OFFLINE on the page {time.monotonic() - began:.1f} s after kill -9 "
          "(keepalive 2 s, heartbeat 1 s)")
    forger = Forger(gone.config, "t-gone-thief")
    try:
        for _ in range(5):  # what would keep a dead table's tile green: refused, every time
            for retain in (False, True):
                forger.publish(gone.topic(ONLINE), b"online", None, retain)
                forger.publish(gone.topic(ONLINE), *words[-1], retain)  # its own, replayed
                forger.publish(gone.topic(HEAD), *heads[-1], retain)  # the last one again
                forger.publish(gone.topic(HEAD), *heads[0], retain)
            time.sleep(1.0)  # past three of its heartbeats in all
    finally:
        forger.close()
    t = tiles(url)["t-gone"]
    assert t["online"] is False and t["lamp"] == "offline" and t["online_since"]
    assert {u["topic"] for u in t["unverified"]} == {ONLINE, HEAD}
    wanted = {(UNSIGNED, ONLINE), (STALE, ONLINE), (STALE, HEAD)}
    wait_for(lambda: kinds(floor, "t-gone") >= wanted, 20, 0.2, "the attempts alarmed")
    row = next(r for r in floor.read(lambda s: s.tables()) if r["table"] == "t-gone")
    assert row["online"] == "offline"  # the last will, checked and kept
    _, later = floor.pit("pit-2")  # a page started now: the broker's copies say nothing
    settle(1.0)
    assert tiles(later)["t-gone"]["online"] is not True
    recorder.close()


# ---- a broker restart, a second subscriber, a quiet table ---------------------------------

def deal_records(table, count: int) -> int:
    """`count` records committed at the table, as its frames are; the last index."""
    ledger = table.ledger()
    try:
        return ledger.append_many(("frame", {"type": "CARD", "fields": ["9C"], "n": n})
                                  for n in range(count))[-1].idx
    finally:
        ledger.close()


def short_after_a_broker_restart(floor: Floor, name: str):
    """A table whose last records went, after a broker restart, to a second subscriber only:
    the collector was away (stopped, its session kept), the broker restarted (mosquitto
    2.0.11 keeps the session, not its shared subscription), a surveillance feed subscribed
    to every table's records; the table's link had them acknowledged, then went quiet. The
    table, its link's process, the feed, and the table's last record."""
    table = floor.table(name, heartbeat=1.0)
    deal_records(table, 20)
    link = table.link()
    collector = floor.collector()
    wait_for(lambda: floor.whole(table), 30, 0.2, "the first records stored")
    assert collector.stop() == 0  # away: its persistent session stays at the broker
    floor.broker.stop()
    floor.broker.start()
    feed = Listener(floor.broker.config(COLLECTOR, floor.broker.secret(COLLECTOR).read_text()
                                        .strip()), f"{PREFIX}/+/{RECORDS}",
                    client_id="surveillance-feed")
    last = deal_records(table, 30)
    wait_for(lambda: acked_index(table.state) == last, 30, 0.1, "the broker to take them")
    got = {json.loads(p)["idx"] for p in feed.on(RECORDS) if p.startswith(b"{")} | {
        r["idx"] for p in feed.on(RECORDS) if p.startswith(b"[") for r in json.loads(p)}
    assert set(range(21, last + 1)) <= got  # the feed has them; the store, not
    assert [r.idx for r in floor.stored(name)] == list(range(1, 21))
    return table, link, feed, last


def test_a_broker_restart_with_a_second_subscriber_leaves_no_quiet_table_short(floor: Floor):
    table, _, feed, last = short_after_a_broker_restart(floor, "t-quiet")
    began = time.monotonic()
    collector = floor.collector()  # and nothing more: the table commits nothing
    wait_for(lambda: floor.whole(table), 30, 0.2, "the pit whole again")
    took = time.monotonic() - began
    print(f"figure: the pit whole {took:.1f} s after the collector's reconnect")
    assert took < 10, took
    asked = collector.wait_event("collector.short")
    assert (asked["table"], asked["start"], asked["through"]) == ("t-quiet", 21, last)
    collector.wait_event("collector.short_repaired")
    assert floor.alarms("t-quiet") == []  # back within the grace: nothing to alarm
    assert [r.idx for r in floor.stored("t-quiet")] == list(range(1, last + 1))  # once each
    feed.close()


def test_records_that_cannot_come_back_are_alarmed_within_the_grace(floor: Floor):
    table, link, feed, last = short_after_a_broker_restart(floor, "t-cut")
    recorder = Recorder(pit_login(floor))
    wait_for(lambda: any(parse_head(p) and parse_head(p).acked == last
                         for p, _ in recorder.on(table.topic(HEAD))), 20, 0.1,
             "a head saying so")
    link.kill()  # the table's link stops: nothing will answer the resend
    link.wait(20)
    began = time.monotonic()
    floor.collector()
    alarm = wait_for(lambda: next((a for a in floor.alarms("t-cut") if a["kind"] == SHORT),
                                  None), 20, 0.1, "the short alarm")
    took = time.monotonic() - began
    print(f"figure: the short alarm {took:.1f} s after the collector's reconnect (grace 2 s)")
    assert took < 2.0 + 4.0, took  # the grace (2 s) and a look or two
    assert alarm["idx"] == 21 and f"records 21..{last}" in alarm["detail"]
    _, url = floor.pit()
    tile_of(url, "t-cut", lambda t: t["alarms"]["last"] and t["alarms"]["last"]["kind"] == SHORT,
            what="the alarm on the tile")
    table.link()  # back: the resend asked waits in its session; the records come
    wait_for(lambda: floor.whole(table), 30, 0.2, "the pit whole again")
    repaired = wait_for(lambda: [a for a in floor.alarms("t-cut") if a["kind"] == REPAIRED],
                        20, 0.1, "the word that they came")
    assert len(repaired) == 1 and f"records 21..{last}: in the store" in repaired[0]["detail"]
    assert [r.idx for r in floor.stored("t-cut")] == list(range(1, last + 1))
    assert sum(a["kind"] == SHORT for a in floor.alarms("t-cut")) == 1
    feed.close()
    recorder.close()


# ---- names that shared a directory ----------------------------------------------------------

def test_two_tables_whose_names_shared_a_directory_keep_their_keys_and_exports_apart(
        floor: Floor, tmp_path):
    unsafe = "tablé-7"  # not a portable file name: it goes under a digest
    twin = legacy_directory_for(unsafe)  # the digest's old name, and a table's own name
    assert twin.startswith("table-") and directory_for(twin) == twin != directory_for(unsafe)
    a, b = floor.table(unsafe), floor.table(twin)
    for t in (a, b):
        deal_records(t, 12)
        t.link()
    floor.collector()
    wait_for(lambda: floor.whole(a) and floor.whole(b), 30, 0.2, "both tables stored")
    lodged = {p.parent.name: p.name for p in floor.table_keys.glob("*/*.pub.pem")}
    assert lodged == {directory_for(unsafe): f"{a.key.key_id}.pub.pem",
                      twin: f"{b.key.key_id}.pub.pem"}
    # One table's key signs for that table alone: a's key on b's records is refused.
    forger = Forger(b.config, "twin-thief")
    try:
        last = b.records()[-1]
        props = Signer(a.state).sign(twin, last.idx, last.hash).properties()
        assert forger.publish(b.topic(RECORDS), message(last), props, False) == 0
    finally:
        forger.close()
    refused = wait_for(lambda: [x for x in floor.alarms(twin) if x["kind"] == UNKNOWN_KEY],
                       20, 0.1, "the refusal")
    assert f"lodged for table '{directory_for(unsafe)}'" in refused[0]["detail"]
    again = floor_cli("lodge-key", "--config", str(floor.toml), twin,
                      str(keys.keys_dir(a.state) / f"{a.key.stem}.pub.pem"))
    assert again.returncode == 2 and "is lodged for table" in again.stderr
    # The regulator's export: a directory each, each verified with its own records.
    assert floor_cli("keygen", "--config", str(floor.toml)).returncode == 0
    out = tmp_path / "export"
    done = floor_cli("export", "--config", str(floor.toml), "--out", str(out))
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "floor-manifest.json").read_text())
    assert {(e["table_id"], e["dir"]) for e in manifest["tables"]} == {
        (unsafe, directory_for(unsafe)), (twin, twin)}
    checked = floor_cli("verify", str(out))
    assert checked.returncode == 0, checked.stderr
    for t in (a, b):
        lines = (out / directory_for(t.name) / "events.jsonl").read_text().splitlines()
        assert len(lines) == len(t.records())
    assert floor.stored(unsafe) == a.records() and floor.stored(twin) == b.records()


# ---- a lockout at a table ---------------------------------------------------------------------

def test_a_lockout_in_a_tables_ledger_becomes_an_alarm_at_the_pit(floor: Floor):
    table = floor.table("t-console")
    deal_records(table, 5)
    ledger = table.ledger()
    try:  # as the console commits it (issue 19: never a PIN, never a badge)
        locked = ledger.append("console.lockout", Lockout(
            "pin", "s.marchetti", "127.0.0.2", "elsewhere", 6, 5.0,
            1_772_399_045_000_000_000).body()).idx  # as the console's throttle makes it
    finally:
        ledger.close()
    deal_records(table, 5)
    table.link()
    floor.collector()
    _, url = floor.pit()
    t = tile_of(url, "t-console", lambda t: t["alarms"]["count"], what="the alarm on the tile")
    assert t["alarms"]["last"]["kind"] == LOCKOUT and t["alarms"]["serious"] == 0
    (alarm,) = floor.alarms("t-console")
    assert alarm["kind"] == LOCKOUT and alarm["idx"] == locked
    for words in (f"record {locked}: ", "s.marchetti's PIN from elsewhere",
                  "delayed until 21:04:05 UTC", "6 failures", "from 127.0.0.2"):
        assert words in alarm["detail"], alarm["detail"]
    # The table sends it all again (a collector's resend): stored once, alarmed once.
    asker = Forger(floor.broker.config(COLLECTOR, floor.broker.secret(COLLECTOR).read_text()
                                       .strip()), "asker")
    try:
        asker.publish(table.topic("resend"), b"1", None, False)
    finally:
        asker.close()
    settle(2.0)
    assert floor.whole(table)
    assert [a["kind"] for a in floor.alarms("t-console")] == [LOCKOUT]
