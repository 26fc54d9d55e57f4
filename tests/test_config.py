"""Settings: file and flags, and a bad configuration refused naming the setting."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from shoe_daemon.service import config


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    config.add_arguments(parser)
    return parser.parse_args(argv)


def test_file_then_flags(tmp_path: Path):
    f = tmp_path / "table.toml"
    f.write_text('profile = "baden"\nstate_dir = "/var/lib/shoe"\nresults = "-"\n'
                 'baud = 9600\nusb_vendor = "0x1d6b"\n')
    c = config.load(parse("--config", str(f), "--baud", "921600", "--port", "/dev/ttyUSB3"))
    assert (c.profile, c.baud, c.port, c.usb_vendor) == ("baden", 921600, "/dev/ttyUSB3", 0x1D6B)
    assert c.state_dir == Path("/var/lib/shoe") and c.transport == "serial"


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (("--state-dir", "/x", "--results", "-"), r"'profile' \(--profile\) is required"),
        (("--profile", "nope", "--state-dir", "/x", "--results", "-"), "'profile'"),
        (("--profile", "baden", "--state-dir", "/x", "--results", "-", "--baud", "300"), "'baud'"),
        (("--profile", "baden", "--state-dir", "/x", "--results", "-", "--baud", "fast"),
         "'baud'"),
        (("--profile", "baden", "--state-dir", "/x", "--results", "-", "--transport", "ir"),
         "'transport'"),
        (("--profile", "baden", "--state-dir", "/x", "--results", "-", "--usb-product",
          "0x10000"), "'usb_product'"),
        (("--profile", "baden", "--state-dir", "/x", "--results", "-", "--reconnect-min", "9"),
         "'reconnect_min'"),
        (("--profile", "baden", "--state-dir", "/x", "--results", "-", "--http", "localhost"),
         "'http'"),
        (("--profile", "baden", "--state-dir", "/x", "--results", "-", "--http", "h:70000"),
         "'http'"),
        (("--profile", "baden", "--state-dir", "/x", "--results", "-", "--display-language",
          "es"), "'display_language': 'es' is not one of en, de, fr, zh"),
        (("--profile", "baden", "--state-dir", "/x", "--results", "-", "--display-terms",
          "english"), "'display_terms'"),
        (("--profile", "baden", "--state-dir", "/x", "--results", "-", "--console",
          "127.0.0.1:0", "--console-admit", "40"), "'console_admit' and 'console_answer'"),
        (("--profile", "baden", "--state-dir", "/x", "--results", "-", "--console",
          "127.0.0.1:0", "--console-admit", "0"), "need 0 < console_admit"),
    ],
)
def test_bad_setting_is_named(argv, named):
    with pytest.raises(config.ConfigError, match=named):
        config.load(parse(*argv))


def test_unknown_key_and_bad_toml_in_file(tmp_path: Path):
    f = tmp_path / "c.toml"
    f.write_text('profil = "baden"\n')
    with pytest.raises(config.ConfigError, match="unknown setting 'profil'"):
        config.load(parse("--config", str(f)))
    f.write_text("profile = \n")
    with pytest.raises(config.ConfigError, match="not valid TOML"):
        config.load(parse("--config", str(f)))
    with pytest.raises(config.ConfigError, match="--config"):
        config.load(parse("--config", str(tmp_path / "missing.toml")))


def test_every_setting_has_a_flag_and_a_config_field():
    # `floor` and `money` are the file's [floor] and [money] tables: tables of their own, with
    # no flags.
    fields = [f for f in config.Config.__dataclass_fields__ if f not in ("floor", "money")]
    assert [s.name for s in config.SETTINGS] == fields


def test_the_documented_example_loads():
    example = Path(__file__).resolve().parent.parent / "docs" / "shoe-daemon.toml"
    c = config.load(parse("--config", str(example)))
    assert c.profile == "baden" and c.port == "/dev/shoe" and c.transport == "serial"


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_results_must_be_a_regular_file(tmp_path: Path, kind: str):
    target = tmp_path / "results"
    target.mkdir() if kind == "directory" else os.mkfifo(target)
    with pytest.raises(config.ConfigError, match=r"'results': .* not a regular file"):
        config.load(parse("--profile", "baden", "--state-dir", str(tmp_path / "s"),
                          "--results", str(target)))


def test_retention_days_is_checked(tmp_path: Path):
    base = ("--profile", "baden", "--state-dir", str(tmp_path), "--results", "-")
    assert config.load(parse(*base)).retention_days == 0
    assert config.load(parse(*base, "--retention-days", "365")).retention_days == 365
    with pytest.raises(config.ConfigError, match="'retention_days'"):
        config.load(parse(*base, "--retention-days", "-1"))


@pytest.mark.parametrize(("value", "address"), [
    ("127.0.0.1:8080", ("127.0.0.1", 8080)),
    ("0.0.0.0:0", ("0.0.0.0", 0)),
    ("[::1]:9000", ("::1", 9000)),
    ("off", None),
    ("", None),
])
def test_the_display_address(value, address):
    assert config.http_address(value) == address
    c = config.load(parse("--profile", "baden", "--state-dir", "/x", "--results", "-",
                          "--http", value))
    assert c.http == value


def test_the_display_is_on_localhost_by_default():
    c = config.load(parse("--profile", "baden", "--state-dir", "/x", "--results", "-"))
    assert config.http_address(c.http) == ("127.0.0.1", 8080)


def test_the_display_speaks_english_with_the_french_terms_unless_told(tmp_path: Path):
    c = config.load(parse("--profile", "baden", "--state-dir", "/x", "--results", "-"))
    assert (c.display_language, c.display_terms) == ("en", "french")
    f = tmp_path / "t.toml"
    f.write_text('profile = "baden"\nstate_dir = "/x"\nresults = "-"\n'
                 'display_language = "zh"\ndisplay_terms = "language"\n')
    c = config.load(parse("--config", str(f)))
    assert (c.display_language, c.display_terms) == ("zh", "language")
    c = config.load(parse("--config", str(f), "--display-language", "de"))
    assert c.display_language == "de" and c.as_dict()["display_language"] == "de"


def floor_file(tmp_path: Path, *lines: str) -> Path:
    (tmp_path / "ca.pem").write_text("not a certificate yet\n")
    (tmp_path / "floor.password").write_text("s3cret\n")
    f = tmp_path / "table.toml"
    f.write_text("\n".join(['profile = "baden"', f'state_dir = "{tmp_path / "s"}"',
                            'results = "-"', "", *lines]) + "\n")
    return f


FLOOR = ["[floor]", 'broker = "mqtts://floor.casino.lan:8883"', 'username = "table-7"',
         'password_file = "floor.password"', 'ca_file = "ca.pem"']


def test_no_floor_table_means_no_link(tmp_path: Path):
    c = config.load(parse("--config", str(floor_file(tmp_path))))
    assert c.floor is None and c.as_dict()["floor"] is None


def test_the_floor_table_is_read_relative_to_the_file_and_its_secret_never_recorded(
        tmp_path: Path):
    c = config.load(parse("--config", str(floor_file(tmp_path, *FLOOR)), "--baud", "9600"))
    assert c.floor is not None and c.baud == 9600
    assert (c.floor.host, c.floor.port, c.floor.table) == ("floor.casino.lan", 8883, "table-7")
    assert c.floor.password == "s3cret" and c.floor.ca_file == tmp_path / "ca.pem"
    recorded = c.as_dict()  # what the ledger's daemon.start record holds
    assert recorded["floor"]["broker"] == "mqtts://floor.casino.lan:8883"
    assert "s3cret" not in repr(recorded)


@pytest.mark.parametrize(("edit", "named"), [
    (('broker = "mqtt://floor:1883"',), "setting floor.broker"),
    (('broker = "mqtts://floor:1883"', 'username = "a/b"'), "setting floor.username"),
    (('broker = "mqtts://floor:1883"', 'username = "t"', 'password_file = "nope"',
      'ca_file = "ca.pem"'), "setting floor.password_file"),
    (('broker = "mqtts://floor:1883"', 'username = "t"', 'password = "x"'),
     "setting floor.ca_file: missing"),
    ((*FLOOR[1:], "keepalive = 0"), "setting floor.keepalive"),
    ((*FLOOR[1:], 'colour = "green"'), "setting floor.colour: unknown"),
])
def test_a_bad_floor_setting_is_named(tmp_path: Path, edit, named):
    with pytest.raises(config.ConfigError, match=named):
        config.load(parse("--config", str(floor_file(tmp_path, "[floor]", *edit))))


def test_the_documented_floor_table_loads(tmp_path: Path):
    """docs/shoe-daemon.toml's [floor] example, uncommented, is what the loader takes."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "shoe-daemon.toml").read_text()
    head, _, tail = text.partition("# [floor]\n")
    floor = [line[2:] for line in tail.splitlines() if line.startswith("# ") and
             not line.startswith("# #")]
    (tmp_path / "floor.password").write_text("x\n")
    (tmp_path / "floor-ca.pem").write_text("")
    f = tmp_path / "table.toml"
    f.write_text((head + "[floor]\n" + "\n".join(floor) + "\n").replace(
        "/etc/shoe-daemon/", f"{tmp_path}/"))
    c = config.load(parse("--config", str(f)))
    assert c.floor is not None and c.floor.table == c.table == "table-1"
    assert (c.floor.keepalive, c.floor.session_expiry, c.floor.heartbeat) == (30, 604800, 5.0)


