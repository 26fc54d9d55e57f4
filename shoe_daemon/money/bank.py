"""The Chemin de fer bank across coups and shoes: who holds it, its sum, where it goes next.

`Bank` is immutable; each change returns the next bank and its `money.bank` record, or raises
a `Refusal` citing the house's rule. Its phases:

- **vacant**: nobody holds the bank; it is the turn of `in_turn` (the lowest place at the
  start, the next place after a loss) to `take` it with a sum, or to `decline` it, and then
  it goes on to the next place.
- **held**: the banker holds it; each settled coup (`settled`) keeps it (a win: the new sum;
  égalité) or ends it (a loss, or 002's rotation). After a win he may set part aside
  (`set_aside`: 003's Schokolade, 004's garage) or give it up (`suite`) when his house
  allows it then.
- **offer** (001, 003): a bank given up is offered at its last sum to the players in turn
  (`accept`, `decline`), at 001 then to the standing players, and then auctioned.
- **auction** (000 after a Suite; 001, 003 when nobody takes the offer): `bid`s, each beating
  the highest (at 001 a seated player's equal bid beats a standing one's), then `award`.
  000 rule 22 bars the banker who gave the Suite and his partner from bidding until the
  bank has changed hands twice (this auction, and the next change).

A banker who takes the bank in the order of places is in turn: the Prime order and, when he
ends his hand, the next place are counted from his place (`anchor`). One who comes by an
auction or a standing player's acceptance is out of turn: the anchor stays the banker in
turn who gave it up, so the bank then goes to the place after that one (003: "an den rechts
vom vorletzten Bankhalter sitzenden Spieler"), and he is "the last banker" paid last (000
rule 26).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any

from shoe_daemon.money.amounts import CONTEXT, ZERO, add
from shoe_daemon.money.display import format_money
from shoe_daemon.money.limits import TableLimits, put_down
from shoe_daemon.money.players import Player, Seating, place_of, seat_key
from shoe_daemon.money.profile import (
    AfterPass,
    AuctionTies,
    CheminDeFerMoney,
    MoneyProfile,
    SetAside,
    SuiteWhen,
    Term,
)
from shoe_daemon.money.refusals import Refusal
from shoe_daemon.money.settlement import Settlement
from shoe_daemon.money.stakes import BankInPlay, RecordError

Record = dict[str, Any]


class Phase(StrEnum):
    VACANT = "vacant"
    HELD = "held"
    OFFER = "offer"
    AUCTION = "auction"


def _refuse(code: str, reason: str, term: Term[Any]) -> Refusal:
    return Refusal(code, reason, term.source)


@dataclass(frozen=True)
class Bank:
    profile: MoneyProfile
    limits: TableLimits
    phase: Phase = Phase.VACANT
    holder: Player | None = None
    amount: Decimal | None = ZERO  # None: an open bank (000 rule 5) until its first coup
    partner: Player | None = None
    partner_amount: Decimal = ZERO
    set_aside: Decimal = ZERO  # Schokolade, paid with the bank when it is given up
    anchor: int | None = None  # the banker in turn's place
    last_banker: Player | None = None  # who gave the bank up; kept while it is out of turn
    in_turn: int | None = None  # vacant: whose turn it is; offer: the place offered
    offer: Decimal | None = None  # the last sum, offered (001, 003)
    declined: tuple[int, ...] = ()  # the places that declined the offer
    standing: bool = False  # 001: the seated players declined; a standing player may take it
    bids: tuple[tuple[Player, Decimal], ...] = ()
    excluded: tuple[tuple[Player, int], ...] = ()  # 000 rule 22: who, changes of hands left
    last: str | None = None  # the holder's last coup with stakes: "won", "egalite", "lost"
    coups: int = 0  # coups with stakes in this hand
    uncovered: Decimal = ZERO  # 003: what nobody staked against in the coup just won
    suivi: Player | None = None

    def __post_init__(self) -> None:
        if self.profile.chemin_de_fer is None:
            raise ValueError(f"{self.profile.name} has no banker: the casino holds the bank")

    @property
    def rules(self) -> CheminDeFerMoney:
        assert self.profile.chemin_de_fer is not None
        return self.profile.chemin_de_fer

    def money(self, amount: Decimal) -> str:
        return format_money(amount, self.profile.currency.value, self.profile.locale.value)

    # --- what the rounds and the console read ---------------------------------------------------

    def in_play(self) -> BankInPlay:
        """The bank a round is played against; a Refusal when nobody holds it."""
        if self.phase is not Phase.HELD or self.holder is None:
            raise _refuse("no_bank", f"nobody holds the bank ({self.phase.value})",
                          self.rules.first_banker)
        return BankInPlay(self.holder, self.amount, self.partner, self.partner_amount,
                          self.anchor, self.last_banker, self.suivi)

    def turn(self, seating: Seating) -> int | None:
        """The place whose turn it is (vacant: to take the bank; offer: to answer the offer)."""
        if self.phase is Phase.OFFER:
            if self.standing:
                return None
            return self._offer_seat(seating, self.in_turn)
        if self.phase is not Phase.VACANT:
            return None
        if self.in_turn is not None and self.in_turn in seating.occupied:
            return self.in_turn
        return seating.next_after(self.in_turn)

    def may(self, seating: Seating) -> list[str]:
        """What the banker may do now: "suite", "schokolade", "garage" (each is refused
        otherwise, with its rule)."""
        if self.phase is not Phase.HELD or self.amount is None:
            return []
        kind = self.rules.set_aside.value
        out = ["suite"] if self._suite_allowed() else []
        if kind is SetAside.SCHOKOLADE and self.last == "won" and self.uncovered > 0:
            out.append("schokolade")
        if kind is SetAside.GARAGE and CONTEXT.subtract(self.amount, self.limits.chip) >= (
                self.limits.min_bank or ZERO):
            out.append("garage")
        return out

    def _suite_allowed(self) -> bool:
        return {
            SuiteWhen.AFTER_WIN: self.last == "won",
            SuiteWhen.AFTER_WIN_OR_EGALITE: self.last in ("won", "egalite"),
            SuiteWhen.AFTER_VALID_COUP: self.coups > 0,
            SuiteWhen.ANY_TIME: True,
            SuiteWhen.NEVER: False,
        }[self.rules.suite_when.value]

    # --- taking and refusing the bank ------------------------------------------------------------

    @property
    def begun(self) -> bool:
        """The game has begun: its first bank was taken (001: "The game begins with the
        player sitting at box no. 1 (banker), who lays a stake"; 003: "Zu Beginn der
        Partie ... Der Spieler mit der niedrigsten Platznummer übernimmt die erste
        Bankhalterschaft"). It goes on from banker to banker and across shoes."""
        return self.anchor is not None

    def take(self, seating: Seating, who: Player, amount: Decimal | None,
             partner: Player | None = None, partner_amount: Decimal = ZERO, *,
             counted: bool = True) -> tuple[Bank, Record]:
        """The player in turn puts up the bank (`amount` None: an open bank, 000 rule 5).
        The game's first bank begins the game, with the house's minimum of players seated
        (issue 20; `counted` False: a bank taken before issue 20, legacy.py)."""
        rules = self.rules
        self._phase(Phase.VACANT, "take the bank")
        turn = self.turn(seating)
        term = rules.first_banker if self.anchor is None else rules.after_loss
        if not who.seated or who.seat != turn:
            raise _refuse("out_of_turn", f"the bank is place {turn}'s to take, not {who}'s",
                          term)
        seated = len(seating.occupied)
        least = rules.min_players.value
        if counted and not self.begun and seated < least:
            raise _refuse("too_few_players", f"{seated} players are seated: the game begins "
                          f"with at least {least}", rules.min_players)
        if amount is None:
            if not rules.open_bank.value:
                raise _refuse("not_offered", "no open bank here: name the bank's sum",
                              rules.open_bank)
            if partner is not None:
                raise _refuse("partner", "an open bank has no sum for a partner's part yet",
                              rules.partner)
        else:
            self._bank_limits(amount)
        self._check_partner(seating, who, amount, partner, partner_amount)
        bank = self._installed(who, amount, in_turn=True, partner=partner,
                               partner_amount=partner_amount if partner else ZERO)
        more = {"seated": seated} if counted else {}
        return bank, bank._record("take", rules.open_bank if amount is None else term,
                                  who=who.key, amount=self._text(amount),
                                  partner=None if partner is None else partner.key,
                                  partner_amount=self._text(bank.partner_amount), **more)

    def decline(self, seating: Seating, who: Player) -> tuple[Bank, Record]:
        """The player in turn does not take the bank (or the offer); it goes on."""
        rules = self.rules
        if self.phase not in (Phase.VACANT, Phase.OFFER) or (
                self.phase is Phase.OFFER and self.standing):
            raise _refuse("not_now", "there is no bank or offer to decline now",
                          rules.decline_bank)
        if not rules.decline_bank.value:
            raise _refuse("not_offered", "the bank cannot be declined here", rules.decline_bank)
        turn = self.turn(seating)
        if not who.seated or who.seat != turn:
            raise _refuse("out_of_turn", f"it is place {turn}'s turn, not {who}'s",
                          rules.decline_bank)
        assert turn is not None
        if self.phase is Phase.VACANT:
            bank = dataclasses.replace(self, in_turn=seating.next_after(turn))
            return bank, bank._record("decline", rules.decline_bank, who=who.key)
        declined = dataclasses.replace(self, declined=(*self.declined, turn))
        following = declined._offer_seat(seating, seating.next_after(turn))
        if following is None:
            if rules.standing_take_offer.value:
                bank = dataclasses.replace(declined, standing=True, in_turn=None)
                return bank, bank._record("decline", rules.standing_take_offer, who=who.key)
            bank = dataclasses.replace(declined, phase=Phase.AUCTION, in_turn=None, offer=None)
            return bank, bank._record("decline", rules.after_pass, who=who.key)
        bank = dataclasses.replace(declined, in_turn=following)
        return bank, bank._record("decline", rules.after_pass, who=who.key)

    def accept(self, seating: Seating, who: Player) -> tuple[Bank, Record]:
        """The player offered the bank takes it at the last sum (001, 003); at 001, once the
        seated players declined, a standing player who speaks first."""
        rules = self.rules
        self._phase(Phase.OFFER, "accept an offer of the bank")
        assert self.offer is not None
        if self.standing:
            if who.seated:
                raise _refuse("out_of_turn", "every seated player declined: the bank is now "
                              "the standing players'", rules.standing_take_offer)
            bank = self._installed(who, self.offer, in_turn=False)
            return bank, bank._record("accept", rules.standing_take_offer, who=who.key,
                                      amount=self._text(self.offer))
        turn = self.turn(seating)
        if not who.seated or who.seat != turn:
            raise _refuse("out_of_turn", f"the offer is place {turn}'s, not {who}'s",
                          rules.after_pass)
        bank = self._installed(who, self.offer, in_turn=True)
        return bank, bank._record("accept", rules.after_pass, who=who.key,
                                  amount=self._text(self.offer))

    def to_auction(self) -> tuple[Bank, Record]:
        """Nobody standing takes the offer either: the bank is auctioned (001)."""
        self._phase(Phase.OFFER, "put the bank up for auction")
        if not self.standing:
            raise _refuse("not_now", "the offer is still going round the seated players",
                          self.rules.after_pass)
        bank = dataclasses.replace(self, phase=Phase.AUCTION, standing=False, offer=None)
        return bank, bank._record("to_auction", self.rules.after_pass)

    def bid(self, who: Player, amount: Decimal) -> tuple[Bank, Record]:
        rules = self.rules
        self._phase(Phase.AUCTION, "bid")
        barred = {p for p, _ in self.excluded} if rules.suite_exclusion.value else set()
        if who in barred:
            raise _refuse("excluded", f"{who} gave up this bank, or is the partner of who did: "
                          "he may not bid until it has changed hands", rules.suite_exclusion)
        self._bank_limits(amount, "bid")
        if self.bids:
            top_who, top = self.bids[-1]
            equal_wins = (rules.auction_ties.value is AuctionTies.SEATED_FIRST
                          and amount == top and who.seated and not top_who.seated)
            if amount < top or (amount == top and not equal_wins):
                raise _refuse("bid_too_low", f"{self.money(amount)} does not beat "
                              f"{top_who}'s {self.money(top)}", rules.auction_ties)
        bank = dataclasses.replace(self, bids=(*self.bids, (who, amount)))
        return bank, bank._record("bid", rules.after_pass, who=who.key, amount=self._text(amount))

    def award(self, seating: Seating) -> tuple[Bank, Record]:
        """The auction closes: the highest bid takes the bank, out of turn; without a bid the
        bank goes on to the next place (decision, docs/money.md)."""
        rules = self.rules
        self._phase(Phase.AUCTION, "close the auction")
        if not self.bids:
            bank = dataclasses.replace(self, phase=Phase.VACANT, in_turn=seating.next_after(
                self.anchor), bids=(), last_banker=None)
            return bank, bank._record("award", rules.after_loss, who=None, amount=None)
        who, amount = self.bids[-1]
        bank = self._installed(who, amount, in_turn=False)
        return bank, bank._record("award", rules.after_pass, who=who.key,
                                  amount=self._text(amount))

    # --- the banker's choices between coups -------------------------------------------------------

    def suite(self, seating: Seating) -> tuple[Bank, Record]:
        """The banker gives up the bank ("Suite"); he is paid the bank and what he set aside."""
        rules = self.rules
        self._phase(Phase.HELD, "give up the bank")
        when = rules.suite_when.value
        if not self._suite_allowed():
            raise _refuse("not_now", f"{self.holder} may not give up the bank now "
                          f"({when.value.replace('_', ' ')})", rules.suite_when)
        assert self.holder is not None
        amount = ZERO if self.amount is None else self.amount  # an open bank not yet fixed
        paid = {self.holder.key: self._text(add(CONTEXT.subtract(amount,
                                                                 self.partner_amount),
                                                self.set_aside))}
        if self.partner is not None:
            paid[self.partner.key] = self._text(self.partner_amount)
        passer = self.holder
        gone = dataclasses.replace(self, holder=None, amount=ZERO, partner=None,
                                   partner_amount=ZERO, set_aside=ZERO, last=None, coups=0,
                                   uncovered=ZERO, last_banker=passer, bids=())
        after = rules.after_pass.value
        if after is AfterPass.AUCTION:
            excluded = [*self.excluded, (passer, 2)]
            if self.partner is not None:
                excluded.append((self.partner, 2))
            bank = dataclasses.replace(gone, phase=Phase.AUCTION, excluded=tuple(excluded))
        elif after is AfterPass.OFFER_THEN_AUCTION:
            start = passer.seat if passer.seated else self.anchor
            first = self._offer_seat(seating, seating.next_after(start), passer)
            bank = dataclasses.replace(gone, phase=Phase.OFFER, offer=amount,
                                       in_turn=first, declined=(), standing=False)
            if first is None:
                standing = rules.standing_take_offer.value
                bank = dataclasses.replace(bank, standing=standing,
                                           phase=Phase.OFFER if standing else Phase.AUCTION,
                                           offer=amount if standing else None)
        else:
            bank = dataclasses.replace(gone, phase=Phase.VACANT, last_banker=None,
                                       in_turn=seating.next_after(self.anchor))
        return bank, bank._record("suite", rules.after_pass, who=passer.key,
                                  amount=self._text(amount), paid=paid)

    def schokolade(self) -> tuple[Bank, Record]:
        """003: the part of the bank nobody staked against in the coup just won is set aside;
        it is no longer in the bank and is paid with it when the banker gives it up."""
        rules = self.rules
        self._phase(Phase.HELD, "set the Schokolade aside")
        if rules.set_aside.value is not SetAside.SCHOKOLADE:
            raise _refuse("not_offered", "no Schokolade here: the bank stays whole",
                          rules.set_aside)
        if self.amount is not None and self.last == "won" and self.uncovered <= 0 and \
                self.set_aside > 0:
            raise _refuse("not_now", f"the Schokolade, {self.money(self.set_aside)}, is set "
                          "aside already", rules.set_aside)
        if self.amount is None or self.last != "won" or self.uncovered <= 0:
            raise _refuse("not_now", "no Schokolade: the bank was fully staked against, or "
                          "did not just win", rules.set_aside)
        part = self.uncovered
        bank = dataclasses.replace(self, amount=CONTEXT.subtract(self.amount, part),
                                   set_aside=add(self.set_aside, part), uncovered=ZERO)
        return bank, bank._record("schokolade", rules.set_aside, amount=self._text(part))

    def garage(self, amount: Decimal) -> tuple[Bank, Record]:
        """004: chips taken out of the bank "as winnings" and paid to the banker; the bank
        keeps at least the table's minimum (decision, docs/money.md)."""
        rules = self.rules
        self._phase(Phase.HELD, "garage chips")
        if rules.set_aside.value is not SetAside.GARAGE:
            raise _refuse("not_offered", "no garage here: the bank stays whole", rules.set_aside)
        if self.amount is None:
            raise _refuse("not_now", "the open bank's sum is not fixed yet", rules.set_aside)
        put_down(self.profile, self.limits, amount, "garage", self.profile.min_bank)
        left = CONTEXT.subtract(self.amount, amount)
        low = self.limits.min_bank or ZERO
        if left < low:
            raise _refuse("below_minimum", f"the bank would keep {self.money(left)}, below "
                          f"the minimum bank {self.money(low)}", self.profile.min_bank)
        bank = dataclasses.replace(self, amount=left, uncovered=ZERO)
        assert self.holder is not None
        return bank, bank._record("garage", rules.set_aside, amount=self._text(amount),
                                  paid={self.holder.key: self._text(amount)})

    # --- coups and shoes ----------------------------------------------------------------------

    def fixed(self, amount: Decimal) -> Bank:
        """An open bank's sum, fixed when its first coup's betting closed."""
        return dataclasses.replace(self, amount=amount)

    def settled(self, seating: Seating, settlement: Settlement) -> tuple[Bank, Record]:
        """The bank after a settled coup."""
        rules = self.rules
        after = settlement.bank
        if after is None or self.holder is None or after.holder != self.holder.key:
            raise RecordError(f"the settlement's bank ({after and after.holder}) is not "
                              f"{self.holder}'s")
        outcome = settlement.outcome
        if not settlement.counts or outcome == "egalite":
            bank = dataclasses.replace(self, suivi=_player(settlement.suivi))
            if settlement.counts:
                bank = dataclasses.replace(bank, last="egalite")
            return bank, bank._record("settled", rules.egalite if outcome == "egalite"
                                      else self.profile.void, shoe=settlement.shoe,
                                      coup=settlement.coup, outcome=outcome,
                                      may=bank.may(seating))
        if after.ends:
            bank = dataclasses.replace(
                self, phase=Phase.VACANT, holder=None, amount=ZERO, partner=None,
                partner_amount=ZERO, set_aside=ZERO, last=None, coups=0, uncovered=ZERO,
                last_banker=None, in_turn=after.passes_to, suivi=_player(settlement.suivi))
            return bank, bank._record(
                "settled", rules.after_loss if outcome == "punter" else rules.rotates_each_coup,
                shoe=settlement.shoe, coup=settlement.coup, outcome=outcome,
                paid={self.holder.key: self._text(self.set_aside)}, may=[])
        # 003 (issue 20): the Schokolade set aside by the settlement is no longer in the bank;
        # a settlement written before issue 20 left the uncovered part in it until asked for.
        put = after.set_aside
        bank = dataclasses.replace(
            self, amount=after.after, partner_amount=after.partner_after, last="won",
            coups=self.coups + 1, suivi=_player(settlement.suivi),
            uncovered=after.uncovered if put is None else ZERO,
            set_aside=self.set_aside if put is None else add(self.set_aside, put))
        return bank, bank._record("settled", rules.rotates_each_coup, shoe=settlement.shoe,
                                  coup=settlement.coup, outcome=outcome, may=bank.may(seating))

    def new_shoe(self, shoe: int) -> tuple[Bank, Record]:
        """A new shoe: the bank goes on at the same figure (000 rule 25)."""
        return self, self._record("new_shoe", self.rules.new_shoe, shoe=shoe)

    # --- helpers --------------------------------------------------------------------------------

    def _phase(self, phase: Phase, what: str) -> None:
        if self.phase is not phase:
            holder = f" by {self.holder}" if self.holder else ""
            raise _refuse("not_now", f"cannot {what}: the bank is {self.phase.value}{holder}",
                          self.rules.after_pass if phase is not Phase.HELD
                          else self.rules.suite_when)

    def _bank_limits(self, amount: Decimal, what: str = "bank") -> None:
        put_down(self.profile, self.limits, amount, what, self.profile.min_bank)
        low, high = self.limits.min_bank, self.limits.max_bank
        if low is not None and amount < low:
            raise _refuse("below_minimum", f"a bank of {self.money(amount)} is below the "
                          f"minimum bank {self.money(low)}", self.profile.min_bank)
        if high is not None and amount > high:
            raise _refuse("above_maximum", f"a bank of {self.money(amount)} is above the "
                          f"maximum bank {self.money(high)}", self.profile.max_bank)

    def _check_partner(self, seating: Seating, who: Player, amount: Decimal | None,
                       partner: Player | None, part: Decimal) -> None:
        rules = self.rules
        if partner is None:
            if part:
                raise _refuse("bad_request", "a partner's part needs the partner", rules.partner)
            return
        if not rules.partner.value:
            raise _refuse("not_offered", "the banker takes no partner here", rules.partner)
        if not seating.full:
            raise _refuse("partner", "a partner only when every place is taken "
                          f"({len(seating.occupied)} of {seating.places})", rules.partner)
        if partner == who or (partner.seated and partner.seat not in seating.occupied):
            raise _refuse("partner", f"{partner} cannot be the banker's partner", rules.partner)
        assert amount is not None
        put_down(self.profile, self.limits, part, "partner's part", rules.partner)
        beyond = CONTEXT.subtract(amount, self.limits.min_bank or ZERO)
        if part > beyond:
            raise _refuse("partner", f"the minimum {self.money(self.limits.min_bank or ZERO)} "
                          "must be put up by the banker alone: a partner's part is at most "
                          f"{self.money(beyond)}", rules.partner)

    def _installed(self, who: Player, amount: Decimal | None, *, in_turn: bool,
                   partner: Player | None = None, partner_amount: Decimal = ZERO) -> Bank:
        """A new holder: the bank changes hands (000 rule 22's count goes down)."""
        excluded = tuple((p, n - 1) for p, n in self.excluded if n > 1)
        return dataclasses.replace(
            self, phase=Phase.HELD, holder=who, amount=amount, partner=partner,
            partner_amount=partner_amount, set_aside=ZERO,
            anchor=who.seat if in_turn else self.anchor,
            last_banker=None if in_turn else self.last_banker, in_turn=None, offer=None,
            declined=(), standing=False, bids=(), excluded=excluded, last=None, coups=0,
            uncovered=ZERO)

    def _offer_seat(self, seating: Seating, start: int | None,
                    passer: Player | None = None) -> int | None:
        """The first occupied place at `start` or after it that is not the banker who gave
        the bank up and has not declined the offer."""
        if start is None:
            return None
        passer = passer or self.last_banker
        skip = {*self.declined, passer.seat if passer is not None and passer.seated else None}
        for i in range(seating.places):
            place = (start + i - 1) % seating.places + 1
            if place in seating.occupied and place not in skip:
                return place
        return None

    def _text(self, amount: Decimal | None) -> str | None:
        return None if amount is None else self.profile.currency.value.text(amount)

    def _record(self, change: str, term: Term[Any], **fields: Any) -> Record:
        """A change of the bank, citing the term it applies by name (`MoneyProfile.term`)."""
        return {"event": "money.bank", "change": change, **fields,
                "rule": self.profile.name_of(term), "bank": self.to_dict()}

    def to_dict(self) -> dict[str, Any]:
        """The bank's state, as the ledger's `money.bank` records carry it."""
        key = _key
        return {
            "phase": self.phase.value,
            "holder": key(self.holder),
            "amount": self._text(self.amount),
            "partner": key(self.partner),
            "partner_amount": self._text(self.partner_amount),
            "set_aside": self._text(self.set_aside),
            "anchor": self.anchor,
            "last_banker": key(self.last_banker),
            "in_turn": seat_key(self.in_turn),
            "offer": self._text(self.offer),
            "declined": [seat_key(p) for p in self.declined],
            "standing": self.standing,
            "bids": [[p.key, self._text(a)] for p, a in self.bids],
            "excluded": [[p.key, n] for p, n in self.excluded],
            "last": self.last,
            "coups": self.coups,
            "uncovered": self._text(self.uncovered),
            "suivi": key(self.suivi),
        }

    @classmethod
    def from_dict(cls, profile: MoneyProfile, limits: TableLimits, data: Mapping[str, Any]
                  ) -> Bank:
        """A bank from its state record (a restart, a verification from mid-ledger); the
        place in turn and the places that declined as players' keys or, in a ledger written
        before issue 20, as places."""
        c = profile.currency.value
        try:
            def amount(key: str) -> Decimal | None:
                return None if data[key] is None else c.amount(data[key], key)

            return cls(profile, limits, Phase(data["phase"]), _player(data["holder"]),
                       amount("amount"), _player(data["partner"]),
                       c.amount(data["partner_amount"]), c.amount(data["set_aside"]),
                       data["anchor"], _player(data["last_banker"]), place_of(data["in_turn"]),
                       amount("offer"), tuple(place_of(p) for p in data["declined"]),
                       bool(data["standing"]),
                       tuple((Player.parse(p), c.amount(a)) for p, a in data["bids"]),
                       tuple((Player.parse(p), int(n)) for p, n in data["excluded"]),
                       data["last"], int(data["coups"]), c.amount(data["uncovered"]),
                       _player(data["suivi"]))
        except (KeyError, TypeError, ValueError) as error:
            raise RecordError(f"bank record: {error!r}") from None


def _key(player: Player | None) -> str | None:
    return None if player is None else player.key


def _player(key: str | None) -> Player | None:
    return None if key is None else Player.parse(key)
