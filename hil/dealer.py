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

Game faults (`GameFaults`, off by default) make the croupier and the shoe go wrong the way
docs/coup-machine.md handles it, and the ground truth follows the coup machine exactly: each
coup's `irregularities` lists the codes raised while it was open, before its result; one
raised after a result is published (an extra card's WRONG_NUMBER) is in no list.

- `face_up` (per coup): one card comes out face up (`CARD,<code>,U`). Where the house voids
  it (001) it is not in the hand and the next card takes its place; elsewhere it stays valid
  (exposed). One per coup at most, so never both punter cards (000 rule 8).
- `unreadable` (per coup): a card comes as `CARD,??,D`, then `BTN,ENTER,<code>`.
- `wrong_order` (per coup): one of the first four cards carries the wrong `dest`, then
  `BTN,OK` puts it in its place.
- `extra_card` (per coup): after a natural (not the shoe's last coup, not near the cut card)
  one more card comes face down before the next `DEAL`: WRONG_NUMBER after the result, and
  the card is the next coup's first (000 rule 13).
- `jam` (per coup): `FAULT,JAM,ON` ... `FAULT,JAM,OFF` between two coups; no effect on play.
- `foreign_card` (per shoe): one extra copy of a card is slipped into the shoe; when the copy
  the packs cannot hold comes out, `BTN,KEY,<badge>` and `BTN,OK` take it out of play and the
  next card takes its place. The copies all lie well above the cut card, so the foreign card
  never counts toward the cards left when the cut card or the end of the shoe comes.
- `short_last_coup` (per shoe): either the cut card is placed with only 2 cards behind it
  (CUT_CARD_MISPLACED, in the list of the coup open when it came out, and a last coup that
  runs out), or the empty sensor reports `EMPTY` early inside the last coup (a card stuck
  in the shoe); either way the coup is cancelled with SHORT_LAST_COUP (000 rule 24).
- `false_shuffle` (a fraction, every shoe after the first): the shoe is not shuffled but
  keeps that fraction of the previous shoe's order (as its cards left the shoe, those never
  dealt included) in slugs of 4 to 8 cards, the rest shuffled around them
  (hil/stacking.py): what the daemon's shuffle check must catch (docs/odds.md).
- `stacked` (per shoe): the shoe is prearranged so that its coups come in streaks, one side
  winning 6 to 12 coups in a row, then the other (hil/stacking.py; arranged for the house's
  table with every option drawn, so a Chemin de Fer croupier who stands at an option may
  break a streak): what the daemon's outcome tests must catch.
The game's outcomes are still what the cards give: the truth stays the coup machine's.

Faults draw on their own random generator (seeded from `seed`), so `faults=None` deals
exactly the session it always dealt.

Banco solo (`banco_solo`, a chance per coup, off by default; protocol 1.1): one punter alone
against the bank, where "können beide nach Belieben eine dritte Karte ... ziehen" (003). The
croupier presses `FREE` for each side the house binds by default, before the `DEAL` (for
the coup to come) or right after it; the punter then mostly plays his printed rule but
sometimes goes against it (`CARTE` with 6 or 7, `RESTE` with 0 to 4), and the banker draws
or stands as he likes. Free choices are no faux tirage: those coups carry no irregularity.
Off, nothing of it is drawn, so the seeded sessions stay what they were.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any

from drivers.messages import Button, Card, Cut, Empty, Fault, Heartbeat, Hello, Message
from hil.stacking import false_shuffle, prearranged, streaks
from shoe_daemon.game.cards import ALL_CODES, CARDS_PER_PACK, points, total
from shoe_daemon.game.houses import get_profile
from shoe_daemon.game.irregularities import Code
from shoe_daemon.game.rules import FaceUp, Game, HouseProfile, Play, swiss_nine

MODEL = "SIM-SHOE"
SERIAL = "SIM0001"
FIRMWARE = "0.1.0"
DEFAULT_CUT_CARDS_BEHIND = 7  # 000: "counts off seven cards from the bottom of the pack"

TABLE_CHANCE = 0.10  # a side free by default plays after the shoe ("TABLE") this often
HEARTBEAT_CHANCE = 0.25  # a heartbeat between two coups this often
OPTION_DRAW_CHANCE = 0.5  # CARTE rather than RESTE, a card rather than STAND, in an option
# A free banker (every case his choice) mostly plays as the table would advise him.
FREE_BANKER_DRAW_CHANCE = {Play.DRAW: 0.85, Play.OPTION: 0.5, Play.STAND: 0.15}

BANCO_SOLO_BEFORE_DEAL = 0.5  # FREE pressed between coups, for the next, rather than after DEAL
AGAINST_RULE_CHANCE = 0.25  # a banco-solo punter goes against his printed rule this often

SHORT_CUT_CARDS_BEHIND = 2  # short_last_coup: the cut card misplaced this near the bottom
FOREIGN_CLEARANCE = 16  # every copy of the foreign card lies at least this far from the bottom
SUPERVISOR_BADGES = ("4711", "S-0815", "PIT-2")
_CARD_FAULTS = ("face_up", "unreadable", "wrong_order")


@dataclass
class GameFaults:
    """Dealing errors to inject, as probabilities (0 to 1).

    Per coup: `face_up`, `unreadable`, `wrong_order`, `extra_card`, `jam`.
    Per shoe: `foreign_card`, `short_last_coup`, `stacked`; `false_shuffle` is the fraction
    of the previous shoe a shoe keeps in slugs.
    `one_per_coup`: at most one of the card faults (face_up, unreadable, wrong_order) in a
    coup; False lets several fall on different cards of the same coup.
    """

    face_up: float = 0
    unreadable: float = 0
    wrong_order: float = 0
    extra_card: float = 0
    jam: float = 0
    foreign_card: float = 0
    short_last_coup: float = 0
    false_shuffle: float = 0
    stacked: float = 0
    one_per_coup: bool = True

    def __post_init__(self) -> None:
        for name in self.names():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise ValueError(f"GameFaults.{name} must lie between 0 and 1, not {value!r}")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The probability fields, in order."""
        return tuple(f.name for f in fields(cls) if f.name != "one_per_coup")

    @classmethod
    def all(cls, per_coup: float = 0.05, per_shoe: float = 0.5,
            one_per_coup: bool = True) -> GameFaults:
        """Every fault: the per-coup ones at `per_coup`, the per-shoe ones at `per_shoe`."""
        return cls(face_up=per_coup, unreadable=per_coup, wrong_order=per_coup,
                   extra_card=per_coup, jam=per_coup, foreign_card=per_shoe,
                   short_last_coup=per_shoe, one_per_coup=one_per_coup)

    def __bool__(self) -> bool:
        return any(getattr(self, name) for name in self.names())


@dataclass
class Session:
    """What a simulated shoe sends, and what the daemon must make of it."""

    messages: list[Message] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)


class _ShoeRanOut(Exception):
    """The shoe is empty and the coup wants more: 000 rule 24 cancels it."""


class _Croupier:
    def __init__(self, profile: HouseProfile, rng: random.Random, packs_arg: int | None,
                 faults: GameFaults | None = None, fault_rng: random.Random | None = None,
                 banco_solo: float = 0, solo_rng: random.Random | None = None) -> None:
        self.profile = profile
        self.rng = rng
        self.packs_arg = packs_arg
        self.punto_banco = profile.game == Game.PUNTO_BANCO
        behind = profile.cut_cards_behind
        self.cut_behind = DEFAULT_CUT_CARDS_BEHIND if behind is None else behind
        self.faults = faults if faults else None
        self.frng = fault_rng or random.Random()
        self.banco_solo = 0 if self.punto_banco else banco_solo
        self.srng = solo_rng or random.Random()
        self.messages: list[Message] = []
        self.results: list[dict[str, Any]] = []
        self.uptime = 0
        # per shoe
        self.stack: list[str] = []
        self.cut_out = False
        self.cut_now = self.cut_behind  # where the cut card lies in this shoe
        self.left = 0  # cards left as the host counts them (a foreign card excepted)
        self.copies: Counter[str] = Counter()
        self.carried: str | None = None  # 000 rule 13: an extra card kept for the next deal
        self.dealt: list[str] = []  # the cards out of the shoe in play, in order
        self.previous: list[str] = []  # the last shoe's order, for a false shuffle
        self.empty_after: int | None = None  # short_last_coup: EMPTY after this many cards
        # per coup
        self.irregularities: list[str] = []
        self.placed = 0  # cards placed in the coup's hands
        self.plan: dict[int, str] = {}  # placed-card index -> card fault
        self.in_last_coup = False
        self.pending_cut = False  # a misplaced cut card came out; the coup may be over

    # -- the shoe --------------------------------------------------------------------------

    def emit(self, message: Message) -> None:
        self.messages.append(message)

    def more(self) -> None:
        """The coup goes on (a card or a choice is due): only if the shoe has a card left."""
        if not self.stack:
            # The host cancelled the coup as the last card was placed, before any cut card.
            self.pending_cut = False
            raise _ShoeRanOut
        self._flush_cut()
        if self.in_last_coup and self.empty_after is not None and self.placed >= self.empty_after:
            self.empty_after = None
            self.emit(Empty())  # the empty sensor, early: 000 rule 24 all the same
            raise _ShoeRanOut

    def _flush_cut(self) -> None:
        """The coup is still open after the card the cut card followed: it is in its list."""
        if self.pending_cut:
            self.pending_cut = False
            self.irregularities.append(Code.CUT_CARD_MISPLACED.value)

    def draw(self, side: str = "P") -> str:
        """The next card placed in the coup, for `side` (used by a wrong-order fault)."""
        slot = self.placed
        self.placed += 1
        if slot == 0 and self.carried is not None:
            code, self.carried = self.carried, None  # routed by the host at DEAL
            return code
        fault = self.plan.pop(slot, None)
        while True:
            self.more()
            code = self.stack.pop()
            self.dealt.append(code)
            self.copies[code] += 1
            if self.copies[code] > self.profile.packs:
                # One copy more than the packs hold: a supervisor takes it out of play.
                self.copies[code] -= 1
                self.emit(Card(code, "D"))
                self.emit(Button("KEY", self.frng.choice(SUPERVISOR_BADGES)))
                self.emit(Button("OK"))
                self.irregularities.append(Code.FOREIGN_CARD.value)
                continue
            self.left -= 1
            if fault == "face_up":
                self.emit(Card(code, "U"))
                self.irregularities.append(Code.FACE_UP_IN_SHOE.value)
                if self.profile.face_up is FaceUp.VOID:
                    # 001: null and void; the next card takes its place.
                    fault = None
                    self._after_card_left()
                    continue
            elif fault == "unreadable":
                self.emit(Card("??", "D"))
                self.emit(Button("ENTER", code))
                self.irregularities.append(Code.UNREADABLE_CARD.value)
            elif fault == "wrong_order":
                self.emit(Card(code, "D", "B" if side == "P" else "P"))
                self.emit(Button("OK"))
                self.irregularities.append(Code.WRONG_ORDER.value)
            else:
                self.emit(Card(code, "D"))
            self._after_card_left()
            return code

    def _after_card_left(self) -> None:
        left = self.left
        if not self.cut_out and left == self.cut_now:
            self.cut_out = True
            self.emit(Cut())
            if self._cut_misplaced(left):
                self.pending_cut = True
        if not self.stack:
            self.emit(Empty())

    def _cut_misplaced(self, left: int) -> bool:
        """As the coup machine judges the cut card (`CoupMachine._on_cut`)."""
        expected = self.profile.cut_cards_behind
        return left != expected if expected is not None else left < 6

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
        self.stack = self._unfair(stack, packs)  # dealt from the end: stack.pop()
        self.dealt = []
        self.cut_out = False
        self.cut_now = self.cut_behind
        self.left = packs * CARDS_PER_PACK
        self.copies = Counter()
        self.carried = None
        self.empty_after = None
        faults = self.faults
        if faults is not None:
            if faults.foreign_card and self.frng.random() < faults.foreign_card:
                self._slip_in_a_foreign_card()
            if faults.short_last_coup and self.frng.random() < faults.short_last_coup:
                if self.frng.random() < 0.5 and self.left > SHORT_CUT_CARDS_BEHIND:
                    self.cut_now = SHORT_CUT_CARDS_BEHIND
                else:
                    self.empty_after = self.frng.randint(1, 3)
        if self.left <= self.cut_now:  # degenerate: the cut card lies on top
            self.cut_out = True
            self.emit(Cut())
        coup_number = 0
        while True:
            last = self.cut_out
            if coup_number and self.rng.random() < HEARTBEAT_CHANCE:
                self.emit(Heartbeat(self.uptime))
            if coup_number and faults is not None and faults.jam \
                    and self.frng.random() < faults.jam:
                self.emit(Fault("JAM", True))
                self.tick(self.frng.randint(5, 30))
                self.emit(Heartbeat(self.uptime))
                self.emit(Fault("JAM", False))
            coup_number += 1
            result = self.coup(shoe_number, coup_number, last)
            self.tick(self.rng.randint(25, 90))
            if last or not self.stack:
                break
            if faults is not None and faults.extra_card:
                self._maybe_extra_card(result, faults.extra_card)
        self.pending_cut = False
        self.shoe_done()

    def _unfair(self, stack: list[str], packs: int) -> list[str]:
        """The integrity faults: a false shuffle of the last shoe, or a prearranged shoe."""
        faults, previous = self.faults, self.previous
        self.previous = []
        if faults is None:
            return stack
        if faults.false_shuffle and previous:
            return false_shuffle(previous, faults.false_shuffle, self.frng)[::-1]
        if faults.stacked and self.frng.random() < faults.stacked:
            order = prearranged(self.profile, packs, self.frng, streaks(self.frng),
                                keep=self.cut_behind + 6)
            return order[::-1]
        return stack

    def shoe_done(self) -> None:
        """The shoe's whole order, as its cards left it, those never dealt after them (a
        foreign copy left out): what a false shuffle of its discards keeps slugs of."""
        order = self.dealt + self.stack[::-1]
        copies: Counter[str] = Counter()
        self.previous = []
        for code in order:
            copies[code] += 1
            if copies[code] <= self.profile.packs:
                self.previous.append(code)

    def _slip_in_a_foreign_card(self) -> None:
        """One copy more of a card whose copies all lie well above the cut card."""
        lowest: dict[str, int] = {}
        for index, code in enumerate(self.stack):
            lowest.setdefault(code, index)
        candidates = sorted(c for c, i in lowest.items() if i >= FOREIGN_CLEARANCE)
        if not candidates:
            return
        code = self.frng.choice(candidates)
        self.stack.insert(self.frng.randint(FOREIGN_CLEARANCE, len(self.stack)), code)

    def _maybe_extra_card(self, result: dict[str, Any], chance: float) -> None:
        """000 rule 13: one card too many after a natural, kept for the next deal."""
        natural = result["punter"]["natural"] or result["banker"]["natural"]
        if not natural or result["outcome"] == "cancelled" or self.cut_out:
            return
        if self.left - 1 <= self.cut_now or self.frng.random() >= chance:
            return
        code = self.stack[-1]
        if self.copies[code] + 1 > self.profile.packs:
            return  # that would be the foreign card: not here
        self.dealt.append(self.stack.pop())
        self.copies[code] += 1
        self.left -= 1
        self.emit(Card(code, "D"))
        self.carried = code

    # -- a coup ----------------------------------------------------------------------------

    def _plan(self) -> dict[int, str]:
        faults = self.faults
        if faults is None:
            return {}
        kinds = [k for k in _CARD_FAULTS
                 if getattr(faults, k) and self.frng.random() < getattr(faults, k)]
        if faults.one_per_coup and len(kinds) > 1:
            kinds = [self.frng.choice(kinds)]
        plan: dict[int, str] = {}
        for kind in kinds:
            # The first four cards always come; a third card only if a side draws.
            slot = self.frng.randrange(4 if kind == "wrong_order" else 6)
            plan.setdefault(slot, kind)
        return plan

    def coup(self, shoe_number: int, coup_number: int, last: bool) -> dict[str, Any]:
        profile, rng = self.profile, self.rng
        self.irregularities = []
        self.placed = 0
        self.plan = self._plan()
        self.in_last_coup = last
        bound_p = not profile.punter_free
        bound_b = not profile.banker_free
        solo = bool(self.banco_solo) and self.srng.random() < self.banco_solo
        # 003 banco solo: FREE for each side bound by default, for the coup to come or in it.
        frees = [Button("FREE", side) for side, bound in (("P", bound_p), ("B", bound_b))
                 if solo and bound]
        before = solo and self.srng.random() < BANCO_SOLO_BEFORE_DEAL
        self.messages.extend(frees if before else [])
        self.emit(Button("DEAL"))
        self.messages.extend([] if before else frees)
        if self.punto_banco:
            bound_p = bound_b = True
        elif solo:
            bound_p = bound_b = False
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
        try:
            punter.append(self.draw("P"))
            banker.append(self.draw("B"))
            punter.append(self.draw("P"))
            banker.append(self.draw("B"))
            if total(punter) < 8 and total(banker) < 8:
                self._punter_plays(punter, bound_p, solo)
                self._banker_plays(banker, punter, bound_b)
        except _ShoeRanOut:
            # 000 rule 24: "the coup is cancelled without loss to either side".
            outcome = "cancelled"
            self.irregularities.append(Code.SHORT_LAST_COUP.value)
        # A misplaced cut card after the deciding card is judged after the result: no list.
        self.pending_cut = False
        self.plan = {}
        result = self._result(shoe_number, coup_number, punter, banker, last, outcome,
                              self.irregularities)
        self.results.append(result)
        return result

    def _punter_plays(self, punter: list[str], bound: bool, solo: bool = False) -> None:
        ruling = self.profile.punter_ruling(total(punter), bound).play
        if solo and ruling != Play.OPTION and self.srng.random() < AGAINST_RULE_CHANCE:
            # 003 "nach Belieben": his own call against his printed rule; the coup goes on
            # either way (the free banker's choice is due), so the shoe must hold a card.
            self.more()
            if ruling == Play.STAND:
                self.emit(Button("CARTE"))
                punter.append(self.draw("P"))
            else:
                self.emit(Button("RESTE"))
            return
        if ruling != Play.STAND:
            self.more()
        if ruling == Play.DRAW:
            punter.append(self.draw("P"))
        elif ruling == Play.OPTION:
            if self.punto_banco:
                raise ValueError(f"{self.profile.name}: a Punto Banco rule left an option")
            if self.rng.random() < OPTION_DRAW_CHANCE:
                self.emit(Button("CARTE"))
                punter.append(self.draw("P"))
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
                banker.append(self.draw("B"))
            return  # bound to stand: nothing more comes
        if takes:
            banker.append(self.draw("B"))
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


def fault_rng_for(seed: int) -> random.Random:
    """The game faults' own generator: faults never change the croupier's other choices."""
    return random.Random(f"hil.dealer faults {seed}")


def solo_rng_for(seed: int) -> random.Random:
    """Banco solo's own generator: off, it draws nothing from the croupier's."""
    return random.Random(f"hil.dealer banco solo {seed}")


def deal_shoes(profile_name: str, shoes: int, seed: int, packs: int | None = None,
               shoe_number_start: int = 1, faults: GameFaults | None = None,
               banco_solo: float = 0) -> Session:
    """Deal `shoes` whole shoes under the named house profile.

    `packs` overrides the profile's number of packs and is announced on `BTN,SHOE,<packs>`.
    The session opens with the shoe's `HELLO`; shoes are numbered from `shoe_number_start`.
    `faults` injects dealing errors (see `GameFaults`); the results say what the host's coup
    machine makes of them. `banco_solo` is the chance that a coup is played banco solo, both
    sides free (`BTN,FREE`, protocol 1.1; 003); 0 deals no `FREE`.
    """
    if shoes < 0:
        raise ValueError("shoes must not be negative")
    if isinstance(banco_solo, bool) or not 0 <= banco_solo <= 1:
        raise ValueError(f"banco_solo must lie between 0 and 1, not {banco_solo!r}")
    profile = get_profile(profile_name, packs)
    rng = random.Random(seed)
    croupier = _Croupier(profile, rng, packs, faults, fault_rng_for(seed), banco_solo,
                         solo_rng_for(seed))
    croupier.emit(Hello(1, MODEL, SERIAL, FIRMWARE, f"{rng.getrandbits(32):08x}"))
    for n in range(shoes):
        croupier.shoe(shoe_number_start + n)
    return Session(messages=croupier.messages, results=croupier.results)