def test_the_money_table_is_checked_against_the_house_and_needs_the_console(tmp_path):
    base = f'profile = "baden"\nstate_dir = "{tmp_path}"\nresults = "{tmp_path}/r.jsonl"\n'
    f = tmp_path / "c.toml"
    f.write_text(base + 'console = "127.0.0.1:0"\n[money]\nmin_bank = 100\nmin_stake = 10\n')
    c = config.load(parse("--config", str(f)))
    assert c.money == {"min_bank": 100, "min_stake": 10}
    assert c.as_dict()["money"] == {"min_bank": 100, "min_stake": 10}
    f.write_text(base + 'console = "127.0.0.1:0"\n[money]\nmin_stake = 10\n')
    with pytest.raises(config.ConfigError, match=r"money\.min_bank: baden leaves it to the table"):
        config.load(parse("--config", str(f)))
    f.write_text(base + 'console = "127.0.0.1:0"\n[money]\nmin_bank = 100.5\nmin_stake = 10\n')
    with pytest.raises(config.ConfigError, match=r"money\.min_bank"):
        config.load(parse("--config", str(f)))  # a TOML float
    f.write_text(base + '[money]\nmin_bank = 100\nmin_stake = 10\n')
    with pytest.raises(config.ConfigError, match="set console too"):
        config.load(parse("--config", str(f)))
    f.write_text(base + 'money = 5\n')
    with pytest.raises(config.ConfigError, match="must be a table"):
        config.load(parse("--config", str(f)))
    f.write_text(base)
    assert config.load(parse("--config", str(f))).money is None


