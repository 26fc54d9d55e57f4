"""`python -m hil.harness demo --console`: the live table with the croupier's console on, so a
visitor can stake on the page.

What the demo adds to the table (hil/harness.py runs the processes):
- **a money configuration per house** (`DEMO_MONEY`): the house's own figures where its seed
  prints them, and where the seed leaves a figure to the table (docs/money.md, "from the
  table") one a table of that house would show, each said below;
- **demo people**: a croupier and a supervisor, each with a PIN and a badge made for this run
  and printed, beside the simulated shoe's inspectors (hil/processes.py);
- **the shoe's DEAL button** (hil/deal_button.py): the shoe waits before each coup; Enter in
  the demo's terminal deals the next one, or with `--croupier` the demo's croupier
  (hil/croupier.py) seats, banks, stakes and deals by himself through the console's API;
- **each coup's settlement** under its line, read from the table's ledger (committed with the
  result, before the result is published), and at the end **the summary**: the shift report
  of the demo's ledger (`shoe-daemon report --all`), the records checked first.
"""

from __future__ import annotations

import secrets
import sys
import threading
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, TextIO

from hil.croupier import Croupier
from hil.deal_button import press_deal
from hil.processes import console_url, simulated_staff
from hil.readable import settlement_line
from shoe_daemon.audit.reader import AuditError, LedgerReader
from shoe_daemon.console.people import PeopleFile, Person, Role, people_paths
from shoe_daemon.display.words import Words
from shoe_daemon.report.cli import from_ledger
from shoe_daemon.report.figures import ReportError
from shoe_daemon.report.text import render

#: Each house's `[money]` table for the demo (docs/money.md, "Limits"); what is not here is the
#: seed's own figure (its places, chip, commission, and 000's limits).
DEMO_MONEY: dict[str, dict[str, Any]] = {
    # 000 prints the bank's and the stakes' limits (10, 2 to 2400 Guildens) but not the
    # commission's rate ("a certain percentage"): the table must set it; 5 %, as 001 and 004.
    "zoppot-1934": {"commission_percent": 5},
    # 001 leaves the limits to the Inspector: a London club's pounds; its 8 places.
    "clermont-2015": {"min_bank": 100, "min_stake": 10, "max_stake": 5000},
    # 002 prints no limits: the seed's credits, one the least.
    "eight-pack": {},
    # 003 shows its limits at the table ("am Spieltisch angezeigt"); its worked example's
    # figures (Fr. 800 bank; 300, 200, 100 stakes) fit them. 9 places (or 11).
    "baden": {"min_bank": 100, "min_stake": 10},
    # 003's three chances and the Swiss Nine bets, limits shown at the table.
    "baden-punto-banco": {"min_stake": 10, "max_stake": 5000, "nine_min_stake": 5,
                          "nine_max_stake": 100},
    # 004: "any number of chips permitted within the limits of the game", no maximum bank.
    "shimmy": {"min_bank": 100, "max_bank": "none", "min_stake": 10},
}


@dataclass(frozen=True)
class DemoPerson:
    id: str
    name: str
    role: StrEnum  # the console's Role, or the pit's PitRole
    pin: str
    badge: str

    def said(self) -> str:
        return (f"  {self.role.value:<12} {self.name} ({self.id}): PIN {self.pin}, "
                f"badge {self.badge}")


def made_for_this_run(who: list[tuple[str, str, StrEnum, str]]) -> list[DemoPerson]:
    """(id, name, role, badge prefix) each with a PIN and a badge made for this run."""
    pins = secrets.SystemRandom().sample(range(1000, 10000), len(who))
    return [DemoPerson(pid, name, role, str(pin), f"{prefix}-{secrets.token_hex(2).upper()}")
            for (pid, name, role, prefix), pin in zip(who, pins, strict=True)]


def save_demo_people(file: PeopleFile, people: list[DemoPerson]) -> list[DemoPerson]:
    """The demo's people written into `file`, as its `people add` would."""
    roster = file.load(create_key=True)
    for p in people:
        roster = roster.with_person(Person(p.id, p.name, p.role))
        roster = roster.pin_for(p.id, p.pin).badge_for(p.id, p.badge)
    file.save(roster)
    return people


