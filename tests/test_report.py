"""`shoe-daemon report`: the shift report, per shoe, from the ledger or an export.

The ledgers are real (hil/money_ledger.py: dealt shoes, a croupier's money session, a
console's void and a shoe's KEY and VOID, a short last coup). Every figure is checked
against sums computed here, independently, from the records themselves; the bank's history
against the `money.bank` records; a report is refused where the records do not check.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from datetime import time as clock_time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from hil.dealer import GameFaults
from hil.money_ledger import SECOND, T0_NS, Clock, MoneyTable, records_of
from hil.processes import ROOT
from shoe_daemon.audit import keys
from shoe_daemon.audit.export import export as write_export
from shoe_daemon.audit.layout import iso
from shoe_daemon.audit.ledger import Record
from shoe_daemon.display.words import Words
from shoe_daemon.odds.tracker import KINDS as MONITOR_KINDS
from shoe_daemon.report.cli import current_shift, ns, parse_shifts
from shoe_daemon.service.cli import main
from tests.money_support import money_table
from tests.test_audit_money import at, forge

D0 = Decimal(0)


def report(capsys, *argv: str | Path) -> tuple[int, Any, str]:
    code = main(["report", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if "--json" in argv and code == 0 else out), err


@pytest.fixture(scope="module")
def baden(tmp_path_factory) -> Path:
    state = tmp_path_factory.mktemp("baden") / "state"
    MoneyTable(state, "baden", seed=3, shoes=2, voids={5: "console", 9: "shoe"},
               faults=GameFaults(short_last_coup=1.0)).run()
    keys.keygen(state)
    return state


@pytest.fixture(scope="module")
def punto_banco(tmp_path_factory) -> Path:
    state = tmp_path_factory.mktemp("pb") / "state"
    MoneyTable(state, "baden-punto-banco", seed=4, shoes=2, voids={7: "console"}).run()
    return state


# ---- the figures, computed here from the records ---------------------------------------------


def expected(records: list[Record], first: int = 1, last: int | None = None
             ) -> dict[int, dict[str, Any]]:
    """Per shoe, from the records of the range alone: the outcomes of the coups published,
    and the money of the settlements (a settlement a supervisor reopened: as corrected)."""
    last = records[-1].idx if last is None else last
    shoes: dict[int, dict[str, Any]] = defaultdict(lambda: {
        "outcomes": Counter(), "staked": D0, "drop": D0, "commission": D0, "settled": 0,
        "nets": defaultdict(lambda: [D0, D0])})
    settled: dict[tuple[int, int], dict[str, Any]] = {}
    for r in records:
        if not first <= r.idx <= last:
            continue
        if r.kind == "result" and r.body["line"]["event"] == "coup.result":
            shoes[r.body["line"]["shoe"]]["outcomes"][r.body["line"]["outcome"]] += 1
        if r.kind == "money.settlement":
            settled[(r.body["shoe"], r.body["coup"])] = r.body
        elif r.kind == "money.correction" and r.body["change"] == "settlement":
            settled[(r.body["shoe"], r.body["coup"])] = r.body["settlement"]
    for body in settled.values():
        s = shoes[body["shoe"]]
        s["settled"] += 1
        s["commission"] += Decimal(body["commission"])
        void = body["outcome"] in ("void", "cancelled")
        for ln in body["lines"]:
            if ln["stake"] and not void and ln["result"] != "stays":
                s["staked"] += Decimal(ln["staked"])
                if ln["result"] in ("won", "lost"):
                    s["drop"] += Decimal(ln["in_play"])
            side = ("punters" if ln["stake"] else "bank") if body["profile"] == "baden" \
                else ln["kind"]
            net = Decimal(ln["net"])
            s["nets"][side][0 if net > 0 else 1] += abs(net)
    return shoes


def check_figures(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert {k: v for k, v in got["coups"].items() if k in ("banker", "punter", "egalite",
                                                          "void", "cancelled") and v} == \
        dict(want["outcomes"])
    assert got["settled"] == want["settled"]
    for key in ("staked", "drop", "commission"):
        assert Decimal(got[key]) == want[key], key
    for side, (won, lost) in want["nets"].items():
        assert (Decimal(got["sides"][side]["won"]), Decimal(got["sides"][side]["lost"])) == \
            (won, lost), side
        assert Decimal(got["sides"][side]["net"]) == won - lost
    total = sum((Decimal(s["net"]) for s in got["sides"].values()), D0)
    assert total + Decimal(got["commission"]) == 0  # every side's net and the house's cut


def test_the_figures_per_shoe_are_the_records_sums(baden: Path, capsys) -> None:
    code, got, err = report(capsys, "--state-dir", baden, "--all", "--json")
    assert code == 0, err
    records = records_of(baden)
    want = expected(records)
    assert [s["shoe"] for s in got["shoes"]] == sorted(want) == [1, 2]
    for shoe in got["shoes"]:
        check_figures(shoe, want[shoe["shoe"]])
    total = {"outcomes": sum((w["outcomes"] for w in want.values()), Counter()),
             "settled": sum(w["settled"] for w in want.values()),
             **{k: sum((w[k] for w in want.values()), D0) for k in ("staked", "drop",
                                                                     "commission")},
             "nets": {side: [sum((w["nets"][side][i] for w in want.values()), D0)
                             for i in (0, 1)] for side in ("bank", "punters")}}
    check_figures(got["total"], total)
    assert Decimal(got["total"]["drop"]) > 0 and Decimal(got["total"]["commission"]) > 0
    assert got["currency"] == {"code": "CHF", "name": "Swiss franc"}
    assert got["records"] == {"first": 1, "last": records[-1].idx, "count": len(records)}
    assert "chain and seals good; money: " in got["source"]


def test_punto_banco_by_bet_and_the_casinos_result(punto_banco: Path, capsys) -> None:
    code, got, err = report(capsys, "--state-dir", punto_banco, "--all", "--json")
    assert code == 0, err
    want = expected(records_of(punto_banco))
    for shoe in got["shoes"]:
        check_figures(shoe, want[shoe["shoe"]])
        bets = sum((Decimal(side["net"]) for name, side in shoe["sides"].items()
                    if name != "house"), D0)
        assert Decimal(shoe["house"]["result"]) == -bets  # what the players lost, it won
        assert Decimal(shoe["drop"]) == Decimal(shoe["staked"])  # a bet is played whole
    assert set(got["total"]["sides"]) == {"punto", "banco", "egalite", "simple_nine",
                                          "colour_nine", "swiss_nine", "house"}
    assert got["shoes"][0]["bank"] == []


def test_the_banks_history(baden: Path, capsys) -> None:
    _, got, _ = report(capsys, "--state-dir", baden, "--all", "--json")
    records = records_of(baden)
    changes = [r.body for r in records if r.kind == "money.bank"]
    takes = [b for b in changes if b["change"] in ("take", "accept")
             or (b["change"] == "award" and b["who"])]
    hands = [h for shoe in got["shoes"] for h in shoe["bank"]]
    fresh = [h for h in hands if not h["taken"].startswith("held")]
    assert [(h["holder"], h["from"]) for h in fresh] == [(b["who"], b["amount"])
                                                         for b in takes]
    # a hand held over a new shoe goes on in the next, from where it stood
    for a, b in itertools.pairwise(hands):
        if b["taken"] == "held on from the shoe before":
            assert a["ended"]["how"] == "held on into the next shoe"
            assert (a["holder"], a["to"]) == (b["holder"], b["from"])
    ends = Counter(h["ended"]["how"] for h in hands if h["ended"])
    suites = [b for b in changes if b["change"] == "suite"]
    lost = [b for b in changes if b["change"] == "settled" and b["outcome"] == "punter"
            and b["bank"]["phase"] != "held"]
    assert ends["Suite"] == len(suites) > 0 and ends["lost"] == len(lost) > 0
    for hand, suite in zip([h for h in hands if h["ended"] and h["ended"]["how"] == "Suite"],
                           suites, strict=True):
        assert hand["ended"]["amount"] == suite["amount"] == hand["to"]
    # 003 (issue 20): the Schokolade set aside by each settlement, and any asked for
    set_aside = [Decimal(r.body["bank"].get("set_aside", "0")) for r in records
                 if r.kind == "money.settlement" and r.body["bank"]]
    asked = [Decimal(b["amount"]) for b in changes if b["change"] == "schokolade"]
    assert sum((Decimal(h["schokolade"]) for h in hands), D0) == sum(set_aside + asked, D0) > 0
    assert any(set_aside)
    counted = {(r.body["shoe"], r.body["coup"]) for r in records
               if r.kind == "money.settlement" and r.body["counts"]}
    assert sum(h["won"] for h in hands) == sum(
        1 for b in changes if b["change"] == "settled" and b["outcome"] == "banker"
        and (b["shoe"], b["coup"]) in counted)
    declines = [b for b in changes if b["change"] == "decline"]
    offers = [o for shoe in got["shoes"] for o in shoe["offers"]]
    assert [o["who"] for o in offers if o["change"] == "decline"] == \
        [b["who"] for b in declines]


def test_voids_and_who_voided_them(baden: Path, capsys) -> None:
    _, got, _ = report(capsys, "--state-dir", baden, "--all", "--json")
    voids = [v for shoe in got["shoes"] for v in shoe["voids"]]
    records = records_of(baden)
    settled = {(r.body["shoe"], r.body["coup"]): r.body for r in records
               if r.kind == "money.settlement"}
    console = next(v for v in voids if v["how"] == "the console's void")
    assert (console["by"], console["role"], console["reason"]) == \
        ("ana", "supervisor", "cards dropped on the floor")
    shoe = next(v for v in voids if v["how"] == "KEY and VOID at the shoe")
    assert (shoe["by"], shoe["role"]) == ("4711", "supervisor")
    cancelled = [v for v in voids if v["outcome"] == "cancelled"]
    assert len(cancelled) == 2 and all("SHORT_LAST_COUP" in v["irregularities"]
                                       for v in cancelled)
    assert all(v["how"] == "000 rule 24: the shoe ran short" and v["by"] is None
               for v in cancelled)
    for n, shoe_figures in enumerate(got["shoes"], 1):
        for v in shoe_figures["voids"]:
            lines = [ln for ln in settled[(n, v["coup"])]["lines"] if ln["stake"]]
            assert v["stakes"] == len(lines)
            assert Decimal(v["returned"]) == sum((Decimal(ln["paid"]) for ln in lines), D0)
            assert all(ln["paid"] == ln["staked"] for ln in lines)
    assert got["total"]["voids"] == len(voids) == 4


def test_a_time_range_reports_its_records_only(baden: Path, capsys) -> None:
    records = records_of(baden)
    settlements = [r for r in records if r.kind == "money.settlement"]
    start, end = settlements[30].wall_ns, settlements[90].wall_ns
    code, got, err = report(capsys, "--state-dir", baden, "--from", iso(start)[:26] + "Z",
                            "--to", iso(end)[:26] + "Z", "--json")
    assert code == 0, err
    first = min(r.idx for r in records if r.wall_ns >= start)
    last = max(r.idx for r in records if r.wall_ns < end)
    assert got["records"] == {"first": first, "last": last, "count": last - first + 1}
    want = expected(records, first, last)
    for shoe in got["shoes"]:
        check_figures(shoe, want[shoe["shoe"]])
    assert got["shoes"][0]["coups"]["first"] == settlements[30].body["coup"]
    assert got["range"] == {"from": iso(start)[:26] + "000Z", "to": iso(end)[:26] + "000Z"}
    hand = got["shoes"][0]["bank"][0]
    before = [r.body["bank"] for r in records if r.kind == "money.bank" and r.idx < first][-1]
    if before["phase"] == "held":
        assert hand["taken"] == "held before the range" and hand["holder"] == before["holder"]
        assert hand["from"] == before["amount"]


def test_the_report_of_an_export_is_the_ledgers(baden: Path, tmp_path: Path, capsys) -> None:
    records = records_of(baden)
    start = records[400].wall_ns
    write_export(baden, tmp_path / "export", start_ns=start)
    code, from_export, err = report(capsys, tmp_path / "export", "--json")
    assert code == 0, err
    code, from_ledger, _ = report(capsys, "--state-dir", baden, "--from",
                                  iso(start)[:26] + "Z", "--json")
    assert from_export["source"].startswith(f"export {tmp_path / 'export'}: export intact")
    for part in ("shoes", "total", "records", "table", "profile", "currency"):
        assert from_export[part] == from_ledger[part], part


@pytest.mark.parametrize("profile", ["baden", "baden-punto-banco"])
def test_a_supervisors_corrections_in_the_figures(tmp_path: Path, profile: str,
                                                  capsys) -> None:
    """Stakes corrected after "Rien ne va plus", settlements reopened as void, limits
    changed: the figures are the corrected settlements' sums, each correction listed with
    who made it and why."""
    state = tmp_path / "state"
    MoneyTable(state, profile, seed=5, shoes=2, supervisor=True).run()
    code, got, err = report(capsys, "--state-dir", state, "--all", "--json")
    assert code == 0, err
    records = records_of(state)
    want = expected(records)
    for shoe in got["shoes"]:
        check_figures(shoe, want[shoe["shoe"]])
    corrections = [r for r in records if r.kind == "money.correction"]
    listed = [c for shoe in got["shoes"] for c in shoe["corrections"]]
    assert [c["ledger_index"] for c in listed] == [r.idx for r in corrections]
    assert {(c["change"], c["by"]) for c in listed} == {("stake", "ana"), ("settlement", "ana")}
    assert all(c["reason"] for c in listed)
    reopened = [r.body for r in corrections if r.body["change"] == "settlement"]
    found_void = [v for shoe in got["shoes"] for v in shoe["voids"]
                  if v["how"] == "a supervisor reopened the settlement as void"]
    assert len(found_void) == len(reopened) > 0 and all(v["by"] == "ana" for v in found_void)
    assert got["total"]["corrections"] == len(corrections)
    # a reopened coup's money is its correction's, not the settlement it replaced
    for body in reopened:
        shoe = next(s for s in got["shoes"] if s["shoe"] == body["shoe"])
        original = body["original"]
        assert original["outcome"] != "void" and body["settlement"]["outcome"] == "void"
        assert shoe["settled"] == want[body["shoe"]]["settled"]
    code, text, _ = report(capsys, "--state-dir", state, "--all")
    assert "  Corrections:" in text


def test_the_live_ledger_while_the_daemon_runs(tmp_path: Path) -> None:
    """`shoe-daemon report` run as the pit runs it, another process beside the real daemon
    while it takes stakes and settles coups: every report checks and reports what was
    committed when it read (a prefix of the day, never half a transaction), and changes
    nothing in the ledger (it opens it read-only)."""
    state = tmp_path / "state"
    argv = [sys.executable, "-m", "shoe_daemon.service.cli", "report", "--state-dir",
            str(state), "--all", "--json"]
    reports: list[tuple[int, dict[str, Any] | str, list[Record]]] = []
    with money_table(state, "baden") as play:
        play.seat(1, 2, 3, 5, 7)
        play.ok("take_bank", who="seat 1", amount="800")
        running: subprocess.Popen[str] | None = None
        for n in range(8):
            punter = next(f"seat {p}" for p in (3, 5) if f"seat {p}" != play.bank()["holder"])
            play.ok("stake", who=punter, amount=str(100 + 10 * n))
            play.ok("stake", who="outsider A", amount="50")
            if running is not None:  # a report read while this coup's stakes were taken
                out, err = running.communicate(timeout=120)
                reports.append((running.returncode, json.loads(out) if out else err,
                                records_of(state)))
            running = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True)
            play.coup("banker" if n % 3 else "punter")
            money = play.t.loop.table.till.money
            if money.bank.phase.value != "held":  # the bank passed: the next in turn takes it
                play.ok("take_bank", who=f"seat {money.bank.turn(money.seating)}",
                        amount="800")
        assert running is not None
        out, err = running.communicate(timeout=120)
        reports.append((running.returncode, json.loads(out) if out else err,
                        records_of(state)))
        before = records_of(state)
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        after = records_of(state)
        # The report wrote nothing: what the ledger gained meanwhile is the daemon's own odds
        # monitor, which commits its findings when the line is quiet (docs/odds.md).
        assert [(r.idx, r.hash) for r in after[:len(before)]] == \
            [(r.idx, r.hash) for r in before]
        assert {r.kind for r in after[len(before):]} <= set(MONITOR_KINDS), \
            [r.kind for r in after[len(before):]]
        final = json.loads(done.stdout)
    for code, got, after in reports:
        assert code == 0, got
        assert isinstance(got, dict)
        last = got["records"]["last"]
        assert last <= after[-1].idx
        seen = [r for r in after if r.idx <= last]
        want = expected(seen)
        for shoe in got["shoes"]:
            check_figures(shoe, want[shoe["shoe"]])
        assert got["total"]["settled"] == sum(r.kind == "money.settlement" for r in seen)
    assert final["total"]["settled"] == 8
    assert final["records"]["last"] == before[-1].idx
    settled = [got["total"]["settled"] for _, got, _ in reports if isinstance(got, dict)]
    assert settled == sorted(settled)  # each a later prefix of the same day


def test_the_readable_text(baden: Path, capsys) -> None:
    code, text, _ = report(capsys, "--state-dir", baden, "--all")
    assert code == 0
    assert text.startswith("Shift report: table T7, baden (Swiss franc, CHF)\n")
    code, got, _ = report(capsys, "--state-dir", baden, "--all", "--json")
    first = got["shoes"][0]
    assert f"Shoe 1 (coups 1 to {first['coups']['last']}," in text
    assert "  Drop              Fr. " in text and "  Taxe              Fr. " in text
    assert "the console's void by ana (supervisor): \"cards dropped on the floor\"" in text
    assert "KEY and VOID at the shoe by 4711 (supervisor)" in text
    assert "000 rule 24: the shoe ran short [SHORT_LAST_COUP]" in text
    hand = first["bank"][0]
    assert f"    {hand['holder']}: {hand['taken']}, Fr. " in text
    assert "Total: 2 shoe(s)" in text and "Suite at Fr. " in text
    assert got["display"] == {"language": "en", "terms": "french"}  # the settings' default
    assert said(coups_line(got["total"]["coups"], Words()), text)


def coups_line(coups: dict[str, int], terms: Words) -> str:
    """The report's line of the coups decided, worded here from the words file (up to the
    voids and the coups cancelled)."""
    told = ", ".join(f"{terms.term(term)} {coups[key]}" for key, term in (
        ("banker", "banco"), ("punter", "punto"), ("egalite", "egalite")) if coups[key])
    return f"  Coups             {coups['decided']}: {told}"


def said(start: str, text: str) -> bool:
    return any(line == start or line.startswith(start + ", ") for line in text.splitlines())


def test_the_game_is_named_in_the_tables_terms_from_its_ledger_and_its_export(
        tmp_path: Path, capsys) -> None:
    """The table's display_language and display_terms, as its daemon.start recorded them,
    word the report's game (the ledger's and an export's that begins after that record)."""
    state = tmp_path / "state"
    MoneyTable(state, "baden", seed=3, shoes=1, display={"display_language": "de",
                                                         "display_terms": "language"}).run()
    keys.keygen(state)
    german = Words("de", "language")
    code, text, err = report(capsys, "--state-dir", state, "--all")
    assert code == 0, err
    code, got, _ = report(capsys, "--state-dir", state, "--all", "--json")
    assert got["display"] == {"language": "de", "terms": "language"}
    assert said(coups_line(got["total"]["coups"], german), text)
    assert "Spieler" in text and "Bank " in text
    assert not any(word in text for word in ("Banco", "Punto", "égalité", "Égalité"))
    records = records_of(state)
    assert records[0].kind == "daemon.start"
    write_export(state, tmp_path / "export", start_ns=records[40].wall_ns)
    code, exported, err = report(capsys, tmp_path / "export")
    assert code == 0, err
    code, got, _ = report(capsys, tmp_path / "export", "--json")
    assert got["display"] == {"language": "de", "terms": "language"}
    assert said(coups_line(got["total"]["coups"], german), exported)
    assert "Banco" not in exported and "Punto" not in exported


