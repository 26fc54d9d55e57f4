"""Shoes played on the console page by touch alone at the two screens a table has (10"
1280x800, the Pi's 7" 800x480), against the real daemon and the simulated shoe, whose DEAL
button the test presses as the croupier presses the shoe's (tests/console_touch.py).

Each shoe is a scripted shoe of three coups, its figures asserted one by one: the bank
passing, stakes placed and lost and won (whole dealt shoes: tests/test_console_whole_shoes.py).
After every step nothing a coup needs is off the screen or cut and nothing scrolls; at the end
the recall of every coup is read on the page.

- Baden: 003's worked example inside it (bank Fr. 800, the Ponte's Fr. 600 from places 3, 5
  and 7 in Prime order, the banker wins with a natural: Taxe Fr. 30, the new bank Fr. 1,170
  and Fr. 200 the banker's as Schokolade, contract 5), then a banco that breaks the bank,
  then the next banker's bank.
Screenshots go to out/screenshots/console-*.png.
"""

from __future__ import annotations

import json

import pytest

from hil.deal_button import press_deal
from shoe_daemon.audit.ledger import Ledger
from tests.console_touch import (
    SIZES,
    on_screen,
    sheet_on_screen,
    touch_table,
    worked_example_settled,
)

BADEN = '[money]\nmin_bank = 100\nmin_stake = 10\n'
# Cards go punter, banker, punter, banker; every coup decided by a natural, no third card.
BADEN_SHOE = ("SHOE:1\n"
              "DEAL 2C 9H 3D KD\n"   # punter 5, banker 9: the bank wins (003's example)
              "DEAL 9S 2D KC 3H\n"   # punter 9, banker 5: the banco wins
              "DEAL 2H 8C 4S KS\n")  # punter 6, banker 8: the bank wins


@pytest.mark.parametrize("size", list(SIZES))
def test_baden_by_touch_with_003s_worked_example(tmp_path, browser, size):
    with touch_table(browser, tmp_path, "baden", BADEN, BADEN_SHOE, size) as t:
        assert t.text("#bank-line") == "No bank: nobody is seated"
        t.sit(1, 2, 3, 5, 7)  # 003: at least five players
        assert t.text("#bank-line") == "No bank: Seat 1's turn to take it"
        assert t.text("#chosen") == "Seat 1"  # the player in turn, offered
        t.chips("800")
        assert t.text("#amount") == "Fr. 800"
        t.play("[data-kind='take_bank']")
        t.wait("document.getElementById('bank-line').textContent === "
               "'Banque Fr. 800 · Seat 1'")
        assert t.text("#call") == "Faites vos jeux"
        # Prime order from the banker's right: 2, 3, 5, 7; place 2 is offered first.
        assert t.text("#prime-line") == "Prime order: 2 · 3 · 5 · 7"
        assert t.text("#chosen") == "Seat 2"
        on_screen(t.page)
        t.stake(3, "300")
        assert t.text("#chosen") == "Seat 5"  # the next in Prime order, offered
        t.stake(5, "200")
        t.stake(7, "100")
        assert t.texts("#stakes-list li > span") == [
            "Seat 3 · General game · Fr. 300", "Seat 5 · General game · Fr. 200",
            "Seat 7 · General game · Fr. 100"]
        assert t.text("#toast") == "Seat 7 stakes Fr. 100"
        on_screen(t.page)
        t.shot("stakes")
        t.deal(1)
        assert t.text("#settlement-title") == "Coup 1: Banco wins · amounts in Fr."
        worked_example_settled(t)
        on_screen(t.page)
        t.shot("settled")
        # Coup 2: place 2, first in Prime order, calls banco and breaks the bank.
        assert t.text("#chosen") == "Seat 2"
        t.play("[data-play='banco']", 0)
        assert t.texts("#stakes-list li > span") == ["Seat 2 · Banco · Fr. 1,170"]
        on_screen(t.page)
        t.deal(2)
        assert t.text("#settlement-title") == "Coup 2: Punto wins · amounts in Fr."
        assert t.settlement()[0] == ["Seat 2", "Banco", "1,170", "won", "2,340"]
        assert t.settlement()[-1][:4] == ["Seat 1", "Bank", "1,170", "lost"]
        # The bank passes to the next place; it is his turn to put one up.
        t.wait("document.getElementById('bank-line').textContent === "
               "'No bank: Seat 2\\'s turn to take it'")
        on_screen(t.page)
        # Coup 3: place 2's bank of Fr. 100, places 3 and 5 stake Fr. 50 each.
        t.chips("100")
        t.play("[data-kind='take_bank']")
        t.wait("document.getElementById('bank-line').textContent === "
               "'Banque Fr. 100 · Seat 2'")
        t.stake(3, "50")
        t.stake(5, "50")
        on_screen(t.page)
        t.deal(3)
        assert [row[:4] for row in t.settlement()] == [
            ["Seat 3", "General game", "50", "lost"],
            ["Seat 5", "General game", "50", "lost"],
            ["Seat 2", "Bank", "100", "won"]]
        on_screen(t.page)
        told = t.recall(3)
    assert told[1]["stakes"] == ["Seat 3 · General game · Fr. 300",
                                 "Seat 5 · General game · Fr. 200",
                                 "Seat 7 · General game · Fr. 100"]
    assert told[1]["lines"][-1] == "Seat 1 Bank: won, paid Fr. 0, net Fr. 570"
    assert told[2]["stakes"] == ["Seat 2 · Banco · Fr. 1,170"]
    assert told[2]["lines"][0] == "Seat 2 Banco: won, paid Fr. 2,340, net Fr. 1,170"
    assert [line.split(":")[0] for line in told[3]["lines"]] == [
        "Seat 3 General game", "Seat 5 General game", "Seat 2 Bank"]
    assert [told[n]["outcome"] for n in (1, 2, 3)] == ["banker", "punter", "banker"]


