"""`shoe-floor people`: the pit's people made as `shoe-daemon people` makes a table's, in
their own file beside floor.toml with its own key, with the pit's roles alone. Real
processes, real files; secrets on standard input, never in arguments, output or the file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from shoe_daemon.console.people import PeopleError, Person, Role, people_paths
from shoe_floor.pit.people import PitRole, pit_people
from tests.floor.conftest import ROOT

TOML = """[floor]
broker = "mqtts://127.0.0.1:8883"
username = "shoe-floor"
password_file = "broker.password"
ca_file = "ca.pem"

[collector]
database = "floor.sqlite3"
table_keys = "keys"

[pit]
password_file = "pit.password"
"""


@pytest.fixture
def toml(tmp_path: Path) -> Path:
    for name in ("broker.password", "pit.password", "ca.pem"):
        (tmp_path / name).write_text("x\n")
    (tmp_path / "keys").mkdir()
    (tmp_path / "floor.toml").write_text(TOML)
    return tmp_path / "floor.toml"


def people(toml: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shoe_floor.cli", "people", *args,
                           "--config", str(toml)], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_people_made_listed_changed_and_removed_at_the_pit(toml):
    made = people(toml, "add", "paul", "--name", "Paul Martin", "--role", "pit_boss", "--pin",
                  "--badge", stdin="4711\nBADGE-PAUL\n")
    assert made.returncode == 0, made.stderr
    assert people(toml, "add", "ines", "--name", "Ines Roth", "--role", "regulator", "--pin",
                  stdin="5822\n").returncode == 0
    listed = people(toml, "list")
    assert listed.stdout.split("\n")[:2] == [
        "paul             pit_boss   pin:yes badge:yes Paul Martin",
        "ines             regulator  pin:yes badge:no  Ines Roth"]
    file = toml.parent / "pit-people.json"
    stored = file.read_text()
    for secret in ("4711", "5822", "BADGE-PAUL"):
        assert secret not in stored + made.stdout + made.stderr + listed.stdout
    assert oct(file.stat().st_mode & 0o777) == "0o600"
    assert oct((toml.parent / "pit-people.key").stat().st_mode & 0o777) == "0o600"
    roster = pit_people(file).load()
    assert roster.check_pin("paul", "4711").role is PitRole.PIT_BOSS
    assert roster.by_badge("BADGE-PAUL").id == "paul"
    assert people(toml, "set-pin", "paul", stdin="9999\n").returncode == 0
    assert pit_people(file).load().check_pin("paul", "4711") is None
    assert people(toml, "clear-badge", "paul").returncode == 0
    assert people(toml, "remove", "ines").returncode == 0
    assert [p["id"] for p in json.loads(file.read_text())["people"]] == ["paul"]


def test_only_the_pits_roles_and_never_a_secret_in_the_arguments(toml):
    croupier = people(toml, "add", "ana", "--name", "Ana", "--role", "croupier", "--pin",
                      stdin="4711\n")
    assert croupier.returncode == 2 and "invalid choice: 'croupier'" in croupier.stderr
    argued = people(toml, "add", "ana", "--name", "Ana", "--role", "pit_boss", "--pin", "4711")
    assert argued.returncode == 2 and "unrecognized arguments: 4711" in argued.stderr
    short = people(toml, "add", "ana", "--name", "Ana", "--role", "pit_boss", "--pin",
                   stdin="12\n")
    assert short.returncode == 2 and "a PIN is 4 to 12 digits" in short.stderr
    assert not (toml.parent / "pit-people.json").exists()


def test_a_tables_people_file_is_not_the_pits(tmp_path, toml):
    """A table's file (croupier, supervisor) put where the pit's is: refused, naming the
    roles the pit takes; and the page will not start on it."""
    table = people_paths(tmp_path / "table")
    (tmp_path / "table").mkdir()
    roster = table.load(create_key=True)
    table.save(roster.with_person(Person("ana", "Ana", Role.SUPERVISOR)))
    (toml.parent / "pit-people.json").write_bytes(table.path.read_bytes())
    (toml.parent / "pit-people.key").write_bytes(table.key_path.read_bytes())
    with pytest.raises(PeopleError, match="role must be pit_boss, surveillance or regulator"):
        pit_people(toml.parent / "pit-people.json").load()
    listed = people(toml, "list")
    assert listed.returncode == 2 and "role must be pit_boss" in listed.stderr
    served = subprocess.run([sys.executable, "-m", "shoe_floor.cli", "serve", "--config",
                             str(toml)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert served.returncode == 2 and "pit.people:" in served.stderr
