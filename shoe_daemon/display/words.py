"""The display's words in each language it speaks, from one data file (static/words.json).

The page reads the same file (it is served as /static/words.json), so a word is translated in
one place. The game's terms (Banco, Punto, Égalité, Carte, Reste) are French in every language
by default, as at the table; `terms="language"` takes the language's own instead.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

LANGUAGES = ("en", "de", "fr", "zh")
TERMS = ("french", "language")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@cache
def data() -> dict[str, Any]:
    """The words file as it ships."""
    path = resources.files("shoe_daemon.display") / "static" / "words.json"
    return json.loads(path.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Words:
    """The words of one language with the game's terms chosen: `Words("de")["state.dealing"]`."""

    language: str = "en"
    terms: str = "french"

    def __post_init__(self) -> None:
        if self.language not in LANGUAGES:
            raise ValueError(f"display language {self.language!r} is not one of "
                             f"{', '.join(LANGUAGES)}")
        if self.terms not in TERMS:
            raise ValueError(f"display terms {self.terms!r} is not one of {', '.join(TERMS)}")

    @property
    def terms_language(self) -> str:
        """The language whose game terms are used: fr by default."""
        return "fr" if self.terms == "french" else self.language

    @property
    def locale(self) -> str:
        """The locale amounts are formatted in (Babel's name)."""
        return data()["locales"][self.language]

    def __getitem__(self, key: str) -> str:
        return _resolved(self.language, self.terms_language)[key]

    def format(self, key: str, **values: Any) -> str:
        return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), self[key])


@cache
def _resolved(language: str, terms_language: str) -> dict[str, str]:
    """Every word of `language` with the game's terms put in; other placeholders stay."""
    terms = data()["terms"][terms_language]
    return {key: _PLACEHOLDER.sub(lambda m: terms.get(m.group(1), m.group(0)), text)
            for key, text in data()["words"][language].items()}
