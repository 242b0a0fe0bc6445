"""Properties of the engine (service/breakeven.py) over generated offers and questions.

Worlds are drawn on the toy hardware of tests/helpers (round numbers) and on the real
hardware data; prices, counts, hours and assumptions stay inside the bounds the API
validates (service/schemas.py). Every search is derandomized and bounded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hardware import Hardware, Workload, load_hardware
from pricing.offer import HOURLY, INTERRUPTIBLE, PRICED, PricingModel, pricing_models
from service.documents.breakeven import RentLines, _quote_document
from service.engine.assumptions import MAX_USD, MIN_UTILIZATION, Assumptions
from service.engine.breakeven import (
    NoMatchingOffers,
    Quote,
    QuoteRequest,
    quote,
)
from service.engine.offer_table import OfferTable
from service.engine.sensitivity import case_of
from service.engine.work import MAX_HOURS, MIN_HOURS
from tests.helpers import offer, stored, toy_hardware

TOY = toy_hardware()
REAL = load_hardware()

PROPERTY = settings(
    max_examples=60,
    derandomize=True,  # the same examples on every run
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# Offer prices: a hundredth of a cent to 1,000 USD an hour for the whole offer.
PRICES = st.floats(0.0001, 1000.0, allow_nan=False, allow_infinity=False)
PRICINGS = st.sampled_from(
    [
        PricingModel.ON_DEMAND,
        PricingModel.SPOT,
        PricingModel.COMPUTE_UNITS,
        PricingModel.RESERVED_1Y,
        PricingModel.RESERVED_3Y,
    ]
)
HOURLY_PRICINGS = st.sampled_from(sorted(HOURLY))
HOURS = st.floats(MIN_HOURS, MAX_HOURS, allow_nan=False)
# Under the floor the API keeps, down to nothing: a job's parameters once made 0 h
TINY_HOURS = st.one_of(st.just(0.0), st.just(5e-324), st.floats(0, MIN_HOURS))


def _positive(high: float) -> st.SearchStrategy[float]:
    """(0, high], as the API's gt=0 bounds allow."""
    return st.floats(0, high, exclude_min=True, allow_nan=False)


ASSUMPTIONS = st.builds(
    Assumptions,
    electricity=st.floats(0, 100),
    pue=st.floats(1, 5),
    load=_positive(1),
    host_cost=st.floats(0, MAX_USD),
    host_watts=st.floats(0, 100_000),
    utilization=st.floats(MIN_UTILIZATION, 1),
    resale=st.floats(0, 1),
    depreciation=st.floats(0, 1, exclude_max=True),
    spot_overhead=st.floats(0, 10),
)


@dataclass(frozen=True)
class World:
    hardware: Hardware
    offers: list[Any]  # Offer
    request: QuoteRequest

    def quote(self, offers: list[Any] | None = None, **changes: Any) -> Quote | None:
        """The engine's answer, or None when no offer passes the filters."""
        table = OfferTable(stored(*(self.offers if offers is None else offers)), self.hardware)
        try:
            return quote(table, self.hardware, replace(self.request, **changes))
        except NoMatchingOffers:
            return None


@st.composite
def worlds(draw: st.DrawFn, top: int | None = None, committed: bool = True) -> World:
    """A catalog and a question. ``committed=False``: hourly offers only, for properties of
    costs linear in the work (a committed term is a step per term: tests/test_committed.py)."""
    if draw(st.booleans()):
        hardware, reference = TOY, "ref"
        accelerators = ["ref", "fast", "small"]
    else:
        hardware = REAL
        reference = draw(st.sampled_from(sorted(REAL.cards)))  # a card with a sourced price
        accelerators = sorted(acc.id for acc in REAL.registry)
    specs = draw(
        st.lists(
            st.tuples(
                st.sampled_from(accelerators),
                st.sampled_from([1, 2, 4, 8]),
                PRICINGS if committed else HOURLY_PRICINGS,
                PRICES,
            ),
            min_size=1,
            max_size=12,
        )
    )
    choices = ["any", "any", "dependable", "on_demand", "spot"]
    wanted = draw(st.sampled_from([*choices, "reserved_1y"] if committed else choices))
    # The first offer rents the card itself as the question allows, so that most questions
    # have a candidate (a memory need above the card's may still leave none).
    allowed = sorted(pricing_models(wanted) & (PRICED if committed else HOURLY))
    specs[0] = (reference, 1, draw(st.sampled_from(allowed)), specs[0][3])
    offers = [
        offer(product=f"offer-{i}", accelerator=acc, count=n, pricing=pricing, usd_per_hour=p)
        for i, (acc, n, pricing, p) in enumerate(specs)
    ]
    request = QuoteRequest(
        reference=reference,
        hours=draw(HOURS),
        workload=draw(st.sampled_from(list(Workload))),
        gpus=draw(st.integers(1, 64)),
        # mostly the card's own memory; else a need anything from 1 to 200 GB may pass
        memory_gb=draw(st.one_of(st.none(), st.floats(1, 200))),
        price_usd=draw(st.one_of(st.none(), _positive(MAX_USD))),
        watts=draw(st.one_of(st.none(), _positive(10_000))),
        pricing=wanted,
        top=top or draw(st.integers(1, 100)),
        assumptions=draw(ASSUMPTIONS),
        # no deadline: these are the cost model's properties; deadlines have their own below
        deadline_hours=math.inf,
    )
    return World(hardware, offers, request)


