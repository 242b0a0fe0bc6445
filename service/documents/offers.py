"""Offers as documents: one builder for every answer that lists offers.

``/breakeven``'s rentals, ``/rank``'s rentals, ``/offers`` and ``/offers/history`` each show a
different slice of the same offer record: each slice is a tuple of field names, and every
field is written once, in :data:`OFFER_FIELDS`, with its JSON type: the OpenAPI models of
these answers are made from the same slices.
"""

from __future__ import annotations

import bisect
import csv
import functools
import io
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from operator import attrgetter
from typing import Annotated, Any
from urllib.parse import urlencode

from pydantic import WithJsonSchema

from hardware import Registry, speed_key
from pricing.offer import PROVIDER_NAMES, PriceSpan, StoredOffer
from pricing.past import NO_RUN
from pricing.store import HistoryCursor, HistoryPage
from pricing.tiers import tier_of
from service.documents.compact import compact
from service.documents.errors import InvalidQuestion
from service.documents.freshness import freshness, iso
from service.documents.gpus import resolve_gpu
from service.documents.moment import catalog_at
from service.documents.money import asked_rate, fx_document, with_currency
from service.documents.queries import HistoryQuery, OffersQuery, market_tiers
from service.engine.costs import Rentals
from service.engine.offer_table import OfferTable
from service.runtime import Runtime

# A JSON number passed through as it is: a float field would write an int 3 as 3.0.
Number = Annotated[int | float, WithJsonSchema({"type": "number"})]


@dataclass(frozen=True)
class OfferField:
    kind: Any  # its JSON type, for the OpenAPI models (service/http/schemas.py)
    path: str  # where it is on a StoredOffer: "offer.region", "run_id"
    convert: Callable[[Any], Any] | None = None


OFFER_FIELDS: dict[str, OfferField] = {
    "at": OfferField(str, "fetched_at", iso),  # a history point: when the price was first read
    # ... and when a run of its source first read another price or no offer (null: it holds)
    "until": OfferField(str | None, "until", lambda moment: moment and iso(moment)),
    "provider": OfferField(str, "offer.provider"),
    "product": OfferField(str, "offer.product"),
    "region": OfferField(str, "offer.region"),
    "zone": OfferField(str, "offer.zone"),
    "accelerator": OfferField(str, "offer.accelerator"),
    "count": OfferField(int, "offer.count"),
    "pricing": OfferField(str, "offer.pricing", str),
    "usd_per_hour": OfferField(float, "offer.usd_per_hour"),
    "usd_per_accelerator_hour": OfferField(float, "offer.usd_per_accelerator_hour"),
    "price_as_of": OfferField(str, "offer.price_as_of"),
    "source": OfferField(str, "offer.source"),
    "host_included": OfferField(bool, "offer.host_included"),
    "confidence": OfferField(str, "offer.confidence"),
    "notes": OfferField(str, "offer.notes"),
    "service": OfferField(str, "offer.service"),
    "memory_gb": OfferField(Number | None, "offer.memory_gb"),
    "estimated": OfferField(bool, "offer.estimated"),
    "suspect": OfferField(bool, "offer.suspect"),
    "fetched_at": OfferField(str, "fetched_at", iso),
    "run_id": OfferField(int, "run_id"),
    "market": OfferField(str, "offer.market"),
    "reliability": OfferField(Number | None, "offer.reliability"),
    "interruption": OfferField(str, "offer.interruption"),
    # pricing/tiers.py: on_demand, a committed term (reserved_1m ... reserved_5y), spot,
    # interruptible, compute_units
    "tier": OfferField(str | None, "offer", tier_of),
    "purchase_option": OfferField(str, "offer.purchase_option"),
    "upfront_share": OfferField(Number | None, "offer.upfront_share"),
    # a price given in another currency, as given, and the ECB rate and day that converted it
    "currency": OfferField(str, "offer.currency"),
    "price_per_hour": OfferField(Number | None, "offer.price_per_hour"),
    "fx_per_usd": OfferField(Number | None, "offer.fx_per_usd"),
    "fx_day": OfferField(str, "offer.fx_day"),
}
# Each answer's slice, in the order of its rows (and CSV columns).
_PRICED = ("provider", "product", "region", "accelerator", "count", "pricing", "usd_per_hour")
_DATED = (*_PRICED, "tier", "market", "price_as_of", "source")
RANKED = (*_DATED, "confidence")  # /rank's rentals: a summary names an unsound headline price
RENTED = (*_DATED, "host_included", "confidence", "notes")  # /breakeven's rentals
CATALOG = (  # /offers: everything a row of the catalog holds
    *RENTED,
    *("service", "zone", "memory_gb", "usd_per_accelerator_hour", "estimated", "suspect"),
    *("reliability", "interruption", "purchase_option", "upfront_share", "fetched_at", "run_id"),
    *("currency", "price_per_hour", "fx_per_usd", "fx_day"),
)
HISTORY = (  # /offers/history: a price and the span it held
    *("at", "until", "provider", "product", "region", "zone", "accelerator", "count", "pricing"),
    *("usd_per_hour", "usd_per_accelerator_hour", "suspect", "run_id"),
    "purchase_option",  # a committed term's, no upfront or all upfront: two prices, two series
)