def test_the_current_shift(tmp_path: Path, capsys) -> None:
    now = datetime.now().astimezone()
    begins, ends = current_shift(now, parse_shifts("06:00,14:00,22:00"))
    state = tmp_path / "state"
    # Yesterday's records, then today's from the shift's start: only these are reported.
    clock = Clock(start=ns(begins) - 24 * 3600 * SECOND)
    table = MoneyTable(state, "baden", seed=8, clock=clock)
    table.ledger.close()
    clock.wall = ns(begins) + SECOND
    MoneyTable(state, "baden", seed=8, clock=clock).run()
    code, got, err = report(capsys, "--state-dir", state, "--json")
    assert code == 0, err
    records = records_of(state)
    inside = [r for r in records if ns(begins) <= r.wall_ns < ns(ends)]
    assert got["records"]["first"] == inside[0].idx == 2
    assert got["shift"].startswith(f"the current shift, {begins:%Y-%m-%d %H:%M} to "
                                   f"{ends:%H:%M}")
    check_figures(got["shoes"][0], expected(records, 2)[1])


def test_shifts_around_midnight() -> None:
    tz = UTC
    starts = parse_shifts("22:00,06:00, 14:00")
    at_night = datetime(2026, 3, 2, 1, 30, tzinfo=tz)
    assert current_shift(at_night, starts) == (datetime(2026, 3, 1, 22, tzinfo=tz),
                                               datetime(2026, 3, 2, 6, tzinfo=tz))
    at_six = datetime(2026, 3, 2, 6, 0, tzinfo=tz)
    assert current_shift(at_six, starts)[0] == at_six
    late = datetime(2026, 3, 2, 23, 59, tzinfo=tz)
    assert current_shift(late, parse_shifts("06:00")) == (
        datetime(2026, 3, 2, 6, tzinfo=tz), datetime(2026, 3, 3, 6, tzinfo=tz))
    assert ns(datetime(2026, 3, 1, 6, tzinfo=tz)) == T0_NS
    assert ns(datetime(2026, 3, 1, 7, tzinfo=UTC) + timedelta(hours=0)) == T0_NS + 3600 * SECOND
    assert clock_time(6) in starts


