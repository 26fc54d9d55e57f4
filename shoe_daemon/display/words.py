"""The display's words in each language it speaks, from one data file (static/words.json).

The page reads the same file (it is served as /static/words.json), so a word is translated in
one place. The game's terms (Banco, Punto, Égalité, Carte, Reste) are French in every language
by default, as at the table; `terms="language"` takes the language's own instead. Every other
surface that names the game (the console, the pit, the demo's lines, the shift report) takes
its terms from here too, in the table's `display_language` and `display_terms`
(`table_words`), so a coup reads the same everywhere.
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

    def term(self, name: str) -> str:
        """One of the game's terms (banco, punto, egalite, carte, reste) as this table says it."""
        return data()["terms"][self.terms_language][name]

    def with_terms(self, text: str) -> str:
        """`text` with the game's terms put in for {banco}, {punto}, ...: the surfaces that are
        not the display (the demo's lines, the report, the pit) word their own sentences and
        name the game as the table does. Other placeholders stay."""
        return _with_terms(text, self.terms_language)


def table_words(language: Any = None, terms: Any = None) -> Words:
    """A table's words from what it recorded or published: its settings in a `daemon.start`
    record (`display_language`, `display_terms`: french or language) or its public view
    (`language`, `terms`: the terms' language). A value missing or unknown (a record older
    than the setting, a later version's language) is the default's, never an error: a reader
    of old records must not fail on them."""
    language = language if language in LANGUAGES else "en"
    if terms not in TERMS:
        terms = "language" if terms == language and terms != "fr" else "french"
    return Words(language, terms)


def _with_terms(text: str, terms_language: str) -> str:
    terms = data()["terms"][terms_language]
    return _PLACEHOLDER.sub(lambda m: terms.get(m.group(1), m.group(0)), text)


@cache
def _resolved(language: str, terms_language: str) -> dict[str, str]:
    """Every word of `language` with the game's terms put in; other placeholders stay."""
    return {key: _with_terms(text, terms_language)
            for key, text in data()["words"][language].items()}
