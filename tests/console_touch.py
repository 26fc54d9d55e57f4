"""A table played on the console page by touch alone, for the browser tests of issue 20.

The real daemon (`--console`, the house's `[money]`), the simulated shoe playing a scripted
shoe whose every coup waits for its DEAL button (contract 3: the test presses it, as the
croupier presses the shoe's), and Debian's Chromium with touch emulation (`has_touch`, not
mobile): every touch a `page.tap`, no call to the console's API. `on_screen` checks what a
coup needs is wholly inside the viewport with nothing to scroll.
"""

from __future__ import annotations

import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

from hil.deal_button import press_deal
from hil.processes import console_url, start_daemon, start_shoe, stop
from tests.console_support import people_by_cli
from tests.test_display_browser import SHOTS, wait_until

SIZES = {"10in": (1280, 800), "7in": (800, 480)}
STAYED = " (stays from the \u00e9galit\u00e9)"  # the stakes list's note on a bet carried

# What a coup needs, each wholly on the screen when shown and its text not cut (a place's
# Prime badge sits over its edge on purpose: its words are checked instead).
NEEDED = ("#bar #call", "#seats .seat .what", "#where", "#bank-line", "#seats .seat",
          "#chips button", "#amount", "#plays button", "#money-status", "#chosen",
          "#stakes-list li", "#settlement tr",
          "#settlement-sums", "#prime-line", "#reports button", "#bank-choices button",
          "#outcome", "#felt .card", "#sign-out", "#tab-recall", "#stakes-sum", "#shoe-end")

ON_SCREEN = """(selectors) => {
  const bad = [];
  const box = document.getElementById('list');
  const list = box.getBoundingClientRect();
  // A list longer than its panel scrolls within itself (its count and sum above it): a line
  // below its edge is reached there, never by scrolling the page.
  const scrolls = box.scrollHeight > box.clientHeight + 1 &&
    getComputedStyle(box).overflowY === 'auto';
  for (const selector of selectors) {
    for (const e of document.querySelectorAll(selector)) {
      if (e.closest('[hidden]') || getComputedStyle(e).display === 'none') continue;
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const inList = !!e.closest('#list');
      const below = inList && scrolls ? false : r.bottom > innerHeight + 0.5 ||
        (inList && r.bottom > list.bottom + 0.5);
      if (r.left < -0.5 || (r.top < -0.5 && !(inList && scrolls)) ||
          r.right > innerWidth + 0.5 || below ||
          (!e.classList.contains('seat') && e.scrollWidth > e.clientWidth + 1)) {
        bad.push(`${selector} "${(e.textContent || '').trim().slice(0, 40)}" ` +
                 JSON.stringify([r.left, r.top, r.right, r.bottom].map(Math.round)));
      }
    }
  }
  const root = document.scrollingElement;
  return {bad, down: root.scrollHeight - innerHeight, across: root.scrollWidth - innerWidth};
}"""


def on_screen(page: Page) -> None:
    """Nothing a coup needs off the screen or cut, and nothing to scroll."""
    seen = page.evaluate(ON_SCREEN, list(NEEDED))
    if seen != {"bad": [], "down": 0, "across": 0}:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "console-off-screen.png"))
    assert seen == {"bad": [], "down": 0, "across": 0}, seen


def chip_taps(page: Page, figure: str) -> list[int]:
    """The chips the page offers that make `figure`, the largest first (Fr. 800: 500, 200,
    100), as a croupier counts them out."""
    offered = sorted((int(v) for v in page.evaluate(
        "[...document.querySelectorAll('#chips [data-chip]')].map((b) => b.dataset.chip)")),
        reverse=True)
    taps, left = [], int(figure)
    for value in offered:
        while left >= value:
            taps.append(value)
            left -= value
    assert left == 0, (figure, offered)
    return taps


