"""A read-only page with a Server-Sent Events stream, served by aiohttp on its own asyncio
loop in its own thread (background.py): the table display's server and the pit's share it.

The caller's loop (the table's, the collector's news) is synchronous and must never wait for
a screen, so it only hands work over (`call_soon`, a `call_soon_threadsafe`) and goes on. Each
client has a bounded queue of whole events; a client that lets it fill (a stuck tab, a dead
network) is dropped, and its EventSource reconnects and starts again from the full state.

Read-only: every route is GET (and HEAD); anything else is 405.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from shoe_daemon.display.background import BackgroundServer

KEEPALIVE = 15.0  # s between SSE comments: finds dead connections, keeps proxies open
RETRY_MS = 1000  # EventSource's wait before reconnecting
HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:",
}


@dataclass(eq=False)
class Client:
    queue: asyncio.Queue[bytes]
    task: asyncio.Task[Any] | None = None
    dropped: bool = False
    owner: str = ""  # whose stream it is (the pit's: a session's id), to end it with them


class SseServer(BackgroundServer):
    """Serves `STATIC`'s page, a JSON snapshot at `SNAPSHOT` and a stream at /api/events.

    A subclass says what the snapshot and the stream's first event are; everything it sends
    later goes through `fan_out(event)` on the server's loop (reached with `call_soon`)."""

    STATIC: Path
    SNAPSHOT = "/api/state"
    NAME = "sse"  # the thread's name and the log events' prefix

    def __init__(self, host: str, port: int, queue_size: int, log: Any = None) -> None:
        super().__init__(host, port, log)
        self.queue_size = queue_size
        self.dropped = 0  # clients dropped for lagging, since start

    @property
    def clients(self) -> int:
        """Screens connected to the stream now."""
        return len(self._clients)

    def snapshot(self) -> bytes:
        raise NotImplementedError

    def first_event(self) -> bytes:
        raise NotImplementedError

    # ---- the server's loop ----------------------------------------------------------------

    async def _bind(self) -> None:
        app = web.Application()
        app.router.add_get("/", self._page)
        app.router.add_get(self.SNAPSHOT, self._snapshot)
        app.router.add_get("/api/events", self._events, allow_head=False)
        app.router.add_static("/static/", self.STATIC)
        app.on_response_prepare.append(self._secure)
        host = await self._listen(app)
        self.url = f"http://{host}:{self.port}/"

    def fan_out(self, event: bytes) -> None:
        """One whole SSE event to every client (on the server's loop)."""
        for client in list(self._clients):
            try:
                client.queue.put_nowait(event)
            except asyncio.QueueFull:
                self._drop(client)

    def _drop(self, client: Client) -> None:
        """A lagging client goes; it reconnects and starts again from the full state."""
        self._clients.discard(client)
        client.dropped = True
        self.dropped += 1
        if client.task is not None:
            client.task.cancel()
        if self.log is not None:
            self.log.warning(f"{self.NAME}.client_dropped", clients=len(self._clients),
                             dropped=self.dropped)

    def owner(self, request: web.Request) -> str:
        """Whose stream a request opens ("": nobody's; the pit's page says its session)."""
        return ""

    def end_streams(self, owner: str) -> None:
        """Every stream of `owner` closed now (on the server's loop)."""
        for client in list(self._clients):
            if client.owner == owner and client.task is not None:
                client.task.cancel()

    @staticmethod
    async def _secure(_: web.Request, response: web.StreamResponse) -> None:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)

    async def _page(self, _: web.Request) -> web.FileResponse:
        return web.FileResponse(self.STATIC / "index.html")

    async def _snapshot(self, _: web.Request) -> web.Response:
        return web.Response(body=self.snapshot(), content_type="application/json")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        """Server-Sent Events: the full state first, then every change."""
        client = Client(queue=asyncio.Queue(self.queue_size), task=asyncio.current_task(),
                        owner=self.owner(request))
        response = web.StreamResponse(headers={
            "Content-Type": "text/event-stream", "X-Accel-Buffering": "no"})
        await response.prepare(request)
        client.queue.put_nowait(self.first_event())
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
            # A dropped client's unsent bytes are thrown away, not flushed to a stuck peer.
            (request.transport.abort if client.dropped else request.transport.close)()
        return response
