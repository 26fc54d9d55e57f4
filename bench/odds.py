"""Exact odds of the next coup: a full 8-pack shoe, and the shoe left after each coup.

Issue 14 asks that the live shoe's odds be recomputed between two coups on a Raspberry Pi,
never on the deciding frame's path; the goal on this machine is under 20 ms for a full shoe.
The bench times, best and median of `--repeat` runs:

1. the first computation in a process (it builds the shoe-independent table of the 715
   four-card multisets once);
2. `CoupLaw.of(full shoe)`, the law for every strategy;
3. `coup_odds` for Punto Banco (law, chances, every bet with the Swiss Nine) and for Chemin
   de Fer's table strategy and its optimal (solved) strategy;
4. one dealt shoe (the simulated croupier, `hil.dealer`): after each coup, the remaining
   shoe's `coup_odds`, as the live shoe will run it.

    .venv/bin/python bench/odds.py [--profile baden-punto-banco] [--packs 8] [--repeat 20]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hil.dealer import deal_shoes  # noqa: E402
from shoe_daemon.game.houses import get_profile  # noqa: E402
from shoe_daemon.odds.analysis import coup_odds  # noqa: E402
from shoe_daemon.odds.law import CoupLaw  # noqa: E402
from shoe_daemon.odds.shoe import Shoe, ShoeError  # noqa: E402

GOAL_MS = 20.0


def machine_name() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    return (f"{platform.machine()}, {cpu}, {os.cpu_count()} CPUs, "
            f"Python {platform.python_version()}, {load}")


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(best, median) milliseconds of `repeat` calls."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return min(times), statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="baden-punto-banco")
    ap.add_argument("--chemin-de-fer", default="baden", help="the Chemin de Fer profile timed")
    ap.add_argument("--packs", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    profile = get_profile(args.profile, args.packs)
    chemin = get_profile(args.chemin_de_fer, args.packs)
    full = Shoe.full(args.packs)
    print(f"machine: {machine_name()}")
    print(f"shoe: {args.packs} packs, {full.size} cards; best / median of {args.repeat} runs")

    t = time.perf_counter()
    coup_odds(profile, full)
    first = 1000 * (time.perf_counter() - t)
    print(f"  {'first call in the process (builds the four-card table)':<52}{first:8.2f} ms")
    rows = [
        ("CoupLaw.of(full shoe)", lambda: CoupLaw.of(full)),
        (f"coup_odds {profile.name} (law, chances, bets)", lambda: coup_odds(profile, full)),
        (f"coup_odds {chemin.name} table", lambda: coup_odds(chemin, full, "table")),
        (f"coup_odds {chemin.name} optimal (solved)", lambda: coup_odds(chemin, full, "optimal")),
    ]
    results = {}
    for name, fn in rows:
        best, median = timed(fn, args.repeat)
        results[name] = best
        print(f"  {name:<52}{best:8.2f} / {median:8.2f} ms")

    session = deal_shoes(profile.name, shoes=1, seed=args.seed, packs=args.packs)
    shoe, per_coup, favourable = full, [], []
    for coup in session.results:
        cards = coup["punter"]["cards"] + coup["banker"]["cards"]
        shoe = shoe.without(cards)
        t = time.perf_counter()
        try:
            odds = coup_odds(profile, shoe)
        except ShoeError:
            break
        per_coup.append((time.perf_counter() - t) * 1000)
        favourable += [(coup["coup"], b.name, float(b.ev)) for b in odds.favourable()]
    print(f"  after each of {len(per_coup)} coups of one dealt shoe (seed {args.seed}): "
          f"median {statistics.median(per_coup):.2f} ms, max {max(per_coup):.2f} ms, "
          f"total {sum(per_coup):.0f} ms")
    for coup, name, ev in favourable[:10]:
        print(f"    after coup {coup}: {name} in the players' favour, expectation {ev:+.4f}")
    full_ms = results[f"coup_odds {profile.name} (law, chances, bets)"]
    verdict = "met" if full_ms < GOAL_MS else "NOT met"
    print(f"goal: a full shoe under {GOAL_MS:.0f} ms on this machine: {verdict} ({full_ms:.2f} ms)")
    return 0 if full_ms < GOAL_MS else 1


if __name__ == "__main__":
    sys.exit(main())
