"""The six house profiles, as data transcribed from the seed documents.

Each seed's drawing table is written below in the seed's own shape (000 and 004: the
printed card lists per banker total; 001: its "Banco Hand" rows; 002: its stands / draws
lists per punter's third card; 003: the K / R / V grid, columns 1..9 then 0), and turned
into the 8 x 11 `banker_table` by a small helper. A card printed as "10" or "Face card or
ten" is a third card worth 0 points (000 Table I). Quoted text in a source string is the
seed's own wording (whitespace aside); a source beginning "not printed in" is a decision,
listed with its reasons in docs/rules.md.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from types import MappingProxyType

from shoe_daemon.game.rules import (
    NOT_PRINTED,
    THIRD_CARDS,
    TOTALS,
    FaceUp,
    Game,
    HouseProfile,
    Play,
    Ruling,
)

DRAW, STAND, OPTION = Play.DRAW, Play.STAND, Play.OPTION

SEED_000 = "000_7ef4859660e2739e.txt"
SEED_001 = "001_c9a8c45f542707e7.txt"
SEED_002 = "002_96868f8ec6f978b2.txt"
SEED_003 = "003_6936dfded619512e.txt"
SEED_004 = "004_6544e85835ed77c0.txt"

CARD_THIRDS: tuple[int, ...] = tuple(c for c in THIRD_CARDS if c is not None)  # 0..9

BankerTable = dict[tuple[int, int | None], Ruling]


# --- helpers ------------------------------------------------------------------------------


def _cards(printed: str) -> tuple[int, ...]:
    """A printed list of third cards ("1, 2, 3, 10", "0,1,2.", "—", "") -> points.

    The seeds' "10" is a ten: 0 points (000 Table I)."""
    items = [x.strip().rstrip(".") for x in printed.replace("—", "").split(",")]
    return tuple(0 if x == "10" else int(x) for x in items if x)


def _rulings(spec: Iterable[tuple[Iterable[int], Play, str]]) -> dict[int, Ruling]:
    """[(totals, play, source), ...] -> {total: Ruling}; every total 0..7 exactly once."""
    out: dict[int, Ruling] = {}
    for totals, play, source in spec:
        for t in totals:
            if t in out:
                raise ValueError(f"total {t} given twice")
            out[t] = Ruling(play, source)
    return out


def _put(table: BankerTable, total: int, thirds: Iterable[int | None], r: Ruling) -> None:
    for c in thirds:
        if (total, c) in table:
            raise ValueError(f"banker cell {(total, c)} given twice")
        table[(total, c)] = r


def _whole_row(table: BankerTable, totals: Iterable[int], r: Ruling) -> None:
    """A row printed for every case, the punter's stand included ("always draws")."""
    for t in totals:
        _put(table, t, THIRD_CARDS, r)


def _card_list_rows(
    table: BankerTable,
    rows: Mapping[int, tuple[str, str, str]],
    headings: tuple[str, str, str],
    where: str,
) -> None:
    """000 Table II / 004 chart: per banker total, the printed (draw, no draw, optional) lists."""
    for total, lists in rows.items():
        seen: list[int] = []
        for play, heading, printed in zip((DRAW, STAND, OPTION), headings, lists, strict=True):
            cards = _cards(printed)
            seen += cards
            source = f'{where} row {total}, "{heading}": {printed}'
            _put(table, total, cards, Ruling(play, source))
        if sorted(seen) != list(CARD_THIRDS):
            raise ValueError(f"{where} row {total} does not list each third card once: {seen}")


_GRID_LETTERS = {"K": DRAW, "R": STAND, "V": OPTION}


def _grid_rows(table: BankerTable, columns: str, rows: Mapping[int, str], where: str) -> None:
    """003's grid: per banker total a row of K / R / V under the printed column heads."""
    heads = [int(c) for c in columns.split()]
    for total, row in rows.items():
        for col, letter in zip(heads, row.split(), strict=True):
            _put(
                table,
                total,
                [col],
                Ruling(_GRID_LETTERS[letter], f"{where} row {total} col {col}: {letter}"),
            )


_OR = re.compile(r"\(or (\d)\)")


