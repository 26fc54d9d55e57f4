"""Money records as ledgers written before issue 20 hold them, read by today's readers.

A ledger stays valid under the rules it was written with. Four things changed in issue 20:

- **One key for a player.** Records written before named the place in turn to take the
  bank (`in_turn`), where a bank passes (`passes_to`) and the places that declined an offer
  (`declined`) by the place's number (`passes_to: 2`); they are now the player's key
  (`"seat 2"`). `current_form` gives such a record in today's form, so that it is compared
  with what the rules make now by what it says, not by how it was spelled; every reader
  (`Bank.from_dict`, `BankAfter.from_dict`, the report, the pit) takes both forms.
- **Baden's bank after a win not fully covered.** A settlement written before kept the
  uncovered part in the bank (the new bank 1,370 in 003's worked example) until the banker
  asked for the Schokolade; today's sets it aside at once (1,170, the settlement's
  `bank.set_aside`) unless the table is configured `schokolade = "asked"`. A settlement
  without `set_aside` at a house that sets the Schokolade aside was written by the earlier
  reading (or at such a table), and is played again by it (`schokolade_asked`; the `settle`
  op's `schokolade: "asked"`).
- **The minimum of players begins a game.** Before, every stake was refused while fewer
  than the house's minimum sat; now the game's first bank is (`Bank.take`), and a stake
  never. A bank taken before issue 20 was not counted, and its `take` record has no
  `seated`: it is played again uncounted (`uncounted`; the `take_bank` op's
  `before_issue_20`). Every stake it allowed then is allowed now.
- **The settlement says its order.** Its lines came in the house's payment order before
  too; today's record says so (`order`: the term), and `current_form` adds it.

A `take_bank` op with `before_issue_20: true` is one played again from such a record; the
console never sends it (its actions' fields are the API's), nor a `settle` op (the shoe's).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shoe_daemon.game.rules import Game
from shoe_daemon.money.houses import get_money_profile
from shoe_daemon.money.players import seat_key
from shoe_daemon.money.profile import MoneyProfile, SetAside

#: The op field of an action played again from a record written before issue 20.
EARLIER = "before_issue_20"
#: The fields that named a player by his place's number before issue 20.
PLACES = ("in_turn", "passes_to")
PLACE_LISTS = ("declined",)


def current_form(value: Any) -> Any:
    """A record (or any part of one) with the places named by number before issue 20 as
    players' keys; anything else as it is."""
    if isinstance(value, Mapping):
        out = {}
        if value.get("event") == "money.settlement" and "order" not in value:
            out["order"] = _order(value.get("profile"))
        for key, item in value.items():
            if key in PLACES and _place(item):
                out[key] = seat_key(item)
            elif key in PLACE_LISTS and isinstance(item, list):
                out[key] = [seat_key(p) if _place(p) else p for p in item]
            else:
                out[key] = current_form(item)
        return out
    if isinstance(value, list):
        return [current_form(item) for item in value]
    return value


def schokolade_asked(profile: MoneyProfile, settlement: Mapping[str, Any]) -> bool:
    """True when `settlement` (a `money.settlement` record) was written by the reading before
    issue 20: a Schokolade house's bank with no `set_aside`."""
    rules = profile.chemin_de_fer
    bank = settlement.get("bank")
    return (rules is not None and rules.set_aside.value is SetAside.SCHOKOLADE
            and isinstance(bank, Mapping) and "set_aside" not in bank)


def uncounted(take: Mapping[str, Any]) -> bool:
    """True when a `money.bank` `take` record was written before issue 20 (no `seated`)."""
    return take.get("change") == "take" and "seated" not in take


def _order(profile: Any) -> str | None:
    """The term a settlement of `profile` is ordered by (`Settlement.order`): a settlement
    written before issue 20 came in the same order without saying so."""
    try:
        game = get_money_profile(str(profile)).game
    except KeyError:
        return None
    return "punto_banco.payment_order" if game is Game.PUNTO_BANCO else \
        "chemin_de_fer.payment_order"


def _place(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1
