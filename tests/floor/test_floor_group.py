"""Collectors sharing one group: a gap is raised only when no other live member can still
hold its records. The clear time on its own (times given, no broker), then end to end: a
member stopped in the middle of a drain (SIGSTOP: its share waits in its queue, as when it
falls behind) makes the other wait, not alarm; a record really missing is still named and
repaired by the table's resend."""

from __future__ import annotations

import signal
import time

from shoe_daemon.floor.link import FloorLink
from shoe_daemon.floor.outbox import message
from shoe_daemon.floor.topics import RECORDS, topic
from shoe_floor.chain import GAP
from shoe_floor.group import Clearance, Member, behind
from shoe_floor.store import Store
from tests.floor.conftest import PREFIX, Raw, assert_exact, kill, spawn, wait_for

S = 1_000_000_000  # ns


def test_an_idle_member_is_clear_up_to_its_last_barrier():
    c = Clearance(receive_maximum=64)
    assert c.clear_ns == 0  # nothing known yet: the others wait for it
    c.sent(mid=7, wall_ns=100 * S, acked=0)
    assert c.waiting
    c.answered(mid=7, arrived=0, written=0)
    assert c.clear_ns == 100 * S and not c.waiting
    c.sent(mid=8, wall_ns=101 * S, acked=0)
    c.answered(mid=99, arrived=0, written=0)  # another barrier's answer (a past connection)
    assert c.waiting and c.clear_ns == 100 * S


def test_a_full_window_promises_nothing_a_window_with_room_promises_its_messages():
    c = Clearance(receive_maximum=4)
    # A drain: 4 in flight when the broker answered: it may hold more queued for this member.
    c.sent(mid=1, wall_ns=10 * S, acked=6)
    c.answered(mid=1, arrived=10, written=6)
    assert c.clear_ns == 0
    # Later 3 in flight when answered (fewer than 4): the broker had nothing more queued, so
    # every message it gave this member before 20 s is among the first 13 ...
    c.sent(mid=2, wall_ns=20 * S, acked=10)
    c.answered(mid=2, arrived=13, written=11)
    assert c.clear_ns == 0
    c.written(12)
    assert c.clear_ns == 0
    c.written(13)  # ... and once those are written, 20 s is clear
    assert c.clear_ns == 20 * S


def test_a_reconnection_forgets_what_was_promised():
    c = Clearance(receive_maximum=8)
    c.sent(mid=1, wall_ns=5 * S, acked=0)
    c.answered(mid=1, arrived=2, written=0)
    c.reconnected()
    c.written(2)
    assert c.clear_ns == 0
    c.sent(mid=2, wall_ns=6 * S, acked=2)
    c.reconnected()
    assert not c.waiting


