"""The install paths in a clean Debian root: debootstrap makes a minimal Bookworm, and in a
copy of it systemd/install.sh runs exactly as on a fresh Pi (apt, the system user, the state
directory and the key made as that user, the unit, the rules, the configuration); in another
copy the Debian package (systemd/build-deb.sh, for this machine's architecture) is installed
with apt. In both, the service's ExecStart then runs as its user, with its environment,
against a real notification socket, until READY=1, watchdog pings and a clean stop. The
pit's side likewise, by `install.sh --floor` and by the `shoe-floor` package: nothing
enabled, then docs/deployment.md's steps for the pit run as written, with Debian's own
mosquitto and PostgreSQL, and the collector and the page from their units' ExecStart as
their user take a table's records. In a third, a fresh clone runs the README's two
commands: setup installs every Debian package itself, the demo shows coups, and a subset of
the tests passes (Chromium, ptys, systemd); and setup leaves Debian's broker and cluster it
installed stopped and disabled, and one installed before as it was.

Slow (a Debian root from the network, about three minutes) and root-only, so it runs only
with `pytest --chroot` (CI does: see .ci/run). The chroots get fresh /proc and /dev/pts
mounts only, never the host's /dev, and nothing is deleted while anything is mounted in it.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import shlex
import shutil
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from hil.floor_servers import wait_for
from hil.harness import ROOT
from tests.pit_people import request, sign_in_body
from tests.test_install import build_deb
from tests.test_notify import Systemd, pings
from tests.test_systemd_units import directives

pytestmark = pytest.mark.chroot
MIRROR = "http://deb.debian.org/debian"
ADAPTER = "0403:6001:A10K2B3C"


def running_in(root: Path) -> dict[int, str]:
    """The processes whose root directory is `root` (a daemon started in it): pid, name."""
    found = {}
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.readlink(entry / "root") == str(root.resolve()):
                found[int(entry.name)] = (entry / "comm").read_text().strip()
        except OSError:
            continue  # gone meanwhile, or not ours to read
    return found


def mounted_under(root: Path) -> list[str]:
    prefix = str(root.resolve()) + "/"
    with open("/proc/mounts") as mounts:
        return [line.split()[1] for line in mounts if line.split()[1].startswith(prefix)]


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A minimal Bookworm with this checkout in /src; copied, never used itself."""
    assert os.geteuid() == 0, "the chroot test needs root (CI runs as root)"
    debootstrap = shutil.which("debootstrap")
    assert debootstrap, "debootstrap is not installed: bash scripts/setup --test"
    root = tmp_path_factory.mktemp("bookworm")
    root.chmod(0o755)  # it becomes "/": every user must be able to traverse it
    subprocess.run([debootstrap, "--variant=minbase", "bookworm", str(root), MIRROR],
                   check=True, capture_output=True, timeout=900)
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for name in filter(None, files):
        target = root / "src" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    shutil.copy2("/etc/resolv.conf", root / "etc/resolv.conf")
    # This machine's trust roots (a proxy's CA, if any), for pip inside the chroot.
    shutil.copy2("/etc/ssl/certs/ca-certificates.crt", root / "etc/host-ca.crt")
    (root / "usr/sbin/policy-rc.d").write_text("#!/bin/sh\nexit 101\n")  # no daemons started
    (root / "usr/sbin/policy-rc.d").chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)  # never mounted: only its copies are


@contextlib.contextmanager
def copy_of(bare: Path, name: str) -> Iterator[Path]:
    """A fresh copy of the bare root with /proc and a private /dev/pts mounted."""
    root = bare.with_name(name)
    subprocess.run(["cp", "-a", str(bare), str(root)], check=True)
    subprocess.run(["mount", "-t", "proc", "proc", str(root / "proc")], check=True)
    subprocess.run(["mount", "-t", "devpts", "-o", "newinstance,ptmxmode=0666", "devpts",
                    str(root / "dev/pts")], check=True)
    try:
        yield root
    finally:
        for pid in running_in(root):  # whatever a failed test left running in it
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for mount in reversed(mounted_under(root)):
            subprocess.run(["umount", mount], check=False)
        if not mounted_under(root):
            shutil.rmtree(root, ignore_errors=True)


