"""What only the croupier sees, through the real service loop, ledger and console server
(tests/console_support.py): each report an attributed action committed before the lines it
decided, published like any other line with the house's rule; refused where the house or
the moment does not take it, with the rule cited and nothing in the ledger; 000 rule 11
held for a supervisor's ruling; the restore and `shoe-daemon replay --console` giving the
same lines; the recall and the console's state never showing a card thrown into the
discard unseen.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.game.houses import get_profile
from shoe_daemon.game.rules import Report
from shoe_daemon.service import replay
from tests.console_support import console_table

H = "HELLO:0badcafe "


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x]


def report_state(client: Any, kind: str) -> dict[str, Any]:
    (state,) = [r for r in client.get("/api/state")[1]["console"]["reports"]
                if r["kind"] == kind]
    return state


def test_each_report_is_an_attributed_record_before_its_lines(tmp_path):
    state = tmp_path / "state"
    with console_table(state, "zoppot-1934") as t:
        bob = t.client()
        assert bob.sign_in("bob", "1234")[0] == 200
        t.shoe.feed(H + "SHOE DEAL 2C TH 3D 5S")  # punter 5 to declare, banker 5
        assert t.machine.state == "punter_to_declare"
        offered = report_state(bob, "punter_bac")
        assert offered == {"kind": "punter_bac", "code": "PUNTER_BAC", "applies": True,
                           "rule": "000 rule 15", "why_not": None, "positions": []}
        status, body = bob.act("card_fell", position="P1", face="down",
                               reason="fell on the carpet; picked up by the croupier")
        assert status == 200, body
        assert [x["code"] for x in body["lines"]] == ["CARD_FELL"]
        status, body = bob.act("partner_objection", partner="seat 4",
                               reason="wanted the banker to play after the shoe")
        assert status == 200, body
        status, body = bob.act("punter_bac", reason="threw his cards into the discard")
        assert status == 200, body
        assert [(x["event"], x.get("code"), x.get("outcome")) for x in body["lines"]] == [
            ("irregularity", "PUNTER_BAC", None), ("coup.result", None, "banker")]
        records = t.records()
        (action,) = [r for r in records if r.idx == body["ledger_index"]]
        assert action.kind == "action" and action.body == {
            "id": body["action"]["id"], "kind": "punter_bac", "by": "bob", "role": "croupier",
            "args": {"reason": "threw his cards into the discard"}}
        after = [r.body["line"] for r in records if r.idx > action.idx and r.kind == "result"]
        assert [x["event"] for x in after] == ["irregularity", "coup.result"]
        result = after[-1]
        assert result["punter"]["bac"] is True and result["punter"]["total"] == 0
        assert [(r["code"], r["by"]) for r in result["rulings"]] == [
            ("CARD_FELL", "bob"), ("PARTNER_OBJECTION", "bob"), ("PUNTER_BAC", "bob")]
        profile = get_profile("zoppot-1934")
        assert [r["rule"] for r in result["rulings"]] == [
            profile.croupier_rule(r).source for r in (
                Report.CARD_FELL, Report.PARTNER_OBJECTION, Report.PUNTER_BAC)]
        # The console's view of the table is the display's: the bac'd cards stay hidden.
        view = bob.get("/api/state")[1]["view"]
        assert view["coup"]["punter"] == {"cards": [None, None], "total": 0, "natural": False,
                                          "bac": True}
        assert [n["code"] for n in view["coup"]["notices"]] == [
            "CARD_FELL", "PARTNER_OBJECTION", "PUNTER_BAC"]
        # The recall tells the reports, with the person and place, never the thrown cards.
        recall = bob.get("/api/recall")[1]
        assert recall["consistent"] is True  # the recall's replay gives the recorded lines
        (told,) = [c for c in recall["coups"] if c["coup"] == 1]
        assert told["punter"] == {"cards": [None, None], "total": 0, "bac": True}
        assert [c["code"] for c in told["cards"][:3]] == [None, "TH", None]
        assert told["cards"][0]["fate"] == "punter P1, into the discard unseen"
        reports = [e for e in told["events"] if e["what"] == "console"]
        assert [(e["kind"], e["by"], e.get("position"), e.get("partner")) for e in reports] == [
            ("card_fell", "bob", "P1", None), ("partner_objection", "bob", None, "seat 4"),
            ("punter_bac", "bob", None, None)]
    assert lines_of(state / "results.jsonl")[-1] == result


def test_a_report_refused_cites_the_rule_and_leaves_nothing(tmp_path):
    with console_table(tmp_path / "state", "baden") as t:
        bob = t.client()
        bob.sign_in("bob", "1234")
        t.shoe.feed(H + "SHOE")
        count = len(t.records())
        for kind, args, status, words in (
            # Not the moment: no coup is dealt.
            ("punter_bac", {}, 409, "000 rule 15 (not printed in 003)"),
            ("banker_card_lost", {"position": "B1"}, 409, "000 rule 11 (not printed in 003)"),
            ("card_fell", {"position": "P1", "face": "up"}, 409, "000 rule 10"),
            # Not this house: 003 has no banker's partner.
            ("partner_objection", {"partner": "seat 4"}, 409,
             "the partner's objection is not taken at baden: not printed in 003: no partner"),
            # Not a well-formed request.
            ("card_fell", {"position": "P9", "face": "up"}, 400, "'position' must be one of"),
            ("card_fell", {"position": "P1"}, 400, "'face' is required"),
            ("partner_objection", {"partner": "the man in the hat"}, 400, "'partner' is not"),
            ("punter_bac", {"card": "9C"}, 400, "unknown field 'card'"),
        ):
            code, body = bob.act(kind, reason="seen at the table", **args)
            if words.startswith("000 rule"):  # the rule is cited once, in `rule`
                assert code == status and body["rule"].startswith(words), (kind, body)
                assert "rule" not in body["error"] and kind not in body["error"], body
            else:
                assert code == status and words in body["error"], (kind, body)
        assert bob.act("punter_bac")[0] == 400  # a report needs its reason
        assert len(t.records()) == count and t.machine.state == "waiting_for_stakes"
        # The console's state says why each is not offered now.
        assert "not printed in 003" in report_state(bob, "partner_objection")["why_not"]
        assert "the table is waiting for stakes" in report_state(bob, "punter_bac")["why_not"]
        bac = report_state(bob, "punter_bac")  # plain words; the rule once, in `rule`
        assert bac["why_not"].startswith("a punter's bac is taken while")
        assert "rule" not in bac["why_not"] and bac["rule"] in ("000 rule 15",
                                                                "000 rule 15 (not printed in 003)")


def test_rule_11_a_croupiers_report_holds_play_a_supervisor_rules(tmp_path):
    state = tmp_path / "state"
    with console_table(state, "baden") as t:
        bob, ana = t.client(), t.client()
        bob.sign_in("bob", "1234")
        ana.sign_in("ana", "4711")
        t.shoe.feed(H + "SHOE DEAL 2C TH 3D")
        assert report_state(bob, "banker_card_lost")["positions"] == ["P1", "P2", "B1"]
        status, body = bob.act("banker_card_lost", position="B1",
                               reason="thrown into the discard face down")
        assert status == 200 and body["lines"][0]["code"] == "BANKER_CARD_LOST"
        t.shoe.wait_lamp("RED")
        t.shoe.feed("5S")  # the banker deals on: it waits
        assert t.machine.state == "on_hold" and t.machine.waiting == 1
        (latch,) = bob.get("/api/state")[1]["console"]["latches"]
        assert (latch["id"], latch["ways"], latch["supervisor"]) == (
            "hold-1-1-1", ["OK", "DISMISS"], True)
        count = len(t.records())
        status, body = bob.act("resolve", latch="hold-1-1-1", way="OK", reason="lost")
        assert status == 403 and "this hold is a supervisor's; bob is a croupier" in body["error"]
        assert len(t.records()) == count
        status, body = ana.act("resolve", latch="hold-1-1-1", way="OK",
                               reason="checked the discard: it cannot be told")
        assert status == 200, body
        assert [(x["event"], x.get("outcome")) for x in body["lines"]] == [
            ("irregularity.resolved", None), ("coup.result", "punter")]
        t.shoe.wait_lamp("GREEN")
        # Coup 2: a report the supervisor dismisses; play goes on with what waited.
        t.shoe.feed("DEAL 9C 5D")
        assert bob.act("banker_card_lost", position="P1", reason="slid under")[0] == 200
        t.shoe.feed("KH 3S")
        assert t.machine.state == "on_hold"
        status, body = ana.act("resolve", latch="hold-1-2-1", way="DISMISS",
                               reason="it lay face up on top: the 9C")
        assert status == 200, body
        assert [(x["event"], x.get("outcome")) for x in body["lines"]] == [
            ("irregularity.resolved", None), ("coup.result", "punter")]
        dismissed = lines_of(state / "results.jsonl")[-2]
        assert (dismissed["how"], dismissed["by"]) == ("DISMISS", "ana")
        # Coup 3: or the supervisor voids it.
        t.shoe.feed("DEAL 9D 5H")
        assert bob.act("banker_card_lost", position="B1", reason="gone")[0] == 200
        status, body = ana.act("void", reason="the players protest: replay the coup")
        assert status == 200 and body["lines"][-1]["outcome"] == "void"
        published = lines_of(state / "results.jsonl")
        before = t.machine.public
    # The restore plays the ledger's frames and actions again to the same table.
    with console_table(state, "baden") as again:
        assert again.machine.public == before
    assert lines_of(state / "results.jsonl") == published
    results = [x for x in published if x["event"] == "coup.result"]
    assert [x["outcome"] for x in results] == ["punter", "punter", "void"]
    assert results[0]["rulings"][0]["reported_by"] == "bob"
    assert results[0]["rulings"][0]["by"] == "ana"


def test_the_restore_and_replay_give_the_same_lines(tmp_path):
    state = tmp_path / "state"
    with console_table(state, "zoppot-1934") as t:
        bob, ana = t.client(), t.client()
        bob.sign_in("bob", "1234")
        ana.sign_in("ana", "4711")
        t.shoe.feed(H + "SHOE DEAL 4C TH AD KS")  # punter 5, banker 0
        assert bob.act("punter_bac", reason="threw them away")[0] == 200
        t.shoe.feed("6H DEAL 2C TH 3D")
        assert bob.act("card_fell", position="P1", face="up", reason="fell face up")[0] == 200
        t.shoe.feed("5S")
        assert bob.act("banker_card_lost", position="B2", reason="into the discard")[0] == 200
        t.shoe.feed("RESTE KEY:SUP-77 OK")  # upheld at the shoe by the supervisor's badge
        assert t.machine.state == "decided"
        assert ana.act("resolve", latch="hold-1-2-1", reason="upheld at the shoe")[0] == 200
        assert ana.act("partner_objection", partner="seat 2", reason="after the result")[0] \
            == 200
        t.shoe.feed("DEAL 9C 5D KH 3S")
        capture = t.loop.capture_path
        before = t.machine.public
    published = lines_of(state / "results.jsonl")
    assert [x["outcome"] for x in published if x["event"] == "coup.result"] == [
        "banker", "punter", "punter"]
    # The run's capture and console file replay to its lines (before a restart in this same
    # process and second would write files of the same name).
    out, err = io.StringIO(), io.StringIO()
    assert replay.run("zoppot-1934", capture, out, err,
                      console=capture.with_suffix(".console.jsonl")) == 0, err.getvalue()
    assert [json.loads(x) for x in out.getvalue().splitlines()] == published
    with console_table(state, "zoppot-1934") as again:
        assert again.machine.public == before
    assert lines_of(state / "results.jsonl") == published
    kinds = [r.body["kind"] for r in Ledger(state).records(kinds=("action",))
             if r.body["kind"] not in ("sign_in", "sign_out")]
    assert kinds == ["punter_bac", "card_fell", "banker_card_lost", "resolve",
                     "partner_objection"]
