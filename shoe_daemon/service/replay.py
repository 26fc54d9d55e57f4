"""`shoe-daemon replay`: a raw shoe capture through the live service's own pieces, the shoe
link (decode, in-order delivery) and the table (the coup machine) with no transport and no
ledger, with the decided coups printed as JSON Lines.

Like gpsd's regression logs, a capture is the exact byte stream the shoe sent, noise,
damaged frames and retransmissions included; replaying it must yield each frame once.

Delivery starts as a host without state starts it (drivers/sync.py): a capture that begins
mid-stream is played from where the shoe's resend rounds show its window starts. `--resume
SEQ` plays it as the daemon that wrote it did when its ledger already held frames up to SEQ
(its log's `line.resumed` says so).

`--console FILE` replays a run with the croupier's console: the console file the daemon
wrote beside the capture (console/replay_file.py) gives where delivery resumed, what each
KEY was taken for, and each action at its place among the frames, so the replay publishes
the run's lines. Where the table's money was kept, the file says where it began, and the
replay prints the money's records among the lines, as the ledger holds them: the same
settlements, byte for byte. A file that does not fit the capture is refused with where it
went wrong.

A capture holds the badges, not how the daemon decided them, so without `--console` the
replay is told how to decide each `BTN,KEY`: `--people FILE` decides it as the daemon does
(console/play.py: a configured supervisor's badge alone is taken), `--trust-keys` takes any
(a capture of a daemon that did, before KEYs were decided with the console off), and with
neither no KEY is taken, and stderr says how many were refused. A badge is never printed:
a trusted KEY is said as `(any badge)`.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from drivers.delivery import Receiver
from drivers.framing import Frame
from drivers.link import ShoeLink
from shoe_daemon.console.desk import KeyDecider, Keys
from shoe_daemon.console.people import KEY_FILE, PeopleError, PeopleFile, Roster
from shoe_daemon.console.replay_file import ReplayFile, ReplayFileError
from shoe_daemon.console.till import Till
from shoe_daemon.game.coup import BETWEEN_COUPS, LatchState, ReportState
from shoe_daemon.game.houses import get_profile
from shoe_daemon.game.rules import HouseProfile
from shoe_daemon.money.houses import get_money_profile
from shoe_daemon.money.limits import TableLimits
from shoe_daemon.service.table import SILENT, Table

CHUNK = 65536


@dataclass
class ReplayOutcome:
    lines: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    final_state: str = ""
    synced: bool = True  # False: the capture ended before the shoe's numbering was known


TRUSTED_KEY = "(any badge)"  # who a trusted KEY was taken for: never the badge itself


class TrustedKeys:
    """`--trust-keys`: every KEY taken, for a supervisor the capture cannot name."""

    def decide(self, badge: str, where: dict[str, Any]) -> dict[str, Any]:
        return {"person": TRUSTED_KEY, "role": "supervisor", "taken": True, "why": None}

    def changed_people(self) -> dict[str, Any] | None:
        return None


class _CountedKeys(Keys):
    """The KEYs decided against the people given (or nobody), the refused counted."""

    refused = 0

    def decide(self, badge: str, where: dict[str, Any]) -> dict[str, Any]:
        decision = super().decide(badge, where)
        self.refused += not decision["taken"]
        return decision


class _FileConsole:
    """The console as its file recorded it: each KEY's decision, by the frame's place."""

    replay_file = None
    roster = Roster()

    def __init__(self, file: ReplayFile) -> None:
        self.file = file

    def decide_key(self, badge: str, where: dict[str, Any], frame: int,
                   seq: int) -> dict[str, Any]:
        decision = self.file.keys.get(frame)
        if decision is None or self.file.key_seqs.get(frame) != seq:
            raise ReplayFileError(f"frame {frame} (seq {seq}) is a KEY the console file has no "
                                  "decision for: the file does not fit this capture")
        return decision

    def changed_people(self) -> dict[str, Any] | None:
        return None

    def state(self, latches: tuple[LatchState, ...], lamp: str = "",
              reports: tuple[ReportState, ...] = (),
              money: dict[str, Any] | None = None) -> None:
        return None


class _ConsoleReplay(Table):
    """The table with its console's actions played at their places among the frames, and
    the table's money from where the run began, when it was kept."""

    def __init__(self, profile: HouseProfile, file: ReplayFile) -> None:
        super().__init__(profile, console=_FileConsole(file), till=_till(profile, file))
        self.actions = deque(file.actions)

    def frame_received(self, frame: Frame, kind: str) -> None:
        self.due(self.frames_played)
        super().frame_received(frame, kind)

    def due(self, played: int, last: bool = False) -> None:
        while self.actions and (self.actions[0][0] == played or last):
            after, seq, body = self.actions.popleft()
            if after != played or seq != (self._seq if played else None):
                raise ReplayFileError(f"action {body.get('id')} comes after frame {after} "
                                      f"(seq {seq}), but the capture has {played} frames "
                                      f"(the last seq {self._seq}): the file does not fit")
            self.replay_action(body)

    @property
    def _seq(self) -> int | None:
        return self.frame


