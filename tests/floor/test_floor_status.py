"""The tables' status messages (`state`, `online`, `head`), signed at the table and checked at
the pit: the statement's bytes, checked with openssl as a third party would; the stamps, which
only move forward across restarts; the check the collector and the page share, each refusal
named; and the steps of a table short by its head. The parts alone; the real processes are
tests/attack/test_pit.py's."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from shoe_daemon.audit import keys
from shoe_daemon.floor.head import Head
from shoe_daemon.floor.signing import (
    SIGNATURE,
    STAMP,
    Signer,
    Stamp,
    read_status_signature,
    status_statement,
)
from shoe_daemon.floor.stamps import EPOCH, Stamps, last_epoch, next_epoch
from shoe_floor import chain
from shoe_floor.shortfall import ALARM, ASK, CLOSED, REPAIRED, noted
from shoe_floor.status import Accepted, Outdated, Refused, Repeated, StatusCheck
from shoe_floor.table_keys import LodgedKeys
from tests.floor.test_floor_signature import doc_block, two_tables

VIEW = b'{"table":"t1","state":"on_hold","hold":{"code":"WRONG_ORDER"}}'


@pytest.fixture
def floor(tmp_path: Path):
    """Two tables' keys lodged under table_keys/; each table's signer; the check."""
    root, signers = two_tables(tmp_path)
    return root, signers, StatusCheck(LodgedKeys(root))


def props(signer: Signer, leaf: str, stamp: Stamp, payload: bytes,
          table: str = "t1") -> list[tuple[str, str]]:
    return signer.sign_status(leaf, table, stamp, payload).properties()


# The statement.

def test_the_statement_is_exactly_these_bytes_one_tag_per_kind():
    digest = hashlib.sha256(VIEW).hexdigest().encode()
    assert status_statement("state", "t1", Stamp(17, 4), VIEW) == (
        b"shoe-floor state v1\n17\n4\n" + digest + b"\nt1")
    made = {status_statement(leaf, "t1", Stamp(17, 4), VIEW) for leaf in ("state", "online",
                                                                           "head")}
    assert len(made) == 3
    assert status_statement("head", "t1", Stamp(1, 23), b"x") != status_statement(
        "head", "t1", Stamp(12, 3), b"x")
    assert read_status_signature([("key-id", "ab" * 8), (STAMP, "17 4"),
                                  (SIGNATURE, "cd" * 64)]).stamp == Stamp(17, 4)
    for pairs, why in (([], "no key-id, no stamp, no signature property"),
                       ([("key-id", "ab" * 8), (STAMP, "17 04"), (SIGNATURE, "cd" * 64)],
                        "stamp '17 04' is not '<epoch> <n>'"),
                       ([("key-id", "ab" * 8), (STAMP, "17"), (SIGNATURE, "cd" * 64)],
                        "stamp '17' is not"),
                       ([("key-id", "ab"), (STAMP, "1 2"), (SIGNATURE, "cd" * 64)],
                        "key-id 'ab' is not 16 hex digits")):
        assert read_status_signature(pairs).startswith(why)


def test_a_third_party_checks_a_status_message_with_openssl(tmp_path, floor):
    root, signers, _ = floor
    stamp = Stamp(1_767_225_600_000_000_000, 42)
    pairs = dict(props(signers["t1"], "state", stamp, VIEW))
    (tmp_path / "payload.bin").write_bytes(VIEW)
    shutil.copy(next((root / "t1").glob("*.pub.pem")), tmp_path / "table.pub.pem")
    script = tmp_path / "check.sh"
    script.write_text(doc_block("status-signature-check"))
    env = {**os.environ, "TABLE": "t1", "LEAF": "state", "STAMP": pairs[STAMP],
           "SIG": pairs[SIGNATURE]}
    done = subprocess.run(["bash", "-e", str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0 and "Signature Verified Successfully" in done.stdout, (
        done.stdout + done.stderr)
    for changed in ({"LEAF": "head"}, {"STAMP": f"{stamp.epoch} 41"}, {"TABLE": "t2"}):
        bad = subprocess.run(["bash", "-e", str(script)], cwd=tmp_path,
                             env={**env, **changed}, capture_output=True, text=True)
        assert bad.returncode != 0, changed


# The stamps.

def test_the_epoch_moves_forward_at_every_start_whatever_the_clock(tmp_path, monkeypatch):
    first = next_epoch(tmp_path)
    assert last_epoch(tmp_path) == first and (tmp_path / EPOCH).read_text() == f"{first}\n"
    assert next_epoch(tmp_path) > first
    monkeypatch.setattr(time, "time_ns", lambda: 1000)  # a Pi booted with its clock behind
    behind = next_epoch(tmp_path)
    assert behind > first
    (tmp_path / EPOCH).unlink()  # a state directory begun anew: the clock again
    assert next_epoch(tmp_path) == 1000
    stamps = Stamps(7)
    assert [stamps.next() for _ in range(3)] == [Stamp(7, 1), Stamp(7, 2), Stamp(7, 3)]
    assert Stamp(7, 3) < Stamp(8, 1) < Stamp(8, 2)


# The check.

def test_a_tables_own_newest_message_is_accepted_and_the_same_again_repeated(floor):
    _, signers, check = floor
    pairs = props(signers["t1"], "state", Stamp(5, 3), VIEW)
    assert check.check("t1", "state", VIEW, pairs) == Accepted(Stamp(5, 3))
    assert check.check("t1", "state", VIEW, pairs) == Repeated(Stamp(5, 3))  # retained again
    head = Head(10, 10, 1, 5000, Stamp(5, 1), Stamp(5, 3)).payload()
    verdict = check.check("t1", "head", head, props(signers["t1"], "head", Stamp(5, 4), head))
    assert isinstance(verdict, Accepted) and verdict.head.state == Stamp(5, 3)
    assert check.head("t1") == verdict.head


@pytest.mark.parametrize(("make", "kind", "words"), [
    (lambda s: None, chain.UNSIGNED, "not signed (no key-id, no stamp, no signature property)"),
    (lambda s: props(s["t2"], "state", Stamp(5, 3), VIEW, table="t2"), chain.UNKNOWN_KEY,
     "that key is lodged for table 't2'"),
    (lambda s: props(s["t1"], "state", Stamp(5, 3), VIEW, table="t2"), chain.BAD_SIGNATURE,
     "signed for another kind or table"),
    (lambda s: props(s["t1"], "head", Stamp(5, 3), VIEW), chain.BAD_SIGNATURE,
     "does not verify"),  # a head's signature over the same bytes: not a state's
    (lambda s: props(s["t1"], "state", Stamp(5, 3), VIEW + b" "), chain.BAD_SIGNATURE,
     "changed after signing"),
])
def test_a_forged_state_is_refused_and_named(floor, make, kind, words):
    _, signers, check = floor
    verdict = check.check("t1", "state", VIEW, make(signers))
    assert isinstance(verdict, Refused) and verdict.kind == kind and words in verdict.detail
    assert verdict.detail.startswith("state message") and "not shown" in verdict.detail


def test_a_key_of_no_table_is_unknown(floor, tmp_path):
    _, _, check = floor
    keys.keygen(tmp_path / "forger")
    own = Signer(tmp_path / "forger")
    verdict = check.check("t1", "online", b"online", props(own, "online", Stamp(9, 1),
                                                           b"online"))
    assert verdict.kind == chain.UNKNOWN_KEY and "(lodged: " in verdict.detail
    assert verdict.key_id == own.key.key_id


def test_a_signed_message_not_of_its_kind_is_malformed(floor):
    _, signers, check = floor
    for leaf, payload in (("online", b"maybe"), ("head", b'{"head": 1}')):
        verdict = check.check("t1", leaf, payload, props(signers["t1"], leaf, Stamp(1, 1),
                                                         payload))
        assert verdict.kind == chain.MALFORMED, leaf


def test_an_old_genuine_message_replayed_is_stale(floor):
    """The table's own signatures, put back in the broker's place later: none passes for
    the current word, view or head."""
    _, signers, check = floor
    t1 = signers["t1"]
    held = props(t1, "state", Stamp(5, 3), VIEW)
    lifted = b'{"table":"t1","state":"ready"}'
    assert isinstance(check.check("t1", "state", VIEW, held), Accepted)
    assert isinstance(check.check("t1", "state", lifted, props(t1, "state", Stamp(5, 7),
                                                              lifted)), Accepted)
    verdict = check.check("t1", "state", VIEW, held)  # the held view again, the hold lifted
    assert verdict.kind == chain.STALE and "not newer than the state accepted before (5 7)" \
        in verdict.detail
    # The same as the broker's retained copy at a subscription: a broker restarted from an
    # older save keeps older copies; not shown, and nothing to alarm.
    assert check.check("t1", "state", VIEW, held, retained=True) == Outdated(
        Stamp(5, 3), "not newer than the state accepted before (5 7)")
    # Online words: the will of connection (5, 1) after the table came back as (6, 1).
    online = props(t1, "online", Stamp(6, 1), b"online")
    will = props(t1, "online", Stamp(5, 2), b"offline")
    assert isinstance(check.check("t1", "online", b"online", online), Accepted)
    assert check.check("t1", "online", b"offline", will).kind == chain.STALE
    # Same stamp, other bytes: not the message the table signed at that stamp.
    assert check.check("t1", "state", lifted + b" ", props(t1, "state", Stamp(5, 7),
                                                           lifted + b" ")).kind == chain.STALE
    # Heads: one older than the newest accepted is stale; one that names (6, 9) as the
    # current view makes an older view stale even for a check that never saw one (a page
    # started now), and an offline word older than its connection's online word.
    head = Head(50, 50, 1, 5000, Stamp(6, 1), Stamp(6, 9)).payload()
    assert isinstance(check.check("t1", "head", head, props(t1, "head", Stamp(6, 10), head)),
                      Accepted)
    older = Head(40, 40, 1, 5000, Stamp(6, 1), Stamp(6, 5)).payload()
    assert check.check("t1", "head", older, props(t1, "head", Stamp(6, 6), older)).kind == \
        chain.STALE
    fresh_check = StatusCheck(check.lodged)
    assert isinstance(fresh_check.check("t1", "head", head, props(t1, "head", Stamp(6, 10),
                                                                  head)), Accepted)
    old_view = props(t1, "state", Stamp(6, 8), lifted)
    verdict = fresh_check.check("t1", "state", lifted, old_view)
    assert verdict.kind == chain.STALE and "names as current (6 9)" in verdict.detail
    old_word = props(t1, "online", Stamp(5, 2), b"offline")
    assert fresh_check.check("t1", "online", b"offline", old_word).kind == chain.STALE


# A table short by its head.

def test_a_shortfall_is_asked_for_once_clear_alarmed_after_the_grace_and_said_when_whole():
    assert noted(None, acked=40, have=40, now=0.0, now_ns=0) is None  # nothing missing
    short = noted(None, acked=50, have=40, now=0.0, now_ns=7)
    assert (short.start, short.through, short.seen_ns) == (41, 50, 7)
    assert noted(short, acked=60, have=40, now=1.0, now_ns=8) is short  # its ask brings all
    assert short.due(40, 0.1, clear=False, grace=5, every=2) is None  # the group not clear
    assert short.due(40, 0.2, clear=True, grace=5, every=2) == ASK
    short.asked(0.2)
    assert short.due(40, 1.0, clear=True, grace=5, every=2) is None
    assert short.due(40, 2.2, clear=True, grace=5, every=2) == ASK  # asked again
    short.asked(2.2)
    assert short.due(44, 5.2, clear=True, grace=5, every=2) == ALARM
    short.alarmed = True  # alarmed once; asked on, every `every`
    assert short.due(44, 5.3, clear=True, grace=5, every=2) == ASK
    short.asked(5.3)
    assert short.due(44, 30.0, clear=True, grace=5, every=2) == ASK
    assert short.due(50, 9.0, clear=True, grace=5, every=2) == REPAIRED
    # Records on their way, written before the group is clear: closed unasked, unsaid.
    passing = noted(None, acked=50, have=40, now=0.0, now_ns=0)
    assert passing.due(50, 0.1, clear=False, grace=5, every=2) == CLOSED
