"""The /breakeven answer (and `breakeven quote`): rent or buy, every assumption echoed."""

from __future__ import annotations

import functools
from dataclasses import asdict, fields, replace
from typing import Any

from hardware import Registry, Throughput, Workload
from pricing.adapters.colab import SessionTerms
from pricing.measurement_store import Measurement
from pricing.offer import (
    INTERRUPTIBLE,
    PricingModel,
    StoredOffer,
    admitted_names,
)
from pricing.tiers import tier_for
from service.documents.brief import RENT_LINES, brief
from service.documents.errors import Unanswerable
from service.documents.freshness import PriceMoments, iso
from service.documents.gpus import resolve_gpu
from service.documents.moment import catalog_at
from service.documents.money import asked_rate, fx_document, in_dollars, with_currency
from service.documents.offers import RENTED, offer_fields, offer_name
from service.documents.place import asked_currency
from service.documents.queries import BreakevenQuery, sensitivity_parameters
from service.documents.question import BuyTerms, deadline_document, read_question, reading
from service.documents.sensitivity import ranges_document, sensitivity_document
from service.documents.summary import breakeven_summary, sound_price
from service.documents.work import job_workload, precision_document, work_document
from service.engine.assumptions import as_dict
from service.engine.breakeven import (
    LeftOut,
    MemoryGate,
    NoMatchingOffers,
    Quote,
    QuoteError,
    RentOption,
    TierBest,
    quote,
)
from service.engine.costs import NEVER_REASONS, never_reason, verdict
from service.engine.curves import Curves, cost_curves
from service.engine.interruption import extra_work, overhead_basis
from service.engine.lru import Lru
from service.engine.offer_table import OfferTable
from service.engine.ranges import CostSpread, cost_spread, ranges
from service.engine.request import QuoteRequest
from service.engine.upgrade import Upgrade, upgrade
from service.runtime import Runtime

# Why the headline compares with what it does, per `pricing` choice.
PRICING_WHY = {
    "dependable": (
        "the default: capacity that is not taken back mid-run (on-demand or a committed "
        "term); interruptible offers stand beside it in `tiers`, with their risk "
        "(pricing=any makes the cheapest of all the headline)"
    ),
    "any": "pricing=any: the cheapest of every tier, interruptible ones included",
}


def breakeven_document(query: BreakevenQuery, runtime: Runtime) -> dict[str, Any]:
    """The answer, in the question's currency where it asks one (service/documents/money.py).

    The same question on the same catalog, at the same rate, has the same answer but for
    the prices' ages and the rate's: each worker remembers the finished answer (converted,
    summarised, compacted) and recomputes only those two per request."""
    on = query.at.date() if query.at is not None else None
    rate = asked_rate(runtime.fx, asked_currency(query, runtime.hardware), on)
    asked = in_dollars(query, rate)
    gpu = resolve_gpu(runtime.hardware, asked.gpu)
    workload = job_workload(asked, runtime.hardware)
    measured = _measurement(asked, runtime, gpu.id, workload)
    table = catalog_at(runtime, asked.at)
    at_rate = None if rate is None else (rate.currency, rate.day, rate.per_usd)
    key = ("breakeven", asked, at_rate, table.generation, measured)
    fx = fx_document(query, rate, runtime.settings.fx_stale_after_days)
    # Each caller gets a top level of its own; what lies below is shared: read, don't write.
    remembered = runtime.answers.get(key)
    if remembered is None:
        document, used = _answer(asked, runtime, gpu.id, workload, measured, table)
        document = with_currency(document, rate)
        # what a person reads first: the sentence, then the verdict, then the figures
        document = {
            "summary": breakeven_summary({**document, "fx": fx}),
            "verdict": document["verdict"],
            **document,
            "fx": None,  # below, per request: its age moves with the day
        }
        if query.detail == "compact":
            currency = rate.currency if rate is not None else "USD"
            document = brief(document, currency, listed=len(used))
        remembered = (document, _price_dates(used), PriceMoments.of(used))
        runtime.answers.put(key, remembered)
    document, dates, moments = remembered
    prices = {**dates, **moments.ages(runtime.settings.stale_after_hours)}  # as of now
    if query.detail == "compact":  # the headline's freshness, not each provider's
        prices = {key: prices[key] for key in ("as_of", "age_seconds", "stale")}
        fx = {key: fx[key] for key in ("currency", "per_usd", "as_of", "stale")}
    return {**document, "prices": prices, "fx": fx}


