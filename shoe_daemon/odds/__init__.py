"""Exact odds of the next coup from a finite shoe (issue 14, section 1).

Pure computation, no I/O (besides `cli`, the `shoe-daemon odds` command):

- `shoe.Shoe`: the cards left (by point value, and by card code for the bets on suits);
  `Shoe.full(packs).without(codes_read)` is the live shoe after the cards read so far.
- `law.CoupLaw.of(shoe)`: the exact law of the next coup for every strategy of either side.
- `strategy`: what a house's table leaves each side to choose, and a strategy.
- `solve`: Chemin de Fer as a game (Kemeny and Snell's method), solved exactly and checked.
- `bets`: every bet the house offers, its payout and its exact expectation.
- `analysis.coup_odds(profile, shoe, strategy)`: the one call for the next coup's odds and
  bets; `analysis.analyse` the whole report. docs/odds.md gives the figures and sources.
"""
