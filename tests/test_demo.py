"""The README's demo, as a person watching it reads it: the display's URL first, then the
published lines in words (hil/readable.py); `--json` keeps the lines themselves.

The words are read back here (a parser of the words, not the formatter again) and compared
with the lines they came from: every line of the regression corpus, and a live demo (the
simulated shoe and the real daemon) against the same demo run with `--json`.
"""

from __future__ import annotations

import json
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from hil.harness import ROOT
from hil.readable import describe
from shoe_daemon.display.words import Words
from tests.display_client import get

CORPUS = sorted(p for p in (ROOT / "tests/corpus").glob("*.jsonl")
                if not p.name.endswith(".console.jsonl"))  # a run's console actions
WORDS = r"[a-z]+(?:,? [a-z]+)*"  # "a b, c": columns are three spaces apart
FRENCH = Words()  # the words file's default: the French terms, as the demo's table has them


def outcomes(terms: Words) -> dict[str, str]:
    """An outcome as the line says it, in the table's terms, to what it was."""
    return {f"{terms.term('banco')} wins": "banker", f"{terms.term('punto')} wins": "punter",
            terms.term("egalite"): "egalite",
            "cancelled, without loss to either side": "cancelled",
            "voided by a supervisor": "void"}


def hand(key: str) -> str:
    cards = r"(?:[A2-9TJQK][CDHS] ?)+"
    return (rf"(no cards|(?P<{key}>{cards}) \((?P<{key}_total>\d)(?P<{key}_nat>, natural)?"
            rf"(?P<{key}_bac>, bac)?\))")


def coup_pattern(terms: Words) -> re.Pattern[str]:
    punto, banco = re.escape(terms.term("punto")), re.escape(terms.term("banco"))
    said = "|".join(map(re.escape, outcomes(terms)))
    return re.compile(
        rf"shoe (?P<shoe>\d+) coup +(?P<coup>\d+)   {punto} {hand('p')}   {banco} {hand('b')}   "
        rf"(?P<outcome>{said})(   swiss nine: (?P<swiss>{WORDS}))?"
        rf"(   irregularities: (?P<irr>{WORDS}))?(   rulings: (?P<rul>[a-z0-9 ,._-]+?))?"
        rf"(?P<last>   last coup of the shoe)?")


def read_coup(text: str, terms: Words = FRENCH) -> dict[str, Any]:
    """A coup's line in words, back to the fields it must carry."""
    m = coup_pattern(terms).fullmatch(text)
    assert m, text

    def side(key: str) -> dict[str, Any]:
        cards = m[key].split() if m[key] else []
        hand = {"cards": cards, "total": int(m[f"{key}_total"] or 0),
                "natural": bool(m[f"{key}_nat"])}
        return {**hand, "bac": True} if m[f"{key}_bac"] else hand

    return {"shoe": int(m["shoe"]), "coup": int(m["coup"]),
            "outcome": outcomes(terms)[m["outcome"]],
            "punter": side("p"), "banker": side("b"), "last_coup": bool(m["last"]),
            "irregularities": m["irr"].upper().replace(" ", "_").split(",_") if m["irr"] else [],
            "swiss_nine": m["swiss"].split(", ") if m["swiss"] else [],
            "rulings": m["rul"].split(", ") if m["rul"] else []}


def check(line: dict[str, Any], text: str, terms: Words = FRENCH) -> None:
    head = f"shoe {line['shoe']} coup {line['coup']:>2}   "
    assert text.startswith(head), text
    if line["event"] == "coup.result":
        got = read_coup(text, terms)
        want = {k: line[k] for k in ("shoe", "coup", "outcome", "punter", "banker",
                                     "last_coup", "irregularities")}
        want["swiss_nine"] = line.get("swiss_nine", [])
        want["rulings"] = [f"{r['code'].lower().replace('_', ' ')} by {r['by']}"
                           for r in line.get("rulings", [])]
        assert got == want, text
    elif line["event"] == "irregularity":
        words = line["code"].lower().replace("_", " ")
        kind = "HOLD" if line["hold"] else "irregularity"
        assert text == (f"{head}{kind}, {words}: {line['detail']} ({line['rule']}). "
                        f"{line['action']}"), text
    else:
        assert line["event"] == "irregularity.resolved"
        by = "the croupier" if line["by"] == "croupier" else f"supervisor {line['by']}"
        assert text.endswith(f": {line['how']} by {by}"), text


def test_every_corpus_line_reads_back_to_what_was_published() -> None:
    events = set()
    for path in CORPUS:
        for raw in path.read_text().splitlines():
            line = json.loads(raw)
            events.add(line["event"])
            check(line, describe(line))
    assert events == {"coup.result", "irregularity", "irregularity.resolved"}


