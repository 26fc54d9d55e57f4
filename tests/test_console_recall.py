"""The console's recall, read from the ledger through the real API: the last ten coups and
any by number, card by card in the order they left the shoe, with what each became, the
exposures, the irregularities and who resolved them how; never a card the game did not
show (display/view.py's rule)."""

from __future__ import annotations

from typing import Any

from hil.dealer import deal_shoes
from tests.console_support import ConsoleTable, console_table


def recall(t: ConsoleTable, query: str = "") -> list[dict[str, Any]]:
    c = t.client()
    c.sign_in("ana", "4711")
    status, body, _ = c.get("/api/recall" + query)
    assert status == 200, body
    assert body["consistent"] is True
    return body["coups"]


def cards_of(coup: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(c["code"], c["face"], c["fate"]) for c in coup["cards"]]


def test_a_showdown_shows_every_card_in_the_order_it_left_the_shoe(tmp_path):
    with console_table(tmp_path / "state") as t:
        t.shoe.feed("HELLO:0badcafe SHOE DEAL 9C ?? ENTER:5D KH 3S")
        (coup,) = recall(t)
    assert (coup["shoe"], coup["coup"], coup["outcome"], coup["in_play"]) == (1, 1, "punter",
                                                                            False)
    assert cards_of(coup) == [("9C", "down", "punter P1"), ("??", "down", "banker B1"),
                              ("KH", "down", "punter P2"), ("3S", "down", "banker B2")]
    assert coup["cards"][1]["entered"] == "5D"
    assert coup["punter"] == {"cards": ["9C", "KH"], "total": 9}
    events = [(e["what"], e.get("code") or e.get("name"), e.get("by")) for e in coup["events"]]
    assert events == [("button", "DEAL", None), ("irregularity", "UNREADABLE_CARD", None),
                      ("button", "ENTER", None), ("resolved", "UNREADABLE_CARD", "croupier"),
                      ("result", None, None)]
    assert coup["stakes"] is None and coup["settlement"] is None  # the money part's place


def test_a_voided_coup_keeps_its_face_down_cards_hidden_but_not_its_exposures(tmp_path):
    with console_table(tmp_path / "state") as t:
        t.shoe.feed("HELLO:0badcafe SHOE DEAL 9C 5D KH EXPOSE:P1")
        ana = t.client()
        ana.sign_in("ana", "4711")
        assert ana.act("void", reason="the banker's card fell to the floor")[0] == 200
        (coup,) = recall(t)
    assert coup["outcome"] == "void" and coup["exposed"] == ["B1", "P1"]
    # 000 rule 6: P1 uncovered uncovers B1; P2 stays face down, and hidden.
    assert cards_of(coup) == [("9C", "down", "punter P1"), ("5D", "down", "banker B1"),
                              (None, "down", "punter P2")]
    assert coup["punter"] == {"cards": ["9C", None], "total": None}
    console = [e for e in coup["events"] if e["what"] == "console"]
    assert [(e["kind"], e["by"], e["role"], e["reason"]) for e in console] == [
        ("void", "ana", "supervisor", "the banker's card fell to the floor")]
    assert ("button", "EXPOSE") in [(e["what"], e.get("name")) for e in coup["events"]]


def test_cards_out_of_play_are_told_and_hidden_unless_they_came_face_up(tmp_path):
    # Clermont: a card out of the shoe face up is null and void (001); one-pack: a second 9C
    # is foreign, taken out of play by the supervisor's KEY and OK.
    with console_table(tmp_path / "state", "clermont-2015") as t:
        t.shoe.feed("HELLO:0badcafe SHOE:1 DEAL 9C 4D! 5D 9C KEY:SUP-77 OK KH 3S")
        c = t.client()
        c.sign_in("bob", "1234")
        assert c.act("resolve", latch="hold-1-1-1", reason="foreign 9C taken out")[0] == 200
        (coup,) = recall(t)
    assert cards_of(coup) == [
        ("9C", "down", "punter P1"),
        ("4D", "up", "came out face up: null and void, the next card takes its place"),
        ("5D", "down", "banker B1"), (None, "down", "out of play"),
        ("KH", "down", "punter P2"), ("3S", "down", "banker B2")]
    whats = [(e["what"], e.get("code") or e.get("name") or e.get("kind"), e.get("by")
              or e.get("person")) for e in coup["events"]]
    assert ("button", "KEY", "ana") in whats and ("resolved", "FOREIGN_CARD", "ana") in whats
    assert ("console", "resolve", "bob") in whats
    assert [e["code"] for e in coup["events"] if e["what"] == "irregularity"] == [
        "FACE_UP_IN_SHOE", "FOREIGN_CARD"]


