"""Settling a Chemin de fer coup: a pure function of the profile, the closed round and the
result (`settle`), so that `audit verify` recomputes every recorded settlement.

1. **Cover.** The bank covers the seated stakes (they never exceed it) and then 000's and
   003's outsiders "in consecutive order, commencing from the smallest sum, to the amount
   equal to the sum in the bank" (equal sums in the order placed); what the bank does not
   cover, and the half of a stake over the line at 001, is returned.
2. **Result.** The banker wins: each covered stake is lost to the bank, and the commission
   (the house's rate of what the banker wins, rounded down to the currency's unit) is taken
   from it; the new bank is the old one plus the win less the commission (at 003 less the
   Schokolade too: the part nobody staked against is set aside). The punters win:
   each covered stake is paid even money from the bank, the rest of the bank goes back to
   the banker and the bank passes. Égalité ("en carte") and a cancelled or void coup (000
   rule 24) return every stake and leave the bank as it was.
3. **Partner.** A banker's partner (000 rule 4) wins or loses his part of the bank's result
   in proportion, rounded toward zero; the banker, who holds the bank, takes the odd unit.
4. **Order.** The lines come in the payment order of 000 rule 26: the highest stake, then
   Prime and the places following (counted from the banker in turn, so from the
   originator during a Suite), outsiders smallest first, "finally, the last banker", then
   the bank.
5. **Next.** Who has the suivi, the part of the bank nobody staked against (003's
   Schokolade), and where the bank goes when it ends.
"""

from __future__ import annotations

from decimal import Decimal

from shoe_daemon.money.amounts import CONTEXT, ZERO, add
from shoe_daemon.money.profile import MoneyProfile, Outsiders, SetAside, Suivi
from shoe_daemon.money.round import Round
from shoe_daemon.money.settlement import (
    LOST,
    RETURNED,
    WON,
    BankAfter,
    Line,
    Result,
    Settlement,
)
from shoe_daemon.money.stakes import BANCO_FORMS, RecordError, Stake, StakeKind

#: The term the settlement's lines are ordered by (`Settlement.order`).
ORDER = "chemin_de_fer.payment_order"


def covered(closed: Round) -> dict[str, Decimal]:
    """Each stake's part in play, by stake id."""
    rules = closed.rules
    bank = closed.bank.amount
    if bank is None:
        raise RecordError("a closed round's bank has its sum")
    smallest_first = rules.outsiders.value is Outsiders.SMALLEST_FIRST
    beyond = [s for s in closed.stakes if smallest_first and s.kind is StakeKind.OUTSIDER]
    bound = [s for s in closed.stakes if s not in beyond]
    cover = {s.id: s.value for s in bound}
    left = CONTEXT.subtract(bank, add(*cover.values()))
    if left < 0:
        raise RecordError(f"the stakes cover {add(*cover.values())}, more than the bank {bank}")
    order = {s.id: i for i, s in enumerate(closed.stakes)}
    for s in sorted(beyond, key=lambda s: (s.value, order[s.id])):
        cover[s.id] = min(s.value, left)
        left = CONTEXT.subtract(left, cover[s.id])
    return cover


def payment_order(closed: Round) -> list[Stake]:
    """000 rule 26: the highest stake; Prime and the places following from the banker in
    turn; outsiders smallest first; and finally the last banker's stakes."""
    if not closed.stakes:
        return []
    order = {s.id: i for i, s in enumerate(closed.stakes)}
    rotation = closed.seating.rotation(closed.bank.anchor)
    last = closed.bank.last_banker

    def place(s: Stake) -> int:
        at = s.who.seat if s.who.seated else s.box
        return rotation.index(at) if at in rotation else len(rotation)

    beyond = closed.rules.outsiders.value is Outsiders.SMALLEST_FIRST
    seated = [s for s in closed.stakes if s.who.seated or not beyond]
    outsiders = sorted((s for s in closed.stakes if s not in seated),
                       key=lambda s: (s.value, order[s.id]))
    first = sorted(seated, key=lambda s: (-s.value, not s.who.seated, place(s), order[s.id]))
    head = first[:1]
    rest = sorted((s for s in seated if s not in head), key=lambda s: (place(s), order[s.id]))
    lasts = [s for s in rest + outsiders if last is not None and s.who == last]
    return head + [s for s in rest + outsiders if s not in lasts] + lasts


