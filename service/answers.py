"""The JSON documents the REST API serves and the CLI prints: one builder for both."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import asdict, fields, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from hardware import Accelerator, Hardware, UnknownAccelerator, Workload
from pricing.measurements import Measurement
from pricing.offer import StoredOffer, price_date
from pricing.store import ProviderStatus, Run
from service.breakeven import (
    Assumptions,
    NoMatchingOffers,
    Quote,
    QuoteError,
    QuoteRequest,
    quote,
)
from service.problems import Problem
from service.schemas import BreakevenQuery
from service.services import Services
from service.settings import Settings

# Query parameter -> engine assumption field, so the answer echoes what the user can set.
_ASSUMPTION_PARAMS = {
    "electricity": "electricity_usd_per_kwh",
    "pue": "pue",
    "load": "load",
    "host_cost": "host_cost_usd",
    "host_watts": "host_watts",
    "utilization": "utilization",
    "resale": "resale",
    "depreciation": "depreciation",
    "spot_overhead": "spot_overhead",
}


def resolve_gpu(hardware: Hardware, name: str, parameter: str = "gpu") -> Accelerator:
    """Any alias to its accelerator, or a 404 problem listing the closest ids."""
    try:
        return hardware.registry.resolve(name)
    except UnknownAccelerator as exc:
        raise Problem(
            404,
            "unknown-accelerator",
            str(exc),
            errors=[{"parameter": parameter, "reason": f"unknown accelerator {name!r}"}],
            suggestions=exc.suggestions,
        ) from exc


def default_assumptions(settings: Settings) -> Assumptions:
    return Assumptions(**{field: getattr(settings, field) for field in _ASSUMPTION_PARAMS.values()})


def assumptions_for(query: Any, settings: Settings) -> Assumptions:
    """The deployment's defaults with whatever cost parameters a query sets on top; /rank
    takes the same parameters as /breakeven."""
    overrides = {
        field: getattr(query, param)
        for param, field in _ASSUMPTION_PARAMS.items()
        if getattr(query, param) is not None
    }
    return replace(default_assumptions(settings), **overrides)


def quote_request(query: BreakevenQuery, services: Services) -> QuoteRequest:
    gpu = resolve_gpu(services.hardware, query.gpu)
    providers = None
    if query.providers:
        providers = frozenset(p.strip().lower() for p in query.providers.split(",") if p.strip())
    workload = Workload(query.workload)
    measured = None
    if query.throughput != "published":
        measured = services.measured.get(gpu.id, str(workload))
        if measured is None and query.throughput == "measured":
            raise Problem(
                422,
                "no-measurement",
                f"no calibrated measurement of {gpu.id} for {workload}: run "
                f"`breakeven measure --card {gpu.id}` on it, or ask throughput=published",
                errors=[{"parameter": "throughput", "reason": "no calibrated measurement"}],
            )
    return QuoteRequest(
        reference=gpu.id,
        hours=query.hours,
        workload=workload,
        gpus=query.gpus,
        memory_gb=query.memory,
        price_usd=query.price,
        watts=query.watts,
        providers=providers,
        pricing=query.pricing,
        region=query.region,
        top=query.top,
        assumptions=assumptions_for(query, services.settings),
        reference_speed=measured.relative if measured is not None else None,
    )


def breakeven_document(query: BreakevenQuery, services: Services) -> dict[str, Any]:
    request = quote_request(query, services)
    try:
        result = quote(services.catalog.table(), services.hardware, request)
    except QuoteError as exc:
        raise Problem(
            422,
            "no-matching-offers" if isinstance(exc, NoMatchingOffers) else "cannot-quote",
            str(exc),
            errors=[{"parameter": exc.parameter, "reason": str(exc)}],
        ) from exc
    document = _quote_document(result, services.settings)
    document["throughput"] = _reference_throughput(services, request)
    return document


def _reference_throughput(services: Services, request: QuoteRequest) -> dict[str, Any]:
    """Which speed of the bought card the answer used, and where it came from."""
    if request.reference_speed is not None:
        m = services.measured.get(request.reference, str(request.workload))
        assert m is not None
        source = (
            f"measured {m.measured_at:%Y-%m-%d} on {m.device_name} ({m.host}, {m.software}); "
            f"{m.calibration}"
        )
        return {"relative": m.relative, "method": "measured-locally", "source": source}
    published = services.hardware.speed(request.reference, request.workload)
    return {"relative": published.relative, "method": published.method, "source": published.source}


def _quote_document(result: Quote, settings: Settings) -> dict[str, Any]:
    request = result.request
    cheapest = result.rent[0].stored
    assumptions = {
        "gpus": request.gpus,
        "memory": result.memory_gb,
        "providers": sorted(request.providers) if request.providers else "all",
        "pricing": request.pricing,
        "region": request.region or "all",
        "top": request.top,
        "price": result.buy.purchase_usd / request.gpus,
        "watts": result.buy.watts,
    }
    assumptions.update(
        {param: getattr(request.assumptions, field) for param, field in _ASSUMPTION_PARAMS.items()}
    )
    buy = _fields(result.buy)
    buy.pop("watts")
    buy["model"] = _fields(result.buy_model)
    breakeven = None
    if result.breakeven_hours is not None and result.breakeven_days is not None:
        breakeven = {"hours": result.breakeven_hours, "days": result.breakeven_days}
    return {
        "gpu": request.reference,
        "hours": request.hours,
        "workload": str(request.workload),
        "assumptions": assumptions,
        "buy": buy,
        "rent": [
            {
                **_offer_fields(option.stored),
                "hours": option.hours,
                "total_usd": option.total_usd,
                "usd_per_reference_hour": option.total_usd / request.hours,
                "breakeven_hours": option.breakeven_hours,
                "throughput_estimated": option.throughput_estimated,
            }
            for option in result.rent
        ],
        "candidates": result.candidates,
        "verdict": result.verdict,
        "savings_usd": result.savings_usd,
        "breakeven": breakeven,
        "prices": {
            "as_of": cheapest.offer.price_as_of,
            "fetched_at": _iso(cheapest.fetched_at),
            **freshness([r.stored for r in result.rent], settings.stale_after_hours),
        },
    }


def _fields(value: Any) -> dict[str, Any]:
    """A flat dataclass as a dict, without asdict's deep copy."""
    return {f.name: getattr(value, f.name) for f in fields(value)}


