"""The table display: what the players and the croupier see beside the table (issues #5, #13).

`view` decides what is public, `history` and `roads` keep the shoe's roads, `words` its words
in each language, `stakes` the console's bank and limits, `server` serves them over HTTP, and
`TableDisplay` is what the daemon's loop calls after each successful commit.

`TableDisplay` is imported on first use: the settings (service/config.py) read the display's
languages from `words` before the daemon installs its signal handlers, and must not pull the
coup machine in with them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from shoe_daemon.display.publisher import TableDisplay

__all__ = ["TableDisplay"]


def __getattr__(name: str) -> Any:
    if name == "TableDisplay":
        from shoe_daemon.display.publisher import TableDisplay

        return TableDisplay
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
