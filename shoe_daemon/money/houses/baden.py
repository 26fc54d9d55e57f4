"""Grand Casino Baden's Chemin de fer money: seed 003_6936dfded619512e.txt (German).

003 prints the Banco forms, the general game in Prime order up to the Banksumme, outsiders
("Spiel von aussen"), the Taxe ("meistens 5 Prozent") on what the banker collects, the
Schokolade with its worked example (Banco Fr. 800, Ponte Fr. 600, Schokolade Fr. 200,
Banksumme Fr. 1200 - Taxe Fr. 30 = neue Banksumme Fr. 1170), banco suivi, the Suite after a
win or an égalité, and the change of bank: after a loss in Prime order; after a voluntary
pass the offer at the last Banksumme in turn, then the auction, and the out-of-turn
banker's successor. Its minimum bank and stakes are the table's ("am Spieltisch angezeigt").
"""

from __future__ import annotations

from decimal import Decimal

from shoe_daemon.game.houses.baden import BADEN, SEED
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

S = "003"

#: 003's money is Swiss francs: "Fr." in its examples, the casino "CH-5400 Baden".
CHF = Currency("CHF", "Swiss franc", Decimal("0.05"))
CHF_SOURCE = (
    "003 counts in \"Fr.\" (\"Banksumme von Fr. 1000.-\") at \"CH-5400 Baden\": Swiss francs; "
    "no smaller unit is printed, so 0.05, the smallest Swiss coin (5 Rappen), which makes "
    "5 % of any whole franc exact"
)
#: As the console's brief shows the bank ("Banque Fr. 1,170"); 003 prints "Fr. 1200".
BADEN_LOCALE = Locale("Fr.", True, True, ",", ".", "Banque {money}")
LOCALE_SOURCE = (
    "the bank is shown as `Banque Fr. 1,170` (the French of the table's calls, as 003's "
    "«Banco», «en carte»); 003 writes amounts \"Fr. 800\" without a separator"
)
_MIN = ("003: \"Die Mindesteinsätze für die Banksumme und die Gebote der Gegenspieler werden "
        "am Spieltisch angezeigt, das Maximum der Banksumme ist unbegrenzt.\"")
_SUITE = ("003: \"Der Bankhalter kann nach einem gewonnenen Spiel entscheiden, ob er die Bank "
          "für eine weitere Runde halten möchte oder ob er die Hand beendet und die Bank "
          "freiwillig abgibt. Diesen Fall nennt man Suite.\"")

