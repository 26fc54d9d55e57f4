"""Every house profile held against its seed document, cell by cell.

The expected tables below are transcribed straight from docs/seeds/ in each
seed's own shape, independently of shoe_daemon/game/houses/: 000 and 004 as their printed
card lists, 001 as its "Banco Hand" rows, 002 as its stands / draws lists per punter's
third card, 003 as its K / R / V grid. A cell no seed prints is expected with the decision
recorded in docs/rules.md and a source starting "not printed in <seed>".
"""

from __future__ import annotations

import dataclasses
import hashlib
from decimal import Decimal
from pathlib import Path

import pytest

from shoe_daemon.game.houses import PROFILES, get_profile
from shoe_daemon.game.rules import (
    BANKER_KEYS,
    TOTALS,
    FaceUp,
    Game,
    HouseProfile,
    Play,
    Ruling,
    swiss_nine,
)

DRAW, STAND, OPTION = Play.DRAW, Play.STAND, Play.OPTION
LETTER = {"K": DRAW, "R": STAND, "V": OPTION}
ALL_CARDS = list(range(10))  # the punter's third card, points 0..9

SEEDS_DIR = Path(__file__).resolve().parents[1] / "docs" / "seeds"  # verbatim copies
DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules.md"


def points(printed: str) -> list[int]:
    """A printed card list as the seed shows it; "10" (a ten) is 0 points (000 Table I)."""
    out = []
    for item in printed.replace("—", "").split(","):
        item = item.strip().rstrip(".")
        if item:
            out.append(0 if item == "10" else int(item))
    return out


# Expected banker cells: {(total, third | None): (play, printed in the seed?)}
Cells = dict[tuple[int, int | None], tuple[Play, bool]]


def from_card_lists(rows: dict[int, tuple[str, str, str]]) -> Cells:
    """000 Table II / 004 chart: (draws on, does not draw on, optional) per banker total."""
    cells: Cells = {}
    for total, (draws, stands, options) in rows.items():
        for play, printed in ((DRAW, draws), (STAND, stands), (OPTION, options)):
            for card in points(printed):
                cells[(total, card)] = (play, True)
        assert sorted(c for t, c in cells if t == total) == ALL_CARDS, f"transcription row {total}"
    return cells


def whole_rows(totals: tuple[int, ...], play: Play, printed: bool) -> Cells:
    return {(t, c): (play, printed) for t in totals for c in [*ALL_CARDS, None]}


def stood_decision(*totals: int) -> Cells:
    """The punter-stood column where a seed prints none: 0-4 draw, 5 option, 6-7 stand."""
    return {(t, None): (DRAW if t < 5 else OPTION if t == 5 else STAND, False) for t in totals}


# --- 000 Table II ------------------------------------------------------------------------
# has in his hand | he must take a third card | he may not | he may choose
SEED_000_TABLE_II = {
    3: ("1, 2, 3, 4, 5, 6, 7, 10", "8", "9"),
    4: ("2, 3, 4, 5, 6, 7", "1, 8, 9, 10", "—"),
    5: ("5, 6, 7", "1, 2, 3, 8, 9, 10", "4"),
    6: ("6, 7", "1, 2, 3, 4, 5, 8, 9, 10", "—"),
}
EXPECT_000: Cells = {
    **from_card_lists(SEED_000_TABLE_II),
    (5, None): (OPTION, True),  # rule 20: "No information for an undrawn card"
    **stood_decision(3, 4, 6),
    **whole_rows((0, 1, 2), DRAW, False),
    **whole_rows((7,), STAND, False),
}

# --- 001 Banco Hand ------------------------------------------------------------------------
# "0,1,2. Draws third card"; rows 3-6: Draws when Punto's third card is | Stands | Optional
# Draw (blank cells ""); "7 Stands".
SEED_001_BANCO_HAND = {
    3: ("0,1,2,3,4,5,6,7.", "8", "9"),
    4: ("2,3,4,5,6,7.", "", ""),
    5: ("5,6,7.", "", "4"),
    6: ("6,7.", "", ""),
}


