"""The console's actions through the real loop, ledger and server: each an attributed
record committed before any effect, ordered with the shoe's frames, rebuilt the same by the
restore, replayed the same by `shoe-daemon replay --console`; the shoe's KEY decided against
the people and recorded by the person it was taken for, never the badge.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from shoe_daemon.audit.ledger import Ledger, LedgerError
from shoe_daemon.console.people import Person, Role, people_paths
from shoe_daemon.service import replay
from tests.console_support import SECRETS, ConsoleTable, console_table, make_people


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x]


def no_secret_in(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert f'"{secret}"' not in text and f",{secret}" not in text, secret


def everything_kept(state: Path) -> str:
    """The ledger's records, the results and the console files, as text."""
    ledger = Ledger(state)
    try:
        text = "\n".join(json.dumps(r.as_dict()) for r in ledger.records())
    finally:
        ledger.close()
    text += (state / "results.jsonl").read_text()
    for path in (state / "captures").glob("*.console.jsonl"):
        text += path.read_text()
    return text


def test_an_action_is_an_attributed_record_committed_before_its_lines(tmp_path):
    with console_table(tmp_path / "state") as t:
        bob = t.client()
        assert bob.sign_in("bob", "1234")[0] == 200
        t.shoe.feed("HELLO:0badcafe SHOE DEAL 9C ?? KH 3S")
        t.shoe.wait_lamp("RED")
        assert t.machine.state == "on_hold"
        status, body = bob.act("resolve", latch="hold-1-1-1", way="ENTER", card="5D",
                               reason="read from the card's face")
        assert status == 200, body
        assert [x["event"] for x in body["lines"]] == ["irregularity.resolved", "coup.result"]
        records = t.records()
        action = next(r for r in records if r.kind == "action" and r.body["kind"] == "resolve")
        assert action.idx == body["ledger_index"]
        assert action.body == {"id": body["action"]["id"], "kind": "resolve", "by": "bob",
                               "role": "croupier", "args": {
                                   "latch": "hold-1-1-1", "way": "ENTER", "card": "5D",
                                   "reason": "read from the card's face"}}
        after = [r.body["line"]["event"] for r in records if r.idx > action.idx
                 and r.kind == "result"]
        assert after == ["irregularity.resolved", "coup.result"]  # the action comes first
        resolved = records[action.idx].body["line"]
        assert (resolved["how"], resolved["by"]) == ("ENTER 5D", "bob")
        assert t.machine.state == "decided" and t.shoe.lamps[-1] == "GREEN"
        signed = [r.body for r in records if r.kind == "action" and r.body["kind"] == "sign_in"]
        assert [(b["by"], b["role"], b["args"]["method"]) for b in signed] == [
            ("bob", "croupier", "pin")]
    no_secret_in(everything_kept(tmp_path / "state"))


def test_a_key_that_is_not_a_supervisors_leaves_the_hold_and_is_said(tmp_path):
    state = tmp_path / "state"
    with console_table(state) as t:
        ana = t.client()
        ana.sign_in("ana", "4711")
        # A one-pack shoe: the second 9C is foreign (a supervisor's hold: KEY, then OK).
        t.shoe.feed("HELLO:0badcafe SHOE:1 DEAL 9C 5D 9C KEY:CR-12 OK KEY:NOBODY OK")
        assert t.machine.state == "on_hold"
        (latch,) = ana.get("/api/state")[1]["console"]["latches"]
        assert (latch["code"], latch["held"], latch["supervisor"]) == ("FOREIGN_CARD", True,
                                                                        True)
        refusals = ana.get("/api/state")[1]["console"]["key_refusals"]
        assert [(r["person"], r["why"]) for r in refusals] == [
            ("bob", "bob is a croupier, not a supervisor"),
            (None, "not the badge of anyone configured at this table")]
        keys = [r.body for r in t.records("frame") if r.body["fields"][0] == "KEY"]
        assert [(k["fields"], k["badge"]["taken"]) for k in keys] == [
            (["KEY", "bob"], False), (["KEY", "-"], False)]
        # The supervisor's own badge: taken, OK lifts the hold, by her.
        t.shoe.feed("KEY:SUP-77 OK KH 3S")
        assert t.machine.state == "decided"
        resolved = [r.body["line"] for r in t.records("result")
                    if r.body["line"]["event"] == "irregularity.resolved"]
        assert [(x["how"], x["by"]) for x in resolved] == [("OK", "ana")]
        (latch,) = ana.get("/api/state")[1]["console"]["latches"]
        assert (latch["held"], latch["lifted"], latch["lifted_by"]) == (False, "OK", "ana")
    log = (state / "results.jsonl").read_text()
    assert "NOBODY" not in everything_kept(state) and "NOBODY" not in log
    no_secret_in(everything_kept(state))


