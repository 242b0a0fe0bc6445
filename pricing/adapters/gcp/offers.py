"""Offers from a price book: attached GPUs with their host, whole machines, TPU slices.

- Attached GPUs (T4, V100) ride on an N1 VM: each offer is n GPUs plus the host they need,
  sized at 4 vCPUs and 15 GB per GPU (n1-standard-4n), so the hourly price is what a
  training VM really costs; the GPU-only price is in the notes.
- A2/A3/G2 machines are priced whole: vCPUs x core SKU + GiB x RAM SKU + GPUs x GPU SKU.
- TPUs are normalised to the chip, then offered as the smallest slice (v2-8 = 4 chips).
Offers exist only in regions where the accelerator is offered (when availability is known)
and only where every SKU they need has a price there.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from pricing.adapters.gcp.availability import Availability
from pricing.adapters.gcp.skus import REJECTED, UNKNOWN, PriceBook
from pricing.adapters.gcp.tables import GcpTables
from pricing.adapters.kit import SkipReport
from pricing.offer import COMMITTED, Offer, PricingModel

PROVIDER = "gcp"
N1 = "N1 Predefined"
VCPUS_PER_ATTACHED_GPU = 4  # n1-standard-4 per GPU: a common, documented-valid sizing
GB_PER_N1_VCPU = 3.75  # n1-standard machines: 3.75 GB per vCPU

log = logging.getLogger("pricing.adapters.gcp")


def skip_report() -> SkipReport:
    return SkipReport(PROVIDER, log, [UNKNOWN, REJECTED])


def build_offers(
    book: PriceBook,
    tables: GcpTables,
    availability: Availability | None,
    price_as_of: str,
    skipped: SkipReport,
) -> list[Offer]:
    """Every offer the price book supports; ``availability`` None means not checked. A GPU
    the billing catalog prices but pricing/data/gcp_gpus.csv does not name (a new card) is
    reported, never dropped unseen."""
    for name in sorted({sku_gpu for sku_gpu, _, _ in book.gpu} - tables.gpus.keys()):
        skipped.add(UNKNOWN, f"{name} GPU (no row in pricing/data/gcp_gpus.csv)")
    return [
        *_attached(book, tables, availability, price_as_of),
        *_machines(book, tables, availability, price_as_of),
        *_tpus(book, tables, price_as_of, skipped),
    ]


def _committed(tier: PricingModel) -> dict[str, object]:
    """A resource-based commitment's terms: billed monthly over the term, nothing upfront."""
    if tier in COMMITTED:
        return {"purchase_option": "commitment", "upfront_share": 0.0}
    return {}


def _max_cards(availability: Availability | None, accelerator_type: str, region: str) -> int:
    if availability is None:
        return 1  # unchecked: offer the single-GPU shape only
    return availability.get(accelerator_type, {}).get(region, 0)


def _attached(
    book: PriceBook, tables: GcpTables, availability: Availability | None, price_as_of: str
) -> Iterator[Offer]:
    for (sku_gpu, region, tier), (gpu_usd, sku_id) in sorted(book.gpu.items()):
        gpu = tables.gpus.get(sku_gpu)
        if gpu is None or gpu.attach != "n1" or not gpu.accelerator:
            continue
        core = book.core.get((N1, region, tier))
        ram = book.ram.get((N1, region, tier))
        if core is None or ram is None:
            continue
        limit = _max_cards(availability, gpu.accelerator_type, region)
        n = 1
        while n <= limit:
            vcpus = VCPUS_PER_ATTACHED_GPU * n
            host = vcpus * core[0] + vcpus * GB_PER_N1_VCPU * ram[0]
            yield Offer(
                provider=PROVIDER,
                service="Compute Engine",
                product=f"n1-standard-{vcpus} + {n}x {gpu.accelerator_type}",
                region=region,
                accelerator=gpu.accelerator,
                count=n,
                pricing=tier,
                usd_per_hour=n * gpu_usd + host,
                price_as_of=price_as_of,
                source=f"Cloud Billing Catalog SKUs {sku_id}, {core[1]}, {ram[1]}",
                confidence="high",
                notes=f"GPU {gpu_usd:.4f}/h each + n1-standard-{vcpus} host {host:.4f}/h",
                **_committed(tier),
            )
            n *= 2


def _machines(
    book: PriceBook, tables: GcpTables, availability: Availability | None, price_as_of: str
) -> Iterator[Offer]:
    by_type = {g.accelerator_type: g for g in tables.gpus.values()}
    for machine in tables.machines:
        gpu = by_type.get(machine.accelerator_type)
        if gpu is None or not gpu.accelerator:
            continue
        for (sku_gpu, region, tier), (gpu_usd, gpu_sku) in sorted(book.gpu.items()):
            if sku_gpu != gpu.sku_gpu:
                continue
            core = book.core.get((machine.sku_family, region, tier))
            ram = book.ram.get((machine.sku_family, region, tier))
            if core is None or ram is None:
                continue
            if availability is not None and (
                _max_cards(availability, machine.accelerator_type, region) < machine.gpus
            ):
                continue
            host = machine.vcpus * core[0] + machine.memory_gb * ram[0]
            yield Offer(
                provider=PROVIDER,
                service="Compute Engine",
                product=machine.name,
                region=region,
                accelerator=gpu.accelerator,
                count=machine.gpus,
                pricing=tier,
                usd_per_hour=machine.gpus * gpu_usd + host,
                price_as_of=price_as_of,
                source=f"Cloud Billing Catalog SKUs {gpu_sku}, {core[1]}, {ram[1]}",
                confidence="high",
                notes=(
                    f"{machine.gpus} GPU x {gpu_usd:.4f} + {machine.vcpus} vCPU x "
                    f"{core[0]:.5f} + {machine.memory_gb:g} GB x {ram[0]:.5f}"
                ),
                **_committed(tier),
            )


def _tpus(
    book: PriceBook, tables: GcpTables, price_as_of: str, skipped: SkipReport
) -> Iterator[Offer]:
    for (version, region, tier), (usd, sku_id) in sorted(book.tpu.items()):
        tpu = tables.tpus.get(version)
        if tpu is None:
            skipped.add(UNKNOWN, f"TPU {version} (no row in pricing/data/gcp_tpus.csv)")
            continue
        per_chip = usd / tpu.sku_chips
        yield Offer(
            provider=PROVIDER,
            service="Cloud TPU",
            product=tpu.product,
            region=region,
            accelerator=tpu.accelerator,
            count=tpu.slice_chips,
            pricing=tier,
            usd_per_hour=per_chip * tpu.slice_chips,
            price_as_of=price_as_of,
            source=f"Cloud Billing Catalog SKU {sku_id}",
            confidence="high",
            notes=f"{per_chip:.4f} per chip-hour (SKU price covers {tpu.sku_chips} chip(s))",
            **_committed(tier),
        )
