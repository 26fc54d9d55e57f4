"""`systemctl status` and `shoe-daemon status` say the console's open latches: a hold or a
fault latched until it is resolved on the console keeps the table out of play (no coup
starts), even once the shoe's own way out lifted it."""

from __future__ import annotations

import json
import time

from shoe_daemon.service.status import summarise
from tests.console_support import console_table


def wait(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_the_status_says_the_open_latches_until_they_are_resolved(tmp_path):
    state = tmp_path / "state"
    with console_table(state) as t:
        t.shoe.feed("HELLO:0badcafe SHOE DEAL 9C ?? ENTER:5D KH 3S")  # lifted on the shoe
        assert t.machine.state == "decided"
        line = t.loop.reporter.line()
        assert line.endswith("; 1 open on the console: hold-1-1-1 (UNREADABLE_CARD)"), line
        wait(lambda: "open on the console" in "\n".join(summarise(state).lines))
        assert "open on the console: hold-1-1-1 (UNREADABLE_CARD) (no coup starts until each " \
               "is resolved there)" in summarise(state).lines
        assert json.loads((state / "status.json").read_text())["latches"] == [
            "hold-1-1-1 (UNREADABLE_CARD)"]
        c = t.client()
        c.sign_in("bob", "1234")
        assert c.act("resolve", latch="hold-1-1-1", reason="card keyed in")[0] == 200
        assert "open on the console" not in t.loop.reporter.line()
        wait(lambda: json.loads((state / "status.json").read_text())["latches"] == [])
        assert not any("open on the console" in x for x in summarise(state).lines)
