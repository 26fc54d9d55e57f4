"""The shoe's history: the five roads, the ask road, the statistics, Swiss Nine.

Every road is checked against a sequence worked by hand in the comments, by the rules as
docs/display.md states them (Roads), so a reader can check each mark with a pencil.
"""

from __future__ import annotations

import json
from typing import Any

from shoe_daemon.display.history import History


def result(coup: int, outcome: str, *, shoe: int = 1, p: int = 5, b: int = 6,
           natural: bool = False, swiss: list[str] | None = None) -> dict[str, Any]:
    line = {
        "event": "coup.result", "shoe": shoe, "coup": coup, "outcome": outcome,
        "punter": {"cards": [], "total": p, "natural": natural},
        "banker": {"cards": [], "total": b, "natural": False},
    }
    if swiss is not None:
        line["swiss_nine"] = swiss
    return line


def history(outcomes: str, shoe: int = 1) -> History:
    names = {"B": "banker", "P": "punter", "E": "egalite", "V": "void", "C": "cancelled"}
    return History.of(result(i + 1, names[o], shoe=shoe) for i, o in enumerate(outcomes))


def road(h: History) -> list[tuple[int, int, str, int]]:
    return sorted((c["col"], c["row"], c["winner"], c["ties"]) for c in h.view(h.shoe)["big_road"])


def test_bead_plate_fills_columns_of_six_downwards():
    h = history("BPEBBPP")
    plate = h.view(1)["bead_plate"]
    assert [(b["col"], b["row"], b["winner"]) for b in plate] == [
        (0, 0, "B"), (0, 1, "P"), (0, 2, "E"), (0, 3, "B"), (0, 4, "B"), (0, 5, "P"), (1, 0, "P")]


def test_big_road_a_column_per_streak():
    assert road(history("BBPPPB")) == [
        (0, 0, "B", 0), (0, 1, "B", 0), (1, 0, "P", 0), (1, 1, "P", 0), (1, 2, "P", 0),
        (2, 0, "B", 0)]


def test_egalite_marks_the_last_bead_and_opens_no_column():
    assert road(history("BEEPE")) == [(0, 0, "B", 2), (1, 0, "P", 1)]


def test_egalite_before_the_first_bead_is_marked_on_it():
    assert road(history("EEP")) == [(0, 0, "P", 2)]
    assert road(history("EE")) == []


def test_a_long_streak_turns_right_along_the_bottom_row():
    cells = road(history("B" * 8 + "P"))
    assert cells[:6] == [(0, r, "B", 0) for r in range(6)]
    assert (1, 5, "B", 0) in cells and (2, 5, "B", 0) in cells
    assert (1, 0, "P", 0) in cells  # the next streak starts in the next column, at the top


def test_a_streak_blocked_by_an_earlier_tail_turns_early():
    # 7 B leave a tail at (1, 5); the P streak below it in column 1 turns right at row 4.
    cells = road(history("B" * 7 + "P" * 6))
    assert [(c, r) for c, r, w, _ in cells if w == "P"] == [
        (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4)]


def test_counts_naturals_and_no_beads_for_void_or_cancelled():
    h = History.of([
        result(1, "banker"), result(2, "punter", natural=True), result(3, "egalite"),
        result(4, "void"), result(5, "cancelled"), result(6, "banker"),
    ])
    view = h.view(1)
    assert view["counts"] == {"banker": 2, "punter": 1, "egalite": 1, "naturals": 1}
    assert len(view["bead_plate"]) == 4
    assert h.coups_dealt == 6  # the cards of void and cancelled coups left the shoe too
    assert view["bead_plate"][1]["natural"] and view["bead_plate"][0]["total"] == 6


def test_a_new_shoe_starts_a_clean_history_and_other_lines_change_nothing():
    h = history("BBP")
    h.add({"event": "irregularity", "shoe": 2, "coup": 1})
    assert len(h.view(1)["bead_plate"]) == 3
    h.add(result(1, "punter", shoe=2))
    assert [b["winner"] for b in h.view(2)["bead_plate"]] == ["P"]
    assert h.view(1)["bead_plate"] == []  # a history is shown only for the shoe in play


def test_swiss_nine_wins_are_listed_by_coup():
    h = History.of([result(1, "banker", swiss=["simple"]), result(2, "punter", swiss=[]),
                    result(3, "banker", swiss=["simple", "colour", "swiss"])])
    assert h.view(1)["swiss_nine"] == [
        {"coup": 1, "bets": ["simple"]}, {"coup": 3, "bets": ["simple", "colour", "swiss"]}]