def _till(profile: HouseProfile, file: ReplayFile) -> Till | None:
    if file.money is None:
        return None
    try:
        money = get_money_profile(profile.name)
        start = file.money
        limits = TableLimits.from_dict(start["configured"] or start["limits"])
        till = Till(money, limits)
        till.restore(start)
    except (KeyError, TypeError, ValueError) as e:  # RecordError and AmountError too
        raise ReplayFileError(f"its money entry cannot be read: {e}") from None
    return till


def replay_bytes(data: bytes, profile: str, console: ReplayFile | None = None,
                 keys: KeyDecider | None = None, resume: int | None = None
                 ) -> ReplayOutcome:
    """Decode, deliver in order and play a whole capture (with `console`, its run's console
    actions at their places; else each KEY as `keys` decides it: nobody's by default; with
    `resume`, delivery resuming after that seq); return every published line.
    ReplayFileError if the console file does not fit the capture."""
    if console is None:  # no ledger: it plays and publishes, keeps nothing
        table = Table(get_profile(profile), keys=keys or _CountedKeys(None))
    else:
        table = _ConsoleReplay(get_profile(profile), console)
    link = ShoeLink(table, log=SILENT)  # no transport: nothing to acknowledge
    if console is not None and console.resume_seq is not None:
        link.resume(Receiver.resuming(console.resume_seq, console.resume_boot))
    elif resume is not None:
        link.resume(Receiver.resuming(resume, None))
    receive = link.receive
    for start in range(0, len(data), CHUNK):
        receive(data[start : start + CHUNK])
    if isinstance(table, _ConsoleReplay):
        table.due(table.frames_played, last=True)
        table.commit()
    d, r = link.decoder.stats, link.receiver.stats
    stats = {
        "frames": d.frames,
        "accepted": r.accepted,
        "noise_bytes": d.noise_bytes,
        "bad_crc": d.bad_crc,
        "overlong": d.overlong,
        "unparsable": d.unparsable,
        "truncated": d.truncated,
        "duplicates": r.duplicates,
        "gaps": r.gaps,
        "resets": r.resets,
        "unsynced": r.unsynced,
        "syncs": r.syncs,
        "unseen": table.machine.unseen,
    }
    return ReplayOutcome(lines=table.published, stats=stats, final_state=table.machine.state,
                         synced=link.receiver.synced)


def run(profile: str, capture: Path, out: TextIO = sys.stdout, err: TextIO = sys.stderr,
        console: Path | None = None, people: Path | None = None,
        people_key: Path | None = None, trust_keys: bool = False,
        resume: int | None = None) -> int:
    data = capture.read_bytes()
    keys: KeyDecider | None = None
    if trust_keys:
        keys = TrustedKeys()
    elif console is None:
        file = None
        if people is not None:
            file = PeopleFile(people, people_key or people.parent / KEY_FILE)
            try:
                file.load()
            except PeopleError as e:
                err.write(f"shoe-daemon replay: --people: {e}\n")
                return 2
        keys = _CountedKeys(file)
    try:
        outcome = replay_bytes(data, profile,
                               ReplayFile.read(console) if console is not None else None,
                               keys, resume)
    except ReplayFileError as e:
        err.write(f"shoe-daemon replay: --console {console}: {e}\n")
        return 2
    for line in outcome.lines:
        out.write(json.dumps(line) + "\n")
    err.write(" ".join(f"{k}={v}" for k, v in outcome.stats.items()) + "\n")
    if isinstance(keys, _CountedKeys) and keys.refused:
        why = ("not a supervisor's badge in --people" if people is not None else
               "no --people given (or --trust-keys, for a capture of a daemon that took "
               "every KEY)")
        err.write(f"{keys.refused} KEY(s) refused: {why}\n")
    if not outcome.synced:
        err.write(f"capture ended before the shoe's numbering was known: "
                  f"{outcome.stats['unsynced']} frames heard, none taken (a capture that "
                  "begins mid-stream replays from the shoe's resend rounds, or with --resume "
                  "SEQ as its daemon resumed)\n")
    if outcome.stats["unseen"]:
        err.write(f"joined a shoe in play: {outcome.stats['unseen']} frames before the first "
                  "BTN,SHOE not played (docs/coup-machine.md)\n")
    if outcome.final_state not in BETWEEN_COUPS:
        err.write(f"capture ended with a coup not decided (state {outcome.final_state})\n")
    return 0
