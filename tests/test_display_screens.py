"""The page on its three screens in Debian's Chromium: the 1920x1080 monitor, the Pi's 7-inch
800x480 touch screen and a 1080x1920 portrait tower (docs/display.md, "Screens").

- Live: every house profile (both games) dealt by the simulated shoe into the real daemon,
  watched by one page per screen at once, each in a language of its own: no face-down card on
  any of them, the roads drawn as the results say, nothing off the screen or overlapping, the
  key words large enough to read at three metres, a screenshot of each (docs/display-*.png).
- The hand-made sequence of tests/test_display_history.py drawn on each screen: every mark of
  the five roads and the ask road where the hand-worked rules put it.
- Views built here: the bank and the limits as the console will send them, and their absence;
  the hold and last-coup banners in each language.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from hil.harness import display_url, start_daemon, start_shoe, stop
from hil.script import parse_script
from shoe_daemon.display import TableDisplay
from shoe_daemon.display.history import History
from shoe_daemon.display.server import DisplayServer
from shoe_daemon.display.stakes import Bank, BetLimit, Limits
from shoe_daemon.display.words import LANGUAGES, Words
from shoe_daemon.game.coup import CoupMachine
from shoe_daemon.game.houses import PROFILES, get_profile
from tests.test_display_browser import CODE, RECORDER, SHOTS, allowed, launch, wait_until
from tests.test_display_history import HAND, R, U, result

ROOT = Path(__file__).resolve().parent.parent

#: Each screen: its size in CSS pixels and the size of a pixel on it (mm): a 24-inch 16:9
#: monitor (531 mm wide), the Raspberry Pi 7-inch display (154.2 mm active width), a 43-inch
#: 16:9 panel turned upright (535 mm wide).
SCREENS = {
    "monitor": (1920, 1080, 531 / 1920),
    "pi": (800, 480, 154.2 / 800),
    "tower": (1080, 1920, 535 / 1080),
}
#: At three metres a normal eye (20/20) reads letters of 5 arc-minutes: 4.4 mm. The
#: coup's state, the cards, the totals, the result and the banners must be at least that
#: tall (capital height, about 0.72 of the font size in DejaVu Sans).
LEGIBLE_MM = 3000 * 0.001454  # 5 arc-minutes at 3 m: 4.36 mm
CAP_HEIGHT = 0.72
KEY_TEXT = ["#state-words", "#result-words", ".hand .total", ".card .rank", "#hold-title",
            "#banner"]
LANGUAGE_OF = {"zoppot-1934": "fr", "clermont-2015": "en", "eight-pack": "de", "baden": "de",
               "baden-punto-banco": "zh", "shimmy": "en"}
ROADS = {"bead_plate": "bead-plate", "big_road": "big-road", "big_eye_boy": "big-eye-boy",
         "small_road": "small-road", "cockroach_pig": "cockroach-pig"}

DOM_ROADS = """() => {
  const out = {};
  for (const id of ROAD_IDS) {
    const node = document.getElementById(id);
    const cells = [...node.querySelectorAll("[data-col]")].map((c) => {
      const mark = c.querySelector("[data-winner], [data-colour]");
      const tie = c.querySelector(".tie-count");
      return [+c.dataset.col, +c.dataset.row,
              mark.dataset.winner || mark.dataset.colour,
              c.querySelector(".tie") ? (tie ? +tie.textContent : 1) : 0];
    });
    out[id] = {columns: node.children.length / 6, cells};
  }
  out.ask = {};
  for (const side of ["b", "p"]) {
    out.ask[side] = [...document.querySelectorAll("#ask-" + side + " .ask-slot")].map((s) => {
      const mark = s.querySelector("[data-colour]");
      return [s.dataset.road, mark ? mark.dataset.colour : null];
    });
  }
  return out;
}""".replace("ROAD_IDS", json.dumps(list(ROADS.values())))

LAYOUT = """(selectors) => {
  const boxes = {};
  for (const s of selectors) {
    const n = document.querySelector(s);
    if (!n || n.hidden || getComputedStyle(n).display === "none") continue;
    const r = n.getBoundingClientRect();
    boxes[s] = [r.left, r.top, r.right, r.bottom];
  }
  return {boxes, width: innerWidth, height: innerHeight,
          scrollW: document.documentElement.scrollWidth,
          scrollH: document.documentElement.scrollHeight};
}"""

FONT_SIZES = """(selectors) => selectors.flatMap((s) =>
  [...document.querySelectorAll(s)].filter((n) => n.offsetParent !== null || n.id === "hold")
    .filter((n) => n.textContent.trim())
    .map((n) => [s, parseFloat(getComputedStyle(n).fontSize)]))"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


