"""The floor's parts on their own: settings refused with the setting named, the chain
check's decisions, the cursor, the shipped broker files, the credentials script, and a link
whose broker is away."""

from __future__ import annotations

import grp
import os
import stat
import subprocess
import tomllib
from pathlib import Path

import pytest

from hil.floor_servers import CREDENTIALS, ROOT, free_port, wait_for
from shoe_daemon.audit import keys
from shoe_daemon.audit.ledger import GENESIS, PRUNED, Ledger, Record, chain_hash
from shoe_daemon.floor import (
    FloorConfig,
    FloorConfigError,
    FloorLink,
    acked_index,
    backlog,
    parse_floor,
)
from shoe_daemon.floor.cursor import Cursor, write_cursor
from shoe_daemon.floor.outbox import message, pack
from shoe_daemon.floor.topics import table_of
from shoe_floor import chain
from shoe_floor.broker import acl_text, broker_conf
from shoe_floor.config import CollectorConfigError, parse


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "ca.pem").write_text("not checked here\n")
    (tmp_path / "secret").write_text("s3cret\n")
    return tmp_path


def floor(**changes: object) -> dict:
    base = {"broker": "mqtts://pit.example:8883", "username": "table-7",
            "password_file": "secret", "ca_file": "ca.pem"}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def test_floor_settings(files):
    config = parse_floor(floor(topic_prefix="casino/floor/"), files)
    assert config is not None
    assert (config.host, config.port, config.table, config.password) == (
        "pit.example", 8883, "table-7", "s3cret")
    assert config.topic_prefix == "casino/floor" and config.ca_file == files / "ca.pem"
    assert parse_floor(None) is None


@pytest.mark.parametrize(("changes", "named"), [
    ({"broker": None}, "floor.broker: missing"),
    ({"broker": "mqtt://pit:1883"}, "floor.broker"),
    ({"broker": "mqtts://user:pw@pit"}, "floor.broker"),
    ({"username": "t/1"}, "floor.username"),
    ({"password": "x"}, "floor.password: give password or password_file"),
    ({"password_file": None}, "floor.password_file: missing"),
    ({"password_file": "nothing-here"}, "floor.password_file"),
    ({"ca_file": None}, "floor.ca_file: missing"),
    ({"cert_file": "ca.pem"}, "floor.cert_file"),
    ({"topic_prefix": "a/+/b"}, "floor.topic_prefix"),
    ({"keepalive": 0}, "floor.keepalive"),
    ({"colour": "red"}, "floor.colour: unknown setting"),
])
def test_a_wrong_floor_setting_is_named(files, changes, named):
    with pytest.raises(FloorConfigError, match=named.replace("+", r"\+")):
        parse_floor(floor(**changes), files)


@pytest.mark.parametrize(("collector", "named"), [
    ({}, "collector.database: missing"),
    ({"database": "x.db", "batch_size": 0}, "collector.batch_size"),
    ({"database": "x.db", "gap_grace": "soon"}, "collector.gap_grace"),
    ({"database": "x.db", "group": "a/b"}, "collector.group"),
    ({"database": "x.db", "speed": 1}, "collector.speed: unknown"),
    ({"database": "x.db"}, "collector.table_keys: missing"),
])
def test_a_wrong_collector_setting_is_named(files, collector, named):
    with pytest.raises(CollectorConfigError, match=named):
        parse({"floor": floor(), "collector": collector}, files)


def test_collector_settings(files):
    config = parse({"floor": floor(), "collector": {"database": "floor.sqlite3",
                                                    "table_keys": "table-keys"}}, files)
    assert config.database == str(files / "floor.sqlite3")
    assert config.client_id == "table-7" and config.group == "shoe-floor"
    assert config.table_keys == files / "table-keys"
    pg = parse({"floor": floor(), "collector": {"database": "postgresql:///floor",
                                                "table_keys": "/etc/shoe-floor/table-keys"}},
               files)
    assert pg.database == "postgresql:///floor"


