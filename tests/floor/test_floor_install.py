"""The pit's install path, run for real into a scratch prefix as tests/test_install.py runs the
table's: `systemd/install.sh --floor` builds /opt/shoe-floor/venv with PostgreSQL's driver
from binary wheels, places the two units, the user, the example configuration, the broker's
files and the credentials script, and enables nothing. With the operator's edits to the
installed floor.toml (a broker login, the CA, a database), the collector and the page then
run from their installed units' ExecStart lines against a real mosquitto and a real
PostgreSQL, a table's records arrive, and the installed `shoe-floor export` signs them.
The whole of it as root in a clean Bookworm, with Debian's own broker and cluster: the
`--chroot` tests (tests/test_chroot_install.py)."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hil.floor_servers import COLLECTOR, PIT, PREFIX, ROOT, wait_for
from shoe_daemon.floor.link import FloorLink
from tests.display_client import get
from tests.floor.conftest import assert_exact, kill
from tests.pit_people import request, sign_in, write_people
from tests.test_install import build_deb, deb_contents
from tests.test_systemd_units import directives, tool

INSTALL = ROOT / "systemd" / "install.sh"
UNITS = ("shoe-floor-collect.service", "shoe-floor-serve.service")


def install(prefix: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(["bash", str(INSTALL), "--floor", "--prefix", str(prefix),
                             "--python", sys.executable, *extra],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("pit")
    return root, install(root).stdout


def test_the_pits_files_land_and_nothing_of_the_tables(installed) -> None:
    prefix, _ = installed
    opt = prefix / "opt/shoe-floor"
    assert os.access(opt / "venv/bin/shoe-floor", os.X_OK)
    driver = subprocess.run([str(opt / "venv/bin/python"), "-c",
                             "import psycopg; print(psycopg.pq.__impl__)"],
                            capture_output=True, text=True, timeout=60)
    assert driver.stdout.strip() == "binary", driver.stderr  # libpq in the wheel: no compiler
    for unit in UNITS:
        assert (prefix / "etc/systemd/system" / unit).is_file()
    users = (prefix / "etc/sysusers.d/shoe-floor.conf").read_text()
    assert f"u shoe-floor - \"Card shoe floor collector\" {prefix}/var/lib/shoe-floor -" in users
    for name in ("shoe-floor.conf", "shoe-floor.acl"):  # for the operator to put in place
        assert (opt / "mosquitto" / name).read_bytes() == \
            (ROOT / "systemd/mosquitto" / name).read_bytes()
    assert os.access(opt / "bin/floor-table-credentials", os.X_OK)
    for doc in ("deployment.md", "floor.md", "floor.toml"):
        assert (opt / "docs" / doc).is_file()
    config = (prefix / "etc/shoe-floor/floor.toml").read_text()
    assert f'state_dir = "{prefix}/var/lib/shoe-floor"' in config
    state = prefix / "var/lib/shoe-floor"
    assert state.stat().st_mode & 0o777 == 0o750 and not list(state.iterdir())
    assert (prefix / "etc/shoe-floor/table-keys").is_dir()  # `shoe-floor lodge-key` fills it
    assert not (prefix / "etc/mosquitto").exists()  # Debian's broker is left as it is
    assert not (prefix / "opt/shoe-daemon").exists()
    assert not (prefix / "etc/udev").exists()
    assert not list((prefix / "etc/systemd/system").glob("shoe-daemon*"))


def test_nothing_is_enabled_and_the_next_step_is_said(installed) -> None:
    prefix, out = installed
    assert not list((prefix / "etc/systemd/system").glob("*.wants"))
    assert "the units are not enabled here" in out
    assert "systemctl enable --now shoe-floor-collect.service shoe-floor-serve.service" in out


@pytest.mark.parametrize("unit", UNITS)
def test_systemd_analyze_verify_passes_on_each_installed_unit(installed, unit: str) -> None:
    prefix, _ = installed
    result = subprocess.run([tool("systemd-analyze"), "verify",
                             str(prefix / "etc/systemd/system" / unit)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr
    exec_start = directives(prefix / "etc/systemd/system" / unit)["Service.ExecStart"][0]
    assert exec_start.startswith(f"{prefix}/opt/shoe-floor/venv/bin/shoe-floor ")
    assert exec_start.endswith(f" --config {prefix}/etc/shoe-floor/floor.toml")


def configure(prefix: Path, broker, database: str) -> Path:
    """The operator's edits to the installed example (docs/deployment.md, "The floor"): the
    collector's and the page's secrets and the CA beside them, the broker's address, the
    database; and here the tests' topic prefix and any free port for the page."""
    etc = prefix / "etc/shoe-floor"
    for login, secret in ((COLLECTOR, "broker.password"), (PIT, "pit.password")):
        (etc / secret).write_text((broker.root / f"{login}.secret").read_text())
        (etc / secret).chmod(0o600)
    (etc / "floor-ca.pem").write_bytes(broker.certs.ca.read_bytes())
    config = etc / "floor.toml"
    text = config.read_text()
    for shipped, mine in (
            ('"mqtts://floor-broker.casino.lan:8883"', f'"mqtts://127.0.0.1:{broker.port}"'),
            ('# topic_prefix = "shoe/floor"', f'topic_prefix = "{PREFIX}"'),
            ('"postgresql://shoe-floor@/shoe_floor?host=/run/postgresql"', f'"{database}"'),
            ('http = "127.0.0.1:8090"', 'http = "127.0.0.1:0"')):
        assert shipped in text, shipped
        text = text.replace(shipped, mine)
    config.write_text(text)
    people = prefix / "var/lib/shoe-floor/pit-people.json"  # as installed, in the state dir
    assert f'people = "{people}"' in text
    people.parent.mkdir(parents=True, exist_ok=True)
    write_people(people, ("boss",))
    return config


