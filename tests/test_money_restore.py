"""The table's money across restarts and in replays: the bank outlives its shoe (the restore
starts the money from the `money.table` record of the shoe it restores from), a coup dealt
before a stop is settled after it with the stakes of before, a supervisor's change of limits
stands until the configuration's `[money]` changes, and `shoe-daemon replay --console`
gives the run's money records byte for byte."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from shoe_daemon.audit import cli as audit_cli
from shoe_daemon.audit.ledger import Ledger, canonical
from shoe_daemon.console.replay_file import ReplayFile, beside
from shoe_daemon.console.till import MONEY_KINDS
from shoe_daemon.service.replay import replay_bytes
from tests.console_support import console_table
from tests.money.support import SETTINGS
from tests.money_support import Play, deal, money_table


def money_records(state: Path) -> list[dict]:
    ledger = Ledger(state)
    try:
        return [r.body for r in ledger.records(kinds=MONEY_KINDS)]
    finally:
        ledger.close()


def verified(state: Path, capsys) -> str:
    """`audit verify` of the daemon's own ledger: its summary line (the money played again
    across the restarts, the configuration's and the supervisor's changes of limits)."""
    code = audit_cli.main(["audit", "verify", "--state-dir", str(state)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "actions played again by the rules from record " in out
    return out


def test_the_bank_outlives_its_shoe_and_a_restart(tmp_path, capsys):
    state = tmp_path / "state"
    with money_table(state, "baden") as play:
        play.seat(1, 2, 3, 5, 7)
        play.ok("take_bank", who="seat 1", amount="800")
        for who, amount in (("seat 3", "300"), ("seat 5", "200"), ("seat 7", "100")):
            play.ok("stake", who=who, amount=amount)
        play.coup("banker")  # the Schokolade set aside: the new bank is 1,170 (issue 20)
        play.shoe()  # a new shoe: the restore will start from here
        play.ok("stake", who="seat 2", amount="150")  # a round open across the stop
        kept = play.t.loop.table.till.money
        assert kept.bank.amount == 1170 and kept.shoe == 2
    recorded = money_records(state)
    with console_table(state, "baden", money=SETTINGS["baden"]) as t:
        restored = t.loop.table.till.money
        assert restored == kept  # from the shoe's money.table record and what followed
        assert money_records(state) == recorded  # a restart adds no money record
        play = Play(t)
        play.hello()
        settlement = play.coup("punter")
        assert settlement["bank"]["before"] == "1170.00"
        assert [line["stake"] for line in settlement["lines"]][:1] == ["s1"]
    assert "money: 2 settlements follow their rounds and results, " in verified(state, capsys)


def test_a_coup_dealt_before_a_stop_is_settled_after_it(tmp_path):
    state = tmp_path / "state"
    with money_table(state, "zoppot-1934") as play:
        play.seat(1, 2, 3)
        play.ok("take_bank", who="seat 1", amount="100")
        play.ok("stake", who="seat 2", amount="40")
        play.t.shoe.feed(deal("punter", 0).rsplit(" ", 2)[0])  # DEAL and two cards
        assert play.t.loop.table.till.money.round.closed == (1, 1)
    with console_table(state, "zoppot-1934", money=SETTINGS["zoppot-1934"]) as t:
        assert t.loop.table.till.money.round.closed == (1, 1)
        Play(t).hello()
        t.shoe.feed(" ".join(deal("punter", 0).split()[3:]))
        settlement = [r.body for r in t.records("money.settlement")][-1]
        assert settlement["lines"][0]["net"] == "40.00" and settlement["bank"]["ends"]


def test_a_supervisors_limits_stand_until_the_configuration_changes(tmp_path, capsys):
    state = tmp_path / "state"
    with money_table(state, "baden") as play:
        play.ok("limits", as_=play.ana, min_stake="20", reason="the inspector's order")
    with console_table(state, "baden", money=SETTINGS["baden"]) as t:
        assert str(t.loop.table.till.money.limits.min_stake) == "20"  # it stands
    with console_table(state, "baden", money={**SETTINGS["baden"], "min_stake": 50}) as t:
        assert str(t.loop.table.till.money.limits.min_stake) == "50"
        change = [r.body for r in t.records("money.limits")][-1]
        assert (change["source"], change["by"], change["before"]["min_stake"]) == (
            "configuration", "configuration", "20")
    with console_table(state, "baden", money={**SETTINGS["baden"], "min_stake": 50}) as t:
        assert str(t.loop.table.till.money.limits.min_stake) == "50"
        assert len(t.records("money.limits")) == 2  # the same file: nothing new
        Play(t).hello()
        t.shoe.feed(deal("punter", 0))  # a coup under the configuration's new limits
    assert "money: 1 settlements follow their rounds and results, " in verified(state, capsys)


def test_replay_console_gives_the_same_settlements_byte_for_byte(tmp_path, capsys):
    state = tmp_path / "state"
    with money_table(state, "baden") as play:
        play.seat(1, 2, 3, 4, 5, 7)
        play.ok("take_bank", who="seat 1", amount="800")
        play.ok("stake", who="seat 3", amount="300")
        play.ok("stake", who="outsider A", amount="50")
        play.coup("banker")
        play.ok("banco", who="seat 2", kind="banco_solo")
        play.coup("punter")  # the bank passes to place 2
        play.ok("take_bank", who="seat 2", amount="500")
        play.ok("stake", who="seat 4", amount="100")
        play.t.shoe.feed(deal("banker", 7).rsplit(" ", 2)[0])
        play.ok("correct", as_=play.ana, stake="s1", amount="150", reason="keyed wrong")
        play.t.shoe.feed(" ".join(deal("banker", 7).split()[3:]))
        play.ok("reopen", as_=play.ana, how="void", reason="marked card")
        play.shoe()
        play.ok("stake", who="seat 3", amount="100")
        play.coup("egalite")
        capture = play.t.loop.capture_path
    recorded = money_records(state)
    assert {r["event"] for r in recorded} >= {"money.settlement", "money.correction",
                                              "money.table", "money.round"}
    console = beside(capture)
    outcome = replay_bytes(capture.read_bytes(), "baden", ReplayFile.read(console))
    replayed = [x for x in outcome.lines if x["event"].startswith("money.")]
    assert [canonical(x) for x in replayed] == [canonical(x) for x in recorded]
    # The command prints them among the lines, as the ledger holds them.
    done = subprocess.run([sys.executable, "-m", "shoe_daemon.service.cli", "replay",
                           "--profile", "baden", "--console", str(console), str(capture)],
                          capture_output=True, text=True, timeout=60, check=True)
    printed = [json.loads(x) for x in done.stdout.splitlines()]
    settlements = [canonical(x) for x in printed if x["event"] == "money.settlement"]
    assert settlements == [canonical(x) for x in recorded if x["event"] == "money.settlement"]
    assert len(settlements) == 4
    assert ", 1 reopened by a supervisor, " in verified(state, capsys)


def test_seats_and_the_bank_taken_before_the_first_frame_outlive_a_restart(tmp_path):
    """The console's actions recorded before the shoe's first frame (the table opened, no
    shoe yet) are played again at a restart as those after it are: the seats and the bank
    stand, and a seat taken then is refused again."""
    state = tmp_path / "state"
    with console_table(state, "baden", money=SETTINGS["baden"]) as t:
        play = Play(t)
        play.seat(1, 2, 3, 4, 5)  # 003's five, to begin the game
        play.ok("take_bank", who="seat 1", amount="800")
        assert not t.records("frame")
        kept = t.loop.table.till.money
    recorded = money_records(state)
    with console_table(state, "baden", money=SETTINGS["baden"]) as t:
        assert t.loop.table.till.money == kept
        assert money_records(state) == recorded  # a restart adds no money record
        play = Play(t)
        play.refused("sit", 409, seat="5")
        play.hello()
        play.shoe()
        settlement = play.coup("banker")
        assert settlement["bank"]["before"] == "800.00"


def test_a_ledger_written_before_issue_20_restores_without_a_mismatch(tmp_path: Path) -> None:
    """A ledger of the earlier form (places as numbers, Baden's bank kept whole until the
    Schokolade was asked) is played again by the rules it was written with: the restore
    finds the records it recorded, spelled as they were then (money/legacy.py)."""
    from structlog.testing import capture_logs

    from hil.money_ledger import MoneyTable
    from tests.console_support import console_table
    from tests.money.support import SETTINGS

    state = tmp_path / "state"
    MoneyTable(state, "baden", seed=5, shoes=2, earlier=True).run()
    with capture_logs() as logs, console_table(state, "baden", money=SETTINGS["baden"]):
        pass
    events = [e["event"] for e in logs]
    assert "ledger.restored" in events, events
    assert "money.replay_refused" not in events and "money.refused" not in events
    assert "money.replay_mismatch" not in events, [e for e in logs
                                                    if e["event"] == "money.replay_mismatch"]
