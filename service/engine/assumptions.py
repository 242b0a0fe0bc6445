"""The cost assumptions: each defined once, here, with its bounds, default and help.

Everything else derives from :class:`Assumptions`: the ``/breakeven`` and ``/rank`` query
parameters (:func:`overrides_model`), the CLI options generated from those queries, the
``BREAKEVEN_*`` settings that change the defaults, the ``assumptions`` echoed in answers
and the README's table (``python -m service.docs``). A test checks that they agree.

Defaults and why:
- electricity, pue, colo_usd_per_kw_month, support_share, staff_usd_per_node_year: unset,
  the site's (`site`: home, office or colo; by default where the host class runs: a
  desktop at home, a workstation in an office, a server in colo), each sourced in
  hardware/data/ownership.csv. network_usd: by the number of bought nodes, same file.
- discount_rate 0.10 a year (ownership.csv): both sides are present values.
- load 1.0: cards are priced at their full board power while training (an upper bound).
- host_cost and host_watts: unset, the host is sized by card count from
  hardware/data/hosts.csv (desktop 1-2 cards, workstation 4, server 8; sourced price and
  draw); host_cost=0 if the host exists already.
- utilization 0.5: the cards train half of all calendar hours; sets depreciation time
  and calendar days.
- resale, depreciation and selling_fee: unset, a new card starts at its used price of the
  same month (the first-owner drop), less the seller's fees, then loses value as used cards
  do (consumer cards: resale.csv's curve; datacenter cards: ownership.csv's measured median).
  resale=0 turns resale off; resale=0.5 with depreciation=0.2 models a card sold at half
  price, losing 20 % a year.
- spot_overhead 0.10: lost work, restarts and checkpoints on interruptible offers
  (design section 3).
- restart_hours 0.5: an assumption (Google publishes none): a Colab runtime ends after at
  most 24 h on paid plans (pricing/data/colab_plans.csv), and each restart costs reconnecting,
  installing, copying data and reloading the last checkpoint.
- max_instances 64: the largest cluster of one offer a rental may take (AWS Capacity
  Blocks for ML reserve 1-64 instances; AWS HPC Blog, "Announcing Capacity Blocks support
  for AWS Parallel Computing Service", 2025). Larger clusters are negotiated, not rented.
- lifetime_years 4: an assumption, stated in every answer: cards are replaced by faster ones
  within a few years (cloud providers book servers over 5-6 years, and ML cards age faster);
  a break-even past it is reported as not reached within the life.
"""

from __future__ import annotations

from typing import Annotated, Any

from annotated_types import Le
from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.dataclasses import dataclass

from service.engine.hours import LONGEST_YEARS

# Upper bounds keep absurd inputs (1e308 USD) out of the arithmetic; each is far past any
# real price. The lower bound of utilization does the same for vanishing inputs:
# utilization=5e-324 made the break-even days infinite and the resale decay divide by zero.
MAX_USD = 100_000_000
# The assumptions that are amounts of money (or money per unit): a question in another
# currency states them in it (service/documents/money.py converts them).
MONEY_ASSUMPTIONS = (
    "electricity",
    "host_cost",
    "colo_usd_per_kw_month",
    "staff_usd_per_node_year",
    "network_usd",
)
# Amounts are bounded in dollars, once converted (service/documents/money.py). As written,
# in any currency, their upper bounds stretch by the most units of a currency a question
# may ask that a dollar buys, rounded up (the won: about 1,450): a whole server priced in
# won passes the parser and is checked in dollars after.
CURRENCY_SPAN = 10_000
MIN_UTILIZATION = 0.001  # under 9 hours a year


