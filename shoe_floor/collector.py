"""The collector: every table's records from the broker, checked link by link, into the
store, a batch per transaction, each MQTT message acknowledged only once its batch is
committed. A message carries one record or, when its table had a backlog, several
consecutive ones (shoe_daemon.floor.outbox.pack); a batch counts records, and a message
is always whole in one batch, so its acknowledgement follows the commit of all its records.

Every records message is checked whole before any of its records goes further: signed by
its table's lodged key over its last record, its records one unbroken piece of chain
(shoe_floor.signature); the store keeps the signature of each message it accepts, what
proves its records at export. A refused message stores none of its records and is alarmed; the
chain waits at a gap that the table's genuine records fill (its resend). A message signed
with a key that is not lodged yet is watched for: once the key is lodged, the table is asked
to resend, so records that came before their key are not lost.

Nothing is lost when the collector dies at any instant: a message not yet acknowledged is
delivered again by the broker (this collector's persistent session, or another member of
the shared subscription), and the store's writes are idempotent on (table, idx). Several
collectors may run with the same `group`: the broker shares the records among them
(`$share/<group>/...`), and each batch locks the tables it touches (PostgreSQL: FOR UPDATE).
A table's records are then split between the members' queues, which the broker fills when
the records are published and each member works through at its own pace: a gap one member
sees may be records another still holds, or records still in its own queue. A gap is raised
only once every live member of the group, itself included, is clear past it
(shoe_floor.group; each writes its clear time to the store).

The tables' status messages (`state`, `online`, `head`) are checked as the page checks them
(shoe_floor.status): only a table's own and newest is stored, and one refused is an alarm
(once a minute per table, topic and kind, across the group). Each signed head, the retained one at
every (re)connect and then each heartbeat, is compared with the store's tip: records the
broker acknowledged and the store lacks are asked for at once, and alarmed if they do not
come (shoe_floor.shortfall). A `console.lockout` record stored is an alarm of its own.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
import structlog

from shoe_daemon.audit.ledger import Record
from shoe_daemon.console.throttle import lockout_words
from shoe_daemon.floor import topics
from shoe_daemon.floor.crashpoint import crash_point
from shoe_daemon.floor.mqtt import connect, make_client, user_properties
from shoe_daemon.floor.outbox import message
from shoe_daemon.floor.signing import Signature
from shoe_floor import chain, query
from shoe_floor.config import CollectorConfig, require_keys_dir
from shoe_floor.group import Clearance, behind
from shoe_floor.shortfall import ALARM, ASK, CLOSED, REPAIRED, Shortfall, noted
from shoe_floor.signature import Refusal, check_message
from shoe_floor.status import Accepted, Outdated, Refused, StatusCheck, Verdict
from shoe_floor.store import Store
from shoe_floor.table_keys import LodgedKeys, old_directories

KEY_RECHECK = 1.0  # s between two readings of a table's lodged keys, at most
KEY_ALARM_EVERY = 60.0  # s between two `unknown-key` alarms for one table and key
# Messages the broker may have given this collector and not had acknowledged (MQTT 5 receive
# maximum): a few batches of a backlog's 200-record messages, and more than a batch cycle's
# worth of records trickling in one message a commit. It is also what the barriers count
# against (shoe_floor.group). mosquitto 2.0.11 lets more out during a drain (each
# acknowledgement of the oldest releases up to a window more), which the barriers allow for.
RECEIVE_MAXIMUM = 64
HEARTBEAT = 0.5  # s between two writes of this collector's clear time when idle
BARRIER_EVERY = 0.05  # s between two barriers (shoe_floor.group), at least
BARRIER_LOST = 30.0  # s after which a barrier not answered is given up
STALE = 10.0  # s after which a member's clear time is not waited for (it is gone)
SKEW = 0.25  # s of clock difference between the group's machines
SAME_GAP = 60.0  # s in which a gap another member alarmed is not alarmed again
SHORT_LOOK_EVERY = 0.25  # s between two looks at the store for the tables short by their head
STATUS_ALARM_EVERY = 60.0  # s between two alarms of one kind about one of a table's topics
PAYLOAD_KEPT = 16 * 1024  # characters of a refused status message an alarm keeps
LOCKOUT_RECORD = "console.lockout"  # a table's record: a person's sign-in locked or slowed


@dataclass
class Gap:
    missing: int
    seen: float
    unanchored: bool = False  # the table's chain start has not been seen
    asked: float = 0.0
    alarmed: bool = False
    seen_ns: int = 0  # wall clock, for the group's clear times
    waited: bool = False  # said once that it waits for another member


class Collector:
    """CollectorConfigError if `table_keys` is not a directory."""

    def __init__(self, config: CollectorConfig):
        self.config = config
        self.prefix = config.broker.topic_prefix
        self.log = structlog.get_logger("shoe_floor").bind(collector=config.client_id)
        require_keys_dir(config.table_keys, "collector")
        self.keys = LodgedKeys(config.table_keys, KEY_RECHECK,
                               warn=lambda why: self.log.warning("collector.bad_key_file",
                                                                 why=why))
        for old in old_directories(config.table_keys):
            self.log.error("collector.old_key_directory", directory=str(old),
                           fix=self.keys.move_words(old.name))
        self.store: Store | None = Store(config.database)
        self.gaps: dict[str, Gap] = {}
        self.status = StatusCheck(self.keys)
        self.shorts: dict[str, Shortfall] = {}  # tables short by their head (shortfall.py)
        self._status_alarmed: dict[tuple[str, str, str], float] = {}  # (table, leaf, kind)
        # Tables whose messages named a key not lodged: the key ids, and when one was last
        # alarmed. Once one of them is lodged the table is asked to resend.
        self.unlodged: dict[str, dict[str, float]] = {}
        self.refused = 0  # records messages refused whole by this process
        self.received = 0  # records taken from the broker by this process
        self.messages = 0  # the MQTT messages that carried them
        self.stored = 0  # records verified and stored by this process
        self._inbox: queue.Queue[tuple[int, mqtt.MQTTMessage]] = queue.Queue()
        self._arrived = 0  # sequence number of the last message received (network thread)
        self._written = 0  # ... of the last one written and acknowledged (writer's thread)
        self.clearance = Clearance(RECEIVE_MAXIMUM)
        self._answers: queue.SimpleQueue[tuple[int, int]] = queue.SimpleQueue()
        self._connections = 0  # connections made (network thread)
        self._barrier_at = 0.0
        self._barrier = topics.topic(self.prefix, "+", topics.RESEND)  # never subscribed
        self._beat_at = 0.0
        self._shorts_at = 0.0
        self._members_at = float("-inf")
        self._members: list[Any] = []
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.connected = threading.Event()
        self.client = make_client(config.broker, config.client_id, manual_ack=True,
                                  inflight=config.batch_size)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_unsubscribe = self._on_unsubscribe

    def start(self) -> None:
        now = time.monotonic()
        for table, missing in self._open_store().gaps().items():
            self.gaps[table] = Gap(missing, now, missing == 1, seen_ns=time.time_ns())
        self._thread = threading.Thread(target=self._run, name="floor-collector", daemon=True)
        self._thread.start()
        connect(self.client, self.config.broker, receive_maximum=RECEIVE_MAXIMUM)
        self.log.info("collector.start", broker=self.config.broker.url, group=self.config.group)

    def stop(self, timeout: float = 10.0) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.client.disconnect()
        self.client.loop_stop()
        self._drop_store()

    def request_stop(self) -> None:
        """Safe from a signal handler: `wait()` returns and the caller calls `stop()`."""
        self._stopping.set()

    def wait(self) -> None:
        """Run until stopped (the command's foreground)."""
        while not self._stopping.wait(1.0):
            pass

    # paho's network thread.

    def _on_connect(self, client: mqtt.Client, _u: Any, flags: Any, reason: Any,
                    _p: Any) -> None:
        if reason.is_failure:
            self.log.warning("collector.refused", reason=str(reason))
            return
        # Every time, session present or not: mosquitto 2.0 keeps a persistent session
        # across its restart but not its shared subscription. The retained heads come with
        # the subscription, and are compared with the store (shoe_floor.shortfall).
        # The status messages at QoS 0, as the tables send them (shoe_daemon.floor.link), the
        # heads first (shoe_floor.status: what the broker kept is judged against them).
        shared = f"$share/{self.config.group}/{topics.topic(self.prefix, '+', topics.RECORDS)}"
        client.subscribe([(topics.topic(self.prefix, "+", topics.HEAD), 0), (shared, 1),
                          *((topics.topic(self.prefix, "+", leaf), 0)
                            for leaf in topics.COLLECTOR_READS
                            if leaf not in (topics.RECORDS, topics.HEAD))])
        self._connections += 1
        self.connected.set()
        self.log.info("collector.connected", session_present=bool(flags.session_present))

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        self.connected.clear()
        self.log.warning("collector.disconnected", reason=str(reason))

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        self._arrived += 1
        self._inbox.put((self._arrived, msg))

    def _on_unsubscribe(self, _c: mqtt.Client, _u: Any, mid: int, _r: Any, _p: Any) -> None:
        """A barrier's answer: every message the broker sent before it has arrived."""
        self._answers.put((mid, self._arrived))

    # The writer's thread.

    def _run(self) -> None:
        connections = 0
        while not self._stopping.is_set():
            if self._connections != connections:
                connections = self._connections
                self.clearance.reconnected()
            batch = self._take()
            if batch and not self._written_through(batch):
                return  # stopping with the store down: nothing acknowledged, nothing lost
            if any(parsed for _, _, parsed in batch):
                crash_point("collector.before_ack")
            for _, msg, _ in batch:
                if msg.qos > 0:
                    self.client.ack(msg.mid, msg.qos)
            if batch:
                self._written = batch[-1][0]
                self.clearance.written(self._written)
            self._barriers()
            try:
                if not batch:
                    self._idle()
                self._ask_resends()
                self._mend_shorts()
                self._after_lodging()
            except Exception as e:
                self.log.error("collector.resend_failed", error=repr(e))
                self._drop_store()

    def _written_through(self, batch: list[tuple[int, mqtt.MQTTMessage, list[Record | str]]]
                         ) -> bool:
        """Write the batch, again and again while the store is down (nothing acknowledged
        meanwhile, so the messages stay in order); False if told to stop first."""
        while True:
            try:
                self._write(batch)
                return True
            except Exception as e:  # the store is down: nothing acknowledged, try again
                self.log.error("collector.store_failed", error=repr(e), held=len(batch))
                self._drop_store()
                if self._stopping.wait(1.0):
                    return False

    def _barriers(self) -> None:
        """Take the barriers' answers, and send the next one (shoe_floor.group)."""
        while True:
            try:
                mid, arrived = self._answers.get_nowait()
            except queue.Empty:
                break
            self.clearance.answered(mid, arrived, self._written)
        now = time.monotonic()
        if self.clearance.waiting and now - self._barrier_at > BARRIER_LOST:
            self.clearance.reconnected()  # never answered: promise nothing, send another
        if self.clearance.waiting or not self.connected.is_set() or \
                now - self._barrier_at < BARRIER_EVERY:
            return
        self._barrier_at = now
        sent_ns = time.time_ns()
        rc, mid = self.client.unsubscribe(self._barrier)
        if rc == mqtt.MQTT_ERR_SUCCESS and mid is not None:
            self.clearance.sent(mid, sent_ns, self._written)

    def _idle(self) -> None:
        """Nothing to write: say this collector's clear time, every HEARTBEAT seconds."""
        if time.monotonic() - self._beat_at < HEARTBEAT:
            return
        store = self._open_store()
        with store.batch():
            self._beat(store)

    def _beat(self, store: Store) -> None:
        self._beat_at = time.monotonic()
        store.set_member(self.config.client_id, self.config.group, time.time_ns(),
                         self.clearance.clear_ns)

    def _take(self) -> list[tuple[int, mqtt.MQTTMessage, list[Record | str]]]:
        """Whole messages, each with the records it carries, up to `batch_size` records. It
        waits `batch_wait` for more only while the broker may send more (the window is not
        full of messages this collector holds)."""
        try:
            batch = [self._parsed(self._inbox.get(timeout=0.2))]
        except queue.Empty:
            return []
        count = max(1, len(batch[0][2]))
        deadline = time.monotonic() + self.config.batch_wait
        while count < self.config.batch_size:
            left = deadline - time.monotonic()
            try:
                batch.append(self._parsed(
                    self._inbox.get(timeout=left) if left > 0 and len(batch) < RECEIVE_MAXIMUM
                    else self._inbox.get_nowait()))
            except queue.Empty:
                break
            count += max(1, len(batch[-1][2]))
        return batch

    @staticmethod
    def _parsed(item: tuple[int, mqtt.MQTTMessage]
                ) -> tuple[int, mqtt.MQTTMessage, list[Record | str]]:
        seq, msg = item
        if msg.topic.rsplit("/", 1)[-1] != topics.RECORDS:
            return seq, msg, []
        return seq, msg, chain.parse_message(msg.payload)

    def _write(self, batch: list[tuple[int, mqtt.MQTTMessage, list[Record | str]]]) -> None:
        """One transaction; the tables it touches are locked in name order, so collectors
        sharing a PostgreSQL database never wait on each other in a circle."""
        now = time.time_ns()
        # Each record with the text an alarm keeps: the message itself when it carries one
        # record, else (None) the record's own JSON, so the alarm names that record alone.
        records: dict[str, list[tuple[Record, bytes | None]]] = defaultdict(list)
        refused: list[tuple[str, Refusal, bytes]] = []
        signed: list[tuple[str, Signature]] = []  # each accepted message's, for the store
        statuses: list[tuple[str, str, bytes, Verdict]] = []  # in the order they came
        for _, msg, parsed in batch:
            table = topics.table_of(self.prefix, msg.topic)
            leaf = msg.topic.rsplit("/", 1)[-1]
            if table is None:
                continue
            if leaf == topics.RECORDS:
                self.received += len(parsed)
                self.messages += 1
                whole = bytes(msg.payload)
                checked = check_message(table, parsed, user_properties(msg), self.keys)
                if isinstance(checked, Refusal):
                    refused.append((table, checked, whole))
                    continue
                signed.append((table, checked))
                records[table] += [(r, whole if len(parsed) == 1 else None)
                                   for r in parsed if not isinstance(r, str)]
            elif leaf in topics.COLLECTOR_READS:
                payload = bytes(msg.payload)
                statuses.append((table, leaf, payload, self.status.check(
                    table, leaf, payload, user_properties(msg), msg.retain)))
        store = self._open_store()
        with store.batch():
            names = sorted(set(records) | {t for t, *_ in statuses})
            tips = store.lock_tips(names)
            heads = self._statuses(store, statuses, now)
            for table, why, whole in refused:
                self._refuse(store, table, why, whole, now)
            store.add_signatures(signed, now)
            self._beat(store)
            fresh: dict[str, list[Record]] = {}
            for table in sorted(set(records)):
                new = self._sort_out(store, table, tips[table], records.get(table, []), now)
                if new:
                    fresh[table] = new
            tips.update(self._verify(store, tips, fresh, now))
            for table, acked in heads.items():
                tip = tips[table]
                self.shorts[table] = noted(self.shorts.get(table), acked,
                                           tip.idx if tip else 0, time.monotonic(),
                                           time.time_ns())
                if self.shorts[table] is None:
                    del self.shorts[table]
            if records:
                crash_point("collector.before_commit")

    def _statuses(self, store: Store, statuses: list[tuple[str, str, bytes, Verdict]],
                  now: int) -> dict[str, int]:
        """The batch's status messages, checked: the newest state and online word of each
        table stored, each refusal alarmed (once a minute per table, topic and kind, across
        the group); each table's last signed head's `acked`, to compare with the store."""
        heads: dict[str, int] = {}
        latest: dict[tuple[str, str], bytes] = {}  # (table, state|online): its newest word
        for table, leaf, payload, verdict in statuses:
            if isinstance(verdict, Refused):
                self._status_alarm(store, table, leaf, verdict, payload, now)
            elif isinstance(verdict, Outdated):
                continue  # the broker's older copy (restarted from an older save)
            elif verdict.head is not None:
                heads[table] = verdict.head.acked  # the retained one again counts too
            elif isinstance(verdict, Accepted):
                latest[(table, leaf)] = payload  # checked in order: the last is the newest
        for (table, leaf), payload in latest.items():  # one write a table and word a batch
            if leaf == topics.STATE:
                store.set_state(table, payload, now)
            else:
                store.set_online(table, payload.decode(), now)
        return heads

    def _status_alarm(self, store: Store, table: str, leaf: str, refused: Refused,
                      payload: bytes, now: int) -> None:
        if refused.kind == chain.UNKNOWN_KEY:  # as for records: once a minute per key
            if self._key_alarm_due(table, refused.key_id):
                self._alarm(store, table, None, refused.kind, refused.detail,
                            payload.decode(errors="replace")[:PAYLOAD_KEPT], now)
            return
        key, at = (table, leaf, refused.kind), time.monotonic()
        if at - self._status_alarmed.get(key, -STATUS_ALARM_EVERY) < STATUS_ALARM_EVERY:
            return
        self._status_alarmed[key] = at
        if query.alarmed_lately(store, table, refused.kind, f"{leaf} message",
                                now - int(STATUS_ALARM_EVERY * 1e9)):
            return  # another member of the group said it
        self._alarm(store, table, None, refused.kind, refused.detail,
                    payload.decode(errors="replace")[:PAYLOAD_KEPT], now)

    def _refuse(self, store: Store, table: str, why: Refusal, whole: bytes, now: int) -> None:
        """A message refused whole: alarmed (a key not lodged: once a minute per table and
        key, and watched for its lodging), none of its records kept."""
        self.refused += 1
        if why.kind == chain.UNKNOWN_KEY and not self._key_alarm_due(table, why.key_id):
            return
        # The record at fault alone when it is one of several (as the chain's alarms keep).
        text = message(why.record) if why.record is not None and whole[:1] == b"[" else whole
        self._alarm(store, table, why.idx, why.kind, why.detail, text, now)

    def _key_alarm_due(self, table: str, key_id: str | None) -> bool:
        """Whether a message signed with a key not lodged for the table is alarmed: once a
        minute per table and key, whatever the message; the key is then watched for."""
        if key_id is None:
            return True
        alarmed = self.unlodged.setdefault(table, {})
        last = alarmed.get(key_id)
        if last is not None and time.monotonic() - last < KEY_ALARM_EVERY:
            return False
        alarmed[key_id] = time.monotonic()
        return True

    def _open_store(self) -> Store:
        """The store, opened again after a failure (a PostgreSQL restart ends the old
        connection for good)."""
        if self.store is None:
            self.store = Store(self.config.database)
        return self.store

    def _sort_out(self, store: Store, table: str, tip: chain.Tip | None,
                  arrived: list[tuple[Record, bytes | None]], now: int) -> list[Record]:
        """The arrived records (each already checked whole with its message) beyond the
        table's tip; a different copy of a stored one is an alarm; a duplicate is dropped."""
        top = tip.idx if tip else 0
        low = min((r.idx for r, _ in arrived), default=top + 1)
        stored = store.hashes(table, low, top) if low <= top else {}
        fresh: list[Record] = []
        for record, whole in arrived:
            if record.idx <= top:
                if stored.get(record.idx, record.hash) != record.hash:
                    self._alarm(store, table, record.idx, chain.CONFLICT, (
                        f"record {record.idx}: {record.hash[:16]} differs from the verified "
                        f"record {stored[record.idx][:16]} (edited or forged copy)"),
                        whole or message(record), now)
            else:
                fresh.append(record)
        return fresh

    def _verify(self, store: Store, tips: dict[str, chain.Tip | None],
                fresh: dict[str, list[Record]], now: int) -> dict[str, chain.Tip]:
        """Each table's chain forward through its fresh and pending records; the verified
        records of every table written at once, each `console.lockout` among them alarmed.
        The tips that moved."""
        waiting = store.pending(sorted(fresh))
        accepted: list[tuple[str, Record]] = []
        moved: dict[str, chain.Tip] = {}
        for table, new in fresh.items():
            held = waiting.get(table, [])
            result = chain.advance(tips[table], [*held, *new])
            if result.accepted:
                assert result.tip is not None
                accepted += [(table, r) for r in result.accepted]
                moved[table] = result.tip
            for bad in result.rejected:
                self._alarm(store, table, bad.record.idx, bad.kind, bad.why,
                            message(bad.record), now)
            keep = {(r.idx, r.hash) for r in held}
            store.add_pending(table, [r for r in result.waiting
                                      if (r.idx, r.hash) not in keep], now)
            if result.tip is not None and held and (result.accepted or result.rejected):
                store.drop_pending(table, result.tip.idx, [b.record for b in result.rejected])
            self._note_gap(table, result.missing, result.tip is None)
        store.add_records(accepted, now)
        store.set_tips(moved)
        self.stored += len(accepted)
        for table, record in accepted:
            if record.kind == LOCKOUT_RECORD:
                self._alarm(store, table, record.idx, chain.LOCKOUT, _lockout_words(record),
                            message(record), now)
        return moved

    def _alarm(self, store: Store, table: str, idx: int | None, kind: str, detail: str,
               payload: bytes | str, now: int) -> None:
        text = payload.decode(errors="replace") if isinstance(payload, bytes) else payload
        store.alarm(table, idx, kind, detail, text, now)
        self.log.warning("collector.alarm", table=table, idx=idx, kind=kind, detail=detail)

    def _note_gap(self, table: str, missing: int | None, unanchored: bool) -> None:
        if missing is None:
            self.gaps.pop(table, None)
            return
        gap = self.gaps.get(table)
        if gap is None or gap.missing != missing:
            self.gaps[table] = Gap(missing, time.monotonic(), unanchored, seen_ns=time.time_ns())

    def _after_lodging(self) -> None:
        """A table whose messages named a key not lodged: once one of those keys is lodged
        (looked for every KEY_RECHECK seconds), ask it to resend from the chain's tip, so
        that the records refused before their key was lodged come again, even from a table
        that has nothing new to send."""
        if not self.unlodged or not self.connected.is_set():
            return
        for table, named in list(self.unlodged.items()):
            lodged = [kid for kid in named if self.keys.key(table, kid) is not None]
            if not lodged:
                continue
            del self.unlodged[table]
            tip = self._open_store().tip(table)
            start = tip.idx + 1 if tip is not None else 1
            self.client.publish(topics.topic(self.prefix, table, topics.RESEND),
                                str(start).encode(), qos=1)
            self.log.info("collector.key_lodged", table=table, key_ids=lodged, resend=start)

    def _members_behind(self, seen_ns: int) -> list[str]:
        """The live members of the group, this collector included, that may still hold a
        gap's records: not yet clear past the moment it was seen. (The records that show a
        gap may be another member's, left in `pending`: the missing ones can then be in this
        collector's own queue.) The others are read from the store at most every 0.2 s."""
        late = [] if self.clearance.clear_ns >= seen_ns else [self.config.client_id]
        now = time.monotonic()
        if now - self._members_at >= 0.2:
            self._members = self._open_store().members(self.config.group,
                                                       self.config.client_id)
            self._members_at = now
        others = behind(self._members, seen_ns, time.time_ns(), int(STALE * 1e9),
                        int(SKEW * 1e9))
        return late + [m.client_id for m in others]

    def _drop_store(self) -> None:
        if self.store is not None:
            with contextlib.suppress(Exception):
                self.store.close()
        self.store = None

    def _ask_resends(self) -> None:
        """A gap that outlived the grace: alarm once, ask the table to resend, ask again
        every `resend_every` while it stays. A gap another collector of the group has
        filled meanwhile (the records it was missing were that collector's share) is
        forgotten: the store, not this collector's last batch, says what is missing."""
        now = time.monotonic()
        for table, gap in list(self.gaps.items()):
            if now - gap.seen < self.config.gap_grace or now - gap.asked < self.config.resend_every:
                continue
            if not self.connected.is_set():
                return
            waiting_for = self._members_behind(gap.seen_ns)  # in memory: before the store
            if waiting_for:
                if not gap.waited:
                    gap.waited = True
                    self.log.info("collector.gap_waits_for_group", table=table,
                                  missing=gap.missing, members=waiting_for)
                continue
            tip = self._open_store().tip(table)
            if tip is not None and tip.idx >= gap.missing:
                del self.gaps[table]
                continue
            gap.asked = now
            self.client.publish(topics.topic(self.prefix, table, topics.RESEND),
                                str(gap.missing).encode(), qos=1)
            self.log.info("collector.resend", table=table, start=gap.missing,
                          seen_ns=gap.seen_ns, group=[(m.client_id, m.at, m.clear)
                                                      for m in self._members])
            if not gap.alarmed:
                gap.alarmed = True
                kind, what = ((chain.UNANCHORED, "the chain's start has not arrived")
                              if gap.unanchored else (chain.GAP, "records are missing"))
                store = self._open_store()
                with store.batch():
                    store.lock_tips([table])  # one member at a time decides for the table
                    now_ns = time.time_ns()
                    if not store.alarmed_since(table, gap.missing, kind,
                                               now_ns - int(SAME_GAP * 1e9)):
                        self._alarm(store, table, gap.missing, kind,
                                    f"record {gap.missing}: {what}; resend asked", "", now_ns)

    def _mend_shorts(self) -> None:
        """Each table short by its head: asked for what it lacks once the group is clear past
        the head, again every `resend_every`; alarmed after `short_grace`; said when whole
        (shoe_floor.shortfall). A table with a gap open is the gap's to ask."""
        now = time.monotonic()
        if not self.shorts or now - self._shorts_at < SHORT_LOOK_EVERY:
            return  # a drain makes every table short by its head: one look a moment, not a batch
        self._shorts_at = now
        tips = self._open_store().tips(list(self.shorts))
        for table, short in list(self.shorts.items()):
            tip = tips.get(table)
            have = tip.idx if tip is not None else 0
            clear = (self.connected.is_set() and table not in self.gaps
                     and not self._members_behind(short.seen_ns))
            step = short.due(have, now, clear, self.config.short_grace,
                             self.config.resend_every)
            if step in (CLOSED, REPAIRED):
                del self.shorts[table]
            if step == REPAIRED:
                took = round(now - (short.asked_at or now), 1)
                self.log.info("collector.short_repaired", table=table, start=short.start,
                              through=short.through, seconds=took)
                if short.alarmed:
                    self._short_alarm(table, short, chain.REPAIRED, (
                        f"records {short.start}..{short.through}: in the store, {took} s after "
                        "the table was asked to resend them"))
            elif step == ASK and self.connected.is_set():
                short.asked(now)
                self.client.publish(topics.topic(self.prefix, table, topics.RESEND),
                                    str(have + 1).encode(), qos=1)
                self.log.info("collector.short", table=table, start=have + 1,
                              through=short.through)
            elif step == ALARM:
                short.alarmed = True
                self._short_alarm(table, short, chain.SHORT, (
                    f"records {have + 1}..{short.through}: the table's signed head says the "
                    f"broker acknowledged them, and they have not reached the store "
                    f"{self.config.short_grace:g} s after the table was asked to resend them "
                    "(the table's link is down, or another subscriber took them)"))

    def _short_alarm(self, table: str, short: Shortfall, kind: str, detail: str) -> None:
        """One alarm for the group (the members each see the same head)."""
        store = self._open_store()
        with store.batch():
            store.lock_tips([table])
            now_ns = time.time_ns()
            if not store.alarmed_since(table, short.start, kind,
                                       now_ns - int(SAME_GAP * 1e9)):
                self._alarm(store, table, short.start, kind, detail, "", now_ns)


def _lockout_words(record: Record) -> str:
    """A `console.lockout` record as the pit's alarm says it: its index, then the table's own
    words for it (its status says the same; the record never holds a PIN or a badge)."""
    try:
        return f"record {record.idx}: {lockout_words(record.body)}"
    except (KeyError, TypeError, ValueError, OverflowError) as e:  # not the console's shape
        return f"record {record.idx}: a sign-in lockout the pit cannot read ({e!r})"
