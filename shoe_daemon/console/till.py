"""The table's money at the live table: one `TableMoney` beside the coup machine, moved by
the console's money actions and by the game's own moments (docs/console.md, "The money").

The money itself is the pure package `shoe_daemon.money`; the till only says when each of
its actions happens and keeps the records each made until the table commits them:
- a console action (a croupier's stake, a supervisor's correction) is one money op, taken
  from the action's arguments (`op_of`) and applied at once (`act`): refused by the rules,
  nothing changes and nothing is kept;
- the coup machine's moments, whatever played them (a frame, what waited behind a latch, a
  console action), in their order (`follow`): a shoe started is `new_shoe`, a coup started
  (the shoe's `BTN,DEAL`: "Rien ne va plus") is `close`, a coup decided (its `coup.result`
  line, cancelled and void ones too: 000 rule 24) is `settle`.
`take` hands the records made since over to the table, which commits them in the same ledger
transaction as the frame or action that made them, after its lines, before anything is
shown; each record is a ledger record whose kind is its `event` and whose body is the record
as the money package made it.

The same till plays the records again: the daemon's restore (from the `money.table` record
of the shoe it restores from, `restore`), and `shoe-daemon replay --console`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from shoe_daemon.money.bank import Phase
from shoe_daemon.money.display import format_bank
from shoe_daemon.money.houses import get_money_profile
from shoe_daemon.money.limits import TableLimits
from shoe_daemon.money.profile import Bet, Kind, MoneyProfile
from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.table import TableMoney, settings_of

Records = list[dict[str, Any]]

#: Every kind of record the money makes (the ledger's kinds for them).
MONEY_KINDS = ("money.seating", "money.bank", "money.stake", "money.stake_changed",
               "money.withdrawn", "money.bet", "money.round", "money.settlement", "money.shoe",
               "money.table", "money.limits", "money.correction")

#: The console's money action kinds, each the money op of the same name.
CROUPIER_OPS = ("sit", "leave", "take_bank", "decline_bank", "accept_offer", "to_auction",
                "bid", "award", "suite", "schokolade", "garage", "banco", "share", "stake",
                "bet", "withdraw")
SUPERVISOR_OPS = ("correct", "reopen", "limits")
INTEGERS = ("seat", "box")  # the API's strings the money takes as numbers
FLAGS = ("over_line",)
PERSONAL = ("by", "reason")  # a supervisor's op says who and why in its record
CONFIGURATION = "configuration"  # `by` of a change of limits the configuration made


def op_of(kind: str, args: Mapping[str, str], by: str) -> dict[str, Any]:
    """The money op of a console action: its arguments as the money takes them (places and
    boxes as numbers, flags as true or false), and for a supervisor's, who and why."""
    op: dict[str, Any] = {"op": kind}
    for name, value in args.items():
        if name in INTEGERS:
            op[name] = int(value)
        elif name in FLAGS:
            op[name] = value == "true"
        else:
            op[name] = value
    if kind in SUPERVISOR_OPS:
        op["by"] = by
    return op


