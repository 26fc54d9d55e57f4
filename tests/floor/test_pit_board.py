"""The pit's board against real public views of a real coup machine: what a tile takes from
a table's view (never a face-down card), its lamp, its hold's age, its backlog (from the
store and the table's head reports), whether the store is behind the table, whether the
table is alive (its heartbeat), and what the tile says of a message refused."""

from __future__ import annotations

import json
import re

from hil.script import parse_script
from shoe_daemon.display.publisher import TableDisplay
from shoe_daemon.display.words import Words
from shoe_daemon.floor.head import Head
from shoe_daemon.floor.signing import Stamp
from shoe_daemon.game.coup import CoupMachine
from shoe_daemon.game.houses import get_profile
from shoe_floor.pit.board import Board, StoreNews, lamp
from shoe_floor.query import AlarmCount, TableRow

CODE = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][CDHS](?![A-Za-z0-9])")
S = 1_000_000_000


class Table:
    """A coup machine and its display: the bytes the table publishes on its state topic."""

    def __init__(self, profile: str = "baden", name: str = "t7", language: str = "en",
                 terms: str = "french"):
        self.machine = CoupMachine(get_profile(profile))
        self.views: list[bytes] = []
        self.display = TableDisplay(name, self.views.append, language, terms)

    def play(self, script: str) -> bytes:
        for message in parse_script(script):
            for line in self.machine.handle(message):
                self.display.record(line)
            self.display.show(self.machine)
        return self.views[-1]


def row(table: str = "t7", tip: int = 10, tip_at: int | None = 5 * S, head: int | None = None,
        waiting: int = 0, online: str | None = "online") -> TableRow:
    return TableRow(table, tip, tip_at, head if head is not None else tip, waiting, online, 1 * S)


def news(*rows: TableRow, alarms=None, holds=None) -> StoreNews:
    return StoreNews(0, list(rows), alarms or {}, holds or {})


def tile(board: Board, table: str = "t7") -> dict:
    return json.loads(board.tile_json(table))


def test_face_down_cards_stay_face_down_on_the_tile_until_the_table_shows_them():
    table, board = Table("zoppot-1934"), Board()
    board.state("t7", table.play("SHOE DEAL 2C 3D 4H KS"), True, 1 * S)  # dealt face down
    t = tile(board)
    assert t["coup"]["punter"]["cards"] == [None, None]
    assert t["coup"]["banker"]["cards"] == [None, None]
    assert t["coup"]["punter"]["total"] is None
    assert CODE.findall(board.tile_json("t7").decode()) == []
    # The table shows them at its showdown; the tile follows the table, no sooner.
    board.state("t7", table.play("STAND"), True, 2 * S)
    t = tile(board)
    assert t["coup"]["punter"]["cards"] == ["2C", "4H"] and t["coup"]["outcome"] == "punter"
    assert set(CODE.findall(board.tile_json("t7").decode())) == {"2C", "3D", "4H", "KS"}


def test_a_hold_is_shown_in_the_tables_words_never_its_detail():
    table, board = Table("baden"), Board()
    board.state("t7", table.play("SHOE DEAL 2C 5D@P"), True, 1 * S)  # the banker's card misplaced
    t = tile(board)
    assert t["lamp"] == "hold" and t["state"] == "on_hold"
    assert t["hold"] == {"code": "WRONG_ORDER", "rule": "000 rule 12", "since": None,
                         "words": Words()["irregularity.WRONG_ORDER"]}
    assert CODE.findall(board.tile_json("t7").decode()) == []
    assert board.held() == {"t7": ("WRONG_ORDER", 1, 1)}
    # The store found the hold's record: its wall time is the hold's start.
    board.store(news(row(), holds={"t7": (("WRONG_ORDER", 1, 1), 42 * S)}), 3 * S)
    assert tile(board)["hold"]["since"] == 42_000
    assert board.held() == {}
    board.state("t7", table.play("OK"), True, 4 * S)
    assert tile(board)["hold"] is None and tile(board)["lamp"] == "ready"


