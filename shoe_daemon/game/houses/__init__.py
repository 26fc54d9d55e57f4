"""The house profiles by name: one module per house, each held against one seed document.

| profile | module | seed (docs/seeds/) |
| --- | --- | --- |
| `zoppot-1934` | `zoppot_1934` | 000_7ef4859660e2739e.txt |
| `clermont-2015` | `clermont_2015` | 001_c9a8c45f542707e7.txt |
| `eight-pack` | `eight_pack` | 002_96868f8ec6f978b2.txt |
| `baden` | `baden` | 003_6936dfded619512e.txt (Chemin de fer) |
| `baden-punto-banco` | `baden_punto_banco` | 003_6936dfded619512e.txt (Punto Banco) |
| `shimmy` | `shimmy` | 004_6544e85835ed77c0.txt |

`transcription` turns a seed's printed table into cells; `decisions` holds what several
seeds leave unprinted. Quoted text in a source string is the seed's own wording (whitespace
aside); a source beginning "not printed in" is a decision, listed with its reasons in
docs/rules.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType

from shoe_daemon.game.houses.baden import BADEN
from shoe_daemon.game.houses.baden_punto_banco import BADEN_PUNTO_BANCO
from shoe_daemon.game.houses.clermont_2015 import CLERMONT
from shoe_daemon.game.houses.eight_pack import EIGHT_PACK
from shoe_daemon.game.houses.shimmy import SHIMMY
from shoe_daemon.game.houses.zoppot_1934 import ZOPPOT
from shoe_daemon.game.rules import HouseProfile

PROFILES: Mapping[str, HouseProfile] = MappingProxyType(
    {p.name: p for p in (ZOPPOT, CLERMONT, EIGHT_PACK, BADEN, BADEN_PUNTO_BANCO, SHIMMY)}
)


class UnknownProfileError(KeyError, ValueError):
    """An unknown house profile name (a KeyError and a ValueError)."""

    def __str__(self) -> str:
        return str(self.args[0])


def get_profile(name: str, packs: int | None = None) -> HouseProfile:
    """The house profile `name`; `packs` (the shoe's BTN,SHOE,<decks>) overrides its packs."""
    try:
        profile = PROFILES[name]
    except (KeyError, TypeError):
        raise UnknownProfileError(
            f"unknown house profile {name!r}; valid: {', '.join(PROFILES)}"
        ) from None
    if packs is None:
        return profile
    if isinstance(packs, bool) or not isinstance(packs, int) or packs < 1:
        raise ValueError(f"packs must be a positive number of packs, not {packs!r}")
    if packs == profile.packs:
        return profile
    return dataclasses.replace(
        profile,
        packs=packs,
        packs_source=f"BTN,SHOE,{packs} (house default {profile.packs}: {profile.packs_source})",
    )
