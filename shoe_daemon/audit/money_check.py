"""`audit verify`'s checks of the money: the money under the same audit as the cards.

The table records every stake, round, settlement and change of the bank as a ledger record
whose kind is its `event` (`money.stake`, `money.round`, `money.settlement`, `money.bank`,
...) and whose body is the record exactly as shoe_daemon.money made it, in the transaction
of the frame or console action that made it (docs/money.md). `MoneyCheck` reads an export's
or a ledger's records in order, one transaction at a time, and checks:

1. every `money.settlement` follows by the house's rules from its closed round (`money.round`
   of that shoe and coup) and the `coup.result` line the ledger published for that coup
   (`money.verify.check_settlement`), and its outcome is that line's;
2. no coup is settled twice; none is left unsettled once decided while the table held a
   bank (or its round was closed);
3. a void or cancelled coup returned every stake (000 rule 24; the profiles' `void` term);
4. every record, the rounds and the bank's whole history included, is what the actions read
   back from the records make when played again by the rules (`money.steps.StepReader`,
   `money.verify.check_step`): a stake changed or deleted after the fact, a round edited
   after "Rien ne va plus", a bank that did not come from its coups, are named where they
   first disagree.

A supervisor's actions are actions like the others (`limits`, `correct`, `reopen`), played
again from their records. A ledger written before issue 20 is played by the rules it was
written with, and its records compared in today's form (shoe_daemon/money/legacy.py: places
as players' keys, Baden's Schokolade asked for, the first bank taken uncounted).

One exception to (1): a settlement not by the rules (a ledger written by earlier software)
that a supervisor reopens by the rules before anything else is staked or changed at the bank
(`money.correction` of the settlement, docs/console.md) is corrected, not forged: the
summary names it and the record that corrected it. Left as it is, it is the failure.

The actions are played from the ledger's first record when the records start there; an
export or a pruned ledger that starts later is played from the first new shoe in it, whose
`money.table` record holds the table's money whole (bank, seating, limits, the round in
play). Before it every settlement is still recomputed from its round, but for one whose
round was closed before the first record, and the actions are not played again: the table's
state is not in the records.

Nothing here raises while records are fed: the first failure (the lowest record) is kept and
`finish` raises it, so that the chain's and the files' checks, which come first, always win.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from shoe_daemon.audit.ledger import Record
from shoe_daemon.audit.reader import VerifyFailed
from shoe_daemon.game.houses import UnknownProfileError
from shoe_daemon.game.rules import Game
from shoe_daemon.money.houses import get_money_profile
from shoe_daemon.money.legacy import current_form
from shoe_daemon.money.limits import LimitsError, TableLimits, table_limits
from shoe_daemon.money.profile import MoneyProfile
from shoe_daemon.money.settlement import RESULTS, first_difference
from shoe_daemon.money.stakes import RecordError
from shoe_daemon.money.steps import StepError, StepReader
from shoe_daemon.money.table import KEEPS_LAST, TableMoney
from shoe_daemon.money.verify import check_settlement, check_step

Coup = tuple[int, int]
VOID_RULE = "000 rule 24, the profile's `void` term"


class _Failed(Exception):
    """A money check failed at record `idx`."""

    def __init__(self, idx: int, why: str):
        super().__init__(why)
        self.idx = idx
        self.why = why


class _NoResult(Exception):
    def __init__(self, coup: Coup):
        super().__init__(coup)
        self.coup = coup


@dataclass
class MoneySummary:
    """What the money checks covered, for verify's summary line."""

    records: int = 0  # money records read
    settlements: int = 0  # recomputed by the rules
    before_range: int = 0  # settlements whose round was closed before the first record
    voids: int = 0  # void or cancelled coups, every stake returned
    actions: int = 0  # actions read back and played again
    played_from: int | None = None  # the record from which the actions were played
    reopened: int = 0  # settlements a supervisor reopened
    corrected: list[str] = field(default_factory=list)  # of them, recorded not by the rules

    def text(self) -> str:
        if not self.records:
            return "no money records"
        out = f"money: {self.settlements} settlements follow their rounds and results"
        if self.before_range:
            out += f" ({self.before_range} settled a round closed before the first record)"
        if self.reopened:
            out += f", {self.reopened} reopened by a supervisor"
            if self.corrected:
                out += f" ({len(self.corrected)} recorded not by the rules and corrected: " \
                       f"{'; '.join(self.corrected)})"
        if self.played_from is None:
            return out + "; the actions were not played again: the range holds no new " \
                         "shoe's money.table record (the table's money whole) to play them from"
        return (f"{out}, {self.actions} actions played again by the rules from record "
                f"{self.played_from}")


