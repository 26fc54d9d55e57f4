"""Reading money records back into the actions that made them (shoe_daemon/money/steps.py).

Random croupier sessions on every house (the random croupier of test_properties.py): the
flat stream of records each session left, read back by `StepReader` one action at a time
as a ledger holds them, gives the session's own actions' records exactly, and each action
read back makes exactly its records again. Then each shape it must refuse.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shoe_daemon.game.rules import Game
from shoe_daemon.money.houses import MONEY_PROFILES
from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.stakes import RecordError
from shoe_daemon.money.steps import StepReader
from shoe_daemon.money.table import TableMoney
from shoe_daemon.money.verify import check_step
from tests.money import test_bank, test_round, test_settlement, test_supervisor
from tests.money.support import Desk, line, profile
from tests.money.test_properties import BANKER_CARDS, CDF_OPS, OUTCOMES, PB_OPS, fields


def random_session(name: str, data: st.DataObject) -> Desk:
    """A croupier's random session (refused actions leave nothing)."""
    profile = MONEY_PROFILES[name]
    cdf = profile.game is Game.CHEMIN_DE_FER
    places = profile.chemin_de_fer.places.value if cdf else 9
    seated = data.draw(st.sets(st.integers(1, places), min_size=places - 3)) if cdf else ()
    desk = Desk(name, sorted(seated))
    for _ in range(data.draw(st.integers(5, 150))):
        table = desk.table
        closed = table.round is not None and table.round.closed is not None
        if table.unbanked or (closed and data.draw(st.integers(0, 3)) > 0):
            outcome = data.draw(st.sampled_from(OUTCOMES))
            cards = None if cdf or outcome in ("void", "cancelled") else (
                *data.draw(st.sampled_from(BANKER_CARDS)), "3H")
            op, action = "settle", {"result": line(name, desk.shoe, desk.coup, outcome,
                                                   banker=cards)}
        else:
            op = "correct" if closed else data.draw(st.sampled_from(CDF_OPS if cdf else PB_OPS))
            action = fields(data, desk, op, places)
        try:
            desk.do(op, **action)
        except Refusal:
            continue
        if op == "close":
            desk.coup += 1
        elif op == "new_shoe":
            desk.shoe, desk.coup = desk.shoe + 1, 0
    return desk


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(list(MONEY_PROFILES)), data=st.data())
def test_records_read_back_into_their_actions(name: str, data: st.DataObject) -> None:
    desk = random_session(name, data)
    results = {(s[0]["result"]["shoe"], s[0]["result"]["coup"]): s[0]["result"]
               for s in desk.steps if s[0]["op"] == "settle"}
    reader = StepReader(desk.profile)
    table = TableMoney.start(desk.profile, desk.limits)
    read: list[list[dict[str, Any]]] = []
    for _, records in desk.steps:  # one action a transaction, as the ledger holds them
        for op, start, end in reader.read(records, lambda s, c: results[(s, c)]):
            made = records[start:end]
            table, difference = check_step(table, op, made)
            assert difference is None, (op, difference)
            read.append(made)
    assert read == [records for _, records in desk.steps if records]
    assert table.summary() == desk.table.summary()
    # The whole stream at once reads the same.
    flat = [r for _, records in desk.steps for r in records]
    spans = StepReader(desk.profile).read(flat, lambda s, c: results[(s, c)])
    assert [flat[a:b] for _, a, b in spans] == read


def test_the_settle_action_takes_the_published_result() -> None:
    desk = Desk("baden", [1, 2, 3, 4, 5])
    desk.do("take_bank", who="seat 1", amount="800")
    desk.do("stake", who="seat 3", amount="300")
    settlement = desk.coup_played("banker")
    published = line("baden", 1, 1, "punter")
    ops = StepReader(desk.profile).read([settlement, *desk.steps[-1][1][1:]],
                                        lambda s, c: published)
    assert ops == [({"op": "settle", "result": published}, 0, 2)]


@pytest.mark.parametrize("records, says", [
    ([{"event": "money.withdrawn", "stake": "s1", "who": "seat 3", "amount": "10.00",
       "why": "seat 2 called banco: the general game is not played"}],
     "without the banco or Suite that returned them"),
    ([{"event": "money.stake_changed", "stake": "s1", "who": "seat 2", "amount": "100.00",
       "value": "100.00"}], "followed by nothing, not money.stake"),
    ([{"event": "money.stake", "stake": {"id": "s2", "who": "seat 3", "kind": "share",
                                         "amount": "10.00", "value": "10.00",
                                         "over_line": False, "box": None, "of": "s1"}}],
     "a share stake made by no action of its own"),
    ([{"event": "money.bank", "change": "settled", "bank": {}}],
     "a bank settled without the coup's settlement before it"),
    ([{"event": "money.bank", "change": "robbed", "bank": {}}], "no action changes the bank"),
    ([{"event": "money.stake"}], "money.stake record without 'stake'"),
    ([{"event": "money.cash"}], "'money.cash' is not a money record"),
])
def test_records_no_action_makes(records: list[dict[str, Any]], says: str) -> None:
    with pytest.raises(RecordError, match=says):
        StepReader(profile("baden")).read(records, lambda s, c: {})


