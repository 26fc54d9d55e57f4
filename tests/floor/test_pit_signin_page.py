"""Signing in at the pit's page in Debian's Chromium at 1920x1080: the page's real server
(in-process, a real people file with its key, real HTTP), each role by its name's tile and
the PIN pad, the person and role in the bar, sign-out back to the sign-in screen; away from
the pit's screens a staff id is typed or a badge given, and no name is shown. Screenshots:
out/screenshots/pit-sign-in*.png, pit-signed-in-*.png. About 20 s."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shoe_floor.pit.board import Board
from shoe_floor.pit.people import pit_people
from shoe_floor.pit.server import PitServer
from tests.display_client import wait_for
from tests.floor.test_pit_board import Table
from tests.pit_people import NAMES, PINS, sign_in_page, write_people
from tests.test_display_browser import shoot, wait_until

ROLE_WORDS = {"boss": "Pit boss", "watcher": "Surveillance", "inspector": "Regulator"}


def serve(tmp: Path, screens: frozenset[str]) -> PitServer:
    people = pit_people(write_people(tmp / "pit-people.json", badges=True))
    people.load()
    server = PitServer(Board(), "127.0.0.1", 0, people=people, name="Salle Europe",
                       screens=screens)
    server.start()
    for n in range(1, 4):
        view = Table(name=f"t{n}").play("SHOE DEAL 9C 2D KH 3S")
        server.post(lambda board, now, t=f"t{n}", v=view: board.state(t, v, True, now))
    wait_for(lambda: len(server.board.tables()) == 3, what="three tables")
    return server


@pytest.fixture
def server(tmp_path) -> Iterator[PitServer]:
    s = serve(tmp_path, frozenset({"127.0.0.1"}))
    yield s
    s.stop()


@pytest.mark.parametrize("person", ["boss", "watcher", "inspector"])
def test_each_role_signs_in_at_the_pits_screen(server, browser, person):
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(server.url)
    page.wait_for_selector("#people button")
    assert page.inner_text("#sign-in h2") == "Sign in to Salle Europe"
    assert [b.inner_text() for b in page.query_selector_all("#people button")] == [
        NAMES[p] for p in PINS]
    assert page.query_selector_all(".tile") == []  # nothing of the floor before sign-in
    if person == "boss":
        shoot(page, "pit-sign-in")
    sign_in_page(page, person)
    wait_until(page, "document.querySelectorAll('.tile').length === 3")
    assert page.inner_text("#me-name") == NAMES[person]
    assert page.inner_text("#me-role") == ROLE_WORDS[person]
    assert page.inner_text("#bar h1") == "Salle Europe"
    assert page.evaluate("fetch('/api/me').then((r) => r.json())")["me"]["role"] == {
        "boss": "pit_boss", "watcher": "surveillance", "inspector": "regulator"}[person]
    shoot(page, f"pit-signed-in-{person}")
    # The cookie is HttpOnly: the page's script never sees the session.
    assert page.evaluate("document.cookie") == ""
    page.click("#sign-out")
    page.wait_for_selector("body[data-screen='sign-in']")
    assert page.query_selector_all(".tile") == []
    assert page.evaluate("fetch('/api/tiles').then((r) => r.status)") == 401
    page.close()


def test_a_wrong_pin_says_so_and_keeps_the_floor_hidden(server, browser):
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(server.url)
    page.click('#people button[data-person="boss"]')
    for digit in "0000":
        page.click(f'#pin-pad .key[data-digit="{digit}"]')
    page.click("#pin-ok")
    wait_until(page, "document.querySelector('#sign-in-hint').textContent.includes('refused')")
    assert page.evaluate("document.body.dataset.screen") == "sign-in"
    assert page.query_selector_all(".tile") == []
    page.close()


def test_away_from_the_pits_screens_no_names_a_staff_id_or_a_badge(tmp_path, browser):
    server = serve(tmp_path, frozenset({"127.0.0.9"}))  # this browser is not a pit screen
    try:
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.goto(server.url)
        page.wait_for_selector("#staff-form:not([hidden])")
        assert page.query_selector_all("#people button") == []
        assert "Salle Europe" in page.inner_text("#sign-in h2")
        shoot(page, "pit-sign-in-elsewhere")
        page.fill("#staff-id", "watcher")
        page.click("#staff-go")
        for digit in PINS["watcher"]:
            page.click(f'#pin-pad .key[data-digit="{digit}"]')
        page.click("#pin-ok")
        page.wait_for_selector("body[data-screen='floor']")
        assert page.inner_text("#me-role") == "Surveillance"
        page.click("#sign-out")
        page.wait_for_selector("body[data-screen='sign-in']")
        page.fill("#badge", "badge-inspector")
        page.click("#badge-go")
        page.wait_for_selector("body[data-screen='floor']")
        assert page.inner_text("#me-role") == "Regulator"
        page.close()
    finally:
        server.stop()