DEFAULT_HISTORY = timedelta(days=30)  # the window /offers/history shows without `since`


def offer_name(line: dict[str, Any], registry: Registry) -> str:
    """An offer as its provider sells it: count x card, provider, where, and for a
    marketplace whose host it is ("2 x RTX 5090 on a Vast.ai verified host in CN"), with
    the instances a rental takes of it ("16 instances of 4 x ..."); the provider's own id
    for it stays in ``product``."""
    known = line["accelerator"] in registry
    card = registry[line["accelerator"]].name if known else line["accelerator"]
    provider = PROVIDER_NAMES.get(line["provider"], line["provider"])
    region = line["region"]
    where = (
        "" if region in ("", "global") else f" in {region.upper() if len(region) == 2 else region}"
    )
    cluster = "" if line.get("instances", 1) == 1 else f"{line['instances']} instances of "
    if line["market"] == "cloud":
        return f"{cluster}{line['count']} x {card} on {provider}{where}"
    return f"{cluster}{line['count']} x {card} on a {provider} {line['market']} host{where}"


def named(line: dict[str, Any], registry: Registry) -> dict[str, Any]:
    """``line`` (a listed offer) with its :func:`offer_name` first."""
    return {"name": offer_name(line, registry), **line}


def offer_fields(stored: StoredOffer | PriceSpan, names: tuple[str, ...]) -> dict[str, Any]:
    read, conversions = _reader(names)
    values = read(stored)
    if conversions:
        values = list(values)
        for i, convert in conversions:
            values[i] = convert(values[i])
    return dict(zip(names, values, strict=True))


@functools.cache  # one per slice: every answer lists offers, so this is on the hot path
def _reader(
    names: tuple[str, ...],
) -> tuple[Callable[[StoredOffer], tuple[Any, ...]], list[tuple[int, Callable[[Any], Any]]]]:
    """All of a slice's members read in one C-level call, then the few converted."""
    fields = [OFFER_FIELDS[name] for name in names]
    read = attrgetter(*(f.path for f in fields))
    if len(fields) == 1:  # attrgetter of one path returns the value, not a 1-tuple
        single = read
        read = lambda stored: (single(stored),)  # noqa: E731
    conversions = [(i, f.convert) for i, f in enumerate(fields) if f.convert is not None]
    return read, conversions


def offers_document(query: OffersQuery, runtime: Runtime) -> dict[str, Any]:
    """The current catalog, filtered; rows only (``format=csv``) or with their freshness."""
    accelerator = None
    if query.accelerator:
        accelerator = resolve_gpu(runtime.hardware, query.accelerator, "accelerator").id
    table = catalog_at(runtime, query.at, accelerator)
    picked = table.select(
        accelerator=accelerator,
        provider=query.provider.lower() if query.provider else None,
        pricing=query.pricing,
        region_prefix=query.region,
        markets=market_tiers(query.market),
    )
    total = len(picked)
    per_reference = _reference_rates(query, runtime, table, picked)
    if query.sort is not None:
        picked = _sorted(query.sort, table, picked, per_reference)
    picked = picked[query.offset : query.offset + query.limit]
    chosen = [table.rows[i] for i in picked]
    rows = [
        {**offer_fields(stored, CATALOG), "superseded_by": superseded_note(table, i)}
        for stored, i in zip(chosen, picked, strict=True)
    ]
    if per_reference is not None:
        for row, i in zip(rows, picked, strict=True):
            row["usd_per_reference_hour"] = per_reference[i]
    prices = freshness(chosen, runtime.settings.stale_after_hours)
    rate = asked_rate(runtime.fx, query.currency)
    document = {
        "count": len(rows),
        "offers": with_currency(rows, rate),
        "prices": prices,
        "total": total,
        "next": next_page("/offers", _pinned(query, table), query.offset + query.limit < total),
        "fx": fx_document(query, rate, runtime.settings.fx_stale_after_days),
    }
    # a CSV row keeps its own source: the text a spreadsheet shows
    return compact(document) if query.detail == "compact" and query.format == "json" else document


