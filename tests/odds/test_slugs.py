"""Shuffle quality (issue 14, section 3): slugs of an earlier shoe's order found again.

The false-alarm rate and the power are measured in bench/integrity.py over 100,000 shoes
(docs/odds.md); these tests check the statistic and the slugs it names, exactly."""

from __future__ import annotations

import random

from hil.stacking import false_shuffle
from shoe_daemon.game.cards import ALL_CODES
from shoe_daemon.odds.checks import shuffle_check
from shoe_daemon.odds.slugs import (
    ALARM_CARDS,
    BANKER_FIRST,
    DEALT,
    MIN_SLUG,
    PUNTER_FIRST,
    CoupCards,
    EarlierShoe,
    coverage,
    orders,
    slugs,
)


def _shoe(seed: int, packs: int = 8) -> list[str]:
    cards = list(ALL_CODES) * packs
    random.Random(seed).shuffle(cards)
    return cards


def test_a_planted_slug_is_found_where_it_was() -> None:
    earlier = _shoe(1)
    new = _shoe(2)
    run = earlier[100:107]  # seven cards, as they lay
    new[40:47] = run
    assert coverage(new, earlier) >= 7
    found = [s for s in slugs(new, earlier) if s.new_start <= 40 < s.new_start + s.length]
    assert len(found) == 1
    slug = found[0]
    assert new[slug.new_start:slug.new_start + slug.length] == \
        earlier[slug.earlier_start:slug.earlier_start + slug.length]
    assert slug.new_start <= 40 and slug.new_start + slug.length >= 47


def test_three_consecutive_cards_are_not_a_slug() -> None:
    earlier = list(["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C"])
    new = ["KD", "AC", "2C", "3C", "KH", "4C", "5C", "6C", "QS"]
    assert coverage(new, earlier) == 0
    new[4] = "4C"  # AC 2C 3C 4C: four in a row
    assert coverage(new, earlier) == 4


def test_an_unknown_card_never_matches() -> None:
    earlier = ["AC", "2C", "??", "3C", "4C", "5C"]
    new = ["AC", "2C", "??", "3C", "4C", "5C"]
    assert coverage(new, earlier) == 0


def test_each_earlier_position_is_used_by_one_slug_and_each_slug_named_whole() -> None:
    earlier = ["AC", "2C", "3C", "4C", "5C", "6C", "KS"]
    new = ["AC", "2C", "3C", "4C", "5C", "6C", "QH", "AC", "2C", "3C", "4C"]
    found = slugs(new, earlier)
    assert [(s.new_start, s.earlier_start, s.length) for s in found] == [(0, 0, 6)]
    assert coverage(new, earlier) == 10  # the statistic counts both copies' cards


def test_the_statistic_only_grows_as_more_cards_are_read() -> None:
    rng = random.Random(7)
    for seed in range(20):
        earlier = _shoe(seed)
        new = false_shuffle(earlier, 0.05, rng)
        values = [coverage(new[:n], earlier[:m]) for n, m in
                  ((50, 416), (150, 416), (300, 200), (300, 416), (416, 416))]
        assert values[0] <= values[1] <= values[3] <= values[4]
        assert values[2] <= values[3]


def test_a_fifth_kept_in_slugs_is_far_above_the_alarm() -> None:
    rng = random.Random(11)
    earlier = _shoe(3)
    new = false_shuffle(earlier, 0.2, rng)
    assert sorted(new) == sorted(earlier)
    assert coverage(new[:409], earlier[:409]) >= 3 * ALARM_CARDS


def test_the_discard_orders_put_each_coups_hands_together() -> None:
    cards = ["P1", "B1", "P2", "B2", "X", "P1'", "B1'", "P2'", "B2'", "P3'"]
    codes = ["AC", "2D", "3C", "4D", "KS", "5C", "6D", "7C", "8D", "9C"]
    coups = [CoupCards(4, ("AC", "3C"), ("2D", "4D")),
             CoupCards(10, ("5C", "7C", "9C"), ("6D", "8D"))]
    by_label = {o.label: o for o in orders(codes, coups)}
    assert by_label[DEALT].cards == tuple(codes)
    assert by_label[PUNTER_FIRST].cards == ("AC", "3C", "2D", "4D", "5C", "7C", "9C", "6D",
                                            "8D", "KS")
    assert by_label[BANKER_FIRST].cards[:4] == ("2D", "4D", "AC", "3C")
    assert [cards[i] for i in by_label[PUNTER_FIRST].dealt_at] == \
        ["P1", "P2", "B1", "B2", "P1'", "P2'", "P3'", "B1'", "B2'", "X"]


def test_slugs_of_a_hand_by_hand_discard_are_found_in_that_order() -> None:
    """The croupier gathered each coup punter's hand first: the slugs of the next shoe are
    runs of that order, and the comparison names them with their places as dealt."""
    rng = random.Random(5)
    dealt = _shoe(9, packs=6)
    coups, read = [], 0
    while read + 6 <= len(dealt):
        coups.append(CoupCards(read + 5, tuple(dealt[read:read + 5:2]),
                               tuple(dealt[read + 1:read + 5:2])))
        read += 5
    gathered = orders(dealt, coups)[1]
    assert gathered.label == PUNTER_FIRST
    new = false_shuffle(list(gathered.cards), 0.2, rng)
    earlier = EarlierShoe(1, 10, tuple(orders(dealt, coups)))
    check = shuffle_check(new, [earlier])
    by_order = {c["order"]: c for c in check["compared_with"]}
    assert check["alarm"] and by_order[PUNTER_FIRST]["cards_in_slugs"] >= 3 * ALARM_CARDS
    assert by_order[PUNTER_FIRST]["cards_in_slugs"] > by_order[DEALT]["cards_in_slugs"]
    for slug in by_order[PUNTER_FIRST]["slugs"]:
        assert len(slug["cards"]) >= MIN_SLUG
        assert [dealt[p - 1] for p in slug["earlier"]] == slug["cards"]
        assert new[slug["new"][0] - 1:slug["new"][1]] == slug["cards"]


def test_shuffled_shoes_rarely_share_a_run_of_four() -> None:
    """Not the false-alarm rate (bench/integrity.py measures it); a check that the statistic
    behaves as its note says: about 400 x 400 / 52^4, one run in 45 comparisons, for eight
    packs. Over 1,000 comparisons that is about 22 runs; 60 would be far out."""
    runs = 0
    for seed in range(1000):
        runs += len(slugs(_shoe(2 * seed)[:409], _shoe(2 * seed + 1)[:409]))
    assert 5 <= runs <= 60
