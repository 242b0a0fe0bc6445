"""The messages the dashboard and the CLI print, read from their sources: what a catalog
must translate. ``python -m service.i18n.extract zh-CN`` lists those a catalog lacks and
those it holds for nothing (tests/test_i18n.py fails on either).

A message is found where it is written: ``_("...")`` in the page's template, ``t("...")``
in its script and in the CLI's Python. A call whose text is not written out there (a
variable, a ternary) cannot be found, so it is reported as an error: the words it might
print are written out instead (the CLI's ``_word``, the script's ``workloadName``).
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

from service.i18n import messages

SERVICE = Path(__file__).resolve().parents[1]
TEMPLATE = SERVICE / "http" / "templates" / "index.html"
SCRIPT = SERVICE / "http" / "static" / "dashboard.js"
CLI = SERVICE / "cli"

_JINJA = re.compile(r'_\(\s*"((?:[^"\\]|\\.)*)"\s*\)')
_JS_CALL = re.compile(r"(?<![\w.])t\(")
_JS_LITERAL = re.compile(r'(?<![\w.])t\(\s*"((?:[^"\\]|\\.)*)"')


def used_messages() -> tuple[dict[str, list[str]], list[str]]:
    """Every message and where it is used; and every call whose text is not written out."""
    found: dict[str, list[str]] = {}
    unreadable: list[str] = []

    def add(text: str, where: str) -> None:
        found.setdefault(text, []).append(where)

    for match in _JINJA.finditer(TEMPLATE.read_text(encoding="utf-8")):
        add(_unescape(match[1]), TEMPLATE.name)
    script = SCRIPT.read_text(encoding="utf-8")
    for number, line in enumerate(script.splitlines(), 1):
        if line.lstrip().startswith(("function t(", "//")):
            continue
        calls = len(_JS_CALL.findall(line))
        literals = _JS_LITERAL.findall(line)
        for text in literals:
            add(_unescape(text), f"{SCRIPT.name}:{number}")
        if calls != len(literals):
            unreadable.append(f"{SCRIPT.name}:{number}")
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id != "t":
                continue
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                add(first.value, f"cli/{path.name}:{node.lineno}")
            else:
                unreadable.append(f"cli/{path.name}:{node.lineno}")
    return found, unreadable


def _unescape(text: str) -> str:
    return json.loads(f'"{text}"')


def main(argv: list[str]) -> int:
    language = argv[0] if argv else "zh-CN"
    found, unreadable = used_messages()
    catalog = messages(language)
    report = {
        "missing": {text: found[text] for text in found if text not in catalog},
        "unused": [text for text in catalog if text not in found],
        "unreadable": unreadable,
    }
    print(json.dumps(report, ensure_ascii=False, indent=1))
    return 1 if any(report.values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
