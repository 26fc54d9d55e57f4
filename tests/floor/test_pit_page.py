"""The pit's page end to end in Debian's Chromium: a real mosquitto, real tables (a coup
machine dealing what the simulated croupier deals, a real ledger, the real floor link
publishing its records and its display's public view), a real collector into a real
PostgreSQL, and `shoe-floor serve`'s page, signed in as the pit boss. Screenshots in
out/screenshots/ (pit-*.png)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from hil.dealer import GameFaults
from hil.floor_servers import Proxy
from shoe_daemon.floor.outbox import message
from shoe_daemon.floor.topics import RECORDS, topic
from shoe_floor.collector import Collector
from shoe_floor.config import load
from shoe_floor.pit.board import Board
from shoe_floor.pit.config import load as load_pit
from shoe_floor.pit.people import pit_people
from shoe_floor.pit.server import PitServer
from shoe_floor.pit.service import Pit
from tests.display_client import get
from tests.floor.conftest import PIT, PREFIX, ROOT, Raw, wait_for
from tests.floor.game import GameTable
from tests.floor.test_pit_board import Table, news, row
from tests.pit_people import request, sign_in, sign_in_page, write_people
from tests.test_display_browser import SHOTS, wait_until

CODE = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][CDHS](?![A-Za-z0-9])")
SUIT = re.compile("[\u2663\u2666\u2665\u2660]")  # a card as the page draws it
PROFILES = ("baden", "zoppot-1934", "clermont-2015", "baden-punto-banco", "eight-pack")


@pytest.fixture
def database(postgres) -> str:
    """The page reads the store the floor runs on: PostgreSQL (SQLite: the export's tests)."""
    return postgres.new_database()


@pytest.fixture
def pit_toml(collector_toml, broker):
    def write(**pit: object) -> Path:
        path = collector_toml("collector-1")
        write_people(path.parent / "pit-people.json")
        settings = {"http": "127.0.0.1:0", "poll": 0.3, "behind_grace": 1.0, "username": PIT,
                    "password_file": str(broker.secret(PIT)), **pit}
        path.write_text(path.read_text() + "\n[pit]\n" + "".join(
            f"{k} = {json.dumps(v)}\n" for k, v in settings.items()))
        return path

    return write


@pytest.fixture
def pit(pit_toml) -> Iterator[Pit]:
    p = Pit(load_pit(pit_toml()))
    p.start()
    yield p
    p.stop()


@pytest.fixture
def games(make_table) -> Iterator:
    made: list[GameTable] = []

    def make(name: str, profile: str = "baden", seed: int = 1, **faults: float) -> GameTable:
        game = GameTable(make_table(name), profile, seed,
                         GameFaults(**faults) if faults else None)
        made.append(game)
        return game

    yield make
    for game in made:
        game.stop()


def tile(page: Page, table: str) -> str:
    return f'.tile[data-table="{table}"]'


def tile_text(page: Page, table: str) -> str:
    return page.inner_text(tile(page, table))


def wait_text(page: Page, table: str, words: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while words not in (page.inner_text(tile(page, table))
                        if page.query_selector(tile(page, table)) else ""):
        if time.monotonic() > deadline:
            raise AssertionError(f"tile {table} never showed {words!r}: "
                                 f"{page.inner_text('#tiles')!r}")
        time.sleep(0.05)


def open_page(browser: Browser, url: str, width: int = 1920, height: int = 1080,
              person: str = "boss") -> Page:
    """The page, signed in at the pit's screen."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url)
    sign_in_page(page, person)
    return page


def signed_get(url: str, path: str) -> tuple[int, dict[str, str], bytes]:
    return request(url, "GET", path, cookie=sign_in(url))


def shoot(page: Page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def wait_attr(page: Page, table: str, name: str, value: object, timeout: float = 20.0) -> None:
    wait_until(page, f"(document.querySelector('{tile(page, table)}') || {{dataset: {{}}}})"
                     f".dataset.{name} === {json.dumps(str(value))}", timeout)


def wait_coup(page: Page, table: str, view: dict) -> None:
    wait_attr(page, table, "shoe", view["shoe"]["number"])
    wait_attr(page, table, "coup", view["coup"]["number"] if view["coup"] else "")


def wait_stored(page: Page, game: GameTable, timeout: float = 30.0) -> None:
    wait_attr(page, game.name, "tip", game.table.records()[-1].idx, timeout)


def test_the_page_follows_every_table_live(games, collector, pit, browser, broker):
    collector()
    dealer = games("t1", "baden", seed=11).connect()
    covered = games("t2", "zoppot-1934", seed=12).connect()
    held = games("t3", "baden", seed=13, wrong_order=1.0).connect()
    gap = games("t4", "baden-punto-banco", seed=14).connect()
    dealer.deal(120)
    covered.deal(40)
    gap.deal(60)
    page = open_page(browser, pit.server.url)
    wait_until(page, "document.querySelectorAll('.tile').length === 4")
    assert [t.get_attribute("data-table") for t in page.query_selector_all(".tile")] == [
        "t1", "t2", "t3", "t4"]
    wait_coup(page, "t1", dealer.view())

    # Live: the tile follows the table's every commit.
    before = dealer.view()["coup"]["number"]
    view = dealer.deal_until(lambda v: v["coup"] and v["coup"]["number"] == before + 2)
    wait_coup(page, "t1", view)
    assert page.get_attribute(tile(page, "t1"), "data-lamp") in ("ready", "waiting")
    beads = page.query_selector_all(f"{tile(page, 't1')} .bead")
    assert len(beads) == min(12, len(view["history"]["bead_plate"]))

    # Face-down cards stay face down: the four first cards dealt, nothing shown yet.
    view = covered.deal_until(lambda v: v["state"] in ("punter_to_declare", "banker_to_play")
                              and all(c is None for c in v["coup"]["punter"]["cards"]
                                      + v["coup"]["banker"]["cards"]))
    wait_until(page, f"document.querySelector('{tile(page, 't2')}').dataset.lamp"
                     " === 'waiting'")
    assert page.query_selector_all(f"{tile(page, 't2')} [data-code]") == []
    assert len(page.query_selector_all(f"{tile(page, 't2')} .card.back")) == 4
    assert SUIT.findall(tile_text(page, "t2")) == []
    served = {t["table"]: t
              for t in json.loads(signed_get(pit.server.url, "/api/tiles")[2])["tiles"]}
    assert CODE.findall(json.dumps(served["t2"])) == []
    shoot(page, "pit-face-down")
    # The table shows them: so does the page, and only then.
    view = covered.deal_until(lambda v: v["state"] == "decided")
    cards = view["coup"]["punter"]["cards"] + view["coup"]["banker"]["cards"]
    wait_until(page, f"document.querySelectorAll('{tile(page, 't2')} [data-code]').length"
                     f" === {len(cards)}")
    on_page = {e.get_attribute("data-code")
               for e in page.query_selector_all(f"{tile(page, 't2')} [data-code]")}
    assert on_page == set(cards)

    # A hold: the lamp, the words and rule, and its age from the hold's own record.
    view = held.deal_until(lambda v: v["state"] == "on_hold")
    wait_text(page, "t3", "HELD ")
    wait_text(page, "t3", view["hold"]["rule"])
    assert page.get_attribute(tile(page, "t3"), "data-lamp") == "hold"
    wait_until(page, f"/HELD \\d+ s/.test(document.querySelector('{tile(page, 't3')} "
                     ".alert').innerText)")
    assert SUIT.findall(tile_text(page, "t3")) == []

    # A gap: a record arrives ahead of those the table has not sent; the page counts them.
    wait_stored(page, gap)
    tip = gap.table.records()[-1].idx
    gap.stop()
    gap.link = None
    gap.deal(2)
    last = gap.table.records()[-1].idx
    forger = Raw(gap.table.config, gap.table.state_dir)
    try:
        assert forger.publish(topic(PREFIX, "t4", RECORDS),
                              message(gap.table.records()[-1])) == 0
    finally:
        forger.close()
    wait_text(page, "t4", f"gap at #{tip + 1:,}")
    wait_text(page, "t4", f"backlog \u2265 {last - tip}")  # offline: there may be more
    wait_text(page, "t4", "1 alarm (gap)")  # the collector's alarm, and its resend request
    assert page.get_attribute(tile(page, "t4"), "data-lamp") == "offline"
    shoot(page, "pit-gap-offline")
    gap.connect()  # back: it resends, the chain closes, the backlog is gone
    wait_text(page, "t4", "backlog 0")
    wait_stored(page, gap)
    wait_until(page, f"document.querySelector('{tile(page, 't4')}').dataset.lamp"
                     " !== 'offline'")
    page.close()


# Runs in the page: notes the backlog each drawing of a tile showed, however briefly.
SEEN = """(table) => {
  window.seen = [];
  new MutationObserver(() => {
    const t = document.querySelector(`.tile[data-table="${table}"]`);
    if (t) window.seen.push([Number(t.dataset.backlog), Number(t.dataset.toSend),
                             t.dataset.atLeast === "yes"]);
  }).observe(document.getElementById("tiles"), {childList: true, subtree: true,
                                                attributes: true});
}"""


def test_a_table_cut_off_shows_its_backlog_and_it_drains_to_nothing(games, collector_toml,
                                                                    pit, browser, broker):
    proxy = Proxy(broker.port)  # the table's cable to the floor, which the test pulls
    game = games("t5", "baden", seed=51)
    link = game.connect(broker.config("t5", game.table.config.password, port=proxy.port)).link
    config = load(collector_toml("collector-1"))
    first = Collector(config)
    first.start()
    try:
        game.deal(30)
        page = open_page(browser, pit.server.url)
        wait_stored(page, game)
        page.evaluate(SEEN, "t5")
        wait_attr(page, "t5", "backlog", 0)
    finally:
        first.stop()  # the pit's collector is down too: what the table sends stays queued
    tip = game.table.records()[-1].idx
    # The cable out, and the table deals on: the broker's last will says it is offline, and
    # the pit knows only what the table last said (it was keeping up: nothing waiting).
    proxy.cut()
    wait_for(lambda: not link.connected, 30, 0.2, "the link to see the cut")
    game.deal(40)
    last = game.table.records()[-1].idx
    wait_attr(page, "t5", "lamp", "offline", 30)
    wait_text(page, "t5", "backlog \u2265 0")
    # Back: first thing, the table says its head; the page counts what the store lacks, all
    # of it still at the table; then the table's link sends it all to the broker (queued
    # there for the stopped collector), and says so: nothing left to send, not yet stored.
    proxy.restore()
    wait_until(page, f"window.seen.some(([b, s]) => b === {last - tip} && s === {last - tip})",
               40)
    wait_attr(page, "t5", "toSend", 0, 20)
    wait_text(page, "t5", f"backlog {last - tip:,}")
    wait_text(page, "t5", "store behind ")
    assert page.inner_text("#backlog") == f" \u00b7 backlog {last - tip:,}"
    shoot(page, "pit-backlog")
    # Out again: offline, the last report is a floor under the backlog, which may grow.
    proxy.cut()
    wait_for(lambda: not link.connected, 30, 0.2, "the link to see the cut")
    game.deal(20)
    wait_attr(page, "t5", "lamp", "offline", 30)
    wait_text(page, "t5", f"backlog \u2265 {last - tip:,}")
    assert page.inner_text("#backlog") == f" \u00b7 backlog \u2265 {last - tip:,}"
    page.locator(tile(page, "t5")).screenshot(path=str(SHOTS / "pit-tile-backlog.png"))
    # The cable back and the collector again: the count drains to nothing.
    proxy.restore()
    again = Collector(config)
    again.start()
    try:
        wait_stored(page, game, 60)
        wait_attr(page, "t5", "backlog", 0, 30)
        wait_attr(page, "t5", "atLeast", "")
        assert "to send" not in tile_text(page, "t5")
        assert page.inner_text("#backlog") == " \u00b7 backlog 0"
        seen = page.evaluate("window.seen")
        assert [last - tip, last - tip, False] in seen and seen[-1] == [0, 0, False]
        assert max(b for b, _, _ in seen) >= last - tip
    finally:
        again.stop()
        page.close()
        proxy.close()


def test_the_page_says_when_the_store_or_the_broker_is_behind(games, collector_toml, pit,
                                                              browser, broker):
    table = games("t1", "baden", seed=21).connect()
    config = load(collector_toml("collector-1"))
    first = Collector(config)
    first.start()
    try:
        table.deal(30)
        page = open_page(browser, pit.server.url)
        wait_stored(page, table)
    finally:
        first.stop()
    time.sleep(1.5)  # the table goes on after a pause longer than behind_grace (1 s) ...
    table.deal(3)  # ... and nothing of it reaches the store
    wait_text(page, "t1", "store behind ")
    shoot(page, "pit-store-behind")
    again = Collector(config)
    again.start()
    try:
        wait_stored(page, table)
        wait_until(page, f"!document.querySelector('{tile(page, 't1')}').innerText"
                         ".includes('store behind')")
    finally:
        again.stop()
    # The page's own link to the broker down: its bar says so, the tiles stay.
    broker.stop()
    wait_until(page, "document.getElementById('broker').innerText === 'broker unreachable'")
    assert page.query_selector(tile(page, "t1")) is not None
    broker.start()
    wait_until(page, "document.getElementById('broker').innerText === 'broker'", 30)
    page.close()


def test_24_tables_legible_at_1920x1080(games, collector, pit, browser):
    collector()
    tables = []
    for n in range(24):
        faults = {"wrong_order": 1.0 if n == 3 else 0.3} if n % 7 == 3 else {}
        game = games(f"T{n + 1:02d}", PROFILES[n % len(PROFILES)], seed=100 + n, **faults)
        game.connect()
        game.deal(30 + (37 * n) % 300)
        tables.append(game)
    tables[3].deal_until(lambda v: v["state"] == "on_hold")  # one table held
    tables[5].stop()  # one table switched off
    page = open_page(browser, pit.server.url)
    wait_until(page, "document.querySelectorAll('.tile').length === 24", 30)
    for game in tables:
        wait_stored(page, game)
    wait_text(page, "T06", "OFFLINE")
    wait_until(page, f"/HELD \\d+ s/.test(document.querySelector('{tile(page, 'T04')}')"
                     ".innerText)")
    time.sleep(1.2)  # the ages tick once
    assert "store behind" not in page.inner_text("#tiles")  # every record is stored
    path = shoot(page, "pit-24-tables")
    page.locator(tile(page, "T04")).screenshot(path=str(SHOTS / "pit-tile-held.png"))
    assert path.stat().st_size > 50_000
    # Every tile is whole on the screen, and no text is smaller than 12 px.
    for box in page.eval_on_selector_all(".tile", "ts => ts.map(t => {"
                                         "const r = t.getBoundingClientRect();"
                                         "return [r.left, r.top, r.right, r.bottom]; })"):
        assert box[0] >= 0 and box[1] >= 0 and box[2] <= 1920 and box[3] <= 1080, box
    smallest = page.evaluate("Math.min(...[...document.querySelectorAll('.tile *')]"
                             ".filter(e => e.childNodes.length && [...e.childNodes].some("
                             "n => n.nodeType === 3 && n.textContent.trim()))"
                             ".map(e => parseFloat(getComputedStyle(e).fontSize)))")
    assert smallest >= 12
    page.close()


# ---- the page's drawing: the page's server and Chromium, the board's news posted as the feed
# posts it (the broker and the store are the tests above) ----------------------------------

@pytest.fixture
def board_server(tmp_path) -> Iterator[PitServer]:
    people = pit_people(write_people(tmp_path / "pit-people.json", ("boss",)))
    people.load()
    s = PitServer(Board(), "127.0.0.1", 0, people=people)
    s.start()
    yield s
    s.stop()


def post_state(server: PitServer, table: str, view: bytes) -> None:
    server.post(lambda board, now: board.state(table, view, True, now))


def post_tip(server: PitServer, table: str, tip: int) -> None:
    server.post(lambda board, now: board.store(news(row(table, tip=tip, tip_at=now)), now))


HANDS = ("9C 2D KH 3S", "2H 9S 3D KC", "9D 2C KS 3H", "2S 9H 3C KD")  # punter, banker naturals

# Runs in the page: a tile's nodes as drawn now, by part, to tell later whether the page kept
# them or built them again.
PARTS = """(table) => {
  const t = document.querySelector(`.tile[data-table="${table}"]`);
  return {tile: [t], road: [...t.querySelectorAll(".road, .road *")],
          beads: [...t.querySelectorAll(".bead")], cards: [...t.querySelectorAll(".coup *")],
          top: [...t.querySelectorAll(".top *")]};
}"""
KEEP = f"(table) => {{ window.kept = ({PARTS})(table); }}"
KEPT = f"""(table) => {{
  const now = ({PARTS})(table);
  return Object.keys(now).filter((part) => !(window.kept[part].length > 0
    && now[part].length === window.kept[part].length
    && now[part].every((node, i) => node === window.kept[part][i])));
}}"""


def test_a_tile_whose_counts_alone_change_keeps_its_road_beads_and_cards(board_server, browser):
    table = Table(name="t1")
    table.play("SHOE")
    for n in range(9):
        table.play("DEAL " + HANDS[n % len(HANDS)])
    post_state(board_server, "t1", table.views[-1])
    post_tip(board_server, "t1", 40)
    page = open_page(browser, board_server.url)
    wait_attr(page, "t1", "tip", 40)
    assert len(page.query_selector_all(f"{tile(page, 't1')} .road .ring")) == 9
    page.evaluate(KEEP, "t1")
    # The store's next readings move the counts alone: the page changes the foot alone.
    for tip in (41, 42, 1_043):
        post_tip(board_server, "t1", tip)
        wait_text(page, "t1", f"stored #{tip:,}")
        assert page.evaluate(KEPT, "t1") == []  # no part drawn again but the foot
    # A result changes the road: its cells stay, and one more is marked.
    table.play("DEAL " + HANDS[1])
    post_state(board_server, "t1", table.views[-1])
    wait_attr(page, "t1", "coup", 10)
    wait_until(page, f"document.querySelectorAll('{tile(page, 't1')} .road .ring').length"
                     " === 10")
    assert page.evaluate("""(table) => {
      const cells = [...document.querySelectorAll(`.tile[data-table="${table}"] .road .cell`)];
      return cells.length === 156 && cells.every((c) => window.kept.road.includes(c));
    }""", "t1")
    assert len(page.query_selector_all(f"{tile(page, 't1')} .bead")) == 10
    assert "stored #1,043" in tile_text(page, "t1")
    page.close()


def test_a_burst_of_news_for_one_tile_shows_its_latest(board_server, browser):
    table = Table(name="t1")
    post_state(board_server, "t1", table.play("SHOE"))
    post_tip(board_server, "t1", 1)
    page = open_page(browser, board_server.url)
    wait_attr(page, "t1", "tip", 1)
    # Twenty coups, a view for each card, and a reading of the store after each view, all
    # at once: the last of each must win, whatever the page drew in between.
    views = []
    for n in range(20):
        views.append(table.play("DEAL"))
        views += [table.play(card) for card in HANDS[n % len(HANDS)].split()]
    for tip, view in enumerate(views, start=2):
        post_state(board_server, "t1", view)
        post_tip(board_server, "t1", tip)
    last, tip = json.loads(views[-1]), len(views) + 1
    wait_attr(page, "t1", "tip", tip)
    time.sleep(0.5)  # nothing older comes after it
    t = page.query_selector(tile(page, "t1"))
    assert t.get_attribute("data-tip") == str(tip) and f"stored #{tip}" in t.inner_text()
    assert t.get_attribute("data-coup") == str(last["coup"]["number"]) == "20"
    assert [c.get_attribute("data-code") for c in t.query_selector_all(".coup .card")] == (
        last["coup"]["punter"]["cards"] + last["coup"]["banker"]["cards"])
    assert t.query_selector(".state .outcome").get_attribute("class") == "outcome banker"
    served = json.loads(board_server.board.tile_json("t1"))
    assert len(t.query_selector_all(".road .ring")) == len(served["road"]) == 20
    assert [b.inner_text() for b in t.query_selector_all(".bead")] == [
        str(b["total"]) for b in served["results"]]
    page.close()


def test_each_tile_names_the_game_as_its_table_does(board_server, browser):
    """The table's display language and terms, from its view: the tile's outcome and its state
    words say the same word, and a table beside it in French terms says its own."""
    german, french = Table(name="t1", language="de", terms="language"), Table(name="t2")
    post_state(board_server, "t1", german.play("SHOE DEAL 3C 2D 4H 3S"))  # the bank to play
    post_state(board_server, "t2", french.play("SHOE DEAL 3C 2D 4H 3S"))
    page = open_page(browser, board_server.url)
    wait_text(page, "t1", "Bank ist am Zug")
    wait_text(page, "t2", "Banco to play")
    post_state(board_server, "t1", german.play("9C"))  # the bank draws 9: Spieler 7 to 4
    post_state(board_server, "t2", french.play("9C"))
    wait_text(page, "t1", "Spieler 7\u20134")
    wait_text(page, "t2", "Punto 7\u20134")
    sides = page.eval_on_selector_all(f"{tile(page, 't1')} .coup .side",
                                      "(nodes) => nodes.map((n) => n.textContent)")
    assert sides == ["S", "B"]  # Spieler, Bank
    text = tile_text(page, "t1")
    assert "Punto" not in text and "Banco" not in text and "Punter" not in text
    page.close()


def test_shoe_floor_serve_runs_from_its_config(games, collector, pit_toml):
    collector()
    table = games("t1", "baden", seed=31).connect()
    table.deal(20)
    toml = pit_toml(client_id="pit-cli")
    proc = subprocess.Popen([sys.executable, "-m", "shoe_floor.cli", "serve", "--config",
                             str(toml)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        url = None
        for line in proc.stdout:  # the JSON log: pit.listening names the URL
            if '"pit.listening"' in line:
                url = json.loads(line)["url"]
                break
        assert url, proc.stderr.read()
        assert get(url, "/api/tiles")[0] == 401
        cookie = sign_in(url)
        wait_for(lambda: [t["shoe"] for t in json.loads(
            request(url, "GET", "/api/tiles", cookie=cookie)[2])["tiles"] if t.get("shoe")],
                 what="the table's tile")
        port = int(url.rsplit(":", 1)[1].strip("/"))
        taken = subprocess.run([sys.executable, "-m", "shoe_floor.cli", "serve", "--config",
                                str(toml), "--http", f"127.0.0.1:{port}"], cwd=ROOT,
                               capture_output=True, text=True, timeout=60)
        assert taken.returncode == 2 and "pit.http" in taken.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
