"""True answers (issue 19): the console's answer to an action against what the ledger holds,
through the real server, loop and ledger, with the table's loop made slow by a real delay in
its path (the ledger's commit of an action held back, as a slow disk would); and the retry
with the same request id, which gets the first outcome and never does the action twice."""

from __future__ import annotations

import concurrent.futures
import json
import socket
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from shoe_daemon.audit.ledger import Ledger, Record
from shoe_daemon.console import answers
from shoe_daemon.console.actions import Action, Refused
from shoe_daemon.console.handoff import Inbox
from shoe_daemon.console.people import Role
from tests.console_support import Client, ConsoleTable, make_people, new_id
from tests.money.support import SETTINGS


class SlowLedger(Ledger):
    """The real ledger, whose commit of an action waits `delay` s first (a slow disk): the
    table's loop is then inside `Table.act`, after taking the action, before its outcome."""

    delay = 0.0

    def append_many(self, items: Iterable[tuple[str, dict[str, Any]]]) -> list[Record]:
        items = list(items)
        if self.delay and any(kind == "action" for kind, _ in items):
            time.sleep(self.delay)
        return super().append_many(items)


@contextmanager
def slow_table(state: Path, **handoff: float) -> Iterator[tuple[ConsoleTable, SlowLedger]]:
    if not (state / "people.json").exists():
        make_people(state)
    ledger = SlowLedger(state)
    table = ConsoleTable(state, money=SETTINGS["baden"], ledger=ledger, **handoff).start()
    try:
        yield table, ledger
    finally:
        table.stop()


def sit(client: Client, seat: int, request_id: str | None = None) -> tuple[int, Any]:
    status, body, _ = client.post("/api/actions", {"id": request_id or new_id(), "kind": "sit",
                                                   "args": {"seat": str(seat)}})
    return status, body


def actions(table: ConsoleTable, request_id: str) -> list[Record]:
    return [r for r in table.records("action") if r.body["id"] == request_id]


def signed_in(table: ConsoleTable, person: str = "bob", pin: str = "1234") -> Client:
    client = table.client()
    assert client.sign_in(person, pin)[0] == 200
    return client


def test_an_action_taken_and_slow_to_commit_is_still_being_done_then_answered(tmp_path):
    """The issue's case: the loop took it, its commit is slow. The first answer says it is
    still being done (never "nothing was done"); the retry with the same id waits for the
    outcome and gets the ledger's index; the action is in the ledger once."""
    with slow_table(tmp_path / "state", admit=0.3, answer=0.8) as (t, ledger):
        bob = signed_in(t)
        ledger.delay = 2.5
        request_id = new_id()
        status, body = sit(bob, 3, request_id)
        assert status == 202 and body["in_progress"] and body["id"] == request_id, body
        assert "ask again with the same request id" in body["message"]
        while status == 202:  # as a client does: asked again with the same id
            status, body = sit(bob, 3, request_id)
        assert status == 200, body
        found = actions(t, request_id)
        assert [r.idx for r in found] == [body["ledger_index"]]
        assert [m["event"] for m in body["money"]] == ["money.seating"]
        assert len(t.records("money.seating")) == 1
        ledger.delay = 0.0
        assert sit(bob, 3, request_id) == (200, body)  # and again: the same answer


def test_an_action_the_loop_could_not_take_in_time_was_not_done(tmp_path):
    """The loop is busy with one action when another comes: at the deadline the second is
    withdrawn, answered "nothing was done", and is not in the ledger, then or ever; the
    retry with the same id is a new attempt, done once."""
    with slow_table(tmp_path / "state", admit=0.3, answer=5.0) as (t, ledger):
        bob = signed_in(t)
        ledger.delay = 1.5
        first = new_id()
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            busy = pool.submit(sit, bob, 3, first)
            time.sleep(0.3)  # the loop is in the first one's commit
            second = new_id()
            status, body = sit(bob, 4, second)
            assert status == 503 and "nothing was done" in body["error"], body
            assert busy.result()[0] == 200
        time.sleep(0.3)
        assert actions(t, second) == [] and len(actions(t, first)) == 1
        ledger.delay = 0.0
        status, body = sit(bob, 4, second)
        assert status == 200 and [r.idx for r in actions(t, second)] == [body["ledger_index"]]


def test_ten_requests_of_one_id_at_once_are_done_once_and_all_answered_alike(tmp_path):
    with slow_table(tmp_path / "state", admit=2.0, answer=10.0) as (t, ledger):
        bob = signed_in(t)
        ledger.delay = 0.5
        request_id = new_id()
        with concurrent.futures.ThreadPoolExecutor(10) as pool:
            got = list(pool.map(lambda _: sit(bob, 5, request_id), range(10)))
        assert got[0][0] == 200 and all(g == got[0] for g in got), got
        assert [r.idx for r in actions(t, request_id)] == [got[0][1]["ledger_index"]]
        assert len(t.records("money.seating")) == 1