def expect_001() -> Cells:
    cells: Cells = {**whole_rows((0, 1, 2), DRAW, True), **whole_rows((7,), STAND, True)}
    for total, (draws, stands, options) in SEED_001_BANCO_HAND.items():
        for card in ALL_CARDS:
            cells[(total, card)] = (STAND, False)  # blank cell: not in any printed list
        for play, printed in ((DRAW, draws), (STAND, stands), (OPTION, options)):
            for card in points(printed):
                cells[(total, card)] = (play, True)
    cells.update(stood_decision(3, 4, 5, 6))
    return cells


# --- 002 table --------------------------------------------------------------------------------
# IF BANKER GIVES | BANKER STANDS ON | BANKER DRAWS TO; a total under "(or N)" in both: option.
SEED_002_TABLE = [
    ("Face card or ten", [0], "4, 5, 6, 7", "3, 2, 1, 0"),
    ("Nine", [9], "4, 5, 6, 7 (or 3)", "2, 1, 0 (or 3)"),
    ("Eight", [8], "3, 4, 5, 6, 7", "2, 1, 0"),
    ("Seven or six", [7, 6], "7", "6, 5, 4, 3, 2, 1, 0"),
    ("Five or four", [5, 4], "6, 7", "5, 4, 3, 2, 1, 0"),
    ("Three or two", [3, 2], "5, 6, 7", "4, 3, 2, 1, 0"),
    ("Ace", [1], "4, 5, 6, 7", "3, 2, 1, 0"),
    ("Opponent stands", [None], "6, 7", "5, 4, 3, 2, 1, 0"),
]


def expect_002() -> Cells:
    cells: Cells = {}
    for _gives, thirds, stands, draws in SEED_002_TABLE:
        for third in thirds:
            for total in points(stands.replace("(or 3)", "")):
                cells[(total, third)] = (STAND, True)
            for total in points(draws.replace("(or 3)", "")):
                cells[(total, third)] = (DRAW, True)
            if "(or 3)" in stands and "(or 3)" in draws:
                cells[(3, third)] = (OPTION, True)
            assert sorted(t for t, c in cells if c == third) == list(TOTALS)
    return cells


# --- 003 Ziehungsregel grid ---------------------------------------------------------------------
SEED_003_COLUMNS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]
SEED_003_GRID = {
    3: "K K K K K K K R V K",
    4: "R K K K K K K R R R",
    5: "R R R V K K K R R R",
    6: "R R R R R K K R R R",
}


def expect_003() -> Cells:
    # rows 0-2 "zieht in jedem Fall", 7 "zieht keine dritte Karte"; punter stood: the text
    # "fünf oder weniger Punkte" -> 0-5 draw, "Bei 6 oder 7 Punkten" -> stand.
    cells: Cells = {**whole_rows((0, 1, 2), DRAW, True), **whole_rows((7,), STAND, True)}
    for total, row in SEED_003_GRID.items():
        for col, letter in zip(SEED_003_COLUMNS, row.split(), strict=True):
            cells[(total, col)] = (LETTER[letter], True)
        cells[(total, None)] = (DRAW if total <= 5 else STAND, True)
    return cells


# --- 003 Punto Banco: the standard tableau, which 003 names but does not print ------------------
# columns 1..9, 0, then the player stood
STANDARD_PUNTO_BANCO = {
    0: "K K K K K K K K K K K",
    1: "K K K K K K K K K K K",
    2: "K K K K K K K K K K K",
    3: "K K K K K K K R K K K",
    4: "R K K K K K K R R R K",
    5: "R R R K K K K R R R K",
    6: "R R R R R K K R R R R",
    7: "R R R R R R R R R R R",
}


def expect_punto_banco() -> Cells:
    cells: Cells = {}
    for total, row in STANDARD_PUNTO_BANCO.items():
        for col, letter in zip([*SEED_003_COLUMNS, None], row.split(), strict=True):
            cells[(total, col)] = (LETTER[letter], False)
    return cells


