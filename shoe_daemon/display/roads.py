"""The scoreboard's roads, by the rules printed on casino scoreboards (docs/display.md, Roads).

Pure rules, no I/O, each step in constant time: a road grows by one mark per result and never
looks back over the shoe.

- `Grid` lays a sequence of marks out as the big road lays out wins: a mark of the same kind
  as the last goes below it, a new kind starts the next column at the top; a run that meets
  the bottom row (six rows) or a cell already taken turns right along its row (the "dragon
  tail"); a column whose top cell a tail took is skipped. The big road and the three derived
  roads are laid out by it.
- `derived_mark` is the derived roads' one rule. The big road is read as its logical columns
  (a streak is one column however long; the dragon tail is only how it is drawn). A new
  big-road entry at column `c`, row `r` (from 0) gets a mark on the road that looks `k`
  columns back (k = 1 big eye boy, 2 small road, 3 cockroach pig), from its start point on:
  the entry at row 1 of column k, or the top of column k + 1 when column k has one entry.
    - first entry of a column (r = 0): red if the two columns before it, the one just before
      and the one k further back, are of equal length; blue if not;
    - any other entry: look at column c - k. Red if it reaches row r (the pattern repeats),
      blue if it ends exactly one row above (its length is r), red if it ended earlier still
      ("empty after empty" is red).
- `ask` is the "ask road": the mark each derived road would get if the next coup went to
  the banker, or to the punter.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ROWS = 6
RED, BLUE = "red", "blue"
DERIVED = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}  # road: columns back


def derived_mark(lengths: list[int], col: int, row: int, back: int) -> str | None:
    """The mark of the road looking `back` columns back for a big-road entry at (col, row);
    None before the road's start point. `lengths` are the big road's logical column lengths;
    only columns before `col` are read, so the entry itself need not be in it yet."""
    if col < back or (col == back and row == 0):
        return None
    if row == 0:
        return RED if lengths[col - 1] == lengths[col - 1 - back] else BLUE
    reached = lengths[col - back]
    if reached > row:
        return RED
    return BLUE if reached == row else RED


@dataclass
class Cell:
    col: int
    row: int
    kind: str  # B or P on the big road; red or blue on a derived road


@dataclass
class Grid:
    """Marks laid out six rows deep with the dragon tail, one `place` per mark."""

    taken: set[tuple[int, int]] = field(default_factory=set)
    last: Cell | None = None
    streak_col: int = -1  # the column the current run started in
    turned: bool = False  # the current run has turned right

    def place(self, kind: str) -> Cell:
        last = self.last
        if last is None or kind != last.kind:
            col = self.streak_col + 1
            while (col, 0) in self.taken:  # a tail ran along the top row
                col += 1
            self.streak_col, self.turned, row = col, False, 0
        else:
            col, row = last.col, last.row
            if not self.turned and row + 1 < ROWS and (col, row + 1) not in self.taken:
                row += 1
            else:
                col, self.turned = col + 1, True
        cell = Cell(col, row, kind)
        self.taken.add((col, row))
        self.last = cell
        return cell


@dataclass
class Columns:
    """The big road's logical columns: who won each streak and how long it is."""

    winners: list[str] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)

    def add(self, winner: str) -> tuple[int, int]:
        """One more win; its logical (column, row)."""
        if self.winners and self.winners[-1] == winner:
            self.lengths[-1] += 1
        else:
            self.winners.append(winner)
            self.lengths.append(1)
        return len(self.lengths) - 1, self.lengths[-1] - 1

    def next_place(self, winner: str) -> tuple[int, int]:
        """Where a win for `winner` would go, without adding it."""
        if self.winners and self.winners[-1] == winner:
            return len(self.lengths) - 1, self.lengths[-1]
        return len(self.lengths), 0

    def ask(self) -> dict[str, dict[str, str | None]]:
        """For the next coup going to the banker (B) or the punter (P): each derived road's
        mark (None where the road would not yet have started)."""
        out: dict[str, dict[str, str | None]] = {}
        for winner in ("B", "P"):
            col, row = self.next_place(winner)
            out[winner] = {name: derived_mark(self.lengths, col, row, back)
                           for name, back in DERIVED.items()}
        return out
