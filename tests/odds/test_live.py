"""The live shoe's exposure (issue 14, section 2): what the cards read say is left, how an
unread card is treated, the odds computed from it, and the alarm's rules."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from shoe_daemon.game.cards import ALL_CODES
from shoe_daemon.game.houses import get_profile
from shoe_daemon.odds.analysis import coup_odds
from shoe_daemon.odds.bets import Bet
from shoe_daemon.odds.law import CoupLaw
from shoe_daemon.odds.live import (
    TURNED_BACK,
    TURNED_TO_PLAYERS,
    FavourWatch,
    alarm_body,
    exposure,
    exposure_body,
    known,
    stamp,
    status_words,
)
from shoe_daemon.odds.shoe import Shoe, ShoeError
from shoe_daemon.odds.strategy import Choices

PUNTO_BANCO = get_profile("baden-punto-banco")
CHEMIN = get_profile("baden")


def test_known_takes_out_what_was_read_and_leaves_unknown_cards_in() -> None:
    cards = ["9C", "TD", "??", "9C", "KS"]
    k = known(6, cards)
    assert k.read == 5 and k.unknown == 1 and k.foreign == ()
    assert k.left.codes is not None
    assert k.left.codes["9C"] == 4 and k.left.codes["TD"] == 5 and k.left.codes["KS"] == 5
    assert k.left.size == 312 - 4  # the unknown card is left in
    assert k.cards_left == 312 - 5  # but it did leave the shoe


def test_a_copy_beyond_the_packs_is_foreign_and_never_taken_out() -> None:
    cards = ["7H"] * 3
    k = known(2, cards)
    assert k.foreign == ("7H",)
    assert k.left.codes is not None and k.left.codes["7H"] == 0
    assert k.cards_left == 104 - 2


def test_the_exposure_is_the_exact_odds_of_the_shoe_left() -> None:
    rng = random.Random(3)
    shoe = list(ALL_CODES) * 8
    rng.shuffle(shoe)
    read = shoe[:250]
    e = exposure(PUNTO_BANCO, 8, read)
    left = Shoe.full(8).without(read)
    assert e.odds.outcome == coup_odds(PUNTO_BANCO, left).outcome
    assert [b.ev for b in e.bets] == [b.ev for b in coup_odds(PUNTO_BANCO, left).bets]


def test_an_unknown_card_changes_nothing_about_the_next_coup() -> None:
    """The claim the exposure rests on (live.py): the next coup's chances after an unseen card
    equal those of the shoe with the card still in. Checked exactly: the chances averaged over
    which card it was (each with its chance) are the chances of the shoe before."""
    counts = [9, 3, 4, 2, 4, 3, 4, 2, 3, 4]  # a small shoe, by point value
    shoe = Shoe(tuple(counts))
    before = CoupLaw.of(shoe)
    play = Choices.of(PUNTO_BANCO).pure(True)
    mixed = [Fraction(0)] * 3
    for value, n in enumerate(counts):
        if not n:
            continue
        after = list(counts)
        after[value] -= 1
        o = CoupLaw.of(Shoe(tuple(after))).outcome(play.punter, play.banker)
        weight = Fraction(n, shoe.size)
        mixed = [m + weight * x for m, x in zip(mixed, (o.banker, o.punter, o.egalite),
                                                strict=True)]
    o = before.outcome(play.punter, play.banker)
    assert mixed == [o.banker, o.punter, o.egalite]


def test_a_shoe_that_cannot_hold_a_coup_has_no_exposure() -> None:
    with pytest.raises(ShoeError):
        exposure(PUNTO_BANCO, 1, list(ALL_CODES)[:47])


def test_the_record_gives_exact_fractions_and_words() -> None:
    rng = random.Random(5)
    shoe = list(ALL_CODES) * 6
    rng.shuffle(shoe)
    e = exposure(PUNTO_BANCO, 6, [*shoe[:100], "??"])
    body = exposure_body(e, 3, 1234, 20, 5.0)
    assert body["by"] == "system" and body["for_coup"] == 21 and body["unknown"] == 1
    banker = Fraction(body["chances"]["banker"]["exact"])
    assert banker == e.odds.outcome.banker
    assert sum(Fraction(c["exact"]) for c in body["chances"].values()) == 1
    house = [b for b in body["bets"] if b["house"]]
    assert [b["bet"] for b in house] == ["Banco", "Punto", "Egalité", "Simple Nine",
                                         "Colour Nine", "Swiss Nine"]
    assert "1 card read as ?? and never keyed in" in body["words"]
    assert status_words(body).startswith("odds for coup 21: banker ")


def test_chemin_de_fer_watches_no_bet() -> None:
    """The players stake against each other; the house banks nothing: no alarm."""
    e = exposure(CHEMIN, 6, [])
    assert e.watched() == () and e.favourable() == ()
    assert [b.name for b in e.bets] == ["the bank", "the punter"]


def _bet(name: str, ev: str) -> Bet:
    return Bet(name, "8 to 1", Fraction(ev), "")


def test_an_alarm_once_per_bet_and_shoe_until_it_turns_back() -> None:
    watch = FavourWatch()
    assert watch.update([_bet("Egalité", "-1/10")]) == []
    first = watch.update([_bet("Egalité", "1/50")])
    assert [(t.bet, t.to) for t in first] == [("Egalité", TURNED_TO_PLAYERS)]
    assert watch.update([_bet("Egalité", "1/40")]) == []  # still: said once
    back = watch.update([_bet("Egalité", "-1/100")])
    assert [(t.bet, t.to) for t in back] == [("Egalité", TURNED_BACK)]
    assert watch.update([_bet("Egalité", "-1/30")]) == []  # still the house's: said once
    again = watch.update([_bet("Egalité", "1/30")])
    assert [(t.bet, t.to, t.ev) for t in again] == [("Egalité", TURNED_TO_PLAYERS,
                                                     Fraction(1, 30))]
    assert watch.update([_bet("Egalité", "1/20")]) == []


def test_each_bet_is_watched_on_its_own() -> None:
    watch = FavourWatch()
    turns = watch.update([_bet("Egalité", "1/50"), _bet("Swiss Nine", "-1/50")])
    assert [t.bet for t in turns] == ["Egalité"]
    turns = watch.update([_bet("Egalité", "1/50"), _bet("Swiss Nine", "1/50")])
    assert [t.bet for t in turns] == ["Swiss Nine"]


def test_the_watch_is_rebuilt_from_its_records() -> None:
    watch = FavourWatch()
    watch.recorded({"bet": "Simple Nine", "turned": TURNED_TO_PLAYERS})
    assert watch.update([_bet("Simple Nine", "1/100")]) == []
    assert [t.to for t in watch.update([_bet("Simple Nine", "-1/100")])] == [TURNED_BACK]


def test_alarm_words_say_which_bet_its_expectation_and_from_which_coup() -> None:
    watch = FavourWatch()
    turn = watch.update([_bet("Egalité", "663/10000")])[0]
    body = alarm_body(turn, 4, 99, 60)
    assert body["for_coup"] == 61 and body["ev_percent"] == "+6.6300%"
    assert "Egalité" in body["words"] and "+6.63%" in body["words"]
    assert "from coup 61" in body["words"] and "shoe 4" in body["words"]
    back = alarm_body(watch.update([_bet("Egalité", "-1/100")])[0], 4, 99, 63, since=61)
    assert "back in the house's favour from coup 64" in back["words"]
    assert "from coup 61" in back["words"]


def test_stamp_marks_an_exposure_committed_after_its_coup_began() -> None:
    body = {"shoe": 2, "for_coup": 11, "after_coup": 10, "late": False}
    assert stamp(body, {"shoe": 2, "coup": 10}) is body  # coup 11 not begun
    late = stamp(body, {"shoe": 2, "coup": 11})
    assert late["late"] and "before its first card" in late["late_words"]
    assert stamp(body, {"shoe": 3, "coup": 1})["late"]  # another shoe
    assert not body["late"]


def test_the_status_line_rounds_as_the_record_s_words() -> None:
    """45.8494% is 45.85% in the record's words and on the status line alike."""
    body = {"for_coup": 41, "favourable": ["Swiss Nine"], "late": True,
            "chances": {"banker": {"exact": "143192080397/312309736830"},
                        "punter": {"exact": "276919597471/624619473660"},
                        "egalite": {"exact": "12263143079/124923894732"}},
            "bets": [{"bet": "Swiss Nine", "ev": "158/1003"}, {"bet": "Punto", "ev": "-1/100"}]}
    assert status_words(body) == ("odds for coup 41: banker 45.85%, punter 44.33%, égalité "
                                   "9.82%; PLAYERS FAVOURED: Swiss Nine +15.75% (late)")
