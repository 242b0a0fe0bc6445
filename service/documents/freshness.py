"""How old the prices behind an answer are: per provider, oldest price first.

An undated price has no age and counts as stale: an answer must not look fresher than its
data. Ages count to the answer clock (:func:`answer_clock`): now, to the whole minute, so an
answer is the same all minute and its ETag, which names the minute, covers everything it
shows (service/http/caching.py).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from pricing.offer import StoredOffer, named_date, price_date

AGE_TICK_SECONDS = 60  # the answer clock's step: ages are exact to the minute
# The answer clock of the request being answered, where its ETag already named a minute: the
# body then counts to that minute, even where it is worked out in the next.
_PINNED: ContextVar[datetime | None] = ContextVar("answer_clock", default=None)


def answer_clock(now: datetime | None = None) -> datetime:
    """The moment answers count ages to: the request's pinned minute, else ``now`` (the
    current time) floored to the minute."""
    pinned = _PINNED.get()
    if pinned is not None and now is None:
        return pinned
    moment = (now or datetime.now(UTC)).timestamp()
    return datetime.fromtimestamp(moment - moment % AGE_TICK_SECONDS, UTC)


def pin_answer_clock(moment: datetime | None) -> None:
    """Count this request's ages to ``moment`` (None: to the current minute again)."""
    _PINNED.set(moment)


def iso(moment: datetime) -> str:
    """UTC, whole seconds, with a Z: the one way documents write a moment."""
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def price_age(stored: StoredOffer, now: datetime) -> float | None:
    """Seconds since the price was true: fetch time, or the price's own date if older."""
    moment = _price_moment(stored.offer.price_as_of, stored.fetched_at)
    return None if moment is None else max(now.timestamp() - moment, 0.0)


@functools.lru_cache(maxsize=8192)  # few distinct (as-of, fetch) pairs per catalog
def _price_moment(price_as_of: str, fetched_at: datetime) -> float | None:
    """When the price was last known true (Unix time); None when undated."""
    published = price_date(price_as_of)
    if published is None:
        return None
    # A dated price was true until the end of its day at least (a live fetch dates itself).
    end_of_day = datetime.combine(published + timedelta(days=1), datetime.min.time(), UTC)
    return min(fetched_at, end_of_day).timestamp()


@dataclass(frozen=True)
class PriceMoments:
    """When each provider's oldest price behind an answer was last known true (Unix time;
    None: one of them is undated), in the order the answer met the providers. An answer's
    price ages follow from these at any moment: a remembered answer works them out afresh
    per request without reading its offers again."""

    oldest: tuple[tuple[str, float | None], ...]

    @classmethod
    def of(cls, used: Iterable[StoredOffer]) -> PriceMoments:
        oldest: dict[str, float | None] = {}
        for stored in used:
            moment = _price_moment(stored.offer.price_as_of, stored.fetched_at)
            provider = stored.offer.provider
            if provider not in oldest:
                oldest[provider] = moment
            elif oldest[provider] is not None:
                oldest[provider] = None if moment is None else min(oldest[provider], moment)
        return cls(tuple(oldest.items()))

    def ages(self, stale_after_hours: float, now: datetime | None = None) -> dict[str, Any]:
        """The prices' ages as of ``now`` (default: the answer clock): per provider, its
        oldest price's."""
        now_s = (now or answer_clock()).timestamp()
        limit = stale_after_hours * 3600
        providers: dict[str, dict[str, Any]] = {}
        for provider, moment in self.oldest:
            age = None if moment is None else max(now_s - moment, 0.0)
            providers[provider] = {
                "age_seconds": None if age is None else round(age),
                "stale": age is None or age > limit,
            }
        ages = [e["age_seconds"] for e in providers.values()]
        return {
            "age_seconds": None if None in ages else max(ages, default=0),
            "stale": any(e["stale"] for e in providers.values()),
            "providers": providers,
        }


def freshness(
    used: Iterable[StoredOffer], stale_after_hours: float, now: datetime | None = None
) -> dict[str, Any]:
    """Age of the prices an answer used, per provider: the oldest price of each counts."""
    return PriceMoments.of(used).ages(stale_after_hours, now)


def price_span(
    served: Iterable[StoredOffer], stale_after_hours: float, now: datetime | None = None
) -> dict[str, Any]:
    """The dates of the prices one source serves: the oldest and newest as-of as written, the
    oldest price's age, and how many have no known age. Stale when any price is, or none is
    served: a source loaded a minute ago with years-old prices is not fresh."""
    served = list(served)
    if not served:
        return {
            "oldest_as_of": None,
            "newest_as_of": None,
            "age_seconds": None,
            "unknown_age": 0,
            "stale": True,
        }
    by_date = sorted(served, key=lambda s: named_date(s.offer.price_as_of) or date.min)
    ages = freshness(served, stale_after_hours, now)
    return {
        "oldest_as_of": by_date[0].offer.price_as_of,
        "newest_as_of": by_date[-1].offer.price_as_of,
        "age_seconds": ages["age_seconds"],
        "unknown_age": sum(price_date(s.offer.price_as_of) is None for s in served),
        "stale": ages["stale"],
    }