def test_an_empty_shift(baden: Path, capsys) -> None:
    code, got, err = report(capsys, "--state-dir", baden, "--from", "2030-01-01", "--json")
    assert code == 0, err
    assert got["shoes"] == [] and got["records"]["count"] == 0
    assert got["total"]["coups"]["decided"] == 0 and got["total"]["drop"] == "0.00"


def test_no_report_from_records_that_do_not_check(baden: Path, tmp_path: Path,
                                                  capsys) -> None:
    write_export(baden, tmp_path / "export")

    def richer(records: list[dict[str, Any]]) -> None:
        i = at(records, "money.bank", lambda b: b["change"] == "settled"
               and b["bank"]["phase"] == "held", nth=2)
        records[i]["body"]["bank"]["amount"] = "99999.00"

    forge(tmp_path / "export", baden, richer)
    code, out, err = report(capsys, tmp_path / "export")
    assert code == 1 and out == ""
    assert err.startswith("shoe-daemon report: FAILED: record ") and "nothing reported" in err
    assert "money.bank settled: bank.amount: recorded '99999.00'" in err


@pytest.mark.parametrize("argv, says", [
    ([], "give an export directory or --state-dir"),
    (["--state-dir", "S", "X"], "give an export directory or --state-dir"),
    (["--state-dir", "S", "--all", "--from", "2026-03-01"], "--all or a range"),
    (["X", "--all"], "--all goes with --state-dir"),
    (["--state-dir", "S", "--public-key", "k.pem"], "--public-key goes with an export"),
    (["--state-dir", "S", "--all"], "no ledger at"),
])
def test_refusals(argv: list[str], says: str, tmp_path: Path, capsys) -> None:
    argv = [str(tmp_path / a) if a in ("S", "X") else a for a in argv]
    code, _, err = report(capsys, *argv)
    assert code == 2 and says in err, err


