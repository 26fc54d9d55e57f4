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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from shoe_daemon.game.rules import Game
from shoe_daemon.money.amounts import AmountError
from shoe_daemon.money.bank import Bank, Phase
from shoe_daemon.money.chemin_de_fer import settle as settle_chemin_de_fer
from shoe_daemon.money.chemin_de_fer import unbanked
from shoe_daemon.money.limits import TableLimits
from shoe_daemon.money.players import Player, Seating
from shoe_daemon.money.profile import Bet, Kind, MoneyProfile
from shoe_daemon.money.punto_banco import BetRound, BoxBet
from shoe_daemon.money.punto_banco import settle as settle_punto_banco
from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.round import Round
from shoe_daemon.money.settlement import Result, Settlement
from shoe_daemon.money.stakes import RecordError

Records = list[dict[str, Any]]
API = "the money actions (docs/money.md, \"Actions\")"

#: Each op's required and optional fields.
OPS: Mapping[str, tuple[frozenset[str], frozenset[str]]] = {
    "sit": (frozenset({"seat"}), frozenset()),
    "leave": (frozenset({"seat"}), frozenset()),
    "take_bank": (frozenset({"who", "amount"}), frozenset({"partner", "partner_amount"})),
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
    "settle": (frozenset({"result"}), frozenset()),
    "new_shoe": (frozenset({"shoe"}), frozenset()),
}
CHEMIN_DE_FER_ONLY = frozenset({"sit", "leave", "take_bank", "decline_bank", "accept_offer",
                                "to_auction", "bid", "award", "suite", "schokolade", "garage",
                                "banco", "share", "stake"})


def bad(reason: str) -> Refusal:
    return Refusal("bad_request", reason, API)


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

    @classmethod
    def start(cls, profile: MoneyProfile, limits: TableLimits, occupied: Iterable[int] = ()
              ) -> TableMoney:
        """A table's money at the start: nobody banks yet (Chemin de fer)."""
        if profile.game is Game.PUNTO_BANCO:
            return cls(profile, limits)
        return cls(profile, limits, Seating.of(limits.places, occupied), Bank(profile, limits))

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
        if self.round is not None and (self.round.closed is not None or any(
                s.who == player for s in self.round.stakes)):
            raise Refusal("seating", f"{player} has a stake in the coup: it is withdrawn or "
                          "settled first", API)
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
                                            partner, part))

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
        assert self.bank is not None
        self._no_stakes()
        return self._banked(*self.bank.schokolade())

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
            return dataclasses.replace(self, round=closed), records
        assert self.bank is not None
        if self.round is None and self.bank.phase is not Phase.HELD:
            for number in (shoe, coup):
                if isinstance(number, bool) or not isinstance(number, int) or number < 1:
                    raise bad(f"shoe and coup are numbers from 1, not {number!r}")
            return dataclasses.replace(self, unbanked=(shoe, coup)), [{
                "event": "money.round", "profile": self.profile.name, "shoe": shoe,
                "coup": coup, "currency": self.profile.currency.value.code, "bank": None,
                "stakes": []}]
        closed, records = self._betting().close(shoe, coup)
        assert closed.bank.amount is not None
        bank = self.bank.fixed(closed.bank.amount) if self.bank.amount is None else self.bank
        return dataclasses.replace(self, round=closed, bank=bank), records

    def _op_settle(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        if not isinstance(f["result"], Mapping):
            raise bad("result is the coup.result line")
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
                settlement = settle_chemin_de_fer(self.profile, closed, result)
            else:
                settlement = settle_punto_banco(self.profile, closed, result)
        except RecordError as error:
            raise bad(str(error)) from None
        if isinstance(closed, BetRound):
            stays = {line.stake for line in settlement.carried}
            carried = tuple(b for b in closed.bets if b.id in stays)
            return dataclasses.replace(self, round=None, carried=carried), [
                settlement.to_dict()]
        assert self.bank is not None and self.seating is not None
        bank, record = self.bank.settled(self.seating, settlement)
        return dataclasses.replace(self, round=None, bank=bank), [settlement.to_dict(), record]

    def _op_new_shoe(self, f: Mapping[str, Any]) -> tuple[TableMoney, Records]:
        shoe = f["shoe"]
        if isinstance(shoe, bool) or not isinstance(shoe, int) or shoe < 1:
            raise bad(f"shoe is a number from 1, not {shoe!r}")
        if self.bank is None:
            return dataclasses.replace(self, shoe=shoe), [
                {"event": "money.shoe", "shoe": shoe}]
        bank, record = self.bank.new_shoe(shoe)
        return dataclasses.replace(self, shoe=shoe, bank=bank), [record]

    # --- helpers --------------------------------------------------------------------------------

    def _amount(self, value: Any, what: str) -> Decimal:
        try:
            return self.profile.currency.value.amount(value, what)
        except AmountError as error:
            raise bad(str(error)) from None

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
            out["may"] = [] if self.staked else self.bank.may(self.seating)
        out["round"] = None if current is None else current.to_record()
        return out


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
