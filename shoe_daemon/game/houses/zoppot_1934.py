"""Zoppot 1934: the International Casino Zoppot's rule booklet, seed 000_7ef4859660e2739e.txt.

Table II is written as 000 prints it, a list of third cards per banker total under its three
headings; it prints rows 3-6 only. The punter's rule is in the "Directions for play"; rules
20 and 21 give the banker's 5 after "Reste" and the faux tirage. Rows 0-2 and 7 and the
punter-stood column are decisions (docs/rules.md, "Decisions" 1 and 2).
"""

from __future__ import annotations

from collections.abc import Mapping

from shoe_daemon.game.houses.decisions import RULE_20, stood_decision, zoppot_rule
from shoe_daemon.game.houses.transcription import (
    DRAW,
    OPTION,
    STAND,
    BankerTable,
    card_list_rows,
    fill,
    put,
    rulings,
)
from shoe_daemon.game.rules import (
    NOT_PRINTED,
    THIRD_CARDS,
    FaceUp,
    Game,
    HouseProfile,
    Report,
    Ruling,
)

SEED = "000_7ef4859660e2739e.txt"

# The rows Table II leaves out (docs/rules.md, "Decisions" 1).
_ROWS_0_2 = (
    'a banker with 0, 1 or 2 draws, as every seed that prints it says (001 "0,1,2. Draws '
    'third card", 002, 003 "Der Bankhalter zieht in jedem Fall seine dritte Karte.", '
    '004 "always draws")'
)
_ROW_7 = (
    'a banker with 7 stands, as every seed that prints it says (001 "7 Stands", 002, '
    '003 "Der Bankhalter zieht keine dritte Karte für sich.", 004 "never draws")'
)

# 000 Table II, "The Banker has in his hand" -> "gives as third card to punter", as printed.
ZOPPOT_TABLE_II_HEADINGS = (
    "he must take a third card for himself",
    "he may not take a third card for himself",
    "he may choose whether to take a third card for himself or not",
)
ZOPPOT_TABLE_II: Mapping[int, tuple[str, str, str]] = {
    3: ("1, 2, 3, 4, 5, 6, 7, 10", "8", "9"),
    4: ("2, 3, 4, 5, 6, 7", "1, 8, 9, 10", "—"),
    5: ("5, 6, 7", "1, 2, 3, 8, 9, 10", "4"),
    6: ("6, 7", "1, 2, 3, 4, 5, 8, 9, 10", "—"),
}


def _zoppot_banker() -> BankerTable:
    t: BankerTable = {}
    card_list_rows(t, ZOPPOT_TABLE_II, ZOPPOT_TABLE_II_HEADINGS, "000 Table II")
    rule_20 = f'000 rule 20: after "Reste" a banker with 5 pips gets {RULE_20}'
    put(t, 5, [None], Ruling(OPTION, rule_20))
    rows_0_2 = f"{NOT_PRINTED}000: Table II starts at 3; {_ROWS_0_2}"
    fill(t, (0, 1, 2), THIRD_CARDS, Ruling(DRAW, rows_0_2))
    fill(t, (7,), THIRD_CARDS, Ruling(STAND, f"{NOT_PRINTED}000: Table II ends at 6; {_ROW_7}"))
    for total in (3, 4, 6):
        r = stood_decision("000", total)
        if total == 6:
            r = Ruling(
                r.play,
                r.source + '; 000 rule 20 gives no information on 6 only "in a free game"',
            )
        put(t, total, [None], r)
    return t


_ZOPPOT_PUNTER = rulings(
    [
        (
            range(0, 5),
            DRAW,
            '000: "If the punter\'s two cards are Bac, 1, 2, 3, or 4" '
            '"he must call for another card"',
        ),
        (
            [5],
            OPTION,
            '000: "If the punter has a total of 5 pips in his first two cards, he may choose '
            'whether to call for another card"',
        ),
        ((6, 7), STAND, '000: "Should he have 6 or 7 pips, he always declines."'),
    ]
)

ZOPPOT = HouseProfile(
    name="zoppot-1934",
    seed=SEED,
    house="International Casino Zoppot, 1934",
    game=Game.CHEMIN_DE_FER,
    packs=6,
    packs_source='000: "The game is played with six packs of playing cards of 52 cards each"',
    cut_cards_behind=7,
    cut_source=(
        '000: "He then counts off seven cards from the bottom of the pack, and inserts another '
        'blank"; "there are only seven more cards, or a \'last coup\' left"; rule 24 '
        '"the requisite seven cards"'
    ),
    punter_free=True,
    banker_free=True,
    free_source=(
        '000: the banker plays by Table II only if "he must announce his intention of doing so '
        'at the commencement of the game, or, he can play free"; the punter likewise (rule 17: '
        '"the first declaration is binding. This applies only to players who have not announced '
        "that they will play 'after the shoe'\"); both free unless BTN,TABLE"
    ),
    punter_rule=_ZOPPOT_PUNTER,
    punter_table=_ZOPPOT_PUNTER,  # 000 prints one punter's rule, for play free and after the shoe
    banker_table=_zoppot_banker(),
    face_up=FaceUp.EXPOSED,
    face_up_source=(
        '000 rule 6: "If this card is uncovered by accident, then the banker must uncover his own '
        'first card too"; rule 8: both uncovered, the banker "must uncover his own two cards '
        "likewise, and play 'after the shoe'\"; the card stays valid and public"
    ),
    commission_percent=None,
    commission_source=(
        f"{NOT_PRINTED}000: \"The croupier deducts a certain percentage ('cagnotte' or "
        'commission)" and does not give it'
    ),
    faux_tirage_source=(
        '000 rule 21: a player who plays after the shoe: "the card which has been called for or '
        'drawn by mistake (faux tirage), is redressed"'
    ),
    # What only the croupier sees: 000 prints all four (rules 4, 10, 11, 15).
    croupier_rules={report: zoppot_rule(report) for report in Report},
)
