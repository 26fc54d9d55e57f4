"""The money's cost per coup: closing the betting and settling a decided coup.

Times `TableMoney.apply` for the two actions that run on the shoe's frames (the `close` on
`BTN,DEAL`, and the `settle` on the deciding frame's `coup.result`), on tables with a
realistic round: at Chemin de fer a bank with three seated stakes and two outsiders, at
Punto Banco nine boxes with three bets each (Punto or Banco, Egalité, a Swiss Nine bet).
Prints the median and the 99th percentile in microseconds, with the machine named, and the
settlement's share of the console's budget (0.5 ms at the median on the deciding frame,
issue #12). Nothing is asserted here; docs/money.md keeps the figures.

    .venv/bin/python bench/money.py [--coups 2000]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from typing import Any

from shoe_daemon.game import results
from shoe_daemon.game.rules import swiss_nine
from shoe_daemon.money.houses import MONEY_PROFILES
from shoe_daemon.money.limits import table_limits
from shoe_daemon.money.table import TableMoney

BUDGET_US = 500.0
SETTINGS = {
    "baden": {"min_bank": 100, "min_stake": 10},
    "baden-punto-banco": {"min_stake": 10, "max_stake": 5000, "nine_min_stake": 5,
                          "nine_max_stake": 100},
}


def result(name: str, coup: int, outcome: str) -> dict[str, Any]:
    banker = ("9C", "KC") if coup % 7 == 0 else ("2C", "5D")
    return results.coup_result(shoe=1, coup=coup, profile=name, outcome=outcome,
                               punter=("4H", "3S"), banker=banker, last_coup=False,
                               irregularities=(),
                               swiss_nine=swiss_nine(banker) if "punto" in name else None)


def stakes(name: str) -> list[dict[str, Any]]:
    if "punto" in name:
        return [{"op": "bet", "box": box, "bet": bet, "amount": amount}
                for box in range(1, 10)
                for bet, amount in ((("punto", "banco")[box % 2], "100"), ("egalite", "10"),
                                    ("simple_nine", "5"))]
    return [{"op": "stake", "who": who, "amount": amount}
            for who, amount in (("seat 3", "200"), ("seat 5", "150"), ("seat 7", "100"),
                                ("outsider A", "50"), ("outsider B", "120"))]


def run(name: str, coups: int) -> tuple[list[float], list[float]]:
    profile = MONEY_PROFILES[name]
    table = TableMoney.start(profile, table_limits(profile, SETTINGS[name]), range(1, 10))
    if profile.chemin_de_fer is not None:
        table, _ = table.apply({"op": "take_bank", "who": "seat 1", "amount": "1000"})
    close, settle = [], []
    outcomes = ("banker", "punter", "banker", "egalite")
    for coup in range(1, coups + 1):
        for op in stakes(name):
            table, _ = table.apply(op)
        start = time.perf_counter()
        table, _ = table.apply({"op": "close", "shoe": 1, "coup": coup})
        middle = time.perf_counter()
        outcome = outcomes[coup % 4] if "punto" in name else ("banker", "egalite")[coup % 2]
        table, _ = table.apply({"op": "settle", "result": result(name, coup, outcome)})
        end = time.perf_counter()
        close.append((middle - start) * 1e6)
        settle.append((end - middle) * 1e6)
    return close, settle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coups", type=int, default=2000)
    args = parser.parse_args()
    print(f"machine: {platform.machine()} {platform.processor() or platform.platform()}, "
          f"Python {platform.python_version()}")
    for name in SETTINGS:
        close, settle = run(name, args.coups)
        for what, times in (("close", close), ("settle", settle)):
            median = statistics.median(times)
            p99 = statistics.quantiles(times, n=100)[98]
            print(f"{name:18} {what:6} median {median:7.1f} us  p99 {p99:7.1f} us  "
                  f"({median / BUDGET_US:.0%} of the 0.5 ms budget)")


if __name__ == "__main__":
    main()