def _numbers(value: Any, path: str = "") -> list[tuple[str, float]]:
    """Every number in a JSON-like document, with where it is."""
    if isinstance(value, dict):
        return [n for key, item in value.items() for n in _numbers(item, f"{path}.{key}")]
    if isinstance(value, list | tuple):
        return [n for i, item in enumerate(value) for n in _numbers(item, f"{path}[{i}]")]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return [(path, float(value))]
    return []


def _never_is_infinite(hours: float | None) -> float:
    return math.inf if hours is None else hours


@PROPERTY
@given(world=worlds())
def test_costs_are_never_negative_and_every_number_is_finite(world: World) -> None:
    result = world.quote()
    assume(result is not None)
    assert result is not None
    buy = result.buy
    for name in ("purchase_usd", "host_usd", "energy_usd", "resale_usd", "total_usd", "hours"):
        assert getattr(buy, name) >= 0, name
    assert buy.resale_usd <= buy.purchase_usd + buy.replacement_usd
    assert result.rent and all(r.total_usd >= 0 and r.hours > 0 for r in result.rent)
    assert result.savings_usd >= 0
    if result.breakeven_hours is not None:
        assert result.breakeven_hours >= 0 and result.breakeven_days is not None
        assert result.breakeven_days >= 0
    numbers = _numbers(_quote_document(result, RentLines(result, None, world.hardware.registry)))
    assert len(numbers) > 20
    bad = [(where, n) for where, n in numbers if not math.isfinite(n)]
    assert bad == []


@PROPERTY
@given(world=worlds(), data=st.data())
def test_the_answer_does_not_depend_on_the_order_of_the_offers(world: World, data) -> None:  # type: ignore[no-untyped-def]
    result = world.quote()
    assume(result is not None)
    shuffled = data.draw(st.permutations(world.offers), label="shuffled")
    again = world.quote(offers=shuffled)
    assert result is not None and again is not None
    assert again.candidates == result.candidates
    assert again.rent[0].total_usd == pytest.approx(result.rent[0].total_usd, rel=1e-12)
    # offers tied on price per unit of work may swap places; their totals may not differ
    assert sorted(r.total_usd for r in again.rent) == pytest.approx(
        sorted(r.total_usd for r in result.rent), rel=1e-12
    )
    assert again.buy == result.buy
    assert again.verdict == result.verdict or math.isclose(
        result.buy.total_usd, result.rent[0].total_usd, rel_tol=1e-12
    )
    if result.breakeven_hours is None:
        assert again.breakeven_hours is None
    else:
        assert again.breakeven_hours == pytest.approx(result.breakeven_hours, rel=1e-9)


@PROPERTY
@given(
    world=worlds(committed=False),
    later=st.floats(0, 10),
    more=st.floats(0.001, 10),
)
def test_past_the_breakeven_point_buying_keeps_winning(
    world: World, later: float, more: float
) -> None:
    first = world.quote()
    assume(first is not None and first.breakeven_hours is not None)
    assert first is not None and first.breakeven_hours is not None
    h1 = max(first.breakeven_hours, MIN_HOURS) * (1 + later)
    h2 = h1 * (1 + more)
    # within one set of cards' life: past it a new set is bought, a step in buying's cost
    assume(h2 <= min(MAX_HOURS, first.life_hours))
    at_h1, at_h2 = world.quote(hours=h1), world.quote(hours=h2)
    assert at_h1 is not None and at_h2 is not None

    def lead_of_renting(result: Quote) -> float:
        """What buying costs more than the cheapest rental (negative: buying wins)."""
        return result.buy.total_usd - result.rent[0].total_usd

    scale = max(at_h2.buy.total_usd, at_h2.rent[0].total_usd, 1.0)
    tolerance = 1e-9 * scale
    assert lead_of_renting(at_h1) <= tolerance  # at or past break-even, buying does not lose
    assert lead_of_renting(at_h2) <= lead_of_renting(at_h1) + tolerance
    assert at_h2.verdict == "buy" or abs(lead_of_renting(at_h2)) <= tolerance


