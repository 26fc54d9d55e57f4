"""The simulated croupier deals whole shoes legally, and its ground truth matches its messages.

The checks here read the dealer's message stream on their own (not through the dealer's code)
and hold each coup to the rules: the dealing order, naturals, the punter's fixed cells (0-4
draw, 6-7 stand when he plays after the shoe), the banker's third card only where the house's
table allows it, the cards never more than the packs hold, the cut card where the house puts it
and the last coup right after it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import pytest

from drivers.messages import Button, Card, Cut, Empty, Heartbeat, Hello
from hil.capture import Faults, write_capture
from hil.dealer import deal_shoes
from shoe_daemon.cards import ALL_CODES, is_card, points, total
from shoe_daemon.profiles import PROFILES, get_profile
from shoe_daemon.replay import replay_bytes
from shoe_daemon.rules import Game, Play, swiss_nine

SEEDS = (1, 2024)


@dataclass
class Coup:
    cards: list[str] = field(default_factory=list)
    buttons: list[Button] = field(default_factory=list)  # after DEAL, in order
    events: list[object] = field(default_factory=list)  # cards and buttons, in order
    cut_before: bool = False  # the cut card had come out before this coup's DEAL


@dataclass
class Shoe:
    button: Button
    coups: list[Coup] = field(default_factory=list)
    dealt: int = 0
    cuts: list[int] = field(default_factory=list)  # cards dealt when each CUT came
    empties: list[int] = field(default_factory=list)


def parse(messages: list) -> list[Shoe]:
    """Split the stream into shoes and coups, as a reader of the wire would."""
    shoes: list[Shoe] = []
    for message in messages[1:]:
        assert not isinstance(message, Hello)
        if isinstance(message, Button) and message.name == "SHOE":
            shoes.append(Shoe(message))
            continue
        shoe = shoes[-1]
        if isinstance(message, Button) and message.name == "DEAL":
            shoe.coups.append(Coup(cut_before=bool(shoe.cuts)))
        elif isinstance(message, Card):
            shoe.dealt += 1
            shoe.coups[-1].cards.append(message.code)
            shoe.coups[-1].events.append(message)
        elif isinstance(message, Button):
            shoe.coups[-1].buttons.append(message)
            shoe.coups[-1].events.append(message)
        elif isinstance(message, Cut):
            shoe.cuts.append(shoe.dealt)
        elif isinstance(message, Empty):
            shoe.empties.append(shoe.dealt)
        else:
            assert isinstance(message, Heartbeat), message
    return shoes


def session_for(name: str, seed: int, shoes: int = 3, packs: int | None = None):
    return deal_shoes(name, shoes, seed, packs=packs)


def test_same_seed_same_session() -> None:
    a = deal_shoes("baden", 2, 7)
    b = deal_shoes("baden", 2, 7)
    assert a.messages == b.messages
    assert a.results == b.results
    c = deal_shoes("baden", 2, 8)
    assert c.messages != a.messages


def test_hello_opens_the_session() -> None:
    session = deal_shoes("zoppot-1934", 1, 99)
    hello = session.messages[0]
    assert isinstance(hello, Hello)
    assert (hello.proto, hello.model, hello.serial, hello.firmware) == (
        1, "SIM-SHOE", "SIM0001", "0.1.0")
    assert re.fullmatch(r"[0-9a-f]{8}", hello.boot_id)
    assert deal_shoes("zoppot-1934", 1, 99).messages[0].boot_id == hello.boot_id
    assert deal_shoes("zoppot-1934", 1, 100).messages[0].boot_id != hello.boot_id


def test_packs_override_and_shoe_numbers() -> None:
    session = deal_shoes("baden", 2, 5, packs=2, shoe_number_start=41)
    shoes = parse(session.messages)
    assert [s.button for s in shoes] == [Button("SHOE", "2")] * 2
    assert all(s.dealt <= 104 for s in shoes)
    assert {r["shoe"] for r in session.results} == {41, 42}
    assert [r["coup"] for r in session.results if r["shoe"] == 41][:3] == [1, 2, 3]
    default = parse(deal_shoes("baden", 1, 5).messages)
    assert default[0].button == Button("SHOE")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_profile_deals_three_legal_shoes(name: str, seed: int) -> None:
    profile = get_profile(name)
    session = session_for(name, seed)
    shoes = parse(session.messages)
    assert len(shoes) == 3
    results = session.results
    assert len(results) == sum(len(s.coups) for s in shoes)

    behind = 7 if profile.cut_cards_behind is None else profile.cut_cards_behind
    size = profile.packs * 52
    punto_banco = profile.game == Game.PUNTO_BANCO
    uptimes = [m.uptime_s for m in session.messages if isinstance(m, Heartbeat)]
    assert uptimes == sorted(uptimes)

    r = iter(results)
    for shoe_index, shoe in enumerate(shoes, start=1):
        # Cards never exceed the shoe, nor the packs it holds.
        assert shoe.dealt <= size
        every_card = [c for coup in shoe.coups for c in coup.cards]
        assert all(is_card(c) for c in every_card)
        counts = Counter(every_card)
        assert set(counts) <= set(ALL_CODES)
        assert max(counts.values()) <= profile.packs
        # The cut card comes out once, with the house's number of cards behind it.
        assert shoe.cuts == [size - behind]
        assert shoe.empties == ([size] if shoe.dealt == size else [])
        # The last coup is the one that begins after the cut card came out, and the shoe ends
        # with it.
        last_flags = []
        for coup_index, coup in enumerate(shoe.coups, start=1):
            result = next(r)
            assert result["shoe"] == shoe_index
            assert result["coup"] == coup_index
            assert result["profile"] == name
            last_flags.append(result["last_coup"])
            if result["outcome"] == "cancelled":
                # 000 rule 24: the shoe ran out with the coup unfinished; only a last coup.
                assert result["last_coup"] and shoe.dealt == size
                assert coup_index == len(shoe.coups)
                check_cancelled(coup, result, punto_banco)
            else:
                check_coup(profile, coup, result, punto_banco)
        assert last_flags.count(True) == 1
        assert last_flags[-1] is True
        assert shoe.coups[-1].cut_before
        assert not any(c.cut_before for c in shoe.coups[:-1])


KEYS = ["event", "shoe", "coup", "profile", "outcome", "punter", "banker", "last_coup",
        "irregularities"]


def check_cancelled(coup: Coup, result: dict, punto_banco: bool) -> None:
    assert list(result) == KEYS + (["swiss_nine"] if punto_banco else [])
    assert result["irregularities"] == ["SHORT_LAST_COUP"]
    punter, banker = result["punter"]["cards"], result["banker"]["cards"]
    first = coup.cards[:4]
    assert punter[:2] == first[0::2] and banker[:2] == first[1::2]
    assert coup.cards[4:] == punter[2:] + banker[2:]
    if len(punter) == 2 and len(banker) == 2:
        # Four cards were dealt and no natural: something more was due.
        assert len(coup.cards) < 4 or max(total(punter), total(banker)) < 8
    assert all(b.name == "TABLE" for b in coup.buttons), "nothing is pressed once it is out"


def check_coup(profile, coup: Coup, result: dict, punto_banco: bool) -> None:
    assert list(result) == KEYS + (["swiss_nine"] if punto_banco else [])
    assert result["event"] == "coup.result"
    assert result["irregularities"] == []

    punter, banker = result["punter"]["cards"], result["banker"]["cards"]
    cards = coup.cards
    # Dealing order: punter, banker, punter, banker, then the punter's third, the banker's.
    assert cards[:4] == [punter[0], banker[0], punter[1], banker[1]]
    assert cards[4:] == punter[2:] + banker[2:]
    assert 2 <= len(punter) <= 3 and 2 <= len(banker) <= 3

    names = [b.name for b in coup.buttons]
    table = [b.arg for b in coup.buttons if b.name == "TABLE"]
    if punto_banco:
        assert names == [], "Punto Banco: no button but SHOE and DEAL"
    # TABLE comes right after DEAL, only for a side free by default.
    assert names[: len(table)] == ["TABLE"] * len(table)
    assert coup.events[: len(table)] == [Button("TABLE", side) for side in table]
    assert table in ([], ["P"], ["B"], ["P", "B"])
    if "P" in table:
        assert profile.punter_free
    if "B" in table:
        assert profile.banker_free
    bound_p = punto_banco or not profile.punter_free or "P" in table
    bound_b = punto_banco or not profile.banker_free or "B" in table
    after_table = names[len(table):]

    p2, b2 = total(punter[:2]), total(banker[:2])
    for side, codes in (("punter", punter), ("banker", banker)):
        assert result[side]["total"] == total(codes)
        assert result[side]["natural"] == (total(codes[:2]) >= 8)
    p, b = total(punter), total(banker)
    assert result["outcome"] == ("punter" if p > b else "banker" if b > p else "egalite")
    if punto_banco:
        assert result["swiss_nine"] == list(swiss_nine(tuple(banker[:2])))

    # A natural on either side ends the deal.
    if p2 >= 8 or b2 >= 8:
        assert len(punter) == 2 and len(banker) == 2
        assert after_table == []
        return

    # The punter's declaration, then his third card.
    drew_p = len(punter) == 3
    p_buttons = [n for n in after_table if n in ("CARTE", "RESTE")]
    assert len(p_buttons) <= 1
    if p_buttons:
        assert after_table[0] == p_buttons[0]
        assert drew_p == (p_buttons[0] == "CARTE")
    if bound_p:
        if p2 <= 4:
            assert drew_p and not p_buttons, "a bound punter with 0-4 draws, no button"
        if p2 in (6, 7):
            assert not drew_p and not p_buttons, "a bound punter with 6-7 stands, no button"
    ruling_p = profile.punter_ruling(p2, bound_p).play
    if p_buttons:
        assert ruling_p == Play.OPTION
    else:
        assert ruling_p == (Play.DRAW if drew_p else Play.STAND)

    # The banker: a free banker draws or presses STAND; a bound one follows the table.
    drew_b = len(banker) == 3
    b_buttons = [n for n in after_table if n not in ("CARTE", "RESTE")]
    assert b_buttons in ([], ["STAND"])
    stood_by_button = b_buttons == ["STAND"]
    # On the wire: the declaration, his card, then the banker's card or STAND, in that order.
    wire = [e for e in coup.events if not (isinstance(e, Button) and e.name == "TABLE")]
    assert wire[4:] == (
        [Button(n) for n in p_buttons]
        + [Card(c, "D") for c in punter[2:]]
        + [Card(c, "D") for c in banker[2:]]
        + [Button(n) for n in b_buttons]
    )
    if not bound_b:
        assert drew_b != stood_by_button, "a free banker draws or presses STAND"
        return
    third = points(punter[2]) if drew_p else None
    if b2 <= 2:
        assert drew_b, "a bound banker with 0-2 always draws"
    if b2 == 7:
        assert not drew_b and not stood_by_button, "a bound banker with 7 never draws"
    ruling_b = profile.banker_ruling(b2, third).play
    if drew_b:
        assert ruling_b in (Play.DRAW, Play.OPTION)
        assert not stood_by_button
    elif stood_by_button:
        assert ruling_b == Play.OPTION
    else:
        assert ruling_b == Play.STAND
    if punto_banco:
        assert ruling_b != Play.OPTION and ruling_p != Play.OPTION


def test_buttons_and_tables_appear_somewhere() -> None:
    """Over a few shoes the croupier uses each choice he has, not one path only."""
    names = Counter()
    for name in sorted(PROFILES):
        if get_profile(name).game == Game.PUNTO_BANCO:
            continue
        for m in deal_shoes(name, 2, 3).messages:
            if isinstance(m, Button):
                names[(m.name, m.arg)] += 1
    assert names[("CARTE", None)] and names[("RESTE", None)] and names[("STAND", None)]
    assert names[("TABLE", "P")] or names[("TABLE", "B")]


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_replay_of_a_faulty_capture_gives_the_ground_truth(name: str) -> None:
    """The daemon's replay (decode, delivery, coup machine) agrees with the croupier."""
    session = deal_shoes(name, 3, 31)
    data = write_capture(session.messages, Faults.all(0.05), seed=31)
    outcome = replay_bytes(data, name)
    assert [line for line in outcome.lines if line["event"] == "coup.result"] == session.results
    others = {line.get("code") for line in outcome.lines if line["event"] != "coup.result"}
    assert others <= {"SHORT_LAST_COUP"}
