"""The eight-pack rules of a computer version of Chemin de Fer: seed 002_96868f8ec6f978b2.txt.

002's table is written as printed: per "IF BANKER GIVES" line (the punter's third card), the
banker totals under "BANKER STANDS ON" and "BANKER DRAWS TO"; a total "(or 3)" under both is
the banker's option. It prints the punter-stood line ("Opponent stands") too, so every
banker cell is printed.
"""

from __future__ import annotations

from shoe_daemon.game.houses.decisions import FACE_UP_EXPOSED, NO_PARTNER, as_zoppot, not_here
from shoe_daemon.game.houses.transcription import (
    DRAW,
    OPTION,
    STAND,
    BankerTable,
    by_third_card,
    rulings,
)
from shoe_daemon.game.rules import NOT_PRINTED, FaceUp, Game, HouseProfile, Report

SEED = "002_96868f8ec6f978b2.txt"

# 002: IF BANKER GIVES (its third-card points) | BANKER STANDS ON | BANKER DRAWS TO, as printed.
EIGHT_PACK_TABLE: tuple[tuple[str, tuple[int | None, ...], str, str], ...] = (
    ("Face card or ten", (0,), "4, 5, 6, 7", "3, 2, 1, 0"),
    ("Nine", (9,), "4, 5, 6, 7 (or 3)", "2, 1, 0 (or 3)"),
    ("Eight", (8,), "3, 4, 5, 6, 7", "2, 1, 0"),
    ("Seven or six", (7, 6), "7", "6, 5, 4, 3, 2, 1, 0"),
    ("Five or four", (5, 4), "6, 7", "5, 4, 3, 2, 1, 0"),
    ("Three or two", (3, 2), "5, 6, 7", "4, 3, 2, 1, 0"),
    ("Ace", (1,), "4, 5, 6, 7", "3, 2, 1, 0"),
    ("Opponent stands", (None,), "6, 7", "5, 4, 3, 2, 1, 0"),
)


def _eight_pack_banker() -> BankerTable:
    t: BankerTable = {}
    by_third_card(t, EIGHT_PACK_TABLE, "002 table")
    return t


_EIGHT_PACK_PUNTER = rulings(
    [
        (range(0, 5), DRAW, '002: the opponent "must draw to a zero, one, two, three, or four"'),
        ([5], OPTION, '002: the opponent "has the option on five"'),
        ((6, 7), STAND, '002: "The opponent must stand on six or seven"'),
    ]
)

EIGHT_PACK = HouseProfile(
    name="eight-pack",
    seed=SEED,
    house="a computer version's rules",
    game=Game.CHEMIN_DE_FER,
    packs=8,
    packs_source='002: "Eight packs of cards are shuffled together"',
    cut_cards_behind=None,
    cut_source=f"{NOT_PRINTED}002: no cut card or last coup is mentioned",
    punter_free=False,
    banker_free=False,
    free_source=(
        '002 gives both sides fixed rules: the opponent "must stand on six or seven, must draw '
        "to a zero, one, two, three, or four, but has the option on five\"; the banker's table "
        '("BANKER STANDS ON", "BANKER DRAWS TO") leaves him only "(or 3)" against a nine'
    ),
    punter_rule=_EIGHT_PACK_PUNTER,
    punter_table=_EIGHT_PACK_PUNTER,
    banker_table=_eight_pack_banker(),
    face_up=FaceUp.EXPOSED,
    face_up_source=(
        f"{NOT_PRINTED}002: {FACE_UP_EXPOSED} (002 has only "
        '"The additional card, if given, is face up")'
    ),
    commission_percent=None,
    commission_source=f"{NOT_PRINTED}002: no commission is mentioned",
    faux_tirage_source=(
        f"{NOT_PRINTED}002: nothing on a card drawn against the table; redressed as 000 rule 21 "
        '("faux tirage")'
    ),
    # What only the croupier sees: 002 prints none of it (docs/rules.md, "Decisions" 12-15).
    croupier_rules={
        Report.PUNTER_BAC: as_zoppot(Report.PUNTER_BAC, "002"),
        Report.BANKER_CARD_LOST: as_zoppot(Report.BANKER_CARD_LOST, "002"),
        Report.CARD_FELL: as_zoppot(Report.CARD_FELL, "002"),
        Report.PARTNER_OBJECTION: not_here("002", NO_PARTNER),
    },
)
