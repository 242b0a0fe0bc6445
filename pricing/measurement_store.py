"""Throughput measured on users' own cards, kept in the same database as the prices.

A measurement is samples/s of the standardized loop (hardware/training_loops.py) on one card,
with where, when and on what software it ran; ``relative`` is that figure on the scale of
hardware/data/throughput.csv, through the newest calibration of the same workload and
model size, or None while no calibration exists. Measurements travel between teams as JSON
files (export/import).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select

from pricing.store import Store, calibrations, measurements

FILE_FORMAT = "gpu-breakeven measurements v1"


@dataclass(frozen=True)
class Calibration:
    accelerator: str  # the card whose published figure anchors the scale
    workload: str
    size: str
    samples_per_second: float
    published_relative: float
    device_name: str
    host: str
    software: str
    measured_at: datetime

    @property
    def samples_per_relative(self) -> float:
        """Samples/s of this loop that one unit of relative throughput is worth."""
        return self.samples_per_second / self.published_relative

    def describe(self) -> str:
        return (
            f"calibrated on {self.accelerator} ({self.device_name}, {self.host}, "
            f"{self.measured_at:%Y-%m-%d}, {self.software}): "
            f"{self.samples_per_second:.1f} samples/s = published {self.published_relative}"
        )


@dataclass(frozen=True)
class Measurement:
    accelerator: str
    workload: str
    size: str
    samples_per_second: float
    spread: float
    relative: float | None
    calibration: str
    device_name: str
    memory_gb: float | None
    power_limit_w: float | None
    host: str
    software: str
    measured_at: datetime


def add_calibration(store: Store, calibration: Calibration) -> None:
    with store.begin() as conn:
        conn.execute(insert(calibrations).values(**asdict(calibration)))


def latest_calibration(store: Store, workload: str, size: str) -> Calibration | None:
    query = (
        select(calibrations)
        .where(calibrations.c.workload == workload, calibrations.c.size == size)
        .order_by(calibrations.c.id.desc())
        .limit(1)
    )
    with store.connect() as conn:
        row = conn.execute(query).first()
    return None if row is None else _from_row(Calibration, row)


def add_measurements(store: Store, batch: list[Measurement]) -> None:
    """All or none, in one transaction."""
    if batch:
        with store.begin() as conn:
            conn.execute(insert(measurements), [asdict(m) for m in batch])


def latest_measurements(store: Store, accelerator: str | None = None) -> list[Measurement]:
    """The newest measurement per (accelerator, workload)."""
    query = select(measurements).order_by(measurements.c.id)
    if accelerator is not None:
        query = query.where(measurements.c.accelerator == accelerator)
    with store.connect() as conn:
        rows = conn.execute(query).all()
    newest = {(row.accelerator, row.workload): _from_row(Measurement, row) for row in rows}
    return list(newest.values())


def export_file(store: Store, path: Path) -> int:
    every = latest_measurements(store)
    document = {
        "format": FILE_FORMAT,
        "exported_at": datetime.now(UTC).isoformat(),
        "measurements": [_jsonable(m) for m in every],
    }
    path.write_text(json.dumps(document, indent=2))
    return len(every)


def read_file(path: Path, known_accelerator: Any) -> list[Measurement]:
    """Parse an exported file; raises ValueError naming every bad entry."""
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a measurements file ({exc})") from exc
    if not isinstance(document, dict) or document.get("format") != FILE_FORMAT:
        raise ValueError(f"{path}: not a '{FILE_FORMAT}' file")
    batch, errors = [], []
    names = {f.name for f in fields(Measurement)}
    for number, entry in enumerate(document.get("measurements", []), start=1):
        try:
            if set(entry) != names:
                raise ValueError(f"fields must be {sorted(names)}")
            if not known_accelerator(entry["accelerator"]):
                raise ValueError(f"unknown accelerator {entry['accelerator']!r}")
            if entry["workload"] not in ("cnn", "transformer", "rnn"):
                raise ValueError(f"unknown workload {entry['workload']!r}")
            if not float(entry["samples_per_second"]) > 0:
                raise ValueError("samples_per_second must be positive")
            entry = {**entry, "measured_at": datetime.fromisoformat(entry["measured_at"])}
            batch.append(Measurement(**entry))
        except (ValueError, TypeError, KeyError) as exc:
            errors.append(f"entry {number}: {exc}")
    if errors:
        raise ValueError("; ".join(errors))
    return batch


def _jsonable(item: Any) -> dict[str, Any]:
    values = asdict(item)
    values["measured_at"] = item.measured_at.isoformat()
    return values


def _from_row(kind: type, row: Any) -> Any:
    values = {f.name: getattr(row, f.name) for f in fields(kind)}
    moment = values["measured_at"]
    values["measured_at"] = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return kind(**values)