class Till:
    """The table's money now, and the records made since the table last committed."""

    def __init__(self, profile: MoneyProfile, limits: TableLimits, log: Any = None) -> None:
        self.profile = profile
        self.limits = limits  # the configuration's
        self.log = log
        self.money = TableMoney.start(profile, limits)
        self.settlement: dict[str, Any] | None = None  # the last coup's, as settled
        self.faults: list[str] = []  # moments the money could not follow (said on the console)
        self.version = 0  # moves with every change: the console's summary is built again
        self._pending: Records = []

    @classmethod
    def of(cls, profile: str, settings: Mapping[str, Any], log: Any = None) -> Till:
        """A till for a table of `profile` with its `[money]` settings (LimitsError names a
        bad one)."""
        from shoe_daemon.money.limits import table_limits

        money = get_money_profile(profile)
        return cls(money, table_limits(money, settings), log)

    # ---- what moves it ---------------------------------------------------------------------

    def act(self, kind: str, args: Mapping[str, str], by: str) -> Records:
        """A console action's op; Refusal (nothing changed) if the rules refuse it."""
        return self.apply(op_of(kind, args, by))

    def apply(self, op: Mapping[str, Any]) -> Records:
        try:
            self.money, records = self.money.apply(op)
        except Refusal as refusal:
            if refusal.code == "after_close":
                raise Refusal(refusal.code, f"{refusal.reason}; a supervisor may correct a "
                              "stake until the coup is settled", refusal.rule) from None
            raise
        self._kept(records)
        return records

    def follow(self, moments: list[tuple[Any, ...]]) -> None:
        """The game's moments, in order: a shoe started, a coup started, a coup decided. A
        moment the money refuses is said (log, console) and never stops the game."""
        for moment in moments:
            what = moment[0]
            if what == "shoe":
                op: dict[str, Any] = {"op": "new_shoe", "shoe": moment[1]}
            elif what == "coup":
                op = {"op": "close", "shoe": moment[1], "coup": moment[2]}
            else:
                op = {"op": "settle", "result": moment[1]}
            try:
                self.money, records = self.money.apply(op)
            except Refusal as refusal:
                fault = f"{op['op']}: {refusal}"
                self.faults = [*self.faults[-4:], fault]
                self.version += 1
                if self.log is not None:
                    self.log.error("money.refused", op=op["op"], code=refusal.code,
                                   reason=refusal.reason, rule=refusal.rule)
                continue
            self._kept(records)

    def take(self) -> Records:
        """The records made since last taken, in order, for the table's commit."""
        taken, self._pending = self._pending, []
        return taken

    def drop(self) -> None:
        self._pending = []

    def _kept(self, records: Records) -> None:
        self._pending += records
        self.version += 1
        for record in records:
            event = record["event"]
            if event == "money.settlement":
                self.settlement = record
            elif event == "money.correction" and record["change"] == "settlement":
                self.settlement = record["settlement"]

    # ---- start and restore ---------------------------------------------------------------------

    def restore(self, snapshot: Mapping[str, Any] | None) -> None:
        """The money as a `money.table` record has it (None: as the configuration starts it);
        the records since are played again by the table."""
        self._pending = []
        self.faults = []
        self.settlement = None
        self.version += 1
        if snapshot is None:
            self.money = TableMoney.start(self.profile, self.limits)
        else:
            self.money = TableMoney.from_snapshot(self.profile, snapshot)
            last = self.money.last
            self.settlement = None if last is None else dict(last.recorded)

    def recorded(self, settlement: Mapping[str, Any]) -> None:
        """The last settlement as the ledger holds it, where playing the records again gave
        another (docs/console.md, "Reopening a settlement")."""
        self.money = self.money.with_recorded(settlement)
        self.settlement = dict(settlement)
        self.version += 1

    def configured_op(self) -> dict[str, Any] | None:
        """The change of limits the configuration makes, if its `[money]` is not the one the
        money last took from it (the operator changed the file): from the next round, as
        any change of limits; None when it is the same (a supervisor's change then stands)."""
        if self.money.configured == self.limits:
            return None
        return {"op": "limits", "source": CONFIGURATION, "by": CONFIGURATION,
                "reason": "the configuration's [money] changed",
                **settings_of(self.limits, self.money.cdf)}

    def replayed_op(self, record: Mapping[str, Any]) -> dict[str, Any] | None:
        """A recorded change of limits the configuration made, as its op again (a change by
        a person is played again from the person's action); None for any other record."""
        if record.get("event") != "money.limits" or record.get("source") != CONFIGURATION:
            return None
        limits = TableLimits.from_dict(record["limits"])
        return {"op": "limits", "source": CONFIGURATION, "by": record["by"],
                "reason": record["reason"],
                **settings_of(limits, self.money.cdf)}

    # ---- what the console and the display read ------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """The money as the console shows it: the bank, whose turn, what the banker may do,
        the round, the limits, the last settlement, what could not be followed; with what
        the house offers, the Prime order and how the house writes its amounts, so that the
        page shows the money as the table calls it and never computes with it."""
        money, profile = self.money, self.profile
        out = {**money.summary(), "settlement": self.settlement,
               "currency": profile.currency.value.code, "faults": list(self.faults),
               "game": "chemin-de-fer" if money.cdf else "punto-banco",
               "locale": dataclasses.asdict(profile.locale.value), "offers": _offers(profile)}
        bank = money.bank
        if bank is not None and bank.phase is Phase.HELD:
            out["bank_text"] = "open bank (000 rule 5)" if bank.amount is None else format_bank(
                bank.amount, profile.currency.value, profile.locale.value)
            out["prime"] = _prime(money)
        return out


def _offers(profile: MoneyProfile) -> dict[str, Any]:
    """What the house offers: the kinds of play, outsiders, stakes over the line, an open
    bank, a partner, what the banker may set aside, the players a game begins with (its
    first bank: issue 20); at Punto Banco its bets."""
    cdf = profile.chemin_de_fer
    if cdf is None:
        return {"bets": [b.value for b in Bet]}
    return {"kinds": [k.value for k in Kind if cdf.kinds[k].value],
            "outsiders": cdf.outsiders.value.value, "over_line": bool(cdf.over_the_line.value),
            "open_bank": bool(cdf.open_bank.value), "partner": bool(cdf.partner.value),
            "set_aside": cdf.set_aside.value.value, "min_players": cdf.min_players.value}


def _prime(money: TableMoney) -> list[str]:
    """The seated punters in the order they are asked: the suivi first, then Prime and the
    places following from the banker in turn (000: "The first player ('Prime'), seated at
    the banker's right hand, has prior right to be punter"; rule 14)."""
    bank, seating = money.bank, money.seating
    assert bank is not None and seating is not None
    skip = {p.seat for p in (bank.holder, bank.partner) if p is not None and p.seated}
    order = [f"seat {place}" for place in seating.rotation(bank.anchor) if place not in skip]
    suivi = None if bank.suivi is None else bank.suivi.key
    return [suivi, *(p for p in order if p != suivi)] if suivi in order else order