def expected_roads(view: dict[str, Any], columns: dict[str, int]) -> dict[str, list]:
    """What each road must show: its cells in the last columns that fit, as the page scrolls."""
    out = {}
    for name, node in ROADS.items():
        cells = view[name]
        last = max((c["col"] for c in cells), default=-1)
        first = max(0, last - columns[node] + 1)
        out[node] = sorted(
            [c["col"], c["row"], c.get("winner") or c["colour"], c.get("ties", 0)]
            for c in cells if c["col"] >= first)
    return out


def check_roads(page: Page, history: dict[str, Any]) -> None:
    dom = page.evaluate(DOM_ROADS)
    columns = {node: int(dom[node]["columns"]) for node in ROADS.values()}
    want = expected_roads(history, columns)
    for node in ROADS.values():
        assert sorted(dom[node]["cells"]) == want[node], node
        assert columns[node] >= 4, (node, columns[node])  # a road too narrow to read
    for side, key in (("b", "B"), ("p", "P")):
        assert dict(dom["ask"][side]) == history["ask"][key], side


def check_layout(page: Page, screen: str) -> None:
    """Nothing off the screen, the page's bands one below the other, no band over another."""
    width, height, _ = SCREENS[screen]
    got = page.evaluate(LAYOUT, ["#bar", "#status", "#banner", "#hands", "#notices", "#board",
                                 "#bead-plate", "#big-road", "#big-eye-boy", "#small-road",
                                 "#cockroach-pig", "#stats", "#ask"])
    assert (got["width"], got["height"]) == (width, height)
    assert got["scrollW"] <= width and got["scrollH"] <= height, got
    for name, (left, top, right, bottom) in got["boxes"].items():
        assert left >= 0 and top >= 0 and right <= width + 0.5 and bottom <= height + 0.5, (
            screen, name, got["boxes"][name])
    hands = got["boxes"]["#hands"]
    inside = page.evaluate(LAYOUT, ["#punter .cards", "#punter .total", "#banker .cards",
                                    "#banker .total", "#result-words", "#result-detail"])
    for name, (_, top, _, bottom) in inside["boxes"].items():
        assert top >= hands[1] - 0.5 and bottom <= hands[3] + 0.5, (screen, name, hands)
    bands = [got["boxes"][b] for b in ("#bar", "#status", "#banner", "#hands", "#notices",
                                       "#board") if b in got["boxes"]]
    for upper, lower in itertools.pairwise(bands):
        assert upper[3] <= lower[1] + 0.5, (screen, upper, lower)


def check_legible(page: Page, screen: str) -> list[tuple[str, float]]:
    """The key words' capital height on this screen, in mm, each at least LEGIBLE_MM."""
    mm_per_px = SCREENS[screen][2]
    sizes = [(s, px * CAP_HEIGHT * mm_per_px) for s, px in page.evaluate(FONT_SIZES, KEY_TEXT)]
    small = [(s, round(mm, 2)) for s, mm in sizes if mm < LEGIBLE_MM]
    assert not small, (screen, small)
    return sizes


def pages(browser: Browser, url: str) -> dict[str, tuple[Any, Page]]:
    out = {}
    for screen, (width, height, _) in SCREENS.items():
        context = browser.new_context(viewport={"width": width, "height": height})
        context.add_init_script(RECORDER)
        page = context.new_page()
        page.goto(url)
        out[screen] = (context, page)
    return out


