"""The current catalog as numpy columns, so a quote over 100,000 offers is a handful of
vector operations rather than a Python loop.

Built once per catalog: per workload class it holds each offer's effective speed and a
cheapest-first order, and it remembers the shortlist of each filter set it was asked for.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

import numpy as np

from hardware import PRECISIONS, SPEED_KEYS, Hardware, SpeedKey, Throughput
from pricing.dated import NONE as NOT_SUPERSEDED
from pricing.dated import dated_rows, superseded_by
from pricing.listed import Listed
from pricing.offer import INTERRUPTIBLE, TERM_HOURS, PricingModel, StoredOffer, pricing_models
from pricing.tiers import TIER_NAMES, tier_code
from service.engine.clusters import clusters_for
from service.engine.interruption import band_overhead, interruption_class
from service.engine.lru import Lru
from service.engine.request import QuoteRequest

# The interruptible tiers ordered apart (on-demand and banded spot have orders of their own).
HOURLY_TIERS = ("spot", "interruptible", "compute_units")

Key = TypeVar("Key", bound=Hashable)
SHORTLIST_CACHE = 512  # filter sets remembered per catalog (LRU)
PLANS_KEPT = 128  # questions whose last reading's offers are remembered (again.py)
CANDIDATE_MASKS = 16  # catalog-wide filter masks remembered (a bool per offer each)
_GENERATIONS = itertools.count(1)  # tells tables apart for caches keyed on "this catalog"


@dataclass(frozen=True)
class MemoryNeed:
    """What the job needs in memory: per accelerator (each device holds a whole replica),
    in total (a sharded job: FSDP, ZeRO), or both; None is no need of that kind. A sharded
    job's total is what is split across the cards; each card also keeps
    ``per_card_overhead_gb`` for itself (the framework), which is not split."""

    per_accelerator_gb: float | None = None
    total_gb: float | None = None
    per_card_overhead_gb: float = 0.0

    @property
    def gate(self) -> str:
        """Which gate applies, as the answer names it."""
        kinds = {"per_accelerator": self.per_accelerator_gb, "total": self.total_gb}
        return "+".join(name for name, value in kinds.items() if value is not None) or "none"


_EMPTY = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Shortlist:
    index: np.ndarray  # the offers that can be cheapest
    candidates: int  # offers past every filter and the memory gate
    gated: int  # offers past every other filter that the memory gate removed
    # the same for the offers of the reference card itself: the same-card rental
    same_card: np.ndarray = field(default_factory=lambda: _EMPTY)
    same_card_candidates: int = 0
    # Where each committed order (OfferTable.committed_orders) was read to: the position
    # just past its last row in ``index`` (its length where every admitted row is there).
    committed_next: tuple[int, ...] = ()
    same_card_committed_next: tuple[int, ...] = ()


class OfferTable:
    """The current catalog as columns, with per-class effective speed precomputed.

    ``speed[k][i]`` is offer i's throughput in reference units: n * eta(a, n, k) * S(a, k).
    Offers whose accelerator the hardware data does not know are left out (``unrated``).
    """

    def __init__(self, stored: Iterable[StoredOffer], hardware: Hardware) -> None:
        self.generation = next(_GENERATIONS)
        registry = hardware.registry
        if isinstance(stored, Listed):  # read as columns; offers built when one is shown
            rated = [a in registry for a in stored.column("accelerator")]
            rows: Sequence[StoredOffer] = stored.keep(rated) if not all(rated) else stored
            self.unrated = len(stored) - len(rows)
            column = rows.column  # type: ignore[attr-defined]
            fetched = stored.finished()
        else:
            everything = list(stored)
            rows = [s for s in everything if s.offer.accelerator in registry]
            self.unrated = len(everything) - len(rows)
            column = functools.partial(_offer_column, rows)
            fetched = [s.fetched_at for s in everything]
        self.rows = rows
        # When the latest run it holds finished: `at=` this moment asks for this catalog
        # again, which is how a page's `next` link stays on it while new runs land.
        self.as_of: datetime | None = max(fetched, default=None)
        accelerator, count = column("accelerator"), column("count")
        pricing, interruption = column("pricing"), column("interruption")
        provider = column("provider")
        self.price = np.array(column("usd_per_hour"), dtype=np.float64)
        # An undated row a dated price of the same provider and kind contradicts: no answer
        # rents it; /offers shows it marked, naming this row (pricing/dated.py)
        self.dated = dated_rows(column("price_as_of"))
        self.superseded_by = superseded_by(
            provider,
            accelerator,
            pricing,
            column("market"),
            column("product"),
            column("region"),
            self.price / np.array(count, dtype=np.float64),
            self.dated,
        )
        self.superseded = self.superseded_by != NOT_SUPERSEDED
        self._tie_ranks: dict[str | None, np.ndarray] = {}
        # Speed depends on (accelerator, count) only: compute it once per distinct pair.
        pairs, pair_code = _codes(zip(accelerator, count, strict=True))
        # Chip memory as the offer states it, else as the hardware data does; a device (what
        # one program addresses) may hold less: a TPU v3 core sees 16 of its chip's 32 GiB.
        chip = np.array(
            [
                memory or registry[a].memory_gb
                for memory, a in zip(column("memory_gb"), accelerator, strict=True)
            ],
            dtype=np.float64,
        )
        program = [registry[a].program_memory_gb for a in accelerator]
        self.memory = np.fmin(chip, np.array(program, dtype=np.float64))  # nan: no cap
        self.cards = np.array(count, dtype=np.float64)  # accelerators in one instance
        self.total_memory = chip * self.cards
        # Pricing and market as codes first: what follows from them is looked up per code
        # (a handful) and gathered, not worked out per offer.
        self.pricings, self.pricing_code = _codes(str(p) for p in pricing)
        self.markets, self.market_code = _codes(column("market"))
        by_pricing = [PricingModel(name) for name in self.pricings]
        self.interruptible = np.array([p in INTERRUPTIBLE for p in by_pricing], dtype=bool)[
            self.pricing_code
        ]
        # The overhead a published interruption band sets (AWS or Azure spot); NaN: none,
        # so the spot_overhead assumption applies (service/engine/interruption.py).
        self.band_overhead = np.array([band_overhead(b) for b in interruption], dtype=np.float64)
        banded = self.interruptible & ~np.isnan(self.band_overhead)
        # Its interruption class (on demand, assumed, or its band): clusters are sized per class
        self.interruption_class = np.array(
            [
                interruption_class(i, b)
                for i, b in zip(self.interruptible.tolist(), interruption, strict=True)
            ],
            dtype=np.intp,
        )
        # Runtimes that end after a session's maximum (Colab): long jobs restart from a checkpoint
        self.session_bound = np.array(
            [p == PricingModel.COMPUTE_UNITS for p in by_pricing], dtype=bool
        )[self.pricing_code]
        # A committed offer's term, paid whole (0: paid as used). A term's cost rounds up to
        # whole terms, so no one order sorts committed offers by cost; two orders bound it
        # from below (committed_orders), read as far as the bound needs.
        self.term_hours = np.array([TERM_HOURS.get(p, 0.0) for p in by_pricing], dtype=np.float64)[
            self.pricing_code
        ]
        self.committed_rows = np.flatnonzero(self.term_hours > 0)
        # its term's position in TERM_HOURS (-1: hourly), and whether any offer is of each
        # term: a term none sells is never read
        terms = list(TERM_HOURS)
        self.term_code = np.array(
            [terms.index(p) if p in TERM_HOURS else -1 for p in by_pricing], dtype=np.intp
        )[self.pricing_code]
        offered = np.bincount(self.term_code[self.committed_rows], minlength=len(terms))
        self.terms_offered = tuple(bool(n) for n in offered)
        # the share of a committed term paid before its first hour (0: none, or not committed)
        self.upfront_share = np.array(
            [s.offer.upfront_share or 0.0 for s in rows], dtype=np.float64
        )
        # Its pricing tier (pricing/tiers.py): what an answer's `tiers` block sorts by
        tiers = [[tier_code(p, m) for m in self.markets] for p in self.pricings]
        self.tier_code = np.array(tiers, dtype=np.intp).reshape(
            len(self.pricings), len(self.markets)
        )[self.pricing_code, self.market_code]
        self.accelerators, self.accelerator_code = _codes(accelerator)
        self.platforms, self.platform_code = _codes(registry[a].platform for a in accelerator)
        self.providers, self.provider_code = _codes(provider)
        # The network between two instances of each offer: clusters scale by it
        self.clusters = clusters_for(hardware.fabrics)
        of, code = hardware.fabrics.of, self.clusters.code
        self.fabric_code = np.array(
            [code[of(p, product)] for p, product in zip(provider, column("product"), strict=True)],
            dtype=np.intp,
        )
        self.regions, self.region_code = _codes(r.lower() for r in column("region"))
        # Which precisions each offer's accelerator trains in (hardware/data/precisions.csv)
        self.runs = {
            p: np.array([hardware.supports(a, p) for a in self.accelerators], dtype=bool)[
                self.accelerator_code
            ]
            for p in PRECISIONS
        }
        self.speed: dict[SpeedKey, np.ndarray] = {}
        self.estimated: dict[SpeedKey, np.ndarray] = {}
        self._throughput: dict[SpeedKey, tuple[list[Throughput], np.ndarray]] = {}
        self.by_cost: dict[SpeedKey, tuple[np.ndarray, ...]] = {}
        self.unit_cost: dict[SpeedKey, np.ndarray] = {}  # what the hourly orders sort by
        self.fastest_after: dict[SpeedKey, tuple[np.ndarray, ...]] = {}
        # Each term's committed offers in two orders: by what one term costs (price x term
        # hours) and by what an hour of work costs; a job on an offer costs at least both (one
        # instance at least, one term at least; service/engine/cheapest.py reads them). Per
        # term, in TERM_HOURS order: (1-year by term, 1-year by work, 3-year by term, ...).
        self.committed_orders: dict[SpeedKey, tuple[np.ndarray, ...]] = {}
        # the same orders end to end, to read many at once (Committed: rows, starts, sizes)
        self.committed_flat: dict[SpeedKey, Committed] = {}
        self.term_cost = self.price * self.term_hours
        self._shortlists: Lru[tuple[object, ...], Shortlist] = Lru(SHORTLIST_CACHE)
        # per filter set, where reading the cheapest-first orders stopped (cheapest.py)
        self.walks: Lru[tuple[object, ...], Any] = Lru(SHORTLIST_CACHE)
        # per question but its hours, the offers its last full reading costed (again.py)
        self.plans: Lru[Any, Any] = Lru(PLANS_KEPT)
        self._candidates: Lru[tuple[object, ...], np.ndarray] = Lru(CANDIDATE_MASKS)
        self._held: Lru[tuple[object, ...], np.ndarray] = Lru(CANDIDATE_MASKS)
        self._rows_of: dict[str, np.ndarray] = {}  # accelerator -> its rows, when asked
        # One order per hourly pricing tier (pricing/tiers.py), a cloud's spot split
        # by whether a band sets its overhead: a tier's cheapest is then among the first of
        # its own orders. Committed offers have none (committed_rows).
        hourly = self.term_hours == 0
        groups = tuple(
            np.flatnonzero(mask)
            for mask in (
                ~self.interruptible & hourly,
                *((self.tier_code == TIER_NAMES.index(name)) & ~banded for name in HOURLY_TIERS),
                banded,
            )
        )
        # The hourly orders holding each tier's offers (by tier code): a tier's cheapest is
        # bounded by its own orders' floors alone (cheapest.Costed.cheapest_of). Whether
        # every offer of an order pays the spot_overhead assumption: its clusters then pay
        # it too, whatever the offer.
        in_order = [frozenset(self.tier_code[group].tolist()) for group in groups]
        self.order_tiers = tuple(in_order)  # the tiers whose offers each hourly order holds
        self.tier_orders = tuple(
            tuple(g for g, tiers in enumerate(in_order) if code in tiers)
            for code in range(len(TIER_NAMES))
        )
        self.order_assumed = tuple(
            bool(group.size) and bool((self.interruptible[group] & ~banded[group]).all())
            for group in groups
        )
        # The pricing models in each order (its tier's): a question that admits none of them
        # skips the order instead of reading it to the end for nothing.
        self._order_pricings = tuple(
            frozenset(self.pricing_code[group].tolist()) for group in groups
        ) + tuple(
            frozenset(self.pricing_code[self.term_hours == term].tolist())
            for term in TERM_HOURS.values()
            for _ in range(2)
        )
        # Banded offers carry their own overhead, fixed by data: it orders them as it costs.
        own_overhead = 1.0 + np.where(banded, self.band_overhead, 0.0)
        for key in SPEED_KEYS:
            k, precision = key
            records = [hardware.speed(acc, k, precision) for acc, _ in pairs]
            speed = [
                n * hardware.efficiency(acc, k, n) * record.relative
                for (acc, n), record in zip(pairs, records, strict=True)
            ]
            self._throughput[key] = (records, pair_code)
            estimated = [record.estimated for record in records]
            self.speed[key] = np.array(speed, dtype=np.float64)[pair_code]
            self.estimated[key] = np.array(estimated, dtype=bool)[pair_code]
            # Cheapest-first orders per class, one per overhead group: the spot_overhead
            # assumption scales a whole group alike, so a quote's top offers are the first
            # candidates of each. Session restarts add about the same share to every
            # session-bound offer (a restart per session_hours of work), about: a restart
            # is a step, so where one comes the order is read on (cheapest._hourly); banded
            # offers are ordered with their own overheads.
            unit_cost = self.price * own_overhead / self.speed[key] if rows else self.price
            self.unit_cost[key] = unit_cost
            self.by_cost[key] = tuple(
                group[np.argsort(unit_cost[group], kind="stable")] for group in groups
            )
            # the fastest offer from each position of each order on: how few instances any
            # offer not yet read could need by a deadline (cheapest._order_floors)
            self.fastest_after[key] = tuple(
                np.maximum.accumulate(self.speed[key][order][::-1])[::-1]
                for order in self.by_cost[key]
            )
            self.committed_orders[key] = tuple(
                rows[np.argsort(cost[rows], kind="stable")]
                for term in TERM_HOURS.values()
                for rows in (np.flatnonzero(self.term_hours == term),)
                for cost in (self.term_cost, unit_cost)
            )
            self.committed_flat[key] = Committed.of(self.committed_orders[key])

    def __len__(self) -> int:
        return len(self.rows)

    def throughputs(self, rows: np.ndarray, key: SpeedKey) -> list[Throughput]:
        """How each of ``rows``' accelerator speed is known: its value, method and source."""
        records, pair_code = self._throughput[key]
        return [records[code] for code in pair_code[rows].tolist()]

    def filter_key(self, request: QuoteRequest, need: MemoryNeed) -> tuple[object, ...]:
        """What a question's candidates depend on: its filters and its memory need."""
        return (
            request.speed_key,
            request.precision,
            request.excluded_providers,
            request.accelerators,
            request.pricing,
            request.providers,
            request.platforms,
            (request.region or "").lower(),
            request.markets,
            need,
            request.measured_only,
            request.top,
            request.reference,
            request.assumptions.max_instances,
        )

    def shortlist(self, request: QuoteRequest, need: MemoryNeed, own: bool = True) -> Shortlist:
        """The offers that can be cheapest, and how many passed the filters; with ``own``,
        the same for the reference card's own offers (the same-card rental).

        The first ``top`` candidates of each cheapest-first order hold the ``top`` cheapest
        whatever the hours or assumptions, so the shortlist depends on the filters alone
        and is cached per filter set for the life of this catalog: a sweep over hours,
        cards or prices costs O(top) per quote after its first.
        """
        key = (*self.filter_key(request, need), own)
        cached = self._shortlists.get(key)
        if cached is not None:
            return cached
        filtered = self.candidates(request)
        mask = filtered & self.holding(need, max_instances=request.assumptions.max_instances)
        # the reference card's own offers, from the same scan: the same-card rental
        code = self.accelerators.get(request.reference) if own else None
        mine = mask & (self.accelerator_code == code) if code is not None else None
        first, committed_next = self._first(mask, request)
        own_first, own_next = self._first(mine, request) if mine is not None else (_EMPTY, ())
        result = Shortlist(
            first,
            int(np.count_nonzero(mask)),
            int(np.count_nonzero(filtered)) - int(np.count_nonzero(mask)),
            own_first,
            int(np.count_nonzero(mine)) if mine is not None else 0,
            committed_next,
            own_next,
        )
        self._shortlists.put(key, result)
        return result

    def _first(self, mask: np.ndarray, request: QuoteRequest) -> tuple[np.ndarray, tuple[int, ...]]:
        """The first ``top`` offers ``mask`` admits in each cheapest-first order and in each
        committed order, and where each committed order was read to."""
        wanted = {
            self.pricings[str(p)]
            for p in pricing_models(request.pricing)
            if str(p) in self.pricings
        }
        orders = self.by_cost[request.speed_key]
        sorted_by = self.unit_cost[request.speed_key]
        # an order whose pricings the question admits none of is read to its end at once
        asked = [bool(wanted & pricings) for pricings in self._order_pricings]
        hourly = [
            _leading(order, mask, request.top, sorted_by)[0] if asked[g] else _EMPTY
            for g, order in enumerate(orders)
        ]
        committed, ends = self.committed_flat[request.speed_key].leading(
            asked[len(orders) :], mask, request.top
        )
        rows = np.concatenate([*hourly, *committed])
        # a committed offer early in both of its orders is listed once
        return np.unique(rows) if self.committed_rows.size else rows, ends

    def tie_rank(self, home: str | None) -> np.ndarray:
        """Per row, where a rental of equal cost goes (JobCost.tie): a dated price in the
        asker's country first, then one there undated, a dated price elsewhere, the rest."""
        found = self._tie_ranks.get(home)
        if found is None:
            away = np.ones(len(self.rows), dtype=np.int8)
            if home is not None and home in self.regions:
                away = (self.region_code != self.regions[home]).astype(np.int8)
            found = self._tie_ranks[home] = 2 * away + (~self.dated).astype(np.int8)
        return found

    def candidates(self, request: QuoteRequest, rows: np.ndarray | None = None) -> np.ndarray:
        """Boolean mask of offers the request may rent, memory aside: over the catalog, or
        over ``rows`` only. The catalog's masks are remembered for the last few filter sets
        (read them, never write them): a question's tiers and a sweep over memory needs ask
        the same filters again."""
        if rows is None:
            key = (
                request.pricing,
                request.providers,
                request.platforms,
                (request.region or "").lower(),
                request.markets,
                request.speed_key if request.measured_only else None,
                request.precision,
                request.excluded_providers,
                request.accelerators,
            )
            found = self._candidates.get(key)
            if found is None:
                found = self._candidates_over(request, None)
                self._candidates.put(key, found)
            return found
        return self._candidates_over(request, rows)

    def _candidates_over(self, request: QuoteRequest, rows: np.ndarray | None) -> np.ndarray:
        mask = self.matching(
            pricings={str(p) for p in pricing_models(request.pricing)},
            accelerators=request.accelerators,
            providers=request.providers,
            region_prefix=request.region,
            platforms=request.platforms,
            markets=request.markets,
            rows=rows,
        )
        if request.measured_only:
            mask &= ~_at(self.estimated[request.speed_key], rows)
        if request.precision is not None:
            mask &= _at(self.runs[request.precision], rows)
        if request.excluded_providers:
            codes = _at(self.provider_code, rows)
            mask &= ~_within(self.providers, request.excluded_providers, codes)
        return mask & ~_at(self.superseded, rows)

    def comparable(
        self, accelerator: str, request: QuoteRequest, need: MemoryNeed, max_instances: int = 1
    ) -> np.ndarray:
        """Row numbers of ``accelerator``'s offers that pass the request's filters and hold
        ``need`` (on up to ``max_instances`` where they shard): a scan of that accelerator's
        rows only, not of the catalog."""
        rows = self._rows_of.get(accelerator)
        if rows is None:
            code = self.accelerators.get(accelerator, -1)
            rows = self._rows_of[accelerator] = np.flatnonzero(self.accelerator_code == code)
        held = self.holding(need, rows, max_instances)
        return rows[self.candidates(request, rows) & held]

    def holding(
        self, need: MemoryNeed, rows: np.ndarray | None = None, max_instances: int = 1
    ) -> np.ndarray:
        """Boolean mask of offers with the memory the job needs (over ``rows`` if given): a
        sharded job's total on one instance, or on up to ``max_instances`` of them where the
        offer's fabric shards across machines. The catalog's masks are remembered for the
        last few needs (read them, never write them): a question and its tiers share one."""
        if rows is None:
            key = (need, max_instances if need.total_gb is not None else 1)
            found = self._held.get(key)
            if found is None:
                found = self._holding_over(need, None, max_instances)
                self._held.put(key, found)
            return found
        return self._holding_over(need, rows, max_instances)

    def _holding_over(
        self, need: MemoryNeed, rows: np.ndarray | None, max_instances: int
    ) -> np.ndarray:
        mask = np.ones(len(self.rows) if rows is None else rows.size, dtype=bool)
        if need.per_accelerator_gb is not None:
            mask &= _at(self.memory, rows) >= need.per_accelerator_gb
        if need.total_gb is not None:
            overhead = _at(self.cards, rows) * need.per_card_overhead_gb
            total = _at(self.total_memory, rows) - overhead
            most = np.minimum(self.clusters.largest, max_instances)
            fabric = _at(self.fabric_code, rows)
            sharded = self.clusters.shards[fabric] & (total * most[fabric] >= need.total_gb)
            mask &= (total >= need.total_gb) | sharded
        return mask

    def select(
        self,
        accelerator: str | None = None,
        provider: str | None = None,
        pricing: str | None = None,
        region_prefix: str | None = None,
        markets: Iterable[str] | None = None,
    ) -> np.ndarray:
        """Row numbers of the offers matching every filter given, in catalog order."""
        return np.flatnonzero(
            self.matching(
                accelerators=None if accelerator is None else {accelerator},
                providers=None if provider is None else {provider},
                pricings=None if pricing is None else {pricing},
                region_prefix=region_prefix,
                markets=markets,
            )
        )

    def matching(
        self,
        accelerators: Iterable[str] | None = None,
        providers: Iterable[str] | None = None,
        pricings: Iterable[str] | None = None,
        region_prefix: str | None = None,
        platforms: Iterable[str] | None = None,
        markets: Iterable[str] | None = None,
        rows: np.ndarray | None = None,
    ) -> np.ndarray:
        """Boolean mask: the offers within each filter given (None = no filter), over the
        catalog or over ``rows`` only."""
        mask = np.ones(len(self.rows) if rows is None else rows.size, dtype=bool)
        if markets is not None:
            mask &= _within(self.markets, markets, _at(self.market_code, rows))
        if platforms is not None:
            mask &= _within(self.platforms, platforms, _at(self.platform_code, rows))
        if accelerators is not None:
            mask &= _within(self.accelerators, accelerators, _at(self.accelerator_code, rows))
        if providers is not None:
            mask &= _within(self.providers, providers, _at(self.provider_code, rows))
        if pricings is not None:
            mask &= _within(self.pricings, pricings, _at(self.pricing_code, rows))
        if region_prefix:
            prefix = region_prefix.lower()
            regions = {name for name in self.regions if name.startswith(prefix)}
            mask &= _within(self.regions, regions, _at(self.region_code, rows))
        return mask


