"""An introduction to Chemin-de-fer ("Shimmy"): seed 004_6544e85835ed77c0.txt.

004's "banker's play" chart is written as printed, a list of third cards per banker total
for rows 3-6 under "draws if giving", "does not draw if giving" and "optional"; rows 0-2 and
7 are its "always draws" / "never draws". The punter-stood column and the packs are
decisions (docs/rules.md, "Decisions" 2 and 6).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from shoe_daemon.game.houses.decisions import (
    FACE_UP_EXPOSED,
    NO_PARTNER,
    SIX_PACKS,
    as_zoppot,
    not_here,
    stood_decision,
)
from shoe_daemon.game.houses.transcription import (
    DRAW,
    OPTION,
    STAND,
    BankerTable,
    card_list_rows,
    put,
    rulings,
    whole_rows,
)
from shoe_daemon.game.rules import NOT_PRINTED, FaceUp, Game, HouseProfile, Report, Ruling

SEED = "004_6544e85835ed77c0.txt"

# 004 "Chemin-de-fer - banker's play", rows 3-6: (draws if giving, does not draw if giving,
# optional), as printed.
SHIMMY_CHART_HEADINGS = ("draws if giving", "does not draw if giving", "optional")
SHIMMY_CHART: Mapping[int, tuple[str, str, str]] = {
    3: ("1,2,3,4,5,6,7,10", "8", "9"),
    4: ("2,3,4,5,6,7", "1,8,9,10", ""),
    5: ("5,6,7", "1,2,3,8,9,10", "4"),
    6: ("6,7", "1,2,3,4,5,8,9,10", ""),
}


def _shimmy_banker() -> BankerTable:
    t: BankerTable = {}
    whole_rows(t, (0, 1, 2), Ruling(DRAW, '004 banker\'s play: "0,1,2 always draws"'))
    whole_rows(t, (7,), Ruling(STAND, '004 banker\'s play: "7 never draws any card"'))
    card_list_rows(t, SHIMMY_CHART, SHIMMY_CHART_HEADINGS, "004 banker's play")
    for total in SHIMMY_CHART:
        put(t, total, [None], stood_decision("004", total))
    return t


_SHIMMY_PUNTER = rulings(
    [
        (range(0, 5), DRAW, '004: "If he has 0,1,2,3, or 4 he must ask for another card"'),
        (
            [5],
            OPTION,
            '004: "If he has a 5-count he is in an a volente (optional) situation and may '
            'either stay put or take a card"',
        ),
        (
            (6, 7),
            STAND,
            '004: "the punter has 6 or 7 he keeps his cards face down and declines to take '
            'another card"',
        ),
    ]
)

SHIMMY = HouseProfile(
    name="shimmy",
    seed=SEED,
    house='an introduction to Chemin-de-fer ("Shimmy")',
    game=Game.CHEMIN_DE_FER,
    packs=6,
    packs_source=f"{NOT_PRINTED}004: {SIX_PACKS}",
    cut_cards_behind=None,
    cut_source=f"{NOT_PRINTED}004: no cut card or last coup is mentioned",
    punter_free=False,
    banker_free=False,
    free_source=(
        '004: the dealer "must either draw one card or stay put as laid down in the following '
        'chart"; the punter "must ask for another card" on 0-4, "declines to take another card" '
        'on 6-7, and has only 5 "a volente (optional)"'
    ),
    punter_rule=_SHIMMY_PUNTER,
    punter_table=_SHIMMY_PUNTER,
    banker_table=_shimmy_banker(),
    face_up=FaceUp.EXPOSED,
    face_up_source=f"{NOT_PRINTED}004: {FACE_UP_EXPOSED}",
    commission_percent=Decimal("5"),
    commission_source=(
        '004: "if it is a casino game they are taxed 5 per cent as casino commission"'
    ),
    faux_tirage_source=(
        f"{NOT_PRINTED}004: nothing on a card drawn against the chart; redressed as 000 rule 21 "
        '("faux tirage")'
    ),
    # What only the croupier sees: 004 prints none of it (docs/rules.md, "Decisions" 12-15).
    croupier_rules={
        Report.PUNTER_BAC: as_zoppot(Report.PUNTER_BAC, "004"),
        Report.BANKER_CARD_LOST: as_zoppot(Report.BANKER_CARD_LOST, "004"),
        Report.CARD_FELL: as_zoppot(Report.CARD_FELL, "004"),
        Report.PARTNER_OBJECTION: not_here("004", NO_PARTNER),
    },
)
