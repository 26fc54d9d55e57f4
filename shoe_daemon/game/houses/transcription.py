"""Turning a seed's printed drawing table into the 8 x 11 banker table, in the seed's own shape.

Each house module writes its table as the seed prints it (000 and 004: the card lists per
banker total; 001: its "Banco Hand" rows; 002: its stands / draws lists per punter's third
card; 003: the K / R / V grid, columns 1..9 then 0) and hands it to one builder here. The
builders refuse a cell given twice or a printed row that does not list each third card once,
so a slip in transcription fails at import. A card printed as "10" or "Face card or ten" is a
third card worth 0 points (000 Table I).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from shoe_daemon.game.rules import THIRD_CARDS, TOTALS, Play, Ruling

#: A cell's play, as the house modules write it (003's K, R, V).
DRAW, STAND, OPTION = Play.DRAW, Play.STAND, Play.OPTION

CARD_THIRDS: tuple[int, ...] = tuple(c for c in THIRD_CARDS if c is not None)  # 0..9

#: The banker's table while it is being built: (his total, punter's third points | None) -> cell.
BankerTable = dict[tuple[int, int | None], Ruling]


def printed_cards(printed: str) -> tuple[int, ...]:
    """A printed list of third cards ("1, 2, 3, 10", "0,1,2.", "—", "") -> points.

    The seeds' "10" is a ten: 0 points (000 Table I)."""
    items = [x.strip().rstrip(".") for x in printed.replace("—", "").split(",")]
    return tuple(0 if x == "10" else int(x) for x in items if x)


def rulings(spec: Iterable[tuple[Iterable[int], Play, str]]) -> dict[int, Ruling]:
    """A punter's rule: [(totals, play, source), ...] -> {total: Ruling}, each total once."""
    out: dict[int, Ruling] = {}
    for totals, play, source in spec:
        for t in totals:
            if t in out:
                raise ValueError(f"total {t} given twice")
            out[t] = Ruling(play, source)
    return out


def put(table: BankerTable, total: int, thirds: Iterable[int | None], r: Ruling) -> None:
    """Give `r` to the cells of row `total` under `thirds`; a cell given twice is a slip."""
    for c in thirds:
        if (total, c) in table:
            raise ValueError(f"banker cell {(total, c)} given twice")
        table[(total, c)] = r


def whole_rows(table: BankerTable, totals: Iterable[int], r: Ruling) -> None:
    """A row printed for every case, the punter's stand included ("always draws")."""
    for t in totals:
        put(table, t, THIRD_CARDS, r)


def card_list_rows(
    table: BankerTable,
    rows: Mapping[int, tuple[str, str, str]],
    headings: tuple[str, str, str],
    where: str,
) -> None:
    """000 Table II / 004 chart: per banker total, the printed (draw, no draw, optional) lists."""
    for total, lists in rows.items():
        seen: list[int] = []
        for play, heading, printed in zip((DRAW, STAND, OPTION), headings, lists, strict=True):
            cards = printed_cards(printed)
            seen += cards
            source = f'{where} row {total}, "{heading}": {printed}'
            put(table, total, cards, Ruling(play, source))
        if sorted(seen) != list(CARD_THIRDS):
            raise ValueError(f"{where} row {total} does not list each third card once: {seen}")


_GRID_LETTERS = {"K": DRAW, "R": STAND, "V": OPTION}


def grid_rows(table: BankerTable, columns: str, rows: Mapping[int, str], where: str) -> None:
    """003's grid: per banker total a row of K / R / V under the printed column heads."""
    heads = [int(c) for c in columns.split()]
    for total, row in rows.items():
        for col, letter in zip(heads, row.split(), strict=True):
            put(
                table,
                total,
                [col],
                Ruling(_GRID_LETTERS[letter], f"{where} row {total} col {col}: {letter}"),
            )


_OR = re.compile(r"\(or (\d)\)")


def by_third_card(
    table: BankerTable,
    rows: Iterable[tuple[str, tuple[int | None, ...], str, str]],
    where: str,
) -> None:
    """002's table: per punter's third card, the banker totals he stands on / draws to.

    A total printed "(or N)" in both lists is the banker's option."""
    for gives, thirds, stands, draws in rows:
        optional = set(map(int, _OR.findall(stands))) & set(map(int, _OR.findall(draws)))
        cells: dict[int, Ruling] = {}
        for play, heading, printed in (
            (STAND, "BANKER STANDS ON", stands),
            (DRAW, "BANKER DRAWS TO", draws),
        ):
            for t in printed_cards(_OR.sub("", printed)):
                cells[t] = Ruling(play, f'{where}, "{gives}": "{heading}" {printed}')
        for t in optional:
            cells[t] = Ruling(OPTION, f'{where}, "{gives}": {t} under both, "{stands}" / "{draws}"')
        if sorted(cells) != list(TOTALS):
            raise ValueError(f"{where} {gives!r} does not give each total 0..7 once")
        for t, r in cells.items():
            put(table, t, thirds, r)


def fill(table: BankerTable, rows: Iterable[int], thirds: Iterable[int | None], r: Ruling) -> None:
    """Give `r` to every not yet filled cell of `rows` x `thirds` (the seed's blanks)."""
    for t in rows:
        for c in thirds:
            table.setdefault((t, c), r)

