"""The files under systemd/ checked with systemd's own tools where they exist (security
exposure, sysusers), and udev's rule grammar where Bookworm has no `udevadm verify`.
`systemd-analyze verify` runs on the units as installed, in tests/test_install.py."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hil.harness import ROOT

SYSTEMD = ROOT / "systemd"
UNIT = SYSTEMD / "shoe-daemon.service"
OK_THRESHOLD = 4.9  # systemd-analyze security: up to 4.9 is "OK", lower is "SAFE"/"PERFECT"


def tool(name: str) -> str:
    """A missing tool fails the test: `bash scripts/setup --test` installs systemd."""
    path = shutil.which(name)
    assert path, f"{name} is not installed: bash scripts/setup --test"
    return path


def directives(path: Path) -> dict[str, list[str]]:
    """Section.Key -> values, in order (systemd allows a key several times)."""
    found: dict[str, list[str]] = {}
    section = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        found.setdefault(f"{section}.{key}", []).append(value)
    return found


def test_the_service_rates_ok_or_better_in_systemd_analyze_security() -> None:
    result = subprocess.run([tool("systemd-analyze"), "security", "--offline=true",
                             f"--threshold={int(OK_THRESHOLD * 10)}", str(UNIT)],
                            capture_output=True, text=True, timeout=60)
    match = re.search(r"Overall exposure level for shoe-daemon.service: ([\d.]+) (\w+)",
                      result.stdout)
    assert match, result.stdout + result.stderr
    exposure, label = float(match.group(1)), match.group(2)
    assert exposure <= OK_THRESHOLD and label in ("PERFECT", "SAFE", "OK"), match.group(0)
    assert result.returncode == 0, result.stderr
    documented = (ROOT / "docs" / "deployment.md").read_text()
    assert f"{exposure} {label}" in documented, "docs/deployment.md gives another figure"


def test_the_prune_service_rates_safe_and_its_timer_is_daily() -> None:
    prune = SYSTEMD / "shoe-daemon-prune.service"
    result = subprocess.run([tool("systemd-analyze"), "security", "--offline=true",
                             f"--threshold={int(OK_THRESHOLD * 10)}", str(prune)],
                            capture_output=True, text=True, timeout=60)
    match = re.search(r"Overall exposure level for shoe-daemon-prune.service: ([\d.]+) (\w+)",
                      result.stdout)
    assert match and float(match.group(1)) <= OK_THRESHOLD, result.stdout + result.stderr
    d = directives(prune)
    assert d["Service.User"] == ["shoe-daemon"] and d["Service.PrivateNetwork"] == ["yes"]
    assert d["Service.ExecStart"][0].split()[1:] == [
        "audit", "prune", "--config", "/etc/shoe-daemon/shoe-daemon.toml"]
    timer = directives(SYSTEMD / "shoe-daemon-prune.timer")
    assert timer["Timer.OnCalendar"] == ["*-*-* 07:30:00"]


def test_the_service_is_notify_watchdog_and_restart_on_failure() -> None:
    d = directives(UNIT)
    assert d["Service.Type"] == ["notify"]
    assert d["Service.NotifyAccess"] == ["main"]
    assert d["Service.Restart"] == ["on-failure"]
    assert d["Service.RestartPreventExitStatus"] == ["2"]  # `run`'s exit for a bad setting
    assert d["Service.WatchdogSec"] == ["30s"]
    assert d["Service.User"] == ["shoe-daemon"]
    assert d["Service.StateDirectory"] == ["shoe-daemon"]
    assert d["Service.ConfigurationDirectory"] == ["shoe-daemon"]
    assert d["Service.ProtectSystem"] == ["strict"]
    exec_start = d["Service.ExecStart"][0].split()
    assert exec_start[:2] == ["/opt/shoe-daemon/venv/bin/shoe-daemon", "run"]
    assert exec_start[2:] == ["--config", "/etc/shoe-daemon/shoe-daemon.toml"]


def test_the_daemon_loop_pings_well_within_the_watchdog_interval() -> None:
    """The loop's longest wait (READ_TIMEOUT, the backoff slices) is far below WatchdogSec."""
    from shoe_daemon.service import loop, status

    watchdog = float(directives(UNIT)["Service.WatchdogSec"][0].rstrip("s"))
    assert max(loop.READ_TIMEOUT, status.SLICE) * 10 < watchdog / 2