RULES = CheminDeFerMoney(
    places=printed(9, "003: \"Gespielt wird an einem ovalen Tisch mit 9 oder 11 Sitzplätzen, "
                   "die entgegen dem Uhrzeigersinn nummeriert sind.\"; 9 unless the table sets "
                   "`places = 11`"),
    min_players=printed(5, "003: \"Zu Beginn der Partie, zu der mindestens fünf Spieler "
                        "benötigt werden\", which begins as \"Der Spieler mit der niedrigsten "
                        "Platznummer übernimmt die erste Bankhalterschaft\": counted when the "
                        "game's first bank is put up; a hand under way goes on when a player "
                        "leaves (the ruling of issue 20)"),
    first_banker=printed("lowest place", "003: \"Der Spieler mit der niedrigsten Platznummer "
                         "übernimmt die erste Bankhalterschaft, genannt Hand.\""),
    prime=printed("from the banker's right", "003: \"Das Vorrecht hat der rechts vom "
                  "Bankhalter sitzende Ponte, danach die anderen Spieler in aufsteigender "
                  "Platznummern-Folge, der Prime-Folge.\""),
    kinds={
        Kind.BANCO_SOLO: printed(True, "003 Banco solo: \"Ein Ponte spielt allein gegen die "
                                 "volle Banksumme.\""),
        Kind.BANCO: printed(True, "003 Banco: \"Ein Ponte spielt grundsätzlich gegen die volle "
                            "Banksumme, kann aber andere Spieler beteiligen.\""),
        Kind.WITH_TABLE: printed(True, "003 Banco mit dem Tisch: \"Beim Banco avec la table "
                                 "spielt ein Ponte mindestens die Hälfte der Banksumme und "
                                 "komplettiert den von den Mitspielern nicht angesetzten Rest "
                                 "zur vollen Banksumme.\""),
        Kind.TABLE: printed(True, "003: \"Möchte kein Ponte die gesamte Banksumme riskieren, "
                            "können sich mehrere Spieler mit verschiedenen hohen Einsätzen "
                            "beteiligen.\""),
    },
    with_table_share=printed(Decimal("0.5"), "003: \"mindestens die Hälfte der Banksumme\""),
    with_table_answerable=printed(True, "003: \"komplettiert den von den Mitspielern nicht "
                                  "angesetzten Rest zur vollen Banksumme\""),
    banco_clears_table=printed(True, "003: \"Nun wird ein Ponte gesucht, der gegen die volle "
                               "Banksumme, Banco, spielen möchte.\"; only \"Möchte kein Ponte "
                               "die gesamte Banksumme riskieren\" do several stake"),
    up_to_bank=printed("the bank", "003: \"Und zwar bis maximal zur Höhe der vom Bankhalter "
                       "bestimmten Banksumme.\"; \"Ist die Banksumme erreicht, können keine "
                       "weiteren Spieler mehr setzen.\""),
    holder=printed("highest stake", "003: \"Wurde kein Banco annonciert, erhält der "
                   "Gegenspieler mit dem höchsten Einsatz die Karten.\"; a seated player before "
                   "an outsider, and between equal stakes the player nearer the banker's right "
                   "(decision, docs/money.md)"),
    outsiders=decided(S, Outsiders.SMALLEST_FIRST, "\"Zusätzlich können aber alle Spieler ohne "
                      "Sitzplatz, als Spiel von aussen, ihre Einsätze tätigen.\" gives no order; "
                      "000's, the only one printed: \"won or lost in consecutive order, "
                      "commencing from the smallest sum, to the amount equal to the sum in the "
                      "bank\""),
    over_the_line=decided(S, False, d.OVER_THE_LINE),
    closing=decided(S, "Rien ne va plus", d.CLOSING),
    open_bank=decided(S, False, d.OPEN_BANK + "; 003: \"Er erhält den Kartenschlitten und legt "
                      "die Banksumme, die er riskieren möchte, in die Mitte des Tisches\""),
    partner=decided(S, False, d.PARTNER),
    payment_order=decided(S, "rule 26", d.PAYMENT_ORDER),
    suivi=printed(Suivi.HALF_BANK_OR_BANCO, "003 Banco suivi: \"Verliert ein Ponte mindestens "
                  "die Hälfte der Banksumme oder eine der Banco-Formen, hat er im nächsten "
                  "Spiel ohne Rücksicht auf die Platzvorrechte der anderen Spieler das "
                  "unbedingte Vorrecht auf eine Banco-Ansage.\""),
    after_loss=printed("next place", "003: \"Nachdem der Bankhalter ein Spiel verloren hat, "
                       "wandert beim Chemin de fer (frz. Eisenbahn) die Bank analog der "
                       "Prime-Folge, also in der Reihenfolge der Platznummern, reihum zu jedem "
                       "Spieler.\""),
    rotates_each_coup=printed(False, _SUITE),
    decline_bank=decided(S, True, d.DECLINE_BANK),
    suite_when=printed(SuiteWhen.AFTER_WIN_OR_EGALITE, _SUITE + "; Unentschieden: \"Der "
                       "Bankhalter kann wie bei einem gewonnenen Spiel seine Bankhalterschaft "
                       "nach Belieben beenden, Suite, oder fortsetzen.\""),
    after_pass=printed(AfterPass.OFFER_THEN_AUCTION, "003: \"Hat der Bankhalter seine Bank "
                       "freiwillig abgegeben, zahlt der Croupier die volle Banksumme\" "
                       "(\"inklusive Schokolade\") \"an ihn aus. Das Recht, die Bank zu halten, "
                       "wird zunächst in der Höhe der letzten Banksumme den Mitspielern der Reihe "
                       "nach angeboten. Falls keiner die Bank in dieser Höhe übernehmen möchte, "
                       "wird die Bankhalterschaft «meistbietend» versteigert und so die neue "
                       "Banksumme und der Bankhalter ermittelt.\""),
    standing_take_offer=printed(False, "003: the offer goes to \"den Mitspielern der Reihe "
                                "nach\", then the auction"),
    auction_ties=decided(S, AuctionTies.FIRST_BID, d.FIRST_BID + " (003: \"«meistbietend» "
                         "versteigert\")"),
    suite_exclusion=decided(S, False, d.NO_EXCLUSION),
    out_of_turn_successor=printed("the place after the banker in turn", "003: \"Beendet dieser "
                                  "Bankhalter\" (\"der Bankhalter ausser der Reihe\") \"seine "
                                  "Hand, geht die nächste Bankhalterschaft an den rechts vom "
                                  "vorletzten Bankhalter sitzenden Spieler über.\""),
    set_aside=printed(SetAside.SCHOKOLADE, "003: \"Die neue Banksumme ergibt sich aus der "
                      "Verdopplung der ursprünglichen Einsätze der Gegenspieler, abzüglich "
                      "Taxe. Wurde die Banksumme nicht in voller Höhe angesetzt, kann der "
                      "Bankhalter die entstehende Differenz zur Seite stellen lassen. Dieser "
                      "Betrag, Schokolade genannt, gehört im nächsten Spiel nicht mehr zur "
                      "Banksumme.\": set aside by the settlement of a coup the bank won not "
                      "fully staked against, as the worked example (bank 800, Ponte 600, Taxe "
                      "30: new bank 1170, Schokolade 200), by the ruling of issue 20"),
    new_shoe=decided(S, "same figure", d.NEW_SHOE),
    egalite=printed("returned", "003 Unentschieden: \"Bei gleicher Punktzahl ist das Spiel «en "
                    "carte», und alle Spieler erhalten ihre Einsätze zurück.\""),
)

BADEN_MONEY = MoneyProfile(
    name=BADEN.name,
    seed=SEED,
    house=BADEN,
    currency=decided(S, CHF, CHF_SOURCE),
    locale=decided(S, BADEN_LOCALE, LOCALE_SOURCE),
    chip=decided(S, Decimal(1), d.CHIP),
    min_bank=printed(Limit.TABLE, _MIN),
    max_bank=printed(Limit.NONE, _MIN),
    min_stake=printed(Limit.TABLE, _MIN),
    max_stake=decided(S, Limit.NONE, "no maximum stake is given; the stakes together reach at "
                      "most the bank (\"bis maximal zur Höhe der vom Bankhalter bestimmten "
                      "Banksumme\")"),
    commission=printed(Decimal(5), "003 Falls der Bankhalter gewinnt: \"die Taxe für das "
                       "Casino, meistens 5 Prozent\"; the table may set its own"),
    commission_on=printed("what the banker collects", "003: \"Der Croupier zieht die Einsätze "
                          "der Gegenspieler oder des Banco-Spielers ein. Von diesem Betrag "
                          "wird vom Croupier die Taxe für das Casino, meistens 5 Prozent, "
                          "behalten.\""),
    rounding=decided(S, "down", d.ROUNDING),
    void=decided(S, "returned", d.VOID),
    stakes_public=decided(S, True, d.STAKES_PUBLIC),
    chemin_de_fer=RULES,
)
