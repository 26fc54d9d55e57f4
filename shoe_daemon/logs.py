"""Logging: JSON lines on stderr for journald, readable lines on a terminal (structlog)."""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import structlog


def configure(fmt: str = "auto", stream: TextIO | None = None, level: int = logging.INFO) -> None:
    stream = stream or sys.stderr
    if fmt == "auto":
        fmt = "console" if stream.isatty() else "json"
    renderer = (
        structlog.dev.ConsoleRenderer(colors=stream.isatty())
        if fmt == "console"
        else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )
