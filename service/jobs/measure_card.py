"""What `breakeven measure` does around the training loop: which card, which calibration,
what gets stored, and the report a person reads."""

from __future__ import annotations

import socket
from collections.abc import Sequence
from datetime import UTC, datetime

from hardware import Workload, training_loops
from pricing.measurement_store import (
    Calibration,
    Measurement,
    add_calibration,
    add_measurements,
    latest_calibration,
)
from service.runtime import Runtime


class CannotMeasure(RuntimeError):
    pass


def measure_card(
    runtime: Runtime,
    workloads: Sequence[Workload],
    seconds: float,
    device_kind: str | None,
    size: str | None,
    card: str | None,
    calibrate: bool,
) -> str:
    try:
        if device_kind is None:
            device_kind = "cuda" if _has_cuda() else "cpu"
        device = training_loops.detect(device_kind)
        size = size or ("standard" if device.kind == "cuda" else "tiny")
        accelerator = _card_id(runtime, device, card)
        software = training_loops.software()
        results = [training_loops.run(k, device, seconds, size) for k in workloads]
    except training_loops.MeasureError as exc:
        raise CannotMeasure(str(exc)) from exc
    host = socket.gethostname()
    now = datetime.now(UTC)
    lines = [f"{device.name} as {accelerator} ({size} models, {software})"]
    if calibrate:
        for r in results:
            published = runtime.hardware.speed(accelerator, r.workload)
            add_calibration(
                runtime.store,
                Calibration(
                    accelerator,
                    str(r.workload),
                    size,
                    r.samples_per_second,
                    published.relative,
                    device.name,
                    host,
                    software,
                    now,
                ),
            )
            lines.append(
                f"  {r.workload:<12} {r.samples_per_second:10.1f} samples/s (±{r.spread:.0%}) "
                f"= published {published.relative} ({published.method}): calibration stored"
            )
        return "\n".join(lines)
    batch = []
    for r in results:
        calibration = latest_calibration(runtime.store, str(r.workload), size)
        relative = None
        note = "uncalibrated: run `breakeven measure --calibrate` on a card with a published figure"
        if calibration is not None:
            relative = round(r.samples_per_second / calibration.samples_per_relative, 3)
            note = calibration.describe()
        batch.append(
            Measurement(
                accelerator,
                str(r.workload),
                size,
                r.samples_per_second,
                r.spread,
                relative,
                note,
                device.name,
                device.memory_gb,
                device.power_limit_w,
                host,
                software,
                now,
            )
        )
        published = runtime.hardware.speed(accelerator, r.workload).relative
        shown = (
            "uncalibrated" if relative is None else f"relative {relative} (published {published})"
        )
        lines.append(
            f"  {r.workload:<12} {r.samples_per_second:10.1f} samples/s (±{r.spread:.0%}) {shown}"
        )
    add_measurements(runtime.store, batch)
    lines.append(f"stored {len(batch)} measurements for {accelerator}")
    return "\n".join(lines)


def _has_cuda() -> bool:
    try:
        training_loops.detect("cuda")
    except training_loops.MeasureError:
        return False
    return True


def _card_id(runtime: Runtime, device: training_loops.Device, card: str | None) -> str:
    if card is not None:
        found = runtime.hardware.registry.find(card)
        if found is None:
            raise CannotMeasure(f"--card: unknown accelerator {card!r}")
        return found.id
    found = runtime.hardware.registry.find(device.name)
    if found is None:
        raise CannotMeasure(
            f"{device.name!r} is no card in the registry; pass --card ID to file the "
            "measurement under one (a CPU run measures no card: use it to test the path)"
        )
    return found.id
