"""Who may do what at the broker, with the shipped ACL on a real mosquitto: the pit page's own
login reads the tables' public topics (state, online, head) and nothing else, and writes
nothing; a table writes its own head and no other table's; the collector is no table of its
own name. And the page's `[pit]` login settings, which never touch the collector's."""

from __future__ import annotations

from pathlib import Path

import pytest

from hil.floor_servers import COLLECTOR, PIT
from shoe_daemon.floor.head import parse_head
from shoe_daemon.floor.link import FloorLink
from shoe_daemon.floor.topics import HEAD, ONLINE, RECORDS, RESEND, STATE, topic
from shoe_floor.config import CollectorConfigError
from shoe_floor.pit.config import parse_pit
from shoe_floor.pit.feed import Feed
from tests.floor.conftest import PREFIX, Listener, Raw, assert_exact, wait_for

NOT_AUTHORIZED = 0x87  # MQTT 5: the broker's ACL refused the publish


def login(broker, name: str):
    return broker.config(name, broker.secret(name).read_text().strip())


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_the_pits_login_reads_the_public_topics_and_no_record(make_table, collector,
                                                              database, broker):
    table = make_table("t1")
    collector()  # so that the table's records are taken, and go somewhere
    # Everything it might ask for, records included, and the whole tree.
    pit = Listener(login(broker, PIT), *(topic(PREFIX, "+", leaf) for leaf in
                                         (STATE, ONLINE, HEAD, RECORDS)), f"{PREFIX}/#")
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    link.start()
    try:
        table.commit(20)
        link.notify()
        link.publish_state(b'{"table": "t1", "state": "dealing"}')
        assert_exact(database, [table])
        wait_for(lambda: pit.on(STATE) and pit.on(ONLINE) and pit.on(HEAD), 20,
                 what="the public topics at the pit")
        assert pit.on(STATE)[-1] == b'{"table": "t1", "state": "dealing"}'
        assert pit.on(ONLINE)[-1] == b"online"
        assert parse_head(pit.on(HEAD)[0]) is not None
    finally:
        link.stop()
    wait_for(lambda: pit.on(ONLINE)[-1] == b"offline", 20, what="the table's offline")
    pit.close()
    # Twenty records went to the collector; not one to the page, though it subscribed:
    # mosquitto's ACL file does not refuse a SUBSCRIBE (its SUBACK grants it), it refuses
    # every record the subscription would deliver. A frame's cards never reach the page.
    assert pit.on(RECORDS) == []
    assert {t.rsplit("/", 1)[1] for t, _, _ in pit.messages} == {STATE, ONLINE, HEAD}


def test_the_pits_login_writes_nothing(broker):
    for name in (topic(PREFIX, "t1", leaf) for leaf in (RECORDS, STATE, ONLINE, HEAD, RESEND)):
        assert publish(login(broker, PIT), name) == NOT_AUTHORIZED, name
    for leaf in (RECORDS, STATE, ONLINE, HEAD):  # not even as a table of its own name
        assert publish(login(broker, PIT), topic(PREFIX, PIT, leaf)) == NOT_AUTHORIZED, leaf
    assert publish(login(broker, PIT), "elsewhere/t1") == NOT_AUTHORIZED


def test_a_table_writes_its_own_head_and_no_other_tables(make_table, broker):
    t1, t2 = make_table("t1"), make_table("t2")
    assert publish(t1.config, topic(PREFIX, "t1", HEAD)) < 0x80
    assert publish(t2.config, topic(PREFIX, "t1", HEAD)) == NOT_AUTHORIZED


def test_the_collector_is_no_table_of_its_own_name(broker):
    for leaf in (RECORDS, STATE, ONLINE, HEAD):
        assert publish(login(broker, COLLECTOR), topic(PREFIX, COLLECTOR, leaf)) == \
            NOT_AUTHORIZED, leaf


def publish(config, name: str) -> int:
    """One QoS 1 publish on a fresh connection (mosquitto drops a client it refuses)."""
    raw = Raw(config)
    try:
        return raw.publish(name, b'{"head": 1, "acked": 1, "wall_ns": 1}')
    finally:
        raw.close()


# The page's login settings.

@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "ca.pem").write_text("a CA\n")
    (tmp_path / "pit.password").write_text("pit-secret\n")
    return tmp_path


def settings(**pit: object) -> dict:
    return {"floor": {"broker": "mqtts://floor.example:8883", "username": "shoe-floor",
                      "password_file": "broker.password", "ca_file": "ca.pem",
                      "topic_prefix": "casino/floor"},
            "collector": {"database": "floor.sqlite3", "client_id": "collector-1",
                          "table_keys": "table-keys"},
            "pit": {"password_file": "pit.password", **pit}}


def test_the_page_has_its_own_login_and_never_reads_the_collectors(files):
    # broker.password does not exist here: the page does not need it (its unit cannot read it).
    config = parse_pit(settings(), files)
    broker = config.broker
    assert (broker.username, broker.password) == (PIT, "pit-secret")
    assert (broker.host, broker.port, broker.topic_prefix, broker.ca_file) == (
        "floor.example", 8883, "casino/floor", files / "ca.pem")
    assert config.database == str(files / "floor.sqlite3")
    assert config.client_id == "collector-1-pit"
    assert parse_pit(settings(username="pit-2"), files).broker.username == "pit-2"


