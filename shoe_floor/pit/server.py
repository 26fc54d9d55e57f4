"""The pit's HTTP server: aiohttp on its own asyncio loop, in its own thread, as the table
display's (shoe_daemon/display/server.py), for a whole floor.

One Server-Sent Events stream per screen carries every table: first the whole board (event
`tiles`), then one `tile` event per table whose tile changed, and a `floor` event when the
floor's summary changes. A few hundred tables at a croupier's pace are a few hundred small
events a second at most. Each screen has a bounded queue; one that lets it fill (a stuck tab,
a dead network) is dropped, and its EventSource reconnects and starts again from the board.

Read-only: every route is GET (and HEAD); anything else is 405.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

from shoe_floor.pit.board import Board

QUEUE_SIZE = 2048  # events a screen may lag behind before it is dropped
KEEPALIVE = 15.0  # s between SSE comments
RETRY_MS = 1000  # EventSource's wait before reconnecting
STATIC = Path(str(resources.files("shoe_floor.pit") / "static"))
_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:",
}

News = Callable[[Board, int], list[str]]


async def _finish(tasks: set[asyncio.Task[Any]]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)


@dataclass(eq=False)
class _Client:
    queue: asyncio.Queue[bytes] = field(default_factory=lambda: asyncio.Queue(QUEUE_SIZE))
    task: asyncio.Task[Any] | None = None
    dropped: bool = False


class PitServer:
    def __init__(self, board: Board, host: str, port: int, queue_size: int = QUEUE_SIZE,
                 log: Any = None, applied: Callable[[Board], None] | None = None) -> None:
        self.board = board
        self.host, self.port = host, port
        self.queue_size = queue_size
        self.log = log
        self.applied = applied  # called on the loop after each piece of news
        self.url = ""
        self.dropped = 0
        self._floor = b""
        self._clients: set[_Client] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._stopped: asyncio.Event | None = None

    @property
    def clients(self) -> int:
        return len(self._clients)

    # Any thread.

    def start(self) -> str:
        """Bind and serve in a new thread; the bound URL, or OSError if the address is taken."""
        ready = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._bind())
            except BaseException as e:  # handed to the starting thread
                failure.append(e)
                ready.set()
                loop.close()
                return
            ready.set()
            try:
                loop.run_until_complete(self._serve())
            finally:
                # What is still running (a screen connecting as the server stopped) ends here,
                # on a live loop, as asyncio.run ends its tasks.
                left = asyncio.all_tasks(loop)
                for task in left:
                    task.cancel()
                if left:
                    loop.run_until_complete(_finish(left))
                loop.close()

        self._thread = threading.Thread(target=serve, name="pit-http", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        return self.url

    def post(self, news: News) -> None:
        """Run `news(board, now)` on the server's loop; never blocks the caller."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._apply, news)

    def stop(self) -> None:
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(5)

    # The server's loop.

    async def _bind(self) -> None:
        app = web.Application()
        app.router.add_get("/", self._page)
        app.router.add_get("/api/tiles", self._snapshot)
        app.router.add_get("/api/events", self._events, allow_head=False)
        app.router.add_static("/static/", STATIC)
        app.on_response_prepare.append(self._secure)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None,
                                     shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, reuse_address=True)
        try:
            await site.start()
        except BaseException:
            await self._runner.cleanup()
            raise
        host, port = self._runner.addresses[0][:2]
        self.port = port
        self.url = f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"
        self._stopped = asyncio.Event()

    async def _serve(self) -> None:
        assert self._stopped is not None and self._runner is not None
        await self._stopped.wait()
        for client in list(self._clients):
            if client.task is not None:
                client.task.cancel()
        await self._runner.cleanup()

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
        events = [b'event: tile\ndata: {"now":' + stamp + b',"tile":'
                  + self.board.tile_json(table) + b"}\n\n" for table in changed]
        floor = self._floor_json(now)
        if floor[1] != self._floor:
            self._floor = floor[1]
            events.append(b"event: floor\ndata: " + floor[0] + b"\n\n")
        for event in events:
            self._fan_out(event)

    def _floor_json(self, now: int) -> tuple[bytes, bytes]:
        """The floor's summary as sent, and without its clock (to see whether it changed)."""
        summary = self.board.floor(now)
        plain = json.dumps({**summary, "now": 0}, sort_keys=True).encode()
        return json.dumps(summary, sort_keys=True).encode(), plain

    def _board_json(self) -> bytes:
        now = time.time_ns()
        tiles = b",".join(self.board.tile_json(t) for t in self.board.tables())
        return b'{"floor":' + self._floor_json(now)[0] + b',"tiles":[' + tiles + b"]}"

    def _fan_out(self, event: bytes) -> None:
        for client in list(self._clients):
            try:
                client.queue.put_nowait(event)
            except asyncio.QueueFull:
                self._drop(client)

    def _drop(self, client: _Client) -> None:
        self._clients.discard(client)
        client.dropped = True
        self.dropped += 1
        if client.task is not None:
            client.task.cancel()
        if self.log is not None:
            self.log.warning("pit.client_dropped", clients=len(self._clients),
                             dropped=self.dropped)

    @staticmethod
    async def _secure(_: web.Request, response: web.StreamResponse) -> None:
        for name, value in _HEADERS.items():
            response.headers.setdefault(name, value)

    async def _page(self, _: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    async def _snapshot(self, _: web.Request) -> web.Response:
        return web.Response(body=self._board_json(), content_type="application/json")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        """The whole board first, then each change."""
        client = _Client(queue=asyncio.Queue(self.queue_size), task=asyncio.current_task())
        response = web.StreamResponse(headers={
            "Content-Type": "text/event-stream", "X-Accel-Buffering": "no"})
        await response.prepare(request)
        client.queue.put_nowait(b"event: tiles\ndata: " + self._board_json() + b"\n\n")
        self._clients.add(client)
        try:
            await response.write(f"retry: {RETRY_MS}\n\n".encode())
            while True:
                try:
                    event = await asyncio.wait_for(client.queue.get(), KEEPALIVE)
                except TimeoutError:
                    await response.write(b": keep-alive\n\n")
                    continue
                await response.write(event)
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self._clients.discard(client)
        if request.transport is not None:
            (request.transport.abort if client.dropped else request.transport.close)()
        return response
