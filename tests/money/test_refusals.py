"""Every refusal code, each once at a table: the message is plain words a croupier reads on a
touch screen (short, no quote of a seed), the rule apart carries the citation (issue 20:
"each refusal's seed quote once")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from shoe_daemon.money.refusals import CODES, Refusal
from tests.money.support import Desk

SEEDS = Path(__file__).resolve().parents[2] / "docs" / "seeds"
TEXT = " ".join(" ".join(p.read_text(encoding="utf-8") for p in SEEDS.glob("0*.txt")).split())
FULL = range(1, 10)


def banked(name: str = "baden", amount: str = "800", seated=FULL) -> Desk:
    desk = Desk(name, seated)
    desk.do("take_bank", who="seat 1", amount=amount)
    return desk


def closed() -> Desk:
    desk = banked()
    desk.do("stake", who="seat 2", amount="100")
    desk.do("close", shoe=1, coup=1)
    return desk


def auction() -> Desk:
    desk = banked("zoppot-1934", "100")
    desk.do("stake", who="seat 2", amount="50")
    desk.coup_played("banker")
    desk.do("suite")
    return desk


def bid() -> Desk:
    desk = auction()
    desk.do("bid", who="seat 3", amount="500")
    return desk


def carried() -> Desk:
    desk = Desk("baden-punto-banco")
    desk.do("bet", box=1, bet="punto", amount="100")
    desk.coup_played("egalite")
    return desk


def banco() -> Desk:
    desk = banked()
    desk.do("banco", who="seat 2", kind="banco_solo")
    return desk


#: code -> the table before, and the action it refuses.
CASES: dict[str, tuple[Callable[[], Desk], dict]] = {
    "after_close": (closed, {"op": "stake", "who": "seat 3", "amount": "100"}),
    "more_than_bank": (banked, {"op": "stake", "who": "seat 2", "amount": "900"}),
    "out_of_turn": (lambda: Desk("baden", FULL), {"op": "take_bank", "who": "seat 2",
                                                  "amount": "800"}),
    "below_minimum": (banked, {"op": "stake", "who": "seat 2", "amount": "5"}),
    "above_maximum": (lambda: banked("zoppot-1934", "5000"),
                      {"op": "stake", "who": "seat 2", "amount": "2401"}),
    "no_amount": (banked, {"op": "stake", "who": "seat 2", "amount": "0"}),
    "not_a_chip": (banked, {"op": "stake", "who": "seat 2", "amount": "10.50"}),
    "not_offered": (lambda: Desk("baden", FULL), {"op": "take_bank", "who": "seat 1",
                                                  "amount": "open"}),
    "banco_called": (banco, {"op": "stake", "who": "seat 3", "amount": "100"}),
    "with_table_share": (banked, {"op": "banco", "who": "seat 2", "kind": "banco_with_table",
                                  "amount": "100"}),
    "partner": (lambda: Desk("zoppot-1934", range(1, 4)),
                {"op": "take_bank", "who": "seat 1", "amount": "500", "partner": "seat 2",
                 "partner_amount": "100"}),
    "not_a_player": (banked, {"op": "stake", "who": "seat 1", "amount": "100"}),
    "no_bank": (lambda: Desk("baden", FULL), {"op": "stake", "who": "seat 2",
                                              "amount": "100"}),
    "no_such_stake": (banked, {"op": "withdraw", "stake": "s9"}),
    "carried": (carried, {"op": "withdraw", "stake": "b1"}),
    "not_now": (banked, {"op": "schokolade"}),
    "excluded": (auction, {"op": "bid", "who": "seat 1", "amount": "500"}),
    "bid_too_low": (bid, {"op": "bid", "who": "seat 4", "amount": "400"}),
    "too_few_players": (lambda: Desk("baden", range(1, 5)),
                        {"op": "take_bank", "who": "seat 1", "amount": "800"}),
    "seating": (lambda: Desk("baden", FULL), {"op": "sit", "seat": 3}),
    "bad_request": (banked, {"op": "stake", "who": "seat 2", "amount": 12.5}),
}


def test_every_code_has_its_case() -> None:
    assert sorted(CASES) == sorted(CODES)


@pytest.mark.parametrize("code", sorted(CASES))
def test_the_message_is_plain_words_and_the_rule_carries_the_quote(code: str) -> None:
    start, action = CASES[code]
    desk = start()
    op = dict(action)
    with pytest.raises(Refusal) as caught:
        desk.do(op.pop("op"), **op)
    refusal = caught.value
    assert refusal.code == code, refusal
    assert str(refusal) == refusal.reason  # what the croupier reads: the reason alone
    assert refusal.to_dict() == {"code": code, "reason": refusal.reason, "rule": refusal.rule}
    assert refusal.rule.strip() and refusal.rule not in refusal.reason
    assert '"' not in refusal.reason and "rule:" not in refusal.reason, refusal.reason
    assert len(refusal.reason) <= 120, refusal.reason  # a touch screen's line or two
    words = refusal.reason.split()
    for n in range(len(words) - 4):  # no five words of a seed in a row: no quote
        assert " ".join(words[n:n + 5]) not in TEXT, refusal.reason
    assert refusal.cited() == f"{refusal.reason} (rule: {refusal.rule})"

