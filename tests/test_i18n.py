"""The reader's language (issue 35): the dashboard and the CLI in English and Simplified
Chinese, chosen by ?lang=, Accept-Language, --lang, a setting or the terminal's locale.

The catalog is held to the sources: every message the page, its script and the CLI print has
its translation with the same placeholders, and no translation is left over. The browser
tests of every view in Chinese are in tests/test_dashboard.py.
"""

from __future__ import annotations

import json
import re
import string
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.cli import cli
from service.i18n import (
    LANGUAGES,
    from_accept_language,
    from_locale,
    language_of,
    messages,
    translator,
)
from service.i18n.extract import used_messages
from service.settings import Settings

CHINESE = re.compile(r"[\u4e00-\u9fff]")


# -- the catalog ---------------------------------------------------------------------------


def test_every_message_printed_has_its_translation_and_none_is_left_over() -> None:
    found, unreadable = used_messages()
    catalog = messages("zh-CN")
    assert unreadable == [], "t() calls whose text cannot be read where they are written"
    assert len(found) > 250  # the page, its script and the CLI: a reader would see each
    assert sorted(set(found) - set(catalog)) == []
    assert sorted(set(catalog) - set(found)) == []


def _placeholders(text: str) -> list[tuple[str, str]]:
    return sorted((name, spec or "") for _, name, spec, _ in string.Formatter().parse(text) if name)


def test_each_translation_keeps_its_placeholders_with_their_formats() -> None:
    for english, chinese in messages("zh-CN").items():
        assert _placeholders(chinese) == _placeholders(english), english
        # a translation says something in Chinese, unless it is a name, a mark or a number
        words = re.sub(r"\{[^}]*\}", "", chinese)
        if CHINESE.search(words) is None and re.search("[A-Za-z]", words):
            assert english in {
                "LoRA",
                "QLoRA",
                "PUE",
                "the PUE is",
                "transformer",
                "cnn",
                "rnn",
                "gpu",
            }, english


def test_a_message_missing_from_a_catalog_prints_in_english() -> None:
    t = translator("zh-CN")
    assert t("no such message, {n}", n=3) == "no such message, 3"
    assert t("Buy: total") == "购买：合计"
    assert translator("en")("Buy: total") == "Buy: total"
    assert translator(None).language == "en"


def test_dates_are_written_as_each_language_writes_them() -> None:
    assert translator("zh-CN").day("2026-04-13") == "2026年4月13日"
    assert translator("en").day("2026-04-13T10:00:00Z") == "2026-04-13"
    assert translator("zh-CN").day("2026-08") == "2026-08"  # a month only: as it came
    assert translator("zh-CN").day(None) == "-"


# -- choosing the language -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("tag", "language"),
    [
        ("zh-CN", "zh-CN"),
        ("zh", "zh-CN"),
        ("zh-Hans-CN", "zh-CN"),
        ("zh_CN.UTF-8", "zh-CN"),
        ("zh-SG", "zh-CN"),
        ("zh-TW", None),  # Traditional Chinese is not Simplified
        ("zh-Hant", None),
        ("zh-HK", None),
        ("en-GB", "en"),
        ("en_US.UTF-8", "en"),
        ("C.UTF-8", None),
        ("fr-FR", None),
        ("", None),
    ],
)
def test_language_tags_and_locales(tag: str, language: str | None) -> None:
    assert language_of(tag) == language


def test_accept_language_is_read_by_its_weights() -> None:
    assert from_accept_language("fr-FR, zh-CN;q=0.8, en;q=0.5") == "zh-CN"
    assert from_accept_language("zh-CN;q=0.2, en;q=0.9") == "en"
    assert from_accept_language("zh-TW, zh;q=0.7") == "zh-CN"
    assert from_accept_language("zh-CN;q=0, fr") is None  # q=0: not acceptable
    assert from_accept_language("en;q=abc, zh") == "zh-CN"  # a bad weight counts for nothing
    assert from_accept_language(",".join(["fr"] * 5000)) is None  # long, and still cheap
    assert from_accept_language(None) is None


