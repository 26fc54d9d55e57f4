"""`shoe-floor serve`: the board, its HTTP server and its feed, wired together.

The feed's threads (broker, store) post news to the server's loop, which applies it to the
board and sends the tiles that changed; after each piece of news the feed learns which holds
it has still to date from the store.
"""

from __future__ import annotations

import ssl
from typing import Any

import structlog

from shoe_daemon.console.people import PeopleError
from shoe_daemon.console.server import tls_context
from shoe_daemon.console.throttle import is_loopback
from shoe_floor.config import CollectorConfigError
from shoe_floor.pit.board import Board
from shoe_floor.pit.config import PitConfig
from shoe_floor.pit.feed import Feed
from shoe_floor.pit.people import pit_people
from shoe_floor.pit.server import PitServer


class Pit:
    def __init__(self, config: PitConfig, log: Any = None):
        self.config = config
        self.log = log or structlog.get_logger("shoe_floor").bind(part="pit")
        self.board = Board(grace_ns=int(config.behind_grace * 1e9),
                           skew_ns=int(config.clock_skew * 1e9))
        people = pit_people(config.people)
        try:
            people.load()  # a wrong people file stops the start, saying why
            context = tls_context(config.cert, config.key) if config.cert else None
        except PeopleError as e:
            raise CollectorConfigError(f"pit.people: {e}") from e
        except (OSError, ssl.SSLError) as e:
            raise CollectorConfigError(f"pit.cert and pit.key: {e}") from e
        if not people.roster().people:
            self.log.warning("pit.nobody", people=str(people.path),
                             words="nobody can sign in: add people with `shoe-floor people "
                                   "add ... --config FLOOR.toml`")
        self.server = PitServer(self.board, config.host, config.port, people=people,
                                name=config.name, screens=config.screens,
                                ssl_context=context, idle=config.idle,
                                longest=config.session, loopback=is_loopback(config.host),
                                log=self.log, applied=self._applied)
        self.feed = Feed(config, self.server.post, self.log)

    def start(self) -> str:
        """Serve, then subscribe and read; the page's URL (OSError if the address is taken)."""
        url = self.server.start()
        self.feed.start()
        self.log.info("pit.listening", url=url)
        return url

    def stop(self) -> None:
        self.feed.stop()
        self.server.stop()

    def _applied(self, board: Board) -> None:
        self.feed.wanted = board.held()
