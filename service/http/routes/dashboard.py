"""The pricing dashboard at ``/`` and the API browser at ``/docs``: pages over the same REST
API, every asset local (Chart.js and Swagger UI are vendored under static/vendor/).

A strict Content Security Policy allows only this origin: no CDN, no inline script or
style, so the pages work with no network and nothing on them can talk to a third party.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from apiflask import APIBlueprint
from flask import Response, render_template, request

from hardware.tariffs import COUNTRIES, US_STATES
from pricing.errors import StoreError
from pricing.fx import CURRENCIES
from pricing.offer import StoredOffer
from service.documents.errors import InvalidQuestion
from service.http import current_runtime
from service.i18n import (
    LANGUAGE_NAMES,
    LANGUAGES,
    READERS_CURRENCY,
    Language,
    Translator,
    from_accept_language,
    language_of,
    messages,
)
from service.runtime import Runtime

bp = APIBlueprint("dashboard", __name__, enable_openapi=False)

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


@bp.get("/")
def index() -> Response:
    """The dashboard, in the reader's language; its "describe the job" form offers the model
    table's models, and its script gets the language's catalog as data (the CSP runs no
    inline script, but a JSON block is not run)."""
    runtime = current_runtime()
    language = _language(runtime.settings.lang)
    models = runtime.hardware.models.values()
    offered = _offered(runtime)
    response = _page(
        "index.html",
        _=Translator(language),
        lang=language,
        languages=LANGUAGE_NAMES,
        messages=dict(messages(language)),
        currencies=CURRENCIES,
        countries=COUNTRIES,
        states=US_STATES,
        readers_currency=READERS_CURRENCY[language],
        offered_accelerators=sorted({stored.offer.accelerator for stored in offered}),
        offered_providers=sorted({stored.offer.provider for stored in offered}),
        transformers=sorted(m.id for m in models if m.family == "transformer"),
        vision_models=sorted(m.id for m in models if m.family == "vision"),
    )
    response.headers["Content-Language"] = language
    response.vary.add("Accept-Language")
    return response


def _offered(runtime: Runtime) -> Sequence[StoredOffer]:
    """The catalog's offers, for the Prices view's filters; none while the store cannot be
    read (the view then says why, as its API call fails)."""
    try:
        return runtime.catalog.table().rows
    except StoreError:
        return ()


def _language(default: Language | None) -> Language:
    """``?lang=``, else the browser's Accept-Language, else the setting, else English; a
    ``lang`` this page does not speak is a 400 naming it, not a silent English page."""
    asked = request.args.get("lang")
    if asked is not None:
        found = language_of(asked)
        if found is None:
            raise InvalidQuestion("lang", f"{asked[:40]!r} is not one of {', '.join(LANGUAGES)}")
        return found
    return from_accept_language(request.headers.get("Accept-Language")) or default or "en"


@bp.get("/docs")
def docs() -> Response:
    """Swagger UI over /openapi.json, in place of APIFlask's page (a CDN and inline script)."""
    return _page("docs.html")


def _page(template: str, **context: Any) -> Response:
    response = Response(render_template(template, **context), mimetype="text/html")
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY  # the rest: security.py
    return response
