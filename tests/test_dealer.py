"""The simulated croupier deals whole shoes legally, and its ground truth matches its messages.

The checks here read the dealer's message stream on their own (not through the dealer's code)
and hold each coup to the rules: the dealing order, naturals, the punter's fixed cells (0-4
draw, 6-7 stand when he plays after the shoe), the banker's third card only where the house's
table allows it, the cards never more than the packs hold, the cut card where the house puts it
and the last coup right after it; in banco solo (003, `BTN,FREE`), free choices.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise, zip_longest

import pytest

from drivers.messages import Button, Card, Cut, Empty, Fault, Heartbeat, Hello
from hil.capture import Faults, write_capture
from hil.dealer import GameFaults, deal_shoes
from shoe_daemon.game.cards import ALL_CODES, is_card, points, total
from shoe_daemon.game.houses import PROFILES, get_profile
from shoe_daemon.game.rules import Game, Play, swiss_nine
from shoe_daemon.service.replay import TrustedKeys, replay_bytes

SEEDS = (1, 2024)


@dataclass
class Coup:
    cards: list[str] = field(default_factory=list)
    buttons: list[Button] = field(default_factory=list)  # after DEAL, in order
    events: list[object] = field(default_factory=list)  # cards and buttons, in order
    cut_before: bool = False  # the cut card had come out before this coup's DEAL
    free_before: list[Button] = field(default_factory=list)  # FREE pressed before its DEAL


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
    pending: list[Button] = []  # FREE between coups: for the coup its DEAL opens
    stream = messages[1:]
    for index, message in enumerate(stream):
        assert not isinstance(message, Hello)
        if isinstance(message, Button) and message.name == "SHOE":
            shoes.append(Shoe(message))
            continue
        shoe = shoes[-1]
        if isinstance(message, Button) and message.name == "FREE":
            following = next(m for m in stream[index:]
                             if not (isinstance(m, Button) and m.name == "FREE"))
            if following == Button("DEAL"):
                pending.append(message)
                continue
        if isinstance(message, Button) and message.name == "DEAL":
            shoe.coups.append(Coup(cut_before=bool(shoe.cuts), free_before=pending))
            pending = []
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
    session = session_for(name, seed)
    assert Button("FREE", "P") not in session.messages  # banco solo is opt-in
    check_shoes(name, session)


def check_shoes(name: str, session) -> None:
    profile = get_profile(name)
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
    assert all(b.name in ("TABLE", "FREE") for b in coup.buttons), \
        "nothing is pressed once it is out"


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
    sides = [b for b in coup.buttons if b.name in ("TABLE", "FREE")]
    table = [b.arg for b in sides if b.name == "TABLE"]
    free = [b.arg for b in coup.free_before + sides if b.name == "FREE"]
    if punto_banco:
        assert names == [] and free == [], "Punto Banco: no button but SHOE and DEAL"
    # TABLE and FREE come right after DEAL (FREE may come before it): TABLE only for a side
    # free by default, FREE (banco solo, 003) for each side bound by default.
    assert coup.events[: len(sides)] == sides
    assert table in ([], ["P"], ["B"], ["P", "B"])
    if "P" in table:
        assert profile.punter_free
    if "B" in table:
        assert profile.banker_free
    solo = bool(free)
    if solo:
        assert not table
        assert free == [s for s, f in (("P", profile.punter_free), ("B", profile.banker_free))
                        if not f]
    bound_p = not solo and (punto_banco or not profile.punter_free or "P" in table)
    bound_b = not solo and (punto_banco or not profile.banker_free or "B" in table)
    after_table = names[len(sides):]

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
    if p_buttons and ruling_p != Play.OPTION:
        # 003 banco solo, "nach Belieben": his own call against his printed rule.
        assert solo and p_buttons[0] == ("CARTE" if ruling_p == Play.STAND else "RESTE")
    elif not p_buttons:
        assert ruling_p == (Play.DRAW if drew_p else Play.STAND)

    # The banker: a free banker draws or presses STAND; a bound one follows the table.
    drew_b = len(banker) == 3
    b_buttons = [n for n in after_table if n not in ("CARTE", "RESTE")]
    assert b_buttons in ([], ["STAND"])
    stood_by_button = b_buttons == ["STAND"]
    # On the wire: the declaration, his card, then the banker's card or STAND, in that order.
    wire = [e for e in coup.events if not (isinstance(e, Button) and e.name in ("TABLE", "FREE"))]
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


# -- banco solo (003; BTN,FREE, protocol 1.1) ---------------------------------------------


def free_choices(session) -> Counter[str]:
    """What the free sides did against the house's grid, read off the wire and the results."""
    profile = get_profile("baden")
    seen: Counter[str] = Counter()
    coups = [c for shoe in parse(session.messages) for c in shoe.coups]
    for coup, result in zip(coups, session.results, strict=True):
        free = [b for b in coup.free_before + coup.buttons if b.name == "FREE"]
        if not free:
            continue
        seen["before DEAL" if coup.free_before else "after DEAL"] += 1
        punter, banker = result["punter"]["cards"], result["banker"]["cards"]
        if result["outcome"] == "cancelled" or max(total(punter[:2]), total(banker[:2])) >= 8:
            continue
        grid_p = profile.punter_ruling(total(punter[:2]), True).play
        if grid_p != Play.OPTION and (len(punter) == 3) != (grid_p == Play.DRAW):
            seen["punter against the grid"] += 1
        third = points(punter[2]) if len(punter) == 3 else None
        grid_b = profile.banker_ruling(total(banker[:2]), third).play
        if grid_b != Play.OPTION and (len(banker) == 3) != (grid_b == Play.DRAW):
            seen["banker against the grid"] += 1
    return seen