def test_the_restore_follows_what_a_key_meant_then_not_the_people_now(tmp_path):
    state = tmp_path / "state"
    with console_table(state) as t:
        t.shoe.feed("HELLO:0badcafe SHOE:1 DEAL 9C 5D 9C KEY:SUP-77 OK KH")
        before = t.machine.public
        results = (state / "results.jsonl").read_text()
    # Ana is demoted and her badge goes to Bob: an old KEY must still mean what it meant.
    file = people_paths(state)
    roster = file.load()
    roster = roster.badge_for("ana", None).badge_for("bob", "SUP-77")
    roster = roster.with_person(Person("ana", "Ana Weber", Role.CROUPIER))
    file.save(roster)
    again = ConsoleTable(state)
    try:
        again.loop.restore()
        assert again.machine.public == before
        assert again.machine.public.latches[0].lifted_by == "ana"
    finally:
        again.server.stop()
        again.loop.table.ledger.close()
    assert (state / "results.jsonl").read_text() == results


def test_a_restart_rebuilds_latches_actions_and_what_waited(tmp_path):
    state = tmp_path / "state"
    with console_table(state) as t:
        c = t.client()
        c.sign_in("bob", "1234")
        t.shoe.feed("HELLO:0badcafe SHOE DEAL 9C@B OK 5D KH 3S FAULT:JAM:ON DEAL 2C TH")
        assert c.act("resolve", latch="hold-1-1-1", reason="card moved to P1")[0] == 200
        before = t.machine.public
        assert before.state == "decided" and [x.id for x in before.latches] == ["fault-JAM"]
        assert t.machine.waiting == 3
    with console_table(state) as t2:
        assert t2.machine.public == before and t2.machine.waiting == 3
        ana = t2.client()
        ana.sign_in("ana", "4711")  # a supervisor: the shoe still reports the jam
        assert ana.act("resolve", latch="fault-JAM", reason="cleared the jam by hand")[0] == 200
        assert t2.machine.state == "dealing" and t2.machine.coup.number == 2
    log = (state / "results.jsonl").read_text()
    assert "replay_mismatch" not in log
    events = [r.body for r in Ledger(state).records(kinds=("action",))]
    assert [(e["kind"], e["args"].get("why")) for e in events if "sign" in e["kind"]] == [
        ("sign_in", None), ("sign_out", "stopped"), ("sign_in", None), ("sign_out", "stopped")]


def test_replay_with_the_console_file_publishes_the_same_lines(tmp_path):
    state = tmp_path / "state"
    with console_table(state) as t:
        c = t.client()
        c.sign_in("ana", "4711")
        t.shoe.feed("HELLO:0badcafe SHOE DEAL 9C ?? KH 3S FAULT:JAM:ON FAULT:JAM:OFF "
                    "DEAL 2C TH KEY:CR-12 3D 5S CARTE 4H")
        assert c.act("resolve", latch="hold-1-1-1", way="ENTER", card="5D",
                     reason="keyed in")[0] == 200
        assert c.act("resolve", latch="fault-JAM", reason="jam cleared")[0] == 200
        assert c.act("void", reason="the banker's card fell")[0] == 200
        t.shoe.feed("DEAL 8D 2C TH 3D KEY:SUP-77 VOID")
        capture = t.loop.capture_path
    console = capture.with_suffix(".console.jsonl")
    out, err = io.StringIO(), io.StringIO()
    assert replay.run("baden", capture, out, err, console=console) == 0, err.getvalue()
    replayed = [json.loads(x) for x in out.getvalue().splitlines()]
    assert replayed == lines_of(state / "results.jsonl")
    assert [x["outcome"] for x in replayed if x["event"] == "coup.result"] == [
        "punter", "void", "punter"]
    # Without its console file the capture alone does not give that run's lines.
    out = io.StringIO()
    replay.run("baden", capture, out, io.StringIO())
    assert [json.loads(x) for x in out.getvalue().splitlines()] != replayed
    # A console file that does not fit the capture is refused with where.
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text(console.read_text().replace('"after":17', '"after":3'))
    err = io.StringIO()
    assert replay.run("baden", capture, io.StringIO(), err, console=wrong) == 2
    assert "does not fit" in err.getvalue()


class FullDisk(Ledger):
    full = False

    def append_many(self, items):  # type: ignore[no-untyped-def]
        if self.full:
            raise LedgerError("No space left on device")
        return super().append_many(items)


