"""Whole shoes played on the console page by touch alone at the two screens a table has (10"
1280x800, the Pi's 7" 800x480): each house's dealt shoe from its `BTN,SHOE` to the cut card's
last coup, by the simulated shoe (one pack, seeded, tests/console_touch.py), its DEAL button
pressed as the croupier presses the shoe's.

The test knows the shoe from its ground truth (`hil.dealer.deal_shoes`, the seed the shoe
deals from) and plans its stakes by it: 003's worked example on the first coup, which the
bank wins; something staked on every coup so money moves each time; the bank followed as it
passes (the page offers the next place and the test takes the bank there). Every coup: taps
only, `on_screen` after each step, the settlement read on the page; at the end the recall of
every coup read on the page and compared with the ground truth's cards and outcome, and every
settlement the page showed compared with the ledger's `money.settlement`.

- Baden: 003's worked example (bank Fr. 800, the Ponte's Fr. 600 from places 3, 5 and 7 in
  Prime order: Taxe Fr. 30, the new bank Fr. 1,170, Fr. 200 set aside as Schokolade).
- Zoppot: an outsider, standing behind the seated players, stakes every third coup.
- The Clermont Club: a stake placed over the line every other coup.
- Punto Banco: the Swiss Nine bets (Simple Nine on the coups it wins, the others lost) beside
  Banco, Punto and Égalité.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from hil.dealer import deal_shoes
from shoe_daemon.audit.ledger import Ledger
from shoe_daemon.game.rules import swiss_nine
from tests.console_touch import (
    SIZES,
    STAYED,
    Touch,
    on_screen,
    touch_table,
    worked_example_settled,
)

SEED = 7  # every house's one-pack shoe: 10 coups, the bank wins the first, no short coup
PACKS = 1


def truth(profile: str) -> list[dict[str, Any]]:
    """The coups the shoe will deal, as its croupier's ground truth tells them."""
    results = deal_shoes(profile, 1, SEED, packs=PACKS).results
    assert [r["irregularities"] for r in results] == [[]] * len(results)
    assert [r["last_coup"] for r in results] == [False] * (len(results) - 1) + [True]
    return results


def figure(text: str) -> Decimal:
    """A figure as the page writes it ("1,170") read back."""
    return Decimal(text.replace(",", ""))


def figures(text: str) -> list[Decimal]:
    """The figures in a line the page wrote ("Commission Fr. 30 · the bank is Fr. 1,170"),
    each with its sign ("net -Fr. 190")."""
    return [Decimal(sign + number.replace(",", "")) for sign, number
            in re.findall(r"(-?)[^\d\s-]*\s?(\d[\d,]*(?:\.\d+)?)", text)]


def prime_order(t: Touch) -> list[int]:
    """The punters' places in Prime order, as the page shows them."""
    line = t.text("#prime-line")
    return [int(n) for n in line.split(":", 1)[1].split("\u00b7")]


def settled_by_the_ledger(state: Path) -> dict[int, dict[str, Any]]:
    records = Ledger(state)
    try:
        return {r.body["coup"]: r.body for r in records.records(kinds=("money.settlement",))}
    finally:
        records.close()


def shown_as(who: str) -> str:
    """A player's key in the money's records ("seat 2", "outsider A", "box 3", "house") as
    the page names him."""
    return "The house" if who == "house" else who[0].upper() + who[1:]


def same_money(shown: dict[int, list[list[str]]], sums: dict[int, str],
               told: dict[int, dict[str, Any]], ledger: dict[int, dict[str, Any]]) -> None:
    """Every settlement the page showed, and the recall's of it, has the ledger's figures,
    line by line in its order: who, staked, result, paid (the recall: paid and net), the
    commission and the bank after it."""
    assert sorted(shown) == sorted(ledger)
    for coup, rows in shown.items():
        settled = ledger[coup]
        lines = settled["lines"]
        assert [(r[0], figure(r[2]), r[3], figure(r[4])) for r in rows] == [
            (shown_as(line["who"]), Decimal(line["staked"]), line["result"],
             Decimal(line["paid"])) for line in lines], coup
        bank = settled.get("bank")
        said = sums[coup].split(" \u00b7 ")
        expected = [[Decimal(settled["commission"])]]
        if bank and bank["ends"]:
            assert said[1].endswith(shown_as(bank["passes_to"])), (coup, said)
            said.pop(1)
        elif bank:
            expected.append([Decimal(bank["after"])])
        if bank and Decimal(bank.get("set_aside") or 0) > 0:  # Baden's Schokolade
            expected.append([Decimal(bank["set_aside"])])
        elif bank and not bank["ends"] and Decimal(bank["uncovered"]) > 0:
            expected.append([Decimal(bank["uncovered"])])  # not staked against
        assert [figures(part) for part in said] == expected, (coup, said)
        recalled = [figures(line.rsplit(": ", 1)[1]) for line in told[coup]["lines"]]
        assert recalled == [[Decimal(line["paid"]), Decimal(line["net"])] for line in lines], \
            coup


