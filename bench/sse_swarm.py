"""Many screens on the table display at once: N Server-Sent Events clients in a process of
their own (so their reading never runs on the bench's or the daemon's CPU time slice), each
reading `/api/events` to the end and counting the state events it gets. The display and
latency benches start one with `--sse-clients N` ("50 browsers connected", issue 13).
"""

from __future__ import annotations

import asyncio
import multiprocessing
from multiprocessing.sharedctypes import Synchronized
from urllib.parse import urlsplit


async def _client(host: str, port: int, connected: Synchronized, events: Synchronized) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET /api/events HTTP/1.1\r\nHost: {host}\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    with connected.get_lock():
        connected.value += 1
    while line := await reader.readline():
        if line.startswith(b"event: state"):
            with events.get_lock():
                events.value += 1
    writer.close()


def _run(url: str, count: int, connected: Synchronized, events: Synchronized) -> None:
    parts = urlsplit(url)

    async def main() -> None:
        await asyncio.gather(*(_client(parts.hostname or "127.0.0.1", parts.port or 80,
                                       connected, events) for _ in range(count)),
                             return_exceptions=True)

    asyncio.run(main())


class Swarm:
    """`count` SSE clients on `url` in a spawned process; `connected` and `events` count."""

    def __init__(self, url: str, count: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.connected = ctx.Value("i", 0)
        self.events = ctx.Value("l", 0)
        self.process = ctx.Process(target=_run, args=(url, count, self.connected, self.events),
                                   daemon=True)
        self.count = count

    def start(self, timeout: float = 20.0) -> None:
        import time

        self.process.start()
        deadline = time.monotonic() + timeout
        while self.connected.value < self.count:
            if time.monotonic() > deadline or not self.process.is_alive():
                raise RuntimeError(f"only {self.connected.value} of {self.count} SSE clients "
                                   "connected")
            time.sleep(0.05)

    def stop(self) -> None:
        self.process.terminate()
        self.process.join(5)