def price_age(stored: StoredOffer, now: datetime) -> float | None:
    """Seconds since the price was true: fetch time, or the price's own date if older.

    An undated price has no age (None) and counts as stale: an answer must not look
    fresher than its data.
    """
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


def freshness(
    used: Iterable[StoredOffer], stale_after_hours: float, now: datetime | None = None
) -> dict[str, Any]:
    """Age of the prices an answer used, per provider: the oldest price of each counts."""
    now = now or datetime.now(UTC)
    limit = stale_after_hours * 3600
    providers: dict[str, dict[str, Any]] = {}
    for stored in used:
        age = price_age(stored, now)
        entry = providers.setdefault(stored.offer.provider, {"age_seconds": 0.0})
        if entry["age_seconds"] is not None:
            entry["age_seconds"] = None if age is None else max(entry["age_seconds"], age)
    for entry in providers.values():
        age = entry["age_seconds"]
        entry["stale"] = age is None or age > limit
        entry["age_seconds"] = None if age is None else round(age)
    ages = [e["age_seconds"] for e in providers.values()]
    return {
        "age_seconds": None if None in ages else max(ages, default=0),
        "stale": any(e["stale"] for e in providers.values()),
        "providers": providers,
    }


def _offer_fields(stored: StoredOffer) -> dict[str, Any]:
    o = stored.offer
    return {
        "provider": o.provider,
        "product": o.product,
        "region": o.region,
        "accelerator": o.accelerator,
        "count": o.count,
        "pricing": str(o.pricing),
        "usd_per_hour": o.usd_per_hour,
        "price_as_of": o.price_as_of,
        "source": o.source,
        "host_included": o.host_included,
        "confidence": o.confidence,
        "notes": o.notes,
    }


def offer_document(stored: StoredOffer) -> dict[str, Any]:
    o = stored.offer
    return {
        **_offer_fields(stored),
        "service": o.service,
        "zone": o.zone,
        "memory_gb": o.memory_gb,
        "usd_per_accelerator_hour": o.usd_per_accelerator_hour,
        "estimated": o.estimated,
        "suspect": o.suspect,
        "fetched_at": _iso(stored.fetched_at),
        "run_id": stored.run_id,
    }


def gpu_document(
    hardware: Hardware, acc: Accelerator, measured: Iterable[Measurement] = ()
) -> dict[str, Any]:
    card = hardware.cards.get(acc.id)
    buy = None
    if card is not None:
        buy = {k: v for k, v in asdict(card).items() if k != "accelerator"}
    throughput = {}
    for k in Workload:
        speed = hardware.throughput.get((acc.id, k))
        if speed is not None:
            throughput[str(k)] = {
                "relative": speed.relative,
                "method": speed.method,
                "source": speed.source,
            }
    return {
        "id": acc.id,
        "name": acc.name,
        "kind": acc.kind,
        "memory_gb": acc.memory_gb,
        "board_power_w": acc.board_power_w,
        "fp16_tensor_tflops": acc.fp16_tensor_tflops,
        "mem_bw_gbps": acc.mem_bw_gbps,
        "interconnect": acc.interconnect,
        "spec_source": acc.spec_source,
        "aliases": list(acc.aliases),
        "buy": buy,
        "throughput": throughput,
        "measured": {
            m.workload: {
                "relative": m.relative,
                "samples_per_second": m.samples_per_second,
                "spread": m.spread,
                "size": m.size,
                "device_name": m.device_name,
                "host": m.host,
                "software": m.software,
                "measured_at": _iso(m.measured_at),
                "calibration": m.calibration,
            }
            for m in measured
            if m.accelerator == acc.id
        },
    }


def provider_document(
    status: ProviderStatus, stale_after_hours: float, now: datetime | None = None
) -> dict[str, Any]:
    now = now or datetime.now(UTC)
    age = (now - status.current.finished_at).total_seconds() if status.current else None
    return {
        "name": status.adapter,
        "status": status.last_attempt.status,
        "current_run": _run_document(status.current, now) if status.current else None,
        "age_seconds": None if age is None else round(age, 1),
        "stale": age is None or age > stale_after_hours * 3600,
        "last_attempt_at": _iso(status.last_attempt.finished_at),
        "last_error": status.last_error,
    }


def _run_document(run: Run, now: datetime) -> dict[str, Any]:
    return {
        "id": run.id,
        "finished_at": _iso(run.finished_at),
        "row_count": run.row_count,
        "source_version": run.source_version,
        "age_seconds": round((now - run.finished_at).total_seconds(), 1),
    }


def history_point(stored: StoredOffer) -> dict[str, Any]:
    o = stored.offer
    return {
        "at": _iso(stored.fetched_at),
        "provider": o.provider,
        "product": o.product,
        "region": o.region,
        "zone": o.zone,
        "accelerator": o.accelerator,
        "count": o.count,
        "pricing": str(o.pricing),
        "usd_per_hour": o.usd_per_hour,
        "usd_per_accelerator_hour": o.usd_per_accelerator_hour,
        "suspect": o.suspect,
        "run_id": stored.run_id,
    }


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
