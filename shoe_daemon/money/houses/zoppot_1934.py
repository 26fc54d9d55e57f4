"""Zoppot 1934's money: seed 000_7ef4859660e2739e.txt.

000 prints more of the bank than any other seed: the bank and its minimum, the four kinds of
play, outsiders "commencing from the smallest sum", the Suite and its auction (rules 22,
23), the banker's partner (rule 4), the open bank (rule 5), Prime's priority (rule 14), the
new shoe (rule 25) and the order of payment (rule 26). It gives no commission rate
("a certain percentage"): the table must set `commission_percent`.
"""

from __future__ import annotations

from decimal import Decimal

from shoe_daemon.game.houses.zoppot_1934 import SEED, ZOPPOT
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

S = "000"

_SUITE = (
    "000: \"The banker may withdraw the bank after winning a coup, with the word, 'Suite', "
    'provided he has not yet drawn cards for the next deal."'
)

RULES = CheminDeFerMoney(
    places=decided(S, 9, "the places are numbered \"in accordance with the following plan\", "
                   "which the booklet does not reproduce; it names \"Place No. 9\", so 9; the "
                   "table sets `places`"),
    min_players=decided(S, 2, d.MIN_PLAYERS),
    first_banker=printed("lowest place", "000: \"The croupier passes the 'shoe' to Place No. 1 "
                         "at the table, and the player seated at this place becomes the "
                         "banker.\""),
    prime=printed("from the banker's right", "000: \"The first player ('Prime'), seated at the "
                  "banker's right hand, has prior right to be punter.\"; rule 14: \"The "
                  "priority of the punter (Prime) seated on the right hand of the banker is "
                  "retained by him, even if the bank has passed through several hands.\""),
    kinds={
        Kind.BANCO_SOLO: printed(True, "000 I: \"'Banco solo'. The punter plays by himself.\""),
        Kind.BANCO: printed(True, "000 II: \"'Banco'. The punter plays with a "
                            "shareholder.\""),
        Kind.WITH_TABLE: printed(True, "000 III: \"'Banco with the table'. The stake of the "
                                 "punter must be equal to at least half the amount in the "
                                 "bank, the remainder being put up by the other players.\""),
        Kind.TABLE: printed(True, "000 IV: \"The croupier calls upon the players to join in a "
                            "game in which all may share.\""),
    },
    with_table_share=printed(Decimal("0.5"), "000 III: \"at least half the amount in the "
                             "bank\""),
    with_table_answerable=printed(True, "000 III: \"If the latter fail to make up the amount "
                                  "required, the punter playing 'Banco with the table' is "
                                  "responsible for the difference.\""),
    banco_clears_table=printed(True, "000 IV: \"If there are no players willing to play "
                               "according to methode I, II, or III, the fourth method is "
                               "used.\""),
    up_to_bank=printed("the bank", "000: \"The croupier then calls upon the other players to "
                       "play to this bank\"; outsiders \"to the amount equal to the sum in "
                       "the bank\""),
    holder=printed("highest seated stake", "000 IV: \"the seated player who has paid in the "
                   "highest stake is dealt the cards, and he is the 'holder of the hand'\""
                   "; between equal stakes the player nearer the banker's right (decision, "
                   "docs/money.md)"),
    outsiders=printed(Outsiders.SMALLEST_FIRST, "000: \"Outsiders, that is, players not seated "
                      "at the table, may also take part in the game, but the seated players "
                      "have priority. The stakes of the outsiders, which must be placed in "
                      "the middle of the table and not in the ring, are won or lost in "
                      "consecutive order, commencing from the smallest sum, to the amount "
                      "equal to the sum in the bank.\""),
    over_the_line=decided(S, False, d.OVER_THE_LINE),
    closing=printed("Rien ne va plus", "000 IV: \"After the croupier has declared the betting "
                    "closed ('Rien ne va plus'), no further stakes may be placed.\"; rule 7: "
                    "\"When both cards are in the hands of the punter, no other player, not "
                    "even 'Prime', may become punter.\""),
    open_bank=printed(True, "000 rule 5: \"The banker has the right, before beginning the "
                      "game, to name the limit, or to play without a limit (open bank).\"; "
                      "\"As soon as the sum has been fixed, the croupier requests the banker "
                      "to deposit his stake.\""),
    partner=printed(True, "000 rule 4: \"The prescribed minimum stake must be put up by the "
                    "banker alone. When there is a full table of players, he may have a "
                    "partner for any sum in excess of the minimum.\""),
    payment_order=printed("rule 26", "000 rule 26: \"First, the highest table stake, then the "
                          "stake of the player seated at the right hand of the banker (Prime), "
                          "and then the others in rotation.\"; \"The collection and payment "
                          "during or after a 'suite', is carried out in the following "
                          "rotation. First, the highest table stake, then Prime (counting "
                          "from the originator of the 'suite'), then the places following, "
                          "and finally, the last banker.\"; outsiders after the seated "
                          "players, smallest first, and the bank last (decision)"),
    suivi=printed(Suivi.BANCO_LOST, "000: \"This only applies in case the preceding game has "
                  "been played by another player as punter and lost, in which event that "
                  "player again has the right to be punter ('Suivi').\"; the punter is the "
                  "banco player (kinds I-III: \"volunteers to play for this bank as "
                  "punter\")"),
    after_loss=printed("next place", "000: \"Should the banker lose a coup, the 'shoe' passes "
                       "on directly to the next place, i. e. from place 1 to 2, from 2 to 3, "
                       "and so forth.\""),
    rotates_each_coup=printed(False, _SUITE),
    decline_bank=decided(S, True, d.DECLINE_BANK),
    suite_when=printed(SuiteWhen.AFTER_WIN, _SUITE),
    after_pass=printed(AfterPass.AUCTION, "000: \"The 'Suite' (next one) is then auctioned by "
                       "the croupier, and the bank passes over to the player making the "
                       "highest bid.\"; rule 23: \"a 'suite' can be passed on from hand to hand "
                       "a number of times, until one of the bankers lose.\""),
    standing_take_offer=decided(S, False, "no offer before the auction: \"The 'Suite' (next "
                                "one) is then auctioned by the croupier\""),
    auction_ties=decided(S, AuctionTies.FIRST_BID, d.FIRST_BID),
    suite_exclusion=printed(True, "000 rule 22: \"The banker and his partner, if any, who has "
                            "given a 'suite', may not share in the bidding for the said "
                            "'suite', nor are they free to take part in the auction until the "
                            "next time the bank changes hands.\""),
    out_of_turn_successor=decided(S, "the place after the banker in turn", d.OUT_OF_TURN
                                  + "; 000 itself counts Prime \"from the originator of the "
                                  "'suite'\" (rule 26) and keeps Prime's priority \"even if the "
                                  "bank has passed through several hands\" (rule 14)"),
    set_aside=decided(S, SetAside.NONE, "nothing may be taken out of the bank while the banker "
                      "keeps it; rule 25 keeps the figure \"The money in the bank remains on "
                      "the table whilst the cards are being shuffled\""),
    new_shoe=printed("same figure", "000 rule 25: \"The first coup of a new 'shoe' is "
                     "announced at exactly the same figure as that which was won by the bank "
                     "in the last coup of the preceding 'shoe'. The money in the bank remains "
                     "on the table whilst the cards are being shuffled, provided that the "
                     "banker does not wish to make a 'suite'.\""),
    egalite=printed("returned", "000: \"The punter wins unless the banker has an equal number "
                    "of pips, in which case the cards are dealt again.\""),
)