def test_the_sysusers_file_makes_the_user_in_dialout(tmp_path) -> None:
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "group").write_text("dialout:x:20:\n")
    subprocess.run([tool("systemd-sysusers"), f"--root={root}",
                    str(SYSTEMD / "shoe-daemon.sysusers")], check=True, capture_output=True,
                   timeout=30)
    passwd = (root / "etc" / "passwd").read_text()
    assert re.search(r"^shoe-daemon:x:\d+:\d+:.*:/var/lib/shoe-daemon:/usr/sbin/nologin$",
                     passwd, re.M), passwd
    assert "dialout:x:20:shoe-daemon" in (root / "etc" / "group").read_text()


# ---- udev rules ---------------------------------------------------------------------------

_KEY = re.compile(r'^(?P<key>[A-Z_]+)(\{(?P<attr>[^}]+)\})?(?P<op>==|!=|\+=|-=|:=|=)"'
                  r'(?P<value>[^"]*)"$')
_MATCH = {"SUBSYSTEM", "SUBSYSTEMS", "KERNEL", "KERNELS", "ATTR", "ATTRS", "ENV", "ACTION",
          "DRIVER", "DRIVERS", "TAG"}
_ASSIGN = {"SYMLINK", "GROUP", "MODE", "OWNER", "TAG", "ENV", "RUN"}


def udev_rules(text: str) -> list[list[dict[str, str]]]:
    """udev(7)'s grammar for the keys we use: each rule a list of key/attr/op/value, or
    AssertionError naming the line."""
    rules = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        rule = []
        for part in re.split(r'",\s*', line.strip()):
            token = part if part.endswith('"') else part + '"'
            m = _KEY.match(token)
            assert m, f"line {number}: cannot parse {token!r}"
            key, op = m["key"], m["op"]
            allowed = _MATCH if op in ("==", "!=") else _ASSIGN
            assert key in allowed, f"line {number}: {key}{op} is not a valid use"
            rule.append(m.groupdict())
        assert any(r["op"] == "==" for r in rule), f"line {number}: matches nothing"
        rules.append(rule)
    return rules


def render(vendor: str = "0403", product: str = "6001", serial: str = "A10K2B3C") -> str:
    text = (SYSTEMD / "99-shoe.rules.in").read_text()
    for name, value in (("ADAPTER_VENDOR", vendor), ("ADAPTER_PRODUCT", product),
                        ("ADAPTER_SERIAL", serial), ("SHOE_VENDOR", "1209"),
                        ("SHOE_PRODUCT", "5348")):
        text = text.replace(f"@{name}@", value)
    assert "@" not in text
    return text


def test_the_udev_rules_name_the_adapter_and_open_the_vendor_interface() -> None:
    tty, usb = udev_rules(render())
    tty_keys = {(r["key"], r["attr"], r["op"]): r["value"] for r in tty}
    assert tty_keys[("SUBSYSTEM", None, "==")] == "tty"
    assert tty_keys[("ATTRS", "idVendor", "==")] == "0403"
    assert tty_keys[("ATTRS", "idProduct", "==")] == "6001"
    assert tty_keys[("ATTRS", "serial", "==")] == "A10K2B3C"
    assert tty_keys[("SYMLINK", None, "+=")] == "shoe"
    assert tty_keys[("GROUP", None, "=")] == "dialout"
    usb_keys = {(r["key"], r["attr"], r["op"]): r["value"] for r in usb}
    from shoe_daemon.service.config import SETTINGS

    ids = {s.name: s.default for s in SETTINGS}
    assert usb_keys[("ATTR", "idVendor", "==")] == f"{ids['usb_vendor']:04x}"
    assert usb_keys[("ATTR", "idProduct", "==")] == f"{ids['usb_product']:04x}"
    assert usb_keys[("GROUP", None, "=")] == "shoe-daemon"
    assert usb_keys[("MODE", None, "=")] == "0660"


@pytest.mark.parametrize("bad", [
    'SUBSYSTEM=="tty", ATTRS{idVendor}=="0403" SYMLINK+="shoe"',  # a missing comma
    'SUBSYSTEM="tty", SYMLINK+="shoe"',  # an assignment where a match was meant
    'SUBSYSTEM=="tty", SYMLINK+=shoe',  # an unquoted value
])
def test_the_rule_checker_refuses_broken_rules(bad: str) -> None:
    with pytest.raises(AssertionError):
        udev_rules(bad)
