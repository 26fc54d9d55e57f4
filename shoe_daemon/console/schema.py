"""Strict validation of the console's JSON: an object with exactly the fields a request
takes, each of its type and form, or a clear error naming the field.

The requests are flat objects of a few strings; a schema library would bring dependencies
for what these forty lines do, and its errors would need rewording for a croupier anyway.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any


class Invalid(ValueError):
    """Not what the API takes; the message says which field and why."""


@dataclass(frozen=True)
class Field:
    """One string field: required or not, from a set of values or matching a pattern."""

    what: str  # in words, for the error
    required: bool = True
    choices: Collection[str] | None = None
    pattern: re.Pattern[str] | None = None
    min_len: int = 1
    max_len: int = 200
    printable: bool = True  # no control characters (a reason is shown and logged)

    def check(self, name: str, value: Any) -> str:
        if not isinstance(value, str):
            raise Invalid(f"{name!r} must be a string ({self.what}), not "
                          f"{type(value).__name__}")
        if self.choices is not None and value not in self.choices:
            shown = sorted(self.choices)
            listed = ", ".join(shown) if len(shown) <= 12 else f"{self.what}"
            raise Invalid(f"{name!r} must be one of {listed}, not {value[:40]!r}")
        if not self.min_len <= len(value) <= self.max_len:
            raise Invalid(f"{name!r} must be {self.min_len} to {self.max_len} characters "
                          f"({self.what})")
        if self.pattern is not None and not self.pattern.fullmatch(value):
            raise Invalid(f"{name!r} is not {self.what}")
        if self.printable and not value.isprintable():
            raise Invalid(f"{name!r} holds control characters")
        return value


def check_object(value: Any, fields: Mapping[str, Field], where: str) -> dict[str, str]:
    """`value` as a dict of exactly these fields, each checked; Invalid names the first
    wrong thing."""
    if not isinstance(value, dict):
        raise Invalid(f"{where} must be a JSON object")
    unknown = sorted(set(value) - set(fields))
    if unknown:
        raise Invalid(f"{where}: unknown field {unknown[0]!r} (it takes "
                      f"{', '.join(sorted(fields)) or 'no fields'})")
    out: dict[str, str] = {}
    for name, field in fields.items():
        if name not in value or value[name] is None:
            if field.required:
                raise Invalid(f"{where}: {name!r} is required ({field.what})")
            continue
        out[name] = field.check(name, value[name])
    return out


REQUEST_ID = Field("a unique id the client made for this request: 16 to 64 of A-Z a-z 0-9 "
                   "- _ (a UUID will do)", pattern=re.compile(r"[A-Za-z0-9_-]{16,64}"),
                   min_len=16, max_len=64)
