"""The table's money: exact, deterministic, and by each house's rules (docs/money.md).

No I/O, no clocks: every function here is pure, so a settlement recorded in the ledger can
be recomputed by `audit verify` and reproduced by `replay`. Amounts are `decimal.Decimal`,
never float. The modules, each one concept:

| module | what |
| --- | --- |
| `amounts` | amounts and currencies: exact decimals, the unit, rounding |
| `display` | amounts as players read them ("Banque Fr. 1,170") |
| `profile` | the money rules' types: `Term` (value and seed source), `MoneyProfile` |
| `houses/` | one money profile per house, beside its drawing profile |
| `limits` | the table's limits from the `[money]` configuration over the seed's figures |
| `players` | players (a seat, an outsider) and the seating's Prime order |
| `refusals` | `Refusal`: an action a rule does not allow, with the rule cited |
| `stakes` | a stake and the bank it is played against, serialised |
| `round` | the betting round of a Chemin de fer coup, until "Rien ne va plus" |
| `punto_banco` | Punto Banco's box bets and their settlement |
| `settlement` | a settled coup's lines, its serialised form, the first difference |
| `chemin_de_fer` | settling a Chemin de fer coup |
| `bank` | the bank across coups and shoes: holder, sum, Suite, offer, auction |
| `table` | `TableMoney`: the seating, the bank and the round, driven by actions |
| `verify` | recomputing recorded settlements and actions |
| `steps` | money records read back into the actions that made them |
"""
