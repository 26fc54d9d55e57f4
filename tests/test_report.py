"""`shoe-daemon report`: the shift report, per shoe, from the ledger or an export.

The ledgers are real (tests/money_ledger.py: dealt shoes, a croupier's money session, a
console's void and a shoe's KEY and VOID, a short last coup). Every figure is checked
against sums computed here, independently, from the records themselves; the bank's history
against the `money.bank` records; a report is refused where the records do not check.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from datetime import time as clock_time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from hil.dealer import GameFaults
from shoe_daemon.audit import keys
from shoe_daemon.audit.export import export as write_export
from shoe_daemon.audit.layout import iso
from shoe_daemon.audit.ledger import Record
from shoe_daemon.report.cli import current_shift, ns, parse_shifts
from shoe_daemon.service.cli import main
from tests.money_ledger import SECOND, T0_NS, Clock, MoneyTable, records_of
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
    and the money of the settlements."""
    last = records[-1].idx if last is None else last
    shoes: dict[int, dict[str, Any]] = defaultdict(lambda: {
        "outcomes": Counter(), "staked": D0, "drop": D0, "commission": D0, "settled": 0,
        "nets": defaultdict(lambda: [D0, D0])})
    for r in records:
        if not first <= r.idx <= last:
            continue
        if r.kind == "result" and r.body["line"]["event"] == "coup.result":
            shoes[r.body["line"]["shoe"]]["outcomes"][r.body["line"]["outcome"]] += 1
        if r.kind != "money.settlement":
            continue
        s = shoes[r.body["shoe"]]
        s["settled"] += 1
        s["commission"] += Decimal(r.body["commission"])
        void = r.body["outcome"] in ("void", "cancelled")
        for ln in r.body["lines"]:
            if ln["stake"] and not void and ln["result"] != "stays":
                s["staked"] += Decimal(ln["staked"])
                if ln["result"] in ("won", "lost"):
                    s["drop"] += Decimal(ln["in_play"])
            side = ("punters" if ln["stake"] else "bank") if r.body["profile"] == "baden" \
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
    schokolade = sum((Decimal(b["amount"]) for b in changes if b["change"] == "schokolade"),
                     D0)
    assert sum((Decimal(h["schokolade"]) for h in hands), D0) == schokolade > 0
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
