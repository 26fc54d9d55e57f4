"""The tables of docs/money.md, rendered from the money profiles: the docs are checked
against this (test_docs.py), and `python -m tests.money.docs_tables` prints them."""

from __future__ import annotations

from decimal import Decimal
from enum import Enum
from typing import Any

from shoe_daemon.game.rules import NOT_PRINTED
from shoe_daemon.money.amounts import Currency
from shoe_daemon.money.display import Locale, format_bank
from shoe_daemon.money.houses import MONEY_PROFILES
from shoe_daemon.money.profile import MoneyProfile


def value(v: Any, profile: MoneyProfile) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Enum):
        return str(v.value).replace("_", " ")
    if isinstance(v, Currency):
        return f"{v.code} ({v.name}), unit {v.unit}"
    if isinstance(v, Locale):
        return "`" + format_bank(Decimal("1170"), profile.currency.value, v) + "`"
    if isinstance(v, Decimal):
        return str(v)
    return str(v)


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def profile_table(profile: MoneyProfile) -> str:
    rows = ["| term | value | source |", "| --- | --- | --- |"]
    for name, term in profile.terms():
        mark = "" if term.printed else "\\*"
        rows.append(f"| `{name}` | {cell(value(term.value, profile))}{mark} | "
                    f"{cell(term.source)} |")
    return "\n".join(rows)


def decisions_list() -> str:
    out = []
    for profile in MONEY_PROFILES.values():
        for name, term in profile.terms():
            if not term.printed:
                why = term.source[len(NOT_PRINTED) + 4:]
                out.append(f"- `{profile.name}` `{name}` = {value(term.value, profile)}: "
                           f"{why}")
    return "\n".join(out)


def blocks() -> dict[str, str]:
    """Marker name -> the text between `<!-- NAME -->` and `<!-- /NAME -->` in the docs."""
    out = {f"money: {p.name}": profile_table(p) for p in MONEY_PROFILES.values()}
    out["money: decisions"] = decisions_list()
    return out


if __name__ == "__main__":
    for marker, text in blocks().items():
        print(f"<!-- {marker} -->\n{text}\n<!-- /{marker} -->\n")
