"""An aiohttp server on its own asyncio loop in its own thread, for a caller whose loop is
synchronous and must never wait for a client: the table display's and the pit's pages
(sse.py) and the croupier's console (console/server.py) share it.

The caller only hands work over (`call_soon`, a `call_soon_threadsafe`) and goes on. A
subclass makes its application and listens (`_bind`, through `_listen`); `stop` ends the
streams of `_clients` and cleans up, with whatever is still running ended on a live loop,
as asyncio.run ends its tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import threading
from collections.abc import Callable
from typing import Any

from aiohttp import web


async def _finish(tasks: set[asyncio.Task[Any]]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)


class BackgroundServer:
    """`start()` binds and serves in a new thread named `NAME`; `stop()` ends it."""

    NAME = "server"

    def __init__(self, host: str, port: int, log: Any = None) -> None:
        self.host, self.port = host, port
        self.log = log
        self.url = ""
        self._clients: set[Any] = set()  # the open streams: each has the `task` serving it
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._stopped: asyncio.Event | None = None

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
                # What is still running (a client connecting as the server stopped) ends here.
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
        raise NotImplementedError

    async def _listen(self, app: web.Application,
                      ssl_context: ssl.SSLContext | None = None) -> str:
        """Serve `app` on the configured address; the host bound, as a URL writes it (the
        port bound is `self.port`)."""
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None,
                                     shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, reuse_address=True,
                           ssl_context=ssl_context)
        try:
            await site.start()
        except BaseException:
            await self._runner.cleanup()
            raise
        host, self.port = self._runner.addresses[0][:2]
        self._stopped = asyncio.Event()
        return f"[{host}]" if ":" in host else host

    async def _serve(self) -> None:
        assert self._stopped is not None and self._runner is not None
        await self._stopped.wait()
        for client in list(self._clients):
            if client.task is not None:
                client.task.cancel()
        await self._runner.cleanup()