@pytest.mark.parametrize("seed", SEEDS)
def test_baden_banco_solo_plays_free_and_the_host_agrees(seed: int) -> None:
    # 003: "Spielt nur ein Ponte gegen den Bankhalter, können beide nach Belieben eine
    # dritte Karte ... ziehen": free choices against the grid, and no faux tirage.
    session = deal_shoes("baden", 3, seed, banco_solo=0.4)
    check_shoes("baden", session)
    seen = free_choices(session)
    assert seen["before DEAL"] and seen["after DEAL"]
    assert seen["punter against the grid"] and seen["banker against the grid"]
    data = write_capture(session.messages, Faults.all(0.03), seed=seed)
    outcome = replay_bytes(data, "baden", keys=TrustedKeys())
    assert [ln for ln in outcome.lines if ln["event"] == "coup.result"] == session.results
    assert {ln.get("code") for ln in outcome.lines if ln["event"] != "coup.result"} <= {
        "SHORT_LAST_COUP"}


def test_banco_solo_is_opt_in_and_a_probability() -> None:
    plain = deal_shoes("baden", 2, 7)
    assert deal_shoes("baden", 2, 7, banco_solo=0).messages == plain.messages
    solo = deal_shoes("baden", 2, 7, banco_solo=0.3)
    assert solo.messages != plain.messages and Button("FREE", "B") in solo.messages
    # Where sides play free by default, or at Punto Banco, there is nothing to free.
    for name in ("zoppot-1934", "baden-punto-banco"):
        assert Button("FREE", "P") not in deal_shoes(name, 1, 7, banco_solo=1).messages
    with pytest.raises(ValueError):
        deal_shoes("baden", 1, 7, banco_solo=1.5)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_replay_of_a_faulty_capture_gives_the_ground_truth(name: str) -> None:
    """The daemon's replay (decode, delivery, coup machine) agrees with the croupier."""
    session = deal_shoes(name, 3, 31)
    data = write_capture(session.messages, Faults.all(0.05), seed=31)
    outcome = replay_bytes(data, name, keys=TrustedKeys())
    assert [line for line in outcome.lines if line["event"] == "coup.result"] == session.results
    others = {line.get("code") for line in outcome.lines if line["event"] != "coup.result"}
    assert others <= {"SHORT_LAST_COUP"}


# -- game faults: the croupier's mistakes, with the coup machine's own verdict as truth -----

PER_SHOE = ("foreign_card", "short_last_coup", "stacked")
FAULT_CONFIGS = {
    **{name: GameFaults(**{name: 1.0 if name in PER_SHOE else 0.3})
       for name in GameFaults.names()},
    "all": GameFaults.all(0.1, 0.7),
    "all-several-per-coup": GameFaults.all(0.25, 0.9, one_per_coup=False),
}
# What each fault must make the coup machine say, somewhere in a few shoes.
EXPECTED_CODES = {
    "face_up": {"FACE_UP_IN_SHOE"},
    "unreadable": {"UNREADABLE_CARD"},
    "wrong_order": {"WRONG_ORDER"},
    "extra_card": {"WRONG_NUMBER"},
    "jam": set(),
    "foreign_card": {"FOREIGN_CARD"},
    "short_last_coup": {"SHORT_LAST_COUP", "CUT_CARD_MISPLACED"},
    # The integrity faults deal legal shoes: the coup machine has nothing to say of them;
    # the odds monitor does (tests/odds/test_monitor.py, tests/test_hil.py).
    "false_shuffle": set(),
    "stacked": set(),
}


def faulty_session(name: str, fault: str, seed: int = 11, shoes: int = 3):
    return deal_shoes(name, shoes, seed, faults=FAULT_CONFIGS[fault])


