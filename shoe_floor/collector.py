"""The collector: every table's records from the broker, checked link by link, into the
store, a batch per transaction, each MQTT message acknowledged only once its batch is
committed. A message carries one record or, when its table had a backlog, several
consecutive ones (shoe_daemon.floor.outbox.pack); a batch counts records, and a message
is always whole in one batch, so its acknowledgement follows the commit of all its records.

Nothing is lost when the collector dies at any instant: a message not yet acknowledged is
delivered again by the broker (this collector's persistent session, or another member of
the shared subscription), and the store's writes are idempotent on (table, idx). Several
collectors may run with the same `group`: the broker shares the records among them
(`$share/<group>/...`), and each batch locks the tables it touches (PostgreSQL: FOR UPDATE).
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
from shoe_daemon.floor import topics
from shoe_daemon.floor.crashpoint import crash_point
from shoe_daemon.floor.mqtt import connect, make_client
from shoe_daemon.floor.outbox import message
from shoe_floor import chain
from shoe_floor.config import CollectorConfig
from shoe_floor.store import Store


@dataclass
class Gap:
    missing: int
    seen: float
    unanchored: bool = False  # the table's chain start has not been seen
    asked: float = 0.0
    alarmed: bool = False


class Collector:
    def __init__(self, config: CollectorConfig):
        self.config = config
        self.prefix = config.broker.topic_prefix
        self.log = structlog.get_logger("shoe_floor").bind(collector=config.client_id)
        self.store: Store | None = Store(config.database)
        self.gaps: dict[str, Gap] = {}
        self.received = 0  # records taken from the broker by this process
        self.messages = 0  # the MQTT messages that carried them
        self.stored = 0  # records verified and stored by this process
        self._inbox: queue.Queue[mqtt.MQTTMessage] = queue.Queue()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.connected = threading.Event()
        self.client = make_client(config.broker, config.client_id, manual_ack=True,
                                  inflight=config.batch_size)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    def start(self) -> None:
        now = time.monotonic()
        for table, missing in self._open_store().gaps().items():
            self.gaps[table] = Gap(missing, now, missing == 1)
        self._thread = threading.Thread(target=self._run, name="floor-collector", daemon=True)
        self._thread.start()
        # Two batches in flight: the broker sends the next while this one is written; all
        # of one batch may wait unacknowledged, so fewer would stall the pipe at each commit.
        connect(self.client, self.config.broker,
                receive_maximum=min(2 * self.config.batch_size, 65535))
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
        shared = f"$share/{self.config.group}/{topics.topic(self.prefix, '+', topics.RECORDS)}"
        client.subscribe([(shared, 1),
                          (topics.topic(self.prefix, "+", topics.STATE), 1),
                          (topics.topic(self.prefix, "+", topics.ONLINE), 1)])
        self.connected.set()
        self.log.info("collector.connected", session_present=bool(flags.session_present))

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        self.connected.clear()
        self.log.warning("collector.disconnected", reason=str(reason))

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        self._inbox.put(msg)

    # The writer's thread.

    def _run(self) -> None:
        while not self._stopping.is_set():
            batch = self._take()
            try:
                if batch:
                    self._write(batch)
            except Exception as e:  # the store is down: nothing acknowledged, try again
                self.log.error("collector.store_failed", error=repr(e), held=len(batch))
                self._drop_store()
                for msg, _ in batch:
                    self._inbox.put(msg)
                self._stopping.wait(1.0)
                continue
            if any(parsed for _, parsed in batch):
                crash_point("collector.before_ack")
            for msg, _ in batch:
                if msg.qos > 0:
                    self.client.ack(msg.mid, msg.qos)
            try:
                self._ask_resends()
            except Exception as e:
                self.log.error("collector.resend_failed", error=repr(e))
                self._drop_store()

    def _take(self) -> list[tuple[mqtt.MQTTMessage, list[Record | str]]]:
        """Whole messages, each with the records it carries, up to `batch_size` records."""
        try:
            batch = [self._parsed(self._inbox.get(timeout=0.2))]
        except queue.Empty:
            return []
        count = max(1, len(batch[0][1]))
        deadline = time.monotonic() + self.config.batch_wait
        while count < self.config.batch_size:
            left = deadline - time.monotonic()
            try:
                batch.append(self._parsed(self._inbox.get(timeout=left) if left > 0
                                          else self._inbox.get_nowait()))
            except queue.Empty:
                break
            count += max(1, len(batch[-1][1]))
        return batch

    @staticmethod
    def _parsed(msg: mqtt.MQTTMessage) -> tuple[mqtt.MQTTMessage, list[Record | str]]:
        if msg.topic.rsplit("/", 1)[-1] != topics.RECORDS:
            return msg, []
        return msg, chain.parse_message(msg.payload)

    def _write(self, batch: list[tuple[mqtt.MQTTMessage, list[Record | str]]]) -> None:
        """One transaction; the tables it touches are locked in name order, so collectors
        sharing a PostgreSQL database never wait on each other in a circle."""
        now = time.time_ns()
        # Each record with the text an alarm keeps: the message itself when it carries one
        # record, else (None) the record's own JSON, so the alarm names that record alone.
        records: dict[str, list[tuple[Record | str, bytes | None]]] = defaultdict(list)
        latest: dict[tuple[str, str], bytes] = {}  # (table, state|online): the last word
        for msg, parsed in batch:
            table = topics.table_of(self.prefix, msg.topic)
            leaf = msg.topic.rsplit("/", 1)[-1]
            if table is None:
                continue
            if leaf == topics.RECORDS:
                self.received += len(parsed)
                self.messages += 1
                whole = bytes(msg.payload)
                records[table] += [(r, whole if len(parsed) == 1 or isinstance(r, str) else None)
                                   for r in parsed]
            elif leaf in (topics.STATE, topics.ONLINE):
                latest[table, leaf] = bytes(msg.payload)
        store = self._open_store()
        with store.batch():
            names = sorted(set(records) | {t for t, _ in latest})
            tips = store.lock_tips(names)
            for (table, leaf), payload in latest.items():
                if leaf == topics.STATE:
                    store.set_state(table, payload, now)
                else:
                    store.set_online(table, payload.decode(errors="replace"), now)
            fresh: dict[str, list[Record]] = {}
            for table in names:
                good: list[tuple[Record, bytes | None]] = []
                for parsed, payload in records.get(table, []):
                    if isinstance(parsed, str):
                        assert payload is not None
                        self._alarm(store, table, None, chain.MALFORMED, parsed, payload, now)
                    else:
                        good.append((parsed, payload))
                new = self._sort_out(store, table, tips[table], good, now)
                if new:
                    fresh[table] = new
            self._verify(store, tips, fresh, now)
            if records:
                crash_point("collector.before_commit")

    def _open_store(self) -> Store:
        """The store, opened again after a failure (a PostgreSQL restart ends the old
        connection for good)."""
        if self.store is None:
            self.store = Store(self.config.database)
        return self.store

    def _sort_out(self, store: Store, table: str, tip: chain.Tip | None,
                  arrived: list[tuple[Record, bytes | None]], now: int) -> list[Record]:
        """The arrived records beyond the table's tip that are what they say they are; an
        edited one, or a different copy of a stored one, is an alarm; a duplicate is dropped."""
        top = tip.idx if tip else 0
        low = min((r.idx for r, _ in arrived), default=top + 1)
        stored = store.hashes(table, low, top) if low <= top else {}
        fresh: list[Record] = []
        for record, whole in arrived:
            why = chain.self_check(record)
            if why:
                self._alarm(store, table, record.idx, chain.EDITED, why,
                            whole or message(record), now)
            elif record.idx <= top:
                if stored.get(record.idx, record.hash) != record.hash:
                    self._alarm(store, table, record.idx, chain.CONFLICT, (
                        f"record {record.idx}: {record.hash[:16]} differs from the verified "
                        f"record {stored[record.idx][:16]} (edited or forged copy)"),
                        whole or message(record), now)
            else:
                fresh.append(record)
        return fresh

    def _verify(self, store: Store, tips: dict[str, chain.Tip | None],
                fresh: dict[str, list[Record]], now: int) -> None:
        """Each table's chain forward through its fresh and pending records; the verified
        records of every table written at once."""
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
            self.gaps[table] = Gap(missing, time.monotonic(), unanchored)

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
            tip = self._open_store().tip(table)
            if tip is not None and tip.idx >= gap.missing:
                del self.gaps[table]
                continue
            gap.asked = now
            self.client.publish(topics.topic(self.prefix, table, topics.RESEND),
                                str(gap.missing).encode(), qos=1)
            self.log.info("collector.resend", table=table, start=gap.missing)
            if not gap.alarmed:
                gap.alarmed = True
                kind, what = ((chain.UNANCHORED, "the chain's start has not arrived")
                              if gap.unanchored else (chain.GAP, "records are missing"))
                store = self._open_store()
                with store.batch():
                    self._alarm(store, table, gap.missing, kind,
                                f"record {gap.missing}: {what}; resend asked", "",
                                time.time_ns())
