"""The regression corpus: how each capture in this folder was made.

As gpsd keeps device logs with their expected decode, each case here is a raw capture
(`<name>.cap`, the shoe-to-host bytes with line faults) and the exact JSON Lines a correct
`shoe-daemon replay` prints for it (`<name>.jsonl`). The expected output was reviewed by
hand against the seed rule each case names; `tests/test_corpus.py` replays every capture
through the real command and compares, and checks this file still makes the same bytes.

The captures without a console file are the shoe's alone, with nobody configured: their
KEYs are a supervisor's by the case's word, so they are replayed with `--trust-keys` (a
trusted KEY is printed as `(any badge)`, never the badge).

Regenerate after a deliberate change:  .venv/bin/python -m tests.corpus.cases --write
(then review the diff of the .jsonl files before committing).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hil.capture import Faults, write_capture
from hil.dealer import deal_shoes
from hil.script import parse_script

HERE = Path(__file__).parent
LINE_FAULTS = Faults(noise=0.05, damage=0.05, duplicate=0.05, drop_then_resend=0.05)


@dataclass(frozen=True)
class Case:
    name: str
    profile: str
    why: str  # the rule exercised
    script: str = ""  # hil.script notation; empty: a dealt shoe
    shoes: int = 0
    seed: int = 1
    faults: Faults = field(default_factory=lambda: LINE_FAULTS)
    start_seq: int = 0
    # Where delivery resumes (`replay --resume`): a capture that begins mid-stream, of a host
    # that kept the frames before it. None: a host without state (it syncs with the shoe).
    resume: int | None = None
    packs: int | None = None  # BTN,SHOE,<decks> for a dealt shoe
    # The croupier's console's actions, each after so many frames of the script (a run with
    # `--console`): `<name>.console.jsonl`, replayed with `replay --console`.
    console: tuple[tuple[int, dict[str, Any]], ...] = ()

    def capture(self) -> bytes:
        if self.script:
            messages = parse_script(self.script)
        else:
            messages = deal_shoes(self.profile, self.shoes, self.seed, packs=self.packs).messages
        return write_capture(messages, self.faults, seed=self.seed, start_seq=self.start_seq)

    def console_file(self) -> str:
        """The console file a daemon run with these actions writes (console/replay_file.py):
        a run on a new ledger, each action after its frame and that frame's seq."""
        entries: list[dict[str, Any]] = [{"resume": {"seq": None, "boot_id": None}}]
        for after, action in self.console:
            seq = (self.start_seq + after - 1) % 65536 if after else None
            entries.append({"after": after, "seq": seq, "action": action})
        return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries)


def act(n: int, kind: str, by: str, role: str, **args: str) -> dict[str, Any]:
    """An action as the ledger records it (console/actions.py), its id made from `n`."""
    return {"id": f"corpus-action-{n:04d}", "kind": kind, "by": by, "role": role,
            "args": args}


H = "HELLO:5eed0001 "

