"""The install path, run for real into a scratch prefix: systemd/install.sh builds the
virtual environment from binary wheels, places the units, rules, user, configuration and key,
and the service then starts from the installed unit's own ExecStart line, as systemd would
run it (its environment, working directory, notification socket, watchdog), against the
simulated shoe, until READY=1 and a published result. Every pinned dependency is also checked
to have a wheel for the Pi (aarch64, CPython 3.11): nothing is compiled there."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from hil.harness import ROOT, start_shoe, stop
from shoe_daemon.audit.ledger import Ledger
from tests.test_notify import Systemd
from tests.test_systemd_units import directives, tool, udev_rules

INSTALL = ROOT / "systemd" / "install.sh"
ADAPTER = "0403:6015:DQ00SHOE"


def install(prefix: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(["bash", str(INSTALL), "--prefix", str(prefix), "--kiosk",
                             "--adapter", ADAPTER, "--python", sys.executable, *extra],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


@pytest.fixture(scope="module")
def prefix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("root")
    install(root)
    return root


def test_the_files_land(prefix: Path) -> None:
    assert os.access(prefix / "opt/shoe-daemon/venv/bin/shoe-daemon", os.X_OK)
    unit = prefix / "etc/systemd/system/shoe-daemon.service"
    assert unit.is_file()
    assert (prefix / "etc/systemd/user/shoe-display-kiosk.service").is_file()
    for name in ("shoe-daemon-prune.service", "shoe-daemon-prune.timer"):
        assert (prefix / "etc/systemd/system" / name).is_file()
    assert (prefix / "etc/sysusers.d/shoe-daemon.conf").is_file()
    assert (prefix / "opt/shoe-daemon/docs/deployment.md").is_file()
    config = (prefix / "etc/shoe-daemon/shoe-daemon.toml").read_text()
    assert f'state_dir = "{prefix}/var/lib/shoe-daemon"' in config
    tty, _usb = udev_rules((prefix / "etc/udev/rules.d/99-shoe.rules").read_text())
    assert [r["value"] for r in tty if r["key"] == "ATTRS"] == ["0403", "6015", "DQ00SHOE"]
    state = prefix / "var/lib/shoe-daemon"
    assert (state / "keys/current").is_file()
    assert oct((state).stat().st_mode & 0o777) == "0o750"
    exec_start = directives(unit)["Service.ExecStart"][0]
    assert exec_start.startswith(f"{prefix}/opt/shoe-daemon/venv/bin/shoe-daemon run --config ")


def test_systemd_analyze_verify_passes_on_every_installed_unit(prefix: Path) -> None:
    units = sorted((prefix / "etc/systemd/system").glob("shoe-daemon*"))
    assert [u.name for u in units] == ["shoe-daemon-prune.service", "shoe-daemon-prune.timer",
                                       "shoe-daemon.service"]
    for unit in (*units, prefix / "etc/systemd/user/shoe-display-kiosk.service"):
        result = subprocess.run([tool("systemd-analyze"), "verify", str(unit)],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0 and not result.stderr.strip(), (unit, result.stderr)


def test_the_installed_service_starts_and_serves(prefix: Path, tmp_path: Path) -> None:
    """What `systemctl start` does, minus the sandbox: ExecStart from the placed unit."""
    unit = directives(prefix / "etc/systemd/system/shoe-daemon.service")
    config = prefix / "etc/shoe-daemon/shoe-daemon.toml"
    # The technician's one edit here: the port (a pty from the simulated shoe, not /dev/shoe).
    shoe, _ = start_shoe(tmp_path, "baden", pace=0.02)
    config.write_text(config.read_text().replace('port = "/dev/shoe"',
                                                 f'port = "{tmp_path / "shoe"}"'))
    check = subprocess.run([str(prefix / "opt/shoe-daemon/venv/bin/shoe-daemon"),
                            "check-config", "--config", str(config)],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0 and "configuration OK" in check.stdout, check.stdout
    systemd = Systemd(str(tmp_path / "notify"))
    watchdog_s = int(unit["Service.WatchdogSec"][0].rstrip("s"))
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
           "NOTIFY_SOCKET": systemd.name, "WATCHDOG_USEC": str(watchdog_s * 1_000_000)}
    log = tmp_path / "service.log"  # what the journal would collect from stderr
    service = subprocess.Popen(shlex.split(unit["Service.ExecStart"][0]), env=env,
                               cwd=prefix / "var/lib/shoe-daemon", stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=log.open("w"), text=True)
    try:
        ready = systemd.wait_for("READY", 30)
        assert ready["STATUS"].startswith("Table table-1 baden: ")
        results = prefix / "var/lib/shoe-daemon/results.jsonl"
        deadline = time.monotonic() + 30
        while not (results.exists() and "coup.result" in results.read_text()):
            assert time.monotonic() < deadline, "no result published"
            time.sleep(0.2)
        status = subprocess.run([str(prefix / "opt/shoe-daemon/venv/bin/shoe-daemon"),
                                 "status", "--config", str(config)],
                                capture_output=True, text=True, timeout=60)
        assert status.returncode == 0, status.stdout
        service.send_signal(signal.SIGTERM)
        assert service.wait(20) == 0
    finally:
        systemd.close()
        stop(service)
        stop(shoe)
    assert '"event": "daemon.start"' in log.read_text()


def test_the_installed_prune_service_runs_with_the_installed_config(prefix: Path,
                                                                    tmp_path: Path) -> None:
    """The timer's service as systemd would start it (minus the sandbox): ExecStart from the
    placed unit, reading the installed configuration's retention_days."""
    unit = directives(prefix / "etc/systemd/system/shoe-daemon-prune.service")
    timer = directives(prefix / "etc/systemd/system/shoe-daemon-prune.timer")
    assert timer["Install.WantedBy"] == ["timers.target"] and timer["Timer.Persistent"] == ["yes"]
    command = shlex.split(unit["Service.ExecStart"][0])
    state = prefix / "var/lib/shoe-daemon"
    forever = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert forever.returncode == 0 and "kept for ever" in forever.stdout, forever.stderr
    config = prefix / "etc/shoe-daemon/shoe-daemon.toml"
    original = config.read_text()
    config.write_text(original.replace("retention_days = 0", "retention_days = 1"))
    try:
        if not (state / "ledger.sqlite3").exists():  # run alone: a ledger of one record
            Ledger(state).append("note", {})
        shoe_daemon = str(prefix / "opt/shoe-daemon/venv/bin/shoe-daemon")
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "removed 0 records" in done.stdout and "no kept export" in done.stdout
        subprocess.run([shoe_daemon, "audit", "export", "--state-dir", str(state), "--out",
                        str(tmp_path / "x")], check=True, capture_output=True, timeout=60)
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and "within the 1-day period" in done.stdout, done.stdout
    finally:
        config.write_text(original)