# --- 004 banker's play ------------------------------------------------------------------------
# having | draws if giving | does not draw if giving | optional; "0,1,2 always draws";
# "7 never draws any card".
SEED_004_CHART = {
    3: ("1,2,3,4,5,6,7,10", "8", "9"),
    4: ("2,3,4,5,6,7", "1,8,9,10", ""),
    5: ("5,6,7", "1,2,3,8,9,10", "4"),
    6: ("6,7", "1,2,3,4,5,8,9,10", ""),
}
EXPECT_004: Cells = {
    **whole_rows((0, 1, 2), DRAW, True),
    **whole_rows((7,), STAND, True),
    **from_card_lists(SEED_004_CHART),
    **stood_decision(3, 4, 5, 6),
}

EXPECTED_BANKER: dict[str, Cells] = {
    "zoppot-1934": EXPECT_000,
    "clermont-2015": expect_001(),
    "eight-pack": expect_002(),
    "baden": expect_003(),
    "baden-punto-banco": expect_punto_banco(),
    "shimmy": EXPECT_004,
}


def test_exactly_six_profiles() -> None:
    assert set(PROFILES) == set(EXPECTED_BANKER)
    for name, profile in PROFILES.items():
        assert profile.name == name
        assert isinstance(profile, HouseProfile)


@pytest.mark.parametrize("name", EXPECTED_BANKER)
def test_transcription_complete(name: str) -> None:
    assert sorted(EXPECTED_BANKER[name], key=str) == sorted(BANKER_KEYS, key=str)
    assert sorted(PROFILES[name].banker_table, key=str) == sorted(BANKER_KEYS, key=str)


def _cell_id(case: tuple[str, int, int | None]) -> str:
    name, total, third = case
    return f"{name}-banker{total}-vs-{'stood' if third is None else third}"


BANKER_CASES = [(name, t, c) for name in EXPECTED_BANKER for (t, c) in BANKER_KEYS]


@pytest.mark.parametrize("case", BANKER_CASES, ids=[_cell_id(c) for c in BANKER_CASES])
def test_banker_cell(case: tuple[str, int, int | None]) -> None:
    name, total, third = case
    profile = PROFILES[name]
    play, printed = EXPECTED_BANKER[name][(total, third)]
    ruling = profile.banker_ruling(total, third)
    assert ruling is profile.banker_table[(total, third)]
    assert ruling.play is play, ruling.source
    assert ruling.printed is printed, ruling.source
    if printed:
        assert ruling.source[:4] in (profile.seed[:3] + " ", profile.seed[:3] + ":"), ruling.source
    else:
        assert ruling.source.startswith(f"not printed in {profile.seed[:3]}: "), ruling.source


# --- the punter ----------------------------------------------------------------------------
# name: (free rule 0..7, bound table 0..7, totals of the free rule not printed)
EXPECTED_PUNTER = {
    # 000: Bac..4 "must call for another card", 5 "may choose", 6-7 "always declines"
    "zoppot-1934": ("KKKKKVRR", "KKKKKVRR", ()),
    # 001: free play not printed beyond "decides whether or not"; Player Hand: 0-4 always
    # draws, "5,6,7." does not draw
    "clermont-2015": ("KKKKKVRR", "KKKKKRRR", (0, 1, 2, 3, 4, 6, 7)),
    # 002: "must draw to a zero ... four", "option on five", "must stand on six or seven"
    "eight-pack": ("KKKKKVRR", "KKKKKVRR", ()),
    # 003: 0 bis 4 «Carte», 5 «à Volonté», 6 oder 7 «Reste»
    # 003 free (banco solo): "nach Belieben" on every total below a natural (issue 23's ruling)
    "baden": ("VVVVVVVV", "KKKKKVRR", ()),
    # standard Punto Banco (not printed): Punto draws 0-5
    "baden-punto-banco": ("KKKKKKRR", "KKKKKKRR", tuple(TOTALS)),
    # 004: "must ask" 0-4, 5 "a volente (optional)", 6-7 "declines"
    "shimmy": ("KKKKKVRR", "KKKKKVRR", ()),
}
PUNTER_CASES = [(n, t, b) for n in EXPECTED_PUNTER for t in TOTALS for b in (False, True)]


