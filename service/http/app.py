"""The application factory: ``create_app(settings)`` wires settings, data and blueprints."""

from __future__ import annotations

import re
from typing import Any

from apiflask import APIFlask
from werkzeug.middleware.proxy_fix import ProxyFix

from service.http import (
    budget,
    caching,
    compression,
    init_runtime,
    problems,
    schemas,
    security,
)
from service.http.routes import (
    admin,
    breakeven,
    dashboard,
    gpus,
    health,
    metrics,
    models,
    offers,
    providers,
    rank,
)
from service.runtime import open_runtime
from service.settings import Settings

# The OpenAPI tags, each declared once; every operation names its own (@bp.doc(tags=...)).
# Left to APIFlask, each blueprint would declare its tag, and tags two blueprints share
# (Hardware, Prices) would be declared twice, which OpenAPI forbids.
TAGS: list[dict[str, str]] = [
    {"name": "Break-even", "description": "Rent or buy, for one workload."},
    {"name": "Hardware", "description": "Accelerators, and which gives most work per dollar."},
    {"name": "Prices", "description": "Rental offers, their history and their sources."},
    {"name": "Operations", "description": "Liveness and metrics."},
    {"name": "Admin", "description": "Refreshing prices; a bearer token is required."},
]


def create_app(settings: Settings | None = None, prepare_store: bool = True) -> APIFlask:
    settings = settings or Settings()
    app = APIFlask(
        __name__,
        title="gpu-breakeven",
        version="0.1.0",
        spec_path="/openapi.json",
        docs_path=None,  # /docs is ours (routes/dashboard.py): vendored Swagger UI under a CSP
    )
    app.config["OPENAPI_VERSION"] = "3.1.0"
    # Relative to where the spec is served. APIFlask's default is the first request's Host
    # header, cached for every later reader: a forged Host would point /docs' "Try it out",
    # bearer token and all, at another server.
    app.config["SERVERS"] = [{"url": "/"}]
    app.config["TAGS"] = [dict(tag) for tag in TAGS]
    app.config["JSON_SORT_KEYS"] = False
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.security_schemes = {"BearerAuth": {"type": "http", "scheme": "bearer"}}
    problems.init_app(app)
    security.init_app(app)
    if settings.web_trusted_proxies:
        # behind the proxy every client has its address: the per-client heavy-read slots
        # (budget.py) and the records read the client the proxy saw
        n = settings.web_trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n)  # type: ignore[method-assign]
    runtime = open_runtime(settings, prepare_store)
    init_runtime(app, runtime)
    runtime.catalog.build_past_with(budget.heavy_read)  # a new run window: a heavy read
    metrics.init_app(app, runtime.settings, runtime.store)
    caching.init_app(app)
    compression.init_app(app)
    for module in (breakeven, gpus, models, offers, providers, health, admin, rank, dashboard):
        app.register_blueprint(module.bp)

    @app.spec_processor
    def _finish_spec(spec: dict[str, Any]) -> dict[str, Any]:
        spec = problems.document_problems(spec, app.extensions[problems.EVERYWHERE])
        schemas.add_models(spec, schemas.BY_HAND.values())
        _name_operations(app, spec)
        return schemas.finish_components(spec)

    return app


def _name_operations(app: APIFlask, spec: dict[str, Any]) -> None:
    """Each operation's operationId is its view's name (get_breakeven, list_offers): what a
    generated client calls the method, so it reads as the code does."""
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
        operations = spec["paths"].get(path, {})
        for method in rule.methods or ():
            operation = operations.get(method.lower())
            if operation is not None:
                operation["operationId"] = app.view_functions[rule.endpoint].__name__