def _by_third_card(
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
            for t in _cards(_OR.sub("", printed)):
                cells[t] = Ruling(play, f'{where}, "{gives}": "{heading}" {printed}')
        for t in optional:
            cells[t] = Ruling(OPTION, f'{where}, "{gives}": {t} under both, "{stands}" / "{draws}"')
        if sorted(cells) != list(TOTALS):
            raise ValueError(f"{where} {gives!r} does not give each total 0..7 once")
        for t, r in cells.items():
            _put(table, t, thirds, r)


def _fill(table: BankerTable, rows: Iterable[int], thirds: Iterable[int | None], r: Ruling) -> None:
    """Give `r` to every not yet filled cell of `rows` x `thirds` (the seed's blanks)."""
    for t in rows:
        for c in thirds:
            table.setdefault((t, c), r)


# --- decisions shared by several profiles (docs/rules.md, "Cells not printed") ------------

_ROWS_0_2 = (
    'a banker with 0, 1 or 2 draws, as every seed that prints it says (001 "0,1,2. Draws '
    'third card", 002, 003 "Der Bankhalter zieht in jedem Fall seine dritte Karte.", '
    '004 "always draws")'
)
_ROW_7 = (
    'a banker with 7 stands, as every seed that prints it says (001 "7 Stands", 002, '
    '003 "Der Bankhalter zieht keine dritte Karte für sich.", 004 "never draws")'
)
_RULE_20 = '"No information for an undrawn card"'


def _stood_decision(seed: str, total: int) -> Ruling:
    """The punter-stood column of a seed that does not print one (000, 001, 004)."""
    head = f"{NOT_PRINTED}{seed}: no column for a punter who stood (Reste); "
    if total == 5:
        return Ruling(
            OPTION,
            head + f"000 rule 20 leaves a banker with 5 after Reste to himself ({_RULE_20}), "
            "so no faux tirage can be charged there",
        )
    play = DRAW if total < 5 else STAND
    return Ruling(
        play,
        head + f"{'draws' if play is DRAW else 'stands'} on {total} as 002 "
        '"Opponent stands" (6, 7 / 5, 4, 3, 2, 1, 0) and 003 "fünf oder weniger Punkte"; '
        f"only 5 is left open, by 000 rule 20 ({_RULE_20})",
    )


_SIX_PACKS = (
    'the number of packs is not given; 6 as 000 ("six packs of playing cards") and 003 '
    '("Üblicherweise werden beim Baccara sechs Kartenspiele"); the operator sets the real '
    "count with BTN,SHOE,<decks>"
)
_FACE_UP_EXPOSED = (
    "nothing on a card that leaves the shoe face up; exposed (the card stays in play, "
    "seen by all) as 000 rules 6 and 8, the only rules of that kind besides 001's"
)


# --- 000: International Casino Zoppot, 1934 -----------------------------------------------

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
    _card_list_rows(t, ZOPPOT_TABLE_II, ZOPPOT_TABLE_II_HEADINGS, "000 Table II")
    rule_20 = f'000 rule 20: after "Reste" a banker with 5 pips gets {_RULE_20}'
    _put(t, 5, [None], Ruling(OPTION, rule_20))
    rows_0_2 = f"{NOT_PRINTED}000: Table II starts at 3; {_ROWS_0_2}"
    _fill(t, (0, 1, 2), THIRD_CARDS, Ruling(DRAW, rows_0_2))
    _fill(t, (7,), THIRD_CARDS, Ruling(STAND, f"{NOT_PRINTED}000: Table II ends at 6; {_ROW_7}"))
    for total in (3, 4, 6):
        r = _stood_decision("000", total)
        if total == 6:
            r = Ruling(
                r.play,
                r.source + '; 000 rule 20 gives no information on 6 only "in a free game"',
            )
        _put(t, total, [None], r)
    return t


_ZOPPOT_PUNTER = _rulings(
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
    seed=SEED_000,
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
)


# --- 001: The Clermont Club, London, 2015 --------------------------------------------------

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
    _whole_row(t, (0, 1, 2), Ruling(DRAW, '001 Banco Hand: "0,1,2. Draws third card"'))
    _whole_row(t, (7,), Ruling(STAND, '001 Banco Hand: "7 Stands"'))
    for total, lists in CLERMONT_BANCO_HAND.items():
        for play, heading, printed in zip(
            (DRAW, STAND, OPTION), CLERMONT_BANCO_HAND_HEADINGS, lists, strict=True
        ):
            if printed:
                _put(
                    t,
                    total,
                    _cards(printed),
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
        _fill(t, [total], CARD_THIRDS, blank)
        _put(t, total, [None], _stood_decision("001", total))
    return t


_CLERMONT_FREE = "Players are free to abide by or ignore the table"
_CLERMONT_DECIDES = '001: the punter "decides whether or not to call for a third card"'

CLERMONT = HouseProfile(
    name="clermont-2015",
    seed=SEED_001,
    house="The Clermont Club, London, 2015",
    game=Game.CHEMIN_DE_FER,
    packs=6,
    packs_source=f"{NOT_PRINTED}001: {_SIX_PACKS}",
    cut_cards_behind=None,
    cut_source=f"{NOT_PRINTED}001: no cut card or last coup is mentioned",
    punter_free=True,
    banker_free=True,
    free_source=(
        f'001: "{_CLERMONT_FREE}"; "Those who wish to abide by the Rule Table must tell the '
        'Croupier" (BTN,TABLE)'
    ),
    punter_rule=_rulings(
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
    punter_table=_rulings(
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
)


# --- 002: a computer version's rules ("eight packs") --------------------------------------

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
    _by_third_card(t, EIGHT_PACK_TABLE, "002 table")
    return t


_EIGHT_PACK_PUNTER = _rulings(
    [
        (range(0, 5), DRAW, '002: the opponent "must draw to a zero, one, two, three, or four"'),
        ([5], OPTION, '002: the opponent "has the option on five"'),
        ((6, 7), STAND, '002: "The opponent must stand on six or seven"'),
    ]
)

EIGHT_PACK = HouseProfile(
    name="eight-pack",
    seed=SEED_002,
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
        f"{NOT_PRINTED}002: {_FACE_UP_EXPOSED} (002 has only "
        '"The additional card, if given, is face up")'
    ),
    commission_percent=None,
    commission_source=f"{NOT_PRINTED}002: no commission is mentioned",
    faux_tirage_source=(
        f"{NOT_PRINTED}002: nothing on a card drawn against the table; redressed as 000 rule 21 "
        '("faux tirage")'
    ),
)


# --- 003: Grand Casino Baden, Chemin de fer -------------------------------------------------

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
    _grid_rows(t, BADEN_GRID_COLUMNS, BADEN_GRID, "003 Ziehungsregel grid")
    for total in TOTALS:
        if total <= 5:
            r = Ruling(DRAW, f"003 Dritte Karte für den Bankhalter: {_BADEN_NO_THIRD}")
        else:
            r = Ruling(
                STAND,
                '003 Dritte Karte für den Bankhalter: "Bei 6 oder 7 Punkten zieht er '
                'somit keine dritte Karte für sich."',
            )
        _put(t, total, [None], r)
    _put(
        t,
        0,
        CARD_THIRDS,
        Ruling(
            DRAW,
            f"003 Ziehungsregel grid row 0: {_BADEN_ROWS_0_2}",
        ),
    )
    for total in (1, 2):
        _put(
            t,
            total,
            CARD_THIRDS,
            Ruling(
                DRAW,
                f"003 Ziehungsregel grid row {total} (row 0's cell spans 0-2): {_BADEN_ROWS_0_2}",
            ),
        )
    _put(
        t,
        7,
        CARD_THIRDS,
        Ruling(
            STAND,
            '003 Ziehungsregel grid row 7: "Der Bankhalter zieht keine dritte Karte für sich."',
        ),
    )
    return t


_BADEN_PUNTER = _rulings(
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
    seed=SEED_003,
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
        "(banco solo) do both sides play free, which shoe-line-protocol v1 cannot signal "
        "(BTN,TABLE only binds), so both default to bound"
    ),
    punter_rule=_BADEN_PUNTER,
    punter_table=_BADEN_PUNTER,
    banker_table=_baden_banker(),
    face_up=FaceUp.EXPOSED,
    face_up_source=f"{NOT_PRINTED}003: {_FACE_UP_EXPOSED}",
    commission_percent=Decimal("5"),
    commission_source=(
        '003 Falls der Bankhalter gewinnt: "die Taxe für das Casino, meistens 5 Prozent"; the '
        'worked example takes "Taxe Fr. 30" on Fr. 600 won'
    ),
    faux_tirage_source=_BADEN_FAUX_TIRAGE,
)


# --- 003: Grand Casino Baden, Punto Banco ---------------------------------------------------

_PB = (
    f'{NOT_PRINTED}003: PUNTO BANCO names "einem festen Ziehungschema" but does not print it; '
    "standard Punto Banco tableau: "
)
# The standard tableau (not in any seed): the banker's total -> the player's third cards he
# draws on. 0-2 always draw, 7 always stands; a player who stood: draw 0-5, stand 6-7.
PUNTO_BANCO_DRAWS_ON: Mapping[int, tuple[int, ...]] = {
    0: CARD_THIRDS,
    1: CARD_THIRDS,
    2: CARD_THIRDS,
    3: (0, 1, 2, 3, 4, 5, 6, 7, 9),
    4: (2, 3, 4, 5, 6, 7),
    5: (4, 5, 6, 7),
    6: (6, 7),
    7: (),
}


def _punto_banco_banker() -> BankerTable:
    t: BankerTable = {}
    for total, draws_on in PUNTO_BANCO_DRAWS_ON.items():
        if not draws_on:
            said = f"Banco with {total} stands"
        elif draws_on == CARD_THIRDS:
            said = f"Banco with {total} draws on any third card of Punto"
        else:
            cards = ", ".join(map(str, draws_on))
            said = f"Banco with {total} draws when Punto's third card is {cards}"
        for c in CARD_THIRDS:
            _put(t, total, [c], Ruling(DRAW if c in draws_on else STAND, _PB + said))
        stood = DRAW if total <= 5 else STAND
        _put(
            t,
            total,
            [None],
            Ruling(
                stood, _PB + f"Punto stood: Banco {stood.value}s on {total} (draws 0-5, stands 6-7)"
            ),
        )
    return t


_PUNTO_BANCO_PUNTER = _rulings(
    [
        (range(0, 6), DRAW, _PB + "Punto draws on 0-5"),
        ((6, 7), STAND, _PB + "Punto stands on 6-7"),
    ]
)

BADEN_PUNTO_BANCO = HouseProfile(
    name="baden-punto-banco",
    seed=SEED_003,
    house="Grand Casino Baden, Punto Banco",
    game=Game.PUNTO_BANCO,
    packs=6,
    packs_source='003 PUNTO BANCO: "werden beim Punto Banco sechs Kartenspiele mit je 52 Karten"',
    cut_cards_behind=None,
    cut_source=f"{NOT_PRINTED}003: PUNTO BANCO gives no cut card or last coup",
    punter_free=False,
    banker_free=False,
    free_source=(
        '003 PUNTO BANCO: "Der Croupier teilt nach einem festen Ziehungschema an Punto und Banco '
        'jeweils bis zu drei Karten aus"; no side has a choice'
    ),
    punter_rule=_PUNTO_BANCO_PUNTER,
    punter_table=_PUNTO_BANCO_PUNTER,
    banker_table=_punto_banco_banker(),
    face_up=FaceUp.EXPOSED,
    face_up_source=f"{NOT_PRINTED}003: {_FACE_UP_EXPOSED}",
    commission_percent=Decimal("5"),
    commission_source=(
        '003 PUNTO BANCO, on Banco: "erhalten Sie den einfachen Einsatz abzüglich 5% Taxe '
        'als Gewinn"'
    ),
    egalite_pays=8,  # 003: "wird die Chance «Egalité» achtfach (8:1) ausgezahlt"
    swiss_nine=True,  # 003: "Am Punto Banco-Tisch bieten wir das Zusatzspiel Swiss Nine an."
    faux_tirage_source=(
        f"{NOT_PRINTED}003: PUNTO BANCO says nothing on a wrong draw; put right as the "
        'Chemin de fer part says: "wird vom Croupier im Nachhinein richtig gestellt"'
    ),
)


# --- 004: an introduction to Chemin-de-fer ("Shimmy") ---------------------------------------

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
    _whole_row(t, (0, 1, 2), Ruling(DRAW, '004 banker\'s play: "0,1,2 always draws"'))
    _whole_row(t, (7,), Ruling(STAND, '004 banker\'s play: "7 never draws any card"'))
    _card_list_rows(t, SHIMMY_CHART, SHIMMY_CHART_HEADINGS, "004 banker's play")
    for total in SHIMMY_CHART:
        _put(t, total, [None], _stood_decision("004", total))
    return t


_SHIMMY_PUNTER = _rulings(
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
    seed=SEED_004,
    house='an introduction to Chemin-de-fer ("Shimmy")',
    game=Game.CHEMIN_DE_FER,
    packs=6,
    packs_source=f"{NOT_PRINTED}004: {_SIX_PACKS}",
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
    face_up_source=f"{NOT_PRINTED}004: {_FACE_UP_EXPOSED}",
    commission_percent=Decimal("5"),
    commission_source=(
        '004: "if it is a casino game they are taxed 5 per cent as casino commission"'
    ),
    faux_tirage_source=(
        f"{NOT_PRINTED}004: nothing on a card drawn against the chart; redressed as 000 rule 21 "
        '("faux tirage")'
    ),
)


# --- the registry ----------------------------------------------------------------------------

PROFILES: Mapping[str, HouseProfile] = MappingProxyType(
    {p.name: p for p in (ZOPPOT, CLERMONT, EIGHT_PACK, BADEN, BADEN_PUNTO_BANCO, SHIMMY)}
)


class UnknownProfileError(KeyError, ValueError):
    """An unknown house profile name (a KeyError and a ValueError)."""

    def __str__(self) -> str:
        return str(self.args[0])


def get_profile(name: str, packs: int | None = None) -> HouseProfile:
    """The house profile `name`; `packs` (the shoe's BTN,SHOE,<decks>) overrides its packs."""
    try:
        profile = PROFILES[name]
    except (KeyError, TypeError):
        raise UnknownProfileError(
            f"unknown house profile {name!r}; valid: {', '.join(PROFILES)}"
        ) from None
    if packs is None:
        return profile
    if isinstance(packs, bool) or not isinstance(packs, int) or packs < 1:
        raise ValueError(f"packs must be a positive number of packs, not {packs!r}")
    if packs == profile.packs:
        return profile
    return dataclasses.replace(
        profile,
        packs=packs,
        packs_source=f"BTN,SHOE,{packs} (house default {profile.packs}: {profile.packs_source})",
    )
