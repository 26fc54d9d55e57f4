"""A house's money rules as data: the types every money profile is made of.

A money profile (`shoe_daemon.money.houses`) is one seed document's money rules turned into
`Term`s, as the drawing rules are `Ruling`s (shoe_daemon/game/rules.py): each holds a value
and the seed text it comes from. A term no seed prints has a source starting with
``"not printed in <seed>: "`` that says what was decided and why; docs/money.md lists them.
A refusal or a settlement that applies a term cites its source, so what the croupier reads
is the house's own rule.

A money profile carries its house's drawing profile (`house`), so the two can never name
different houses; where the drawing profile gives a commission's rate, the money profile's
is the same (checked when it is built).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from decimal import Decimal
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from shoe_daemon.game.rules import NOT_PRINTED, Game, HouseProfile
from shoe_daemon.money.amounts import Currency
from shoe_daemon.money.display import Locale

T = TypeVar("T")


@dataclass(frozen=True)
class Term(Generic[T]):
    """One money rule: its value and the seed text it comes from (or the decision)."""

    value: T
    source: str

    def __post_init__(self) -> None:
        if not isinstance(self.source, str) or not self.source.strip():
            raise ValueError(f"a term needs its source, not {self.source!r}")

    @property
    def printed(self) -> bool:
        """True when the seed prints the rule; False for a decision (see `source`)."""
        return not self.source.startswith(NOT_PRINTED)


class Limit(StrEnum):
    """A limit the seed does not fix as a figure."""

    TABLE = "from the table"  # the table's configuration must give it (`money.limits`)
    NONE = "no limit"


class Kind(StrEnum):
    """What a punter declares he plays (000's four kinds of play, 003's Banco forms)."""

    BANCO_SOLO = "banco_solo"  # 000 I: "The punter plays by himself."
    BANCO = "banco"  # 000 II: "The punter plays with a shareholder."
    WITH_TABLE = "banco_with_table"  # 000 III
    TABLE = "table"  # 000 IV: the general game, "a game in which all may share"


class Outsiders(StrEnum):
    """Stakes of players not seated at the table."""

    NONE = "none"  # not taken
    SMALLEST_FIRST = "smallest_first"  # 000: "commencing from the smallest sum"
    AT_BOX = "at_box"  # 001: standing players "may only stake the box in front of them"


class Suivi(StrEnum):
    """Who has the suivi: the right to banco first in the next coup."""

    NONE = "none"
    BANCO_LOST = "banco_lost"  # a punter who played a banco form and lost (000, 001, 004)
    HALF_BANK_OR_BANCO = "half_bank_or_banco"  # 003: lost half the bank or a Banco form


class SuiteWhen(StrEnum):
    """When the banker may give up the bank (Suite, pass)."""

    AFTER_WIN = "after_win"  # 000: "after winning a coup"
    AFTER_WIN_OR_EGALITE = "after_win_or_egalite"  # 003
    AFTER_VALID_COUP = "after_valid_coup"  # 001: "after at least one valid round"
    ANY_TIME = "any_time"  # 004: "at any time pass the bank"
    NEVER = "never"  # 002: the bank rotates after each coup anyway


class AfterPass(StrEnum):
    """Where a bank given up voluntarily goes."""

    AUCTION = "auction"  # 000: the "Suite" is auctioned
    OFFER_THEN_AUCTION = "offer_then_auction"  # 001, 003: offered at the last sum, then auctioned
    NEXT_IN_TURN = "next_in_turn"  # 004: the shoe goes on to the next base


class AuctionTies(StrEnum):
    FIRST_BID = "first_bid"  # a bid must beat the highest
    SEATED_FIRST = "seated_first"  # 001: "players who are seated take precedence"


class SetAside(StrEnum):
    """What the banker may take out of a bank he keeps."""

    NONE = "none"
    SCHOKOLADE = "schokolade"  # 003: the part of the bank not staked against, after a win
    GARAGE = "garage"  # 004: "some of the chips in the bank to be garaged"


class Bet(StrEnum):
    """Punto Banco's chances (003), the Swiss Nine side bets last."""

    PUNTO = "punto"
    BANCO = "banco"
    EGALITE = "egalite"
    SIMPLE_NINE = "simple_nine"
    COLOUR_NINE = "colour_nine"
    SWISS_NINE = "swiss_nine"


#: Punto Banco's bet on each of `game.rules.swiss_nine`'s winning names.
NINE_BETS: Mapping[str, Bet] = MappingProxyType(
    {"simple": Bet.SIMPLE_NINE, "colour": Bet.COLOUR_NINE, "swiss": Bet.SWISS_NINE}
)


