"""The records message's signature on its own: the statement's exact bytes (checked with
openssl as a third party would), the link's signer and its rotation, the lodged keys at the
pit, and the collector's check of a message, each refusal named. Real keys, real chained
records; no broker (tests/floor/test_floor_signed.py has them end to end)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hil.floor_servers import ROOT
from shoe_daemon.audit import keys
from shoe_daemon.audit.ledger import GENESIS, Record, chain_hash
from shoe_daemon.floor import FloorConfigError
from shoe_daemon.floor.outbox import message, pack
from shoe_daemon.floor.signing import (
    SIGNATURE,
    SIGNED,
    Signature,
    Signer,
    read_signature,
    statement,
)
from shoe_floor import chain
from shoe_floor.names import directory_for, legacy_directory_for
from shoe_floor.signature import Refusal, check_message, lodged_key
from shoe_floor.table_keys import LodgedKeys, LodgeRefused, lodge, old_directories


def chained(count: int, prev: str = GENESIS, start: int = 1) -> list[Record]:
    out = []
    for idx in range(start, start + count):
        partial = Record(idx, idx, idx, "boot", "frame", {"n": idx}, prev, "", "mac")
        record = Record(idx, idx, idx, "boot", "frame", {"n": idx}, prev,
                        chain_hash(prev, partial.content()), "mac")
        out.append(record)
        prev = record.hash
    return out


def forged(record: Record, **changes: object) -> Record:
    """A copy with fields changed and its hash made again (self-consistent, not genuine)."""
    fields = {**record.as_dict(), **changes}
    fake = Record(fields["idx"], fields["wall_ns"], fields["mono_ns"], fields["boot"],
                  fields["kind"], fields["body"], fields["prev"], "", fields["mac"])
    return Record(fake.idx, fake.wall_ns, fake.mono_ns, fake.boot, fake.kind, fake.body,
                  fake.prev, chain_hash(fake.prev, fake.content()), fake.mac)


def two_tables(tmp_path: Path) -> tuple[Path, dict[str, Signer]]:
    """Two tables' state directories with keys, lodged under table_keys/: the directory,
    and each table's signer."""
    root = tmp_path / "table-keys"
    root.mkdir()
    made = {}
    for name in ("t1", "t2"):
        state = tmp_path / name
        keys.keygen(state)
        lodge(root, name, keys.load_current(state).public_pem, name)
        made[name] = Signer(state)
    return root, made


@pytest.fixture
def floor(tmp_path: Path):
    return two_tables(tmp_path)


def check(root: Path, table: str, records: list, props) -> Refusal | Signature:
    return check_message(table, records, props, LodgedKeys(root))


def signed(signer: Signer, table: str, records: list[Record]) -> list[tuple[str, str]]:
    return signer.sign(table, records[-1].idx, records[-1].hash).properties()


# The statement.

def test_the_statement_is_exactly_these_bytes():
    digest = "ab" * 32
    assert statement("table-7", 12, digest) == (
        b"shoe-floor records v1\n12\n" + digest.encode() + b"\ntable-7")
    # The table goes last, unterminated: a name holding a newline cannot pass for another.
    assert statement("a\n1", 2, digest) != statement("a", 2, digest)
    assert len({statement("t", 1, digest), statement("t", 11, digest),
                statement("t1", 1, digest)}) == 3


