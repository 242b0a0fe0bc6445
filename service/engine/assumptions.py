"""The cost assumptions: each defined once, here, with its bounds, default and help.

Everything else derives from :class:`Assumptions`: the ``/breakeven`` and ``/rank`` query
parameters (:func:`overrides_model`), the CLI options generated from those queries, the
``BREAKEVEN_*`` settings that change the defaults, the ``assumptions`` echoed in answers
and the README's table (``python -m service.docs``). A test checks that they agree.

Defaults and why:
- electricity 0.165 USD/kWh: US average residential price 2024, 16.5 cents/kWh
  (EIA Electric Power Monthly, table 5.3). Set your own tariff.
- pue 1.0: a desk or home office has no data-centre cooling overhead; use 1.3-1.6 for
  a server room.
- load 1.0: cards are priced at their full board power while training (an upper bound).
- host_cost and host_watts: unset, the host is sized by card count from
  hardware/data/hosts.csv (desktop 1-2 cards, workstation 4, server 8; sourced price and
  draw); host_cost=0 if the host exists already.
- utilization 0.5: the cards train half of all calendar hours; sets depreciation time
  and calendar days.
- resale and depreciation: unset, consumer cards follow the used-price curve of
  hardware/data/resale.csv (observed used prices against launch prices by age: sold for the
  price paid less 17.3 % a year); datacenter cards, with no sourced used prices, resell for
  0. resale=0 turns resale off; resale=0.5 with depreciation=0.2 models a card sold at half
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

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.dataclasses import dataclass

# Upper bounds keep absurd inputs (1e308 USD) out of the arithmetic; each is far past any
# real price. The lower bound of utilization does the same for vanishing inputs:
# utilization=5e-324 made the break-even days infinite and the resale decay divide by zero.
MAX_USD = 100_000_000
MIN_UTILIZATION = 0.001  # under 9 hours a year


@dataclass(frozen=True, config=ConfigDict(allow_inf_nan=False))
class Assumptions:
    """Cost assumptions of the buy side and of interruptible rentals."""

    electricity: float = Field(
        0.165,
        ge=0,
        le=100,
        description="Electricity price, USD per kWh (default: US residential average 2024, EIA).",
    )
    pue: float = Field(
        1.0, ge=1, le=5, description="Power usage effectiveness (1.3-1.6 for a server room)."
    )
    load: float = Field(
        1.0, gt=0, le=1, description="Share of board power drawn while training (1 = upper bound)."
    )
    host_cost: float | None = Field(
        None,
        ge=0,
        le=MAX_USD,
        description="Host machine around the cards, USD (default: sized by card count from "
        "hardware/data/hosts.csv; 0 if you have one).",
    )
    host_watts: float | None = Field(
        None,
        ge=0,
        le=10_000_000,  # 4,096 8-card servers at 1-2 kW: the most cards a quote buys
        description="Host power draw, W (default: the sized host's, hosts.csv).",
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
        description="Resale value as a share of the price paid, before depreciation (0 = off; "
        "default: 1 for consumer cards, from the used-price curve of hardware/data/resale.csv; "
        "0 for datacenter cards, which have no sourced used prices).",
    )
    depreciation: float | None = Field(
        None,
        ge=0,
        lt=1,
        description="Yearly loss of resale value (default: the used-price curve's, resale.csv).",
    )
    spot_overhead: float = Field(
        0.10,
        ge=0,
        le=10,
        description="Extra work on interruptible offers whose provider publishes no "
        "interruption rate (GCP and Azure spot, marketplaces' interruptible tier, Colab): "
        "restarts, lost work. AWS spot offers with a Spot Instance Advisor band get the "
        "band's own overhead instead.",
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
        le=15,
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


def overrides_model(base: type[BaseModel], name: str, doc: str) -> type[BaseModel]:
    """``base`` plus every assumption as an optional field (None keeps the default), after
    ``base``'s own fields: the queries that take cost parameters."""
    fields: dict[str, Any] = {
        field: (bounded(field) | None, Field(None, description=info.description))
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
