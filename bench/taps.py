"""The taps a croupier needs for a typical coup on the console page (issue 20).

Drives the page in Debian's Chromium with touch emulation (`has_touch`, every touch a
`page.tap`), against the real daemon and the simulated shoe, through 003's worked example
at a Baden table: five players seated (counted apart: they sit once, not every coup), then
the coup itself: the bank of Fr. 800 put up by place 1, three stakes (places 3, 5 and 7:
Fr. 300, 200 and 100), the deal (the shoe's DEAL, a press on the shoe, not on the page), and
the settlement read on the page. A tap is counted each time the croupier touches the screen;
a swipe each time what he touches next, or the settlement he must read, is not wholly on the
screen (he scrolls to it first). Nothing is asserted but that the coup was played: the
figures go to bench/README.md ("before" and "after").

    .venv/bin/python bench/taps.py [--size 1280x800] [--size 800x480] [--shots DIR]
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

from hil.processes import ROOT, console_url, start_daemon, start_shoe, stop

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
BADEN = '[money]\nmin_bank = 100\nmin_stake = 10\n'
CROUPIER = ("bob", "Bob Marti", "croupier", "1234")
SEATED = (1, 2, 3, 5, 7)  # 003: at least five players
BANK = (1, "800")
STAKES = ((3, "300"), (5, "200"), (7, "100"))
DEAL = "SHOE:1 DEAL 2C 9H 3D KD\n"  # the banker: a natural 9


class Touches:
    """The croupier's touches on the page, counted by phase."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.phase = "sign-in"
        self.taps: dict[str, int] = {}
        self.swipes: dict[str, int] = {}

    def count(self, table: dict[str, int]) -> None:
        table[self.phase] = table.get(self.phase, 0) + 1

    def seen(self, selector: str) -> None:
        """A swipe if `selector` is not wholly on the screen: he scrolls to it."""
        box = None
        for _ in range(50):  # a panel drawn again under the touch: its new element
            box = self.page.locator(selector).first.bounding_box()
            if box is not None:
                break
            time.sleep(0.02)
        view = self.page.viewport_size
        assert box is not None and view is not None, selector
        if box["y"] < 0 or box["y"] + box["height"] > view["height"] or box["x"] < 0 or \
                box["x"] + box["width"] > view["width"]:
            self.count(self.swipes)
            self.page.locator(selector).first.scroll_into_view_if_needed()

    def tap(self, selector: str) -> None:
        self.seen(selector)
        self.page.tap(selector)
        self.count(self.taps)


def wait_until(page: Page, expression: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"the page never showed {expression}")
        time.sleep(0.02)


