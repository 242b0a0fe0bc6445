"""Google Colab: compute units converted to dollars per GPU-hour.

Colab has no price API. Its plans sell compute units, and each runtime burns units at a
rate Google shows only inside a running notebook, so both live in dated tables under
``pricing/data/`` (colab_plans.csv, colab_runtimes.csv), each row with its source; editing
them is how this source is refreshed. An offer costs units/hour x the cheapest price per
unit among the plans. Colab guarantees no GPU and ends long sessions, so every offer is
``compute_units`` pricing, which the engine treats as interruptible (spot overhead applies).
A runtime without a sourced burn rate, or without hardware data, is not offered.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from pricing.adapters import Batch
from pricing.adapters.kit import read_table
from pricing.offer import Offer, PricingModel

PROVIDER = "colab"
# Carried into every offer's notes; the sources are Colab's FAQ (VM lifetime, no guaranteed
# resources) and googlecolab/colabtools issue #3617 (unit expiry).
PLAN_LIMITS = (
    "no guaranteed GPU; VMs have a maximum lifetime (up to 12 h on the free tier, longer "
    "on paid plans: Colab FAQ); units expire after 90 days (colabtools #3617)"
)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Plan:
    name: str
    usd: float
    units: float
    kind: str  # prepaid or monthly
    as_of: str
    source: str
    max_session_hours: float | None = None  # "up to": a runtime ends by then; None: unknown

    @property
    def usd_per_unit(self) -> float:
        return self.usd / self.units


@dataclass(frozen=True, slots=True)
class BurnRate:
    runtime: str
    accelerator: str  # canonical id; empty = no hardware data, not offered
    units_per_hour: float
    as_of: str
    region: str
    source: str
    notes: str


def latest_rates(rates: list[BurnRate]) -> list[BurnRate]:
    """The newest measurement per runtime (ISO dates compare as text)."""
    newest: dict[str, BurnRate] = {}
    for rate in rates:
        if rate.runtime not in newest or rate.as_of > newest[rate.runtime].as_of:
            newest[rate.runtime] = rate
    return list(newest.values())


def colab_offers(plans: list[Plan], rates: list[BurnRate]) -> list[Offer]:
    plan = min(plans, key=lambda p: p.usd_per_unit)
    offers = []
    for rate in latest_rates(rates):
        if not rate.accelerator:
            log.info("colab: runtime %s not offered: %s", rate.runtime, rate.notes)
            continue
        notes = (
            f"{rate.units_per_hour:g} units/h x ${plan.usd_per_unit:.5f}/unit "
            f"({plan.name}, {plan.as_of}); {PLAN_LIMITS}"
        )
        offers.append(
            Offer(
                provider=PROVIDER,
                service="Colab",
                product=f"{rate.runtime} runtime",
                region=rate.region,
                accelerator=rate.accelerator,
                count=1,
                pricing=PricingModel.COMPUTE_UNITS,
                usd_per_hour=rate.units_per_hour * plan.usd_per_unit,
                price_as_of=rate.as_of,
                source=f"burn rate: {rate.source}; unit price: {plan.source}",
                confidence="high",
                notes=f"{notes}; {rate.notes}" if rate.notes else notes,
            )
        )
    return offers


@dataclass(frozen=True, slots=True)
class SessionTerms:
    """What a long job meets on Colab: runtimes end after ``session_hours`` (the job restarts
    from a checkpoint), and units come in plans (a monthly plan buys ``units`` a month)."""

    session_hours: float
    usd_per_unit: float  # the unit price the offers are priced at
    monthly: Plan  # the monthly plan with the most units


def session_terms(plans: list[Plan]) -> SessionTerms | None:
    """The terms of the plan the offers are priced at; None when the data lacks them."""
    priced = min(plans, key=lambda p: p.usd_per_unit)
    monthly = [p for p in plans if p.kind == "monthly"]
    if priced.max_session_hours is None or not monthly:
        return None
    return SessionTerms(
        priced.max_session_hours, priced.usd_per_unit, max(monthly, key=lambda p: p.units)
    )


def load_plans() -> list[Plan]:
    return [
        Plan(
            r["plan"],
            float(r["usd"]),
            float(r["units"]),
            r["kind"],
            r["as_of"],
            r["source"],
            float(r["max_session_hours"]) if r["max_session_hours"] else None,
        )
        for r in read_table("colab_plans.csv")
    ]


def load_rates() -> list[BurnRate]:
    return [
        BurnRate(
            r["runtime"],
            r["accelerator"],
            float(r["units_per_hour"]),
            r["as_of"],
            r["region"],
            r["source"],
            r["notes"],
        )
        for r in read_table("colab_runtimes.csv")
    ]


class ColabAdapter:
    name = PROVIDER

    def __init__(
        self,
        plans: Callable[[], list[Plan]] = load_plans,
        rates: Callable[[], list[BurnRate]] = load_rates,
    ) -> None:
        self._plans = plans
        self._rates = rates

    def fetch(self) -> Batch:
        rates = self._rates()
        newest = max(rate.as_of for rate in rates)
        return Batch(colab_offers(self._plans(), rates), f"colab tables, newest rate {newest}")
