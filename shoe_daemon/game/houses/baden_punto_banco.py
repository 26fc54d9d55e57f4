"""Grand Casino Baden, Punto Banco: seed 003_6936dfded619512e.txt (its PUNTO BANCO part).

003 names "einem festen Ziehungschema" but does not print it, so every drawing cell is the
standard Punto Banco tableau, a decision (docs/rules.md, "Decisions" 5), written below as
the banker's totals and the punter's third cards he draws on. Packs, commission, the
Egalité payout and the Swiss Nine side bets are 003's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from shoe_daemon.game.houses.baden import SEED
from shoe_daemon.game.houses.decisions import FACE_UP_EXPOSED, as_zoppot, not_here
from shoe_daemon.game.houses.transcription import (
    CARD_THIRDS,
    DRAW,
    STAND,
    BankerTable,
    put,
    rulings,
)
from shoe_daemon.game.rules import NOT_PRINTED, FaceUp, Game, HouseProfile, Report, Ruling

# No player holds a hand or banks at Punto Banco (docs/rules.md, "Decisions" 12-15).
_DEALS = (
    '"Der Croupier teilt nach einem festen Ziehungschema an Punto und Banco jeweils bis zu '
    'drei Karten aus"'
)
_NO_PLAYER_HOLDS_CARDS = (
    f"no player holds the cards: {_DEALS}, so no punter can throw his into the discard "
    "(000 rule 15 has no place here)"
)
_NO_BANKER_DEALS = (
    f"no banker deals: {_DEALS} for the casino (\"Die Spieler setzen gegen das Casino\"), so "
    "no banker can lose the coup by 000 rule 11; a card lost there is the supervisor's to void, "
    "every stake returned"
)
_NO_BANK = (
    'the players bet against the casino ("Die Spieler setzen gegen das Casino"): no banker '
    "holds a bank, with or without a partner (000 rule 4 has no place here)"
)

_PB = (
    f'{NOT_PRINTED}003: PUNTO BANCO names "einem festen Ziehungschema" but does not print it; '
    "standard Punto Banco tableau: "
)
# The standard tableau (not in any seed): the banker's total -> the player's third cards he
# draws on. 0-2 always draw, 7 always stands; a player who stood: draw 0-5, stand 6-7.
PUNTO_BANCO_DRAWS_ON: Mapping[int, tuple[int, ...]] = {
    0: CARD_THIRDS,
    1: CARD_THIRDS,
    2: CARD_THIRDS,
    3: (0, 1, 2, 3, 4, 5, 6, 7, 9),
    4: (2, 3, 4, 5, 6, 7),
    5: (4, 5, 6, 7),
    6: (6, 7),
    7: (),
}


def _punto_banco_banker() -> BankerTable:
    t: BankerTable = {}
    for total, draws_on in PUNTO_BANCO_DRAWS_ON.items():
        if not draws_on:
            said = f"Banco with {total} stands"
        elif draws_on == CARD_THIRDS:
            said = f"Banco with {total} draws on any third card of Punto"
        else:
            cards = ", ".join(map(str, draws_on))
            said = f"Banco with {total} draws when Punto's third card is {cards}"
        for c in CARD_THIRDS:
            put(t, total, [c], Ruling(DRAW if c in draws_on else STAND, _PB + said))
        stood = DRAW if total <= 5 else STAND
        put(
            t,
            total,
            [None],
            Ruling(
                stood, _PB + f"Punto stood: Banco {stood.value}s on {total} (draws 0-5, stands 6-7)"
            ),
        )
    return t


_PUNTO_BANCO_PUNTER = rulings(
    [
        (range(0, 6), DRAW, _PB + "Punto draws on 0-5"),
        ((6, 7), STAND, _PB + "Punto stands on 6-7"),
    ]
)

BADEN_PUNTO_BANCO = HouseProfile(
    name="baden-punto-banco",
    seed=SEED,
    house="Grand Casino Baden, Punto Banco",
    game=Game.PUNTO_BANCO,
    packs=6,
    packs_source='003 PUNTO BANCO: "werden beim Punto Banco sechs Kartenspiele mit je 52 Karten"',
    cut_cards_behind=None,
    cut_source=f"{NOT_PRINTED}003: PUNTO BANCO gives no cut card or last coup",
    punter_free=False,
    banker_free=False,
    free_source=(
        '003 PUNTO BANCO: "Der Croupier teilt nach einem festen Ziehungschema an Punto und Banco '
        'jeweils bis zu drei Karten aus"; no side has a choice'
    ),
    punter_rule=_PUNTO_BANCO_PUNTER,
    punter_table=_PUNTO_BANCO_PUNTER,
    banker_table=_punto_banco_banker(),
    face_up=FaceUp.EXPOSED,
    face_up_source=f"{NOT_PRINTED}003: {FACE_UP_EXPOSED}",
    commission_percent=Decimal("5"),
    commission_source=(
        '003 PUNTO BANCO, on Banco: "erhalten Sie den einfachen Einsatz abzüglich 5% Taxe '
        'als Gewinn"'
    ),
    egalite_pays=8,  # 003: "wird die Chance «Egalité» achtfach (8:1) ausgezahlt"
    swiss_nine=True,  # 003: "Am Punto Banco-Tisch bieten wir das Zusatzspiel Swiss Nine an."
    faux_tirage_source=(
        f"{NOT_PRINTED}003: PUNTO BANCO says nothing on a wrong draw; put right as the "
        'Chemin de fer part says: "wird vom Croupier im Nachhinein richtig gestellt"'
    ),
    # What only the croupier sees, at Punto Banco: the croupier deals both hands for the casino
    # (docs/rules.md, "Decisions" 12-15).
    croupier_rules={
        Report.PUNTER_BAC: not_here("003", _NO_PLAYER_HOLDS_CARDS),
        Report.BANKER_CARD_LOST: not_here("003", _NO_BANKER_DEALS),
        Report.CARD_FELL: as_zoppot(Report.CARD_FELL, "003"),
        Report.PARTNER_OBJECTION: not_here("003", _NO_BANK),
    },
)
