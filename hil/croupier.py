"""The demo's croupier (`demo --console --croupier`): a signed-in croupier who works the table
through the console's HTTP API, as the page does, and presses the shoe's DEAL button.

Each coup: he seats players until the house may begin a game (its `min_players`, and one
more), has the bank taken by the place in turn (or the offer accepted, the auction bid and
closed), takes a few stakes from the punters in Prime order (Punto Banco: bets on a few
boxes), within the table's limits as the console shows them; then presses DEAL and waits
for the coup's settlement before the next. A refusal is the table's answer, kept and counted
(`refused`), never a stop: the money's rules decide, not the croupier. He stops when the shoe
is gone or `stop` is set.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import uuid
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hil.deal_button import press_deal
from shoe_daemon.money.houses import get_money_profile

SETTLED_WITHIN = 60.0  # s a coup dealt may take to be settled before he deals the next anyway
LOOK_EVERY = 0.1  # s between looks at the console's state
BETWEEN_COUPS = ("no_shoe", "waiting_for_stakes", "decided")


class ConsoleClient:
    """The console's API over HTTP, as a browser on the console's own origin calls it."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.cookie: str | None = None

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        headers = {"Origin": self.origin} if method == "POST" else {}
        if self.cookie:
            headers["Cookie"] = self.cookie
        data = None if body is None else json.dumps(body).encode()
        if data is not None:
            headers["Content-Type"] = "application/json"
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            payload = response.read()
            cookie = response.getheader("Set-Cookie")
        finally:
            conn.close()
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        return response.status, json.loads(payload) if payload else None

    def sign_in(self, person: str, pin: str) -> None:
        status, body = self.call("POST", "/api/sign-in", {"id": str(uuid.uuid4()),
                                                          "method": "pin", "person": person,
                                                          "pin": pin})
        if status != 200:
            raise RuntimeError(f"the croupier could not sign in: {status} {body}")

    def act(self, kind: str, **args: str) -> tuple[int, Any]:
        return self.call("POST", "/api/actions", {"id": str(uuid.uuid4()), "kind": kind,
                                                  "args": args})


