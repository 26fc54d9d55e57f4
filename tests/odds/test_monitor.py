"""The odds monitor at a table: the real table committing to a real ledger, the monitor's
thread reading it back read-only, its real worker process computing, and what it found
committed through the table (issue 14 parts 2 and 3). A stop or a crash at any point loses
and duplicates nothing: the ledger says what is owed."""

from __future__ import annotations

import time
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import structlog

from drivers.framing import Frame
from drivers.messages import Message
from hil.dealer import GameFaults, deal_shoes
from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.game.houses import get_profile
from shoe_daemon.odds.live import exposure
from shoe_daemon.odds.monitor import OddsMonitor
from shoe_daemon.service.table import Table

PROFILE = "baden-punto-banco"
PACKS = 2  # small shoes: a whole table in a few seconds


class Run:
    """A table and its monitor on one state directory, dealt message by message."""

    def __init__(self, state: Path, monitor: bool = True) -> None:
        self.ledger = Ledger(state)
        self.monitor = (OddsMonitor(get_profile(PROFILE), state, structlog.get_logger(),
                                    poll=0.05) if monitor else None)
        self.results = (state / "results.jsonl").open("a+", encoding="utf-8")
        self.table = Table(get_profile(PROFILE), self.ledger, self.results,
                           on_commit=self.monitor.notify if self.monitor else None)
        self.table.restore()
        if self.monitor is not None:
            self.monitor.start()

    def deal(self, messages: list[Message], start: int = 0) -> None:
        for seq, message in enumerate(messages, start):
            self.table.frame_received(Frame(seq % 65536, message, b""), "new")
            self.table.commit()
            self.serve()

    def serve(self) -> None:
        if self.monitor is not None:
            self.monitor.deliver(self.table.record, self.table.where())

    def settle(self, timeout: float = 60.0) -> None:
        """Until the monitor owes nothing: stop it with a drain, committing what it finds."""
        assert self.monitor is not None
        self.monitor.stop(drain=timeout)
        deadline = time.monotonic() + timeout
        while self.monitor.running and time.monotonic() < deadline:
            self.monitor.join(0.02)
            self.serve()
        self.serve()
        assert not self.monitor.running

    def close(self) -> None:
        self.ledger.close()
        self.results.close()


def records(state: Path, kind: str) -> list[dict[str, Any]]:
    ledger = Ledger(state)
    try:
        return [r.body for r in ledger.records(kinds=(kind,))]
    finally:
        ledger.close()


def coups(state: Path) -> list[dict[str, Any]]:
    return [b["line"] for b in records(state, "result") if b["line"]["event"] == "coup.result"]


def owed(results: list[dict[str, Any]]) -> set[tuple[int, int]]:
    """(shoe, coup) of every coup whose odds are owed: each one after a coup of its shoe
    that was not the last, while the shoe still holds six cards (no fault here: every card
    read is in a hand)."""
    out, read = set(), Counter[int]()
    for c in results:
        read[c["shoe"]] += len(c["punter"]["cards"]) + len(c["banker"]["cards"])
        if not c.get("last_coup") and PACKS * 52 - read[c["shoe"]] >= 6:
            out.add((c["shoe"], c["coup"] + 1))
    return out


