"""The shift report as the pit reads it: per shoe, then the whole range, amounts as the house
writes them ("Fr. 1,170"), from the figures of `ShiftReport.to_dict` alone (so the text and
`--json` never disagree). The report is worded in English; the game's terms (Banco, Punto,
Égalité) are the table's, from the words file in its recorded `display` (docs/report.md)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from shoe_daemon.display.words import Words, table_words
from shoe_daemon.money.display import format_money
from shoe_daemon.money.houses import get_money_profile

OUTCOME_WORDS = (("banker", "{banco}"), ("punter", "{punto}"), ("egalite", "{egalite}"),
                 ("void", "void"), ("cancelled", "cancelled"))
SIDE_WORDS = {"bank": "the bank", "punters": "the punters", "punto": "{punto}",
              "banco": "{banco}", "egalite": "{egalite}", "simple_nine": "Simple Nine",
              "colour_nine": "Colour Nine", "swiss_nine": "Swiss Nine", "house": "the casino"}


def commission_word(profile: str) -> str:
    """What the house calls its cut: "Taxe" at Baden, as 003 does; "commission" elsewhere."""
    return "Taxe" if profile.startswith("baden") else "commission"


def render(report: Mapping[str, Any], source: str) -> str:
    profile = get_money_profile(report["profile"])
    currency, locale = profile.currency.value, profile.locale.value

    def money(amount: str | None) -> str:
        return "-" if amount is None else format_money(Decimal(amount), currency, locale)

    taxe = commission_word(profile.name)
    display = report.get("display") or {}
    words = table_words(display.get("language"), display.get("terms"))
    span = report["range"]
    out = [f"Shift report: table {report['table'] or '?'}, {profile.name} "
           f"({currency.name}, {currency.code})",
           f"Range: {span['from'] or 'the start'} to {span['to'] or 'the end'} (UTC)"
           + (f"; {report['shift']}" if report.get("shift") else ""),
           f"Records: {source}", ""]
    for shoe in report["shoes"]:
        coups = shoe["coups"]
        numbers = f"coups {coups['first']} to {coups['last']}" if coups["first"] is not None \
            else "no coup decided"
        out.append(f"Shoe {shoe['shoe']} ({numbers}, {shoe['time']['earliest']} to "
                   f"{shoe['time']['latest']})")
        out += _figures(shoe, money, taxe, words)
        out += _bank(shoe, money, words)
        out += _voids(shoe, money)
        out += _corrections(shoe, money)
        out.append("")
    total = report["total"]
    out.append(f"Total: {total['shoes']} shoe(s)")
    out += _figures(total, money, taxe, words)
    out.append(f"  {'Voids':<18}{total['voids']}; corrections by a supervisor "
               f"{total['corrections']}")
    return "\n".join(out) + "\n"


def _figures(part: Mapping[str, Any], money: Any, taxe: str, words: Words) -> list[str]:
    coups = part["coups"]
    told = ", ".join(f"{words.with_terms(word)} {coups[key]}" for key, word in OUTCOME_WORDS
                     if coups[key])
    lines = [f"  {'Coups':<18}{coups['decided']}" + (f": {told}" if told else ""),
             f"  {'Settled':<18}{part['settled']} ({part['with_stakes']} with stakes)",
             f"  {'Staked':<18}{money(part['staked'])}",
             f"  {'Drop':<18}{money(part['drop'])} (stakes in play, decided)",
             f"  {taxe.capitalize():<18}{money(part['commission'])}"]
    for name, side in part["sides"].items():
        if name == "house":
            continue  # below, with the Taxe
        staked = f"staked {money(side['staked'])}, " if "staked" in side else ""
        word = words.with_terms(SIDE_WORDS.get(name, name))
        lines.append(f"  {word[0].upper() + word[1:]:<18}{staked}won {money(side['won'])}, "
                     f"lost {money(side['lost'])}, net {money(side['net'])}")
    if "house" in part:
        lines.append(f"  {'The casino':<18}{money(part['house']['result'])}: its own net "
                     f"{money(part['house']['net'])} against the bets, and the {taxe} "
                     f"{money(part['house']['commission'])}")
    return lines


def _bank(shoe: Mapping[str, Any], money: Any, words: Words) -> list[str]:
    if not shoe["bank"] and not shoe["offers"]:
        return []
    lines = ["  The bank:"]
    told: list[tuple[int, str]] = []
    for hand in shoe["bank"]:
        partner = f" with {hand['partner']}" if hand["partner"] else ""
        played = f"{_count(hand['coups'], 'coup')} ({hand['won']} won, {hand['lost']} lost, " \
                 f"{hand['egalite']} {words.term('egalite')})"
        aside = "".join(f"; {word} {money(hand[key])}" for key, word in
                        (("schokolade", "Schokolade"), ("garage", "garage"))
                        if Decimal(hand[key]))
        ended = hand["ended"]
        if ended is None:
            end = "still held"
        elif ended["how"] == "lost":
            end = f"lost at coup {ended['coup']} ({money(ended['amount'])}), the bank to " \
                  f"{ended['passes_to']}"
        elif ended["how"] == "Suite":
            end = f"Suite at {money(ended['amount'])}"
        elif ended["how"] == "rotation":
            end = f"passed on after coup {ended['coup']}"
        else:
            end = ended["how"]
        told.append((hand["ledger_index"], f"    {hand['holder']}{partner}: {hand['taken']}, "
                     f"{money(hand['from'])} to {money(hand['to'])}; {played}{aside}; {end}"))
    for offer in shoe["offers"]:
        what = {"decline": "declined the bank", "bid": "bid", "to_auction":
                "nobody took the offer: to auction", "award": "the auction closed without "
                "a bid"}[offer["change"]]
        amount = f" {money(offer['amount'])}" if offer["amount"] else ""
        told.append((offer["ledger_index"],
                     f"    {offer['who'] + ' ' if offer['who'] else ''}{what}{amount}"))
    return lines + [text for _, text in sorted(told)]


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _voids(shoe: Mapping[str, Any], money: Any) -> list[str]:
    lines = ["  Voids:"] if shoe["voids"] else []
    for void in shoe["voids"]:
        who = f" by {void['by']} ({void['role']})" if void["by"] else ""
        reason = f": \"{void['reason']}\"" if void["reason"] else ""
        codes = f" [{' '.join(void['irregularities'])}]" if void["irregularities"] else ""
        returned = f"; {_count(void['stakes'], 'stake')} returned, " \
            f"{money(void['returned'])}" if void["stakes"] else "; nothing staked"
        lines.append(f"    coup {void['coup']} {void['outcome']}: {void['how']}{who}{reason}"
                     f"{codes}{returned}")
    return lines


def _corrections(shoe: Mapping[str, Any], money: Any) -> list[str]:
    lines = ["  Corrections:"] if shoe["corrections"] else []
    for c in shoe["corrections"]:
        what = f"settlement reopened ({c['how']})" if c["change"] == "settlement" else \
            f"stake {c['stake'] or 'missed'} of {c['who']} to {money(c['amount'])}"
        lines.append(f"    coup {c['coup']}: {what} by {c['by']}: \"{c['reason']}\"")
    return lines