def people(state: Path) -> None:
    """The croupier as a technician makes him (`people add`, the PIN on standard input)."""
    state.mkdir(parents=True, exist_ok=True)
    pid, name, role, pin = CROUPIER
    done = subprocess.run(
        [sys.executable, "-m", "shoe_daemon.service.cli", "people", "add", pid, "--name", name,
         "--role", role, "--pin", "--state-dir", str(state)],
        cwd=ROOT, input=pin + "\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


# ---- the page's own touches: what a croupier does on it, as it is drawn ----------------------

def sign_in(t: Touches) -> None:
    t.tap(f"#people [data-person='{CROUPIER[0]}']")
    for digit in CROUPIER[3]:
        t.tap(f"#pin-pad [data-digit='{digit}']")
    t.tap("#pin-ok")
    wait_until(t.page, "document.body.dataset.screen === 'desk' && "
                       "document.getElementById('money-panel').dataset.money === 'on'")


def chips(t: Touches, figure: str) -> None:
    """The amount from the house's chips, the largest first (Fr. 800: 500, 200, 100). The
    bench runs as a script, without the tests' package: tests/console_touch.py counts them
    out the same way."""
    left = int(figure)
    for value in sorted((int(v) for v in t.page.evaluate(
            "[...document.querySelectorAll('#chips [data-chip]')].map((b) => b.dataset.chip)"
            )), reverse=True):
        while left >= value:
            t.tap(f"#chips [data-chip='{value}']")
            left -= value
    assert left == 0, figure


def chosen(t: Touches, place: int) -> None:
    """The player touched, unless the page offers him already (the next in Prime order)."""
    if t.page.get_attribute(f"#seats [data-seat='{place}']", "aria-pressed") != "true":
        t.tap(f"#seats [data-seat='{place}']")


def seat(t: Touches, place: int) -> None:
    t.tap(f"#seats [data-seat='{place}']")
    wait_until(t.page, f"document.querySelector(\"#seats [data-seat='{place}']\")"
                       ".dataset.occupied === 'true'")


def take_bank(t: Touches, place: int, figure: str) -> None:
    chosen(t, place)
    chips(t, figure)
    t.tap("#plays [data-kind='take_bank']")
    wait_until(t.page, "document.getElementById('bank-line').textContent.includes('800')")


def stake(t: Touches, place: int, figure: str, n: int) -> None:
    chosen(t, place)
    chips(t, figure)
    t.tap("#plays [data-kind='stake']:not([data-over])")
    wait_until(t.page, f"document.querySelectorAll('#stakes-list li').length === {n}")


def settled(t: Touches) -> None:
    wait_until(t.page, "!document.getElementById('settlement').hidden", timeout=30)
    t.seen("#settlement")


# ---- the coup --------------------------------------------------------------------------------

def one_coup(width: int, height: int, shots: Path | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="taps-") as tmp, sync_playwright() as p:
        work = Path(tmp)
        people(work / "state")
        config = work / "shoe-daemon.toml"
        config.write_text(BADEN)
        daemon = start_daemon(work, "baden", extra=["--config", str(config),
                                                    "--console", "127.0.0.1:0"])
        shoe = None
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            context = browser.new_context(viewport={"width": width, "height": height},
                                          has_touch=True, is_mobile=False)
            page = context.new_page()
            page.goto(console_url(work, daemon))
            wait_until(page, f"!!document.querySelector(\"[data-person='{CROUPIER[0]}']\")")
            t = Touches(page)

            def shot(name: str) -> None:
                if shots is not None:
                    shots.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(shots / f"{name}-{width}x{height}.png"))

            shot("sign-in")
            sign_in(t)
            t.phase = "seating"
            for place in SEATED:
                seat(t, place)
            t.phase = "bank"
            take_bank(t, *BANK)
            t.phase = "stakes"
            for n, (place, figure) in enumerate(STAKES, 1):
                stake(t, place, figure, n)
            page.evaluate("window.scrollTo(0, 0)")
            shot("stakes")
            t.phase = "deal"  # the shoe's DEAL: pressed on the shoe
            script = work / "script.txt"
            script.write_text(DEAL)
            shoe, _ = start_shoe(work, "baden", seed=3,
                                 extra=["--script", str(script), "--linger", "30"])
            t.phase = "settle"
            settled(t)
            shot("settled")
            context.close()
        finally:
            browser.close()
            if shoe is not None:
                stop(shoe)
            stop(daemon)
    coup = ("bank", "stakes", "deal", "settle")
    return {"taps": t.taps, "swipes": t.swipes,
            "coup_taps": sum(t.taps.get(k, 0) for k in coup),
            "coup_swipes": sum(t.swipes.get(k, 0) for k in coup)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", action="append", default=None, metavar="WxH",
                        help="the screen (default: 1280x800 and 800x480)")
    parser.add_argument("--shots", type=Path, default=None, metavar="DIR",
                        help="screenshots of the screen as the croupier sees it, into DIR")
    args = parser.parse_args(argv)
    cpu = next((line.split(":", 1)[1].strip() for line in
                Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "?")
    print(f"machine: {platform.machine()}, {cpu}, Python {platform.python_version()}")
    for size in args.size or ["1280x800", "800x480"]:
        width, height = (int(x) for x in size.split("x"))
        got = one_coup(width, height, args.shots)
        print(f"{size}: a coup (bank, three stakes, deal, settle): {got['coup_taps']} taps, "
              f"{got['coup_swipes']} swipes; by phase, taps {got['taps']}, "
              f"swipes {got['swipes']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