def _offer_column(rows: Sequence[StoredOffer], name: str) -> list[Any]:
    """One field of every built offer, as a Listed gives it from the rows."""
    return [getattr(s.offer, name) for s in rows]


def _leading(
    order: np.ndarray, mask: np.ndarray, top: int, sorted_by: np.ndarray | None = None
) -> tuple[np.ndarray, int]:
    """The first ``top`` rows of ``order`` that ``mask`` admits, and the position in ``order``
    just past the last of them (its length where fewer are admitted). Read from the front a
    chunk at a time, each eight times the last: the cheapest offers usually pass a
    question's filters within the first chunk, so a quote rarely gathers the whole order.
    With ``sorted_by`` (what the order sorts by), the rows that tie the last one come too
    (up to TIED_MOST): which of equal offers is cheapest is the tie-break's to say (the
    asker's country, a dated price: cheapest.cheapest), not the catalog's row order."""
    found: list[np.ndarray] = []
    start, size, wanted = 0, LEADING_CHUNK, top
    end = order.size
    while start < order.size and wanted > 0:
        part = order[start : start + size]
        admitted = np.flatnonzero(mask[part])[:wanted]
        found.append(part[admitted])
        wanted -= admitted.size
        if wanted == 0:
            end = start + int(admitted[-1]) + 1
        start, size = start + size, size * 8
    if sorted_by is not None and wanted == 0 and end < order.size:
        last = sorted_by[order[end - 1]]
        if sorted_by[order[end]] == last:  # mostly: no tie
            part = order[end : end + TIED_MOST]
            tied = sorted_by[part] == last
            same = part.size if tied.all() else int(np.argmin(tied))
            found.append(part[:same][mask[part[:same]]])
            end += same
    return (np.concatenate(found) if found else _EMPTY), end


