"""Every error leaves as an RFC 9457 problem document, never as HTML or a stack trace."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from apiflask import APIFlask, HTTPError
from flask import request
from pydantic import ValidationError
from werkzeug.exceptions import HTTPException, InternalServerError

from service.documents.errors import InvalidQuestion, QuestionError, Unanswerable, UnknownName
from service.http.schemas import SCHEMAS, ProblemDocument, add_models

PROBLEM_JSON = "application/problem+json"
TYPE_PREFIX = "urn:gpu-breakeven:problem:"

EVERYWHERE = "breakeven.problems_everywhere"  # status -> description, for every operation

# The HTTP status of each kind of question the documents cannot answer.
QUESTION_STATUS: dict[type[QuestionError], int] = {
    InvalidQuestion: 400,
    UnknownName: 404,
    Unanswerable: 422,
}

EMPTY_NAME = '""'  # how a detail names the parameter with no name (`?=5`)

log = logging.getLogger(__name__)


class Problem(HTTPError):
    """An error with a stable type slug and, where one parameter is to blame, its name."""

    def __init__(
        self,
        status: int,
        slug: str,
        detail: str,
        errors: list[dict[str, str]] | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(
            status, detail, extra_data={"slug": slug, "errors": errors, **extra}, headers=headers
        )


def from_question(error: QuestionError) -> Problem:
    return Problem(
        QUESTION_STATUS.get(type(error), 400),
        error.slug,
        error.detail,
        errors=error.errors,
        suggestions=error.suggestions if isinstance(error, UnknownName) else None,
    )


def invalid_parameters(error: ValidationError) -> Problem:
    """A 400 naming each parameter a query model refused, as pydantic names it: APIFlask's
    own summary of the same errors names an empty one (`&=5`) `_schema`."""
    reasons: dict[str, list[str]] = {}
    for found in error.errors():
        reasons.setdefault(".".join(str(part) for part in found["loc"]), []).append(found["msg"])
    errors = [{"parameter": name, "reason": "; ".join(why)} for name, why in reasons.items()]
    detail = "; ".join(f"{e['parameter'] or EMPTY_NAME}: {e['reason']}" for e in errors)
    return Problem(400, "invalid-parameters", detail, errors=errors)


def init_app(app: APIFlask) -> None:
    app.config["VALIDATION_ERROR_STATUS_CODE"] = 400
    app.config["VALIDATION_ERROR_DESCRIPTION"] = "Invalid parameters"
    app.error_processor(_problem_from_http_error)
    app.extensions[EVERYWHERE] = {}
    # The spec processor (app.py) runs document_problems over the spec.
    document_everywhere(app, 500, "Unexpected error")  # _unexpected, below

    @app.errorhandler(QuestionError)
    def _question(error: QuestionError) -> Any:
        return _problem_from_http_error(from_question(error))

    @app.errorhandler(Exception)
    def _unexpected(error: Exception) -> Any:
        if isinstance(error, HTTPException):
            return _problem_from_http_error(HTTPError(error.code or 500, error.description))
        log.exception("unhandled error on %s", request.path)
        return _problem_from_http_error(HTTPError(500, InternalServerError.description))


def document_everywhere(app: APIFlask, status: int, description: str) -> None:
    """Document a problem any operation may answer (an app-wide limit, say) on all of them."""
    app.extensions[EVERYWHERE][status] = description


def document_problems(
    spec: dict[str, Any], everywhere: dict[int, str] | None = None
) -> dict[str, Any]:
    """Describe every documented 4xx and 5xx as what it is: a ProblemDocument served as
    application/problem+json (APIFlask documents its own HTTPError as application/json),
    and add the problems every operation may answer."""
    add_models(spec, [ProblemDocument])
    ref = SCHEMAS + ProblemDocument.__name__
    for path_item in spec.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            for status, description in (everywhere or {}).items():
                responses.setdefault(str(status), {"description": description})
            for status, response in responses.items():
                if str(status)[:1] in ("4", "5"):
                    response["content"] = {PROBLEM_JSON: {"schema": {"$ref": ref}}}
    for unused in ("HTTPError", "ValidationError"):  # APIFlask's, now referenced nowhere
        spec["components"]["schemas"].pop(unused, None)
    return spec


def _problem_from_http_error(error: HTTPError) -> tuple[dict[str, Any], int, dict[str, str]]:
    if isinstance(error.__cause__, ValidationError):  # APIFlask's validation of a query
        error = invalid_parameters(error.__cause__)
    extra = dict(error.extra_data or {})
    slug = extra.pop("slug", None)
    errors = extra.pop("errors", None)
    detail = error.message
    body: dict[str, Any] = {
        "type": TYPE_PREFIX + slug if slug else "about:blank",
        "title": _title(error.status_code),
        "status": error.status_code,
        "detail": detail,
        "instance": request.path,
    }
    if errors:
        body["errors"] = errors
    body.update({k: v for k, v in extra.items() if v is not None})
    headers = {**(error.headers or {}), "Content-Type": PROBLEM_JSON}
    return body, error.status_code, headers


def _title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"