def _answer(
    query: BreakevenQuery,
    runtime: Runtime,
    gpu: str,
    workload: Workload,
    measured: Measurement | None,
    table: OfferTable,
) -> tuple[dict[str, Any], list[StoredOffer]]:
    """The document, and the offers whose prices it used."""
    terms = BuyTerms(
        price_usd=query.price,
        price_basis=query.price_basis,
        watts=query.watts,
        rent_factor=query.rent_factor,
        reference_speed=measured.relative if measured is not None else None,
        own=query.own,
    )
    question = read_question(query, runtime, terms)
    request, work = question.request, question.work
    asked = sensitivity_parameters(query.sensitivity)
    # what-ifs price the answer's offers again: those of a full reading, whatever came before
    what_ifs = bool(asked) or work.hours_spread is not None
    try:
        result = quote(table, runtime.hardware, request, again_ok=not what_ifs)
    except QuoteError as exc:
        slug = "no-matching-offers" if isinstance(exc, NoMatchingOffers) else "cannot-quote"
        (parameter, reason), *also = exc.blamed
        raise Unanswerable(slug, str(exc), parameter, reason, also=also) from exc
    lines = RentLines(result, runtime.colab, runtime.hardware.registry)
    document = _quote_document(result, lines, compact=query.detail == "compact")
    if query.detail == "full":  # the compact answer draws no chart: its curves are not sampled
        names = [line["name"] for line in document["rent"]]
        document["curves"] = _curves(cost_curves(result, names))
    document["throughput"] = _throughput_used(runtime, request, measured)
    if question.owned is not None:
        try:
            found = upgrade(runtime.hardware, result, question.owned)
        except QuoteError as exc:
            raise Unanswerable("cannot-quote", str(exc), "own", str(exc)) from exc
        document["own"] = _own(found)
        if found.owned == gpu:  # nothing to buy: the owned card is the buy side
            document["verdict"] = "buy" if found.best == "keep" else "rent"
    if asked:
        reference = runtime.hardware.speed(request.reference, request.workload, request.precision)
        if measured is not None:  # the user's own card: a measurement, whatever the table's
            reference = replace(reference, relative=measured.relative, method="measured")
        document["sensitivity"] = sensitivity_document(result, table, asked)
        spread = ranges(result, table, reference, work.hours_spread)
        document["ranges"] = ranges_document(spread)
    document["cost_spread"] = (
        None
        if work.hours_spread is None or question.owned is not None
        else _cost_spread(cost_spread(result, table, work.hours_spread))
    )
    document["deadline"] = deadline_document(question, result)
    document["work"] = {
        **work_document(work, gpu),
        "reading": reading(question, result.buy.hours),
        "cards_bought": question.cards_bought,
    }
    document["precision"] = precision_document(runtime.hardware, gpu, query.precision)
    document["tariff"] = question.power
    return document, [option.stored for option in result.rent]


def _cost_spread(spread: CostSpread) -> dict[str, Any]:
    return {**asdict(spread), "ratios": list(spread.ratios)}


def _measurement(
    query: BreakevenQuery, runtime: Runtime, gpu: str, workload: Workload
) -> Measurement | None:
    """The user's own calibrated measurement of the card, where the query lets it count."""
    if query.throughput == "published":
        return None
    measured = runtime.measured.get(gpu, str(workload))
    if measured is None and query.throughput == "measured":
        raise Unanswerable(
            "no-measurement",
            f"no calibrated measurement of {gpu} for {workload}: run "
            f"`breakeven measure --card {gpu}` on it, or ask throughput=published",
            "throughput",
            "no calibrated measurement",
        )
    return measured


def _throughput_used(
    runtime: Runtime, request: QuoteRequest, measured: Measurement | None
) -> dict[str, Any]:
    """Which speed of the bought card the answer used, and where it came from."""
    if measured is not None:
        m = measured
        source = (
            f"measured {m.measured_at:%Y-%m-%d} on {m.device_name} ({m.host}, {m.software}); "
            f"{m.calibration}"
        )
        return {"relative": m.relative, "method": "measured-locally", "source": source}
    hardware = runtime.hardware
    return _throughput(hardware.speed(request.reference, request.workload, request.precision))


