"""End to end: the croupier's console page in Debian's Chromium, against the real daemon
process and the simulated shoe process.

- A dealt one-pack shoe with dealing errors and jams: the shoe's own ways out lift each hold,
  and each latch then waits for the croupier's sign-off on the page (the coups behind it
  wait), until every coup of the ground truth is published. The page never shows a card the
  game did not show.
- A scripted shoe: an unreadable card the croupier keys in on the page, then the supervisor
  (signed in by her badge) voids the next coup; the recall tells both, card by card.
- The ledger held by another process while the croupier seats a player: the page is told
  the table is still doing it, asks again with the same request id until the outcome comes,
  and the player is seated once (docs/console.md, "The handoff and its answers").
Screenshots go to out/screenshots/console-*.png.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from hil.harness import start_daemon, start_shoe, stop
from hil.processes import console_url
from tests.attack.answers_support import ANSWER, LedgerLock, daemon, ledger_actions
from tests.console_support import people_by_cli
from tests.test_display_browser import CODE, SHOTS, allowed, wait_until

# Notes every change the page renders on the table screen.
RECORDER = """
window.__seen = [];
document.addEventListener("DOMContentLoaded", () => {
  const note = () => {
    const panel = document.getElementById("felt");
    const entry = {
      state: document.body.dataset.state || "", screen: document.body.dataset.screen || "",
      coup: (document.getElementById("where").textContent.match(/Coup (\\d+)/) || ["", ""])[1],
      outcome: document.getElementById("outcome").textContent,
      codes: [...panel.querySelectorAll("[data-code]")].map((e) => e.dataset.code),
      text: panel.innerText + " " + document.getElementById("latch-panel").innerText,
    };
    const last = window.__seen[window.__seen.length - 1];
    if (!last || JSON.stringify(last) !== JSON.stringify(entry)) window.__seen.push(entry);
  };
  new MutationObserver(note).observe(document.body,
    {subtree: true, childList: true, attributes: true, characterData: true});
});
"""
OUTCOME = {"Banco wins": "banker", "Punto wins": "punter", "Égalité": "egalite",
           "Coup cancelled": "cancelled", "Coup void": "void", "": None}



def shoot(page: Page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"console-{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def sign_in_with_pin(page: Page, person: str, pin: str) -> None:
    page.click(f"#people [data-person='{person}']")
    for digit in pin:
        page.click(f"#pin-pad [data-digit='{digit}']")
    page.click("#pin-ok")
    wait_until(page, f"document.body.dataset.person === '{person}' && "
                     "document.body.dataset.screen === 'desk'")


def results(workdir: Path) -> list[dict[str, Any]]:
    path = workdir / "results.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines() if x] if path.exists() else []


def test_every_latch_is_signed_off_on_the_page_and_nothing_face_down_leaks(tmp_path, browser):
    people_by_cli(tmp_path / "state")
    daemon = start_daemon(tmp_path, "zoppot-1934", extra=["--console", "127.0.0.1:0"])
    shoe = None
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    try:
        url = console_url(tmp_path, daemon)
        context.add_init_script(RECORDER)
        page = context.new_page()
        page.goto(url)
        wait_until(page, "document.body.dataset.screen === 'sign-in' && "
                         "document.querySelectorAll('#people button').length === 3")
        shoot(page, "sign-in")
        sign_in_with_pin(page, "bob", "1234")
        shoe, _ = start_shoe(tmp_path, "zoppot-1934", seed=8, packs=1, pace=0.05,
                             faults=["wrong_order=0.3", "unreadable=0.3", "jam=0.3"])
        truth_path = tmp_path / "truth.jsonl"
        wait_until(page, "true")
        deadline = time.monotonic() + 180
        signed_off = 0
        shots: set[str] = set()
        while True:
            truth = [json.loads(x) for x in truth_path.read_text().splitlines() if x] \
                if truth_path.exists() else []
            done = [r for r in results(tmp_path) if r["event"] == "coup.result"]
            if truth and len(done) == len(truth) and shoe.poll() is not None:
                break
            assert time.monotonic() < deadline, "the table did not get through the shoe"
            latches = page.evaluate("""[...document.querySelectorAll('#latches .latch')].map(
                (l) => ({id: l.dataset.latch, held: l.dataset.held,
                         ready: !l.querySelector('.resolve').disabled}))""")
            for latch in latches:
                if latch["held"] == "true" and "held" not in shots:
                    shoot(page, "held")
                    shots.add("held")
                if latch["held"] == "true" and not latch["id"].startswith("fault-"):
                    continue  # the shoe's own way out comes: the croupier presses it
                box = f"#latches [data-latch='{latch['id']}']"
                if page.locator(box).count() == 0:
                    continue
                if "sign-off" not in shots:
                    shoot(page, "sign-off")
                    shots.add("sign-off")
                chips = page.locator(f"{box} .chips button")
                if chips.count():
                    chips.first.click()
                else:
                    page.fill(f"{box} .reason", "checked")
                resolve = page.locator(f"{box} .resolve")
                if resolve.is_disabled() or resolve.get_attribute("data-approval") == "true":
                    continue  # a fault the shoe still reports (a supervisor's override, with
                    # her approval): the croupier waits for it to clear
                try:
                    with page.expect_response(lambda r: r.url.endswith("/api/actions"),
                                              timeout=10_000) as answer:
                        page.click(f"{box} .resolve")
                except PlaywrightTimeout:
                    # The shoe reported the fault again as he tapped: the page asked for a
                    # supervisor's approval instead of sending. He closes it and waits.
                    assert not page.locator("#approval").is_hidden()
                    page.click("#approval-cancel")
                    continue
                if latch["id"].startswith("fault-"):
                    # A fault's latch goes, unless the shoe reports that fault again at once: its
                    # latch has the same id (one latch a fault code). A click on what the page
                    # showed a moment before is then refused, saying why (resolved already, or
                    # the shoe reports the fault again), and nothing is kept (the ledger's count
                    # below).
                    if answer.value.status != 200:
                        assert answer.value.status in (403, 409) and any(
                            why in answer.value.text() for why in
                            ("no open latch", "the shoe still reports the fault")), \
                            answer.value.text()
                        continue
                else:
                    assert answer.value.status == 200, answer.value.text()
                    wait_until(page, f"!document.querySelector(\"{box}\")")
                signed_off += 1
            time.sleep(0.05)
        assert shoe.returncode == 0, (tmp_path / "shoe.log").read_text()
        wait_until(page, "document.body.dataset.latches === '0'")
        seen = page.evaluate("window.__seen")
    finally:
        context.close()
        if shoe is not None:
            stop(shoe)
        rc = stop(daemon)
    assert rc == 0
    truth = [json.loads(x) for x in (tmp_path / "truth.jsonl").read_text().splitlines() if x]
    assert [r for r in results(tmp_path) if r["event"] == "coup.result"] == truth
    holds = [r for r in results(tmp_path) if r["event"] == "irregularity" and r["hold"]]
    assert holds and signed_off >= len(holds)  # every hold, and the jams, signed off
    actions = [r.body for r in _ledger(tmp_path).records(kinds=("action",))
               if r.body["kind"] == "resolve"]
    assert len(actions) == signed_off and {a["by"] for a in actions} == {"bob"}
    latched = {a["args"]["latch"].split("-")[0] for a in actions}
    assert latched == {"hold", "fault"}, actions  # dealing errors and jams alike
    assert len(holds) >= 3, holds
    assert all(a["args"]["reason"] for a in actions)
    by_coup = {r["coup"]: r for r in truth}
    for entry in seen:
        if entry["screen"] != "desk" or not entry["coup"]:
            continue
        ok = allowed(int(entry["coup"]), OUTCOME.get(entry["outcome"]), by_coup)
        assert set(entry["codes"]) <= ok, entry
        assert set(CODE.findall(entry["text"])) <= ok, entry
    assert {"sign-off", "held"} <= shots


def _ledger(workdir: Path) -> Any:
    from shoe_daemon.audit.ledger import Ledger

    return Ledger(workdir / "state")


def test_a_card_keyed_in_on_the_page_a_void_by_badge_and_the_recall(tmp_path, browser):
    people_by_cli(tmp_path / "state")
    script = tmp_path / "script.txt"
    script.write_text("SHOE:1 DEAL 9C ?? KH 3S DEAL 2C 4D 3H\n")
    daemon = start_daemon(tmp_path, "baden", extra=["--console", "127.0.0.1:0"])
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    shoe = None
    try:
        url = console_url(tmp_path, daemon)
        page = context.new_page()
        page.goto(url)
        wait_until(page, "document.querySelectorAll('#people button').length === 3")
        sign_in_with_pin(page, "bob", "1234")
        shoe, _ = start_shoe(tmp_path, "baden", seed=9,
                             extra=["--script", str(script), "--linger", "30"])
        wait_until(page, "document.querySelector(\"[data-latch='hold-1-1-1']\") !== null")
        box = "[data-latch='hold-1-1-1']"
        assert page.locator(f"{box} .resolve").is_disabled()
        page.click(f"{box} [data-way='ENTER']")
        page.click(f"{box} [data-rank='5']")
        page.click(f"{box} [data-suit='D']")
        page.click(f"{box} .chips button")
        shoot(page, "key-in")
        page.click(f"{box} .resolve")
        wait_until(page, "document.body.dataset.latches === '0' && "
                         "document.body.dataset.state === 'dealing'")
        # The void is a supervisor's: asked on the croupier's screen, her badge approves it
        # and bob stays signed in (contract 1).
        page.click("#supervisor-open")
        wait_until(page, "!document.getElementById('void-panel').hidden")
        page.click("#reason-chips button:has-text('Card fell from the table')")
        page.click("#void-go")
        wait_until(page, "!document.getElementById('approval').hidden")
        shoot(page, "approval")
        page.fill("#approval-badge", "SUP-77")  # what the badge reader types
        page.press("#approval-badge", "Enter")
        wait_until(page, "document.getElementById('outcome').textContent === 'Coup void'")
        assert page.evaluate("document.body.dataset.person") == "bob"
        assert page.locator("#approval").is_hidden()
        page.click("#tab-recall")
        wait_until(page, "document.querySelectorAll('#recall-list .told').length === 2")
        shoot(page, "recall")
        told = page.evaluate("""[...document.querySelectorAll('#recall-list .told')].map((t) => ({
            coup: t.dataset.coup, outcome: t.dataset.outcome,
            cards: [...t.querySelectorAll('.cards-out li')].map((li) => li.textContent),
            events: [...t.querySelectorAll('.events li')].map((li) => li.textContent)}))""")
        page.fill("#recall-shoe", "1")
        page.fill("#recall-coup", "1")
        page.click("#recall-go")
        wait_until(page, "document.querySelectorAll('#recall-list .told').length === 1")
    finally:
        context.close()
        if shoe is not None:
            stop(shoe)
        rc = stop(daemon)
    assert rc == 0
    void, first = told
    assert (void["coup"], void["outcome"], first["coup"], first["outcome"]) == (
        "2", "void", "1", "punter")
    # The void coup's cards never showed: hidden, in the order they left the shoe.
    assert void["cards"] == ["hidden card (face down) → punter P1",
                             "hidden card (face down) → banker B1",
                             "hidden card (face down) → punter P2"]
    assert any("Voided on the console by bob: “Card fell from the table” (approved by ana)"
               in e for e in void["events"]), void["events"]
    assert first["cards"][1] == "unreadable card (face down, keyed in as 5D) → banker B1"
    assert any("Resolved (Key in the card) on the console by bob" in e
               for e in first["events"]), first["events"]
    assert any("Lifted: ENTER by bob" in e for e in first["events"])
    lines = results(tmp_path)
    assert [(x["coup"], x["outcome"]) for x in lines if x["event"] == "coup.result"] == [
        (1, "punter"), (2, "void")]


def test_the_page_asks_again_with_the_same_id_until_the_outcome(tmp_path, browser):
    with daemon(tmp_path) as (run, _):
        context = browser.new_context(viewport={"width": 1280, "height": 1600})
        try:
            page = context.new_page()
            sent: list[tuple[str, int]] = []
            page.on("requestfinished", lambda r: sent.append(
                (json.loads(r.post_data or "{}").get("id", ""), r.response().status))
                if r.url.endswith("/api/actions") else None)
            page.goto(run.url)
            wait_until(page, "document.querySelectorAll('#people button').length === 3")
            sign_in_with_pin(page, "bob", "1234")
            wait_until(page, "document.getElementById('money-panel').dataset.money === 'on'")
            with LedgerLock(run.state):
                page.click("#seats [data-seat='3']")  # an empty place: a player sits
                time.sleep(ANSWER + 0.5)  # the page told the table is still doing it
                assert "Still being done" in page.locator("#toast").inner_text()
            wait_until(page, "document.getElementById('toast').textContent === "
                             "'A player sits at Seat 3'", timeout=15)  # said in words
            assert page.locator("#seats [data-seat='3']").get_attribute("data-occupied") == \
                "true"
        finally:
            context.close()
        ids = {request_id for request_id, _ in sent}
        statuses = [status for _, status in sent]
        assert len(ids) == 1 and statuses[0] == 202 and statuses[-1] == 200, sent
        assert set(statuses[:-1]) == {202}, sent
        assert len(ledger_actions(run.state)[ids.pop()]) == 1


def test_elsewhere_the_page_shows_no_staff_and_takes_a_typed_id(tmp_path, browser):
    """A browser that is not one of the table's screens (here the screens are ::1 alone)
    gets no name tiles: the page asks for the staff id, and a PIN signs in with it."""
    people_by_cli(tmp_path / "state")
    daemon = start_daemon(tmp_path, "baden", extra=["--console", "127.0.0.1:0",
                                                    "--console-screens", "::1"])
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(console_url(tmp_path, daemon))
        wait_until(page, "!document.getElementById('staff-form').hidden")
        assert page.evaluate("document.querySelectorAll('#people button').length") == 0
        assert "Weber" not in page.content() and "Marti" not in page.content()
        assert page.inner_text("#sign-in-hint").startswith("Type your staff id")
        shoot(page, "sign-in-elsewhere")
        page.fill("#staff-id", "bob")
        page.click("#staff-go")
        for digit in "1234":
            page.click(f"#pin-pad [data-digit='{digit}']")
        page.click("#pin-ok")
        wait_until(page, "document.body.dataset.person === 'bob' && "
                         "document.body.dataset.screen === 'desk'")
    finally:
        context.close()
        assert stop(daemon) == 0