def test_running_it_again_keeps_the_operators_config_and_key(prefix: Path) -> None:
    config = prefix / "etc/shoe-daemon/shoe-daemon.toml"
    config.write_text(config.read_text().replace('table = "table-1"', 'table = "T9"'))
    key = (prefix / "var/lib/shoe-daemon/keys/current").read_text()
    again = install(prefix)
    assert "keeping" in again.stdout
    assert 'table = "T9"' in config.read_text()
    assert (prefix / "var/lib/shoe-daemon/keys/current").read_text() == key


def test_every_pinned_dependency_has_a_wheel_for_the_pi(tmp_path: Path) -> None:
    """Raspberry Pi OS Bookworm 64-bit: aarch64, glibc 2.36, CPython 3.11."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    platforms = [f"--platform=manylinux_2_{v}_aarch64" for v in (36, 34, 31, 28, 17)]
    result = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
         "--only-binary=:all:", *platforms, "--platform=manylinux2014_aarch64",
         "--python-version=3.11", "--implementation=cp", "--dest", str(tmp_path),
         *project["dependencies"]], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    wheels = sorted(p.name for p in tmp_path.iterdir())
    assert all(name.endswith(".whl") for name in wheels), wheels
    for name in wheels:
        tags = name[:-4].split("-")[-1]
        assert tags == "any" or "aarch64" in tags, name
    names = {w.split("-")[0].lower().replace("_", "-") for w in wheels}
    for requirement in project["dependencies"]:
        assert requirement.split("==")[0].lower() in names


def test_the_script_refuses_a_malformed_adapter(tmp_path: Path) -> None:
    result = subprocess.run(["bash", str(INSTALL), "--prefix", str(tmp_path), "--adapter",
                             "0403-6001"], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "--adapter wants VID:PID:SERIAL" in result.stderr
    assert not (tmp_path / "opt").exists()



def build_deb(out: Path, *options: str) -> Path:
    """systemd/build-deb.sh OPTIONS, the package into `out`; its path."""
    built = subprocess.run(["bash", str(ROOT / "systemd/build-deb.sh"), *options, "--out",
                            str(out), "--python", sys.executable],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    return Path(built.stdout.strip().splitlines()[-1])


def deb_contents(deb: Path, machine: str) -> tuple[list[str], list[str]]:
    """The package's file listing and its wheels, each wheel checked to be pure Python or
    built for `machine`: installable with no network and no compiler."""
    listing = subprocess.run(["dpkg-deb", "-c", str(deb)], check=True, capture_output=True,
                             text=True).stdout.split("\n")
    wheels = [line.rsplit("/", 1)[-1] for line in listing if line.endswith(".whl")]
    assert any(w.startswith("shoe_daemon-") for w in wheels)
    for name in wheels:
        tags = name[:-4].split("-")[-1]
        assert tags == "any" or machine in tags, name
    return listing, wheels


def test_the_pi_package_carries_only_wheels_for_the_pi(tmp_path: Path) -> None:
    """The arm64 .deb: installable on the Pi with no network and no compiler."""
    deb = build_deb(tmp_path, "--arch", "arm64", "--adapter", ADAPTER)
    fields = subprocess.run(["dpkg-deb", "-f", deb, "Package", "Architecture", "Depends"],
                            check=True, capture_output=True, text=True).stdout
    assert "Package: shoe-daemon" in fields and "Architecture: arm64" in fields
    assert "python3 (>= 3.11), python3 (<< 3.12)" in fields  # the wheels are for CPython 3.11
    listing, wheels = deb_contents(deb, "aarch64")
    assert any(w.startswith("cryptography-") for w in wheels)
    for path in ("./usr/lib/systemd/system/shoe-daemon.service",
                 "./usr/lib/systemd/system/shoe-daemon-prune.service",
                 "./usr/lib/systemd/system/shoe-daemon-prune.timer",
                 "./usr/lib/sysusers.d/shoe-daemon.conf", "./etc/udev/rules.d/99-shoe.rules"):
        assert any(line.endswith(path) for line in listing), path
    conffiles = subprocess.run(["dpkg-deb", "--ctrl-tarfile", deb], check=True,
                               capture_output=True).stdout
    assert b"/etc/shoe-daemon/shoe-daemon.toml" in conffiles