# ---- the derived roads, worked by hand ---------------------------------------------------
#
# The sequence (égalités left out: they touch no derived road) and its big road, as logical
# columns (a column is a streak; its length is what the derived roads read):
#
#   B B | P | B B B | P P P | B | P | B B B B | P P          lengths 2 1 3 3 1 1 4 2
#   col:  0   1       2       3   4   5         6      7
#
# Entries numbered 1..17 with (column, row), rows from 0:
#   1 (0,0)  2 (0,1)  3 (1,0)  4 (2,0)  5 (2,1)  6 (2,2)  7 (3,0)  8 (3,1)  9 (3,2)
#   10 (4,0)  11 (5,0)  12 (6,0)  13 (6,1)  14 (6,2)  15 (6,3)  16 (7,0)  17 (7,1)
#
# Rule (k columns back): at row 0, red if columns c-1 and c-1-k are of equal length, else
# blue; at a row r > 0, look at column c-k: red if its length > r, blue if = r, red if < r.
# Start: row 1 of column k, or the top of column k+1 when column k has one entry.
#
# Big eye boy (k=1). Column 1 has one entry, so it starts at entry 4 (2,0).
#   4 (2,0) len c1=1 vs c0=2: blue      5 (2,1) c1 len 1 = 1: blue    6 (2,2) 1 < 2: red
#   7 (3,0) c2=3 vs c1=1: blue          8 (3,1) c2 len 3 > 1: red     9 (3,2) 3 > 2: red
#   10 (4,0) c3=3 vs c2=3: red          11 (5,0) c4=1 vs c3=3: blue
#   12 (6,0) c5=1 vs c4=1: red          13 (6,1) c5 len 1 = 1: blue   14 (6,2) 1 < 2: red
#   15 (6,3) 1 < 3: red                 16 (7,0) c6=4 vs c5=1: blue   17 (7,1) c6 4 > 1: red
# Small road (k=2). Column 2 has three entries: it starts at entry 5 (2,1).
#   5 (2,1) c0 len 2 > 1: red           6 (2,2) c0 len 2 = 2: blue
#   7 (3,0) c2=3 vs c0=2: blue          8 (3,1) c1 len 1 = 1: blue    9 (3,2) 1 < 2: red
#   10 (4,0) c3=3 vs c1=1: blue         11 (5,0) c4=1 vs c2=3: blue   12 (6,0) c5=1 vs c3=3: blue
#   13 (6,1) c4 len 1 = 1: blue         14 (6,2) 1 < 2: red           15 (6,3) 1 < 3: red
#   16 (7,0) c6=4 vs c4=1: blue         17 (7,1) c5 len 1 = 1: blue
# Cockroach pig (k=3). Column 3 has three entries: it starts at entry 8 (3,1).
#   8 (3,1) c0 len 2 > 1: red           9 (3,2) c0 len 2 = 2: blue
#   10 (4,0) c3=3 vs c0=2: blue         11 (5,0) c4=1 vs c1=1: red    12 (6,0) c5=1 vs c2=3: blue
#   13 (6,1) c3 len 3 > 1: red          14 (6,2) 3 > 2: red           15 (6,3) 3 = 3: blue
#   16 (7,0) c6=4 vs c3=3: blue         17 (7,1) c4 len 1 = 1: blue
# Ask road after entry 17. Banker next: a new column 8 at row 0: big eye boy c7=2 vs c6=4
# blue, small road c7=2 vs c5=1 blue, cockroach pig c7=2 vs c4=1 blue. Punter next: (7,2):
# big eye boy c6 len 4 > 2 red, small road c5 len 1 < 2 red, cockroach pig c4 len 1 < 2 red.

HAND = "E" + "BB" + "P" + "EE" + "BBB" + "PPP" + "B" + "P" + "BBBB" + "E" + "PP"
R, U = "red", "blue"


def colours(h: History, name: str) -> list[str]:
    return [c["colour"] for c in h.view(h.shoe)[name]]


def laid(h: History, name: str) -> list[tuple[int, int, str]]:
    return [(c["col"], c["row"], c["colour"][0]) for c in h.view(h.shoe)[name]]


def test_big_road_of_the_hand_made_sequence():
    h = history(HAND)
    # The leading égalité goes on the first bead, the two after the P of column 1 on it, the
    # last on the B at the bottom of column 6.
    assert road(h) == [
        (0, 0, "B", 1), (0, 1, "B", 0), (1, 0, "P", 2), (2, 0, "B", 0), (2, 1, "B", 0),
        (2, 2, "B", 0), (3, 0, "P", 0), (3, 1, "P", 0), (3, 2, "P", 0), (4, 0, "B", 0),
        (5, 0, "P", 0), (6, 0, "B", 0), (6, 1, "B", 0), (6, 2, "B", 0), (6, 3, "B", 1),
        (7, 0, "P", 0), (7, 1, "P", 0)]


