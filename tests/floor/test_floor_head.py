"""The table's head report (shoe_daemon/floor/head.py): its ledger's last record and its
link's cursor on the retained `head` topic, said when the pit cannot infer them from the
records (first after each (re)connect, while a backlog lasts, at most once a second, once
more when it has drained) and as the table's heartbeat. The rule alone, then real links, a
real broker (read with the pit page's own login) and a real collector: a table keeping up,
its heartbeat, a network cut, and a broker whose ACL predates the topic."""

from __future__ import annotations

import dataclasses
import json
import signal
import time
from itertools import pairwise

import pytest

from hil.floor_servers import PIT, Proxy
from shoe_daemon.floor.head import Head, HeadReports, parse_head
from shoe_daemon.floor.link import FloorLink
from shoe_daemon.floor.signing import Stamp
from shoe_daemon.floor.topics import HEAD, acl_text, topic
from tests.floor.conftest import PREFIX, Listener, assert_exact, wait_for

# The rule.

def test_the_report_is_canonical_json_and_anything_else_is_not_one():
    head = Head(1234, 1200, 1_767_225_600_000_000_000, 5000, Stamp(7, 3), Stamp(7, 41))
    assert head.payload() == (b'{"acked":1200,"every_ms":5000,"head":1234,"online":[7,3],'
                              b'"state":[7,41],"wall_ns":1767225600000000000}')
    assert parse_head(head.payload()) == head and head.backlog == 34
    assert parse_head(Head(1, 1, 2).payload()) == Head(1, 1, 2, 5000, None, None)
    assert Head(5, 9, 0).backlog == 0  # a cursor ahead of a head read earlier
    good = {"head": 1, "acked": 0, "wall_ns": 0, "every_ms": 1000, "online": [1, 1],
            "state": None}
    assert parse_head(json.dumps(good).encode()) is not None
    for bad in (b"", b"online", b"[]", b'{"head": 1, "acked": 0}',
                *(json.dumps({**good, key: value}).encode() for key, value in (
                    ("head", -1), ("head", True), ("head", 1.5), ("every_ms", 0),
                    ("online", [1]), ("online", [1, -1]), ("state", "1 2"),
                    ("state", [1, 2.0]))),
                json.dumps({k: v for k, v in good.items() if k != "state"}).encode()):
        assert parse_head(bad) is None, bad


def test_a_table_keeping_up_reports_at_each_connect_and_then_its_heartbeat_alone():
    reports = HeadReports(every=1.0, beat=5.0)
    reports.reconnected()
    assert reports.due(5, 0, 0.0)  # first thing after a connect, whatever it says
    reports.sent(5, 0, 0.0)
    assert not reports.due(5, 5, 0.01)  # drained within a second of the last report ...
    assert reports.due(5, 5, 1.0)  # ... said once a second has passed: the pit sees zero
    reports.sent(5, 5, 1.0)
    now, said = 1.0, []
    for n in range(6, 7200):  # two hours of play: each commit acknowledged within 5 ms
        now += 1.0
        for head, acked, at in ((n, n - 1, now), (n, n, now + 0.005)):
            if reports.due(head, acked, at):
                reports.sent(head, acked, at)
                said.append((head - acked, at))
    # A heartbeat every five seconds, waiting for the record on its way: nothing more, and
    # never a backlog of one that is gone a millisecond later.
    times = [at for _, at in said]
    assert max(b - a for a, b in pairwise([1.0, *times])) <= 5.0 + 1.0  # and a look (1 s)
    assert all(b - a >= 5.0 - 1e-6 for a, b in pairwise(times))
    assert 7198 // 6 <= len(said) <= 7198 // 5
    assert all(backlog == 0 for backlog, _ in said)
    # A backlog that stays does not stop the heartbeat: a second late at most.
    stuck = HeadReports(every=1.0, beat=5.0)
    stuck.sent(10, 4, 0.0)
    assert not stuck.due(10, 4, 5.5) and stuck.due(10, 4, 6.0)
    reports.reconnected()  # the link came back: the next look reports, once
    assert reports.due(7199, 7199, now + 1)
    reports.sent(7199, 7199, now + 1)
    assert not reports.due(7199, 7199, now + 4.9)
    assert reports.due(7199, 7199, now + 6)


def test_a_lasting_backlog_is_reported_at_most_once_a_second_and_its_end_once():
    reports = HeadReports(every=1.0, beat=600.0)  # no heartbeat in these ten seconds
    reports.reconnected()
    reports.sent(100, 100, 0.0)
    assert not reports.due(300, 100, 10.0)  # behind since 10.0 (the broker refuses, say)
    assert not reports.due(310, 100, 10.5)
    assert reports.due(320, 100, 11.0)  # it has lasted a second
    reports.sent(320, 100, 11.0)
    assert not reports.due(330, 150, 11.5)  # changed, but within a second of the last
    assert reports.due(330, 200, 12.0)
    reports.sent(330, 200, 12.0)
    assert not reports.due(330, 200, 13.0)  # nothing changed: nothing said
    assert reports.due(330, 330, 13.1)  # drained: said, so the pit sees zero
    reports.sent(330, 330, 13.1)
    assert not reports.due(331, 330, 20.0)
    assert not reports.due(331, 331, 20.01)