def test_the_documented_money_table_loads(tmp_path: Path):
    """docs/shoe-daemon.toml's [money] example, uncommented (with the console it needs), is
    what the loader takes."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "shoe-daemon.toml").read_text()
    head, _, tail = text.partition("# [money]\n")
    money = []
    for line in tail.splitlines():
        if not line.startswith("# ") or line.startswith("# The floor"):
            break
        money.append(line[2:])
    f = tmp_path / "table.toml"
    f.write_text(head.replace('console = "off"', 'console = "127.0.0.1:0"') + "[money]\n"
                 + "\n".join(money) + "\n")
    c = config.load(parse("--config", str(f), "--state-dir", str(tmp_path)))
    assert c.money is not None and c.money["min_bank"] == 100 and c.money["places"] == 9


def test_check_config_says_the_money_limits(tmp_path):
    from shoe_daemon.service.check_config import check

    f = tmp_path / "c.toml"
    f.write_text(f'profile = "baden"\nstate_dir = "{tmp_path}"\nresults = "{tmp_path}/r.jsonl"\n'
                 'console = "127.0.0.1:0"\n[money]\nmin_bank = 100\nmin_stake = "12.50"\n'
                 'chip = "0.50"\n')
    lines = check(config.load(parse("--config", str(f)))).lines
    assert any(x.startswith("money: kept in CHF (Swiss franc)") for x in lines), lines
    assert "  commission 5 %, chip Fr. 0.50, stakes Fr. 12.50 to no limit" in lines
    assert "  bank Fr. 100 to no limit, 9 places" in lines
    f.write_text(f'profile = "baden"\nstate_dir = "{tmp_path}"\nresults = "{tmp_path}/r.jsonl"\n')
    assert "money: not kept (no [money] table): the console takes no stakes" in check(
        config.load(parse("--config", str(f)))).lines


# ---- what a person starting the daemon reads (issue 23) ------------------------------------


def test_every_missing_required_setting_is_named_at_once():
    with pytest.raises(config.ConfigError) as refused:
        config.load(parse())
    for name in ("'profile' (--profile)", "'state_dir' (--state-dir)", "'results' (--results)"):
        assert name in str(refused.value)


def test_check_config_says_the_display_is_off(tmp_path):
    from shoe_daemon.service.check_config import check

    on = check(config.load(parse("--profile", "baden", "--state-dir", str(tmp_path),
                                 "--results", "-"))).lines
    off = check(config.load(parse("--profile", "baden", "--state-dir", str(tmp_path),
                                  "--results", "-", "--http", "off"))).lines
    assert "display: HTTP on 127.0.0.1:8080" in on
    assert "display: off (no table display served)" in off
    assert not any("HTTP on off" in line for line in off)


def as_another_user() -> list[str]:
    """Run as nobody when root (whom no mode stops), else as oneself."""
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] \
        if os.geteuid() == 0 else []


def test_run_names_an_unwritable_state_directory_before_serving_anything(tmp_path):
    import shutil
    import subprocess
    import sys
    import tempfile

    home = Path(tempfile.mkdtemp(prefix="shoe-unwritable-"))  # pytest's own is 0700
    home.chmod(0o755)
    state = home / "state"
    state.mkdir()
    state.chmod(0o555)
    results = home / "results.jsonl"
    done = subprocess.run(
        [*as_another_user(), sys.executable, "-m", "shoe_daemon.service.cli", "run",
         "--profile", "baden", "--state-dir", str(state), "--results", str(results),
         "--port", str(home / "no-shoe"), "--http", "127.0.0.1:0"],
        capture_output=True, text=True, timeout=60,
        cwd=Path(__file__).resolve().parent.parent)
    state.chmod(0o755)
    shutil.rmtree(home)
    assert done.returncode == 2, done
    assert f"setting 'state_dir': {state} is not writable by uid" in done.stderr
    assert "'results'" not in done.stderr and "Errno" not in done.stderr
    assert "display.listening" not in done.stdout + done.stderr  # refused before serving


def test_a_terminal_log_leaves_out_fields_without_a_value():
    import io

    import structlog

    from shoe_daemon.service import logs

    out = io.StringIO()
    logs.configure("console", stream=out)
    structlog.get_logger("t").info("coup.published", coup=None, frame=7)
    assert "frame=7" in out.getvalue() and "coup=" not in out.getvalue()
    out = io.StringIO()
    logs.configure("json", stream=out)
    structlog.get_logger("t").info("coup.published", coup=None, frame=7)
    assert '"coup": null' in out.getvalue()  # the machines keep every field
