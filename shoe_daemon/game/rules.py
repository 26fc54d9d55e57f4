"""House drawing rules as data: the types every house profile is made of, and the lookups.

A profile (see `shoe_daemon.game.houses`) is one seed document in docs/seeds/
turned into tables. Every cell is a `Ruling`: what the hand does (003's K / R / V:
draw, stand, or the hand's own choice) and the seed text it comes from. A cell that no
seed prints carries a source starting with ``"not printed in <seed>: "`` and says what was
decided and why; docs/rules.md lists all of them.

Totals are two-card totals 0..7 (8 and 9 are naturals: nobody draws, 000/001/002/003/004
all agree). The banker's table is keyed by his two-card total and the POINTS of the
punter's third card (a ten or a picture is 0, 000 Table I), or None when the punter stood.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from types import MappingProxyType

from shoe_daemon.game.cards import is_card, suit

#: Source prefix of a cell the seed does not print (a decision, see docs/rules.md).
NOT_PRINTED = "not printed in "

#: Two-card totals that leave a decision (8 and 9 are naturals).
TOTALS: tuple[int, ...] = tuple(range(8))
#: Points of the punter's third card, then None: the punter stood (took no third card).
THIRD_CARDS: tuple[int | None, ...] = (*range(10), None)
#: Every key a complete banker table has: 8 totals x 11 third-card cases = 88.
BANKER_KEYS: tuple[tuple[int, int | None], ...] = tuple((t, c) for t in TOTALS for c in THIRD_CARDS)


class Play(StrEnum):
    """What a hand does with a total: 003's legend K / R / V."""

    DRAW = "draw"  # K: "dritte Karte, «Carte»"
    STAND = "stand"  # R: "keine dritte Karte, «Reste»"
    OPTION = "option"  # V: "freie Entscheidung ... (à Volonté)"


class Game(StrEnum):
    CHEMIN_DE_FER = "chemin-de-fer"
    PUNTO_BANCO = "punto-banco"


class FaceUp(StrEnum):
    """What a card that leaves the shoe face up (`CARD,<code>,U`) means."""

    VOID = "void"  # the card is null and void (001)
    EXPOSED = "exposed"  # the card stays in play and is public (000 rules 6, 8)


class Report(StrEnum):
    """What only the croupier sees: a seed's rule that changes a coup in a way the shoe cannot
    sense. The croupier's console reports it; the coup machine applies it (coup/reports.py)."""

    PUNTER_BAC = "punter_bac"  # 000 rule 15: his cards into the discard, his hand a "bac"
    BANKER_CARD_LOST = "banker_card_lost"  # 000 rule 11: the coup is lost to the banker
    CARD_FELL = "card_fell"  # 000 rule 10: a card fallen from the table remains valid
    PARTNER_OBJECTION = "partner_objection"  # 000 rule 4: the banker's play stands


@dataclass(frozen=True, slots=True)
class CroupierRule:
    """One house's cell for one `Report`: whether the house has the rule, the short rule the
    console and its refusals cite (`rule`), and the seed text it comes from (`source`; a
    decision starts "not printed in <seed>: " and says why, as a drawing cell does)."""

    applies: bool
    rule: str  # "000 rule 15"; "000 rule 15, not printed in 003"; "not printed in 003"
    source: str

    @property
    def printed(self) -> bool:
        return not self.source.startswith(NOT_PRINTED)


@dataclass(frozen=True, slots=True)
class Ruling:
    play: Play
    source: str  # "000 Table II row 3, ...", "003 Ziehungsregel grid row 5 col 4", "not printed in"

    @property
    def printed(self) -> bool:
        """True when the seed prints this cell; False for a decision (see `source`)."""
        return not self.source.startswith(NOT_PRINTED)


def _frozen(mapping: Mapping, keys: Sequence, what: str, name: str) -> Mapping:
    missing = [k for k in keys if k not in mapping]
    extra = [k for k in mapping if k not in keys]
    if missing or extra:
        raise ValueError(f"{name}: {what} missing {missing}, unexpected {extra}")
    for key, ruling in mapping.items():
        if not isinstance(ruling, Ruling) or not ruling.source:
            raise ValueError(f"{name}: {what}[{key!r}] is not a sourced Ruling")
    return MappingProxyType({k: mapping[k] for k in keys})