@PROPERTY
@given(world=worlds(committed=False), hours=st.tuples(HOURS, HOURS))
def test_once_buying_wins_more_hours_never_make_renting_win(world: World, hours) -> None:  # type: ignore[no-untyped-def]
    short, long = sorted(hours)
    at_short, at_long = world.quote(hours=short), world.quote(hours=long)
    assume(at_short is not None and at_short.verdict == "buy")
    assert at_long is not None
    lead = at_long.buy.total_usd - at_long.rent[0].total_usd
    assert at_long.verdict == "buy" or abs(lead) <= 1e-9 * max(at_long.buy.total_usd, 1.0)


@PROPERTY
@given(world=worlds(), tariffs=st.tuples(st.floats(0, 100), st.floats(0, 100)))
def test_dearer_electricity_never_makes_buying_cheaper(world: World, tariffs) -> None:  # type: ignore[no-untyped-def]
    low, high = sorted(tariffs)
    a = world.request.assumptions
    cheap = world.quote(assumptions=replace(a, electricity=low))
    dear = world.quote(assumptions=replace(a, electricity=high))
    assume(cheap is not None)
    assert cheap is not None and dear is not None
    assert dear.buy.energy_usd >= cheap.buy.energy_usd
    assert dear.buy.total_usd >= cheap.buy.total_usd
    assert (dear.buy.purchase_usd, dear.buy.resale_usd) == (
        cheap.buy.purchase_usd,
        cheap.buy.resale_usd,
    )
    assert [r.total_usd for r in dear.rent] == [r.total_usd for r in cheap.rent]
    # and the break-even point moves later, or to never
    later = _never_is_infinite(dear.breakeven_hours)
    assert later >= _never_is_infinite(cheap.breakeven_hours) * (1 - 1e-9)


@PROPERTY
@given(world=worlds(top=100), overheads=st.tuples(st.floats(0, 10), st.floats(0, 10)))
def test_spot_overhead_lengthens_interruptible_offers_only(world: World, overheads) -> None:  # type: ignore[no-untyped-def]
    low, high = sorted(overheads)
    a = world.request.assumptions
    calm = world.quote(assumptions=replace(a, spot_overhead=low))
    rough = world.quote(assumptions=replace(a, spot_overhead=high))
    assume(calm is not None)
    assert calm is not None and rough is not None
    # top=100 lists every candidate, so each offer is in both answers
    before = {r.stored.offer.product: r for r in calm.rent}
    after = {r.stored.offer.product: r for r in rough.rent}
    assert before.keys() == after.keys() and len(before) == calm.candidates
    for product, option in before.items():
        pricing = option.stored.offer.pricing
        assert pricing in PRICED
        if pricing in INTERRUPTIBLE:
            assert after[product].hours >= option.hours
            assert after[product].total_usd >= option.total_usd
            if high > low * (1 + 1e-6) + 1e-9:
                assert after[product].hours > option.hours
        else:
            assert after[product].hours == option.hours
            assert after[product].total_usd == option.total_usd
    assert rough.buy == calm.buy


@PROPERTY
@given(world=worlds(committed=False), hours=st.tuples(HOURS, HOURS))
def test_the_breakeven_point_does_not_depend_on_the_workload_asked(world: World, hours) -> None:  # type: ignore[no-untyped-def]
    # (hours=5e-324, below MIN_HOURS, rounded every rental's cost to 0: "never")
    one, other = (world.quote(hours=h) for h in hours)
    assume(one is not None)
    assert one is not None and other is not None
    if one.breakeven_hours is None:
        assert other.breakeven_hours is None
    else:
        assert other.breakeven_hours == pytest.approx(one.breakeven_hours, rel=1e-9, abs=1e-9)
        assert other.breakeven_days == pytest.approx(one.breakeven_days, rel=1e-9, abs=1e-9)


@PROPERTY
@given(world=worlds(), hours=TINY_HOURS)
def test_no_rental_costs_less_than_nothing_however_little_the_work(world: World, hours) -> None:  # type: ignore[no-untyped-def]
    """The API keeps a job at MIN_HOURS or more, but the engine must not need it to: a
    session-bound offer (Colab) once took ceil(0) = 0 sessions for a job of 0 h, so -1
    restarts, a line of -0.5 h and a negative total (hostile review 2026-12-01, #5)."""
    runtime = offer(
        product="runtime",
        provider="colab",
        accelerator=world.request.reference,
        pricing=PricingModel.COMPUTE_UNITS,
    )
    offers = [*world.offers, runtime]
    table = OfferTable(stored(*offers), world.hardware)
    asked = replace(world.request, hours=hours, session_hours=24.0, pricing="any", memory_gb=None)
    result = quote(table, world.hardware, asked)
    assert all(r.sessions >= 1 and r.hours >= 0 and r.total_usd >= 0 for r in result.rent)
    assert case_of(result, table).rent() >= 0  # the sensitivity's own pricing of the rent
