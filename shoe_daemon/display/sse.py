"""A read-only page with a Server-Sent Events stream, served by aiohttp on its own asyncio
loop in its own thread: the table display's server and the pit's share it.

The caller's loop (the table's, the collector's news) is synchronous and must never wait for
a screen, so it only hands work over (`call_soon`, a `call_soon_threadsafe`) and goes on. Each
client has a bounded queue of whole events; a client that lets it fill (a stuck tab, a dead
network) is dropped, and its EventSource reconnects and starts again from the full state.

Read-only: every route is GET (and HEAD); anything else is 405.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

KEEPALIVE = 15.0  # s between SSE comments: finds dead connections, keeps proxies open
RETRY_MS = 1000  # EventSource's wait before reconnecting
HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:",
}


async def _finish(tasks: set[asyncio.Task[Any]]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)


@dataclass(eq=False)
class Client:
    queue: asyncio.Queue[bytes]
    task: asyncio.Task[Any] | None = None
    dropped: bool = False


class SseServer:
    """Serves `STATIC`'s page, a JSON snapshot at `SNAPSHOT` and a stream at /api/events.

    A subclass says what the snapshot and the stream's first event are; everything it sends
    later goes through `fan_out(event)` on the server's loop (reached with `call_soon`)."""

    STATIC: Path
    SNAPSHOT = "/api/state"
    NAME = "sse"  # the thread's name and the log events' prefix

    def __init__(self, host: str, port: int, queue_size: int, log: Any = None) -> None:
        self.host, self.port = host, port
        self.queue_size = queue_size
        self.log = log
        self.url = ""
        self.dropped = 0  # clients dropped for lagging, since start
        self._clients: set[Client] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._stopped: asyncio.Event | None = None

    @property
    def clients(self) -> int:
        """Screens connected to the stream now."""
        return len(self._clients)

    def snapshot(self) -> bytes:
        raise NotImplementedError

    def first_event(self) -> bytes:
        raise NotImplementedError

    # ---- any thread -----------------------------------------------------------------------

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

        self._thread = threading.Thread(target=serve, name=self.NAME, daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        return self.url

    def call_soon(self, work: Callable[..., None], *args: Any) -> None:
        """Run `work(*args)` on the server's loop; never blocks the caller."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(work, *args)

    def stop(self) -> None:
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(5)

    # ---- the server's loop ----------------------------------------------------------------

    async def _bind(self) -> None:
        app = web.Application()
        app.router.add_get("/", self._page)
        app.router.add_get(self.SNAPSHOT, self._snapshot)
        app.router.add_get("/api/events", self._events, allow_head=False)
        app.router.add_static("/static/", self.STATIC)
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
        client = Client(queue=asyncio.Queue(self.queue_size), task=asyncio.current_task())
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
