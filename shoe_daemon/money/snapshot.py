"""The serialised forms of what a table's money holds between actions: an open or closed
round, a Punto Banco bet round, and the last settlement a supervisor may reopen.

They make up `TableMoney.snapshot()`, the `money.table` record written at each new shoe: the
table's money whole (seating, bank, limits, round, carried bets), so that the daemon's
restore, which plays the ledger again only from the last shoe's start, can start the money
from there although the bank outlives the shoe (docs/money.md, "The table's money at a new
shoe"). `from_*` read them back; a record that cannot be read raises `RecordError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shoe_daemon.money.limits import TableLimits
from shoe_daemon.money.players import Seating
from shoe_daemon.money.profile import MoneyProfile
from shoe_daemon.money.punto_banco import BetRound, BoxBet
from shoe_daemon.money.round import Round
from shoe_daemon.money.stakes import BankInPlay, RecordError, Stake


def round_state(current: Round | BetRound | None) -> dict[str, Any] | None:
    """A round, open (`shoe` and `coup` null) or closed, as its `money.round` record."""
    return None if current is None else current.to_record()


def round_of(profile: MoneyProfile, data: Mapping[str, Any] | None) -> Round | BetRound | None:
    """A round read back from `round_state`, open or closed."""
    if data is None:
        return None
    try:
        shoe, coup = data["shoe"], data["coup"]
        closed = None if shoe is None and coup is None else (int(shoe), int(coup))
        limits = TableLimits.from_dict(data["limits"])
        currency = profile.currency.value
        if profile.punto_banco is not None:
            return BetRound(profile, limits,
                            tuple(BoxBet.from_dict(b, profile) for b in data["bets"]),
                            int(data["serial"]), closed)
        return Round(profile, limits, Seating.from_dict(data["seating"]),
                     BankInPlay.from_dict(data["bank"], currency),
                     tuple(Stake.from_dict(s, currency) for s in data["stakes"]),
                     int(data["serial"]), closed)
    except RecordError:
        raise
    except (KeyError, TypeError, ValueError) as error:
        raise RecordError(f"round state: {error!r}") from None


def bets_state(profile: MoneyProfile, bets: tuple[BoxBet, ...]) -> list[dict[str, Any]]:
    return [b.to_dict(profile) for b in bets]


def bets_of(profile: MoneyProfile, data: Any) -> tuple[BoxBet, ...]:
    if not isinstance(data, list):
        raise RecordError(f"carried bets: not a list: {data!r}")
    return tuple(BoxBet.from_dict(b, profile) for b in data)