PUNTO_BANCO = ('[money]\nmin_stake = 10\nmax_stake = 5000\nnine_min_stake = 5\n'
               'nine_max_stake = 100\n')
PUNTO_BANCO_SHOE = ("SHOE:1\n"
                    "DEAL 2C 9H 3D KD\n"   # Punto 5, Banco 9 (9H KD: a Simple Nine)
                    "DEAL 9S 2D KC 3H\n"   # Punto 9, Banco 5
                    "DEAL 4C 5D 3S 2S\n")  # 7 and 7: égalité


@pytest.mark.parametrize("size", list(SIZES))
def test_punto_banco_by_touch_with_the_swiss_nine_bets(tmp_path, browser, size):
    with touch_table(browser, tmp_path, "baden-punto-banco", PUNTO_BANCO, PUNTO_BANCO_SHOE,
                     size) as t:
        assert t.text("#bank-line") == "Limits Fr. 10 to Fr. 5,000"
        assert t.text("#chosen") == "Touch a box"
        t.bet(1, "100", "banco")
        t.bet(2, "50", "punto")
        t.bet(3, "10", "simple_nine")
        assert t.texts("#stakes-list li > span") == [
            "Box 1 · Banco · Fr. 100", "Box 2 · Punto · Fr. 50", "Box 3 · Simple Nine · Fr. 10"]
        on_screen(t.page)
        t.shot("punto-banco-bets")
        t.deal(1)
        assert t.text("#settlement-title") == "Coup 1: Banco wins · amounts in Fr."
        # The boxes in the house's order, then the house's own line.
        assert [row[:4] for row in t.settlement()][:3] == [
            ["Box 1", "Banco", "100", "won"], ["Box 2", "Punto", "50", "lost"],
            ["Box 3", "Simple Nine", "10", "won"]]
        assert [t.settlement()[3][n] for n in (0, 1, 3)] == ["The house", "", "lost"]
        on_screen(t.page)
        t.shot("punto-banco-settled")
        t.bet(1, "100", "punto")
        t.bet(2, "10", "swiss_nine")
        on_screen(t.page)
        t.deal(2)
        assert t.text("#settlement-title") == "Coup 2: Punto wins · amounts in Fr."
        assert [row[:4] for row in t.settlement()][:2] == [
            ["Box 1", "Punto", "100", "won"], ["Box 2", "Swiss Nine", "10", "lost"]]
        t.bet(1, "20", "egalite")
        t.bet(2, "50", "punto")
        on_screen(t.page)
        t.deal(3)
        assert t.text("#settlement-title") == "Coup 3: Égalité · amounts in Fr."
        assert {row[0]: row[3] for row in t.settlement()}["Box 1"] == "won"
        on_screen(t.page)
        told = t.recall(3)
    assert told[1]["stakes"] == ["Box 1 · Banco · Fr. 100", "Box 2 · Punto · Fr. 50",
                                 "Box 3 · Simple Nine · Fr. 10"]
    assert told[2]["stakes"] == ["Box 1 · Punto · Fr. 100", "Box 2 · Swiss Nine · Fr. 10"]
    assert told[3]["lines"][0].split(":")[0] == "Box 1 Égalité"
    assert [told[n]["outcome"] for n in (1, 2, 3)] == ["banker", "punter", "egalite"]


