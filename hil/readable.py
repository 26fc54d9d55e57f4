"""The published lines in words, for a person watching the demo.

Built only from what the daemon publishes (`coup.result`, `irregularity`,
`irregularity.resolved`: shoe_daemon/game/results.py), so the words say what a results file
says: one line per decided coup, a line when a dealing error is caught, one when a hold is
lifted. The lines are worded in English; the game's terms (the sides, the outcome) are the
table's, from the words file in the table's display language and terms (`Words`), as its
display, its console and the pit name them.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from shoe_daemon.display.words import Words
from shoe_daemon.money.display import format_money
from shoe_daemon.money.houses import get_money_profile
from shoe_daemon.report.text import commission_word

OUTCOMES = {
    "banker": "{banco} wins",
    "punter": "{punto} wins",
    "egalite": "{egalite}",
    "cancelled": "cancelled, without loss to either side",
    "void": "voided by a supervisor",
}


def words(code: str) -> str:
    """An irregularity's code in words: FAUX_TIRAGE -> faux tirage."""
    return code.lower().replace("_", " ")


def hand(name: str, side: dict[str, Any]) -> str:
    if not side["cards"]:
        return f"{name} no cards"
    natural = ", natural" if side["natural"] else ""
    bac = ", bac" if side.get("bac") else ""  # thrown into the discard (000 rule 15)
    return f"{name} {' '.join(side['cards'])} ({side['total']}{natural}{bac})"


def coup_line(line: dict[str, Any], terms: Words) -> str:
    parts = [hand(terms.term("punto"), line["punter"]), hand(terms.term("banco"), line["banker"]),
             terms.with_terms(OUTCOMES.get(line["outcome"], line["outcome"]))]
    if line.get("swiss_nine"):
        parts.append("swiss nine: " + ", ".join(line["swiss_nine"]))
    if line["irregularities"]:
        parts.append("irregularities: " + ", ".join(words(c) for c in line["irregularities"]))
    if line.get("rulings"):  # what the croupier reported on his console, and who
        parts.append("rulings: " + ", ".join(f"{words(r['code'])} by {r['by']}"
                                             for r in line["rulings"]))
    if line["last_coup"]:
        parts.append("last coup of the shoe")
    return "   ".join(parts)


def irregularity_line(line: dict[str, Any], terms: Words) -> str:
    what = "HOLD" if line["hold"] else "irregularity"
    return f"{what}, {words(line['code'])}: {line['detail']} ({line['rule']}). {line['action']}"


def resolved_line(line: dict[str, Any], terms: Words) -> str:
    by = "the croupier" if line["by"] == "croupier" else f"supervisor {line['by']}"
    return f"hold lifted, {words(line['code'])}: {line['how']} by {by}"


LINES = {"coup.result": coup_line, "irregularity": irregularity_line,
         "irregularity.resolved": resolved_line}
PB_BETS = {"punto": "{punto}", "banco": "{banco}", "egalite": "{egalite}",
           "simple_nine": "Simple Nine", "colour_nine": "Colour Nine",
           "swiss_nine": "Swiss Nine"}


def settlement_line(record: dict[str, Any], terms: Words | None = None) -> str:
    """A coup's `money.settlement` record in words, in the house's money ("Fr. 300"): each
    player's line in the house's payment order, the commission, the bank after. The demo
    prints it under the coup's line (`demo --console`), read from the table's ledger."""
    terms = terms or Words()
    profile = get_money_profile(record["profile"])

    def money(amount: str) -> str:
        return format_money(Decimal(amount).copy_abs(), profile.currency.value,
                            profile.locale.value)

    parts = []
    for line in record["lines"]:
        who = "the casino" if line["who"] == "house" else str(line["who"])
        if line["kind"] in ("bank", "partner"):
            who += f" ({line['kind']})"
        elif line["kind"] in PB_BETS:
            who += f" on {terms.with_terms(PB_BETS[line['kind']])}"
        told = line["result"] if line["result"] in ("returned", "stays") else \
            f"{line['result']} {money(line['net'])}"
        parts.append(f"{who} {told}")
    said = ", ".join(parts) if parts else "nothing staked"
    if Decimal(record["commission"]):
        said += f"; {commission_word(profile.name)} {money(record['commission'])}"
    bank = record.get("bank") or {}
    if bank.get("after") is not None and not bank.get("ends"):
        said += f"; the bank {money(bank['after'])}"
    return f"shoe {record['shoe']} coup {record['coup']:>2}   settled: {said}"


def describe(line: dict[str, Any], terms: Words | None = None) -> str:
    """One published line in words, headed by its shoe and coup, the game named in `terms`
    (the table's words; the words file's default without); an unknown event as JSON."""
    shape = LINES.get(line.get("event", ""))
    if shape is None:
        return json.dumps(line)
    return f"shoe {line['shoe']} coup {line['coup']:>2}   {shape(line, terms or Words())}"
