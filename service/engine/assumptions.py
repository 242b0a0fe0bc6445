"""The cost assumptions: each defined once, here, with its bounds, default and help.

Everything else derives from :class:`Assumptions`: the ``/breakeven`` and ``/rank`` query
parameters (:func:`overrides_model`), the CLI options generated from those queries, the
``BREAKEVEN_*`` settings that change the defaults, the ``assumptions`` echoed in answers
and the README's table (``breakeven docs``). A test checks that they agree.

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
    host_cost: float = Field(
        1500.0,
        ge=0,
        le=MAX_USD,
        description="Host machine around the cards, USD (an assumption; 0 if you have one).",
    )
    host_watts: float = Field(
        150.0, ge=0, le=100_000, description="Host power draw, W (an assumption)."
    )
    utilization: float = Field(
        0.5,
        ge=MIN_UTILIZATION,
        le=1,
        description="Share of calendar time the local cards train.",
    )
    resale: float = Field(
        0.0, ge=0, le=1, description="Resale value as a share of the price when new (0 = off)."
    )
    depreciation: float = Field(0.2, ge=0, lt=1, description="Yearly loss of resale value.")
    spot_overhead: float = Field(
        0.10,
        ge=0,
        le=10,
        description="Extra work on interruptible offers (spot, Colab): restarts, lost work.",
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


def as_dict(assumptions: Assumptions) -> dict[str, float]:
    """The echo every answer carries, in definition order."""
    return {name: getattr(assumptions, name) for name in NAMES}


def bounded(name: str) -> Any:
    """The type of one assumption with its bounds, for models that reuse it."""
    return Annotated[(float, *FIELDS[name].metadata)]


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
            bounded(field),
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


def bounds_text(name: str) -> str:
    """The bounds of one assumption as a reader writes them: ">= 0, <= 100"."""
    parts = []
    for bound in FIELDS[name].metadata:
        for attribute, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            value = getattr(bound, attribute, None)
            if value is not None:
                parts.append(f"{sign} {value:,}" if isinstance(value, int) else f"{sign} {value:g}")
    return ", ".join(parts)


def table_rows() -> list[tuple[str, str, str]]:
    """(parameter, default, help and bounds) rows: the README's table of cost parameters."""
    return [
        (name, f"{info.default:g}", f"{info.description} ({bounds_text(name)})")
        for name, info in FIELDS.items()
    ]
