"""The shoe's history as casinos show it: the bead plate, the big road and the counts.

Built only from committed `coup.result` lines (the same lines the results file gets), one
shoe at a time: a new shoe starts a clean history, as the paper scorecards do.

- Bead plate: one bead per decided coup, in order, six to a column, filled downwards.
- Big road: a column per streak of one side; a new side starts a new column at the top.
  Égalité opens no column: it is marked on the last bead (ties before the first bead are
  marked on it). A streak longer than the six rows, or blocked by an earlier tail, turns
  right along its row (the "dragon tail").
- Counts of banker, punter and égalité wins, naturals, and at Punto Banco the Swiss Nine
  bets each coup won (003, "Swiss-Nine": simple, colour, swiss).

Cancelled and voided coups decide nothing and are left out of both roads.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

ROWS = 6
LETTER = {"banker": "B", "punter": "P", "egalite": "E"}


@dataclass
class Bead:
    coup: int
    winner: str  # B, P or E
    total: int  # the winning total (either, at égalité)
    natural: bool
    swiss_nine: tuple[str, ...] = ()


@dataclass
class RoadCell:
    col: int
    row: int
    winner: str  # B or P
    ties: int = 0
    natural: bool = False


@dataclass
class History:
    shoe: int | None = None
    beads: list[Bead] = field(default_factory=list)
    # The roads change only with a result; built once per result, not once per frame.
    _cache: tuple[tuple[int | None, int, int], dict[str, Any]] | None = field(
        default=None, repr=False, compare=False)

    @classmethod
    def of(cls, lines: Iterable[dict[str, Any]]) -> History:
        history = cls()
        for line in lines:
            history.add(line)
        return history

    def add(self, line: dict[str, Any]) -> None:
        """Take one published line; anything but a decided coup.result changes nothing."""
        if line.get("event") != "coup.result":
            return
        if line["shoe"] != self.shoe:
            self.shoe, self.beads = line["shoe"], []
        winner = LETTER.get(line["outcome"])
        if winner is None:
            return
        side = line["banker"] if winner == "B" else line["punter"]
        self.beads.append(Bead(
            coup=line["coup"],
            winner=winner,
            total=side["total"],
            natural=line["punter"]["natural"] or line["banker"]["natural"],
            swiss_nine=tuple(line.get("swiss_nine") or ()),
        ))

    def big_road(self) -> list[RoadCell]:
        cells: dict[tuple[int, int], RoadCell] = {}
        last: RoadCell | None = None
        leading_ties = 0
        streak_col = -1
        turned = False
        for bead in self.beads:
            if bead.winner == "E":
                if last is None:
                    leading_ties += 1
                else:
                    last.ties += 1
                continue
            if last is None or bead.winner != last.winner:
                streak_col += 1
                while (streak_col, 0) in cells:  # a tail ran along the top row
                    streak_col += 1
                col, row, turned = streak_col, 0, False
            else:
                col, row = last.col, last.row
                if not turned and row + 1 < ROWS and (col, row + 1) not in cells:
                    row += 1
                else:
                    col, turned = col + 1, True
            last = RoadCell(col, row, bead.winner, natural=bead.natural)
            if not cells:
                last.ties, leading_ties = leading_ties, 0
            cells[(col, row)] = last
        return list(cells.values())

    def view(self, shoe: int | None) -> dict[str, Any]:
        """The history of `shoe` (the one now in play); empty for any other. Callers must
        not change the dict: it is kept for the next call until a result comes."""
        key = (shoe, id(self.beads), len(self.beads))
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, self._build(shoe))
        return self._cache[1]

    def _build(self, shoe: int | None) -> dict[str, Any]:
        beads = self.beads if shoe is not None and shoe == self.shoe else []
        current = History(shoe=shoe, beads=list(beads))
        wins = {w: sum(1 for b in beads if b.winner == w) for w in "BPE"}
        return {
            "bead_plate": [
                {"col": i // ROWS, "row": i % ROWS, "winner": b.winner, "total": b.total,
                 "natural": b.natural}
                for i, b in enumerate(beads)
            ],
            "big_road": [
                {"col": c.col, "row": c.row, "winner": c.winner, "ties": c.ties,
                 "natural": c.natural}
                for c in current.big_road()
            ],
            "counts": {
                "banker": wins["B"],
                "punter": wins["P"],
                "egalite": wins["E"],
                "naturals": sum(1 for b in beads if b.natural),
            },
            "swiss_nine": [
                {"coup": b.coup, "bets": list(b.swiss_nine)} for b in beads if b.swiss_nine
            ],
        }
