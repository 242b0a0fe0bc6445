"""Read the curated data files under ``hardware/data/`` into one :class:`Hardware` value.

Called once by the entry point; nothing is read at import time.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from hardware.cards import BASES, Card, CardPrice, ResaleCurve
from hardware.fabrics import FabricPoint, Fabrics, InstanceFabric
from hardware.hosts import Host, HostChoice, host_for
from hardware.jobs import Method, Model
from hardware.ownership import Ownership, Sourced, System
from hardware.precision import (
    DEFAULT_PRECISION,
    PRECISIONS,
    PrecisionSupport,
    fp8_gain,
    in_fp8,
)
from hardware.registry import PLATFORMS, Accelerator, Registry
from hardware.tariffs import COUNTRIES, US_STATES, Tariff, Tariffs
from hardware.throughput import Scaling, ScalingPoint, Throughput, Workload
from hardware.utilization import Run, UtilizationFit, card_factor, fit


@dataclass(frozen=True)
class Hardware:
    registry: Registry
    cards: dict[str, Card]
    throughput: dict[tuple[str, Workload], Throughput]
    scaling: Scaling
    fabrics: Fabrics  # between machines: clusters of rentals, bought nodes
    hosts: tuple[Host, ...]
    resale: ResaleCurve  # consumer cards' used-price curve; datacenter cards' is in ownership
    ownership: Ownership  # sites, systems, network, selling, money over time
    models: dict[str, Model]
    methods: dict[str, Method]
    utilization: UtilizationFit  # transformer training's MFU, fitted on published runs
    precisions: dict[str, PrecisionSupport]  # what each accelerator trains in
    tariffs: Tariffs  # electricity by country and sector, in its own currency

    def speed(
        self, accelerator: str, workload: Workload, precision: str = DEFAULT_PRECISION
    ) -> Throughput:
        """The card's speed for the class; in FP8, its 16-bit speed times FP8's gain there."""
        sixteen_bits = self.throughput[(accelerator, workload)]
        if precision != "fp8":
            return sixteen_bits
        peak = self.registry[accelerator].fp16_tensor_tflops
        return in_fp8(sixteen_bits, self.precisions[accelerator], peak)

    def fp8_gain(self, accelerator: str) -> float:
        """FP8's training speed over 16 bits on the card (hardware/precision.py)."""
        return fp8_gain(self.precisions, self.registry, accelerator)

    def supports(self, accelerator: str, precision: str) -> bool:
        return precision in self.precisions[accelerator].precisions

    def efficiency(self, accelerator: str, workload: Workload, n: int) -> float:
        return self.scaling.efficiency(self.registry[accelerator].interconnect, workload, n)

    def host(self, cards: int) -> HostChoice:
        return host_for(self.hosts, cards)


