"""POST /refresh: start a refresh now. Admin only: a bearer token, compared in constant time.

With no BREAKEVEN_ADMIN_TOKEN configured the endpoint is disabled (403), never open. The
token is never logged, echoed or put in an error document.
"""

from __future__ import annotations

import hmac
import threading
from collections.abc import Sequence
from typing import Any

from apiflask import APIBlueprint
from flask import current_app, request

from pricing.adapters import Adapter
from pricing.refresh import RunResult, refresh
from service.documents.providers import result_document
from service.http import current_runtime
from service.http.problems import Problem
from service.http.schemas import RefreshDone, RefreshQuery, RefreshStarted, documented_response
from service.jobs.refresh import build_adapters, refresh_policy, scheduled_adapters
from service.runtime import Runtime

bp = APIBlueprint("admin", __name__)

REFRESHER = "breakeven.refresher"


class Refresher:
    """Refreshes started over HTTP: in a background thread, one at a time per provider."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._lock = threading.Lock()
        self._running: set[str] = set()

    def _claim(self, adapters: Sequence[Adapter]) -> None:
        names = {a.name for a in adapters}
        with self._lock:
            busy = sorted(names & self._running)
            if busy:
                raise Problem(409, "refresh-running", f"already refreshing: {', '.join(busy)}")
            self._running |= names

    def run(self, adapters: Sequence[Adapter], force: bool) -> list[RunResult]:
        try:
            policy = refresh_policy(self._runtime.settings)
            return refresh(self._runtime.store, adapters, policy, force=force)
        finally:
            with self._lock:
                self._running -= {a.name for a in adapters}

    def start(self, adapters: Sequence[Adapter], force: bool, wait: bool) -> list[RunResult]:
        self._claim(adapters)
        if wait:
            return self.run(adapters, force)
        threading.Thread(target=self.run, args=(adapters, force), daemon=True).start()
        return []


def authorize(runtime: Runtime) -> None:
    token = runtime.settings.admin_token
    if token is None:
        raise Problem(403, "admin-disabled", "admin endpoints are off: no BREAKEVEN_ADMIN_TOKEN")
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    expected = token.get_secret_value().encode()
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), expected):
        raise Problem(
            401,
            "unauthorized",
            "a valid bearer token is required",
            headers={"WWW-Authenticate": 'Bearer realm="gpu-breakeven"'},
        )


@bp.before_request
def _admin_only() -> None:
    # Before the view, so before its input validation: a caller without the token learns
    # nothing about the parameters, only 401 or 403.
    authorize(current_runtime())


@bp.post("/refresh")
@bp.input(RefreshQuery, location="query", arg_name="query")
@bp.doc(
    summary="Refresh prices now (admin)",
    tags=["Admin"],
    description="Starts a refresh of one source or all scheduled ones. 202 at once, or 200 "
    "with the results when `wait=true`.",
    security="BearerAuth",
    responses={
        200: documented_response(RefreshDone, "Refresh finished (`wait=true`)"),
        202: documented_response(RefreshStarted, "Refresh started"),
        401: {
            "description": "Missing or wrong token",
            "headers": {
                "WWW-Authenticate": {
                    "description": "The scheme to use: Bearer.",
                    "required": True,
                    "schema": {"type": "string"},
                }
            },
        },
        403: "Admin endpoints disabled",
        404: "Unknown source",
        409: "Already refreshing",
    },
)
def post_refresh(query: RefreshQuery) -> tuple[dict[str, Any], int]:
    runtime = current_runtime()  # authorized by _admin_only
    if query.provider:
        adapters = build_adapters(runtime)
        if query.provider not in adapters:
            raise Problem(
                404,
                "unknown-provider",
                f"unknown source {query.provider!r}; known: {', '.join(adapters)}",
                errors=[{"parameter": "provider", "reason": "unknown source"}],
            )
        chosen = [adapters[query.provider]]
    else:
        chosen = scheduled_adapters(runtime)
    refresher = current_app.extensions.setdefault(REFRESHER, Refresher(runtime))
    results = refresher.start(chosen, query.force, query.wait)
    names = [a.name for a in chosen]
    if not query.wait:
        return {"status": "started", "providers": names, "progress": "/providers"}, 202
    return {
        "status": "done",
        "providers": names,
        "results": [result_document(r) for r in results],
    }, 200
