"""The /rank answer (and `breakeven rank`): which card, or which rental, per dollar."""

from __future__ import annotations

from typing import Any

from hardware.ownership import SITES
from service.documents.compact import compact
from service.documents.errors import InvalidQuestion, Unanswerable
from service.documents.freshness import freshness
from service.documents.gpus import resolve_gpu
from service.documents.money import asked_rate, fx_document, in_dollars, with_currency
from service.documents.offers import RANKED, named, offer_fields
from service.documents.place import asked_currency, left_out_providers, tariff
from service.documents.queries import MAX_CARDS, RankQuery, competing_platforms, market_tiers
from service.documents.question import (
    Question,
    deadline_document,
    home_country,
    read_question,
    reading,
    rented_accelerators,
    states_work,
)
from service.documents.summary import rank_summary
from service.documents.work import check_precision, job_workload, precision_document, work_document
from service.engine.assumptions import with_overrides
from service.engine.breakeven import NoMatchingOffers, Quote, QuoteError, quote
from service.engine.hours import HOURS_PER_DAY
from service.engine.ranking import (
    RankedCard,
    Ranking,
    RankRequest,
    off_platforms,
    rank,
    ranks_by_work,
    untrained_in,
)
from service.runtime import Runtime


def rank_document(query: RankQuery, runtime: Runtime) -> dict[str, Any]:
    """Ranked by work per dollar where the question states the work (hours, capacity, a run
    done or a job), else by throughput per purchase dollar. Stated work is read as
    /breakeven reads it (service/documents/question.py), and its rentals are /breakeven's
    for the same question: the same cards bought, deadline, memory gate and tiers."""
    rate = asked_rate(runtime.fx, asked_currency(query, runtime.hardware))
    asked, query = query, in_dollars(query, rate)
    reference = resolve_gpu(runtime.hardware, query.gpu)
    workload = job_workload(query, runtime.hardware)
    check_precision(runtime.hardware, reference.id, workload, query.precision)
    question = read_question(query, runtime) if states_work(query) else None
    if question is None and query.deadline_days is not None:
        raise InvalidQuestion("deadline_days", "a deadline needs the work stated (hours=)")
    work = None if question is None else question.work
    memory = query.memory
    if memory is None and work is not None:
        memory = work.memory_gb
    assumptions = with_overrides(runtime.assumptions, query)
    if question is not None:
        assumptions = question.assumptions
    sites = {
        site: power
        for site in SITES
        if query.electricity is None
        and (power := tariff(runtime.hardware, runtime.fx, query.country, site, query.state))
    }
    request = RankRequest(
        workload=workload,
        reference=reference.id,
        memory_gb=memory,
        budget_usd=query.budget,
        hours=work.hours if work is not None else None,
        top=query.top,
        assumptions=assumptions,
        platforms=competing_platforms(query.platforms, reference.platform),
        markets=market_tiers(query.market),
        pricing=query.pricing,
        site=query.site,
        precision=query.precision,
        excluded_providers=left_out_providers(query, None),
        home=home_country(query),
        accelerators=rented_accelerators(query, runtime),
        electricity_at={site: power["usd_per_kwh"] for site, power in sites.items()},
        most_cards=MAX_CARDS,
    )
    rented = None if question is None else _quoted(runtime, question)
    ranking = rank(runtime.hardware, runtime.catalog.table(), request, rented)
    document = ranking_document(ranking, runtime.settings.stale_after_hours)
    document["rent"] = [named(line, runtime.hardware.registry) for line in document["rent"]]
    document["work"] = None
    document["deadline"] = None
    if question is not None:
        assert work is not None
        document["work"] = {
            **work_document(work, reference.id),
            "reading": reading(question, rented.buy.hours if rented else work.hours),
            "cards_bought": question.cards_bought,
        }
        document["deadline"] = None if rented is None else deadline_document(question, rented)
    document["precision"] = {
        **precision_document(runtime.hardware, reference.id, query.precision),
        "left_out": untrained_in(runtime.hardware, query.precision),
    }
    document["platform_left_out"] = off_platforms(runtime.hardware, request.platforms)
    document["tariff"] = sites.get(query.site or "home")
    document = with_currency(document, rate)
    document["fx"] = fx_document(asked, rate, runtime.settings.fx_stale_after_days)
    document = {"summary": rank_summary(document), **document}
    return compact(document) if query.detail == "compact" else document


def _quoted(runtime: Runtime, question: Question) -> Quote | None:
    """/breakeven's quote of the same question, whose rentals /rank lists; None: no rental
    passes the filters (the ranking lists none, as it does without stated work)."""
    try:
        return quote(runtime.catalog.table(), runtime.hardware, question.request)
    except NoMatchingOffers:
        return None
    except QuoteError as exc:
        (parameter, reason), *also = exc.blamed
        raise Unanswerable("cannot-quote", str(exc), parameter, reason, also=also) from exc


def ranking_document(ranking: Ranking, stale_after_hours: float) -> dict[str, Any]:
    r = ranking.request
    return {
        "workload": str(r.workload),
        "gpu": r.reference,
        "memory": r.memory_gb,
        "budget": r.budget_usd,
        "hours": r.hours,
        "deadline_days": (
            None if ranking.deadline_hours is None else ranking.deadline_hours / HOURS_PER_DAY
        ),
        "platforms": sorted(r.platforms) if r.platforms is not None else "all",
        "market": sorted(r.markets) if r.markets is not None else "all",
        "pricing": r.pricing,
        "ranked_by": "reference_hours_per_usd" if ranks_by_work(r) else "throughput_per_1000_usd",
        "cards": [_card(c) for c in ranking.cards],
        "too_small": [_card(c) for c in ranking.too_small],
        "rent": [
            {
                **offer_fields(x.stored, RANKED),
                "usd_per_reference_hour": x.usd_per_reference_hour,
                "reference_hours_per_usd": 1 / x.usd_per_reference_hour,
                "throughput_estimated": x.throughput_estimated,
                "instances": x.instances,
                "wall_clock_hours": x.wall_clock_hours,
            }
            for x in ranking.rent
        ],
        "candidates": ranking.candidates,
        "prices": freshness([x.stored for x in ranking.rent], stale_after_hours),
    }


def _card(c: RankedCard) -> dict[str, Any]:
    return {
        "id": c.accelerator.id,
        "name": c.accelerator.name,
        "platform": c.accelerator.platform,
        "memory_gb": c.accelerator.memory_gb,
        "board_power_w": c.accelerator.board_power_w,
        "fits": c.fits,
        "within_budget": c.within_budget,
        "purchase_usd": c.card.purchase_usd,
        "price_kind": c.card.price_kind,
        "price_as_of": c.card.price_as_of,
        "price_source": c.card.price_source,
        "price_confidence": c.card.confidence,
        "throughput": {"relative": c.relative, "method": c.method, "source": c.source},
        "throughput_per_1000_usd": c.throughput_per_1000_usd,
        "tco_usd": c.tco_usd,
        "reference_hours_per_usd": c.reference_hours_per_usd,
        "cards": c.cards,
        "replacements": c.replacements,
        "within_deadline": c.within_deadline,
    }
