"""Characters a terminal acts on instead of showing, and how offer text is kept free of them.

An offer's text reaches a person's terminal (`breakeven quote`, `breakeven prices`), where
ESC starts a sequence that sets the window title, colours or clears the screen, CR goes back
over what the line showed, and a bidi override shows `cheap\\u202egnp.exe` as `cheapexe.png`.
Imports refuse such characters (pricing/adapters/tabular.py); the CLI escapes them in what
it prints, since a live source's text never passes an import. One set serves both, so the
two never disagree on what is unsafe.
"""

from __future__ import annotations

import re

# C0 controls but tab (a table cell's tab is harmless and spreadsheets write it), DEL, C1
# controls (0x9b is a one-byte CSI to some terminals), Unicode's bidi controls (the
# embeddings and overrides, the isolates and the marks: left-to-right, right-to-left,
# Arabic), its line and paragraph separators (a line break to a browser and some terminals)
# and its invisible format characters (zero-width space, non-joiner and joiner, word joiner,
# the byte-order mark): "cheap\u200bx" shows as "cheapx" and matches no search for it.
FORBIDDEN = re.compile(
    "[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e"
    "\u2060\u2066-\u2069\ufeff]"
)


def forbidden_character(text: str) -> str | None:
    """The first character of ``text`` a terminal would act on, or None."""
    found = FORBIDDEN.search(text)
    return found.group() if found else None


def describe_character(character: str) -> str:
    """What a row error says of a forbidden character, with the code point to search for."""
    if character == "\x00":
        return "a NUL byte"
    code = f"U+{ord(character):04X}"
    if character in "\n\r\u2028\u2029":
        return f"the line break {code}: a cell is one line of text"
    if character in "\u200b\u200c\u200d\u2060\ufeff":
        return f"the invisible character {code}, which shows as nothing and hides in a search"
    if ord(character) > 0x9F:
        return f"the bidi control {code}, which reorders the text around it on screen"
    return f"the control character {code}, which a terminal acts on instead of showing"


def escape_controls(text: str) -> str:
    """``text`` with each forbidden character written out as its escape (ESC as ``\\x1b``):
    a person sees that something was there and no terminal acts on it."""
    return FORBIDDEN.sub(_escape, text)


def escape_lines(text: str) -> str:
    """A text of several lines escaped line by line: its own line breaks stay, any CR or
    control inside a line is written out."""
    return "\n".join(escape_controls(line) for line in text.split("\n"))


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
