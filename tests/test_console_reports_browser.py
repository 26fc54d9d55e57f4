"""What only the croupier sees, end to end: each report made on the croupier's console page
in Debian's Chromium, against the real daemon process and a scripted simulated shoe, one
case per rule (000 rules 15, 11, 10, 4); the published line, and what the console and the
table display show of it. Screenshots go to out/screenshots/console-report-*.png.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

from hil.harness import start_daemon, start_shoe, stop
from hil.processes import console_url, display_url
from tests.console_support import people_by_cli
from tests.test_console_browser import shoot, sign_in_with_pin
from tests.test_display_browser import wait_until


def results(workdir: Path) -> list[dict[str, Any]]:
    path = workdir / "results.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines() if x] if path.exists() else []


class Table:
    """The daemon with its console, a scripted shoe, and a page signed in as `person`."""

    def __init__(self, workdir: Path, browser: Browser, profile: str, script: str) -> None:
        self.workdir = workdir
        self.profile, self.script = profile, script
        self.browser = browser

    def __enter__(self) -> Table:
        people_by_cli(self.workdir / "state")
        (self.workdir / "script.txt").write_text(self.script + "\n")
        self.daemon = start_daemon(self.workdir, self.profile,
                                   extra=["--console", "127.0.0.1:0"])
        self.shoe = None
        self.context = self.browser.new_context(viewport={"width": 1600, "height": 1200})
        try:
            self.url = console_url(self.workdir, self.daemon)
            self.display = display_url(self.workdir, self.daemon)
            self.page = self.context.new_page()
            self.page.goto(self.url)
            wait_until(self.page, "document.querySelectorAll('#people button').length === 3")
            sign_in_with_pin(self.page, "bob", "1234")
            self.shoe, _ = start_shoe(self.workdir, self.profile, seed=11, extra=[
                "--script", str(self.workdir / "script.txt"), "--linger", "60"])
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *_: Any) -> None:
        self.context.close()
        if self.shoe is not None:
            stop(self.shoe)
        self.rc = stop(self.daemon)

    def report(self, kind: str, position: str | None = None, face: str | None = None,
               partner: str | None = None) -> None:
        """Open the report from its button, fill its card and send it; wait for the console's
        answer."""
        page, box = self.page, f"#report-box [data-report='{kind}']"
        button = f"#reports [data-report='{kind}']"
        wait_until(page, f"document.querySelector(\"{button}\").dataset.open === 'true'")
        page.click(button)
        wait_until(page, "!document.getElementById('report-sheet').hidden")
        assert page.locator(f"{box} .report-rule").is_hidden()  # the rule on a second tap
        page.click(f"{box} .rule-toggle")
        assert page.locator(f"{box} .report-rule").inner_text().startswith("000 rule ")
        if position:
            page.click(f"{box} [data-position='{position}']")
        if face:
            page.click(f"{box} [data-face='{face}']")
        if partner:
            page.fill(f"{box} .partner", partner)
        assert page.locator(f"{box} .report-go").is_disabled()  # a reason first
        page.click(f"{box} .chips button")
        page.click(f"{box} .report-go")
        wait_until(page, "document.getElementById('toast').textContent.startsWith('Reported')")
        assert page.locator("#report-sheet").is_hidden()

    def lines(self, event: str, code: str | None = None) -> list[dict[str, Any]]:
        return [x for x in results(self.workdir) if x["event"] == event
                and (code is None or x.get("code") == code)]


def shown_codes(page: Page, side: str) -> list[str | None]:
    return page.evaluate(f"""[...document.querySelectorAll('#{side} .cards .card')].map(
        (c) => c.dataset.code || null)""")


def display_state(table: Table) -> dict[str, Any]:
    from tests.display_client import get

    status, _, body = get(table.display, "/api/state")
    assert status == 200
    return json.loads(body)


def test_rule_15_the_punters_bac_on_the_page(tmp_path, browser):
    # Zoppot: punter 2C 3D (5, his choice), banker TH 5S. He throws his cards away.
    with Table(tmp_path, browser, "zoppot-1934", "SHOE DEAL 2C TH 3D 5S") as t:
        wait_until(t.page, "document.body.dataset.state === 'punter_to_declare'")
        t.report("punter_bac")
        wait_until(t.page, "document.getElementById('outcome').textContent === 'Banco wins'")
        shoot(t.page, "report-bac")
        assert shown_codes(t.page, "punter") == [None, None]  # into the discard unseen
        assert shown_codes(t.page, "banker") == ["TH", "5S"]
        assert t.page.inner_text("#punter .total") == "0 (bac)"
        # The table display says it in words, and shows neither of his cards.
        view = display_state(t)
        assert view["coup"]["punter"]["cards"] == [None, None]
        assert view["coup"]["notices"][0]["words"].startswith("Punto threw his cards")
        assert "2C" not in json.dumps(view) and "3D" not in json.dumps(view)
    assert t.rc == 0
    (result,) = t.lines("coup.result")
    assert result["outcome"] == "banker" and result["punter"]["bac"] is True
    assert result["rulings"][0]["rule"].startswith("000 rule 15: ")
    assert result["rulings"][0]["by"] == "bob"


def test_rule_11_reported_by_the_croupier_upheld_by_the_supervisor(tmp_path, browser):
    # Baden (003 silent: 000 rule 11 applies). The banker's B1 (TH) goes into the discard.
    with Table(tmp_path, browser, "baden", "SHOE DEAL 2C TH 3D 5S") as t:
        assert t.page.locator("#reports [data-report='partner_objection']").count() == 0
        wait_until(t.page, "document.body.dataset.state === 'punter_to_declare'")
        t.report("banker_card_lost", position="B1")
        box = "#latches [data-latch='hold-1-1-1']"
        wait_until(t.page, f"document.querySelector(\"{box}\") !== null")
        assert "A supervisor's hold" in t.page.inner_text(f"{box} .latch-status")
        shoot(t.page, "report-card-lost")
        # The croupier cannot rule on it: the supervisor's badge approves his tap on his own
        # screen (issue 20), and he stays signed in.
        t.page.click(f"{box} [data-way='OK']")
        t.page.click(f"{box} .chips button")
        assert t.page.inner_text(f"{box} .resolve") == "Resolve with a supervisor"
        t.page.click(f"{box} .resolve")
        wait_until(t.page, "!document.getElementById('approval').hidden")
        assert t.page.inner_text("#approval-title") == \
            "A supervisor approves lifting the hold"
        on_top = t.page.evaluate("""(() => {
            const r = document.getElementById('approval-cancel').getBoundingClientRect();
            return !!document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
                .closest('#approval'); })()""")
        assert on_top  # her approval over the hold's sheet, not under it
        t.page.fill("#approval-badge", "SUP-77")
        t.page.press("#approval-badge", "Enter")
        wait_until(t.page, "document.getElementById('outcome').textContent === 'Punto wins'")
        assert t.page.evaluate("document.body.dataset.person") == "bob"
        assert shown_codes(t.page, "banker") == [None, "5S"]  # the lost card: never shown
        assert shown_codes(t.page, "punter") == ["2C", "3D"]
        shoot(t.page, "report-card-lost-upheld")
    assert t.rc == 0
    (raised,) = t.lines("irregularity", "BANKER_CARD_LOST")
    assert (raised["hold"], raised["by"]) == (True, "bob")
    (resolved,) = t.lines("irregularity.resolved")
    assert (resolved["how"], resolved["by"]) == ("OK", "ana")
    (result,) = t.lines("coup.result")
    assert result["outcome"] == "punter"
    assert (result["rulings"][0]["by"], result["rulings"][0]["reported_by"]) == ("ana", "bob")


def test_rule_10_a_card_fell_face_up_and_is_exposed(tmp_path, browser):
    with Table(tmp_path, browser, "zoppot-1934", "SHOE DEAL 2C TH 3D") as t:
        wait_until(t.page, "document.querySelectorAll('#punter .card').length === 2")
        assert shown_codes(t.page, "punter") == [None, None]
        t.report("card_fell", position="P1", face="up")
        # Seen by all: P1 is shown, and B1 with it (000 rule 6).
        wait_until(t.page, "document.querySelector(\"#punter [data-code='2C']\") !== null")
        assert shown_codes(t.page, "banker") == ["TH"]
        assert shown_codes(t.page, "punter") == ["2C", None]
        shoot(t.page, "report-card-fell")
    assert t.rc == 0
    assert [x["code"] for x in t.lines("irregularity")] == ["CARD_FELL", "EXPOSED_CARD"]
    (fell,) = t.lines("irregularity", "CARD_FELL")
    assert fell["rule"].startswith("000 rule 10: ") and fell["by"] == "bob"


def test_rule_4_the_partners_objection_is_recorded_and_changes_nothing(tmp_path, browser):
    with Table(tmp_path, browser, "zoppot-1934", "SHOE DEAL 2C TH 3D 5S RESTE") as t:
        wait_until(t.page, "document.body.dataset.state === 'banker_to_play'")
        t.report("partner_objection", partner="4")
        wait_until(t.page, "document.getElementById('felt').innerText !== ''")
        shoot(t.page, "report-partner")
        assert t.page.evaluate("document.body.dataset.state") == "banker_to_play"
        t.page.click("#tab-recall")
        wait_until(t.page, "document.querySelectorAll('#recall-list .told').length === 1")
        events = t.page.evaluate(
            "[...document.querySelectorAll('#recall-list .events li')].map((l) => l.textContent)")
        assert any("Reported: Partner objects (Seat 4) on the console by bob" in e
                   for e in events), events
    assert t.rc == 0
    (objection,) = t.lines("irregularity", "PARTNER_OBJECTION")
    assert objection["rule"].startswith("000 rule 4: ") and "seat 4" in objection["detail"]
    assert t.lines("coup.result") == []  # the banker's play goes on as he chooses
