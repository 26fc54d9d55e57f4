"""The money profiles by name: one module per house, beside its drawing profile.

| profile | module | seed (docs/seeds/) |
| --- | --- | --- |
| `zoppot-1934` | `zoppot_1934` | 000_7ef4859660e2739e.txt |
| `clermont-2015` | `clermont_2015` | 001_c9a8c45f542707e7.txt |
| `eight-pack` | `eight_pack` | 002_96868f8ec6f978b2.txt |
| `baden` | `baden` | 003_6936dfded619512e.txt (Chemin de fer) |
| `baden-punto-banco` | `baden_punto_banco` | 003_6936dfded619512e.txt (Punto Banco) |
| `shimmy` | `shimmy` | 004_6544e85835ed77c0.txt |

Each money profile carries its drawing profile (`shoe_daemon.game.houses`), under the same
name. `decisions` holds what several seeds leave unprinted; a source beginning "not printed
in" is a decision, listed with its reasons in docs/money.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from shoe_daemon.game.houses import UnknownProfileError
from shoe_daemon.money.houses.baden import BADEN_MONEY
from shoe_daemon.money.houses.baden_punto_banco import BADEN_PUNTO_BANCO_MONEY
from shoe_daemon.money.houses.clermont_2015 import CLERMONT_MONEY
from shoe_daemon.money.houses.eight_pack import EIGHT_PACK_MONEY
from shoe_daemon.money.houses.shimmy import SHIMMY_MONEY
from shoe_daemon.money.houses.zoppot_1934 import ZOPPOT_MONEY
from shoe_daemon.money.profile import MoneyProfile

MONEY_PROFILES: Mapping[str, MoneyProfile] = MappingProxyType({
    p.name: p for p in (ZOPPOT_MONEY, CLERMONT_MONEY, EIGHT_PACK_MONEY, BADEN_MONEY,
                        BADEN_PUNTO_BANCO_MONEY, SHIMMY_MONEY)
})


def get_money_profile(name: str) -> MoneyProfile:
    """The money profile `name` (a drawing profile's name); UnknownProfileError otherwise."""
    try:
        return MONEY_PROFILES[name]
    except (KeyError, TypeError):
        raise UnknownProfileError(
            f"unknown house profile {name!r}; valid: {', '.join(MONEY_PROFILES)}"
        ) from None