def load_hardware(data_dir: Path | None = None) -> Hardware:
    """Load and cross-check the data files; a broken file fails loudly here, not mid-request."""
    folder = data_dir or Path(str(resources.files("hardware") / "data"))
    registry = Registry(_accelerator(row) for row in _rows(folder / "accelerators.csv"))
    prices: dict[str, list[CardPrice]] = {}
    for row in _rows(folder / "prices.csv"):
        prices.setdefault(row["id"], []).append(_price(row))
    consumer = {
        row["id"]: row["consumer"].strip().lower() == "true" for row in _rows(folder / "cards.csv")
    }
    unknown = set(prices) - set(consumer)
    if unknown:
        raise ValueError(f"prices.csv prices cards cards.csv lacks: {sorted(unknown)}")
    cards = {
        card_id: Card(card_id, consumer[card_id], tuple(sorted(prices[card_id], key=_order)))
        for card_id in consumer
        if card_id in prices  # a card with no sourced price is not offered for sale
    }
    throughput = {}
    for row in _rows(folder / "throughput.csv"):
        item = Throughput(
            accelerator=row["id"],
            workload=Workload(row["workload"]),
            relative=float(row["relative"]),
            method=row["method"],
            source=row["source"],
        )
        throughput[(item.accelerator, item.workload)] = item
    scaling = Scaling(
        ScalingPoint(
            interconnect=row["interconnect"],
            workload=Workload(row["workload"]),
            num_gpu=int(row["num_gpu"]),
            efficiency=float(row["efficiency"]),
            source=row["source"],
        )
        for row in _rows(folder / "scaling.csv")
    )
    fabrics = Fabrics(
        (
            FabricPoint(
                fabric=row["fabric"],
                nodes=int(row["nodes"]),
                efficiency=float(row["efficiency"]),
                kind=row["kind"],
                source=row["source"],
            )
            for row in _rows(folder / "fabrics.csv")
        ),
        (
            InstanceFabric(
                provider=row["provider"],
                product=re.compile(row["product"], re.IGNORECASE),
                fabric=row["fabric"],
                source=row["source"],
            )
            for row in _rows(folder / "instance_fabrics.csv")
        ),
    )
    for accelerator_id, _ in (*cards.items(), *throughput):
        if accelerator_id not in registry:
            raise ValueError(f"hardware data names unknown accelerator {accelerator_id!r}")
    hosts = tuple(_host(row) for row in _rows(folder / "hosts.csv"))
    (resale,) = (
        ResaleCurve(
            a=float(row["a"]),
            b=float(row["b"]),
            yearly_loss=float(row["yearly_loss"]),
            points=int(row["points"]),
            source=row["source"],
        )
        for row in _rows(folder / "resale.csv")
        if row["segment"] == "consumer"
    )
    published = _rows(folder / "sources" / "training_runs.csv")
    runs = (_run(row) for row in published if row["fit"] == "yes")
    precisions = {row["id"]: _precision_support(row) for row in _rows(folder / "precisions.csv")}
    disagree = sorted({a.id for a in registry} ^ set(precisions))
    if disagree:
        raise ValueError(f"precisions.csv and accelerators.csv disagree on {disagree}")
    utilization = fit(
        runs,
        lambda card: card_factor(throughput, registry, card),
        registry,
        lambda card: fp8_gain(precisions, registry, card),
    )
    return Hardware(
        registry=registry,
        cards=cards,
        throughput=throughput,
        scaling=scaling,
        fabrics=fabrics,
        hosts=hosts,
        resale=resale,
        ownership=_ownership(folder, registry),
        models={row["id"]: _model(row) for row in _rows(folder / "models.csv")},
        methods={row["method"]: _method(row) for row in _rows(folder / "methods.csv")},
        utilization=utilization,
        precisions=precisions,
        tariffs=_tariffs(folder),
    )


def _tariffs(folder: Path) -> Tariffs:
    tariffs = Tariffs(
        Tariff(
            country=row["country"],
            region=row["region"],
            sector=row["sector"],
            per_kwh=float(row["per_kwh"]),
            currency=row["currency"],
            period=row["period"],
            kind=row["kind"],
            source=row["source"],
            state=row["state"],
        )
        for row in _rows(folder / "tariffs.csv")
    )
    if set(tariffs.countries) != set(COUNTRIES):
        raise ValueError(f"tariffs.csv covers {tariffs.countries}, not {COUNTRIES}")
    if set(tariffs.states) != set(US_STATES):
        raise ValueError(f"tariffs.csv has the states {tariffs.states}, not {US_STATES}")
    return tariffs


def _precision_support(row: dict[str, str]) -> PrecisionSupport:
    named = frozenset(p for p in row["precisions"].split("|") if p)
    unknown = sorted(named - set(PRECISIONS))
    if unknown or not named:
        raise ValueError(f"precisions.csv {row['id']}: {unknown or 'none'}, not of {PRECISIONS}")
    return PrecisionSupport(row["id"], named, _number(row["fp8_tflops"]), row["source"])


def _precision(text: str) -> str:
    """bf16, fp16 or fp8 as the source's text begins; a run that does not say trained in
    16 bits like every other, and says so."""
    word = text.split()[0].lower() if text.strip() else ""
    return word if word in ("bf16", "fp16", "fp8") else "16-bit (not stated)"


def _run(row: dict[str, str]) -> Run:
    params = float(row["params"])
    return Run(
        id=row["run"],
        accelerator=row["accelerator_id"],
        params=params,
        active_params=_number(row["active_params"]) or params,
        tokens=float(row["tokens_or_images"]),
        hours=float(row["accelerator_hours"]),
        layers=int(row["layers"]),
        hidden=int(row["hidden"]),
        seq_len=int(row["seq_len"]),
        precision=_precision(row["precision"]),
        software_year=int(row["software_year"]),
        source=row["source"],
        hours_from=row["hours_from"],
        team=row["team"],
    )


