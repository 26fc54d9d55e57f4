"""The live shoe's exposure: the exact odds of the next coup from the cards still in the
shoe, every bet's expectation, and when a bet the house banks turns in the players' favour
(issue 14, section 2). For the pit, never the public page: these are ledger records, the
status line and the floor's, never a published line (docs/odds.md).

What is known of the shoe after a coup:
- its size: `BTN,SHOE`'s packs argument, or the house's packs;
- every card read so far in it, in order: the hands, and any card that left the shoe
  outside a hand (a Clermont face-up card voided, an extra card carried to the next deal,
  a foreign card). A card read as `??` and keyed in later (`ENTER`, on the shoe or the
  console) is known from then on;
- a card read as `??` and never keyed in is an unknown card. It is left in the shoe the
  odds are computed from: the shoe is shuffled, so the cards after an unseen card are
  distributed exactly as if it were still inside (shoe_daemon/odds/shoe.py). The record says
  how many there were;
- a copy of a card beyond the packs' count is a foreign card: it never belonged to the
  shoe, and is not taken out of it.

Alarms (`FavourWatch`): at Punto Banco the house banks every bet, and a bet whose
expectation turns positive for the next coup is an alarm, once per bet per shoe, saying
which bet, its expectation and from which coup, and not again while it lasts; when it turns
back, that is said once too, and a later turn to the players raises the alarm again.
At Chemin de Fer the players stake against each other and the house only takes its
commission: no bet is the house's, so the sides' expectations are recorded and no alarm is
raised.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from shoe_daemon.game.cards import ALL_CODES, CARDS_PER_PACK, UNREADABLE
from shoe_daemon.game.rules import Game, HouseProfile
from shoe_daemon.odds.analysis import CoupOdds, coup_odds
from shoe_daemon.odds.bets import Bet
from shoe_daemon.odds.shoe import COUP_CARDS, Shoe, ShoeError

#: Who a record of this module is attributed to: the daemon itself, never a person.
SYSTEM = "system"
#: The strategy the live odds are computed under: both sides bound by the house's table,
#: its options played as the game they leave solves them (shoe_daemon/odds/analysis.py).
STRATEGY = "table"
TURNED_TO_PLAYERS, TURNED_BACK = "players", "house"


@dataclass(frozen=True)
class Known:
    """What the cards read from one shoe say about what is left in it."""

    packs: int
    read: int  # cards read, foreign and unknown ones included
    unknown: int  # read as `??` and never keyed in
    foreign: tuple[str, ...]  # each copy beyond the packs' count, in the order read
    left: Shoe  # the shoe the next coup is dealt from, unknown cards left in

    @property
    def size(self) -> int:
        return self.packs * CARDS_PER_PACK

    @property
    def cards_left(self) -> int:
        """Cards physically left in the shoe: its size less every card of it read."""
        return self.size - (self.read - len(self.foreign))


def known(packs: int, cards: Sequence[str]) -> Known:
    """The shoe after `cards` (every card read from it, in order, `??` for an unknown one)."""
    copies: Counter[str] = Counter()
    foreign: list[str] = []
    unknown = 0
    for code in cards:
        if code == UNREADABLE:
            unknown += 1
        elif copies[code] >= packs:
            foreign.append(code)
        else:
            copies[code] += 1
    left = Shoe.from_codes({code: packs - copies[code] for code in ALL_CODES})
    return Known(packs, len(cards), unknown, tuple(foreign), left)


@dataclass(frozen=True)
class Exposure:
    """The next coup's exact odds from the shoe as it is after a coup."""

    known: Known
    odds: CoupOdds

    @property
    def bets(self) -> tuple[Bet, ...]:
        return self.odds.bets

    def watched(self) -> tuple[Bet, ...]:
        """The bets the house banks, at the house's reading: the ones that can raise alarms."""
        if self.odds.profile.game is not Game.PUNTO_BANCO:
            return ()
        return tuple(b for b in self.bets if not b.alternative)

    def favourable(self) -> tuple[Bet, ...]:
        return tuple(b for b in self.watched() if b.favourable)


