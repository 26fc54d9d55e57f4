"""The table's money on the croupier's console page, in Debian's Chromium with touch
emulation, against the real daemon process and the simulated shoe process, then in the
ledger.

003's worked example at a live Baden table, entered on the page by taps: five players
seated, the bank of Fr. 800 put up by place 1 from the house's chips, the Ponte's Fr. 600
staked in Prime order (places 3, 5 and 7: Fr. 300, 200 and 100); the croupier presses the
shoe's DEAL, the banker wins with a natural; the page shows the settlement (Taxe Fr. 30, the
bank Fr. 1,170 and Fr. 200 set aside as Schokolade, contract 5). Every figure is then checked
in the ledger. Screenshots go to out/screenshots/console-*.png.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.money.houses import get_money_profile
from shoe_daemon.money.verify import check_settlement
from tests.console_touch import touch_table

BADEN = '[money]\nmin_bank = 100\nmin_stake = 10\n'



def ledger_money(workdir: Path) -> list[Any]:
    ledger = Ledger(workdir / "state")
    try:
        return [r for r in ledger.records() if r.kind.startswith("money.")
                or r.kind in ("action", "result")]
    finally:
        ledger.close()


def test_the_schokolade_worked_example_003_played_from_the_page(tmp_path, browser):
    with touch_table(browser, tmp_path, "baden", BADEN, "SHOE:1 DEAL 2C 9H 3D KD\n",
                     "10in") as t:
        t.sit(1, 2, 3, 5, 7)
        t.chips("800")
        t.play("[data-kind='take_bank']")
        t.wait("document.getElementById('bank-line').dataset.phase === 'held'")
        for place, figure in ((3, "300"), (5, "200"), (7, "100")):
            t.stake(place, figure)
        t.deal(1)
        assert t.text("#settlement-sums") == (
            "Commission Fr. 30 · the bank is Fr. 1,170 · Fr. 200 set aside as Schokolade")
        assert t.text("#bank-line") == "Banque Fr. 1,170 · Seat 1"
        assert t.page.locator("#bank-choices [data-kind='schokolade']").count() == 0
    records = ledger_money(tmp_path)
    kinds = [r.kind for r in records]
    settlement = next(r.body for r in records if r.kind == "money.settlement")
    round_ = next(r.body for r in records if r.kind == "money.round")
    result = next(r.body["line"] for r in records if r.kind == "result")
    assert check_settlement(get_money_profile("baden"), round_, result, settlement) is None
    assert settlement["commission"] == "30.00"
    assert (settlement["bank"]["after"], settlement["bank"]["set_aside"]) == ("1170.00",
                                                                              "200.00")
    # The money's records come after the frame and its result, in their transaction.
    assert kinds.index("money.round") < kinds.index("result") < kinds.index("money.settlement")
    by_kind = {r.body["kind"] for r in records if r.kind == "action"}
    assert {"sit", "take_bank", "stake"} <= by_kind
    assert all(r.body["by"] == "bob" for r in records if r.kind == "action"
               and r.body["kind"] not in ("sign_in", "sign_out"))
    assert "money.replay_mismatch" not in (tmp_path / "daemon.log").read_text()
    assert json.loads((tmp_path / "results.jsonl").read_text().splitlines()[0])[
        "outcome"] == "banker"
