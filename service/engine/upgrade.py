"""The upgrade question: a team owns a card already (``own=``). Keep it and do the work on it,
sell it now and buy the new cards, or sell it and rent?

Each path is counted from now until the work is done, the owned card valued at what selling
it now brings (its used price less fees): upgrade and rent sell it now, so they cost what
buying and renting cost; keep forgoes that sale, pays the owned card's power and site, and
sells it at the end for less. Present values at the quote's discount rate, as the verdict
weighs them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hardware import Hardware
from service.engine.breakeven import Quote, QuoteError
from service.engine.costs import buy_assumptions, buy_model, calendar_hours

PATHS = ("keep", "upgrade", "rent")


@dataclass(frozen=True)
class UpgradePath:
    name: str  # keep, upgrade or rent
    total_usd: float | None  # cash, the owned card valued at its sale now; None: it cannot
    present_usd: float | None
    wall_clock_hours: float | None
    note: str


@dataclass(frozen=True)
class Upgrade:
    owned: str  # the owned card's id
    value_usd: float  # what it sells for used now, before fees
    value_source: str
    sale_usd: float  # what selling it now brings, fees paid
    paths: tuple[UpgradePath, ...]  # in PATHS order
    best: str  # the path with the lowest present value


def upgrade(hardware: Hardware, quote: Quote, owned: str) -> Upgrade:
    """The three paths for the work ``quote`` priced, owning one ``owned`` card."""
    card = hardware.cards.get(owned)
    used = None if card is None else card.price("used")
    if used is None:
        raise QuoteError("own", f"no sourced used price for {owned}: its value now is unknown")
    request = quote.request
    fee = hardware.ownership.selling_fee(used.usd, system=False)
    sale = used.usd * (1.0 - fee)
    keep = _keep(hardware, quote, owned, used.usd, sale)
    cheapest = quote.rent[0]
    rent = UpgradePath(
        "rent",
        cheapest.total_usd,
        cheapest.present_usd,
        cheapest.hours,
        f"sell the {owned} now and rent {cheapest.stored.offer.provider} "
        f"{cheapest.stored.offer.product}",
    )
    source = f"used price ({used.kind}) as of {used.as_of}: {used.source}"
    if owned == request.reference:
        # the card asked about is the one owned: nothing to buy, keep it or rent
        paths: tuple[UpgradePath, ...] = (keep, rent)
        return Upgrade(owned, used.usd, source, sale, paths, _best(paths))
    upgrade_path = UpgradePath(
        "upgrade",
        quote.buy.total_usd,
        quote.buy.present_usd,
        quote.buy.wall_clock_hours,
        f"sell the {owned} now for {sale:,.0f} USD after fees and buy {request.gpus} x "
        f"{request.reference}",
    )
    paths = (keep, upgrade_path, rent)
    return Upgrade(owned, used.usd, source, sale, paths, _best(paths))


def _best(paths: tuple[UpgradePath, ...]) -> str:
    """The path with the lowest present value (rent always has one)."""
    return min(
        (p for p in paths if p.present_usd is not None), key=lambda p: p.present_usd or 0.0
    ).name


def _keep(
    hardware: Hardware, quote: Quote, owned: str, value_usd: float, sale_usd: float
) -> UpgradePath:
    """The owned card does the work alone, in the host it has (no host to buy), at the
    site and assumptions of the question; its value now is what keeping it forgoes. The
    memory it must hold is what the question states (memory=) or a described job needs:
    work stated in hours needs no more, whatever the card asked about holds."""
    request = quote.request
    acc = hardware.registry[owned]
    need = request.memory_gb
    if need is not None and acc.device_memory_gb < need:
        return UpgradePath(
            "keep",
            None,
            None,
            None,
            f"the {owned} holds {acc.memory_gb:g} GB, the job needs {need:g} GB per card",
        )
    if request.total_memory_gb is not None and acc.memory_gb < request.total_memory_gb:
        return UpgradePath(
            "keep",
            None,
            None,
            None,
            f"the {owned} holds {acc.memory_gb:g} GB, the job "
            f"needs {request.total_memory_gb:g} GB in all",
        )
    reference = quote.priced.reference_speed if quote.priced else 1.0
    speed = hardware.speed(owned, request.workload, request.precision).relative / reference
    given = replace(request.assumptions, host_cost=0.0, resale=None, selling_fee=None)
    a, _ = buy_assumptions(given, hardware, owned, 1, request.site, "used", value_usd)
    a = replace(a, utilization=quote.assumptions.utilization)
    model = buy_model(value_usd, acc.board_power_w or 0.0, 1, speed, a)
    calendar = calendar_hours(request.hours, speed, a.utilization)
    if quote.deadline_given and calendar > quote.deadline_hours * (1 + 1e-9):
        return UpgradePath(
            "keep",
            None,
            None,
            calendar,
            f"the {owned} takes {calendar:,.0f} h of calendar "
            f"time, past the deadline of {quote.deadline_hours:,.0f} h",
        )
    # the model buys the card at its value now; keeping it forgoes its sale instead
    total = model.cash(request.hours) - value_usd + sale_usd
    present = model.cost(request.hours) - value_usd + sale_usd
    note = (
        f"keep the {owned}: its power and site for {calendar:,.0f} h of calendar time "
        f"(against {quote.buy.wall_clock_hours:,.0f} h for the new cards) and the value it "
        "loses meanwhile; sold at the end"
    )
    return UpgradePath("keep", total, present, calendar, note)
