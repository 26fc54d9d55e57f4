"""Grand Casino Baden's Punto Banco money: seed 003_6936dfded619512e.txt (its PUNTO BANCO part).

The players bet against the casino ("Die Spieler setzen gegen das Casino") on Punto, Banco
or Egalité: Punto paid even money, Banco even money less 5% Taxe, Egalité 8:1 with the
Punto and Banco stakes staying on the layout, and the Swiss Nine side bets on the Banco
side's first two cards paid 19, 77 and 300 times. The limits are the table's ("am Tisch
angezeigt").
"""

from __future__ import annotations

from decimal import Decimal

from shoe_daemon.game.houses.baden_punto_banco import BADEN_PUNTO_BANCO
from shoe_daemon.money.houses import decisions as d
from shoe_daemon.money.houses.baden import BADEN_LOCALE, CHF, CHF_SOURCE, LOCALE_SOURCE, SEED
from shoe_daemon.money.houses.decisions import decided, printed
from shoe_daemon.money.profile import Bet, Limit, MoneyProfile, PuntoBancoMoney

S = "003"

_CASINO = "003 PUNTO BANCO: \"Die Spieler setzen gegen das Casino\"; the casino holds the bank"
_LIMITS = ("003 PUNTO BANCO: \"Die Minimum- und Maximumeinsätze der drei Chancen sind am Tisch "
           "angezeigt.\"")
_TIMES = "; read as x:1 (the stake back and x times it won), as 003 says of Egalité: "
_EIGHT = "\"achtfach (8:1)\""

RULES = PuntoBancoMoney(
    boxes=decided(S, 9, "the layout's boxes are not given; 9, as the Chemin de fer table's 9 "
                  "places (\"mit 9 oder 11 Sitzplätzen\"); the table sets `boxes`"),
    pays={
        Bet.PUNTO: printed(1, "003: \"Sie setzen auf Punto: Falls Punto mehr Punkte hat als "
                           "Banco, erhalten Sie den einfachen Einsatz als Gewinn.\""),
        Bet.BANCO: printed(1, "003: \"Sie setzen auf Banco: Falls Banco mehr Punkte hat als "
                           "Punto, erhalten Sie den einfachen Einsatz abzüglich 5% Taxe als "
                           "Gewinn.\""),
        Bet.EGALITE: printed(8, "003: \"Bei unentschiedenem Ausgang wird die Chance «Egalité» "
                             "achtfach (8:1) ausgezahlt\"; \"In diesen Fällen eines Gewinners "
                             "wird die Chance «Egalité» vom Croupier abgezogen.\""),
        Bet.SIMPLE_NINE: printed(19, "003: \"«Simple Nine» = beliebige 10- und 9-wertige "
                                 "Karte\", \"Auszahlung: 19fach\"" + _TIMES + _EIGHT),
        Bet.COLOUR_NINE: printed(77, "003: \"«Colour Nine» = 10- und 9-wertige Karte derselben "
                                 "Spielfarbe\", \"Auszahlung: 77fach\"" + _TIMES + _EIGHT),
        Bet.SWISS_NINE: printed(300, "003: \"«Swiss Nine» = 10- und 9-wertige Karte der "
                                "Spielfarbe Kreuz\", \"Auszahlung: 300fach\"" + _TIMES + _EIGHT),
    },
    banco_commission=printed(True, "003: \"erhalten Sie den einfachen Einsatz abzüglich 5% "
                             "Taxe als Gewinn\""),
    egalite_stays=printed(True, "003: \"Bei unentschiedenem Ausgang wird die Chance «Egalité» "
                          "achtfach (8:1) ausgezahlt, und die Einsätze auf Punto bzw. Banco "
                          "verbleiben auf dem Tableau.\""),
    chance_limits=printed(Limit.TABLE, _LIMITS),
    nine_limits=decided(S, Limit.TABLE, "the Swiss Nine bets' limits are not given; the table "
                        "sets `nine_min_stake` and `nine_max_stake`, as it does the three "
                        "chances' (\"sind am Tisch angezeigt\")"),
    closing=decided(S, "Rien ne va plus", d.CLOSING),
    payment_order=decided(S, "box by box", "no order of paying the layout is given; box by "
                          "box in the layout's numbering, in a box as the layout reads (Punto, "
                          "Banco, Egalité, then the Swiss Nine bets), the casino last, so that "
                          "the croupier pays the layout once round"),
)

BADEN_PUNTO_BANCO_MONEY = MoneyProfile(
    name=BADEN_PUNTO_BANCO.name,
    seed=SEED,
    house=BADEN_PUNTO_BANCO,
    currency=decided(S, CHF, CHF_SOURCE),
    locale=decided(S, BADEN_LOCALE, LOCALE_SOURCE),
    chip=decided(S, Decimal(1), d.CHIP),
    min_bank=printed(Limit.NONE, _CASINO),
    max_bank=printed(Limit.NONE, _CASINO),
    min_stake=printed(Limit.TABLE, _LIMITS),
    max_stake=printed(Limit.TABLE, _LIMITS),
    commission=printed(Decimal(5), "003 PUNTO BANCO, on Banco: \"erhalten Sie den einfachen "
                       "Einsatz abzüglich 5% Taxe als Gewinn\""),
    commission_on=printed("Banco's wins", "003: \"erhalten Sie den einfachen Einsatz abzüglich "
                          "5% Taxe als Gewinn\"; on Punto: \"erhalten Sie den einfachen Einsatz "
                          "als Gewinn\""),
    rounding=decided(S, "down", d.ROUNDING),
    void=decided(S, "returned", d.VOID),
    stakes_public=decided(S, True, d.STAKES_PUBLIC_PB),
    punto_banco=RULES,
)