def same_coups(told: dict[int, dict[str, Any]], dealt: list[dict[str, Any]],
               staked: dict[int, list[str]]) -> None:
    """The recall of every coup: the truth's cards and outcome, and the stakes the page
    showed before its DEAL."""
    assert sorted(told) == [r["coup"] for r in dealt]
    for r in dealt:
        coup = told[r["coup"]]
        assert coup["outcome"] == r["outcome"], r["coup"]
        assert coup["hands"] == [r["punter"]["cards"], r["banker"]["cards"]], r["coup"]
        # A bet that stayed from an égalité is the round's like any other in the recall.
        assert coup["stakes"] == [s.removesuffix(STAYED) for s in staked[r["coup"]]], r["coup"]


Plan = Callable[[Touch, dict[str, Any], list[int]], None]


def whole_shoe(browser: Browser, tmp: Path, profile: str, money: str, size: str,
               seated: tuple[int, ...], bank: Callable[[int], str], plan: Plan) -> None:
    """A whole shoe: seat the players, then each coup the bank (taken when the page offers
    it), the plan's stakes, the DEAL, the settlement; the recall and the ledger at the end."""
    dealt = truth(profile)
    shown: dict[int, list[list[str]]] = {}
    sums: dict[int, str] = {}
    staked: dict[int, list[str]] = {}
    started = time.monotonic()
    with touch_table(browser, tmp, profile, money, None, size, seed=SEED, packs=PACKS) as t:
        if seated:
            t.sit(*seated)
            on_screen(t.page)
        punters_before: list[int] = []
        for r in dealt:
            n = r["coup"]
            punters: list[int] = []
            if seated:
                # The bank is taken at the first coup and after each the bank lost, by the
                # player in turn the page offers: the first in the last Prime order.
                vacant = n == 1 or dealt[n - 2]["outcome"] == "punter"
                t.wait("document.getElementById('bank-line').dataset.phase === "
                       f"'{'vacant' if vacant else 'held'}'")
                if vacant:
                    in_turn = f"Seat {punters_before[0] if punters_before else seated[0]}"
                    assert t.text("#chosen") == in_turn, n
                    t.take_bank(bank(n))
                    assert t.text("#bank-line").endswith(f"\u00b7 {in_turn}"), n
                    on_screen(t.page)
                punters = punters_before = prime_order(t)
            plan(t, r, punters)
            staked[n] = t.texts("#stakes-list li > span")
            assert staked[n], f"coup {n}: nothing staked"
            on_screen(t.page)
            if n == 1:
                assert t.page.locator("#shoe-end").is_hidden()  # not the shoe's end yet
            t.deal(n)
            if r["last_coup"]:  # the bar says the shoe's end, as the table display does
                t.wait("!document.getElementById('shoe-end').hidden")
                assert t.text("#shoe-end") in ("LAST COUP", "SHOE FINISHED")
            shown[n] = t.settlement()
            sums[n] = t.text("#settlement-sums")
            on_screen(t.page)
            if n in (1, len(dealt)):
                t.shot(f"{profile}-coup-{n}")
        told = t.recall(len(dealt))
        on_screen(t.page)
    print(f"{profile} whole shoe at {size}: {len(dealt)} coups, {t.taps} taps, "
          f"{time.monotonic() - started:.1f} s")
    same_coups(told, dealt, staked)
    same_money(shown, sums, told, settled_by_the_ledger(tmp / "state"))


BADEN = '[money]\nmin_bank = 100\nmin_stake = 10\n'


