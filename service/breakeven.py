"""The break-even engine (design section 3): pure arithmetic, no Flask, no database.

All work is measured in hours on the reference card the user names. For each rental offer
with accelerator a, count n and hourly price p, on workload class k:

    hours_o = hours * S(ref, k) / (n * eta(a, n, k) * S(a, k))    (x (1 + spot_overhead) if
    cost_o  = hours_o * p                                           the offer is interruptible)

Buying n reference cards costs capex - resale(hours) + energy(hours). The offer table is
columnar (numpy), built once per catalog, so a quote over 100,000 offers is a handful of
vector operations rather than a Python loop.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable
from dataclasses import asdict, dataclass, field
from typing import TypeVar

import numpy as np

from hardware import Hardware, Workload
from pricing.offer import HOURLY, INTERRUPTIBLE, PricingModel, StoredOffer

Key = TypeVar("Key", bound=Hashable)
HOURS_PER_YEAR = 8760.0
BISECTION_STEPS = 100  # halves the bracket to well below a millionth of an hour
SHORTLIST_CACHE = 512  # filter sets remembered per catalog (LRU)


@dataclass(frozen=True)
class Assumptions:
    """Cost assumptions of the buy side; every one is echoed in answers and can be overridden.

    Defaults and why:
    - electricity 0.165 USD/kWh: US average residential price 2024, 16.5 cents/kWh
      (EIA Electric Power Monthly, table 5.3). Set your own tariff.
    - pue 1.0: a desk or home office has no data-centre cooling overhead; use 1.3-1.6 for
      a server room.
    - load 1.0: cards are priced at their full board power while training (an upper bound).
    - host_cost 1500 USD and host_watts 150 W: an assumption, not a measurement: CPU, board,
      RAM, PSU and case of a single-GPU workstation; host_cost=0 if the host exists already.
    - utilization 0.5: the cards train half of all calendar hours; sets depreciation time
      and calendar days.
    - resale 0 (off): no sourced used-market data ships; e.g. resale=0.5 with
      depreciation=0.2 models a card sold at half price, losing 20 % a year.
    - spot_overhead 0.10: lost work, restarts and checkpoints on interruptible offers
      (design section 3).
    """

    electricity_usd_per_kwh: float = 0.165
    pue: float = 1.0
    load: float = 1.0
    host_cost_usd: float = 1500.0
    host_watts: float = 150.0
    utilization: float = 0.5
    resale: float = 0.0
    depreciation: float = 0.2
    spot_overhead: float = 0.10


DEFAULT_ASSUMPTIONS = Assumptions()


class QuoteError(ValueError):
    """A quote that cannot be answered as asked; ``parameter`` names the culprit."""

    def __init__(self, parameter: str, message: str) -> None:
        self.parameter = parameter
        super().__init__(message)


class NoMatchingOffers(QuoteError):
    """No rental passes the filters and the memory gate, so there is nothing to compare."""


@dataclass(frozen=True)
class QuoteRequest:
    reference: str  # canonical id of the card that would be bought
    hours: float  # workload size in hours on one reference card
    workload: Workload = Workload.TRANSFORMER
    gpus: int = 1
    memory_gb: float | None = None  # per accelerator; None = the reference card's memory
    price_usd: float | None = None  # None = the card's sourced purchase price
    watts: float | None = None  # None = the card's board power
    providers: frozenset[str] | None = None
    pricing: str = "any"  # on_demand, spot or any
    region: str | None = None  # prefix: "us" matches us-east-1 and us-central1
    top: int = 10
    assumptions: Assumptions = field(default_factory=Assumptions)
    reference_speed: float | None = None  # measured on the user's own card; None = published


@dataclass(frozen=True)
class BuyCost:
    gpu: str
    gpus: int
    purchase_usd: float
    host_usd: float
    energy_usd: float
    resale_usd: float
    total_usd: float
    hours: float  # busy hours of the local cards
    price_source: str
    watts: float


@dataclass(frozen=True)
class BuyModel:
    """Buying as a function of workload H (reference-card hours), for charts and crossings:
    cost(H) = capex - resale_start * exp(-resale_decay * H) + energy_per_hour * H."""

    capex_usd: float
    energy_usd_per_hour: float
    resale_start_usd: float
    resale_decay_per_hour: float

    def resale(self, hours: float) -> float:
        return self.resale_start_usd * math.exp(-self.resale_decay_per_hour * hours)

    def cost(self, hours: float) -> float:
        return self.capex_usd - self.resale(hours) + self.energy_usd_per_hour * hours


def buy_model(price_usd: float, watts: float, cards: int, speed: float, a: Assumptions) -> BuyModel:
    """What owning ``cards`` cards costs per hour of work, in hours of the reference card.

    ``speed`` is how many reference-card hours of work the cards do per busy hour (n x eta
    for n reference cards; S(card) / S(ref) for another card). Shared by quote() and /rank.
    """
    energy_per_busy_hour = (cards * watts * a.load + a.host_watts) / 1000 * a.pue
    energy_per_busy_hour *= a.electricity_usd_per_kwh
    # resale(H) = resale_start * exp(-decay * H): value lost with calendar time, which is
    # busy time (H / speed) over utilization
    decay = -math.log1p(-a.depreciation) / (speed * a.utilization * HOURS_PER_YEAR)
    return BuyModel(
        capex_usd=cards * price_usd + a.host_cost_usd,
        energy_usd_per_hour=energy_per_busy_hour / speed,
        resale_start_usd=cards * price_usd * a.resale,
        resale_decay_per_hour=decay,
    )


@dataclass(frozen=True)
class RentOption:
    stored: StoredOffer
    hours: float  # hours the offer runs to do the work
    total_usd: float
    breakeven_hours: float | None  # reference-card hours where buying gets cheaper
    throughput_estimated: bool


@dataclass(frozen=True)
class Quote:
    request: QuoteRequest
    memory_gb: float
    buy: BuyCost
    rent: list[RentOption]
    candidates: int  # offers that passed filters and the memory gate
    verdict: str  # buy or rent
    savings_usd: float
    breakeven_hours: float | None  # against the cheapest rental; None = never
    breakeven_days: float | None
    buy_model: BuyModel

    def assumptions(self) -> dict[str, object]:
        return asdict(self.request.assumptions)


class OfferTable:
    """The current catalog as columns, with per-class effective speed precomputed.

    ``speed[k][i]`` is offer i's throughput in reference units: n * eta(a, n, k) * S(a, k).
    Offers whose accelerator the hardware data does not know are left out (``unrated``).
    """

    def __init__(self, stored: Iterable[StoredOffer], hardware: Hardware) -> None:
        everything = list(stored)
        rows = [s for s in everything if s.offer.accelerator in hardware.registry]
        self.rows: list[StoredOffer] = rows
        self.unrated = len(everything) - len(rows)
        self.price = np.array([s.offer.usd_per_hour for s in rows], dtype=np.float64)
        # Speed depends on (accelerator, count) only: compute it once per distinct pair.
        pairs, pair_code = _codes((s.offer.accelerator, s.offer.count) for s in rows)
        self.memory = np.array(
            [s.offer.memory_gb or hardware.registry[s.offer.accelerator].memory_gb for s in rows],
            dtype=np.float64,
        )
        self.interruptible = np.array([s.offer.pricing in INTERRUPTIBLE for s in rows], bool)
        self.providers, self.provider_code = _codes(s.offer.provider for s in rows)
        self.regions, self.region_code = _codes(s.offer.region.lower() for s in rows)
        self.pricings, self.pricing_code = _codes(str(s.offer.pricing) for s in rows)
        self.speed: dict[Workload, np.ndarray] = {}
        self.estimated: dict[Workload, np.ndarray] = {}
        self.by_cost: dict[Workload, tuple[np.ndarray, ...]] = {}
        self._shortlists: OrderedDict[tuple[object, ...], tuple[np.ndarray, int]] = OrderedDict()
        self._lock = threading.Lock()
        groups = (np.flatnonzero(~self.interruptible), np.flatnonzero(self.interruptible))
        for k in Workload:
            speed = [
                n * hardware.efficiency(acc, k, n) * hardware.speed(acc, k).relative
                for acc, n in pairs
            ]
            estimated = [hardware.speed(acc, k).estimated for acc, _ in pairs]
            self.speed[k] = np.array(speed, dtype=np.float64)[pair_code]
            self.estimated[k] = np.array(estimated, dtype=bool)[pair_code]
            # Cheapest-first orders per class, one per overhead group: a spot overhead scales
            # a whole group alike, so a quote's top offers are the first candidates of each.
            unit_cost = self.price / self.speed[k] if rows else self.price
            self.by_cost[k] = tuple(
                group[np.argsort(unit_cost[group], kind="stable")] for group in groups
            )

    def __len__(self) -> int:
        return len(self.rows)

    def shortlist(self, request: QuoteRequest, memory_gb: float) -> tuple[np.ndarray, int]:
        """The offers that can be cheapest, and how many passed the filters.

        The first ``top`` candidates of each cheapest-first order hold the ``top`` cheapest
        whatever the hours or assumptions, so the shortlist depends on the filters alone
        and is cached per filter set for the life of this catalog: a sweep over hours,
        cards or prices costs O(top) per quote after its first.
        """
        key = (
            request.workload,
            request.pricing,
            request.providers,
            (request.region or "").lower(),
            memory_gb,
            request.top,
        )
        with self._lock:
            cached = self._shortlists.get(key)
            if cached is not None:
                self._shortlists.move_to_end(key)
                return cached
        mask = self.candidates(request, memory_gb)
        index = np.concatenate(
            [
                order[np.flatnonzero(mask[order])[: request.top]]
                for order in self.by_cost[request.workload]
            ]
        )
        result = (index, int(np.count_nonzero(mask)))
        with self._lock:
            self._shortlists[key] = result
            if len(self._shortlists) > SHORTLIST_CACHE:
                self._shortlists.popitem(last=False)
        return result

    def candidates(self, request: QuoteRequest, memory_gb: float) -> np.ndarray:
        """Boolean mask of offers the request may rent."""
        wanted = HOURLY if request.pricing == "any" else {PricingModel(request.pricing)}
        mask = _allowed(self.pricings, {str(p) for p in wanted})[self.pricing_code]
        mask &= self.memory >= memory_gb
        if request.providers is not None:
            mask &= _allowed(self.providers, request.providers)[self.provider_code]
        if request.region:
            prefix = request.region.lower()
            regions = {name for name in self.regions if name.startswith(prefix)}
            mask &= _allowed(self.regions, regions)[self.region_code]
        return mask


def quote(table: OfferTable, hardware: Hardware, request: QuoteRequest) -> Quote:
    a = request.assumptions
    ref = hardware.registry[request.reference]
    k = request.workload
    n = request.gpus
    card = hardware.cards.get(ref.id)
    if request.price_usd is not None:
        price, price_source = request.price_usd, "price= parameter"
    elif card is not None:
        price = card.purchase_usd
        price_source = f"{card.price_kind} {card.price_as_of}: {card.price_source}"
    else:
        raise QuoteError("price", f"no sourced purchase price for {ref.id}; pass price=USD")
    watts = request.watts if request.watts is not None else ref.board_power_w
    if watts is None:
        raise QuoteError("watts", f"no sourced board power for {ref.id}; pass watts=W")
    memory_gb = request.memory_gb if request.memory_gb is not None else ref.memory_gb

    # Buy: n local reference cards; busy hours shrink with n, less the scaling loss.
    s_ref = request.reference_speed or hardware.speed(ref.id, k).relative
    local_speed = n * hardware.efficiency(ref.id, k, n)
    busy_hours = request.hours / local_speed
    model = buy_model(price, watts, n, local_speed, a)
    resale = model.resale(request.hours)
    energy = model.energy_usd_per_hour * request.hours
    buy_total = model.cost(request.hours)
    buy = BuyCost(
        gpu=ref.id,
        gpus=n,
        purchase_usd=n * price,
        host_usd=a.host_cost_usd,
        energy_usd=energy,
        resale_usd=resale,
        total_usd=buy_total,
        hours=busy_hours,
        price_source=price_source,
        watts=watts,
    )

    # Rent: the shortlist of possible cheapest offers, costed and merged.
    index, candidates = table.shortlist(request, memory_gb)
    if candidates == 0:
        raise NoMatchingOffers(
            "memory" if request.memory_gb is not None else "gpu",
            f"no rental offer with at least {memory_gb:g} GB per accelerator matches "
            "the filters (providers, pricing, region)",
        )
    overhead = 1.0 + a.spot_overhead * table.interruptible[index]
    offer_hours = request.hours * s_ref / table.speed[k][index] * overhead
    totals = offer_hours * table.price[index]
    best = np.lexsort((index, offer_hours, totals))[: request.top]

    rent_per_ref_hour = totals[best] / request.hours
    energy_per_ref_hour = model.energy_usd_per_hour
    crossings = breakeven_hours(
        model.capex_usd,
        model.resale_start_usd,
        model.resale_decay_per_hour,
        energy_per_ref_hour,
        rent_per_ref_hour,
    )
    rent = [
        RentOption(
            stored=table.rows[index[i]],
            hours=float(offer_hours[i]),
            total_usd=float(totals[i]),
            breakeven_hours=None if math.isinf(h) else float(h),
            throughput_estimated=bool(table.estimated[k][index[i]]),
        )
        for i, h in zip(best, crossings, strict=True)
    ]
    cheapest = rent[0]
    verdict = "buy" if buy_total < cheapest.total_usd else "rent"
    days = None
    if cheapest.breakeven_hours is not None:
        days = cheapest.breakeven_hours / local_speed / (24 * a.utilization)
    return Quote(
        request=request,
        memory_gb=memory_gb,
        buy=buy,
        rent=rent,
        candidates=candidates,
        verdict=verdict,
        savings_usd=abs(cheapest.total_usd - buy_total),
        breakeven_hours=cheapest.breakeven_hours,
        breakeven_days=days,
        buy_model=model,
    )


def breakeven_hours(
    capex: float,
    resale_start: float,
    decay: float,
    energy_per_hour: float,
    rent_per_hour: np.ndarray,
) -> np.ndarray:
    """Workload H at which buying stops being dearer than renting; inf where it never does.

    Buying costs capex - resale_start * exp(-decay * H) + energy_per_hour * H, renting
    rent_per_hour * H. Their difference f(H) is convex with f(0) = resale_start - capex <= 0,
    so there is one crossing, inside [0, capex / margin]: closed form without resale,
    bisection with it.
    """
    margin = np.asarray(rent_per_hour, dtype=np.float64) - energy_per_hour
    never = margin <= 0
    safe = np.where(never, 1.0, margin)
    if resale_start >= capex:
        result = np.zeros_like(safe)
    elif resale_start == 0 or decay == 0:
        result = (capex - resale_start) / safe
    else:
        low, high = np.zeros_like(safe), capex / safe
        for _ in range(BISECTION_STEPS):
            mid = (low + high) / 2
            above = safe * mid - capex + resale_start * np.exp(-decay * mid) >= 0
            high = np.where(above, mid, high)
            low = np.where(above, low, mid)
        result = high
    return np.where(never, np.inf, result)


def _codes(values: Iterable[Key]) -> tuple[dict[Key, int], np.ndarray]:
    """Small-integer codes for a column, so filters and lookups work on ints, not strings."""
    names: dict[Key, int] = {}
    codes = [names.setdefault(v, len(names)) for v in values]
    return names, np.array(codes, dtype=np.int32)


def _allowed(names: dict[str, int], wanted: Iterable[str]) -> np.ndarray:
    """Lookup array over codes: indexing it with a code column gives the filter mask."""
    allowed = np.zeros(len(names), dtype=bool)
    allowed[[names[w] for w in wanted if w in names]] = True
    return allowed
