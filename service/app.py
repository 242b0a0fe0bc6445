"""The application factory: ``create_app(settings)`` wires settings, data and blueprints."""

from __future__ import annotations

from apiflask import APIFlask

from service import dashboard, metrics, problems, security
from service.api import admin, breakeven, gpus, health, offers, providers, rank
from service.services import init_app as init_services
from service.services import open_services
from service.settings import Settings


def create_app(settings: Settings | None = None) -> APIFlask:
    settings = settings or Settings()
    app = APIFlask(
        __name__,
        title="gpu-breakeven",
        version="0.1.0",
        spec_path="/openapi.json",
        docs_path="/docs",
    )
    app.config["OPENAPI_VERSION"] = "3.1.0"
    app.config["JSON_SORT_KEYS"] = False
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.security_schemes = {"BearerAuth": {"type": "http", "scheme": "bearer"}}
    problems.init_app(app)
    security.init_app(app)
    services = open_services(settings)
    init_services(app, services)
    metrics.init_app(app, services.store)
    for module in (breakeven, gpus, offers, providers, health, admin, rank, dashboard):
        app.register_blueprint(module.bp)
    return app
