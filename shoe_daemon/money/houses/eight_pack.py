"""The eight-pack computer version's money: seed 002_96868f8ec6f978b2.txt.

002 is short on money: bets "up to the amount of the bank" taken from the banker's right
"until the entire bank is covered", a banco for "the entire bank" with the nearest player's
privilege, the largest bet holding the hand, a tie where "the bets are off", and a bank that
"rotates among the players after each hand". No currency, limit or commission is given.
"""

from __future__ import annotations

from decimal import Decimal

from shoe_daemon.game.houses.eight_pack import EIGHT_PACK, SEED
from shoe_daemon.money.amounts import Currency
from shoe_daemon.money.display import Locale
from shoe_daemon.money.houses import decisions as d
from shoe_daemon.money.houses.decisions import decided, printed
from shoe_daemon.money.profile import (
    AfterPass,
    AuctionTies,
    CheminDeFerMoney,
    Kind,
    Limit,
    MoneyProfile,
    Outsiders,
    SetAside,
    SuiteWhen,
    Suivi,
)

S = "002"

_ROTATES = ("002: \"In the game of chemin de fer, the role of banker rotates among the players "
            "after each hand; in baccarat, it does not.\"")

RULES = CheminDeFerMoney(
    places=decided(S, 9, "no number of places is given; 9, as 003 (\"mit 9 oder 11 "
                   "Sitzplätzen\") and 004 (\"nine bases\")"),
    min_players=decided(S, 2, d.MIN_PLAYERS),
    first_banker=decided(S, "lowest place", "nothing on the first banker; the lowest place, as "
                         "003: \"Der Spieler mit der niedrigsten Platznummer übernimmt die "
                         "erste Bankhalterschaft\""),
    prime=printed("from the banker's right", "002: \"The player at the banker's right has the "
                  "first choice to bet.\"; \"when two or more players wish to banco, the one "
                  "nearest the banker's right has the privilege.\""),
    kinds={
        Kind.BANCO_SOLO: printed(True, "002: \"Any player may take the entire bank by saying, "
                                 "'Banco,'\""),
        Kind.BANCO: decided(S, False, "002 names only a banco for \"the entire bank\"; no "
                            "shareholder"),
        Kind.WITH_TABLE: decided(S, False, "002 names no banco with the table"),
        Kind.TABLE: printed(True, "002: \"Any player may make any bet up to the amount of the "
                            "bank.\"; \"so on in order until the entire bank is covered or "
                            "until everyone has bet who wishes to.\""),
    },
    with_table_share=decided(S, Decimal("0.5"), d.WITH_TABLE_NONE),
    with_table_answerable=decided(S, False, d.NOT_ANSWERABLE),
    banco_clears_table=decided(S, True, "a banco takes \"the entire bank\", so the bets placed "
                               "before it are returned, as 004: \"previous partial stakers "
                               "must remove their stakes\""),
    up_to_bank=printed("the bank", "002: \"Any player may make any bet up to the amount of the "
                       "bank.\""),
    holder=printed("highest stake", "002: \"The player who has made the largest bet against "
                   "the banker plays the opposition hand.\"; between equal bets the player "
                   "nearer the banker's right (decision, docs/money.md)"),
    outsiders=decided(S, Outsiders.NONE, "002 names only the players at the table: \"Any "
                      "player may make any bet\""),
    over_the_line=decided(S, False, d.OVER_THE_LINE),
    closing=printed("bets placed", "002: \"After the bets are placed, the banker deals two "
                    "hands of two cards each\""),
    open_bank=decided(S, False, d.OPEN_BANK),
    partner=decided(S, False, d.PARTNER),
    payment_order=decided(S, "rule 26", d.PAYMENT_ORDER),
    suivi=decided(S, Suivi.NONE, "no suivi is given; only \"when two or more players wish to "
                  "banco, the one nearest the banker's right has the privilege\""),
    after_loss=printed("next place", _ROTATES),
    rotates_each_coup=printed(True, _ROTATES + "; a tie is dealt again: \"new bets are placed "
                              "exactly as before for another deal\""),
    decline_bank=decided(S, True, d.DECLINE_BANK),
    suite_when=decided(S, SuiteWhen.NEVER, "the bank rotates after each hand anyway"),
    after_pass=decided(S, AfterPass.NEXT_IN_TURN, "the bank goes to the next place after each "
                       "hand; nothing is auctioned"),
    standing_take_offer=decided(S, False, "no offer of the bank is given"),
    auction_ties=decided(S, AuctionTies.FIRST_BID, "no auction is given"),
    suite_exclusion=decided(S, False, d.NO_EXCLUSION),
    out_of_turn_successor=decided(S, "the place after the banker in turn", "no banker out of "
                                  "turn arises: the bank only rotates"),
    set_aside=decided(S, SetAside.NONE, "nothing may be taken out of a bank that changes hands "
                      "after each hand"),
    new_shoe=decided(S, "same figure", d.NEW_SHOE),
    egalite=printed("returned", "002: \"If the totals are the same, the bets are off and may "
                    "be withdrawn and new bets are placed exactly as before for another "
                    "deal.\""),
)

EIGHT_PACK_MONEY = MoneyProfile(
    name=EIGHT_PACK.name,
    seed=SEED,
    house=EIGHT_PACK,
    currency=decided(S, Currency("XXX", "credit", Decimal(1)), "a computer version names no "
                     "money; whole credits (the ISO code XXX: no currency)"),
    locale=decided(S, Locale("credits", False, True, ",", ".", "Bank {money}"),
                   "`1,170 credits`"),
    chip=decided(S, Decimal(1), d.CHIP),
    min_bank=decided(S, Decimal(1), "no minimum bank is given; one credit, and the table may "
                     "set `min_bank`"),
    max_bank=decided(S, Limit.NONE, "no maximum bank is given"),
    min_stake=decided(S, Decimal(1), "no minimum bet is given (\"Any player may make any bet\"); "
                      "one credit"),
    max_stake=decided(S, Limit.NONE, "no maximum bet but the bank: \"Any player may make any "
                      "bet up to the amount of the bank.\""),
    commission=decided(S, Decimal(0), "no commission is mentioned; none is taken unless the "
                       "table sets `commission_percent`"),
    commission_on=decided(S, "the banker's wins", "no commission is mentioned; one the table "
                          "sets is levied on the banker's wins, as every seed that has one"),
    rounding=decided(S, "down", d.ROUNDING),
    void=decided(S, "returned", d.VOID),
    stakes_public=decided(S, True, d.STAKES_PUBLIC),
    chemin_de_fer=RULES,
)
