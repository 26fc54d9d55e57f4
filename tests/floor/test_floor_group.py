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


def test_an_idle_member_is_clear_up_to_a_moment_ago():
    c = Clearance(receive_maximum=64, refill=0.1)
    c.look(10.0, 100 * S, held=0, arrived=0, written=0)
    assert c.clear_ns == 0  # not connected: the broker may be about to send anything
    c.connected(10.0)
    c.look(10.05, 100 * S, held=0, arrived=0, written=0)
    assert c.clear_ns == 0  # connected too briefly for the broker to have sent its queue
    c.look(10.2, 101 * S, held=0, arrived=0, written=0)
    assert c.clear_ns == 101 * S - S // 10


def test_a_member_with_a_full_window_is_clear_only_where_its_writing_reached():
    c = Clearance(receive_maximum=4, refill=0.1)
    c.connected(0.0)
    c.look(1.0, 1 * S, held=0, arrived=0, written=0)
    assert c.clear_ns == S - S // 10
    # A drain: the window stays full (the broker has more queued); nothing is promised.
    for n in range(1, 20):
        c.look(1.0 + n * 0.05, (1 + n) * S, held=4, arrived=4 + n, written=n)
        c.acked(1.0 + n * 0.05, 1, n + 1)
    assert c.clear_ns == S - S // 10
    # The queue runs dry: 2 held, no acknowledgement for more than `refill`: the broker has
    # sent it all; that moment is clear once those two are written.
    c.look(3.0, 30 * S, held=2, arrived=30, written=28)
    assert c.clear_ns == S - S // 10
    c.acked(3.01, 2, 30)
    assert c.clear_ns == 30 * S - S // 10


def test_recent_acknowledgements_count_as_held():
    """Just acknowledged, the broker may be refilling the window: no promise yet."""
    c = Clearance(receive_maximum=4, refill=0.1)
    c.connected(0.0)
    c.acked(1.0, 3, 3)
    c.look(1.05, 5 * S, held=1, arrived=4, written=3)
    c.acked(1.06, 1, 4)
    assert c.clear_ns == 0
    c.look(1.2, 6 * S, held=0, arrived=4, written=4)
    assert c.clear_ns == 6 * S - S // 10


def test_a_reconnection_forgets_what_was_promised_about_messages_held():
    c = Clearance(receive_maximum=8, refill=0.1)
    c.connected(0.0)
    c.look(1.0, 5 * S, held=2, arrived=2, written=0)
    c.disconnected()
    c.acked(1.1, 2, 2)
    assert c.clear_ns == 0


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
