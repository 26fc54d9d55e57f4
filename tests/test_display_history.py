"""The shoe's history: bead plate, big road (égalité marks, dragon tail), counts, Swiss Nine."""

from __future__ import annotations

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
