"""The ledger's file deleted or replaced under a running daemon (docs/audit.md, "The ledger's
file"): a real SQLite ledger in WAL mode, its files removed as an operator's `rm` would.

SQLite keeps writing to a file deleted under it; at the next start it would be gone, and
every record with it. The ledger notices at the commit after (one stat), puts itself back
from the connection that still holds every record, and says so; a file put in its place is
never overwritten."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from shoe_daemon.audit.ledger import PUT_BACK, Ledger, LedgerError, file_id


def fill(book: Ledger, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        book.append_many([("frame", {"seq": i, "type": "HB", "fields": [str(i)]}),
                          ("result", {"line": {"event": "coup.result", "n": i}})])


def bodies(state: Path) -> list[tuple[str, dict]]:
    """The ledger as the next start finds it: verified, each record's kind and body."""
    book = Ledger(state)
    try:
        book.verify()
        return [(r.kind, r.body) for r in book.records()]
    finally:
        book.close()


def remove(state: Path, names: str) -> None:
    for path in state.glob(names):
        path.unlink()


def filled(tmp_path: Path, n: int) -> tuple[Path, Ledger]:
    """A state directory and its ledger holding `n` frames and their results."""
    state = tmp_path / "state"
    book = Ledger(state)
    fill(book, n)
    return state, book


@pytest.mark.parametrize("names", ["ledger.sqlite3", "ledger.sqlite3*", "ledger.*"],
                         ids=["the file", "with its -wal and -shm", "and its key"])
def test_a_ledger_deleted_while_open_is_put_back_with_every_record(tmp_path: Path,
                                                                   names: str) -> None:
    state, book = filled(tmp_path, 40)
    key = book.key
    remove(state, names)
    assert not (state / "ledger.sqlite3").exists()
    fill(book, 1, start=40)  # the commit that finds it gone puts it back before returning
    assert (state / "ledger.sqlite3").exists() and book.lost is None
    fill(book, 5, start=41)
    book.close()
    kept = bodies(state)
    kinds = [kind for kind, _ in kept]
    assert kinds.count("frame") == 46 and kinds.count(PUT_BACK) == 1
    put_back = kinds.index(PUT_BACK)
    assert kinds[:put_back] == ["frame", "result"] * 41  # the deleted file's and the finder
    assert kept[put_back][1]["records"] == 82 and kept[put_back][1]["last"] == 82
    assert (state / "ledger.key").read_text().strip() == key.hex()
    assert not list(state.glob(".ledger.sqlite3.put-back*"))


def test_a_reader_of_the_deleted_file_never_takes_the_new_files_wal(tmp_path: Path) -> None:
    # The floor link and the odds monitor hold their own read connections. Closing one of
    # the deleted file after the put-back must not checkpoint into, or delete, anything of
    # the new file's: SQLite sees the file it had was moved.
    state, book = filled(tmp_path, 10)
    reader = sqlite3.connect(f"file:{state / 'ledger.sqlite3'}?mode=ro", uri=True)
    assert reader.execute("SELECT COUNT(*) FROM records").fetchone() == (20,)
    remove(state, "ledger.sqlite3*")
    fill(book, 10, start=10)  # the first into the deleted file, put back, nine in the new
    assert reader.execute("SELECT COUNT(*) FROM records").fetchone() == (22,)  # the old one
    reader.close()
    assert Path(f"{state / 'ledger.sqlite3'}-wal").exists()
    book.close()
    assert [k for k, _ in bodies(state)].count("frame") == 20


def test_a_file_put_in_the_ledgers_place_is_never_overwritten(tmp_path: Path) -> None:
    state, book = filled(tmp_path, 10)
    remove(state, "ledger.sqlite3*")
    other = sqlite3.connect(state / "ledger.sqlite3")  # say, an older copy restored by hand
    other.execute("CREATE TABLE t (x)")
    other.close()
    theirs = (state / "ledger.sqlite3").read_bytes()
    fill(book, 1, start=10)  # committed before it was found: kept with the rest
    assert book.lost is not None and "replaced by another file" in book.lost
    with pytest.raises(LedgerError, match="replaced by another file"):
        fill(book, 1, start=11)
    assert (state / "ledger.sqlite3").read_bytes() == theirs
    (kept,) = state.glob("ledger-kept-*.sqlite3")
    copy = sqlite3.connect(kept)
    assert copy.execute("SELECT COUNT(*) FROM records").fetchone() == (22,)
    copy.close()
    # The operator takes the stranger away: the ledger goes back in place, and on.
    remove(state, "ledger.sqlite3*")
    fill(book, 1, start=11)
    assert book.lost is None
    book.close()
    assert [k for k, _ in bodies(state)].count("frame") == 12


def test_a_ledger_that_cannot_be_put_back_refuses_writes_until_it_can(tmp_path: Path) -> None:
    state, book = filled(tmp_path, 3)
    remove(state, "ledger.sqlite3*")
    blocker = state / ".ledger.sqlite3.put-back"
    blocker.mkdir()  # the copy cannot be made
    fill(book, 1, start=3)  # committed in the open ledger, as before it was found
    assert book.lost is not None and "cannot be put back" in book.lost
    with pytest.raises(LedgerError, match="cannot be put back"):
        fill(book, 1, start=4)  # refused: nothing more goes into a file that is gone
    blocker.rmdir()
    fill(book, 1, start=4)
    assert book.lost is None and file_id(state / "ledger.sqlite3") is not None
    book.close()
    assert [k for k, _ in bodies(state)].count("frame") == 5