def demo_people(state_dir: Path) -> list[DemoPerson]:
    """A croupier and a supervisor with secrets made for this run, in the table's people file
    beside the simulated shoe's inspectors; returned so that the demo can print them."""
    simulated_staff(state_dir)
    return save_demo_people(people_paths(state_dir), made_for_this_run([
        ("croupier", "Demo Croupier", Role.CROUPIER, "DEMO-C"),
        ("supervisor", "Demo Supervisor", Role.SUPERVISOR, "DEMO-S")]))


def toml_value(value: Any) -> str:
    return str(value) if isinstance(value, int) else f'"{value}"'


class ConsoleDemo:
    """The console's side of one demo run in `workdir`: its configuration, people, button,
    the settlements under the coups' lines, and the summary at the end."""

    def __init__(self, workdir: Path, profile: str, console: str, terms: Words) -> None:
        self.workdir, self.profile, self.terms = workdir, profile, terms
        self.button = workdir / "deal"
        self.people = demo_people(workdir / "state")
        self.config = workdir / "shoe-daemon.toml"
        money = "".join(f"{k} = {toml_value(v)}\n" for k, v in DEMO_MONEY[profile].items())
        self.config.write_text(f'table = "demo-{profile}"\n[money]\n{money}')
        self.flags = ["--config", str(self.config), "--console", console]
        self.reader: LedgerReader | None = None
        self.seen = 0  # the ledger's records read for settlements so far
        self.settled = 0  # settlements printed
        self.croupier: Croupier | None = None

    @property
    def croupier_person(self) -> DemoPerson:
        return next(p for p in self.people if p.role is Role.CROUPIER)

    def announce(self, daemon: Any, info: TextIO) -> str:
        """The console's URL and the people who may sign in; the URL."""
        url = console_url(self.workdir, daemon)
        print(f"croupier's console: {url} (open it in a browser; sign in as one of these)",
              file=info, flush=True)
        for person in self.people:
            print(person.said(), file=info, flush=True)
        return url

    def start_dealing(self, url: str, croupier: bool, seed: int, info: TextIO) -> None:
        """Enter in the terminal presses DEAL; or the demo's croupier plays by himself."""
        if croupier:
            person = self.croupier_person
            self.croupier = Croupier(url, person.id, person.pin, self.button, seed,
                                     lambda text: print(text, file=info, flush=True))
            self.croupier.start()
            print(f"the croupier ({person.name}) works the table through the console's API "
                  "(seats, the bank and stakes; bets at Punto Banco) and presses DEAL; "
                  "Ctrl-C to stop", file=info, flush=True)
            return
        print("the shoe waits for its DEAL button: stake on the console, then press Enter "
              "here to deal the next coup; Ctrl-C to stop", file=info, flush=True)
        threading.Thread(target=self._enter_deals, name="Enter deals", daemon=True).start()

    def _enter_deals(self) -> None:
        for _ in sys.stdin:  # one Enter, one press, one coup
            try:
                press_deal(self.button)
            except RuntimeError:
                return  # the shoe is done

    def settlement(self, line: dict[str, Any]) -> list[str]:
        """Under a coup's line: its settlement, from the ledger (committed before the line
        was published, in the same transaction as its result)."""
        if line.get("event") != "coup.result":
            return []
        try:
            if self.reader is None:
                self.reader = LedgerReader(self.workdir / "state")
            found = []
            for record in self.reader.records(self.seen + 1, ("money.settlement",)):
                self.seen = record.idx
                found.append(record.body)
                if (record.body["shoe"], record.body["coup"]) == (line["shoe"], line["coup"]):
                    break
        except (AuditError, OSError) as e:
            return [f"(the settlement could not be read from the ledger: {e})"]
        self.settled += len(found)
        return [settlement_line(body, self.terms) for body in found]

    def finish(self, info: TextIO) -> None:
        """After the daemon stopped: the croupier's count and the demo's shift report."""
        if self.croupier is not None:
            self.croupier.stop.set()
            self.croupier.join(10)
            c = self.croupier
            print(f"croupier: {c.dealt} coups staked and dealt, {c.accepted} actions taken, "
                  f"{c.refused} refused", file=info, flush=True)
        if self.reader is not None:
            self.reader.close()
        try:
            report, source = from_ledger(self.workdir / "state", None, None)
        except (AuditError, ReportError, OSError) as e:
            print(f"summary: no report: {e}", file=info, flush=True)
            return
        report["shift"], report["source"] = None, source
        print("summary: the demo's shift report (shoe-daemon report --all)", file=info)
        info.write(render(report, source))
        info.flush()
