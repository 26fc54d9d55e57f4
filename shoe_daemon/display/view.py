"""The public view of the table: the one place that decides what a display may see.

Everything a client gets (the page, `/api/state`, the stream) is built here from the coup
machine, and a card's code leaves this module only once the game has shown it:

- the four first cards are dealt face down (000: the top card "face downwards from the
  shoe"; rule 6 "must not be uncovered");
- a card that came out face up, or was uncovered by accident (`BTN,EXPOSE`), is public, with
  what 000 rules 6 and 8 uncover with it: the machine's `Coup.exposed`;
- third cards are public as soon as they are dealt (000 rule 9: "Drawn or requested third
  cards must always be placed on the table face upwards");
- a decided coup is shown whole: a natural is uncovered at once (000: "he uncovers them
  immediately ... whereupon the banker opens his cards"), and once both sides have played
  "the covered cards are uncovered" (000, the punter's and banker's play);
- a coup cancelled (000 rule 24) or voided by a supervisor ends without a showdown, so only
  what was already public stays shown.

A hand's total is shown only when every card of it is public. Irregularities are shown in
words from this module, never with the machine's detail text, which names held cards.
"""

from __future__ import annotations

from typing import Any

from shoe_daemon.display.history import History
from shoe_daemon.game import cards
from shoe_daemon.game.coup import Coup, CoupMachine
from shoe_daemon.game.irregularities import KINDS, Code
from shoe_daemon.game.rules import Game, HouseProfile, swiss_nine

SHOWDOWN = ("banker", "punter", "egalite")  # outcomes reached by turning the cards over
POSITIONS = ("P1", "P2", "P3", "B1", "B2", "B3")

STATE_WORDS = {
    "no_shoe": "Waiting for a new shoe",
    "waiting_for_stakes": "Waiting for stakes",
    "dealing": "Dealing",
    "punter_to_declare": "Punter to declare",
    "punter_drawing": "Punter draws",
    "banker_to_play": "Banker to play",
    "decided": "Decided",
    "on_hold": "Play is held",
}

#: What each irregularity means to a player at the table, and what happens next.
PLAYER_WORDS = {
    Code.WRONG_ORDER: "A card went to the wrong place. The croupier puts it right.",
    Code.WRONG_NUMBER: "A card was dealt where none may come.",
    Code.FAUX_TIRAGE: "A side played against the table. The croupier puts it right.",
    Code.EXPOSED_CARD: "A card was uncovered by accident.",
    Code.FACE_UP_IN_SHOE: "A card came out of the shoe face up.",
    Code.UNREADABLE_CARD: "The shoe could not read a card. The croupier enters it.",
    Code.FOREIGN_CARD: "A card that does not belong to this shoe. A supervisor is called.",
    Code.CUT_CARD_MISPLACED: "The cut card came out at the wrong place.",
    Code.SHORT_LAST_COUP: "The shoe ran out: the coup is cancelled, no stake is lost.",
    Code.DECLARATION_MISSING: "The punter has not said carte or reste yet.",
    Code.COUP_NOT_FINISHED: "A new deal was started too early. This coup is finished first.",
    Code.DEAL_AFTER_LAST_COUP: "A coup was dealt after the last coup of the shoe.",
}


def public_positions(coup: Coup) -> set[str]:
    """The positions of this coup whose card the game has shown (see the module's rules)."""
    dealt = {f"P{i + 1}" for i in range(len(coup.punter))}
    dealt |= {f"B{i + 1}" for i in range(len(coup.banker))}
    if coup.outcome in SHOWDOWN:
        return dealt
    shown = set(coup.exposed)
    shown |= {"P3", "B3"}  # 000 rule 9: third cards face up
    return shown & dealt


def _hand(codes: list[str], side: str, shown: set[str], final: bool) -> dict[str, Any]:
    visible = [code if f"{side}{i + 1}" in shown else None for i, code in enumerate(codes)]
    whole = bool(codes) and all(v is not None for v in visible)
    return {
        "cards": visible,
        "total": cards.total(codes) if whole and "??" not in codes else None,
        "natural": final and len(codes) >= 2 and cards.total(codes[:2]) >= 8,
    }


def _rule_of(code: Code, profile: HouseProfile) -> str:
    """The rule a notice cites: the house's own source where the machine uses it."""
    by_house = {
        Code.FACE_UP_IN_SHOE: profile.face_up_source,
        Code.CUT_CARD_MISPLACED: profile.cut_source,
        Code.FAUX_TIRAGE: profile.faux_tirage_source,
        Code.FOREIGN_CARD: profile.packs_source,
    }
    return by_house.get(code) or KINDS[code].rule


def _coup(machine: CoupMachine) -> dict[str, Any] | None:
    coup = machine.coup
    if coup is None:
        return None
    shown = public_positions(coup)
    final = coup.outcome in SHOWDOWN
    view: dict[str, Any] = {
        "number": coup.number,
        "last": coup.last,
        "punter": _hand(coup.punter, "P", shown, final),
        "banker": _hand(coup.banker, "B", shown, final),
        "outcome": coup.outcome,
        "notices": [
            {"code": c, "words": PLAYER_WORDS[Code(c)], "rule": _rule_of(Code(c), machine.profile)}
            for c in dict.fromkeys(coup.irregularities)
        ],
    }
    if machine.profile.swiss_nine and final and len(coup.banker) >= 2:
        view["swiss_nine"] = list(swiss_nine(coup.banker[:2]))
    return view


def _hold(machine: CoupMachine) -> dict[str, Any] | None:
    hold = machine.hold_
    if hold is None or machine.state != "on_hold":
        return None
    return {"code": hold.code.value, "words": PLAYER_WORDS[hold.code], "rule": hold.rule}


def table_view(machine: CoupMachine, history: History, table: str) -> dict[str, Any]:
    """The whole display as JSON-able data; safe to send to anyone."""
    profile = machine.profile
    shoe, coup = machine.shoe, machine.coup
    open_last = coup is not None and coup.outcome is None and coup.last  # the last coup on
    state = machine.state
    return {
        "table": table,
        "profile": profile.name,
        "house": profile.house,
        "game": "punto-banco" if profile.game is Game.PUNTO_BANCO else "chemin-de-fer",
        "state": state,
        "state_words": STATE_WORDS[state],
        "shoe": None if shoe is None else {
            "number": shoe.number,
            "packs": shoe.packs,
            "cards_left": max(shoe.left, 0),
            "cut_card_out": shoe.last_coup_next or shoe.finished or open_last,
            "last_coup": shoe.last_coup_next or open_last,
            "finished": shoe.finished,
        },
        "coup": _coup(machine),
        "hold": _hold(machine),
        "history": history.view(shoe.number if shoe is not None else None),
    }
