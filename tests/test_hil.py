"""Hardware in the loop: the real daemon process against the simulated shoe process.

Every run compares the daemon's results file with the shoe's ground truth: every coup
exactly once, in order, correct. The default run covers every profile and every fault
switch over a real pty, and the simulated USB device; `--soak` adds long runs.
"""

from __future__ import annotations

import json

import pytest

from hil.harness import TableRun, run_table
from shoe_daemon.game.houses import PROFILES

LINE_FAULTS = ["noise=0.05", "damage=0.05", "drop=0.05", "duplicate=0.05", "lost_ack=0.2",
               "unplug=2", "reboot=1", "jam=0.1"]
GAME_FAULTS = ["face_up=0.1", "unreadable=0.1", "wrong_order=0.1", "extra_card=0.1",
               "foreign_card=1", "short_last_coup=1"]


def check(run: TableRun) -> None:
    detail = f"\nshoe log:\n{run.shoe_log[-3000:]}\ndaemon log:\n{run.daemon_log[-3000:]}"
    assert run.shoe_rc == 0, "the shoe did not finish" + detail
    assert run.daemon_rc == 0, "the daemon did not stop cleanly" + detail
    assert run.truth, "no ground truth" + detail
    got = run.coup_results
    assert len(got) == len(run.truth), detail
    for mine, truth in zip(got, run.truth, strict=True):
        assert mine == truth, json.dumps({"daemon": mine, "truth": truth}, indent=1) + detail
    assert '"level": "error"' not in run.daemon_log, detail


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_profile_with_every_fault(tmp_path, profile):
    check(run_table(tmp_path, profile, shoe_args={"seed": 21, "faults": ["all"]}))


@pytest.mark.parametrize("fault", LINE_FAULTS + GAME_FAULTS)
def test_each_fault_switch_alone(tmp_path, fault):
    run = run_table(tmp_path, "baden", shoe_args={"seed": 5, "faults": [fault]})
    check(run)
    name = fault.split("=")[0]
    if name == "unplug":
        assert run.daemon_log.count('"shoe.lost"') >= 2 and '"shoe.connected"' in run.daemon_log
    if name == "reboot":
        assert '"shoe.reboot"' in run.daemon_log
        from shoe_daemon.audit.ledger import Ledger

        events = [r.body["event"] for r in Ledger(run.workdir / "state").records(
            kinds=("transport",))]
        assert "shoe.reboot" in events and "connected" in events


@pytest.mark.parametrize("profile", ["baden", "clermont-2015"])
def test_over_the_simulated_usb_device(tmp_path, profile):
    check(run_table(tmp_path, profile, usb=True,
                    shoe_args={"seed": 8, "faults": ["noise=0.05", "drop=0.05", "unplug=1"]}))


def test_the_lamp_follows_the_coup(tmp_path):
    # At a croupier's pace, as at a table: the lamp shows the state after each read, so a
    # hold raised and lifted within one read (frames flooding in) never shows red.
    run = run_table(tmp_path, "zoppot-1934",
                    shoe_args={"seed": 3, "faults": ["unreadable=0.3"], "pace": 0.003})
    check(run)
    # Zoppot's free banker keeps the lamp amber; unreadable cards turn it red.
    assert {"GREEN", "AMBER", "RED"} <= set(run.lamps)


@pytest.mark.soak
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_soak_many_shoes_every_fault(tmp_path, profile):
    check(run_table(tmp_path, profile, timeout=900,
                    shoe_args={"shoes": 8, "seed": 99, "faults": ["all"]}))


def test_banco_solo_freed_with_btn_free_through_the_real_daemon(tmp_path):
    # Protocol 1.1: at Baden a banco solo's sides play free (003 "können beide nach Belieben
    # eine dritte Karte ... ziehen"); the croupier says so with BTN,FREE. Free choices against
    # the grid must come out as plain results, exactly as the croupier dealt them.
    run = run_table(tmp_path, "baden",
                    shoe_args={"seed": 12, "extra": ["--banco-solo", "0.5"]})
    check(run)
    assert b"BTN,FREE," in (tmp_path / "shoe.cap").read_bytes()
    assert not any("FAUX_TIRAGE" in r["irregularities"] for r in run.coup_results)
