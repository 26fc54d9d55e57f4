"""A simulated croupier: whole shoes dealt legally under a house profile, with ground truth.

`deal_shoes` plays the part of the shoe and the croupier at once. It shuffles the packs,
places the cut card so that the profile's number of cards stays behind it (000: "counts off
seven cards from the bottom of the pack"; seven where the profile does not say), deals coup
after coup in the order punter, banker, punter, banker, and presses the buttons a croupier
would press: `SHOE`, `DEAL`, `TABLE` when a side plays after the shoe, `CARTE` / `RESTE` for
the punter's declaration where he has a choice, `STAND` where the banker has a choice and
declines the card. Every choice is made with `random.Random(seed)`, so a seed always gives
the same session.

It returns the shoe-to-host messages in order (`Session.messages`, to be framed by
`hil.capture.write_capture`) and the ground truth (`Session.results`): one dict per coup,
exactly as the daemon prints its `coup.result` lines.

The cut card comes out when exactly `cut_cards_behind` cards are left, wherever that falls;
the coup in progress is finished, and the coup that begins after it is the shoe's last.
A last coup can find the shoe too short to finish it (the cut card came out early in the
coup before, which then took cards from behind it). When the shoe is empty and the coup still
wants anything more (a card, or a CARTE / RESTE / STAND choice), the coup is cancelled without
loss to either side (000 rule 24): nothing more is sent for it, the shoe reports `EMPTY`, and
its result has outcome `cancelled` with the irregularity `SHORT_LAST_COUP`, as the coup machine
reports it. `EMPTY` follows whenever the last card leaves the shoe.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from drivers.messages import Button, Card, Cut, Empty, Heartbeat, Hello, Message
from shoe_daemon.cards import ALL_CODES, points, total
from shoe_daemon.irregularities import Code
from shoe_daemon.profiles import get_profile
from shoe_daemon.rules import Game, HouseProfile, Play, swiss_nine

MODEL = "SIM-SHOE"
SERIAL = "SIM0001"
FIRMWARE = "0.1.0"
DEFAULT_CUT_CARDS_BEHIND = 7  # 000: "counts off seven cards from the bottom of the pack"

TABLE_CHANCE = 0.10  # a side free by default plays after the shoe ("TABLE") this often
HEARTBEAT_CHANCE = 0.25  # a heartbeat between two coups this often
OPTION_DRAW_CHANCE = 0.5  # CARTE rather than RESTE, a card rather than STAND, in an option
# A free banker (every case his choice) mostly plays as the table would advise him.
FREE_BANKER_DRAW_CHANCE = {Play.DRAW: 0.85, Play.OPTION: 0.5, Play.STAND: 0.15}


@dataclass
class Session:
    """What a simulated shoe sends, and what the daemon must make of it."""

    messages: list[Message] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)


class _ShoeRanOut(Exception):
    """The shoe is empty and the coup wants more: 000 rule 24 cancels it."""


class _Croupier:
    def __init__(self, profile: HouseProfile, rng: random.Random, packs_arg: int | None) -> None:
        self.profile = profile
        self.rng = rng
        self.packs_arg = packs_arg
        self.punto_banco = profile.game == Game.PUNTO_BANCO
        behind = profile.cut_cards_behind
        self.cut_behind = DEFAULT_CUT_CARDS_BEHIND if behind is None else behind
        self.messages: list[Message] = []
        self.results: list[dict[str, Any]] = []
        self.uptime = 0
        # per shoe
        self.stack: list[str] = []
        self.cut_out = False

    # -- the shoe --------------------------------------------------------------------------

    def emit(self, message: Message) -> None:
        self.messages.append(message)

    def more(self) -> None:
        """The coup goes on (a card or a choice is due): only if the shoe has a card left."""
        if not self.stack:
            raise _ShoeRanOut

    def draw(self) -> str:
        self.more()
        code = self.stack.pop()
        self.emit(Card(code, "D"))
        self._after_card_left()
        return code

    def _after_card_left(self) -> None:
        left = len(self.stack)
        if not self.cut_out and left == self.cut_behind:
            self.cut_out = True
            self.emit(Cut())
        if left == 0:
            self.emit(Empty())

    def tick(self, seconds: int) -> None:
        self.uptime += seconds

    # -- a shoe ----------------------------------------------------------------------------

    def shoe(self, shoe_number: int) -> None:
        packs = self.profile.packs
        self.emit(Button("SHOE", str(self.packs_arg)) if self.packs_arg is not None
                  else Button("SHOE"))
        self.tick(self.rng.randint(60, 180))  # shuffling, cutting, loading
        stack = list(ALL_CODES) * packs
        self.rng.shuffle(stack)
        self.stack = stack  # dealt from the end: stack.pop()
        self.cut_out = False
        if len(self.stack) <= self.cut_behind:  # degenerate: the cut card lies on top
            self.cut_out = True
            self.emit(Cut())
        coup_number = 0
        while True:
            last = self.cut_out
            if coup_number and self.rng.random() < HEARTBEAT_CHANCE:
                self.emit(Heartbeat(self.uptime))
            coup_number += 1
            self.coup(shoe_number, coup_number, last)
            self.tick(self.rng.randint(25, 90))
            if last:
                break

    # -- a coup ----------------------------------------------------------------------------

    def coup(self, shoe_number: int, coup_number: int, last: bool) -> None:
        profile, rng = self.profile, self.rng
        self.emit(Button("DEAL"))
        bound_p = not profile.punter_free
        bound_b = not profile.banker_free
        if self.punto_banco:
            bound_p = bound_b = True
        else:
            if not bound_p and rng.random() < TABLE_CHANCE:
                self.emit(Button("TABLE", "P"))
                bound_p = True
            if not bound_b and rng.random() < TABLE_CHANCE:
                self.emit(Button("TABLE", "B"))
                bound_b = True

        punter: list[str] = []
        banker: list[str] = []
        outcome: str | None = None
        irregularities: list[str] = []
        try:
            punter.append(self.draw())
            banker.append(self.draw())
            punter.append(self.draw())
            banker.append(self.draw())
            if total(punter) < 8 and total(banker) < 8:
                self._punter_plays(punter, bound_p)
                self._banker_plays(banker, punter, bound_b)
        except _ShoeRanOut:
            # 000 rule 24: "the coup is cancelled without loss to either side".
            outcome = "cancelled"
            irregularities.append(Code.SHORT_LAST_COUP.value)
        self.results.append(self._result(shoe_number, coup_number, punter, banker, last,
                                         outcome, irregularities))

    def _punter_plays(self, punter: list[str], bound: bool) -> None:
        ruling = self.profile.punter_ruling(total(punter), bound).play
        if ruling != Play.STAND:
            self.more()
        if ruling == Play.DRAW:
            punter.append(self.draw())
        elif ruling == Play.OPTION:
            if self.punto_banco:
                raise ValueError(f"{self.profile.name}: a Punto Banco rule left an option")
            if self.rng.random() < OPTION_DRAW_CHANCE:
                self.emit(Button("CARTE"))
                punter.append(self.draw())
            else:
                self.emit(Button("RESTE"))

    def _banker_plays(self, banker: list[str], punter: list[str], bound: bool) -> None:
        third = points(punter[2]) if len(punter) == 3 else None
        ruling = self.profile.banker_ruling(total(banker), third).play
        if not bound or ruling != Play.STAND:
            self.more()
        if not bound:
            takes = self.rng.random() < FREE_BANKER_DRAW_CHANCE[ruling]
        elif ruling == Play.OPTION:
            if self.punto_banco:
                raise ValueError(f"{self.profile.name}: a Punto Banco rule left an option")
            takes = self.rng.random() < OPTION_DRAW_CHANCE
        else:
            if ruling == Play.DRAW:
                banker.append(self.draw())
            return  # bound to stand: nothing more comes
        if takes:
            banker.append(self.draw())
        else:
            self.emit(Button("STAND"))

    def _result(self, shoe_number: int, coup_number: int, punter: list[str],
                banker: list[str], last: bool, outcome: str | None,
                irregularities: list[str]) -> dict[str, Any]:
        if outcome is None:
            p, b = total(punter), total(banker)
            outcome = "punter" if p > b else "banker" if b > p else "egalite"
        result: dict[str, Any] = {
            "event": "coup.result",
            "shoe": shoe_number,
            "coup": coup_number,
            "profile": self.profile.name,
            "outcome": outcome,
            "punter": _hand(punter),
            "banker": _hand(banker),
            "last_coup": last,
            "irregularities": list(irregularities),
        }
        if self.profile.swiss_nine:
            result["swiss_nine"] = list(swiss_nine(tuple(banker[:2]))) if len(banker) >= 2 else []
        return result


def _hand(codes: list[str]) -> dict[str, Any]:
    natural = len(codes) >= 2 and total(codes[:2]) >= 8
    return {"cards": list(codes), "total": total(codes), "natural": natural}


def boot_id_for(seed: int) -> str:
    """The simulated shoe's boot id: 8 hex digits, from the seed alone."""
    return f"{random.Random(seed).getrandbits(32):08x}"


def deal_shoes(profile_name: str, shoes: int, seed: int, packs: int | None = None,
               shoe_number_start: int = 1) -> Session:
    """Deal `shoes` whole shoes under the named house profile.

    `packs` overrides the profile's number of packs and is announced on `BTN,SHOE,<packs>`.
    The session opens with the shoe's `HELLO`; shoes are numbered from `shoe_number_start`.
    """
    if shoes < 0:
        raise ValueError("shoes must not be negative")
    profile = get_profile(profile_name, packs)
    rng = random.Random(seed)
    croupier = _Croupier(profile, rng, packs)
    croupier.emit(Hello(1, MODEL, SERIAL, FIRMWARE, f"{rng.getrandbits(32):08x}"))
    for n in range(shoes):
        croupier.shoe(shoe_number_start + n)
    return Session(messages=croupier.messages, results=croupier.results)