def settle(profile: MoneyProfile, closed: Round, result: Result, *,
           schokolade_asked: bool = False) -> Settlement:
    """The settlement of a closed Chemin de fer round by the house's rules.

    At a house that sets the Schokolade aside (003), a coup the bank won without being
    fully staked against leaves the new bank at "die Verdopplung der ursprünglichen
    Einsätze der Gegenspieler, abzüglich Taxe" and sets the rest aside (issue 20);
    `schokolade_asked` is the reading of the ledgers written before it, where the rest
    stayed in the bank until the banker asked for it (`Bank.schokolade`)."""
    _check(profile, closed, result)
    rules = closed.rules
    currency = profile.currency.value
    bank = closed.bank.amount
    if bank is None or bank <= 0:
        raise RecordError(f"a closed round's bank has its sum, not {bank}")
    own = CONTEXT.subtract(bank, closed.bank.partner_amount)
    partner = closed.bank.partner_amount
    cover = covered(closed)
    in_play = add(*cover.values())
    decided = result.outcome in ("banker", "punter") and bool(closed.stakes)
    applied = ["chemin_de_fer.egalite" if result.outcome == "egalite" else
               "void" if result.void else "chemin_de_fer.payment_order"]
    lines: list[Line] = []
    for s in payment_order(closed):
        c = cover[s.id]
        if not decided or c == 0:
            lines.append(Line(s.who.key, s.kind.value, s.id, s.amount, c, RETURNED, s.amount,
                              ZERO, ZERO, ZERO))
        elif result.outcome == "banker":
            lines.append(Line(s.who.key, s.kind.value, s.id, s.amount, c, LOST,
                              CONTEXT.subtract(s.amount, c), ZERO, ZERO, -c))
        else:
            lines.append(Line(s.who.key, s.kind.value, s.id, s.amount, c, WON,
                              CONTEXT.add(s.amount, c), ZERO, ZERO, c))
    commission = ZERO
    if decided and result.outcome == "banker":
        commission = currency.percent(in_play, closed.limits.commission_percent)
        applied += ["commission", "rounding"]
        total = CONTEXT.subtract(in_play, commission)
    elif decided:
        total = -in_play
    else:
        total = ZERO
    partner_net = currency.toward_zero(CONTEXT.divide(CONTEXT.multiply(total, partner), bank))
    banker_net = CONTEXT.subtract(total, partner_net)
    ends = decided and (result.outcome == "punter" or rules.rotates_each_coup.value)
    if decided:
        applied.append("chemin_de_fer.rotates_each_coup" if result.outcome == "banker"
                       else "chemin_de_fer.after_loss")
    result_word = WON if decided and result.outcome == "banker" else (
        LOST if decided else RETURNED)
    keep_own, keep_partner = CONTEXT.add(own, banker_net), CONTEXT.add(partner, partner_net)
    partner_risk = currency.toward_zero(CONTEXT.divide(CONTEXT.multiply(in_play, partner), bank))
    lines.append(Line(closed.bank.banker.key, "bank", None, own,
                      CONTEXT.subtract(in_play, partner_risk),
                      result_word,
                      keep_own if ends else ZERO, ZERO if ends else keep_own, commission,
                      banker_net))
    if closed.bank.partner is not None:
        lines.append(Line(closed.bank.partner.key, "partner", None, partner, partner_risk,
                          result_word, keep_partner if ends else ZERO,
                          ZERO if ends else keep_partner, ZERO, partner_net))
    uncovered = CONTEXT.subtract(bank, in_play) if decided and result.outcome == "banker" \
        else ZERO
    set_aside = None
    if rules.set_aside.value is SetAside.SCHOKOLADE and not schokolade_asked:
        set_aside = ZERO if ends else uncovered
        if set_aside:
            applied.append("chemin_de_fer.set_aside")
    after = ZERO if ends else CONTEXT.subtract(CONTEXT.add(bank, total), set_aside or ZERO)
    passes_to = closed.seating.next_after(closed.bank.anchor) if ends else None
    return Settlement(
        profile=profile.name, shoe=result.shoe, coup=result.coup, outcome=result.outcome,
        currency=currency, lines=tuple(lines), commission=commission,
        bank=BankAfter(closed.bank.banker.key, bank, after,
                       ZERO if ends else keep_partner, uncovered, ends, passes_to,
                       set_aside),
        suivi=_suivi(closed, cover, result, decided),
        counts=bool(closed.stakes) and not result.void, rules=tuple(applied), order=ORDER)


def _suivi(closed: Round, cover: dict[str, Decimal], result: Result, decided: bool
           ) -> str | None:
    """Who may banco first in the next coup: a losing banco player (000, 001, 004), or at
    003 also a punter who lost at least half the bank; after égalité or a void, unchanged."""
    rule = closed.rules.suivi.value
    if not decided:
        return None if closed.bank.suivi is None else closed.bank.suivi.key
    if rule is Suivi.NONE or result.outcome != "banker":
        return None
    banco = closed.banco
    if banco is not None and banco.kind in BANCO_FORMS:
        return banco.who.key
    if rule is Suivi.HALF_BANK_OR_BANCO:
        bank = closed.bank.amount
        assert bank is not None
        lost: dict = {}
        for s in closed.stakes:
            if s.who.seated:
                lost[s.who] = add(lost.get(s.who, ZERO), cover[s.id])
        half = CONTEXT.divide(bank, 2)
        losers = sorted((p for p, v in lost.items() if v >= half), key=closed.priority)
        if losers:
            return losers[0].key
    return None


def _check(profile: MoneyProfile, closed: Round, result: Result) -> None:
    if closed.profile.name != profile.name or result.profile != profile.name:
        raise RecordError(f"a {profile.name} settlement needs a {profile.name} round and result, "
                          f"not {closed.profile.name} and {result.profile}")
    if closed.closed != (result.shoe, result.coup):
        raise RecordError(f"the round was closed for shoe/coup {closed.closed}, the result is "
                          f"shoe {result.shoe} coup {result.coup}")


def unbanked(profile: MoneyProfile, result: Result) -> Settlement:
    """A coup dealt while nobody held the bank: nothing was staked and nothing changes."""
    assert profile.chemin_de_fer is not None
    return Settlement(profile=profile.name, shoe=result.shoe, coup=result.coup,
                      outcome=result.outcome, currency=profile.currency.value, lines=(),
                      commission=ZERO, counts=False,
                      rules=("chemin_de_fer.first_banker",), order=ORDER)
