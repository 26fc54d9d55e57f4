"""The pit's HTTP server: the table display's SSE server (shoe_daemon/display/sse.py), for a
whole floor.

One Server-Sent Events stream per screen carries every table: first the whole board (event
`tiles`), then one `tile` event per table whose tile changed, and a `floor` event when the
floor's summary changes. A change of the counts alone (a tile's foot: most of what a reading
of the store moves, the stored tip of every table that committed in the last second) is not
a whole tile: the feet of all the tables whose counts alone changed in one piece of news go
as one `foot` event, which the page applies to the tiles it has. A few hundred tables at a
croupier's pace are then about one event a second per table's own change, and one for each
reading of the store. Each screen has a bounded queue; one that lets it fill (a stuck tab, a
dead network) is dropped, and its EventSource reconnects and starts again from the board.

Read-only: every route is GET (and HEAD); anything else is 405.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from shoe_daemon.display.sse import SseServer
from shoe_floor.pit.board import Board

QUEUE_SIZE = 2048  # events a screen may lag behind before it is dropped
STATIC = Path(str(resources.files("shoe_floor.pit") / "static"))

News = Callable[[Board, int], list[str]]


class PitServer(SseServer):
    """The pit's page, its board at /api/tiles and one stream for the whole floor."""

    STATIC = STATIC
    SNAPSHOT = "/api/tiles"
    NAME = "pit"

    def __init__(self, board: Board, host: str, port: int, queue_size: int = QUEUE_SIZE,
                 log: Any = None, applied: Callable[[Board], None] | None = None) -> None:
        super().__init__(host, port, queue_size, log)
        self.board = board
        self.applied = applied  # called on the loop after each piece of news
        self._floor = b""

    def post(self, news: News) -> None:
        """Run `news(board, now)` on the server's loop; never blocks the caller."""
        self.call_soon(self._apply, news)

    def snapshot(self) -> bytes:
        return self._board_json()

    def first_event(self) -> bytes:
        return b"event: tiles\ndata: " + self._board_json() + b"\n\n"

    def _apply(self, news: News) -> None:
        now = time.time_ns()
        try:
            changed = news(self.board, now)
        except Exception as e:  # one bad message must not stop the page
            if self.log is not None:
                self.log.error("pit.news_failed", error=repr(e))
            return
        if self.applied is not None:
            self.applied(self.board)
        stamp = str(now // 1_000_000).encode()
        feet = [table for table in changed if self.board.foot_only(table)]
        events = [b'event: tile\ndata: {"now":' + stamp + b',"tile":'
                  + self.board.tile_json(table) + b"}\n\n"
                  for table in changed if not self.board.foot_only(table)]
        if feet:
            events.append(b'event: foot\ndata: {"now":' + stamp + b',"feet":['
                          + b",".join(self.board.foot_json(table) for table in feet)
                          + b"]}\n\n")
        floor = self._floor_json(now)
        if floor[1] != self._floor:
            self._floor = floor[1]
            events.append(b"event: floor\ndata: " + floor[0] + b"\n\n")
        for event in events:
            self.fan_out(event)

    def _floor_json(self, now: int) -> tuple[bytes, bytes]:
        """The floor's summary as sent, and without its clock (to see whether it changed)."""
        summary = self.board.floor(now)
        plain = json.dumps({**summary, "now": 0}, sort_keys=True).encode()
        return json.dumps(summary, sort_keys=True).encode(), plain

    def _board_json(self) -> bytes:
        now = time.time_ns()
        tiles = b",".join(self.board.tile_json(t) for t in self.board.tables())
        return b'{"floor":' + self._floor_json(now)[0] + b',"tiles":[' + tiles + b"]}"
