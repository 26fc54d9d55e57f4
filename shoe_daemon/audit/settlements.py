"""`settlements.csv`: one row per line of every coup's settlement, a function of the exported
records alone, so that `audit verify` can rebuild it from events.jsonl and compare byte for
byte, as it does coups.csv.

Each `money.settlement` record (shoe_daemon/money/settlement.py, docs/money.md) gives its
lines in the house's payment order: every stake's, then the bank's (its banker's and his
partner's) at Chemin de fer, or each bet's and then the casino's at Punto Banco. Amounts are
the record's own strings, in the house's currency with its decimals ("1370.00", "30").
"""

from __future__ import annotations

import csv
import io
from typing import Any

from shoe_daemon.audit.ledger import Record

#: The settlement line's fields, as docs/money.md names them, after its shoe and coup.
LINE_FIELDS = ("who", "kind", "stake", "staked", "in_play", "result", "paid", "carried",
               "commission", "net")
SETTLEMENTS_HEADER = ("shoe", "coup", *LINE_FIELDS, "ledger_index")


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


class SettlementsTable:
    """One row per line of each `money.settlement` record, in ledger order."""

    def __init__(self) -> None:
        self.rows: list[list[str]] = []
        self.settlements = 0

    def feed(self, record: Record) -> None:
        body = record.body
        if record.kind != "money.settlement" or not isinstance(body, dict):
            return
        self.settlements += 1
        lines = body.get("lines")
        for line in lines if isinstance(lines, list) else []:
            if isinstance(line, dict):
                self.rows.append([_cell(body.get("shoe")), _cell(body.get("coup")),
                                  *(_cell(line.get(k)) for k in LINE_FIELDS),
                                  str(record.idx)])

    def text(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(SETTLEMENTS_HEADER)
        writer.writerows(self.rows)
        return out.getvalue()
