"""A supervisor's approval on the croupier's screen (docs/console.md, "A supervisor's
approval"; contract 1): her PIN or badge authorises one action of the croupier's session,
which stays his; the action's record names her; the restore and `replay --console` follow
the record, never the people file of the day. Against the real loop, ledger and server."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from shoe_daemon.audit.ledger import canonical
from shoe_daemon.console.people import people_paths
from shoe_daemon.console.replay_file import ReplayFile, beside
from shoe_daemon.service.replay import replay_bytes
from tests.console_support import SECRETS, Client, console_table, new_id
from tests.money.support import SETTINGS
from tests.money_support import Play, money_table

NOT_ACCEPTED = "the supervisor's PIN or badge was not accepted"
ANA_PIN = {"method": "pin", "person": "ana", "pin": "4711"}
ANA_BADGE = {"method": "badge", "badge": "SUP-77"}


def approved(client: Client, kind: str, approval: dict[str, str] | None,
             request_id: str | None = None, **args: str) -> tuple[int, Any]:
    body: dict[str, Any] = {"id": request_id or new_id(), "kind": kind, "args": args}
    if approval is not None:
        body["approval"] = approval
    status, answer, _ = client.post("/api/actions", body)
    return status, answer


def actions(play: Play) -> list[dict[str, Any]]:
    return [r.body for r in play.t.records("action") if r.body["kind"] not in ("sign_in",
                                                                              "sign_out")]


def dealt_with_stakes(play: Play) -> None:
    """A Baden bank, two stakes, and the coup's first two cards: betting is closed."""
    play.seat(1, 2, 3, 5, 7)
    play.ok("take_bank", who="seat 1", amount="800")
    play.ok("stake", who="seat 3", amount="300")
    play.ok("stake", who="seat 5", amount="200")
    play.t.shoe.feed("DEAL 2C 9H")


def test_her_pin_approves_the_croupiers_correction_and_his_session_stays(tmp_path):
    with money_table(tmp_path / "state", "baden") as play:
        assert play.bob.get("/api/me")[1]["me"]["needs_approval"] == [
            "void", "correct", "reopen", "limits"]
        assert play.ana.get("/api/me")[1]["me"]["needs_approval"] == []
        dealt_with_stakes(play)
        status, body = approved(play.bob, "correct", None, stake="s2", amount="250",
                                reason="the chips say 250")
        assert status == 403  # without her approval: a croupier's correction is refused
        status, body = approved(play.bob, "correct", ANA_PIN, stake="s2", amount="250",
                                reason="the chips say 250")
        assert status == 200, body
        assert body["action"]["by"] == "bob" and body["action"]["role"] == "croupier"
        assert body["action"]["approved_by"] == {"person": "ana", "role": "supervisor",
                                                 "method": "pin"}
        (record,) = actions(play)[-1:]
        assert record == body["action"]
        correction = next(m for m in body["money"] if m["event"] == "money.correction")
        assert correction["by"] == "ana"  # the money names who decided: her, on his screen
        me = play.bob.get("/api/me")[1]["me"]  # his session, unchanged
        assert (me["person"], me["role"]) == ("bob", "croupier")
        play.t.shoe.feed("3D KD")
        (told,) = play.bob.get("/api/recall?shoe=1&coup=1")[1]["coups"]
        (corrected,) = told["corrections"]
        assert corrected["by"] == "bob" and corrected["approved_by"]["person"] == "ana"
        assert [(s["who"], s["amount"]) for s in told["stakes"]["stakes"]] == [
            ("seat 3", "300.00"), ("seat 5", "250.00")]
        ledger = json.dumps([r.body for r in play.t.records()])
        assert not [s for s in SECRETS if s in ledger]


def test_her_badge_approves_a_void_and_a_supervisors_hold(tmp_path):
    with console_table(tmp_path / "state") as t:
        t.shoe.feed("HELLO:0badcafe SHOE:1 DEAL 9C 5D 9C")  # a second 9C: a supervisor's hold
        bob = t.client()
        bob.sign_in("bob", "1234")
        (latch,) = t.machine.public.latches
        status, body = approved(bob, "resolve", None, latch=latch.id, way="OK",
                                reason="foreign card out")
        assert status == 403 and "supervisor's" in body["error"]
        status, body = approved(bob, "resolve", ANA_BADGE, latch=latch.id, way="OK",
                                reason="foreign card out")
        assert status == 200, body
        assert body["action"]["approved_by"] == {"person": "ana", "role": "supervisor",
                                                 "method": "badge"}
        status, body = approved(bob, "void", ANA_BADGE, reason="the players protest")
        assert status == 200 and body["lines"][-1]["outcome"] == "void"
        (coup,) = [c for c in bob.get("/api/recall")[1]["coups"] if c["coup"] == 1]
        console = [(e["kind"], e["by"], (e["approved_by"] or {}).get("person"))
                   for e in coup["events"] if e["what"] == "console"]
        assert console == [("resolve", "bob", "ana"), ("void", "bob", "ana")]
    # The published lines name who ruled: her, though he tapped (the action keeps both).
    lines = [json.loads(x) for x in (tmp_path / "state" / "results.jsonl").read_text()
             .splitlines()]
    assert [x["by"] for x in lines if x["event"] == "irregularity.resolved"] == ["ana"]


