"""The curated Google Cloud tables: GPU SKU names, accelerator machine types, TPU units.

Kept as data (``pricing/data/gcp_*.csv``, each row with its source) because these facts
come from documentation, not from any API: which machine carries how many GPUs, vCPUs and
GiB, and how many chips one TPU SKU price covers.
"""

from __future__ import annotations

from dataclasses import dataclass

from pricing.adapters.kit import read_table


@dataclass(frozen=True, slots=True)
class GpuSku:
    sku_gpu: str  # the GPU name inside the SKU description ("A100 80GB")
    accelerator_type: str  # Compute Engine's name ("nvidia-a100-80gb")
    accelerator: str  # canonical id; empty = known but not priced
    attach: str  # n1 (attached to an N1 VM) or machine (A2/A3/G2)


@dataclass(frozen=True, slots=True)
class MachineType:
    name: str
    sku_family: str  # core/RAM SKU family ("A2", "G2", "A3Plus")
    accelerator_type: str
    gpus: int
    vcpus: int
    memory_gb: float


@dataclass(frozen=True, slots=True)
class TpuType:
    version: str  # v2, v3, v4, v5p, v5e, v6e
    accelerator: str
    sku_chips: int  # chips one SKU price covers
    product: str  # the smallest rentable slice
    slice_chips: int


@dataclass(frozen=True)
class GcpTables:
    gpus: dict[str, GpuSku]  # by sku_gpu
    machines: list[MachineType]
    tpus: dict[str, TpuType]  # by version


def load_tables() -> GcpTables:
    gpus = {
        row["sku_gpu"]: GpuSku(
            row["sku_gpu"], row["accelerator_type"], row["accelerator"], row["attach"]
        )
        for row in read_table("gcp_gpus.csv")
    }
    machines = [
        MachineType(
            row["machine_type"],
            row["sku_family"],
            row["accelerator_type"],
            int(row["gpus"]),
            int(row["vcpus"]),
            float(row["memory_gb"]),
        )
        for row in read_table("gcp_machines.csv")
    ]
    tpus = {
        row["version"]: TpuType(
            row["version"],
            row["accelerator"],
            int(row["sku_chips"]),
            row["product"],
            int(row["slice_chips"]),
        )
        for row in read_table("gcp_tpus.csv")
    }
    return GcpTables(gpus, machines, tpus)