@dataclass(frozen=True, config=ConfigDict(allow_inf_nan=False))
class Assumptions:
    """Cost assumptions of the buy side and of interruptible rentals."""

    electricity: float | None = Field(
        None,
        ge=0,
        le=100,
        description="Electricity price, USD (or `currency`) per kWh (default: the site's "
        "tariff, hardware/data/ownership.csv: US residential at home, commercial in an office, "
        "industrial in colocation; EIA).",
    )
    pue: float | None = Field(
        None,
        ge=1,
        le=5,
        description="Power usage effectiveness: facility power over IT power (default: the "
        "site's: 1 at home and in an office, the 2025 survey average 1.54 in colocation).",
    )
    load: float = Field(
        1.0, gt=0, le=1, description="Share of board power drawn while training (1 = upper bound)."
    )
    host_cost: float | None = Field(
        None,
        ge=0,
        le=MAX_USD,
        description="Host machine around the cards, USD (or `currency`) (default: sized by "
        "card count from hardware/data/hosts.csv; 0 if you have one).",
    )
    host_watts: float | None = Field(
        None,
        ge=0,
        le=10_000_000,  # 4,096 8-card servers at 1-2 kW: the most cards a quote buys
        description="Host power draw, W (default: the sized host's, hosts.csv).",
    )
    colo_usd_per_kw_month: float | None = Field(
        None,
        ge=0,
        le=100_000,
        description="Colocation rent, USD (or `currency`) per kW of the nodes' nameplate draw "
        "per month (default: the site's: 0 at home or in an office, CBRE's 2025 North America "
        "rate in colo).",
    )
    support_share: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Support and maintenance per year, as a share of the purchase (default: "
        "the site's: 0 under a maker's warranty at home or in an office, 0.10 in colo).",
    )
    staff_usd_per_node_year: float | None = Field(
        None,
        ge=0,
        le=MAX_USD,
        description="Staff who run the nodes, USD (or `currency`) per node-year (default: the "
        "site's: 0 at home or in an office; a fleet's share of an administrator in colo).",
    )
    network_usd: float | None = Field(
        None,
        ge=0,
        le=MAX_USD,
        description="Network between bought nodes, USD (or `currency`) per node (default: none "
        "for one node; InfiniBand cables and switches by cluster size for datacenter nodes, "
        "hardware/data/ownership.csv; none for Ethernet-linked desktops).",
    )
    discount_rate: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Cost of capital per year: both sides are present values of their cash "
        "flows at this rate (default 0.10, hardware/data/ownership.csv; 0 = undiscounted).",
    )
    selling_fee: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Share of the sale price lost to selling the cards on (default: eBay's fee "
        "schedule for a card, a broker's discount for a whole server; ownership.csv).",
    )
    utilization: float = Field(
        0.5,
        ge=MIN_UTILIZATION,
        le=1,
        description="Share of calendar time the local cards train.",
    )
    resale: float | None = Field(
        None,
        ge=0,
        le=1,
        description="What the cards fetch when sold, as a share of the price paid, before "
        "depreciation, after selling fees (0 = off; default: the used price of the same "
        "month over the new price, from hardware/data/prices.csv where sourced, else the "
        "first-owner drop of ownership.csv, less selling_fee).",
    )
    depreciation: float | None = Field(
        None,
        ge=0,
        lt=1,
        description="Yearly loss of resale value (default: consumer cards the used-price "
        "curve's, resale.csv; datacenter cards the measured median of ownership.csv).",
    )
    spot_overhead: float = Field(
        0.10,
        ge=0,
        le=10,
        description="Extra work on interruptible offers whose provider publishes no "
        "interruption rate (GCP spot, Azure spot without a band, marketplaces' "
        "interruptible tier, Colab): restarts, lost work. Spot offers with a published band "
        "(AWS Spot Instance Advisor, Azure eviction rate) get the band's own overhead "
        "instead.",
    )
    restart_hours: float = Field(
        0.5,
        ge=0,
        le=100,
        description="Hours lost each time a session-limited rental (Colab) ends and the job "
        "restarts: reconnect, set up, reload data and checkpoint (an assumption; none is "
        "published).",
    )
    max_instances: int = Field(
        64,
        ge=1,
        le=4096,
        description="Most instances of one offer a rental may take as a cluster, when one "
        "cannot meet the deadline or hold the job (default 64: AWS Capacity Blocks reserve "
        "1-64 instances, the largest block a cloud sells without a negotiated contract; "
        "aws.amazon.com/blogs/hpc, 2025).",
    )
    lifetime_years: float = Field(
        4.0,
        ge=0.25,
        le=LONGEST_YEARS,
        description="Useful life of the bought cards, years: a break-even later than this "
        "is no payoff (an assumption).",
    )


