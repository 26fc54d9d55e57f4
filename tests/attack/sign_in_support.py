"""The sign-in attacks' tools: the real daemon process with its console, its people made by
the CLI with secrets no log line could hold by chance, clients from other loopback
addresses (127.0.0.2 ... are not the table's screen), a fast asyncio client for floods,
and the daemon's memory from /proc."""

from __future__ import annotations

import asyncio
import json
import subprocess
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import aiohttp

from hil.processes import console_url, start_daemon
from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.console.people import Role
from tests.console_support import people_by_cli

# Secrets long and odd enough that finding one in a log, a ledger's hashes or a timestamp
# means it leaked.
ANA_PIN, ANA_BADGE = "80714529", "SUP-Q7Z93K-ANA"
BOB_PIN, BOB_BADGE = "61937402", "CRP-W4X81J-BOB"
CY_PIN = "52840917"
PEOPLE = (("ana", "Ana Weber", Role.SUPERVISOR, ANA_PIN, ANA_BADGE),
          ("bob", "Bob Marti", Role.CROUPIER, BOB_PIN, BOB_BADGE),
          ("cy", "Cy Rossi", Role.CROUPIER, CY_PIN, None))
SECRETS = (ANA_PIN, ANA_BADGE, BOB_PIN, BOB_BADGE, CY_PIN)
SCREEN = "127.0.0.1"  # the table's own screen (the default console_screens)


def console_daemon(workdir: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """The real daemon with its console on loopback and no shoe plugged in (it serves the
    console while it waits for one); its console's URL."""
    people_by_cli(workdir / "state", PEOPLE)
    proc = start_daemon(workdir, "baden", extra=["--console", f"{SCREEN}:0", *extra])
    return proc, console_url(workdir, proc, timeout=30)


def sign_in_body(person: str | None = None, pin: str | None = None,
                 badge: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"id": uuid.uuid4().hex}
    if badge is not None:
        return body | {"method": "badge", "badge": badge}
    return body | {"method": "pin", "person": person, "pin": pin}


class Flood:
    """Many keep-alive connections from one source address, for concurrent requests."""

    def __init__(self, url: str, source: str, connections: int) -> None:
        self.url = url.rstrip("/")
        self.origin = self.url
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=connections, local_addr=(source, 0),
                                           force_close=False),
            timeout=aiohttp.ClientTimeout(total=60))

    async def post(self, path: str, body: Any = None, raw: bytes | None = None,
                   content_type: str = "application/json") -> tuple[int, Any]:
        data = raw if raw is not None else json.dumps(body).encode()
        async with self.session.post(self.url + path, data=data, headers={
                "Origin": self.origin, "Content-Type": content_type}) as response:
            return response.status, await _body(response)

    async def get(self, path: str) -> tuple[int, Any]:
        async with self.session.get(self.url + path) as response:
            return response.status, await _body(response)

    async def close(self) -> None:
        await self.session.close()


async def _body(response: aiohttp.ClientResponse) -> Any:
    data = await response.read()
    try:
        return json.loads(data)
    except ValueError:
        return data


def rss_kib(pid: int) -> int:
    """The process's resident memory (VmRSS, KiB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def log_lines(workdir: Path, event: str) -> list[dict[str, Any]]:
    """The daemon's JSON log lines of one event."""
    path = workdir / "daemon.log"
    out = []
    for line in path.read_text().splitlines():
        if f'"{event}"' in line:
            entry = json.loads(line)
            if entry.get("event") == event:
                out.append(entry)
    return out


def ledger_bodies(state: Path, kind: str | None = None) -> list[dict[str, Any]]:
    ledger = Ledger(state)
    try:
        return [{"kind": r.kind, **r.body} for r in ledger.records()
                if kind is None or r.kind == kind]
    finally:
        ledger.close()


def leaks(paths: Iterable[Path], secrets: Iterable[str]) -> list[tuple[str, str]]:
    """(file, secret) for each secret found in any of these files' bytes."""
    found = []
    for path in paths:
        data = path.read_bytes()
        found += [(str(path), s) for s in secrets if s.encode() in data]
    return found


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)
