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
words from the words file (`words.py`, in the display's language), never with the machine's
detail text, which names held cards. The roads and statistics come from published results
only, the bank, limits, stakes and payouts from the console (`stakes.py`): none of them
carries a card.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from shoe_daemon.display.history import History
from shoe_daemon.display.stakes import (
    Bank,
    Limits,
    Payouts,
    Stakes,
    Write,
    bank_view,
    limits_view,
    payouts_view,
    stakes_view,
)
from shoe_daemon.display.words import Words
from shoe_daemon.game import cards
from shoe_daemon.game.coup import CoupState, TableState
from shoe_daemon.game.irregularities import Code
from shoe_daemon.game.rules import Game, HouseProfile

SHOWDOWN = ("banker", "punter", "egalite")  # outcomes reached by turning the cards over
#: Cards behind the cut card where the house does not say (as the simulated croupier cuts).
CUT_CARDS_BEHIND_UNSAID = 7

#: What each irregularity means to a player, in English with the French game terms (the
#: words file's default): for readers outside the table display, e.g. the console's recall.
PLAYER_WORDS: Mapping[Code, str] = MappingProxyType(
    {code: Words()[f"irregularity.{code}"] for code in Code})


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


def _coup(table: TableState, published: Published, words: Words) -> dict[str, Any] | None:
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
            {"code": code, "words": words[f"irregularity.{Code(code)}"], "rule": rule}
            for code, rule in notices
        ],
    }
    if final is not None and "swiss_nine" in final:
        view["swiss_nine"] = list(final["swiss_nine"])
    return view


def _hold(table: TableState, words: Words) -> dict[str, Any] | None:
    hold = table.hold
    if hold is None:
        return None
    return {"code": hold.code, "title": words["state.on_hold"],
            "words": words[f"irregularity.{Code(hold.code)}"], "rule": hold.rule}


def coups_left(table: TableState, profile: HouseProfile, history: History) -> int | None:
    """About how many coups are still to be dealt after the one in play: the cards before the
    cut card at this shoe's mean cards a coup, and the last coup after it. None: no shoe."""
    shoe, coup = table.shoe, table.coup
    if shoe is None:
        return None
    if shoe.finished:
        return 0
    if shoe.last_coup:
        return 0 if coup is not None and coup.last else 1
    behind = profile.cut_cards_behind
    before_cut = shoe.cards_left - (CUT_CARDS_BEHIND_UNSAID if behind is None else behind)
    return max(0, round(before_cut / history.mean_cards_per_coup())) + 1


def public_view(table: TableState, profile: HouseProfile, published: Published, name: str,
                words: Words | None = None, bank: Bank | None = None,
                limits: Limits | None = None, stakes: Stakes | None = None,
                payouts: Payouts | None = None, write: Write = None) -> dict[str, Any]:
    """The view without its history (the publisher splices the history's own JSON in).
    `write`: the house's way of writing an amount, when the table's money gives it."""
    words = words or Words()
    shoe = table.shoe
    return {
        "table": name,
        "profile": profile.name,
        "house": profile.house,
        "game": "punto-banco" if profile.game is Game.PUNTO_BANCO else "chemin-de-fer",
        "language": words.language,
        "terms": words.terms_language,
        "state": table.state,
        "state_words": words[f"state.{table.state}"],
        "shoe": None if shoe is None else {
            "number": shoe.number,
            "packs": shoe.packs,
            "cards_left": shoe.cards_left,
            "coups_left": coups_left(table, profile, published.history),
            "cut_card_out": shoe.cut_card_out,
            "last_coup": shoe.last_coup,
            "finished": shoe.finished,
        },
        "coup": _coup(table, published, words),
        "hold": _hold(table, words),
        "bank": bank_view(bank, words.locale, write),
        "limits": limits_view(limits, words.locale, write),
        "stakes": stakes_view(stakes, words.locale, write),
        "payouts": payouts_view(payouts, words.locale, write),
    }


def table_view(table: TableState, profile: HouseProfile, published: Published, name: str,
               words: Words | None = None, bank: Bank | None = None,
               limits: Limits | None = None, stakes: Stakes | None = None,
               payouts: Payouts | None = None, write: Write = None) -> dict[str, Any]:
    """The whole display as JSON-able data; safe to send to anyone."""
    view = public_view(table, profile, published, name, words, bank, limits, stakes, payouts,
                       write)
    shoe = table.shoe
    view["history"] = published.history.view(shoe.number if shoe is not None else None)
    return view