def run_unit(prefix: Path, unit: str, **popen) -> subprocess.Popen:
    """What `systemctl start` does, minus the sandbox: the installed unit's ExecStart, in its
    WorkingDirectory, with a clean environment."""
    d = directives(prefix / "etc/systemd/system" / unit)
    return subprocess.Popen(shlex.split(d["Service.ExecStart"][0]),
                            cwd=d["Service.WorkingDirectory"][0],
                            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                            stdin=subprocess.DEVNULL, text=True, **popen)


def test_the_installed_units_run_against_the_installed_configuration(installed, broker,
                                                                     postgres, make_table,
                                                                     tmp_path) -> None:
    prefix, _ = installed
    database = postgres.new_database()
    configure(prefix, broker, database)
    bin_dir = prefix / "opt/shoe-floor/venv/bin"
    config = str(prefix / "etc/shoe-floor/floor.toml")
    table = make_table("t7")
    # The table's public key, as `shoe-daemon audit public-key` prints it at the table, lodged
    # by the installed command where the installed configuration's table_keys names.
    pem = tmp_path / "t7.pub.pem"
    printed = subprocess.run([str(bin_dir / "shoe-daemon"), "audit", "public-key",
                              "--state-dir", str(table.state_dir)],
                             capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0, printed.stderr
    pem.write_text(printed.stdout)
    lodged = subprocess.run([str(bin_dir / "shoe-floor"), "lodge-key", "--config", config, "t7",
                             str(pem)], capture_output=True, text=True, timeout=60)
    assert lodged.returncode == 0, lodged.stdout + lodged.stderr
    assert list((prefix / "etc/shoe-floor/table-keys/t7").glob("*.pub.pem"))
    logs = {unit: (tmp_path / f"{unit}.log").open("w") for unit in UNITS}  # the journal's
    collect = run_unit(prefix, UNITS[0], stdout=logs[UNITS[0]], stderr=subprocess.STDOUT)
    serve = run_unit(prefix, UNITS[1], stdout=subprocess.PIPE, stderr=logs[UNITS[1]])
    link = FloorLink(table.config, table.state_dir, poll=0.1)
    try:
        url = None
        assert serve.stdout is not None
        for line in serve.stdout:
            if '"pit.listening"' in line:
                url = json.loads(line)["url"]
                break
        assert url, (tmp_path / f"{UNITS[1]}.log").read_text()
        threading.Thread(target=serve.stdout.read, daemon=True).start()  # the rest of its log
        link.start()
        table.commit(40)
        link.notify()
        assert_exact(database, [table], timeout=60)
        assert get(url, "/api/tiles")[0] == 401
        cookie = sign_in(url)
        wait_for(lambda: [t["store"]["tip"] for t in json.loads(request(
            url, "GET", "/api/tiles", cookie=cookie)[2])["tiles"]] == [40],
                 what="the page to show the stored tip")
        for proc in (collect, serve):
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0
    finally:
        link.stop()
        kill(collect)
        kill(serve)
        for log in logs.values():
            log.close()
    assert '"collector.connected"' in (tmp_path / f"{UNITS[0]}.log").read_text()
    # The regulator's export by the installed command, from the installed configuration.
    made = subprocess.run([str(bin_dir / "shoe-floor"), "keygen", "--config", config],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    assert (prefix / "var/lib/shoe-floor/keys/current").is_file()
    out = tmp_path / "export"
    done = subprocess.run([str(bin_dir / "shoe-floor"), "export", "--config", config,
                           "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    verified = subprocess.run([str(bin_dir / "shoe-daemon"), "audit", "verify", str(out / "t7"),
                               "--public-key", str(out / "floor.pub.pem")],
                              capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0 and "records 1..40 (40)" in verified.stdout, verified.stderr


def test_running_it_again_keeps_the_operators_config(installed) -> None:
    prefix, _ = installed
    config = prefix / "etc/shoe-floor/floor.toml"
    config.write_text(config.read_text().replace('client_id = "collector-1"',
                                                 'client_id = "collector-9"'))
    again = install(prefix)
    assert f"keeping {config}" in again.stdout
    assert 'client_id = "collector-9"' in config.read_text()


def test_the_tables_options_are_refused_with_floor(tmp_path: Path) -> None:
    for option in (["--kiosk"], ["--adapter", "0403:6001:A10K2B3C"]):
        result = subprocess.run(["bash", str(INSTALL), "--floor", "--prefix", str(tmp_path),
                                 *option], capture_output=True, text=True, timeout=60)
        assert result.returncode != 0
        assert f"{option[0]} is the table's option, not the floor's" in result.stderr
    assert not list(tmp_path.iterdir())


def test_the_pits_package_for_arm64_carries_wheels_for_it_and_enables_nothing(
        tmp_path: Path) -> None:
    """The pit is usually amd64 (installed in the --chroot test), possibly arm64: that
    package carries only aarch64 or pure-Python wheels, psycopg's binary among them."""
    deb = build_deb(tmp_path, "--floor", "--arch", "arm64")
    assert deb.name == "shoe-floor_0.1.0_arm64.deb"
    fields = subprocess.run(["dpkg-deb", "-f", deb, "Package", "Architecture", "Depends",
                             "Recommends"], check=True, capture_output=True, text=True).stdout
    assert "Package: shoe-floor" in fields and "Architecture: arm64" in fields
    assert "python3 (>= 3.11), python3 (<< 3.12)" in fields
    assert "Recommends: mosquitto, postgresql" in fields
    listing, wheels = deb_contents(deb, "aarch64")
    assert any(w.startswith("psycopg_binary-") for w in wheels)
    for path in ("./usr/lib/systemd/system/shoe-floor-collect.service",
                 "./usr/lib/systemd/system/shoe-floor-serve.service",
                 "./usr/lib/sysusers.d/shoe-floor.conf", "./etc/shoe-floor/floor.toml",
                 "./opt/shoe-floor/mosquitto/shoe-floor.conf",
                 "./opt/shoe-floor/mosquitto/shoe-floor.acl",
                 "./opt/shoe-floor/bin/floor-table-credentials",
                 "./usr/bin/shoe-floor -> /opt/shoe-floor/venv/bin/shoe-floor"):
        assert any(line.endswith(path) for line in listing), path
    assert not any("shoe-daemon.service" in line or "udev" in line for line in listing)
    control = subprocess.run(["dpkg-deb", "--ctrl-tarfile", deb], check=True,
                             capture_output=True).stdout
    assert b"/etc/shoe-floor/floor.toml" in control
    postinst = subprocess.run(["dpkg-deb", "-I", deb, "postinst"], check=True,
                              capture_output=True, text=True).stdout
    assert "deb-systemd-helper enable" in postinst and "debian-installed" in postinst