@dataclass
class Touch:
    page: Page
    work: Path
    button: Path
    size: str
    taps: int = 0

    def tap(self, selector: str) -> None:
        self.page.tap(selector)
        self.taps += 1

    def wait(self, expression: str, timeout: float = 15.0) -> None:
        try:
            wait_until(self.page, expression, timeout)
        except AssertionError as e:  # what the screen said instead, in the failure
            self.shot("failed")
            said = self.page.evaluate("[document.getElementById('toast').textContent, "
                                      "document.getElementById('bank-line').textContent, "
                                      "document.getElementById('money-status').textContent]")
            raise AssertionError(f"{e}; the screen said {said}") from None

    def text(self, selector: str) -> str:
        return self.page.locator(selector).inner_text()

    def texts(self, selector: str) -> list[str]:
        return list(self.page.evaluate(
            f"[...document.querySelectorAll({selector!r})].map((e) => e.textContent.trim())"))

    def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"console-{name}-{self.size}.png"))

    # ---- the croupier's touches ------------------------------------------------------------

    def sign_in(self, person: str = "bob", pin: str = "1234") -> None:
        self.wait(f"!!document.querySelector(\"#people [data-person='{person}']\")")
        self.tap(f"#people [data-person='{person}']")
        for digit in pin:
            self.tap(f"#pin-pad [data-digit='{digit}']")
        self.tap("#pin-ok")
        self.wait(f"document.body.dataset.person === '{person}' && "
                  "document.getElementById('money-panel').dataset.money === 'on'")

    def sit(self, *places: int) -> None:
        for place in places:
            answered = self.page.evaluate("Number(document.body.dataset.answered || 0)")
            self.tap(f"#seats [data-seat='{place}']")
            self.wait(f"Number(document.body.dataset.answered || 0) > {answered}")
            self.wait(f"document.querySelector(\"#seats [data-seat='{place}']\")"
                      ".dataset.occupied === 'true'")

    def choose(self, selector: str) -> None:
        """A player or box touched, unless the page offers it already."""
        if self.page.get_attribute(selector, "aria-pressed") != "true":
            self.tap(selector)

    def chips(self, figure: str) -> None:
        """The amount from the house's chips, the largest first."""
        for value in chip_taps(self.page, figure):
            self.tap(f"#chips [data-chip='{value}']")

    def take_bank(self, figure: str) -> None:
        """The player offered puts up a bank of `figure`."""
        self.chips(figure)
        self.play("[data-kind='take_bank']")
        self.wait("document.getElementById('bank-line').dataset.phase === 'held'")

    def play(self, selector: str, count_before: int | None = None) -> None:
        """A play tapped and its answer shown; with `count_before`, waits for the stakes list
        to grow by one."""
        self.wait(f"!!document.querySelector(\"#plays {selector}\") && "
                  f"!document.querySelector(\"#plays {selector}\").disabled")
        answered = self.page.evaluate("Number(document.body.dataset.answered || 0)")
        self.tap(f"#plays {selector}")
        self.wait(f"Number(document.body.dataset.answered || 0) > {answered}")
        if count_before is not None:
            self.wait(f"document.querySelectorAll('#stakes-list li').length === "
                      f"{count_before + 1}")

    def stake(self, place: int, figure: str, play: str = "[data-kind='stake']:not([data-over])"
              ) -> None:
        self.placed(f"Seat {place}", lambda before: (
            self.choose(f"#seats [data-seat='{place}']"), self.chips(figure),
            self.play(play, before)))

    def stakes(self) -> list[str]:
        """The stakes list's lines, a bet that stays from an égalité as the bet it was (the
        page notes it once the next round opens)."""
        return [line.removesuffix(STAYED) for line in self.texts("#stakes-list li > span")]

    def placed(self, who: str, touches: Callable[[int], object]) -> None:
        """The touches that place one stake (given how many the list holds), and the one
        line they added to the stakes list is `who`'s."""
        before = Counter(self.stakes())
        touches(sum(before.values()))
        added = Counter(self.stakes()) - before
        assert [line.split(" \u00b7 ")[0] for line in added.elements()] == [who], added

    def bet(self, box: int, figure: str, play: str) -> None:
        """A Punto Banco bet: the box touched, the amount from the chips, the chance."""
        self.placed(f"Box {box}", lambda before: (
            self.choose(f"#seats [data-box='{box}']"), self.chips(figure),
            self.play(f"[data-play='{play}']", before)))

    def deal(self, coup: int) -> None:
        """The croupier presses the shoe's DEAL: the coup is dealt and settled."""
        press_deal(self.button)
        self.wait(f"document.getElementById('settlement').dataset.coup === '{coup}' && "
                  "!document.getElementById('settlement').hidden", timeout=30)

    def settlement(self) -> list[list[str]]:
        return list(self.page.evaluate(
            "[...document.querySelectorAll('#settlement-lines tbody tr')]"
            ".map((tr) => [...tr.children].map((td) => td.textContent))"))

    def recall(self, coups: int) -> dict[int, dict[str, Any]]:
        """Every coup as the recall tells it, read on the page: its outcome, the hands'
        cards (punter's, banker's), the stakes and the settlement's lines."""
        self.tap("#tab-recall")
        self.wait(f"document.querySelectorAll('#recall-list .told').length === {coups}")
        told = self.page.evaluate("""[...document.querySelectorAll('#recall-list .told')]
          .map((t) => ({coup: Number(t.dataset.coup), outcome: t.dataset.outcome,
            stakes: [...t.querySelectorAll('.recall-stakes li')].map((li) => li.textContent),
            lines: [...t.querySelectorAll('.recall-settlement li')].map((li) => li.textContent),
            hands: [...t.querySelectorAll(':scope > .row .hand')].map((h) =>
              [...h.querySelectorAll('.card')].map((c) => c.dataset.code || null)),
            head: [...t.querySelectorAll('.money h4')].map((h) => h.textContent)}))""")
        self.tap("#tab-table")
        return {t["coup"]: t for t in told}


