"""The people of a table and their secrets: hashed at rest, keyed by the table's own secret,
found at one touch (a badge) or checked with a slow KDF (a PIN), edited by `shoe-daemon
people` without ever printing or storing a secret in clear."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from hil.processes import ROOT
from shoe_daemon.console.people import (
    PeopleError,
    Person,
    Role,
    badge_digest,
    load_key,
    parse,
    people_paths,
)
from tests.console_support import PEOPLE, SECRETS, make_people, people_by_cli


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shoe_daemon.service.cli", "people", *args],
                          cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=60)


def test_secrets_are_hashed_at_rest_and_the_files_are_the_daemons_alone(tmp_path):
    make_people(tmp_path)
    text = (tmp_path / "people.json").read_text()
    for secret in SECRETS:
        assert secret not in text
    for name in ("people.json", "people.key"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o600
    doc = json.loads(text)
    salts = {p["pin"]["salt"] for p in doc["people"]}
    assert len(salts) == 3  # a salt per person
    roster = people_paths(tmp_path).load()
    key = load_key(tmp_path / "people.key")
    assert roster.get("ana").badge == badge_digest(key, "SUP-77")


def test_a_badge_is_found_at_one_touch_and_a_pin_checked(tmp_path):
    make_people(tmp_path)
    roster = people_paths(tmp_path).load()
    assert roster.by_badge("SUP-77").id == "ana"
    assert roster.by_badge("CR-12").role is Role.CROUPIER
    assert roster.by_badge("sup-77") is None and roster.by_badge("") is None
    assert roster.check_pin("ana", "4711").id == "ana"
    for person, pin in (("ana", "4712"), ("ana", "1234"), ("nobody", "4711"), ("ana", "47x1"),
                        ("cy", "")):
        assert roster.check_pin(person, pin) is None


def test_a_copied_file_is_useless_at_another_table(tmp_path):
    make_people(tmp_path / "a")
    other = tmp_path / "b"
    make_people(other, ())  # a table of its own, with its own key
    (other / "people.json").write_bytes((tmp_path / "a" / "people.json").read_bytes())
    roster = people_paths(other).load()
    assert [p.id for p in roster.people] == ["ana", "bob", "cy"]
    assert roster.by_badge("SUP-77") is None and roster.check_pin("ana", "4711") is None


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: d["people"].append(dict(d["people"][0])), "listed twice"),
    (lambda d: d["people"][1].update(badge=d["people"][0]["badge"]), "have the same badge"),
    (lambda d: d["people"][0].update(id="Ana!"), "person id 'Ana!'"),
    (lambda d: d["people"][0].update(role="boss"), "role must be croupier or supervisor"),
    (lambda d: d["people"][0].update(extra=1), "unknown field 'extra'"),
    (lambda d: d["people"][0].update(badge="SUP-77"), "badge is not a badge's hash"),
    (lambda d: d["people"][0]["pin"].update(n=2**30), "scrypt costs out of bounds"),
    (lambda d: d["people"][0]["pin"].update(salt="***"), "pin is not a PIN's hash"),
    (lambda d: d.update(version=2), "expected {\"version\": 1"),
], ids=["twice", "same-badge", "id", "role", "field", "clear-badge", "cost", "salt", "version"])
def test_a_wrong_people_file_is_refused_naming_what(tmp_path, change, words):
    make_people(tmp_path)
    doc = json.loads((tmp_path / "people.json").read_text())
    change(doc)
    with pytest.raises(PeopleError, match=words.replace("(", r"\(").replace("{", r"\{")):
        parse(json.dumps(doc).encode(), load_key(tmp_path / "people.key"))


def test_the_running_roster_follows_the_file_and_keeps_the_last_good_one(tmp_path):
    make_people(tmp_path)
    file = people_paths(tmp_path)
    first = file.roster()
    assert file.roster() is first  # unchanged: not read again
    roster = first.without("cy")
    people_paths(tmp_path).save(roster)
    assert [p.id for p in file.roster().people] == ["ana", "bob"]
    (tmp_path / "people.json").write_text("{broken")
    assert [p.id for p in file.roster().people] == ["ana", "bob"]
    assert "not JSON" in file.error


def test_the_command_line_never_takes_prints_or_keeps_a_secret_in_clear(tmp_path):
    state = tmp_path / "state"
    people_by_cli(state)
    listed = cli("list", "--state-dir", str(state))
    assert listed.returncode == 0
    assert listed.stdout.splitlines() == [
        "ana              supervisor pin:yes badge:yes Ana Weber",
        "bob              croupier   pin:yes badge:yes Bob Marti",
        "cy               croupier   pin:yes badge:no  Cy Rossi"]
    for secret in SECRETS:
        assert secret not in listed.stdout and secret not in (state / "people.json").read_text()
    # A secret given as an argument is refused: it would show in `ps` and the history.
    before = (state / "people.json").read_bytes()
    wrong = cli("add", "dee", "--name", "Dee", "--role", "croupier", "--pin", "9999",
                "--state-dir", str(state))
    assert wrong.returncode == 2 and (state / "people.json").read_bytes() == before
    # Editing: a new PIN, a badge that is someone else's, removing a badge and a person.
    assert cli("set-pin", "cy", "--state-dir", str(state), stdin="2468\n").returncode == 0
    assert people_paths(state).load().check_pin("cy", "2468") is not None
    taken = cli("set-badge", "cy", "--state-dir", str(state), stdin="SUP-77\n")
    assert taken.returncode == 2 and "that badge is 'ana''s already" in taken.stderr
    short = cli("set-pin", "cy", "--state-dir", str(state), stdin="12\n")
    assert short.returncode == 2 and "a PIN is 4 to 12 digits" in short.stderr
    assert cli("clear-badge", "bob", "--state-dir", str(state)).returncode == 0
    assert people_paths(state).load().by_badge("CR-12") is None
    assert cli("remove", "cy", "--state-dir", str(state)).returncode == 0
    assert [p.id for p in people_paths(state).load().people] == ["ana", "bob"]
    gone = cli("remove", "cy", "--state-dir", str(state))
    assert gone.returncode == 2 and "no person 'cy'" in gone.stderr
    assert cli("list").returncode == 2


def test_the_command_line_finds_the_file_from_the_configuration(tmp_path):
    from tests.test_cli_admin import config_file

    people = tmp_path / "etc" / "people.json"
    people.parent.mkdir()
    conf = config_file(tmp_path, people=f'"{people}"')
    done = cli("add", "eve", "--name", "Eve Inspector", "--role", "supervisor", "--badge",
               "--config", str(conf), stdin="EVE-1\n")
    assert done.returncode == 0, done.stderr
    assert str(people) in done.stdout and people.exists()
    assert (tmp_path / "state" / "people.key").exists()  # the key stays with the state


def test_people_in_code_are_what_the_fixture_says():
    assert [p[0] for p in PEOPLE] == ["ana", "bob", "cy"]
    assert Person("x", "X", Role.CROUPIER).public() == {"id": "x", "name": "X",
                                                        "role": "croupier"}


def test_add_with_a_pin_and_a_badge_reads_two_lines_and_says_which_is_missing(tmp_path):
    """`people add --pin --badge` off a terminal reads the PIN's line, then the badge's; its
    --help says so, and a missing second line is refused saying which, with nothing saved."""
    state = tmp_path / "state"
    helped = cli("add", "--help")
    assert "the PIN first, then the badge" in " ".join(helped.stdout.split())
    args = ("add", "eve", "--name", "Eve", "--role", "supervisor", "--pin", "--badge",
            "--state-dir", str(state))
    short = cli(*args, stdin="8642\n")
    assert short.returncode == 2
    assert "standard input needs 2 lines, the PIN, then the badge; line 2 (the badge) is " \
           "missing" in short.stderr
    assert "8642" not in short.stderr + short.stdout
    assert not (state / "people.json").exists() or \
        people_paths(state).load().get("eve") is None
    done = cli(*args, stdin="8642\nEVE-1\n")
    assert done.returncode == 0, done.stderr
    roster = people_paths(state).load()
    assert roster.check_pin("eve", "8642") is not None and roster.by_badge("EVE-1") is not None
