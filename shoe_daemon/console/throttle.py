"""The sign-in throttle: what slows a PIN or badge guesser without letting anyone lock the
table's staff out (docs/console.md, "The sign-in throttle", says why each number).

Kept on the console server's event loop alone (no locks). Every attempt is decided in one
sequence, `admit` then `done`, with no await between the check and the count:

1. `admit(attempt)`: refused at once (429, nothing hashed) if a bucket it counts against is
   waiting out a delay, or a PIN check for the same person is under way, or the PIN checks
   the console allows at once are all running. Else the attempt is counted against each of
   its buckets NOW, before the slow hash (a burst of parallel guesses meets the count), and
   holds its person's one check and a hash slot until `done`.
2. `done(ticket, person)`: a success clears the buckets of that person at that place; a
   failure stays counted. Slot and check are given back either way.

The buckets, each an exponential delay once its free failures are spent (`Backoff`):
- a configured person's PIN, once at the table's own screens and once from elsewhere: a
  croupier's mistyped PINs delay only his own, and a guesser from another address delays
  that person's PIN from elsewhere, never at the screen;
- every failure from one address that is not a screen (password spraying across people),
  in an LRU of at most `ADDRESSES_KEPT` addresses;
- failures no configured person answers for (an unknown person, a wrong badge), per screen
  and once for all of elsewhere (a guesser rotating addresses).
A badge is never delayed by a PIN's bucket: possession beats the guessed knowledge factor.
Unknown person ids make no state of their own; nothing here grows with the requests.

Each time a bucket starts a delay, a `Lockout` is handed to `on_lockout` (the ledger's
`console.lockout` record, through the table's loop): at most `RECORDS_PER_MINUTE`, the rest
counted in the next one.
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

FORGET = 3600.0  # s after a bucket's last failure (and its delay) it is forgotten
ADDRESSES_KEPT = 4096  # per-address buckets kept at most (least recently failed go first)
HASHES_IN_FLIGHT = 2  # PIN checks (16 MiB scrypt runs) at once, at most
HASHES_ELSEWHERE = 1  # of which from addresses that are not the table's screens
RECORDS_PER_MINUTE = 30  # lockout records at most; the rest are counted in the next
SCREEN, ELSEWHERE = "screen", "elsewhere"


@dataclass(frozen=True)
class Backoff:
    """`free` failures, then a delay of `first` seconds doubling with each failure to
    `longest` (never a lock that nobody on site could lift)."""

    free: int
    first: float
    longest: float

    def delay(self, failures: int) -> float:
        over = failures - self.free
        return 0.0 if over <= 0 else min(self.first * 2 ** (over - 1), self.longest)


PIN = Backoff(free=5, first=5.0, longest=300.0)  # a person's PIN at one place
ADDRESS = Backoff(free=10, first=5.0, longest=300.0)  # every failure from one address
STRANGERS_AT_SCREEN = Backoff(free=10, first=2.0, longest=30.0)  # one screen's
STRANGERS_ELSEWHERE = Backoff(free=50, first=5.0, longest=300.0)  # all of elsewhere


@dataclass
class _Bucket:
    what: str  # pin, address, strangers
    backoff: Backoff
    failures: int = 0
    until: float = 0.0  # time.monotonic() before which it refuses
    last: float = 0.0


@dataclass(frozen=True)
class Lockout:
    """A bucket that started a delay: for the ledger (`console.lockout`) and the log. Never
    the PIN or the badge."""

    what: str  # pin (a person's PIN), address (spraying), strangers (unknown ids, badges)
    person: str | None  # the person attacked (pin), else None
    remote: str  # the address of the failure that started it
    place: str  # screen or elsewhere
    failures: int
    delay_s: float
    until_ns: int  # wall clock
    unrecorded: int = 0  # lockouts before this one over the records' rate, not recorded

    def body(self) -> dict[str, Any]:
        return {"what": self.what, "person": self.person, "remote": self.remote,
                "place": self.place, "failures": self.failures, "delay_s": self.delay_s,
                "until_ns": self.until_ns, "unrecorded": self.unrecorded}


def lockout_words(body: dict[str, Any]) -> str:
    """A `console.lockout` record in words, as the status and the pit's alarm say it: whose
    sign-ins wait, from where, until when."""
    until = datetime.fromtimestamp(body["until_ns"] / 1e9, UTC).strftime("%H:%M:%S UTC")
    where = "at the table's screen" if body["place"] == SCREEN else "from elsewhere"
    if body["what"] == "pin":
        whose = f"{body['person']}'s PIN {where}"
    elif body["what"] == "address":
        whose = f"sign-ins from {body['remote']}"
    else:
        whose = f"unknown people and badges {where}"
    return (f"{whose} delayed until {until} ({body['failures']} failures, the last from "
            f"{body['remote']})")


@dataclass(frozen=True)
class Attempt:
    """One sign-in: its method, its person if that person is configured (else None), where
    it comes from."""

    method: str  # pin or badge
    person: str | None
    remote: str
    screen: bool


@dataclass(eq=False)
class Ticket:
    """An admitted attempt: the buckets it was counted against, what it holds."""

    attempt: Attempt
    buckets: list[_Bucket]
    started: list[_Bucket]  # those this attempt started a delay in
    hashing: bool


class NotNow(Exception):
    """Not now (429): why, and the seconds to wait (0: a moment)."""

    def __init__(self, reason: str, wait: float) -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait = wait


def is_screen(remote: str, screens: frozenset[str]) -> bool:
    """Whether a client address is one of the table's screens (IPv4-mapped IPv6 as IPv4)."""
    try:
        address = ipaddress.ip_address(remote.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address) in screens


