"""The monitor's two computations, as plain functions of plain data (JSON in, JSON out), so
that they run the same in the worker process (`worker.py`), in a test, and in a bench:

- `after_coup(request)`: after each coup, the next coup's exposure (live.py) and the shoe so
  far against the earlier shoes' orders (slugs.py);
- `at_shoe_end(request)`: the shoe's inventory (inventory.py), its order against the earlier
  shoes' once more, and its outcomes' tests (stacked.py).

A request names the house's profile and the shoe's packs, and gives the cards read from the
shoe in order (`??` for one never keyed in) and each earlier shoe as `{"shoe", "opened_at",
"cards", "coups": [[cards read when decided, punter's cards, banker's cards], ...]}`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from shoe_daemon.game.houses import get_profile
from shoe_daemon.odds.inventory import Inventory, inventory_body
from shoe_daemon.odds.live import SYSTEM, exposure, exposure_body
from shoe_daemon.odds.shoe import ShoeError
from shoe_daemon.odds.slugs import (
    ALARM_CARDS,
    EARLIER,
    MIN_SLUG,
    CoupCards,
    EarlierShoe,
    compare,
    comparison_view,
    orders,
)
from shoe_daemon.odds.stacked import (
    ALPHA,
    alarm_words,
    full_shoe_law,
    outcome_tests,
    outcome_view,
)

STATISTIC = (f"cards of this shoe inside a run of {MIN_SLUG} or more consecutive cards that lay "
             "consecutively, in the same order, in an earlier shoe's order (as dealt, or "
             "each coup hand by hand); the largest against any one order")


_KEPT: dict[tuple[Any, ...], EarlierShoe] = {}  # the earlier shoes' orders, built once


def earlier_shoes(request: Mapping[str, Any]) -> list[EarlierShoe]:
    """The request's earlier shoes, each in its orders. An ended shoe does not change, so a
    process that compares after every coup (the worker) builds each one once."""
    out = []
    for e in request.get("earlier", [])[-EARLIER:]:
        key = (e["shoe"], e["opened_at"], len(e["cards"]), len(e["coups"]))
        shoe = _KEPT.get(key)
        if shoe is None or shoe.orders[0].cards != tuple(e["cards"]):
            coups = [CoupCards(c[0], tuple(c[1]), tuple(c[2])) for c in e["coups"]]
            shoe = EarlierShoe(e["shoe"], e["opened_at"], tuple(orders(e["cards"], coups)))
            if len(_KEPT) >= 4 * EARLIER:
                _KEPT.pop(next(iter(_KEPT)))
            _KEPT[key] = shoe
        out.append(shoe)
    return out


def shuffle_check(cards: Sequence[str], earlier: Sequence[EarlierShoe]) -> dict[str, Any]:
    """The slug statistic of `cards` against every earlier order; the slugs where it alarms."""
    found = compare(cards, earlier)
    top = max((c.cards for c in found), default=0)
    return {
        "statistic": STATISTIC, "cards_in_slugs": top, "threshold": ALARM_CARDS,
        "alarm": top >= ALARM_CARDS,
        "compared_with": [comparison_view(c, cards) for c in found],
    }


def after_coup(request: Mapping[str, Any]) -> dict[str, Any]:
    profile = get_profile(request["profile"], request["packs"])
    cards = request["cards"]
    started = time.perf_counter()
    out: dict[str, Any] = {}
    try:
        found = exposure(profile, request["packs"], cards)
    except ShoeError as e:
        out["exposure_error"] = str(e)
    else:
        ms = (time.perf_counter() - started) * 1000
        out["exposure"] = exposure_body(found, request["shoe"], request["opened_at"],
                                        request["after_coup"], ms)
    out["shuffle"] = shuffle_check(cards, earlier_shoes(request))
    return out


def at_shoe_end(request: Mapping[str, Any]) -> dict[str, Any]:
    cards = request["cards"]
    shoe, opened_at = request["shoe"], request["opened_at"]
    inv = Inventory(request["packs"], tuple(cards), tuple(request["unreadable_at"]))
    inventory = inventory_body(inv, shoe, opened_at, len(request["outcomes"]), request["ended"])
    outcomes = request["outcomes"]
    tests = outcome_tests(outcomes, full_shoe_law(request["profile"], request["packs"]))
    decided = sum(1 for o in outcomes if o in ("banker", "punter"))
    shuffle = shuffle_check(cards, earlier_shoes(request))
    counts = {o: outcomes.count(o) for o in ("banker", "punter", "egalite", "cancelled",
                                              "void")}
    alarms = [{"test": t.name, "words": alarm_words(t, shoe, decided), **outcome_view(t)}
              for t in tests if t.alarm]
    if inventory["over_pack_count"]:
        alarms.insert(0, {"test": "inventory", "over_pack_count": inventory["over_pack_count"],
                          "words": _inventory_alarm_words(shoe, inv.packs, inventory)})
    integrity = {
        "by": SYSTEM, "shoe": shoe, "opened_at": opened_at, "shuffle": shuffle,
        "outcomes": {**counts, "decided": decided, "alpha": ALPHA,
                     "tests": [outcome_view(t) for t in tests]},
        "alarm": shuffle["alarm"] or bool(alarms),
        "words": _integrity_words(shoe, shuffle, tests),
    }
    return {"inventory": inventory, "integrity": integrity, "end_alarms": alarms}


def _inventory_alarm_words(shoe: int | None, packs: int, inventory: Mapping[str, Any]) -> str:
    over = "; ".join(f"{o['code']} read {o['read']} times (cards "
                     f"{', '.join(str(p) for p in o['positions'])})"
                     for o in inventory["over_pack_count"])
    return (f"ALARM shoe {shoe}: its inventory has a code read more often than its {packs} "
            f"packs hold: {over}. A card that did not belong to the shoe was dealt from it; "
            "check the shoe's cards and how each was taken out of play (docs/odds.md).")


def _integrity_words(shoe: int | None, shuffle: Mapping[str, Any], tests: Sequence[Any]
                     ) -> str:
    n = len(shuffle["compared_with"])
    said = (f"Shoe {shoe}: {shuffle['cards_in_slugs']} cards in slugs of earlier shoes "
            f"(alarm at {ALARM_CARDS}; {n} order{'s' if n != 1 else ''} compared)")
    said += "; outcomes: " + ", ".join(
        f"{t.name} p={t.p_value:.2g}{' ALARM' if t.alarm else ''}" for t in tests) + "."
    return said


def slug_alarm_words(shoe: int | None, after_coup: int | None, shuffle: Mapping[str, Any]
                     ) -> str:
    """An integrity alarm for slugs, naming the worst comparison's slugs."""
    worst = max(shuffle["compared_with"], key=lambda c: c["cards_in_slugs"])
    named = worst.get("slugs", [])
    listed = "; ".join(
        f"{' '.join(s['cards'])} (cards {s['new'][0]}-{s['new'][1]} of this shoe, "
        f"{_places(s['earlier'])} of shoe {worst['shoe']})" for s in named[:6])
    more = f"; and {len(named) - 6} more" if len(named) > 6 else ""
    when = f" by coup {after_coup}" if after_coup is not None else ""
    return (f"ALARM shoe {shoe}: the shuffle left slugs of shoe {worst['shoe']}'s order "
            f"({worst['order']}){when}: {worst['cards_in_slugs']} cards in runs of "
            f"{MIN_SLUG} or more, where a shuffled shoe almost never shows {ALARM_CARDS}. "
            f"A player who recorded shoe {worst['shoe']} can predict these cards. Slugs: "
            f"{listed}{more}. Check the shuffle (docs/odds.md).")


def _places(positions: Sequence[int]) -> str:
    if list(positions) == list(range(positions[0], positions[0] + len(positions))):
        return f"cards {positions[0]}-{positions[-1]}"
    return "cards " + ",".join(str(p) for p in positions)