@dataclass(frozen=True)
class Committed:
    """The committed orders (two a term) end to end: order g is ``rows[starts[g] :
    starts[g] + sizes[g]]``. Seven terms make fourteen orders, whose next offers a term's
    floors gather at once (cheapest.next_terms), and whose first chunks a shortlist reads
    in one gather (``leading``), rather than one order at a time."""

    rows: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray

    orders: tuple[np.ndarray, ...]
    heads: np.ndarray  # each order's first LEADING_CHUNK rows, end to end
    head_starts: np.ndarray  # where each order's head starts in heads, and their end
    head_bounds: tuple[int, ...]  # the same, as ints for the loop over orders

    @classmethod
    def of(cls, orders: Sequence[np.ndarray]) -> Committed:
        sizes = np.array([order.size for order in orders], dtype=np.intp)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp)
        rows = np.concatenate(orders) if orders else _EMPTY
        heads = [order[:LEADING_CHUNK] for order in orders]
        head_starts = np.cumsum([0, *(head.size for head in heads)]).astype(np.intp)
        joined = np.concatenate(heads) if heads else _EMPTY
        return cls(
            rows.astype(np.intp),
            starts,
            sizes,
            tuple(orders),
            joined,
            head_starts,
            tuple(head_starts.tolist()),
        )

    def at(self, orders: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """The row at each of ``positions`` in each of ``orders`` (one per position)."""
        return self.rows[self.starts[orders] + positions]

    def leading(
        self, asked: Sequence[bool], mask: np.ndarray, top: int
    ) -> tuple[list[np.ndarray], tuple[int, ...]]:
        """:func:`_leading` of each order (no tie-break), the first chunks of all of them
        read in one gather; an order whose first chunk admits fewer than ``top`` and goes on
        is read on alone. Fourteen orders for seven terms, most of them short, would
        otherwise cost fourteen readings. An order not ``asked`` is read to its end at once."""
        admitted = np.flatnonzero(mask[self.heads])  # positions in heads, in order
        bounds = np.searchsorted(admitted, self.head_starts).tolist()
        found, ends = [], []
        for g, order in enumerate(self.orders):
            if not asked[g]:
                found.append(_EMPTY)
                ends.append(order.size)
                continue
            first, head_end = self.head_bounds[g], self.head_bounds[g + 1]
            mine = admitted[bounds[g] : min(bounds[g + 1], bounds[g] + top)]
            if mine.size == top:
                found.append(self.heads[mine])
                ends.append(int(mine[-1] - first) + 1)
            elif head_end - first == order.size:  # the whole order was its head
                found.append(self.heads[mine])
                ends.append(order.size)
            else:
                rows, end = _leading(order, mask, top)
                found.append(rows)
                ends.append(end)
        return found, tuple(ends)


LEADING_CHUNK = 256  # rows of a cheapest-first order read first
# Offers that tie a shortlist's last one taken with it, at most: one price in thousands of
# regions (a hostile import) would otherwise make every question cost them all; past this
# many, a tie goes to the first by row, at the same cost
TIED_MOST = 256


def _at(column: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """A column over the whole catalog, or over ``rows`` of it."""
    return column if rows is None else column[rows]


def _codes(values: Iterable[Key]) -> tuple[dict[Key, int], np.ndarray]:
    """Small-integer codes for a column, so filters and lookups work on ints, not strings."""
    names: dict[Key, int] = {}
    codes = [names.setdefault(v, len(names)) for v in values]
    return names, np.array(codes, dtype=np.intp)


def _within(names: dict[str, int], wanted: Iterable[str], codes: np.ndarray) -> np.ndarray:
    """Boolean mask: the rows whose code is one of ``wanted``'s. A few codes are compared
    one by one (a pass over the column each, about 10 us for 50,000 rows); more go through
    a lookup array (one gather, about 50 us with platform-sized codes, four times that with
    int32 ones, which is why the code columns are intp)."""
    allowed = sorted({names[w] for w in wanted if w in names})
    if len(allowed) == len(names):
        return np.ones(codes.size, dtype=bool)
    if len(allowed) <= FEW_CODES:
        mask = np.zeros(codes.size, dtype=bool)
        for code in allowed:
            mask |= codes == code
        return mask
    lookup = np.zeros(len(names), dtype=bool)
    lookup[allowed] = True
    return lookup[codes]


FEW_CODES = 4  # up to this many codes are compared one by one, past it looked up