@pytest.mark.parametrize(
    "case",
    PUNTER_CASES,
    ids=[f"{n}-punter{t}-{'bound' if b else 'free'}" for n, t, b in PUNTER_CASES],
)
def test_punter_cell(case: tuple[str, int, bool]) -> None:
    name, total, bound = case
    profile = PROFILES[name]
    free, table, free_not_printed = EXPECTED_PUNTER[name]
    ruling = profile.punter_ruling(total, bound)
    assert ruling is (profile.punter_table if bound else profile.punter_rule)[total]
    assert ruling.play is LETTER[(table if bound else free)[total]], ruling.source
    printed = not (name == "baden-punto-banco" or (not bound and total in free_not_printed))
    assert ruling.printed is printed, ruling.source


# --- the rest of each profile ---------------------------------------------------------------

EXPECTED_FACTS = {
    "zoppot-1934": dict(
        seed="000_7ef4859660e2739e.txt", game=Game.CHEMIN_DE_FER, packs=6, cut_cards_behind=7,
        punter_free=True, banker_free=True, face_up=FaceUp.EXPOSED, commission_percent=None,
        egalite_pays=None, swiss_nine=False,
    ),
    "clermont-2015": dict(
        seed="001_c9a8c45f542707e7.txt", game=Game.CHEMIN_DE_FER, packs=6, cut_cards_behind=None,
        punter_free=True, banker_free=True, face_up=FaceUp.VOID, commission_percent=Decimal(5),
        egalite_pays=None, swiss_nine=False,
    ),
    "eight-pack": dict(
        seed="002_96868f8ec6f978b2.txt", game=Game.CHEMIN_DE_FER, packs=8, cut_cards_behind=None,
        punter_free=False, banker_free=False, face_up=FaceUp.EXPOSED, commission_percent=None,
        egalite_pays=None, swiss_nine=False,
    ),
    "baden": dict(
        seed="003_6936dfded619512e.txt", game=Game.CHEMIN_DE_FER, packs=6, cut_cards_behind=None,
        punter_free=False, banker_free=False, face_up=FaceUp.EXPOSED,
        commission_percent=Decimal(5), egalite_pays=None, swiss_nine=False,
    ),
    "baden-punto-banco": dict(
        seed="003_6936dfded619512e.txt", game=Game.PUNTO_BANCO, packs=6, cut_cards_behind=None,
        punter_free=False, banker_free=False, face_up=FaceUp.EXPOSED,
        commission_percent=Decimal(5), egalite_pays=8, swiss_nine=True,
    ),
    "shimmy": dict(
        seed="004_6544e85835ed77c0.txt", game=Game.CHEMIN_DE_FER, packs=6, cut_cards_behind=None,
        punter_free=False, banker_free=False, face_up=FaceUp.EXPOSED,
        commission_percent=Decimal(5), egalite_pays=None, swiss_nine=False,
    ),
}
# the facts a seed does not give (their source says "not printed in ...")
FACTS_NOT_PRINTED = {
    "zoppot-1934": {"commission_source"},
    "clermont-2015": {"packs_source", "cut_source"},
    "eight-pack": {"cut_source", "face_up_source", "commission_source", "faux_tirage_source"},
    "baden": {"cut_source", "face_up_source"},
    "baden-punto-banco": {"cut_source", "face_up_source", "faux_tirage_source"},
    "shimmy": {"packs_source", "cut_source", "face_up_source", "faux_tirage_source"},
}
SOURCE_FIELDS = (
    "packs_source", "cut_source", "free_source", "face_up_source", "commission_source",
    "faux_tirage_source",
)  # fmt: skip


@pytest.mark.parametrize("name", EXPECTED_FACTS)
def test_profile_facts(name: str) -> None:
    profile = PROFILES[name]
    for attr, value in EXPECTED_FACTS[name].items():
        assert getattr(profile, attr) == value, attr
    assert isinstance(profile.commission_percent, Decimal | None)
    for attr in SOURCE_FIELDS:
        source = getattr(profile, attr)
        assert source, attr
        not_printed = attr in FACTS_NOT_PRINTED[name]
        assert source.startswith(f"not printed in {profile.seed[:3]}: ") is not_printed, source
        if not not_printed:
            assert source[:4] in (profile.seed[:3] + " ", profile.seed[:3] + ":"), source