# ---- live: every profile, both games, three screens at once --------------------------------


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_profile_live_on_every_screen(tmp_path, browser, profile):
    language = LANGUAGE_OF[profile]
    daemon = start_daemon(tmp_path, profile, extra=["--display-language", language])
    shoe = None
    opened: dict[str, tuple[Any, Page]] = {}
    try:
        url = display_url(tmp_path, daemon)
        opened = pages(browser, url)
        for _, page in opened.values():
            wait_until(page, "document.body.dataset.state !== 'starting'")
        shoe, _ = start_shoe(tmp_path, profile, seed=7, packs=1, pace=0.03,
                             faults=["wrong_order=0.1"])
        assert shoe.wait(120) == 0, (tmp_path / "shoe.log").read_text()
        truth = [json.loads(x) for x in (tmp_path / "truth.jsonl").read_text().splitlines()]
        last = truth[-1]
        for _, page in opened.values():
            wait_until(page, f"document.body.dataset.coup === '{last['coup']}' && "
                       "document.body.dataset.outcome !== ''")
            page.wait_for_timeout(200)
        results = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
        assert [r for r in results if r["event"] == "coup.result"] == truth
        history = History.of(results).view(last["shoe"])
        by_coup = {r["coup"]: r for r in truth}
        words = Words(language)
        for screen, (_, page) in opened.items():
            check_roads(page, history)
            check_layout(page, screen)
            check_legible(page, screen)
            assert words.format("page.coup", n=last["coup"]) in page.inner_text("#coup-no")
            assert page.inner_text("#count-b") == str(history["counts"]["banker"])
            for entry in page.evaluate("window.__seen"):
                coup = int(entry["coup"]) if entry["coup"] else None
                ok = allowed(coup, entry["outcome"] or None, by_coup)
                assert set(entry["codes"]) <= ok, (screen, entry)
                assert set(CODE.findall(entry["text"])) <= ok, (screen, entry)
            page.screenshot(path=str(SHOTS / f"{profile}-{screen}.png"))
    finally:
        for context, _ in opened.values():
            context.close()
        rc = stop(daemon)
        if shoe is not None:
            stop(shoe)
    assert rc == 0


# ---- the hand-made sequence on every screen -------------------------------------------------


@pytest.fixture
def served() -> Iterator[tuple[str, TableDisplay, CoupMachine]]:
    SHOTS.mkdir(parents=True, exist_ok=True)
    server = DisplayServer("127.0.0.1", 0, initial=b"{}")
    url = server.start()
    display = TableDisplay("table-9", server.publish)
    machine = CoupMachine(get_profile("baden"))
    try:
        yield url, display, machine
    finally:
        server.stop()


def play(display: TableDisplay, machine: CoupMachine, script: str) -> None:
    for message in parse_script(script):
        for line in machine.handle(message):
            display.record(line)
    display.show(machine)


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_the_hand_made_roads_on_each_screen(browser, served, screen):
    url, display, machine = served
    play(display, machine, "SHOE")
    names = {"B": "banker", "P": "punter", "E": "egalite"}
    for i, outcome in enumerate(HAND):
        display.record(result(i + 1, names[outcome]))
    display.show(machine)
    width, height, _ = SCREENS[screen]
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.goto(url)
        wait_until(page, "document.querySelectorAll('#bead-plate [data-col]').length === 21")
        dom = page.evaluate(DOM_ROADS)
        marks = {node: [c[2] for c in sorted(dom[node]["cells"])] for node in ROADS.values()}
        # tests/test_display_history.py works these out by hand, mark by mark.
        assert marks["big-eye-boy"] == [U, U, R, U, R, R, R, U, R, U, R, R, U, R]
        assert marks["small-road"] == [R, U, U, U, R, U, U, U, U, R, R, U, U]
        assert marks["cockroach-pig"] == [R, U, U, R, U, R, R, U, U, U]
        assert sorted(dom["big-road"]["cells"])[:3] == [[0, 0, "B", 1], [0, 1, "B", 0],
                                                        [1, 0, "P", 2]]
        assert [c[2] for c in sorted(dom["bead-plate"]["cells"])] == list(HAND)
        roads = ("big_eye_boy", "small_road", "cockroach_pig")
        assert dom["ask"]["b"] == [[r, U] for r in roads]
        assert dom["ask"]["p"] == [[r, R] for r in roads]
        check_roads(page, json.loads(display.published.history.json(1)))
        check_layout(page, screen)
        page.screenshot(path=str(SHOTS / f"hand-made-roads-{screen}.png"))
    finally:
        page.close()