def read_back(desk: Desk) -> list[tuple[str, list[str]]]:
    """`desk`'s records, read back one action a transaction, make themselves again."""
    results = {(op["result"]["shoe"], op["result"]["coup"]): op["result"]
               for op, _ in desk.steps if op["op"] == "settle"}
    reader = StepReader(desk.profile)
    table = TableMoney.start(desk.profile, desk.limits)
    shapes = []
    for _, records in desk.steps:
        for op, start, end in reader.read(records, lambda s, c: results[(s, c)]):
            table, difference = check_step(table, op, records[start:end])
            assert difference is None, (op, difference)
            shapes.append((op["op"], [r["event"] for r in records[start:end]]))
    return shapes


def banco_withdrawn_with_its_shares() -> None:
    desk = Desk("zoppot-1934", range(1, 10))
    desk.do("take_bank", who="seat 1", amount="800")
    desk.do("banco", who="seat 4", kind="banco")
    desk.do("share", who="seat 6", of="seat 4", amount="300")
    desk.do("share", who="seat 7", of="seat 4", amount="100")
    assert len(desk.do("withdraw", stake="s1")) == 3
    desk.do("stake", who="seat 2", amount="100")
    desk.coup_played("punter")


SCENARIOS = [  # the bank's and the round's scenarios, with every shape of several records
    (test_bank.test_zoppot_suite_auction_and_rule_22, {}),
    (test_bank.test_clermont_pass_offer_standing_and_auction, {}),
    (test_bank.test_clermont_standing_player_takes_the_offer_out_of_turn, {}),
    (test_bank.test_baden_offer_in_turn_then_auction_and_successor, {}),
    (test_bank.test_shimmy_garage_and_pass, {}),
    (test_bank.test_suite_during_betting_returns_the_stakes, {}),
    (test_bank.test_new_shoe_keeps_the_figure_rule_25, {}),
    (test_round.test_banco_with_shareholders, {"name": "zoppot-1934"}),
    (test_round.test_banco_with_the_table, {"name": "zoppot-1934"}),
    (test_round.test_banco_out_of_turn, {"name": "baden"}),
    (test_round.test_open_bank_is_fixed_when_betting_closes, {}),
    (test_settlement.test_schokolade_worked_example, {}),
    (test_settlement.test_schokolade_asked_in_a_ledger_written_before_issue_20, {}),
    (test_settlement.test_schokolade_asked_while_betting_is_open, {}),
    (test_settlement.test_the_schokolade_setting, {}),
    (test_settlement.test_schokolade_asked_returns_a_banco_called_against_the_larger_bank, {}),
    (test_round.test_a_bank_taken_before_issue_20_was_not_counted, {}),
    (banco_withdrawn_with_its_shares, {}),
    (test_supervisor.test_the_inspector_changes_the_minimum_during_a_game_001, {}),
    (test_supervisor.test_the_configuration_may_change_the_make_up_of_the_table, {}),
    (test_supervisor.test_a_stake_keyed_wrong_is_corrected_after_the_deal, {}),
    (test_supervisor.test_a_stake_never_there_goes_and_one_missed_comes, {}),
    (test_supervisor.test_a_banco_with_the_table_corrected_answers_for_a_new_difference_000, {}),
    (test_supervisor.test_punto_banco_a_bet_corrected, {}),
    (test_supervisor.test_a_coup_found_void_after_its_settlement_returns_every_stake, {}),
    (test_supervisor.test_a_bank_that_ended_comes_back_with_its_set_aside_handed_back, {}),
    (test_supervisor.test_punto_banco_an_egalite_found_void, {}),
    (test_supervisor.test_a_new_shoe_records_the_table_whole, {"name": "baden-punto-banco"}),
]


def test_every_shape_of_the_scenarios_reads_back(monkeypatch: pytest.MonkeyPatch) -> None:
    desks: list[Desk] = []
    made = Desk.__init__

    def keep(self: Desk, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        desks.append(self)

    monkeypatch.setattr(Desk, "__init__", keep)
    for scenario, kwargs in SCENARIOS:
        scenario(**kwargs)
    shapes = {(op, tuple(events)) for desk in desks for op, events in read_back(desk)}
    for shape in [
        ("banco", ("money.withdrawn", "money.stake")),
        ("share", ("money.stake_changed", "money.stake")),
        ("withdraw", ("money.withdrawn", "money.stake_changed")),
        ("withdraw", ("money.withdrawn", "money.withdrawn", "money.withdrawn")),
        ("suite", ("money.withdrawn", "money.bank")),
        ("schokolade", ("money.withdrawn", "money.bank")),
        ("close", ("money.bank", "money.round")),
        ("close", ("money.stake", "money.round")),
        ("settle", ("money.settlement", "money.bank")),
        ("bid", ("money.bank",)), ("award", ("money.bank",)),
        ("to_auction", ("money.bank",)), ("accept_offer", ("money.bank",)),
        ("schokolade", ("money.bank",)), ("garage", ("money.bank",)),
        ("new_shoe", ("money.bank", "money.table")), ("new_shoe", ("money.shoe", "money.table")),
        ("limits", ("money.limits",)),
        ("correct", ("money.correction", "money.withdrawn", "money.stake", "money.round")),
        ("correct", ("money.correction", "money.withdrawn", "money.round")),
        ("correct", ("money.correction", "money.stake", "money.round")),
        ("correct", ("money.correction", "money.withdrawn", "money.bet", "money.round")),
        ("reopen", ("money.correction", "money.bank")), ("reopen", ("money.correction",)),
    ]:
        assert shape in shapes, shape
