"""The display's public view against the real coup machine: every way a card becomes public.

After every message of each script the view is serialised exactly as it is sent, and every
card code anywhere in it must be one the game has shown by then. Seeds: 000 Zoppot 1934,
001 Clermont 2015, 003 Baden (see shoe_daemon/display/view.py for the rules cited).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from drivers.messages import Message
from hil.script import parse_script
from shoe_daemon.display.publisher import TableDisplay
from shoe_daemon.display.view import Published, table_view
from shoe_daemon.display.words import LANGUAGES, Words, data
from shoe_daemon.game.coup import STATES, CoupMachine, CoupState, ShoeState, TableState
from shoe_daemon.game.houses import get_profile
from shoe_daemon.game.irregularities import Code

CODE = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][CDHS](?![A-Za-z0-9])")


def codes_in(view: dict[str, Any]) -> set[str]:
    """Every card code anywhere in what a client receives, keys and free text included."""
    return set(CODE.findall(json.dumps(view, ensure_ascii=False)))


class Table:
    """A coup machine with a display beside it, fed one script token at a time."""

    def __init__(self, profile: str) -> None:
        self.machine = CoupMachine(get_profile(profile))
        self.published = Published()
        self.lines: list[dict[str, Any]] = []
        self.seen = 0  # lines a caller has looked at
        self.views: list[dict[str, Any]] = []

    def play(self, script: str) -> dict[str, Any]:
        for message in parse_script(script):
            self.play_message(message)
        return self.views[-1]

    def play_message(self, message: Message) -> dict[str, Any]:
        for line in self.machine.handle(message):
            self.published.add(line)
            self.lines.append(line)
        view = table_view(self.machine.public, self.machine.profile, self.published, "t-7")
        self.views.append(view)
        return view


def shown(view: dict[str, Any], side: str) -> list[str | None]:
    return view["coup"][side]["cards"]


def test_an_empty_table_shows_no_card_code_anywhere():
    # The baseline for every leak check below: no text of the view looks like a card code.
    for profile in ("zoppot-1934", "clermont-2015", "baden", "baden-punto-banco"):
        table = Table(profile)
        view = table.play("SHOE")
        assert codes_in(view) == set()
        assert view["state"] == "waiting_for_stakes"


def test_the_four_first_cards_stay_face_down_until_the_coup_is_decided():
    # 000: the top card is drawn "face downwards"; rule 6 "must not be uncovered".
    table = Table("zoppot-1934")
    table.play("SHOE DEAL")
    for token in ("2C", "3D", "4H", "KS"):
        view = table.play(token)
        assert codes_in(view) == set(), view
        assert view["coup"]["punter"]["total"] is None and view["coup"]["banker"]["total"] is None
    # Punter 6 stands (000: "Should he have 6 or 7 pips, he always declines"); the free banker
    # (000: "he can play free") has 3 and must choose.
    assert view["state"] == "banker_to_play" and view["state_words"] == "Banco to play"
    assert shown(view, "punter") == [None, None] and shown(view, "banker") == [None, None]
    view = table.play("STAND")
    # 000: once both have played "the covered cards are uncovered".
    assert view["state"] == "decided" and view["coup"]["outcome"] == "punter"
    assert shown(view, "punter") == ["2C", "4H"] and shown(view, "banker") == ["3D", "KS"]
    assert view["coup"]["punter"]["total"] == 6 and view["coup"]["banker"]["total"] == 3


def test_a_natural_is_shown_at_once():
    # 000: "if he has 8 or 9 pips ... he uncovers them immediately".
    table = Table("baden")
    table.play("SHOE DEAL 9C 2D KH")
    assert codes_in(table.views[-1]) == set()
    view = table.play("3S")
    assert view["state"] == "decided"
    assert codes_in(view) == {"9C", "2D", "KH", "3S"}
    assert view["coup"]["punter"] == {"cards": ["9C", "KH"], "total": 9, "natural": True}
    assert view["coup"]["banker"]["natural"] is False
    assert view["history"]["counts"] == {"banker": 0, "punter": 1, "egalite": 0, "naturals": 1}


def test_the_punters_third_card_is_public_the_first_two_are_not():
    # 000 rule 9: "Drawn or requested third cards must always be placed on the table face
    # upwards". Zoppot's free banker keeps the coup open after it.
    table = Table("zoppot-1934")
    view = table.play("SHOE DEAL 2C 5D 2H 2S")  # punter 4: he draws
    assert view["state"] == "punter_drawing" and codes_in(view) == set()
    view = table.play("7C")
    assert view["state"] == "banker_to_play"
    assert shown(view, "punter") == [None, None, "7C"] and codes_in(view) == {"7C"}
    assert view["coup"]["punter"]["total"] is None  # not a total of the public cards alone


def test_punter_to_declare_hides_his_cards():
    table = Table("zoppot-1934")
    view = table.play("SHOE DEAL 2C 4D 3H 3S")  # punter 5: his choice (000)
    assert view["state"] == "punter_to_declare"
    assert view["state_words"] == "Punto to say Carte or Reste"  # the French terms by default
    assert codes_in(view) == set()
    view = table.play("RESTE 8D")  # banker 7 draws a card: decided, everything uncovered
    assert view["state"] == "decided" and codes_in(view) == {"2C", "4D", "3H", "3S", "8D"}


def test_expose_p1_uncovers_b1_too_and_p1_p2_uncover_the_bankers_hand():
    table = Table("zoppot-1934")
    view = table.play("SHOE DEAL 2C 5D EXPOSE:P1")
    # 000 rule 6: "the banker must uncover his own first card too".
    assert shown(view, "punter") == ["2C"] and shown(view, "banker") == ["5D"]
    assert codes_in(view) == {"2C", "5D"}
    assert [n["code"] for n in view["coup"]["notices"]] == ["EXPOSED_CARD"]
    assert view["coup"]["notices"][0]["rule"] == "000 rule 6"
    view = table.play("3H KS")
    assert codes_in(view) == {"2C", "5D"}
    view = table.play("EXPOSE:P2")
    # 000 rule 8: both punter cards uncovered: "the banker must uncover his own two cards".
    assert codes_in(view) == {"2C", "5D", "3H", "KS"}
    assert view["coup"]["punter"]["total"] == 5 and view["coup"]["banker"]["total"] == 5


def test_a_card_out_face_up_is_public_where_it_stays_valid():
    # Baden: the card stays valid and is exposed (profile face_up_source).
    table = Table("baden")
    view = table.play("SHOE DEAL 2C 5D! 3H")
    assert shown(view, "banker") == ["5D"] and codes_in(view) == {"5D"}
    notice = view["coup"]["notices"][0]
    assert notice["code"] == "FACE_UP_IN_SHOE"
    assert notice["rule"] == get_profile("baden").face_up_source


def test_a_face_up_card_void_at_clermont_is_not_dealt_and_hides_nothing_else():
    # 001: cards face up in the shoe are null and void; the next card takes the place.
    table = Table("clermont-2015")
    view = table.play("SHOE DEAL 2C 5D! 6D 3H")
    assert shown(view, "banker") == [None] and "6D" not in codes_in(view)
    assert view["coup"]["notices"][0]["rule"].startswith("001")


def test_a_hold_names_the_rule_in_words_and_never_the_held_card():
    table = Table("baden")
    table.play("SHOE DEAL 2C")
    view = table.play("5D@P")  # the banker's card to the punter's place
    assert view["state"] == "on_hold" and view["state_words"] == "Coup on hold"
    assert view["hold"] == {
        "code": "WRONG_ORDER",
        "title": "Coup on hold",
        "words": "Wrong order: a card went to the wrong place. The croupier puts it right or "
                 "calls the supervisor.",
        "rule": "000 rule 12",
    }
    # The machine's own detail text names the card: the view must not carry it.
    assert codes_in(view) == set()
    view = table.play("OK")
    assert view["hold"] is None and view["state"] == "dealing" and codes_in(view) == set()


def test_foreign_and_unreadable_cards_on_hold_stay_hidden():
    table = Table("baden")
    view = table.play("SHOE:1 DEAL ??")
    assert view["hold"]["code"] == "UNREADABLE_CARD" and codes_in(view) == set()
    view = table.play("ENTER:2C 5D 7H 2C")  # a second 2C in a one-pack shoe
    assert view["hold"]["code"] == "FOREIGN_CARD" and codes_in(view) == set()
    assert view["hold"]["rule"] == get_profile("baden").packs_source


@pytest.mark.parametrize(("script", "outcome"), [
    ("SHOE DEAL 2C 5D 3H KEY:4711 VOID", "void"),
    ("SHOE DEAL 2C 5D 3H EMPTY", "cancelled"),
])
def test_a_coup_ended_without_a_showdown_keeps_its_cards_covered(script, outcome):
    # 000 rule 24 (cancelled without loss) and a supervisor's VOID: nobody turns cards over.
    table = Table("baden")
    view = table.play(script)
    assert view["coup"]["outcome"] == outcome and codes_in(view) == set()
    assert view["history"]["bead_plate"] == []


def test_the_next_deal_clears_the_last_coups_cards():
    table = Table("baden")
    table.play("SHOE DEAL 9C 2D KH 3S")
    view = table.play("DEAL 4C")
    assert view["state"] == "dealing" and codes_in(view) == set()
    assert view["coup"]["number"] == 2 and len(view["history"]["bead_plate"]) == 1


def test_swiss_nine_at_punto_banco():
    # 003 Swiss Nine: a ten-valued card with a nine, both clubs, wins all three bets.
    table = Table("baden-punto-banco")
    view = table.play("SHOE DEAL 2C 9C 3H KC")
    assert view["game"] == "punto-banco" and view["coup"]["outcome"] == "banker"
    assert view["coup"]["swiss_nine"] == ["simple", "colour", "swiss"]
    assert view["history"]["swiss_nine"] == [{"coup": 1, "bets": ["simple", "colour", "swiss"]}]
    assert "swiss_nine" not in Table("baden").play("SHOE DEAL 2C 9C 3H KC")["coup"]


def test_the_shoe_counts_down_and_announces_the_last_coup():
    table = Table("baden")
    view = table.play("SHOE DEAL 9C 2D KH 3S")
    assert view["shoe"]["cards_left"] == 6 * 52 - 4 and not view["shoe"]["cut_card_out"]
    view = table.play("CUT")
    assert view["shoe"]["cut_card_out"] and view["shoe"]["last_coup"]
    view = table.play("DEAL 4C")
    assert view["coup"]["last"] and view["shoe"]["last_coup"]


def test_every_state_and_every_irregularity_has_words_in_every_language():
    keys = {f"state.{s}" for s in STATES} | {f"irregularity.{c}" for c in Code}
    english = set(data()["words"]["en"])
    assert keys <= english
    for language in LANGUAGES:
        assert set(data()["words"][language]) == english, language
        for terms in ("french", "language"):
            words = Words(language, terms)
            for key in english:  # every game term put in: no {banco} left anywhere
                assert "{banco}" not in words[key] and "{punto}" not in words[key], key


def test_the_publisher_sends_only_changes():
    sent: list[bytes] = []
    display = TableDisplay("table-7", sent.append)
    machine = CoupMachine(get_profile("baden"))
    for message in parse_script("SHOE DEAL 9C"):
        machine.handle(message)
        display.show(machine)
        display.show(machine)  # a heartbeat frame: nothing new to show
    assert len(sent) == 3
    assert json.loads(sent[-1])["coup"]["punter"]["cards"] == [None]
    assert b"9C" not in sent[-1]


def test_the_publishers_json_is_the_view_coup_after_coup():
    # The roads' JSON is kept between results: it must still be the view's, result by result.
    sent: list[bytes] = []
    display = TableDisplay("table-7", sent.append)
    machine = CoupMachine(get_profile("baden"))
    for message in parse_script("SHOE DEAL 9C 2D KH 3S DEAL 4C 5D 2H 3S DEAL 8C 8D TH TS"):
        for line in machine.handle(message):
            display.record(line)
        display.show(machine)
        assert json.loads(sent[-1]) == table_view(
        machine.public, machine.profile, display.published, "table-7"
    )
    assert len(json.loads(sent[-1])["history"]["bead_plate"]) == 3


# ---- the view reads the machine's public snapshot and what it published -----------------


def test_a_notice_cites_the_rule_its_line_published():
    # The machine cites 000 rule 6 for P1 alone and rule 8 once both punter cards are out;
    # the view once showed the code's general "000 rules 6, 8" for both.
    table = Table("zoppot-1934")
    table.play("SHOE DEAL 2C 5D 3H KS EXPOSE:P1")
    view = table.play("EXPOSE:P2")
    published = [(e["code"], e["rule"]) for e in table.lines if e["event"] == "irregularity"]
    assert published == [("EXPOSED_CARD", "000 rule 6"), ("EXPOSED_CARD", "000 rule 8")]
    assert [(n["code"], n["rule"]) for n in view["coup"]["notices"]] == published


@pytest.mark.parametrize("profile", ["zoppot-1934", "clermont-2015", "baden",
                                     "baden-punto-banco"])
def test_notices_naturals_and_swiss_nine_are_what_the_machine_published(profile):
    # Dealt shoes with every dealing fault: after each message the view's notices, hold,
    # naturals and Swiss Nine bets are those of the lines published for the coup in play.
    from hil.dealer import GameFaults, deal_shoes

    session = deal_shoes(profile, 2, 5, faults=GameFaults.all(0.2, 1.0))
    table = Table(profile)
    coup_lines: list[dict[str, Any]] = []
    for message in session.messages:
        view = table.play_message(message)
        state = table.machine.public
        new = table.lines[table.seen:]
        table.seen = len(table.lines)
        for line in new:
            if coup_lines and (line["shoe"], line["coup"]) != (
                coup_lines[0]["shoe"], coup_lines[0]["coup"]
            ):
                coup_lines = []
            if line["event"] in ("irregularity", "coup.result"):
                coup_lines.append(line)
        if state.coup is None:
            assert view["coup"] is None
            continue
        mine = [line for line in coup_lines
                if (line["shoe"], line["coup"]) == (state.shoe.number, state.coup.number)]
        notices = list(dict.fromkeys(
            (line["code"], line["rule"]) for line in mine if line["event"] == "irregularity"
        ))
        assert [(n["code"], n["rule"]) for n in view["coup"]["notices"]] == notices
        hold = [line for line in new if line["event"] == "irregularity" and line["hold"]]
        if hold:
            assert view["hold"]["rule"] == hold[-1]["rule"] == state.hold.rule
        result = next((line for line in mine if line["event"] == "coup.result"), None)
        if view["coup"]["outcome"] in ("banker", "punter", "egalite"):
            assert result is not None
            for side in ("punter", "banker"):
                assert view["coup"][side]["natural"] == result[side]["natural"]
            assert view["coup"].get("swiss_nine") == result.get("swiss_nine")
        else:
            assert not view["coup"]["punter"]["natural"] and "swiss_nine" not in view["coup"]


def test_the_view_needs_nothing_but_the_snapshot_and_the_lines():
    # A snapshot made by hand, no machine: face-down cards stay hidden, the exposed ones show.
    state = TableState(
        state="dealing", lamp="GREEN",
        shoe=ShoeState(number=3, packs=6, cards_left=300, cut_card_out=False, last_coup=False,
                       finished=False),
        coup=CoupState(number=7, last=False, punter=("2C", "3H"), banker=("5D", "KS"),
                       exposed=frozenset({"P1", "B1"}), outcome=None),
        hold=None,
    )
    view = table_view(state, get_profile("zoppot-1934"), Published(), "t-7")
    assert shown(view, "punter") == ["2C", None] and shown(view, "banker") == ["5D", None]
    assert codes_in(view) == {"2C", "5D"} and view["coup"]["notices"] == []
    assert view["shoe"]["number"] == 3 and view["history"]["bead_plate"] == []


def test_the_public_snapshot_is_frozen_and_stays_as_it_was_taken():
    machine = CoupMachine(get_profile("baden"))
    for message in parse_script("SHOE:1 DEAL 9C 5D 9C"):
        machine.handle(message)
    held = machine.public
    assert (held.state, held.lamp, held.coup.punter, held.coup.banker) == (
        "on_hold", "RED", ("9C",), ("5D",))
    assert held.hold.code == "FOREIGN_CARD" and held.hold.rule == get_profile("baden").packs_source
    assert "KEY, then OK" in held.hold.action
    assert held.shoe.cards_left == 52 - 3  # the held copy counts until it is taken out
    with pytest.raises(AttributeError):
        held.state = "decided"  # frozen
    for message in parse_script("KEY:1 OK KH 3S"):
        machine.handle(message)
    now = machine.public
    assert now.coup.outcome == "punter" and now.hold is None and now.shoe.cards_left == 52 - 4
    assert held.coup.outcome is None and held.coup.punter == ("9C",) and held.state == "on_hold"


def test_a_display_rebuilt_from_the_lines_shows_what_it_showed():
    # The daemon rebuilds the display from the ledger's lines at start: same notices, same
    # showdown, same roads as the display that recorded them one by one.
    machine = CoupMachine(get_profile("zoppot-1934"))
    live = TableDisplay("t-7", lambda _: None)
    lines: list[dict[str, Any]] = []
    script = "SHOE DEAL 9C 2D KH 3S DEAL 2C 5D EXPOSE:P1 3H KS EXPOSE:P2 RESTE STAND DEAL 4C"
    for message in parse_script(script):
        for line in machine.handle(message):
            live.record(line)
            lines.append(line)
        rebuilt = TableDisplay("t-7", lambda _: None)
        rebuilt.rebuild(lines)
        assert rebuilt.snapshot(machine) == live.snapshot(machine)
    counts = json.loads(live.snapshot(machine))["history"]["counts"]
    assert (counts["punter"], counts["egalite"]) == (1, 1)


# ---- issue 13: languages, the statistics in the view, the bank and the limits ------------

from decimal import Decimal  # noqa: E402

from shoe_daemon.display.stakes import (  # noqa: E402
    Bank,
    BetLimit,
    Limits,
    Payout,
    Payouts,
    Stakes,
    Wager,
)


def view_of(profile: str, script: str, **kwargs: Any) -> dict[str, Any]:
    machine = CoupMachine(get_profile(profile))
    published = Published()
    for message in parse_script(script):
        for line in machine.handle(message):
            published.add(line)
    return table_view(machine.public, machine.profile, published, "t-7", **kwargs)


@pytest.mark.parametrize(("language", "terms", "words"), [
    ("en", "french", "Punto to say Carte or Reste"),
    ("de", "french", "Punto: Carte oder Reste?"),
    ("fr", "french", "Punto : Carte ou Reste ?"),
    ("zh", "french", "Punto\uff1aCarte或Reste\uff1f"),
    ("en", "language", "Punter to say Card or Stand"),
    ("zh", "language", "闲\uff1a要牌或不要牌\uff1f"),
])
def test_the_view_speaks_the_configured_language_with_the_french_terms_by_default(
        language, terms, words):
    view = view_of("zoppot-1934", "SHOE DEAL 2C 4D 3H 3S", words=Words(language, terms))
    assert view["state"] == "punter_to_declare" and view["state_words"] == words
    assert view["language"] == language
    assert view["terms"] == ("fr" if terms == "french" else language)
    assert codes_in(view) == set()  # words never carry a card


def test_a_hold_banner_in_each_language_never_names_the_card():
    for language in LANGUAGES:
        view = view_of("baden", "SHOE:1 DEAL 9C 5D 9C", words=Words(language))
        assert view["hold"]["code"] == "FOREIGN_CARD" and view["hold"]["title"]
        assert view["hold"]["title"] == view["state_words"]
        assert codes_in(view) == set(), language


def test_coups_left_counts_down_to_the_last_coup():
    view = view_of("baden", "SHOE")
    # 312 cards, 7 behind the cut card (Baden does not say), 4.94 cards a coup before any
    # coup: round(305 / 4.94) = 62 coups before the cut card, and the last coup after it.
    assert view["shoe"]["cards_left"] == 312 and view["shoe"]["coups_left"] == 63
    view = view_of("baden", "SHOE DEAL 9C 2D KH 3S")
    # One coup of 4 cards: the mean is (4 + 4.94 * 5) / 6 = 4.7833; 308 - 7 = 301 cards.
    assert view["shoe"]["coups_left"] == round(301 / ((4 + 4.94 * 5) / 6)) + 1 == 64
    assert view_of("baden", "SHOE DEAL 9C 2D KH 3S CUT")["shoe"]["coups_left"] == 1
    assert view_of("baden", "SHOE DEAL 9C 2D KH 3S CUT DEAL")["shoe"]["coups_left"] == 0


def test_no_bank_and_no_limits_are_null_in_the_view():
    view = view_of("baden", "SHOE DEAL 9C")
    assert view["bank"] is None and view["limits"] is None


def test_the_bank_as_the_console_gives_it():
    bank = Bank(Decimal("1500"), "CHF", holder_seat=3, banco_seat=5, suivi=True)
    view = view_of("baden", "SHOE DEAL 9C 2D", bank=bank, words=Words("de"))
    assert view["bank"] == {
        "amount": {"value": "1500.00", "currency": "CHF", "text": "1.500,00\xa0CHF"},
        "called": None, "holder_seat": 3, "banco_seat": 5, "suivi": True}
    assert codes_in(view) == set()
    english = view_of("baden", "SHOE", bank=Bank(Decimal("1234.5"), "EUR"))
    assert english["bank"]["amount"] == {"value": "1234.50", "currency": "EUR",
                                         "text": "€1,234.50"}
    assert english["bank"]["holder_seat"] is None and english["bank"]["banco_seat"] is None


def test_stakes_and_payouts_as_the_console_gives_them():
    stakes = Stakes("CHF", (Wager(3, "table", Decimal("300")), Wager(None, "outsider",
                                                                    Decimal("20"))), False)
    payouts = Payouts("XXX", 1, 4, (Payout(2, "banco", Decimal("10"), Decimal("20"), "won"),),
                      Decimal("0"))
    view = view_of("baden", "SHOE DEAL 9C 2D", stakes=stakes, payouts=payouts,
                   words=Words("de"))
    assert view["stakes"] == {"closed": False, "wagers": [
        {"place": 3, "play": "table", "amount": {"value": "300.00", "currency": "CHF",
                                                 "text": "300,00\xa0CHF"}},
        {"place": None, "play": "outsider", "amount": {"value": "20.00", "currency": "CHF",
                                                       "text": "20,00\xa0CHF"}}]}
    # XXX (no currency: 004's chips) is written as the number alone.
    assert view["payouts"]["lines"][0]["paid"]["text"] == "20"
    assert (view["payouts"]["coup"], view["payouts"]["void"]) == (4, False)
    assert codes_in(view) == set()


def test_the_limits_as_the_console_gives_them():
    limits = Limits("EUR", (BetLimit("table", Decimal("10"), Decimal("5000")),
                            BetLimit("egalite", Decimal("5"), Decimal("500"))))
    view = view_of("baden-punto-banco", "SHOE", limits=limits, words=Words("fr"))
    assert view["limits"]["currency"] == "EUR"
    assert [(b["bet"], b["minimum"]["value"], b["maximum"]["value"])
            for b in view["limits"]["bets"]] == [("table", "10.00", "5000.00"),
                                                 ("egalite", "5.00", "500.00")]
    assert view["limits"]["bets"][0]["maximum"]["text"] == "5\u202f000,00\xa0€"
    # Yen have no minor unit: the amount is sent as the currency writes it.
    yen = view_of("baden-punto-banco", "SHOE", limits=Limits(
        "JPY", (BetLimit("table", Decimal("1000"), Decimal("100000")),)))
    assert yen["limits"]["bets"][0]["minimum"] == {"value": "1000", "currency": "JPY",
                                                   "text": "¥1,000"}


@pytest.mark.parametrize(("make", "error"), [
    (lambda: Wager(3, "table", 10.0), TypeError),  # float: never money
    (lambda: Wager(3, "martingale", Decimal(10)), ValueError),
    (lambda: Payout(3, "table", Decimal(10), Decimal(-1), "lost"), ValueError),
    (lambda: Payout(3, "table", Decimal(10), Decimal(0), "maybe"), ValueError),
    (lambda: Stakes("chf", (), False), ValueError),
    (lambda: Bank(1500.0, "EUR"), TypeError),  # float: never money
    (lambda: Bank(Decimal("NaN"), "EUR"), TypeError),
    (lambda: Bank(Decimal("-1"), "EUR"), ValueError),
    (lambda: Bank(Decimal("1"), "EURO"), ValueError),
    (lambda: Bank(Decimal("1"), "EUR", banco_seat=0), ValueError),
    (lambda: Bank(Decimal("1"), "EUR", suivi=True), ValueError),
    (lambda: BetLimit("roulette", Decimal("1"), Decimal("2")), ValueError),
    (lambda: BetLimit("table", Decimal("20"), Decimal("10")), ValueError),
    (lambda: Limits("EUR", ()), ValueError),
])
def test_bad_money_from_the_console_is_refused(make, error):
    with pytest.raises(error):
        make()


def test_the_publisher_shows_the_bank_with_the_next_view_and_drops_it_when_gone():
    sent: list[bytes] = []
    display = TableDisplay("t-7", sent.append)
    machine = CoupMachine(get_profile("baden"))
    for message in parse_script("SHOE DEAL 9C"):
        machine.handle(message)
    display.show(machine)
    assert json.loads(sent[-1])["bank"] is None
    display.set_bank(Bank(Decimal("200"), "EUR", holder_seat=1))
    display.show(machine)
    assert json.loads(sent[-1])["bank"]["amount"]["value"] == "200.00"
    display.set_bank(None)
    display.show(machine)
    assert json.loads(sent[-1])["bank"] is None and len(sent) == 3


@pytest.mark.parametrize("profile", ["zoppot-1934", "baden", "baden-punto-banco"])
def test_no_card_code_anywhere_but_the_coup_in_play_whatever_the_new_fields(profile):
    # Dealt shoes with every dealing fault, in Chinese with the bank and the limits set: the
    # roads, the statistics, the ask road, the banners, the bank and the limits never carry a
    # card code; every code in the view is in its `coup` (whose rules the tests above check).
    from hil.dealer import GameFaults, deal_shoes

    session = deal_shoes(profile, 2, 9, faults=GameFaults.all(0.2, 1.0))
    machine = CoupMachine(get_profile(profile))
    published = Published()
    bank = Bank(Decimal("900"), "HKD", holder_seat=2, banco_seat=6)
    limits = Limits("HKD", (BetLimit("table", Decimal("100"), Decimal("50000")),))
    seen_history = False
    for message in session.messages:
        for line in machine.handle(message):
            published.add(line)
        view = table_view(machine.public, machine.profile, published, "t-7",
                          words=Words("zh", "language"), bank=bank, limits=limits)
        rest = {key: value for key, value in view.items() if key != "coup"}
        assert codes_in(rest) == set(), rest
        seen_history = seen_history or len(view["history"]["big_eye_boy"]) > 3
    assert seen_history


def test_amounts_written_the_house_way_when_the_table_money_says_how():
    """The table's money hands the display its house's way of writing an amount (003's
    "Fr. 1,170"): every amount then reads as the bank's call does, in any language; without
    it, the language's own (Babel)."""
    from decimal import Decimal as D

    from shoe_daemon.display.stakes import Payout, Payouts, payouts_view

    payouts = Payouts("CHF", 1, 1, (Payout(1, "bank", D("800"), D("1370"), "won"),), D("30"))
    house = payouts_view(payouts, "de", lambda amount: f"Fr. {amount:,.0f}")
    babel = payouts_view(payouts, "de")
    assert house is not None and babel is not None
    assert [house["commission"]["text"], house["lines"][0]["paid"]["text"]] == [
        "Fr. 30", "Fr. 1,370"]
    assert house["lines"][0]["paid"]["value"] == babel["lines"][0]["paid"]["value"] == "1370.00"
    assert babel["commission"]["text"] != "Fr. 30" and "CHF" in babel["commission"]["text"]