def test_one_answer_for_every_failure_403_for_a_croupier_nothing_kept(tmp_path):
    with money_table(tmp_path / "state", "baden") as play:
        dealt_with_stakes(play)
        before = play.t.kept()
        for approval in ({"method": "pin", "person": "ana", "pin": "0000"},
                         {"method": "pin", "person": "nobody", "pin": "4711"},
                         {"method": "badge", "badge": "NOT-A-BADGE"}):
            status, body = approved(play.bob, "correct", approval, stake="s2", amount="250",
                                    reason="the chips say 250")
            assert (status, body) == (401, {"error": NOT_ACCEPTED})
        status, body = approved(play.bob, "correct", {"method": "pin", "person": "cy",
                                                      "pin": "5555"},
                                stake="s2", amount="250", reason="the chips say 250")
        assert status == 403 and body["error"] == "cy is a croupier: only a supervisor may " \
                                                  "approve"
        status, body = approved(play.bob, "correct", {"method": "badge", "badge": "CR-12"},
                                stake="s2", amount="250", reason="the chips say 250")
        assert status == 403  # his own badge: a croupier's
        status, body = approved(play.bob, "correct", {"method": "pin", "person": "ana"},
                                stake="s2", amount="250", reason="the chips say 250")
        assert status == 400 and "pin" in body["error"]
        assert play.t.kept() == before
        assert play.bob.get("/api/me")[1]["me"]["person"] == "bob"


def test_an_approval_for_an_action_that_needs_none_is_refused_unchecked(tmp_path):
    """A stake needs no supervisor: an approval with it is refused (400) before her PIN is
    looked at (a wrong one gets the same 400), and nothing is kept. A supervisor's own
    session needs none either."""
    with money_table(tmp_path / "state", "baden") as play:
        play.seat(1, 2, 3, 5, 7)
        play.ok("take_bank", who="seat 1", amount="800")
        before = play.t.kept()
        for approval in (ANA_PIN, {"method": "pin", "person": "ana", "pin": "0000"}):
            status, body = approved(play.bob, "stake", approval, who="seat 3", amount="100")
            assert status == 400 and body["error"] == "stake needs no supervisor: do it " \
                                                      "without her approval"
        status, body = approved(play.ana, "limits", ANA_PIN, min_stake="20",
                                reason="the inspector raises it")
        assert status == 400
        assert play.t.kept() == before
        # A hold that is not a supervisor's needs none: refused by the table, nothing kept.
        play.t.shoe.feed("DEAL 2C ??")
        (latch,) = play.t.machine.public.latches
        before = play.t.kept()
        status, body = approved(play.bob, "resolve", ANA_PIN, latch=latch.id, way="ENTER",
                                card="9H", reason="keyed in")
        assert status == 409 and "needs no supervisor" in body["error"], body
        assert play.t.kept() == before


def test_a_retry_gets_its_first_answer_and_never_asks_for_her_pin_again(tmp_path):
    with money_table(tmp_path / "state", "baden") as play:
        dealt_with_stakes(play)
        request_id = new_id()
        first = approved(play.bob, "correct", ANA_PIN, request_id, stake="s2", amount="250",
                         reason="the chips say 250")
        assert first[0] == 200
        wrong = {"method": "pin", "person": "ana", "pin": "0000"}
        for _ in range(8):  # more than her free failures: none of these is hashed
            again = approved(play.bob, "correct", wrong, request_id, stake="s2",
                             amount="250", reason="the chips say 250")
            assert again == first
        assert len([a for a in actions(play) if a["id"] == request_id]) == 1
        # Her PIN was never counted as failing: it is not delayed.
        status, body = approved(play.bob, "void", ANA_PIN, reason="the shoe jammed")
        assert status == 200, body
        # Another session replaying the request is refused, whatever it carries.
        cy = play.t.client()
        cy.sign_in("cy", "5555")
        status, body = approved(cy, "correct", ANA_PIN, request_id, stake="s2", amount="250",
                                reason="the chips say 250")
        assert status == 409 and "another session" in body["error"]


def test_the_restore_and_replay_follow_the_record_not_the_people_of_the_day(tmp_path):
    state = tmp_path / "state"
    with money_table(state, "baden") as play:
        dealt_with_stakes(play)
        assert approved(play.bob, "correct", ANA_PIN, stake="s2", amount="250",
                        reason="the chips say 250")[0] == 200
        play.t.shoe.feed("3D KD")
        assert approved(play.bob, "reopen", ANA_BADGE, how="void",
                        reason="a card was marked")[0] == 200
        kept = play.t.loop.table.till.money
        capture = play.t.loop.capture_path
        recorded = [r.body for r in play.t.records() if r.kind.startswith("money.")]
    # The run's capture and console file, kept apart: the restart below may start within
    # the same second in this same process, and so write a capture of the same name.
    kept_capture = tmp_path / "run.cap"
    kept_capture.write_bytes(capture.read_bytes())
    beside(kept_capture).write_bytes(beside(capture).read_bytes())
    people = people_paths(state)
    people.save(people.load().without("ana"))  # she left the table since
    with console_table(state, "baden", money=SETTINGS["baden"]) as t:
        assert t.loop.table.till.money == kept
        assert [r.body for r in t.records() if r.kind.startswith("money.")] == recorded
    capture = kept_capture
    outcome = replay_bytes(capture.read_bytes(), "baden", ReplayFile.read(beside(capture)))
    replayed = [x for x in outcome.lines if x["event"].startswith("money.")]
    assert [canonical(x) for x in replayed] == [canonical(x) for x in recorded]
    done = subprocess.run([sys.executable, "-m", "shoe_daemon.service.cli", "replay",
                           "--profile", "baden", "--console", str(beside(capture)),
                           str(capture)], capture_output=True, text=True, timeout=60,
                          check=True)
    printed = [json.loads(x) for x in done.stdout.splitlines()]
    assert [canonical(x) for x in printed if x["event"] == "money.correction"] == [
        canonical(x) for x in recorded if x["event"] == "money.correction"]
