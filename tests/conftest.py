"""`--soak` runs the long hardware-in-the-loop tests too (off by default, to keep CI short)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--soak", action="store_true", help="also run the long soak tests")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "soak: long hardware-in-the-loop runs (--soak)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--soak"):
        return
    selected = [item for item in items if "soak" not in item.keywords]
    deselected = [item for item in items if "soak" in item.keywords]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected
