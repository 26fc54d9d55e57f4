"""The table's money on the public display (issue 12: "The public display shows the bank
('Banque Fr. 1,170'), the banco called, and the payouts once decided, never a stake before
betting closes if the house keeps them private").

Through the real daemon process and the simulated shoe process: the croupier enters the
money through the console's API; the display's /api/state and its page in Debian's Chromium
show what the ledger committed. 003's worked example at Baden (Chemin de Fer) and a Punto
Banco coup at Baden's Punto Banco table. The privacy of stakes before betting closes is
tested on the till itself with a house that keeps them private (no seed's house does:
each is silent and shows them, docs/money.md `stakes_public`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, sync_playwright

from hil.harness import start_daemon, start_shoe, stop
from hil.processes import console_url, display_url
from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.console.shown_money import shown_money
from shoe_daemon.console.till import Till
from shoe_daemon.money.houses import get_money_profile
from tests.console_support import Client, people_by_cli
from tests.display_client import get, wait_for
from tests.money.support import SETTINGS
from tests.test_display_browser import launch, wait_until


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


def state(url: str) -> dict[str, Any]:
    status, _, body = get(url, "/api/state")
    assert status == 200
    return json.loads(body)


def committed(workdir: Path, kind: str) -> list[dict[str, Any]]:
    ledger = Ledger(workdir / "state")
    try:
        return [r.body for r in ledger.records() if r.kind == kind]
    finally:
        ledger.close()


def table(tmp_path: Path, profile: str) -> tuple[Any, str, Client]:
    people_by_cli(tmp_path / "state")
    config = tmp_path / "shoe-daemon.toml"
    config.write_text("[money]\n" + "".join(f"{k} = {json.dumps(v)}\n"
                                            for k, v in SETTINGS[profile].items()))
    daemon = start_daemon(tmp_path, profile, extra=["--config", str(config),
                                                     "--console", "127.0.0.1:0"])
    bob = Client(console_url(tmp_path, daemon))
    assert bob.sign_in("bob", "1234")[0] == 200
    return daemon, display_url(tmp_path, daemon), bob


def act(client: Client, kind: str, /, **args: str) -> dict[str, Any]:
    status, body = client.act(kind, **args)
    assert status == 200, (kind, args, body)
    return body


def test_baden_bank_stakes_payouts_and_the_banco_called_on_the_display(tmp_path, browser):
    daemon, url, bob = table(tmp_path, "baden")
    shoe = None
    try:
        view = state(url)
        assert (view["bank"], view["stakes"], view["payouts"]) == (None, None, None)
        for place in (1, 2, 3, 5, 7):  # 003: at least five players
            act(bob, "sit", seat=str(place))
        assert state(url)["bank"] is None  # vacant: no bank to show yet
        act(bob, "take_bank", who="seat 1", amount="800")
        bank = state(url)["bank"]
        assert bank["called"] == "Banque Fr. 800" and bank["holder_seat"] == 1
        assert bank["amount"]["value"] == "800.00" and bank["banco_seat"] is None
        # 003's worked example: the Ponte's Fr. 600 from places 3, 5, 7. Baden shows stakes
        # as they are placed (stakes_public: they lie on the table in everybody's view).
        for place, amount in ((3, "300"), (5, "200"), (7, "100")):
            act(bob, "stake", who=f"seat {place}", amount=amount)
        stakes = state(url)["stakes"]
        assert stakes["closed"] is False
        assert [(w["place"], w["play"], w["amount"]["value"]) for w in stakes["wagers"]] == [
            (3, "table", "300.00"), (5, "table", "200.00"), (7, "table", "100.00")]
        script = tmp_path / "script.txt"
        script.write_text("SHOE:1 DEAL 2C 9H 3D KD\n")  # the banker: a natural 9
        shoe, _ = start_shoe(tmp_path, "baden", seed=3,
                             extra=["--script", str(script), "--linger", "30"])
        wait_for(lambda: state(url)["payouts"] is not None, 20, "the payouts")
        view = state(url)
        # Shown only once committed: the settlement the display shows is the ledger's.
        settlement = committed(tmp_path, "money.settlement")[-1]
        payouts = view["payouts"]
        assert (payouts["coup"], payouts["void"], payouts["commission"]["value"]) == (
            settlement["coup"], False, settlement["commission"]) == (1, False, "30.00")
        assert [(x["place"], x["play"], x["result"], x["staked"]["value"], x["paid"]["value"])
                for x in payouts["lines"]] == [
            (3, "table", "lost", "300.00", "0.00"), (5, "table", "lost", "200.00", "0.00"),
            (7, "table", "lost", "100.00", "0.00"), (1, "bank", "won", "800.00", "1370.00")]
        # 003 (issue 20): the new bank is 1,170, the Fr. 200 not staked against set aside.
        assert view["bank"]["called"] == "Banque Fr. 1,170"
        # Prime (place 2, at the banker's right) calls banco: the display names him.
        act(bob, "banco", who="seat 2", kind="banco_solo")
        bank = state(url)["bank"]
        assert (bank["banco_seat"], bank["suivi"]) == (2, False)
        context = browser.new_context(viewport={"width": 1920, "height": 1080})
        try:
            page = context.new_page()
            page.goto(url)
            wait_until(page, "document.getElementById('bank-amount').textContent === "
                             "'Banque Fr. 1,170'")
            assert page.inner_text("#banco") == "Banco called by seat 2"
            rows = page.evaluate("[...document.querySelectorAll('#payouts-rows .money-row')]"
                                 ".map((r) => r.textContent)")
            # Every amount as the house writes it, as its bank's call is (003: "Fr.").
            assert rows[-1] == "Seat 1BankFr. 800wonFr. 1,370", rows
            assert page.inner_text("#payouts-label") == "Coup 1: payouts"
            assert page.inner_text("#payouts-sum") == "Commission Fr. 30"
            assert page.inner_text("#stakes-label") == "Stakes"
            page.screenshot(path=str(Path("out/screenshots").resolve() / "display-money.png")
                            if Path("out/screenshots").is_dir() else str(tmp_path / "x.png"))
        finally:
            context.close()
    finally:
        if shoe is not None:
            stop(shoe)
        assert stop(daemon) == 0


def test_punto_banco_limits_bets_and_payouts_on_the_display(tmp_path, browser):
    daemon, url, bob = table(tmp_path, "baden-punto-banco")
    shoe = None
    try:
        view = state(url)
        assert view["bank"] is None  # the casino holds the bank
        assert [(r["bet"], r["minimum"]["value"], r["maximum"]["value"])
                for r in view["limits"]["bets"]] == [
            ("table", "10.00", "5000.00"), ("swiss_nine", "5.00", "100.00")]
        act(bob, "bet", box="1", bet="banco", amount="100")
        act(bob, "bet", box="2", bet="punto", amount="100")
        act(bob, "bet", box="3", bet="egalite", amount="10")
        wagers = state(url)["stakes"]["wagers"]
        assert [(w["place"], w["play"]) for w in wagers] == [
            (1, "banco"), (2, "punto"), (3, "egalite")]
        script = tmp_path / "script.txt"
        script.write_text("SHOE:1 DEAL 2C 9H 3D KD\n")  # Banco: a natural 9
        shoe, _ = start_shoe(tmp_path, "baden-punto-banco", seed=3,
                             extra=["--script", str(script), "--linger", "30"])
        wait_for(lambda: state(url)["payouts"] is not None, 20, "the payouts")
        payouts = state(url)["payouts"]
        # 003: Banco paid even money less 5% Taxe; Punto and Egalité lose.
        assert [(x["place"], x["play"], x["result"], x["paid"]["value"])
                for x in payouts["lines"]] == [
            (1, "banco", "won", "195.00"), (2, "punto", "lost", "0.00"),
            (3, "egalite", "lost", "0.00")]
        assert payouts["commission"]["value"] == "5.00"
        # Written as the house writes amounts (Baden: "Fr."), whatever the display's language.
        assert (payouts["lines"][0]["paid"]["text"], payouts["commission"]["text"]) == (
            "Fr. 195", "Fr. 5")
        assert state(url)["limits"]["bets"][0]["maximum"]["text"] == "Fr. 5,000"
        context = browser.new_context(viewport={"width": 800, "height": 480})
        try:
            page = context.new_page()
            page.goto(url)
            wait_until(page, "!document.getElementById('payouts').hidden")
            rows = page.evaluate("[...document.querySelectorAll('#payouts-rows .money-row')]"
                                 ".map((r) => r.querySelector('.place').textContent)")
            assert rows == ["Box 1", "Box 2", "Box 3"]
            assert page.inner_text("#limits-rows").splitlines()[0].startswith("Banco / Punto")
        finally:
            context.close()
    finally:
        if shoe is not None:
            stop(shoe)
        assert stop(daemon) == 0


def test_a_house_that_keeps_stakes_private_shows_none_before_betting_closes():
    """No seed's house keeps them private; one that did would show no stake and no banco
    called until "Rien ne va plus", then all of them."""
    baden = get_money_profile("baden")
    private = dataclasses.replace(
        baden, stakes_public=dataclasses.replace(baden.stakes_public, value=False))
    till = Till.of("baden", SETTINGS["baden"])
    till.profile = private
    till.money = dataclasses.replace(till.money, profile=private)
    till.follow([("shoe", 1)])
    for place in (1, 2, 3, 5, 7):
        till.apply({"op": "sit", "seat": place})
    till.apply({"op": "take_bank", "who": "seat 1", "amount": "800"})
    till.apply({"op": "stake", "who": "seat 3", "amount": "300"})
    till.apply({"op": "banco", "who": "seat 2", "kind": "banco_solo"})
    before = shown_money(till.money, till.settlement)
    assert before.stakes is None and before.bank is not None
    assert before.bank.banco_seat is None and before.bank.amount == Decimal("800")
    till.follow([("coup", 1, 1)])  # BTN,DEAL: Rien ne va plus
    after = shown_money(till.money, till.settlement)
    assert after.stakes is not None and after.stakes.closed
    assert [(w.place, w.play) for w in after.stakes.wagers] == [(2, "banco_solo")]
    assert after.bank is not None and after.bank.banco_seat == 2
    # The seed's own houses all show them (each profile says why).
    open_ = Till.of("baden", SETTINGS["baden"])
    for place in (1, 2, 3, 5, 7):
        open_.apply({"op": "sit", "seat": place})
    open_.apply({"op": "take_bank", "who": "seat 1", "amount": "800"})
    open_.apply({"op": "stake", "who": "seat 3", "amount": "300"})
    shown = shown_money(open_.money, None).stakes
    assert shown is not None and not shown.closed
