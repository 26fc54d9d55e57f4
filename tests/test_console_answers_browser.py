"""The console page asks again with the same request id (docs/console.md, "The handoff and
its answers"): in Debian's Chromium against the real daemon, its ledger held by another
process while the croupier seats a player, the page is told the table is still doing it,
asks again with the same id until the outcome comes, and the player is seated once."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.attack.answers_support import ANSWER, LedgerLock, daemon, ledger_actions
from tests.test_console_browser import sign_in_with_pin
from tests.test_display_browser import launch, wait_until
from tests.test_money_browser import touch_play


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


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
                page.click("#seats [data-seat='3']")
                touch_play(page, "sit")
                time.sleep(ANSWER + 0.5)  # the page told the table is still doing it
                assert "Still being done" in page.locator("#toast").inner_text()
            wait_until(page, "document.getElementById('toast').textContent === "
                             "'sit: recorded'", timeout=15)  # the page's own answer
            assert page.locator("#seats [data-seat='3']").get_attribute("data-occupied") == \
                "true"
        finally:
            context.close()
        ids = {request_id for request_id, _ in sent}
        statuses = [status for _, status in sent]
        assert len(ids) == 1 and statuses[0] == 202 and statuses[-1] == 200, sent
        assert set(statuses[:-1]) == {202}, sent
        assert len(ledger_actions(run.state)[ids.pop()]) == 1