def test_at_a_stop_a_backlog_left_or_one_drained_since_is_said_at_once():
    reports = HeadReports(every=1.0, beat=600.0)  # no heartbeat in these ten seconds
    reports.reconnected()
    reports.sent(10, 10, 0.0)
    assert not reports.due(12, 12, 0.2, final=True)  # kept up: the records said it all
    assert reports.due(15, 12, 0.3, final=True)  # a backlog left at the stop
    reports.sent(15, 12, 0.3)
    assert reports.due(15, 15, 0.4, final=True)  # the one reported has drained since
    reports.refused = True  # the broker's ACL predates the topic: nothing more
    reports.reconnected()
    assert not reports.due(20, 10, 9.0) and not reports.due(20, 10, 9.0, final=True)


# Real links and a real broker.

def heads_as_the_page(broker, table: str = "+", client_id: str | None = None) -> Listener:
    """The tables' heads, read with the page's own login."""
    return Listener(broker.config(PIT, broker.secret(PIT).read_text().strip()),
                    topic(PREFIX, table, HEAD), client_id=client_id)


def reports(listener: Listener) -> list[tuple[int, int]]:
    return [(h.head, h.acked) for h in map(parse_head, listener.on(HEAD)) if h is not None]


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_a_link_keeping_up_sends_two_reports_for_fifty_commits(make_table, collector,
                                                               database, broker):
    table = make_table("t1")
    table.commit(3)  # waiting before the link starts: the connect's report says so
    collector()
    pit = heads_as_the_page(broker)
    link = FloorLink(dataclasses.replace(table.config, heartbeat=600), table.state_dir,
                     poll=0.1)
    link.start()
    try:
        wait_for(lambda: reports(pit) == [(3, 0), (3, 3)], 20, what="the drained report")
        for _ in range(47):  # a croupier's pace, faster: every commit acknowledged at once
            table.commit(1)
            link.notify()
            time.sleep(0.04)
        assert_exact(database, [table])
        time.sleep(1.5)
        assert reports(pit) == [(3, 0), (3, 3)]  # nothing the records did not say
    finally:
        link.stop()
        pit.close()
    assert reports(pit) == [(3, 0), (3, 3)]  # a clean stop with nothing left: nothing more


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_after_a_cut_the_first_report_says_the_backlog_and_the_last_says_zero(
        make_table, collector, database, broker):
    proxy = Proxy(broker.port)
    table = make_table("t1")
    config = broker.config("t1", table.config.password, port=proxy.port)
    collector()
    pit = heads_as_the_page(broker)
    link = FloorLink(config, table.state_dir, poll=0.1)
    link.start()
    try:
        table.commit(5)
        link.notify()
        wait_for(lambda: link.acked == 5, 20, what="the first records acknowledged")
        proxy.cut()
        wait_for(lambda: not link.connected, 30, 0.2, "the link to see the cut")
        table.commit(300)  # a shoe's worth of play while the cable is out
        link.notify()
        wait_for(lambda: link.backlog() == 300, 10, what="the link to count them")
        before = len(reports(pit))
        proxy.restore()
        wait_for(lambda: reports(pit)[before:] and reports(pit)[-1] == (305, 305), 40, 0.1,
                 "the drained report")
        # First thing after the reconnect, before any record of the drain was acknowledged
        # (paho may first send again what the cut caught on the wire: an older report).
        fresh = [r for r in reports(pit)[before:] if r[0] == 305]
        assert fresh[0] == (305, 5) and fresh[-1] == (305, 305)
        assert_exact(database, [table])
        retained = heads_as_the_page(broker, "t1", client_id="late-pit")
        try:  # a page started later gets the last report, retained
            wait_for(lambda: retained.messages, 10, what="the retained report")
            _, payload, kept = retained.messages[0]
            assert kept and parse_head(payload) is not None
            assert (parse_head(payload).head, parse_head(payload).acked) == (305, 305)
            assert json.loads(payload)["wall_ns"] <= time.time_ns()
        finally:
            retained.close()
    finally:
        link.stop()
        pit.close()
        proxy.close()


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_a_broker_whose_acl_predates_the_head_topic_costs_one_reconnect(make_table, collector,
                                                                        database, broker):
    """mosquitto drops a client whose publish its ACL refuses: the link stops reporting its
    head for the rest of its run (a restart tries again), and its records go on."""
    old = "".join(line + "\n" for line in acl_text(PREFIX).splitlines()
                  if not line.endswith("/" + HEAD))
    broker.files.acl_file.write_text(old)
    broker.proc.send_signal(signal.SIGHUP)
    time.sleep(0.3)
    table = make_table("t1")
    collector()
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        wait_for(lambda: link.heads.refused, 20, what="the head refused")
        for _ in range(5):
            table.commit(4)
            link.notify()
        assert_exact(database, [table])
        assert link.connected
    finally:
        link.stop()


def test_the_heartbeat_goes_every_few_seconds_signed_and_stamped_forward(make_table, broker):
    table = make_table("t1")
    pit = heads_as_the_page(broker)
    link = FloorLink(dataclasses.replace(table.config, heartbeat=0.3), table.state_dir,
                     poll=0.05)
    link.start()
    try:
        start = time.monotonic()
        wait_for(lambda: len(pit.on(HEAD)) >= 8, 20, what="eight heartbeats")
        took = time.monotonic() - start
    finally:
        link.stop()
        pit.close()
    heads = [parse_head(p) for p in pit.on(HEAD)]
    assert all(h is not None and h.every_ms == 300 for h in heads)
    assert took >= 7 * 0.3  # never faster than the heartbeat
    assert [h.wall_ns for h in heads] == sorted(h.wall_ns for h in heads)
    assert len({h.online for h in heads}) == 1 and heads[0].online is not None
