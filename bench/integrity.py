"""The integrity checks' false-alarm rates and power, measured by simulation (issue 14 part 3).

The daemon's two checks (docs/odds.md, "The shoe's integrity") run here exactly as the
monitor's worker runs them (`shoe_daemon.odds.checks`): the slug statistic against the
earlier shoes' orders, and the three outcome tests at a shoe's end. What this bench adds is
the table: a run of shoes, each shuffled (fair) or not (hil/stacking.py), each dealt by the
house's table with every option drawn (`hil.stacking.coup_of`) until the cut card, which lies
`CUT` cards from the end; the cards behind it are never read, as at a table.

1. slugs, fair: `--shoes` fair shoes in a row at one table, each compared (as the daemon does)
   with the EARLIER shoes before it in their three orders; the alarms, and the tail of the
   statistic (how many shoes reach 4, 6, 8, ... cards in slugs).
2. slugs, power: `--trials` pairs, a fair shoe then a false shuffle of it keeping a fifth of
   its order in slugs (4 to 8 cards, then exactly 4 cards, the weakest; gathered as dealt,
   then hand by hand), the new shoe read to its cut card: how often the alarm is raised, and
   by which coup.
3. outcomes, fair: the same fair shoes' outcomes through the three tests.
4. outcomes, power: `--trials` prearranged shoes for each pattern (streaks of 6 to 12 coups,
   the banker 80% of coups, égalités 30%).

    .venv/bin/python bench/integrity.py [--profile baden-punto-banco] [--shoes 20000]
                                        [--trials 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.odds import machine_name  # noqa: E402
from hil.stacking import (  # noqa: E402
    banker_share,
    coup_hands,
    false_shuffle,
    prearranged,
    streaks,
    ties,
)
from shoe_daemon.game.cards import ALL_CODES  # noqa: E402
from shoe_daemon.game.houses import get_profile  # noqa: E402
from shoe_daemon.game.rules import HouseProfile  # noqa: E402
from shoe_daemon.odds.checks import earlier_shoes, shuffle_check  # noqa: E402
from shoe_daemon.odds.slugs import ALARM_CARDS, EARLIER  # noqa: E402
from shoe_daemon.odds.stacked import ALPHA, full_shoe_law, outcome_tests  # noqa: E402

CUT = 14  # cards behind the cut card: never dealt, never read
FRACTION = 0.2  # the false shuffle: a fifth of the previous shoe kept in slugs


class Dealt:
    """One shoe dealt to its cut card: the cards read, its coups as the monitor sees them
    (cards read when decided, the hands), its outcomes, and its whole order."""

    def __init__(self, profile: HouseProfile, order: list[str]) -> None:
        self.order = order
        self.cards: list[str] = []
        self.coups: list[list[object]] = []
        self.outcomes: list[str] = []
        at = 0
        while len(order) - at > CUT and len(order) - at >= 6:
            outcome, punter, banker = coup_hands(profile, order[at:at + 6])
            at += len(punter) + len(banker)
            self.cards += order[at - len(punter) - len(banker):at]
            self.coups.append([at, punter, banker])
            self.outcomes.append(outcome)

    def earlier_view(self, number: int) -> dict[str, object]:
        return {"shoe": number, "opened_at": number, "cards": self.cards, "coups": self.coups}


def shuffled(packs: int, rng: random.Random) -> list[str]:
    cards = list(ALL_CODES) * packs
    rng.shuffle(cards)
    return cards


def first_alarm(new: Dealt, earlier: list[dict[str, object]]) -> int | None:
    """The coup after which the monitor's check (run after every coup) first alarms."""
    request = {"earlier": earlier}
    shoes = earlier_shoes(request)
    if not shuffle_check(new.cards, shoes)["alarm"]:
        return None
    lo, hi = 0, len(new.coups) - 1  # the statistic only grows: bisect on the coups
    while lo < hi:
        mid = (lo + hi) // 2
        if shuffle_check(new.cards[:new.coups[mid][0]], shoes)["alarm"]:
            hi = mid
        else:
            lo = mid + 1
    return lo + 1