def _compact_rent(rent: list[RentOption]) -> list[RentOption]:
    """The rent lines a compact answer renders: the three it shows and, where none of them
    has a price to sign, the first listed one that has (its summary names that one); every
    one where none has (the summary counts them)."""
    shown = rent[:RENT_LINES]
    if any(_signable(option) for option in shown):
        return shown
    further = next((option for option in rent[RENT_LINES:] if _signable(option)), None)
    return rent if further is None else [*shown, further]


def _signable(option: RentOption) -> bool:
    offer = option.stored.offer
    return sound_price(offer.price_as_of, offer.confidence)


def _quote_document(result: Quote, lines: RentLines, compact: bool = False) -> dict[str, Any]:
    """The full answer of ``result``; ``compact``: what of it the compact answer shows (brief.py
    picks from it), the rent lines it lists (:func:`_compact_rent`) and each tier's best by
    name, its figures the tier's own."""
    request = result.request
    rented = _compact_rent(result.rent) if compact else result.rent
    assumptions = {
        "gpus": request.gpus,
        "memory": result.memory_gb,
        "total_memory": request.total_memory_gb,
        "providers": sorted(request.providers) if request.providers else "all",
        "platforms": sorted(request.platforms) if request.platforms is not None else "all",
        "market": sorted(request.markets) if request.markets is not None else "all",
        "pricing": request.pricing,
        "site": result.buy.site,
        "region": request.region or "all",
        "top": request.top,
        "price": result.buy.purchase_usd / request.gpus,
        "price_basis": result.buy.price_basis,
        "watts": result.buy.watts,
        **as_dict(result.assumptions),
    }
    buy = _fields(result.buy)
    buy.pop("watts")
    buy["model"] = _fields(result.buy_model)
    breakeven = None
    if result.breakeven_hours is not None and result.breakeven_days is not None:
        breakeven = _breakeven(result)
    return {
        "gpu": request.reference,
        "hours": request.hours,
        "workload": str(request.workload),
        "assumptions": assumptions,
        "buy": buy,
        "rent": [lines(option) for option in rented],
        "candidates": result.candidates,
        "memory_gate": _memory_gate(result.memory_gate),
        "left_out": _left_out(result.left_out, lines),
        "cheapest_measured": (
            None if result.cheapest_measured is None else lines(result.cheapest_measured)
        ),
        "same_card": (
            None
            if result.same_card is None
            else {
                "offers": result.same_card[1],
                "cheapest": lines(result.same_card[0]),
            }
        ),
        "deadline": None,  # the question's rules: deadline_document
        "verdict": result.verdict,
        "compared_with": _compared_with(result),
        "money": _money(result),
        "savings_usd": result.savings_usd,
        "breakeven": breakeven,
        "payoff": payoff_case(result),
        "never_because": _never_because(result),
        "tiers": [_tier(best, result, lines, compact) for best in result.tiers],
        "prices": None,  # per request: the prices' ages move with the clock
    }


def _curves(curves: Curves) -> dict[str, Any]:
    """Both sides' present costs over work, as the engine sampled them (engine/curves.py)."""
    return {
        "hours": list(curves.hours),
        "days": list(curves.days),
        "buy_usd": list(curves.buy.usd),
        "rent": [{"name": curve.name, "curve_usd": list(curve.usd)} for curve in curves.rent],
        "breakeven_hours": curves.breakeven_hours,
        "how": "present values at discount_rate, both paid on the bought cards' calendar "
        "(days); buying steps up where a new set of cards is bought; each rental at the rate "
        "its break-even is solved with",
    }


def _own(found: Upgrade) -> dict[str, Any]:
    """The upgrade question: each path's cost, counting the owned card's sale."""
    return {
        "gpu": found.owned,
        "value_usd": found.value_usd,
        "value_source": found.value_source,
        "sale_usd": found.sale_usd,
        "paths": [_fields(path) for path in found.paths],
        "best": found.best,
        "how": "each path from now until the work is done and every card is sold, the owned "
        "one included; compared by present value",
    }


