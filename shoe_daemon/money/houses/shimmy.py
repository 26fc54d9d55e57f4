"""The Chemin-de-fer introduction's money ("Shimmy"): seed 004_6544e85835ed77c0.txt.

004 prints the bank "within the limits of the game", the second base's first right, a stake
of "all or part of the bank" with the balance taken up round the table, going banco (the
partial stakers "must remove their stakes"), the largest stake nearest the banker holding
the hand, égalité ("no stakes pass"), the 5% casino tax on the banker's winnings, the
garage, passing the bank "at any time", the next base after a loss, and the suivi.
"""

from __future__ import annotations

from decimal import Decimal

from shoe_daemon.game.houses.shimmy import SEED, SHIMMY
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

S = "004"

_PASS = ("004: \"Whenever the banker wins a coup he may either retain the shoe or pass it, "
         "whenever he loses a coup he must pass it one space anti-clockwise.\"")
_ANY_TIME = "004: \"he may at any time pass the bank and withdraw all his winnings\""
_LIMITS = ("004: the banker \"places any number of chips permitted within the limits of the "
           "game in the centre of the table as his bank\"")

RULES = CheminDeFerMoney(
    places=printed(9, "004: \"A table is provided with nine bases in any of which a player may "
                   "sit\""),
    min_players=decided(S, 2, d.MIN_PLAYERS),
    first_banker=printed("lowest place", "004: \"the occupier of the first base owns the shoe "
                         "for the first hand\""),
    prime=printed("from the banker's right", "004: \"The occupier of the second base has first "
                  "right of play and may stake all or part of the bank.\""),
    kinds={
        Kind.BANCO_SOLO: printed(True, "004: \"if one of these elects to 'go Banco', meaning he "
                                 "is prepared to stake all the money in the bank, he becomes "
                                 "the sole punter\""),
        Kind.BANCO: decided(S, False, "004 names only the sole punter who goes banco; no "
                            "shareholder"),
        Kind.WITH_TABLE: decided(S, False, "004 names no banco with the table"),
        Kind.TABLE: printed(True, "004: \"If he does not agree to match the whole of the stake "
                            "in the bank, the balance can be taken up by one or more of the "
                            "players round the table\""),
    },
    with_table_share=decided(S, Decimal("0.5"), d.WITH_TABLE_NONE),
    with_table_answerable=decided(S, False, d.NOT_ANSWERABLE),
    banco_clears_table=printed(True, "004: \"he becomes the sole punter and previous partial "
                               "stakers must remove their stakes and cease to have any interest "
                               "in that coup\""),
    up_to_bank=printed("the bank", "004: \"may stake all or part of the bank\""),
    holder=printed("highest stake", "004: \"The banker then deals to the punter (nearest player "
                   "to him with the greatest stake)\""),
    outsiders=decided(S, Outsiders.NONE, "004 names only the players at the nine bases "
                      "(\"the players round the table\")"),
    over_the_line=decided(S, False, d.OVER_THE_LINE),
    closing=decided(S, "Rien ne va plus", d.CLOSING),
    open_bank=decided(S, False, d.OPEN_BANK),
    partner=decided(S, False, d.PARTNER),
    payment_order=decided(S, "rule 26", d.PAYMENT_ORDER),
    suivi=printed(Suivi.BANCO_LOST, "004: \"A losing punter who has played 'Banco' on the "
                  "previous coup may call 'suivi' for the next coup and in doing so has first "
                  "right of playing 'Banco'.\""),
    after_loss=printed("next place", _PASS),
    rotates_each_coup=printed(False, _PASS),
    decline_bank=printed(True, "004: \"Any player may refuse to operate the shoe and provide "
                         "the bank when it is his turn to do so, and it then goes to next in "
                         "circuit.\""),
    suite_when=printed(SuiteWhen.ANY_TIME, _ANY_TIME + "; " + _PASS),
    after_pass=printed(AfterPass.NEXT_IN_TURN, _PASS + "; \"it then goes to next in circuit\""),
    standing_take_offer=decided(S, False, "no offer or auction: the bank goes to the next base"),
    auction_ties=decided(S, AuctionTies.FIRST_BID, "no auction is given"),
    suite_exclusion=decided(S, False, d.NO_EXCLUSION),
    out_of_turn_successor=decided(S, "the place after the banker in turn", "no banker out of "
                                  "turn arises: the bank goes from base to base"),
    set_aside=printed(SetAside.GARAGE, "004: \"The banker may at any time ask for some of the "
                      "chips in the bank to be garaged (withdrawn from the bank as winnings)\""),
    new_shoe=decided(S, "same figure", d.NEW_SHOE),
    egalite=printed("returned", "004: \"if banker and punter have the same total it is known as "
                    "egalite and no stakes pass, the banker retaining the shoe for a repeat "
                    "coup\""),
)

SHIMMY_MONEY = MoneyProfile(
    name=SHIMMY.name,
    seed=SEED,
    house=SHIMMY,
    currency=decided(S, Currency("XXX", "chip", Decimal(1)), "004 counts in \"chips\" and names "
                     "no money; whole chips (the ISO code XXX: no currency)"),
    locale=decided(S, Locale("chips", False, True, ",", ".", "Bank {money}"), "`1,170 chips`"),
    chip=decided(S, Decimal(1), d.CHIP),
    min_bank=printed(Limit.TABLE, _LIMITS),
    max_bank=printed(Limit.TABLE, _LIMITS),
    min_stake=decided(S, Limit.TABLE, "no minimum stake is given; the table's, as \"within the "
                      "limits of the game\""),
    max_stake=decided(S, Limit.NONE, "no maximum stake is given; the stakes reach at most the "
                      "bank (\"may stake all or part of the bank\")"),
    commission=printed(Decimal(5), "004: \"if it is a casino game they are taxed 5 per cent as "
                       "casino commission\""),
    commission_on=printed("the banker's wins", "004: \"Winning chips by the banker are added by "
                          "the croupier to the bank, and if it is a casino game they are taxed 5 "
                          "per cent as casino commission.\"; \"Winnings by punters suffer no "
                          "casino tax.\""),
    rounding=decided(S, "down", d.ROUNDING),
    void=decided(S, "returned", d.VOID),
    stakes_public=decided(S, True, d.STAKES_PUBLIC),
    chemin_de_fer=RULES,
)
