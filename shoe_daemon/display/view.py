"""The public view of the table: the one place that decides what a display may see.

Everything a client gets (the page, `/api/state`, the stream) is built here from the coup
machine's public snapshot (`CoupMachine.public`, a `TableState`) and the lines it published
(`Published`), never from the machine's own records; a card's code leaves this module only
once the game has shown it:

- the four first cards are dealt face down (000: the top card "face downwards from the
  shoe"; rule 6 "must not be uncovered");
- a card that came out face up, or was uncovered by accident (`BTN,EXPOSE`), is public, with
  what 000 rules 6 and 8 uncover with it: the snapshot's `exposed` positions;
- third cards are public as soon as they are dealt (000 rule 9: "Drawn or requested third
  cards must always be placed on the table face upwards");
- a decided coup is shown whole: a natural is uncovered at once (000: "he uncovers them
  immediately ... whereupon the banker opens his cards"), and once both sides have played
  "the covered cards are uncovered" (000, the punter's and banker's play);
- a coup cancelled (000 rule 24) or voided by a supervisor ends without a showdown, so only
  what was already public stays shown;
- a card that went into the discard unseen is never shown, showdown or not: a punter's
  cards thrown into the discard (000 rule 15: his hand counts bac, and the view says so with
  a total of 0) and the card the banker lost there (000 rule 11) (the snapshot's
  `discarded`). What was public before stays public.

A hand's total is shown only when every card of it is public. What the machine decided is
taken as it published it: the naturals and the Swiss Nine bets from the `coup.result` line,
the rule a notice or a hold cites from its `irregularity` line. Irregularities are shown in
words from this module, never with the machine's detail text, which names held cards.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from shoe_daemon.display.history import History
from shoe_daemon.game import cards
from shoe_daemon.game.coup import CoupState, TableState
from shoe_daemon.game.irregularities import Code
from shoe_daemon.game.rules import Game, HouseProfile

SHOWDOWN = ("banker", "punter", "egalite")  # outcomes reached by turning the cards over

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
    Code.PUNTER_BAC: "The punter threw his cards into the discard: his hand counts bac.",
    Code.BANKER_CARD_LOST: "The banker lost a card in the discard. A supervisor rules: if it "
                           "cannot be recognised, the coup is lost to the banker.",
    Code.CARD_FELL: "A card fell from the table. It remains valid.",
    Code.PARTNER_OBJECTION: "The banker's partner objected. The banker's play stands.",
}


@dataclass
class Published:
    """The lines the machine published, as the display keeps them: the shoe's history and
    the latest coup's lines (its notices, each code with the rule it cited, and its result)."""

    history: History = field(default_factory=History)
    coup: tuple[int, int] | None = None  # (shoe, coup) of `notices` and `result`
    notices: dict[tuple[str, str], None] = field(default_factory=dict)  # (code, rule), in order
    result: dict[str, Any] | None = None

    @classmethod
    def of(cls, lines: Iterable[dict[str, Any]]) -> Published:
        published = cls()
        for line in lines:
            published.add(line)
        return published

    def add(self, line: dict[str, Any]) -> None:
        self.history.add(line)
        event = line.get("event")
        if event != "irregularity" and event != "coup.result":
            return
        where = (line["shoe"], line["coup"])
        if where != self.coup:
            self.coup, self.notices, self.result = where, {}, None
        if event == "irregularity":
            self.notices.setdefault((line["code"], line["rule"]))
        else:
            self.result = line

    def of_coup(self, shoe: int, coup: int) -> tuple[list[tuple[str, str]], dict[str, Any] | None]:
        """The notices and the result line published for that coup (none: not yet)."""
        if self.coup != (shoe, coup):
            return [], None
        return list(self.notices), self.result


def public_positions(coup: CoupState) -> set[str]:
    """The positions of this coup whose card the game has shown (see the module's rules)."""
    dealt = {f"P{i + 1}" for i in range(len(coup.punter))}
    dealt |= {f"B{i + 1}" for i in range(len(coup.banker))}
    if coup.outcome in SHOWDOWN:
        return dealt - coup.discarded
    shown = set(coup.exposed)
    shown |= {"P3", "B3"}  # 000 rule 9: third cards face up
    return (shown & dealt) - coup.discarded


def _hand(codes: tuple[str, ...], side: str, shown: set[str], natural: bool,
          bac: bool = False) -> dict[str, Any]:
    """A hand as shown; a bac'd one (000 rule 15) counts 0, its hidden cards staying so."""
    visible = [code if f"{side}{i + 1}" in shown else None for i, code in enumerate(codes)]
    whole = bool(codes) and all(v is not None for v in visible)
    hand = {
        "cards": visible,
        "total": 0 if bac else cards.total(codes) if whole and "??" not in codes else None,
        "natural": natural,
    }
    if bac:
        hand["bac"] = True
    return hand


def _coup(table: TableState, published: Published) -> dict[str, Any] | None:
    coup, shoe = table.coup, table.shoe
    if coup is None or shoe is None:
        return None
    notices, result = published.of_coup(shoe.number, coup.number)
    shown = public_positions(coup)
    final = result if coup.outcome in SHOWDOWN else None  # the showdown, as published
    view: dict[str, Any] = {
        "number": coup.number,
        "last": coup.last,
        "punter": _hand(coup.punter, "P", shown, bool(final and final["punter"]["natural"]),
                        coup.bac),
        "banker": _hand(coup.banker, "B", shown, bool(final and final["banker"]["natural"])),
        "outcome": coup.outcome,
        "notices": [
            {"code": code, "words": PLAYER_WORDS[Code(code)], "rule": rule}
            for code, rule in notices
        ],
    }
    if final is not None and "swiss_nine" in final:
        view["swiss_nine"] = list(final["swiss_nine"])
    return view


def _hold(table: TableState) -> dict[str, Any] | None:
    hold = table.hold
    if hold is None:
        return None
    return {"code": hold.code, "words": PLAYER_WORDS[Code(hold.code)], "rule": hold.rule}


def table_view(
    table: TableState, profile: HouseProfile, published: Published, name: str
) -> dict[str, Any]:
    """The whole display as JSON-able data; safe to send to anyone."""
    shoe = table.shoe
    return {
        "table": name,
        "profile": profile.name,
        "house": profile.house,
        "game": "punto-banco" if profile.game is Game.PUNTO_BANCO else "chemin-de-fer",
        "state": table.state,
        "state_words": STATE_WORDS[table.state],
        "shoe": None if shoe is None else {
            "number": shoe.number,
            "packs": shoe.packs,
            "cards_left": shoe.cards_left,
            "cut_card_out": shoe.cut_card_out,
            "last_coup": shoe.last_coup,
            "finished": shoe.finished,
        },
        "coup": _coup(table, published),
        "hold": _hold(table),
        "history": published.history.view(shoe.number if shoe is not None else None),
    }
