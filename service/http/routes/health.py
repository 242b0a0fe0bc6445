"""GET /health (liveness, from memory) and GET /ready (every table the answers read
answers), and what every answer does while the store is away: in-memory answers are
marked, the rest are 503. Clients are told that the store is away, never why: the driver's
message, which names the database server, its port and the role, goes to the log.

Liveness never touches the database: a load balancer that restarted workers because the
database is down would only take away the answers the in-memory catalog can still give.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from apiflask import APIBlueprint
from flask import Response, current_app, request
from flask.blueprints import BlueprintSetupState
from pydantic import BaseModel, ConfigDict, Field

from pricing.errors import StoreError
from service.catalog import describe
from service.http import EXTENSION, current_runtime
from service.http.problems import Problem
from service.http.schemas import Health
from service.http.throttle import LineThrottle, held_back

bp = APIBlueprint("health", __name__)
log = logging.getLogger(__name__)

RETRY_AFTER_S = 5  # what a 503 tells clients to wait: about one catalog check and a reconnect
MARKER = "served_without_database"  # top-level member, present only while degraded
STORE_AWAY = "the price store is not answering"  # what clients are told of any store failure
# Answers computed from the in-memory catalog and measurements: served, and marked.
FROM_MEMORY = frozenset({"/breakeven", "/rank", "/offers", "/gpus", "/gpus/<gpu_id>"})


class Ready(BaseModel):
    model_config = ConfigDict(extra="allow")
    status: str = Field(description="ready: the store answered.")
    catalog_version: int = Field(description="The store's current catalog version.")


# One WARNING line a minute per worker while the store is away, the rest at DEBUG: every
# request of an outage logged its line (786 KB in 16 s, with its traceback before).
_OUTAGE_LINES = LineThrottle()


def database_unavailable(error: BaseException) -> Problem:
    """The 503 a client gets; the cause goes to the log, one WARNING line a minute."""
    held = _OUTAGE_LINES.due("store")
    if held is None:
        log.debug("store unavailable on %s: %s", request.path, describe(error))
    else:
        said = held_back(held, "503s")
        log.warning("store unavailable on %s: %s%s", request.path, describe(error), said)
    return Problem(
        503,
        "database-unavailable",
        f"{STORE_AWAY}; retry later",
        headers={"Retry-After": str(RETRY_AFTER_S)},
    )


@bp.record_once
def _warm(state: BlueprintSetupState) -> None:
    # Load the catalog as the worker starts, so /health reports it from the first request
    # on; a store that is down now is read again on the first answer that needs it.
    try:
        state.app.extensions[EXTENSION].catalog.table()
    except StoreError as error:
        log.warning("catalog not loaded at start: %s", describe(error))


@bp.get("/health")
@bp.output(Health)
@bp.doc(summary="Liveness and the catalog version this worker serves", tags=["Operations"])
def get_health() -> dict[str, Any]:
    catalog = current_runtime().catalog
    table = catalog.loaded()
    return {
        "status": "ok",
        "catalog_version": catalog.version,
        "offers": 0 if table is None else len(table),
    }


@bp.get("/ready")
@bp.output(Ready)
@bp.doc(
    summary="Readiness: 200 when every table of the price store answers, 503 otherwise",
    tags=["Operations"],
    responses={503: "The price store is not answering"},
)
def get_ready() -> dict[str, Any]:
    store = current_runtime().store
    try:
        store.check_readable()  # every table an answer reads, not only the runs
        version = store.catalog_version()
    except StoreError as error:
        raise database_unavailable(error) from None
    return {"status": "ready", "catalog_version": version}


@bp.app_errorhandler(StoreError)
def _store_failed(error: StoreError) -> Response:
    return current_app.handle_user_exception(database_unavailable(error))  # type: ignore[return-value]


@bp.after_app_request
def _mark_if_degraded(response: Response) -> Response:
    rule = request.url_rule.rule if request.url_rule else None
    if rule not in FROM_MEMORY or response.status_code != 200:
        return response
    degraded = current_runtime().degraded()
    if degraded is None or response.mimetype != "application/json":
        return response
    document = orjson.loads(response.get_data())
    if isinstance(document, dict):
        # since when, but not why: the reason (the driver's message) is for the log
        document[MARKER] = {**degraded.document(), "reason": STORE_AWAY}
        response.set_data(orjson.dumps(document))
    return response