def test_the_coup_in_play_on_hold_shows_only_what_is_public(tmp_path):
    with console_table(tmp_path / "state") as t:
        t.shoe.feed("HELLO:0badcafe SHOE DEAL 9C 5D KH 3S DEAL 2C ??")
        coups = recall(t)
    assert [(c["coup"], c["in_play"]) for c in coups] == [(2, True), (1, False)]
    assert cards_of(coups[0]) == [(None, "down", "punter P1"), ("??", "down", "not placed yet")]
    assert coups[1]["punter"]["cards"] == ["9C", "KH"]


def test_a_coup_that_waited_behind_a_latch_has_its_own_cards(tmp_path):
    with console_table(tmp_path / "state") as t:
        t.shoe.feed("HELLO:0badcafe SHOE DEAL 9C 5D KH 3S FAULT:JAM:ON FAULT:JAM:OFF "
                    "DEAL 8D 2C TH 3D")
        c = t.client()
        c.sign_in("bob", "1234")
        assert c.act("resolve", latch="fault-JAM", reason="jam cleared")[0] == 200
        coups = recall(t)
    assert [c["coup"] for c in coups] == [2, 1]
    assert cards_of(coups[0]) == [("8D", "down", "punter P1"), ("2C", "down", "banker B1"),
                                  ("TH", "down", "punter P2"), ("3D", "down", "banker B2")]
    assert [c["code"] for c in coups[1]["cards"]] == ["9C", "5D", "KH", "3S"]
    deal = [e for e in coups[1]["events"] if e.get("name") == "DEAL"]
    assert deal and deal[-1].get("waited") is True  # it waited for the console
    faults = [(e["code"], e["on"]) for e in coups[1]["events"] if e["what"] == "fault"]
    assert faults == [("JAM", True), ("JAM", False)]


def test_the_last_ten_and_any_coup_by_number(tmp_path):
    session = deal_shoes("baden", 1, seed=5)
    truth = session.results
    with console_table(tmp_path / "state") as t:
        t.shoe.feed(session.messages[:200])
        done = [line for line in [r.body["line"] for r in t.records("result")]
                if line["event"] == "coup.result"]
        assert len(done) >= 12
        coups = recall(t)
        decided = [c for c in coups if not c["in_play"]]
        assert [c["coup"] for c in decided] == [d["coup"] for d in done][-10:][::-1]
        for told in decided:
            line = done[told["coup"] - 1]
            assert told["outcome"] == line["outcome"] == truth[told["coup"] - 1]["outcome"]
            assert told["punter"]["cards"] == line["punter"]["cards"]
            punter, banker = line["punter"]["cards"], line["banker"]["cards"]
            dealt = [punter[0], banker[0], punter[1], banker[1], *punter[2:], *banker[2:]]
            assert [c["code"] for c in told["cards"]] == dealt  # as they left the shoe
        (first,) = recall(t, "?shoe=1&coup=1")
        assert first["coup"] == 1 and first["outcome"] == done[0]["outcome"]
        c = t.client()
        c.sign_in("bob", "1234")
        status, body, _ = c.get("/api/recall?shoe=1&coup=999")
        assert status == 404 and "no coup 999 of shoe 1" in body["error"]
        assert c.get("/api/recall?shoe=x&coup=1")[0] == 400
        assert c.get("/api/recall?shoe=1")[0] == 400
        assert c.get("/api/recall?coup=1&more=2")[0] == 400