ZOPPOT_MONEY = MoneyProfile(
    name=ZOPPOT.name,
    seed=SEED,
    house=ZOPPOT,
    currency=decided(S, Currency("DZG", "Danzig gulden", Decimal("0.01")),
                     "the booklet counts in \"Guildens\" (the Free City of Danzig's gulden) and "
                     "prints no smaller unit; the gulden was divided into 100 Pfennig, so "
                     "0.01"),
    locale=decided(S, Locale("Guildens", False, True, "", ".", "{money} banco"),
                   "written as the booklet writes it: \"10 Guildens banco\", \"Maximum 2400 "
                   "Guldens\" (no thousands separator)"),
    chip=decided(S, Decimal(1), d.CHIP),
    min_bank=printed(Decimal(10), "000: \"The minimum stake for the bank is 10 Guildens.\""),
    max_bank=decided(S, Limit.NONE, "no maximum bank is printed; \"Maximum 2400 Guldens\" is "
                     "the stakes' limit beside \"Minimum 2 Guldens\", and the banker may "
                     "\"play without a limit (open bank)\" (rule 5)"),
    min_stake=printed(Decimal(2), "000 IV: \"The minimum stake for a punter is 2 Guildens.\"; "
                      "\"Minimum 2 Guldens\""),
    max_stake=printed(Decimal(2400), "000: \"Maximum 2400 Guldens\"; it bounds the general "
                      "game's and outsiders' stakes: a banco plays the bank's sum, which no "
                      "rule bounds"),
    commission=printed(Limit.TABLE, "000: \"The croupier deducts a certain percentage "
                       "('cagnotte' or commission) of the total of every game won by the "
                       "banker for the Casino.\"; the rate is not given, so the table sets "
                       "`commission_percent`"),
    commission_on=printed("the banker's wins", "000: \"of the total of every game won by the "
                          "banker\""),
    rounding=decided(S, "down", d.ROUNDING),
    void=printed("returned", "000 rule 24: \"If, at the last coup the 'shoe' through the fault "
                 "of the croupier, does not contain the requisite seven cards, the coup is "
                 "cancelled without loss to either side.\"; a void coup likewise (decision)"),
    stakes_public=decided(S, True, d.STAKES_PUBLIC),
    chemin_de_fer=RULES,
)
