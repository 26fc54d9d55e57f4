"""Hostile money requests at a live table (the real loop, ledger and server): malformed and
oversized, without sign-in or with the wrong role, replayed from another session or with
other contents, or breaking a rule: each refused with a clear error and its status, and
nothing of it in the ledger or the table's money (a replay by its own session gets the first
answer, and is done once)."""

from __future__ import annotations

import json

from tests.console_support import Client, new_id
from tests.money_support import money_table


def test_malformed_oversized_unsigned_wrong_role_and_replayed_money_requests(tmp_path):
    with money_table(tmp_path / "state", "baden") as play:
        play.seat(1, 2, 3, 5, 7)
        play.ok("take_bank", who="seat 1", amount="800")
        schema = [  # (args, what the 400 says): refused before the table's loop
            ({"who": "seat 3", "amount": "1e3"}, "'amount' is not an amount"),
            ({"who": "seat 3", "amount": "-5"}, "'amount' is not an amount"),
            ({"who": "seat 3", "amount": "12.3.4"}, "'amount' is not an amount"),
            ({"who": "seat 3", "amount": "1" * 16}, "'amount' is not an amount"),
            ({"who": "seat 3", "amount": 300}, "'amount' must be a string"),
            ({"who": "seat 3", "amount": 300.5}, "'amount' must be a string"),
            ({"who": "seat 3"}, "'amount' is required"),
            ({"who": "seat 3; DROP TABLE", "amount": "10"}, "'who' is not a player"),
            ({"who": "table 3", "amount": "10"}, "'who' is not a player"),
            ({"who": "seat 3", "amount": "10", "by": "ana"}, "unknown field 'by'"),
            ({"who": "seat 3", "amount": "10", "over_line": "maybe"}, "'over_line' must be"),
        ]
        for args, words in schema:
            body = play.refused("stake", 400, None, **args)
            assert words in body["error"], (args, body)
        money = [  # well formed, but not what the money takes: 400 with the money's code
            ("stake", {"who": "seat 3", "amount": "10.03"}, "not a whole number"),
            ("sit", {"seat": "12"}, "a place is a number from 1 to 9"),
        ]
        for kind, args, words in money:
            body = play.refused(kind, 400, "bad_request", **args)
            assert words in body["error"], body
        breaking = [  # 409: a rule of the house, cited
            ("stake", {"who": "seat 3", "amount": "900"}, "more_than_bank"),
            ("stake", {"who": "seat 4", "amount": "100"}, "not_a_player"),
            ("stake", {"who": "seat 1", "amount": "100"}, "not_a_player"),
            ("stake", {"who": "seat 3", "amount": "5"}, "below_minimum"),
            ("banco", {"who": "seat 3", "kind": "banco_with_table", "amount": "100"},
             "with_table_share"),
            ("withdraw", {"stake": "s9"}, "no_such_stake"),
            ("schokolade", {}, "not_now"),
            ("bet", {"box": "1", "bet": "punto", "amount": "10"}, "not_offered"),
        ]
        for kind, args, code in breaking:
            play.refused(kind, 409, code, **args)
        # Oversized: the server refuses the body before reading it.
        body = json.dumps({"id": new_id(), "kind": "stake", "args": {
            "who": "seat 3", "amount": "10"}, "pad": "x" * 9000}).encode()
        before = play.t.kept()
        status, answer, _ = play.bob.post("/api/actions", raw=body)
        assert status == 413 and "at most 8192 bytes" in answer["error"]
        # Without a session; with the wrong role; replayed.
        stranger = Client(play.t.url)
        status, answer = stranger.act("stake", who="seat 3", amount="10")
        assert status == 401 and answer["error"] == "not signed in"
        for kind, args in (("correct", {"stake": "s1", "amount": "10", "reason": "why not"}),
                           ("reopen", {"how": "void", "reason": "why not"}),
                           ("limits", {"min_stake": "20", "reason": "why not"})):
            status, answer = play.bob.act(kind, **args)
            assert status == 403, answer
            assert answer["error"] == f"{kind} needs a supervisor: bob is a croupier"
        assert play.t.kept() == before
        request = {"id": new_id(), "kind": "stake", "args": {"who": "seat 3", "amount": "10"}}
        first = play.bob.post("/api/actions", request)
        assert first[0] == 200
        after = play.t.kept()
        again = play.bob.post("/api/actions", request)  # a retry: the first answer, done once
        assert again[:2] == first[:2]
        status, answer, _ = play.ana.post("/api/actions", request)  # another session's id
        assert status == 409 and "sent in another session" in answer["error"]
        status, answer, _ = play.bob.post("/api/actions", {**request, "args": {
            "who": "seat 3", "amount": "20"}})
        assert status == 422 and "sent before with other contents" in answer["error"]
        assert play.t.kept() == after
        stakes = play.t.loop.table.till.money.round.stakes
        assert [(s.who.key, str(s.amount)) for s in stakes] == [("seat 3", "10.00")]
