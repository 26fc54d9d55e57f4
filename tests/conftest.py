"""`--soak` runs the long hardware-in-the-loop tests too (off by default, to keep CI short);
`--chroot` the install in a debootstrapped Debian root (root and network; CI runs it apart).
`browser`: Debian's Chromium, one per module of browser tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

OPTIONAL = {"soak": "long hardware-in-the-loop runs (--soak)",
            "chroot": "the install in a clean Debian root made by debootstrap (--chroot)"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--soak", action="store_true", help="also run the long soak tests")
    parser.addoption("--chroot", action="store_true",
                     help="also run the install test in a debootstrapped Debian root")


def pytest_configure(config: pytest.Config) -> None:
    for marker, text in OPTIONAL.items():
        config.addinivalue_line("markers", f"{marker}: {text}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    off = {m for m in OPTIONAL if not config.getoption(f"--{m}")}
    selected = [item for item in items if not off & set(item.keywords)]
    deselected = [item for item in items if off & set(item.keywords)]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium through playwright, as tests/test_display_browser.py launches it."""
    from playwright.sync_api import sync_playwright

    from tests.test_display_browser import launch
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()