CLERMONT = '[money]\nmin_bank = 100\nmin_stake = 10\nmax_stake = 5000\n'
ZOPPOT = '[money]\ncommission_percent = 5\n'
THREE_COUPS = BADEN_SHOE  # the bank wins, the punters win, the bank wins


@pytest.mark.parametrize("size", list(SIZES))
def test_the_clermont_club_by_touch_with_a_stake_over_the_line(tmp_path, browser, size):
    with touch_table(browser, tmp_path, "clermont-2015", CLERMONT, THREE_COUPS, size) as t:
        assert t.page.locator("#seats .seat").count() == 8  # 001: "eight places"
        t.sit(1, 2, 3, 4, 5)
        # 001: "To begin the game at least six players must be sitting": said, not hidden.
        assert t.text("#money-status") == "The game begins with 6 players: 5 seated"
        t.sit(6)
        assert t.text("#money-status") == "Betting open"
        t.take_bank("500")
        t.stake(2, "100")
        # 001: "Stakes placed over the line are worth half their value."
        t.stake(3, "100", "[data-kind='stake'][data-over]")
        t.stake(4, "50")
        assert t.texts("#stakes-list li > span") == [
            "Seat 2 · General game · £100",
            "Seat 3 · General game · £100 (over the line)",
            "Seat 4 · General game · £50"]
        on_screen(t.page)
        t.shot("clermont-over-the-line")
        t.deal(1)
        assert [row[0] for row in t.settlement()][-1] == "Seat 1"
        assert {row[0]: row[3] for row in t.settlement()} == {
            "Seat 2": "lost", "Seat 3": "lost", "Seat 4": "lost", "Seat 1": "won"}
        on_screen(t.page)
        t.stake(2, "100")
        t.stake(3, "100", "[data-kind='stake'][data-over]")
        on_screen(t.page)
        t.deal(2)
        lines = {row[0]: row for row in t.settlement()}
        assert lines["Seat 2"][3:5] == ["won", "200"]
        # Over the line: worth half its value, so it wins half: £100 back and £50.
        assert lines["Seat 3"][3:5] == ["won", "150"]
        on_screen(t.page)
        t.take_bank("100")  # the bank lost: the next place puts one up
        t.stake(4, "50")
        on_screen(t.page)
        t.deal(3)
        on_screen(t.page)
        told = t.recall(3)
    assert told[1]["stakes"][1] == "Seat 3 · General game · £100 (over the line)"
    assert told[2]["stakes"] == ["Seat 2 · General game · £100",
                                 "Seat 3 · General game · £100 (over the line)"]
    assert told[3]["stakes"] == ["Seat 4 · General game · £50"]


@pytest.mark.parametrize("size", list(SIZES))
def test_zoppot_by_touch_with_outsiders(tmp_path, browser, size):
    with touch_table(browser, tmp_path, "zoppot-1934", ZOPPOT, THREE_COUPS, size) as t:
        t.sit(1, 2, 3)
        t.take_bank("200")
        t.stake(2, "50")
        # An outsider, standing behind the seated players, stakes in his own name.
        t.tap("#plays [data-kind='outsider']")
        t.tap("#outsider")
        t.page.keyboard.type("A")
        t.tap("#outsider-go")
        assert t.text("#chosen") == "Outsider A"
        t.chips("50")
        t.play("[data-kind='stake']:not([data-over])", 1)
        assert t.texts("#stakes-list li > span") == [
            "Seat 2 · General game · 50 Guildens", "Outsider A · Outsider's stake · 50 Guildens"]
        on_screen(t.page)
        t.shot("zoppot-outsider")
        t.deal(1)
        assert {row[0]: row[3] for row in t.settlement()} == {
            "Seat 2": "lost", "Outsider A": "lost", "Seat 1": "won"}
        on_screen(t.page)
        t.stake(2, "50")
        on_screen(t.page)
        t.deal(2)
        assert t.settlement()[0][:4] == ["Seat 2", "General game", "50", "won"]
        on_screen(t.page)
        t.take_bank("100")  # the bank lost: the next place puts one up
        t.stake(3, "20")
        t.stake(1, "10")
        t.tap("#stakes-list li[data-who='seat 1'] .withdraw")  # he takes it back
        t.wait("document.getElementById('toast').textContent === 'The stake is withdrawn'")
        t.wait("document.querySelectorAll('#stakes-list li').length === 1")
        t.deal(3)
        on_screen(t.page)
        told = t.recall(3)
    assert told[1]["stakes"] == ["Seat 2 · General game · 50 Guildens",
                                 "Outsider A · Outsider's stake · 50 Guildens"]
    assert [line.split(":")[0] for line in told[1]["lines"]] == [
        "Seat 2 General game", "Outsider A Outsider's stake", "Seat 1 Bank"]
    assert told[3]["stakes"] == ["Seat 3 · General game · 20 Guildens"]  # not the withdrawn


