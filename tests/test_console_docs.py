"""docs/console.md's table of the money's action kinds is the code's (`MONEY`): each kind, who
may take it, its arguments and what it does, in the code's order."""

from __future__ import annotations

from pathlib import Path

from shoe_daemon.console.actions import MONEY, SUPERVISOR

DOC = Path(__file__).resolve().parent.parent / "docs" / "console.md"


def test_the_money_kinds_table_is_the_codes() -> None:
    text = DOC.read_text()
    block = text.split("<!-- console: money -->", 1)[1].split("<!-- /console: money -->", 1)[0]
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in block.strip().splitlines()[2:]]
    assert [row[0] for row in rows] == [f"`{kind.name}`" for kind in MONEY]
    for row, kind in zip(rows, MONEY, strict=True):
        assert row[1] == ("supervisor" if kind.roles == SUPERVISOR
                          else "croupier or supervisor"), kind.name
        args = ", ".join(f"`{name}`" + ("" if field.required else "?")
                         for name, field in kind.args.items()) or "—"
        assert row[2] == args, kind.name
        assert row[3] == kind.help, kind.name
