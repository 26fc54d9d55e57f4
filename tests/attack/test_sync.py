"""The shoe's line and the ledger's file attacked (issue 19, item 8): the real daemon process
against the real simulated shoe process over a real pty.

- A fresh daemon meets a shoe that began dealing before it opened the port (a 1.0 shoe that
  never waits for its HELLO's ACK, a 1.1 shoe that does), on a clean line and on a noisy one:
  it must acknowledge nothing it did not hear, so every coup is published as dealt.
- The ledger's files removed while the daemon runs (put back, nothing lost), replaced by an
  older copy (refused until an operator acts, nothing lost), and removed while it is stopped
  (it syncs, publishes nothing of the shoe it joined, and publishes the next shoe whole).

Each ends checking the published coups against the croupier's ground truth (`--truth`):
nothing lost, nothing twice, nothing wrong. docs/shoe-line-protocol.md ("The host without
state"), docs/audit.md ("The ledger's file"), docs/coup-machine.md.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from drivers.messages import Hello
from tests.attack.sync_support import SyncTable, coups, frames_once_in_order, wait_for


@pytest.fixture
def table(tmp_path: Path):
    t = SyncTable(tmp_path)
    yield t
    t.close()


def check_against_truth(table: SyncTable) -> None:
    detail = table.detail()
    truth = table.truth
    assert truth, "no ground truth" + detail
    assert coups(table.published) == truth, detail
    assert table.daemon_rcs and set(table.daemon_rcs) == {0}, detail
    assert table.audit_verify().returncode == 0, table.audit_verify().stdout + detail


# ---- a shoe that began dealing before the daemon opened the port ------------------------------

LINE = ("noise=0.3", "damage=0.15", "duplicate=0.05")


@pytest.mark.parametrize(("proto", "faults", "late"), [
    ("1.0", (), 1.5), ("1.1", (), 2.5), ("1.0", LINE, 2.0), ("1.1", LINE, 1.0)],
    ids=["1.0 shoe", "1.1 shoe", "1.0 shoe, noisy line", "1.1 shoe, noisy line"])
def test_a_shoe_dealing_before_the_port_opens_is_published_as_dealt(
        table: SyncTable, proto: str, faults: tuple[str, ...], late: float) -> None:
    # The croupier deals from power-up at 50 messages a second: by the time the daemon opens
    # the port, far more than a window's 16 frames were dealt, and what went out meanwhile is
    # lost on the line. At 9600 baud a 1.0 shoe's resend rounds fill the line, so the daemon
    # opens it in the middle of one. The old rule took the first frame it heard and
    # acknowledged every frame before it: the shoe's first frames were lost and the coups
    # after them published wrong. (A 1.1 shoe sends its HELLO alone until it is answered.)
    table.start_shoe(seed=31, shoes=1, packs=2, pace=0.02, proto=proto, faults=faults,
                     baud=9600 if proto == "1.0" else None)
    time.sleep(late)
    table.start_daemon()
    assert table.finish() == 0, table.detail()
    check_against_truth(table)
    kept = table.kept()
    frames = [body for kind, body in kept if kind == "frame"]
    assert frames[0]["type"] == "HELLO" and frames[0]["seq"] == 0  # synced at its first frame
    frames_once_in_order(kept)
    heard = table.first_heard()
    if not (heard.seq == 0 and isinstance(heard.message, Hello)):
        # It opened the port inside a resend round (at 9600 baud a 1.0 shoe's rounds fill the
        # line; now and then it opens right on the HELLO): it waited, acknowledging nothing.
        assert '"line.waiting_to_sync"' in table.log and '"line.synced"' in table.log


# ---- the ledger's files removed while the daemon runs ------------------------------------------


@pytest.mark.parametrize("names", ["ledger.*", "ledger.sqlite3"],
                         ids=["rm ledger.*", "rm ledger.sqlite3"])
def test_a_ledger_deleted_under_the_running_daemon_is_put_back(table: SyncTable,
                                                               names: str) -> None:
    table.start_shoe(seed=32, shoes=1, packs=2, pace=0.01)
    table.start_daemon()
    wait_for(lambda: len(coups(table.published)) >= 4, "four coups published")
    assert "ledger.sqlite3" in table.remove_ledger(names)
    wait_for(lambda: '"ledger.put_back"' in table.log, "the ledger put back")
    assert table.finish() == 0, table.detail()
    check_against_truth(table)
    kept = table.kept()
    (put_back,) = [(i, body) for i, (kind, body) in enumerate(kept) if kind == "ledger.put_back"]
    assert put_back[1]["records"] == put_back[0]  # every record it held, none lost
    results = [body["line"] for kind, body in kept if kind == "result"]
    assert results == table.published  # the ledger holds every line published, once
    frames_once_in_order(kept)
    assert not list(table.state.glob("ledger-kept-*.sqlite3"))


def test_a_ledger_replaced_under_the_running_daemon_is_refused_until_an_operator_acts(
        table: SyncTable) -> None:
    # A careless restore: an older copy of the ledger put in place of the live one. The daemon
    # must not write on it nor overwrite it; it keeps its own beside it and acknowledges
    # nothing (the shoe keeps every frame) until the operator puts the right one back.
    table.start_shoe(seed=33, shoes=1, packs=2, pace=0.01)
    table.start_daemon()
    wait_for(lambda: len(coups(table.published)) >= 2, "two coups published")
    older = table.workdir / "older.sqlite3"
    live = sqlite3.connect(f"file:{table.state / 'ledger.sqlite3'}?mode=ro", uri=True)
    copy = sqlite3.connect(older)
    live.backup(copy)
    copy.close()
    live.close()
    wait_for(lambda: len(coups(table.published)) >= 5, "five coups published")
    table.remove_ledger("ledger.sqlite3*")
    shutil.copyfile(older, table.state / "ledger.sqlite3")
    wait_for(lambda: '"ledger.lost"' in table.log, "the replaced ledger refused")
    published = len(table.published)
    time.sleep(1.0)
    assert len(table.published) == published  # nothing more published meanwhile
    assert (table.state / "ledger.sqlite3").read_bytes() == older.read_bytes()
    (kept,) = table.state.glob("ledger-kept-*.sqlite3")
    # The operator stops the daemon and puts the daemon's own ledger back in place.
    table.stop_daemon()
    for name in ("ledger.sqlite3", "ledger.sqlite3-wal", "ledger.sqlite3-shm"):
        (table.state / name).unlink(missing_ok=True)
    kept.rename(table.state / "ledger.sqlite3")
    table.start_daemon()
    assert table.finish() == 0, table.detail()
    check_against_truth(table)
    frames_once_in_order(table.kept())


# ---- the ledger's files removed while the daemon is stopped -------------------------------------


def test_a_ledger_lost_while_stopped_publishes_nothing_of_the_shoe_it_joined(
        table: SyncTable) -> None:
    table.start_shoe(seed=34, shoes=2, packs=2, pace=0.03)
    table.start_daemon()
    wait_for(lambda: len(coups(table.published)) >= 3, "three coups published")
    table.stop_daemon()
    first_run = coups(table.published)
    table.remove_ledger()
    time.sleep(1.0)  # the shoe deals on: its window fills, the croupier's backlog grows
    table.start_daemon()
    status = table.state / "status.json"
    wait_for(lambda: status.exists() and "joined a shoe in play" in status.read_text(),
             "the status to say the table joined a shoe in play")
    said = json.loads(status.read_text())
    assert said["unseen"] > 0 and said["state"] == "no_shoe", said
    assert table.finish() == 0, table.detail()
    detail = table.detail()
    truth = table.truth
    shoe_1 = [c for c in truth if c["shoe"] == 1]
    shoe_2 = [c for c in truth if c["shoe"] == 2]
    assert shoe_1 and shoe_2 and len(first_run) < len(shoe_1), detail
    # The first run's coups as dealt; nothing more of shoe 1 (the table joined it mid-shoe:
    # its count, cut card and last coup cannot be known); the next shoe whole, numbered 2.
    assert first_run == shoe_1[:len(first_run)], detail
    assert coups(table.published) == first_run + shoe_2, detail
    assert set(table.daemon_rcs) == {0}, detail
    assert table.audit_verify().returncode == 0, detail
    kept = table.kept()
    kinds = [kind for kind, _ in kept]
    assert kinds[0] == "ledger.lost" and kept[0][1]["carry"]["shoes"] == 1, kinds[:5]
    first_frame = kept[kinds.index("frame")][1]
    synced = ("transport", {"event": "synced", "detail": f"seq {first_frame['seq']}"})
    assert synced in kept and first_frame["seq"] > 0, kinds[:8]  # at its window's start
    assert kinds.count("shoe.unseen") == 1
    assert [body["line"] for kind, body in kept if kind == "result"] == table.published[
        len(first_run):]
    frames_once_in_order(kept)
    for said in ("line.waiting_to_sync", "line.synced", "shoe.unseen", "ledger.lost"):
        assert f'"{said}"' in table.log, said