def test_every_coup_has_its_exposure_once_and_exactly(tmp_path: Path) -> None:
    session = deal_shoes(PROFILE, shoes=2, seed=4, packs=PACKS)
    run = Run(tmp_path)
    run.deal(session.messages)
    run.settle()
    run.close()
    results = coups(tmp_path)
    exposures = records(tmp_path, "odds.exposure")
    got = [(e["shoe"], e["for_coup"]) for e in exposures]
    assert len(got) == len(set(got)) and set(got) == owed(results)
    # The figures are the exact odds of the cards left after that coup.
    shoe1 = [c for c in results if c["shoe"] == 1]
    read: list[str] = []
    first = next(e for e in exposures if e["shoe"] == 1 and e["after_coup"] == 3)
    for c in shoe1[:3]:
        read += c["punter"]["cards"][:2] + c["banker"]["cards"][:2] + \
            c["punter"]["cards"][2:] + c["banker"]["cards"][2:]
    want = exposure(get_profile(PROFILE, PACKS), PACKS, read).odds.outcome
    assert Fraction(first["chances"]["banker"]["exact"]) == want.banker
    assert Fraction(first["chances"]["egalite"]["exact"]) == want.egalite
    assert first["cards_left"] == PACKS * 52 - len(read)
    # Each shoe's end: one inventory and one integrity record.
    inventories = records(tmp_path, "shoe.inventory")
    assert [i["shoe"] for i in inventories] == [1, 2]
    assert sum(inventories[0]["counts"].values()) == inventories[0]["cards_read"]
    assert [i["shoe"] for i in records(tmp_path, "shoe.integrity")] == [1, 2]
    assert records(tmp_path, "integrity.alarm") == []  # fair shoes


def test_a_crash_with_figures_unsaid_loses_and_repeats_nothing(tmp_path: Path) -> None:
    """The monitor computes, the daemon dies before the loop commits (nothing delivered),
    and again after part of a shoe; each restart owes exactly what the ledger lacks."""
    session = deal_shoes(PROFILE, shoes=2, seed=9, packs=PACKS)
    messages = session.messages
    third = len(messages) // 3

    run = Run(tmp_path)
    run.deal(messages[:third])
    run.settle()
    run.close()
    before = len(records(tmp_path, "odds.exposure"))
    assert before > 0

    # Dealt with the monitor computing but nothing it found committed: the crash.
    crashed = Run(tmp_path)
    for seq, message in enumerate(messages[third:2 * third], third):
        crashed.table.frame_received(Frame(seq, message, b""), "new")
        crashed.table.commit()
    time.sleep(0.5)
    assert crashed.monitor is not None
    crashed.monitor.stop()
    crashed.monitor.join(10)
    crashed.close()
    assert len(records(tmp_path, "odds.exposure")) == before  # nothing said

    # The daemon restarted: the monitor catches up from the ledger.
    again = Run(tmp_path)
    again.deal(messages[2 * third:], start=2 * third)
    again.settle()
    again.close()

    results = coups(tmp_path)
    got = Counter((e["shoe"], e["for_coup"]) for e in records(tmp_path, "odds.exposure"))
    assert max(got.values()) == 1  # never twice
    assert set(got) == owed(results)  # none lost
    late = [e for e in records(tmp_path, "odds.exposure") if e["late"]]
    assert late and all("before its first card" in e["late_words"] for e in late)
    assert [i["shoe"] for i in records(tmp_path, "shoe.inventory")] == [1, 2]


def test_a_false_shuffle_raises_the_slug_alarm_naming_the_slugs(tmp_path: Path) -> None:
    session = deal_shoes(PROFILE, shoes=2, seed=6, packs=PACKS,
                         faults=GameFaults(false_shuffle=0.3))
    run = Run(tmp_path)
    run.deal(session.messages)
    run.settle()
    run.close()
    alarms = records(tmp_path, "integrity.alarm")
    assert [(a["shoe"], a["test"]) for a in alarms] == [(2, "slugs")]
    alarm = alarms[0]
    assert alarm["cards_in_slugs"] >= alarm["threshold"]
    first = records(tmp_path, "shoe.inventory")[0]["order"]
    for compared in alarm["compared_with"]:
        for slug in compared["slugs"]:
            if compared["order"] == "as dealt":
                assert [first[p - 1] for p in slug["earlier"]] == slug["cards"]
    assert "Slugs: " in alarm["words"] and "of shoe 1" in alarm["words"]


def test_the_monitor_off_writes_nothing(tmp_path: Path) -> None:
    session = deal_shoes(PROFILE, shoes=1, seed=4, packs=PACKS)
    run = Run(tmp_path, monitor=False)
    run.deal(session.messages)
    run.close()
    for kind in ("odds.exposure", "shoe.inventory", "shoe.integrity"):
        assert records(tmp_path, kind) == []