def superseded_note(table: OfferTable, row: int) -> str | None:
    """The dated row that outranks an undated one (pricing/dated.py), as a person reads it;
    None: the row is not superseded."""
    dated = int(table.superseded_by[row])
    if dated < 0:
        return None
    offer, mine = table.rows[dated].offer, table.rows[row].offer
    return (
        f"{offer.provider} {offer.product} ({offer.region}, {offer.pricing}): "
        f"{offer.usd_per_accelerator_hour:.4g} USD per accelerator-hour as of "
        f"{offer.price_as_of}, against this row's undated {mine.usd_per_accelerator_hour:.4g}: "
        "the dated price is the one answers use"
    )


def _reference_rates(
    query: OffersQuery, runtime: Runtime, table: OfferTable, picked: Any
) -> dict[int, float] | None:
    """With `workload` and `gpu`: each picked row's price of an hour of `gpu`'s work."""
    if query.workload is None and query.gpu is None:
        return None
    if query.workload is None or query.gpu is None:
        raise InvalidQuestion("workload", "workload and gpu go together")
    reference = resolve_gpu(runtime.hardware, query.gpu, "gpu").id
    s_ref = runtime.hardware.speed(reference, query.workload).relative
    rentals = Rentals.of(table, picked, s_ref, speed_key(query.workload, None))
    rates = rentals.rate(runtime.assumptions.spot_overhead).tolist()
    return dict(zip((int(i) for i in picked), rates, strict=True))


SORTABLE = (*CATALOG, "usd_per_reference_hour")


def _sorted(
    sort: str, table: OfferTable, picked: Any, per_reference: dict[int, float] | None
) -> list[int]:
    """The picked rows in the order of one of their fields; rows without a value last,
    whichever the direction."""
    name, descending = sort.lstrip("-"), sort.startswith("-")
    if name not in SORTABLE:
        raise InvalidQuestion("sort", f"{name!r} is not a field of the rows: {', '.join(SORTABLE)}")
    if name == "usd_per_reference_hour":
        if per_reference is None:
            raise InvalidQuestion("sort", "usd_per_reference_hour needs `workload` and `gpu`")
        value = per_reference.__getitem__
    else:
        value = lambda i: offer_fields(table.rows[i], (name,))[name]  # noqa: E731
    keyed = [(value(int(i)), int(i)) for i in picked]
    present = sorted((k for k in keyed if k[0] is not None), key=lambda k: k[0], reverse=descending)
    return [i for _, i in present] + [i for v, i in keyed if v is None]


def history_document(query: HistoryQuery, runtime: Runtime) -> dict[str, Any]:
    """Every price held since ``since``, once with the span it held: offer by offer, each
    offer's prices oldest first. A page costs what it holds (pricing/store/history.py): on a large
    store it may hold fewer points than ``limit`` and still have a ``next``."""
    accelerator = None
    if query.accelerator:
        accelerator = resolve_gpu(runtime.hardware, query.accelerator, "accelerator").id
    since = query.since or datetime.now(UTC) - DEFAULT_HISTORY
    if since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    after = None
    if query.after is not None:
        listing, run = query.after.split(":")
        after = (int(listing), int(run))
    page = _history_page(query, runtime, since, accelerator, after)
    points = [offer_fields(stored, HISTORY) for stored in page.spans]
    following = None
    if page.resume is not None:
        # The next page keeps this page's window (`since` as resolved now, not "30 days ago"
        # later) and goes on from where this one stopped, by key: rows landing meanwhile
        # never shift it, and it costs what it holds however deep it is.
        listing, run = page.resume
        following = query.model_copy(
            update={"since": since, "after": f"{listing}:{run}", "offset": page.skip}
        )
    return {
        "count": len(points),
        "since": since.isoformat(),
        "points": points,
        "next": _link("/offers/history", following),
    }