def test_a_request_whose_connection_dropped_is_done_once_and_its_retry_answered(tmp_path):
    with slow_table(tmp_path / "state", admit=2.0, answer=10.0) as (t, ledger):
        bob = signed_in(t)
        ledger.delay = 1.0
        request_id = new_id()
        body = json.dumps({"id": request_id, "kind": "sit", "args": {"seat": "6"}}).encode()
        with socket.create_connection((bob.host, bob.port)) as raw:
            raw.sendall(b"POST /api/actions HTTP/1.1\r\n" +
                        f"Host: {bob.host}:{bob.port}\r\nOrigin: {bob.origin}\r\n".encode() +
                        f"Cookie: {bob.cookie}\r\nContent-Type: application/json\r\n".encode() +
                        f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            time.sleep(0.2)  # the loop has it; the client goes away without its answer
        status, answer = sit(bob, 6, request_id)
        assert status == 200, answer
        assert [r.idx for r in actions(t, request_id)] == [answer["ledger_index"]]


def test_after_a_restart_the_retry_is_answered_from_the_ledger_for_its_person_alone(tmp_path):
    state = tmp_path / "state"
    request_id = new_id()
    with slow_table(state) as (t, _):
        status, first = sit(signed_in(t), 2, request_id)
        assert status == 200
    with slow_table(state) as (t, _):  # sessions do not survive a restart: sign in again
        status, body = sit(signed_in(t, "ana", "4711"), 2, request_id)
        assert status == 409 and "another person's" in body["error"]
        assert sit(signed_in(t), 2, request_id) == (200, first)
        assert len(actions(t, request_id)) == 1


def test_after_a_sign_out_the_same_person_gets_the_answer_from_the_ledger(tmp_path):
    with slow_table(tmp_path / "state") as (t, _):
        bob = signed_in(t)
        request_id = new_id()
        status, first = sit(bob, 2, request_id)
        assert status == 200
        ana = signed_in(t, "ana", "4711")
        status, body = sit(ana, 2, request_id)
        assert status == 409 and "sent in another session" in body["error"]
        assert bob.post("/api/sign-out", {"id": new_id()})[0] == 200
        assert sit(signed_in(t), 2, request_id) == (200, first)
        assert len(actions(t, request_id)) == 1


def test_what_is_kept_is_bounded(tmp_path, monkeypatch):
    """Nothing for a request without a session; a session's answers at most PER_SESSION;
    at most IN_PROGRESS of a session's requests being done at once."""
    monkeypatch.setattr(answers, "PER_SESSION", 5)
    monkeypatch.setattr(answers, "IN_PROGRESS", 3)
    with slow_table(tmp_path / "state", admit=5.0, answer=10.0) as (t, ledger):
        book = t.server.answers
        stranger = t.client()
        for _ in range(300):
            assert sit(stranger, 1)[0] == 401
        assert len(book) == 0
        bob = signed_in(t)
        for _ in range(8):  # the seat is not there: refused by the money's rules, kept
            status, body = sit(bob, 99)
            assert status == 400, body
        assert sit(bob, 1)[0] == 200 and sit(bob, 1)[0] == 409
        assert len(book) <= 5
        ledger.delay = 1.0
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            busy = [pool.submit(sit, bob, seat) for seat in (2, 3, 4)]
            time.sleep(0.5)
            status, body = sit(bob, 5)
            assert status == 429 and "still being done" in body["error"], body
            assert [f.result()[0] for f in busy] == [200, 200, 200]
        assert len(book) <= 5


def test_a_failure_after_the_commit_is_answered_done_and_stops_the_table(tmp_path):
    """The results file fails after the action was committed: the answer is the truth (done,
    at its index), and the table's loop stops, as after a frame's commit, for systemd to
    restart it and the restore to complete the results file."""
    with slow_table(tmp_path / "state") as (t, _):
        t.shoe.feed("HELLO:0badcafe SHOE DEAL 9C ??")  # a hold to resolve: it publishes a line
        bob = signed_in(t)
        t.loop.table.results = open(t.settings.results, encoding="utf-8")  # noqa: SIM115
        request_id = new_id()
        status, body, _ = bob.post("/api/actions", {"id": request_id, "kind": "resolve", "args": {
            "latch": "hold-1-1-1", "way": "ENTER", "card": "5D", "reason": "keyed in"}})
        assert status == 200, body
        assert [r.idx for r in actions(t, request_id)] == [body["ledger_index"]]
        t.thread.join(10)
        assert not t.thread.is_alive() and t.rc == 1


def test_the_loop_takes_nothing_past_its_deadline_nor_what_was_withdrawn():
    inbox = Inbox()
    late = inbox.submit(Action(new_id(), "sign_in", "bob", Role.CROUPIER), 0.01)
    withdrawn = inbox.submit(Action(new_id(), "sign_in", "bob", Role.CROUPIER), 10.0)
    ending = inbox.submit(Action(new_id(), "sign_out", "bob", Role.CROUPIER), None)
    assert withdrawn.future.cancel()
    time.sleep(0.05)
    taken = inbox.take()
    assert taken == [late, withdrawn, ending]
    assert not late.take() and not withdrawn.take() and ending.take()
    with pytest.raises(Refused) as refusal:
        late.future.result(0)
    assert refusal.value.status == 503 and "nothing was done" in refusal.value.reason
    assert ending.taken and not late.taken