def test_big_eye_boy_by_hand():
    h = history(HAND)
    assert colours(h, "big_eye_boy") == [U, U, R, U, R, R, R, U, R, U, R, R, U, R]
    # Laid out as the big road is: a column per run of one colour.
    assert laid(h, "big_eye_boy") == [
        (0, 0, "b"), (0, 1, "b"), (1, 0, "r"), (2, 0, "b"), (3, 0, "r"), (3, 1, "r"),
        (3, 2, "r"), (4, 0, "b"), (5, 0, "r"), (6, 0, "b"), (7, 0, "r"), (7, 1, "r"),
        (8, 0, "b"), (9, 0, "r")]


def test_small_road_by_hand():
    h = history(HAND)
    assert colours(h, "small_road") == [R, U, U, U, R, U, U, U, U, R, R, U, U]
    assert laid(h, "small_road") == [
        (0, 0, "r"), (1, 0, "b"), (1, 1, "b"), (1, 2, "b"), (2, 0, "r"), (3, 0, "b"),
        (3, 1, "b"), (3, 2, "b"), (3, 3, "b"), (4, 0, "r"), (4, 1, "r"), (5, 0, "b"),
        (5, 1, "b")]


def test_cockroach_pig_by_hand():
    h = history(HAND)
    assert colours(h, "cockroach_pig") == [R, U, U, R, U, R, R, U, U, U]
    assert laid(h, "cockroach_pig") == [
        (0, 0, "r"), (1, 0, "b"), (1, 1, "b"), (2, 0, "r"), (3, 0, "b"), (4, 0, "r"),
        (4, 1, "r"), (5, 0, "b"), (5, 1, "b"), (5, 2, "b")]


def test_ask_road_by_hand():
    h = history(HAND)
    roads = ("big_eye_boy", "small_road", "cockroach_pig")
    assert h.view(1)["ask"] == {"B": dict.fromkeys(roads, U), "P": dict.fromkeys(roads, R)}
    # And the ask road is what the roads then show: add each outcome and compare.
    for outcome in "BP":
        after = history(HAND + outcome)
        assert {r: colours(after, r)[-1] for r in roads} == h.view(1)["ask"][outcome]


def test_the_derived_roads_start_only_at_their_start_points():
    # B P B P: big eye boy starts at the top of column 2 (column 1 has one entry), the small
    # road at column 3, the cockroach pig at column 4: nothing yet for it.
    h = history("BPBP")
    assert colours(h, "big_eye_boy") == [R, R]  # columns 1 and 0 equal, then 2 and 1
    assert colours(h, "small_road") == [R]
    assert colours(h, "cockroach_pig") == []
    assert h.view(1)["ask"]["B"] == {"big_eye_boy": R, "small_road": R, "cockroach_pig": R}
    assert history("BB").view(1)["ask"]["P"] == {
        "big_eye_boy": None, "small_road": None, "cockroach_pig": None}
    # Column 1 of two entries: big eye boy starts at its second entry, (1,1): column 0 has
    # one entry, ending one row above: blue.
    assert colours(history("BPP"), "big_eye_boy") == [U]


def test_a_chopping_shoe_paints_the_derived_roads_red_with_a_dragon_tail():
    # B P B P B P B P B P: every column one long, so every mark compares equal lengths: red.
    # Big eye boy gets 8 marks from column 2 on: six down, then right along the bottom row.
    h = history("BP" * 5)
    assert laid(h, "big_eye_boy") == [(0, r, "r") for r in range(6)] + [(1, 5, "r"), (2, 5, "r")]
    assert laid(h, "small_road") == [(0, r, "r") for r in range(6)] + [(1, 5, "r")]
    assert laid(h, "cockroach_pig") == [(0, r, "r") for r in range(6)]


def test_streaks_and_the_mean_cards_a_coup():
    h = history(HAND)
    stats = h.view(1)
    assert stats["streaks"] == {"longest": {"banker": 4, "punter": 3},
                                "current": {"winner": "P", "length": 2}}
    assert stats["counts"] == {"banker": 10, "punter": 7, "egalite": 4, "naturals": 0}
    assert h.mean_cards_per_coup() == 4.94 * 5 / (21 + 5)  # the test lines carry no cards


def test_the_json_is_the_view_and_grows_by_fragments():
    h = History()
    for i, outcome in enumerate(HAND):
        names = {"B": "banker", "P": "punter", "E": "egalite"}
        h.add(result(i + 1, names[outcome]))
        assert json.loads(h.json(1)) == h.view(1)
    assert h.json(2) == h.json(None) and b'"big_road":[]' in h.json(2)
