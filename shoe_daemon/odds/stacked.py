"""A prearranged ("stacked") shoe: outcomes implausible for a shuffled shoe.

Three tests on a shoe's results at its end, each against the exact odds of a full shoe of
the house's rules and packs (`shoe_daemon/odds/law.py`, the house's table strategy): `q` the
banker's share of the decided coups, `t` the chance of an égalité. Coups cancelled or void
are left out; an égalité decides no side.

- **side**: the banker's wins W among the n decided coups. Under a shuffled shoe W is close
  to binomial(n, q); the p-value is twice the smaller tail, P(W' >= W) or P(W' <= W). It
  catches a shoe stacked for one side (a confederate who bets it).
- **changes**: how often the winning side changes from one decided coup to the next, C. Under
  a shuffled shoe the sides are close to independent draws with chance q; the exact law of C
  for n such draws is computed (a recursion over the coups), and the p-value is twice the
  smaller tail. Too few changes is a shoe arranged in long runs of one side ("streaks" a
  confederate knows); too many, a shoe arranged to alternate ("chop").
- **ties**: the égalités T among the m coups decided or tied, against binomial(m, t); the
  p-value is the upper tail. It catches a shoe stacked for the Egalité bet (8 to 1).

A test alarms when its p-value is at most `ALPHA`, so the three together alarm a shuffled
shoe at most 3 ALPHA = 6 in 100,000 of the time if the models were exact; they are close to
exact (the shoe's composition ties the coups together a little), and the rate measured by
dealing shuffled shoes by the house's rules is in docs/odds.md (`bench/integrity.py`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from shoe_daemon.game.houses import get_profile
from shoe_daemon.odds.analysis import coup_odds
from shoe_daemon.odds.live import STRATEGY
from shoe_daemon.odds.shoe import Shoe

ALPHA = 2e-5  # each test's false-alarm rate
SIDES = ("banker", "punter")


@dataclass(frozen=True)
class Law:
    """What a shuffled full shoe gives: the banker's share of decided coups, the égalité's
    chance (exact fractions rounded to floats for the tails)."""

    banker_share: float
    egalite: float


@cache
def full_shoe_law(profile: str, packs: int) -> Law:
    odds = coup_odds(get_profile(profile, packs), Shoe.full(packs), STRATEGY)
    return Law(float(odds.outcome.banker_share), float(odds.outcome.egalite))


def _binomial(n: int, p: float) -> list[float]:
    return [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def changes_law(n: int, q: float) -> list[float]:
    """P(C = c), c = 0..n-1: changes of side in n independent draws, banker with chance q."""
    if n == 0:
        return [1.0]
    # by_side[s][c]: chance that the first i draws end on side s with c changes
    banker, punter = [q], [1 - q]
    for _ in range(1, n):
        nb = [0.0] * (len(banker) + 1)
        np_ = [0.0] * (len(banker) + 1)
        for c, (b, p) in enumerate(zip(banker, punter, strict=True)):
            nb[c] += b * q
            np_[c] += p * (1 - q)
            nb[c + 1] += p * q
            np_[c + 1] += b * (1 - q)
        banker, punter = nb, np_
    return [b + p for b, p in zip(banker, punter, strict=True)][:n]


def _two_sided(law: list[float], x: int) -> float:
    low = sum(law[: x + 1])
    high = sum(law[x:])
    return min(1.0, 2 * min(low, high))


@dataclass(frozen=True)
class OutcomeTest:
    name: str
    value: int
    expected: float
    p_value: float

    @property
    def alarm(self) -> bool:
        return self.p_value <= ALPHA


def outcome_tests(outcomes: Sequence[str], law: Law) -> list[OutcomeTest]:
    """The three tests on a shoe's outcomes, in the order they came."""
    decided = [o for o in outcomes if o in SIDES]
    n = len(decided)
    wins = sum(1 for o in decided if o == "banker")
    changes = sum(1 for a, b in itertools.pairwise(decided) if a != b)
    played = [o for o in outcomes if o in (*SIDES, "egalite")]
    m, ties = len(played), sum(1 for o in played if o == "egalite")
    q, t = law.banker_share, law.egalite
    tests = [OutcomeTest("side", wins, n * q, _two_sided(_binomial(n, q), wins) if n else 1.0)]
    if n >= 2:
        tests.append(OutcomeTest("changes", changes, (n - 1) * 2 * q * (1 - q),
                          _two_sided(changes_law(n, q), changes)))
    else:
        tests.append(OutcomeTest("changes", changes, 0.0, 1.0))
    tests.append(OutcomeTest("ties", ties, m * t, sum(_binomial(m, t)[ties:]) if m else 1.0))
    return tests


WHAT = {
    "side": "the banker's wins among the decided coups",
    "changes": "changes of the winning side from one decided coup to the next",
    "ties": "égalités among the coups played",
}


def outcome_view(test: OutcomeTest) -> dict[str, Any]:
    return {"test": test.name, "what": WHAT[test.name], "value": test.value,
            "expected": round(test.expected, 2), "p_value": float(f"{test.p_value:.3g}"),
            "alarm": test.alarm}


def alarm_words(test: OutcomeTest, shoe: int | None, decided: int) -> str:
    if test.name == "side":
        many = "many" if test.value > test.expected else "few"
        how = (f"the banker won {test.value} of {decided} decided coups where a shuffled shoe "
               f"gives {test.expected:.1f} on average: far too {many}")
    elif test.name == "changes":
        kind = "long runs of one side" if test.value < test.expected else "sides alternating"
        how = (f"the winning side changed {test.value} times in {decided} decided coups where "
               f"a shuffled shoe changes {test.expected:.1f} times on average ({kind})")
    else:
        how = (f"{test.value} égalités where a shuffled shoe gives {test.expected:.1f} on "
               "average")
    return (f"ALARM shoe {shoe}: its outcomes are implausible for a shuffled shoe: {how}; "
            f"a shuffled shoe does this with chance {test.p_value:.2g}. Check the shoe for a "
            "prearranged order (docs/odds.md).")