def in_root(root: Path, *command: str, env: dict[str, str] | None = None,
            timeout: float = 600) -> subprocess.CompletedProcess[str]:
    clean = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8",
             **(env or {})}
    return subprocess.run(["chroot", str(root), "/usr/bin/env", "-i",
                           *(f"{k}={v}" for k, v in clean.items()), *command],
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(bare: Path) -> Iterator[Path]:
    with copy_of(bare, "scripted") as root:
        result = in_root(root, "bash", "/src/systemd/install.sh", "--adapter", ADAPTER,
                         env={"PIP_CERT": "/etc/host-ca.crt"})
        assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
        assert "not started (no running systemd" in result.stdout
        yield root


def this_machines_arch() -> str:
    return subprocess.run(["dpkg", "--print-architecture"], check=True, capture_output=True,
                          text=True).stdout.strip()


def apt_install_deb(root: Path, deb: Path) -> str:
    """`apt install ./PACKAGE.deb` in the root, as the guide says; apt's output."""
    shutil.copy2(deb, root / "tmp" / deb.name)
    update = in_root(root, "apt-get", "update", "-qq")
    assert update.returncode == 0, update.stderr
    result = in_root(root, "apt-get", "install", "-y", "-qq", f"/tmp/{deb.name}",
                     env={"DEBIAN_FRONTEND": "noninteractive"})
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return result.stdout


@pytest.fixture(scope="module")
def packaged(bare: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    deb = build_deb(tmp_path_factory.mktemp("deb"), "--arch", this_machines_arch(),
                    "--adapter", ADAPTER)
    with copy_of(bare, "packaged") as root:
        apt_install_deb(root, deb)
        yield root


def test_the_files_land_owned_by_the_service_user(installed: Path) -> None:
    root = installed
    user = next(line for line in (root / "etc/passwd").read_text().splitlines()
                if line.startswith("shoe-daemon:"))
    uid = int(user.split(":")[2])
    assert uid != 0
    groups = in_root(root, "id", "-nG", "shoe-daemon").stdout.split()
    assert "dialout" in groups
    state = root / "var/lib/shoe-daemon"
    assert state.stat().st_uid == uid and state.stat().st_mode & 0o777 == 0o750
    key = next((state / "keys").glob("table-*.key"))
    assert key.stat().st_uid == uid and key.stat().st_mode & 0o777 == 0o600
    for path in ("etc/systemd/system/shoe-daemon.service", "etc/sysusers.d/shoe-daemon.conf",
                 "etc/udev/rules.d/99-shoe.rules", "etc/shoe-daemon/shoe-daemon.toml",
                 "opt/shoe-daemon/venv/bin/shoe-daemon", "opt/shoe-daemon/docs/deployment.md"):
        assert (root / path).is_file(), path
    assert 'ATTRS{serial}=="A10K2B3C"' in (root / "etc/udev/rules.d/99-shoe.rules").read_text()


def test_running_it_again_keeps_config_and_key_and_ownership(installed: Path) -> None:
    root = installed
    config = root / "etc/shoe-daemon/shoe-daemon.toml"
    config.write_text(config.read_text().replace('table = "table-1"', 'table = "T4"'))
    current = (root / "var/lib/shoe-daemon/keys/current").read_text()
    again = in_root(root, "bash", "/src/systemd/install.sh", "--no-apt", "--adapter", ADAPTER,
                    env={"PIP_CERT": "/etc/host-ca.crt"})
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "keeping /etc/shoe-daemon/shoe-daemon.toml" in again.stdout
    assert "keeping the table's signing key" in again.stdout
    assert (root / "var/lib/shoe-daemon/keys/current").read_text() == current
    config.write_text(config.read_text().replace('table = "T4"', 'table = "table-1"'))


def serve(root: Path, unit_path: str) -> None:
    """Start the installed unit's ExecStart as systemd would, check READY, pings, stop."""
    unit = directives(root / unit_path)
    systemd = Systemd(str(root / "run/shoe-notify"))
    os.chmod(systemd.name, 0o777)  # as /run/systemd/notify: any service may send to it
    watchdog_s = int(unit["Service.WatchdogSec"][0].rstrip("s"))
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
           "NOTIFY_SOCKET": "/run/shoe-notify", "WATCHDOG_USEC": str(watchdog_s * 1_000_000)}
    # As systemd would: User=, Group=, the user's groups, WorkingDirectory=, a clean
    # environment; setpriv and env exec, so the pid is the daemon's own.
    command = ["chroot", str(root), "setpriv", f"--reuid={unit['Service.User'][0]}",
               f"--regid={unit['Service.Group'][0]}", "--init-groups", "--",
               "/usr/bin/env", "-i", *(f"{k}={v}" for k, v in env.items()),
               "sh", "-c", f"cd {unit['Service.WorkingDirectory'][0]} && exec "
               + unit["Service.ExecStart"][0]]
    service = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    try:
        ready = systemd.wait_for("READY", 60)
        assert ready["STATUS"] == "Table table-1 baden: waiting for the shoe on /dev/shoe"
        assert len(pings(systemd.read(watchdog_s / 2 + 1))) >= 1
        service.send_signal(signal.SIGTERM)
        assert systemd.wait_for("STOPPING", 20)
        assert service.wait(20) == 0
    finally:
        systemd.close()
        if service.poll() is None:
            service.kill()
        _, err = service.communicate()
    assert '"event": "daemon.start"' in err, err[-2000:]
    status = in_root(root, *shlex.split("/opt/shoe-daemon/venv/bin/shoe-daemon status "
                                        "--config /etc/shoe-daemon/shoe-daemon.toml"))
    assert status.returncode == 3, status.stdout + status.stderr
    assert "chain and seals good" in status.stdout


def test_the_service_starts_as_its_user_and_waits_for_the_shoe(installed: Path) -> None:
    serve(installed, "etc/systemd/system/shoe-daemon.service")


# ---- the Debian package ---------------------------------------------------------------------


def test_the_package_makes_user_venv_and_key(packaged: Path) -> None:
    root = packaged
    assert "dialout" in in_root(root, "id", "-nG", "shoe-daemon").stdout.split()
    state = root / "var/lib/shoe-daemon"
    key = next((state / "keys").glob("table-*.key"))
    uid = state.stat().st_uid
    assert uid != 0 and key.stat().st_uid == uid and key.stat().st_mode & 0o777 == 0o600
    assert os.access(root / "opt/shoe-daemon/venv/bin/shoe-daemon", os.X_OK)
    assert (root / "etc/systemd/system/multi-user.target.wants/shoe-daemon.service").is_symlink()
    assert (root / "etc/systemd/system/timers.target.wants/shoe-daemon-prune.timer").is_symlink()
    version = in_root(root, "shoe-daemon", "check-config", "--config",
                      "/etc/shoe-daemon/shoe-daemon.toml")
    assert version.returncode == 0 and "configuration OK" in version.stdout, version.stdout


def test_the_packaged_service_starts_as_its_user(packaged: Path) -> None:
    serve(packaged, "usr/lib/systemd/system/shoe-daemon.service")


def test_purging_the_package_keeps_the_ledger_and_keys(packaged: Path) -> None:
    root = packaged
    purge = in_root(root, "apt-get", "purge", "-y", "-qq", "shoe-daemon")
    assert purge.returncode == 0, purge.stdout + purge.stderr
    assert not (root / "opt/shoe-daemon/venv").exists()
    assert not (root / "usr/lib/systemd/system/shoe-daemon.service").exists()
    assert (root / "var/lib/shoe-daemon/ledger.sqlite3").is_file()
    assert (root / "var/lib/shoe-daemon/keys/current").is_file()


# ---- the pit's machine ----------------------------------------------------------------------
# docs/deployment.md, "The floor: the pit's machine": installed by the script and by the
# package, then its marked steps run as written, as root.
GUIDE = ROOT / "docs" / "deployment.md"
PIT_UNITS = ("shoe-floor-collect.service", "shoe-floor-serve.service")
TABLE_KEY = """
from pathlib import Path
from shoe_daemon.audit import keys
key = keys.keygen(Path("/root/pit/table-7"))
Path("/root/pit/table-7.pub.pem").write_bytes(key.public_pem)
"""
TABLE_LINK = """
import sys, time
from pathlib import Path
from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.floor.config import FloorConfig
from shoe_daemon.floor.link import FloorLink

state = Path("/root/pit/table-7")
ledger = Ledger(state)
ledger.append_many(("frame", {"type": "CARD", "fields": ["9C"], "n": n}) for n in range(40))
password = Path("/root/pit/table-7.password").read_text().strip()
link = FloorLink(FloorConfig("floor-broker.casino.lan", int(sys.argv[1]), "table-7", password,
                             Path("/etc/shoe-floor/floor-ca.pem")), state, poll=0.1)
link.start()
link.notify()
deadline = time.monotonic() + 60
while link.acked < 40 and time.monotonic() < deadline:
    time.sleep(0.1)
link.stop()
print("acked", link.acked)
"""
STORED = """
import psycopg
with psycopg.connect("postgresql://shoe-floor@/shoe_floor?host=/run/postgresql") as db:
    print(*db.execute("SELECT count(*), max(idx) FROM records WHERE table_id = 'table-7'")
          .fetchone())
"""


def guide_step(name: str) -> str:
    match = re.search(rf"<!-- pit:{name} -->\n```sh\n(.*?)```\n<!-- /pit:{name} -->",
                      GUIDE.read_text(), re.S)
    assert match, f"docs/deployment.md has no pit:{name} block"
    return match.group(1)


def run_step(root: Path, name: str) -> None:
    """A marked block of the guide, as written, in root's shell in /root/pit."""
    done = in_root(root, "bash", "-c", "set -euo pipefail\ncd /root/pit\n" + guide_step(name))
    assert done.returncode == 0, (name, done.stdout[-3000:], done.stderr[-3000:])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def as_unit(root: Path, unit_path: str, log: IO[str]) -> subprocess.Popen[str]:
    """The unit's ExecStart as systemd would start it: its User, Group and WorkingDirectory,
    a clean environment (minus the sandbox: systemd is not PID 1 here)."""
    unit = directives(root / unit_path)
    return subprocess.Popen(
        ["chroot", str(root), "setpriv", f"--reuid={unit['Service.User'][0]}",
         f"--regid={unit['Service.Group'][0]}", "--init-groups", "--", "/usr/bin/env", "-i",
         "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", "sh", "-c",
         f"cd {unit['Service.WorkingDirectory'][0]} && exec {unit['Service.ExecStart'][0]}"],
        stdout=log, stderr=subprocess.STDOUT, text=True)


def debians_mosquitto(root: Path) -> subprocess.Popen[str]:
    """Debian's mosquitto.service in the root, as systemd runs it: its ExecStartPre lines,
    then its ExecStart (root, dropping to `mosquitto`)."""
    unit = directives(root / "lib/systemd/system/mosquitto.service")
    for line in unit["Service.ExecStartPre"]:
        assert in_root(root, *shlex.split(line)).returncode == 0, line
    return subprocess.Popen(["chroot", str(root), "/usr/bin/env", "-i", "PATH=/usr/bin:/bin",
                             *shlex.split(unit["Service.ExecStart"][0])],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def follow_the_guide(root: Path, units: str, tmp: Path) -> None:
    """Steps b to g for the pit, and the collector and the page running from their units.
    The chroot shares this machine's network: the broker gets a free loopback port instead of
    8883 on every address, PostgreSQL its unix socket only, the page a free port."""
    (root / "root/pit").mkdir()
    with (root / "etc/hosts").open("a") as hosts:  # the broker's name, as the casino's DNS
        hosts.write("127.0.0.1 floor-broker.casino.lan\n")
    run_step(root, "tls")
    port, page = free_port(), free_port()
    conf = root / "etc/mosquitto/conf.d/shoe-floor.conf"
    conf.write_text(conf.read_text().replace("listener 8883 0.0.0.0", f"listener {port} 127.0.0.1"))
    run_step(root, "logins")
    broker = debians_mosquitto(root)
    version = next((root / "etc/postgresql").iterdir()).name
    for command in (f"pg_conftool {version} main set listen_addresses ''",
                    f"pg_ctlcluster {version} main start"):
        started = in_root(root, *shlex.split(command))
        assert started.returncode == 0, started.stdout + started.stderr
    logs = {unit: (tmp / f"{unit}.log").open("w") for unit in PIT_UNITS}
    running: list[subprocess.Popen[str]] = []
    try:
        wait_for(lambda: broker.poll() is not None or listening(port), 20, what="mosquitto")
        assert broker.poll() is None, (root / "var/log/mosquitto/mosquitto.log").read_text()
        run_step(root, "database")
        config = root / "etc/shoe-floor/floor.toml"  # the operator's edits (step d)
        config.write_text(config.read_text()
                          .replace("casino.lan:8883", f"casino.lan:{port}")
                          .replace('http = "127.0.0.1:8090"', f'http = "127.0.0.1:{page}"'))
        run_step(root, "key")
        # The pit's people (step d): a pit boss, his PIN on standard input as a script gives it.
        boss = in_root(root, "bash", "-c", "printf '4711\\n' | runuser -u shoe-floor -- "
                       "/opt/shoe-floor/venv/bin/shoe-floor people add boss --name Boss "
                       "--role pit_boss --pin --config /etc/shoe-floor/floor.toml")
        assert boss.returncode == 0, boss.stdout + boss.stderr
        # Step e: the table's key, made at its install on its Pi and brought here, lodged.
        made = in_root(root, "/opt/shoe-floor/venv/bin/python", "-c", TABLE_KEY)
        assert made.returncode == 0, made.stdout + made.stderr
        run_step(root, "tablekeys")
        running += [as_unit(root, f"{units}/{unit}", logs[unit]) for unit in PIT_UNITS]
        table = in_root(root, "/opt/shoe-floor/venv/bin/python", "-c", TABLE_LINK, str(port),
                        timeout=120)
        assert table.stdout.splitlines()[-1:] == ["acked 40"], table.stdout + table.stderr
        def stored() -> list[str]:  # read as the collector's user, over the peer login
            return in_root(root, "runuser", "-u", "shoe-floor", "--",
                           "/opt/shoe-floor/venv/bin/python", "-c", STORED).stdout.split()

        def tips() -> list[int]:
            url = f"http://127.0.0.1:{page}"
            status, headers, _ = request(url, "POST", "/api/sign-in", sign_in_body("boss"))
            assert status == 200
            cookie = headers["Set-Cookie"].split(";", 1)[0]
            tiles = json.loads(request(url, "GET", "/api/tiles", cookie=cookie)[2])["tiles"]
            return [t["store"]["tip"] for t in tiles]

        wait_for(lambda: stored() == ["40", "40"], 60, 0.5, "the records in PostgreSQL")
        wait_for(lambda: tips() == [40], 30, 0.5, "the page to show the table")
        for process in running:
            process.send_signal(signal.SIGTERM)
            assert process.wait(30) == 0
        # Step g: the regulator's export, as the floor's user (the database still up).
        export = in_root(root, "runuser", "-u", "shoe-floor", "--",
                         "/opt/shoe-floor/venv/bin/shoe-floor", "export", "--config",
                         "/etc/shoe-floor/floor.toml", "--out", "/tmp/floor-export")
        assert export.returncode == 0, export.stdout + export.stderr
    finally:
        for process in running:
            if process.poll() is None:
                process.kill()
                process.wait(10)
        for log in logs.values():
            log.close()
        broker.terminate()
        broker.wait(20)
        in_root(root, "pg_ctlcluster", version, "main", "stop")
    collected = (tmp / f"{PIT_UNITS[0]}.log").read_text()
    assert '"collector.connected"' in collected, collected[-3000:]
    for check in (["shoe-floor", "verify", "/tmp/floor-export"],
                  ["shoe-daemon", "audit", "verify", "/tmp/floor-export/table-7"]):
        verified = in_root(root, f"/opt/shoe-floor/venv/bin/{check[0]}", *check[1:],
                           "--public-key", "/root/pit/floor.pub.pem")
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert "records 1..40 (40)" in verified.stdout


def nothing_enabled_and_the_pits_parts(root: Path, units: str) -> None:
    user = next(line for line in (root / "etc/passwd").read_text().splitlines()
                if line.startswith("shoe-floor:"))
    uid = int(user.split(":")[2])
    state = root / "var/lib/shoe-floor"
    assert uid != 0 and state.stat().st_uid == uid and state.stat().st_mode & 0o777 == 0o750
    for unit in PIT_UNITS:
        assert (root / units / unit).is_file()
        assert not list((root / "etc/systemd/system").glob(f"*.wants/{unit}")), unit
    for package in ("mosquitto", "postgresql"):  # the package's Recommends, the script's
        status = in_root(root, "dpkg-query", "-W", "-f=${db:Status-Status}", package).stdout
        assert status == "installed", package
    assert not (root / "etc/mosquitto/conf.d/shoe-floor.conf").exists()  # Debian's starts
    assert (root / "etc/shoe-floor/floor.toml").is_file()
    assert not (root / "etc/systemd/system/shoe-daemon.service").exists()
    acl = in_root(root, "/opt/shoe-floor/venv/bin/shoe-floor", "acl")
    assert acl.stdout == (root / "opt/shoe-floor/mosquitto/shoe-floor.acl").read_text()


@pytest.fixture(scope="module")
def pit_scripted(bare: Path) -> Iterator[Path]:
    with copy_of(bare, "pit-scripted") as root:
        result = in_root(root, "bash", "/src/systemd/install.sh", "--floor",
                         env={"PIP_CERT": "/etc/host-ca.crt"})
        assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
        assert "the units are not enabled here" in result.stdout
        yield root


@pytest.fixture(scope="module")
def pit_packaged(bare: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    deb = build_deb(tmp_path_factory.mktemp("pit-deb"), "--floor", "--arch",
                    this_machines_arch())
    with copy_of(bare, "pit-packaged") as root:
        assert "systemctl enable --now" in apt_install_deb(root, deb)
        yield root


def test_the_pits_script_installs_its_parts_and_enables_nothing(pit_scripted: Path) -> None:
    nothing_enabled_and_the_pits_parts(pit_scripted, "etc/systemd/system")


def test_the_pit_runs_as_the_guide_says_after_the_script(pit_scripted: Path,
                                                         tmp_path: Path) -> None:
    follow_the_guide(pit_scripted, "etc/systemd/system", tmp_path)


def test_the_pits_package_installs_its_parts_and_enables_nothing(pit_packaged: Path) -> None:
    nothing_enabled_and_the_pits_parts(pit_packaged, "usr/lib/systemd/system")
    assert in_root(pit_packaged, "shoe-floor", "broker-conf").stdout == \
        (pit_packaged / "opt/shoe-floor/mosquitto/shoe-floor.conf").read_text()


def test_the_pit_runs_as_the_guide_says_after_the_package(pit_packaged: Path,
                                                          tmp_path: Path) -> None:
    follow_the_guide(pit_packaged, "usr/lib/systemd/system", tmp_path)


def test_purging_the_pits_package_keeps_its_keys(pit_packaged: Path) -> None:
    root = pit_packaged
    purge = in_root(root, "apt-get", "purge", "-y", "-qq", "shoe-floor")
    assert purge.returncode == 0, purge.stdout + purge.stderr
    assert not (root / "opt/shoe-floor/venv").exists()
    assert not (root / "usr/lib/systemd/system/shoe-floor-collect.service").exists()
    assert (root / "var/lib/shoe-floor/keys/current").is_file()


# ---- a fresh clone, as a newcomer meets it --------------------------------------------------
# The README's two commands from a clone of the committed tree, in a root where nothing of
# theirs is installed (no Python even): scripts/setup must bring every Debian package itself.
SOURCES = """deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
"""  # as Debian's installer leaves them: Chromium's current build is in the security suite
CLONE = "/root/shoe-daemon"
SUBSET = ["tests/test_setup.py", "tests/test_demo.py", "tests/test_systemd_units.py",
          "tests/test_display_browser.py::test_punto_banco_names_its_sides_and_shows_swiss_nine",
          "tests/test_hil.py::test_each_fault_switch_alone[unplug=2]",
          "tests/test_audit.py::test_public_key_output_is_a_pem_file_and_the_key_id_is_openssls"]


def clone_into(root: Path) -> Path:
    """A clone of this checkout's HEAD at CLONE, with Debian's sources as its installer
    leaves them."""
    (root / "etc/apt/sources.list").write_text(SOURCES)
    clone = root / CLONE.lstrip("/")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", head], check=True)
    return clone


@pytest.fixture(scope="module")
def fresh(bare: Path) -> Iterator[Path]:
    with copy_of(bare, "fresh") as root:
        clone_into(root)
        yield root


def readme(root: Path, command: str) -> subprocess.Popen[str]:
    """A README command in the clone, as root with a clean environment."""
    env = ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root", "LANG=C.UTF-8",
           "PIP_CERT=/etc/host-ca.crt"]
    return subprocess.Popen(["chroot", str(root), "/usr/bin/env", "-i", *env, "bash", "-c",
                             f"cd {CLONE} && {command}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def pour(stream: IO[str] | None, into: queue.Queue[str]) -> None:
    for line in stream or ():
        into.put(line)


def test_the_demo_command_installs_what_it_needs_and_shows_coups(fresh: Path) -> None:
    root = fresh
    assert not (root / "usr/bin/python3").exists()
    # The README's command, but any free port and a quick croupier, ended after three coups.
    demo = readme(root, "bash scripts/setup && exec .venv/bin/python -m hil.harness demo "
                        "--profile baden --pace 0.01 --http 127.0.0.1:0")
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=pour, args=(demo.stdout, lines), daemon=True).start()
    seen: list[str] = []
    try:
        while sum("   Punto " in line for line in seen) < 3:
            seen.append(lines.get(timeout=600).rstrip("\n"))
    finally:
        demo.send_signal(signal.SIGTERM)
        rc = demo.wait(60)
        err = demo.stderr.read() if demo.stderr else ""
    shown = [line for line in seen if not line.startswith("setup: ")]
    assert shown[0].startswith("table display: http://127.0.0.1:"), seen
    assert [line[:15] for line in shown if "   Punto " in line] == [
        "shoe 1 coup  1 ", "shoe 1 coup  2 ", "shoe 1 coup  3 "], seen
    assert rc == 0, err[-3000:]
    assert not (root / "usr/bin/chromium").exists()  # the demo needs no browser


def test_the_test_command_installs_chromium_and_the_tests_pass(fresh: Path) -> None:
    tests = readme(fresh, "bash scripts/setup --test && .venv/bin/pytest -q -p no:cacheprovider "
                          + " ".join(shlex.quote(t) for t in SUBSET))
    out, err = tests.communicate(timeout=1200)
    assert tests.returncode == 0, out[-4000:] + err[-4000:]
    assert (fresh / "usr/bin/chromium").exists()
    assert " passed" in out, out[-2000:]


def enabled(root: Path, unit: str) -> bool:
    """Whether `unit` is enabled in the root (its links, as deb-systemd-helper makes them)."""
    return bool(list((root / "etc/systemd/system").glob(f"*.wants/{unit}")))


def installed_package(root: Path, package: str) -> bool:
    status = in_root(root, "dpkg-query", "-W", "-f=${db:Status-Status}", package).stdout
    return status == "installed"


def test_setup_left_the_broker_and_the_cluster_it_installed_off(fresh: Path) -> None:
    """After the README's two commands above, which installed mosquitto and postgresql: their
    services are not enabled, and the root's own policy-rc.d (which already kept every
    service from starting here) is as it was."""
    root = fresh
    for package in ("mosquitto", "postgresql"):
        assert installed_package(root, package), f"{package}: run the two tests above first"
        assert not enabled(root, f"{package}.service"), package
    assert (root / "usr/sbin/policy-rc.d").read_text() == "#!/bin/sh\nexit 101\n"


@pytest.fixture(scope="module")
def services(bare: Path) -> Iterator[Path]:
    """A root that starts what apt installs (no policy-rc.d), where mosquitto was installed
    before, with its service enabled as Debian leaves it (as on the pit); and a clone whose
    package list is the demo's with postgresql added, so setup installs that one itself."""
    with copy_of(bare, "services") as root:
        policy = root / "usr/sbin/policy-rc.d"
        clone = clone_into(root)
        assert in_root(root, "apt-get", "update", "-qq").returncode == 0
        mosquitto = in_root(root, "apt-get", "install", "-y", "-qq", "mosquitto",
                            env={"DEBIAN_FRONTEND": "noninteractive"})  # the bare policy: held
        assert mosquitto.returncode == 0, mosquitto.stdout + mosquitto.stderr
        policy.unlink()
        assert enabled(root, "mosquitto.service")
        (clone / "scripts/debian-packages.txt").write_text(
            "python3 demo the interpreter\npython3-venv demo .venv\n"
            "mosquitto demo the broker\npostgresql demo the store\n")
        yield root


def test_setup_holds_off_the_cluster_it_installs_and_leaves_the_broker_as_it_was(
        services: Path) -> None:
    root = services
    setup = readme(root, "bash scripts/setup")
    out, err = setup.communicate(timeout=1200)
    assert setup.returncode == 0, out[-4000:] + err[-4000:]
    assert installed_package(root, "postgresql")
    assert "setup: Debian's postgresql.service installed, not started and not enabled" in out
    assert not enabled(root, "postgresql.service")
    assert [name for name in running_in(root).values()
            if name.startswith(("postgres", "mosquitto"))] == []  # nothing was started
    assert not (root / "usr/sbin/policy-rc.d").exists()  # setup's own, gone with it
    assert enabled(root, "mosquitto.service")  # installed before setup: left as it was
    assert "mosquitto.service" not in out