def _money(result: Quote) -> dict[str, Any]:
    """How money over time entered the verdict: the rate, and both sides with and without."""
    rate = result.assumptions.discount_rate
    cheapest = result.rent[0]
    return {
        "discount_rate": rate,
        "basis": result.buy.sources.get("discount_rate", "discount_rate= as given"),
        "how": "present values: the purchase now; power, the site and rentals as the work "
        "is done (a committed term as it is billed); the resale when the work is done. "
        "Rentals are chosen and listed by their present values",
        "buy_present_usd": result.buy.present_usd,
        "rent_present_usd": cheapest.present_usd,
        "buy_undiscounted_usd": result.buy.total_usd,
        "rent_undiscounted_usd": cheapest.total_usd,
    }


def _compared_with(result: Quote) -> dict[str, Any]:
    """Which rentals the headline weighed buying against, and the tier of the one it chose."""
    chosen = tier_for(result.rent[0].stored.offer)
    assert chosen is not None  # a subscription is never rented: pricing admits none
    return {
        "pricing": result.request.pricing,
        "admits": list(admitted_names(result.request.pricing)),
        "tier": chosen.name,
        "interruptible": chosen.interruptible,
        "why": PRICING_WHY.get(result.request.pricing, "as asked (pricing=)"),
    }


def _tier(found: TierBest, result: Quote, lines: RentLines, named: bool) -> dict[str, Any]:
    """One tier's best offer for the same work, and its own verdict against buying;
    ``named``: the offer by its name and fields alone (RentLines.offer), as a compact answer
    shows it."""
    tier, best = found.tier, found.best
    line = None if best is None else lines.offer(best) if named else lines(best)
    buy = result.buy.present_usd
    return {
        "tier": tier.name,
        "description": tier.description,
        "interruptible": tier.interruptible,
        "best": line,
        "total_usd": None if best is None else best.total_usd,
        "present_usd": None if best is None else best.present_usd,
        "wall_clock_hours": None if best is None else best.hours,
        "verdict": None if best is None else verdict(buy, best.present_usd),
        "savings_usd": None if best is None else abs(best.present_usd - buy),
    }


# How the answer says where buying pays off: one case per quote, so the summary, the CLI and
# the dashboard say the same thing, and never one that contradicts the verdict.
PAYOFF_CASES = {
    "after": "buying pays off after `breakeven.hours` of such work (one set of cards)",
    "not-within-life": "one set of cards' costs cross the rental's after its life, or never",
    "never": "buying never pays off: the rental costs less per hour than owning runs",
    "outlasts-buy": "the work outlasts the cards' life: sets bought one after another "
    "(`buy.replacements`), and buying still costs less",
    "outlasts-rent": "the work outlasts the cards' life: the sets bought one after another "
    "(`buy.replacements`) cost more than renting",
    "committed": "the cheapest rental's committed term is paid whole, which buying undercuts "
    "though renting costs less per hour used",
    "this-work": "buying costs less for this work, though one set of cards crosses the "
    "rental's hourly rate later (the rental's restarts or clusters)",
}


def payoff_case(result: Quote) -> str:
    """Which of PAYOFF_CASES the answer is: the verdict first, then the crossing. The
    crossing is one set of cards' against the rental's hourly rate; the verdict weighs the
    whole work, replacements and whole committed terms included, so where they disagree the
    case says why."""
    if result.buy.replacements:
        return f"outlasts-{result.verdict}"
    crossing = result.breakeven_hours
    within = crossing is not None and crossing <= result.life_hours
    if result.verdict == "buy" and (not within or crossing > result.request.hours):
        return "committed" if result.rent[0].stored.offer.term_hours else "this-work"
    if within:
        return "after"
    return "never" if crossing is None else "not-within-life"