def test_a_ledger_written_before_issue_20_reads_the_same(tmp_path: Path, capsys) -> None:
    """Places as numbers (`passes_to: 2`) and the Schokolade asked for: the report names the
    player by his key, and counts the Schokolade the banker asked for (money/legacy.py)."""
    state = tmp_path / "state"
    MoneyTable(state, "baden", seed=3, shoes=2, earlier=True).run()
    _, got, _ = report(capsys, "--state-dir", state, "--all", "--json")
    records = records_of(state)
    hands = [h for shoe in got["shoes"] for h in shoe["bank"]]
    lost = [h["ended"] for h in hands if h["ended"] and h["ended"]["how"] == "lost"]
    assert lost and all(e["passes_to"].startswith("seat ") for e in lost)
    assert any(isinstance(r.body["bank"]["passes_to"], int) for r in records
               if r.kind == "money.settlement" and r.body["bank"] and r.body["bank"]["ends"])
    asked = sum((Decimal(r.body["amount"]) for r in records if r.kind == "money.bank"
                 and r.body["change"] == "schokolade"), D0)
    assert sum((Decimal(h["schokolade"]) for h in hands), D0) == asked > 0
    code, text, _ = report(capsys, "--state-dir", state, "--all")
    assert code == 0 and "the bank to seat " in text and "place seat" not in text
