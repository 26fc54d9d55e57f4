"""End to end: the real daemon process, the simulated shoe process and Debian's Chromium.

The shoe deals a one-pack Zoppot shoe (seed 3: free punter and banker, so the coup waits for
declarations; wrong-order cards hold the table) at a croupier's pace. Meanwhile the test reads
the raw event stream and polls `/api/state`, and the page records every change it renders.
With one pack every card code is unique in the shoe, so the ground truth says exactly which
codes may be on a screen at each step: the coup's third card (000 rule 9) while it is open,
all of it once decided by a showdown, nothing else. Screenshots of the key states are kept in
out/screenshots/.
"""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

from hil.harness import display_url, start_daemon, start_shoe, stop
from tests.display_client import Sse, get

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "out" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
CODE = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][CDHS](?![A-Za-z0-9])")
SHOWDOWN = ("banker", "punter", "egalite")

# Runs in the page before its own script: notes each rendered change with its time.
RECORDER = """
window.__seen = [];
document.addEventListener("DOMContentLoaded", () => {
  const note = () => {
    const b = document.body;
    const entry = {
      t: performance.timeOrigin + performance.now(),
      state: b.dataset.state, coup: b.dataset.coup || "", outcome: b.dataset.outcome || "",
      result: document.getElementById("result-words").textContent,
      codes: [...document.querySelectorAll("[data-code]")].map((e) => e.dataset.code),
      backs: document.querySelectorAll(".card.back").length,
      hold: document.getElementById("hold").hidden ? "" :
        document.getElementById("hold").innerText,
      text: b.innerText,
    };
    const last = window.__seen[window.__seen.length - 1];
    const key = (e) => JSON.stringify({...e, t: 0});
    if (!last || key(last) !== key(entry)) window.__seen.push(entry);
  };
  new MutationObserver(note).observe(document.body,
    {subtree: true, childList: true, attributes: true, characterData: true});
  note();
});
"""


def launch(playwright: Any) -> Browser:
    assert CHROMIUM.exists(), "Debian's chromium is needed: bash scripts/setup --test"
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)



def allowed(view_coup: int | None, outcome: str | None, truth: dict[int, dict[str, Any]]) -> set:
    """The codes a screen may show: from the ground truth of the coup it shows."""
    if view_coup is None or view_coup not in truth:
        return set()
    coup = truth[view_coup]
    punter, banker = coup["punter"]["cards"], coup["banker"]["cards"]
    if outcome in SHOWDOWN:
        return set(punter) | set(banker)
    return set(punter[2:3])  # 000 rule 9: the punter's third card is dealt face up


def leaked(view: dict[str, Any], truth: dict[int, dict[str, Any]]) -> set[str]:
    coup = view.get("coup")
    number = coup["number"] if coup else None
    found = set(CODE.findall(json.dumps(view, ensure_ascii=False)))
    return found - allowed(number, coup["outcome"] if coup else None, truth)


class Watcher(threading.Thread):
    """Collects what a client gets: the raw stream, or the snapshot polled every 20 ms."""

    def __init__(self, url: str, stream: bool) -> None:
        super().__init__(daemon=True)
        self.url, self.stream = url, stream
        self.got: list[tuple[float, bytes]] = []
        self.stopping = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            if self.stream:
                sse = Sse(self.url, timeout=60)
                while not self.stopping.is_set():
                    self.got.append((time.time(), sse.next_event()))
            else:
                while not self.stopping.wait(0.02):
                    self.got.append((time.time(), get(self.url, "/api/state")[2]))
        except (EOFError, ConnectionError, OSError) as e:
            if not self.stopping.is_set():
                self.error = e