# The chain check.

def chained(count: int, prev: str = GENESIS, start: int = 1) -> list[Record]:
    out = []
    for idx in range(start, start + count):
        partial = Record(idx, idx, idx, "boot", "frame", {"n": idx}, prev, "", "mac")
        record = Record(idx, idx, idx, "boot", "frame", {"n": idx}, prev,
                        chain_hash(prev, partial.content()), "mac")
        out.append(record)
        prev = record.hash
    return out


def test_records_out_of_order_are_taken_in_chain_order():
    records = chained(6)
    result = chain.advance(None, [records[3], records[0], records[2], records[1]])
    assert result.accepted == records[:4] and result.missing is None
    result = chain.advance(chain.Tip(2, records[1].hash), [records[4], records[5]])
    assert result.accepted == [] and result.waiting == records[4:] and result.missing == 3


def test_a_record_that_does_not_link_is_refused_and_asked_for_again():
    records = chained(3)
    stray = chained(1, prev="f" * 64, start=2)[0]
    result = chain.advance(chain.Tip(1, records[0].hash), [stray, records[2]])
    assert [(r.kind, r.record) for r in result.rejected] == [(chain.BROKEN, stray)]
    assert result.accepted == [] and result.stuck and result.missing == 2


def test_two_records_that_both_link_are_a_conflict():
    records = chained(2)
    body = Record(2, 2, 2, "boot", "frame", {"n": "forged"}, records[0].hash, "", "mac")
    forged = Record(2, 2, 2, "boot", "frame", body.body, body.prev,
                    chain_hash(body.prev, body.content()), "mac")
    result = chain.advance(chain.Tip(1, records[0].hash), [records[1], forged])
    assert result.accepted == [records[1]]
    assert [r.kind for r in result.rejected] == [chain.CONFLICT]


def test_an_edited_record_fails_its_own_hash():
    record = chained(1)[0]
    edited = Record(1, 1, 1, "boot", "frame", {"n": 2}, record.prev, record.hash, "mac")
    assert chain.self_check(record) is None
    assert "edited" in (chain.self_check(edited) or "")
    assert isinstance(chain.parse_message(b'{"idx": 1}')[0], str)
    assert isinstance(chain.parse_message(b'[]')[0], str)


def test_a_backlog_packs_consecutive_records_in_one_message_under_its_byte_limit():
    records = chained(30)
    one, body = pack(records[:1], 10)
    assert one == records[:1] and body == message(records[0])  # one record: its object
    assert chain.parse_message(body) == records[:1]
    limit = 5 * len(message(records[0]))
    sent, body = pack(records, limit)
    assert 1 < len(sent) < 30 and sent == records[:len(sent)] and len(body) <= limit
    assert chain.parse_message(body) == sent
    assert len(pack(records, 10**6)[0]) == 30
    assert len(pack(records, 10)[0]) == 1  # a record larger than the limit still goes
    assert [isinstance(r, str) for r in chain.parse_message(b'[' + message(records[0])
                                                            + b', {"idx": 2}]')] == [False, True]
    assert all(isinstance(chain.parse_message(p)[0], str) for p in (b"[]", b"{", b"[1]"))


def test_a_chain_starts_at_one_or_where_a_pruned_record_says():
    records = chained(12)
    tail = records[10:]
    assert chain.advance(None, tail).accepted == [] and chain.advance(None, tail).missing == 1
    pruned_body = {"first_idx": 11, "first_prev": records[9].hash}
    partial = Record(13, 1, 1, "boot", PRUNED, pruned_body, records[11].hash, "", "mac")
    pruned = Record(13, 1, 1, "boot", PRUNED, pruned_body, partial.prev,
                    chain_hash(partial.prev, partial.content()), "mac")
    assert chain.advance(None, [*tail, pruned]).accepted == [*tail, pruned]


# The cursor, the backlog, the link with no broker.

