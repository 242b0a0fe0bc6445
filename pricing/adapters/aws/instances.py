"""Which accelerator, and how many, each EC2 instance type carries (a curated table).

AWS's own price rows name a GPU count for NVIDIA types only, and nothing for Trainium or
Gaudi; the table in ``pricing/data/aws_instances.csv`` covers every accelerated family with
its source. Types marked inference, graphics, media, retired or unrated (no throughput data
yet) are known but not priced for training; a type in no row is unknown: logged and
skipped, never guessed.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from importlib import resources

TRAINING = "training"


@dataclass(frozen=True, slots=True)
class InstanceType:
    name: str
    accelerator: str  # canonical id; empty unless use is training
    count: int
    use: str  # training, inference, graphics, media, retired or unrated
    source: str


class InstanceMap:
    def __init__(self, types: list[InstanceType]) -> None:
        self._types = {t.name: t for t in types}

    def __contains__(self, name: object) -> bool:
        return name in self._types

    def training(self, name: str) -> InstanceType | None:
        """The type if it trains; None for known non-training and unknown types alike."""
        found = self._types.get(name)
        return found if found is not None and found.use == TRAINING else None

    def names(self) -> list[str]:
        return sorted(self._types)


def load_instance_map() -> InstanceMap:
    text = (resources.files("pricing") / "data" / "aws_instances.csv").read_text("utf-8")
    return InstanceMap(
        [
            InstanceType(
                name=row["instance_type"],
                accelerator=row["accelerator"],
                count=int(row["count"]),
                use=row["use"],
                source=row["source"],
            )
            for row in csv.DictReader(io.StringIO(text))
        ]
    )


def family(instance_type: str) -> str:
    """``p5e.48xlarge`` -> ``p5e``: what an unknown-type log line names."""
    return instance_type.split(".", 1)[0]