def test_an_action_the_ledger_refuses_is_refused_and_changes_nothing(tmp_path):
    state = tmp_path / "state"
    make_people(state)
    table = ConsoleTable(state)
    ledger = FullDisk(state)
    table.loop.table.ledger = ledger
    table.start()
    try:
        c = table.client()
        c.sign_in("bob", "1234")
        table.shoe.feed("HELLO:0badcafe SHOE DEAL 9C ??")
        before, count = table.machine.public, len(list(ledger.records()))
        ledger.full = True
        status, body = c.act("resolve", latch="hold-1-1-1", way="ENTER", card="5D",
                             reason="keyed in")
        assert status == 503 and "nothing was done" in body["error"]
        assert table.machine.public == before
        ledger.full = False
        assert len(list(ledger.records())) == count
        assert c.act("resolve", latch="hold-1-1-1", way="ENTER", card="5D",
                     reason="keyed in")[0] == 200
        assert table.machine.state == "dealing"
    finally:
        table.stop()


def test_a_void_needs_a_supervisor_and_says_so(tmp_path):
    with console_table(tmp_path / "state") as t:
        bob, ana = t.client(), t.client()
        bob.sign_in("bob", "1234")
        ana.sign_in("ana", "4711")
        t.shoe.feed("HELLO:0badcafe SHOE DEAL 9C 5D")
        count = len(t.records())
        status, body = bob.act("void", reason="misdeal")
        assert status == 403
        assert body["error"] == "void needs a supervisor: bob is a croupier"
        assert len(t.records()) == count and t.machine.state == "dealing"
        status, body = ana.act("void", reason="misdeal")
        assert status == 200 and body["lines"][0]["outcome"] == "void"
        status, body = ana.act("void", reason="again")
        assert (status, body["error"]) == (409, "no coup is in play to void")


def test_a_fault_still_reported_is_a_supervisors_to_resolve(tmp_path):
    with console_table(tmp_path / "state") as t:
        bob, ana = t.client(), t.client()
        bob.sign_in("bob", "1234")
        ana.sign_in("ana", "4711")
        t.shoe.feed("HELLO:0badcafe SHOE FAULT:COVER_OPEN:ON DEAL 9C")
        t.shoe.wait_lamp("RED")
        assert t.machine.state == "waiting_for_stakes"
        status, body = bob.act("resolve", latch="fault-COVER_OPEN", reason="closed it")
        assert status == 403 and "only a supervisor may resolve it" in body["error"]
        t.shoe.feed("FAULT:COVER_OPEN:OFF")
        assert bob.act("resolve", latch="fault-COVER_OPEN", reason="closed it")[0] == 200
        assert t.machine.state == "dealing" and t.shoe.lamps[-1] == "GREEN"
        assert ana.act("resolve", latch="fault-COVER_OPEN", reason="x" * 5)[0] == 409


def test_a_session_that_expires_is_signed_out_in_the_ledger(tmp_path):
    import time

    with console_table(tmp_path / "state", idle=0.3) as t:
        c = t.client()
        c.sign_in("cy", "5555")
        time.sleep(0.5)
        status, body, _ = c.get("/api/state")
        assert (status, body["error"]) == (401, "your session has expired: sign in again")
        deadline = time.monotonic() + 5
        while not any(r.body.get("kind") == "sign_out" for r in t.records("action")):
            assert time.monotonic() < deadline
            time.sleep(0.02)
    outs = [r.body for r in Ledger(tmp_path / "state").records(kinds=("action",))
            if r.body["kind"] == "sign_out"]
    assert [(o["by"], o["args"]["why"]) for o in outs] == [("cy", "expired")]


def test_a_killed_daemons_sessions_are_signed_out_at_the_next_start(tmp_path):
    state = tmp_path / "state"
    make_people(state)
    # What a daemon killed with a session open leaves: its start, the sign-in, no sign-out.
    ledger = Ledger(state)
    ledger.append("daemon.start", {"version": "test"})
    ledger.append("action", {"id": "0123456789abcdef", "kind": "sign_in", "by": "bob",
                             "role": "croupier",
                             "args": {"method": "pin", "session": "00112233aabb"}})
    ledger.close()
    with console_table(state) as again:
        assert again.machine.state == "no_shoe"
    outs = [(r.body["by"], r.body["args"]) for r in
            Ledger(state).records(kinds=("action",)) if r.body["kind"] == "sign_out"]
    assert outs == [("bob", {"why": "restarted", "session": "00112233aabb"})]