def _coup_of(body: Mapping[str, Any]) -> Coup | None:
    shoe, coup = body.get("shoe"), body.get("coup")
    if all(isinstance(n, int) and not isinstance(n, bool) for n in (shoe, coup)):
        return shoe, coup
    return None


def _about(kind: str, body: Mapping[str, Any]) -> str:
    """A money record in words: "money.settlement of shoe 1 coup 5", "money.bank take"."""
    coup = _coup_of(body)
    if kind in ("money.settlement", "money.round") and coup is not None:
        return f"{kind} of shoe {coup[0]} coup {coup[1]}"
    if kind == "money.bank":
        return f"money.bank {body.get('change')}"
    if kind == "money.stake" and isinstance(body.get("stake"), Mapping):
        stake = body["stake"]
        return f"money.stake {stake.get('id')} ({stake.get('who')}, {stake.get('kind')})"
    return kind


class MoneyCheck:
    """Feed every record in order (`feed`), then `finish`: the summary, or VerifyFailed
    naming the first record whose money is wrong."""

    def __init__(self, *, from_start: bool, profile: str | None = None,
                 where: Callable[[int], str] = lambda idx: f"record {idx}"):
        self.from_start = from_start  # the records start at the ledger's record 1
        self.where = where
        self.summary = MoneySummary()
        self.failure: _Failed | None = None
        self.profile: MoneyProfile | None = None
        self.named: str | None = None  # the profile the table said it plays, money or not
        self._set_profile(profile)
        self.limits: TableLimits | None = None  # the configuration's, at the table's start
        self.txn: list[Record] = []
        self.txn_key: tuple[str, int, int] | None = None
        self.reader: StepReader | None = None
        self.disputed: dict[Coup, _Failed] = {}  # not by the rules, unless reopened
        self.table: TableMoney | None = None
        self.backlog: list[tuple[dict[str, Any], list[Record]]] = []  # before limits known
        self.results: dict[Coup, tuple[int, dict[str, Any]]] = {}
        self.rounds: dict[Coup, tuple[int, dict[str, Any]]] = {}
        self.settled: dict[Coup, int] = {}
        self.pending: dict[Coup, tuple[int, str]] = {}  # decided, awaiting settlement
        self.seen_money = False  # a round or settlement before: a later one must pair up
        self.bank: dict[str, Any] | None = None  # the bank's state, as last recorded

    # --- feeding ----------------------------------------------------------------------------

    def feed(self, record: Record) -> None:
        if self.failure is not None:
            return
        key = (record.boot, record.wall_ns, record.mono_ns)  # one transaction's records
        if key != self.txn_key:
            self._flush()
            self.txn_key = key
        self.txn.append(record)

    def finish(self) -> MoneySummary:
        self._flush()
        if self.failure is None and self.disputed:
            self.failure = min(self.disputed.values(), key=lambda f: f.idx)
        if self.failure is None and self.pending:
            coup, (idx, held) = min(self.pending.items(), key=lambda item: item[1][0])
            self.failure = _Failed(idx, f"coup.result of shoe {coup[0]} coup {coup[1]}: "
                                        f"decided {held}, and never settled (no "
                                        "money.settlement for it)")
        if self.failure is not None:
            raise VerifyFailed(f"{self.where(self.failure.idx)}: {self.failure.why}")
        return self.summary

    def _flush(self) -> None:
        records, self.txn = self.txn, []
        if not records or self.failure is not None:
            return
        earlier = dict(self.pending)  # coups decided in the transactions before
        try:
            self._transaction(records)
        except _Failed as failure:
            self.failure = failure
            left = [(idx, coup, held) for coup, (idx, held) in earlier.items()
                    if idx < failure.idx]
            if left:  # what went wrong next follows from the coup never settled
                idx, coup, held = min(left)
                self.failure = _Failed(idx, f"coup.result of shoe {coup[0]} coup {coup[1]}: "
                                            f"decided {held}, and never settled: record "
                                            f"{failure.idx} came next without its "
                                            f"settlement ({failure.why})")

    # --- one transaction ----------------------------------------------------------------------

    def _transaction(self, records: list[Record]) -> None:
        results: list[tuple[Coup, int]] = []
        money: list[Record] = []
        for record in records:
            body = record.body
            if record.kind == "daemon.start" and isinstance(body, dict):
                self._daemon_start(body)
            elif record.kind == "result" and isinstance(body, dict):
                line = body.get("line")
                if isinstance(line, dict) and line.get("event") == "coup.result":
                    coup = _coup_of(line)
                    if coup is not None:
                        self.results[coup] = (record.idx, line)
                        results.append((coup, record.idx))
            elif record.kind.startswith("money."):
                if not isinstance(body, dict) or body.get("event") != record.kind:
                    event = body.get("event") if isinstance(body, dict) else None
                    raise _Failed(record.idx, f"{record.kind}: its body is not a "
                                              f"{record.kind} record (event {event!r})")
                money.append(record)
        held = self._held()
        for coup, idx in results:
            if coup in self.settled:
                continue
            if coup in self.rounds:
                self.pending[coup] = (idx, "after its round was closed")
            elif held is not None:
                self.pending[coup] = (idx, held)
        if money:
            self.summary.records += len(money)
            self._money(money)
        for coup, idx in results:  # a round closed and decided in this one transaction
            if coup not in self.settled and coup not in self.pending and coup in self.rounds:
                self.pending[coup] = (idx, "after its round was closed")

    def _held(self) -> str | None:
        """Why a coup decided now must be settled (the table holds a bank), else None."""
        if self.profile is None or not self.summary.records:
            return None
        if self.profile.game is Game.PUNTO_BANCO:
            return "while the casino held the bank"
        bank = self.bank or {}
        if bank.get("phase") == "held":
            return f"while {bank.get('holder')} held the bank"
        return None

    def _daemon_start(self, body: dict[str, Any]) -> None:
        """The table's profile; and, before its money starts, the limits its configuration
        starts it with (a later change of the configuration is a `money.limits` record)."""
        before = self.profile
        self._set_profile(body.get("profile"))
        if before is not None and self.profile is not before:
            self.table, self.backlog = None, []  # another game: its money starts afresh
        if self.table is not None or self.backlog:
            return
        config = body.get("config")
        settings = config.get("money") if isinstance(config, dict) else None
        self.limits = None
        if self.profile is not None and isinstance(settings, dict):
            try:
                self.limits = table_limits(self.profile, settings)
            except (LimitsError, ValueError):
                self.limits = None

    def _set_profile(self, name: Any) -> None:
        if not isinstance(name, str):
            return
        self.named = name
        try:
            self.profile = get_money_profile(name)
        except UnknownProfileError:
            self.profile = None

    def _money(self, money: list[Record]) -> None:
        if self.profile is None and self.named is None:
            # A pruned ledger before its next daemon.start: the rounds name the profile.
            self._set_profile(next((r.body.get("profile") for r in money
                                    if r.kind in ("money.round", "money.settlement")), None))
            if self.profile is None and self.named is None:
                return  # nothing to check these by yet: the actions start later
        if self.profile is None:
            raise _Failed(money[0].idx, f"{money[0].kind}: money recorded, but the table plays "
                                        f"{self.named!r}, which has no money rules")
        bodies = [r.body for r in money]
        if self.reader is None or self.reader.profile is not self.profile:
            self.reader = StepReader(self.profile)
        try:
            steps = self.reader.read(bodies, self._result_for)
        except StepError as error:
            record = money[error.at]
            raise _Failed(record.idx, f"{_about(record.kind, record.body)}: made by no money "
                                      f"action there: {error}") from None
        except _NoResult as missing:
            record = next(r for r in money if r.kind == "money.settlement"
                          and _coup_of(r.body) == missing.coup)
            raise _Failed(record.idx, f"{_about(record.kind, record.body)}: no coup.result "
                                      f"was published for shoe {missing.coup[0]} coup "
                                      f"{missing.coup[1]}") from None
        failures: list[_Failed] = []
        try:  # the coups: each round, each settlement against its round and result
            for op, start, end in steps:
                made = money[start:end]
                if op["op"] not in KEEPS_LAST:
                    self._judge(made[0].idx)
                if op["op"] == "settle":
                    self._settlement(made[0])
                elif op["op"] == "close":
                    self._none_left(made[-1])
                    self._closed(made[-1])
                elif op["op"] == "correct":
                    self._closed(made[-1])
                elif op["op"] == "reopen":
                    self._reopened(made[0])
        except _Failed as failure:
            failures.append(failure)
        try:  # the actions played again
            for op, start, end in steps:
                made = money[start:end]
                self._play(op, made)
                self._track(made)
        except _Failed as failure:
            failures.append(failure)
        if failures:  # the first record wrong; a coup's own check before the actions'
            raise min(failures, key=lambda f: f.idx)

    def _judge(self, before: int) -> None:
        """A settlement not by the rules may be reopened only until the next action that is
        not a settlement, a new shoe, a reopening or a change of limits: after that (or at
        the end) it stands as the first failure."""
        if self.disputed:
            failure = min(self.disputed.values(), key=lambda f: f.idx)
            if failure.idx < before:
                raise failure

    def _reopened(self, record: Record) -> None:
        """A supervisor reopened the last settlement (`money.correction` of the settlement):
        one not by the rules is corrected (and counted as such); the corrected one is checked
        when the reopening is played again."""
        coup = _coup_of(record.body)
        disputed = None if coup is None else self.disputed.pop(coup, None)
        if coup is not None and disputed is not None:
            self.summary.corrected.append(
                f"shoe {coup[0]} coup {coup[1]}, {self.where(disputed.idx)}, corrected by "
                f"{self.where(record.idx)}")
        self.summary.reopened += 1

    def _closed(self, record: Record) -> None:
        coup = _coup_of(record.body)
        if coup is not None:
            self.rounds[coup] = (record.idx, record.body)
            self._forget_before(coup[0])

    def _none_left(self, closing: Record) -> None:
        """A round closes: every coup decided before it that had to be settled was."""
        left = [(idx, coup, held) for coup, (idx, held) in self.pending.items()
                if idx < closing.idx]
        if left:
            idx, coup, held = min(left)
            raise _Failed(idx, f"coup.result of shoe {coup[0]} coup {coup[1]}: decided "
                               f"{held}, and never settled: the next round "
                               f"({_about(closing.kind, closing.body)}, record {closing.idx}) "
                               "was closed without its settlement")

    def _result_for(self, shoe: int, coup: int) -> Mapping[str, Any]:
        found = self.results.get((shoe, coup))
        if found is None:
            raise _NoResult((shoe, coup))
        return found[1]

    # --- a settlement --------------------------------------------------------------------------

    def _settlement(self, record: Record) -> None:
        assert self.profile is not None
        body = record.body
        about = _about(record.kind, body)

        def fail(why: str) -> _Failed:
            return _Failed(record.idx, f"{about}: {why}")

        coup = _coup_of(body)
        if coup is None:
            raise fail("its shoe and coup are not numbers")
        if coup in self.settled:
            raise fail(f"shoe {coup[0]} coup {coup[1]} was settled already, by record "
                       f"{self.settled[coup]} (a coup is settled once)")
        result_idx, line = self.results[coup]
        if body.get("outcome") != line.get("outcome"):
            raise fail(f"its outcome {body.get('outcome')!r} is not the one the ledger "
                       f"published for shoe {coup[0]} coup {coup[1]}, "
                       f"{line.get('outcome')!r} (record {result_idx})")
        closed = self.rounds.pop(coup, None)
        if closed is None and (self.seen_money or self.from_start):
            raise fail(f"no money.round closed shoe {coup[0]} coup {coup[1]} before it "
                       "(the stakes it settles are not in the ledger)")
        try:  # not by the rules: a failure unless a supervisor reopens it at once
            if line.get("outcome") in ("void", "cancelled"):
                self._returned(body, fail)
                self.summary.voids += 1
            if closed is None:
                self.summary.before_range += 1
            else:
                round_idx, round_body = closed
                found = check_settlement(self.profile, round_body, line, body)
                if found is not None:
                    raise fail(f"{found} (for its round, record {round_idx}, and the result "
                               f"published, record {result_idx})")
                self.summary.settlements += 1
        except _Failed as failure:
            self.disputed[coup] = failure
        self.settled[coup] = record.idx
        self.pending.pop(coup, None)
        self.results.pop(coup, None)
        self._forget_before(coup[0])
        self.seen_money = True

    def _forget_before(self, shoe: int) -> None:
        """What the checks keep of the shoes before the last two: a settlement of an older
        shoe is refused anyway when the actions are played again, and a ledger of a year
        must not be held in memory."""
        for kept in (self.settled, self.results):
            for coup in [c for c in kept if c[0] < shoe - 1]:
                del kept[coup]

    @staticmethod
    def _returned(body: Mapping[str, Any], fail: Callable[[str], _Failed]) -> None:
        """A void or cancelled coup returns every stake and moves no money."""
        lines = body.get("lines")
        if not isinstance(lines, list):
            raise fail("its lines are not a list")
        for n, line in enumerate(lines):
            if not isinstance(line, dict):
                raise fail(f"lines[{n}] is not a settlement line")
            label = f"lines[{n}] ({line.get('who')}, {line.get('stake') or line.get('kind')})"
            if line.get("result") not in RESULTS:
                raise fail(f"{label}: result {line.get('result')!r}")
            if line.get("stake") is not None and (line.get("result") != "returned"
                                                 or line.get("paid") != line.get("staked")):
                raise fail(f"a {body.get('outcome')} coup returns every stake ({VOID_RULE}), "
                           f"but {label} is {line.get('result')!r}: paid {line.get('paid')!r} "
                           f"of {line.get('staked')!r} staked")
            if not _zero(line.get("net")) or not _zero(line.get("commission")):
                raise fail(f"a {body.get('outcome')} coup moves no money ({VOID_RULE}), but "
                           f"{label} has net {line.get('net')!r}, commission "
                           f"{line.get('commission')!r}")
        if not _zero(body.get("commission")):
            raise fail(f"a {body.get('outcome')} coup takes no commission ({VOID_RULE}), but "
                       f"{body.get('commission')!r} was taken")

    # --- the actions played again -------------------------------------------------------------

    def _play(self, op: dict[str, Any], made: list[Record]) -> None:
        self.summary.actions += self.table is not None
        if self.table is None:
            self._start(op, made)
            return
        before = self.table
        self.table, found = check_step(before, op, [r.body for r in made])
        coup = _coup_of(made[0].body) if op["op"] == "settle" else None
        if found is not None and coup in self.disputed:
            self.table = self.table.with_recorded(made[0].body)  # as the daemon keeps it
        elif found is not None:
            self._differs(before, op, made, found)

    @staticmethod
    def _differs(before: TableMoney, op: dict[str, Any], made: list[Record],
                 found: str) -> None:
        """The record where what the actions make by the rules first differs from the
        ledger's."""
        refused = found.removeprefix("the rules refuse it: ")
        if refused != found:
            record = made[0] if op["op"] == "settle" else made[-1]
            raise _Failed(record.idx, f"{_about(record.kind, record.body)}: the {op['op']} it "
                                      f"records is refused by the rules: {refused}")
        _, produced = before.apply(op)
        k = next((k for k, (a, b) in enumerate(zip(made, produced, strict=False))
                  if current_form(a.body) != b), min(len(made), len(produced)))
        if k < len(made) and k < len(produced):
            record = made[k]
            why = f"{first_difference(current_form(record.body), produced[k])}, from the " \
                  "actions recorded before it"
        elif k < len(made):
            record = made[k]
            why = f"made by no action here: the {op['op']} before it makes {len(produced)} " \
                  "records by the rules"
        else:
            last = made[-1]
            missing = produced[k]
            raise _Failed(last.idx + 1, f"missing: the rules make "
                                        f"{_about(missing['event'], missing)} here, after "
                                        f"{_about(last.kind, last.body)} (record {last.idx}), "
                                        "from the actions recorded before it")
        raise _Failed(record.idx, f"{_about(record.kind, record.body)}: {why}")

    def _start(self, op: dict[str, Any], made: list[Record]) -> None:
        """No table to play on yet: from the ledger's start, the table as it begins (once
        its limits are known); else from the first new shoe's `money.table` record (the
        table's money whole, bank, seating, limits and all)."""
        assert self.profile is not None
        profile = self.profile
        if self.from_start:
            self.backlog.append((op, made))
            limits = self.limits
            if limits is None and op["op"] == "close":
                try:
                    limits = TableLimits.from_dict(made[-1].body["limits"])
                except (KeyError, TypeError, ValueError):
                    limits = None
            if limits is None:
                return
            backlog, self.backlog = self.backlog, []
            self.table = TableMoney.start(profile, limits)
            self.summary.played_from = backlog[0][1][0].idx
            for earlier, records in backlog:
                self.summary.actions += 1
                before = self.table
                self.table, found = check_step(before, earlier, [r.body for r in records])
                if found is not None:
                    self._differs(before, earlier, records, found)
            return
        if made[-1].kind != "money.table":
            return
        try:  # the table's money whole, as the daemon writes it at each new shoe
            self.table = TableMoney.from_snapshot(profile, made[-1].body)
        except RecordError:
            return  # a state that cannot be read: from the next shoe's, then
        self.summary.played_from = made[-1].idx + 1

    def _track(self, made: list[Record]) -> None:
        for record in made:
            body = record.body
            if record.kind == "money.round":
                if isinstance(body.get("bank"), dict):
                    self.bank = {**(self.bank or {}), "phase": "held",
                                 "holder": body["bank"].get("banker")}
                self.seen_money = True
            elif record.kind == "money.bank" and isinstance(body.get("bank"), dict):
                self.bank = body["bank"]


def _zero(amount: Any) -> bool:
    """A recorded amount that is zero ("0.00", "0"); False for anything else."""
    return isinstance(amount, str) and amount.lstrip("-").replace(".", "").strip("0") == "" \
        and amount not in ("", "-")
