"""Settings: every one is documented in the reference, and env vars reach the object."""

from __future__ import annotations

from pathlib import Path

from service.settings import Settings, settings_table

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "reference.md"


def test_every_setting_is_documented_in_the_reference() -> None:
    text = REFERENCE.read_text()
    missing = [name for name, _, _ in settings_table() if f"`{name}`" not in text]
    assert missing == []


def test_every_setting_has_help_text() -> None:
    assert all(help_text for _, _, help_text in settings_table())


def test_environment_reaches_settings(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("BREAKEVEN_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("BREAKEVEN_ELECTRICITY", "0.31")
    settings = Settings()
    assert settings.electricity == 0.31
    assert settings.resolved_database_url() == f"sqlite:///{tmp_path / 'breakeven.sqlite3'}"
    monkeypatch.setenv("BREAKEVEN_DATABASE_URL", "postgresql+psycopg://u@h/db")
    assert Settings().resolved_database_url() == "postgresql+psycopg://u@h/db"