def test_a_tile_names_the_game_in_its_tables_own_terms():
    """Each table's language and terms, as its view says them: the tile's terms and its state
    words are the same word ("Bank" beside "Bank ist am Zug"), table by table."""
    german, chinese, french = (Table("baden", "t7", "de", "language"),
                               Table("baden-punto-banco", "t8", "zh", "language"),
                               Table("clermont-2015", "t9", "en", "french"))
    board = Board()
    board.state("t7", german.play("SHOE DEAL 3C 2D 4H 3S"), True, 1 * S)  # the bank to play
    board.state("t8", chinese.play("SHOE DEAL 3C 2D 4H 3S"), True, 1 * S)
    board.state("t9", french.play("SHOE DEAL 3C 2D 4H 3S STAND"), True, 1 * S)
    for table, (language, terms) in {"t7": ("de", "language"), "t8": ("zh", "language"),
                                     "t9": ("en", "french")}.items():
        words = Words(language, terms)
        t = tile(board, table)
        assert t["terms"] == {name: words.term(name) for name in ("banco", "punto", "egalite")}
        assert t["state_words"] == words[f"state.{t['state']}"]
    assert tile(board, "t7")["terms"]["banco"] == "Bank"
    assert tile(board, "t7")["state_words"] == "Bank ist am Zug"
    assert tile(board, "t8")["terms"]["banco"] == "庄"
    assert tile(board, "t9")["terms"] == {"banco": "Banco", "punto": "Punto",
                                          "egalite": "Égalité"}


def test_the_lamp_follows_the_public_state():
    table, board = Table("zoppot-1934"), Board()
    board.head("t7", report(1, 1, 1 * S), 1 * S)
    board.state("t7", table.play("SHOE"), True, 1 * S)
    assert tile(board)["lamp"] == "ready"
    board.state("t7", table.play("DEAL 2C 4D 3H 3S"), True, 2 * S)  # punter 5: his choice
    assert tile(board)["state"] == "punter_to_declare" and tile(board)["lamp"] == "waiting"
    board.online("t7", b"offline", True, 3 * S)
    assert tile(board)["lamp"] == "offline" and tile(board)["online_since"] == 3000
    board.online("t7", b"online", True, 4 * S)
    board.head("t7", report(1, 1, 4 * S), 4 * S)
    assert tile(board)["lamp"] == "waiting"
    assert lamp(None, None) == "unknown"


def beat(head: int, at: int, connected: int = 1, state: int | None = None,
         every: int = 1000) -> bytes:
    """A head report at `at` (ns, the table's clock), a heartbeat every `every` ms, of the
    connection whose online word was stamped `connected`."""
    return Head(head, head, at, every, Stamp(1, connected),
                None if state is None else Stamp(1, state)).payload()


def test_a_table_is_alive_while_its_heartbeat_is_fresh_by_the_pages_clock():
    table, board = Table(), Board(skew_ns=2 * S)
    board.state("t7", table.play("SHOE"), True, 1 * S, Stamp(1, 2))
    assert tile(board)["online"] is None  # nothing checked says whether it is alive
    board.head("t7", beat(5, 10 * S), 10 * S)  # a heartbeat every second: alive for 3
    assert tile(board)["online"] is True and tile(board)["lamp"] == "ready"
    board.store(news(row()), 13 * S)
    assert tile(board)["online"] is True
    board.store(news(row()), 13 * S + 1)  # a reading of the store: the tile ages
    assert tile(board)["online"] is False and tile(board)["lamp"] == "offline"
    assert tile(board)["online_since"] == 13_000  # when its last heartbeat ran out
    # A head signed long ago, kept by the broker or let go late, is no heartbeat: it counts
    # from the table's clock (and the skew allowed), not from its arrival.
    board.head("t7", beat(6, 20 * S), 60 * S)
    assert tile(board)["online"] is False
    board.head("t7", beat(7, 61 * S), 60 * S)  # a table clock ahead: from its arrival
    assert tile(board)["online"] is True
    board.store(news(row()), 63 * S)
    assert tile(board)["online"] is True
    # The table says offline (its last will): at once, not a heartbeat later.
    board.online("t7", b"offline", True, 63 * S + 5, Stamp(1, 2))
    assert tile(board)["online"] is False and tile(board)["online_since"] == 63_000


def test_an_offline_word_from_before_the_tables_connection_does_not_count():
    board = Board()
    # A page started while an old `offline` (connection 2's will) sits in the broker: the
    # heartbeat names connection 5's online word, so the table has been back since.
    board.online("t7", b"offline", False, 10 * S, Stamp(1, 3))
    board.head("t7", beat(9, 10 * S, connected=5), 10 * S)
    assert tile(board)["online"] is True
    # Connection 5's own will: it counts.
    board.online("t7", b"offline", True, 11 * S, Stamp(1, 6))
    assert tile(board)["online"] is False