@pytest.mark.parametrize("size", list(SIZES))
def test_a_whole_shoe_at_baden_with_003s_worked_example(tmp_path, browser, size):
    dealt = truth("baden")
    assert dealt[0]["outcome"] == "banker"  # the worked example's coup: the bank wins

    def plan(t: Touch, r: dict[str, Any], punters: list[int]) -> None:
        if r["coup"] == 1:
            assert t.text("#bank-line") == "Banque Fr. 800 \u00b7 Seat 1"
            assert punters == [2, 3, 5, 7]  # Prime order from the banker's right
            t.stake(3, "300")
            t.stake(5, "200")
            t.stake(7, "100")
            return
        if r["coup"] == 2:  # coup 1's settlement, still on the page: the worked example
            worked_example_settled(t)
        t.stake(punters[0], "100")
        t.stake(punters[-1], "50")

    whole_shoe(browser, tmp_path, "baden", BADEN, size, (1, 2, 3, 5, 7),
               lambda n: "800" if n == 1 else "300", plan)


ZOPPOT = '[money]\ncommission_percent = 5\n'


@pytest.mark.parametrize("size", list(SIZES))
def test_a_whole_shoe_at_zoppot_with_outsiders(tmp_path, browser, size):
    outsiders = iter("ABCDEFGH")

    def plan(t: Touch, r: dict[str, Any], punters: list[int]) -> None:
        t.stake(punters[0], "50")
        if r["coup"] % 3 == 1:  # an outsider, standing behind the seated players
            name = next(outsiders)

            def outsider(before: int) -> None:
                t.tap("#plays [data-kind='outsider']")
                t.tap("#outsider")
                t.page.keyboard.type(name)
                t.tap("#outsider-go")
                assert t.text("#chosen") == f"Outsider {name}"
                t.chips("20")
                t.play("[data-kind='stake']:not([data-over])", before)

            t.placed(f"Outsider {name}", outsider)
            assert t.texts("#stakes-list li > span")[-1] == (
                f"Outsider {name} \u00b7 Outsider's stake \u00b7 20 Guildens")
        else:
            t.stake(punters[-1], "20")

    whole_shoe(browser, tmp_path, "zoppot-1934", ZOPPOT, size, (1, 2, 3, 4),
               lambda n: "200", plan)


CLERMONT = '[money]\nmin_bank = 100\nmin_stake = 10\nmax_stake = 5000\n'


@pytest.mark.parametrize("size", list(SIZES))
def test_a_whole_shoe_at_the_clermont_club_with_a_stake_over_the_line(tmp_path, browser,
                                                                     size):
    def plan(t: Touch, r: dict[str, Any], punters: list[int]) -> None:
        t.stake(punters[0], "100")
        if r["coup"] % 2 == 1:
            # 001: "Stakes placed over the line are worth half their value."
            t.stake(punters[1], "100", "[data-kind='stake'][data-over]")
            assert t.texts("#stakes-list li > span")[-1] == (
                f"Seat {punters[1]} \u00b7 General game \u00b7 \u00a3100 (over the line)")
        else:
            t.stake(punters[1], "50")

    # 001: "To begin the game at least six players must be sitting".
    whole_shoe(browser, tmp_path, "clermont-2015", CLERMONT, size, (1, 2, 3, 4, 5, 6),
               lambda n: "500", plan)


PUNTO_BANCO = ('[money]\nmin_stake = 10\nmax_stake = 5000\nnine_min_stake = 5\n'
               'nine_max_stake = 100\n')
NINES = ("simple_nine", "colour_nine", "swiss_nine")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_whole_shoe_of_punto_banco_with_the_swiss_nine_bets(tmp_path, browser, size):
    dealt = truth("baden-punto-banco")
    wins = {r["coup"] for r in dealt if swiss_nine(r["banker"]["cards"][:2])}
    assert wins  # a Simple Nine in the shoe: the bet on it is paid 19 times

    def plan(t: Touch, r: dict[str, Any], punters: list[int]) -> None:
        n = r["coup"]
        after_egalite = n > 1 and dealt[n - 2]["outcome"] == "egalite"
        if not after_egalite:  # else the Punto and Banco bets stay from it
            t.bet(1, "100", "banco" if n % 2 else "punto")
            t.bet(2, "50", "punto" if n % 2 else "banco")
        # The Swiss Nine bets: the Simple Nine on the coups it wins, the others in turn.
        t.bet(3, "10", "simple_nine" if n in wins else NINES[n % 3])
        if after_egalite:
            assert [line.endswith(STAYED) for line in t.texts("#stakes-list li > span")
                    ][:2] == [True, True]
        if n % 4 == 0:
            t.bet(4, "10", "egalite")

    whole_shoe(browser, tmp_path, "baden-punto-banco", PUNTO_BANCO, size, (),
               lambda n: "", plan)
