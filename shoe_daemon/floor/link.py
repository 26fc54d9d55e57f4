"""The table's floor link: the ledger's committed records to the floor's broker, in order,
nothing lost, never in the table's way.

The ledger is the outbox. The link keeps one durable fact, the cursor (floor/cursor.py):
the highest index below which the broker has acknowledged every record. It publishes from
there with QoS 1, advances the cursor only over a contiguous acknowledged prefix, and after
any outage (broker down, network cut, the daemon killed, power lost) starts again from the
cursor: a record may go twice, never zero times. The collector drops duplicates.

A message carries every committed record not yet sent, up to `batch` records and
`batch_bytes` bytes (outbox.pack): one record when the table is keeping up, as many as fit
from a backlog, so a drain costs the pit one MQTT message per `batch` records. The cursor
moves to a message's last record once the broker acknowledges it.

Each message is signed with the table's Ed25519 key (floor/signing.py): one signature
over the table's name and the message's last record, carried as MQTT 5 user properties. A
`rotate-key` is taken at the next look at the ledger, without a restart.

It runs in its own thread beside paho's network thread, where the signing happens too. The
table only calls `notify()` (a commit happened) and `publish_state()`; both return at once,
whatever the broker does. The link's thread also reports the ledger's head on the retained
`head` topic when the pit cannot infer it from the records, and every `heartbeat` seconds
(floor/head.py).

Its status messages (`state`, `online`, the last will `offline`, `head`) are signed too, each
with a stamp greater than every one before it (floor/stamps.py), so that the pit shows only
what the table said last. The last will is registered at each connect: paho's thread signs
it then (`_on_pre_connect`), with the stamp after that connection's `online` word. They go
at QoS 0 (but the first head of a connection, whose acknowledgement says whether the
broker's ACL knows the topic): after every reconnect the link says its word, its view and
its head anew, so a status message is never worth sending twice, and one that paho sent
again after a reconnect would reach the pit older than what it showed, as a replay does.
"""

from __future__ import annotations

import collections
import contextlib
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import structlog
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from shoe_daemon.floor import topics
from shoe_daemon.floor.config import FloorConfig, FloorConfigError
from shoe_daemon.floor.crashpoint import crash_point
from shoe_daemon.floor.cursor import Cursor, belongs, read_cursor, write_cursor
from shoe_daemon.floor.head import Head, HeadReports
from shoe_daemon.floor.mqtt import SUCCESS_MAX, connect, delivered, make_client
from shoe_daemon.floor.outbox import Outbox, pack
from shoe_daemon.floor.signing import Signer, Stamp
from shoe_daemon.floor.stamps import Stamps, last_epoch, next_epoch

ONLINE, OFFLINE = b"online", b"offline"