def test_the_cursor_and_the_backlog(tmp_path):
    ledger = Ledger(tmp_path)
    ledger.append_many(("note", {"n": n}) for n in range(5))
    assert acked_index(tmp_path) == 0 and backlog(tmp_path) == 5
    write_cursor(tmp_path, Cursor(3, next(ledger.records(3)).hash))
    assert acked_index(tmp_path) == 3 and backlog(tmp_path) == 2
    write_cursor(tmp_path, Cursor(5, next(ledger.records(5)).hash))
    assert backlog(tmp_path) == 0
    ledger.close()


def nowhere(files: Path, certs) -> FloorConfig:
    """A link's settings for a port nothing listens on."""
    config = parse_floor(floor(broker=f"mqtts://127.0.0.1:{free_port()}",
                               ca_file=str(certs.ca)), files)
    assert config is not None
    return config


def test_an_unusable_ca_file_is_named(files):
    with pytest.raises(FloorConfigError, match=r"floor\.ca_file"):
        FloorLink(parse_floor(floor(), files), files)


def test_a_link_with_no_broker_keeps_the_table_going(tmp_path, files, certs):
    """Nothing listens on the port: commits go on, the backlog counts them, nothing is
    acknowledged, and stopping the link does not wait for a broker."""
    config = nowhere(files, certs)
    assert config is not None
    ledger = Ledger(tmp_path / "state")
    keys.keygen(tmp_path / "state")
    link = FloorLink(config, tmp_path / "state", poll=0.05)
    link.start()
    for n in range(20):
        ledger.append("note", {"n": n})
        link.notify()
        link.publish_state(b"{}")
    wait_for(lambda: link.backlog() == 20, what="the backlog to count every commit")
    assert not link.connected and link.acked == 0
    link.stop()
    assert acked_index(tmp_path / "state") == 0
    ledger.close()


def test_a_cursor_from_another_ledger_is_not_trusted(tmp_path, files, certs):
    config = nowhere(files, certs)
    assert config is not None
    ledger = Ledger(tmp_path / "state")
    ledger.append_many(("note", {"n": n}) for n in range(10))
    write_cursor(tmp_path / "state", Cursor(5, "0" * 64))  # index 5 of some other ledger
    keys.keygen(tmp_path / "state")
    link = FloorLink(config, tmp_path / "state", poll=0.05)
    link.start()
    assert link.acked == 0
    link.stop()
    ledger.close()


# The shipped broker files and the credentials script.

def test_the_shipped_broker_files_are_what_the_code_makes():
    shipped = ROOT / "systemd" / "mosquitto"
    assert (shipped / "shoe-floor.acl").read_text() == acl_text()
    assert (shipped / "shoe-floor.conf").read_text() == broker_conf()


def test_topics_name_their_table():
    assert table_of("shoe/floor", "shoe/floor/t-1/records") == "t-1"
    assert table_of("shoe/floor", "shoe/floor/records") is None
    assert table_of("shoe/floor", "other/t-1/records") is None


def test_the_credentials_script(tmp_path):
    passwd, secret = tmp_path / "passwd", tmp_path / "t1.secret"
    subprocess.run([str(CREDENTIALS), "--passwd", str(passwd), "t1", str(secret)], check=True,
                   capture_output=True)
    password = secret.read_text().strip()
    assert len(password) >= 32 and stat.S_IMODE(secret.stat().st_mode) == 0o600
    line = passwd.read_text().strip()
    assert line.startswith("t1:$") and password not in line
    if os.geteuid() == 0:  # as on the broker's host: Debian's mosquitto reads it as mosquitto
        assert stat.S_IMODE(passwd.stat().st_mode) == 0o640
        assert grp.getgrgid(passwd.stat().st_gid).gr_name == "mosquitto"
    bad = subprocess.run([str(CREDENTIALS), "--passwd", str(passwd), "t/2", str(secret)],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "no / + #" in bad.stderr
    assert tomllib.loads(f'password_file = "{secret}"')