def exposure(profile: HouseProfile, packs: int, cards: Sequence[str]) -> Exposure:
    """The next coup's odds after `cards` were read from a shoe of `packs` packs. ShoeError
    when the shoe left cannot hold a coup (fewer than six cards)."""
    k = known(packs, cards)
    if k.cards_left < COUP_CARDS:
        raise ShoeError(f"a coup can take {COUP_CARDS} cards and the shoe holds {k.cards_left}")
    return Exposure(k, coup_odds(profile, k.left, STRATEGY))


# ---- how figures are written in records ------------------------------------------------------


def exact(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def percent(x: Fraction, signed: bool = False) -> str:
    """A chance or an expectation in percent, four places: what a person reads."""
    return f"{float(x * 100):{'+' if signed else ''}.4f}%"


def short(x: Fraction, signed: bool = False) -> str:
    return f"{float(x * 100):{'+' if signed else ''}.2f}%"


def exposure_body(e: Exposure, shoe: int, opened_at: int, after_coup: int,
                  computed_ms: float) -> dict[str, Any]:
    """The `odds.exposure` record: the odds of coup `after_coup + 1` of that shoe."""
    o, k = e.odds.outcome, e.known
    favourable = [b.name for b in e.favourable()]
    chances = {"banker": o.banker, "punter": o.punter, "egalite": o.egalite}
    return {
        "by": SYSTEM, "shoe": shoe, "opened_at": opened_at, "after_coup": after_coup,
        "for_coup": after_coup + 1, "packs": k.packs, "cards_read": k.read,
        "cards_left": k.cards_left, "unknown": k.unknown, "foreign": list(k.foreign),
        "strategy": STRATEGY,
        "chances": {name: {"exact": exact(x), "percent": percent(x)}
                    for name, x in chances.items()},
        "bets": [{"bet": b.name, "pays": b.pays, "ev": exact(b.ev),
                  "ev_percent": percent(b.ev, signed=True), "house": not b.alternative
                  and e.odds.profile.game is Game.PUNTO_BANCO}
                 for b in e.bets],
        "favourable": favourable,
        "computed_ms": round(computed_ms, 3),
        "late": False,
        "words": exposure_words(e, shoe, after_coup),
    }


def exposure_words(e: Exposure, shoe: int, after_coup: int) -> str:
    o, k = e.odds.outcome, e.known
    said = (f"Shoe {shoe}, coup {after_coup + 1}, from the {k.cards_left} cards left after "
            f"coup {after_coup}: banker {short(o.banker)}, punter {short(o.punter)}, "
            f"égalité {short(o.egalite)}.")
    if k.unknown:
        said += (f" {k.unknown} card{'s' if k.unknown > 1 else ''} read as ?? and never keyed "
                 "in counted as still unknown.")
    if k.foreign:
        plural = "s" if len(k.foreign) > 1 else ""
        said += f" Foreign card{plural} left out: {', '.join(k.foreign)}."
    good = e.favourable()
    if good:
        said += " In the players' favour: " + ", ".join(
            f"{b.name} {short(b.ev, signed=True)}" for b in good) + "."
    elif e.watched():
        said += " Every bet in the house's favour."
    else:
        sides = ", ".join(f"{b.name} {short(b.ev, signed=True)}" for b in e.bets)
        said += f" Expectation per unit at stake: {sides}."
    return said


def status_words(body: Mapping[str, Any]) -> str:
    """An `odds.exposure` record in a few words, for the status line."""
    c = body["chances"]
    said = (f"odds for coup {body['for_coup']}: banker {_two(c['banker']['exact'])}, "
            f"punter {_two(c['punter']['exact'])}, égalité {_two(c['egalite']['exact'])}")
    good = [b for b in body["bets"] if b["bet"] in body["favourable"]]
    if good:
        said += "; PLAYERS FAVOURED: " + ", ".join(
            f"{b['bet']} {_two(b['ev'], signed=True)}" for b in good)
    if body.get("late"):
        said += " (late)"
    return said


def _two(exact_text: str, signed: bool = False) -> str:
    return short(Fraction(exact_text), signed)


def stamp(body: dict[str, Any], where: Mapping[str, Any]) -> dict[str, Any]:
    """An `odds.exposure` or `odds.alarm` body at its commit: `late` if the coup it is for
    had already begun (or the shoe had changed) when it was committed. It still describes
    that coup as it was before its first card."""
    shoe, coup = where.get("shoe"), where.get("coup")
    target = body["for_coup"]
    started = shoe != body["shoe"] or (coup is not None and coup >= target)
    if not started:
        return body
    late = dict(body, late=True)
    late["late_words"] = (
        f"Committed after coup {target} of shoe {body['shoe']} had begun (the table was at "
        f"shoe {shoe} coup {coup}): this is still the odds of coup {target} as they stood "
        f"before its first card, from the shoe after coup {body['after_coup']}.")
    return late


# ---- the alarm: a bet turning in the players' favour ------------------------------------------


@dataclass(frozen=True)
class Turn:
    """A watched bet changed side: to the players (the alarm) or back to the house."""

    bet: str
    to: str  # TURNED_TO_PLAYERS or TURNED_BACK
    ev: Fraction
    pays: str


@dataclass
class FavourWatch:
    """One shoe's alarms: each watched bet's state, `None` (never favoured the players),
    "players" (it does: the alarm raised, nothing more said while it lasts), "house" (it
    turned back, said once). A bet that turns to the players again raises the alarm again:
    once per bet per shoe until it turns back."""

    state: dict[str, str] = field(default_factory=dict)

    def update(self, bets: Sequence[Bet]) -> list[Turn]:
        turns = []
        for bet in bets:
            now = self.state.get(bet.name)
            if bet.favourable and now != TURNED_TO_PLAYERS:
                self.state[bet.name] = TURNED_TO_PLAYERS
                turns.append(Turn(bet.name, TURNED_TO_PLAYERS, bet.ev, bet.pays))
            elif not bet.favourable and now == TURNED_TO_PLAYERS:
                self.state[bet.name] = TURNED_BACK
                turns.append(Turn(bet.name, TURNED_BACK, bet.ev, bet.pays))
        return turns

    def recorded(self, body: Mapping[str, Any]) -> None:
        """An `odds.alarm` record of this shoe read back (a restart rebuilds the state)."""
        self.state[body["bet"]] = body["turned"]


def alarm_body(turn: Turn, shoe: int, opened_at: int, after_coup: int,
               since: int | None = None) -> dict[str, Any]:
    """The `odds.alarm` record. `since`: the coup the bet turned to the players from (for a
    turn back)."""
    coup = after_coup + 1
    ev = short(turn.ev, signed=True)
    if turn.to == TURNED_TO_PLAYERS:
        words = (f"ALARM shoe {shoe}: {turn.bet}, paying {turn.pays}, is in the players' favour "
                 f"from coup {coup}: expectation {ev} of each unit staked, from the cards left "
                 f"after coup {after_coup}. The house loses on it on average while this lasts; "
                 f"the odds after each coup say whether it does. Not raised again for "
                 f"{turn.bet} in this shoe until it turns back.")
    else:
        began = f" (it favoured the players from coup {since})" if since else ""
        words = (f"Shoe {shoe}: {turn.bet} is back in the house's favour from coup {coup}: "
                 f"expectation {ev}{began}. Should it turn to the players again, the alarm "
                 "is raised again.")
    return {"by": SYSTEM, "shoe": shoe, "opened_at": opened_at, "bet": turn.bet,
            "turned": turn.to, "ev": exact(turn.ev), "ev_percent": percent(turn.ev, True),
            "pays": turn.pays, "after_coup": after_coup, "for_coup": coup, "since": since,
            "late": False, "words": words}
