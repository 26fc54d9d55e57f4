"""Plain HTTP clients for the display's tests: a Server-Sent Events reader and a GET."""

from __future__ import annotations

import http.client
import json
import time
from typing import Any
from urllib.parse import urlsplit


class Sse:
    """One `GET /api/events` connection, read line by line exactly as it comes (de-chunked)."""

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        self.conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        assert self.response.status == 200, self.response.status
        assert self.response.getheader("Content-Type", "").startswith("text/event-stream")
        self.raw: list[bytes] = []  # every line received, as bytes

    def next_event(self) -> bytes:
        """The data of the next `state` event (comments and the retry line skipped)."""
        kind, data = None, b""
        while True:
            line = self.response.readline()
            if not line:
                raise EOFError("the server closed the stream")
            self.raw.append(line)
            line = line.rstrip(b"\r\n")
            if not line:
                if kind == "state":
                    return data
                kind, data = None, b""
            elif line.startswith(b"event: "):
                kind = line[7:].decode()
            elif line.startswith(b"data: "):
                data = line[6:]

    def next_state(self) -> dict[str, Any]:
        return json.loads(self.next_event())

    def close(self) -> None:
        self.conn.close()


def get(url: str, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request(method, path)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def wait_for(predicate: Any, timeout: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)
