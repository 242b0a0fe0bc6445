"""`breakeven serve`: the app under gunicorn, with the store prepared before workers fork."""

from __future__ import annotations

from typing import Any

from gunicorn.app.base import BaseApplication

from service.http.app import create_app
from service.runtime import open_runtime
from service.settings import Settings


class _Gunicorn(BaseApplication):  # type: ignore[misc]
    def __init__(self, settings: Settings, options: dict[str, Any]) -> None:
        self._settings = settings
        self._options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        return create_app(self._settings)


def serve(settings: Settings) -> None:
    # Schema and first-start snapshot once, here, so workers never race to create them.
    open_runtime(settings).store.dispose()
    options = {
        "bind": f"{settings.host}:{settings.port}",
        "workers": settings.web_workers,
        "accesslog": "-",
        "errorlog": "-",
        "timeout": 60,
    }
    _Gunicorn(settings, options).run()