def test_a_view_older_than_the_one_the_head_names_is_not_shown():
    table, board = Table(), Board()
    board.state("t7", table.play("SHOE"), False, 1 * S, Stamp(1, 4))
    board.head("t7", beat(9, 1 * S, state=4), 1 * S)
    assert tile(board)["shoe"]["number"] == 1 and tile(board)["unverified"] == []
    board.head("t7", beat(9, 2 * S, state=8), 2 * S)  # its view #8 has not come
    t = tile(board)
    assert t.get("shoe") is None and t["state"] is None and t["lamp"] == "unknown"
    assert t["unverified"] == [{"topic": "state", "kind": "not-current", "at": None}]
    assert board.floor(2 * S)["unverified"] == 1
    board.state("t7", table.play("DEAL"), True, 3 * S, Stamp(1, 8))
    assert tile(board)["coup"]["number"] == 1 and tile(board)["unverified"] == []


def test_a_refused_message_is_never_shown_and_the_tile_says_so():
    table, board = Table(), Board()
    board.state("t7", table.play("SHOE DEAL 2C 5D@P"), True, 1 * S, Stamp(1, 2))  # held
    assert tile(board)["lamp"] == "hold"
    assert board.refused("t7", "state", "unsigned", 2 * S) == ["t7"]
    board.refused("t7", "head", "stale", 3 * S)
    t = tile(board)
    assert t["lamp"] == "hold" and t["hold"]["code"] == "WRONG_ORDER"  # the genuine view
    assert t["unverified"] == [{"topic": "head", "kind": "stale", "at": 3000},
                               {"topic": "state", "kind": "unsigned", "at": 2000}]
    assert board.floor(3 * S)["unverified"] == 1
    board.state("t7", table.play("OK"), True, 4 * S, Stamp(1, 3))  # the table's next word
    assert tile(board)["unverified"] == [{"topic": "head", "kind": "stale", "at": 3000}]


def test_results_and_road_come_from_the_tables_history():
    table, board = Table("baden"), Board()
    table.play("SHOE")
    hands = ("9C 2D KH 3S", "9D 2H KS 3C", "9H 2S KC 3D")  # no card more often than packs
    for n in range(14):  # punter naturals, one after another
        table.play("DEAL " + hands[n % 3])
    board.state("t7", table.views[-1], True, 1 * S)
    t = tile(board)
    assert len(t["results"]) == 12 and {b["winner"] for b in t["results"]} == {"P"}
    assert all(b["natural"] and b["total"] == 9 for b in t["results"])
    assert [(c["col"], c["row"]) for c in t["road"]][:7] == [
        (0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 5)]  # the dragon tail
    assert t["counts"]["punter"] == 14


def test_backlog_is_what_waits_behind_a_gap():
    board = Board()
    board.store(news(row(tip=100, head=130, waiting=7)), 1 * S)
    store = tile(board)["store"]
    assert store["tip"] == 100 and store["backlog"] == 30 and store["gap_at"] == 101
    assert store["to_send"] == 0 and store["at_least"] is False
    board.store(news(row(tip=130)), 2 * S)
    store = tile(board)["store"]
    assert store["backlog"] == 0 and store["gap_at"] is None


def report(head: int, acked: int, at: int = 7 * S) -> bytes:
    return Head(head, acked, at).payload()


def test_backlog_is_what_the_table_committed_and_the_store_does_not_hold():
    board = Board()
    board.store(news(row(tip=100)), 1 * S)
    assert board.head("t7", report(1300, 100), 7 * S) == ["t7"]  # back after a cut
    t = tile(board)
    assert t["store"]["backlog"] == 1200 and t["store"]["to_send"] == 1200
    assert t["reported"] == {"head": 1300, "acked": 100, "at": 7000}
    board.head("t7", report(1300, 1300), 7 * S)  # the table sent them: at the broker
    board.store(news(row(tip=900)), 2 * S)
    store = tile(board)["store"]
    assert store["backlog"] == 400 and store["to_send"] == 0
    board.store(news(row(tip=1300)), 3 * S)
    assert tile(board)["store"]["backlog"] == 0
    # A report older than what the store holds says nothing more (the records did).
    board.store(news(row(tip=5000)), 4 * S)
    assert tile(board)["store"]["backlog"] == 0 and tile(board)["store"]["to_send"] == 0
    # Records received behind a gap beyond the table's last report count too.
    board.store(news(row(tip=5000, head=5040, waiting=3)), 5 * S)
    assert tile(board)["store"]["backlog"] == 40
    assert board.head("t7", b"not a report", 8 * S) == ["t7"]
    assert tile(board)["reported"] is None


