"""`shoe-floor report`: the floor's shift report from the collector's store.

Three tables play with their money into real ledgers (hil/money_ledger.py: dealt shoes, a
croupier's stakes and banks, a console's void, a shoe's KEY and VOID, a supervisor's
corrections), at two houses and two currencies, and reach the store through a real broker,
their real floor links and a real collector, in PostgreSQL and in SQLite. The floor's
figures for each table are compared with what the table's own `shoe-daemon report` gives
from its ledger over the same range; the total with the sum of the tables' own totals; a
store written behind the collector's back is refused, nothing reported.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from decimal import Decimal

import pytest

from hil.money_ledger import MoneyTable
from shoe_daemon.audit.layout import iso
from shoe_daemon.audit.ledger import Record, chain_hash
from shoe_daemon.floor.link import FloorLink
from shoe_daemon.service.cli import main as daemon_main
from shoe_floor.store import Store
from tests.floor.conftest import assert_exact
from tests.floor.test_floor_export import floor_cli

TABLES = (("t1", "baden", 3, {"voids": {5: "console", 9: "shoe"}, "supervisor": True}),
          ("t2", "baden-punto-banco", 4, {"voids": {7: "console"}}),
          ("t3", "zoppot-1934", 5, {}))


@pytest.fixture
def floor(make_table, collector, collector_toml, database):
    """The three tables played into their ledgers and collected; the collector's config."""
    collector()
    made = []
    for name, profile, seed, more in TABLES:
        table = make_table(name)
        MoneyTable(table.state_dir, profile, seed=seed, table=name, **more).run()
        made.append(table)
    links = [FloorLink(t.config, t.state_dir, poll=0.1) for t in made]
    for link in links:
        link.start()
    try:
        assert_exact(database, made)
    finally:
        for link in links:
            link.stop()
    return collector_toml("collector-1"), made


