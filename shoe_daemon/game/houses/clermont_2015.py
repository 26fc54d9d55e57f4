"""The Clermont Club, London, 2015: seed 001_c9a8c45f542707e7.txt.

The "Rule Table" is written as 001 prints it: the "Banco Hand" rows 3-6 with their three
columns (blank cells ""), rows "0,1,2." and "7" whole, and the "Player Hand" for a punter
who abides by the table. 001 prints no free punter's rule, no punter-stood column and no
packs; those are decisions (docs/rules.md, "Decisions" 2, 3, 4 and 6).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from shoe_daemon.game.houses.decisions import (
    NO_PARTNER,
    SIX_PACKS,
    as_zoppot,
    not_here,
    stood_decision,
)
from shoe_daemon.game.houses.transcription import (
    CARD_THIRDS,
    DRAW,
    OPTION,
    STAND,
    BankerTable,
    fill,
    printed_cards,
    put,
    rulings,
    whole_rows,
)
from shoe_daemon.game.rules import NOT_PRINTED, FaceUp, Game, HouseProfile, Report, Ruling

SEED = "001_c9a8c45f542707e7.txt"

# 001 "Banco Hand" rows 3-6: (Draws when Punto's third card is, Stands when ..., Optional Draw);
# the blank cells are "".
CLERMONT_BANCO_HAND: Mapping[int, tuple[str, str, str]] = {
    3: ("0,1,2,3,4,5,6,7.", "8", "9"),
    4: ("2,3,4,5,6,7.", "", ""),
    5: ("5,6,7.", "", "4"),
    6: ("6,7.", "", ""),
}
CLERMONT_BANCO_HAND_HEADINGS = (
    "Draws when Punto's third card is",
    "Stands when Punto's third card is",
    "Optional Draw",
)


def _clermont_banker() -> BankerTable:
    t: BankerTable = {}
    whole_rows(t, (0, 1, 2), Ruling(DRAW, '001 Banco Hand: "0,1,2. Draws third card"'))
    whole_rows(t, (7,), Ruling(STAND, '001 Banco Hand: "7 Stands"'))
    for total, lists in CLERMONT_BANCO_HAND.items():
        for play, heading, printed in zip(
            (DRAW, STAND, OPTION), CLERMONT_BANCO_HAND_HEADINGS, lists, strict=True
        ):
            if printed:
                put(
                    t,
                    total,
                    printed_cards(printed),
                    Ruling(play, f'001 Banco Hand row {total}, "{heading}" {printed}'),
                )
        blank = Ruling(
            STAND,
            f"{NOT_PRINTED}001: Banco Hand row {total} prints only "
            + "; ".join(
                f'"{h}" {p}' for h, p in zip(CLERMONT_BANCO_HAND_HEADINGS, lists, strict=True) if p
            )
            + "; the other cells are blank, so any other third card stands",
        )
        fill(t, [total], CARD_THIRDS, blank)
        put(t, total, [None], stood_decision("001", total))
    return t


_CLERMONT_FREE = "Players are free to abide by or ignore the table"
_CLERMONT_DECIDES = '001: the punter "decides whether or not to call for a third card"'

CLERMONT = HouseProfile(
    name="clermont-2015",
    seed=SEED,
    house="The Clermont Club, London, 2015",
    game=Game.CHEMIN_DE_FER,
    packs=6,
    packs_source=f"{NOT_PRINTED}001: {SIX_PACKS}",
    cut_cards_behind=None,
    cut_source=f"{NOT_PRINTED}001: no cut card or last coup is mentioned",
    punter_free=True,
    banker_free=True,
    free_source=(
        f'001: "{_CLERMONT_FREE}"; "Those who wish to abide by the Rule Table must tell the '
        'Croupier" (BTN,TABLE)'
    ),
    punter_rule=rulings(
        [
            (
                range(0, 5),
                DRAW,
                f"{NOT_PRINTED}001: a free punter's rule is not given ({_CLERMONT_DECIDES}); "
                'draws on 0-4 as 000 ("he must call for another card"), 002, 003 and 004 all '
                "print, "
                "and as shoe-line-protocol v1 assumes (no button there)",
            ),
            (
                [5],
                OPTION,
                f'{_CLERMONT_DECIDES}; "{_CLERMONT_FREE}" '
                '(the Rule Table\'s 5: "Does not draw card")',
            ),
            (
                (6, 7),
                STAND,
                f"{NOT_PRINTED}001: a free punter's rule is not given ({_CLERMONT_DECIDES}); "
                'stands on 6-7 as 000 ("he always declines"), 002, 003 and 004 all print, '
                "and as shoe-line-protocol v1 assumes (no button there)",
            ),
        ]
    ),
    punter_table=rulings(
        [
            (range(0, 5), DRAW, '001 Player Hand row "0,1,2,3,4.": "Always draws card"'),
            ((5, 6, 7), STAND, '001 Player Hand row "5,6,7.": "Does not draw card"'),
        ]
    ),
    banker_table=_clermont_banker(),
    face_up=FaceUp.VOID,
    face_up_source=(
        '001: "Any cards that appear face up in the shoe are automatically null and void"'
    ),
    commission_percent=Decimal("5"),
    commission_source='001: "taking a 5% commission of any sums the banker wins for the Casino"',
    faux_tirage_source=(
        '001: "any rounds that do not comply must be reconstructed by the Inspector according to '
        'the Rule Table"'
    ),
    # What only the croupier sees: 001 prints none of it (docs/rules.md, "Decisions" 12-15).
    croupier_rules={
        Report.PUNTER_BAC: as_zoppot(Report.PUNTER_BAC, "001"),
        Report.BANKER_CARD_LOST: as_zoppot(Report.BANKER_CARD_LOST, "001"),
        Report.CARD_FELL: as_zoppot(Report.CARD_FELL, "001"),
        Report.PARTNER_OBJECTION: not_here("001", NO_PARTNER),
    },
)
