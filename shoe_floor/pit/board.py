"""The pit's board: one tile per table, from what the page knows of it.

Four sources, each with its own clock, merged here and nowhere else. The first three are the
table's status messages, and the board hears of one only once the feed has checked it
(shoe_floor.status: signed by the table, newer than any before); of one refused, it hears
that it was, and why:
- the table's retained `state`: its display's public view (shoe_daemon.display.view), which
  never holds a face-down card. A tile takes the coup's cards from it as they are, `null`
  for a covered card, and words from it (never an irregularity's detail text, which is not
  in the view at all). The game's terms on a tile (Banco, Punto, Égalité) are the table's:
  the words file's in the language and terms its view names, so a tile's "Banco 7-5" and
  its "Banco to play" say the same word. A view older than the one the table's latest head
  names as current is not shown (the page started after an old one was put back in the
  broker's place);
- the table's retained `online` word (the link's last will says `offline`);
- the table's retained `head` report (shoe_daemon.floor.head): its ledger's last record and
  its link's cursor, and its heartbeat, every few seconds;
- the collector's store, read every few seconds: the verified tip, the records waiting
  behind a gap, floor alarms, and when an open hold was raised (its record's wall time).

**Alive** is what no one but the table can say: the table is shown online while its last
checked head is fresh, no older than three of its heartbeats (`every_ms`, which it signs) by
the page's clock, counted from when it arrived or from the table's own clock at signing
(plus `skew`), whichever is earlier (so an old one let go late, or kept by the broker, does
not count), and the table has not said `offline` since that connection began. A forger
holding the table's broker login can neither make a head nor replay one as new.

The pit's lamp is taken from the public state: `hold` when play is held, `waiting` while a
side is to play (the punter's declaration, the banker's play), `ready` otherwise, `offline`
when the table is not alive. The shoe's own amber at the banker's play depends on whether he
has a choice, which only his covered cards say; the pit shows `waiting` for any banker's play.
A tile whose last message of a kind was refused says so (`unverified`: which, why, when)
until the table's next genuine one of that kind.

The backlog: the records the table has committed that the store does not hold yet, from the
highest index known (the table's last head report, or the last record received behind a
gap) down to the store's verified tip. Of those, `to_send` are still at the table (its report
said the broker had not acknowledged them: `shoe-daemon status` says "N to send"), `gap_at`
marks those received and waiting behind a missing one (the store's `pending`), and the rest
are at the broker or the collector. While the table is offline its last report is all the
pit knows and the table may have committed more since: the backlog is then `at_least`.
Separately, the store is behind when the table showed a change (a new live state) and the
store has had no record of that table stored within `grace` of it (the two clocks, the
page's and the collector's, and their queues, may differ by less).

A tile's foot (`store`, `reported`, `alarms`: the counts) is kept apart from the rest, so a
change of the counts alone, as most readings of the store make, can go to the page as the
foot alone (server.py) and leave the rest of the tile as it is drawn.

Every method runs on the server's loop; the feed's threads hand their news to it there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from shoe_daemon.display.words import table_words
from shoe_daemon.floor.head import Head, parse_head
from shoe_daemon.floor.signing import Stamp
from shoe_floor.chain import SERIOUS  # the floor refused something
from shoe_floor.query import AlarmCount, TableRow

RESULTS = 12  # last decided coups on a tile
ROAD_COLUMNS = 26  # big road columns on a tile
WAITING = ("punter_to_declare", "banker_to_play")
FOOT = ("store", "reported", "alarms")  # a tile's foot: the counts
BEATS = 3  # a table is alive while its last head is younger than this many heartbeats
NOT_CURRENT = "not-current"  # the view shown is older than the one the table's head names


@dataclass(frozen=True)
class StoreNews:
    """One reading of the store by the feed (times in ns; the collector's clock)."""

    read_at: int
    tables: list[TableRow]
    alarms: dict[str, list[AlarmCount]]
    holds: dict[str, tuple[tuple[Any, ...], int]]  # table -> (hold key, raised wall_ns)
    error: str | None = None


@dataclass
class Facts:
    """What the page knows of one table: its checked status messages, the store's row."""

    view: dict[str, Any] | None = None
    payload: bytes = b""
    state_at: int | None = None  # ns, the page's clock: a live change of state arrived
    state_stamp: Stamp | None = None
    word: bytes | None = None  # the table's last checked online word
    word_stamp: Stamp | None = None
    word_at: int | None = None  # ns, the page's clock: it arrived live
    row: TableRow | None = None
    alarms: list[AlarmCount] = field(default_factory=list)
    hold_since: int | None = None  # ns, the table's clock: the hold's record
    hold_key: tuple[Any, ...] | None = None
    head: Head | None = None  # the table's last checked head report
    beat_at: int | None = None  # ns, the page's clock: when that head counts from
    refused: dict[str, tuple[str, int]] = field(default_factory=dict)  # leaf -> (kind, at):
    # the last message of a kind refused, since the last one accepted

    def said_offline(self) -> bool:
        """The table (or its last will) said `offline`, and has not connected since."""
        if self.word != b"offline":
            return False
        begun = self.head.online if self.head is not None else None
        return begun is None or self.word_stamp is None or self.word_stamp >= begun

    def not_current(self) -> bool:
        """The table's latest head names a view as current that the page has not (the view
        kept is older, or there is none: the broker's copy was older, or refused)."""
        current = self.head.state if self.head is not None else None
        return current is not None and (self.state_stamp is None or self.state_stamp < current)


class Mark(NamedTuple):
    """What the bar counts of a tile."""

    lamp: str
    serious: int  # chain alarms
    backlog: int
    at_least: bool  # the table is offline: its backlog may be more
    unverified: bool  # a message of the table's was refused, or its view is not current


def hold_key(view: dict[str, Any] | None) -> tuple[Any, ...] | None:
    """What names the open hold: its code, shoe and coup (None: play is not held)."""
    if not view or not view.get("hold"):
        return None
    shoe, coup = view.get("shoe") or {}, view.get("coup") or {}
    return (view["hold"].get("code"), shoe.get("number"), coup.get("number"))


def lamp(view: dict[str, Any] | None, online: bool | None) -> str:
    if online is False:
        return "offline"
    if not view or not view.get("state"):
        return "unknown"
    if view["state"] == "on_hold":
        return "hold"
    return "waiting" if view["state"] in WAITING else "ready"


def _ms(ns: int | None) -> int | None:
    return None if ns is None else ns // 1_000_000


def _hand(hand: dict[str, Any] | None) -> dict[str, Any] | None:
    if not hand:
        return None
    return {"cards": list(hand.get("cards") or []), "total": hand.get("total"),
            "natural": bool(hand.get("natural"))}


def _road(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The big road's last columns, renumbered from 0."""
    if not cells:
        return []
    first = max(c["col"] for c in cells) - ROAD_COLUMNS + 1
    return [{"col": c["col"] - max(first, 0), "row": c["row"], "winner": c["winner"],
             "ties": c.get("ties", 0), "natural": bool(c.get("natural"))}
            for c in cells if c["col"] >= first]


def _terms(view: dict[str, Any]) -> dict[str, str]:
    """The game's terms as the table names them: its view says its display's language and
    the language of its terms; the words file (shoe_daemon/display/words.py) says them."""
    words = table_words(view.get("language"), view.get("terms"))
    return {name: words.term(name) for name in ("banco", "punto", "egalite")}


def _game(view: dict[str, Any]) -> dict[str, Any]:
    """The part of the public view a tile shows: no more than the table's own display."""
    shoe, coup, history = view.get("shoe"), view.get("coup"), view.get("history") or {}
    hold = view.get("hold")
    return {
        "terms": _terms(view),
        "name": view.get("table"),
        "house": view.get("house"),
        "profile": view.get("profile"),
        "game": view.get("game"),
        "state": view.get("state"),
        "state_words": view.get("state_words"),
        "shoe": None if not shoe else {k: shoe.get(k) for k in (
            "number", "cards_left", "last_coup", "finished")},
        "coup": None if not coup else {
            "number": coup.get("number"), "outcome": coup.get("outcome"),
            "punter": _hand(coup.get("punter")), "banker": _hand(coup.get("banker"))},
        "hold": None if not hold else {k: hold.get(k) for k in ("code", "words", "rule")},
        "notices": [{k: n.get(k) for k in ("code", "words", "rule")}
                    for n in (coup or {}).get("notices") or []],
        "results": [{"winner": b["winner"], "total": b.get("total"),
                     "natural": bool(b.get("natural"))}
                    for b in (history.get("bead_plate") or [])[-RESULTS:]],
        "road": _road(history.get("big_road") or []),
        "counts": history.get("counts") or {},
    }


class Board:
    def __init__(self, grace_ns: int = 2_000_000_000, skew_ns: int = 2_000_000_000):
        self.grace_ns = grace_ns
        self.skew_ns = skew_ns  # how far the tables' clocks may be behind the page's
        self.now = 0  # ns, the page's clock: the latest news
        self.facts: dict[str, Facts] = {}
        self.broker = False  # the page's own broker connection
        self.store_at: int | None = None  # ns, the page's clock: the last good reading
        self.store_error: str | None = None
        self._tiles: dict[str, bytes] = {}
        self._rests: dict[str, bytes] = {}  # each tile without its foot
        self._feet: dict[str, bytes] = {}  # each tile's foot, a JSON object
        self._sending: dict[str, int] = {}  # each tile's `to_send`, as last sent
        self._foot_only: dict[str, bool] = {}  # the tile's last change was in its foot alone
        self._marks: dict[str, Mark] = {}

    # News; each returns the tables whose tile changed.

    def state(self, table: str, payload: bytes, live: bool, now: int,
              stamp: Stamp | None = None) -> list[str]:
        """The table's view, checked."""
        self.now = now
        facts = self.facts.setdefault(table, Facts())
        facts.refused.pop("state", None)
        facts.state_stamp = stamp
        if payload == facts.payload:
            return self._changed([table])  # the same view again (after each reconnect)
        try:
            view = json.loads(payload) if payload else None
        except ValueError:
            view = None
        facts.payload = payload
        facts.view = view if isinstance(view, dict) else None
        facts.state_at = now if live else None
        key = hold_key(facts.view)
        if key != facts.hold_key:
            facts.hold_key, facts.hold_since = key, None
        return self._changed([table])

    def online(self, table: str, word: bytes, live: bool, now: int,
               stamp: Stamp | None = None) -> list[str]:
        """The table's online word, checked (its last will's `offline` too)."""
        self.now = now
        facts = self.facts.setdefault(table, Facts())
        facts.refused.pop("online", None)
        facts.word, facts.word_stamp = word.strip(), stamp
        facts.word_at = now if live else None
        return self._changed([table])

    def head(self, table: str, payload: bytes, now: int) -> list[str]:
        """The table's head report, checked: its backlog's figures and its heartbeat."""
        self.now = now
        facts = self.facts.setdefault(table, Facts())
        facts.refused.pop("head", None)
        facts.head = parse_head(payload)
        facts.beat_at = (None if facts.head is None
                         else min(now, facts.head.wall_ns + self.skew_ns))
        return self._changed([table], beat=True)

    def refused(self, table: str, leaf: str, kind: str, now: int) -> list[str]:
        """A message of the table's refused by the check: never shown; the tile says so."""
        self.now = now
        facts = self.facts.setdefault(table, Facts())
        facts.refused[leaf] = (kind, now)
        return self._changed([table])

    def alive(self, facts: Facts, now: int) -> bool | None:
        """Whether the table is shown online (None: nothing checked from it yet)."""
        if facts.head is None and facts.word is None:
            return None
        if facts.said_offline() or facts.head is None or facts.beat_at is None:
            return False
        return now - facts.beat_at <= BEATS * facts.head.every_ms * 1_000_000

    def _online_since(self, facts: Facts) -> int | None:
        """Since when a table not alive has been so: its word's arrival (or the store's time
        for it, for a page started later), or its last heartbeat's end."""
        if facts.said_offline():
            if facts.word_at is not None:
                return facts.word_at
            row = facts.row
            return row.online_at if row is not None and row.online == "offline" else None
        if facts.head is None or facts.beat_at is None:
            return None
        return facts.beat_at + BEATS * facts.head.every_ms * 1_000_000

    def store(self, news: StoreNews, now: int) -> list[str]:
        self.now = now
        if news.error is not None:
            self.store_error = news.error
            return self._changed(list(self.facts))  # the heartbeats age all the same
        self.store_error, self.store_at = None, now
        for row in news.tables:
            self.facts.setdefault(row.table, Facts()).row = row
        for table, facts in self.facts.items():
            facts.alarms = news.alarms.get(table, [])
            found = news.holds.get(table)
            if found is not None and found[0] == facts.hold_key:
                facts.hold_since = found[1]
        return self._changed(list(self.facts))

    def connection(self, up: bool) -> list[str]:
        self.broker = up
        return []

    def held(self) -> dict[str, tuple[Any, ...]]:
        """Tables on hold whose hold's record has not been found yet: for the feed."""
        return {t: f.hold_key for t, f in self.facts.items()
                if f.hold_key is not None and f.hold_since is None}

    # What the page gets.

    def tile(self, table: str) -> dict[str, Any]:
        facts = self.facts[table]
        row = facts.row
        view = None if facts.not_current() else facts.view
        online = self.alive(facts, self.now)
        tile: dict[str, Any] = {
            "table": table, "lamp": lamp(view, online), "online": online,
            "online_since": _ms(self._online_since(facts)) if online is False else None}
        tile.update(_game(view) if view else {"name": None, "state": None})
        unverified = [{"topic": leaf, "kind": kind, "at": _ms(at)}
                      for leaf, (kind, at) in sorted(facts.refused.items())]
        if facts.not_current() and "state" not in facts.refused:
            unverified.insert(0, {"topic": "state", "kind": NOT_CURRENT, "at": None})
        tile["unverified"] = unverified
        if tile.get("hold") is not None:
            tile["hold"]["since"] = _ms(facts.hold_since)
        behind = None
        if (row is not None and facts.state_at is not None
                and facts.state_at - (row.tip_at or 0) > self.grace_ns):
            behind = _ms(facts.state_at)
        tip, received = (row.tip, row.head) if row else (0, 0)
        said = facts.head
        tile["store"] = {
            "tip": tip,
            "head": received,  # the highest index received (behind a gap, or the tip)
            "backlog": max(tip, received, said.head if said else 0) - tip,
            "at_least": online is False,
            "to_send": max(0, said.head - max(said.acked, tip)) if said else 0,
            "gap_at": (tip + 1) if row and row.waiting else None,
            "behind_since": behind,
            "grace_ms": self.grace_ns // 1_000_000,
        }
        tile["reported"] = None if said is None else {
            "head": said.head, "acked": said.acked, "at": _ms(said.wall_ns)}
        alarms = facts.alarms
        last = max(alarms, key=lambda a: a.last_at, default=None)
        tile["alarms"] = {
            "count": sum(a.count for a in alarms),
            "serious": sum(a.count for a in alarms if a.kind in SERIOUS),
            "last": None if last is None else {"kind": last.kind, "idx": last.last_idx,
                                               "at": _ms(last.last_at)},
        }
        return tile

    def tile_json(self, table: str) -> bytes:
        return self._tiles[table]

    def foot_json(self, table: str) -> bytes:
        """The tile's foot alone, with its table's name: `{"table": ..., "store": ...}`."""
        return (b'{"table":' + json.dumps(table, ensure_ascii=False).encode() + b","
                + self._feet[table][1:])

    def foot_only(self, table: str) -> bool:
        """Whether the tile's last change was in its foot alone (the page had its tile)."""
        return self._foot_only[table]

    def tables(self) -> list[str]:
        return sorted(self._tiles)

    def floor(self, now: int) -> dict[str, Any]:
        marks = self._marks.values()
        return {
            "now": _ms(now),
            "broker": self.broker,
            "store": {"ok": self.store_error is None and self.store_at is not None,
                      "error": self.store_error, "read_at": _ms(self.store_at)},
            "tables": len(self._marks),
            "offline": sum(1 for m in marks if m.lamp == "offline"),
            "held": sum(1 for m in marks if m.lamp == "hold"),
            "alarms": sum(1 for m in marks if m.serious),
            "unverified": sum(1 for m in marks if m.unverified),
            "backlog": sum(m.backlog for m in marks),
            "backlog_at_least": any(m.at_least for m in marks),
        }

    def _changed(self, tables: list[str], beat: bool = False) -> list[str]:
        """The tables whose tile changed, each tile made again. `beat`: a head report that
        changes the foot alone of a table with nothing to send (a heartbeat: the records it
        names are at the broker or stored already) waits for the next reading of the store,
        which sends the feet of every table in one event and by then holds those records:
        200 tables beat 40 times a second."""
        changed = []
        for table in tables:
            try:
                tile = self.tile(table)
            except (KeyError, TypeError, AttributeError, ValueError):
                # A view not of the display's shape: shown as no state, and the other
                # tables' tiles go on.
                self.facts[table].view = None
                tile = self.tile(table)
            parts = {k: tile.pop(k) for k in FOOT}
            foot, rest = _json(parts), _json(tile)
            same_rest = self._rests.get(table) == rest
            if same_rest and self._feet.get(table) == foot:
                continue
            sending = parts["store"]["to_send"]
            if beat and same_rest and sending == 0 and self._sending.get(table) == 0:
                continue  # with the next reading of the store
            self._sending[table] = sending
            self._tiles[table] = rest[:-1] + b"," + foot[1:]  # the two objects as one
            self._rests[table], self._feet[table] = rest, foot
            self._foot_only[table] = same_rest
            store = parts["store"]
            self._marks[table] = Mark(tile["lamp"], parts["alarms"]["serious"],
                                      store["backlog"], store["at_least"],
                                      bool(tile["unverified"]))
            changed.append(table)
        return changed


def _json(value: dict[str, Any]) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
