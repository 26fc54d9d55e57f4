"""The published shapes: a coup's result and an irregularity, as JSON-able dicts.

`replay` prints them as JSON Lines, the daemon appends them to the results file, and the
ledger records them; one builder keeps the three identical.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shoe_daemon.game import cards

OUTCOMES = ("banker", "punter", "egalite", "cancelled", "void")


def side(codes: Sequence[str], bac: bool = False) -> dict[str, Any]:
    """One side's valid cards in dealing order, its total, and whether it was a natural.

    `bac`: the hand was thrown into the discard and counts nothing (000 rule 15); its cards
    are kept for the record (the display never shows those that were face down)."""
    if bac:
        return {"cards": list(codes), "total": 0, "natural": False, "bac": True}
    return {
        "cards": list(codes),
        "total": cards.total(codes),
        "natural": len(codes) >= 2 and cards.total(codes[:2]) >= 8,
    }


def outcome_of(punter: Sequence[str], banker: Sequence[str], bac: bool = False) -> str:
    """The higher total wins; equal totals are égalité (000: 'the cards are dealt again').
    A punter's hand thrown into the discard counts bac, 0 (000 rule 15)."""
    p, b = 0 if bac else cards.total(punter), cards.total(banker)
    if p == b:
        return "egalite"
    return "punter" if p > b else "banker"


def coup_result(
    *,
    shoe: int,
    coup: int,
    profile: str,
    outcome: str,
    punter: Sequence[str],
    banker: Sequence[str],
    last_coup: bool,
    irregularities: Sequence[str],
    swiss_nine: Sequence[str] | None = None,
    bac: bool = False,
    rulings: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """`bac` and `rulings` come from what the croupier reported on the console (the coup
    machine's reports.py): the punter's hand counted bac, and each rule applied to the coup
    (`code`, the `rule` it cites, `by` whom). A line without them is as it always was."""
    line: dict[str, Any] = {
        "event": "coup.result",
        "shoe": shoe,
        "coup": coup,
        "profile": profile,
        "outcome": outcome,
        "punter": side(punter, bac),
        "banker": side(banker),
        "last_coup": last_coup,
        "irregularities": list(irregularities),
    }
    if swiss_nine is not None:
        line["swiss_nine"] = list(swiss_nine)
    if rulings:
        line["rulings"] = [dict(r) for r in rulings]
    return line


def irregularity(
    *, code: str, shoe: int, coup: int, rule: str, detail: str, hold: bool, action: str,
    by: str | None = None,
) -> dict[str, Any]:
    """`by`: the person who reported it on the croupier's console (none: the shoe's)."""
    line = {
        "event": "irregularity",
        "code": code,
        "shoe": shoe,
        "coup": coup,
        "rule": rule,
        "detail": detail,
        "hold": hold,
        "action": action,
    }
    if by is not None:
        line["by"] = by
    return line


def resolution(*, code: str, shoe: int, coup: int, how: str, by: str) -> dict[str, Any]:
    """A hold lifted: how (OK, ENTER, CARTE, VOID, ...) and by whom (a badge or 'croupier')."""
    return {
        "event": "irregularity.resolved",
        "code": code,
        "shoe": shoe,
        "coup": coup,
        "how": how,
        "by": by,
    }
