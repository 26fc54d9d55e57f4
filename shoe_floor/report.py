"""The floor's shift report: each table's figures, as its own `shoe-daemon report` gives them
over the same range (shoe_daemon.report.figures: the drop, the commission or Taxe, wins and
losses by side, the bank's history, voids and who voided them), and the floor's total per
currency (a floor may mix houses), from the collector's store (docs/floor.md, "The floor's
shift report").

No figure comes from a record the floor's export would refuse: each table's records are
proven by the signatures the collector kept (shoe_floor.proof) and its chain checked from
the first record the floor holds through the record the proof's signature names
(shoe_floor.export.checked), and the money of the range is checked by the rules as the
table's report checks it (shoe_daemon.audit.money_check). One table that does not check is
a FAILED report, named, with nothing reported: a floor total without it would be untrue.
`floor_report` returns the figures; `render_text` and `render_csv` are the command's forms.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from shoe_daemon.audit.layout import iso
from shoe_daemon.audit.ledger import Record
from shoe_daemon.audit.money_check import MoneyCheck
from shoe_daemon.audit.reader import AuditError, VerifyFailed
from shoe_daemon.game.results import OUTCOMES
from shoe_daemon.money.display import format_money
from shoe_daemon.money.houses import get_money_profile
from shoe_daemon.report.figures import ReportError, ShiftReport
from shoe_floor import query
from shoe_floor.export import checked, chosen_tables, held_chain
from shoe_floor.proof import prove
from shoe_floor.store import Store
from shoe_floor.table_keys import LodgedKeys

#: The amounts of a table's total that the floor's total sums, per currency.
AMOUNTS = ("staked", "drop", "commission")
#: Its counts.
COUNTS = ("settled", "with_stakes", "voids", "corrections")
CHANGED = "the floor's store no longer holds what the collector verified"


class MoneyWrong(VerifyFailed):
    """The records check, their money does not follow the rules (as the table's report
    would say of its own ledger)."""


def floor_report(store: Store, table_keys: Path, start_ns: int | None = None,
                 end_ns: int | None = None, tables: list[str] | None = None
                 ) -> dict[str, Any]:
    """The shift report of the tables asked (every table with records if None) over
    [start_ns, end_ns), from one consistent view of the store. VerifyFailed naming the first
    table whose records do not check; AuditError for an unknown table, or a range in which
    no table asked has a record."""
    if not table_keys.is_dir():
        raise AuditError(f"collector.table_keys: {table_keys} is not a directory: the tables' "
                         "lodged keys prove their records")
    lodged = LodgedKeys(table_keys)
    reported: list[dict[str, Any]] = []
    without: list[str] = []
    with query.snapshot(store):
        for table in chosen_tables(store, tables):
            span = query.time_span(store, table, start_ns, end_ns)
            if span is None:
                without.append(table)
                continue
            reported.append(table_report(store, table, span, lodged, start_ns, end_ns))
    if not reported:
        asked = f"table(s) {', '.join(without)}" if tables else "any table"
        raise AuditError(f"no records of {asked} from {_when(start_ns, 'the start')} to "
                         f"{_when(end_ns, 'the end')}: nothing to report")
    return {"range": {"from": None if start_ns is None else iso(start_ns),
                      "to": None if end_ns is None else iso(end_ns)},
            "tables": reported, "without_records": without, "total": totals(reported)}


def _when(ns: int | None, default: str) -> str:
    return default if ns is None else iso(ns)


def table_report(store: Store, table: str, span: tuple[int, int], lodged: LodgedKeys,
                 start_ns: int | None, end_ns: int | None) -> dict[str, Any]:
    """One table's figures over its records `span` (as query.time_span takes them), its
    records proven and chain-checked first, then its money checked by the rules."""
    first, last = span
    report = ShiftReport(first, last, start_ns, end_ns)
    money = MoneyCheck(from_start=first == 1)
    try:
        stored_first, tip, first_prev = held_chain(store, table)
        proof = prove(store, table, first, last, tip, lodged)
        seen = stored_first - 1
        for record in checked(store, table, stored_first, first_prev, proof.through):
            seen = record.idx
            if record.idx <= last:
                report.feed(record)
                if record.idx >= first:
                    _money(money, record)
        if seen != proof.through:
            raise VerifyFailed(f"record {seen + 1}: missing")
        try:
            summary = money.finish()
        except VerifyFailed as e:
            raise MoneyWrong(str(e)) from e
        figures = report.to_dict()
    except MoneyWrong as e:
        raise VerifyFailed(f"table {table}: {e}") from e
    except VerifyFailed as e:
        raise VerifyFailed(f"table {table}: {e}; {CHANGED}") from e
    except ReportError as e:
        raise ReportError(f"table {table}: {e}") from e
    source = (f"the floor's store, table {table}: records {stored_first}..{proof.through} "
              f"proven by {len(proof.signatures)} of the table's signatures and chain-checked; "
              f"{summary.text()}")
    return {"table_id": table, "source": source, "report": figures}


def _money(check: MoneyCheck, record: Record) -> None:
    try:
        check.feed(record)
    except VerifyFailed as e:
        raise MoneyWrong(str(e)) from e


def totals(reported: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The floor's total, one per currency (in the order the tables name them): the tables,
    shoes and coups, and the amounts staked, dropped and taken in commission or Taxe."""
    out: dict[str, dict[str, Any]] = {}
    for entry in reported:
        report = entry["report"]
        code = report["currency"]["code"]
        total = out.setdefault(code, {
            "currency": report["currency"], "tables": [], "shoes": 0,
            "coups": dict.fromkeys(("decided", *OUTCOMES), 0),
            **dict.fromkeys(COUNTS, 0), **{a: Decimal(0) for a in AMOUNTS}})
        its = report["total"]
        total["tables"].append(entry["table_id"])
        total["shoes"] += its["shoes"]
        for outcome, n in its["coups"].items():
            total["coups"][outcome] = total["coups"].get(outcome, 0) + n
        for name in COUNTS:
            total[name] += its[name]
        for name in AMOUNTS:
            total[name] += Decimal(its[name])
    for total in out.values():
        for name in AMOUNTS:
            total[name] = _text(total[name], reported, total["currency"]["code"])
    return list(out.values())


