"""Grand Casino Baden, Chemin de fer: seed 003_6936dfded619512e.txt (its Chemin de fer part).

003's Ziehungsregel grid is written as printed, K / R / V under the column heads 1..9 then 0
for banker rows 3-6; rows 0-2 and 7 and the punter-stood column are 003's own sentences.
Every cell is printed. The same seed's Punto Banco part is `baden_punto_banco`.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from shoe_daemon.game.houses.decisions import FACE_UP_EXPOSED, NO_PARTNER, as_zoppot, not_here
from shoe_daemon.game.houses.transcription import (
    CARD_THIRDS,
    DRAW,
    OPTION,
    STAND,
    BankerTable,
    grid_rows,
    put,
    rulings,
)
from shoe_daemon.game.rules import (
    NOT_PRINTED,
    TOTALS,
    FaceUp,
    Game,
    HouseProfile,
    Report,
    Ruling,
)

SEED = "003_6936dfded619512e.txt"

# 003 DIE ZIEHUNGSREGEL FÜR DIE DRITTE KARTE: "Die dritte Karte der Ponte ergibt die
# Punktzahl" (columns) against "Punktezwischenstand des Bankhalters" (rows 3-6), as printed.
BADEN_GRID_COLUMNS = "1 2 3 4 5 6 7 8 9 0"
BADEN_GRID: Mapping[int, str] = {
    3: "K K K K K K K R V K",
    4: "R K K K K K K R R R",
    5: "R R R V K K K R R R",
    6: "R R R R R K K R R R",
}
_BADEN_NO_THIRD = (
    '"Hat die Ponte keine dritte Karte erhalten, nimmt er sich eine weitere Karte, wenn der '
    'Punktwert seiner beiden Karten fünf oder weniger Punkte beträgt."'
)


_BADEN_ROWS_0_2 = '"Der Bankhalter zieht in jedem Fall seine dritte Karte."'


def _baden_banker() -> BankerTable:
    t: BankerTable = {}
    grid_rows(t, BADEN_GRID_COLUMNS, BADEN_GRID, "003 Ziehungsregel grid")
    for total in TOTALS:
        if total <= 5:
            r = Ruling(DRAW, f"003 Dritte Karte für den Bankhalter: {_BADEN_NO_THIRD}")
        else:
            r = Ruling(
                STAND,
                '003 Dritte Karte für den Bankhalter: "Bei 6 oder 7 Punkten zieht er '
                'somit keine dritte Karte für sich."',
            )
        put(t, total, [None], r)
    put(
        t,
        0,
        CARD_THIRDS,
        Ruling(
            DRAW,
            f"003 Ziehungsregel grid row 0: {_BADEN_ROWS_0_2}",
        ),
    )
    for total in (1, 2):
        put(
            t,
            total,
            CARD_THIRDS,
            Ruling(
                DRAW,
                f"003 Ziehungsregel grid row {total} (row 0's cell spans 0-2): {_BADEN_ROWS_0_2}",
            ),
        )
    put(
        t,
        7,
        CARD_THIRDS,
        Ruling(
            STAND,
            '003 Ziehungsregel grid row 7: "Der Bankhalter zieht keine dritte Karte für sich."',
        ),
    )
    return t


_BADEN_PUNTER = rulings(
    [
        (
            range(0, 5),
            DRAW,
            '003 Dritte Karte für Ponte: "Hat die Ponte mit den beiden ersten Karten 0 bis 4 '
            "Punkte erreicht, wird vom Bankhalter eine dritte, offen auf den Tisch zu legende "
            'Karte gegeben."',
        ),
        (
            [5],
            OPTION,
            '003 Dritte Karte für Ponte: "Hat die Ponte 5 Punkte, entscheidet der als '
            'Kartenhalter amtierende Spieler nach seinem Ermessen, also «à Volonté»"',
        ),
        (
            (6, 7),
            STAND,
            '003 Dritte Karte für Ponte: "Bei einem Zwischenstand von 6 oder 7 Punkten wird '
            '«Reste» annonciert"',
        ),
    ]
)

_BADEN_FREE_PUNTER = rulings(
    [
        (
            range(0, 8),
            OPTION,
            '003 DIE ZIEHUNGSREGEL: "Spielt nur ein Ponte gegen den Bankhalter, können beide '
            "nach Belieben eine dritte Karte\" (\"zuerst der Ponte und dann die Bank\"); "
            "issue 23's ruling: a free punter's call is his on any total below a natural",
        ),
    ]
)

_BADEN_PACKS = (
    '003 DIE SPIELKARTEN: "Üblicherweise werden beim Baccara sechs Kartenspiele mit je 52 '
    'Karten verwendet."'
)

_BADEN_FAUX_TIRAGE = (
    '003 DIE ZIEHUNGSREGEL: "Ein falsches Ziehen, die «faux tirages», ist nicht zulässig und '
    'wird vom Croupier im Nachhinein richtig gestellt."'
)

BADEN = HouseProfile(
    name="baden",
    seed=SEED,
    house="Grand Casino Baden, Chemin de fer",
    game=Game.CHEMIN_DE_FER,
    packs=6,
    packs_source=_BADEN_PACKS,
    cut_cards_behind=None,
    cut_source=(
        f'{NOT_PRINTED}003: the cards are cut ("schneiden") but no cut card or last coup is given'
    ),
    punter_free=False,
    banker_free=False,
    free_source=(
        '003 DIE ZIEHUNGSREGEL: "Spielen mehrere Spieler gegen den Bankhalter, unterliegt das '
        'Ziehen der dritten Karte einem feststehenden Schema."; "Banco mit dem Tisch": "In '
        'diesem Fall ist der Banco-Spieler an die Ziehungsregel gebunden."; only when "Spielt '
        'nur ein Ponte gegen den Bankhalter, können beide nach Belieben eine dritte Karte" '
        "(banco solo) do both sides play free: the common case binds, so both default to "
        "bound and the croupier frees a banco solo's sides with BTN,FREE (protocol 1.1)"
    ),
    punter_rule=_BADEN_FREE_PUNTER,
    punter_table=_BADEN_PUNTER,
    banker_table=_baden_banker(),
    face_up=FaceUp.EXPOSED,
    face_up_source=f"{NOT_PRINTED}003: {FACE_UP_EXPOSED}",
    commission_percent=Decimal("5"),
    commission_source=(
        '003 Falls der Bankhalter gewinnt: "die Taxe für das Casino, meistens 5 Prozent"; the '
        'worked example takes "Taxe Fr. 30" on Fr. 600 won'
    ),
    faux_tirage_source=_BADEN_FAUX_TIRAGE,
    # What only the croupier sees: 003 prints none of it (docs/rules.md, "Decisions" 12-15).
    croupier_rules={
        Report.PUNTER_BAC: as_zoppot(Report.PUNTER_BAC, "003"),
        Report.BANKER_CARD_LOST: as_zoppot(Report.BANKER_CARD_LOST, "003"),
        Report.CARD_FELL: as_zoppot(Report.CARD_FELL, "003"),
        Report.PARTNER_OBJECTION: not_here("003", NO_PARTNER),
    },
)