@pytest.mark.parametrize(("pit", "named"), [
    ({"password_file": None}, "pit.password_file: missing (or pit.password, or a client "
                              "certificate); the page's own broker login, made with "
                              "scripts/floor-table-credentials shoe-floor-pit FILE"),
    ({"password_file": "nothing-here"}, "pit.password_file: "),
    ({"password": "x"}, "pit.password: give password or password_file"),
    ({"username": "shoe-floor"}, "pit.username: 'shoe-floor' is the collector's login"),
    ({"username": "pit/1"}, "pit.username: 'pit/1' contains"),
    ({"cert_file": "ca.pem"}, "pit.cert_file"),
    ({"colour": "red"}, "pit.colour: unknown setting"),
])
def test_a_wrong_page_login_is_named(files, pit, named):
    data = settings(**pit)
    data["pit"] = {k: v for k, v in data["pit"].items() if v is not None}
    with pytest.raises(CollectorConfigError) as e:
        parse_pit(data, files)
    assert str(e.value).startswith(named), str(e.value)


def test_the_page_checks_with_the_collectors_lodged_keys_or_its_own(files):
    assert parse_pit(settings(), files).table_keys == files / "table-keys"
    assert parse_pit(settings(table_keys="/srv/keys"), files).table_keys == Path("/srv/keys")
    data = settings()
    del data["collector"]["table_keys"]
    with pytest.raises(CollectorConfigError, match=r"^pit\.table_keys: missing .* the page "
                                                   "shows only what the tables signed"):
        parse_pit(data, files)
    with pytest.raises(CollectorConfigError, match=r"^pit\.table_keys: .* is not a directory"):
        Feed(parse_pit(settings(), files), lambda news: None)


def test_a_wrong_broker_setting_is_still_the_floors(files):
    data = settings()
    data["floor"]["broker"] = "mqtt://floor.example"
    with pytest.raises(CollectorConfigError, match=r"^floor\.broker: "):
        parse_pit(data, files)


FEED = "surveillance"


def with_feed(broker) -> None:
    """The shipped ACL with a read-only records feed (`shoe-floor acl --feed`), and its login;
    the broker reads both again."""
    from shoe_floor.broker import acl_text

    broker.files.acl_file.write_text(acl_text(PREFIX, COLLECTOR, PIT, (FEED,)))
    broker.login(FEED)  # the new login; mosquitto re-reads its files (SIGHUP)


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_a_read_only_feed_reads_every_tables_records_and_writes_nothing(make_table, collector,
                                                                         database, broker):
    # Issue 23: surveillance's own login, made by `shoe-floor acl --feed`.
    with_feed(broker)
    tables = [make_table("t1"), make_table("t2")]
    collector()
    feed = Listener(login(broker, FEED), *(topic(PREFIX, "+", leaf) for leaf in
                                           (RECORDS, STATE, ONLINE, HEAD)))
    links = [FloorLink(t.config, t.state_dir, poll=0.1) for t in tables]
    try:
        for table, link in zip(tables, links, strict=True):
            link.start()
            table.commit(10)
            link.notify()
        assert_exact(database, tables)  # the collector has them all as well
        wait_for(lambda: {t.rsplit("/", 2)[1] for t, _, _ in feed.messages
                          if t.endswith("/" + RECORDS)} == {"t1", "t2"}, 20,
                 what="both tables' records at the feed")
    finally:
        for link in links:
            link.stop()
        feed.close()
    for name in (topic(PREFIX, "t1", leaf) for leaf in (RECORDS, STATE, ONLINE, HEAD, RESEND)):
        assert publish(login(broker, FEED), name) == NOT_AUTHORIZED, name
    for leaf in (RECORDS, STATE, ONLINE, HEAD):  # not a table of its own name
        assert publish(login(broker, FEED), topic(PREFIX, FEED, leaf)) == NOT_AUTHORIZED, leaf


def test_broker_conf_takes_its_files_and_persistence_from_the_command(tmp_path, certs):
    # Issue 23: the five files and the queue's directory set on the command line, and a
    # real mosquitto serving TLS from that snippet alone.
    import socket
    import ssl
    import subprocess
    import sys

    from hil.floor_servers import MOSQUITTO, free_port

    data = tmp_path / "queue"
    data.mkdir()
    (tmp_path / "acl").write_text("")
    (tmp_path / "passwd").write_text("")
    port = free_port()
    made = subprocess.run(
        [sys.executable, "-m", "shoe_floor.cli", "broker-conf", "--port", str(port), "--bind",
         "127.0.0.1", "--ca-file", str(certs.ca), "--cert-file", str(certs.cert),
         "--key-file", str(certs.key), "--password-file", str(tmp_path / "passwd"),
         "--acl-file", str(tmp_path / "acl"), "--persistence-dir", str(data)],
        capture_output=True, text=True, check=True)
    conf = made.stdout
    for path in (certs.ca, certs.cert, certs.key, tmp_path / "passwd", tmp_path / "acl"):
        assert f" {path}\n" in conf, path
    assert f"persistence_location {data}/\n" in conf
    (tmp_path / "mosquitto.conf").write_text(
        conf + ("user root\n" if __import__("os").geteuid() == 0 else ""))
    broker = subprocess.Popen([MOSQUITTO, "-c", str(tmp_path / "mosquitto.conf")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        def tls_up() -> bool:
            context = ssl.create_default_context(cafile=str(certs.ca))
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=2) as raw, \
                        context.wrap_socket(raw, server_hostname="localhost"):
                    return True
            except OSError:
                assert broker.poll() is None, broker.stderr.read().decode()
                return False
        wait_for(tls_up, 20, what="mosquitto's TLS listener from the snippet")
    finally:
        broker.terminate()
        broker.wait(20)
    assert list(data.iterdir()), "mosquitto saved nothing in the persistence directory"