def test_behind_ignores_a_silent_member_and_allows_for_skew():
    members = [Member("a", at=100 * S, clear=95 * S), Member("b", at=100 * S, clear=99 * S),
               Member("gone", at=80 * S, clear=10 * S)]
    late = behind(members, seen_ns=99 * S, now_ns=100 * S, stale_ns=10 * S, skew_ns=S // 4)
    assert [m.client_id for m in late] == ["a", "b"]
    assert behind(members, seen_ns=90 * S, now_ns=100 * S, stale_ns=10 * S, skew_ns=0) == []


def members_written(database: str) -> int:
    store = Store(database)
    try:
        return len(store.members("shoe-floor", "nobody"))
    finally:
        store.close()


def test_a_member_that_falls_behind_is_waited_for_not_alarmed(make_table, collector,
                                                                collector_toml, database):
    """collector-2 (its own process) stops while a backlog is shared out: its share waits
    in its queue at the broker, and collector-1's records of every table wait for it in
    `pending`, far past `gap_grace`. No gap is raised nor resend asked; when collector-2
    goes on, the chains close, and the store equals the ledgers."""
    tables = [make_table(f"t{i}") for i in range(3)]
    first = collector("collector-1")
    second = spawn("-m", "shoe_floor.cli", "collect", "--config",
                   str(collector_toml("collector-2")))
    links = [FloorLink(t.config, t.state_dir, poll=0.1, batch=50) for t in tables]
    try:
        wait_for(lambda: members_written(database) == 2, 30, 0.1, "both members to say so")
        second.send_signal(signal.SIGSTOP)
        for t in tables:
            t.commit(1000)
        for link in links:
            link.start()
        wait_for(lambda: all(link.backlog() == 0 for link in links), 60, 0.1,
                 "the broker to take every record")
        wait_for(lambda: first.received == 1500 and first.gaps, 30, 0.1,
                 "collector-1 to hold its share, waiting")
        time.sleep(3.0)  # ten times gap_grace
        assert Store(database).alarms() == []
        assert first.gaps  # it does see the gaps: it waits for collector-2
        second.send_signal(signal.SIGCONT)
        store = assert_exact(database, tables)
        assert store.alarms() == []
    finally:
        second.send_signal(signal.SIGCONT)
        kill(second)
        for link in links:
            link.stop()


def test_a_record_really_missing_is_still_a_gap_with_two_members(make_table, collector,
                                                                  database):
    """One record lost between the table and the broker, the others shared out between two
    members: once both have written their share, the gap is named (once) and the table's
    resend repairs it."""
    table = make_table("t1")
    table.commit(12)
    collector("collector-1")
    collector("collector-2")
    lost = Raw(table.config, table.state_dir)
    try:
        for record in table.records():
            if record.idx != 5:
                assert lost.publish(topic(PREFIX, "t1", RECORDS), message(record)) == 0
        got = wait_for(lambda: Store(database).alarms(), what="the gap's alarm")
        time.sleep(1.5)  # both members past their grace: still one alarm
        got = Store(database).alarms()
        assert [(a["kind"], a["idx"]) for a in got] == [(GAP, 5)]
    finally:
        lost.close()
    from shoe_daemon.floor.cursor import Cursor, write_cursor

    write_cursor(table.state_dir, Cursor(12, table.records()[11].hash))
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        assert_exact(database, [table])
        assert [(a["kind"], a["idx"]) for a in Store(database).alarms()] == [(GAP, 5)]
    finally:
        link.stop()


def test_a_gap_waits_for_every_member_this_one_included(tmp_path, certs):
    """The member that notices a gap may see it through records another member left in
    `pending`: the missing ones can be in its own queue. It waits for its own clear time
    as for the others' (read from the store), and for no member gone silent."""
    from shoe_floor.collector import Collector, Gap
    from shoe_floor.config import parse

    (tmp_path / "keys").mkdir()
    config = parse({"floor": {"broker": "mqtts://127.0.0.1:1", "username": "shoe-floor",
                              "password": "x", "ca_file": str(certs.ca)},
                    "collector": {"database": "floor.sqlite3", "client_id": "c1",
                                  "table_keys": "keys"}}, tmp_path)
    c = Collector(config)
    try:
        now = time.time_ns()
        gap = Gap(missing=5, seen=0.0, seen_ns=now - 2 * S)
        store = Store(config.database)
        with store.batch():
            store.set_member("c2", "shoe-floor", now, now - 3 * S)  # behind the gap
            store.set_member("c3", "shoe-floor", now - 60 * S, 0)  # silent: gone
            store.set_member("x9", "another-group", now, 0)
        assert c._members_behind(gap.seen_ns) == ["c1", "c2"]
        c.clearance.clear_ns = now - S
        c._members_at = float("-inf")
        assert c._members_behind(gap.seen_ns) == ["c2"]
        with store.batch():
            store.set_member("c2", "shoe-floor", now, now)
        c._members_at = float("-inf")
        assert c._members_behind(gap.seen_ns) == []
        store.close()
    finally:
        c.stop()
