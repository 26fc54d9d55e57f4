"""`shoe-daemon odds`: a house's exact odds for a full shoe, in words and figures."""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

from shoe_daemon.game.houses import PROFILES, get_profile
from shoe_daemon.game.rules import Game, HouseProfile, Play
from shoe_daemon.odds.analysis import STRATEGIES, Analysis, CoupOdds, analyse
from shoe_daemon.odds.bets import commission
from shoe_daemon.odds.shoe import Shoe, ShoeError
from shoe_daemon.odds.strategy import Choices, Strategy, cell_name


def add_odds_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "odds",
        help="exact odds of a house's game over a full shoe: banker, punter, égalité, every "
        "bet's house edge, and at Chemin de Fer the optimal play of each side",
    )
    p.add_argument("--profile", required=True, choices=sorted(PROFILES), help="house rules")
    p.add_argument("--packs", type=int, help="packs in the shoe (default: the house's)")
    p.add_argument("--strategy", choices=list(STRATEGIES),
                   help="print this strategy only (default: every one, and the games)")
    p.add_argument("--exact", action="store_true", help="print the exact fractions too")


def run_odds(args: argparse.Namespace) -> int:
    try:
        profile = get_profile(args.profile, args.packs)
        shoe = Shoe.full(profile.packs)
        analysis = analyse(profile, shoe)
    except (ValueError, ShoeError) as e:
        print(f"shoe-daemon odds: {e}", file=sys.stderr)
        return 2
    print("\n".join(render(analysis, args.strategy, args.exact)))
    return 0


def _f(x: Fraction, digits: int = 9) -> str:
    return f"{float(x):.{digits}f}"


def _pct(x: Fraction) -> str:
    return f"{float(x * 100):.4f}%"


def render(analysis: Analysis, strategy: str | None = None, exact: bool = False) -> list[str]:
    """The report's lines."""
    p, shoe = analysis.profile, analysis.shoe
    out = [
        f"{p.name}: {p.house} (seed {p.seed}), {p.packs} packs, {shoe.size} cards",
        "Exact over the finite shoe, every card dealt without replacement and nothing sampled;",
        "each figure is an exact fraction, rounded only for print"
        + (" (the fractions follow it)." if exact else " (--exact prints the fractions)."),
    ]
    if p.game is Game.PUNTO_BANCO:
        out += ["", "No side has a choice: the croupier deals by the house's fixed scheme."]
        out += _odds(analysis.odds[0], exact, show_play=False)
        return out
    for odds in analysis.odds:
        if strategy is None or odds.strategy == strategy:
            out += ["", f"strategy {odds.strategy}: {STRATEGIES[odds.strategy]}"]
            out += _odds(odds, exact, show_play=True)
    if strategy is None:
        out += _games(analysis, exact)
    return out


def _odds(odds: CoupOdds, exact: bool, show_play: bool) -> list[str]:
    o = odds.outcome
    rows = [("banker wins", o.banker), ("punter wins", o.punter), ("égalité", o.egalite),
            ("banker's share of decided coups", o.banker_share)]
    out = []
    if show_play:
        out += [f"  {line}" for line in _play(odds.profile, odds.play, odds.strategy)]
        if odds.equilibria is not None:
            out.append("  the game's solution is unique" if odds.equilibria == 1 else
                       f"  the game has {odds.equilibria} equilibria; the first is shown")
    for name, x in rows:
        out.append(f"  {name:<34}{_f(x)}  {_pct(x):>9}" + (f"  = {x}" if exact else ""))
    edge = "house edge" if odds.profile.game is Game.PUNTO_BANCO else "edge against"
    out.append(f"  {'bet':<34}{'pays':<22}{'expectation':>13}  {edge:>12}")
    for b in odds.bets:
        out.append(f"  {b.name:<34}{b.pays:<22}{_f(b.ev, 7):>13}  {_pct(b.house_edge):>12}"
                   + (f"  = {b.ev}" if exact else ""))
    return out


def _play(profile: HouseProfile, play: Strategy, strategy: str) -> list[str]:
    """The strategy in words: the punter's 5 (and any other choice), and the banker's cells
    where he mixes or departs from the house's table."""
    table = Choices.of(profile)
    lines = []
    for t, x in play.punter.items():
        if 0 < x < 1 or table.punter[t] is Play.OPTION or (x == 1) != (
            table.punter[t] is Play.DRAW
        ):
            lines.append(f"punter on {t}: draws with chance {_chance(x)}")
    departs, mixed = [], []
    for cell, y in play.banker.items():
        if 0 < y < 1:
            mixed.append(f"{cell_name(cell)} draws with chance {_chance(y)}")
        elif table.banker[cell] is Play.OPTION:
            departs.append(f"{cell_name(cell)} {'draws' if y else 'stands'} (option)")
        elif (y == 1) != (table.banker[cell] is Play.DRAW):
            departs.append(f"{cell_name(cell)} {'draws' if y else 'stands'} (against the table)")
    if mixed:
        lines.append("banker mixes: " + "; ".join(mixed))
    if departs:
        lines.append("banker: " + "; ".join(departs))
    if strategy in ("optimal", "optimal-commission") and not departs and not mixed:
        lines.append("banker: as the house's table")
    return lines


def _chance(x: Fraction) -> str:
    return str(x) if x.denominator == 1 else f"{x} = {float(x):.6f}"


def _games(analysis: Analysis, exact: bool) -> list[str]:
    cut = commission(analysis.profile)
    rate = f"{float(cut * 100):g}%" if cut else "none given"
    out = ["", "The four games (each side bound by the house's table or free), solved exactly;",
           f"expectations per unit at stake (the house's commission: {rate}):",
           f"  {'game':<30}{'banker, zero-sum':>18}{'banker, commission':>20}"
           f"{'punter':>12}  unique  checked"]
    for g in analysis.games:
        z, c = g.zero_sum[0], g.with_commission[0]
        unique = "yes" if len(g.zero_sum) == 1 and len(g.with_commission) == 1 else "no"
        out.append(f"  {g.name:<30}{_f(z.banker_ev, 7):>18}{_f(c.banker_ev, 7):>20}"
                   f"{_f(c.punter_ev, 7):>12}  {unique:<6}  {'yes' if g.verified else 'NO'}")
    b, p = analysis.banker_loss, analysis.punter_loss
    out += [
        "  (zero-sum: Kemeny and Snell's game, no commission; commission: the Nash equilibrium",
        "   of the game in which the banker pays it; the punter pays none)",
        f"  the banker gives up {_f(b[0], 7)} a unit (with the commission {_f(b[1], 7)}) by "
        "playing the table against a free punter",
        f"  the punter gives up {_f(p[0], 7)} a unit (with the commission {_f(p[1], 7)}) by "
        "playing the table against a free banker",
        "  against the free banker's optimal strategy the punter gains nothing by drawing or "
        "standing at any other total: " + ("checked" if analysis.punter_unrestricted else "NO"),
    ]
    if exact:
        out.append(f"  exactly: banker {b[0]} / {b[1]}; punter {p[0]} / {p[1]}")
    return out
