"""The console's actions: the one place that lists every kind, who may take it, what it
takes, when it may be taken and what it does (docs/console.md, "Actions").

An action is a signed-in person's request (`Action`: its client-made id, the kind, the
person, their role, the arguments). The console's server validates it (its arguments
against `ActionKind.args`) and hands it to the table's loop, the thread that plays the
shoe's frames. There the table:
1. admits it against the table as it is now (`admit`: the role, then the kind's `check`),
   or refuses it with a reason, leaving nothing anywhere;
2. applies it (`apply`, which changes the game in memory and returns the lines it decided);
3. commits its record (`Action.record()`, kind `action`) and those lines to the audit ledger
   in one transaction, the action first; only then are the lines published, the screens
   updated and the request answered. A refused commit rewinds the game from the ledger.
The ledger then holds the actions among the frames in the order they were taken, so
playing its records again (`play.py`: the daemon's restore, the recall, `shoe-daemon
replay --console`) rebuilds the same table.

Adding a kind (the croupier's reports) is one `ActionKind` in `ACTIONS`: its roles, its
arguments (schema.py), its check against the table and what it applies; the target (`Table`)
gains whatever domain it changes.

The money's kinds (docs/console.md, "The money") are one a money op, of the same name: the
till (till.py) applies the op to the table's money, whose rules refuse it or make its
records, which the table commits with the action. A `Refusal` of the money's is the API's
409 (400 for a request the money finds malformed) with its reason, code and rule.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from drivers.messages import READABLE_CARDS
from shoe_daemon.console.people import Role, Roster
from shoe_daemon.console.schema import Field, Invalid, check_object
from shoe_daemon.console.till import Till
from shoe_daemon.game.coup import IN_COUP, CoupMachine
from shoe_daemon.money.refusals import Refusal

ANYONE = frozenset(Role)
SUPERVISOR = frozenset({Role.SUPERVISOR})


class Refused(Exception):
    """An action the table will not take; nothing of it is kept. `status` is the HTTP
    status the API answers with; a money rule's refusal adds its `code` and `rule`."""

    def __init__(self, status: int, reason: str, code: str | None = None,
                 rule: str | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.code = code
        self.rule = rule

    @classmethod
    def of(cls, refusal: Refusal) -> Refused:
        """The money's refusal as the API's: 409, or 400 for a malformed request."""
        status = 400 if refusal.code == "bad_request" else 409
        return cls(status, str(refusal), refusal.code, refusal.rule)

    def body(self) -> dict[str, str]:
        """The API's refusal: the words, then the money's `code` and the `rule` cited (once,
        here, never again in the words), where there are."""
        out = {"error": self.reason}
        if self.code is not None:
            out["code"] = self.code
        if self.rule is not None:
            out["rule"] = self.rule
        return out


class Table(Protocol):
    """What actions check and change: the table's game, the people now configured, and the
    table's money (None where it is not kept)."""

    @property
    def machine(self) -> CoupMachine: ...

    @property
    def roster(self) -> Roster: ...

    @property
    def till(self) -> Till | None: ...


@dataclass(frozen=True)
class Approval:
    """A supervisor's approval of one action on another person's screen: who, as what, by
    which method (her PIN or badge, checked by the console's server; never kept)."""

    person: str
    role: Role
    method: str  # pin or badge

    def record(self) -> dict[str, str]:
        return {"person": self.person, "role": self.role.value, "method": self.method}

    @classmethod
    def of_record(cls, body: Mapping[str, Any]) -> Approval:
        return cls(body["person"], Role(body["role"]), body["method"])


@dataclass(frozen=True)
class Action:
    """One action as the ledger records it (kind `action`): never a secret. `by` is the
    signed-in person who took it; `approved_by`, a supervisor who authorised it on his
    screen (contract 1): the action then has her authority, for itself alone."""

    id: str  # made by the client, unique: a request seen before is refused as replayed
    kind: str
    by: str  # the person's id
    role: Role
    args: Mapping[str, str] = field(default_factory=dict)
    approved_by: Approval | None = None

    @property
    def authority(self) -> Role:
        """The role the action is taken with: the approver's, if approved."""
        return self.role if self.approved_by is None else self.approved_by.role

    def without_approval(self) -> Action:
        return dataclasses.replace(self, approved_by=None)

    def record(self) -> dict[str, Any]:
        out = {"id": self.id, "kind": self.kind, "by": self.by, "role": self.role.value,
               "args": dict(self.args)}
        if self.approved_by is not None:
            out["approved_by"] = self.approved_by.record()
        return out

    @classmethod
    def of_record(cls, body: Mapping[str, Any]) -> Action:
        approved = body.get("approved_by")
        return cls(body["id"], body["kind"], body["by"], Role(body["role"]),
                   MappingProxyType(dict(body["args"])),
                   None if approved is None else Approval.of_record(approved))


Lines = list[dict[str, Any]]


def decided_by(action: Action) -> str:
    """Who the game and the money record as having decided: the supervisor whose approval
    the action took (her ruling, his tap on his screen), else the person who took it. The
    `action` record keeps both."""
    return action.by if action.approved_by is None else action.approved_by.person


@dataclass(frozen=True)
class ActionKind:
    name: str
    roles: frozenset[Role]  # who may take it
    args: Mapping[str, Field]  # exactly these arguments
    check: Callable[[Table, Action], None]  # raises Refused (409/403) if it cannot be taken now
    apply: Callable[[Table, Action], Lines]  # what it does; the lines it decided
    api: bool = True  # taken at POST /api/actions (sign-in and sign-out have their own)
    help: str = ""
    supervised: bool = False  # its check asks for a supervisor in some states (a hold's)

    def needs_approval(self, role: Role) -> bool:
        """Whether `role` may take it only with a supervisor's approval."""
        return role not in self.roles


REASON = Field("the reason, in words: 3 to 300 characters", min_len=3, max_len=300)
LATCH = Field("an open latch's id (hold-<shoe>-<coup>-<n> or fault-<code>)",
              pattern=re.compile(r"hold-[0-9]{1,6}-[0-9]{1,6}-[0-9]{1,3}|fault-[A-Z_]{1,16}"),
              max_len=40)
WAYS = ("OK", "ENTER", "CARTE", "RESTE", "STAND", "DISMISS")  # DISMISS: a report's (rule 11)
SESSION = Field("the session's public id (never its cookie)", pattern=re.compile(r"[0-9a-f]{12}"),
                max_len=12)


# ---- the kinds' checks and effects ------------------------------------------------------------


def _nothing(table: Table, action: Action) -> Lines:
    return []


def _always(table: Table, action: Action) -> None:
    return None


def _configured(table: Table, action: Action) -> None:
    """Signing in: the person is still configured, with that role."""
    person = table.roster.get(action.by)
    if person is None or person.role is not action.role:
        raise Refused(403, f"{action.by} is not configured as a {action.role.value} at this "
                           "table")


def _latch(table: Table, latch_id: str) -> Any:
    for latch in table.machine.public.latches:
        if latch.id == latch_id:
            return latch
    raise Refused(409, "resolved already: no open latch by that id")


def _can_resolve(table: Table, action: Action) -> None:
    """Short words for the touch screen; the hold's rule in `rule`, once."""
    latch = _latch(table, action.args["latch"])
    way, card = action.args.get("way"), action.args.get("card")
    rule = latch.rule or None
    ways = " or ".join(latch.ways)
    if latch.supervisor and action.authority is not Role.SUPERVISOR:
        why = ("the shoe still reports the fault: only a supervisor may resolve it before it "
               "clears" if latch.kind == "fault" else "this hold is a supervisor's")
        raise Refused(403, f"{why}; {action.by} is a {action.role.value}", rule=rule)
    if latch.held and way is None:
        raise Refused(409, f"play still holds: lift it with {ways}, or a supervisor voids "
                           "the coup", rule=rule)
    if not latch.held and way is not None:
        lifted = f" ({latch.lifted.split()[0]} by {latch.lifted_by})" if latch.lifted else ""
        raise Refused(409, f"lifted on the shoe already{lifted}: just sign it off",
                      rule=rule)
    if way is not None and way not in latch.ways:
        raise Refused(409, f"this hold is lifted by {ways}, not {way}", rule=rule)
    if (way == "ENTER") != (card is not None):
        raise Refused(400, "key in the card with ENTER, and only with it")


def _resolve(table: Table, action: Action) -> Lines:
    args = action.args
    return table.machine.resolve(args["latch"], decided_by(action), args.get("way"),
                                 args.get("card"))


# ---- what only the croupier sees (the coup machine's reports.py) -----------------------------

POSITION = Field("a card of the coup by its place: P1, P2, P3 (punter), B1, B2, B3 (banker)",
                 choices=("P1", "P2", "P3", "B1", "B2", "B3"), max_len=2)
FACE = Field("how the card landed: up or down", choices=("up", "down"), max_len=4)
PARTNER = Field("the banker's partner, as the money names players: 'seat N' or 'outsider "
                "LABEL'", pattern=re.compile(r"seat [1-9][0-9]?|outsider [A-Za-z0-9]"
                                             r"[A-Za-z0-9 ._-]{0,23}"), max_len=33)


def _report_args(action: Action) -> dict[str, str | None]:
    args = action.args
    return {"position": args.get("position"), "face": args.get("face"),
            "partner": args.get("partner")}


#: A report in the croupier's words, where a refusal names it.
REPORT_WORDS = {"punter_bac": "a punter's bac", "banker_card_lost": "the banker's lost card",
                "card_fell": "a card that fell", "partner_objection": "the partner's "
                "objection"}


def report_words(kind: str, why: str, rule: str) -> str:
    """Why a report is not taken, in the croupier's words: the report by its name, not its
    kind's, and without the rule the coup machine cites (the console gives it in `rule`)."""
    if rule and why.endswith(f" ({rule})"):
        why = why[:-len(rule) - 3]
    if why.startswith(kind):
        why = REPORT_WORDS.get(kind, kind) + why[len(kind):]
    return why


def _can_report(table: Table, action: Action) -> None:
    """The house has the rule, and it can act now: the coup machine's answer, in the
    croupier's words, with the rule it cites in `rule` alone."""
    why = table.machine.refusal(action.kind, **_report_args(action))
    if why is None:
        return
    rule = next((r.rule for r in table.machine.reports if r.kind == action.kind), "")
    raise Refused(409, report_words(action.kind, why, rule), rule=rule or None)


def _report(table: Table, action: Action) -> Lines:
    return table.machine.report(action.kind, action.by, **_report_args(action))


#: The reports, by the rule each applies (000 rules 15, 11, 10, 4; each house's cell in its
#: profile). A croupier or a supervisor reports what he saw at the table: the croupier directs
#: play and puts a player's mistake right by the rules (000: "Should a mistake occur through
#: too much haste on the part of the player, it is rectified by the croupier in accordance
#: with the rules"). Only rule 11 takes the coup from the banker: the croupier's report holds
#: play, and a supervisor rules on it (the hold's way out: OK upholds it, DISMISS does not,
#: the void voids the coup), as the forfeit of 000 rule 12 is the supervisor's call.
REPORTS: tuple[ActionKind, ...] = (
    ActionKind("punter_bac", ANYONE, {"reason": REASON}, _can_report, _report,
               help="000 rule 15: the punter threw his cards into the discard; his hand "
                    "counts bac (0) and the banker plays on against it"),
    ActionKind("banker_card_lost", ANYONE, {"position": POSITION, "reason": REASON},
               _can_report, _report,
               help="000 rule 11: the banker threw the card at `position` into the discard "
                    "and it cannot be recognised; play holds until a supervisor upholds it "
                    "(the coup is lost to the banker), dismisses it, or voids the coup"),
    ActionKind("card_fell", ANYONE, {"position": POSITION, "face": FACE, "reason": REASON},
               _can_report, _report,
               help="000 rule 10: the card at `position` fell from the table; it remains "
                    "valid (face up: it is exposed, with 000 rules 6 and 8)"),
    ActionKind("partner_objection", ANYONE, {"partner": PARTNER, "reason": REASON},
               _can_report, _report,
               help="000 rule 4: the banker's partner objected to the banker's manner of "
                    "play; it is recorded, and the banker's play stands"),
)


def _can_void(table: Table, action: Action) -> None:
    if table.machine.state not in (*IN_COUP, "on_hold"):
        raise Refused(409, "no coup is in play to void")


def _void(table: Table, action: Action) -> Lines:
    return table.machine.void(decided_by(action))


# ---- the money (docs/console.md, "The money"; docs/money.md, "Actions and records") ------------

_AMOUNT = r"[0-9]{1,15}(\.[0-9]{1,4})?"
AMOUNT = Field("an amount as a decimal string (1170, 12.50)", pattern=re.compile(_AMOUNT),
               max_len=20)
BANK_SUM = Field("the bank's sum as a decimal string, or open (000 rule 5)",
                 pattern=re.compile(f"open|{_AMOUNT}"), max_len=20)
LIMIT = Field("a limit as a decimal string, or none for no maximum",
              pattern=re.compile(f"none|{_AMOUNT}"), max_len=20, required=False)
PLAYER = Field("a player: 'seat N', or 'outsider LABEL' (1 to 24 letters, digits, space . _ -)",
               pattern=re.compile(r"seat [1-9][0-9]?|outsider [A-Za-z0-9][A-Za-z0-9 ._-]{0,23}"),
               max_len=33)
PLACE = Field("a place or box number from 1", pattern=re.compile(r"[1-9][0-9]?"), max_len=2)
STAKE_ID = Field("a stake's or bet's id (s3, b2)", pattern=re.compile(r"[sb][1-9][0-9]{0,5}"),
                 max_len=7)
BANCO_KINDS = ("banco_solo", "banco", "banco_with_table")
BETS = ("punto", "banco", "egalite", "simple_nine", "colour_nine", "swiss_nine")
FLAG = Field("true or false", choices=("true", "false"), required=False)


def _optional(field: Field) -> Field:
    return Field(field.what, False, field.choices, field.pattern, field.min_len, field.max_len)


def _money_kept(table: Table, action: Action) -> None:
    if table.till is None:
        raise Refused(409, "the table's money is not kept at this table (no [money] in its "
                           "configuration)")


def _money(table: Table, action: Action) -> Lines:
    """The action's money op, by the money's rules: its records wait for the commit. (Where
    no money is kept, as in the recall's replay, it changes nothing in the game.)"""
    till = table.till
    if till is None:
        return []
    try:
        till.act(action.kind, action.args, decided_by(action))
    except Refusal as refusal:
        raise Refused.of(refusal) from None
    return []


def _money_kind(name: str, args: Mapping[str, Field], help: str,
                roles: frozenset[Role] = ANYONE) -> ActionKind:
    return ActionKind(name, roles, args, _money_kept, _money, help=help)


MONEY = (
    _money_kind("sit", {"seat": PLACE}, "a player sits down at a place"),
    _money_kind("leave", {"seat": PLACE}, "a player leaves his place"),
    _money_kind("take_bank", {"who": PLAYER, "amount": BANK_SUM, "partner": _optional(PLAYER),
                              "partner_amount": _optional(AMOUNT)},
                "the player in turn puts up the bank (000: open, and a partner, rules 4, 5)"),
    _money_kind("decline_bank", {"who": PLAYER}, "the player in turn, or offered the bank, "
                "does not take it"),
    _money_kind("accept_offer", {"who": PLAYER}, "the player offered the bank takes it at its "
                "last sum (001, 003)"),
    _money_kind("to_auction", {}, "nobody standing takes the offer: the bank is auctioned (001)"),
    _money_kind("bid", {"who": PLAYER, "amount": AMOUNT}, "a bid at the bank's auction"),
    _money_kind("award", {}, "the auction closes"),
    _money_kind("suite", {}, "the banker gives up the bank"),
    _money_kind("schokolade", {}, "003: the part nobody staked against set aside, where the "
                "table waits for the banker to ask (`schokolade = \"asked\"`)"),
    _money_kind("garage", {"amount": AMOUNT}, "004: chips taken out of the bank"),
    _money_kind("banco", {"who": PLAYER, "kind": Field("the banco form", choices=BANCO_KINDS),
                          "amount": _optional(AMOUNT)},
                "a banco form called (with the table: the punter's own stake)"),
    _money_kind("share", {"who": PLAYER, "of": PLAYER, "amount": AMOUNT},
                "a shareholder in a banco (000 II, 003)"),
    _money_kind("stake", {"who": PLAYER, "amount": AMOUNT, "over_line": FLAG,
                          "box": _optional(PLACE)},
                "a stake in the general game, or an outsider's"),
    _money_kind("bet", {"box": PLACE, "bet": Field("the bet", choices=BETS), "amount": AMOUNT},
                "Punto Banco: a box's bet"),
    _money_kind("withdraw", {"stake": STAKE_ID}, "a stake or bet taken back before the deal"),
    _money_kind("correct", {"stake": _optional(STAKE_ID), "who": _optional(PLAYER),
                            "kind": Field("the kind of play of a stake missed", required=False,
                                          choices=("table", *BANCO_KINDS)),
                            "over_line": FLAG, "box": _optional(PLACE),
                            "bet": Field("a bet missed", required=False, choices=BETS),
                            "amount": AMOUNT, "reason": REASON},
                "a supervisor corrects a stake after betting closed, before the settlement "
                "(0: it was never there; or a stake missed)", SUPERVISOR),
    _money_kind("reopen", {"how": Field("void (the coup is void after all) or rules (the "
                                        "settlement recorded is not the rules')",
                                        choices=("void", "rules")), "reason": REASON},
                "a supervisor reopens the last settlement and corrects it", SUPERVISOR),
    _money_kind("limits", {"min_stake": LIMIT, "max_stake": LIMIT, "min_bank": LIMIT,
                           "max_bank": LIMIT, "nine_min_stake": LIMIT, "nine_max_stake": LIMIT,
                           "reason": REASON},
                "a supervisor changes the table's limits (001: \"at any time\")", SUPERVISOR),
)


#: Every action the console can take.
ACTIONS: Mapping[str, ActionKind] = MappingProxyType({k.name: k for k in (
    *REPORTS,
    ActionKind("sign_in", ANYONE, {"method": Field("pin or badge", choices=("pin", "badge")),
                                   "session": SESSION},
               _configured, _nothing, api=False,
               help="a person signed in (the server checked the PIN or badge)"),
    ActionKind("sign_out", ANYONE,
               {"why": Field("why the session ended", choices=(
                   "asked", "expired", "removed", "stopped", "restarted")),
                "session": SESSION},
               _always, _nothing, api=False,
               help="a session ended; never refused (kept for the ledger if it is down)"),
    ActionKind("resolve", ANYONE, {
        "latch": LATCH,
        "way": Field("the way out taken on the console", required=False, choices=WAYS),
        "card": Field("the card keyed in, with ENTER (9C, TD, ...)", required=False,
                      choices=READABLE_CARDS, max_len=2),
        "reason": REASON,
    }, _can_resolve, _resolve, supervised=True,
        help="resolve a latched hold or shoe fault, with a reason: a sign-off, or the way "
             "out itself while the hold still holds play (a supervisor's hold, or a fault "
             "the shoe still reports, needs a supervisor)"),
    ActionKind("void", SUPERVISOR, {"reason": REASON}, _can_void, _void,
               help="a supervisor voids the coup in play (a hold is lifted first)"),
    *MONEY,
)})


def arguments(kind: str, args: Any) -> dict[str, str]:
    """The arguments of an action of `kind`, strictly checked; Invalid says what is wrong."""
    found = ACTIONS.get(kind) if isinstance(kind, str) else None
    if found is None:
        raise Invalid(f"unknown action kind {kind!r} (known: "
                      f"{', '.join(k for k, v in ACTIONS.items() if v.api)})")
    return check_object({} if args is None else args, found.args, f"arguments of {kind}")


def admit(table: Table, action: Action) -> ActionKind:
    """The kind, if this person may take this action on the table as it is now; else
    Refused: 403 for the role, 409 for the table's state. An approved action is taken with
    the approver's authority, if she is still configured as a supervisor, and only where it
    needs it: an approval that authorises nothing is refused, not recorded."""
    kind = ACTIONS.get(action.kind)
    if kind is None:
        raise Refused(400, f"unknown action kind {action.kind!r}")
    approval = action.approved_by
    if approval is not None:
        approver = table.roster.get(approval.person)
        if approver is None or approver.role is not Role.SUPERVISOR:
            raise Refused(403, f"{approval.person} is no longer a supervisor here: ask "
                               "again")
        if action.role in kind.roles:
            try:
                kind.check(table, action.without_approval())
            except Refused as e:
                if e.status != 403:
                    raise
            else:
                raise Refused(409, f"{kind.name} needs no supervisor now: do it without "
                                   "her approval")
    if action.authority not in kind.roles:
        needs = " or ".join(sorted(r.value for r in kind.roles))
        raise Refused(403, f"{kind.name} needs a {needs}: {action.by} is a "
                           f"{action.role.value}")
    kind.check(table, action)
    return kind