@pytest.mark.parametrize("size", list(SIZES))
def test_a_late_chip_corrected_with_the_supervisors_pin_on_the_croupiers_screen(
        tmp_path, browser, size):
    """Rien ne va plus, and a chip placed before it was not entered: the croupier asks the
    correction on his own screen, the supervisor approves it with her PIN there (contract 1),
    and the croupier stays signed in."""
    # Punto holds 5: the coup waits for his Carte or Reste, not yet settled.
    with touch_table(browser, tmp_path, "baden", BADEN, "SHOE:1\nDEAL 2C TH 3D 5S\n",
                     size) as t:
        t.sit(1, 2, 3, 5, 7)
        t.take_bank("800")
        t.stake(3, "300")
        press_deal(t.button)
        t.wait("document.body.dataset.state === 'punter_to_declare'", timeout=30)
        assert t.text("#call") == "Rien ne va plus"
        assert t.page.locator("#chips button:not([disabled])").count() == 0  # no stake now
        on_screen(t.page)
        t.shot("rien-ne-va-plus")
        t.tap("#supervisor-open")
        t.wait("!document.getElementById('supervisor-sheet').hidden")
        t.tap("#correct-stakes button")
        t.tap("#correct-chips [data-chip='500']")  # the stake is Fr. 600 with its late chip
        t.tap("#correct-chips [data-chip='100']")
        assert t.text("#correct-amount") == "Fr. 600"
        t.tap("#reason-chips button:has-text('entered late')")
        sheet_on_screen(t.page, "supervisor-sheet")
        t.shot("supervisor")
        t.tap("#correct-go")
        t.wait("!document.getElementById('approval').hidden")
        assert t.text("#approval-title") == "A supervisor approves a correction"
        # A wrong PIN first: refused in one answer, nothing done, the sheet stays.
        t.tap("#approvers [data-person='ana']")
        for key in "0000":
            t.tap(f"#approval-keys [data-approval-key='{key}']")
        t.tap("#approval-keys [data-approval-key='ok']")
        t.wait("document.getElementById('toast').dataset.kind === 'error'")
        assert t.text("#toast") == "the supervisor's PIN or badge was not accepted"
        assert not t.page.locator("#approval").is_hidden()
        sheet_on_screen(t.page, "approval")
        t.shot("approval")
        for key in "4711":
            t.tap(f"#approval-keys [data-approval-key='{key}']")
        t.tap("#approval-keys [data-approval-key='ok']")
        t.wait("document.getElementById('approval').hidden && "
               "document.getElementById('supervisor-sheet').hidden")
        assert t.text("#toast") == "The stake is corrected"
        t.wait("document.querySelector('#stakes-list li > span').textContent === "
               "'Seat 3 · General game · Fr. 600'")
        assert t.page.evaluate("document.body.dataset.person") == "bob"  # still signed in
        on_screen(t.page)
    records = Ledger(tmp_path / "state")
    try:
        actions = [r.body for r in records.records(kinds=("action",))
                   if r.body["kind"] == "correct"]
    finally:
        records.close()
    (correction,) = actions  # the refused approval left nothing
    assert correction["by"] == "bob"
    assert correction["approved_by"] == {"person": "ana", "role": "supervisor",
                                         "method": "pin"}
    assert "4711" not in json.dumps(correction) and "0000" not in json.dumps(correction)