class Croupier(threading.Thread):
    """Works the table until the shoe is gone; `said` gets a line for each refusal."""

    def __init__(self, url: str, person: str, pin: str, button: Path, seed: int,
                 said: Callable[[str], None] = lambda _: None) -> None:
        super().__init__(name="demo croupier", daemon=True)
        self.client = ConsoleClient(url)
        self.person, self.pin = person, pin
        self.button = button
        self.rng = random.Random(f"demo croupier {seed}")
        self.said = said
        self.stop = threading.Event()
        self.dealt = 0  # coups he staked, dealt and saw settled
        self.accepted = 0  # actions the table took
        self.refused = 0  # actions the table refused (its reasons said)

    def run(self) -> None:
        try:
            self.client.sign_in(self.person, self.pin)
            while not self.stop.is_set():
                state = self._between_coups()
                if state is None:
                    return
                self._prepare(state)
                last = self._settled(state)
                try:
                    press_deal(self.button)
                except RuntimeError:
                    return  # the shoe is done: nothing more to deal
                after = self._until(lambda s, before=last: self._settled(s) != before,
                                    SETTLED_WITHIN)
                self.dealt += after is not None and self._settled(after) != last
        except (OSError, RuntimeError) as e:  # the daemon went away, or would not have him
            if self.button.exists():  # ... while the shoe deals: not the demo's end
                self.said(f"croupier: stopped: {e}")

    # ---- reading the table ------------------------------------------------------------------

    def _state(self) -> dict[str, Any] | None:
        status, body = self.client.call("GET", "/api/state")
        if status == 401:  # the session ended (a restart, the idle limit): sign in again
            self.client.sign_in(self.person, self.pin)
            return None
        return body if status == 200 else None

    def _until(self, ready: Callable[[dict[str, Any]], bool],
               within: float | None = None) -> dict[str, Any] | None:
        deadline = None if within is None else time.monotonic() + within
        while not self.stop.is_set():
            state = self._state()
            if state is not None and ready(state):
                return state
            if deadline is not None and time.monotonic() > deadline:
                return state
            time.sleep(LOOK_EVERY)
        return None

    def _between_coups(self) -> dict[str, Any] | None:
        return self._until(lambda s: s["view"].get("state") in BETWEEN_COUPS
                           and s["console"].get("money") is not None)

    @staticmethod
    def _settled(state: dict[str, Any]) -> Any:
        settlement = (state["console"].get("money") or {}).get("settlement") or {}
        return settlement.get("shoe"), settlement.get("coup")

    def _money(self) -> dict[str, Any]:
        state = self._until(lambda s: s["console"].get("money") is not None)
        return {} if state is None else state["console"]["money"]

    # ---- acting -----------------------------------------------------------------------------

    def _act(self, kind: str, **args: str) -> bool:
        status, body = self.client.act(kind, **args)
        if status == 401:  # his session ended (the daemon stopping, a restart): again, once
            self.client.sign_in(self.person, self.pin)
            status, body = self.client.act(kind, **args)
        if status == 200:
            self.accepted += 1
            return True
        self.refused += 1
        reason = body.get("error") if isinstance(body, dict) else body
        self.said(f"croupier: {kind} {' '.join(f'{k}={v}' for k, v in args.items())} "
                  f"refused: {reason}")
        return False

    def _prepare(self, state: dict[str, Any]) -> None:
        money = state["console"]["money"]
        if money.get("game") == "punto-banco":
            self._bets(money)
        else:
            self._seat(money)
            self._bank()
            self._stakes()

    def _seat(self, money: dict[str, Any]) -> None:
        limits, seating = money["limits"], money["seating"]
        wanted = min(limits["places"], max(6, self._min_players(money) + 1))
        free = [p for p in range(1, limits["places"] + 1) if p not in seating["occupied"]]
        for place in free[:max(0, wanted - len(seating["occupied"]))]:
            self._act("sit", seat=str(place))

    @staticmethod
    def _min_players(money: dict[str, Any]) -> int:
        rules = get_money_profile(money["profile"]).chemin_de_fer
        return 2 if rules is None else rules.min_players.value

    def _bank(self) -> None:
        for _ in range(6):  # vacant, offered, auctioned: a few steps at most
            money = self._money()
            bank, turn = money.get("bank") or {}, money.get("turn")
            phase = bank.get("phase")
            if phase == "held" or phase is None:
                return
            if phase == "vacant" and turn:
                self._act("take_bank", who=f"seat {turn}", amount=self._bank_sum(money))
            elif phase == "offer" and turn:
                self._act("accept_offer", who=f"seat {turn}")
            elif phase == "auction":
                if bank.get("bids"):
                    self._act("award")
                else:
                    bidder = next((f"seat {p}" for p in money["seating"]["occupied"]
                                   if f"seat {p}" not in bank.get("excluded", [])), None)
                    if bidder is None:
                        return
                    self._act("bid", who=bidder, amount=self._bank_sum(money))
            else:
                return

    def _bank_sum(self, money: dict[str, Any]) -> str:
        limits = money["limits"]
        least = Decimal(limits["min_bank"] or limits["min_stake"] or "1")
        amount = least * self.rng.choice((5, 10, 20))
        if limits.get("max_bank"):
            amount = min(amount, Decimal(limits["max_bank"]))
        return str(amount)

    def _stakes(self) -> None:
        money = self._money()
        bank = money.get("bank") or {}
        if bank.get("phase") != "held" or not money.get("prime"):
            return
        limits = money["limits"]
        room = Decimal(bank["amount"]) if bank.get("amount") else None
        for who in money["prime"][:self.rng.randint(2, 4)]:
            amount = self._stake(limits)
            if room is not None and amount > room:
                break
            if self._act("stake", who=who, amount=str(amount)) and room is not None:
                room -= amount

    def _stake(self, limits: dict[str, Any], least: str | None = None,
               most: str | None = None) -> Decimal:
        low = Decimal(least or limits["min_stake"] or limits["chip"])
        amount = low * self.rng.choice((1, 2, 3, 5, 10))
        high = most or limits.get("max_stake")
        return min(amount, Decimal(high)) if high else amount

    def _bets(self, money: dict[str, Any]) -> None:
        limits = money["limits"]
        for box in self.rng.sample(range(1, limits["places"] + 1), self.rng.randint(2, 4)):
            bet = self.rng.choice(("punto", "banco", "banco", "egalite"))
            self._act("bet", box=str(box), bet=bet, amount=str(self._stake(limits)))
            if limits.get("nine_min_stake") and self.rng.random() < 0.3:
                nine = self.rng.choice(("simple_nine", "colour_nine", "swiss_nine"))
                self._act("bet", box=str(box), bet=nine, amount=str(self._stake(
                    limits, limits["nine_min_stake"], limits["nine_max_stake"])))
