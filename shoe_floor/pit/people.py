"""The pit's people: who may sign in at the pit's page, and as what. Kept at the pit, in a
people file beside the floor's configuration with its own key (`[pit] people`, default
`pit-people.json`, and `pit-people.key` beside it), made by `shoe-floor people`. The file,
its hashes and the sign-in throttle are the console's (shoe_daemon/console/people.py,
throttle.py); only the roles are the pit's.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from shoe_daemon.console.people import PeopleFile

PEOPLE_FILE = "pit-people.json"
KEY_SUFFIX = ".key"


class PitRole(StrEnum):
    """The pit boss runs the floor; surveillance searches it; the regulator reads and
    exports, and changes nothing."""

    PIT_BOSS = "pit_boss"
    SURVEILLANCE = "surveillance"
    REGULATOR = "regulator"


EVERYONE = frozenset(PitRole)
CHANGERS = frozenset({PitRole.PIT_BOSS, PitRole.SURVEILLANCE})  # never the regulator


def pit_people(path: Path) -> PeopleFile:
    """The pit's people file and its key beside it (`<file stem>.key`)."""
    return PeopleFile(path, path.with_suffix(KEY_SUFFIX), PitRole)
