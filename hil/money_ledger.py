"""A table at play with its money, into a real ledger, as the daemon writes it (docs/money.md,
"How the next parts use it"): the simulated croupier's dealt shoes (hil.dealer) played by a
real coup machine, and a croupier at the console driving a real `TableMoney` session.

- Each shoe frame is one transaction: the frame, the lines it decided (`result`), and the
  money records it made: `close` when its `BTN,DEAL` starts a coup, `settle` with each
  `coup.result` line, `new_shoe` when its `BTN,SHOE` starts a shoe.
- Each console action is one transaction: its `action` record (id, kind, by, role, args)
  and the money records it made; a refused one leaves nothing.
- Every money record goes in as a record whose kind is its `event` and whose body is the
  record exactly as the money package made it.

The croupier is random but seeded: he puts up the bank in turn (or declines it), gives it up
now and then (Suite, with the offer and the auction where the house has them), sets the
Schokolade or garage aside, bancos and stakes in the general game, withdraws now and then;
at Punto Banco each box bets. Voids are asked for by coup: the console's (a supervisor's
action) or the shoe's (a supervisor's `KEY`, then `VOID`), after the coup's first two cards;
the rest of that coup's cards never come out of the shoe.

With `supervisor`, a supervisor (ana) acts too, at random but seeded: she changes the
minimum stake between coups (001: "even during a game"), corrects a stake after "Rien ne va
plus", and reopens the last settlement as void. `disputed` names coups (by the number they
were started with) whose settlement goes into the ledger not by the rules, as earlier
software might have recorded it (a punter's winning line paid one unit more, the bank's net
less); with `reopen_disputed` a supervisor reopens each by the rules at once.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

from drivers.messages import Button, Message
from drivers.records import frame_body
from hil.console_demo import DEMO_MONEY
from hil.dealer import GameFaults, deal_shoes
from shoe_daemon.audit import ledger as ledger_module
from shoe_daemon.audit.ledger import Ledger, Record
from shoe_daemon.game.coup import CoupMachine
from shoe_daemon.game.houses import get_profile
from shoe_daemon.game.rules import Game
from shoe_daemon.money.bank import Phase
from shoe_daemon.money.houses import get_money_profile
from shoe_daemon.money.limits import table_limits
from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.table import TableMoney

T0_NS = 1_772_344_800_000_000_000  # 2026-03-01T06:00:00Z
SECOND = 1_000_000_000


#: The `[money]` settings each profile needs (the values its seed leaves to the table): the
#: demo's, each said there.
SETTINGS: dict[str, dict[str, Any]] = DEMO_MONEY


class Clock:
    """The ledger's clock: one second a transaction, from `T0_NS`."""

    def __init__(self, start: int = T0_NS, step: int = SECOND) -> None:
        self.wall, self.mono, self.step = start, 1_000_000, step

    def time_ns(self) -> int:
        return self.wall

    def monotonic_ns(self) -> int:
        return self.mono

    def tick(self) -> None:
        self.wall += self.step
        self.mono += self.step


