"""Conditional GET: an ETag tied to what an answer is made of, and 304s before any work.

An answer is a function of the question and of the data it is read from: the catalog (a new
version when a run lands), the exchange rates and the measured speeds. The tag names those
and the question, so every worker gives one question on one catalog the same tag, and a
client that sends it back (If-None-Match) gets a 304 before the answer is worked out: all a
polling dashboard costs is the check. The price ages an answer shows count to the answer
clock (service/documents/freshness.py: now, to the minute), whose minute the tag names too:
the tag covers all the body shows. ``Cache-Control: max-age`` lets a client keep the answer,
unasked, until the earlier of the clock's next minute and the next scheduled refresh
(BREAKEVEN_REFRESH_CRON; a run forced by hand may land before it, and is seen at the next
revalidation).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

from flask import Flask, Response, g, request

from pricing.errors import StoreError
from service.documents.freshness import AGE_TICK_SECONDS, answer_clock, pin_answer_clock
from service.http import current_runtime
from service.jobs.scheduler import cron_trigger

# The answers whose data is the catalog, the rates and the measurements (not /providers,
# whose failed runs move no catalog version, nor the operations' own endpoints).
TAGGED = frozenset({"/breakeven", "/rank", "/offers", "/offers/history", "/offers/series"})
TAGGED_PREFIXES = ("/gpus", "/models")
# Bumped with every change to what an answer holds for the same data: a new release's
# answers are not the old ones'. The bundled hardware data is not in the tag (it changes only
# with a release): 2026-12-05, the utilization fit's corrected runs move a job's hours;
# 2026-12-05.2, rentals chosen and listed by present value (the answer's `money` says so).
# 2026-12-06, /breakeven's compact default answer and the answer clock.
ANSWER_FORMAT = "2026-12-06"


def init_app(app: Flask) -> None:
    @app.before_request
    def _not_modified() -> Response | None:
        if request.method not in ("GET", "HEAD") or not _tagged(request.path):
            return None
        tag = question_tag()
        if tag is None:
            return None
        g.etag = tag
        if request.if_none_match.contains_weak(tag):
            response = Response(status=304)
            response.set_etag(tag, weak=True)
            response.headers["Cache-Control"] = cache_control(g.answered_at)
            return response
        return None

    @app.teardown_request
    def _unpin(_error: BaseException | None) -> None:
        pin_answer_clock(None)

    @app.after_request
    def _tag(response: Response) -> Response:
        tag = g.get("etag")
        if tag is not None and response.status_code == 200:
            response.set_etag(tag, weak=True)
            response.headers["Cache-Control"] = cache_control(g.answered_at)
        return response


def cache_control(clock: datetime) -> str:
    """The answer's Cache-Control, as of now (:func:`max_age`)."""
    cron = current_runtime().settings.refresh_cron
    return f"max-age={max_age(clock, datetime.now(UTC), cron)}"


def max_age(clock: datetime, now: datetime, refresh_cron: str) -> int:
    """Whole seconds from ``now`` the answer stays what it is: to the answer clock's next
    minute, or to the next scheduled refresh where that comes first."""
    ends = clock + timedelta(seconds=AGE_TICK_SECONDS)
    refresh = _next_refresh(refresh_cron, now)
    if refresh is not None:
        ends = min(ends, refresh)
    return max(int((ends - now).total_seconds()), 0)


def _next_refresh(refresh_cron: str, now: datetime) -> datetime | None:
    """The scheduled refresh next after ``now``. Worked out from the cron expression once
    per refresh (a cron trigger's search was a tenth of a new answer's time): until that
    moment passes, it is still the next one."""
    known = _NEXT.get(refresh_cron)
    if known is not None and known[0] <= now < known[1]:
        return known[1]
    found = cron_trigger(refresh_cron, 0).get_next_fire_time(None, now)
    if found is not None:
        _NEXT[refresh_cron] = (now, found)
    return found


# per cron expression, (when its next refresh was asked, that refresh)
_NEXT: dict[str, tuple[datetime, datetime]] = {}


def question_tag() -> str | None:
    """The tag of this question on the data now: None when the store cannot say what the
    data is (the answer then says so itself, untagged)."""
    runtime = current_runtime()
    try:
        runtime.catalog.table()  # brings the version up to date, as the answer will
    except StoreError:
        return None
    rates = runtime.fx.current().latest_day
    measured = sorted(
        (key, m.measured_at.isoformat(), m.relative) for key, m in runtime.measured.all().items()
    )
    question = sorted(request.args.items(multi=True))
    g.answered_at = answer_clock()  # the minute the answer's price ages count to
    pin_answer_clock(g.answered_at)
    clock = g.answered_at.timestamp()
    parts = (ANSWER_FORMAT, runtime.catalog.version, rates, measured, clock, request.path, question)
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


def _tagged(path: str) -> bool:
    return path in TAGGED or path.startswith(TAGGED_PREFIXES)
