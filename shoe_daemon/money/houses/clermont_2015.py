"""The Clermont Club's money: seed 001_c9a8c45f542707e7.txt.

001 prints three kinds of stake ("Bank only", "Bank with table", "Individual player stakes"),
standing players who stake "the box in front of them", stakes over the line worth half,
the 5% commission, a bank that must be kept whole ("he must bet the entire stake"), and the
pass: the offer at the same amount in rotation, then to the standing players, then the
auction where "players who are seated take precedence". It prints no limits as figures:
they are the Inspector's, from the table.
"""

from __future__ import annotations

from decimal import Decimal

from shoe_daemon.game.houses.clermont_2015 import CLERMONT, SEED
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

S = "001"

_THREE = "001: \"There are usually only three stakes made in this game:\""
_RETIRES = ("001: \"If, on the other hand, the banker loses or retires after at least one valid "
            "round (passes the bank on), the hand passes onto the next player (from left to "
            "right).\"")

RULES = CheminDeFerMoney(
    places=printed(8, "001: \"To begin the game at least six players must be sitting at the "
                   "table, which has eight places.\""),
    min_players=printed(6, "001: \"To begin the game at least six players must be sitting at "
                        "the table\"; \"The game begins with the player sitting at box no. 1 "
                        "(banker), who lays a stake\": counted when the game's first bank is "
                        "put up; a hand under way goes on when a player leaves (the ruling of "
                        "issue 20)"),
    first_banker=printed("lowest place", "001: \"The game begins with the player sitting at "
                         "box no. 1 (banker)\""),
    prime=decided(S, "from the banker's right", "no order of betting is given; the offer of "
                  "the bank goes \"starting with the player on the right of the last banker\", "
                  "and 000 gives Prime \"prior right to be punter\""),
    kinds={
        Kind.BANCO_SOLO: printed(True, _THREE + " \"Bank only - The punter plays alone against "
                                 "the banker\""),
        Kind.BANCO: printed(False, _THREE + " bank only, bank with table and individual "
                            "stakes; no banco with a shareholder"),
        Kind.WITH_TABLE: printed(True, _THREE + " \"Bank with table - The punter bets half the "
                                 "sum staked by the banker\""),
        Kind.TABLE: printed(True, _THREE + " \"Individual player stakes\"; \"The stakes of the "
                            "various players play together to cover the bank without "
                            "exceeding it.\""),
    },
    with_table_share=decided(S, Decimal("0.5"), "\"The punter bets half the sum staked by the "
                             "banker\"; read as at least half, as 000 (\"at least half the "
                             "amount in the bank\") and 003 (\"mindestens die Hälfte der "
                             "Banksumme\")"),
    with_table_answerable=decided(S, False, "001 does not say who answers for what the table "
                                  "leaves uncovered, and a player is never charged a sum his "
                                  "house's rules do not state: the uncovered part stays the "
                                  "banker's, as in the general game"),
    banco_clears_table=decided(S, True, "nothing on stakes placed before a bank only; they are "
                               "returned, as 004: \"previous partial stakers must remove their "
                               "stakes and cease to have any interest in that coup\""),
    up_to_bank=printed("the bank", "001: \"The stakes of the various players play together to "
                       "cover the bank without exceeding it.\""),
    holder=printed("highest stake", "001: \"With this stake the punters' cards are dealt to "
                   "the player who has staked the highest sum.\"; a seated player before a "
                   "standing one, and between equal stakes the player nearer the banker's "
                   "right (decision, docs/money.md)"),
    outsiders=printed(Outsiders.AT_BOX, "001: \"Players who are standing may also take part in "
                      "the game within the prescribed limits. One of these limits is that they "
                      "may only stake the box in front of them and they may not change "
                      "position during a hand.\""),
    over_the_line=printed(True, "001: \"Players who wish to take part in a hand must place a "
                          "stake in front of their own box beyond the dividing line. Stakes "
                          "placed over the line are worth half their value.\""),
    closing=printed("No more bets", "001: \"Only the Croupier can close betting using the "
                    "Customary phrase, 'No more bets' and after this players may not change "
                    "their stakes.\"; \"Any stakes placed after 'No more bets' has been called "
                    "will not be accepted.\""),
    open_bank=decided(S, False, d.OPEN_BANK),
    partner=decided(S, False, d.PARTNER),
    payment_order=decided(S, "rule 26", d.PAYMENT_ORDER),
    suivi=printed(Suivi.BANCO_LOST, "001: \"If the 'punter' loses, he may keep playing by "
                  "announcing 'banco' again. This excludes the other players from the "
                  "round.\""),
    after_loss=printed("next place", _RETIRES),
    rotates_each_coup=printed(False, "001: \"If the banker wins, he may continue\""),
    decline_bank=decided(S, True, d.DECLINE_BANK),
    suite_when=printed(SuiteWhen.AFTER_VALID_COUP, _RETIRES),
    after_pass=printed(AfterPass.OFFER_THEN_AUCTION, "001: \"If the banker decides to withdraw "
                       "and 'pass the deal', the Inspector offers it to any of the players who "
                       "are willing to start the bank (i.e. with the same amount at which it "
                       "stood when the last banker retired). The Pit Boss offers the bank in "
                       "rotation to the players sitting at the table, starting with the player "
                       "on the right of the last banker.\"; \"If no one accepts the bank it is "
                       "put up for auction and passed onto the player who bids the most.\""),
    standing_take_offer=printed(True, "001: \"If none of the seated players accept, the bank "
                                "is then offered to the standing player that 'speaks "
                                "first'.\""),
    auction_ties=printed(AuctionTies.SEATED_FIRST, "001: \"No distinction is made between the "
                         "players sitting down and standing up. If, however, two or more "
                         "players bid the same amount, players who are seated take "
                         "precedence.\""),
    suite_exclusion=decided(S, False, d.NO_EXCLUSION),
    out_of_turn_successor=decided(S, "the place after the banker in turn", d.OUT_OF_TURN),
    set_aside=printed(SetAside.NONE, "001: \"If the banker wins, he may continue, but to stay in "
                      "the game, he must bet the entire stake (original bet + win).\""),
    new_shoe=decided(S, "same figure", d.NEW_SHOE + "; 001: \"A hand is a sequence of one or "
                     "more rounds (coups).\""),
    egalite=printed("returned", "001: \"If the banker and the punter draw, the round is "
                    "considered invalid (égalité).\""),
)

