"""What a coup's money did, as the recall tells it (docs/console.md, "Recall"): the stakes as
betting closed, the settlement line by line in the house's payment order, and each
correction with who made it and who approved it.

It reads the money's own ledger records (`money.round`, `money.settlement`,
`money.correction`, and `money.stake` ... for the round still open), never plays them again,
and reads every shape the money writes or wrote: a coup dealt before anyone took the bank
(a round with no bank, no limits, no stakes), a Chemin de fer or a Punto Banco round, a
corrected round, a reopened settlement, and a player named by his key ("seat 3", "outsider
A") or, in ledgers written before one key for a player, by his place number. A player is
told by his key, a Punto Banco bet by its box ("box 4"); a stake's internal id (`s1`, `b2`)
is never told. A record without what places it (its shoe and coup) is a fault of the
ledger, not a shape: it raises, and the console answers 500 and logs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MONEY_READ = ("money.table", "money.stake", "money.stake_changed", "money.withdrawn",
              "money.bet", "money.round", "money.settlement", "money.correction")
STAKE_FIELDS = ("who", "kind", "amount", "value", "over_line", "box")
LINE_FIELDS = ("who", "kind", "staked", "in_play", "result", "paid", "carried", "commission",
               "net")
BANK_FIELDS = ("banker", "amount", "partner", "partner_amount", "last_banker", "suivi")
PLAYERS = ("banker", "partner", "last_banker", "suivi", "holder", "passes_to", "who")


def player_key(value: Any) -> Any:
    """A player as the money names him now: a place number of an older ledger is "seat N"."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"seat {value}"
    return value


def _keyed(body: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """These fields of a record, players by their key (absent fields: null)."""
    return {k: player_key(body.get(k)) if k in PLAYERS else body.get(k) for k in names}


def told_stakes(stakes: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Stakes or Punto Banco bets by their player or box; a share's banco by its player."""
    whose = {s.get("id"): player_key(s.get("who")) for s in stakes}
    told = []
    for stake in stakes:
        if "bet" in stake:  # a Punto Banco box's bet
            told.append({"who": f"box {stake['box']}", "bet": stake["bet"],
                         "amount": stake["amount"], "carried": bool(stake.get("carried"))})
            continue
        of = stake.get("of")
        told.append({**_keyed(stake, STAKE_FIELDS), "of": None if of is None else whose.get(of)})
    return told


def told_round(body: Mapping[str, Any]) -> dict[str, Any]:
    """A `money.round` record: the bank in play (null: nobody held it, or the casino banks),
    the holder of the punters' hand, the limits, and every stake."""
    bank = body.get("bank")
    return {"currency": body.get("currency"),
            "bank": None if bank is None else _keyed(bank, BANK_FIELDS),
            "holder": player_key(body.get("holder")), "limits": body.get("limits"),
            "stakes": told_stakes(body.get("stakes", body.get("bets")) or [])}


def told_settlement(body: Mapping[str, Any]) -> dict[str, Any]:
    """A `money.settlement` record: its lines in the order the croupier pays them (000 rule
    26: the money writes them so), the commission, the bank after the coup."""
    bank = body.get("bank")
    return {"outcome": body.get("outcome"), "currency": body.get("currency"),
            "counts": body.get("counts"), "commission": body.get("commission"),
            "lines": [_keyed(line, LINE_FIELDS) for line in body.get("lines") or []],
            "bank": None if bank is None else {
                **bank, "holder": player_key(bank.get("holder")),
                "passes_to": player_key(bank.get("passes_to"))},
            "suivi": player_key(body.get("suivi")), "rules": list(body.get("rules") or [])}


def told_correction(body: Mapping[str, Any], approved_by: Mapping[str, Any] | None
                    ) -> dict[str, Any]:
    """A `money.correction` record: the stake corrected (its player, the new amount) or the
    settlement reopened (how, each player's adjustment), by whom, approved by whom, why."""
    out = {"change": body["change"], "by": body.get("by"),
           "approved_by": None if approved_by is None else dict(approved_by),
           "reason": body.get("reason"), "rule": body.get("rule")}
    if body["change"] == "settlement":
        return out | {"how": body.get("how"), "commission": body.get("commission"),
                      "adjustments": [_keyed(x, ("who", "kind", "paid", "carried", "net"))
                                      for x in body.get("adjustments") or []],
                      "paid": {player_key(k): v for k, v in (body.get("paid") or {}).items()}}
    return out | {"who": player_key(body.get("who")), "amount": body.get("amount")}


@dataclass
class CoupMoney:
    """One coup's money as the ledger tells it: the round as it closed (the last one, after
    a correction), the settlement (the corrected one, after a reopening), the corrections."""

    stakes: dict[str, Any] | None = None
    settlement: dict[str, Any] | None = None
    corrections: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Betting:
    """The stakes of the round still open, followed from the money's records."""

    stakes: dict[str, dict[str, Any]] = field(default_factory=dict)  # by id, in order

    def start(self, snapshot: Mapping[str, Any]) -> None:
        current = snapshot.get("round")
        self.stakes = {}
        if current is not None and current.get("shoe") is None:  # open, not dealt
            for stake in current.get("stakes", current.get("bets")) or []:
                self.stakes[stake["id"]] = stake

    def record(self, body: Mapping[str, Any]) -> None:
        event = body["event"]
        if event in ("money.stake", "money.bet"):
            stake = body.get("stake") or body["bet"]
            self.stakes[stake["id"]] = stake
        elif event == "money.stake_changed" and body["stake"] in self.stakes:
            self.stakes[body["stake"]] = {**self.stakes[body["stake"]],
                                          "amount": body["amount"], "value": body["value"]}
        elif event == "money.withdrawn":
            self.stakes.pop(body["stake"], None)
        elif event == "money.round":
            self.stakes = {}

    def told(self) -> list[dict[str, Any]]:
        return told_stakes(list(self.stakes.values()))
