"""Hardware in the loop for the pit's odds and integrity monitor (issue 14 parts 2 and 3):
the real daemon over a pty against the simulated shoe's integrity fault switches. The
alarms are raised at a live table and committed to the ledger, the status shows them, the
table's display never does, and fair shoes raise none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hil.harness import run_table, start_daemon, start_shoe, stop
from hil.processes import display_url
from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.service.status import summarise
from tests.display_client import get, wait_for
from tests.test_hil import check

PUNTO_BANCO = "baden-punto-banco"
# Words only the monitor's records use: none of them may reach the public page.
PIT_ONLY = ("odds", "exposure", "expectation", "favour", "slug", "ALARM", "integrity")


def ledger(workdir: Path, kind: str) -> list[dict[str, Any]]:
    book = Ledger(workdir / "state")
    try:
        return [r.body for r in book.records(kinds=(kind,))]
    finally:
        book.close()


def test_a_false_shuffle_is_caught_at_a_live_table(tmp_path: Path) -> None:
    run = run_table(tmp_path, PUNTO_BANCO,
                    shoe_args={"shoes": 3, "seed": 3, "faults": ["false_shuffle=0.2"]})
    check(run)
    alarms = ledger(tmp_path, "integrity.alarm")
    assert [(a["shoe"], a["test"]) for a in alarms] == [(2, "slugs"), (3, "slugs")]
    for alarm in alarms:
        assert alarm["after_coup"] is not None  # raised during the shoe, not at its end
        worst = max(alarm["compared_with"], key=lambda c: c["cards_in_slugs"])
        assert worst["shoe"] == alarm["shoe"] - 1
        assert all(len(s["cards"]) >= 4 for s in worst["slugs"])
    # Each shoe's end: its inventory and its checks, once.
    assert [i["shoe"] for i in ledger(tmp_path, "shoe.inventory")] == [1, 2, 3]
    assert [i["alarm"] for i in ledger(tmp_path, "shoe.integrity")] == [False, True, True]
    # Every coup but a shoe's last has its odds, once.
    exposures = [(e["shoe"], e["for_coup"]) for e in ledger(tmp_path, "odds.exposure")]
    assert len(exposures) == len(set(exposures))
    owed = {(c["shoe"], c["coup"] + 1) for c in run.coup_results if not c.get("last_coup")}
    assert len(owed - set(exposures)) <= 3  # a shoe left too short for a coup
    assert set(exposures) <= owed
    # The published lines say nothing of it.
    published = json.dumps(run.results)
    assert not any(word in published for word in PIT_ONLY)
    # `shoe-daemon status` names the shoe in play's alarm.
    summary = "\n".join(summarise(tmp_path / "state").lines)
    assert "alarm: ALARM shoe 3: the shuffle left slugs of shoe 2" in summary


def test_a_prearranged_shoe_is_caught_at_its_end(tmp_path: Path) -> None:
    run = run_table(tmp_path, PUNTO_BANCO,
                    shoe_args={"shoes": 2, "seed": 4, "faults": ["stacked=1"]})
    check(run)
    alarms = ledger(tmp_path, "integrity.alarm")
    assert [(a["shoe"], a["test"]) for a in alarms] == [(1, "changes"), (2, "changes")]
    assert all(a["p_value"] <= 2e-5 and "long runs of one side" in a["words"]
               for a in alarms)


def test_a_foreign_card_is_in_the_inventory_and_its_alarm(tmp_path: Path) -> None:
    """The shoe deals one copy too many (the coup machine holds it, a supervisor takes it
    out): the shoe's inventory counts it over the packs, and the alarm names it."""
    run = run_table(tmp_path, PUNTO_BANCO,
                    shoe_args={"shoes": 1, "seed": 5, "faults": ["foreign_card=1"]})
    check(run)
    inventory = ledger(tmp_path, "shoe.inventory")[0]
    (over,) = inventory["over_pack_count"]
    assert over["read"] == inventory["packs"] + 1 and inventory["foreign"] == 1
    assert [inventory["order"][p - 1] for p in over["positions"]] == [over["code"]] * over["read"]
    assert sum(inventory["counts"].values()) == inventory["cards_read"]
    alarms = ledger(tmp_path, "integrity.alarm")
    assert [(a["shoe"], a["test"]) for a in alarms] == [(1, "inventory")]
    assert f"{over['code']} read {over['read']} times" in alarms[0]["words"]


def test_fair_shoes_raise_no_integrity_alarm(tmp_path: Path) -> None:
    """Many fair shoes at two houses, dealt far faster than a croupier deals, so the monitor
    runs behind the table; what a clean stop's few seconds of drain leave undone, the next
    start finishes from the ledger: every coup's odds once, every shoe's inventory and
    checks, and no integrity alarm."""
    for profile, shoes in ((PUNTO_BANCO, 10), ("eight-pack", 6)):
        workdir = tmp_path / profile
        run = run_table(workdir, profile, timeout=300,
                        shoe_args={"shoes": shoes, "seed": 12})
        check(run)
        log = workdir / "daemon.log"
        waits = log.read_text().count('"shoe.unavailable"')
        daemon = start_daemon(workdir, profile)  # no shoe: the monitor catches up alone
        try:
            wait_for(lambda w=log, n=waits: w.read_text().count('"shoe.unavailable"') > n,
                     timeout=30, what="the daemon started again, waiting for its shoe")
            wait_for(lambda w=workdir, n=shoes: len(_kinds(w, "shoe.integrity")) == n,
                     timeout=120, what="every shoe's checks after the restart")
        finally:
            assert stop(daemon) == 0
        assert ledger(workdir, "integrity.alarm") == []
        assert [i["shoe"] for i in ledger(workdir, "shoe.inventory")] == list(
            range(1, shoes + 1))
        exposures = [(e["shoe"], e["for_coup"]) for e in ledger(workdir, "odds.exposure")]
        assert len(exposures) == len(set(exposures))
        owed = {(c["shoe"], c["coup"] + 1) for c in run.coup_results
                if not c.get("last_coup")}
        assert set(exposures) <= owed and len(owed - set(exposures)) <= shoes


def test_the_table_display_never_shows_the_pit_s_figures(tmp_path: Path) -> None:
    """A live table whose shoe turns bets in the players' favour and is false-shuffled: the
    display's state and page carry none of it while the ledger does."""
    shoe, _ = start_shoe(tmp_path, PUNTO_BANCO, shoes=2, seed=3, faults=["false_shuffle=0.2"])
    daemon = start_daemon(tmp_path, PUNTO_BANCO)
    try:
        url = display_url(tmp_path, daemon)
        shoe.wait(120)
        status = tmp_path / "state" / "status.json"
        wait_for(lambda: len(_kinds(tmp_path, "shoe.inventory")) == 2, timeout=60,
                 what="both shoes' inventories")
        for path in ("/api/state", "/"):
            code, _, body = get(url, path)
            assert code == 200
            text = body.decode()
            assert not any(word in text for word in PIT_ONLY), (path, text[:2000])
        assert _kinds(tmp_path, "integrity.alarm") and _kinds(tmp_path, "odds.alarm")
        wait_for(lambda: "INTEGRITY ALARM" in json.loads(status.read_text())["odds"],
                 timeout=10, what="the status's alarm")
    finally:
        stop(daemon)
        stop(shoe)


def _kinds(workdir: Path, kind: str) -> list[dict[str, Any]]:
    try:
        return ledger(workdir, kind)
    except Exception:  # the ledger not yet made
        return []