def _never_because(result: Quote) -> dict[str, Any] | None:
    """Where buying never pays off (the ``never`` case), why, with the figures that say it:
    the rental's rate per hour of work against owning's running costs. Readers (the
    dashboard, the CLI) phrase this; none guesses the reason."""
    if payoff_case(result) != "never":
        return None
    model, rate = result.buy_model, result.rent[0].crossing_rate
    reason = never_reason(model, rate)
    return {
        "reason": reason,
        "explanation": NEVER_REASONS[reason],
        "rent_usd_per_hour": rate,
        "running_usd_per_hour": model.running_usd_per_hour,
        "margin_usd_per_hour": model.margin(rate),
        "energy_usd_per_hour": model.energy_usd_per_hour,
        "site_usd_per_hour": model.site_usd_per_hour,
        "discount_rate": result.assumptions.discount_rate,
    }


def _breakeven(result: Quote) -> dict[str, Any]:
    """Where buying stops being dearer, if within the cards' useful life: a crossing after
    the life is no payoff, so it is given as `crossing_hours` alone, never as `hours`."""
    assert result.breakeven_hours is not None and result.breakeven_days is not None
    within = result.breakeven_hours <= result.life_hours
    return {
        "hours": result.breakeven_hours if within else None,
        "days": result.breakeven_days if within else None,
        "within_life": within,
        "life_years": result.request.assumptions.lifetime_years,
        "life_hours": result.life_hours,
        "crossing_hours": result.breakeven_hours,
    }


class RentLines:
    """How the answer lists a rental: the offer as its provider sells it, named
    (offers.offer_name), then what the work on it costs. The offer's part does not move with
    the work, so it is remembered per offer and cluster size (:func:`_offer_part`): a
    question asked again with other hours lists mostly the same offers."""

    def __init__(self, result: Quote, colab: SessionTerms | None, registry: Registry) -> None:
        self._result, self._colab, self._registry = result, colab, registry

    def offer(self, option: RentOption) -> dict[str, Any]:
        """The line's offer part alone: its name and fields (read it, never write it)."""
        return _offer_part(option.stored, option.instances, self._registry)

    def __call__(self, option: RentOption) -> dict[str, Any]:
        result = self._result
        return {
            **self.offer(option),
            "wall_clock_hours": option.hours,
            "instances": option.instances,
            "instance_hours": option.hours * option.instances,
            "fabric": option.fabric,
            "cluster_efficiency": option.cluster_efficiency,
            "total_usd": option.total_usd,
            "present_usd": option.present_usd,
            "usd_per_reference_hour": option.usd_per_reference_hour,
            "breakeven_hours": option.breakeven_hours,
            "throughput_estimated": option.throughput_estimated,
            "throughput": _throughput(option.throughput),
            "sessions": _sessions(option, result, self._colab),
            "interruption": _interruption(option, result.assumptions.spot_overhead),
            "commitment": _commitment(option),
        }


def _offer_part(stored: StoredOffer, instances: int, registry: Registry) -> dict[str, Any]:
    """A rent line's offer fields, its name first (read it, never write it: it is shared)."""
    key = (id(stored), instances)
    known = _OFFER_PARTS.get(key)
    if known is not None and known[0] is stored and known[1] is registry:
        return known[2]
    fields = offer_fields(stored, RENTED)
    part = {"name": offer_name({**fields, "instances": instances}, registry), **fields}
    _OFFER_PARTS.put(key, (stored, registry, part))  # held: its id names no other offer
    return part


OFFER_PARTS_KEPT = 4096  # rent lines' offer parts remembered (_offer_part)
_OFFER_PARTS: Lru[tuple[int, int], tuple[StoredOffer, Registry, dict[str, Any]]] = Lru(
    OFFER_PARTS_KEPT
)


def _commitment(option: RentOption) -> dict[str, Any] | None:
    """A committed rental's term, what it paid for and what the work used: a term is paid
    whole, so a short job on a 1-year term pays the year. None: paid as used."""
    offer = option.stored.offer
    term = offer.term_hours
    if term is None:
        return None
    paid = option.paid_hours * option.instances
    used = option.hours * option.instances
    hourly = offer.usd_per_hour
    terms = round(option.paid_hours / term)
    # shares of the engine's total (rent_factor and all), not prices worked out again
    return {
        "term_hours": term,
        "terms": terms,
        "purchase_option": offer.purchase_option,
        "upfront_share": offer.upfront_share,
        "upfront_usd": (offer.upfront_share or 0.0) * option.total_usd / terms,
        "paid_instance_hours": paid,
        "used_instance_hours": used,
        "unused_usd": option.total_usd * (paid - used) / paid,
        "note": (
            f"{option.instances} instance(s) x {terms} term(s) of "
            f"{term:,.0f} h paid at {hourly:g} USD/h (upfront spread over the term): "
            f"{paid:,.0f} instance-hours paid, {used:,.0f} used"
        ),
    }


