"""The floor link's cursor and outbox against a ledger that starts again or moves under them
(docs/audit.md, "The ledger's file"): real ledgers in a real state directory, no broker.

The cursor is the index and hash of the last record the broker took. A ledger lost while the
daemon was stopped leaves a cursor behind that the new, younger ledger does not hold: trusted,
it would skip the new ledger's first records. A ledger deleted and put back while the daemon
runs is the same ledger in a new file: the outbox reads on from it. A file put in its place is
not the ledger: the outbox gives nothing of it out."""

from __future__ import annotations

from pathlib import Path

from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.floor.cursor import Cursor, acked_index, backlog, belongs, write_cursor
from shoe_daemon.floor.outbox import Outbox


def fill(book: Ledger, n: int) -> None:
    for i in range(n):
        book.append("frame", {"seq": i, "type": "HB", "fields": [str(i)]})


def wipe(state: Path) -> None:
    for path in state.glob("ledger.sqlite3*"):
        path.unlink()


def read_by_outbox(tmp_path: Path) -> tuple[Path, Ledger, Outbox]:
    """A ledger of five records, all of them given out by the outbox already."""
    state = tmp_path / "state"
    book = Ledger(state)
    fill(book, 5)
    outbox = Outbox(state)
    assert [r.idx for r in outbox.after(1, 100)] == [1, 2, 3, 4, 5]
    return state, book, outbox


def test_a_younger_ledger_does_not_trust_the_cursor_of_the_lost_one(tmp_path: Path) -> None:
    state = tmp_path / "state"
    old = Ledger(state)
    fill(old, 30)
    write_cursor(state, Cursor(25, old.records(25).__next__().hash))
    assert acked_index(state) == 25
    old.close()
    wipe(state)  # lost while the daemon was stopped
    new = Ledger(state)
    fill(new, 3)
    outbox = Outbox(state)
    try:
        assert not belongs(Cursor(25, ""), outbox)
        assert acked_index(state) == 0 and backlog(state) == 3  # all of it is still to send
        fill(new, 40)  # grown past the old cursor's index: its hash still tells them apart
        assert acked_index(state) == 0 and backlog(state) == 43
    finally:
        outbox.close()
        new.close()


def test_the_outbox_reads_on_from_a_ledger_put_back(tmp_path: Path) -> None:
    state, book, outbox = read_by_outbox(tmp_path)
    try:
        wipe(state)
        fill(book, 3)  # the first commit finds it deleted and puts it back
        assert book.lost is None
        sent = outbox.after(6, 100)
        assert [r.kind for r in sent] == ["frame", "ledger.put_back", "frame", "frame"]
        assert outbox.bounds() == (1, 9) and outbox.foreign is None
        assert belongs(Cursor(5, book.records(5).__next__().hash), outbox)
    finally:
        outbox.close()
        book.close()


def test_the_outbox_gives_nothing_of_a_file_put_in_the_ledgers_place(tmp_path: Path) -> None:
    state, book, outbox = read_by_outbox(tmp_path)
    try:
        book.close()
        wipe(state)
        stranger = Ledger(state)  # another ledger at the same path: its own chain
        fill(stranger, 9)
        assert outbox.after(6, 100) == [] and outbox.bounds() == (1, 5)
        assert outbox.foreign is not None and "another file" in outbox.foreign
        stranger.close()
    finally:
        outbox.close()
