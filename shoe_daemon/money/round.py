"""The betting round of one Chemin de fer coup: the stakes against the bank, until closing.

A `Round` is immutable: each action (`banco`, `share`, `stake`, `withdraw`, `close`) returns
the next round and the records it made, or raises a `Refusal` citing the house's rule and
leaves everything as it was. `close` is the croupier's "Rien ne va plus" (the shoe's
`BTN,DEAL`): it fixes an open bank, adds what a banco with the table answers for, and after
it nothing changes. The closed round's record (`to_record`) is what a settlement is computed
from (`shoe_daemon.money.settlement`), and `from_record` reads it back for `audit verify`.

The order of priority: the suivi first, then the seated players in Prime order from the
banker in turn (`Seating.rotation`). A banco called by a player with priority displaces a
lower one (its stakes are returned); one called below a standing banco is refused as out of
turn. A banco solo or a banco returns the general game's stakes (000 IV: the fourth method
is for when nobody bancos; 004: "previous partial stakers must remove their stakes"). The
general game takes seated stakes up to the bank; outsiders at 000 and 003 may stake beyond
it (they are covered at settlement "commencing from the smallest sum").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from shoe_daemon.money.amounts import CONTEXT, ZERO, add
from shoe_daemon.money.display import format_money
from shoe_daemon.money.limits import TableLimits, put_down
from shoe_daemon.money.players import Player, Seating
from shoe_daemon.money.profile import (
    CheminDeFerMoney,
    Kind,
    MoneyProfile,
    Outsiders,
    Suivi,
    Term,
)
from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.stakes import BANCO_FORMS, BankInPlay, RecordError, Stake, StakeKind

Records = list[dict[str, Any]]

#: The stake kind each declared kind of play makes.
KIND_STAKE = {
    Kind.BANCO_SOLO: StakeKind.BANCO_SOLO,
    Kind.BANCO: StakeKind.BANCO,
    Kind.WITH_TABLE: StakeKind.WITH_TABLE,
}


def refuse(code: str, reason: str, term: Term[Any] | str) -> Refusal:
    return Refusal(code, reason, term if isinstance(term, str) else term.source)


@dataclass(frozen=True)
class Round:
    profile: MoneyProfile
    limits: TableLimits
    seating: Seating
    bank: BankInPlay
    stakes: tuple[Stake, ...] = ()
    serial: int = 0  # stakes placed so far (ids s1, s2, ...)
    closed: tuple[int, int] | None = None  # (shoe, coup) once betting closed

    def __post_init__(self) -> None:
        if self.profile.chemin_de_fer is None:
            raise ValueError(f"{self.profile.name} is not a Chemin de fer profile")

    # --- what the round is ---------------------------------------------------------------------

    @property
    def rules(self) -> CheminDeFerMoney:
        assert self.profile.chemin_de_fer is not None
        return self.profile.chemin_de_fer

    def money(self, amount: Decimal) -> str:
        """An amount as the players read it, for the refusals' words."""
        return format_money(amount, self.profile.currency.value, self.profile.locale.value)

    @property
    def banco(self) -> Stake | None:
        """The banco form standing, if any (there is at most one)."""
        return next((s for s in self.stakes if s.kind in BANCO_FORMS), None)

    def stake(self, stake_id: str) -> Stake | None:
        return next((s for s in self.stakes if s.id == stake_id), None)

    @property
    def covering(self) -> Decimal:
        """What the stakes bound by the bank cover (all but 000's and 003's outsiders)."""
        return add(*(s.value for s in self.stakes if not self._beyond_bank(s)))

    def _beyond_bank(self, stake: Stake) -> bool:
        return stake.kind is StakeKind.OUTSIDER and (
            self.rules.outsiders.value is Outsiders.SMALLEST_FIRST)

    def priority(self, player: Player) -> tuple[int, int]:
        """Lower is first: the suivi, then the seated players in Prime order."""
        order = self.seating.rotation(self.bank.anchor)
        place = order.index(player.seat) if player.seat in order else len(order)
        return (0 if self._has_suivi(player) else 1, place)

    def _has_suivi(self, player: Player) -> bool:
        return self.rules.suivi.value is not Suivi.NONE and player == self.bank.suivi

    @property
    def holder(self) -> Player | None:
        """Who holds the punters' cards: the banco player, else the seated player with the
        highest stake (nearest the banker's right between equals), else an outsider's."""
        if self.banco is not None:
            return self.banco.who
        totals: dict[Player, Decimal] = {}
        for s in self.stakes:
            totals[s.who] = add(totals.get(s.who, ZERO), s.value)
        if not totals:
            return None
        return min(totals, key=lambda p: (not p.seated, -totals[p], self.priority(p), p.key))

    # --- the croupier's entries ------------------------------------------------------------------

    def call_banco(self, who: Player, kind: Kind, amount: Decimal | None = None
                   ) -> tuple[Round, Records]:
        """`who` declares a banco form (000 I-III, 003's Banco forms)."""
        self._betting()
        rules = self.rules
        if kind is Kind.TABLE or kind not in KIND_STAKE:
            raise refuse("bad_request", f"{kind} is not a banco form: stake in the general game",
                         rules.kinds[Kind.TABLE])
        if not rules.kinds[kind].value:
            raise refuse("not_offered", f"{kind.value.replace('_', ' ')} is not played at "
                         f"{self.profile.name}", rules.kinds[kind])
        self._punter(who, banco=True)
        bank = self.bank.amount
        if bank is None:
            raise refuse("not_offered", "an open bank's sum is fixed when betting closes: "
                         "there is no sum to banco yet; stake in the general game",
                         rules.open_bank)
        standing = self.banco
        if standing is not None:
            if standing.who == who:
                raise refuse("bad_request", f"{who} has called {standing.kind.value} already: "
                             "withdraw it first to change it", rules.closing)
            if self.priority(standing.who) <= self.priority(who):
                term = rules.suivi if self._has_suivi(standing.who) else rules.prime
                raise refuse("out_of_turn", f"banco out of turn: {standing.who} has called "
                             f"{standing.kind.value.replace('_', ' ')} and has priority over "
                             f"{who}", term)
        records: Records = []
        current = self
        if standing is not None:
            current, records = current._remove(
                [s.id for s in current.stakes if s.kind in BANCO_FORMS or s.of == standing.id],
                f"displaced by {who}'s banco, who has priority")
        if kind in (Kind.BANCO_SOLO, Kind.BANCO) and rules.banco_clears_table.value:
            table = [s.id for s in current.stakes if s.kind in (StakeKind.TABLE,
                                                                 StakeKind.OUTSIDER)]
            current, more = current._remove(table, f"{who} called banco: the general game is "
                                            "not played")
            records += more
        if kind is Kind.WITH_TABLE:
            value = self._with_table_amount(current, amount, bank)
        else:
            if amount is not None and amount != bank:
                raise refuse("bad_request", f"a {kind.value.replace('_', ' ')} plays the whole "
                             f"bank, {self.money(bank)}, not {self.money(amount)}",
                             rules.kinds[kind])
            value = bank
        return current._add(who, KIND_STAKE[kind], value, value, records)

    def _with_table_amount(self, current: Round, amount: Decimal | None, bank: Decimal
                           ) -> Decimal:
        rules = self.rules
        if amount is None:
            raise refuse("bad_request", "a banco with the table needs the punter's stake",
                         rules.kinds[Kind.WITH_TABLE])
        put_down(self.profile, self.limits, amount, "stake", self.profile.min_stake)
        least = CONTEXT.multiply(bank, rules.with_table_share.value)
        if amount < least:
            raise refuse("with_table_share", f"a banco with the table stakes at least "
                         f"{rules.with_table_share.value} of the bank {self.money(bank)} "
                         f"({least.normalize():f}); {self.money(amount)} is less",
                         rules.with_table_share)
        left = CONTEXT.subtract(bank, current.covering)
        if amount > left:
            raise refuse("more_than_bank", f"more than the bank: {self.money(left)} of "
                         f"{self.money(bank)} is left beside the table's stakes", rules.up_to_bank)
        return amount

    def add_share(self, who: Player, of: Player, amount: Decimal) -> tuple[Round, Records]:
        """`who` takes a share of `of`'s banco (000 II: "plays with a shareholder")."""
        self._betting()
        rules = self.rules
        banco = self.banco
        if banco is None or banco.who != of:
            raise refuse("no_such_stake", f"{of} has not called banco", rules.kinds[Kind.BANCO])
        if banco.kind is not StakeKind.BANCO:
            raise refuse("not_offered", f"{of} plays {banco.kind.value.replace('_', ' ')}: only "
                         "a banco takes shareholders", rules.kinds[banco_kind(banco.kind)])
        if who == of:
            raise refuse("bad_request", f"{who} cannot take a share of his own banco",
                         rules.kinds[Kind.BANCO])
        self._punter(who, banco=False)
        self._stake_limits(who, amount)
        own = CONTEXT.subtract(banco.amount, amount)
        if own < self.limits.min_stake:
            raise refuse("more_than_bank", f"the share would leave {of} {self.money(own)} of his "
                         f"own, less than the minimum {self.money(self.limits.min_stake)}",
                         self.profile.min_stake)
        current, records = self._changed(banco, own)
        return current._add(who, StakeKind.SHARE, amount, amount, records, of=banco.id)

    def add_stake(self, who: Player, amount: Decimal, over_line: bool = False,
                  box: int | None = None) -> tuple[Round, Records]:
        """A stake in the general game (or the table's part of a banco with the table), a
        seated player's or an outsider's."""
        self._betting()
        rules = self.rules
        banco = self.banco
        if banco is not None and banco.kind is not StakeKind.WITH_TABLE:
            raise refuse("banco_called", f"{banco.who} has called "
                         f"{banco.kind.value.replace('_', ' ')}: the general game is not played",
                         rules.banco_clears_table)
        if banco is None and not rules.kinds[Kind.TABLE].value:
            raise refuse("not_offered", "the general game is not played here",
                         rules.kinds[Kind.TABLE])
        kind = StakeKind.TABLE if who.seated else StakeKind.OUTSIDER
        if who.seated:
            if box is not None:
                raise refuse("bad_request", "a seated player stakes at his own place: no box",
                             rules.outsiders)
            self._punter(who, banco=False)
        else:
            self._outsider(who, box)
        if over_line and not rules.over_the_line.value:
            raise refuse("not_offered", "no stake over the line here", rules.over_the_line)
        self._stake_limits(who, amount)
        value = amount
        if over_line:
            value = self.profile.currency.value.toward_zero(CONTEXT.divide(amount, 2))
        bank = self.bank.amount
        if bank is not None and not (kind is StakeKind.OUTSIDER
                                     and rules.outsiders.value is Outsiders.SMALLEST_FIRST):
            left = CONTEXT.subtract(bank, self.covering)
            if value > left:
                raise refuse("more_than_bank", f"more than the bank: {self.money(left)} of "
                             f"{self.money(bank)} is left", rules.up_to_bank)
        return self._add(who, kind, amount, value, [], over_line=over_line, box=box)

    def withdraw(self, stake_id: str) -> tuple[Round, Records]:
        """A stake taken back before closing; a banco's shares go with it."""
        self._open()
        stake = self.stake(stake_id)
        if stake is None:
            raise refuse("no_such_stake", f"no stake {stake_id!r} in this round",
                         self.rules.closing)
        ids = [stake_id] + [s.id for s in self.stakes if s.of == stake_id]
        current, changed = self, []
        banco = self.stake(stake.of or "") if stake.kind is StakeKind.SHARE else None
        if banco is not None:
            current, changed = self._changed(banco, CONTEXT.add(banco.amount, stake.amount))
        current, records = current._remove(ids, "withdrawn")
        return current, [*records, *changed]

    def within(self, why: str) -> tuple[Round, Records]:
        """The round held against a bank made smaller while betting is open (003's
        Schokolade): a banco solo or banco, which plays the whole bank, is returned with
        its shares; the other stakes the bank binds stand in the order they were placed
        while the bank covers them, and the rest are returned whole (`why`)."""
        bank = self.bank.amount
        assert bank is not None
        gone = {s.id for s in self.stakes if s.kind in (StakeKind.BANCO_SOLO, StakeKind.BANCO)}
        gone |= {s.id for s in self.stakes if s.of in gone}
        covered = ZERO
        for s in self.stakes:
            if s.id in gone or self._beyond_bank(s):
                continue
            if CONTEXT.add(covered, s.value) > bank:
                gone.add(s.id)
            else:
                covered = CONTEXT.add(covered, s.value)
        return self._remove([s.id for s in self.stakes if s.id in gone], why)

    def _changed(self, banco: Stake, own: Decimal) -> tuple[Round, Records]:
        """The banco player's own part, after a share is taken or given back."""
        currency = self.profile.currency.value
        current = dataclasses.replace(self, stakes=tuple(
            dataclasses.replace(s, amount=own, value=own) if s.id == banco.id else s
            for s in self.stakes))
        return current, [{"event": "money.stake_changed", "stake": banco.id,
                          "who": banco.who.key, "amount": currency.text(own),
                          "value": currency.text(own)}]

    def close(self, shoe: int, coup: int) -> tuple[Round, Records]:
        """ "Rien ne va plus" (`BTN,DEAL`): an open bank takes its sum, a banco with the table
        its difference, and the round is fixed for settlement."""
        self._open()
        for number, what in ((shoe, "shoe"), (coup, "coup")):
            if isinstance(number, bool) or not isinstance(number, int) or number < 1:
                raise refuse("bad_request", f"{what} must be a number from 1, not {number!r}",
                             self.rules.closing)
        rules = self.rules
        current = self
        records: Records = []
        if self.bank.amount is None:
            fixed = max(add(*(s.value for s in self.stakes)), self.limits.min_bank or ZERO)
            current = dataclasses.replace(
                current, bank=dataclasses.replace(self.bank, amount=fixed))
            records.append({"event": "money.bank", "change": "open_bank_fixed",
                            "who": self.bank.banker.key,
                            "amount": self.profile.currency.value.text(fixed),
                            "rule": "chemin_de_fer.open_bank"})
        banco = current.banco
        bank = current.bank.amount
        assert bank is not None
        if (banco is not None and banco.kind is StakeKind.WITH_TABLE
                and rules.with_table_answerable.value):
            left = CONTEXT.subtract(bank, current.covering)
            beyond = add(*(s.value for s in current.stakes if current._beyond_bank(s)))
            difference = CONTEXT.subtract(left, min(left, beyond))
            if difference > 0:
                current, more = current._add(banco.who, StakeKind.DIFFERENCE, difference,
                                             difference, [], of=banco.id)
                records += more
        current = dataclasses.replace(current, closed=(shoe, coup))
        return current, [*records, current.to_record()]

    # --- checks --------------------------------------------------------------------------------

    def _open(self) -> None:
        if self.closed is not None:
            raise refuse("after_close", "betting is closed (Rien ne va plus): nothing changes "
                         "until the coup is settled", self.rules.closing)

    def _betting(self) -> None:
        """A new stake: betting is open. The minimum of players begins a game (its first
        bank, `Bank.take`); a hand under way goes on when a player leaves (issue 20)."""
        self._open()

    def _punter(self, who: Player, banco: bool) -> None:
        rules = self.rules
        if who == self.bank.banker or who == self.bank.partner:
            role = "banker" if who == self.bank.banker else "banker's partner"
            raise refuse("not_a_player", f"{who} is the {role}: he cannot stake against his own "
                         "bank", rules.up_to_bank)
        if who.seated and who.seat not in self.seating.occupied:
            raise refuse("not_a_player", f"nobody is seated at place {who.seat}",
                         rules.first_banker)
        if banco and not who.seated:
            raise refuse("not_a_player", f"{who} is not seated: only a seated player calls "
                         "banco", rules.prime)
        if not who.seated and rules.outsiders.value is Outsiders.NONE:
            raise refuse("not_offered", f"{who} is not seated: outsiders do not stake here",
                         rules.outsiders)

    def _outsider(self, who: Player, box: int | None) -> None:
        rules = self.rules
        self._punter(who, banco=False)
        if rules.outsiders.value is Outsiders.AT_BOX:
            if box is None or not 1 <= box <= self.seating.places:
                raise refuse("bad_request", f"a standing player stakes at a box, 1 to "
                             f"{self.seating.places}", rules.outsiders)
        elif box is not None:
            raise refuse("bad_request", "an outsider's stake goes in the middle of the table, "
                         "not at a box", rules.outsiders)

    def _stake_limits(self, who: Player, amount: Decimal) -> None:
        put_down(self.profile, self.limits, amount, "stake", self.profile.min_stake)
        if amount < self.limits.min_stake:
            raise refuse("below_minimum", f"{self.money(amount)} is below the minimum stake "
                         f"{self.money(self.limits.min_stake)}", self.profile.min_stake)
        top = self.limits.max_stake
        total = add(amount, *(s.amount for s in self.stakes if s.who == who))
        if top is not None and total > top:
            raise refuse("above_maximum", f"{who} would stake {self.money(total)}, above the "
                         f"maximum {self.money(top)}", self.profile.max_stake)

    # --- building ------------------------------------------------------------------------------

    def _add(self, who: Player, kind: StakeKind, amount: Decimal, value: Decimal,
             records: Records, *, over_line: bool = False, box: int | None = None,
             of: str | None = None) -> tuple[Round, Records]:
        currency = self.profile.currency.value
        stake = Stake(f"s{self.serial + 1}", who, kind, currency.amount(amount),
                      currency.amount(value), over_line, box, of)
        current = dataclasses.replace(self, stakes=(*self.stakes, stake), serial=self.serial + 1)
        return current, [*records, {"event": "money.stake", "stake": stake.to_dict(currency)}]

    def _remove(self, ids: list[str], why: str) -> tuple[Round, Records]:
        gone = set(ids)
        currency = self.profile.currency.value
        by_id = {s.id: s for s in self.stakes}
        records = [{"event": "money.withdrawn", "stake": i, "who": by_id[i].who.key,
                    "amount": currency.text(by_id[i].amount), "why": why} for i in ids]
        return dataclasses.replace(
            self, stakes=tuple(s for s in self.stakes if s.id not in gone)), records

    # --- the record ----------------------------------------------------------------------------

    def to_record(self) -> dict[str, Any]:
        """The round as the ledger keeps it (amounts as strings)."""
        currency = self.profile.currency.value
        shoe, coup = self.closed if self.closed is not None else (None, None)
        holder = self.holder
        return {
            "event": "money.round",
            "profile": self.profile.name,
            "shoe": shoe,
            "coup": coup,
            "currency": currency.code,
            "limits": self.limits.to_dict(),
            "seating": self.seating.to_dict(),
            "bank": self.bank.to_dict(currency),
            "stakes": [s.to_dict(currency) for s in self.stakes],
            "serial": self.serial,
            "holder": None if holder is None else holder.key,
        }

    @classmethod
    def from_record(cls, profile: MoneyProfile, record: Mapping[str, Any]) -> Round:
        """A closed round from its record; RecordError names what cannot be read."""
        try:
            if record["event"] != "money.round" or record["profile"] != profile.name:
                raise RecordError(f"not a {profile.name} round: {record.get('event')!r} of "
                                  f"{record.get('profile')!r}")
            currency = profile.currency.value
            if record["currency"] != currency.code:
                raise RecordError(f"currency {record['currency']!r} is not {currency.code}")
            shoe, coup = record["shoe"], record["coup"]
            if not all(isinstance(n, int) and not isinstance(n, bool) for n in (shoe, coup)):
                raise RecordError("a closed round has its shoe and coup")
            return cls(profile, TableLimits.from_dict(record["limits"]),
                       Seating.from_dict(record["seating"]),
                       BankInPlay.from_dict(record["bank"], currency),
                       tuple(Stake.from_dict(s, currency) for s in record["stakes"]),
                       int(record["serial"]), (shoe, coup))
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError) as error:
            raise RecordError(f"round record: {error!r}") from None


def banco_kind(kind: StakeKind) -> Kind:
    return {v: k for k, v in KIND_STAKE.items()}[kind]
