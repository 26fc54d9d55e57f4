"""Punto Banco: each box's bets against the casino, and their settlement (003's PUNTO BANCO).

A `BetRound` takes bets on Punto, Banco, Egalité and the three Swiss Nine bets, per box,
within the table's limits (the total of a box's bets on one chance between the minimum and
the maximum), until closing; a bet that stays on the layout after an égalité is carried
into the next round as it is and cannot be taken back ("verbleiben auf dem Tableau").

`settle` pays: Punto even money; Banco even money less the Taxe (5 %, rounded down to the
currency's unit, bet by bet); Egalité 8:1, lost when a side wins; at égalité the Punto and
Banco bets stay; each Swiss Nine bet by the Banco side's first two cards (taken from the
result: `game.rules.swiss_nine`), paid 19, 77 and 300 times, whatever the coup's winner. A
cancelled or void coup returns every bet, carried ones included. Lines come box by box, and
in a box in the layout's order (`Bet`); the casino's line (`house`) is last.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from shoe_daemon.game.rules import swiss_nine
from shoe_daemon.money.amounts import CONTEXT, ZERO, add
from shoe_daemon.money.display import format_money
from shoe_daemon.money.limits import TableLimits, put_down
from shoe_daemon.money.profile import NINE_BETS, Bet, MoneyProfile, PuntoBancoMoney
from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.settlement import LOST, RETURNED, STAYS, WON, Line, Result, Settlement
from shoe_daemon.money.stakes import RecordError

Records = list[dict[str, Any]]
NINES = frozenset({Bet.SIMPLE_NINE, Bet.COLOUR_NINE, Bet.SWISS_NINE})
LAYOUT = {bet: i for i, bet in enumerate(Bet)}  # a box's bets in the layout's order


@dataclass(frozen=True)
class BoxBet:
    id: str
    box: int
    bet: Bet
    amount: Decimal
    carried: bool = False  # stayed on the layout from the égalité before

    def to_dict(self, profile: MoneyProfile) -> dict[str, Any]:
        return {"id": self.id, "box": self.box, "bet": self.bet.value,
                "amount": profile.currency.value.text(self.amount), "carried": self.carried}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], profile: MoneyProfile) -> BoxBet:
        try:
            box = data["box"]
            if isinstance(box, bool) or not isinstance(box, int):
                raise RecordError(f"box {box!r}")
            return cls(str(data["id"]), box, Bet(data["bet"]),
                       profile.currency.value.amount(data["amount"]), bool(data["carried"]))
        except (KeyError, TypeError, ValueError) as error:
            raise RecordError(f"bet {dict(data)!r}: {error}") from None


@dataclass(frozen=True)
class BetRound:
    profile: MoneyProfile
    limits: TableLimits
    bets: tuple[BoxBet, ...] = ()
    serial: int = 0
    closed: tuple[int, int] | None = None

    @property
    def rules(self) -> PuntoBancoMoney:
        assert self.profile.punto_banco is not None
        return self.profile.punto_banco

    @classmethod
    def opening(cls, profile: MoneyProfile, limits: TableLimits,
                carried: tuple[BoxBet, ...] = ()) -> BetRound:
        """A new round, with the bets that stayed on the layout from an égalité."""
        if profile.punto_banco is None:
            raise ValueError(f"{profile.name} is not a Punto Banco profile")
        bets = tuple(dataclasses.replace(b, id=f"b{i}", carried=True)
                     for i, b in enumerate(carried, 1))
        return cls(profile, limits, bets, len(bets))

    def money(self, amount: Decimal) -> str:
        return format_money(amount, self.profile.currency.value, self.profile.locale.value)

    def place(self, box: int, bet: Bet, amount: Decimal) -> tuple[BetRound, Records]:
        """A bet at `box` on `bet`."""
        self._open()
        rules = self.rules
        if isinstance(box, bool) or not isinstance(box, int) or not 1 <= box <= self.limits.places:
            raise Refusal("bad_request", f"the layout has boxes 1 to {self.limits.places}, not "
                          f"{box!r}", rules.boxes.source)
        nine = bet in NINES
        put_down(self.profile, self.limits, amount, "bet",
                 rules.nine_limits if nine else rules.chance_limits)
        low = self.limits.nine_min_stake if nine else self.limits.min_stake
        high = self.limits.nine_max_stake if nine else self.limits.max_stake
        term = rules.nine_limits if nine else rules.chance_limits
        total = add(amount, *(b.amount for b in self.bets if b.box == box and b.bet is bet))
        if low is not None and total < low:
            raise Refusal("below_minimum", f"box {box} on {bet.value}: {self.money(total)} is "
                          f"below the minimum {self.money(low)}", term.source)
        if high is not None and total > high:
            raise Refusal("above_maximum", f"box {box} on {bet.value}: {self.money(total)} "
                          f"is above the maximum {self.money(high)}", term.source)
        placed = BoxBet(f"b{self.serial + 1}", box, bet, self.profile.currency.value.amount(amount))
        current = dataclasses.replace(self, bets=(*self.bets, placed), serial=self.serial + 1)
        return current, [{"event": "money.bet", "bet": placed.to_dict(self.profile)}]

    def withdraw(self, bet_id: str) -> tuple[BetRound, Records]:
        self._open()
        found = next((b for b in self.bets if b.id == bet_id), None)
        if found is None:
            raise Refusal("no_such_stake", f"no bet {bet_id!r} in this round",
                          self.rules.closing.source)
        if found.carried:
            raise Refusal("carried", f"{bet_id} stays on the layout from the égalité",
                          self.rules.egalite_stays.source)
        return dataclasses.replace(self, bets=tuple(b for b in self.bets if b.id != bet_id)), [
            {"event": "money.withdrawn", "stake": bet_id, "who": f"box {found.box}",
             "amount": self.profile.currency.value.text(found.amount), "why": "withdrawn"}]

    def close(self, shoe: int, coup: int) -> tuple[BetRound, Records]:
        """ "Rien ne va plus" (`BTN,DEAL`)."""
        self._open()
        for number in (shoe, coup):
            if isinstance(number, bool) or not isinstance(number, int) or number < 1:
                raise Refusal("bad_request", f"shoe and coup are numbers from 1, not {number!r}",
                              self.rules.closing.source)
        current = dataclasses.replace(self, closed=(shoe, coup))
        return current, [current.to_record()]

    def _open(self) -> None:
        if self.closed is not None:
            raise Refusal("after_close", "betting is closed (Rien ne va plus): nothing changes "
                          "until the coup is settled", self.rules.closing.source)

    def to_record(self) -> dict[str, Any]:
        shoe, coup = self.closed if self.closed is not None else (None, None)
        return {"event": "money.round", "profile": self.profile.name, "shoe": shoe,
                "coup": coup, "currency": self.profile.currency.value.code,
                "limits": self.limits.to_dict(),
                "bets": [b.to_dict(self.profile) for b in self.bets], "serial": self.serial}

    @classmethod
    def from_record(cls, profile: MoneyProfile, record: Mapping[str, Any]) -> BetRound:
        try:
            if record["event"] != "money.round" or record["profile"] != profile.name:
                raise RecordError(f"not a {profile.name} round")
            if record["currency"] != profile.currency.value.code:
                raise RecordError(f"currency {record['currency']!r}")
            shoe, coup = record["shoe"], record["coup"]
            if not all(isinstance(n, int) and not isinstance(n, bool) for n in (shoe, coup)):
                raise RecordError("a closed round has its shoe and coup")
            return cls(profile, TableLimits.from_dict(record["limits"]),
                       tuple(BoxBet.from_dict(b, profile) for b in record["bets"]),
                       int(record["serial"]), (shoe, coup))
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError) as error:
            raise RecordError(f"round record: {error!r}") from None


def settle(profile: MoneyProfile, closed: BetRound, result: Result) -> Settlement:
    """Each bet's payout by 003's PUNTO BANCO rules."""
    rules = closed.rules
    currency = profile.currency.value
    if result.profile != profile.name or closed.closed != (result.shoe, result.coup):
        raise RecordError(f"the round ({closed.closed}) and result (shoe {result.shoe} coup "
                          f"{result.coup}, {result.profile}) are not one {profile.name} coup")
    nines: tuple[str, ...] = ()
    applied = ["void"] if result.void else []
    if not result.void:
        if len(result.banker_cards) < 2:
            raise RecordError("a decided coup has the Banco side's first two cards")
        nines = swiss_nine(result.banker_cards[:2])
        if result.swiss_nine is not None and tuple(result.swiss_nine) != nines:
            raise RecordError(f"the result reports Swiss Nine {list(result.swiss_nine)}, its "
                              f"cards give {list(nines)}")
    won_nines = {NINE_BETS[n] for n in nines}
    lines: list[Line] = []
    commission = ZERO
    for b in sorted(closed.bets, key=lambda b: (b.box, LAYOUT[b.bet], b.id)):
        who = f"box {b.box}"
        times = Decimal(rules.pays[b.bet].value)
        if result.void:
            line = Line(who, b.bet.value, b.id, b.amount, ZERO, RETURNED, b.amount, ZERO, ZERO,
                        ZERO)
        elif b.bet in NINES:
            line = _win(who, b, times, ZERO) if b.bet in won_nines else _lose(who, b)
        elif result.outcome == "egalite":
            if b.bet is Bet.EGALITE:
                line = _win(who, b, times, ZERO)
            else:
                line = Line(who, b.bet.value, b.id, b.amount, b.amount, STAYS, ZERO, b.amount,
                            ZERO, ZERO)
        elif b.bet is (Bet.PUNTO if result.outcome == "punter" else Bet.BANCO):
            taxe = ZERO
            if b.bet is Bet.BANCO and rules.banco_commission.value:
                taxe = currency.percent(CONTEXT.multiply(b.amount, times),
                                        closed.limits.commission_percent)
            line = _win(who, b, times, taxe)
        else:
            line = _lose(who, b)
        commission = CONTEXT.add(commission, line.commission)
        lines.append(line)
    applied += [f"punto_banco.pays.{b.value}" for b in Bet
                if any(x.bet is b for x in closed.bets)]
    if commission:
        applied += ["commission", "rounding"]
    if result.outcome == "egalite" and not result.void:
        applied.append("punto_banco.egalite_stays")
    house = -add(*(line.net for line in lines), commission)
    word = WON if house > 0 else LOST if house < 0 else RETURNED
    pays_out = max(-house, ZERO)
    lines.append(Line("house", "house", None, pays_out, pays_out, word, max(house, ZERO), ZERO,
                      ZERO, house))
    return Settlement(profile=profile.name, shoe=result.shoe, coup=result.coup,
                      outcome=result.outcome, currency=currency, lines=tuple(lines),
                      commission=commission, counts=not result.void,
                      rules=tuple(dict.fromkeys(applied)), order="punto_banco.payment_order")


def _win(who: str, b: BoxBet, times: Decimal, taxe: Decimal) -> Line:
    won = CONTEXT.multiply(b.amount, times)
    paid = CONTEXT.subtract(CONTEXT.add(b.amount, won), taxe)
    return Line(who, b.bet.value, b.id, b.amount, b.amount, WON, paid, ZERO, taxe,
                CONTEXT.subtract(won, taxe))


def _lose(who: str, b: BoxBet) -> Line:
    return Line(who, b.bet.value, b.id, b.amount, b.amount, LOST, ZERO, ZERO, ZERO, -b.amount)
