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
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from hil.console_demo import DEMO_MONEY
from hil.harness import ROOT
from hil.readable import describe
from shoe_daemon.display.words import Words
from shoe_daemon.game.houses import PROFILES
from tests.console_support import Client
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


UNREADABLE = ("--profile", "baden", "--seed", "4", "--pace", "0.005", "--fault",
              "unreadable=0.5", "--http", "127.0.0.1:0")


class Demo:
    """`python -m hil.harness demo` as a child, its stdout read line by line; its standard
    input a pipe (the terminal's Enter)."""

    def __init__(self, *args: str, common: tuple[str, ...] = UNREADABLE) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hil.harness", "demo", *common, *args],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def next(self) -> str:
        return self.lines.get(timeout=30)

    def enter(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()

    def stop(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(60)
        assert self.proc.stderr is not None
        return rc, self.proc.stderr.read()

    def rest(self) -> list[str]:
        """Every line still to read, once the demo has ended."""
        self.reader.join(30)
        out = []
        while not self.lines.empty():
            out.append(self.lines.get_nowait())
        return out


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


# ---- demo --console: the console, the house's money, the shoe's DEAL button ------------------

CONSOLE = re.compile(r"croupier's console: (http://127\.0\.0\.1:\d+/) \(open it in a browser; "
                     r"sign in as one of these\)")
PERSON = re.compile(r"  (croupier|supervisor) +[A-Za-z ]+ \(([a-z]+)\): PIN (\d{4}), "
                    r"badge (DEMO-[CS]-[0-9A-F]{4})")
SETTLED = re.compile(r"shoe (\d+) coup +(\d+)   settled: (.+)")


def console_demo(profile: str, seed: int, *args: str) -> Demo:
    return Demo("--console", "--console-at", "127.0.0.1:0", *args,
                common=("--profile", profile, "--seed", str(seed), "--pace", "0.005",
                        "--http", "127.0.0.1:0"))


def opening(demo: Demo) -> tuple[str, dict[str, tuple[str, str, str]]]:
    """The console's URL and the people printed: role -> (id, PIN, badge)."""
    assert demo.next().startswith("table display: http://127.0.0.1:")
    url = CONSOLE.fullmatch(demo.next())
    assert url
    people = {}
    for _ in range(2):
        person = PERSON.fullmatch(demo.next())
        assert person
        people[person[1]] = (person[2], person[3], person[4])
    assert demo.next().startswith("simulated ")
    return url[1], people


def summary(lines: list[str]) -> dict[str, str]:
    """The summary's Total, figure by name ("Coups", "Settled", "Staked", ...)."""
    at = lines.index("summary: the demo's shift report (shoe-daemon report --all)")
    total = lines[at:][lines[at:].index("Total: 1 shoe(s)") + 1:]
    return {line[2:20].strip(): line[20:] for line in total if line.startswith("  ")}


def test_demo_console_deals_on_enter_what_was_staked_on_the_console() -> None:
    """The visitor's demo: the console's URL and two people printed, whose PIN and badge sign
    in; the shoe deals nothing until Enter; the coup's line and its settlement (003's worked
    example: bank Fr. 800, stakes Fr. 300, 200, 100, the bank wins), and the summary."""
    demo = console_demo("baden", 1)  # its first coup: the bank wins, 8 to 6
    try:
        url, people = opening(demo)
        assert set(people) == {"croupier", "supervisor"}
        assert "press Enter" in demo.next()
        supervisor = Client(url)
        assert supervisor.badge(people["supervisor"][2])[0] == 200
        croupier = Client(url)
        person, pin, _ = people["croupier"]
        status, body = croupier.sign_in(person, pin)
        assert status == 200 and body["me"]["role"] == "croupier"
        for seat in range(1, 7):
            assert croupier.act("sit", seat=str(seat))[0] == 200
        status, state, _ = croupier.get("/api/state")
        turn = state["console"]["money"]["turn"]
        assert croupier.act("take_bank", who=f"seat {turn}", amount="800")[0] == 200
        status, state, _ = croupier.get("/api/state")
        prime = state["console"]["money"]["prime"][:3]
        for who, amount in zip(prime, ("300", "200", "100"), strict=True):
            status, body = croupier.act("stake", who=who, amount=amount)
            assert status == 200, body
        with pytest.raises(queue.Empty):
            demo.lines.get(timeout=1.5)  # nobody pressed DEAL: nothing is dealt
        demo.enter()
        coup = read_coup(demo.next())
        settled = SETTLED.fullmatch(demo.next())
    finally:
        rc, err = demo.stop()
    rest = demo.rest()
    assert rc == 0, err
    assert coup["coup"] == 1 and coup["outcome"] == "banker"
    assert settled and settled.group(1, 2) == ("1", "1")
    assert settled[3].startswith(f"{prime[0]} lost Fr. 300, {prime[1]} lost Fr. 200, "
                                 f"{prime[2]} lost Fr. 100, seat {turn} (bank) won Fr. 570; "
                                 "Taxe Fr. 30; the bank Fr. "), settled[3]
    told = summary(rest)
    assert told["Coups"] == "1: Banco 1"
    assert told["Settled"] == "1 (1 with stakes)"
    assert (told["Staked"], told["Taxe"]) == ("Fr. 600", "Fr. 30")


def outcome_said(settled: str, outcome: str, punto_banco: bool) -> bool:
    """Whether a settlement's words follow the coup's outcome: at Chemin de fer the bank's
    line, at Punto Banco the bets on the two sides."""
    if punto_banco:
        banco, punto = re.findall(r"on Banco (\w+)", settled), re.findall(r"on Punto (\w+)",
                                                                          settled)
        want = {"banker": ("won", "lost"), "punter": ("lost", "won"),
                "egalite": ("stays", "stays")}[outcome]
        return all(r == want[0] for r in banco) and all(r == want[1] for r in punto)
    bank = re.search(r"\(bank\) (\w+)", settled)
    if bank is None:
        return settled == "nothing staked"
    return bank[1] == {"banker": "won", "punter": "lost", "egalite": "returned"}[outcome]


@pytest.mark.parametrize("profile", sorted(DEMO_MONEY))
def test_demo_console_croupier_moves_money_unattended(profile: str) -> None:
    """`--croupier`: the demo's croupier signs in, seats, banks and stakes through the console
    and presses DEAL: every coup's line has its settlement under it, which follows its
    outcome, money moves, and the summary counts what the lines said."""
    assert set(DEMO_MONEY) == set(PROFILES)  # a money configuration for every house
    demo = console_demo(profile, 5, "--croupier")
    try:
        opening(demo)
        seen = until_coup(demo, 4)
    finally:
        rc, err = demo.stop()
    lines = seen + demo.rest()
    assert rc == 0, err
    coups = [read_coup(text) for text in lines if is_coup(text)]
    settled = [SETTLED.fullmatch(text) for text in lines if SETTLED.fullmatch(text)]
    assert [c["coup"] for c in coups] == [int(s[2]) for s in settled]  # one under each
    punto_banco = profile == "baden-punto-banco"
    for coup, words in zip(coups, settled, strict=True):
        assert outcome_said(words[3], coup["outcome"], punto_banco), (coup, words[3])
    staked = [s for s in settled if s[3] != "nothing staked"]
    assert len(staked) >= 3, lines  # the croupier staked on (nearly) every coup
    assert not [text for text in lines if " refused: " in text]
    told = summary(lines)
    outcomes = Counter(c["outcome"] for c in coups)
    said = ", ".join(f"{word} {outcomes[key]}" for key, word in (
        ("banker", "Banco"), ("punter", "Punto"), ("egalite", "Égalité")) if outcomes[key])
    assert told["Coups"] == f"{len(coups)}: {said}"
    assert told["Settled"] == f"{len(settled)} ({len(staked)} with stakes)"
    dealt = [re.fullmatch(r"croupier: (\d+) coups staked and dealt, \d+ actions taken, "
                          r"0 refused", text) for text in lines]
    counted = [int(m[1]) for m in dealt if m]  # the last may be settled as the demo stops
    assert counted and len(staked) - 1 <= counted[0] <= len(staked), lines
    # The bank's history in the summary: the hands the croupier's players held, no other.
    hands = [text for text in lines if re.match(r"    (seat \d+|None)\b.*: ", text)]
    assert all(text.startswith("    seat ") for text in hands), hands
    assert punto_banco or hands
