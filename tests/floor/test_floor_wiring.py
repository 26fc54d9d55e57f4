"""The `[floor]` table in the daemon's own commands: `check-config` says what the link will
do and builds its TLS as `run` does; `run` refuses a CA it cannot use; and a broker that is
not there changes nothing at the table but its status line, a log record and the backlog."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hil.floor_servers import ROOT, Certs, Proxy, free_port, wait_for
from hil.harness import TableRun, start_daemon, start_shoe, stop
from shoe_daemon.audit import keys
from tests.test_hil import check


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shoe_daemon.service.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def daemon_toml(tmp_path: Path, port: int, ca: Path, *extra: str, table: str = "t7",
                key: bool = True) -> Path:
    """The daemon's file with a `[floor]` table; its state directory with a signing key
    (as the install makes it) unless `key` is False."""
    (tmp_path / "floor.password").write_text("s3cret\n")
    if key and keys.current_stem(tmp_path / "state") is None:
        keys.keygen(tmp_path / "state")
    path = tmp_path / "shoe-daemon.toml"
    path.write_text("\n".join([
        f'table = "{table}"', 'profile = "baden"', f'state_dir = "{tmp_path / "state"}"',
        f'results = "{tmp_path / "results.jsonl"}"', f'port = "{tmp_path / "shoe"}"', "",
        "[floor]", f'broker = "mqtts://127.0.0.1:{port}"', 'username = "t7"',
        'password_file = "floor.password"', f'ca_file = "{ca}"', "keepalive = 2",
        *extra]) + "\n")
    return path


def test_check_config_says_what_the_link_will_do(tmp_path: Path, certs: Certs) -> None:
    result = cli("check-config", "--config", str(daemon_toml(tmp_path, 8883, certs.ca)))
    assert result.returncode == 0, result.stdout
    assert (f"floor: every ledger record to mqtts://127.0.0.1:8883 as 't7' (a password), "
            f"topics shoe/floor/t7/..., TLS trusting {certs.ca}") in result.stdout
    assert "s3cret" not in result.stdout
    other = cli("check-config", "--config",
                str(daemon_toml(tmp_path, 8883, certs.ca, table="pit-3")))
    assert other.returncode == 0
    assert "WARNING: setting floor.username: 't7' is not the table's name 'pit-3'" in other.stdout
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "t.toml").write_text(f'profile = "baden"\nstate_dir = "{alone}"\nresults = "-"\n')
    assert "floor: no [floor] table" in cli("check-config", "--config",
                                            str(alone / "t.toml")).stdout


def test_a_ca_or_certificate_the_link_cannot_use_is_named(tmp_path: Path, certs: Certs) -> None:
    bad = tmp_path / "not-a-ca.pem"
    bad.write_text("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
    toml = daemon_toml(tmp_path, 8883, bad)
    checked = cli("check-config", "--config", str(toml))
    assert checked.returncode == 2
    assert f"ERROR: setting floor.ca_file: {bad}" in checked.stdout
    run = cli("run", "--config", str(toml), "--http", "off")
    assert run.returncode == 2
    assert f"shoe-daemon run: setting floor.ca_file: {bad}" in run.stderr
    wrong_key = daemon_toml(tmp_path, 8883, certs.ca, f'cert_file = "{certs.cert}"',
                            f'key_file = "{bad}"')
    checked = cli("check-config", "--config", str(wrong_key))
    assert checked.returncode == 2 and "ERROR: setting floor.cert_file" in checked.stdout
    missing = cli("check-config", "--config",
                  str(daemon_toml(tmp_path, 8883, tmp_path / "nowhere.pem")))
    assert missing.returncode == 2 and "setting floor.ca_file" in missing.stdout


def test_no_signing_key_stops_the_start_naming_the_command(tmp_path: Path, certs: Certs) -> None:
    """The link signs every records message with the table's key: without one, `run` and
    `check-config` refuse as for any wrong setting, naming the command that makes it."""
    toml = daemon_toml(tmp_path, 8883, certs.ca, key=False)
    state = tmp_path / "state"
    words = (f"setting floor: the link signs every records message with the table's signing "
             f"key, and cannot: no table signing key in {state / 'keys'}: run "
             f"`shoe-daemon audit keygen --state-dir {state}`")
    checked = cli("check-config", "--config", str(toml))
    assert checked.returncode == 2
    assert f"ERROR: {words}" in checked.stdout
    assert "WARNING: signing key" not in checked.stdout  # said once, as the error
    run = cli("run", "--config", str(toml), "--http", "off")
    assert run.returncode == 2
    assert f"shoe-daemon run: {words}" in run.stderr
    assert not (state / "ledger.sqlite3").exists()  # stopped before the ledger was opened
    made = cli("audit", "keygen", "--state-dir", str(state))
    assert made.returncode == 0
    kid = made.stdout.split("key id ")[-1].strip()
    fine = cli("check-config", "--config", str(toml))
    assert fine.returncode == 0, fine.stdout
    assert (f"each records message signed with the table's key id {kid} (lodged at the pit? "
            "`shoe-floor lodge-key t7 FILE`)") in fine.stdout


def test_a_broker_that_is_not_there_only_changes_the_status(tmp_path: Path,
                                                           certs: Certs) -> None:
    """No broker on the port: the table deals a whole shoe exactly as without a link; its
    status says the floor is down and how much waits, and the daemon logs it once."""
    toml = daemon_toml(tmp_path, free_port(), certs.ca)
    shoe, _ = start_shoe(tmp_path, "baden", seed=12, pace=0.004)
    daemon = start_daemon(tmp_path, "baden", extra=["--config", str(toml)], http="off")
    try:
        # The floor is said to be down from the start, while the ledger is still verified:
        # wait for the table to be serving, which the floor must not prevent.
        status = wait_for(lambda: (s := cli("status", "--config", str(toml))).stdout.count(
            "floor: DOWN") and "verifying the audit ledger" not in s.stdout and s, 30, 0.2,
            "status to say the floor is down, the table past its start")
        assert status.returncode == 0, status.stdout  # serving: the floor is not the table
        assert "records kept to send" in json.loads(
            (tmp_path / "state" / "status.json").read_text())["status"]
        assert shoe.wait(120) == 0
    finally:
        rc = stop(daemon)
        stop(shoe)
    assert rc == 0
    log = (tmp_path / "daemon.log").read_text()
    assert log.count('"floor.unreachable"') == 1
    assert '"level": "error"' not in log
    results = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    truth = [json.loads(x) for x in (tmp_path / "truth.jsonl").read_text().splitlines()]
    assert [x for x in results if x["event"] == "coup.result"] == truth
    after = cli("status", "--config", str(toml))
    assert after.returncode == 3
    assert "floor: link not running; the broker has acknowledged every record through 0" \
        in after.stdout


def test_a_broker_that_never_answers_holds_up_nothing(tmp_path: Path, certs: Certs) -> None:
    """The broker's address takes connections and then says nothing (a network cut from the
    start): a shoe with every line and game fault is served as without a link."""
    proxy = Proxy(free_port())  # cut: connections are accepted and hang
    proxy.cut()
    shoe, _ = start_shoe(tmp_path, "baden", seed=21, faults=["all"])
    daemon = start_daemon(tmp_path, "baden", http="off",
                          extra=["--config", str(daemon_toml(tmp_path, proxy.port, certs.ca))])
    try:
        shoe_rc = shoe.wait(120)
    finally:
        rc = stop(daemon)
        stop(shoe)
        proxy.close()
    log = (tmp_path / "daemon.log").read_text()
    check(TableRun(
        results=[json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()],
        truth=[json.loads(x) for x in (tmp_path / "truth.jsonl").read_text().splitlines()],
        shoe_rc=shoe_rc, daemon_rc=rc, daemon_log=log,
        shoe_log=(tmp_path / "shoe.log").read_text(), workdir=tmp_path))
    assert '"floor.connected"' not in log and '"floor.unreachable"' in log


def test_the_status_line_and_file_say_the_floor(tmp_path: Path) -> None:
    """Down: the STATUS line says since when; the counters move with every commit, so they
    alone do not rewrite status.json (its heartbeat carries them)."""
    from shoe_daemon.service.notify import Notifier
    from shoe_daemon.service.status import FloorStatus, ServiceStatus, StatusReporter

    down = 1_795_500_000.0
    floor = [FloorStatus("mqtts://pit:8883", False, down, 12, 40)]

    def observe() -> ServiceStatus:
        return ServiceStatus(True, "serial", "/dev/shoe", True, "", 0, "dealing", 1, 7, None,
                             floor[-1])

    def written() -> dict:
        return json.loads((tmp_path / "status.json").read_text())["floor"]

    reporter = StatusReporter("t7", "baden", tmp_path, Notifier({}), observe)
    assert reporter.line() == ("Table t7 baden: shoe 1 coup 7, dealing; floor link down since "
                               "06:00:00 UTC, records kept to send")
    reporter.ready()
    assert written() == {"broker": "mqtts://pit:8883", "connected": False, "down_since": down,
                         "backlog": 12, "acked": 40}
    floor.append(FloorStatus("mqtts://pit:8883", False, down, 13, 40))  # one more commit
    reporter.beat()
    assert written()["backlog"] == 12
    floor.append(FloorStatus("mqtts://pit:8883", True, None, 0, 53))  # back: a change
    reporter.beat()
    assert reporter.line() == "Table t7 baden: shoe 1 coup 7, dealing"
    assert written()["acked"] == 53
