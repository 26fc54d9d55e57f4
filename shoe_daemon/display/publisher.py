"""What the daemon's loop calls: the table's state in, JSON snapshots out to the server.

The view is built from the machine's public snapshot (`CoupMachine.public`) and the lines
it published, which the loop hands over with `record` once they are committed (or, from the
ledger, `rebuild`). The loop reads what the shoe sent, plays every frame of it, commits them
to the ledger in one go and acknowledges them; only then does it `show` the view, once for
the whole batch: a screen never shows what the ledger does not hold, and the table never
builds a view per frame (docs/display.md, "One view a batch"). The console's bank, limits,
stakes and payouts (`set_bank`, `set_limits`, `set_stakes`, `set_payouts`) are shown with the
next view.

The roads are most of a view and change only with a result: their JSON is kept by the
history (one fragment a mark) and spliced in, so a view costs the same late in a shoe as
early.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from shoe_daemon.display.stakes import Bank, Limits, Payouts, Stakes, Write
from shoe_daemon.display.view import Published, public_view
from shoe_daemon.display.words import Words
from shoe_daemon.game.coup import CoupMachine


class TableDisplay:
    def __init__(self, table: str, sink: Callable[[bytes], None], language: str = "en",
                 terms: str = "french") -> None:
        self.table = table
        self.sink = sink
        self.words = Words(language, terms)
        self.published = Published()
        self.bank: Bank | None = None
        self.limits: Limits | None = None
        self.stakes: Stakes | None = None
        self.payouts: Payouts | None = None
        self.write: Write = None
        self._last: bytes | None = None

    def rebuild(self, lines: Iterable[dict[str, Any]]) -> None:
        """The published lines again from the ledger's committed ones (start, stale machine)."""
        self.published = Published.of(lines)

    def record(self, line: dict[str, Any]) -> None:
        """One committed line the machine published (a result, an irregularity, a hold lifted)."""
        self.published.add(line)

    def set_bank(self, bank: Bank | None) -> None:
        """Chemin de Fer: the bank as the console committed it (None: none to show)."""
        self.bank = bank

    def set_limits(self, limits: Limits | None) -> None:
        """Punto Banco: the table limits as the console committed them (None: none to show)."""
        self.limits = limits

    def set_stakes(self, stakes: Stakes | None) -> None:
        """The stakes on the table as the console committed them (None: none to show). The
        caller decides whether a house's stakes may be shown before betting closes."""
        self.stakes = stakes

    def set_payouts(self, payouts: Payouts | None) -> None:
        """The last decided coup's settlement as committed (None: none to show)."""
        self.payouts = payouts

    def set_amounts(self, write: Write) -> None:
        """How the house writes an amount ("Fr. 1,170"), from the table's money, so the bank as
        the house calls it and the stakes, payouts and limits read alike (None: as the
        display's language writes them)."""
        self.write = write

    def snapshot(self, machine: CoupMachine) -> bytes:
        """The view as JSON, the history's kept JSON spliced in."""
        table = machine.public
        view = public_view(table, machine.profile, self.published, self.table, self.words,
                           self.bank, self.limits, self.stakes, self.payouts, self.write)
        shoe = table.shoe.number if table.shoe is not None else None
        history = self.published.history.json(shoe)
        return _dumps(view)[:-1] + b',"history":' + history + b"}"

    def show(self, machine: CoupMachine) -> None:
        """Hand the current public view to the server, unless it is what was shown last."""
        state = self.snapshot(machine)
        if state != self._last:
            self._last = state
            self.sink(state)


def _dumps(value: dict[str, Any]) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