def _history_page(
    query: HistoryQuery,
    runtime: Runtime,
    since: datetime,
    accelerator: str | None,
    after: HistoryCursor | None,
) -> HistoryPage:
    """The recorded prices from before the store's first run (pricing/past.py) come first,
    keyed by negative listing numbers so that one cursor walks both; then the store's."""
    filters = {
        "accelerator": accelerator,
        "provider": query.provider.lower() if query.provider else None,
        "region_prefix": query.region.lower() if query.region else None,
        "pricing": query.pricing,
    }
    offset, limit = query.offset, query.limit
    spans: list[PriceSpan] = []
    if after is None or after[0] < 0:
        first_run = runtime.store.first_run_finished() or datetime.now(UTC)
        recorded = runtime.catalog.past.spans(since, first_run, **filters)
        keys = [(i - len(recorded), NO_RUN) for i in range(len(recorded))]
        start = 0 if after is None else bisect.bisect_right(keys, after)
        skipped = min(offset, len(recorded) - start)
        start, offset = start + skipped, offset - skipped
        spans = recorded[start : start + limit]
        if len(spans) == limit and spans:  # full: the next page goes on after its last
            return HistoryPage(spans, keys[start + limit - 1], 0)
        after = None
    page = runtime.store.history(
        since, **filters, limit=limit - len(spans), offset=offset, after=after
    )
    return HistoryPage(spans + page.spans, page.resume, page.skip)


def _pinned(query: OffersQuery, table: OfferTable) -> OffersQuery:
    """The query asked of this very catalog: its `next` pages read the runs this page read
    (`at=` the moment its latest run finished), so a run landing mid-walk never mixes two
    catalogs in one walk."""
    if query.at is not None or table.as_of is None:
        return query
    return query.model_copy(update={"at": table.as_of})


def next_page(path: str, query: OffersQuery, more: bool) -> str | None:
    """The link to the page after ``query``'s (None on the last page): every parameter the
    query set is kept, so the next page asks the same question."""
    if not more:
        return None
    return _link(path, query.model_copy(update={"offset": query.offset + query.limit}))


def _link(path: str, query: OffersQuery | HistoryQuery | None) -> str | None:
    if query is None:
        return None
    given = query.model_dump(exclude_defaults=True, mode="json")
    return f"{path}?{urlencode(given)}"


# Text a spreadsheet would read as a formula (OWASP CSV injection): `=`, `+`, `-`, `@`, and
# tab or carriage return, which some spreadsheets strip before looking at the rest.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def to_csv(rows: list[dict[str, Any]]) -> str:
    """Rows as CSV, header first; no rows, no text.

    Every CSV the product writes (server and CLI) goes through here, so a formula-like text
    cell, from an imported offer say, gets OWASP's leading `'` and a spreadsheet shows it as
    text instead of running it. Numbers are written as they are: -1.5 is a value, not a formula.
    """
    out = io.StringIO()
    if rows:
        fields = list(rows[0])
        writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            cells = {key: _inert(value) for key, value in row.items()}
            if any(isinstance(value, str) and "\r" in value for value in cells.values()):
                out.write(_quoting_cr(fields, cells))
            else:
                writer.writerow(cells)
    return out.getvalue()


def _inert(value: Any) -> Any:
    """A text cell a spreadsheet would evaluate, prefixed with `'`; anything else unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _quoting_cr(fields: list[str], cells: dict[str, Any]) -> str:
    """One row whose text holds a carriage return, with that cell quoted. The csv module
    quotes only the line terminator's characters, so with "\n" a bare "\r" went out as is:
    a spreadsheet ends the row there and reads the rest, `=...` perhaps, as a new row."""
    line = io.StringIO()
    csv.DictWriter(line, fieldnames=fields, lineterminator="\r\n").writerow(cells)
    return line.getvalue().removesuffix("\r\n") + "\n"
