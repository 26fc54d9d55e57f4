"""The shoe's history as casinos show it: the five roads, the ask road and the statistics.

Built only from committed `coup.result` lines (the same lines the results file gets), one
shoe at a time: a new shoe starts a clean history, as the paper scorecards do. Each result
costs the same whatever the shoe's length: every road grows by one mark (`roads.py`), the
statistics are running counts, and the JSON a screen gets is kept as one fragment per mark,
so a result serialises one mark, not the shoe.

- Bead plate: one bead per decided coup, in order, six to a column, filled downwards.
- Big road: a column per streak of one side, laid out by `roads.Grid` (the dragon tail).
  Égalité opens no column: it is marked on the last bead (ties before the first bead are
  marked on it).
- Big eye boy, small road, cockroach pig: `roads.derived_mark` for each big-road entry,
  laid out by `roads.Grid` too; and the ask road (`roads.Columns.ask`).
- Statistics: banker, punter and égalité wins, naturals, the longest streak of each side
  and the current one (a streak is a big-road column: égalité does not break it), the cards
  each coup took (for the coups likely left), and at Punto Banco the Swiss Nine bets each
  coup won (003, "Swiss-Nine": simple, colour, swiss).

Cancelled and voided coups decide nothing and are left out of every road and count.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from shoe_daemon.display.roads import DERIVED, ROWS, Columns, Grid, derived_mark

LETTER = {"banker": "B", "punter": "P", "egalite": "E"}
ROADS = ("bead_plate", "big_road", *DERIVED)
LISTS = (*ROADS, "swiss_nine")  # kept as one JSON fragment per item
PRIOR_CARDS_PER_COUP = 4.94  # Punto Banco's tableau, infinite shoe: 4.9394 (docs/display.md)
PRIOR_WEIGHT = 5  # coups the prior counts for, against the shoe's own


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass
class Bead:
    coup: int
    winner: str  # B, P or E
    total: int  # the winning total (either, at égalité)
    natural: bool
    swiss_nine: tuple[str, ...] = ()


@dataclass
class History:
    shoe: int | None = None
    beads: list[Bead] = field(default_factory=list)
    columns: Columns = field(default_factory=Columns)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("banker", "punter", "egalite", "naturals"), 0))
    longest: dict[str, int] = field(default_factory=lambda: {"banker": 0, "punter": 0})
    cards_dealt: int = 0  # by the coups of this shoe that published a result
    coups_dealt: int = 0
    _grids: dict[str, Grid] = field(default_factory=dict, repr=False)
    _items: dict[str, list[dict[str, Any]]] = field(default_factory=dict, repr=False)
    _parts: dict[str, list[bytes]] = field(default_factory=dict, repr=False)
    _leading_ties: int = 0
    _version: int = 0
    _json: tuple[int, bytes] | None = field(default=None, repr=False)
    _view: tuple[int, dict[str, Any]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._clear()

    @classmethod
    def of(cls, lines: Iterable[dict[str, Any]]) -> History:
        history = cls()
        for line in lines:
            history.add(line)
        return history

    def _clear(self) -> None:
        self.beads, self.columns = [], Columns()
        self.counts = dict.fromkeys(self.counts, 0)
        self.longest = {"banker": 0, "punter": 0}
        self.cards_dealt = self.coups_dealt = 0
        self._grids = {name: Grid() for name in ("big_road", *DERIVED)}
        self._items = {name: [] for name in LISTS}
        self._parts = {name: [] for name in LISTS}
        self._leading_ties = 0
        self._version += 1

    # ---- taking results ---------------------------------------------------------------------

    def add(self, line: dict[str, Any]) -> None:
        """Take one published line; anything but a coup.result changes nothing."""
        if line.get("event") != "coup.result":
            return
        if line["shoe"] != self.shoe:
            self.shoe = line["shoe"]
            self._clear()
        self._version += 1
        self.coups_dealt += 1
        self.cards_dealt += len(line["punter"]["cards"]) + len(line["banker"]["cards"])
        winner = LETTER.get(line["outcome"])
        if winner is None:
            return
        side = line["banker"] if winner == "B" else line["punter"]
        natural = bool(line["punter"]["natural"] or line["banker"]["natural"])
        bead = Bead(line["coup"], winner, side["total"], natural,
                    tuple(line.get("swiss_nine") or ()))
        self.beads.append(bead)
        self.counts[line["outcome"]] += 1
        self.counts["naturals"] += natural
        if bead.swiss_nine:
            self._append("swiss_nine", {"coup": bead.coup, "bets": list(bead.swiss_nine)})
        index = len(self.beads) - 1
        self._append("bead_plate", {"col": index // ROWS, "row": index % ROWS, "winner": winner,
                                    "total": bead.total, "natural": natural, "coup": bead.coup})
        if winner == "E":
            self._tie()
        else:
            self._win(winner, natural)

    def _append(self, road: str, item: dict[str, Any]) -> None:
        self._items[road].append(item)
        self._parts[road].append(_dumps(item))

    def _tie(self) -> None:
        road = self._items["big_road"]
        if not road:
            self._leading_ties += 1
            return
        road[-1]["ties"] += 1
        self._parts["big_road"][-1] = _dumps(road[-1])

    def _win(self, winner: str, natural: bool) -> None:
        col, row = self.columns.add(winner)
        side = "banker" if winner == "B" else "punter"
        self.longest[side] = max(self.longest[side], row + 1)
        cell = self._grids["big_road"].place(winner)
        ties, self._leading_ties = self._leading_ties, 0
        self._append("big_road", {"col": cell.col, "row": cell.row, "winner": winner,
                                  "ties": ties, "natural": natural})
        for name, back in DERIVED.items():
            mark = derived_mark(self.columns.lengths, col, row, back)
            if mark is not None:
                placed = self._grids[name].place(mark)
                self._append(name, {"col": placed.col, "row": placed.row, "colour": mark})

    # ---- what a screen gets -----------------------------------------------------------------

    def mean_cards_per_coup(self) -> float:
        """This shoe's cards a coup, leaning on the tableau's mean until coups are in."""
        return ((self.cards_dealt + PRIOR_CARDS_PER_COUP * PRIOR_WEIGHT)
                / (self.coups_dealt + PRIOR_WEIGHT))

    def json(self, shoe: int | None) -> bytes:
        """The history of `shoe` (the one now in play) as JSON; empty for any other."""
        if shoe is None or shoe != self.shoe:
            return EMPTY_JSON
        if self._json is None or self._json[0] != self._version:
            self._json = (self._version, self._build())
        return self._json[1]

    def view(self, shoe: int | None) -> dict[str, Any]:
        """The same as a dict. Callers must not change it: it is kept until the next result."""
        if shoe is None or shoe != self.shoe:
            return json.loads(EMPTY_JSON)
        if self._view is None or self._view[0] != self._version:
            self._view = (self._version, json.loads(self.json(shoe)))
        return self._view[1]

    def _build(self) -> bytes:
        lists = b",".join(b'"' + name.encode() + b'":[' + b",".join(self._parts[name]) + b"]"
                          for name in LISTS)
        last = self.columns.winners[-1] if self.columns.winners else None
        tail = {
            "ask": self.columns.ask(),
            "counts": self.counts,
            "streaks": {
                "longest": self.longest,
                "current": None if last is None else {
                    "winner": last, "length": self.columns.lengths[-1]},
            },
        }
        return b"{" + lists + b"," + _dumps(tail)[1:]


EMPTY_JSON = History()._build()