@pytest.mark.parametrize(("language", "terms"), [("de", "language"), ("zh", "language"),
                                               ("en", "language"), ("de", "french")])
def test_the_lines_name_the_game_in_the_tables_terms(language: str, terms: str) -> None:
    words = Words(language, terms)
    for path in CORPUS:
        for raw in path.read_text().splitlines():
            line = json.loads(raw)
            check(line, describe(line, words), words)


def test_an_unknown_event_is_shown_as_its_json() -> None:
    line = {"event": "floor.later", "shoe": 1, "coup": 2}
    assert json.loads(describe(line)) == line


class Demo:
    """`python -m hil.harness demo` as a child, its stdout read line by line."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hil.harness", "demo", "--profile", "baden", "--seed", "4",
             "--pace", "0.005", "--fault", "unreadable=0.5", "--http", "127.0.0.1:0", *args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def next(self) -> str:
        return self.lines.get(timeout=30)

    def stop(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(60)
        assert self.proc.stderr is not None
        return rc, self.proc.stderr.read()


def is_coup(text: str, terms: Words = FRENCH) -> bool:
    return re.match(rf"shoe \d+ coup +\d+   {re.escape(terms.term('punto'))} ", text) is not None


def until_coup(demo: Demo, coups: int, terms: Words = FRENCH) -> list[str]:
    lines: list[str] = []
    while sum(is_coup(line, terms) for line in lines) < coups:
        lines.append(demo.next())
    return lines


def test_the_demo_shows_the_url_first_then_each_coup_in_words() -> None:
    words, as_json = Demo(), Demo("--json")
    try:
        first = words.next()
        url = re.fullmatch(r"table display: (http://127\.0\.0\.1:\d+/) \(open it in a browser\)",
                           first)
        assert url, first
        status, headers, _ = get(url[1], "/")
        assert status == 200 and headers["Content-Type"].startswith("text/html")
        about = re.search(r"daemon log in (\S+)/daemon\.log;", words.next())
        assert about, "the second line says where the daemon's log is"
        workdir = Path(about[1])
        assert workdir.is_dir()
        seen = until_coup(words, 5)
        published = [json.loads(as_json.next()) for _ in seen]
    finally:
        rc, _ = words.stop()
        json_rc, json_err = as_json.stop()
    assert rc == 0 and json_rc == 0
    assert not workdir.exists(), "the demo leaves its folder behind"
    assert json_err.startswith("table display: http://127.0.0.1:")  # stdout: the lines alone
    # The same shoe (seed 4) dealt twice: the words say what the JSON lines say.
    for line, text in zip(published, seen, strict=True):
        check(line, text)
    coups = [read_coup(text)["coup"] for text in seen if is_coup(text)]
    assert coups == [1, 2, 3, 4, 5]
    assert any("HOLD, unreadable card" in text for text in seen)
    assert any("hold lifted, unreadable card: ENTER" in text for text in seen)


def test_a_busy_port_is_said_in_a_line_not_a_traceback() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        demo = Demo("--http", f"127.0.0.1:{taken.getsockname()[1]}")
        rc = demo.proc.wait(60)
    assert demo.proc.stderr is not None
    err = demo.proc.stderr.read()
    assert rc == 1
    assert err.startswith("demo: the daemon exited 2: ") and "address already in use" in err, err
    assert "Traceback" not in err


def test_a_table_in_german_is_german_in_the_demos_lines_and_on_its_display() -> None:
    """The table's display_language and display_terms (the daemon's settings, from the demo's
    flags): its display's view and the printed lines name the game with the same words."""
    terms = Words("de", "language")
    demo = Demo("--display-language", "de", "--display-terms", "language")
    try:
        url = re.search(r"(http://\S+) ", demo.next())
        assert url
        demo.next()
        seen = until_coup(demo, 3, terms)
        status, _, body = get(url[1], "/api/state")
        view = json.loads(body)
        status_words, _, words_file = get(url[1], "/static/words.json")
    finally:
        rc, err = demo.stop()
    assert rc == 0, err
    coups = [read_coup(text, terms) for text in seen if is_coup(text, terms)]
    assert [c["coup"] for c in coups] == [1, 2, 3]
    assert all(" Spieler " in text and " Bank " in text for text in seen if is_coup(text, terms))
    assert not any("Banco" in text or "Punto" in text for text in seen)
    # The display of that table: its view says German with German terms, its state in them,
    # and the words file it serves says them as the lines did.
    assert status == 200 and (view["language"], view["terms"]) == ("de", "de")
    assert view["state_words"] == terms[f"state.{view['state']}"]
    served = json.loads(words_file)["terms"][view["terms"]]
    assert status_words == 200
    assert (served["punto"], served["banco"]) == ("Spieler", "Bank")
