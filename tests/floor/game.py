"""A table at play for the pit's tests: a real coup machine dealing what the simulated
croupier deals (hil.dealer), its display's public view (shoe_daemon.display), a real ledger
committing each frame with its lines, and the real floor link publishing the records and
the view, as the daemon does after each commit."""

from __future__ import annotations

import json
from typing import Any

from drivers.messages import Message
from drivers.records import frame_body
from hil.dealer import GameFaults, deal_shoes
from shoe_daemon.display.publisher import TableDisplay
from shoe_daemon.floor.config import FloorConfig
from shoe_daemon.floor.link import FloorLink
from shoe_daemon.game.coup import CoupMachine
from shoe_daemon.game.houses import get_profile
from tests.floor.conftest import Table


class GameTable:
    def __init__(self, table: Table, profile: str, seed: int = 1,
                 faults: GameFaults | None = None):
        self.table = table
        self.name = table.name
        self.profile = profile
        self.machine = CoupMachine(get_profile(profile))
        self.views: list[bytes] = []
        self.display = TableDisplay(table.name, self._shown)
        self.link: FloorLink | None = None
        self.session = deal_shoes(profile, 1, seed, faults=faults)
        self.dealt = 0  # messages of the session played so far
        self.seq = 0
        table.ledger.append("daemon.start", {"version": "test", "code_sha256": "0" * 64,
                                             "table": table.name, "profile": profile,
                                             "config": {}})

    def _shown(self, state: bytes) -> None:
        self.views.append(state)
        if self.link is not None:
            self.link.publish_state(state)

    def connect(self, config: FloorConfig | None = None) -> GameTable:
        """The link on; `config` to reach the broker another way (a relay that can be cut)."""
        self.link = FloorLink(config or self.table.config, self.table.state_dir, poll=0.1,
                              retry=0.3)
        self.link.start()
        if self.views:
            self.link.publish_state(self.views[-1])
        return self

    def stop(self) -> None:
        if self.link is not None:
            self.link.stop()

    def play(self, messages: list[Message]) -> dict[str, Any]:
        """Each message as the daemon takes a frame: played, committed with its lines, then
        its view shown (and published)."""
        for message in messages:
            self.seq += 1
            lines = self.machine.handle(message)
            self.table.ledger.append_many(
                [("frame", frame_body(self.seq, message)),
                 *(("result", {"line": line}) for line in lines)])
            for line in lines:
                self.display.record(line)
            self.display.show(self.machine)
        if self.link is not None:
            self.link.notify()
        return self.view()

    def deal(self, count: int) -> dict[str, Any]:
        """The next `count` messages of the simulated croupier's shoe."""
        start, self.dealt = self.dealt, min(self.dealt + count, len(self.session.messages))
        return self.play(self.session.messages[start:self.dealt])

    def deal_until(self, wanted, limit: int = 5000) -> dict[str, Any]:
        """Deal message by message until `wanted(view)` holds."""
        for _ in range(limit):
            view = self.deal(1)
            if wanted(view):
                return view
        raise AssertionError(f"{self.name}: never reached the state wanted")

    def view(self) -> dict[str, Any]:
        return json.loads(self.views[-1]) if self.views else {}
