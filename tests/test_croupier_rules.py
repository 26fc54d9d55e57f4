"""What only the croupier sees, held against the seeds: each house's cell for 000 rules 15,
11, 10 and 4 (`HouseProfile.croupier_rules`), and docs/rules.md's table of them.

The expected cells are read from the seeds here, independently of shoe_daemon/game/houses/:
000 prints all four rules; 001, 002, 003 and 004 print none of them (a decision, "not
printed in ..."); Punto Banco (003) has no player who holds cards, deals or banks.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from shoe_daemon.game.houses import PROFILES
from shoe_daemon.game.rules import CroupierRule, Game, Report
from shoe_daemon.money.houses import get_money_profile

SEEDS = Path(__file__).resolve().parents[1] / "docs" / "seeds"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules.md"
RULE_NUMBER = {Report.PUNTER_BAC: 15, Report.BANKER_CARD_LOST: 11, Report.CARD_FELL: 10,
               Report.PARTNER_OBJECTION: 4}
# Whether each house has each rule, and whether its seed prints it.
EXPECTED = {
    "zoppot-1934": {r: (True, True) for r in Report},
    **{name: {Report.PUNTER_BAC: (True, False), Report.BANKER_CARD_LOST: (True, False),
              Report.CARD_FELL: (True, False), Report.PARTNER_OBJECTION: (False, False)}
       for name in ("clermont-2015", "eight-pack", "baden", "shimmy")},
    "baden-punto-banco": {Report.PUNTER_BAC: (False, False),
                          Report.BANKER_CARD_LOST: (False, False),
                          Report.CARD_FELL: (True, False),
                          Report.PARTNER_OBJECTION: (False, False)},
}


def normal(text: str) -> str:
    return " ".join(text.replace("\xa0", " ").replace('"', "'").split())


def seed_text(prefix: str) -> str:
    (path,) = SEEDS.glob(f"{prefix}_*.txt")
    return path.read_text(encoding="utf-8")


def zoppot_rule(number: int) -> str:
    """000's numbered rule, as printed (one paragraph)."""
    match = re.search(rf"^{number}\. (.+)$", seed_text("000"), re.MULTILINE)
    assert match, number
    return match.group(1)


def test_every_profile_has_a_cell_for_every_report():
    assert set(EXPECTED) == set(PROFILES)
    for name, profile in PROFILES.items():
        assert set(profile.croupier_rules) == set(Report), name


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_cells_as_the_seeds_print_them(name: str):
    profile = PROFILES[name]
    seed = profile.seed[:3]
    for report, (applies, printed) in EXPECTED[name].items():
        cell = profile.croupier_rule(report)
        assert (cell.applies, cell.printed) == (applies, printed), (name, report)
        number = RULE_NUMBER[report]
        if printed:
            assert cell.rule == f"000 rule {number}"
            assert cell.source.startswith(f"000 rule {number}: ")
            assert rule_quoted(cell, number)
        else:
            assert cell.source.startswith(f"not printed in {seed}: "), cell.source
            assert f"not printed in {seed}" in cell.rule
        if applies and not printed:
            # A silent house takes 000's rule, and quotes it.
            assert cell.rule == f"000 rule {number} (not printed in {seed})"
            assert rule_quoted(cell, number)


def rule_quoted(cell: CroupierRule, number: int) -> bool:
    """The cell quotes 000's rule: whole (rule 4: its sentence on the partner's objection;
    the partner's part of the bank is the money's, docs/money.md)."""
    rule = normal(zoppot_rule(number))
    if number == 4:
        rule = rule[rule.index("If the banker has a partner"):]
    return f"'{rule}'" in normal(cell.source)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_quotes_in_the_cells_are_the_seeds_words(name: str):
    seeds = {p.name[:3]: normal(p.read_text(encoding="utf-8")) for p in SEEDS.glob("0*.txt")}
    for cell in PROFILES[name].croupier_rules.values():
        parts = cell.source.split('"')
        assert len(parts) % 2 == 1, f"unbalanced quotes: {cell.source}"
        for quote in parts[1::2]:
            assert any(normal(quote) in text for text in seeds.values()), quote


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_the_partner_is_where_the_money_has_one(name: str):
    """000 rule 4's objection is taken only where the bank takes a partner (the money
    profile's `chemin_de_fer.partner`, 000 rule 4 too)."""
    profile = PROFILES[name]
    cell = profile.croupier_rule(Report.PARTNER_OBJECTION)
    chemin_de_fer = get_money_profile(name).chemin_de_fer
    has_partner = chemin_de_fer is not None and chemin_de_fer.partner.value
    assert cell.applies is bool(has_partner)
    if chemin_de_fer is not None and not has_partner:  # the same reason, in both profiles
        assert chemin_de_fer.partner.source in cell.source


def test_punto_banco_has_no_hand_held_no_banker_dealing_and_no_bank():
    profile = PROFILES["baden-punto-banco"]
    assert profile.game is Game.PUNTO_BANCO
    for report in (Report.PUNTER_BAC, Report.BANKER_CARD_LOST, Report.PARTNER_OBJECTION):
        cell = profile.croupier_rule(report)
        assert not cell.applies
        assert "Casino" in cell.source or "Croupier" in cell.source


def test_a_profile_without_every_cell_is_refused():
    profile = PROFILES["baden"]
    partial = {r: c for r, c in profile.croupier_rules.items() if r is not Report.CARD_FELL}
    with pytest.raises(ValueError, match="croupier_rules missing"):
        dataclasses.replace(profile, croupier_rules=partial)
    with pytest.raises(ValueError, match="sourced CroupierRule"):
        dataclasses.replace(profile, croupier_rules={
            **profile.croupier_rules, Report.CARD_FELL: CroupierRule(True, "x", "")})
    with pytest.raises(TypeError):
        profile.croupier_rules[Report.CARD_FELL] = profile.croupier_rules[  # type: ignore[index]
            Report.PUNTER_BAC]


def test_docs_table_is_the_code():
    """docs/rules.md, "What only the croupier sees": one row per profile, a cell per report
    (yes/no, * where the seed does not print it)."""
    doc = DOCS.read_text(encoding="utf-8")
    start = doc.index("<!-- croupier -->")
    rows = []
    for line in doc[start:].splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    header, body = rows[0], rows[2:]
    assert header[1:] == [f"`{r.value}` (000 rule {RULE_NUMBER[r]})" for r in Report]
    assert [row[0] for row in body] == [f"`{name}`" for name in PROFILES]
    for row in body:
        profile = PROFILES[row[0].strip("`")]
        for report, shown in zip(Report, row[1:], strict=True):
            cell = profile.croupier_rule(report)
            assert shown == ("yes" if cell.applies else "no") + ("" if cell.printed else "\\*"), (
                row[0], report)
