"""Game recall: the last coups, or any coup by its shoe and number, card by card in the
order the cards left the shoe, with the cards that did not stay in play, the exposures, the
irregularities and how they were resolved and by whom, read from the audit ledger.

The ledger holds the frames, the lines and the actions; what each card became (P2, the
banker's third, null and void, out of play) is the game's answer, so the recall plays the
shoe's records again through a coup machine of its own (console/play.py, the daemon's
restore does the same) and asks it. It reads the ledger read-only, on the console server's
thread, never the table's loop: it is available at any moment, on hold too.

What it shows obeys the display's rule (shoe_daemon/display/view.py): a card's code only
once the game showed it. A coup decided by a showdown shows all its cards; a voided or
cancelled coup, and the coup in play, only what was public (face up, exposed, third cards);
a card that left play face down stays hidden, and so does one that went into the discard
unseen (a punter's bac, 000 rule 15; the banker's lost card, rule 11). Irregularities are in
the display's words with their rule, never the machine's detail (which names cards); the
croupier's reports are events with the person, the place of the card they name and the
reason.

With the table's money kept, each coup tells its stakes as betting closed, its settlement
line by line and its corrections with who approved them, read from the money's own records,
never played again (console/recall_money.py); the answer's `betting` is the round still open.
Stakes hold no card. Only a coup the ledger does not hold is `NoSuchCoup` (the API's 404);
anything else that fails is a fault, the console's 500.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drivers.messages import Button, Card, Fault, Message
from drivers.records import frame_message, restore_point
from shoe_daemon.audit.layout import iso
from shoe_daemon.audit.ledger import Record
from shoe_daemon.audit.reader import LedgerReader
from shoe_daemon.console.people import Roster
from shoe_daemon.console.play import game_message, play_action
from shoe_daemon.console.recall_money import (
    MONEY_READ,
    Betting,
    CoupMoney,
    told_correction,
    told_round,
    told_settlement,
)
from shoe_daemon.console.till import CROUPIER_OPS, SUPERVISOR_OPS
from shoe_daemon.display.view import PLAYER_WORDS, public_positions
from shoe_daemon.game import cards
from shoe_daemon.game.coup import CoupMachine, CoupState
from shoe_daemon.game.houses import get_profile
from shoe_daemon.game.irregularities import Code
from shoe_daemon.game.rules import FaceUp, Report

LAST = 10
REPORT_KINDS = tuple(report.value for report in Report)
SHOE_FRAMES = """SELECT idx, body FROM records WHERE kind = 'frame'
                 AND body LIKE '%"fields":["SHOE"%' AND idx <= ? ORDER BY idx DESC"""
SHOE_COUNT = """SELECT COUNT(*) FROM records WHERE kind = 'frame'
                AND body LIKE '%"fields":["SHOE"%' AND idx < ?"""
NOT_SHOWN = None


@dataclass
class CardOut:
    """One card out of the shoe, as the recall tells it."""

    idx: int
    at: str
    code: str
    face: str
    dest: str | None
    position: str | None = None  # P1 ... B3 once the game placed it
    coup: tuple[int, int] | None = None
    entered: str | None = None  # keyed in with ENTER, for a `??`
    void: str | None = None  # why it never counted, where the game says at once


@dataclass
class Story:
    shoe: int
    coup: int
    cards: list[CardOut] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    final: CoupState | None = None  # as decided
    result: dict[str, Any] | None = None
    money: CoupMoney = field(default_factory=CoupMoney)


class NoSuchCoup(LookupError):
    """The ledger kept at the table has no such coup (the API's 404; any other fault of
    the recall is the console's 500)."""


class _Replayed:
    """What an action replayed acts on: the recall's own machine (no one signs in here; the
    money is read from its own records, not played again)."""

    def __init__(self, machine: CoupMachine) -> None:
        self.machine = machine
        self.roster = Roster()
        self.till = None


class Recall:
    """Answers the console's recall from the ledger in `state_dir`, under `profile`."""

    def __init__(self, state_dir: Path, profile: str, latching: bool = True) -> None:
        self.state_dir = state_dir
        self.profile = get_profile(profile)
        self.latching = latching

    def answer(self, shoe: int | None, coup: int | None) -> dict[str, Any]:
        """The last coups (None, None), or that one; NoSuchCoup if there is no such coup."""
        reader = LedgerReader(self.state_dir)
        try:
            reader.db.execute("BEGIN")  # one snapshot while the daemon goes on appending
            if shoe is None:
                return self._last(reader)
            return self._one(reader, shoe, coup or 0)
        finally:
            reader.close()

    # ---- finding where to play from ------------------------------------------------------------

    def _last(self, reader: LedgerReader) -> dict[str, Any]:
        rows = reader.db.execute(
            "SELECT idx FROM records WHERE kind = 'result' AND "
            "json_extract(body, '$.line.event') = 'coup.result' ORDER BY idx DESC LIMIT ?",
            (LAST,)).fetchall()
        first = rows[-1][0] if rows else reader.last_index()
        stories, consistent, in_play, betting = self._play(reader, first)
        decided = [s for s in stories if s.result is not None][-LAST:]
        shown = ([in_play] if in_play is not None and in_play.result is None else []) + \
            decided[::-1]
        return {"coups": [self._told(s, in_play) for s in shown], "consistent": consistent,
                "betting": betting.told()}

    def _one(self, reader: LedgerReader, shoe: int, coup: int) -> dict[str, Any]:
        row = reader.db.execute(
            "SELECT MIN(idx) FROM records WHERE kind = 'result' AND "
            "json_extract(body, '$.line.shoe') = ? AND json_extract(body, '$.line.coup') = ?",
            (shoe, coup)).fetchone()
        at = row[0] if row and row[0] is not None else reader.last_index()
        stories, consistent, in_play, betting = self._play(reader, at)
        for story in stories:
            if (story.shoe, story.coup) == (shoe, coup):
                return {"coups": [self._told(story, in_play)], "consistent": consistent,
                        "betting": betting.told()}
        raise NoSuchCoup(f"no coup {coup} of shoe {shoe} in the ledger kept at this table")

    def _start(self, reader: LedgerReader, at: int) -> tuple[int, int]:
        """The last BTN,SHOE at or before `at` that started its shoe, and the shoes before."""
        kept = reader.start()
        for idx, body in reader.db.execute(SHOE_FRAMES, (at,)):
            frame = json.loads(body)
            if restore_point(frame):
                count = reader.db.execute(SHOE_COUNT, (idx,)).fetchone()[0]
                return idx, kept.shoes + count
        return kept.first_idx, kept.shoes

    # ---- playing the records again ------------------------------------------------------------

    def _play(self, reader: LedgerReader, at: int
              ) -> tuple[list[Story], bool, Story | None, Betting]:
        start, before = self._start(reader, at)
        machine = CoupMachine(self.profile, latching=self.latching)
        machine.restore((), before)
        target = _Replayed(machine)
        stories: dict[tuple[int, int], Story] = {}
        pending: list[CardOut] = []
        replayed: list[dict[str, Any]] = []
        recorded: list[dict[str, Any]] = []

        def story(key: tuple[int, int]) -> Story:
            if key not in stories:
                stories[key] = Story(*key)
            return stories[key]

        def decided(state: CoupState) -> None:
            shoe = machine.public.shoe
            key = (shoe.number if shoe else 0, state.number)
            s = story(key)
            s.final = state
            self._place(state, key, pending, stories)

        machine.watch_decisions(decided)
        betting = Betting()
        acting: dict[str, Any] | None = None  # the action whose transaction this is
        kinds = ("frame", "result", "action", *MONEY_READ)
        for record in reader.records(start, kinds):
            where = self._where(machine)
            at_time = iso(record.wall_ns)
            if record.kind.startswith("money."):
                self._money(record, betting, story, at_time, acting)
                continue
            if record.kind == "result":
                line = record.body["line"]
                recorded.append(line)
                key = (line["shoe"], line["coup"])
                self._line(story(key), line, record, at_time)
                continue
            if record.kind == "action":
                acting = record.body
                replayed += self._action(machine, target, record, story, where, at_time)
                continue
            acting = None
            message = frame_message(record.body)
            if isinstance(message, Card):
                card = CardOut(record.idx, at_time, message.code, message.face, message.dest)
                if message.face == "U" and self.profile.face_up is FaceUp.VOID:
                    card.void = "came out face up: null and void, the next card takes its place"
                else:
                    pending.append(card)
                story(where).cards.append(card)
            game = game_message(message, record.body)
            waiting = machine.waiting
            if game is not None:
                replayed += machine.handle(game)
            after = self._where(machine)
            event = self._frame_event(message, record.body, at_time, record.idx)
            if event is not None:
                if machine.waiting > waiting:
                    event["waited"] = True  # behind a hold or the console's latch
                story(after if isinstance(message, Button) and message.name == "DEAL"
                      else where).events.append(event)
        in_play = None
        state = machine.public
        if state.coup is not None and state.coup.outcome is None and state.shoe is not None:
            in_play = story((state.shoe.number, state.coup.number))
            in_play.final = state.coup
            self._place(state.coup, (in_play.shoe, in_play.coup), pending, stories)
        ordered = [stories[k] for k in sorted(stories) if k[1] > 0]
        return ordered, replayed == recorded, in_play, betting

    @staticmethod
    def _money(record: Record, betting: Betting, story: Any, at_time: str,
               acting: dict[str, Any] | None) -> None:
        """A money record: the stakes still open, a coup's round, settlement, correction
        (approved by whom the action that made it says)."""
        body = record.body
        event = body["event"]
        if event == "money.table":
            betting.start(body)  # the round open as the shoe started (stakes may come before)
            return
        betting.record(body)
        if event == "money.round":
            story((body["shoe"], body["coup"])).money.stakes = told_round(body)
        elif event == "money.settlement":
            story((body["shoe"], body["coup"])).money.settlement = told_settlement(body)
        elif event == "money.correction":
            told = story((body["shoe"], body["coup"]))
            approved = None if acting is None else acting.get("approved_by")
            correction = {"at": at_time, "idx": record.idx,
                          **told_correction(body, approved)}
            if acting is not None:  # who keyed it; the money's record names who decided
                correction["by"] = acting.get("by", correction["by"])
            if body["change"] == "settlement":
                told.money.settlement = told_settlement(body["settlement"])
            told.money.corrections.append(correction)
            told.events.append({"at": at_time, "idx": record.idx, "what": "correction",
                                "change": body["change"], "by": correction["by"],
                                "approved_by": correction["approved_by"],
                                "reason": correction["reason"], "how": body.get("how")})

    @staticmethod
    def _where(machine: CoupMachine) -> tuple[int, int]:
        state = machine.public
        return (state.shoe.number if state.shoe else 0,
                state.coup.number if state.coup else 0)

    def _place(self, state: CoupState, key: tuple[int, int], pending: list[CardOut],
               stories: dict[tuple[int, int], Story]) -> None:
        """The coup's hands matched to the cards out of the shoe, oldest first (an entered
        card to the `??` it replaced); a card matched to this coup moves to its story."""
        hands = [(f"P{i + 1}", c) for i, c in enumerate(state.punter)]
        hands += [(f"B{i + 1}", c) for i, c in enumerate(state.banker)]
        for position, code in hands:
            match = next((c for c in pending if c.code == code), None)
            if match is None:
                match = next((c for c in pending if c.code == cards.UNREADABLE), None)
                if match is None:
                    continue
                match.entered = code
            pending.remove(match)
            match.position, match.coup = position, key
            for story in stories.values():
                if match in story.cards and (story.shoe, story.coup) != key:
                    story.cards.remove(match)
                    stories[key].cards.append(match)
                    stories[key].cards.sort(key=lambda c: c.idx)

    def _action(self, machine: CoupMachine, target: _Replayed, record: Record, story: Any,
                where: tuple[int, int], at_time: str) -> list[dict[str, Any]]:
        body = record.body
        kind, args = body["kind"], body.get("args", {})
        lines = play_action(target, body)
        if kind in ("sign_in", "sign_out", *CROUPIER_OPS, *SUPERVISOR_OPS):
            return lines  # the money's actions are told by its records (stakes, corrections)
        key = where
        latch = args.get("latch", "")
        if latch.startswith("hold-"):
            _, shoe, coup, _ = latch.split("-")
            key = (int(shoe), int(coup))
        event = {"at": at_time, "idx": record.idx, "what": "console", "kind": kind,
                 "by": body["by"], "role": body["role"], "reason": args.get("reason"),
                 "approved_by": body.get("approved_by")}
        if kind == "resolve":
            event.update(latch=latch, way=args.get("way"))
        elif kind in REPORT_KINDS:  # what only the croupier sees: the place, never a card
            event.update({k: args[k] for k in ("position", "face", "partner") if k in args})
        story(key).events.append(event)
        return lines

    @staticmethod
    def _frame_event(message: Message, body: dict[str, Any], at_time: str,
                     idx: int) -> dict[str, Any] | None:
        if isinstance(message, Fault):
            return {"at": at_time, "idx": idx, "what": "fault", "code": message.code,
                    "on": message.on}
        if not isinstance(message, Button):
            return None
        event: dict[str, Any] = {"at": at_time, "idx": idx, "what": "button",
                                 "name": message.name}
        if message.name == "KEY":
            decision = body.get("badge")
            if decision is not None:
                event.update(person=decision["person"], taken=decision["taken"],
                             why=decision["why"])
            else:
                event.update(person=message.arg, taken=True)
        elif message.name in ("EXPOSE", "TABLE", "FREE", "SHOE"):
            event["arg"] = message.arg
        return event

    @staticmethod
    def _line(story: Story, line: dict[str, Any], record: Record, at_time: str) -> None:
        event = line["event"]
        base = {"at": at_time, "idx": record.idx}
        if event == "coup.result":
            story.result = line
            story.events.append({**base, "what": "result", "outcome": line["outcome"]})
        elif event == "irregularity":
            story.events.append({**base, "what": "irregularity", "code": line["code"],
                                 "rule": line["rule"], "hold": line["hold"],
                                 "words": PLAYER_WORDS[Code(line["code"])]})
        else:
            story.events.append({**base, "what": "resolved", "code": line["code"],
                                 "how": line["how"].split()[0], "by": line["by"]})

    # ---- telling it ---------------------------------------------------------------------------

    def _told(self, story: Story, in_play: Story | None) -> dict[str, Any]:
        final = story.final
        shown = public_positions(final) if final is not None else set()

        def hand(side: str) -> dict[str, Any]:
            codes = () if final is None else (final.punter if side == "P" else final.banker)
            visible = [c if f"{side}{i + 1}" in shown else NOT_SHOWN for i, c in
                       enumerate(codes)]
            whole = bool(codes) and all(v is not None for v in visible)
            if side == "P" and final is not None and final.bac:  # 000 rule 15: counts 0
                return {"cards": visible, "total": 0, "bac": True}
            return {"cards": visible,
                    "total": cards.total(codes) if whole and "??" not in codes else None}

        told_cards = []
        for card in story.cards:
            public = (card.position in shown if card.position is not None
                      else card.face == "U")
            if card.position is not None:
                fate = f"{'punter' if card.position[0] == 'P' else 'banker'} {card.position}"
                if final is not None and card.position in final.discarded:
                    fate += ", into the discard unseen"
            elif card.void:
                fate = card.void
            elif story is in_play:
                fate = "not placed yet"
            else:
                fate = "out of play"
            told_cards.append({
                "at": card.at, "code": card.code if public or card.code == "??" else NOT_SHOWN,
                "face": "up" if card.face == "U" else "down", "dest": card.dest,
                "position": card.position, "fate": fate,
                "entered": card.entered if card.entered and public else NOT_SHOWN,
            })
        result = story.result
        return {
            "shoe": story.shoe, "coup": story.coup, "in_play": story is in_play,
            "outcome": final.outcome if final is not None else None,
            "last_coup": bool(result and result["last_coup"]),
            "punter": hand("P"), "banker": hand("B"),
            "exposed": sorted(final.exposed) if final is not None else [],
            "irregularities": list(result["irregularities"]) if result else [],
            "cards": told_cards,
            "events": story.events,
            "stakes": story.money.stakes,
            "settlement": story.money.settlement,
            "corrections": story.money.corrections,
        }