@pytest.mark.parametrize("fault", sorted(FAULT_CONFIGS))
@pytest.mark.parametrize("name", sorted(PROFILES))
def test_game_faults_ground_truth_is_what_the_host_publishes(name: str, fault: str) -> None:
    session = faulty_session(name, fault)
    data = write_capture(session.messages, Faults.all(0.03), seed=5)
    outcome = replay_bytes(data, name, keys=TrustedKeys())
    assert [ln for ln in outcome.lines if ln["event"] == "coup.result"] == session.results
    assert outcome.final_state == "decided", "every hold was lifted, the last coup decided"
    codes = Counter(ln["code"] for ln in outcome.lines if ln["event"] == "irregularity")
    # Nothing the croupier did not mean: no faux tirage, no exposed card, no held DEAL.
    allowed = set().union(*(EXPECTED_CODES[f] for f in EXPECTED_CODES if
                            getattr(FAULT_CONFIGS[fault], f)))
    assert set(codes) <= allowed | {"SHORT_LAST_COUP"}
    # Every hold was lifted by the croupier's own buttons.
    holds = [ln for ln in outcome.lines if ln["event"] == "irregularity" and ln["hold"]]
    resolved = [ln for ln in outcome.lines if ln["event"] == "irregularity.resolved"]
    assert [h["code"] for h in holds] == [r["code"] for r in resolved]


@pytest.mark.parametrize("fault", sorted(EXPECTED_CODES))
def test_each_game_fault_shows_up(fault: str) -> None:
    seen: Counter[str] = Counter()
    for name in sorted(PROFILES):
        session = faulty_session(name, fault, seed=3, shoes=2)
        outcome = replay_bytes(write_capture(session.messages), name, keys=TrustedKeys())
        seen.update(ln["code"] for ln in outcome.lines if ln["event"] == "irregularity")
        if fault == "jam":
            assert Fault("JAM", True) in session.messages
    for code in EXPECTED_CODES[fault]:
        assert seen[code], f"{fault} never raised {code}"


def test_no_faults_deal_the_same_session() -> None:
    plain = deal_shoes("zoppot-1934", 2, 77)
    assert deal_shoes("zoppot-1934", 2, 77, faults=GameFaults()).messages == plain.messages
    faulty = deal_shoes("zoppot-1934", 2, 77, faults=GameFaults.all(0.2, 1.0))
    assert faulty.messages != plain.messages
    again = deal_shoes("zoppot-1934", 2, 77, faults=GameFaults.all(0.2, 1.0))
    assert (again.messages, again.results) == (faulty.messages, faulty.results)


def test_game_faults_are_probabilities() -> None:
    with pytest.raises(ValueError):
        GameFaults(face_up=1.5)
    with pytest.raises(ValueError):
        GameFaults(jam=-0.1)
    assert not GameFaults() and GameFaults(jam=0.1)
    assert set(GameFaults.names()) == set(EXPECTED_CODES)


def coups_of(messages: list) -> list[list]:
    """The messages from each DEAL up to the next DEAL or SHOE."""
    coups: list[list] = []
    for m in messages:
        if isinstance(m, Button) and m.name in ("DEAL", "SHOE"):
            coups.append([] if m.name == "DEAL" else None)
        elif coups and coups[-1] is not None:
            coups[-1].append(m)
    return [c for c in coups if c is not None]


@pytest.mark.parametrize("name", ["clermont-2015", "zoppot-1934", "baden-punto-banco"])
def test_face_up_cards(name: str) -> None:
    """Never both punter cards face up; Clermont's face-up card is in no hand (001)."""
    session = deal_shoes(name, 3, 8, faults=GameFaults(face_up=0.5))
    void = get_profile(name).face_up.value == "void"
    coups = [c for c in coups_of(session.messages) if c]
    assert len(coups) == len(session.results)
    up_count = 0
    for coup, result in zip(coups, session.results, strict=True):
        ups = [m.code for m in coup if isinstance(m, Card) and m.face == "U"]
        assert len(ups) <= 1
        up_count += len(ups)
        hands = result["punter"]["cards"] + result["banker"]["cards"]
        for code in ups:
            assert result["irregularities"].count("FACE_UP_IN_SHOE") == 1
            if void:
                dealt = [m.code for m in coup if isinstance(m, Card)]
                assert dealt.count(code) > hands.count(code)
            else:
                assert code in hands
    assert up_count > 5


def dealing_order(result: dict) -> list[str]:
    punter, banker = result["punter"]["cards"], result["banker"]["cards"]
    first_four = [c for pair in zip_longest(punter[:2], banker[:2]) for c in pair if c]
    return [*first_four, *punter[2:], *banker[2:]]