@dataclass(frozen=True)
class HouseProfile:
    name: str  # "zoppot-1934" ...
    seed: str  # seed file name, e.g. "000_7ef4859660e2739e.txt"
    house: str  # "International Casino Zoppot, 1934"
    game: Game
    packs: int
    packs_source: str
    cut_cards_behind: int | None  # cards left behind the cut card; None: the seed is silent
    cut_source: str
    punter_free: bool  # default when no BTN,TABLE,P: the punter plays free (punter_rule)
    banker_free: bool  # default when no BTN,TABLE,B: the banker plays free
    free_source: str
    punter_rule: Mapping[int, Ruling]  # totals 0..7, the punter's rule playing free / by default
    punter_table: Mapping[int, Ruling]  # totals 0..7, bound to the house's table (BTN,TABLE,P)
    banker_table: Mapping[tuple[int, int | None], Ruling]  # (total, punter's 3rd points | None)
    face_up: FaceUp
    face_up_source: str
    commission_percent: Decimal | None  # on the banker's (Banco's) wins; None: not given
    commission_source: str
    egalite_pays: int | None = None  # Punto Banco: 8 (8:1)
    swiss_nine: bool = False  # Punto Banco at Baden reports the Swiss Nine side bets
    faux_tirage_source: str = ""  # the house's rule for a card drawn against the table
    # What only the croupier sees (000 rules 4, 10, 11, 15): one cell per Report, every one
    # given (an empty or partial table is refused).
    croupier_rules: Mapping[Report, CroupierRule] = field(
        default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if isinstance(self.packs, bool) or not isinstance(self.packs, int) or self.packs < 1:
            raise ValueError(f"{self.name}: packs must be a positive int, not {self.packs!r}")
        for attr, keys in (
            ("punter_rule", TOTALS),
            ("punter_table", TOTALS),
            ("banker_table", BANKER_KEYS),
        ):
            object.__setattr__(self, attr, _frozen(getattr(self, attr), keys, attr, self.name))
        rules = self.croupier_rules
        missing = [r.value for r in Report if r not in rules]
        extra = [k for k in rules if k not in tuple(Report)]
        if missing or extra:
            raise ValueError(f"{self.name}: croupier_rules missing {missing}, unexpected {extra}")
        for report, cell in rules.items():
            if not isinstance(cell, CroupierRule) or not cell.source or not cell.rule:
                raise ValueError(f"{self.name}: croupier_rules[{report.value}] is not a sourced "
                                 "CroupierRule")
        object.__setattr__(self, "croupier_rules",
                           MappingProxyType({r: rules[r] for r in Report}))

    def croupier_rule(self, report: Report) -> CroupierRule:
        """The house's cell for what the croupier reports (000 rules 4, 10, 11, 15)."""
        return self.croupier_rules[report]

    def punter_ruling(self, total: int, bound: bool) -> Ruling:
        """The punter's cell for his two-card total: bound -> punter_table, else punter_rule."""
        _check_total(total)
        return (self.punter_table if bound else self.punter_rule)[total]

    def banker_ruling(self, total: int, punter_third: int | None) -> Ruling:
        """The banker's table cell: his two-card total against the punter's third-card
        points (0..9; a ten or picture is 0), or None when the punter stood."""
        _check_total(total)
        if punter_third is not None and (
            isinstance(punter_third, bool) or punter_third not in range(10)
        ):
            raise ValueError(
                f"punter's third card must be its points 0..9 or None, not {punter_third!r}"
            )
        return self.banker_table[(total, punter_third)]


def _check_total(total: int) -> None:
    if isinstance(total, bool) or total not in TOTALS:
        raise ValueError(
            f"a drawing decision needs a two-card total 0..7, not {total!r} (8, 9 are naturals)"
        )


# --- Swiss Nine (003, PUNTO BANCO, "Swiss Nine") -------------------------------------------

SWISS_NINE_BETS: tuple[str, ...] = ("simple", "colour", "swiss")
#: Payouts "x-fach" (times the stake), 003 "Swiss-Nine-Setz- und -Gewinnmöglichkeiten".
SWISS_NINE_PAYS: Mapping[str, int] = MappingProxyType({"simple": 19, "colour": 77, "swiss": 300})
#: 003: "10-wertige Karte": a card worth ten on its face, i.e. a ten or a picture.
_TEN_VALUED = frozenset("TJQK")
_CLUBS = "C"  # 003: "Spielfarbe Kreuz"


def swiss_nine(banker_first_two: Sequence[str]) -> tuple[str, ...]:
    """Winning Swiss Nine bets for the Banco side's first two cards, in SWISS_NINE_BETS order.

    003: "«Simple Nine» = beliebige 10- und 9-wertige Karte" (a T/J/Q/K with a 9, 19x);
    "«Colour Nine» = ... derselben Spielfarbe" (both of one suit, 77x); "«Swiss Nine» = ...
    der Spielfarbe Kreuz" (both clubs, 300x). A clubs pair wins all three bets. Returns ()
    when nothing wins. Raises ValueError unless given exactly two readable card codes.
    """
    if isinstance(banker_first_two, str) or len(banker_first_two) != 2:
        raise ValueError(f"Swiss Nine needs the banker's first two cards, not {banker_first_two!r}")
    first, second = banker_first_two
    if not (is_card(first) and is_card(second)):
        raise ValueError(f"Swiss Nine needs two readable card codes, not {banker_first_two!r}")
    ranks = first[0] + second[0]
    if not (("9" in ranks) and (ranks[0] in _TEN_VALUED or ranks[1] in _TEN_VALUED)):
        return ()
    won = ["simple"]
    if suit(first) == suit(second):
        won.append("colour")
        if suit(first) == _CLUBS:
            won.append("swiss")
    return tuple(won)
