"""POST /refresh: start a refresh now. Admin only: a bearer token, compared in constant time.

With no BREAKEVEN_ADMIN_TOKEN configured the endpoint is disabled (403), never open. The
token is never logged, echoed or put in an error document.

A refresh always runs in the background: ``wait=true`` waits at most
BREAKEVEN_REFRESH_WAIT_SECONDS (below the worker timeout), then answers 202, so a slow
source never gets a worker killed, and the run records its own outcome. One refresh per
provider per database: a PostgreSQL advisory lock, or a file lock next to SQLite's file.
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
from service.http.security import refuse_repeated_parameters
from service.jobs.locks import ProviderLock
from service.jobs.refresh import build_adapters, refresh_policy, scheduled_adapters
from service.runtime import Runtime

bp = APIBlueprint("admin", __name__)

REFRESHER = "breakeven.refresher"


class Refresher:
    """Refreshes started over HTTP: in a background thread, one per provider per database."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime

    def _claim(self, adapters: Sequence[Adapter]) -> list[ProviderLock]:
        held: list[ProviderLock] = []
        busy: list[str] = []
        try:
            for adapter in adapters:
                lock = ProviderLock(self._runtime.settings, self._runtime.store, adapter.name)
                if lock.try_acquire():
                    held.append(lock)
                else:
                    busy.append(adapter.name)
        except BaseException:
            _release(held)
            raise
        if busy:
            _release(held)
            raise Problem(409, "refresh-running", f"already refreshing: {', '.join(busy)}")
        return held

    def run(
        self, adapters: Sequence[Adapter], force: bool, locks: Sequence[ProviderLock]
    ) -> list[RunResult]:
        try:
            policy = refresh_policy(self._runtime.settings)
            return refresh(self._runtime.store, adapters, policy, force=force)
        finally:
            _release(locks)

    def start(self, adapters: Sequence[Adapter], force: bool, wait: bool) -> list[RunResult] | None:
        """The results when done within the wait (``wait``), else None: still running."""
        locks = self._claim(adapters)
        outcome: list[list[RunResult]] = []

        def target() -> None:
            outcome.append(self.run(adapters, force, locks))

        thread = threading.Thread(target=target, name="http-refresh", daemon=True)
        thread.start()
        if not wait:
            return None
        thread.join(self._runtime.settings.refresh_wait_seconds)
        return outcome[0] if outcome else None


def _release(locks: Sequence[ProviderLock]) -> None:
    for lock in locks:
        lock.release()


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
    refuse_repeated_parameters()


@bp.post("/refresh")
@bp.input(RefreshQuery, location="query", arg_name="query")
@bp.doc(
    summary="Refresh prices now (admin)",
    tags=["Admin"],
    description="Starts a refresh of one source or all scheduled ones. 202 at once, or 200 "
    "with the results when `wait=true` and it ends within BREAKEVEN_REFRESH_WAIT_SECONDS "
    "(202 otherwise: it goes on, see /providers).",
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
        409: "Already refreshing (anywhere on this database)",
        503: "The price store is not answering (Retry-After)",
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
    if results is None:
        return {"status": "started", "providers": names, "progress": "/providers"}, 202
    return {
        "status": "done",
        "providers": names,
        "results": [result_document(r) for r in results],
    }, 200