class MoneyTable:
    def __init__(self, state_dir: Path, profile: str, seed: int = 1, shoes: int = 1,
                 faults: GameFaults | None = None, voids: dict[int, str] | None = None,
                 settings: dict[str, Any] | None = None, clock: Clock | None = None,
                 table: str = "T7", supervisor: bool = False,
                 disputed: frozenset[int] = frozenset(), reopen_disputed: bool = False,
                 earlier: bool = False, display: dict[str, str] | None = None) -> None:
        self.name = profile
        self.profile = get_money_profile(profile)
        self.settings = SETTINGS[profile] if settings is None else settings
        self.limits = table_limits(self.profile, self.settings)
        self.money = TableMoney.start(self.profile, self.limits)
        self.machine = CoupMachine(get_profile(profile))
        self.session = deal_shoes(profile, shoes, seed, faults=faults)
        self.rng = random.Random(f"money croupier {seed}")
        self.voids = voids or {}  # coups started (1, 2, ...) to void: "console" or "shoe"
        self.clock = clock or Clock()
        self.state_dir = state_dir
        self.ledger = Ledger(state_dir)
        self.seq = 0
        self.requests = 0
        self.supervisor = supervisor
        self.disputed = disputed
        self.reopen_disputed = reopen_disputed
        self.settled: tuple[int, bool] | None = None  # the coup started just settled, disputed
        self.started = 0  # coups started so far
        self.table = table
        self.earlier = earlier  # written as the software before issue 20 wrote it
        with self._clock():
            self.ledger.append("daemon.start", {
                "version": "test", "code_sha256": "0" * 64, "table": table,
                "profile": profile, "config": {"money": dict(self.settings), **(display or {})}})

    @contextmanager
    def _clock(self) -> Iterator[None]:
        saved = ledger_module.time
        ledger_module.time = self.clock  # type: ignore[assignment]
        try:
            yield
        finally:
            ledger_module.time = saved

    def _commit(self, items: list[tuple[str, dict[str, Any]]]) -> list[Record]:
        with self._clock():
            self.clock.tick()
            return self.ledger.append_many(items)

    # --- the console ------------------------------------------------------------------------

    def act(self, op: str, by: str = "bob", role: str = "croupier", **fields: Any
            ) -> list[dict[str, Any]] | None:
        """A croupier's entry at the console: its records, or None if the rules refuse it."""
        action = {"op": op, **fields}
        if self.earlier and op == "take_bank":
            action["before_issue_20"] = True  # the players were counted at each stake then
        try:
            self.money, records = self.money.apply(action)
        except Refusal:
            return None
        records = self._written(records)
        self.requests += 1
        self._commit([("action", {"id": f"req-{self.requests:016d}", "kind": op, "by": by,
                                  "role": role, "args": fields}),
                      *((r["event"], r) for r in records)])
        return records

    def supervise(self, op: str, **fields: Any) -> list[dict[str, Any]] | None:
        """A supervisor's action at the console (ana), who and why in its money records: its
        records, or None if the rules refuse it."""
        reason = f"{op}: as the supervisor found it"
        action = {"op": op, **fields, "by": "ana", "reason": reason}
        try:
            self.money, records = self.money.apply(action)
        except Refusal:
            return None
        self.requests += 1
        self._commit([("action", {"id": f"req-{self.requests:016d}", "kind": op, "by": "ana",
                                  "role": "supervisor", "args": {**fields, "reason": reason}}),
                      *((r["event"], r) for r in records)])
        return records

    # --- the shoe -----------------------------------------------------------------------------

    def play(self, message: Message) -> None:
        """One frame: played, then committed with its lines and the money they made."""
        self.seq += 1
        shoe_before = self.machine.shoe
        coup_before = self.machine.coup
        lines = self.machine.handle(message)
        items: list[tuple[str, dict[str, Any]]] = [("frame", frame_body(self.seq, message)),
                                                    *(("result", {"line": ln}) for ln in lines)]
        items += self._money_of(shoe_before, coup_before, lines)
        self._commit(items)

    def _money_of(self, shoe_before: Any, coup_before: Any, lines: list[dict[str, Any]]
                  ) -> list[tuple[str, dict[str, Any]]]:
        records: list[dict[str, Any]] = []
        shoe = self.machine.shoe
        if shoe is not None and shoe is not shoe_before:
            records += self._apply({"op": "new_shoe", "shoe": shoe.number})
        coup = self.machine.coup
        if coup is not None and coup is not coup_before:
            self.started += 1
            records += self._apply({"op": "close", "shoe": coup.shoe, "coup": coup.number})
        for line in lines:
            if line["event"] == "coup.result":
                settled = self._apply({"op": "settle", "result": line})
                disputed = self.started in self.disputed and bool(settled[0]["lines"])
                if disputed:
                    settled[0] = self._not_by_the_rules(settled[0])
                    self.money = self.money.with_recorded(settled[0])
                self.settled = (self.started, disputed)
                records += settled
        return [(r["event"], r) for r in records]

    @staticmethod
    def _not_by_the_rules(settlement: dict[str, Any]) -> dict[str, Any]:
        """The settlement as earlier software might have recorded it: the first line paid one
        unit more, the bank (or the casino) one unit less, the sums still balanced."""
        lines = [dict(x) for x in settlement["lines"]]
        first = lines[0]
        other = next((x for x in lines[1:] if x["kind"] in ("bank", "casino")), lines[-1])
        for key in ("paid", "net"):
            first[key] = str(Decimal(first[key]) + 1)
        for key in ("paid" if Decimal(other["paid"]) >= 1 else "carried", "net"):
            other[key] = str(Decimal(other[key]) - 1)
        return {**settlement, "lines": lines}

    def _apply(self, op: dict[str, Any]) -> list[dict[str, Any]]:
        if self.earlier and op["op"] == "settle":
            op = {**op, "schokolade": "asked"}  # the Schokolade left in the bank until asked
        self.money, records = self.money.apply(op)  # the shoe's own: never refused
        return self._written(records)

    def _written(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The records as the ledger gets them: before issue 20, the place in turn, where a
        bank passes and the places that declined were numbers (money/legacy.py)."""
        return [_places_as_numbers(r) for r in records] if self.earlier else records

    def void_now(self, how: str) -> None:
        """The coup in play voided by a supervisor: on the console, or KEY then VOID."""
        if how == "console":
            coup_before = self.machine.coup
            lines = self.machine.void("ana")
            self.requests += 1
            items = [("action", {"id": f"req-{self.requests:016d}", "kind": "void",
                                 "by": "ana", "role": "supervisor",
                                 "args": {"reason": "cards dropped on the floor"}}),
                     *(("result", {"line": ln}) for ln in lines)]
            self._commit(items + self._money_of(self.machine.shoe, coup_before, lines))
        else:
            self.play(Button("KEY", "4711"))
            self.play(Button("VOID"))

    def run(self) -> MoneyTable:
        """The whole session; before each DEAL the croupier takes the stakes."""
        messages = self.session.messages
        at = 0
        while at < len(messages):
            message = messages[at]
            if isinstance(message, Button) and message.name == "DEAL":
                self.croupier()
            self.play(message)
            at += 1
            self._after_settlement()
            how = self.voids.get(self.started) if isinstance(message, Button) and \
                message.name == "DEAL" else None
            if how is None and self.supervisor and isinstance(message, Button) and \
                    message.name == "DEAL":
                self._correct()
            if how:
                for _ in range(2):  # the first two cards, then the void
                    self.play(messages[at])
                    at += 1
                self.void_now(how)
                self._after_settlement()
                while at < len(messages) and not (isinstance(messages[at], Button)
                                                  and messages[at].name in ("DEAL", "SHOE")):
                    at += 1  # the rest of the voided coup never comes out
        self.ledger.close()
        return self

    # --- the supervisor ----------------------------------------------------------------------

    def _after_settlement(self) -> None:
        """A settlement just made: a disputed one reopened by the rules (if she does), or
        now and then a coup found void after all."""
        if self.settled is None:
            return
        _, disputed = self.settled
        self.settled = None
        if disputed:
            if self.reopen_disputed:
                self.supervise("reopen", how="rules")
        elif self.supervisor and self.rng.random() < 0.08:
            self.supervise("reopen", how="void")

    def _correct(self) -> None:
        """Now and then, after "Rien ne va plus", a stake corrected: keyed one unit wrong."""
        current = self.money.round
        if current is None or current.closed is None or self.rng.random() >= 0.2:
            return
        if self.profile.game is Game.PUNTO_BANCO:
            found = [(b.id, b.amount) for b in current.bets]
        else:
            found = [(s.id, s.amount) for s in current.stakes if s.kind.value == "table"]
        if found:
            stake, amount = self.rng.choice(found)
            self.supervise("correct", stake=stake, amount=str(amount + self.limits.chip))

    def _limits(self) -> None:
        """Now and then the minimum stake doubled, or back to the configuration's."""
        if not self.supervisor or self.rng.random() >= 0.05:
            return
        now = self.money.limits.min_stake
        wanted = self.limits.min_stake * 2 if now == self.limits.min_stake \
            else self.limits.min_stake
        self.supervise("limits", min_stake=str(wanted))

    # --- the croupier --------------------------------------------------------------------------

    def croupier(self) -> None:
        self._limits()
        if self.profile.game is Game.PUNTO_BANCO:
            self._bets()
            return
        if not self.money.seating.occupied:
            for place in range(1, self.limits.places + 1):
                self.act("sit", seat=place)
        self._bank()
        if self.money.bank.phase is Phase.HELD:
            self._stakes()

    def _amount(self, low: Decimal, high: Decimal | None) -> str:
        """A round sum from `low` to `high`, as players stake (whole units of the currency,
        or the table's chip where it is larger)."""
        top = high if high is not None else low * 20
        unit = max(self.limits.chip, Decimal(1))
        first = -(-low // unit)
        n = self.rng.randint(int(first), max(int(first), int(top // unit)))
        return str(n * unit)

    def _bank(self) -> None:
        rng = self.rng
        for _ in range(40):
            bank, seating = self.money.bank, self.money.seating
            if bank.phase is Phase.HELD:
                may = bank.may(seating)
                if "schokolade" in may and rng.random() < 0.6:
                    self.act("schokolade")
                if "garage" in may and rng.random() < 0.3:
                    self.act("garage", amount=str(self.limits.chip * 10))
                if "suite" in self.money.bank.may(seating) and rng.random() < 0.15:
                    self.act("suite")
                    continue
                return
            low = self.limits.min_bank or self.limits.chip
            if bank.phase is Phase.VACANT:
                turn = bank.turn(seating)
                if rng.random() < 0.2 and self.act("decline_bank", who=f"seat {turn}"):
                    continue
                self.act("take_bank", who=f"seat {turn}",
                         amount=self._amount(low, self.limits.max_bank or low * 10))
            elif bank.phase is Phase.OFFER:
                turn = bank.turn(seating)
                if turn is None:
                    if not self.act("accept_offer", who="outsider A"):
                        self.act("to_auction")
                elif rng.random() < 0.5 and self.act("decline_bank", who=f"seat {turn}"):
                    continue
                else:
                    self.act("accept_offer", who=f"seat {turn}")
            else:
                for who in rng.sample([f"seat {p}" for p in seating.occupied], 3):
                    self.act("bid", who=who, amount=self._amount(low, low * 10))
                self.act("award")

    def _stakes(self) -> None:
        rng = self.rng
        seats = [f"seat {p}" for p in sorted(self.money.seating.occupied)]
        low, high = self.limits.min_stake, self.limits.max_stake
        if rng.random() < 0.3:
            kind = rng.choice(["banco_solo", "banco", "banco_with_table"])
            bank = self.money.bank.amount or low
            who = rng.choice(seats)
            if kind == "banco_with_table":
                self.act("banco", who=who, kind=kind, amount=str(bank))
            else:
                self.act("banco", who=who, kind=kind)
            if kind == "banco" and rng.random() < 0.5:
                self.act("share", who=rng.choice(seats), of=who, amount=str(low))
        for _ in range(rng.randint(1, 5)):
            who = rng.choice([*seats, "outsider A", "outsider B"])
            self.act("stake", who=who, amount=self._amount(low, min(high or low * 5, low * 5)))
        current = self.money.round
        if current is not None and current.stakes and rng.random() < 0.15:
            self.act("withdraw", stake=rng.choice(current.stakes).id)

    def _bets(self) -> None:
        rng = self.rng
        for _ in range(rng.randint(0, 6)):
            bet = rng.choice(["punto", "banco", "banco", "punto", "egalite", "simple_nine",
                              "colour_nine", "swiss_nine"])
            nine = bet.endswith("nine")
            low = self.limits.nine_min_stake if nine else self.limits.min_stake
            high = self.limits.nine_max_stake if nine else self.limits.max_stake
            self.act("bet", box=rng.randint(1, self.limits.places), bet=bet,
                     amount=self._amount(low, min(high, low * 10)))
        current = self.money.round
        if current is not None and current.bets and rng.random() < 0.1:
            self.act("withdraw", stake=rng.choice(current.bets).id)


def _places_as_numbers(value: Any) -> Any:
    """A money record with its players' keys in `in_turn`, `passes_to` and `declined` as the
    place numbers the software before issue 20 wrote."""
    def number(key: Any) -> Any:
        return int(key.removeprefix("seat ")) if isinstance(key, str) else key

    if isinstance(value, dict):
        return {k: number(v) if k in ("in_turn", "passes_to") else
                [number(p) for p in v] if k == "declined" else _places_as_numbers(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_places_as_numbers(v) for v in value]
    return value


def records_of(state_dir: Path) -> list[Record]:
    book = Ledger(state_dir)
    try:
        return list(book.records())
    finally:
        book.close()
