"""A table that starts on a new ledger beside a results file that already holds lines: the
ledger those lines came from was lost (deleted while the daemon was stopped, docs/audit.md).

The new ledger begins with a `ledger.lost` record that carries on what the results file says
was published, as `audit prune`'s record carries on what it removed: the shoes dealt (so the
table numbers its next shoe after the last one published, and no shoe and coup is in the
results file twice) and the lines published (so a crash between a commit and the results
file's write is still repaired line for line at the next start).
"""

from __future__ import annotations

import json
from typing import Any, TextIO


def lost_ledger(results: TextIO) -> dict[str, Any] | None:
    """The `ledger.lost` record's body for a new ledger beside `results`; None when the
    results file holds no whole line (nothing was published: nothing was lost)."""
    results.seek(0)
    text = results.read()
    lines = text[: text.rfind("\n") + 1].splitlines()  # a line torn by a crash is not one
    if not lines:
        return None
    last: dict[str, Any] = {}
    for line in reversed(lines):
        try:
            last = json.loads(line)
        except ValueError:
            continue
        if isinstance(last, dict):
            break
    shoe, coup = last.get("shoe"), last.get("coup")
    shoes = shoe if type(shoe) is int and shoe > 0 else 0
    return {
        "carry": {"shoes": shoes, "results": len(lines), "boot_id": None},
        "last_published": {"shoe": shoe, "coup": coup},
        "detail": f"the table's ledger was lost: this one begins beside a results file of "
                  f"{len(lines)} lines it does not hold (the last of shoe {shoe}, coup {coup}); "
                  "its shoes are numbered on after them",
    }
