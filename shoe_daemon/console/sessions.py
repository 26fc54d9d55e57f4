"""Console sessions: the console server's own state, kept on its event loop's thread alone
(no locks). The sign-in throttle is console/throttle.py; the answers kept for retries
console/answers.py.

- A session is a random token in an HttpOnly, SameSite=Strict cookie; the server keeps only
  its SHA-256. It ends when its person signs out, after `idle` seconds without a request,
  after `longest` seconds whatever, when its person leaves the people file or changes role,
  and when the daemon stops. Each end is a `sign_out` action in the ledger.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Session:
    person: str
    name: str
    role: StrEnum
    id: str  # the session's public id, recorded with sign-in and sign-out (not the token)
    method: str
    started: float
    seen: float

    def public(self, idle: float, longest: float) -> dict[str, object]:
        ends = min(self.seen + idle, self.started + longest)
        return {"person": self.person, "name": self.name, "role": self.role.value,
                "session": self.id, "method": self.method,
                "expires_in": max(0, round(ends - time.monotonic()))}


class Sessions:
    def __init__(self, idle: float, longest: float) -> None:
        self.idle = idle
        self.longest = longest
        self._by_token: dict[str, Session] = {}

    def __len__(self) -> int:
        return len(self._by_token)

    def __iter__(self) -> Iterator[Session]:
        return iter(list(self._by_token.values()))

    @staticmethod
    def new_id() -> str:
        return secrets.token_hex(6)

    def open(self, person: str, name: str, role: StrEnum, session_id: str,
             method: str) -> str:
        """A new session; its token (for the cookie)."""
        token = secrets.token_urlsafe(32)
        now = time.monotonic()
        self._by_token[_digest(token)] = Session(person, name, role, session_id, method, now,
                                                 now)
        return token

    def find(self, token: str | None) -> tuple[Session | None, str]:
        """The live session of a token, touched; else None and why (`expired`, or empty)."""
        if not token:
            return None, ""
        key = _digest(token)
        session = self._by_token.get(key)
        if session is None:
            return None, ""
        now = time.monotonic()
        if now - session.seen > self.idle or now - session.started > self.longest:
            return None, "expired"
        session.seen = now
        return session, ""

    def close(self, session: Session) -> None:
        for key, found in list(self._by_token.items()):
            if found is session:
                del self._by_token[key]

    def expired(self) -> list[Session]:
        """The sessions past their time, removed."""
        now = time.monotonic()
        gone = [s for s in self._by_token.values()
                if now - s.seen > self.idle or now - s.started > self.longest]
        for session in gone:
            self.close(session)
        return gone

    def close_all(self) -> list[Session]:
        gone = list(self._by_token.values())
        self._by_token.clear()
        return gone