def test_the_store_ahead_of_a_stale_cursor_is_not_to_send():
    board = Board()
    board.head("t7", report(300, 100), 1 * S)
    board.store(news(row(tip=250)), 1 * S)  # the report is older than the store's tip
    store = tile(board)["store"]
    assert store["backlog"] == 50 and store["to_send"] == 50


def test_offline_the_last_report_is_a_floor_under_the_backlog():
    board = Board()
    board.store(news(row(tip=100)), 1 * S)
    board.head("t7", report(160, 120, 1 * S), 1 * S)
    board.online("t7", b"offline", True, 2 * S)
    store = tile(board)["store"]
    assert store["backlog"] == 60 and store["at_least"] is True
    floor = board.floor(2 * S)
    assert floor["backlog"] == 60 and floor["backlog_at_least"] is True
    board.online("t7", b"online", True, 3 * S)
    board.head("t7", report(160, 160, 3 * S), 3 * S)
    assert tile(board)["store"]["at_least"] is False
    assert board.floor(3 * S)["backlog_at_least"] is False


def test_the_bar_adds_the_backlogs():
    board = Board()
    board.store(news(row("t1", tip=10), row("t2", tip=20, head=25, waiting=2), row("t3")), S)
    board.head("t1", report(40, 10), S)
    assert board.floor(S)["backlog"] == 35
    board.store(news(row("t1", tip=40), row("t2", tip=25), row("t3")), 2 * S)
    assert board.floor(2 * S)["backlog"] == 0


def test_the_store_is_behind_when_a_live_change_has_no_record_stored_near_it():
    table, board = Table(), Board(grace_ns=2 * S)
    board.store(news(row(tip_at=5 * S)), 5 * S)
    board.state("t7", table.play("SHOE"), True, 6 * S)  # within the grace of the last record
    assert tile(board)["store"]["behind_since"] is None
    board.state("t7", table.play("DEAL"), True, 8 * S)  # the table shows a change
    assert tile(board)["store"]["behind_since"] == 8000
    board.store(news(row(tip=12, tip_at=8 * S + 50_000_000)), 9 * S)  # its records came
    assert tile(board)["store"]["behind_since"] is None
    # A retained view (the page just connected) or the same view again proves nothing.
    board.state("t7", table.views[-1], True, 19 * S)
    assert tile(board)["store"]["behind_since"] is None
    other = Board(grace_ns=2 * S)
    other.store(news(row(tip_at=5 * S)), 5 * S)
    other.state("t7", table.views[-1], False, 16 * S)
    assert tile(other)["store"]["behind_since"] is None


def test_offline_since_the_stores_time_when_the_page_starts_after_the_table_went():
    board = Board()
    board.store(news(row(online="offline")), 9 * S)
    assert tile(board)["online"] is None  # the store alone does not say: the table does
    board.online("t7", b"offline", False, 10 * S)  # the retained word, checked
    t = tile(board)
    assert t["lamp"] == "offline" and t["online_since"] == 1000  # the collector's time


def test_alarms_counted_serious_when_the_chain_refused_something():
    board = Board()
    board.store(news(row(), alarms={"t7": [AlarmCount("gap", 2, 3 * S, 11),
                                          AlarmCount("edited", 1, 4 * S, 12)]}), 5 * S)
    alarms = tile(board)["alarms"]
    assert alarms == {"count": 3, "serious": 1, "last": {"kind": "edited", "idx": 12,
                                                         "at": 4000}}
    assert board.floor(5 * S)["alarms"] == 1


def test_a_store_failure_keeps_the_last_tiles_and_says_so():
    board = Board()
    board.store(news(row(tip=40)), 1 * S)
    assert board.store(StoreNews(0, [], {}, {}, error="connection refused"), 2 * S) == []
    assert tile(board)["store"]["tip"] == 40
    floor = board.floor(2 * S)
    assert floor["store"] == {"ok": False, "error": "connection refused", "read_at": 1000}


