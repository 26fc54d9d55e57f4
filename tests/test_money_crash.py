"""Crash safety of the table's money: kill -9 the real daemon at random instants of a live
run while a croupier (a test thread, through the console's API) puts up banks and places
stakes on every coup, restart it, and the money must come back each time exactly as the
ledger holds it: the bank across the shoe (the restore starts the money from the shoe's
`money.table` record), the stakes of a round open or dealt at the kill.

At the end: every coup exactly once in the results; the ledger verifies; no restore found
its money replayed different from what it recorded; the whole ledger played again from its
first record through a fresh table gives every money record the ledger holds, in order;
and every settlement is the one the rules give for its round and result.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import threading
import time
from pathlib import Path
from typing import Any

from hil.harness import start_daemon, start_shoe, stop
from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.console.people import Roster
from shoe_daemon.console.till import MONEY_KINDS, Till
from shoe_daemon.game.houses import get_profile
from shoe_daemon.money.houses import get_money_profile
from shoe_daemon.money.verify import check_settlement
from shoe_daemon.service.table import REPLAYED, Table
from tests.console_support import Client, people_by_cli
from tests.money.support import SETTINGS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Croupier(threading.Thread):
    """Enters the bank and stakes on every coup, whatever the daemon's state: it signs in
    again after each restart, and a refused or unanswered request only means the next."""

    def __init__(self, url: str, seed: int) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.accepted = 0
        self.client = Client(url)

    def run(self) -> None:
        while not self.stop.is_set():
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                self.turn()
            time.sleep(self.rng.uniform(0.005, 0.04))

    def act(self, kind: str, **args: str) -> None:
        status, _ = self.client.act(kind, **args)
        self.accepted += status == 200

    def turn(self) -> None:
        status, body, _ = self.client.get("/api/state")
        if status == 401:
            self.client.sign_in("ana", "4711")  # a supervisor: any latch is hers to resolve
            return
        if status != 200:
            return
        console = body["console"]
        for latch in console["latches"]:
            if not latch["held"]:
                self.act("resolve", latch=latch["id"], reason="checked at the table")
                return
        money = console["money"]
        if money is None:
            return
        seated = money["seating"]["occupied"]
        if len(seated) < 7:
            self.act("sit", seat=str(len(seated) + 1))
            return
        bank = money["bank"]
        if bank["phase"] == "vacant" and money["turn"]:
            self.act("take_bank", who=f"seat {money['turn']}", amount="2000")
        elif bank["phase"] == "offer" and money["turn"]:
            self.act("accept_offer", who=f"seat {money['turn']}")
        elif bank["phase"] == "auction":
            self.act("bid" if not bank["bids"] else "award", who="seat 2", amount="1000")
        elif bank["phase"] == "held" and (money["round"] is None or (
                money["round"]["shoe"] is None and len(money["round"]["stakes"]) < 4)):
            punters = [p for p in money.get("prime", []) if p != bank["holder"]]
            if punters:
                self.act("stake", who=self.rng.choice(punters),
                         amount=str(self.rng.randrange(10, 100)))


class _Recorded:
    """The console as the ledger recorded it: each KEY as decided then; nobody signs in."""

    replay_file = None
    roster = Roster()

    def decide_key(self, *_: Any, **__: Any) -> dict[str, Any]:
        raise AssertionError("a recorded frame is played with its recorded decision")

    def changed_people(self) -> None:
        return None

    def state(self, *_: Any, **__: Any) -> None:
        return None


def played_again(state: Path) -> tuple[list[dict], list[dict], list[dict], list[dict]]:
    """The whole ledger played again from its first record through a fresh table: the lines
    and money records it gives, and those the ledger recorded."""
    till = Till.of("baden", SETTINGS["baden"])
    table = Table(get_profile("baden"), console=_Recorded(), till=till)
    ledger = Ledger(state)
    try:
        lines, money = [], []
        for record in ledger.records(kinds=REPLAYED):
            got, made = table.play_recorded(record)
            lines += got
            money += made
        recorded_lines = [r.body["line"] for r in ledger.records(kinds=("result",))]
        recorded_money = [r.body for r in ledger.records(kinds=MONEY_KINDS)]
    finally:
        ledger.close()
    return lines, recorded_lines, money, recorded_money


def test_kill_9_at_any_instant_keeps_the_money_as_the_ledger_holds_it(tmp_path):
    people_by_cli(tmp_path / "state")
    config = tmp_path / "shoe-daemon.toml"
    config.write_text('[money]\nmin_bank = 100\nmin_stake = 10\n')
    port = free_port()
    flags = ["--config", str(config), "--console", f"127.0.0.1:{port}"]
    shoe, _ = start_shoe(tmp_path, "baden", shoes=2, seed=41, pace=0.01,
                         faults=["noise=0.02"], extra=["--stakes-pause", "0.25"])
    rng = random.Random(41)
    daemon = start_daemon(tmp_path, "baden", extra=flags)
    croupier = Croupier(f"http://127.0.0.1:{port}/", 41)
    croupier.start()
    kills = 0
    try:
        while shoe.poll() is None and kills < 15:
            time.sleep(rng.uniform(0.5, 2.5))  # a restart takes a second here: some play
            daemon.kill()  # SIGKILL: no cleanup at all
            daemon.wait()
            kills += 1
            daemon = start_daemon(tmp_path, "baden", extra=flags)
        shoe.wait(240)
        deadline = time.monotonic() + 20
        log_path = tmp_path / "daemon.log"
        while log_path.read_text().count('"daemon.start"') <= kills and \
                time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        croupier.stop.set()
        croupier.join(10)
        rc = stop(daemon)
        stop(shoe)
    log = (tmp_path / "daemon.log").read_text()
    assert shoe.returncode == 0, (tmp_path / "shoe.log").read_text()[-2000:]
    assert rc == 0 and kills >= 5, log[-3000:]
    truth = [json.loads(x) for x in (tmp_path / "truth.jsonl").read_text().splitlines()]
    got = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [x for x in got if x["event"] == "coup.result"] == truth
    for mismatch in ("ledger.replay_mismatch", "money.replay_mismatch", "money.refused",
                     "money.replay_refused", "money.snapshot_unreadable"):
        assert mismatch not in log, mismatch
    ledger = Ledger(tmp_path / "state")
    assert ledger.verify() > 0
    ledger.close()
    lines, recorded_lines, money, recorded_money = played_again(tmp_path / "state")
    assert lines == recorded_lines
    assert money == recorded_money
    settlements = [r for r in recorded_money if r["event"] == "money.settlement"]
    staked = [r for r in settlements if len(r["lines"]) > 1]
    assert len(settlements) == len(truth) and len(staked) >= 20, (len(settlements), len(staked))
    assert sum(r["event"] == "money.table" for r in recorded_money) == 2  # one a shoe
    profile = get_money_profile("baden")
    rounds: dict[tuple[int, int], dict] = {}
    results = {(x["shoe"], x["coup"]): x for x in truth}
    for record in recorded_money:
        where = (record.get("shoe"), record.get("coup"))
        if record["event"] == "money.round":
            rounds[where] = record
        elif record["event"] == "money.settlement":
            assert check_settlement(profile, rounds[where], results[where], record) is None
    assert croupier.accepted > 50