def is_loopback(host: str) -> bool:
    """Only this machine can reach it: PINs may then cross it without TLS."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def screen_set(addresses: Iterable[str]) -> frozenset[str]:
    """The screens' addresses as `is_screen` compares them; ValueError naming a bad one."""
    out = set()
    for text in addresses:
        address = ipaddress.ip_address(text.strip())
        out.add(str(address))
    return frozenset(out)


@dataclass
class Throttle:
    """The buckets, the checks under way and the hash slots; see the module's docstring."""

    on_lockout: Callable[[Lockout], None] = lambda _: None
    clock: Callable[[], float] = time.monotonic
    _people: dict[tuple[str, str], _Bucket] = field(default_factory=dict)
    _addresses: OrderedDict[str, _Bucket] = field(default_factory=OrderedDict)
    _strangers: dict[str, _Bucket] = field(default_factory=dict)  # screen address, or ""
    _checking: set[str] = field(default_factory=set)  # people whose PIN is being checked
    _hashing: dict[str, int] = field(default_factory=lambda: {SCREEN: 0, ELSEWHERE: 0})
    _recorded: list[float] = field(default_factory=list)  # when, in the last minute
    _unrecorded: int = 0
    _swept: float = 0.0

    def admit(self, attempt: Attempt) -> Ticket:
        """Counted now, or NotNow (nothing counted, nothing to give back)."""
        now = self.clock()
        self._forget(now)
        place = SCREEN if attempt.screen else ELSEWHERE
        buckets = self._buckets(attempt, place)
        wait = max((b.until - now for b in buckets), default=0.0)
        if wait > 0:
            pin = attempt.method == "pin" and any(b.what == "pin" and b.until > now
                                                  for b in buckets)
            raise NotNow("too many failed sign-ins: try again in "
                          f"{int(wait) + 1} s" + ("; a badge still signs you in" if pin
                                                  else ""), wait)
        hashing = attempt.method == "pin"
        if hashing:
            if attempt.person is not None and attempt.person in self._checking:
                raise NotNow("a PIN for this person is being checked: try again in a "
                              "moment", 0.0)
            if (sum(self._hashing.values()) >= HASHES_IN_FLIGHT
                    or (not attempt.screen and self._hashing[ELSEWHERE] >= HASHES_ELSEWHERE)):
                raise NotNow("the console is checking other PINs: try again in a moment",
                              0.0)
            self._hashing[place] += 1
            if attempt.person is not None:
                self._checking.add(attempt.person)
        started = [bucket for bucket in buckets if self._count(bucket, attempt, place, now)]
        return Ticket(attempt, buckets, started, hashing)

    def done(self, ticket: Ticket, person: str | None) -> None:
        """The check's answer: `person` signed in, or None (a failure, as counted). A
        success clears that person's PIN here and takes its count back from the others; a
        failure that started a delay is a `Lockout`."""
        attempt = ticket.attempt
        place = SCREEN if attempt.screen else ELSEWHERE
        if ticket.hashing:
            self._hashing[place] -= 1
            if attempt.person is not None:
                self._checking.discard(attempt.person)
        if person is None:
            for bucket in ticket.started:
                self._lockout(bucket, attempt, place)
            return
        self._people.pop((person, place), None)
        for bucket in ticket.buckets:
            if bucket.what != "pin":
                bucket.failures = max(bucket.failures - 1, 0)
                if bucket.backoff.delay(bucket.failures) <= 0:
                    bucket.until = 0.0

    # ---- the buckets ---------------------------------------------------------------------

    def _buckets(self, attempt: Attempt, place: str) -> list[_Bucket]:
        out = []
        if attempt.person is not None and attempt.method == "pin":
            out.append(self._people.get((attempt.person, place))
                       or _Bucket("pin", PIN))
        if not attempt.screen:
            out.append(self._addresses.get(attempt.remote) or _Bucket("address", ADDRESS))
        if attempt.person is None:  # nobody configured answers for it
            key = attempt.remote if attempt.screen else ""
            out.append(self._strangers.get(key) or _Bucket(
                "strangers", STRANGERS_AT_SCREEN if attempt.screen else STRANGERS_ELSEWHERE))
        return out

    def _count(self, bucket: _Bucket, attempt: Attempt, place: str, now: float) -> bool:
        """One more failure (provisional until `done`); True if it starts a delay."""
        bucket.failures += 1
        bucket.last = now
        if bucket.what == "pin":
            assert attempt.person is not None
            self._people[(attempt.person, place)] = bucket
        elif bucket.what == "address":
            self._addresses[attempt.remote] = bucket
            self._addresses.move_to_end(attempt.remote)
            while len(self._addresses) > ADDRESSES_KEPT:
                self._addresses.popitem(last=False)
        else:
            self._strangers[attempt.remote if attempt.screen else ""] = bucket
        delay = bucket.backoff.delay(bucket.failures)
        if delay <= 0:
            return False
        bucket.until = now + delay
        return True

    def _lockout(self, bucket: _Bucket, attempt: Attempt, place: str) -> None:
        now = self.clock()
        left = bucket.until - now
        if left <= 0:
            return
        self._recorded = [t for t in self._recorded if now - t < 60.0]
        if len(self._recorded) >= RECORDS_PER_MINUTE:
            self._unrecorded += 1
            return
        self._recorded.append(now)
        lockout = Lockout(bucket.what, attempt.person if bucket.what == "pin" else None,
                          attempt.remote, place, bucket.failures,
                          bucket.backoff.delay(bucket.failures),
                          time.time_ns() + int(left * 1e9), self._unrecorded)
        self._unrecorded = 0
        self.on_lockout(lockout)

    def _forget(self, now: float) -> None:
        """Buckets past FORGET dropped, looked for once a minute (cheap per request)."""
        if now - self._swept < 60.0:
            return
        self._swept = now
        for table in (self._people, self._addresses, self._strangers):
            stale = [k for k, b in table.items() if now - b.last > FORGET and now > b.until]
            for key in stale:
                del table[key]