CASES: list[Case] = [
    # Whole shoes dealt by the simulated croupier, under every profile.
    Case("baden-shoe", "baden", "003: a whole shoe, the Ziehungsregel", shoes=1, seed=3),
    Case("zoppot-shoe", "zoppot-1934", "000: free banker, cut card at 7", shoes=1, seed=4),
    Case("clermont-shoe", "clermont-2015", "001: free sides, Rule Table on TABLE", shoes=1, seed=5),
    Case("eight-pack-shoe", "eight-pack", "002: eight packs, 5 v 4 forced draw", shoes=1, seed=6),
    Case("shimmy-shoe", "shimmy", "004: the banker's chart", shoes=1, seed=7),
    Case("punto-banco-shoe", "baden-punto-banco", "003 Punto Banco, Swiss Nine", shoes=1, seed=8),
    # One rule each.
    Case("naturals", "eight-pack", "002: 9 beats 8; equal naturals égalité",
         H + "SHOE DEAL 9C 5D KH 3S DEAL 8C 8H KD TS"),
    Case("faux-tirage-banker", "baden", "003 Ziehungsregel / 000 rule 21: bound banker drew",
         H + "SHOE DEAL 2C TH AD 6S 2H 9D DEAL 2D TS AC 3S 5H STAND 4C"),
    Case("faux-tirage-punter", "baden", "000 rule 21: bound punter's Carte on 6 redressed",
         H + "SHOE DEAL 3C TH 3D 4S CARTE 5H DEAL 3H TD 3S 7S CARTE 5C"),
    Case("exposed", "zoppot-1934", "000 rules 6, 8: exposed punter cards",
         H + "SHOE DEAL 2C EXPOSE:P1 TH AD EXPOSE:P2 6S AH"),
    Case("face-up-clermont", "clermont-2015", "001: face up in the shoe is null and void",
         H + "SHOE DEAL 9C! 2C TH 3D 6S RESTE STAND"),
    Case("face-up-zoppot", "zoppot-1934", "000 rules 6, 8: a face-up card stays valid",
         H + "SHOE DEAL 9C! 5D KH 3S"),
    Case("unreadable", "baden", "an unreadable card holds until ENTER",
         H + "SHOE DEAL 9C ?? KH 3S HB:12 ENTER:5D"),
    Case("foreign", "baden", "a card the packs cannot hold: supervisor",
         H + "SHOE:1 DEAL 9C 5D 9C OK KEY:4711 OK KH 3S"),
    Case("wrong-order", "baden", "000 rule 12: wrong order, rectified",
         H + "SHOE DEAL 9C@B OK 5D KH 3S"),
    Case("wrong-number", "baden", "000 rules 12, 13: extra card kept for the next deal",
         H + "SHOE 4D DEAL 5D 5C 3S 4H DEAL 5S 4C 3D 4S! DEAL 5H 6C 4D 2D"),
    Case("declaration-missing", "baden", "a card before the punter's declaration",
         H + "SHOE DEAL 2C TH 3D 6S 4H CARTE DEAL 2H TC 3S 5D 4S@B"),
    Case("coup-not-finished", "baden", "000 rule 12: a DEAL inside a coup; OK, then VOID",
         H + "SHOE DEAL 2C TH DEAL OK AD 3S 8H DEAL 2D DEAL KEY:99 VOID 9C 5D KH 3S"),
    Case("void", "zoppot-1934", "VOID needs a supervisor's KEY",
         H + "SHOE DEAL 2C TH VOID KEY:31 VOID DEAL 9C 5D KH 3S"),
    Case("cut-and-last-coup", "baden", "the coup after the cut card is the last",
         H + "SHOE DEAL 9C CUT 5D KH 3S DEAL 9D 5H KD 3C DEAL 9H 5C KS 3D"),
    Case("cut-misplaced", "zoppot-1934", "000: the blank seven cards from the bottom",
         H + "SHOE:1 DEAL 9C 5D KH 3S CUT DEAL 9D 5H KD 3C"),
    Case("shoe-exhausted", "baden", "000 rule 24: every card of a one-pack shoe dealt",
         shoes=1, seed=1, packs=1),
    Case("short-last-coup", "baden", "000 rule 24: EMPTY inside a coup",
         H + "SHOE DEAL 2C TH AD 3S EMPTY"),
    Case("table-bindings", "clermont-2015", "001 Rule Table binds a side that declares it",
         H + "SHOE DEAL TABLE:P 2C TH 3D 6S STAND DEAL TABLE:B 2D TD AD 6C AH"),
    Case("reboot", "baden", "a shoe reboot (HELLO, new boot_id) mid-shoe",
         H + "SHOE DEAL 9C 5D HELLO:5eed0002 KH 3S DEAL 9D 5H KD 3C"),
    Case("seq-wrap", "baden", "sequence numbers wrap 65535 -> 0",
         "SHOE DEAL 9C 5D KH 3S DEAL 9D 5H KD 3C", start_seq=65530, resume=65529),
    Case("punto-banco-swiss-nine", "baden-punto-banco", "003 Swiss Nine levels",
         H + "SHOE DEAL 2C 9C 3D KC DEAL 2D 9H 3S KH DEAL 2H 9D 3H KD DEAL 2S 5S 3C 3D"),
    # What only the croupier sees, reported on the console (coup/reports.py).
    Case("punter-bac", "zoppot-1934",
         "000 rule 15: the punter's cards into the discard; his hand counts bac",
         # Punter 5 to declare; bac: banker 5 beats it at once. Then punter 5 against a
         # banker with bac himself: the banker draws (6H) and wins 6 to 0.
         H + "SHOE DEAL 2C TH 3D 5S DEAL 4C TH AD KS 6H",
         console=((7, act(1, "punter_bac", "bob", "croupier",
                          reason="threw his cards into the discard")),
                  (12, act(2, "punter_bac", "bob", "croupier", reason="threw them away")))),
    Case("banker-card-lost", "baden",
         "000 rule 11 (003 silent): the banker's lost card; upheld, then dismissed",
         # B1 lost, 5S dealt while play holds: upheld by the supervisor, the coup is lost to
         # the banker and 5S is its card. Coup 3: P1 reported lost and dismissed, play on
         # (punter 5 stands, banker 6 stands: the banker wins).
         H + "SHOE DEAL 2C TH 3D 5S DEAL 9C 5D KH 3S DEAL 2D TS 3C 6S RESTE",
         console=((6, act(1, "banker_card_lost", "bob", "croupier", position="B1",
                          reason="into the discard face down")),
                  (7, act(2, "resolve", "ana", "supervisor", latch="hold-1-1-1", way="OK",
                          reason="checked the discard: not recognisable")),
                  (15, act(3, "banker_card_lost", "bob", "croupier", position="P1",
                           reason="slid under the discard")),
                  (15, act(4, "resolve", "ana", "supervisor", latch="hold-1-3-1",
                           way="DISMISS", reason="it lay face up on top: the 2D")))),
    Case("card-fell", "zoppot-1934",
         "000 rule 10: a card fallen from the table remains valid; face up, exposed",
         H + "SHOE DEAL 2C TH 3D 5S RESTE STAND",
         console=((6, act(1, "card_fell", "bob", "croupier", position="P1", face="up",
                          reason="fell on the carpet, picked up by the croupier")),
                  (7, act(2, "card_fell", "bob", "croupier", position="B2", face="down",
                          reason="picked up by the inspector")))),
    Case("partner-objection", "zoppot-1934",
         "000 rule 4: the banker's partner objects; the banker's play stands",
         H + "SHOE DEAL 2C TH 3D 5S RESTE STAND",
         console=((8, act(1, "partner_objection", "bob", "croupier", partner="seat 4",
                          reason="wanted the banker to draw")),
                  (9, act(2, "partner_objection", "ana", "supervisor", partner="seat 4",
                          reason="protested after the result")))),
]


def expected(case: Case) -> str:
    from shoe_daemon.console.replay_file import ReplayFile
    from shoe_daemon.service.replay import TrustedKeys, replay_bytes

    console = None
    if case.console:
        console = ReplayFile(actions=[(after, (after + case.start_seq - 1) % 65536 if after
                                       else None, body) for after, body in case.console])
    keys = None if console is not None else TrustedKeys()
    lines = replay_bytes(case.capture(), case.profile, console, keys, case.resume).lines
    return "".join(json.dumps(line) + "\n" for line in lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="write .cap and .jsonl files")
    args = parser.parse_args()
    for case in CASES:
        if args.write:
            (HERE / f"{case.name}.cap").write_bytes(case.capture())
            (HERE / f"{case.name}.jsonl").write_text(expected(case))
            if case.console:
                (HERE / f"{case.name}.console.jsonl").write_text(case.console_file())
        print(case.name, case.profile, "-", case.why)


if __name__ == "__main__":
    main()