class FloorLink:
    """FloorConfigError (naming `floor`) if the table has no signing key to sign with."""

    def __init__(self, config: FloorConfig, state_dir: Path, *, poll: float = 1.0,
                 window: int = 200, retry: float = 2.0, batch: int = 200,
                 batch_bytes: int = 64 * 1024):
        self.config = config
        self.state_dir = state_dir
        self.poll = poll        # s between looks at the ledger when no commit is notified
        self.window = window    # messages published and not yet acknowledged, at most
        self.batch = batch      # records in one message, at most
        self.batch_bytes = batch_bytes  # a message's payload, at most (but one record)
        self.retry = retry      # s before publishing again after the broker refused one
        self.log = structlog.get_logger("shoe_daemon").bind(table=config.table, part="floor")
        self._outbox = Outbox(state_dir)
        self._topic = topics.topic(config.topic_prefix, config.table, topics.RECORDS)
        self._cursor = Cursor()
        self._next = 1
        self._tail = 0
        self._inflight: dict[int, list[tuple[int, str]]] = {}  # mid -> its (idx, hash)
        self._done: dict[int, str] = {}  # acknowledged beyond the cursor: idx -> hash
        self._retry_at = 0.0
        self._acks: collections.deque[tuple[int, int]] = collections.deque()
        self._resends: collections.deque[int] = collections.deque()
        self._state: bytes | None = None
        self._last_state: bytes | None = None  # published again after a reconnect
        self._state_lock = threading.Lock()
        self.heads = HeadReports(beat=config.heartbeat)  # when to report the head
        self._stamps = Stamps(0)  # this start's, from start()
        self._online_stamp: Stamp | None = None  # this connection's `online` word
        self._state_stamp: Stamp | None = None  # the last state published
        self._head_mids: set[int] = set()  # head reports not yet acknowledged
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._connected = False
        self._down_since: float | None = time.time()  # wall clock: for a person to read
        self._unreachable_said = False
        self._steps = 0  # looks at the ledger taken, for stop()'s drain
        self._thread: threading.Thread | None = None
        self._client = make_client(config, client_id=config.table, inflight=window)
        self._client.on_pre_connect = self._on_pre_connect
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_connect_fail = self._on_connect_fail
        self._client.on_publish = self._on_publish
        self._client.on_message = self._on_message
        self._signer = Signer(state_dir)  # after the TLS settings, which are named first

    # The table's side: each returns at once.

    def start(self) -> None:
        self._stamps = Stamps(self._epoch())
        self._cursor = self._trusted_cursor()
        self._next = self._cursor.idx + 1
        self._thread = threading.Thread(target=self._run, name="floor-link", daemon=True)
        self._thread.start()
        connect(self._client, self.config)
        self.log.info("floor.start", broker=self.config.url, acked=self._cursor.idx,
                      key_id=self._signer.key.key_id)

    def notify(self) -> None:
        """The table committed records: publish them now rather than at the next poll."""
        self._wake.set()

    def publish_state(self, payload: bytes) -> None:
        """The table's public view, retained on `{prefix}/{table}/state` (the latest wins)."""
        with self._state_lock:
            self._state = payload
        self._wake.set()

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def down_since(self) -> float | None:
        """When (Unix time) the link lost the broker, or started without it; None while up."""
        return self._down_since

    @property
    def acked(self) -> int:
        return self._cursor.idx

    def backlog(self) -> int:
        """Committed records the broker has not acknowledged (as of the last look)."""
        return max(0, self._tail - self._cursor.idx)

    def stop(self, timeout: float = 5.0, drain: float = 0.0) -> None:
        """Say offline, stop, and keep the cursor; what is unacknowledged goes next time.

        With `drain`, first give a connected link up to that many seconds to have the
        records committed so far acknowledged (the table's last records, its stop)."""
        deadline = time.monotonic() + drain
        steps = self._steps
        while self._connected and time.monotonic() < deadline and self._thread is not None:
            if self._steps > steps + 1 and self.backlog() == 0:
                break  # a look at the ledger begun after the call found nothing to send
            self._wake.set()
            time.sleep(0.01)
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._connected:
            info = self._client.publish(self._leaf(topics.ONLINE), OFFLINE, qos=0, retain=True,
                                        properties=self._signed(topics.ONLINE, OFFLINE))
            with contextlib.suppress(RuntimeError, ValueError):  # the broker went meanwhile
                info.wait_for_publish(timeout)
        self._client.disconnect()
        self._client.loop_stop()
        self._settle()
        self._outbox.close()
        self.log.info("floor.stop", acked=self._cursor.idx, backlog=self.backlog())

    # paho's network thread: record what happened, wake the link's thread, nothing more.

    def _on_pre_connect(self, client: mqtt.Client, _u: Any) -> None:
        """Before each connect: this connection's `online` stamp, and its last will, signed
        with the stamp after it (the will outranks the word it ends, and nothing later)."""
        self._online_stamp = self._stamps.next()
        client.will_set(self._leaf(topics.ONLINE), OFFLINE, qos=1, retain=True,
                        properties=self._signed(topics.ONLINE, OFFLINE,
                                                packet=PacketTypes.WILLMESSAGE))

    def _on_connect(self, client: mqtt.Client, _u: Any, flags: Any, reason: Any,
                    _p: Any) -> None:
        if reason.is_failure:
            self.log.warning("floor.refused", reason=str(reason))
            return
        client.subscribe(self._leaf(topics.RESEND), qos=1)
        client.publish(self._leaf(topics.ONLINE), ONLINE, qos=0, retain=True,
                       properties=self._signed(topics.ONLINE, ONLINE, self._online_stamp))
        self._connected = True
        self._down_since = None
        self._unreachable_said = False
        self.log.info("floor.connected", session_present=bool(flags.session_present))
        with self._state_lock:
            self._state = self._state if self._state is not None else self._last_state
        self.heads.reconnected()
        self._wake.set()

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if self._connected and not self._stopping.is_set():
            self.log.warning("floor.disconnected", reason=str(reason), backlog=self.backlog())
            self._down_since = time.time()
        self._connected = False

    def _on_connect_fail(self, _c: mqtt.Client, _u: Any) -> None:
        """The broker cannot be reached: said once per outage, paho keeps trying."""
        if not self._unreachable_said:
            self._unreachable_said = True
            self.log.warning("floor.unreachable", broker=self.config.url, backlog=self.backlog())

    def _on_publish(self, _c: mqtt.Client, _u: Any, mid: int, reason: Any, _p: Any) -> None:
        self._acks.append((mid, int(reason.value)))
        self._wake.set()

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            start = int(msg.payload.decode().strip())
        except (UnicodeDecodeError, ValueError):
            self.log.warning("floor.bad_resend", payload=msg.payload[:40].hex())
            return
        self._resends.append(max(1, start))
        self._wake.set()

    # The link's thread.

    def _leaf(self, leaf: str) -> str:
        return topics.topic(self.config.topic_prefix, self.config.table, leaf)

    def _signed(self, leaf: str, payload: bytes, stamp: Stamp | None = None,
                packet: int = PacketTypes.PUBLISH) -> Properties:
        """A status message's properties: its signature over the next stamp (or `stamp`)."""
        props = Properties(packet)
        props.UserProperty = self._signer.sign_status(
            leaf, self.config.table, stamp or self._stamps.next(), payload).properties()
        return props

    def _epoch(self) -> int:
        """This start's epoch (floor/stamps.py); one that cannot be kept is said, and used."""
        try:
            return next_epoch(self.state_dir)
        except OSError as e:
            epoch = max(last_epoch(self.state_dir) + 1, time.time_ns())
            self.log.error("floor.epoch_unwritable", error=str(e), epoch=epoch)
            return epoch

    def _trusted_cursor(self) -> Cursor:
        """The stored cursor if it belongs to this ledger; else from the start."""
        try:
            cursor = read_cursor(self.state_dir)
        except ValueError as e:
            self.log.warning("floor.cursor_unreadable", error=str(e))
            return Cursor()
        if not belongs(cursor, self._outbox):
            self.log.warning("floor.cursor_foreign", cursor=cursor.idx,
                             ledger_last=self._outbox.bounds()[1])
            return Cursor()
        return cursor

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(self.poll)
            self._wake.clear()
            try:
                self._step()
                self._steps += 1
            except Exception as e:  # a ledger read failing must not end the link
                self.log.error("floor.error", error=repr(e))
                self._stopping.wait(self.retry)
        try:
            self._settle()
            self._tail = self._outbox.bounds()[1]
            self._send_head(final=True)
        except Exception as e:
            self.log.error("floor.error", error=repr(e))

    def _step(self) -> None:
        self._settle()
        while self._resends:
            start = self._resends.popleft()
            self.log.info("floor.resend", start=start, next=self._next)
            self._next = min(self._next, start)
        first, self._tail = self._outbox.bounds()
        if first > self._cursor.idx + 1:  # pruned before the floor ever saw them
            self._cursor = Cursor(first - 1, "")
        self._next = max(self._next, first or 1)
        if not self._connected:
            return
        self._send_state()
        self._send_head()
        if time.monotonic() < self._retry_at:
            return
        room = self.window - len(self._inflight)
        if room <= 0 or self._next > self._tail:
            return
        self._take_rotated_key()
        for _ in range(room):
            waiting = self._outbox.after(self._next, self.batch)
            if not waiting:
                break
            sent, body = pack(waiting, self.batch_bytes)
            props = Properties(PacketTypes.PUBLISH)
            props.UserProperty = self._signer.sign(self.config.table, sent[-1].idx,
                                                   sent[-1].hash).properties()
            crash_point("link.before_publish")
            info = self._client.publish(self._topic, body, qos=1, properties=props)
            self._inflight[info.mid] = [(r.idx, r.hash) for r in sent]
            self._next = sent[-1].idx + 1
        self._wake.set()  # look again at once: more may be waiting, or room left

    def _take_rotated_key(self) -> None:
        """A `rotate-key` since the last look: sign with the new key from now on."""
        try:
            rotated = self._signer.refresh()
        except FloorConfigError as e:
            self.log.error("floor.key_unreadable", error=str(e),
                           signing_with=self._signer.key.key_id)
            return
        if rotated:
            self.log.info("floor.key_rotated", key_id=rotated)

    def _send_state(self) -> None:
        with self._state_lock:
            state, self._state = self._state, None
        if state is not None:
            stamp = self._stamps.next()
            self._client.publish(self._leaf(topics.STATE), state, qos=0, retain=True,
                                 properties=self._signed(topics.STATE, state, stamp))
            self._last_state, self._state_stamp = state, stamp

    def _send_head(self, final: bool = False) -> None:
        """The ledger's head and the cursor, retained, when the pit cannot infer them."""
        now = time.monotonic()
        if not self._connected or not self.heads.due(self._tail, self._cursor.idx, now, final):
            return
        head = Head(self._tail, self._cursor.idx, time.time_ns(),
                    round(self.config.heartbeat * 1000), self._online_stamp, self._state_stamp)
        payload = head.payload()
        first = self.heads.first  # its PUBACK says whether the broker's ACL knows the topic
        info = self._client.publish(self._leaf(topics.HEAD), payload, qos=1 if first else 0,
                                    retain=True, properties=self._signed(topics.HEAD, payload))
        if first:
            self._head_mids.add(info.mid)
        self.heads.sent(head.head, head.acked, now)

    def _head_acked(self, mid: int, reason: int) -> None:
        if mid not in self._head_mids:
            return
        self._head_mids.discard(mid)
        if reason >= SUCCESS_MAX and not self.heads.refused:
            # A broker whose ACL predates the head topic: mosquitto drops the connection
            # for it, so the link stops reporting until it is started again; records go on.
            self.heads.refused = True
            self.log.warning("floor.head_refused", reason=hex(reason),
                             fix="regenerate the broker's ACL (shoe-floor acl), reload it, "
                                 "and restart this daemon")

    def _settle(self) -> None:
        """Take the broker's acknowledgements; move the cursor over the contiguous prefix."""
        refused: dict[int, int] = {}  # idx -> reason
        while self._acks:
            mid, reason = self._acks.popleft()
            sent = self._inflight.pop(mid, None)
            if sent is None:
                self._head_acked(mid, reason)
                continue
            if delivered(reason):
                self._done.update(sent)
            else:
                refused[sent[0][0]] = reason
        if refused:  # one log record for the lot: a window's worth may come back at once
            self.log.warning("floor.not_delivered", first=min(refused), count=len(refused),
                             reasons=sorted({hex(r) for r in refused.values()}),
                             retry_in=self.retry)
            self._next = min(self._next, *refused)
            self._retry_at = time.monotonic() + self.retry
        cursor = self._cursor
        while cursor.idx + 1 in self._done:
            cursor = Cursor(cursor.idx + 1, self._done.pop(cursor.idx + 1))
        for idx in [i for i in self._done if i <= cursor.idx]:
            del self._done[idx]
        if cursor != self._cursor:
            crash_point("link.before_cursor")
            write_cursor(self.state_dir, cursor)
            self._cursor = cursor
