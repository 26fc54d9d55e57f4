"""What the daemon's loop calls: committed state in, one JSON snapshot out to the server.

The loop calls `record` for each committed result line and `show` after each successful
commit (and after rebuilding from the ledger); it never calls either for state the ledger
has not taken, so a display can only show what the audit ledger holds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from shoe_daemon.coup import CoupMachine
from shoe_daemon.display.history import History
from shoe_daemon.display.view import table_view


class TableDisplay:
    def __init__(self, table: str, sink: Callable[[bytes], None]) -> None:
        self.table = table
        self.sink = sink
        self.history = History()
        self._last: bytes | None = None
        self._history_json: tuple[dict[str, Any], bytes] | None = None  # the dict, its JSON

    def rebuild(self, lines: Iterable[dict[str, Any]]) -> None:
        """The shoe's history again from the ledger's committed lines (start, stale machine)."""
        self.history = History.of(lines)

    def record(self, line: dict[str, Any]) -> None:
        self.history.add(line)

    def snapshot(self, machine: CoupMachine) -> bytes:
        """The view as JSON. The roads are most of it and change only with a result, so their
        JSON is kept (History keeps the same dict until then) and spliced in."""
        view = table_view(machine, self.history, self.table)
        history = view.pop("history")
        if self._history_json is None or self._history_json[0] is not history:
            self._history_json = (history, _dumps(history))
        return _dumps(view)[:-1] + b',"history":' + self._history_json[1] + b"}"

    def show(self, machine: CoupMachine) -> None:
        """Hand the current public view to the server, unless it is what was shown last."""
        state = self.snapshot(machine)
        if state != self._last:
            self._last = state
            self.sink(state)


def _dumps(value: dict[str, Any]) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