# ---- the console's bank and limits, present and absent ------------------------------------


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_the_bank_and_the_limits_when_given_and_nothing_when_not(browser, served, screen):
    url, display, machine = served
    play(display, machine, "SHOE DEAL 9C 2D KH 3S")
    width, height, _ = SCREENS[screen]
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.goto(url)
        wait_until(page, "document.body.dataset.state === 'decided'")
        assert page.is_hidden("#money") and page.is_hidden("#bank") and page.is_hidden("#limits")
        text = page.inner_text("body")
        assert "Bank" not in text.replace("Banco", "") and "CHF" not in text
        assert "limits" not in text
        display.set_bank(Bank(Decimal("1500"), "CHF", holder_seat=3, banco_seat=5, suivi=True))
        display.show(machine)
        wait_until(page, "!document.getElementById('bank').hidden")
        assert page.inner_text("#bank-amount") == "CHF1,500.00"
        assert page.inner_text("#bank-holder") == "Seat 3 holds the bank"
        assert page.inner_text("#banco") == "Banco suivi \u2013 Banco called by seat 5"
        assert page.is_hidden("#limits")
        check_layout(page, screen)
        page.screenshot(path=str(SHOTS / f"bank-{screen}.png"))
        display.set_bank(None)
        display.set_limits(Limits("CHF", (BetLimit("table", Decimal(10), Decimal(5000)),
                                          BetLimit("egalite", Decimal(5), Decimal(500)))))
        display.show(machine)
        wait_until(page, "!document.getElementById('limits').hidden")
        assert page.is_hidden("#bank")
        rows = page.evaluate("[...document.querySelectorAll('#limits-rows .limit')].map("
                             "(r) => [r.dataset.bet, r.querySelector('.bet').textContent, "
                             "r.querySelector('.range').textContent])")
        assert rows == [["table", "Banco / Punto", "CHF10.00 to CHF5,000.00"],
                        ["egalite", "Égalité", "CHF5.00 to CHF500.00"]]
        check_layout(page, screen)
        display.set_limits(None)
        display.show(machine)
        wait_until(page, "document.getElementById('money').hidden")
    finally:
        page.close()


# ---- banners in each language ------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_hold_and_last_coup_banners_in_each_language(browser, language):
    words = Words(language)
    server = DisplayServer("127.0.0.1", 0, initial=b"{}")
    url = server.start()
    display = TableDisplay("table-9", server.publish, language)
    machine = CoupMachine(get_profile("baden"))
    try:
        for screen, (width, height, _) in SCREENS.items():
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(url)
            machine = CoupMachine(get_profile("baden"))
            play(display, machine, "SHOE:1 DEAL 9C 5D 9C")  # a second 9C in one pack: held
            wait_until(page, "!document.getElementById('hold').hidden")
            assert page.inner_text("#hold-title").lower() == words["state.on_hold"].lower()
            assert page.inner_text("#hold-words") == words["irregularity.FOREIGN_CARD"]
            assert not CODE.findall(page.inner_text("body"))  # the held card is not named
            check_legible(page, screen)
            page.screenshot(path=str(SHOTS / f"hold-{language}-{screen}.png"))
            play(display, machine, "KEY:1 OK KH 3S CUT")  # decided; the cut card is out
            wait_until(page, "!document.getElementById('banner').hidden")
            assert page.inner_text("#banner") == words["page.last_coup_banner"]
            assert page.inner_text("#last-coup") == words["page.last_coup"]
            play(display, machine, "DEAL 9D 2C KD 4H")  # the last coup: a natural 9
            wait_until(page, "document.getElementById('banner').textContent === "
                       + json.dumps(words["page.shoe_finished_banner"]))
            check_layout(page, screen)
            check_legible(page, screen)
            page.close()
            time.sleep(0.05)
    finally:
        server.stop()