def test_a_terminal_locale_is_read_in_posix_order() -> None:
    assert from_locale({"LANG": "zh_CN.UTF-8"}) == "zh-CN"
    assert from_locale({"LANG": "zh_CN.UTF-8", "LC_ALL": "en_US.UTF-8"}) == "en"
    assert from_locale({"LC_MESSAGES": "zh_CN", "LANG": "en_US"}) == "zh-CN"
    assert from_locale({}) is None


# -- the dashboard's page ------------------------------------------------------------------


class _Texts(HTMLParser):
    """The text a reader sees on the page, and its attributes a reader hears or reads."""

    SKIP = frozenset({"script", "style"})

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.messages = ""
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open.append(tag)
        for name, value in attrs:
            if name in {"placeholder", "title", "aria-label"} and value:
                self.texts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1] == "script":
            self.messages += data
        elif data.strip() and not (self._open and self._open[-1] in self.SKIP):
            self.texts.append(data.strip())


def _page(client, url: str, **headers: str) -> tuple[_Texts, object]:  # type: ignore[no-untyped-def]
    response = client.get(url, headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    parser = _Texts()
    parser.feed(response.get_data(as_text=True))
    return parser, response


def test_the_page_in_chinese_has_no_english_left_of_its_own(client) -> None:  # type: ignore[no-untyped-def]
    parsed, response = _page(client, "/?lang=zh-CN")
    assert response.headers["Content-Language"] == "zh-CN"
    assert '<html lang="zh-CN">' in response.get_data(as_text=True)
    catalog = messages("zh-CN")
    english = {text for text, chinese in catalog.items() if text != chinese}
    left = [text for text in parsed.texts if text in english]
    assert left == [], "English text on the Chinese page"
    assert "价格" in parsed.texts and "租还是买？" in parsed.texts
    # the script gets the catalog as data, whole
    assert json.loads(parsed.messages) == dict(catalog)


def test_the_page_speaks_the_browsers_language_then_the_setting(client, app) -> None:  # type: ignore[no-untyped-def]
    _, response = _page(client, "/", **{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
    assert response.headers["Content-Language"] == "zh-CN"
    assert "Accept-Language" in response.headers["Vary"]
    _, response = _page(client, "/?lang=en", **{"Accept-Language": "zh-CN"})
    assert response.headers["Content-Language"] == "en"  # ?lang= wins
    _, response = _page(client, "/")
    assert response.headers["Content-Language"] == "en"


def test_the_setting_is_the_default_where_the_browser_does_not_say(
    settings: Settings, migrated_sqlite: Path
) -> None:
    from service.http.app import create_app

    app = create_app(settings.model_copy(update={"lang": "zh-CN"}))
    client = app.test_client()
    _, response = _page(client, "/")
    assert response.headers["Content-Language"] == "zh-CN"
    _, response = _page(client, "/", **{"Accept-Language": "en-US"})
    assert response.headers["Content-Language"] == "en"


def test_a_language_the_page_does_not_speak_is_a_400_naming_lang(client) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/?lang=fr")
    assert response.status_code == 400
    problem = response.get_json()
    assert problem["errors"][0]["parameter"] == "lang"
    assert "en, zh-CN" in problem["errors"][0]["reason"]


def test_chinese_readers_are_shown_yuan_first(client) -> None:  # type: ignore[no-untyped-def]
    for lang, code in (("zh-CN", "CNY"), ("en", "USD")):
        text = client.get(f"/?lang={lang}").get_data(as_text=True)
        assert f'data-default="{code}"' in text
        assert f'<option value="{code}" selected>' in text


# -- the CLI -------------------------------------------------------------------------------


@pytest.fixture
def invoke(settings: Settings):  # type: ignore[no-untyped-def]
    def run(*args: str, **env: str | None):  # type: ignore[no-untyped-def]
        base: dict[str, str | None] = {
            "BREAKEVEN_DATA_DIR": str(settings.data_dir),
            "LC_ALL": None,
            "LC_MESSAGES": None,
            "LANG": None,
            "BREAKEVEN_LANG": None,
        }
        return CliRunner().invoke(cli, list(args), env={**base, **env})

    return run


def test_the_quote_in_chinese_gives_the_answers_figures(invoke) -> None:  # type: ignore[no-untyped-def]
    args = ("quote", "--gpu", "rtx4090", "--hours", "500", "--country", "CN")
    answer = json.loads(invoke(*args, "--json").output)
    result = invoke("--lang", "zh-CN", *args, "--wide")
    assert result.exit_code == 0, result.output
    text = result.output
    verdict = "租用" if answer["verdict"] == "rent" else "购买"
    # country=CN: the amounts are in yuan, the answer's siblings
    assert f"结论：{verdict}，按现值节省 {answer['savings_cny']:,.2f} CNY" in text
    assert f"购买  {answer['buy']['total_cny']:>12,.2f} CNY" in text
    fx = answer["fx"]
    day = fx["as_of"].split("-")
    assert f"1 美元 = {fx['per_usd']:.4f} CNY（欧洲央行，{int(day[0])}年{int(day[1])}月" in text
    assert f"购买 {answer['buy']['total_cny']:,.2f}" in text
    be = answer["breakeven"]
    if be and be["within_life"]:
        assert f"购买在 {be['hours']:,.0f} 小时的工作后回本" in text
    for english in ("VERDICT", "BUY ", "RENT (", "TIERS", "Memory gate", "Buying "):
        assert english not in text


def test_the_terminals_locale_and_the_setting_choose_the_language(invoke) -> None:  # type: ignore[no-untyped-def]
    args = ("quote", "--gpu", "rtx3090", "--hours", "500")
    assert "结论：" in invoke(*args, LANG="zh_CN.UTF-8").output
    assert "VERDICT:" in invoke(*args, LANG="en_US.UTF-8").output
    assert "VERDICT:" in invoke(*args).output  # nothing says: English
    both = {"LANG": "zh_CN.UTF-8", "BREAKEVEN_LANG": "en"}
    assert "VERDICT:" in invoke(*args, **both).output  # the setting before the locale
    assert "结论：" in invoke("--lang", "zh-CN", *args, BREAKEVEN_LANG="en").output
    bad = invoke("--lang", "fr", *args)
    assert bad.exit_code == 2 and "--lang" in bad.output


def test_chinese_tables_line_up_in_terminal_columns(invoke) -> None:  # type: ignore[no-untyped-def]
    """A Chinese character takes two terminal columns: every cell is padded to its column's
    width as the terminal shows it, so every line of the table is as wide as the header."""
    result = invoke("--lang", "zh-CN", "gpus")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("GPU") and "吞吐量" in lines[0] and "估算" in result.output

    def columns(line: str) -> int:
        return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)

    assert {columns(line) for line in lines} == {columns(lines[0])}


def test_the_readmes_chinese_cli_lines_are_what_the_command_prints(invoke) -> None:  # type: ignore[no-untyped-def]
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = readme.split("### 中文界面")[1].split("```")[1].strip().splitlines()
    command, shown = block[0], block[1:]
    assert command.startswith("$ breakeven ") and len(shown) >= 3
    result = invoke(*command.split()[2:])
    assert result.exit_code == 0, result.output
    printed = result.output.splitlines()
    for line in shown:
        assert line in printed
    assert any("CNY" in line for line in shown)  # the question's currency, not dollars


def test_every_language_has_a_name_and_a_catalog() -> None:
    from service.i18n import LANGUAGE_NAMES

    assert set(LANGUAGE_NAMES) == set(LANGUAGES)
    for language in LANGUAGES:
        if language != "en":
            assert messages(language)