def test_punto_banco_has_no_choice_anywhere() -> None:
    profile = PROFILES["baden-punto-banco"]
    rulings = [*profile.banker_table.values(), *profile.punter_rule.values()]
    rulings += profile.punter_table.values()
    assert all(r.play is not OPTION for r in rulings)
    assert all("festen Ziehungschema" in r.source for r in rulings)


def test_only_punto_banco_is_punto_banco() -> None:
    assert [n for n, p in PROFILES.items() if p.game is Game.PUNTO_BANCO] == ["baden-punto-banco"]
    assert [n for n, p in PROFILES.items() if p.swiss_nine] == ["baden-punto-banco"]


# --- quotes in sources are the seeds' own words ------------------------------------------------


def _normal(text: str) -> str:
    return " ".join(text.replace("\xa0", " ").replace('"', "'").split())


def _all_sources(profile: HouseProfile) -> list[str]:
    rulings: list[Ruling] = [*profile.banker_table.values(), *profile.punter_rule.values()]
    rulings += profile.punter_table.values()
    return [r.source for r in rulings] + [getattr(profile, a) for a in SOURCE_FIELDS]


@pytest.mark.parametrize("name", list(PROFILES))
def test_quotes_are_in_the_seeds(name: str) -> None:
    """Every quoted phrase in a source string is the seed's own words (docs/seeds)."""
    profile = PROFILES[name]
    seeds = {p.name[:3]: _normal(p.read_text(encoding="utf-8")) for p in SEEDS_DIR.glob("0*.txt")}
    assert (SEEDS_DIR / profile.seed).is_file()
    for source in _all_sources(profile):
        quotes = source.split('"')[1::2]
        assert len(source.split('"')) % 2 == 1, f"unbalanced quotes: {source}"
        for quote in quotes:
            found = [seed for seed, text in seeds.items() if _normal(quote) in text]
            assert found, f"{quote!r} is in no seed ({source})"
        if not source.startswith("not printed"):
            # a printed cell's quotes come from its own seed
            for quote in quotes:
                assert _normal(quote) in seeds[profile.seed[:3]], f"{quote!r} ({source})"


# --- lookups -------------------------------------------------------------------------------------


@pytest.mark.parametrize("total", [-1, 8, 9, 10, True, "5"])
def test_rulings_refuse_totals_outside_0_to_7(total: object) -> None:
    profile = PROFILES["baden"]
    with pytest.raises(ValueError, match=r"0\.\.7"):
        profile.punter_ruling(total, bound=False)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"0\.\.7"):
        profile.banker_ruling(total, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("third", [-1, 10, "9C", "9", False])
def test_banker_ruling_wants_third_card_points(third: object) -> None:
    with pytest.raises(ValueError, match=r"0\.\.9"):
        PROFILES["baden"].banker_ruling(4, third)  # type: ignore[arg-type]


def test_profiles_are_read_only() -> None:
    profile = PROFILES["baden"]
    with pytest.raises(TypeError):
        profile.banker_table[(3, 8)] = Ruling(DRAW, "x")  # type: ignore[index]
    with pytest.raises(TypeError):
        profile.punter_rule[5] = Ruling(DRAW, "x")  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        profile.packs = 8  # type: ignore[misc]
    with pytest.raises(TypeError):
        PROFILES["x"] = profile  # type: ignore[index]


def test_incomplete_table_is_refused() -> None:
    profile = PROFILES["baden"]
    table = dict(profile.banker_table)
    del table[(4, None)]
    with pytest.raises(ValueError, match="missing"):
        dataclasses.replace(profile, banker_table=table)


# --- get_profile ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PROFILES))
def test_get_profile(name: str) -> None:
    assert get_profile(name) is PROFILES[name]
    assert get_profile(name, None) is PROFILES[name]


@pytest.mark.parametrize("packs", [1, 4, 6, 8])
def test_get_profile_packs_override(packs: int) -> None:
    base = PROFILES["zoppot-1934"]
    profile = get_profile("zoppot-1934", packs=packs)
    assert profile.packs == packs
    if packs != base.packs:
        assert "BTN,SHOE" in profile.packs_source
        assert base.packs_source in profile.packs_source
    for field in dataclasses.fields(HouseProfile):
        if field.name not in ("packs", "packs_source"):
            assert getattr(profile, field.name) == getattr(base, field.name), field.name
    assert PROFILES["zoppot-1934"].packs == 6


@pytest.mark.parametrize("packs", [0, -2, True, "6", 6.0])
def test_get_profile_bad_packs(packs: object) -> None:
    with pytest.raises(ValueError, match="packs"):
        get_profile("baden", packs=packs)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["", "Baden", "zoppot", "punto-banco", None])
