"""What owning costs besides the cards: where they run, the whole systems some are sold as,
the network between nodes, selling them on, and money over time.

Every figure is one row of ``data/ownership.csv`` (or ``data/systems.csv``) with its source,
the date it held and how it was obtained; the engine takes them as defaults a question may
override. The research behind them is ``docs/research/ownership-2026-12-04.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

# Where bought hardware runs. Each site brings its own tariff, overhead and running costs.
SITES = ("home", "office", "colo")
# A site's assumptions, as service/engine/assumptions.py names them.
SITE_PARAMETERS = (
    "electricity",
    "pue",
    "colo_usd_per_kw_month",
    "support_share",
    "staff_usd_per_node_year",
)
SEGMENTS = ("consumer", "datacenter")


@dataclass(frozen=True, slots=True)
class Sourced:
    """One default: its value, range where sources differ, and where it came from."""

    item: str
    value: float
    low: float | None
    high: float | None
    unit: str
    as_of: str
    kind: str  # measured, list, quoted or estimated
    source: str

    def cite(self) -> str:
        """The value as an answer states it: value, date, kind and source."""
        spread = ""
        if self.low is not None or self.high is not None:
            spread = f", range {self.low if self.low is not None else self.value:g}-"
            spread += f"{self.high if self.high is not None else self.value:g}"
        return f"{self.value:g} {self.unit} ({self.kind}, {self.as_of}{spread}): {self.source}"


@dataclass(frozen=True, slots=True)
class System:
    """A whole node an accelerator is sold in (an HGX board in its server): bought whole."""

    accelerator: str
    cards: int
    usd: float
    usd_low: float | None
    usd_high: float | None
    as_of: str
    kind: str
    source: str


@dataclass(frozen=True)
class Ownership:
    items: dict[str, Sourced]
    systems: dict[str, System]  # by accelerator id

    def __post_init__(self) -> None:
        wanted = [f"site.{s}.{p}" for s in SITES for p in SITE_PARAMETERS]
        wanted += [f"resale.{s}.first_owner_drop" for s in SEGMENTS]
        wanted += ["resale.datacenter.yearly_loss", "money.discount_rate", "selling.system.share"]
        wanted += [f"selling.card.{k}" for k in ("share", "share_above", "above_usd")]
        wanted += ["selling.card.per_order_usd"]
        missing = [item for item in wanted if item not in self.items]
        if missing:
            raise ValueError(f"ownership.csv lacks {missing}")
        if not self.network_tiers:
            raise ValueError("ownership.csv has no network.up_to_<nodes> rows")

    def site(self, name: str) -> dict[str, Sourced]:
        """A site's assumptions by parameter name."""
        return {p: self.items[f"site.{name}.{p}"] for p in SITE_PARAMETERS}

    def network_per_node(self, nodes: int) -> Sourced:
        """The fabric between ``nodes`` bought nodes, per node: none for one node, cables for
        two, then one switch layer more as the cluster outgrows each."""
        for most, row in self.network_tiers:
            if nodes <= most:
                return row
        return self.network_tiers[-1][1]

    @cached_property
    def network_tiers(self) -> list[tuple[int, Sourced]]:
        """(most nodes, cost per node) from the smallest cluster up."""
        prefix = "network.up_to_"
        return sorted(
            (int(item.removeprefix(prefix)), row)
            for item, row in self.items.items()
            if item.startswith(prefix)
        )

    def selling_fee(self, sale_usd: float, system: bool) -> float:
        """The share of a sale the seller does not keep: a broker's discount for a whole
        server; a marketplace's fee schedule (a share, a lower share above a threshold, and
        a fixed fee per order) for a card."""
        if system:
            return self.items["selling.system.share"].value
        if sale_usd <= 0:
            return 0.0
        share = self.items["selling.card.share"].value
        above = self.items["selling.card.share_above"].value
        threshold = self.items["selling.card.above_usd"].value
        fee = share * min(sale_usd, threshold) + above * max(sale_usd - threshold, 0.0)
        fee += self.items["selling.card.per_order_usd"].value
        return min(fee / sale_usd, 1.0)

    def first_owner_drop(self, consumer: bool) -> Sourced:
        return self.items[f"resale.{'consumer' if consumer else 'datacenter'}.first_owner_drop"]

    def sold_whole(
        self, accelerator: str, price_usd: float | None = None, price_basis: str | None = None
    ) -> System | None:
        """The system a purchase of ``accelerator`` buys whole: where it is sold only so and
        the question prices it by the system (no price= per card, no used or launch basis)."""
        system = self.systems.get(accelerator)
        if system is None or price_usd is not None:
            return None
        return system if price_basis in (None, "new", "system") else None

    @property
    def datacenter_yearly_loss(self) -> Sourced:
        return self.items["resale.datacenter.yearly_loss"]

    def yearly_loss_of(self, accelerator: str) -> Sourced:
        """A datacenter card's yearly loss of value: its own class's measured series where
        one is sourced (``resale.datacenter.yearly_loss.<accelerator>``), else the median
        of the classes: an A100 80GB PCIe (54.5 % a year) and an SXM4 (28.2 %) do not age
        alike."""
        own = self.items.get(f"resale.datacenter.yearly_loss.{accelerator}")
        return own if own is not None else self.datacenter_yearly_loss

    @property
    def discount_rate(self) -> Sourced:
        return self.items["money.discount_rate"]
