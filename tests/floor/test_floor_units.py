"""The floor's systemd units checked with systemd's own tools (security exposure, verify,
sysusers), as tests/test_systemd_units.py checks the table's; and the two commands their
ExecStart lines run, started as written under the one sandbox directive a process can impose
on itself without systemd as PID 1: MemoryDenyWriteExecute (the kernel's PR_SET_MDWE)."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from hil.floor_servers import (
    COLLECTOR,
    CREDENTIALS,
    MOSQUITTO,
    PIT,
    PREFIX,
    ROOT,
    free_port,
    wait_for,
)
from shoe_daemon.floor.config import FloorConfig
from shoe_daemon.floor.link import FloorLink
from tests.floor.conftest import Raw, assert_exact, kill
from tests.pit_people import request, sign_in, write_people
from tests.test_systemd_units import OK_THRESHOLD, directives, tool

SYSTEMD = ROOT / "systemd"
UNITS = ("shoe-floor-collect.service", "shoe-floor-serve.service")
VENV_BIN = Path(sys.executable).parent
# prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN): what MemoryDenyWriteExecute= asks of systemd.
MDWE = ("import ctypes, runpy, sys; libc = ctypes.CDLL(None, use_errno=True); "
        "assert libc.prctl(65, 1, 0, 0, 0) == 0, ctypes.get_errno(); "
        "sys.argv = ['shoe-floor', *sys.argv[1:]]; "
        "runpy.run_module('shoe_floor.cli', run_name='__main__')")


@pytest.mark.parametrize("unit", UNITS)
def test_each_unit_rates_ok_or_better_in_systemd_analyze_security(unit: str) -> None:
    result = subprocess.run([tool("systemd-analyze"), "security", "--offline=true",
                             f"--threshold={int(OK_THRESHOLD * 10)}", str(SYSTEMD / unit)],
                            capture_output=True, text=True, timeout=60)
    match = re.search(rf"Overall exposure level for {unit}: ([\d.]+) (\w+)", result.stdout)
    assert match, result.stdout + result.stderr
    exposure, label = float(match.group(1)), match.group(2)
    assert exposure <= OK_THRESHOLD and label in ("PERFECT", "SAFE", "OK"), match.group(0)
    assert result.returncode == 0, result.stderr
    documented = (ROOT / "docs" / "deployment.md").read_text()
    assert f"`{unit}` rates **{exposure} {label}**" in documented, \
        "docs/deployment.md gives another figure"


@pytest.mark.parametrize("unit", UNITS)
def test_systemd_analyze_verify_passes_with_the_command_installed(unit: str,
                                                                  tmp_path: Path) -> None:
    """As installed: the unit's ExecStart names the virtual environment's shoe-floor, here
    this checkout's (verify refuses a command that is not there)."""
    placed = tmp_path / unit
    placed.write_text((SYSTEMD / unit).read_text().replace(
        "/opt/shoe-floor/venv/bin/shoe-floor", str(VENV_BIN / "shoe-floor")))
    result = subprocess.run([tool("systemd-analyze"), "verify", str(placed)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


@pytest.mark.parametrize(("unit", "command", "other"), [
    (UNITS[0], "collect", "pit.password"), (UNITS[1], "serve", "broker.password")])
def test_a_user_a_state_directory_and_read_only_configuration(unit: str, command: str,
                                                              other: str) -> None:
    """Each runs as the floor's user, and neither can read the other's broker password."""
    d = directives(SYSTEMD / unit)
    assert d["Service.ExecStart"][0].split() == [
        "/opt/shoe-floor/venv/bin/shoe-floor", command, "--config",
        "/etc/shoe-floor/floor.toml"]
    assert d["Service.User"] == d["Service.Group"] == ["shoe-floor"]
    assert d["Service.StateDirectory"] == ["shoe-floor"]
    assert d["Service.ConfigurationDirectory"] == ["shoe-floor"]
    assert d["Service.ProtectSystem"] == ["strict"]  # /etc/shoe-floor read-only
    assert d["Service.InaccessiblePaths"] == [f"-/var/lib/shoe-floor/keys -/etc/shoe-floor/{other}"]
    assert d["Service.Restart"] == ["on-failure"]
    assert d["Service.RestartPreventExitStatus"] == ["2"]  # the CLI's exit for a bad setting
    assert d["Service.MemoryDenyWriteExecute"] == ["yes"]
    assert d["Install.WantedBy"] == ["multi-user.target"]


def test_the_sysusers_file_makes_the_floors_user(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    subprocess.run([tool("systemd-sysusers"), f"--root={root}",
                    str(SYSTEMD / "shoe-floor.sysusers")], check=True, capture_output=True,
                   timeout=30)
    passwd = (root / "etc" / "passwd").read_text()
    assert re.search(r"^shoe-floor:x:\d+:\d+:.*:/var/lib/shoe-floor:/usr/sbin/nologin$",
                     passwd, re.M), passwd


def exec_start(unit: str, config: Path, *extra: str) -> list[str]:
    """The unit's ExecStart, its configuration moved to `config`, run under MDWE."""
    argv = shlex.split(directives(SYSTEMD / unit)["Service.ExecStart"][0])
    assert argv[0].endswith("/shoe-floor")
    args = [str(config) if a == "/etc/shoe-floor/floor.toml" else a for a in argv[1:]]
    return [sys.executable, "-c", MDWE, *args, *extra]


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_both_commands_run_under_memory_deny_write_execute(make_table, collector_toml,
                                                           database, tmp_path, broker):
    table = make_table("t1")
    toml = collector_toml("collector-1")
    toml.write_text(toml.read_text() + '\n[pit]\nhttp = "127.0.0.1:0"\npoll = 0.3\n'
                    f'username = "{PIT}"\npassword_file = "{broker.secret(PIT)}"\n')
    write_people(toml.parent / "pit-people.json", ("boss",))
    collect = subprocess.Popen(exec_start(UNITS[0], toml), cwd=tmp_path,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    serve = subprocess.Popen(exec_start(UNITS[1], toml), cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    try:
        url = None
        for line in serve.stdout:
            if '"pit.listening"' in line:
                url = json.loads(line)["url"]
                break
        assert url, serve.stderr.read()
        link.start()
        table.commit(25)
        link.notify()
        assert_exact(database, [table], timeout=60)
        link.publish_state(b'{"table": "t1", "state": "waiting_for_stakes"}')
        cookie = sign_in(url)
        wait_for(lambda: [t["store"]["tip"] for t in json.loads(request(
            url, "GET", "/api/tiles", cookie=cookie)[2])["tiles"]] == [25],
                 what="the page to show the stored tip")
        assert collect.poll() is None and serve.poll() is None
    finally:
        link.stop()
        kill(collect)
        kill(serve)


def test_the_shipped_broker_conf_starts_beside_debians_own(certs, tmp_path):
    """/etc/mosquitto/conf.d/shoe-floor.conf as docs/deployment.md installs it, included by
    a main file with what Debian's mosquitto.conf sets (persistence and its location, which
    mosquitto refuses twice); only the paths and the port are moved for the test."""
    etc = tmp_path / "etc"
    (etc / "conf.d").mkdir(parents=True)
    port = free_port()
    shipped = (SYSTEMD / "mosquitto" / "shoe-floor.conf").read_text()
    for deployed, here in (("/etc/mosquitto/certs/shoe-floor-ca.pem", certs.ca),
                           ("/etc/mosquitto/certs/shoe-floor-broker.pem", certs.cert),
                           ("/etc/mosquitto/certs/shoe-floor-broker.key", certs.key),
                           ("/etc/mosquitto/shoe-floor.passwd", etc / "passwd"),
                           ("/etc/mosquitto/shoe-floor.acl", SYSTEMD / "mosquitto" /
                            "shoe-floor.acl"),
                           ("listener 8883 0.0.0.0", f"listener {port} 127.0.0.1")):
        assert deployed in shipped
        shipped = shipped.replace(deployed, str(here))
    (etc / "conf.d" / "shoe-floor.conf").write_text(shipped)
    subprocess.run([str(CREDENTIALS), "--passwd", str(etc / "passwd"), COLLECTOR,
                    str(etc / "secret")], check=True, capture_output=True)
    (tmp_path / "data").mkdir()
    debian = [f"pid_file {tmp_path / 'mosquitto.pid'}", "persistence true",
              f"persistence_location {tmp_path / 'data'}/",
              f"log_dest file {tmp_path / 'mosquitto.log'}", f"include_dir {etc / 'conf.d'}"]
    if os.geteuid() == 0:
        debian.append("user root")
    (etc / "mosquitto.conf").write_text("\n".join(debian) + "\n")
    broker = subprocess.Popen([MOSQUITTO, "-c", str(etc / "mosquitto.conf")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        def listening() -> bool:
            assert broker.poll() is None, broker.stderr.read()
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0

        wait_for(listening, 20, what="mosquitto to listen")
        login = FloorConfig("127.0.0.1", port, COLLECTOR, (etc / "secret").read_text().strip(),
                            certs.ca, PREFIX)
        client = Raw(login)  # TLS against the floor's CA, and the collector's login
        client.close()
    finally:
        kill(broker)
