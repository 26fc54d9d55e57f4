"""The console file: what the console did during one daemon run, written beside that run's
raw capture (`captures/<stamp>-<pid>.console.jsonl`), so that `shoe-daemon replay --console
FILE CAPTURE` plays the run's actions with its frames to the same published lines.

JSON Lines, in the order things were committed:
- first `{"resume": {"seq", "boot_id"}}`: where delivery resumed when the run began (the
  ledger's last frame; both null on a new ledger), so the replay accepts the same frames;
- with the table's money, then `{"money": {...}}`: the money as the run began (its
  `money.table` form: the bank, the limits, any round), so the replay settles as it did;
- `{"frame": N, "seq": S, "badge": {...}}`: the N-th frame committed in this run (1-based,
  seq S) was a KEY, and what its badge was taken for (console/play.py);
- `{"after": N, "seq": S, "action": {...}}`: an action committed after N frames of this run
  (S the last of them, null before any), as the ledger records it.
It holds no secret: badges are never written, only the person each was taken for. Like the
capture it is a diagnostic copy: a full disk only warns, the ledger is the record.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

SUFFIX = ".console.jsonl"


def beside(capture: Path) -> Path:
    return capture.with_suffix(SUFFIX)


class ReplayFileError(ValueError):
    """The console file is not one, or does not fit the capture; says where."""


@dataclass
class ReplayFile:
    resume_seq: int | None = None
    resume_boot: str | None = None
    keys: dict[int, dict[str, Any]] = field(default_factory=dict)  # frame ordinal -> decision
    key_seqs: dict[int, int] = field(default_factory=dict)
    actions: list[tuple[int, int | None, dict[str, Any]]] = field(default_factory=list)
    money: dict[str, Any] | None = None  # the table's money as the run began

    @classmethod
    def read(cls, path: Path) -> ReplayFile:
        out = cls()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise ReplayFileError(f"{path}: {e.strerror or e}") from e
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                if "resume" in entry:
                    out.resume_seq = entry["resume"]["seq"]
                    out.resume_boot = entry["resume"]["boot_id"]
                elif "money" in entry:
                    out.money = dict(entry["money"])
                elif "badge" in entry:
                    out.keys[int(entry["frame"])] = dict(entry["badge"])
                    out.key_seqs[int(entry["frame"])] = int(entry["seq"])
                else:
                    seq = entry["seq"]
                    out.actions.append((int(entry["after"]), None if seq is None else int(seq),
                                        dict(entry["action"])))
            except (ValueError, KeyError, TypeError) as e:
                raise ReplayFileError(f"{path} line {n}: not a console file entry ({e})") from e
        return out


class ReplayFileWriter:
    """Appends entries as they are committed, flushed; a failure is said once, not raised."""

    def __init__(self, path: Path, log: Any) -> None:
        self.path = path
        self.log = log
        self._down = False
        self._file: BinaryIO | None = path.open("ab")

    def resume(self, seq: int | None, boot_id: str | None) -> None:
        self._write({"resume": {"seq": seq, "boot_id": boot_id}})

    def money(self, snapshot: dict[str, Any]) -> None:
        self._write({"money": snapshot})

    def key(self, frame: int, seq: int, decision: dict[str, Any]) -> None:
        self._write({"frame": frame, "seq": seq, "badge": decision})

    def action(self, after: int, seq: int | None, record: dict[str, Any]) -> None:
        self._write({"after": after, "seq": seq, "action": record})

    def close(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    def _write(self, entry: dict[str, Any]) -> None:
        if self._file is None:
            return
        try:
            self._file.write(json.dumps(entry, separators=(",", ":")).encode() + b"\n")
            self._file.flush()
        except OSError as e:
            if not self._down:
                self.log.warning("console.file_write_failed", path=str(self.path), error=str(e))
            self._down = True
        else:
            self._down = False
