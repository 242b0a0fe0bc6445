"""The reader's language: the dashboard's and the CLI's text in English or Simplified Chinese.

The English text is the message id: the code reads as it prints, and a message missing from a
catalog prints in English rather than not at all. A catalog (``zh-CN.json`` beside this file)
maps each English message to its translation, placeholders (``{hours}``) kept by name;
tests/test_i18n.py holds every catalog to the messages the template, the dashboard's script
and the CLI use, so none is forgotten and none is left over.

The API's answers are data and stay as they are: field names, values and the sentences the
documents write (sources, notes) are in English whatever the reader's language; the dashboard
and the CLI compose their own text from the fields.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any, Literal, get_args

Language = Literal["en", "zh-CN"]
LANGUAGES: tuple[str, ...] = get_args(Language)
ENGLISH: Language = "en"
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "zh-CN": "简体中文"}  # each in its own

# The currency a reader of each language is shown first where nothing else says (the
# dashboard's currency selector); a question's own `currency` or `country` always wins.
READERS_CURRENCY: dict[str, str] = {"en": "USD", "zh-CN": "CNY"}

_CATALOGS = Path(__file__).resolve().parent


def language_of(tag: str | None) -> Language | None:
    """The supported language a BCP 47 tag (``zh-Hans-CN``) or a POSIX locale name
    (``zh_CN.UTF-8``) names; None for another or none. Traditional Chinese (zh-TW, zh-HK,
    zh-Hant) is not Simplified Chinese and is not taken for it."""
    if not tag:
        return None
    name = tag.strip().split(".")[0].split("@")[0].replace("_", "-").lower()
    parts = name.split("-")
    if parts[0] == "en":
        return "en"
    if parts[0] == "zh":
        rest = set(parts[1:])
        if rest & {"hant", "tw", "hk", "mo"}:
            return None
        return "zh-CN" if not rest or rest & {"cn", "sg", "hans", "my"} else None
    return None


def from_accept_language(header: str | None) -> Language | None:
    """The first supported language of an Accept-Language header, by its q-values."""
    if not header:
        return None
    ranked: list[tuple[float, int, str]] = []
    for position, item in enumerate(header.split(",")[:32]):  # a header is no place for 1,000
        tag, _, params = item.partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        if weight > 0:
            ranked.append((-weight, position, tag))
    for _, _, tag in sorted(ranked):
        found = language_of(tag)
        if found:
            return found
    return None


def from_locale(environ: Mapping[str, str]) -> Language | None:
    """A terminal's language, by POSIX precedence: LC_ALL, then LC_MESSAGES, then LANG."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if environ.get(name):
            return language_of(environ[name])
    return None


@cache
def messages(language: str) -> Mapping[str, str]:
    """A language's catalog, read once on first use (English has none: its ids are its
    text)."""
    if language == ENGLISH:
        return {}
    text = (_CATALOGS / f"{language}.json").read_text(encoding="utf-8")
    return dict(json.loads(text))


class Translator:
    """``t("Buying pays off after {hours} h of work", hours=...)`` in the reader's language."""

    def __init__(self, language: Language) -> None:
        self.language = language
        self._messages = messages(language)

    def __call__(self, text: str, /, **values: Any) -> str:
        template = self._messages.get(text, text)
        return template.format(**values) if values else template

    def day(self, value: date | str | None) -> str:
        """A date as its readers write it: ISO 8601 in English, 2026年4月13日 in Chinese."""
        if value is None:
            return "-"
        try:
            day = value if isinstance(value, date) else date.fromisoformat(str(value)[:10])
        except ValueError:  # not a date: shown as it came
            return str(value)
        if self.language == "zh-CN":
            return f"{day.year}年{day.month}月{day.day}日"
        return day.isoformat()


@cache
def translator(language: str | None) -> Translator:
    """The reader's translator; English where no language is chosen."""
    return Translator(language if language in LANGUAGES else ENGLISH)  # type: ignore[arg-type]