def _interruption(option: RentOption, spot_overhead: float) -> dict[str, Any] | None:
    """The extra work an interruptible rental was charged, and why; None: not interruptible.
    On N instances the whole job stops when any one is taken back: N times the running time
    lost (service/engine/interruption.py ``slowdown``)."""
    offer = option.stored.offer
    if offer.pricing not in INTERRUPTIBLE:
        return None
    overhead, basis = overhead_basis(offer.interruption, spot_overhead)
    n = option.instances
    extra = extra_work(overhead, n)
    if n > 1:
        basis += (
            f"; on {n} instances the job stops when any one is taken back, so it is "
            f"interrupted {n} times as often: each loses o / (1 + o) of its running time, "
            f"the {n} together {n} times that, and the job takes (1 + o) / (1 - {n - 1} x o) = "
            f"{1 + extra:.4g} times its work: {extra:.4g} extra work"
        )
    return {
        "band": offer.interruption or None,
        "overhead": overhead,
        "job_overhead": extra,
        "basis": basis,
    }


def _sessions(
    option: RentOption, result: Quote, colab: SessionTerms | None
) -> dict[str, Any] | None:
    """A session-bound rental's runtimes, and whether a monthly plan's units cover the work."""
    if colab is None or result.request.session_hours is None:
        return None
    if option.stored.offer.pricing != PricingModel.COMPUTE_UNITS:
        return None
    units = option.total_usd / colab.usd_per_unit
    plan = colab.monthly
    months = units / plan.units
    text = f"{option.sessions} session(s) of at most {colab.session_hours:g} h"
    if option.sessions > 1:
        text += (
            f", restarting {option.sessions - 1} time(s) at "
            f"{result.assumptions.restart_hours:g} h each"
        )
    if months > 1:
        text += (
            f"; needs {units:,.0f} compute units, more than {plan.name}'s {plan.units:g} a month "
            f"({months:.1f} months of it), or pay-as-you-go packs"
        )
    return {
        "count": option.sessions,
        "max_hours": colab.session_hours,
        "restart_hours": result.assumptions.restart_hours,
        "compute_units": units,
        "monthly_plan": plan.name,
        "monthly_units": plan.units,
        "exceeds_monthly_plan": months > 1,
        "note": text,
    }


def _throughput(record: Throughput) -> dict[str, Any]:
    return {"relative": record.relative, "method": record.method, "source": record.source}


def _memory_gate(gate: MemoryGate | None) -> dict[str, Any] | None:
    if gate is None:
        return None
    return {
        "applied": gate.need.gate,
        "per_accelerator_gb": gate.need.per_accelerator_gb,
        "total_gb": gate.need.total_gb,
        "per_card_overhead_gb": gate.need.per_card_overhead_gb,
        "removed": gate.removed,
    }


def _left_out(left_out: LeftOut | None, lines: RentLines) -> dict[str, Any] | None:
    """Offers the platform gate kept out, and the cheapest of them: nothing is hidden."""
    if left_out is None:
        return None
    return {
        "platforms": sorted(left_out.platforms),
        "offers": left_out.offers,
        "best": lines(left_out.best),
    }


def _price_dates(used: list[StoredOffer]) -> dict[str, Any]:
    """The cheapest rental's price date; the answer's `prices` add how old the prices of
    every listed rental are, as of each request (PriceMoments)."""
    cheapest = used[0]
    return {"as_of": cheapest.offer.price_as_of, "fetched_at": iso(cheapest.fetched_at)}


def _fields(value: Any) -> dict[str, Any]:
    """A flat dataclass as a dict, without asdict's deep copy."""
    return {name: getattr(value, name) for name in _names(type(value))}


@functools.cache
def _names(kind: type) -> tuple[str, ...]:
    """A dataclass's field names, read once per class."""
    return tuple(f.name for f in fields(kind))
