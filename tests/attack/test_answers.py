"""True answers, against the real daemon process over HTTP (issue 19, docs/console.md "The
handoff and its answers"): its table's loop made slow by another process holding the
ledger's write lock, every answer the croupier gets compared with the ledger afterwards;
retries with the same request id after "still being done", after a dropped connection, ten
at once, and across a kill -9 after the commit, before the answer. Each ends with every
answer true and every action in the ledger once."""

from __future__ import annotations

import concurrent.futures
import json
import socket
import time

from tests.attack.answers_support import (
    ADMIT,
    ANSWER,
    BUSY,
    Asked,
    Daemon,
    LedgerLock,
    action,
    ask,
    check_true,
    daemon,
    ledger_actions,
    wait_for_action,
    wait_for_shoe,
)


def test_a_slow_loop_and_every_answer_true(tmp_path):
    """Rounds of a ledger held by another process: the action the loop took waits in its
    commit (still being done, then done at its index; or, held past the ledger's patience,
    refused with nothing done); those sent meanwhile, the loop busy, are withdrawn at the
    deadline (nothing was done); the shoe's frame that came meanwhile is committed after."""
    with daemon(tmp_path) as (run, shoe):
        bob = run.client()
        asked: list[Asked] = []
        rounds = [(1, 2, 3.0), (3, 4, 3.0), (5, 6, BUSY + 1.5)]
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            for taken, waiting, held in rounds:
                with LedgerLock(run.state):
                    first = pool.submit(ask, bob, action("sit", seat=str(taken)))
                    time.sleep(0.3)  # the loop has it, and waits in its commit
                    if taken == 1:
                        shoe.hello()  # the shoe's frame waits behind it
                    behind = pool.submit(ask, bob, action("sit", seat=str(waiting)))
                    time.sleep(held - 0.3)
                asked += [first.result(), behind.result()]
                asked.append(ask(bob, action("sit", seat=str(waiting))))  # in step again
        counts = check_true(run.state, asked)
        # Every kind of true answer happened: done after "still being done", nothing done
        # (not taken in time), and the ledger's refusal of the commit held past its patience.
        assert [a.final[0] for a in asked[0::3]] == [200, 200, 503], [a.answers for a in asked]
        assert all(a.answers[0][0] == 202 for a in asked[0::3])
        assert "audit ledger refused" in asked[6].final[1]["error"]
        assert all(a.final[0] == 503 and "did not get to it in time" in a.final[1]["error"]
                   for a in asked[1::3])
        assert [a.final[0] for a in asked[2::3]] == [200, 200, 200]
        assert counts == {"200": 5, "503": 4}
        recorded = ledger_actions(run.state)  # the actions done, and bob's sign-in
        assert len(recorded) == len({a.id for a in asked if a.final[0] == 200}) + 1
    log = (tmp_path / "daemon.log").read_text()
    assert '"shoe.hello"' in log and '"ledger.write_failed"' in log


def test_a_retry_after_a_dropped_connection_gets_the_first_outcome(tmp_path):
    with daemon(tmp_path) as (run, _):
        bob = run.client()
        body = action("sit", seat="3")
        data = json.dumps(body).encode()
        with LedgerLock(run.state):
            with socket.create_connection((bob.host, bob.port)) as raw:
                raw.sendall(b"POST /api/actions HTTP/1.1\r\n" +
                            f"Host: {bob.host}:{bob.port}\r\nOrigin: {bob.origin}\r\n"
                            f"Cookie: {bob.cookie}\r\nContent-Type: application/json\r\n"
                            f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
                time.sleep(0.3)  # taken; the croupier's tablet loses the connection
            time.sleep(1.0)
        retry = ask(bob, body)
        assert retry.final[0] == 200, retry.answers
        assert check_true(run.state, [retry]) == {"200": 1}
        again = ask(bob, body)  # and again: the same answer, nothing more done
        assert again.final == retry.final
        status, answer, _ = run.client().post("/api/actions", body)  # bob, another session
        assert status == 409 and "sent in another session" in answer["error"], answer
        assert len(ledger_actions(run.state)[body["id"]]) == 1


def test_ten_retries_of_one_id_at_once_commit_once(tmp_path):
    with daemon(tmp_path) as (run, _):
        bob = run.client()
        body = action("sit", seat="4")
        with concurrent.futures.ThreadPoolExecutor(10) as pool:
            with LedgerLock(run.state):
                fired = [pool.submit(ask, bob, body) for _ in range(10)]
                time.sleep(ANSWER + 0.5)  # every one of them told it is still being done
            asked = [f.result() for f in fired]
        assert all(a.answers[0][0] == 202 for a in asked), [a.answers for a in asked]
        assert all(a.final == asked[0].final for a in asked) and asked[0].final[0] == 200
        assert check_true(run.state, asked[:1]) == {"200": 1}
        assert len(ledger_actions(run.state)[body["id"]]) == 1


def test_a_retry_across_a_kill_after_the_commit_is_answered_from_the_ledger(tmp_path):
    """The croupier was told "still being done"; the commit lands; the daemon is killed
    before anyone asks again. After the restart, signed in again, the retry gets the
    committed action at its index, the same answer it would have got, and another person
    gets nothing of it; the ledger holds it once."""
    with daemon(tmp_path) as (run, shoe):
        shoe.hello()
        shoe.send("SHOE")  # a shoe started: the restore plays the actions after it
        wait_for_shoe(run.state)
        bob = run.client()
        body = action("sit", seat="5")
        with LedgerLock(run.state):
            status, answer, _ = bob.post("/api/actions", body)
            assert status == 202, answer
        record = wait_for_action(run.state, body["id"])
        run.kill()
        again = Daemon(tmp_path, run.state).start()
        try:
            ana = again.client("ana", "4711")
            status, answer, _ = ana.post("/api/actions", body)
            assert status == 409 and "another person's" in answer["error"], answer
            retry = ask(again.client(), body)
            assert retry.final[0] == 200 and retry.final[1]["ledger_index"] == record.idx
            assert [m["event"] for m in retry.final[1]["money"]] == ["money.seating"]
            assert check_true(again.state, [retry]) == {"200": 1}
            assert ask(again.client(), action("sit", seat="5")).final[0] == 409  # taken once
        finally:
            assert again.stop() == 0
    assert ADMIT < ANSWER < BUSY