CLERMONT_MONEY = MoneyProfile(
    name=CLERMONT.name,
    seed=SEED,
    house=CLERMONT,
    currency=decided(S, Currency("GBP", "pound sterling", Decimal("0.01")),
                     "no currency is printed; the club is in London (\"44 Berkeley Square\"), "
                     "so pounds sterling, counted to the penny"),
    locale=decided(S, Locale("£", True, False, ",", ".", "Bank {money}"),
                   "British usage: `£1,170`"),
    chip=decided(S, Decimal(1), d.CHIP),
    min_bank=printed(Limit.TABLE, "001: the banker \"lays a stake equal or higher than the "
                     "minimum table limit specified by the Inspector\""),
    max_bank=decided(S, Limit.NONE, "no maximum bank is given; the table may set `max_bank`"),
    min_stake=printed(Limit.TABLE, "001: \"within the prescribed limits\"; \"The Inspector has "
                      "the right to change the minimum stake limits at any time, even during a "
                      "game, by informing the players verbally.\""),
    max_stake=printed(Limit.TABLE, "001: \"within the prescribed limits\""),
    commission=printed(Decimal(5), "001: \"taking a 5% commission of any sums the banker wins "
                       "for the Casino\""),
    commission_on=printed("the banker's wins", "001: \"taking a 5% commission of any sums the "
                          "banker wins for the Casino\"; \"The House will take 5% from any "
                          "winning Bank Payouts\""),
    rounding=decided(S, "down", d.ROUNDING),
    void=decided(S, "returned", d.VOID),
    stakes_public=decided(S, True, d.STAKES_PUBLIC),
    chemin_de_fer=RULES,
)
