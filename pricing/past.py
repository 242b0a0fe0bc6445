"""Bundled price history: what the main accelerators cost before this store's first run.

A store's own history starts the day the service is installed, but what a price was in 2023
or before a price cut is public record: a provider's announcements, weekly-committed exports
of its price list, dated price pages. ``pricing/data/history.csv`` keeps those, one row per
offer and date, in the snapshot's columns; ``price_as_of`` is the day the price is known to
have held, and ``source`` says where.

A row holds from its day until the next row of the same offer (the same price recorded at
both ends held between them), and otherwise never more than ``PAST_PRICE_HOLDS`` after it: a
price nobody recorded again is not assumed to last. Where the
store has runs, the store answers; a past price stops where the store's first run began.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from importlib import resources

from pricing.adapters.tabular import parse_offers_csv
from pricing.offer import Offer, PriceLine, PriceSpan, StoredOffer, day_prices

# The longest a recorded price is taken to hold with no later record of the same offer.
PAST_PRICE_HOLDS = timedelta(days=365)
# A past price came from no run of this store.
NO_RUN = 0


def history_text() -> str:
    return (resources.files("pricing") / "data" / "history.csv").read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class PastPrice:
    offer: Offer
    start: datetime  # midnight UTC of the day it is recorded
    until: datetime  # the next record of the same offer, or start + PAST_PRICE_HOLDS


class PastPrices:
    """The recorded prices, each with the span it held, ordered offer by offer."""

    def __init__(self, offers: Iterable[Offer]) -> None:
        by_offer: dict[tuple[object, ...], list[Offer]] = defaultdict(list)
        for offer in offers:
            by_offer[offer.identity].append(offer)
        self.prices: list[PastPrice] = []
        for _, records in sorted(by_offer.items(), key=lambda item: str(item[0])):
            records.sort(key=lambda offer: offer.price_as_of)
            starts = [_midnight(offer.price_as_of) for offer in records]
            for i, offer in enumerate(records):
                until = starts[i] + PAST_PRICE_HOLDS
                if i + 1 < len(records):
                    following = records[i + 1]
                    # the same price at both ends held between them, however far apart
                    if following.usd_per_hour == offer.usd_per_hour:
                        until = starts[i + 1]
                    else:
                        until = min(until, starts[i + 1])
                self.prices.append(PastPrice(offer, starts[i], until))

    def __len__(self) -> int:
        return len(self.prices)

    def first_day(self) -> date | None:
        first = min((past.start for past in self.prices), default=None)
        return None if first is None else first.date()

    def held_at(self, moment: datetime, accelerator: str | None = None) -> list[StoredOffer]:
        """The prices that held at ``moment``, as a catalog of that moment lists them."""
        return [
            StoredOffer(past.offer, NO_RUN, past.start)
            for past in self._chosen(accelerator)
            if past.start <= moment < past.until
        ]

    def spans(
        self,
        since: datetime,
        ends_by: datetime,
        accelerator: str | None = None,
        provider: str | None = None,
        region_prefix: str | None = None,
        pricing: str | None = None,
    ) -> list[PriceSpan]:
        """Every recorded price that held after ``since``, its span cut at ``ends_by`` (where
        the store's own history, or now, takes over)."""
        found = []
        for past in self._chosen(accelerator):
            offer = past.offer
            if provider and offer.provider != provider:
                continue
            if region_prefix and not offer.region.startswith(region_prefix):
                continue
            if pricing and offer.pricing != pricing:
                continue
            until = min(past.until, ends_by)
            if until > since and past.start < until:
                found.append(PriceSpan(offer, NO_RUN, past.start, until))
        return found

    def series(self, accelerator: str, since: date, ends_by: datetime) -> list[PriceLine]:
        """Each provider and tier's low and median price per accelerator-hour on every day one
        of their recorded prices began or ended, until ``ends_by``, and on ``since`` itself
        where prices held then: a line starts at the level it had, not at its next change."""
        chosen = [p for p in self._chosen(accelerator) if p.start < ends_by]
        by_line: dict[tuple[str, str], list[PastPrice]] = defaultdict(list)
        for past in chosen:
            by_line[past.offer.provider, past.offer.pricing].append(past)
        lines = []
        for (provider, pricing), prices in sorted(by_line.items()):
            line = PriceLine(provider, pricing)
            moments = {p.start for p in prices} | {p.until for p in prices if p.until < ends_by}
            moments.add(_midnight(since.isoformat()))
            for moment in sorted(moments):
                held = [
                    p.offer.usd_per_accelerator_hour for p in prices if p.start <= moment < p.until
                ]
                if held and moment.date() >= since:
                    line.add(moment.date(), *day_prices(held))
            if line.days:
                lines.append(line)
        return lines

    def _chosen(self, accelerator: str | None) -> Iterator[PastPrice]:
        return (p for p in self.prices if accelerator is None or p.offer.accelerator == accelerator)


def load_past_prices(resolve_accelerator: Callable[[str], str | None]) -> PastPrices:
    """The bundled history; a row not dated to the day is refused, naming its line."""
    offers = parse_offers_csv(
        history_text(),
        resolve_accelerator,
        defaults={},
        rules=[_dated_to_the_day],
        identity=lambda offer: (*offer.identity, offer.price_as_of),
    )
    return PastPrices(offers)


def _dated_to_the_day(values: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    text = values.get("price_as_of", "")
    try:
        date.fromisoformat(text)
    except ValueError:
        yield "price_as_of", f"{text!r} is not a day (YYYY-MM-DD): a past price needs its date"


def _midnight(day: str) -> datetime:
    return datetime.combine(date.fromisoformat(day), datetime.min.time(), UTC)
