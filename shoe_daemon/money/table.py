"""The table's money: the seating, the bank and the betting round, driven by actions.

`TableMoney` is immutable and pure: `apply(op)` takes one action as a plain dict (what the
console's API receives and its ledger record keeps, amounts as strings) and returns the next
table and the records it made, in order, or raises a `Refusal` (nothing changed). Playing
the same actions again from the same start gives the same records, which is how the daemon
rebuilds the table's money after a restart, how `replay --console` reproduces a session,
and how `audit verify` checks the money (`shoe_daemon.money.verify`).

| op | fields | what |
| --- | --- | --- |
| `sit`, `leave` | `seat` | a player sits down at, or leaves, a place (Chemin de fer) |
| `take_bank` | `who`, `amount` ("open": 000), `partner`, `partner_amount` | the bank put up |
| `decline_bank` | `who` | the player in turn (or offered the bank) does not take it |
| `accept_offer` | `who` | the player offered the bank takes it at its last sum (001, 003) |
| `to_auction` | | nobody standing takes the offer either (001) |
| `bid` | `who`, `amount` | a bid at the auction |
| `award` | | the auction closes |
| `suite` | | the banker gives up the bank |
| `schokolade` | | 003: the uncovered part of the bank set aside |
| `garage` | `amount` | 004: chips taken out of the bank |
| `banco` | `who`, `kind`, `amount` (banco with the table) | a banco form |
| `share` | `who`, `of`, `amount` | a shareholder in a banco (000 II, 003) |
| `stake` | `who`, `amount`, `over_line`, `box` | a stake in the general game or an outsider's |
| `bet` | `box`, `bet`, `amount` | Punto Banco: a box's bet |
| `withdraw` | `stake` | a stake or bet taken back before closing |
| `close` | `shoe`, `coup` | "Rien ne va plus": the shoe's `BTN,DEAL` for that coup |
| `settle` | `result` | the published `coup.result` line of the closed coup |
| `new_shoe` | `shoe` | the shoe's `BTN,SHOE` |

`settle` takes `schokolade: "asked"` when it plays again a settlement recorded so (a table
configured `schokolade = "asked"`, or a ledger written before issue 20), and `take_bank`
takes `before_issue_20: true` for a bank taken before the players were counted at it
(legacy.py).

A supervisor's (the console says who may: the money refuses by the rules only):

| op | fields | what |
| --- | --- | --- |
| `limits` | `by`, `reason`, `source`, the limits changed | the table's limits changed mid-session |
| `correct` | `by`, `reason`, `amount`, `stake` (or a new one's) | a stake corrected after closing |
| `reopen` | `by`, `reason`, `how` (`void`, `rules`) | the last settlement reopened and corrected |
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from shoe_daemon.game.rules import Game
from shoe_daemon.money.amounts import ZERO, AmountError, add
from shoe_daemon.money.bank import Bank, Phase
from shoe_daemon.money.chemin_de_fer import settle as settle_chemin_de_fer
from shoe_daemon.money.chemin_de_fer import unbanked
from shoe_daemon.money.legacy import EARLIER, current_form
from shoe_daemon.money.limits import (
    ASKED,
    CHEMIN_DE_FER_KEYS,
    PUNTO_BANCO_KEYS,
    SET_ASIDE,
    LimitsError,
    TableLimits,
    table_limits,
)
from shoe_daemon.money.players import Player, Seating
from shoe_daemon.money.profile import Bet, Kind, MoneyProfile
from shoe_daemon.money.punto_banco import BetRound, BoxBet
from shoe_daemon.money.punto_banco import settle as settle_punto_banco
from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.round import Round
from shoe_daemon.money.settlement import Result, Settlement
from shoe_daemon.money.snapshot import bets_of, bets_state, round_of, round_state
from shoe_daemon.money.stakes import BANCO_FORMS, RecordError, StakeKind

Records = list[dict[str, Any]]
API = "the money actions (docs/money.md, \"Actions\")"

#: Each op's required and optional fields.
OPS: Mapping[str, tuple[frozenset[str], frozenset[str]]] = {
    "sit": (frozenset({"seat"}), frozenset()),
    "leave": (frozenset({"seat"}), frozenset()),
    "take_bank": (frozenset({"who", "amount"}),
                  frozenset({"partner", "partner_amount", EARLIER})),
    "decline_bank": (frozenset({"who"}), frozenset()),
    "accept_offer": (frozenset({"who"}), frozenset()),
    "to_auction": (frozenset(), frozenset()),
    "bid": (frozenset({"who", "amount"}), frozenset()),
    "award": (frozenset(), frozenset()),
    "suite": (frozenset(), frozenset()),
    "schokolade": (frozenset(), frozenset()),
    "garage": (frozenset({"amount"}), frozenset()),
    "banco": (frozenset({"who", "kind"}), frozenset({"amount"})),
    "share": (frozenset({"who", "of", "amount"}), frozenset()),
    "stake": (frozenset({"who", "amount"}), frozenset({"over_line", "box"})),
    "bet": (frozenset({"box", "bet", "amount"}), frozenset()),
    "withdraw": (frozenset({"stake"}), frozenset()),
    "close": (frozenset({"shoe", "coup"}), frozenset()),
    "settle": (frozenset({"result"}), frozenset({"schokolade"})),
    "new_shoe": (frozenset({"shoe"}), frozenset()),
    "limits": (frozenset({"by", "reason"}),
               frozenset({"source", *CHEMIN_DE_FER_KEYS, *PUNTO_BANCO_KEYS})),
    "correct": (frozenset({"amount", "by", "reason"}),
                frozenset({"stake", "who", "kind", "over_line", "box", "bet"})),
    "reopen": (frozenset({"how", "by", "reason"}), frozenset()),
}
#: The limits a supervisor may change mid-session, by game (the chip, the commission and the
#: places are the table's make-up, not a limit: the configuration's).
LIMIT_KEYS = {Game.CHEMIN_DE_FER: ("min_stake", "max_stake", "min_bank", "max_bank"),
              Game.PUNTO_BANCO: ("min_stake", "max_stake", "nine_min_stake", "nine_max_stake")}
#: The ops after which the last settlement may still be reopened: nothing was staked or
#: changed at the bank since.
KEEPS_LAST = frozenset({"settle", "new_shoe", "reopen", "limits"})
REOPEN = ("void", "rules")
CHEMIN_DE_FER_ONLY = frozenset({"sit", "leave", "take_bank", "decline_bank", "accept_offer",
                                "to_auction", "bid", "award", "suite", "schokolade", "garage",
                                "banco", "share", "stake"})


def bad(reason: str) -> Refusal:
    return Refusal("bad_request", reason, API)


@dataclass(frozen=True)
class Settled:
    """The last coup settled, as a supervisor may reopen it: its closed round and result,
    its settlement as recorded, and what the settlement changed (the bank, carried bets)."""

    round: Round | BetRound
    result: Mapping[str, Any]  # the coup.result line
    recorded: Mapping[str, Any]  # the money.settlement as recorded (a correction's after it)
    bank: Bank | None  # Chemin de fer: the bank before the settlement
    carried: tuple[BoxBet, ...] = ()  # Punto Banco: the bets carried into the round before it

    @property
    def where(self) -> tuple[int, int]:
        assert self.round.closed is not None
        return self.round.closed


@dataclass(frozen=True)
class TableMoney:
    profile: MoneyProfile
    limits: TableLimits
    seating: Seating | None = None  # Chemin de fer
    bank: Bank | None = None  # Chemin de fer
    round: Round | BetRound | None = None
    unbanked: tuple[int, int] | None = None  # a coup dealt while nobody held the bank
    carried: tuple[BoxBet, ...] = ()  # Punto Banco: bets staying from an égalité
    shoe: int | None = None
    pre_close: Round | BetRound | None = None  # the round as betting closed: a correction
    last: Settled | None = None  # the last settlement, while it may be reopened
    configured: TableLimits | None = None  # the configuration's limits last applied

    @classmethod
    def start(cls, profile: MoneyProfile, limits: TableLimits, occupied: Iterable[int] = ()
              ) -> TableMoney:
        """A table's money at the start: nobody banks yet (Chemin de fer)."""
        if profile.game is Game.PUNTO_BANCO:
            return cls(profile, limits, configured=limits)
        return cls(profile, limits, Seating.of(limits.places, occupied), Bank(profile, limits),
                   configured=limits)

    @property
    def cdf(self) -> bool:
        return self.profile.game is Game.CHEMIN_DE_FER

    def apply(self, op: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        """One action; the records it made, or a Refusal with the table unchanged."""
        name, fields = _parse(op)
        if name in CHEMIN_DE_FER_ONLY and not self.cdf:
            raise Refusal("not_offered", f"{name}: the casino holds the bank at Punto Banco",
                          self.profile.min_bank.source)
        if name == "bet" and self.cdf:
            raise Refusal("not_offered", "bets on boxes are Punto Banco's: stake or banco",
                          self.profile.min_stake.source)
        handler = getattr(self, f"_op_{name}")
        table, records = handler(fields)
        if name not in KEEPS_LAST and table.last is not None:
            table = dataclasses.replace(table, last=None)
        return table, records

    # --- seating (Chemin de fer) ------------------------------------------------------------------

    def _op_sit(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        place = self._place(f["seat"])
        assert self.seating is not None
        if place in self.seating.occupied:
            raise Refusal("seating", f"place {place} is taken", API)
        return self._seated(self.seating.occupied | {place}, place, "sit")

    def _op_leave(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        place = self._place(f["seat"])
        assert self.seating is not None and self.bank is not None
        if place not in self.seating.occupied:
            raise Refusal("seating", f"nobody is seated at place {place}", API)
        player = Player(seat=place)
        if self.bank.phase is Phase.HELD and player in (self.bank.holder, self.bank.partner):
            raise Refusal("seating", f"{player} holds the bank: it is given up first", API)
        if isinstance(self.round, Round) and any(s.who == player for s in self.round.stakes):
            raise Refusal("seating", f"{player} has a stake in the coup: it is withdrawn or "
                          "settled first", API)
        if self.round is not None and self.round.closed is not None:
            raise Refusal("seating", "the coup is dealt: a player leaves after its "
                          "settlement (where the bank passes counts him till then)", API)
        return self._seated(self.seating.occupied - {place}, place, "leave")

    def _seated(self, occupied: frozenset[int], place: int, what: str
                ) -> tuple[TableMoney, Records]:
        assert self.seating is not None
        seating = Seating(self.seating.places, occupied)
        current = self.round
        if isinstance(current, Round):
            current = dataclasses.replace(current, seating=seating)
        table = dataclasses.replace(self, seating=seating, round=current)
        return table, [{"event": "money.seating", "change": what, "seat": place,
                        "seating": seating.to_dict()}]

    def _place(self, value: Any) -> int:
        assert self.seating is not None
        if isinstance(value, bool) or not isinstance(value, int) or not (
                1 <= value <= self.seating.places):
            raise bad(f"a place is a number from 1 to {self.seating.places}, not {value!r}")
        return value

    # --- the bank (Chemin de fer) ---------------------------------------------------------------

    def _op_take_bank(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        assert self.bank is not None and self.seating is not None
        amount = None if f["amount"] == "open" else self._amount(f["amount"], "amount")
        partner = None if f.get("partner") is None else Player.parse(f["partner"])
        part = self._amount(f.get("partner_amount", "0"), "partner_amount")
        return self._banked(*self.bank.take(self.seating, Player.parse(f["who"]), amount,
                                            partner, part, counted=not _earlier(f)))

    def _op_decline_bank(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        assert self.bank is not None and self.seating is not None
        return self._banked(*self.bank.decline(self.seating, Player.parse(f["who"])))

    def _op_accept_offer(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        assert self.bank is not None and self.seating is not None
        return self._banked(*self.bank.accept(self.seating, Player.parse(f["who"])))

    def _op_to_auction(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        assert self.bank is not None
        return self._banked(*self.bank.to_auction())

    def _op_bid(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        assert self.bank is not None
        return self._banked(*self.bank.bid(Player.parse(f["who"]),
                                           self._amount(f["amount"], "amount")))

    def _op_award(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        assert self.bank is not None and self.seating is not None
        return self._banked(*self.bank.award(self.seating))

    def _op_suite(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        assert self.bank is not None and self.seating is not None
        assert self.profile.chemin_de_fer is not None
        self._not_dealt(self.profile.chemin_de_fer.suite_when.source)
        bank, record = self.bank.suite(self.seating)
        records: Records = []
        if isinstance(self.round, Round):
            currency = self.profile.currency.value
            records = [{"event": "money.withdrawn", "stake": s.id, "who": s.who.key,
                        "amount": currency.text(s.amount), "why": "the banker gave up the bank"}
                       for s in self.round.stakes]
        return dataclasses.replace(self, bank=bank, round=None), [*records, record]

    def _op_schokolade(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        """003: "kann der Bankhalter die entstehende Differenz zur Seite stellen lassen.
        Dieser Betrag, Schokolade genannt, gehört im nächsten Spiel nicht mehr zur
        Banksumme": asked for before the next coup is dealt, so while betting is open, stakes
        placed or not (issue 20). The stakes are then held against the smaller bank
        (`Round.within`): a banco, which plays the whole bank, is returned with its shares,
        and the other stakes stand in the order they were placed while the bank covers them
        (003: "Ist die Banksumme erreicht, können keine weiteren Spieler mehr setzen"); the
        rest are returned whole, to be staked again within what is left."""
        assert self.bank is not None and self.profile.chemin_de_fer is not None
        self._not_dealt(self.profile.chemin_de_fer.closing.source)
        bank, record = self.bank.schokolade()
        if not isinstance(self.round, Round) or not self.round.stakes:
            return dataclasses.replace(self, bank=bank, round=None), [record]
        current, records = dataclasses.replace(self.round, bank=bank.in_play()).within(
            "the Schokolade was set aside: the smaller bank does not cover it")
        return dataclasses.replace(self, bank=bank, round=current), [*records, record]

    def _op_garage(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        assert self.bank is not None
        self._no_stakes()
        return self._banked(*self.bank.garage(self._amount(f["amount"], "amount")))

    def _banked(self, bank: Bank, record: dict[str, Any]) -> tuple[TableMoney, Records]:
        """A change of the bank; a round with nothing staked is opened again against it."""
        current = None if not self.staked else self.round
        return dataclasses.replace(self, bank=bank, round=current), [record]

    def _not_dealt(self, rule: str) -> None:
        if self.round is not None and self.round.closed is not None:
            raise Refusal("after_close", "the cards of the coup are dealt: wait for its "
                          "settlement", rule)

    def _no_stakes(self) -> None:
        assert self.profile.chemin_de_fer is not None
        if self.staked:
            raise Refusal("not_now", "stakes are placed against the bank: the bank changes "
                          "only between coups", self.profile.chemin_de_fer.closing.source)

    # --- stakes and bets ------------------------------------------------------------------------

    def _op_banco(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        try:
            kind = Kind(f["kind"])
        except ValueError:
            raise bad(f"kind is one of banco_solo, banco, banco_with_table, not "
                      f"{f['kind']!r}") from None
        amount = None if f.get("amount") is None else self._amount(f["amount"], "amount")
        return self._staked(*self._betting().call_banco(Player.parse(f["who"]), kind, amount))

    def _op_share(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        return self._staked(*self._betting().add_share(
            Player.parse(f["who"]), Player.parse(f["of"]), self._amount(f["amount"], "amount")))

    def _op_stake(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        over = f.get("over_line", False)
        box = f.get("box")
        if not isinstance(over, bool):
            raise bad(f"over_line is true or false, not {over!r}")
        if box is not None and (isinstance(box, bool) or not isinstance(box, int)):
            raise bad(f"box is a place number, not {box!r}")
        return self._staked(*self._betting().add_stake(
            Player.parse(f["who"]), self._amount(f["amount"], "amount"), over, box))

    def _op_bet(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        try:
            bet = Bet(f["bet"])
        except ValueError:
            raise bad(f"bet is one of {', '.join(b.value for b in Bet)}, not "
                      f"{f['bet']!r}") from None
        current = self.round if isinstance(self.round, BetRound) else BetRound.opening(
            self.profile, self.limits, self.carried)
        return self._staked(*current.place(f["box"], bet, self._amount(f["amount"], "amount")))

    def _op_withdraw(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        if not isinstance(f["stake"], str):
            raise bad(f"stake is a stake's id, not {f['stake']!r}")
        current = self.round
        if current is None and not self.cdf:
            current = BetRound.opening(self.profile, self.limits, self.carried)
        if current is None:
            raise Refusal("no_such_stake", f"no stake {f['stake']!r}: nothing is staked", API)
        return self._staked(*current.withdraw(f["stake"]))

    def _betting(self) -> Round:
        if isinstance(self.round, Round):
            return self.round
        assert self.bank is not None and self.seating is not None
        return Round(self.profile, self.limits, self.seating, self.bank.in_play())

    def _staked(self, current: Round | BetRound, records: Records
                ) -> tuple[TableMoney, Records]:
        """The round goes on once anything was staked (its stakes keep their numbers)."""
        return dataclasses.replace(self, round=current), records

    @property
    def staked(self) -> bool:
        """Stakes are on the table against the bank (or the round is closed)."""
        current = self.round
        if current is None:
            return False
        live = current.stakes if isinstance(current, Round) else current.bets
        return bool(live) or current.closed is not None

    # --- the coup -------------------------------------------------------------------------------

    def _op_close(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        shoe, coup = f["shoe"], f["coup"]
        if self.unbanked is not None:
            raise Refusal("after_close", f"shoe {self.unbanked[0]} coup {self.unbanked[1]} is "
                          "dealt and not settled", API)
        if not self.cdf:
            current = self.round if isinstance(self.round, BetRound) else BetRound.opening(
                self.profile, self.limits, self.carried)
            closed, records = current.close(shoe, coup)
            return dataclasses.replace(self, round=closed, pre_close=current), records
        assert self.bank is not None
        if self.round is None and self.bank.phase is not Phase.HELD:
            for number in (shoe, coup):
                if isinstance(number, bool) or not isinstance(number, int) or number < 1:
                    raise bad(f"shoe and coup are numbers from 1, not {number!r}")
            return dataclasses.replace(self, unbanked=(shoe, coup)), [{
                "event": "money.round", "profile": self.profile.name, "shoe": shoe,
                "coup": coup, "currency": self.profile.currency.value.code, "bank": None,
                "stakes": []}]
        current = self._betting()
        closed, records = current.close(shoe, coup)
        assert closed.bank.amount is not None
        bank = self.bank.fixed(closed.bank.amount) if self.bank.amount is None else self.bank
        return dataclasses.replace(self, round=closed, bank=bank, pre_close=current), records

    def _op_settle(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        if not isinstance(f["result"], Mapping):
            raise bad("result is the coup.result line")
        asked = f.get("schokolade", SET_ASIDE)
        if asked not in (SET_ASIDE, ASKED):
            raise bad(f"schokolade is {SET_ASIDE!r} or {ASKED!r}, not {asked!r}")
        try:
            result = Result.of_line(f["result"])
        except RecordError as error:
            raise bad(str(error)) from None
        if self.unbanked == (result.shoe, result.coup):
            settlement = unbanked(self.profile, result)
            return dataclasses.replace(self, unbanked=None), [settlement.to_dict()]
        closed = self.round
        if closed is None or closed.closed != (result.shoe, result.coup):
            dealt = "none" if closed is None or closed.closed is None else str(closed.closed)
            raise Refusal("not_now", f"no closed round for shoe {result.shoe} coup "
                          f"{result.coup} (closed: {dealt})", API)
        try:
            if isinstance(closed, Round):
                settlement = settle_chemin_de_fer(
                    self.profile, closed, result,
                    schokolade_asked=ASKED in (asked, closed.limits.schokolade))
            else:
                settlement = settle_punto_banco(self.profile, closed, result)
        except RecordError as error:
            raise bad(str(error)) from None
        recorded = settlement.to_dict()
        if isinstance(closed, BetRound):
            stays = {line.stake for line in settlement.carried}
            carried = tuple(b for b in closed.bets if b.id in stays)
            last = Settled(closed, dict(f["result"]), recorded, None, self.carried)
            return dataclasses.replace(self, round=None, pre_close=None, carried=carried,
                                       last=last), [recorded]
        assert self.bank is not None and self.seating is not None
        bank, record = self.bank.settled(self.seating, settlement)
        last = Settled(closed, dict(f["result"]), recorded, self.bank)
        return dataclasses.replace(self, round=None, pre_close=None, bank=bank, last=last), [
            recorded, record]

    def _op_new_shoe(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        shoe = f["shoe"]
        if isinstance(shoe, bool) or not isinstance(shoe, int) or shoe < 1:
            raise bad(f"shoe is a number from 1, not {shoe!r}")
        if self.bank is None:
            table = dataclasses.replace(self, shoe=shoe)
            return table, [{"event": "money.shoe", "shoe": shoe}, table.snapshot()]
        bank, record = self.bank.new_shoe(shoe)
        table = dataclasses.replace(self, shoe=shoe, bank=bank)
        return table, [record, table.snapshot()]

    # --- a supervisor's ---------------------------------------------------------------------------

    def _op_limits(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        """The table's limits changed mid-session (001: "The Inspector has the right to change
        the minimum stake limits at any time, even during a game"): at once for the bank and
        the stakes entered from now on; stakes placed stand, and a coup already dealt keeps the
        limits it was dealt under (its round records them)."""
        source = f.get("source", "supervisor")
        if source not in ("supervisor", "configuration"):
            raise bad(f"source is supervisor or configuration, not {source!r}")
        configured = source == "configuration"  # the whole [money] table, as the file gives it
        keys = sorted(CHEMIN_DE_FER_KEYS if self.cdf else PUNTO_BANCO_KEYS) if configured \
            else LIMIT_KEYS[self.profile.game]
        changes = {k: v for k, v in f.items() if k not in ("by", "reason", "source")}
        wrong = sorted(set(changes) - set(keys))
        if wrong:
            raise bad(f"{wrong[0]} is not a limit a {source} changes at a {self.profile.game} "
                      f"table ({', '.join(keys)})")
        if not changes and not configured:
            raise bad(f"name the limits changed ({', '.join(keys)})")
        for key, value in changes.items():
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                raise bad(f"{key} is an amount as a string, or none for no maximum, not "
                          f"{value!r}")
        try:
            settings = changes if configured else {**settings_of(self.limits, self.cdf),
                                                   **changes}
            limits = table_limits(self.profile, settings)
        except LimitsError as error:
            raise Refusal("bad_request", str(error), self.profile.min_stake.source) from None
        if limits == self.limits and source == "supervisor":
            raise Refusal("not_now", "the table's limits are these already: nothing changes",
                          self.profile.min_stake.source)
        seating = self.seating
        if seating is not None and limits.places != seating.places:
            if any(place > limits.places for place in seating.occupied):
                raise Refusal("seating", f"places above {limits.places} are occupied: the "
                              "table cannot shrink under its players", API)
            seating = Seating(limits.places, seating.occupied)
        current = self.round
        if current is not None and current.closed is None:
            current = dataclasses.replace(current, limits=limits)
            if isinstance(current, Round) and seating is not None:
                current = dataclasses.replace(current, seating=seating)
        table = dataclasses.replace(
            self, limits=limits, round=current, seating=seating,
            bank=None if self.bank is None else dataclasses.replace(self.bank, limits=limits),
            configured=limits if source == "configuration" else self.configured)
        return table, [{"event": "money.limits", "source": source, "by": f["by"],
                        "reason": f["reason"], "before": self.limits.to_dict(),
                        "limits": limits.to_dict(), "rule": "min_stake"}]

    def _op_correct(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        """A stake corrected after "Rien ne va plus" and before the settlement (a stake keyed
        wrong, one that was never there, one on the table and not keyed): the round is
        entered again as it stood when betting closed, with the correction, under every rule
        of the round, and closed again; the `money.round` that follows is the one settled.
        The first round stays in the ledger, the correction before the new one says who and
        why."""
        pre, closed = self.pre_close, self.round
        if closed is None or closed.closed is None or pre is None:
            raise Refusal("not_now", "a correction is for a coup dealt and not yet settled; "
                          "before the deal, withdraw the stake and enter it again", API)
        amount = self._amount(f["amount"], "amount")
        if amount < 0:
            raise Refusal("no_amount", f"a stake cannot be corrected to less than nothing "
                          f"({f['amount']}): 0 takes it away", self.profile.min_stake.source)
        shoe, coup = closed.closed
        if isinstance(pre, Round) and pre.bank.amount is None:
            assert self.profile.chemin_de_fer is not None
            raise Refusal("not_offered", "an open bank's sum was fixed by the stakes when "
                          "betting closed: it is not entered again; void the coup "
                          "if it cannot stand", self.profile.chemin_de_fer.open_bank.source)
        table = dataclasses.replace(self, round=pre)
        records: Records = []
        if isinstance(closed, Round):  # what closing added (a difference) goes, and comes again
            currency = self.profile.currency.value
            records = [{"event": "money.withdrawn", "stake": s.id, "who": s.who.key,
                        "amount": currency.text(s.amount),
                        "why": "the round is entered again with a correction"}
                       for s in closed.stakes if pre.stake(s.id) is None]
        stake_id = f.get("stake")
        if stake_id is not None:
            if any(k in f for k in ("who", "kind", "over_line", "box", "bet")):
                raise bad("correct: a stake's id, or a new stake's fields, not both")
            table, changed, who = table._corrected(pre, stake_id, amount)
        else:
            if amount == 0:
                raise Refusal("no_amount", "a stake missed and entered now needs the amount "
                              "put down, not 0", self.profile.min_stake.source)
            table, changed, who = table._missed(f, amount)
        records += changed
        table, closing = table._op_close({"shoe": shoe, "coup": coup})
        currency = self.profile.currency.value
        correction = {"event": "money.correction", "change": "stake", "shoe": shoe,
                      "coup": coup, "stake": stake_id, "who": who,
                      "amount": currency.text(amount), "by": f["by"], "reason": f["reason"],
                      "rule": self.profile.name_of(self._closing_term())}
        return table, [correction, *records, *closing]

    def _corrected(self, pre: Round | BetRound, stake_id: Any, amount: Decimal
                   ) -> tuple[TableMoney, Records, str]:
        """The stake `stake_id` of the round as betting closed, at `amount` (0: it goes)."""
        if not isinstance(stake_id, str):
            raise bad(f"stake is a stake's id, not {stake_id!r}")
        if isinstance(pre, BetRound):
            found = next((b for b in pre.bets if b.id == stake_id), None)
            if found is None:
                raise Refusal("no_such_stake", f"no bet {stake_id!r} was placed when betting "
                              "closed", self._closing_term().source)
            if found.amount == amount:
                raise bad(f"{stake_id} is {self.profile.currency.value.text(amount)} already")
            table, records = self._op_withdraw({"stake": stake_id})
            if amount > 0:
                table, more = table._op_bet({"box": found.box, "bet": found.bet.value,
                                             "amount": amount})
                records += more
            return table, records, f"box {found.box}"
        stake = pre.stake(stake_id)
        if stake is None:
            kind = "the difference a banco with the table answers for follows from it: " \
                "correct the banco with the table" if self._is_difference(stake_id) else \
                "no such stake was placed when betting closed"
            raise Refusal("no_such_stake", f"{stake_id}: {kind}", self._closing_term().source)
        if stake.amount == amount:
            raise bad(f"{stake_id} is {self.profile.currency.value.text(amount)} already")
        if stake.kind in (StakeKind.BANCO_SOLO, StakeKind.BANCO) and amount > 0:
            raise bad(f"{stake_id} is a {stake.kind.value.replace('_', ' ')}: it plays the "
                      "whole bank; correct it to 0 if it was never called")
        table, records = self._op_withdraw({"stake": stake_id})
        if amount > 0:
            who = stake.who.key
            if stake.kind is StakeKind.SHARE:
                banco = pre.stake(stake.of or "")
                assert banco is not None
                table, more = table._op_share({"who": who, "of": banco.who.key,
                                               "amount": amount})
            elif stake.kind in BANCO_FORMS:
                table, more = table._op_banco({"who": who, "kind": stake.kind.value,
                                               "amount": amount})
            else:
                table, more = table._op_stake({"who": who, "amount": amount,
                                               "over_line": stake.over_line, "box": stake.box})
            records += more
        return table, records, stake.who.key

    def _missed(self, f: Mapping[str, Any], amount: Decimal) -> tuple[TableMoney, Records, str]:
        """A stake that was on the table before "Rien ne va plus" and was not entered."""
        if not self.cdf:
            if "box" not in f or "bet" not in f:
                raise bad("correct: a bet missed needs its box and bet")
            table, records = self._op_bet({"box": f["box"], "bet": f["bet"], "amount": amount})
            return table, records, f"box {f['box']}"
        if "who" not in f:
            raise bad("correct: a stake missed needs who placed it")
        kind = f.get("kind", "table")
        if kind == "table":
            fields = {"who": f["who"], "amount": amount, **{k: f[k] for k in (
                "over_line", "box") if k in f}}
            table, records = self._op_stake(fields)
        else:
            fields = {"who": f["who"], "kind": kind}
            if kind == "banco_with_table":
                fields["amount"] = amount
            table, records = self._op_banco(fields)
        return table, records, str(f["who"])

    def _is_difference(self, stake_id: str) -> bool:
        current = self.round
        return isinstance(current, Round) and any(
            s.id == stake_id and s.kind is StakeKind.DIFFERENCE for s in current.stakes)

    def _closing_term(self) -> Any:
        rules = self.profile.chemin_de_fer or self.profile.punto_banco
        assert rules is not None
        return rules.closing

    def _op_reopen(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        """The last coup's settlement reopened: `void` (a supervisor finds the coup void after
        all: every stake returns, 000 rule 24) or `rules` (the settlement recorded is not the
        one the rules give: one recorded by earlier software). The original stays in the
        ledger; the correction carries it, the corrected settlement and what each player is
        paid or pays now; the bank (or the carried bets) are what the correction gives."""
        how = f["how"]
        if how not in REOPEN:
            raise bad(f"how is void or rules, not {how!r}")
        last = self.last
        if last is None:
            raise Refusal("not_now", "only the last coup settled may be reopened, and only "
                          "before anything else is staked or changed at the bank after it",
                          API)
        line = dict(last.result)
        if how == "void":
            line["outcome"] = "void"
        try:
            result = Result.of_line(line)
            if isinstance(last.round, BetRound):
                settlement = settle_punto_banco(self.profile, last.round, result)
            else:
                settlement = settle_chemin_de_fer(self.profile, last.round, result)
        except RecordError as error:
            raise bad(str(error)) from None
        corrected = settlement.to_dict()
        if corrected == current_form(last.recorded):
            raise Refusal("not_now", "the settlement recorded is already the one "
                          f"{'a void coup gives' if how == 'void' else 'the rules give'}: "
                          "nothing to correct", self.profile.void.source if how == "void"
                          else API)
        currency = self.profile.currency.value
        adjustments = _adjustments(last.recorded, corrected, currency)
        shoe, coup = last.where
        paid: dict[str, str] = {}
        bank = record = None
        if last.bank is not None:  # Chemin de fer: what the bank paid out (the set-aside) too
            assert self.seating is not None
            before_bank = dataclasses.replace(last.bank, limits=self.limits)
            try:
                before = Settlement.from_dict(last.recorded, currency)
                _, was = before_bank.settled(self.seating, before)
            except (RecordError, ValueError) as error:
                raise bad(f"the settlement recorded cannot be read: {error}") from None
            bank, record = before_bank.settled(self.seating, settlement)
            for who in {*(was.get("paid") or {}), *(record.get("paid") or {})}:
                delta = currency.amount((record.get("paid") or {}).get(who, "0")) - \
                    currency.amount((was.get("paid") or {}).get(who, "0"))
                if delta:
                    paid[who] = currency.text(delta)
        correction = {"event": "money.correction", "change": "settlement", "how": how,
                      "shoe": shoe, "coup": coup, "by": f["by"], "reason": f["reason"],
                      "original": dict(last.recorded), "settlement": corrected,
                      "adjustments": adjustments["lines"],
                      "commission": adjustments["commission"], "paid": paid,
                      "rule": "void" if how == "void" else "chemin_de_fer.payment_order"
                      if self.cdf else "punto_banco.pays.punto"}
        last = dataclasses.replace(last, recorded=corrected)
        if bank is None or record is None:
            stays = {x.stake for x in settlement.carried}
            carried = tuple(b for b in last.round.bets if b.id in stays) \
                if isinstance(last.round, BetRound) else self.carried
            return dataclasses.replace(self, carried=carried, last=last), [correction]
        # The bank as the correction leaves it; what it paid out is in the correction's `paid`.
        record = {k: ("corrected" if k == "change" else v) for k, v in record.items()
                  if k != "paid"}
        return dataclasses.replace(self, bank=bank, last=last), [correction, record]

    # --- the table's money whole (docs/money.md, "The table's money at a new shoe") ----------

    def snapshot(self) -> dict[str, Any]:
        """The table's money whole, as the `money.table` record at each new shoe carries it."""
        last = self.last
        return {
            "event": "money.table", "profile": self.profile.name, "shoe": self.shoe,
            "limits": self.limits.to_dict(),
            "configured": None if self.configured is None else self.configured.to_dict(),
            "seating": None if self.seating is None else self.seating.to_dict(),
            "bank": None if self.bank is None else self.bank.to_dict(),
            "round": round_state(self.round), "pre_close": round_state(self.pre_close),
            "unbanked": None if self.unbanked is None else list(self.unbanked),
            "carried": bets_state(self.profile, self.carried),
            "last": None if last is None else {
                "round": round_state(last.round), "result": dict(last.result),
                "recorded": dict(last.recorded),
                "bank": None if last.bank is None else last.bank.to_dict(),
                "carried": bets_state(self.profile, last.carried)},
        }

    @classmethod
    def from_snapshot(cls, profile: MoneyProfile, data: Mapping[str, Any]) -> TableMoney:
        """The table's money from its `money.table` record; RecordError names what is wrong."""
        try:
            if data["event"] != "money.table" or data["profile"] != profile.name:
                raise RecordError(f"not a {profile.name} money.table record")
            limits = TableLimits.from_dict(data["limits"])
            configured = None if data["configured"] is None else TableLimits.from_dict(
                data["configured"])
            bank = None if data["bank"] is None else Bank.from_dict(profile, limits, data["bank"])
            seating = None if data["seating"] is None else Seating.from_dict(data["seating"])
            last = None
            if data["last"] is not None:
                was = data["last"]
                settled = round_of(profile, was["round"])
                assert settled is not None
                last = Settled(settled, dict(was["result"]), dict(was["recorded"]),
                               None if was["bank"] is None else Bank.from_dict(
                                   profile, settled.limits, was["bank"]),
                               bets_of(profile, was["carried"]))
            unbanked = data["unbanked"]
            return cls(profile, limits, seating, bank, round_of(profile, data["round"]),
                       None if unbanked is None else (int(unbanked[0]), int(unbanked[1])),
                       bets_of(profile, data["carried"]), data["shoe"],
                       round_of(profile, data["pre_close"]), last, configured)
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AssertionError) as error:
            raise RecordError(f"money.table record: {error!r}") from None

    def with_recorded(self, settlement: Mapping[str, Any]) -> TableMoney:
        """The last settlement as the ledger recorded it, where that differs from what the
        rules gave when it was played again (a ledger written by earlier software): what a
        supervisor's `reopen` then corrects."""
        last = self.last
        if last is None or (settlement.get("shoe"), settlement.get("coup")) != last.where or \
                current_form(settlement) == last.recorded:  # the same, spelled as before
            return self
        return dataclasses.replace(self, last=dataclasses.replace(last,
                                                                  recorded=dict(settlement)))

    # --- helpers --------------------------------------------------------------------------------

    def _amount(self, value: Any, what: str) -> Decimal:
        try:
            return self.profile.currency.value.amount(value, what)
        except AmountError as error:
            raise bad(str(error)) from None

    def _may(self) -> list[str]:
        """What the banker may do now: nothing once the coup is dealt; while stakes are
        placed, give up the bank or ask for the Schokolade, not garage chips."""
        assert self.bank is not None and self.seating is not None
        current = self.round
        if current is not None and current.closed is not None:
            return []
        may = self.bank.may(self.seating)
        return [m for m in may if m != "garage"] if self.staked else may

    def summary(self) -> dict[str, Any]:
        """What the console shows of the table's money now (nothing of a closed coup's cards)."""
        current = self.round
        out: dict[str, Any] = {"profile": self.profile.name, "shoe": self.shoe,
                               "limits": self.limits.to_dict()}
        if self.seating is not None:
            out["seating"] = self.seating.to_dict()
        if self.bank is not None and self.seating is not None:
            out["bank"] = self.bank.to_dict()
            out["turn"] = self.bank.turn(self.seating)
            out["may"] = self._may()
            out["begun"] = self.bank.begun  # the game's first bank was taken (issue 20)
        out["round"] = None if current is None else current.to_record()
        out["carried"] = bets_state(self.profile, self.carried)
        out["correctable"] = current is not None and current.closed is not None and \
            self.pre_close is not None
        out["reopenable"] = None if self.last is None else list(self.last.where)
        return out


def settings_of(limits: TableLimits, cdf: bool) -> dict[str, Any]:
    """Limits in force as `[money]` settings, so that a change is checked as the
    configuration is (`table_limits`)."""

    def text(value: Decimal | None) -> str:
        return "none" if value is None else str(value)

    out: dict[str, Any] = {"chip": str(limits.chip),
                           "commission_percent": str(limits.commission_percent),
                           "min_stake": str(limits.min_stake), "max_stake": text(limits.max_stake)}
    if cdf:
        out |= {"places": limits.places, "min_bank": text(limits.min_bank),
                "max_bank": text(limits.max_bank)}
        if limits.schokolade == ASKED:
            out["schokolade"] = ASKED
    else:
        out |= {"boxes": limits.places, "nine_min_stake": text(limits.nine_min_stake),
                "nine_max_stake": text(limits.nine_max_stake)}
    return out


def _adjustments(original: Mapping[str, Any], corrected: Mapping[str, Any], currency: Any
                 ) -> dict[str, Any]:
    """Each line's change when `corrected` replaces `original`: what its player is paid now
    (`paid`, negative: what he hands back), what stays on the table (`carried`: the bank, a
    bet staying), and his `net`; and the commission's change."""
    fields = ("paid", "carried", "net")

    def by_line(record: Mapping[str, Any]) -> dict[tuple[str, str, Any], list[Decimal]]:
        out: dict[tuple[str, str, Any], list[Decimal]] = {}
        try:
            for x in record["lines"]:
                key = (str(x["who"]), str(x["kind"]), x["stake"])
                was = out.get(key, [ZERO] * 3)
                out[key] = [add(a, currency.amount(x[k], k)) for a, k in zip(was, fields,
                                                                           strict=True)]
        except (KeyError, TypeError, ValueError, AmountError) as error:
            raise bad(f"the settlement recorded cannot be read: {error}") from None
        return out

    before, after = by_line(original), by_line(corrected)
    lines = []
    for key in [*after, *(k for k in before if k not in after)]:
        delta = [a - b for a, b in zip(after.get(key, [ZERO] * 3), before.get(key, [ZERO] * 3),
                                       strict=True)]
        if any(delta):
            lines.append({"who": key[0], "kind": key[1], "stake": key[2],
                          **{k: currency.text(d) for k, d in zip(fields, delta, strict=True)}})
    try:
        commission = currency.amount(corrected["commission"]) - currency.amount(
            original["commission"])
    except (KeyError, TypeError, ValueError, AmountError) as error:
        raise bad(f"the settlement recorded cannot be read: {error}") from None
    return {"lines": lines, "commission": currency.text(commission)}


def _earlier(f: Mapping[str, Any]) -> bool:
    """The op plays a record written before issue 20 again (legacy.py)."""
    value = f.get(EARLIER, False)
    if not isinstance(value, bool):
        raise bad(f"{EARLIER} is true or false, not {value!r}")
    return value


def _parse(op: Any) -> tuple[str, Mapping[str, Any]]:
    if not isinstance(op, Mapping):
        raise bad("an action is an object with an 'op'")
    name = op.get("op")
    if not isinstance(name, str) or name not in OPS:
        raise bad(f"unknown op {str(name)[:40]!r} (known: {', '.join(OPS)})")
    required, optional = OPS[name]
    fields = {k: v for k, v in op.items() if k != "op"}
    missing = sorted(required - set(fields))
    extra = sorted(set(fields) - required - optional)
    if missing or extra:
        raise bad(f"{name}: missing {missing}, unexpected {extra}" if missing and extra else
                  f"{name}: missing {', '.join(missing)}" if missing else
                  f"{name}: unexpected {', '.join(extra)}")
    return name, fields


def settlement_of(table: TableMoney, records: Records) -> Settlement | None:
    """The settlement among a step's records, read back (None when there is none)."""
    for record in records:
        if record.get("event") == "money.settlement":
            return Settlement.from_dict(record, table.profile.currency.value)
    return None