def test_the_page_speaks_the_tables_language_from_the_one_words_file(tmp_path, browser):
    """A German table: the sign-in screen, the bar, the bank and what a tap did, in the
    words file's German (contract 4), the game's terms French as the table's are."""
    money = 'display_language = "de"\n' + BADEN
    with touch_table(browser, tmp_path, "baden", money, BADEN_SHOE, "7in") as t:
        assert t.text("#tab-table") == "Tisch" and t.text("#sign-out") == "Abmelden"
        assert t.text("#bank-line") == "Keine Bank: niemand sitzt"
        t.sit(1)
        assert t.text("#toast") == "Ein Spieler sitzt auf Platz 1"
        assert t.text("#call") == "Faites vos jeux"
        assert t.texts("#punter .side-name, #banker .side-name") == ["Punto", "Banco"]
        t.tap("#sign-out")
        t.wait("document.body.dataset.screen === 'sign-in'")
        assert t.text("#sign-in-title").startswith("Anmelden an table-1 · ")
        t.shot("sign-in-de")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_hold_takes_the_screen_until_resolved_and_a_report_opens_from_its_button(
        tmp_path, browser, size):
    with touch_table(browser, tmp_path, "baden", BADEN, "SHOE:1\nDEAL 9C ?? KH 3S\n",
                     size) as t:
        t.sit(1, 2, 3, 5, 7)
        t.take_bank("100")
        press_deal(t.button)
        t.wait("!document.getElementById('latch-panel').hidden", timeout=30)
        # The hold covers the table: a tap where the chips are lands on the hold.
        covered = t.page.evaluate("""(() => {
            const r = document.querySelector('#seats .seat').getBoundingClientRect();
            return !!document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
                .closest('#latch-panel'); })()""")
        assert covered
        box = "#latches [data-latch='hold-1-1-1']"
        assert t.text(f"{box} .latch-title") == "Unreadable card"
        assert t.page.locator(f"{box} .latch-rule").is_hidden()  # the rule on a second tap
        sheet_on_screen(t.page, "latch-panel")
        t.shot("hold")
        t.tap(f"{box} [data-way='ENTER']")
        t.tap(f"{box} [data-rank='5']")
        t.tap(f"{box} [data-suit='D']")
        t.tap(f"{box} .chips button")
        sheet_on_screen(t.page, "latch-panel")
        t.shot("hold-key-in")
        t.tap(f"{box} .resolve")
        t.wait("document.getElementById('latch-panel').hidden")
        # The hold's end may reach the page (its event stream) before the action's answer.
        t.wait("document.getElementById('toast').textContent === 'Unreadable card: resolved'")
        on_screen(t.page)
        t.tap("#reports [data-report='card_fell']")  # the coup is decided: not now
        t.wait("!document.getElementById('report-sheet').hidden")
        assert t.text("#report-box .report-why") == (
            "Not now: only while a coup is dealt.")
        assert t.page.locator("#report-box .report-go").is_hidden()
        sheet_on_screen(t.page, "report-sheet")
        t.shot("report")
        t.tap("#report-close")
        t.wait("document.getElementById('report-sheet').hidden")
        t.tap("#tab-recall")
        t.wait("document.querySelectorAll('#recall-list .told').length === 1")
        t.shot("recall")
        cards = t.texts("#recall-list .cards-out li")
    assert cards[1] == "unreadable card (face down, keyed in as 5D) → banker B1"


def test_a_full_table_s_stakes_scroll_within_their_list_and_never_the_page(tmp_path, browser):
    """Zoppot's nine places taken and outsiders behind them, at the Pi's 7": more stakes than
    the panel holds. Their count and sum stay above the list, the list scrolls within itself
    (the page never does), and its last line's Withdraw is reached there by touch."""
    with touch_table(browser, tmp_path, "zoppot-1934", ZOPPOT, THREE_COUPS, "7in") as t:
        t.sit(*range(1, 10))
        t.take_bank("2000")
        for place in range(2, 10):
            t.stake(place, "20")
        for label in ("A", "B"):
            before = t.page.locator("#stakes-list li").count()
            t.tap("#plays [data-kind='outsider']")
            t.tap("#outsider")
            t.page.keyboard.type(label)
            t.tap("#outsider-go")
            t.chips("10")
            t.play("[data-kind='stake']:not([data-over])", before)
        assert t.page.locator("#stakes-list li").count() == 10
        assert t.text("#stakes-sum") == "10 in play \u00b7 180 Guildens"
        assert t.page.evaluate("(() => { const l = document.getElementById('list'); "
                               "return l.scrollHeight > l.clientHeight; })()")
        on_screen(t.page)  # the page does not scroll; the list does
        t.shot("full-table-stakes")
        last = "#stakes-list li[data-who='outsider B']"
        t.page.locator(f"{last} .withdraw").scroll_into_view_if_needed()
        inside = t.page.evaluate(f"""(() => {{
            const l = document.getElementById('list').getBoundingClientRect();
            const r = document.querySelector("{last}").getBoundingClientRect();
            return r.top >= l.top - 0.5 && r.bottom <= l.bottom + 0.5; }})()""")
        assert inside
        assert t.page.evaluate("document.scrollingElement.scrollTop") == 0
        t.tap(f"{last} .withdraw")
        t.wait("document.querySelectorAll('#stakes-list li').length === 9")
        assert t.text("#stakes-sum") == "9 in play \u00b7 170 Guildens"
