"""docs/money.md holds the code's tables: each house's terms and the decisions, exactly."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.money.docs_tables import blocks

DOCS = (Path(__file__).resolve().parents[2] / "docs" / "money.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("marker", list(blocks()))
def test_docs_table_is_the_codes(marker: str) -> None:
    found = re.search(rf"<!-- {re.escape(marker)} -->\n(.*?)\n<!-- /{re.escape(marker)} -->",
                      DOCS, re.S)
    assert found, f"docs/money.md has no {marker} block"
    assert found.group(1) == blocks()[marker], (
        f"docs/money.md's {marker} block is not the code's: "
        "print them with `python -m tests.money.docs_tables`")


def test_docs_name_every_module() -> None:
    package = Path(__file__).resolve().parents[2] / "shoe_daemon" / "money"
    for module in package.glob("*.py"):
        if module.name != "__init__.py":
            assert f"`{module.name}`" in DOCS, module.name
