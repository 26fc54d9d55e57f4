"""The console on the real daemon process: its own listener, never the display's and never
readable from it (both ways); TLS off loopback, or no start; the settings checked."""

from __future__ import annotations

import http.client
import json
import ssl
import subprocess
import time
from pathlib import Path

import pytest

from hil.harness import display_url, start_daemon, stop
from hil.processes import console_url
from tests.console_support import Client, new_id, people_by_cli
from tests.display_client import get


def daemon(tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    """The daemon with no shoe plugged in: it waits for it, and serves meanwhile."""
    people_by_cli(tmp_path / "state")
    return start_daemon(tmp_path, "baden", extra=list(extra))


def test_the_console_and_the_display_never_serve_each_other(tmp_path):
    proc = daemon(tmp_path, "--console", "127.0.0.1:0")
    try:
        display, console = display_url(tmp_path, proc), console_url(tmp_path, proc)
        assert display != console
        # Nothing of the console on the display's port...
        for path in ("/api/people", "/api/recall", "/api/me", "/static/console.js"):
            assert get(display, path)[0] == 404, path
        for path in ("/api/sign-in", "/api/actions", "/api/sign-out"):
            assert get(display, path, method="POST")[0] in (404, 405), path
        status, _, page = get(display, "/")
        assert status == 200 and b"console.js" not in page
        # ... and nothing of the display on the console's but through a signed-in session.
        status, _, page = get(console, "/")
        assert status == 200 and b"console.js" in page and b"display.js" not in page
        assert get(console, "/static/display.js")[0] == 404
        assert get(console, "/api/state")[0] == 401
        assert get(console, "/api/events")[0] == 401
        c = Client(console)
        assert c.sign_in("bob", "1234")[0] == 200
        status, state, _ = c.get("/api/state")
        assert status == 200 and state["view"]["table"] == "table-1"
        assert c.post("/api/sign-out", {"id": new_id()})[0] == 200
    finally:
        assert stop(proc) == 0
    log = (tmp_path / "daemon.log").read_text()
    assert '"console.signed_in"' in log and "1234" not in log


def test_the_console_needs_its_own_address(tmp_path):
    people_by_cli(tmp_path / "state")
    proc = start_daemon(tmp_path, "baden", http="127.0.0.1:18080",
                        extra=["--console", "127.0.0.1:18080"])
    assert proc.wait(30) == 2
    assert "setting 'console': 127.0.0.1:18080 is the display's address" in \
        (tmp_path / "daemon.log").read_text()


def test_off_loopback_the_console_refuses_to_start_without_tls(tmp_path):
    proc = daemon(tmp_path, "--console", "0.0.0.0:0")
    assert proc.wait(30) == 2
    assert "PINs would cross the network in clear: give console_cert and console_key" in \
        (tmp_path / "daemon.log").read_text()


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    cert, key = tmp_path / "console.crt", tmp_path / "console.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj",
                    "/CN=table-1.casino.lan", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def test_off_loopback_the_console_serves_tls_only(tmp_path, certificate):
    cert, key = certificate
    proc = daemon(tmp_path, "--console", "0.0.0.0:0", "--console-cert", str(cert),
                  "--console-key", str(key))
    try:
        url = console_url(tmp_path, proc)
        assert url.startswith("https://")
        port = int(url.rsplit(":", 1)[1].strip("/"))
        context = ssl.create_default_context(cafile=str(cert))
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
        body = json.dumps({"id": new_id(), "method": "pin", "person": "ana", "pin": "4711"})
        conn.request("POST", "/api/sign-in", body=body, headers={
            "Content-Type": "application/json", "Origin": f"https://127.0.0.1:{port}"})
        response = conn.getresponse()
        response.read()
        assert response.status == 200
        cookie = response.getheader("Set-Cookie")
        assert cookie.startswith("__Host-console=")
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert response.getheader("Strict-Transport-Security")
        conn.close()
        # Plain HTTP to it gets no console.
        plain = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        with pytest.raises((ConnectionError, http.client.HTTPException, OSError)):
            plain.request("GET", "/api/people")
            answer = plain.getresponse()
            assert answer.status >= 400
            raise ConnectionError("refused in plain HTTP")
    finally:
        assert stop(proc) == 0


def test_check_config_says_what_the_console_will_do(tmp_path, certificate):
    cert, key = certificate
    people_by_cli(tmp_path / "state")
    from tests.test_cli_admin import cli, config_file

    ok = cli("check-config", "--config", str(config_file(
        tmp_path, console='"0.0.0.0:8443"', console_cert=f'"{cert}"', console_key=f'"{key}"')))
    assert ok.returncode == 0, ok.stdout
    assert "console: https://0.0.0.0:8443/ (TLS)" in ok.stdout
    assert "people: 3 (1 supervisor, 2 croupiers)" in ok.stdout
    bad = cli("check-config", "--config", str(config_file(tmp_path, console='"0.0.0.0:8443"')))
    assert bad.returncode == 2 and "give console_cert and console_key" in bad.stdout
    (tmp_path / "state" / "people.json").write_text('{"version": 1, "people": [{"id": "X"}]}')
    broken = cli("check-config", "--config", str(config_file(tmp_path,
                                                              console='"127.0.0.1:8443"')))
    assert broken.returncode == 2 and "setting 'people'" in broken.stdout
    time.sleep(0)
