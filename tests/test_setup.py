"""scripts/setup, the README's first step: the Debian packages from its one list, then .venv.

The whole of it on a fresh Debian root (apt included) is tests/test_chroot_install.py's
fresh clone, under `--chroot`; here, what can be seen on this machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hil.harness import ROOT

LIST = ROOT / "scripts/debian-packages.txt"


def listed(*sets: str) -> list[str]:
    rows = [line.split() for line in LIST.read_text().splitlines()]
    return [row[0] for row in rows if row and not row[0].startswith("#") and row[1] in sets]


def installed(package: str) -> bool:
    status = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Status}", package],
                            capture_output=True, text=True)
    return status.stdout == "installed"


def test_every_listed_package_is_installed_after_setup_for_the_tests() -> None:
    # The README's test command ran `bash scripts/setup --test` before this pytest.
    assert set(listed("demo")) >= {"python3", "python3-venv"}
    assert "chromium" in listed("test")
    assert [p for p in listed("demo", "test") if not installed(p)] == []


def test_ci_uses_the_same_setup_and_no_list_of_its_own() -> None:
    ci = (ROOT / ".ci/run").read_text()
    assert "bash scripts/setup --test" in ci
    assert "apt-get" not in ci


@pytest.fixture
def checkout() -> Iterator[Path]:
    """A copy of scripts/ that another user can read, with a package Debian never had."""
    top = Path(tempfile.mkdtemp(prefix="setup-"))
    top.chmod(0o755)
    (top / "scripts").mkdir()
    shutil.copy2(ROOT / "scripts/setup", top / "scripts/setup")
    (top / "scripts/debian-packages.txt").write_text(
        "# NAME SET WHY\npython3 demo the interpreter\n"
        "shoe-daemon-no-such-package demo never installed\n"
        "shoe-daemon-no-such-tool test only for the tests\n")
    yield top
    shutil.rmtree(top)


def run_setup(top: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # As an ordinary user: setup may not install anything, so it must say what is missing.
    user = {"user": 65534, "group": 65534, "extra_groups": []} if os.geteuid() == 0 else {}
    return subprocess.run(["bash", str(top / "scripts/setup"), *args], capture_output=True,
                          text=True, timeout=60, env={"PATH": os.environ["PATH"]}, **user)


def test_without_root_setup_names_the_missing_packages_and_stops(checkout: Path) -> None:
    result = run_setup(checkout)
    assert result.returncode == 1
    assert "missing Debian packages: shoe-daemon-no-such-package\n" in result.stderr
    assert "sudo apt-get install shoe-daemon-no-such-package" in result.stderr
    assert not (checkout / ".venv").exists()


def test_the_test_set_adds_its_packages(checkout: Path) -> None:
    result = run_setup(checkout, "--test")
    assert result.returncode == 1
    assert ("missing Debian packages: shoe-daemon-no-such-package shoe-daemon-no-such-tool\n"
            in result.stderr)
