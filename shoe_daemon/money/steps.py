"""The actions a stream of money records says were taken, read back from the records alone.

Every action `TableMoney.apply` takes leaves records that name what was done: a stake's
player, kind and amount; the bank's change and who made it; the round closed for a shoe and
coup; the settlement of a coup. `StepReader` reads a ledger's money records, in order, back
into the actions (`op`s) that made them and the records each made, so that `audit verify`
plays them again from the ledger alone (`verify.check_step`), whichever console, frame or
restart took them. Playing a session's records back through `StepReader` and `apply` gives
the same records again (tests/money/test_steps.py).

Where one action makes several records, the reader knows them by their shape:

| records | action |
| --- | --- |
| `money.withdrawn` (displaced, cleared)..., `money.stake` of a banco form | `banco` |
| `money.withdrawn` (the banker gave up the bank)..., `money.bank` `suite` | `suite` |
| `money.withdrawn` (not covered)..., `money.bank` `schokolade` | `schokolade` |
| `money.stake_changed`, `money.stake` `share` | `share` |
| `money.withdrawn` `withdrawn`, its shares', (`money.stake_changed` of a share) | `withdraw` |
| (`money.bank` `open_bank_fixed`), (`money.stake` `difference`), `money.round` | `close` |
| `money.settlement`, (`money.bank` `settled`) | `settle` |
| `money.bank` `new_shoe` (or `money.shoe`), `money.table` | `new_shoe` |
| `money.correction` `stake`, what it withdrew and placed again, ..., `money.round` | `correct` |
| `money.correction` `settlement`, (`money.bank` `corrected`) | `reopen` |
| `money.limits` | `limits` (the supervisor's changes, or the configuration's `[money]`) |

A settlement's action takes the `coup.result` line the ledger published for its coup, which
the caller gives (`result_for`): the settlement is thereby played against the published
result, never against the one it may claim; a settlement written before issue 20 at Baden
(no `bank.set_aside`) is played by the reading it was written with (`schokolade: "asked"`,
as at a table configured so), and a bank taken before it (no `seated`) uncounted
(`before_issue_20`, legacy.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from shoe_daemon.game.rules import Game
from shoe_daemon.money.legacy import EARLIER, schokolade_asked, uncounted
from shoe_daemon.money.limits import ASKED, TableLimits
from shoe_daemon.money.profile import MoneyProfile
from shoe_daemon.money.stakes import RecordError
from shoe_daemon.money.table import LIMIT_KEYS, settings_of

Op = dict[str, Any]
ResultFor = Callable[[int, int], Mapping[str, Any]]

#: The kinds of stake a banco call makes (`StakeKind`'s banco forms).
BANCO_KINDS = frozenset({"banco_solo", "banco", "banco_with_table"})
#: A `money.withdrawn` record's `why` when the croupier took the stake back (`withdraw`).
WITHDRAWN = "withdrawn"
#: Bank changes made by an action of their own, and the fields that action takes.
BANK_OPS: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "decline": ("decline_bank", ("who",)),
    "accept": ("accept_offer", ("who",)),
    "to_auction": ("to_auction", ()),
    "bid": ("bid", ("who", "amount")),
    "award": ("award", ()),
    "schokolade": ("schokolade", ()),
    "garage": ("garage", ("amount",)),
}


class StepError(RecordError):
    """A money record no action makes where it stands; `at` is its place in the records
    read."""

    def __init__(self, at: int, why: str):
        super().__init__(why)
        self.at = at


class StepReader:
    """Reads money records back into actions; keeps what it needs across calls (the stakes
    of the round in play), so a ledger can be read one transaction at a time."""

    def __init__(self, profile: MoneyProfile) -> None:
        self.profile = profile
        self.stakes: dict[str, Mapping[str, Any]] = {}  # the round in play's, by id

    def read(self, records: Sequence[Mapping[str, Any]], result_for: ResultFor
             ) -> list[tuple[Op, int, int]]:
        """Each action in `records` as (op, start, end): it made `records[start:end]`.
        StepError names the first record no action makes there (`result_for`'s own
        exceptions pass through)."""
        steps: list[tuple[Op, int, int]] = []
        at = 0
        while at < len(records):
            try:
                op, end = self._step(records, at, result_for)
            except RecordError as error:
                raise StepError(at, str(error)) from None
            steps.append((op, at, end))
            for record in records[at:end]:
                self._note(record)
            at = end
        return steps

    def _note(self, record: Mapping[str, Any]) -> None:
        event = record.get("event")
        if event == "money.stake":
            stake = record["stake"]
            self.stakes[stake["id"]] = stake
        elif event == "money.round":
            self.stakes = {}

    def _step(self, records: Sequence[Mapping[str, Any]], at: int, result_for: ResultFor
              ) -> tuple[Op, int]:
        record = records[at]
        event = record.get("event")
        try:
            if event == "money.withdrawn":
                return self._withdrawn(records, at)
            if event == "money.stake_changed":
                share = _next(records, at, "money.stake")
                if share["stake"]["kind"] != "share":
                    raise RecordError("a banco's part changed without a share taken or given "
                                      "back")
                return {"op": "share", "who": share["stake"]["who"], "of": record["who"],
                        "amount": share["stake"]["amount"]}, at + 2
            if event == "money.stake":
                return self._stake(records, at)
            if event == "money.bank":
                return self._bank(records, at)
            if event == "money.round":
                return {"op": "close", "shoe": record["shoe"], "coup": record["coup"]}, at + 1
            if event == "money.settlement":
                result = result_for(record["shoe"], record["coup"])
                end = at + 1
                if end < len(records) and records[end].get("event") == "money.bank" and \
                        records[end].get("change") == "settled":
                    end += 1
                op: Op = {"op": "settle", "result": dict(result)}
                if schokolade_asked(self.profile, record):
                    op["schokolade"] = ASKED  # the Schokolade asked for (legacy.py)
                return op, end
            if event == "money.bet":
                bet = record["bet"]
                return {"op": "bet", "box": bet["box"], "bet": bet["bet"],
                        "amount": bet["amount"]}, at + 1
            if event == "money.seating":
                return {"op": record["change"], "seat": record["seat"]}, at + 1
            if event == "money.shoe":
                return {"op": "new_shoe", "shoe": record["shoe"]}, _then(records, at + 1,
                                                                          "money.table")
            if event == "money.limits":
                return self._limits(record), at + 1
            if event == "money.correction":
                return self._correction(records, at)
            if event == "money.table":
                raise RecordError("the table's money whole, without the new shoe it is "
                                  "written at")
        except KeyError as error:
            raise RecordError(f"{event} record without {error}") from None
        except (TypeError, AttributeError) as error:
            raise RecordError(f"{event} record unreadable ({error})") from None
        raise RecordError(f"{event!r} is not a money record")

    def _withdrawn(self, records: Sequence[Mapping[str, Any]], at: int) -> tuple[Op, int]:
        first = records[at]
        if first["why"] == WITHDRAWN:
            taken = first["stake"]
            end = at + 1
            while end < len(records) and _is(records[end], "money.withdrawn") and \
                    records[end]["why"] == WITHDRAWN and \
                    self.stakes.get(records[end]["stake"], {}).get("of") == taken:
                end += 1
            if self.stakes.get(taken, {}).get("kind") == "share" and end < len(records) and \
                    _is(records[end], "money.stake_changed"):
                end += 1
            return {"op": "withdraw", "stake": taken}, end
        end = at
        while end < len(records) and _is(records[end], "money.withdrawn"):
            end += 1
        if end == len(records):
            raise RecordError(f"stakes returned ({first['why']}) without the banco or Suite "
                              "that returned them")
        then = records[end]
        if _is(then, "money.stake") and then["stake"]["kind"] in BANCO_KINDS:
            return self._banco(then["stake"]), end + 1
        if _is(then, "money.bank") and then["change"] in ("suite", "schokolade"):
            return {"op": then["change"]}, end + 1
        raise RecordError(f"stakes returned ({first['why']}) without the banco, Suite or "
                          "Schokolade that returned them")

    def _stake(self, records: Sequence[Mapping[str, Any]], at: int) -> tuple[Op, int]:
        stake = records[at]["stake"]
        kind = stake["kind"]
        if kind in BANCO_KINDS:
            return self._banco(stake), at + 1
        if kind in ("table", "outsider"):
            op: Op = {"op": "stake", "who": stake["who"], "amount": stake["amount"]}
            if stake["over_line"]:
                op["over_line"] = True
            if stake["box"] is not None:
                op["box"] = stake["box"]
            return op, at + 1
        if kind == "difference":
            closing = _next(records, at, "money.round")
            return {"op": "close", "shoe": closing["shoe"], "coup": closing["coup"]}, at + 2
        raise RecordError(f"a {kind} stake made by no action of its own")

    @staticmethod
    def _banco(stake: Mapping[str, Any]) -> Op:
        op: Op = {"op": "banco", "who": stake["who"], "kind": stake["kind"]}
        if stake["kind"] == "banco_with_table":
            op["amount"] = stake["amount"]
        return op

    def _bank(self, records: Sequence[Mapping[str, Any]], at: int) -> tuple[Op, int]:
        record = records[at]
        change = record["change"]
        if change == "take":
            op: Op = {"op": "take_bank", "who": record["who"],
                      "amount": "open" if record["amount"] is None else record["amount"]}
            if record["partner"] is not None:
                op.update(partner=record["partner"], partner_amount=record["partner_amount"])
            if uncounted(record):
                op[EARLIER] = True  # the players not counted at the take (legacy.py)
            return op, at + 1
        if change == "suite":
            return {"op": "suite"}, at + 1
        if change == "open_bank_fixed":
            end = at + 1
            if end < len(records) and _is(records[end], "money.stake") and \
                    records[end]["stake"]["kind"] == "difference":
                end += 1
            closing = _next(records, end - 1, "money.round")
            return {"op": "close", "shoe": closing["shoe"], "coup": closing["coup"]}, end + 1
        if change == "new_shoe":
            return {"op": "new_shoe", "shoe": record["shoe"]}, _then(records, at + 1,
                                                                      "money.table")
        if change in BANK_OPS:
            name, fields = BANK_OPS[change]
            return {"op": name, **{f: record[f] for f in fields}}, at + 1
        if change == "settled":
            raise RecordError("a bank settled without the coup's settlement before it")
        if change == "corrected":
            raise RecordError("a bank corrected without the settlement reopened before it")
        raise RecordError(f"no action changes the bank by {change!r}")

    def _limits(self, record: Mapping[str, Any]) -> Op:
        """A change of limits: the supervisor's changes (the limits that differ), or the
        configuration's whole `[money]` as the daemon takes it at start."""
        op: Op = {"op": "limits", "by": record["by"], "reason": record["reason"],
                  "source": record["source"]}
        cdf = self.profile.game is Game.CHEMIN_DE_FER
        if record["source"] == "configuration":
            return {**op, **settings_of(TableLimits.from_dict(record["limits"]), cdf)}
        before, after = record["before"], record["limits"]
        return {**op, **{key: "none" if after[key] is None else after[key]
                         for key in LIMIT_KEYS[self.profile.game] if before[key] != after[key]}}

    def _correction(self, records: Sequence[Mapping[str, Any]], at: int) -> tuple[Op, int]:
        record = records[at]
        op: Op = {"by": record["by"], "reason": record["reason"]}
        if record["change"] == "settlement":
            return {"op": "reopen", "how": record["how"], **op}, _then(records, at + 1,
                                                                        "money.bank", "corrected")
        if record["change"] != "stake":
            raise RecordError(f"no action corrects {record['change']!r}")
        end = at + 1
        while end < len(records) and not _is(records[end], "money.round"):
            end += 1
        if end == len(records):
            raise RecordError("a stake corrected without its round closed again")
        op = {"op": "correct", "amount": record["amount"], **op}
        if record["stake"] is not None:
            return {**op, "stake": record["stake"]}, end + 1
        placed = next((r for r in records[at + 1:end] if _is(r, "money.bet") or (
            _is(r, "money.stake") and r["stake"]["kind"] != "difference")), None)
        if placed is None:
            raise RecordError("a stake missed and corrected, without the stake placed")
        if _is(placed, "money.bet"):
            return {**op, "box": placed["bet"]["box"], "bet": placed["bet"]["bet"]}, end + 1
        stake = placed["stake"]
        op["who"] = stake["who"]
        if stake["kind"] in BANCO_KINDS:
            op["kind"] = stake["kind"]
        if stake["over_line"]:
            op["over_line"] = True
        if stake["box"] is not None:
            op["box"] = stake["box"]
        return op, end + 1


def _then(records: Sequence[Mapping[str, Any]], at: int, event: str,
          change: str | None = None) -> int:
    """Where an action's records end: after `records[at]` if it is the `event` (of that
    `change`) the action makes last, else at it."""
    if at < len(records) and _is(records[at], event) and (
            change is None or records[at].get("change") == change):
        return at + 1
    return at


def _is(record: Mapping[str, Any], event: str) -> bool:
    return record.get("event") == event


def _next(records: Sequence[Mapping[str, Any]], at: int, event: str) -> Mapping[str, Any]:
    """The record after `at`, which must be an `event`."""
    if at + 1 >= len(records) or not _is(records[at + 1], event):
        found = records[at + 1].get("event") if at + 1 < len(records) else "nothing"
        raise RecordError(f"{records[at].get('event')} followed by {found}, not {event}")
    return records[at + 1]