def _text(amount: Decimal, reported: list[Mapping[str, Any]], code: str) -> str:
    """The amount in the serialised form of the currency's tables (same places)."""
    profile = next(get_money_profile(e["report"]["profile"]) for e in reported
                   if e["report"]["currency"]["code"] == code)
    return profile.currency.value.text(amount)


def _amount(amount: str, profile_name: str) -> str:
    profile = get_money_profile(profile_name)
    return format_money(Decimal(amount), profile.currency.value, profile.locale.value)


def render_text(floor: Mapping[str, Any]) -> str:
    """A line per table, then the floor's total per currency, amounts as each house writes
    them."""
    span = floor["range"]
    out = [f"Floor shift report: {span['from'] or 'the start'} to {span['to'] or 'the end'} "
           "(UTC)" + (f"; {floor['shift']}" if floor.get("shift") else ""), ""]
    for entry in floor["tables"]:
        r = entry["report"]
        t = r["total"]
        taxe = "Taxe" if r["profile"].startswith("baden") else "commission"
        out.append(f"{entry['table_id']} ({r['profile']}, {r['currency']['code']}): "
                   f"{t['shoes']} shoe(s), {t['coups']['decided']} coups decided, "
                   f"staked {_amount(t['staked'], r['profile'])}, drop "
                   f"{_amount(t['drop'], r['profile'])}, {taxe} "
                   f"{_amount(t['commission'], r['profile'])}, {t['voids']} void(s), "
                   f"{t['corrections']} correction(s)")
        for shoe in r["shoes"]:
            for void in shoe["voids"]:
                by = f"{void['by']} ({void['role']})" if void["by"] else "no one"
                out.append(f"  void: shoe {shoe['shoe']} coup {void['coup']}, {void['how']}, "
                           f"by {by}" + (f": {void['reason']}" if void.get("reason") else ""))
        out.append(f"  checked: {entry['source']}")
    if floor["without_records"]:
        out.append(f"No records in the range: {', '.join(floor['without_records'])}")
    out.append("")
    profiles = {e["report"]["currency"]["code"]: e["report"]["profile"]
                for e in floor["tables"]}
    for total in floor["total"]:
        profile = profiles[total["currency"]["code"]]
        out.append(f"Total {total['currency']['code']} ({len(total['tables'])} table(s)): "
                   f"{total['shoes']} shoe(s), {total['coups']['decided']} coups decided, "
                   f"staked {_amount(total['staked'], profile)}, drop "
                   f"{_amount(total['drop'], profile)}, commission or Taxe "
                   f"{_amount(total['commission'], profile)}, {total['voids']} void(s), "
                   f"{total['corrections']} correction(s)")
    return "\n".join(out) + "\n"


CSV_FIELDS = ("table", "profile", "currency", "shoes", "coups_decided", *OUTCOMES, *COUNTS,
              *AMOUNTS, "first_record", "last_record")


def render_csv(floor: Mapping[str, Any]) -> str:
    """A row per table, then a row per currency for the floor's total (table `TOTAL`);
    amounts in their serialised form ("1170.00")."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_FIELDS)
    for entry in floor["tables"]:
        r = entry["report"]
        t = r["total"]
        writer.writerow([entry["table_id"], r["profile"], r["currency"]["code"], t["shoes"],
                         t["coups"]["decided"], *(t["coups"][o] for o in OUTCOMES),
                         *(t[c] for c in COUNTS), *(t[a] for a in AMOUNTS),
                         r["records"]["first"], r["records"]["last"]])
    for total in floor["total"]:
        writer.writerow(["TOTAL", "", total["currency"]["code"], total["shoes"],
                         total["coups"]["decided"], *(total["coups"][o] for o in OUTCOMES),
                         *(total[c] for c in COUNTS), *(total[a] for a in AMOUNTS), "", ""])
    return buffer.getvalue()