@contextmanager
def touch_table(browser: Browser, tmp: Path, profile: str, money: str, script: str | None,
                size: str, *, seed: int = 3, packs: int | None = None) -> Iterator[Touch]:
    """The daemon, the shoe waiting on its DEAL button, a touch screen signed in as bob.

    The shoe plays `script`, or with None deals a whole shoe of `packs` packs from `seed`
    (its ground truth is `hil.dealer.deal_shoes(profile, 1, seed, packs=packs)`)."""
    people_by_cli(tmp / "state")
    config = tmp / "shoe-daemon.toml"
    config.write_text(money)
    daemon = start_daemon(tmp, profile, extra=["--config", str(config),
                                               "--console", "127.0.0.1:0"])
    shoe: subprocess.Popen[str] | None = None
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height},
                                  has_touch=True, is_mobile=False)
    started = time.monotonic()
    try:
        page = context.new_page()
        url = console_url(tmp, daemon)
        button = tmp / "deal"
        dealt = ["--linger", "120"]
        if script is not None:
            (tmp / "script.txt").write_text(script)
            dealt += ["--script", str(tmp / "script.txt")]
        shoe, _ = start_shoe(tmp, profile, seed=seed, packs=packs, deal_button=button,
                             extra=dealt)
        page.goto(url)
        touch = Touch(page, tmp, button, size)
        touch.wait("!!document.querySelector('#people [data-person]')")
        touch.shot("sign-in")
        touch.sign_in()
        yield touch
    finally:
        context.close()
        if shoe is not None:
            stop(shoe)
        rc = stop(daemon)
        print(f"{profile} at {size}: {time.monotonic() - started:.1f} s")
    assert rc == 0


SHEET_ON_SCREEN = """(sheet) => {
  const bad = [];
  const controls = `#${sheet} button, #${sheet} input, #${sheet} textarea`;
  for (const e of document.querySelectorAll(controls)) {
    if (e.closest('[hidden]') || getComputedStyle(e).display === 'none') continue;
    const r = e.getBoundingClientRect();
    if (r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5 ||
        r.bottom > innerHeight + 0.5 || e.scrollWidth > e.clientWidth + 1) {
      bad.push(`"${(e.textContent || e.id).trim().slice(0, 40)}" ` +
               JSON.stringify([r.left, r.top, r.right, r.bottom].map(Math.round)));
    }
  }
  return bad;
}"""


def sheet_on_screen(page: Page, sheet: str) -> None:
    """Every control of the sheet on the screen, its words whole."""
    bad = page.evaluate(SHEET_ON_SCREEN, sheet)
    assert bad == [], bad


def worked_example_settled(t: Touch) -> None:
    """003's worked example as the page settles it: bank Fr. 800 by place 1, the Ponte's
    Fr. 600 from places 3, 5 and 7 in Prime order, all lost, in the house's payment order
    (000 rule 26: the punters, then the bank); contract 5, "Verdopplung der ursprünglichen
    Einsätze der Gegenspieler, abzüglich Taxe": 2 x 600 - 30 = 1,170, the Fr. 200 not staked
    against set aside as the banker's Schokolade."""
    assert t.settlement() == [
        ["Seat 3", "General game", "300", "lost", "0"],
        ["Seat 5", "General game", "200", "lost", "0"],
        ["Seat 7", "General game", "100", "lost", "0"],
        ["Seat 1", "Bank", "800", "won", "0"]]
    assert t.text("#settlement-sums") == (
        "Commission Fr. 30 \u00b7 the bank is Fr. 1,170 \u00b7 Fr. 200 set aside as Schokolade")
    assert t.text("#bank-line") == "Banque Fr. 1,170 \u00b7 Seat 1"