def own_report(capsys, state_dir, *span: str) -> dict:
    """The table's own `shoe-daemon report --json` from its ledger, without the lines that
    say where it was read from."""
    code = daemon_main(["report", "--state-dir", str(state_dir), *span, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    del report["source"], report["shift"]
    return report


def span_of(table, low: float, high: float) -> list[str]:
    """--from and --to at these fractions of the table's records."""
    records = table.records()
    return ["--from", iso(records[int(len(records) * low)].wall_ns)[:26] + "Z",
            "--to", iso(records[int(len(records) * high)].wall_ns)[:26] + "Z"]


@pytest.mark.parametrize("which", ["middle", "all"])
def test_each_tables_figures_are_its_own_reports_and_the_total_their_sum(floor, capsys, which):
    toml, tables = floor
    span = ["--all"] if which == "all" else span_of(tables[0], 0.3, 0.7)
    done = floor_cli("report", "--config", str(toml), *span, "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert [e["table_id"] for e in got["tables"]] == ["t1", "t2", "t3"]
    assert got["without_records"] == []
    own = {t.name: own_report(capsys, t.state_dir, *span) for t in tables}
    for entry in got["tables"]:
        assert entry["report"] == own[entry["table_id"]]
        assert "proven by" in entry["source"] and "chain-checked" in entry["source"]
    # The range holds what makes the comparison mean something: money, voids and who made
    # them, the bank's history.
    t1 = own["t1"]
    assert Decimal(t1["total"]["drop"]) > 0 and t1["total"]["coups"]["decided"] > 5
    assert any(s["bank"] for s in t1["shoes"])
    if which == "all":
        voids = [v for s in t1["shoes"] for v in s["voids"]]
        assert {v["how"] for v in voids} >= {"the console's void", "KEY and VOID at the shoe"}
        assert all(v["by"] for v in voids if v["how"] != "000 rule 24: the shoe ran short")
    # The total: per currency, the sum of the tables' own totals.
    sums: dict[str, dict] = defaultdict(lambda: defaultdict(Decimal))
    for report in own.values():
        code = report["currency"]["code"]
        sums[code]["tables"] += 1
        for key in ("staked", "drop", "commission"):
            sums[code][key] += Decimal(report["total"][key])
        sums[code]["decided"] += report["total"]["coups"]["decided"]
        sums[code]["voids"] += report["total"]["voids"]
    assert [t["currency"]["code"] for t in got["total"]] == ["CHF", "DZG"]
    for total in got["total"]:
        expect = sums[total["currency"]["code"]]
        assert len(total["tables"]) == expect["tables"]
        for key in ("staked", "drop", "commission"):
            assert Decimal(total[key]) == expect[key], key
        assert total["coups"]["decided"] == expect["decided"]
        assert total["voids"] == expect["voids"]
    assert got["total"][0]["tables"] == ["t1", "t2"]

    # The CSV: a row per table and per currency's total, the same figures.
    as_csv = floor_cli("report", "--config", str(toml), *span, "--csv")
    assert as_csv.returncode == 0, as_csv.stderr
    rows = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert [r["table"] for r in rows] == ["t1", "t2", "t3", "TOTAL", "TOTAL"]
    for row, entry in zip(rows, got["tables"], strict=False):
        assert row["drop"] == entry["report"]["total"]["drop"]
        assert row["commission"] == entry["report"]["total"]["commission"]
    assert [(r["currency"], r["drop"]) for r in rows[3:]] == [
        (t["currency"]["code"], t["drop"]) for t in got["total"]]

    # The text: a line per table and the totals, amounts as each house writes them.
    text = floor_cli("report", "--config", str(toml), *span)
    assert text.returncode == 0, text.stderr
    assert text.stdout.count("\nt1 (baden, CHF)") == 1 and "Taxe" in text.stdout
    assert "Total CHF (2 table(s))" in text.stdout and "Total DZG (1 table(s))" in text.stdout

    # One table asked: its figures alone, and a total of it alone.
    one = floor_cli("report", "--config", str(toml), *span, "--table", "t3", "--json")
    assert one.returncode == 0, one.stderr
    alone = json.loads(one.stdout)
    assert [e["table_id"] for e in alone["tables"]] == ["t3"]
    assert alone["tables"][0]["report"] == own["t3"]
    assert alone["total"] == [got["total"][1]]


def rewrite(database: str, table: str, idx: int, rechain: bool) -> None:
    """A record's body changed in the store behind the collector's back; `rechain`: and every
    later record's hash recomputed so that the chain holds, as a forger would."""
    store = Store(database)
    try:
        with store.batch():
            rows = store.db.execute(store.q(
                "SELECT idx, wall_ns, mono_ns, boot, kind, body, prev, hash, mac FROM records "
                "WHERE table_id = ? AND idx >= ? ORDER BY idx"), (table, idx)).fetchall()
            prev = None
            for n, row in enumerate(rows):
                body = json.loads(row[5])
                if n == 0:
                    body = {**body, "forged": True}
                elif not rechain:
                    break
                record = Record(row[0], row[1], row[2], row[3], row[4], body,
                                prev or row[6], row[7], row[8])
                new_hash = chain_hash(record.prev, record.content()) if rechain else row[7]
                store.db.execute(store.q("UPDATE records SET body = ?, prev = ?, hash = ? "
                                         "WHERE table_id = ? AND idx = ?"),
                                 (json.dumps(body), record.prev, new_hash, table, row[0]))
                prev = new_hash
    finally:
        store.close()


@pytest.mark.parametrize("rechain", [False, True], ids=["edited", "rechained"])
def test_a_store_rewritten_behind_the_collectors_back_is_refused(floor, database, rechain):
    toml, tables = floor
    settlement = next(r for r in tables[1].records() if r.kind == "money.settlement"
                      and r.idx > 40)
    rewrite(database, "t2", settlement.idx, rechain)
    done = floor_cli("report", "--config", str(toml), "--all", "--json")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "FAILED: table t2: record " in done.stderr and "nothing reported" in done.stderr
    assert ("its content does not match its hash" if not rechain
            else "was changed after collection") in done.stderr
    assert "Traceback" not in done.stderr
    # The tables not rewritten are still reported.
    others = floor_cli("report", "--config", str(toml), "--all", "--table", "t1",
                       "--table", "t3", "--json")
    assert others.returncode == 0, others.stderr
    assert [e["table_id"] for e in json.loads(others.stdout)["tables"]] == ["t1", "t3"]


def test_an_unknown_table_or_an_empty_range_is_said_plainly(floor):
    toml, _tables = floor
    unknown = floor_cli("report", "--config", str(toml), "--all", "--table", "t9")
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert "no records of table 't9' at the floor (tables: t1, t2, t3)" in unknown.stderr
    before = floor_cli("report", "--config", str(toml), "--from", "2020-01-01T00:00:00Z",
                       "--to", "2020-01-01T08:00:00Z")
    assert before.returncode == 2 and before.stdout == ""
    assert ("no records of any table from 2020-01-01T00:00:00.000000000Z to "
            "2020-01-01T08:00:00.000000000Z: nothing to report") in before.stderr
    # The current shift (the default): the tables played on 2026-03-01, not now.
    now = floor_cli("report", "--config", str(toml), "--table", "t1")
    assert now.returncode == 2 and "no records of table(s) t1 from " in now.stderr
    both = floor_cli("report", "--config", str(toml), "--all", "--from", "2020-01-01")
    assert both.returncode == 2 and "--all or a range" in both.stderr
    assert all("Traceback" not in r.stderr for r in (unknown, before, now, both))
