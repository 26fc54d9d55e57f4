"""What the page learns, from two places, each in its own thread:

- the broker: every table's retained `state`, `online` and `head`, subscribed with the
  page's own login (the ACL lets it read those and nothing else), clean session, QoS 0 (the
  retained message is the latest on every connect, so nothing needs keeping while the page
  is away). The page never subscribes to the `records` topics: the ACL denies it every
  record, and a subscriber there would still make the broker accept a table's records when
  no collector has ever subscribed, and drop them (docs/floor.md);
- the collector's store, read every `poll` seconds on a connection of its own (query.py).

Each piece of news is handed to `post`, which runs it on the server's loop; neither thread
ever touches the board itself.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
import structlog

from shoe_daemon.floor import topics
from shoe_daemon.floor.mqtt import make_client
from shoe_floor import query
from shoe_floor.pit.board import Board, StoreNews
from shoe_floor.pit.config import PitConfig
from shoe_floor.store import Store

ALARM_WINDOW_NS = 24 * 3600 * 1_000_000_000  # a tile counts the floor alarms of a day

Post = Callable[[Callable[[Board, int], list[str]]], None]


class Feed:
    def __init__(self, config: PitConfig, post: Post, log: Any = None):
        self.config = config
        self.post = post
        self.log = log or structlog.get_logger("shoe_floor")
        self.prefix = config.broker.topic_prefix
        self.wanted: dict[str, tuple[Any, ...]] = {}  # holds not yet dated: set by the loop
        self._stopping = threading.Event()
        self._poller: threading.Thread | None = None
        self._store: Store | None = None
        self.client = make_client(config.broker, config.client_id)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    def start(self) -> None:
        broker = self.config.broker
        self.client.connect_async(broker.host, broker.port, keepalive=broker.keepalive,
                                  clean_start=True)
        self.client.loop_start()
        self._poller = threading.Thread(target=self._poll, name="pit-store", daemon=True)
        self._poller.start()

    def stop(self) -> None:
        self._stopping.set()
        self.client.disconnect()
        self.client.loop_stop()
        if self._poller is not None:
            self._poller.join(10)
        if self._store is not None:
            with contextlib.suppress(Exception):
                self._store.close()

    # paho's network thread.

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            self.log.warning("pit.broker_refused", reason=str(reason))
            return
        client.subscribe([(topics.topic(self.prefix, "+", leaf), 0) for leaf in topics.PUBLIC])
        self.log.info("pit.broker_connected")
        self.post(lambda board, _now: board.connection(True))

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        self.log.warning("pit.broker_disconnected", reason=str(reason))
        self.post(lambda board, _now: board.connection(False))

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        table = topics.table_of(self.prefix, msg.topic)
        if table is None:
            return
        payload, live, arrived = bytes(msg.payload), not msg.retain, time.time_ns()
        if msg.topic.endswith("/" + topics.STATE):
            self.post(lambda board, _now: board.state(table, payload, live, arrived))
        elif msg.topic.endswith("/" + topics.ONLINE):
            self.post(lambda board, _now: board.online(table, payload, live, arrived))
        elif msg.topic.endswith("/" + topics.HEAD):
            self.post(lambda board, _now: board.head(table, payload))

    # The store's thread.

    def _poll(self) -> None:
        while not self._stopping.is_set():
            news = self._read()
            self.post(lambda board, now, news=news: board.store(news, now))
            self._stopping.wait(self.config.poll)

    def _read(self) -> StoreNews:
        now = time.time_ns()
        try:
            if self._store is None:
                self._store = Store(self.config.database, create=False)
            store = self._store
            rows = query.tables(store)
            alarms = query.alarm_counts(store, now - ALARM_WINDOW_NS)
            holds: dict[str, tuple[tuple[Any, ...], int]] = {}
            for table, key in list(self.wanted.items()):
                code, shoe, coup = key
                raised = query.hold_raised(store, table, code, shoe, coup)
                if raised is not None:
                    holds[table] = (key, raised)
            return StoreNews(now, rows, alarms, holds)
        except Exception as e:  # the database is down or restarting: say so, try again
            self.log.warning("pit.store_failed", error=repr(e))
            if self._store is not None:
                with contextlib.suppress(Exception):
                    self._store.close()
            self._store = None
            return StoreNews(now, [], {}, {}, error=str(e).splitlines()[0] if str(e) else
                             type(e).__name__)