def slugs_fair(profile: HouseProfile, shoes: int, rng: random.Random) -> None:
    t = time.perf_counter()
    table: list[Dealt] = []
    alarms, tail = 0, Counter[int]()
    compared = 0
    for n in range(shoes):
        shoe = Dealt(profile, shuffled(profile.packs, rng))
        if table:
            earlier = [d.earlier_view(i) for i, d in enumerate(table[-EARLIER:])]
            check = shuffle_check(shoe.cards, earlier_shoes({"earlier": earlier}))
            compared += 1
            tail[check["cards_in_slugs"]] += 1
            alarms += check["alarm"]
        table = [*table[-EARLIER + 1:], shoe] if EARLIER > 1 else [shoe]
        if n and n % 5000 == 0:
            print(f"    ... {n} shoes, {alarms} alarms", flush=True)
    at_least = {x: sum(k for v, k in tail.items() if v >= x) for x in (4, 6, 8, 10, 12, 16)}
    print(f"  slugs, fair shoes: {alarms} alarms in {compared} shoes compared with up to "
          f"{EARLIER} earlier shoes in 3 orders each ({time.perf_counter() - t:.0f} s)")
    print("    shoes whose statistic reached: " + ", ".join(
        f">={x}: {k}" for x, k in at_least.items()) + f" (alarm at {ALARM_CARDS})")


def slugs_power(profile: HouseProfile, trials: int, rng: random.Random) -> None:
    for lengths, gathered in (((4, 8), 0), ((4, 4), 0), ((4, 4), 1)):
        caught, by = 0, []
        for _ in range(trials):
            before = Dealt(profile, shuffled(profile.packs, rng))
            view = before.earlier_view(1)
            order = list(earlier_shoes({"earlier": [view]})[0].orders[gathered].cards)
            order += before.order[len(before.cards):]  # the unread cards behind the cut
            new = Dealt(profile, false_shuffle(order, FRACTION, rng, lengths))
            coup = first_alarm(new, [view])
            if coup is not None:
                caught += 1
                by.append(coup)
        how = "as dealt" if gathered == 0 else "gathered hand by hand, punter's first"
        by.sort()
        median = by[len(by) // 2] if by else None
        print(f"  slugs, a fifth kept in slugs of {lengths[0]}-{lengths[1]} cards ({how}): "
              f"caught {caught} of {trials}; the alarm by coup {median} (median), "
              f"{by[-1] if by else None} (latest)")


def outcomes_fair(profile: HouseProfile, shoes: int, rng: random.Random) -> None:
    t = time.perf_counter()
    law = full_shoe_law(profile.name, profile.packs)
    alarms = Counter[str]()
    shoes_alarmed = 0
    for _ in range(shoes):
        dealt = Dealt(profile, shuffled(profile.packs, rng))
        names = [x.name for x in outcome_tests(dealt.outcomes, law) if x.alarm]
        alarms.update(names)
        shoes_alarmed += bool(names)
    print(f"  outcomes, fair shoes: {shoes_alarmed} shoes alarmed in {shoes} "
          f"({dict(alarms) or 'no test'}; each test at p <= {ALPHA:g}) "
          f"({time.perf_counter() - t:.0f} s)")


def outcomes_power(profile: HouseProfile, trials: int, rng: random.Random) -> None:
    law = full_shoe_law(profile.name, profile.packs)
    patterns: dict[str, Callable[[], Iterator[str]]] = {
        "streaks of 6-12 coups": lambda: streaks(rng),
        "the banker 80% of coups": lambda: banker_share(rng, 0.8),
        "égalités 30% of coups": lambda: ties(rng, 0.3),
    }
    for name, wanted in patterns.items():
        caught = Counter[str]()
        any_ = 0
        for _ in range(trials):
            order = prearranged(profile, profile.packs, rng, wanted(), keep=CUT + 6)
            dealt = Dealt(profile, order)
            names = [x.name for x in outcome_tests(dealt.outcomes, law) if x.alarm]
            caught.update(names)
            any_ += bool(names)
        print(f"  outcomes, a shoe prearranged for {name}: caught {any_} of {trials} "
              f"(by test: {dict(caught)})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="baden-punto-banco")
    ap.add_argument("--shoes", type=int, default=20000, help="fair shoes for the alarm rates")
    ap.add_argument("--trials", type=int, default=200, help="unfair shoes for each power")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", choices=("slugs", "outcomes"), default=None)
    args = ap.parse_args(argv)
    profile = get_profile(args.profile)
    print(f"machine: {machine_name()}")
    print(f"profile {profile.name}, {profile.packs} packs, cut card {CUT} cards from the end; "
          f"seed {args.seed}")
    rng = random.Random(args.seed)
    if args.only in (None, "slugs"):
        slugs_power(profile, args.trials, rng)
        slugs_fair(profile, args.shoes, rng)
    if args.only in (None, "outcomes"):
        outcomes_power(profile, args.trials, rng)
        outcomes_fair(profile, args.shoes, rng)
    return 0


if __name__ == "__main__":
    sys.exit(main())
