"""Logging: journald's structured fields under systemd, JSON lines on stderr otherwise,
readable lines on a terminal (structlog)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any, TextIO

import structlog

from shoe_daemon.service import journal


def without_none(event: dict[str, Any]) -> dict[str, Any]:
    """A person reading a terminal needs no `coup=None`: a field without a value is left out
    (the JSON and journal formats keep it, for the machines that read them)."""
    return {key: value for key, value in event.items() if value is not None}


def configure(fmt: str = "auto", stream: TextIO | None = None, level: int = logging.INFO,
              journal_socket: Path = journal.SOCKET) -> str:
    """Set up structlog; returns the format chosen (`auto` resolved)."""
    stream = stream or sys.stderr
    if fmt == "auto":
        if journal.stream_is_journal(stream) and journal_socket.is_socket():
            fmt = "journal"
        else:
            fmt = "console" if stream.isatty() else "json"
    factory: Any = structlog.PrintLoggerFactory(file=stream)
    if fmt == "journal":
        writer = journal.JournalWriter(journal_socket, fallback=stream)
        renderer: Any = journal.as_event
        factory = lambda *_: journal.JournalLogger(writer)  # noqa: E731
    elif fmt == "console":
        console = structlog.dev.ConsoleRenderer(colors=stream.isatty())
        renderer = lambda logger, name, event: console(  # noqa: E731
            logger, name, without_none(event))
    else:
        renderer = structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=factory,
        cache_logger_on_first_use=False,
    )
    return fmt
