"""`breakeven measure`: a short, standardized training loop per workload class.

Published benchmarks cover some cards at some driver versions; a user's own card, cooling,
power limit and software differ. This runs the same three small training loops anywhere
(a ResNet-style CNN on synthetic images, a transformer encoder on synthetic tokens, an LSTM
on synthetic sequences), with mixed precision on GPUs, warm-up excluded, and reports
samples per second with their spread over repeats.

Samples per second of *this* loop mean nothing across workloads; they become the relative
throughput scale of hardware/data/throughput.csv through a calibration: the same loop, same
size, run on a card whose published figure is known. See the README ("Measure your own
card") for the method and its limits. PyTorch is an optional extra and imported only here,
only when a measurement runs.
"""

from __future__ import annotations

import platform
import statistics
import subprocess
import time
from dataclasses import dataclass
from typing import Any

from hardware.throughput import Workload

INSTALL_HINT = "PyTorch is needed: pip install 'gpu-breakeven[measure]'"

# Model and batch sizes per size class: "standard" for GPUs, "tiny" so CPUs finish in seconds.
SIZES: dict[str, dict[str, int]] = {
    "standard": {"image": 64, "channels": 64, "batch": 64, "d_model": 256, "layers": 4,
                 "seq": 128, "vocab": 8000, "hidden": 512},
    "tiny": {"image": 16, "channels": 8, "batch": 8, "d_model": 32, "layers": 1,
             "seq": 16, "vocab": 200, "hidden": 32},
}  # fmt: skip
WARMUP_STEPS = 3
REPEATS = 3


class MeasureError(RuntimeError):
    """The measurement cannot run as asked (no PyTorch, no CUDA device ...)."""


@dataclass(frozen=True)
class Device:
    kind: str  # cuda or cpu
    name: str
    memory_gb: float | None
    power_limit_w: float | None


@dataclass(frozen=True)
class Result:
    workload: Workload
    size: str
    samples_per_second: float  # median over repeats
    spread: float  # (max - min) / median over repeats
    repeats: int


def software() -> str:
    torch = _torch()
    cuda = getattr(torch.version, "cuda", None) or "none"
    return f"torch {torch.__version__}, CUDA {cuda}, Python {platform.python_version()}"


def detect(kind: str) -> Device:
    torch = _torch()
    if kind == "cuda":
        if not torch.cuda.is_available():
            raise MeasureError("--device cuda asked, but PyTorch sees no CUDA device")
        props = torch.cuda.get_device_properties(0)
        return Device("cuda", props.name, props.total_memory / 2**30, _power_limit())
    cores = torch.get_num_threads()
    return Device("cpu", f"CPU {platform.machine()} ({cores} threads)", None, None)


def run(workload: Workload, device: Device, seconds: float, size: str) -> Result:
    """Train ``workload``'s model for about ``seconds`` after warm-up, in REPEATS slices."""
    torch = _torch()
    dims = SIZES[size]
    target = torch.device(device.kind)
    model, batch = _model_and_batch(torch, workload, dims, target)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    use_amp = device.kind == "cuda"
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device.kind, dtype=torch.float16, enabled=use_amp):
            loss = _loss(torch, model, workload, batch)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()

    def sync() -> None:
        if use_amp:
            torch.cuda.synchronize()

    for _ in range(WARMUP_STEPS):
        step()
    sync()
    rates = []
    for _ in range(REPEATS):
        steps, started = 0, time.perf_counter()
        while True:
            step()
            steps += 1
            sync()
            elapsed = time.perf_counter() - started
            if elapsed >= seconds / REPEATS:
                break
        rates.append(steps * dims["batch"] / elapsed)
    median = statistics.median(rates)
    return Result(workload, size, median, (max(rates) - min(rates)) / median, REPEATS)


def _model_and_batch(torch: Any, workload: Workload, d: dict[str, int], device: Any) -> Any:
    nn = torch.nn
    if workload == Workload.CNN:

        class Block(nn.Module):  # a ResNet basic block
            def __init__(self, c: int) -> None:
                super().__init__()
                self.body = nn.Sequential(
                    nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU(),
                    nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c),
                )  # fmt: skip

            def forward(self, x: Any) -> Any:
                return torch.relu(x + self.body(x))

        c = d["channels"]
        model = nn.Sequential(
            nn.Conv2d(3, c, 3, padding=1), nn.ReLU(), Block(c), Block(c),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, 10),
        )  # fmt: skip
        inputs = torch.randn(d["batch"], 3, d["image"], d["image"])
        labels = torch.randint(0, 10, (d["batch"],))
    elif workload == Workload.TRANSFORMER:
        layer = nn.TransformerEncoderLayer(d["d_model"], nhead=4, batch_first=True)
        model = nn.ModuleDict(
            {
                "embed": nn.Embedding(d["vocab"], d["d_model"]),
                "encoder": nn.TransformerEncoder(layer, d["layers"]),
                "head": nn.Linear(d["d_model"], d["vocab"]),
            }
        )
        inputs = torch.randint(0, d["vocab"], (d["batch"], d["seq"]))
        labels = torch.randint(0, d["vocab"], (d["batch"], d["seq"]))
    else:
        model = nn.ModuleDict(
            {
                "embed": nn.Embedding(d["vocab"], d["hidden"]),
                "lstm": nn.LSTM(d["hidden"], d["hidden"], d["layers"], batch_first=True),
                "head": nn.Linear(d["hidden"], d["vocab"]),
            }
        )
        inputs = torch.randint(0, d["vocab"], (d["batch"], d["seq"]))
        labels = torch.randint(0, d["vocab"], (d["batch"], d["seq"]))
    model = model.to(device)
    return model, (inputs.to(device), labels.to(device))


def _loss(torch: Any, model: Any, workload: Workload, batch: Any) -> Any:
    inputs, labels = batch
    cross_entropy = torch.nn.functional.cross_entropy
    if workload == Workload.CNN:
        return cross_entropy(model(inputs), labels)
    hidden = model["embed"](inputs)
    if workload == Workload.TRANSFORMER:
        hidden = model["encoder"](hidden)
    else:
        hidden, _ = model["lstm"](hidden)
    logits = model["head"](hidden)
    return cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))


def _power_limit() -> float | None:
    """The board power limit from nvidia-smi, where it is installed and readable."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=power.limit", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
        return float(out.splitlines()[0])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise MeasureError(INSTALL_HINT) from exc
    return torch
