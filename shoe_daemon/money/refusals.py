"""A stake, a bet or a change of bank the rules do not allow: refused with the rule cited.

A `Refusal` is raised before anything changes (the table's state is as it was) and says
what is wrong in words, with a stable `code` a program can test and the `rule` it applies:
the source of the profile's term (the seed's own words, or the decision where it is
silent). The console answers with it as it is (docs/money.md, "Refusals").
"""

from __future__ import annotations

from typing import Any

#: Every refusal's code and what it means.
CODES: dict[str, str] = {
    "after_close": "a stake or a change after betting closed (Rien ne va plus)",
    "more_than_bank": "the stakes would cover more than the bank",
    "out_of_turn": "a banco, a bank or an offer taken out of the order of priority",
    "below_minimum": "below the table's minimum",
    "above_maximum": "above the table's maximum",
    "no_amount": "an amount of nothing, or less: a zero or negative stake, bank, bid or share",
    "not_a_chip": "not a whole number of the table's chip",
    "not_offered": "a kind of play, bet or choice this house does not offer",
    "banco_called": "the general game while a banco stands",
    "with_table_share": "a banco with the table below its share of the bank",
    "partner": "a banker's partner the rules do not allow",
    "not_a_player": "a player who cannot stake: not seated, the banker, or his partner",
    "no_bank": "no bank is held, or the bank is not where the action needs it",
    "no_such_stake": "a stake that is not in the round",
    "carried": "a stake that stays on the layout from an égalité",
    "not_now": "an action the bank's or the coup's state does not allow now",
    "excluded": "a bidder the rules exclude from the auction",
    "bid_too_low": "a bid that does not beat the highest",
    "too_few_players": "fewer players seated than the house needs",
    "seating": "a seat that is not at the table, or is taken, or is held by a stake",
    "bad_request": "an action that is not well formed",
}


class Refusal(Exception):
    """An action refused by a rule; nothing changed."""

    def __init__(self, code: str, reason: str, rule: str) -> None:
        if code not in CODES:
            raise ValueError(f"unknown refusal code {code!r}")
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.rule = rule

    def __str__(self) -> str:
        """The reason alone: what the croupier reads (the rule is `rule`, shown apart)."""
        return self.reason

    def cited(self) -> str:
        """The reason with its rule, for a log or an auditor's report."""
        return f"{self.reason} (rule: {self.rule})"

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "reason": self.reason, "rule": self.rule}
