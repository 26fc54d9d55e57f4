"""What the daemon's loop calls: the table's state in, JSON snapshots out to the server.

The view is built from the machine's public snapshot (`CoupMachine.public`) and the lines
it published, which the loop hands over with `record` (or, from the ledger, `rebuild`).
The loop plays a batch of frames, then commits them to the ledger in one go. After each
frame it `stage`s the view (with the frame's lines `record`ed first), so that every
change can be shown, one by one, even when several frames came in one read; only after the
commit succeeded does it `flush` them to the server, and on a failed commit it `discard`s
them (the published lines are then rebuilt from the ledger with the machine). `show` sends
the view at once, for state read back from the ledger. So a display only ever shows what the
ledger holds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from shoe_daemon.display.view import Published, table_view
from shoe_daemon.game.coup import CoupMachine


class TableDisplay:
    def __init__(self, table: str, sink: Callable[[bytes], None]) -> None:
        self.table = table
        self.sink = sink
        self.published = Published()
        self._last: bytes | None = None
        self._staged: list[bytes] = []
        self._history_json: tuple[dict[str, Any], bytes] | None = None  # the dict, its JSON

    def rebuild(self, lines: Iterable[dict[str, Any]]) -> None:
        """The published lines again from the ledger's committed ones (start, stale machine)."""
        self.published = Published.of(lines)

    def record(self, line: dict[str, Any]) -> None:
        """One line the machine published (a result, an irregularity, a hold lifted)."""
        self.published.add(line)

    def snapshot(self, machine: CoupMachine) -> bytes:
        """The view as JSON. The roads are most of it and change only with a result, so their
        JSON is kept (History keeps the same dict until then) and spliced in."""
        view = table_view(machine.public, machine.profile, self.published, self.table)
        history = view.pop("history")
        if self._history_json is None or self._history_json[0] is not history:
            self._history_json = (history, _dumps(history))
        return _dumps(view)[:-1] + b',"history":' + self._history_json[1] + b"}"

    def show(self, machine: CoupMachine) -> None:
        """Hand the current public view to the server, unless it is what was shown last."""
        self._staged.clear()
        self._send(self.snapshot(machine))

    def stage(self, machine: CoupMachine) -> None:
        """Keep the view after one frame, to be shown once its batch is committed."""
        state = self.snapshot(machine)
        if state != (self._staged[-1] if self._staged else self._last):
            self._staged.append(state)

    def flush(self) -> None:
        """The batch is in the ledger: show each of its views, in order."""
        staged, self._staged = self._staged, []
        for state in staged:
            self._send(state)

    def discard(self) -> None:
        """The batch was not committed: none of its views may be shown."""
        self._staged.clear()

    def _send(self, state: bytes) -> None:
        if state != self._last:
            self._last = state
            self.sink(state)


def _dumps(value: dict[str, Any]) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