def _ownership(folder: Path, registry: Registry) -> Ownership:
    items = {row["item"]: _sourced(row) for row in _rows(folder / "ownership.csv")}
    systems = {row["accelerator"]: _system(row) for row in _rows(folder / "systems.csv")}
    unknown = {a for a in systems if a not in registry}
    if unknown:
        raise ValueError(f"systems.csv names unknown accelerators {sorted(unknown)}")
    return Ownership(items, systems)


def _sourced(row: dict[str, str]) -> Sourced:
    return Sourced(
        item=row["item"],
        value=float(row["value"]),
        low=_number(row["low"]),
        high=_number(row["high"]),
        unit=row["unit"],
        as_of=row["as_of"],
        kind=row["kind"],
        source=row["source"],
    )


def _system(row: dict[str, str]) -> System:
    return System(
        accelerator=row["accelerator"],
        cards=int(row["cards"]),
        usd=float(row["usd"]),
        usd_low=_number(row["usd_low"]),
        usd_high=_number(row["usd_high"]),
        as_of=row["as_of"],
        kind=row["kind"],
        source=row["source"],
    )


def _rows(path: Path) -> Iterator[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        yield from csv.DictReader(handle)


def _number(text: str) -> float | None:
    return float(text) if text.strip() else None


def _accelerator(row: dict[str, str]) -> Accelerator:
    return Accelerator(
        id=row["id"],
        name=row["name"],
        kind=row["kind"],
        memory_gb=float(row["memory_gb"]),
        program_memory_gb=_number(row["program_memory_gb"]),
        board_power_w=_number(row["board_power_w"]),
        fp16_tensor_tflops=_number(row["fp16_tensor_tflops"]),
        mem_bw_gbps=_number(row["mem_bw_gbps"]),
        interconnect=row["interconnect"],
        platform=_platform(row),
        spec_source=row["spec_source"],
        aliases=tuple(a.strip() for a in row["aliases"].split("|") if a.strip()),
    )


def _price(row: dict[str, str]) -> CardPrice:
    if row["basis"] not in BASES:
        raise ValueError(f"{row['id']}: basis {row['basis']!r} is none of {BASES}")
    return CardPrice(
        basis=row["basis"],
        usd=float(row["usd"]),
        usd_low=_number(row["usd_low"]),
        usd_high=_number(row["usd_high"]),
        as_of=row["as_of"],
        kind=row["kind"],
        source=row["source"],
        notes=row["notes"],
    )


def _order(price: CardPrice) -> tuple[int, str]:
    return BASES.index(price.basis), price.as_of


def _host(row: dict[str, str]) -> Host:
    return Host(
        name=row["host"],
        max_cards=int(row["max_cards"]),
        site=row["site"],
        price_usd=float(row["price_usd"]),
        watts=float(row["watts"]),
        price_kind=row["price_kind"],
        price_as_of=row["price_as_of"],
        price_source=row["price_source"],
        watts_kind=row["watts_kind"],
        watts_source=row["watts_source"],
    )


def _model(row: dict[str, str]) -> Model:
    def whole(name: str) -> int | None:
        return int(row[name]) if row[name].strip() else None

    return Model(
        id=row["id"],
        family=row["family"],
        workload=row["workload"],
        params=float(row["params"]),
        layers=whole("layers"),
        hidden=whole("hidden"),
        seq_len=whole("seq_len"),
        vocab=whole("vocab"),
        forward_gmacs=_number(row["forward_gmacs"]),
        source=row["source"],
        date=row["date"],
    )


def _method(row: dict[str, str]) -> Method:
    return Method(
        name=row["method"],
        flops_factor=float(row["flops_factor"]),
        time_factor=float(row["time_factor"]),
        bytes_per_param=float(row["bytes_per_param"]),
        source=row["source"],
        notes=row["notes"],
    )


def _platform(row: dict[str, str]) -> str:
    if row["platform"] not in PLATFORMS:
        raise ValueError(f"{row['id']}: platform {row['platform']!r} is none of {PLATFORMS}")
    return row["platform"]