def wait_until(page: Page, expression: str, timeout: float = 10.0) -> None:
    """Poll an expression with `evaluate`: Playwright's wait_for_function evaluates strings
    with eval, which the page's Content-Security-Policy rightly forbids."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"the page never showed {expression}")
        time.sleep(0.02)


def shoot(page: Page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


KEY_STATES = {
    "dealing-face-down": lambda s: s["state"] == "dealing" and s["backs"] >= 3,
    "punter-to-declare": lambda s: s["state"] == "punter_to_declare",
    "result": lambda s: s["state"] == "decided" and s["outcome"] in SHOWDOWN,
    "hold-banner": lambda s: s["state"] == "on_hold" and "000 rule 12" in s["hold"],
    # docs/display.png: a result late in the shoe, with the roads filled in
    "late-result": lambda s: s["state"] == "decided" and s["outcome"] in SHOWDOWN
    and int(s["coup"] or 0) >= 9,
}
PAGE_STATE = """() => ({state: document.body.dataset.state, coup: document.body.dataset.coup,
  outcome: document.body.dataset.outcome || "",
  backs: document.querySelectorAll(".card.back").length,
  hold: document.getElementById("hold").hidden ? "" : document.getElementById("hold").innerText})"""


def test_the_page_follows_a_live_shoe_and_nothing_face_down_leaks(tmp_path, browser):
    daemon = start_daemon(tmp_path, "zoppot-1934")  # waits for the shoe's port to appear
    shoe = None
    url = display_url(tmp_path, daemon)
    stream, poller = Watcher(url, stream=True), Watcher(url, stream=False)
    try:
        status, _, page_html = get(url, "/")
        assert status == 200 and not CODE.findall(page_html.decode())
        stream.start()
        poller.start()
        context = browser.new_context(viewport={"width": 1920, "height": 1080})
        context.add_init_script(RECORDER)
        page = context.new_page()
        page.goto(url)
        wait_until(page, "document.body.dataset.state !== 'starting'")
        shoe, _ = start_shoe(tmp_path, "zoppot-1934", seed=3, packs=1, pace=0.3,
                             faults=["wrong_order=0.3"])
        shots: dict[str, Path] = {}
        while shoe.poll() is None:
            now = page.evaluate(PAGE_STATE)
            for name, wanted in KEY_STATES.items():
                if name not in shots and wanted(now):
                    path = shoot(page, name)
                    if page.evaluate(PAGE_STATE) == now:  # still that state: a true picture
                        shots[name] = path
            time.sleep(0.03)
        assert shoe.returncode == 0, (tmp_path / "shoe.log").read_text()
        truth_lines = [json.loads(x) for x in (tmp_path / "truth.jsonl").read_text().split("\n")
                       if x]
        last = truth_lines[-1]
        wait_until(page, f"document.body.dataset.coup === '{last['coup']}' && "
                   "document.body.dataset.state === 'decided'")
        page.wait_for_timeout(300)
        shots["big-road"] = shoot(page, "big-road")
        seen = page.evaluate("window.__seen")
        context.close()
    finally:
        for watcher in (stream, poller):
            watcher.stopping.set()
        rc = stop(daemon)
        if shoe is not None:
            stop(shoe)
    stream.join(10)
    poller.join(10)
    assert rc == 0 and stream.error is None and poller.error is None

    results = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().split("\n") if x]
    assert [r for r in results if r["event"] == "coup.result"] == truth_lines
    truth = {r["coup"]: r for r in truth_lines}
    assert len({c for r in truth_lines for c in r["punter"]["cards"] + r["banker"]["cards"]}) \
        == sum(len(r["punter"]["cards"]) + len(r["banker"]["cards"]) for r in truth_lines)

    # The raw stream and every snapshot: nothing a screen may not show yet.
    events = [json.loads(data) for _, data in stream.got]
    snapshots = [json.loads(data) for _, data in poller.got]
    # Each event is a whole state ({} only before the daemon has rebuilt from its ledger).
    keys = {"table", "state", "shoe", "coup", "hold", "history"}
    assert events and all(keys <= set(e) for e in events if e) and len(snapshots) > 100
    for view in events + snapshots:
        assert not leaked(view, truth), (leaked(view, truth), view)
    assert {json.dumps(v) for v in snapshots} <= {json.dumps(v) for v in events}

    # The page itself: every rendered state, cards and all text on screen.
    for entry in seen:
        coup = int(entry["coup"]) if entry["coup"] else None
        ok = allowed(coup, entry["outcome"] or None, truth)
        assert set(entry["codes"]) <= ok, entry
        assert set(CODE.findall(entry["text"])) <= ok, entry

    # Coup by coup: every result on the stream with its cards, and on the page in words.
    for r in truth_lines:
        decided = [e["coup"] for e in events if e
                   and e["coup"] and e["coup"]["number"] == r["coup"] and e["coup"]["outcome"]]
        assert decided and decided[0]["outcome"] == r["outcome"]
        if r["outcome"] in SHOWDOWN:
            assert decided[0]["punter"]["cards"] == r["punter"]["cards"]
            assert decided[0]["banker"]["cards"] == r["banker"]["cards"]
            words = {e["result"] for e in seen if e["coup"] == str(r["coup"])
                     and e["outcome"] == r["outcome"]}
            # The French game terms in every language by default (docs/display.md, Languages).
            expected = {"banker": "Banco wins", "punter": "Punto wins", "egalite": "Égalité"}
            assert expected[r["outcome"]] in words, (r, words)
    states = {e["state"] for e in seen}
    assert {"dealing", "punter_to_declare", "banker_to_play", "decided", "on_hold"} <= states
    assert any("Rule: 000 rule 12" in e["hold"] for e in seen)
    assert any("COUP ON HOLD" in e["hold"] and "Wrong order" in e["hold"] for e in seen)
    assert set(shots) == {*KEY_STATES, "big-road"}, sorted(shots)
    assert all(p.stat().st_size > 10_000 for p in shots.values())


def test_punto_banco_names_its_sides_and_shows_swiss_nine(browser):
    # 003 PUNTO BANCO: the sides are Punto and Banco; Swiss Nine side bets on Banco's first two.
    from hil.script import parse_script
    from shoe_daemon.display import TableDisplay
    from shoe_daemon.display.server import DisplayServer
    from shoe_daemon.game.coup import CoupMachine
    from shoe_daemon.game.houses import get_profile

    server = DisplayServer("127.0.0.1", 0, initial=b"{}")
    url = server.start()
    display = TableDisplay("table-9", server.publish)
    machine = CoupMachine(get_profile("baden-punto-banco"))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(url)
        for message in parse_script("SHOE DEAL 2C 9C"):
            machine.handle(message)
            display.show(machine)
        wait_until(page, "document.querySelectorAll('.card.back').length === 2")
        assert page.locator("[data-code]").count() == 0
        assert page.text_content("#punter .side-name") == "Punto"
        for message in parse_script("3H KC"):
            for line in machine.handle(message):  # as the daemon does once committed
                display.record(line)
            display.show(machine)
        wait_until(page, "document.body.dataset.state === 'decided'")
        assert page.inner_text("#result-words") == "Banco wins"
        assert "Swiss Nine: simple, colour, swiss" in page.inner_text("#result-detail")
        assert page.text_content("#swiss-count") == "1"
        assert page.text_content("#swiss-list") == "last: coup 1, swiss"
        assert page.is_hidden("#money")  # no limits from a console: nothing in their place
        shoot(page, "punto-banco-swiss-nine")
    finally:
        page.close()
        server.stop()
