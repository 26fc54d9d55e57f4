"""Decisions shared by several houses, for what their seeds do not print.

Each is written once here and cited the same way by every profile that needs it; the
reasons are in docs/rules.md, "Decisions" (2: the punter-stood column; 6: the packs; 8: a
card leaving the shoe face up; 12-15: what only the croupier sees). A profile puts "not
printed in <seed>: " before the texts (`stood_decision`, `as_zoppot` and `not_here` write
their own); they quote only the seeds' own words.
"""

from __future__ import annotations

from shoe_daemon.game.houses.transcription import DRAW, OPTION, STAND
from shoe_daemon.game.rules import NOT_PRINTED, CroupierRule, Report, Ruling

#: 000 rule 20's words on a banker with 5 after "Reste".
RULE_20 = '"No information for an undrawn card"'


def stood_decision(seed: str, total: int) -> Ruling:
    """The punter-stood column of a seed that does not print one (000, 001, 004)."""
    head = f"{NOT_PRINTED}{seed}: no column for a punter who stood (Reste); "
    if total == 5:
        return Ruling(
            OPTION,
            head + f"000 rule 20 leaves a banker with 5 after Reste to himself ({RULE_20}), "
            "so no faux tirage can be charged there",
        )
    play = DRAW if total < 5 else STAND
    return Ruling(
        play,
        head + f"{'draws' if play is DRAW else 'stands'} on {total} as 002 "
        '"Opponent stands" (6, 7 / 5, 4, 3, 2, 1, 0) and 003 "fünf oder weniger Punkte"; '
        f"only 5 is left open, by 000 rule 20 ({RULE_20})",
    )


#: Packs where the seed gives none (001, 004).
SIX_PACKS = (
    'the number of packs is not given; 6 as 000 ("six packs of playing cards") and 003 '
    '("Üblicherweise werden beim Baccara sechs Kartenspiele"); the operator sets the real '
    "count with BTN,SHOE,<decks>"
)
#: A card face up where the seed is silent (002, 003, 004).
FACE_UP_EXPOSED = (
    "nothing on a card that leaves the shoe face up; exposed (the card stays in play, "
    "seen by all) as 000 rules 6 and 8, the only rules of that kind besides 001's"
)



# ---- what only the croupier sees (000 rules 4, 10, 11, 15; docs/rules.md) --------------------

#: 000's own words for each rule the console reports, and the rule's number.
ZOPPOT_REPORTS: dict[Report, tuple[str, str]] = {
    Report.PUNTER_BAC: (
        "000 rule 15",
        "\"If a punter throws his cards into the discard, his hand is considered a 'bac'.\"",
    ),
    Report.BANKER_CARD_LOST: (
        "000 rule 11",
        '"Should the banker while dealing, inadvertently throw a card into the discard and it '
        'becomes unrecognisable, the coup is lost to him."',
    ),
    Report.CARD_FELL: (
        "000 rule 10",
        '"Should a card fall from the table, it remains valid, but may be picked up only by a '
        'member of the Casino staff."',
    ),
    Report.PARTNER_OBJECTION: (
        "000 rule 4",
        '"If the banker has a partner in his bank, the partner must not raise any objections to '
        'the manner of play chosen by the banker."',
    ),
}

#: Why a house that is silent takes 000's rule (docs/rules.md, "Decisions" 12-14).
_AS_ZOPPOT = {
    Report.PUNTER_BAC: (
        "nothing on a punter who throws his cards into the discard; his hand counts bac (0), "
        "as {rule}: {quote} A hand in the discard can be shown by nobody, and no seed gives it "
        "another count"
    ),
    Report.BANKER_CARD_LOST: (
        "nothing on a card the banker throws into the discard and makes unrecognisable; the "
        "coup is lost to him, as {rule}: {quote} The only seed that speaks of it; the banker "
        "deals, so a card nobody can check is his loss, and a supervisor confirms it (or voids "
        "the coup) before it counts"
    ),
    Report.CARD_FELL: (
        "nothing on a card that falls from the table; it remains valid, as {rule}: {quote} No "
        "seed voids a card for leaving the table, and 001 keeps a card out of the shoe in play "
        "(\"once a card has left the shoe it may not be put back inside it\")"
    ),
}


def zoppot_rule(report: Report) -> CroupierRule:
    """000's own rule, as printed."""
    rule, quote = ZOPPOT_REPORTS[report]
    return CroupierRule(True, rule, f"{rule}: {quote}")


def as_zoppot(report: Report, seed: str) -> CroupierRule:
    """A seed that is silent takes 000's rule (the only seed that prints it)."""
    rule, quote = ZOPPOT_REPORTS[report]
    why = _AS_ZOPPOT[report].format(rule=rule, quote=quote)
    return CroupierRule(True, f"{rule} (not printed in {seed})", f"{NOT_PRINTED}{seed}: {why}")


def not_here(seed: str, why: str) -> CroupierRule:
    """A rule the house has no place for: the console's report is refused, citing why."""
    return CroupierRule(False, f"not printed in {seed}", f"{NOT_PRINTED}{seed}: {why}")


#: A bank without a partner (001-004): the money profile's `chemin_de_fer.partner` says the
#: same (tests/test_croupier_rules.py holds the two together).
NO_PARTNER = (
    "no partner in the bank is offered; only 000 rule 4 has one (\"he may have a partner for "
    "any sum in excess of the minimum\"), so no partner can object to the banker's play"
)
