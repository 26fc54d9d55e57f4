"""The table's money on the croupier's console page, in Debian's Chromium, against the real
daemon process and the simulated shoe process.

003's worked example at a live Baden table, entered on the page by touch: five players
seated, the bank of Fr. 800 put up by place 1, the Ponte's Fr. 600 staked in Prime order
(places 3, 5 and 7: Fr. 300, 200 and 100); the shoe deals, the banker wins with a natural;
the page shows the settlement (Taxe Fr. 30, the bank Fr. 1,370 with Fr. 200 not staked
against); the croupier sets the Schokolade aside and the page shows "Banque Fr. 1,170".
Every figure is then checked in the ledger, and the recall tells the coup's stakes and
settlement. Screenshots go to out/screenshots/money-*.png.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from hil.harness import start_daemon, start_shoe, stop
from hil.processes import console_url
from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.money.houses import get_money_profile
from shoe_daemon.money.verify import check_settlement
from tests.console_support import people_by_cli
from tests.test_console_browser import shoot, sign_in_with_pin
from tests.test_display_browser import launch, wait_until

BADEN = '[money]\nmin_bank = 100\nmin_stake = 10\n'


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


def money_config(workdir: Path, money: str = BADEN) -> Path:
    path = workdir / "shoe-daemon.toml"
    path.write_text(money)
    return path


def text(page: Page, selector: str) -> str:
    return page.locator(selector).inner_text()


def touch_amount(page: Page, amount: str) -> None:
    page.click("[data-amount-key='clear']")
    for key in amount:
        page.click(f"[data-amount-key='{key}']")


def touch_play(page: Page, kind: str, label: str | None = None) -> None:
    selector = f"#plays [data-kind='{kind}']" if label is None else \
        f"#plays [data-kind='{kind}']:has-text('{label}')"
    page.click(selector)


def ledger_money(workdir: Path) -> list[Any]:
    ledger = Ledger(workdir / "state")
    try:
        return [r for r in ledger.records() if r.kind.startswith("money.")
                or r.kind in ("action", "result")]
    finally:
        ledger.close()


def test_the_schokolade_worked_example_003_played_from_the_page(tmp_path, browser):
    people_by_cli(tmp_path / "state")
    daemon = start_daemon(tmp_path, "baden", extra=[
        "--config", str(money_config(tmp_path)), "--console", "127.0.0.1:0"])
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    shoe = None
    try:
        page = context.new_page()
        page.goto(console_url(tmp_path, daemon))
        wait_until(page, "document.querySelectorAll('#people button').length === 3")
        sign_in_with_pin(page, "bob", "1234")
        wait_until(page, "document.getElementById('money-panel').dataset.money === 'on'")
        assert text(page, "#bank-line") == "No bank: nobody is seated"
        for place in (1, 2, 3, 5, 7):  # 003: at least five players
            page.click(f"#seats [data-seat='{place}']")
            touch_play(page, "sit")
            wait_until(page, f"document.querySelector(\"#seats [data-seat='{place}']\")"
                             ".dataset.occupied === 'true'")
        assert text(page, "#bank-line") == "No bank: place 1's turn to take it"
        page.click("#seats [data-seat='1']")
        touch_amount(page, "800")
        assert text(page, "#amount") == "Fr. 800"
        touch_play(page, "take_bank")
        wait_until(page, "document.getElementById('bank-line').textContent"
                         ".startsWith('Banque Fr. 800')")
        # The players in Prime order, from the banker's right: 2, 3, 5, 7.
        order = page.evaluate("[...document.querySelectorAll('#seats .seat')]"
                              ".map((b) => b.dataset.seat)")
        assert order[:4] == ["2", "3", "5", "7"], order
        for place, amount in ((3, "300"), (5, "200"), (7, "100")):
            page.click(f"#seats [data-seat='{place}']")
            touch_amount(page, amount)
            touch_play(page, "stake")
            wait_until(page, f"document.querySelectorAll('#stakes-list li').length === "
                             f"{[3, 5, 7].index(place) + 1}")
        stakes = page.evaluate("[...document.querySelectorAll('#stakes-list li')]"
                               ".map((li) => li.textContent)")
        assert [s.split("Withdraw")[0].strip() for s in stakes] == [
            "s1  seat 3  Stake  Fr. 300", "s2  seat 5  Stake  Fr. 200",
            "s3  seat 7  Stake  Fr. 100"]
        shoot(page, "money-stakes")
        script = tmp_path / "script.txt"
        script.write_text("SHOE:1 DEAL 2C 9H 3D KD\n")  # the banker: a natural 9
        shoe, _ = start_shoe(tmp_path, "baden", seed=3,
                             extra=["--script", str(script), "--linger", "30"])
        wait_until(page, "!document.getElementById('settlement').hidden", timeout=20)
        assert text(page, "#settlement-title") == \
            "Settlement of shoe 1 coup 1: Banker wins"
        rows = page.evaluate("""[...document.querySelectorAll('#settlement-lines tbody tr')]
            .map((tr) => [...tr.children].map((td) => td.textContent))""")
        assert rows == [
            ["seat 3", "Stake", "Fr. 300", "lost", "Fr. 0", "-Fr. 300"],
            ["seat 5", "Stake", "Fr. 200", "lost", "Fr. 0", "-Fr. 200"],
            ["seat 7", "Stake", "Fr. 100", "lost", "Fr. 0", "-Fr. 100"],
            ["seat 1", "Bank", "Fr. 800", "won", "Fr. 0", "Fr. 570"]]
        assert text(page, "#settlement-sums") == \
            "Commission Fr. 30 · the bank is Fr. 1,370, Fr. 200 not staked against"
        assert text(page, "#bank-line").startswith("Banque Fr. 1,370")
        shoot(page, "money-settled")
        page.click("#bank-choices [data-kind='schokolade']")
        wait_until(page, "document.getElementById('bank-line').textContent"
                         ".startsWith('Banque Fr. 1,170')")
        shoot(page, "money-schokolade")
        page.click("#tab-recall")
        wait_until(page, "document.querySelectorAll('#recall-list .told').length === 1")
        recall = page.evaluate("""[...document.querySelectorAll('#recall-list .told .money li')]
            .map((li) => li.textContent)""")
    finally:
        context.close()
        if shoe is not None:
            stop(shoe)
        rc = stop(daemon)
    assert rc == 0
    assert recall[:3] == ["s1 seat 3 Stake Fr. 300", "s2 seat 5 Stake Fr. 200",
                          "s3 seat 7 Stake Fr. 100"]
    assert recall[-1] == "seat 1 Bank: won, paid Fr. 0, net Fr. 570"
    records = ledger_money(tmp_path)
    kinds = [r.kind for r in records]
    settlement = next(r.body for r in records if r.kind == "money.settlement")
    round_ = next(r.body for r in records if r.kind == "money.round")
    result = next(r.body["line"] for r in records if r.kind == "result")
    assert check_settlement(get_money_profile("baden"), round_, result, settlement) is None
    assert settlement["commission"] == "30.00" and settlement["bank"]["after"] == "1370.00"
    # The money's records come after the frame and its result, in their transaction.
    assert kinds.index("money.round") < kinds.index("result") < kinds.index("money.settlement")
    schokolade = [r.body for r in records if r.kind == "money.bank"][-1]
    assert (schokolade["change"], schokolade["amount"], schokolade["bank"]["amount"]) == (
        "schokolade", "200.00", "1170.00")
    by_kind = {r.body["kind"] for r in records if r.kind == "action"}
    assert {"sit", "take_bank", "stake", "schokolade"} <= by_kind
    assert all(r.body["by"] == "bob" for r in records if r.kind == "action"
               and r.body["kind"] not in ("sign_in", "sign_out"))
    assert "money.replay_mismatch" not in (tmp_path / "daemon.log").read_text()
    assert json.loads((tmp_path / "results.jsonl").read_text().splitlines()[0])[
        "outcome"] == "banker"
