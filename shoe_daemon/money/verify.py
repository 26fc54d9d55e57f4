"""Checking recorded money against the rules: what `audit verify` and `replay` build on.

- `settle_round(profile, round_record, result_line)`: the settlement the rules give for a
  recorded closed round (`money.round`) and its published `coup.result` line; a pure
  function of the three.
- `check_settlement(...)`: None when a recorded `money.settlement` is exactly that, else the
  first difference in words ("lines[1].net: recorded '-600.00', the rules give '-300.00'").
- `check_actions(profile, limits, steps)`: plays the recorded actions again from the start
  and names the first one whose records differ from those recorded (or that the rules
  refuse): the whole money stream, the bank's history included. `check_step` is one such
  action, for a reader that plays a ledger's records as they come (shoe_daemon.audit).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from shoe_daemon.game.rules import Game
from shoe_daemon.money.chemin_de_fer import settle as settle_chemin_de_fer
from shoe_daemon.money.chemin_de_fer import unbanked
from shoe_daemon.money.legacy import current_form, schokolade_asked
from shoe_daemon.money.limits import TableLimits
from shoe_daemon.money.profile import MoneyProfile
from shoe_daemon.money.punto_banco import BetRound
from shoe_daemon.money.punto_banco import settle as settle_punto_banco
from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.round import Round
from shoe_daemon.money.settlement import Result, Settlement, first_difference
from shoe_daemon.money.stakes import RecordError
from shoe_daemon.money.table import TableMoney

Step = tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]


def settle_round(profile: MoneyProfile, round_record: Mapping[str, Any],
                 result_line: Mapping[str, Any], *, schokolade_asked: bool = False
                 ) -> Settlement:
    """The settlement of a recorded closed round and its result (`schokolade_asked`: by the
    reading before issue 20, legacy.py); RecordError if either cannot be read or they are
    not one coup."""
    result = Result.of_line(result_line)
    if profile.game is Game.PUNTO_BANCO:
        return settle_punto_banco(profile, BetRound.from_record(profile, round_record), result)
    if round_record.get("bank", ...) is None:
        if round_record.get("stakes") != [] or (round_record.get("shoe"),
                                                 round_record.get("coup")) != (result.shoe,
                                                                               result.coup):
            raise RecordError("a round without a bank has no stakes and is the result's coup")
        return unbanked(profile, result)
    return settle_chemin_de_fer(profile, Round.from_record(profile, round_record), result,
                                schokolade_asked=schokolade_asked)


def check_settlement(profile: MoneyProfile, round_record: Mapping[str, Any],
                     result_line: Mapping[str, Any], recorded: Mapping[str, Any]) -> str | None:
    """None when `recorded` is the settlement the rules give (by the rules it was written
    with: legacy.py); else the first difference."""
    try:
        computed = settle_round(profile, round_record, result_line,
                                schokolade_asked=schokolade_asked(profile, recorded)).to_dict()
    except (RecordError, ValueError) as error:
        return f"the settlement cannot be recomputed: {error}"
    return first_difference(current_form(recorded), computed)


def replay(profile: MoneyProfile, limits: TableLimits, ops: Iterable[Mapping[str, Any]],
           start: TableMoney | None = None) -> tuple[TableMoney, list[list[dict[str, Any]]]]:
    """The table after `ops`, and each op's records (a refused op raises its Refusal)."""
    table = start or TableMoney.start(profile, limits)
    out = []
    for op in ops:
        table, records = table.apply(op)
        out.append(records)
    return table, out


def check_step(table: TableMoney, op: Mapping[str, Any],
               recorded: Sequence[Mapping[str, Any]]) -> tuple[TableMoney, str | None]:
    """One recorded action played again on `table`: the table after it, and None when it
    makes exactly its recorded records, else the first difference in words (the table is
    then the one the rules give)."""
    try:
        table, records = table.apply(op)
    except Refusal as refusal:
        return table, f"the rules refuse it: {refusal.cited()}"
    return table, first_difference([current_form(r) for r in recorded], records, "records")


def check_actions(profile: MoneyProfile, limits: TableLimits, steps: Iterable[Step],
                  start: TableMoney | None = None) -> str | None:
    """None when every recorded action, played again, makes exactly its recorded records."""
    table = start or TableMoney.start(profile, limits)
    for n, (op, recorded) in enumerate(steps, 1):
        name = op.get("op") if isinstance(op, Mapping) else None
        table, found = check_step(table, op, recorded)
        if found:
            return f"action {n} ({name}): {found}"
    return None