def test_only_tiles_that_changed_are_sent_again():
    table, board = Table(), Board()
    assert board.state("t7", table.play("SHOE"), True, 1 * S) == ["t7"]
    assert board.state("t8", table.views[-1], True, 1 * S) == ["t8"]
    assert board.store(news(row("t7"), row("t8")), 2 * S) == ["t7", "t8"]
    assert board.store(news(row("t7"), row("t8", tip=11)), 3 * S) == ["t8"]
    assert board.state("t7", b"not json", True, 4 * S) == ["t7"]
    assert tile(board)["lamp"] == "unknown"


def test_a_view_of_another_shape_shows_no_state_and_spoils_no_other_tile():
    table, board = Table(), Board()
    board.state("t8", table.play("SHOE"), True, 1 * S)
    odd = b'{"table": "t7", "state": "dealing", "history": {"bead_plate": [{"x": 1}]}}'
    assert board.state("t7", odd, True, 2 * S) == ["t7"]
    assert tile(board, "t7")["lamp"] == "unknown"
    assert sorted(board.store(news(row("t7"), row("t8", tip=3)), 3 * S)) == ["t7", "t8"]
    assert tile(board, "t8")["store"]["tip"] == 3


def test_a_change_of_the_counts_alone_is_the_foot_alone():
    """Most readings of the store move a tile's counts and nothing else: the page gets the
    foot alone (server.py); the whole tile is still the rest and the foot together."""
    table, board = Table(), Board()
    board.state("t7", table.play("SHOE DEAL 9C 2D KH 3S"), True, 1 * S)
    assert board.foot_only("t7") is False  # the page has no tile for it yet
    board.head("t7", report(9, 9, 1 * S), 1 * S)
    assert board.foot_only("t7") is False  # alive: its heartbeat
    board.store(news(row(tip=10)), 2 * S)
    assert board.foot_only("t7") is True
    assert json.loads(board.foot_json("t7")) == {
        "table": "t7", **{k: tile(board)[k] for k in ("store", "reported", "alarms")}}
    board.head("t7", report(12, 10, 2 * S), 2 * S)
    assert board.foot_only("t7") is True and tile(board)["reported"]["head"] == 12
    board.store(news(row(tip=12), alarms={"t7": [AlarmCount("gap", 1, 3 * S, 11)]}), 3 * S)
    assert board.foot_only("t7") is True and tile(board)["alarms"]["count"] == 1
    # A change the table shows, or the store dating its hold, is the whole tile.
    board.state("t7", table.play("DEAL"), True, 4 * S)
    assert board.foot_only("t7") is False
    board.online("t7", b"offline", True, 5 * S)
    assert board.foot_only("t7") is False
    t = tile(board)
    assert t["lamp"] == "offline" and t["store"]["tip"] == 12 and t["coup"]["number"] == 2
    assert set(t) >= {"table", "lamp", "coup", "road", "store", "reported", "alarms"}


def test_a_heartbeat_of_a_table_with_nothing_to_send_waits_for_the_next_reading():
    """200 tables beat 40 times a second: a head that moves a tile's foot alone, while the
    table holds nothing unsent, goes with the next reading's feet (one event for all, and by
    then the store holds what it names), not as an event of its own."""
    board = Board()
    board.store(news(row(tip=10)), 1 * S)
    assert board.head("t7", report(10, 10, 1 * S), 1 * S) == ["t7"]  # alive: the tile
    assert board.head("t7", report(12, 12, 2 * S), 2 * S) == []  # 2 on their way
    assert tile(board)["store"]["backlog"] == 0
    assert board.store(news(row(tip=12)), 2 * S) == ["t7"] and board.foot_only("t7")
    assert tile(board)["reported"]["at"] == 2000 and tile(board)["store"]["backlog"] == 0
    # A table with records still to send says so at once, and that they have gone.
    assert board.head("t7", report(40, 12, 3 * S), 3 * S) == ["t7"]
    assert tile(board)["store"]["to_send"] == 28
    assert board.head("t7", report(40, 40, 4 * S), 4 * S) == ["t7"]
    assert tile(board)["store"]["to_send"] == 0 and tile(board)["store"]["backlog"] == 28
