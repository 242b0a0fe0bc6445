"""Which accelerator, and how many, each EC2 instance type carries (a curated table).

AWS's own price rows name a GPU count for NVIDIA types only, and nothing for Trainium or
Gaudi; the table in ``pricing/data/aws_instances.csv`` covers every accelerated family with
its source. Types marked inference, graphics, media, retired or unrated (no throughput data
yet) are known but not priced for training; a type in no row is unknown: logged and
skipped, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pricing.adapters.kit import read_table

TRAINING = "training"


@dataclass(frozen=True, slots=True)
class InstanceType:
    name: str
    accelerator: str  # canonical id; empty unless use is training
    count: int
    use: str  # training, inference, graphics, media, retired or unrated
    source: str


InstanceMap = Mapping[str, InstanceType]  # by instance type name


def load_instance_map() -> InstanceMap:
    return {
        row["instance_type"]: InstanceType(
            name=row["instance_type"],
            accelerator=row["accelerator"],
            count=int(row["count"]),
            use=row["use"],
            source=row["source"],
        )
        for row in read_table("aws_instances.csv")
    }


def training(instances: InstanceMap, name: str) -> InstanceType | None:
    """The type if it trains; None for known non-training and unknown types alike."""
    found = instances.get(name)
    return found if found is not None and found.use == TRAINING else None