def test_get_profile_unknown_name(name: object) -> None:
    for error in (KeyError, ValueError):
        with pytest.raises(error) as info:
            get_profile(name)  # type: ignore[arg-type]
        for valid in EXPECTED_BANKER:
            assert valid in str(info.value)


# --- Swiss Nine (003) ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "won"),
    [
        (("9H", "TD"), ("simple",)),
        (("JS", "9D"), ("simple",)),
        (("QC", "9H"), ("simple",)),
        (("9C", "KD"), ("simple",)),
        (("KS", "9S"), ("simple", "colour")),
        (("9H", "TH"), ("simple", "colour")),
        (("9D", "QD"), ("simple", "colour")),
        (("9C", "QC"), ("simple", "colour", "swiss")),
        (("TC", "9C"), ("simple", "colour", "swiss")),
        (("9H", "9D"), ()),  # a 9 with a 9 is not a ten and a nine
        (("9C", "9C"), ()),
        (("9S", "AS"), ()),  # an ace is worth 1, not 10
        (("5C", "4C"), ()),  # a total of 9 is not enough
        (("8H", "TH"), ()),
        (("TC", "KC"), ()),
        (("2C", "7C"), ()),
    ],
)
def test_swiss_nine(cards: tuple[str, str], won: tuple[str, ...]) -> None:
    assert swiss_nine(cards) == won
    assert swiss_nine(list(reversed(cards))) == won


@pytest.mark.parametrize("cards", [(), ("9C",), ("9C", "TC", "5H"), ("9C", "??"), "9CTC"])
def test_swiss_nine_needs_two_readable_cards(cards: object) -> None:
    with pytest.raises(ValueError):
        swiss_nine(cards)  # type: ignore[arg-type]


# --- docs/rules.md shows the same tables --------------------------------------------------------

DOC_LETTER = {"D": DRAW, "S": STAND, "O": OPTION}


def _doc_table(doc: str, marker: str) -> list[list[str]]:
    start = doc.index(f"<!-- {marker} -->")
    lines = doc[start:].splitlines()[1:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            if rows:
                break
            continue
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows[2:]  # drop the header and the --- line


@pytest.mark.parametrize("name", list(PROFILES))
def test_docs_tables_match(name: str) -> None:
    doc = DOCS.read_text(encoding="utf-8")
    profile = PROFILES[name]
    rows = _doc_table(doc, f"banker: {name}")
    assert [int(r[0]) for r in rows] == list(TOTALS)
    for row in rows:
        total = int(row[0])
        for third, cell in zip([*SEED_003_COLUMNS, None], row[1:], strict=True):
            ruling = profile.banker_table[(total, third)]
            assert DOC_LETTER[cell.strip("*")] is ruling.play, (name, total, third)
            assert cell.endswith("*") is (not ruling.printed), (name, total, third)
    rows = _doc_table(doc, f"punter: {name}")
    assert [int(r[0]) for r in rows] == list(TOTALS)
    for row in rows:
        total = int(row[0])
        for cell, bound in zip(row[1:3], (False, True), strict=True):
            ruling = profile.punter_ruling(total, bound)
            assert DOC_LETTER[cell.strip("*")] is ruling.play, (name, total, bound)
            assert cell.endswith("*") is (not ruling.printed), (name, total, bound)


def test_seed_copies_are_verbatim() -> None:
    """docs/seeds holds the house documents exactly as received (SHA-256 pinned)."""
    sums = (SEEDS_DIR / "SHA256SUMS").read_text().split("\n")
    pinned = dict(reversed(line.split("  ", 1)) for line in sums if line)
    assert len(pinned) == 6
    for name, digest in pinned.items():
        assert hashlib.sha256((SEEDS_DIR / name).read_bytes()).hexdigest() == digest, name