def test_a_third_party_checks_a_signature_with_openssl(tmp_path, floor):
    """The documented check: the statement rebuilt with printf from the properties, the
    signature from its hex, openssl's Ed25519 verify against the lodged key, and the key id
    as docs/audit.md computes it."""
    root, made = floor
    records = chained(3)
    props = dict(signed(made["t1"], "t1", records))
    idx, digest = props[SIGNED].split(" ")
    lodged = next((root / "t1").glob("*.pub.pem"))
    shutil.copy(lodged, tmp_path / "table.pub.pem")
    script = tmp_path / "check.sh"
    script.write_text(doc_block("record-signature-check"))
    env = {**os.environ, "TABLE": "t1", "IDX": idx, "HASH": digest, "SIG": props[SIGNATURE]}
    done = subprocess.run(["bash", "-e", str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Signature Verified Successfully" in done.stdout
    assert made["t1"].key.key_id in done.stdout
    env["HASH"] = records[0].hash  # the same signature over another record: refused
    bad = subprocess.run(["bash", "-e", str(script)], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "Signature Verification Failure" in bad.stdout + bad.stderr


def doc_block(name: str) -> str:
    text = (ROOT / "docs" / "floor.md").read_text()
    body = text.split(f"<!-- {name} -->", 1)[1].split(f"<!-- /{name} -->", 1)[0]
    return body.split("```sh\n", 1)[1].split("```", 1)[0]


def test_the_documented_python_check(tmp_path, floor):
    """docs/floor.md's few lines of Python, run on a real message and its properties."""
    root, made = floor
    records = chained(4)
    _, payload = pack(records, 64 * 1024)
    props = dict(signed(made["t1"], "t1", records))
    (tmp_path / "message.json").write_bytes(payload)
    shutil.copy(next((root / "t1").glob("*.pub.pem")), tmp_path / "table.pub.pem")
    text = (ROOT / "docs" / "floor.md").read_text()
    code = text.split("<!-- record-signature-python -->", 1)[1].split("```python\n", 1)[1]
    code = code.split("```", 1)[0]
    env = {**os.environ, "TABLE": "t1", "SIGNED": props[SIGNED], "SIG": props[SIGNATURE]}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "records 1..4 of t1: signed by the table's key" in done.stdout
    (tmp_path / "message.json").write_bytes(payload.replace(b'"n":2', b'"n":9'))
    changed = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                             capture_output=True, text=True)
    assert changed.returncode != 0


# Reading the properties.

@pytest.mark.parametrize(("props", "why"), [
    (None, "no key-id, no signed, no signature property"),
    ([("key-id", "0" * 16), ("signed", "1 " + "a" * 64)], "no signature property"),
    ([("key-id", "xyz"), ("signed", "1 " + "a" * 64), ("signature", "0" * 128)],
     "key-id 'xyz' is not 16 hex digits"),
    ([("key-id", "0" * 16), ("signed", "01 " + "a" * 64), ("signature", "0" * 128)],
     "is not '<idx> <hash>'"),
    ([("key-id", "0" * 16), ("signed", "1 " + "A" * 64), ("signature", "0" * 128)],
     "is not '<idx> <hash>'"),
    ([("key-id", "0" * 16), ("signed", "1 " + "a" * 64), ("signature", "0" * 127)],
     "signature is not 128 hex digits"),
])
def test_properties_that_are_not_a_signature_say_why(props, why):
    got = read_signature(props)
    assert isinstance(got, str) and why in got


def test_properties_round_trip():
    sig = Signature("0123456789abcdef", 7, "c" * 64, bytes(range(64)))
    assert read_signature([("other", "x"), *sig.properties()]) == sig


# The link's signer.

def test_no_key_is_a_floor_setting_error_naming_the_command(tmp_path):
    with pytest.raises(FloorConfigError, match=r"^floor: .*shoe-daemon audit keygen "
                                               rf"--state-dir {tmp_path}"):
        Signer(tmp_path)


def test_the_signer_takes_a_rotated_key_without_a_restart(tmp_path):
    first = keys.keygen(tmp_path)
    signer = Signer(tmp_path)
    assert signer.refresh() is None and signer.key.key_id == first.key_id
    os.utime(keys.keys_dir(tmp_path) / keys.CURRENT, ns=(1, 1))  # touched, same key
    assert signer.refresh() is None and signer.key.key_id == first.key_id
    second = keys.rotate(tmp_path, now=_later())
    assert signer.refresh() == second.key_id
    record = chained(1)[0]
    sig = signer.sign("t1", record.idx, record.hash)
    assert sig.key_id == second.key_id
    assert keys.verify_signature(second.private.public_key(), sig.signature,
                                 statement("t1", record.idx, record.hash))
    (keys.keys_dir(tmp_path) / keys.CURRENT).write_text("table-20991231T000000Z\n")
    with pytest.raises(FloorConfigError, match="table-20991231T000000Z"):
        signer.refresh()
    assert signer.key.key_id == second.key_id  # the last good key signs on
    assert signer.refresh() is None  # said once; tried again when the file changes


def _later():
    from datetime import UTC, datetime, timedelta

    return datetime.now(UTC) + timedelta(seconds=5)


# The check of a message.

def test_the_tables_own_messages_pass(floor):
    """Passed, the check gives the signature that vouches for the message: the store keeps
    it, what proves the message's records at export."""
    root, made = floor
    records = chained(5)
    for part in (records, records[3:4]):
        props = signed(made["t1"], "t1", part)
        assert check(root, "t1", part, props) == read_signature(props)
        assert read_signature(props).idx == part[-1].idx


def test_unsigned_is_refused_named(floor):
    root, _ = floor
    records = chained(3)
    why = check(root, "t1", records, None)
    assert why is not None and why.kind == chain.UNSIGNED and why.idx == 3
    assert why.detail.startswith("records 1..3 (3 in one message): not signed")


def test_another_tables_key_is_named(floor):
    root, made = floor
    records = chained(2)
    why = check(root, "t1", records, signed(made["t2"], "t1", records))
    assert why is not None and why.kind == chain.UNKNOWN_KEY and why.idx == 2
    assert f"signed with key {made['t2'].key.key_id}, which is not lodged for t1" in why.detail
    assert f"(lodged: {made['t1'].key.key_id})" in why.detail
    assert "that key is lodged for table 't2'" in why.detail
    assert why.key_id == made["t2"].key.key_id


def test_a_key_nobody_lodged(tmp_path, floor):
    root, _ = floor
    keys.keygen(tmp_path / "forger")
    records = chained(1)
    why = check(root, "t1", records, signed(Signer(tmp_path / "forger"), "t1", records))
    assert why is not None and why.kind == chain.UNKNOWN_KEY
    assert "lodge the table's key (`shoe-floor lodge-key`) if it is its own" in why.detail


def test_a_signature_that_does_not_verify(floor):
    root, made = floor
    records = chained(3)
    props = dict(signed(made["t1"], "t1", records))
    sig = props[SIGNATURE]
    props[SIGNATURE] = sig[:-2] + format(int(sig[-2:], 16) ^ 1, "02x")  # one bit changed
    why = check(root, "t1", records, list(props.items()))
    assert why is not None and why.kind == chain.BAD_SIGNATURE and why.idx == 3
    assert f"does not verify with t1's key {made['t1'].key.key_id} over record 3" in why.detail
    # The last record changed after signing, and the `signed` property made to match it:
    # the signature, over the genuine record, does not cover it.
    fake = forged(records[2], body={"n": 99})
    props = dict(signed(made["t1"], "t1", records))
    props[SIGNED] = f"3 {fake.hash}"
    why = check(root, "t1", [*records[:2], fake], list(props.items()))
    assert why is not None and why.kind == chain.BAD_SIGNATURE


def test_a_genuine_signature_over_another_record(floor):
    root, made = floor
    records = chained(6)
    why = check(root, "t1", records[5:], signed(made["t1"], "t1", records[4:5]))
    assert why is not None and why.kind == chain.SIGNED_OTHER and why.idx == 6
    assert (f"signed record 5 {records[4].hash[:16]}, not the message's last record 6 "
            f"{records[5].hash[:16]}") in why.detail
    fake = forged(records[5], body={"n": 99})  # changed after signing, rehashed
    why = check(root, "t1", [fake], signed(made["t1"], "t1", records[5:]))
    assert why is not None and why.kind == chain.SIGNED_OTHER


@pytest.mark.parametrize(("arrange", "idx", "words"), [
    (lambda r: [r[0], r[1], forged(r[2], body={"x": 1}), r[2], r[3]], 3,
     "record 3 follows record 3 inside the message"),  # one inserted
    (lambda r: [r[0], r[2], r[3]], 3, "record 3 follows record 1"),  # one removed
    (lambda r: [r[1], r[0], r[2], r[3]], 1, "record 1 follows record 2"),  # reordered
    (lambda r: [r[0], forged(r[1], body={"x": 1}), r[2], r[3]], 3,
     "record 3's prev"),  # one replaced by a self-consistent forgery
])
def test_a_signed_message_that_is_not_one_piece_of_chain(floor, arrange, idx, words):
    root, made = floor
    records = chained(4)
    changed = arrange(records)
    why = check(root, "t1", changed, signed(made["t1"], "t1", records))  # signed over #4
    assert why is not None and why.kind == chain.SPLICED and why.idx == idx
    assert words in why.detail and "refused, none stored" in why.detail
    assert why.record is not None and why.record.idx == idx


def test_an_edited_record_inside_a_signed_message(floor):
    root, made = floor
    records = chained(4)
    second = records[1]
    edited = Record(second.idx, second.wall_ns, second.mono_ns, second.boot, second.kind,
                    {"n": 99}, second.prev, second.hash, second.mac)
    why = check(root, "t1", [records[0], edited, *records[2:]], signed(made["t1"], "t1", records))
    assert why is not None and why.kind == chain.EDITED and why.idx == 2
    assert "record 2: its content does not match its hash (edited)" in why.detail
    assert "the message (records 1..4 (4 in one message)) refused" in why.detail


def test_a_malformed_item_refuses_the_message(floor):
    root, _ = floor
    parsed = chain.parse_message(b"[" + message(chained(1)[0]) + b', {"idx": 2}]')
    why = check(root, "t1", parsed, None)
    assert why is not None and why.kind == chain.MALFORMED and why.idx is None
    assert why.detail.startswith("item 2 of 2: not a ledger record")


def test_every_refusal_is_serious_on_the_pit_page():
    for kind in (chain.UNSIGNED, chain.UNKNOWN_KEY, chain.BAD_SIGNATURE, chain.SIGNED_OTHER,
                 chain.SPLICED):
        assert kind in chain.KINDS and kind in chain.SERIOUS
    assert chain.GAP not in chain.SERIOUS and chain.UNANCHORED not in chain.SERIOUS


# The lodged keys.

def test_lodging_files_a_key_once_and_for_one_table_only(tmp_path):
    root = tmp_path / "table-keys"
    keys.keygen(tmp_path / "t1")
    current = keys.load_current(tmp_path / "t1")
    printed = current.public_pem + f"key id: {current.key_id}\n".encode()  # `public-key`
    kid, path, new = lodge(root, "t1", printed, "t1.pub.pem")
    assert (kid, new) == (current.key_id, True)
    assert path == root / "t1" / f"{kid}.pub.pem" and path.read_bytes() == current.public_pem
    assert lodge(root, "t1", current.public_pem, "again") == (kid, path, False)
    with pytest.raises(LodgeRefused, match=f"key id {kid} is lodged for table 't1' already"):
        lodge(root, "t2", current.public_pem, "x")
    with pytest.raises(LodgeRefused, match="not a PEM public key"):
        lodge(root, "t2", b"hello", "hello.pem")
    with pytest.raises(LodgeRefused, match="contains"):
        lodge(root, "t/2", current.public_pem, "x")
    odd = lodge(root, "table 7 (salon privé)", _fresh_key(tmp_path / "t7"), "x")
    assert odd[1].parent.name.startswith("_table-7-salon-priv-")  # not a safe file name


def _fresh_key(state: Path) -> bytes:
    return keys.keygen(state).public_pem


def test_no_two_table_names_share_a_directory():
    unsafe = "table 7 (salon privé)"
    twin = legacy_directory_for(unsafe)  # the name shoe-floor gave it before: a table's too
    assert twin.startswith("table-") and directory_for(twin) == twin
    names = [unsafe, twin, "T1", "t1", "T 1", "con", "a.", "x" * 64, "x" * 65, "été", "ete"]
    dirs = [directory_for(n) for n in names]
    assert len({d.lower() for d in dirs}) == len(names)  # apart even where case is not
    assert dirs[2:5] == [f"_t1-{dirs[2][4:]}", "t1", f"_t-1-{dirs[4][5:]}"]
    assert all(d == n for n, d in zip(names, dirs, strict=True) if not d.startswith("_"))
    assert all(len(d) <= 64 and d.isascii() and "/" not in d for d in dirs)


def test_two_tables_whose_old_directories_met_keep_their_keys_apart(tmp_path):
    root = tmp_path / "table-keys"
    unsafe = "table 7 (salon privé)"
    twin = legacy_directory_for(unsafe)
    kid1, path1, _ = lodge(root, unsafe, _fresh_key(tmp_path / "a"), "a")
    kid2, path2, _ = lodge(root, twin, _fresh_key(tmp_path / "b"), "b")
    assert path1.parent != path2.parent and path2.parent.name == twin
    lodged = LodgedKeys(root)
    assert lodged.ids(unsafe) == [kid1] and lodged.ids(twin) == [kid2]
    assert "lodged for table" in lodged_key(twin, kid1, lodged)  # one key, one table


def test_a_key_left_in_its_old_directory_is_named_never_read(tmp_path):
    """A pit deployed before: `T1`'s keys in `T1/`, an unsafe name's in `table-<digest>/`.
    Neither is read for its table; lodging and the collector's refusal name the move."""
    root = tmp_path / "table-keys"
    unsafe = "table 7 (salon privé)"
    for name, state in (("T1", "a"), (unsafe, "b")):
        old = root / legacy_directory_for(name)
        old.mkdir(parents=True)
        key = keys.keygen(tmp_path / state)
        (old / f"{key.key_id}.pub.pem").write_bytes(key.public_pem)
        lodged = LodgedKeys(root)
        assert lodged.ids(name) == [] and lodged.legacy(name) == old
        why = lodged_key(name, key.key_id, lodged)
        assert f"mv {old} {root / directory_for(name)}" in why, why
        with pytest.raises(LodgeRefused, match=f"mv {old} "):
            lodge(root, name, key.public_pem, "x")
    assert old_directories(root) == [root / "T1"]  # the other may be a table's own
    assert "unless" in LodgedKeys(root).move_words(unsafe)
    shutil.move(root / "T1", root / directory_for("T1"))  # the move it names
    assert LodgedKeys(root).ids("T1") and LodgedKeys(root).legacy("T1") is None


def test_lodged_keys_are_read_again_when_needed_and_no_more_often(tmp_path):
    root = tmp_path / "table-keys"
    now = [100.0]
    lodged = LodgedKeys(root, recheck=1.0, clock=lambda: now[0])
    kid1, _, _ = lodge(root, "t1", _fresh_key(tmp_path / "a"), "a")
    assert lodged.key("t1", kid1) is not None
    kid2, path2, _ = lodge(root, "t1", _fresh_key(tmp_path / "b"), "b")
    assert lodged.key("t1", kid2) is not None  # unknown, and the directory changed: read
    # A key that appears without the directory's time moving (a coarse clock) is found at
    # the next reading a `recheck` later: unknown ids alone do not make it read every time.
    directory = root / "t1"
    before = directory.stat()
    kid3, _, _ = lodge(root, "t1", _fresh_key(tmp_path / "c"), "c")
    os.utime(directory, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert lodged.key("t1", kid3) is None
    now[0] += 1.0
    assert lodged.key("t1", kid3) is not None
    path2.unlink()  # a key the casino no longer trusts
    now[0] += 0.5
    assert lodged.key("t1", kid2) is not None  # looked at most once a `recheck`
    now[0] += 0.6
    assert lodged.key("t1", kid2) is None and lodged.ids("t1") == sorted([kid1, kid3])
    (directory / "junk.pub.pem").write_text("not a key\n")
    warned: list[str] = []
    fresh = LodgedKeys(root, warn=warned.append)
    assert fresh.ids("t1") == sorted([kid1, kid3]) and "junk.pub.pem" in warned[0]
    assert fresh.owner(kid1) == "t1" and fresh.owner("0" * 16) is None