@dataclass(frozen=True)
class CheminDeFerMoney:
    """The bank, the stakes and the bank's succession at a Chemin de fer table."""

    places: Term[int]  # seats at the table (the configuration may say otherwise)
    min_players: Term[int]  # seated players, the banker included, to begin a game: its 1st bank
    first_banker: Term[str]  # the lowest occupied place
    prime: Term[str]  # the order of priority: from the banker's right, place by place
    kinds: Mapping[Kind, Term[bool]]  # each kind of play: offered here?
    with_table_share: Term[Decimal]  # a banco with the table stakes at least this of the bank
    with_table_answerable: Term[bool]  # ... and answers for what the table leaves uncovered
    banco_clears_table: Term[bool]  # a banco returns the general game's stakes
    up_to_bank: Term[str]  # the seated stakes together cover the bank, never more
    holder: Term[str]  # who holds the punters' cards in the general game
    outsiders: Term[Outsiders]
    over_the_line: Term[bool]  # 001: "Stakes placed over the line are worth half their value."
    closing: Term[str]  # "Rien ne va plus": nothing changes after it
    open_bank: Term[bool]  # 000 rule 5: a bank whose sum the stakes fix
    partner: Term[bool]  # 000 rule 4: a partner in the bank beyond the minimum, at a full table
    payment_order: Term[str]  # 000 rule 26
    suivi: Term[Suivi]
    after_loss: Term[str]  # the bank passes to the next place
    rotates_each_coup: Term[bool]  # 002: the bank moves on after every decided coup
    decline_bank: Term[bool]  # the player in turn may refuse the bank
    suite_when: Term[SuiteWhen]
    after_pass: Term[AfterPass]
    standing_take_offer: Term[bool]  # 001: the offer goes to the standing players too
    auction_ties: Term[AuctionTies]
    suite_exclusion: Term[bool]  # 000 rule 22
    out_of_turn_successor: Term[str]  # who banks after a banker out of turn
    set_aside: Term[SetAside]
    new_shoe: Term[str]  # 000 rule 25
    egalite: Term[str]  # "en carte": every stake returned

    def __post_init__(self) -> None:
        missing = [k for k in Kind if k not in self.kinds]
        if missing:
            raise ValueError(f"kinds of play missing {missing}")
        object.__setattr__(self, "kinds", MappingProxyType({k: self.kinds[k] for k in Kind}))
        if not any(t.value for t in self.kinds.values()):
            raise ValueError("a Chemin de fer table offers at least one kind of play")


@dataclass(frozen=True)
class PuntoBancoMoney:
    """The bets and payouts at a Punto Banco table, where the casino holds the bank."""

    boxes: Term[int]  # betting boxes on the layout
    pays: Mapping[Bet, Term[int]]  # a winning bet is paid this many times its stake (x:1)
    banco_commission: Term[bool]  # the commission is taken from Banco's wins
    egalite_stays: Term[bool]  # at égalité the Punto and Banco stakes stay on the layout
    chance_limits: Term[Limit]  # minimum and maximum of Punto, Banco and Egalité
    nine_limits: Term[Limit]  # minimum and maximum of the Swiss Nine bets
    closing: Term[str]
    payment_order: Term[str]  # the settlement's lines in the order they are paid

    def __post_init__(self) -> None:
        missing = [b for b in Bet if b not in self.pays]
        if missing:
            raise ValueError(f"payouts missing {missing}")
        object.__setattr__(self, "pays", MappingProxyType({b: self.pays[b] for b in Bet}))


@dataclass(frozen=True)
class MoneyProfile:
    name: str  # the drawing profile's name: "baden" ...
    seed: str
    house: HouseProfile  # the house's drawing rules (and its commission's rate)
    currency: Term[Currency]
    locale: Term[Locale]
    chip: Term[Decimal]  # every stake is a whole number of these
    min_bank: Term[Decimal | Limit]
    max_bank: Term[Decimal | Limit]
    min_stake: Term[Decimal | Limit]
    max_stake: Term[Decimal | Limit]
    commission: Term[Decimal | Limit]  # percent of what it is levied on; the drawing profile's
    commission_on: Term[str]  # what the commission or Taxe is levied on
    rounding: Term[str]  # how a commission is rounded to the currency's unit
    void: Term[str]  # a cancelled or void coup returns every stake
    stakes_public: Term[bool]  # may the display show stakes before betting closes?
    chemin_de_fer: CheminDeFerMoney | None = None
    punto_banco: PuntoBancoMoney | None = None

    def __post_init__(self) -> None:
        if self.name != self.house.name or self.seed != self.house.seed:
            raise ValueError(f"{self.name}: the money profile names another house than "
                             f"{self.house.name} ({self.house.seed})")
        rate = self.house.commission_percent
        if rate is not None and self.commission.value != rate:
            raise ValueError(f"{self.name}: commission {self.commission.value} is not the "
                             f"drawing profile's {rate}")
        cdf = self.house.game is Game.CHEMIN_DE_FER
        if cdf != (self.chemin_de_fer is not None) or cdf == (self.punto_banco is not None):
            raise ValueError(f"{self.name}: a {self.house.game} profile needs its own rules only")

    @property
    def game(self) -> Game:
        return self.house.game

    def term(self, name: str) -> Term[Any]:
        """A term by its name, as records cite it ("chemin_de_fer.set_aside"); KeyError if
        there is none."""
        for key, term in self.terms():
            if key == name:
                return term
        raise KeyError(f"{self.name} has no money term {name!r}")

    def name_of(self, term: Term[Any]) -> str:
        """The name a record cites `term` by (the first field holding that very term)."""
        names = self.__dict__.get("_names")
        if names is None:
            names = {}
            for key, known in self.terms():
                names.setdefault(id(known), key)
            object.__setattr__(self, "_names", names)
        try:
            return names[id(term)]
        except KeyError:
            raise KeyError(f"not a term of {self.name}: {term.source[:60]}") from None

    def terms(self) -> Iterator[tuple[str, Term[Any]]]:
        """Every term with its name ("min_bank", "chemin_de_fer.kinds.banco", ...), in order:
        for the docs and for the tests that hold each source against the seeds."""
        yield from _terms(self, "")


def _terms(obj: object, prefix: str) -> Iterator[tuple[str, Term[Any]]]:
    for f in fields(obj):  # type: ignore[arg-type]
        value = getattr(obj, f.name)
        if isinstance(value, Term):
            yield prefix + f.name, value
        elif isinstance(value, Mapping):
            for key, term in value.items():
                yield f"{prefix}{f.name}.{key}", term
        elif isinstance(value, CheminDeFerMoney | PuntoBancoMoney):
            yield from _terms(value, f"{prefix}{f.name}.")
