"""The table display: what the players and the croupier see beside the table (issue #5).

`view` decides what is public, `history` keeps the shoe's roads, `server` serves them over
HTTP, and `TableDisplay` is what the daemon's loop calls after each successful commit.
"""

from shoe_daemon.display.publisher import TableDisplay

__all__ = ["TableDisplay"]
