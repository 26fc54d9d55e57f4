"""Every money profile held against its seed: each term's source quotes the seeds' own words,
a printed term its own seed's, a decision says so; the figures the seeds print are the
defaults of the table's limits, and what they leave to the table is required of it."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from shoe_daemon.game.houses import PROFILES
from shoe_daemon.game.rules import Game
from shoe_daemon.money.houses import MONEY_PROFILES, get_money_profile
from shoe_daemon.money.limits import LimitsError, table_limits
from shoe_daemon.money.profile import (
    AfterPass,
    Kind,
    Limit,
    Outsiders,
    SetAside,
    SuiteWhen,
    Suivi,
    Term,
)

SEEDS = Path(__file__).resolve().parents[2] / "docs" / "seeds"


def _normal(text: str) -> str:
    return " ".join(text.replace("\xa0", " ").replace('"', "'").split())


TEXTS = {p.name[:3]: _normal(p.read_text(encoding="utf-8")) for p in SEEDS.glob("0*.txt")}


def test_one_money_profile_per_drawing_profile() -> None:
    assert list(MONEY_PROFILES) == list(PROFILES)
    for name, money in MONEY_PROFILES.items():
        assert money.house is PROFILES[name]
        assert get_money_profile(name) is money
    with pytest.raises(KeyError, match="unknown house profile"):
        get_money_profile("monte-carlo")


@pytest.mark.parametrize("name", list(MONEY_PROFILES))
def test_sources_quote_the_seeds(name: str) -> None:
    profile = MONEY_PROFILES[name]
    terms = list(profile.terms())
    assert len(terms) >= (24 if profile.game is Game.PUNTO_BANCO else 44)
    for field, term in terms:
        assert isinstance(term, Term), field
        parts = term.source.split('"')
        assert len(parts) % 2 == 1, f"{field}: unbalanced quotes: {term.source}"
        for quote in parts[1::2]:
            if term.printed:
                assert _normal(quote) in TEXTS[profile.seed[:3]], f"{field}: {quote!r}"
            else:
                assert any(_normal(quote) in t for t in TEXTS.values()), f"{field}: {quote!r}"
        if term.printed:
            assert term.source[:4] in (profile.seed[:3] + " ", profile.seed[:3] + ":"), field
        else:
            assert term.source.startswith(f"not printed in {profile.seed[:3]}: "), field


@pytest.mark.parametrize("name", list(MONEY_PROFILES))
def test_commission_is_the_drawing_profiles(name: str) -> None:
    profile = MONEY_PROFILES[name]
    rate = profile.house.commission_percent
    if rate is not None:
        assert profile.commission.value == rate
    else:
        assert profile.commission.value in (Limit.TABLE, Decimal(0))


def test_a_money_profile_cannot_name_another_house() -> None:
    import dataclasses

    baden = MONEY_PROFILES["baden"]
    with pytest.raises(ValueError, match="another house"):
        dataclasses.replace(baden, house=PROFILES["shimmy"])
    with pytest.raises(ValueError, match="commission"):
        dataclasses.replace(baden, commission=Term(Decimal(4), "003: test"))
    with pytest.raises(ValueError, match="own rules"):
        dataclasses.replace(baden, punto_banco=MONEY_PROFILES["baden-punto-banco"].punto_banco)


# --- the seed's figures, and what the table must give --------------------------------------------


def test_zoppot_limits_are_the_booklets() -> None:
    zoppot = MONEY_PROFILES["zoppot-1934"]
    with pytest.raises(LimitsError, match=r"money\.commission_percent"):
        table_limits(zoppot)  # "a certain percentage": the table must say which
    limits = table_limits(zoppot, {"commission_percent": "4"})
    assert (limits.min_bank, limits.min_stake, limits.max_stake) == (10, 2, 2400)
    assert limits.max_bank is None and limits.commission_percent == 4 and limits.places == 9


@pytest.mark.parametrize(("name", "given", "missing"), [
    ("baden", {"min_stake": 10}, "money.min_bank"),
    ("baden", {"min_bank": 100}, "money.min_stake"),
    ("clermont-2015", {"min_stake": 10, "max_stake": 500}, "money.min_bank"),
    ("clermont-2015", {"min_bank": 100, "min_stake": 10}, "money.max_stake"),
    ("shimmy", {"min_stake": 10, "max_bank": 900}, "money.min_bank"),
    ("shimmy", {"min_stake": 10, "min_bank": 100}, "money.max_bank"),
    ("baden-punto-banco", {"max_stake": 500, "nine_min_stake": 1, "nine_max_stake": 9},
     "money.min_stake"),
    ("baden-punto-banco", {"min_stake": 5, "max_stake": 500, "nine_max_stake": 9},
     "money.nine_min_stake"),
])
def test_limits_the_seed_leaves_to_the_table_are_required(name: str, given: dict,
                                                         missing: str) -> None:
    with pytest.raises(LimitsError, match=missing):
        table_limits(MONEY_PROFILES[name], given)


def test_limits_defaults_and_overrides() -> None:
    baden = table_limits(MONEY_PROFILES["baden"], {"min_bank": 100, "min_stake": 10})
    assert baden.commission_percent == 5 and baden.max_bank is None and baden.places == 9
    eleven = table_limits(MONEY_PROFILES["baden"], {"min_bank": 100, "min_stake": 10,
                                                    "places": 11, "commission_percent": "4.5"})
    assert eleven.places == 11 and eleven.commission_percent == Decimal("4.5")
    clermont = table_limits(MONEY_PROFILES["clermont-2015"],
                            {"min_bank": 100, "min_stake": 10, "max_stake": "none"})
    assert clermont.places == 8 and clermont.max_stake is None
    eight = table_limits(MONEY_PROFILES["eight-pack"])
    assert eight.commission_percent == 0 and eight.min_bank == 1


@pytest.mark.parametrize(("settings", "message"), [
    ({"min_bank": 100.0, "min_stake": 10}, "float"),
    ({"min_bank": 100, "min_stake": 10, "minimum": 3}, "money.minimum: unknown"),
    ({"min_bank": 100, "min_stake": 1000, "max_stake": 500}, "above money.max_stake"),
    ({"min_bank": "100.5", "min_stake": 10}, "money.min_bank"),
    ({"min_bank": 100, "min_stake": 10, "chip": "0.03"}, "money.chip"),
    ({"min_bank": 100, "min_stake": 10, "commission_percent": 100}, "percentage"),
    ({"min_bank": -5, "min_stake": 10}, "negative"),
    ({"min_bank": 100, "min_stake": 10, "places": 40}, "money.places"),
    ({"min_bank": 100, "min_stake": 10, "boxes": 7}, "unknown"),
])
def test_bad_settings_are_named(settings: dict, message: str) -> None:
    with pytest.raises(LimitsError, match=message):
        table_limits(MONEY_PROFILES["baden"], settings)


# --- what each house says, in brief (docs/money.md has it cell by cell) --------------------------


def _cdf(name: str):
    rules = MONEY_PROFILES[name].chemin_de_fer
    assert rules is not None
    return rules


def test_kinds_of_play_per_house() -> None:
    offered = {n: {k for k, t in _cdf(n).kinds.items() if t.value}
               for n, p in MONEY_PROFILES.items() if p.chemin_de_fer}
    assert offered == {
        "zoppot-1934": set(Kind),
        "clermont-2015": {Kind.BANCO_SOLO, Kind.WITH_TABLE, Kind.TABLE},
        "eight-pack": {Kind.BANCO_SOLO, Kind.TABLE},
        "baden": set(Kind),
        "shimmy": {Kind.BANCO_SOLO, Kind.TABLE},
    }


def test_the_bank_rules_per_house() -> None:
    table = {n: (_cdf(n).outsiders.value, _cdf(n).suivi.value, _cdf(n).suite_when.value,
                 _cdf(n).after_pass.value, _cdf(n).set_aside.value)
             for n, p in MONEY_PROFILES.items() if p.chemin_de_fer}
    assert table == {
        "zoppot-1934": (Outsiders.SMALLEST_FIRST, Suivi.BANCO_LOST, SuiteWhen.AFTER_WIN,
                        AfterPass.AUCTION, SetAside.NONE),
        "clermont-2015": (Outsiders.AT_BOX, Suivi.BANCO_LOST, SuiteWhen.AFTER_VALID_COUP,
                          AfterPass.OFFER_THEN_AUCTION, SetAside.NONE),
        "eight-pack": (Outsiders.NONE, Suivi.NONE, SuiteWhen.NEVER, AfterPass.NEXT_IN_TURN,
                       SetAside.NONE),
        "baden": (Outsiders.SMALLEST_FIRST, Suivi.HALF_BANK_OR_BANCO,
                  SuiteWhen.AFTER_WIN_OR_EGALITE, AfterPass.OFFER_THEN_AUCTION,
                  SetAside.SCHOKOLADE),
        "shimmy": (Outsiders.NONE, Suivi.BANCO_LOST, SuiteWhen.ANY_TIME,
                   AfterPass.NEXT_IN_TURN, SetAside.GARAGE),
    }
    assert [n for n in table if _cdf(n).partner.value] == ["zoppot-1934"]
    assert [n for n in table if _cdf(n).open_bank.value] == ["zoppot-1934"]
    assert [n for n in table if _cdf(n).suite_exclusion.value] == ["zoppot-1934"]
    assert [n for n in table if _cdf(n).over_the_line.value] == ["clermont-2015"]
    assert [n for n in table if _cdf(n).rotates_each_coup.value] == ["eight-pack"]
    assert [n for n in table if _cdf(n).with_table_answerable.value] == ["zoppot-1934", "baden"]


def test_punto_banco_pays_the_seeds_figures() -> None:
    pb = MONEY_PROFILES["baden-punto-banco"].punto_banco
    assert pb is not None
    assert {b.value: t.value for b, t in pb.pays.items()} == {
        "punto": 1, "banco": 1, "egalite": 8, "simple_nine": 19, "colour_nine": 77,
        "swiss_nine": 300}
    assert pb.egalite_stays.value and pb.banco_commission.value
    assert all(t.printed for t in pb.pays.values())


def test_every_decision_is_listed_in_the_docs() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "money.md").read_text()
    for profile in MONEY_PROFILES.values():
        for field, term in profile.terms():
            if not term.printed:
                assert f"`{profile.name}` `{field}`" in docs, (profile.name, field)