DEFAULT_ASSUMPTIONS = Assumptions()
FIELDS = Assumptions.__pydantic_fields__  # name -> FieldInfo: bounds, default, help
NAMES = tuple(FIELDS)


def as_dict(assumptions: Assumptions) -> dict[str, float | None]:
    """The echo every answer carries, in definition order."""
    return {name: getattr(assumptions, name) for name in NAMES}


def bounded(name: str) -> Any:
    """The type of one assumption with its bounds, for models that reuse it: a count is
    an int (max_instances=2.5 is refused, not rounded), the rest floats."""
    kind = int if FIELDS[name].annotation is int else float
    return Annotated[(kind, *FIELDS[name].metadata)]


def stated(name: str) -> Any:
    """The type of one assumption as a question states it: an amount of money's upper bound
    stretched by CURRENCY_SPAN (it is checked in dollars once converted), the rest as
    bounded."""
    if name not in MONEY_ASSUMPTIONS:
        return bounded(name)
    kept = [item for item in FIELDS[name].metadata if getattr(item, "le", None) is None]
    widened = [Le(item.le * CURRENCY_SPAN) for item in FIELDS[name].metadata if hasattr(item, "le")]
    return Annotated[(float, *kept, *widened)]


def overrides_model(base: type[BaseModel], name: str, doc: str) -> type[BaseModel]:
    """``base`` plus every assumption as an optional field (None keeps the default), after
    ``base``'s own fields: the queries that take cost parameters."""
    fields: dict[str, Any] = {
        field: (stated(field) | None, Field(None, description=info.description))
        for field, info in FIELDS.items()
    }
    return create_model(name, __base__=base, __doc__=doc, **fields)


def defaults_model(base: type[BaseModel], name: str, help_prefix: str) -> type[BaseModel]:
    """A model with every assumption as a field holding its default (the settings)."""
    fields: dict[str, Any] = {
        field: (
            bounded(field) if info.default is not None else bounded(field) | None,
            Field(info.default, description=f"{help_prefix} `{field}=`. {info.description}"),
        )
        for field, info in FIELDS.items()
    }
    return create_model(name, __base__=base, **fields)


def with_overrides(defaults: Assumptions, values: Any) -> Assumptions:
    """``defaults`` with the assumptions ``values`` sets (a query, or the settings: any object
    with the assumptions' names; None keeps the default), validated again."""
    given = {name: getattr(values, name) for name in NAMES if getattr(values, name) is not None}
    return Assumptions(**{**as_dict(defaults), **given}) if given else defaults


BOUND_SIGNS = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}


def bounds(name: str) -> dict[str, float]:
    """The bounds of one assumption by kind: {"ge": 0, "le": 100}."""
    found = {}
    for bound in FIELDS[name].metadata:
        for attribute in BOUND_SIGNS:
            value = getattr(bound, attribute, None)
            if value is not None:
                found[attribute] = value
    return found


def bounds_text(name: str) -> str:
    """The bounds of one assumption as a reader writes them: ">= 0, <= 100"."""
    return ", ".join(
        f"{BOUND_SIGNS[kind]} {value:,}"
        if isinstance(value, int)
        else f"{BOUND_SIGNS[kind]} {value:g}"
        for kind, value in bounds(name).items()
    )


def table_rows() -> list[tuple[str, str, str]]:
    """(parameter, default, help and bounds) rows: the README's table of cost parameters."""
    return [
        (name, _default_text(info.default), f"{info.description} ({bounds_text(name)})")
        for name, info in FIELDS.items()
    ]


def _default_text(default: float | None) -> str:
    return "from data" if default is None else f"{default:g}"