def test_extra_card_is_the_next_coups_first_card() -> None:
    """000 rule 13: the card one too many after a natural opens the next coup."""
    session = deal_shoes("baden", 3, 21, faults=GameFaults(extra_card=0.6))
    coups = coups_of(session.messages)
    results = session.results
    extras = 0
    carried = False
    for i, (coup, result) in enumerate(zip(coups, results, strict=True)):
        wire = [m.code for m in coup if isinstance(m, Card)]
        expected = dealing_order(result)[1 if carried else 0:]
        carried = len(wire) == len(expected) + 1
        if not carried:
            assert wire == expected
            continue
        extras += 1
        assert wire[:-1] == expected
        assert result["punter"]["natural"] or result["banker"]["natural"]
        following = results[i + 1]
        assert following["shoe"] == result["shoe"] and not result["last_coup"]
        assert following["punter"]["cards"][0] == wire[-1]
        assert "WRONG_NUMBER" not in result["irregularities"] + following["irregularities"]
    assert extras > 2
    outcome = replay_bytes(write_capture(session.messages), "baden", keys=TrustedKeys())
    assert sum(ln.get("code") == "WRONG_NUMBER" for ln in outcome.lines) == extras


def test_foreign_card_is_one_copy_too_many() -> None:
    """One copy more than the packs hold comes out; it is in no hand."""
    session = deal_shoes("eight-pack", 2, 4, packs=2, faults=GameFaults(foreign_card=1.0))
    for shoe_number in (1, 2):
        hands: Counter[str] = Counter()
        for r in session.results:
            if r["shoe"] == shoe_number:
                hands.update(r["punter"]["cards"] + r["banker"]["cards"])
        assert max(hands.values()) <= 2
    per_shoe = [[m.code for m in shoe] for shoe in cards_by_shoe(session.messages)]
    for codes in per_shoe:
        counts = Counter(codes)
        assert [n for n in counts.values() if n > 2] == [3]
    foreign = [r for r in session.results if "FOREIGN_CARD" in r["irregularities"]]
    assert len(foreign) == 2
    assert any(isinstance(m, Button) and m.name == "KEY" for m in session.messages)


def cards_by_shoe(messages: list) -> list[list[Card]]:
    shoes: list[list[Card]] = []
    for m in messages:
        if isinstance(m, Button) and m.name == "SHOE":
            shoes.append([])
        elif isinstance(m, Card):
            shoes[-1].append(m)
    return shoes


@pytest.mark.parametrize("name", ["zoppot-1934", "clermont-2015"])
def test_short_last_coup_is_cancelled(name: str) -> None:
    session = deal_shoes(name, 6, 9, faults=GameFaults(short_last_coup=1.0))
    last = [r for r in session.results if r["last_coup"]]
    cancelled = [r for r in session.results if r["outcome"] == "cancelled"]
    assert cancelled and all(r["irregularities"][-1] == "SHORT_LAST_COUP" for r in cancelled)
    assert len(last) <= 6 and sum(isinstance(m, Cut) for m in session.messages) == 6
    outcome = replay_bytes(write_capture(session.messages), name, keys=TrustedKeys())
    cuts = [ln for ln in outcome.lines if ln.get("code") == "CUT_CARD_MISPLACED"]
    assert cuts, "the cut card placed two from the bottom is misplaced everywhere"
    assert sum(r["irregularities"].count("CUT_CARD_MISPLACED") for r in session.results) \
        <= len(cuts)


def _shoe_orders(messages: list) -> list[list[str]]:
    """The cards read from each shoe, in order."""
    shoes: list[list[str]] = []
    for m in messages:
        if isinstance(m, Button) and m.name == "SHOE":
            shoes.append([])
        elif isinstance(m, Card) and shoes:
            shoes[-1].append(m.code)
    return shoes


def test_a_false_shuffle_keeps_runs_of_the_last_shoe() -> None:
    """hil/stacking.py: the shoe after the first keeps a fraction of the last one's order in
    slugs; a fair shoe keeps next to none (tests/odds/test_slugs.py for the statistic)."""
    from shoe_daemon.odds.slugs import coverage

    fair = _shoe_orders(deal_shoes("baden-punto-banco", 2, 8).messages)
    false = _shoe_orders(deal_shoes("baden-punto-banco", 2, 8,
                                    faults=GameFaults(false_shuffle=0.2)).messages)
    assert false[0] == fair[0]  # the first shoe has no shoe before it
    assert coverage(fair[1], fair[0]) < 12
    assert coverage(false[1], false[0]) >= 0.15 * len(false[1])


def test_a_stacked_shoe_deals_streaks() -> None:
    session = deal_shoes("baden-punto-banco", 1, 8, faults=GameFaults(stacked=1.0))
    decided = [r["outcome"] for r in session.results if r["outcome"] in ("banker", "punter")]
    changes = sum(1 for a, b in pairwise(decided) if a != b)
    assert changes < len(decided) / 5  # a shuffled shoe changes about every other coup
