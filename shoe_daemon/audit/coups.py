"""`coups.csv`: one row per decided coup, a function of the exported records alone, so that
`audit verify` can rebuild it from events.jsonl and compare byte for byte."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from typing import Any

from shoe_daemon.audit.layout import iso
from shoe_daemon.audit.ledger import Record

COUPS_HEADER = ("shoe", "coup", "time", "punter_cards", "banker_cards", "punter_total",
                "banker_total", "outcome", "irregularities", "resolved_by", "last_coup",
                "ledger_index")


def _text(value: Any) -> str:
    """A value as one CSV token: spaces inside become '_' so lists can join on spaces."""
    return "_".join(str(value).split())


class CoupsTable:
    """One row per `coup.result`, with its irregularities and how they were resolved.

    A resolution (`irregularity.resolved`) belongs to the coup of its shoe and coup number:
    to that coup's row if its result came already (a hold raised after the coup was
    decided), else to the next result of that shoe and coup. One that no result in the
    range claims is in events.jsonl only.
    """

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self._by_coup: dict[tuple[Any, Any], dict[str, Any]] = {}
        self._pending: defaultdict[tuple[Any, Any], list[str]] = defaultdict(list)

    def feed(self, record: Record) -> None:
        if record.kind != "result":
            return
        line = record.body.get("line")
        if not isinstance(line, dict):
            return
        where = (line.get("shoe"), line.get("coup"))
        event = line.get("event")
        if event == "coup.result":
            punter, banker = line.get("punter") or {}, line.get("banker") or {}
            row = {
                "shoe": line.get("shoe"),
                "coup": line.get("coup"),
                "time": iso(record.wall_ns),
                "punter_cards": " ".join(map(_text, punter.get("cards", []))),
                "banker_cards": " ".join(map(_text, banker.get("cards", []))),
                "punter_total": punter.get("total"),
                "banker_total": banker.get("total"),
                "outcome": line.get("outcome"),
                "irregularities": " ".join(map(_text, line.get("irregularities", []))),
                "resolved_by": self._pending.pop(where, []),
                "last_coup": "true" if line.get("last_coup") else "false",
                "ledger_index": record.idx,
            }
            self._by_coup[where] = row
            self.rows.append(row)
        elif event == "irregularity.resolved":
            entry = ":".join(_text(line.get(k)) for k in ("code", "how", "by"))
            row = self._by_coup.get(where)
            (row["resolved_by"] if row is not None else self._pending[where]).append(entry)

    def text(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COUPS_HEADER)
        for row in self.rows:
            values = dict(row, resolved_by=" ".join(row["resolved_by"]))
            writer.writerow(["" if values[k] is None else values[k] for k in COUPS_HEADER])
        return out.getvalue()
