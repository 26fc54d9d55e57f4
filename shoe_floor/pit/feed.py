"""What the page learns, from two places, each in its own thread:

- the broker: every table's retained `state`, `online` and `head`, subscribed with the
  page's own login (the ACL lets it read those and nothing else), clean session, QoS 0 (the
  retained message is the latest on every connect, so nothing needs keeping while the page
  is away), each checked here before the board hears of it (shoe_floor.status: signed with
  a key lodged for its table, newer than any before); of one refused the board hears only
  that it was, and why. The page never subscribes to the `records` topics: the ACL denies it
  every record, and a subscriber there would still make the broker accept a table's records
  when no collector has ever subscribed, and drop them (docs/floor.md);
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
from shoe_daemon.floor.mqtt import make_client, user_properties
from shoe_floor import query
from shoe_floor.config import require_keys_dir
from shoe_floor.pit.board import Board, StoreNews
from shoe_floor.pit.config import PitConfig
from shoe_floor.status import Accepted, Refused, StatusCheck
from shoe_floor.store import Store
from shoe_floor.table_keys import LodgedKeys, old_directories

ALARM_WINDOW_NS = 24 * 3600 * 1_000_000_000  # a tile counts the floor alarms of a day
SAY_EVERY = 60.0  # s between two log lines of the same refusal (table, topic, kind)

Post = Callable[[Callable[[Board, int], list[str]]], None]


class Feed:
    """CollectorConfigError (naming `pit.table_keys`) if the lodged keys are not there."""

    def __init__(self, config: PitConfig, post: Post, log: Any = None):
        self.config = config
        self.post = post
        self.log = log or structlog.get_logger("shoe_floor")
        self.prefix = config.broker.topic_prefix
        require_keys_dir(config.table_keys, "pit")
        for old in old_directories(config.table_keys):
            self.log.error("pit.old_key_directory", directory=str(old),
                           fix=LodgedKeys(config.table_keys).move_words(old.name))
        self.check = StatusCheck(LodgedKeys(config.table_keys, warn=lambda why: self.log.warning(
            "pit.bad_key_file", why=why)))
        self._said: dict[tuple[str, str, str], float] = {}  # refusals logged: when
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
        # The heads first: their retained copies come first, so that the view and the word
        # the broker kept are judged against what the table's latest head names as current.
        client.subscribe([(topics.topic(self.prefix, "+", leaf), 0)
                          for leaf in sorted(topics.PUBLIC, key=lambda leaf: leaf != topics.HEAD)])
        self.log.info("pit.broker_connected")
        self.post(lambda board, _now: board.connection(True))

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        self.log.warning("pit.broker_disconnected", reason=str(reason))
        self.post(lambda board, _now: board.connection(False))

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        table = topics.table_of(self.prefix, msg.topic)
        leaf = msg.topic.rsplit("/", 1)[-1]
        if table is None or leaf not in topics.PUBLIC:
            return
        payload, live, arrived = bytes(msg.payload), not msg.retain, time.time_ns()
        verdict = self.check.check(table, leaf, payload, user_properties(msg), msg.retain)
        if isinstance(verdict, Refused):
            self._say(table, leaf, verdict)
            self.post(lambda board, _now: board.refused(table, leaf, verdict.kind, arrived))
            return
        if not isinstance(verdict, Accepted):
            return  # the newest again, or an older copy the broker kept: nothing new
        stamp = verdict.stamp
        if leaf == topics.STATE:
            self.post(lambda board, _now: board.state(table, payload, live, arrived, stamp))
        elif leaf == topics.ONLINE:
            self.post(lambda board, _now: board.online(table, payload, live, arrived, stamp))
        else:
            self.post(lambda board, _now: board.head(table, payload, arrived))

    def _say(self, table: str, leaf: str, refused: Refused) -> None:
        """A refusal in the log, once a minute per table, topic and kind (the collector
        raises the floor alarm)."""
        key, now = (table, leaf, refused.kind), time.monotonic()
        if now - self._said.get(key, -SAY_EVERY) >= SAY_EVERY:
            self._said[key] = now
            self.log.warning("pit.refused", table=table, topic=leaf, kind=refused.kind,
                             detail=refused.detail)

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
