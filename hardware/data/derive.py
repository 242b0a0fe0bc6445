"""Regenerate throughput.csv, scaling.csv and resale.csv from their sources.

Why a script: every derived number must be reproducible from its sources, so the derivation
lives here instead of in someone's notebook. accelerators.csv and cards.csv are hand-curated
and only read; sources/ holds the project's tables of the figures derived here, each row
citing where it came from (see its README). Three of them are drawn from the shared
reference data (shared/data/lambda_*.csv), never copied whole: ``--from-shared DIR`` draws
them again, the rows and columns this script reads with the citation of each row.

Run from anywhere: ``python hardware/data/derive.py`` (``--from-shared ../shared/data``
first draws the Lambda tables again). Output is deterministic.
"""

from __future__ import annotations

import csv
import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

DATA = Path(__file__).resolve().parent
SOURCES = DATA / "sources"

CLASSES = ("cnn", "transformer", "rnn")
# Exponent on tensor TFLOPS in the estimate; the rest goes to memory bandwidth (design.md 2).
ALPHA = {"cnn": 0.7, "transformer": 0.7, "rnn": 0.3}
REFERENCE = "Quadro RTX 8000"

SET_NEW = "lambda_pt_v1v2_2025-12"
SET_OLD = "lambda_pt_v0_2022-07"
SET_CITE = {
    SET_NEW: "github.com/lambdal/deeplearning-benchmark pytorch/csv_v1_v2/"
    "pytorch-train-throughput-fp16.csv@aa5addb6a5 (2025-12-17)",
    SET_OLD: "github.com/lambdal/deeplearning-benchmark pytorch/"
    "pytorch-train-throughput-fp16.csv@67a9bb5128 (2022-07-06)",
}
# Lambda names the 2025 cloud runs "LambdaCloud 1x <gpu>"; strip it to compare across sets.
CLOUD_PREFIX = "LambdaCloud 1x "

# Benchmark row name -> accelerator id. Preferred rows first; the A100 PCIe rows are only a
# fallback because a100-40gb / a100-80gb are the SXM4 parts that clouds rent out.
PRIMARY = {
    "A100 40GB SXM4": "a100-40gb",
    "A100 80GB SXM4": "a100-80gb",
    "A100 80GB PCIe": "a100-80gb-pcie",
    "LambdaCloud 1x A10": "a10",
    "LambdaCloud 1x B200 192GB SXM5": "b200",
    "LambdaCloud 1x H100 80GB PCIe": "h100-pcie",
    "LambdaCloud 1x H100 80GB SXM5": "h100-sxm",
    "LambdaCloud 1x V100 16GB": "v100-16gb",
    "V100 32GB": "v100-32gb",
    "Quadro RTX 6000": "quadro-rtx6000",
    "Quadro RTX 8000": "quadro-rtx8000",
    "RTX 2080Ti": "rtx2080ti",
    "RTX 3070": "rtx3070",
    "RTX 3080": "rtx3080",
    "RTX 3090": "rtx3090",
    "RTX 4090": "rtx4090",
    "RTX 6000 Ada": "rtx6000-ada",
    "RTX A4000": "rtx-a4000",
    "RTX A5000": "rtx-a5000",
    "RTX A6000": "rtx-a6000",
    "Titan RTX": "titan-rtx",
}
FALLBACK = {
    "LambdaCloud 1x A100 40GB PCIe": "a100-40gb",
    "A100 40GB PCIe": "a100-40gb",
}

# Lambda blog 2020-02 "choosing a GPU" table: the only source that has RTX 2060/2070/2080.
BLOG_SOURCE = "lambdalabs.com/blog/choosing-a-gpu-for-deep-learning"
BLOG_CARDS = {"RTX 2060": "rtx2060", "RTX 2070": "rtx2070", "RTX 2080": "rtx2080"}
BLOG_BASE = ("RTX 2080 Ti", "rtx2080ti")

# A10G has no published tensor TFLOPS; it is the A10's GA102 with the same memory system.
A10G_NOTE = "A10G assumed equal to A10 (same GA102 die, 24 GB, 600 GB/s)"

# Estimated cards scale from a measured sibling of the same architecture by their spec ratios:
# the global fit misses measured cards by up to 0.30x-1.7x (Blackwell, Hopper under, GeForce over),
# a sibling shares the architecture's efficiency. Cards with no sibling (TPUs, Trainium) use the
# fit.
ANCHORS = {
    "h200": "h100-sxm",  # Hopper, same die, more and faster memory
    "l40s": "rtx6000-ada",  # AD102, full-rate FP32 accumulate
    "l4": "rtx6000-ada",  # Ada datacenter part, full-rate FP32 accumulate
    "rtx4070": "rtx4090",  # Ada GeForce, half-rate FP32 accumulate
    "rtx4080": "rtx4090",
    "rtx5090": "rtx4090",  # nearest measured GeForce; Blackwell is a newer architecture
    "rtx5080": "rtx4090",
    "rtx5070ti": "rtx4090",
    "rtx-pro6000": "rtx6000-ada",  # workstation Blackwell; full-rate accumulate assumed
    "rtx3060": "rtx3090",  # Ampere GeForce
    "rtx3090ti": "rtx3090",
    "t4": "quadro-rtx8000",  # Turing, full-rate FP32 accumulate
    # China's cards (docs/research/china-2026-12-04): no training measurement found
    "rtx4090d": "rtx4090",  # AD102 with 456 of the 4090's 512 tensor cores
    "h20": "h100-sxm",  # Hopper with 148 of the H100's 989 TFLOPS and more bandwidth
    "l20": "rtx6000-ada",  # AD102 datacenter part, full-rate FP32 accumulate
}

# Per-accelerator training results against a card the Lambda sets measure (MLPerf Training
# logs; sources/training_anchors.csv): value = the measured card's value x the geometric mean
# of the speed ratios of the named benchmarks. A ratio measured at scale (GPT-3 at 1,024+
# chips) measures scaling as well, and MLPerf runs FP8/int8 where this table is FP16: the
# text says so. A ratio speaks for its own class only (issue 34): TPU v5e and the MI300X,
# with no CNN result, get an estimated CNN speed (the MI300X's held under its one training
# result, VENDOR_CEILINGS).
TRAINING_ANCHORS = {
    ("h200", "cnn"): ("h100-sxm", ("resnet", "ssd")),
    ("h200", "transformer"): ("h100-sxm", ("bert", "llama2_70b_lora")),
    ("tpu-v5e", "transformer"): ("h100-sxm", ("gpt3",)),
    ("tpu-v5p", "cnn"): ("h100-sxm", ("stable_diffusion",)),
    ("tpu-v5p", "transformer"): ("h100-sxm", ("gpt3",)),
    ("tpu-v6e", "cnn"): ("h100-sxm", ("stable_diffusion",)),
    ("tpu-v6e", "transformer"): ("h100-sxm", ("gpt3",)),
    ("mi300x", "transformer"): ("h100-sxm", ("llama2_70b_lora",)),
    # tinygrad's MLPerf entries, the same code on 6x RX 7900 XTX and on 6x RTX 4090: no
    # FP16 tensor figure is published for the RX 7900 XTX, so its RNN class takes BERT's
    ("rx7900xtx", "cnn"): ("rtx4090", ("resnet",)),
    ("rx7900xtx", "transformer"): ("rtx4090", ("bert",)),
    ("rx7900xtx", "rnn"): ("rtx4090", ("bert",)),
    # Intel's MLPerf entries on 8 Gaudi 2 against 8 H100s
    ("gaudi2", "cnn"): ("h100-sxm", ("resnet",)),
    ("gaudi2", "transformer"): ("h100-sxm", ("bert", "llama2_70b_lora")),
}
# The class each benchmark speaks for; any other use of it is a stand-in the text names.
BENCHMARK_CLASS = {
    "resnet": "cnn",
    "ssd": "cnn",
    "stable_diffusion": "cnn",
    "bert": "transformer",
    "gpt3": "transformer",
    "llama2_70b_lora": "transformer",
}
# A vendor's own projection bounds an estimate from above, class by class: no spec fit may
# promise more than the maker does. Intel projects Gaudi 3 at "40 percent faster" than an
# H100 on GPT-3 175B (IEEE Spectrum, 2024-04), its one language-model claim, and "up to 1.7x"
# on training workloads in general (The Register, 2024-04-09; sources/training_anchors.csv);
# it has no MLPerf Training result.
# The MI300X's CNN estimate (1.32x an H100 from its specs) is held under the one training
# result its makers' side has published, Llama 2 70B LoRA at 0.964x an H100 (MLPerf v5.0):
# labelled an estimate, not passed off as a CNN measurement.
VENDOR_CEILINGS = {
    ("mi300x", "cnn"): ("h100-sxm", "MLPerf Training v5.0 llama2_70b_lora (closed)"),
    ("gaudi3", "transformer"): ("h100-sxm", "GPT-3 175B time-to-train (projection)"),
    ("gaudi3", "cnn"): ("h100-sxm", "training workloads (projection)"),
    ("gaudi3", "rnn"): ("h100-sxm", "training workloads (projection)"),
}
# One chip in two memory sizes: the same speed. The 32 GB row was a 2022 value bridged to
# the 2025 scale, 38 % off the 16 GB card's 2025 measurement (data audit 2026-11-30).
SAME_CHIP = {
    "v100-32gb": "v100-16gb",
    # China's cards (docs/research/china-2026-12-04): the A100's and H100's chips with their
    # NVLink cut, which moves multi-card scaling, not one card's speed
    "a800-80gb": "a100-80gb",
    "a800-80gb-pcie": "a100-80gb-pcie",
    "h800": "h100-sxm",
}
# A measured speed ratio to a card whose own value is an estimate: T4 vs L4 on the same
# Colab fine-tune (McCormick 2024-04: 12 vs 5.5 minutes). The T4 came out 1.1x slower than
# the L4 from specs, against 2.2-2.8x measured.
RATIO_TO_ESTIMATE = {"t4": ("l4", "LLM fine-tune in Colab")}

# Measured, but kept out of the global fit: B200's 2-model 2025-12 figures on first-year
# Blackwell software sit at 0.30x (cnn) of what its specs predict, an outlier that would pull
# every fitted estimate (the TPUs, Trainium) down by ~6 %. Its own value stays measured.
# The A100 80GB PCIe is the SXM4 board's chip at a lower power limit, measured in the same
# set: a second point of one chip would weigh it twice in the fit (and move every estimate).
FIT_EXCLUDED = frozenset({"b200", "a100-80gb-pcie"})

SCALING_COUNTS = (2, 4, 8)
SCALING_SKIP_PREFIXES = ("Lambda Cloud —", "Linode Cloud —")


def gmean(values: Iterable[float]) -> float:
    """Geometric mean: the right average for speed ratios."""
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values))


def fmt(value: float) -> str:
    return f"{value:.3f}"


def load_relative() -> pd.DataFrame:
    """FP16 rows of Lambda's single-GPU table, one row per (set, gpu)."""
    table = pd.read_csv(SOURCES / "lambda_relative_perf_single_gpu.csv")
    return table[table["precision"] == "fp16"].set_index(["set", "gpu"])


def bridge_factors(rel: pd.DataFrame) -> tuple[dict[str, float], list[str]]:
    """Per-class factor that puts a 2022-07 value on the 2025-12 scale.

    The two sets normalise to the same card but use different model lists, so a 2022 value
    is multiplied by the geometric mean of value_2025 / value_2022 over the GPUs in both sets.
    """
    old = {gpu for s, gpu in rel.index if s == SET_OLD}
    new = {gpu.removeprefix(CLOUD_PREFIX): gpu for s, gpu in rel.index if s == SET_NEW}
    common = sorted(g for g in old if g in new and g != REFERENCE)
    factors = {
        k: gmean(
            rel.loc[(SET_NEW, new[g]), f"rel_{k}_gmean"] / rel.loc[(SET_OLD, g), f"rel_{k}_gmean"]
            for g in common
        )
        for k in CLASSES
    }
    return factors, common


def measured(rel: pd.DataFrame, ids: list[str]) -> dict[tuple[str, str], tuple[float, str]]:
    """Benchmark value per (id, class): the 2025 set if the GPU is in it, else 2022 x bridge."""
    factors, common = bridge_factors(rel)
    bridge_text = "; ".join(f"{k} {fmt(factors[k])}" for k in CLASSES)
    out: dict[tuple[str, str], tuple[float, str]] = {}
    for acc in ids:
        candidates = [
            (s, gpu)
            for table in (PRIMARY, FALLBACK)
            for s in (SET_NEW, SET_OLD)
            for gpu in table
            if table[gpu] == acc and (s, gpu) in rel.index
        ]
        if not candidates:
            continue
        s, gpu = candidates[0]
        row = rel.loc[(s, gpu)]
        for k in CLASSES:
            value = float(row[f"rel_{k}_gmean"])
            text = (
                f"{s} ({SET_CITE[s]}), row '{gpu}': rel_{k}_gmean over "
                f"{int(row[f'n_{k}_models'])} models, FP16 PyTorch training, "
                f"{REFERENCE} = 1.0; via sources/lambda_relative_perf_single_gpu.csv"
            )
            if s == SET_OLD:
                text = "adjusted: " + text
                text += (
                    f"; value {fmt(value)} x bridge factor {fmt(factors[k])} to the 2025-12 "
                    f"scale (per-class geometric mean of 2025/2022 over {', '.join(common)}; "
                    f"all factors: {bridge_text})"
                )
                value *= factors[k]
            out[(acc, k)] = (value, text)
    return out


def method_of(text: str) -> str:
    """measured, or adjusted where the text says how a measurement was carried over."""
    return "adjusted" if text.startswith("adjusted") else "measured"


def blog_derived(base_cnn: float) -> dict[str, tuple[float, str]]:
    """CNN speed of RTX 2060/2070/2080 relative to the RTX 2080 Ti, from the 2020 blog table."""
    blog = pd.read_csv(SOURCES / "lambda_blog_tables.csv")
    blog = blog[blog["source"].str.contains(BLOG_SOURCE, regex=False) & (blog["throughput"] > 0)]
    wide = blog.pivot_table(index="model", columns="gpu", values="throughput", aggfunc="first")
    names = [*BLOG_CARDS, BLOG_BASE[0]]
    wide = wide[names].dropna()
    models = ", ".join(sorted(wide.index))
    out = {}
    for name, acc in BLOG_CARDS.items():
        ratio = gmean(wide[name] / wide[BLOG_BASE[0]])
        out[acc] = (
            ratio * base_cnn,
            f"adjusted: geometric mean of {name} / {BLOG_BASE[0]} = {fmt(ratio)} over "
            f"{len(wide)} models where all of {', '.join(names)} have a value ({models}) in "
            f"{BLOG_SOURCE} (2020-02, precision unspecified; sources/lambda_blog_tables.csv), "
            f"times {BLOG_BASE[1]} measured cnn {fmt(base_cnn)}",
        )
    return out


def log_estimate(k: str, tflops: float, bw: float) -> float:
    return ALPHA[k] * math.log(tflops) + (1 - ALPHA[k]) * math.log(bw)


@dataclass(frozen=True)
class Fit:
    """The fitted constant of one class, the GPUs it came from and how well it fits them."""

    c: float
    used: list[str]
    low: float  # smallest measured / fitted ratio among the GPUs used
    high: float  # largest measured / fitted ratio


def fit_constants(
    specs: pd.DataFrame, values: dict[tuple[str, str], tuple[float, str]]
) -> dict[str, Fit]:
    """C_k by least squares in log space over measured GPUs with both specs.

    log C_k = mean(log rel - alpha log TFLOPS - (1 - alpha) log BW). The residual range is
    kept so that every estimate can say how far the formula misses on measured cards.
    """
    out = {}
    for k in CLASSES:
        used = [
            acc
            for acc in specs.index
            if (acc, k) in values
            and acc not in FIT_EXCLUDED
            and pd.notna(specs.loc[acc, "tflops"])
            and pd.notna(specs.loc[acc, "bw"])
        ]
        logs = [
            math.log(values[(acc, k)][0])
            - log_estimate(k, specs.loc[acc, "tflops"], specs.loc[acc, "bw"])
            for acc in used
        ]
        mean = sum(logs) / len(logs)
        out[k] = Fit(math.exp(mean), used, math.exp(min(logs) - mean), math.exp(max(logs) - mean))
    return out


def derive_throughput(accelerators: pd.DataFrame) -> list[list[str]]:
    """One row per accelerator id and class: measured, adjusted or estimated."""
    ids = list(accelerators["id"])
    specs = accelerators.set_index("id").rename(
        columns={"fp16_tensor_tflops": "tflops", "mem_bw_gbps": "bw"}
    )
    values = measured(load_relative(), ids)
    constants = fit_constants(specs, values)
    derived = blog_derived(values[(BLOG_BASE[1], "cnn")][0])
    rows = []
    for acc in ids:
        for k in CLASSES:
            tflops, bw = specs.loc[acc, "tflops"], specs.loc[acc, "bw"]
            if acc in SAME_CHIP and (SAME_CHIP[acc], k) in values:
                twin = SAME_CHIP[acc]
                value, method = values[(twin, k)][0], "adjusted"
                text = f"adjusted: same chip as {twin}, its value: {values[(twin, k)][1]}"
            elif (acc, k) in values:
                value, text = values[(acc, k)]
                method = method_of(text)
            elif (acc, k) in TRAINING_ANCHORS:
                value, text = anchored(acc, k, values)
                # another class's ratio is an estimate for this one, and says so
                method = "estimated" if text.startswith("estimated") else "adjusted"
            elif k == "cnn" and acc in derived:
                value, text = derived[acc]
                method = "adjusted"
            elif acc in ANCHORS and (ANCHORS[acc], k) in values:
                sibling = ANCHORS[acc]
                base = values[(sibling, k)][0]
                s_tflops, s_bw = specs.loc[sibling, "tflops"], specs.loc[sibling, "bw"]
                value = base * math.exp(
                    log_estimate(k, tflops, bw) - log_estimate(k, s_tflops, s_bw)
                )
                method = "estimated"
                text = (
                    f"estimated: from measured sibling {sibling} ({fmt(base)}): x (TFLOPS ratio "
                    f"{tflops:g}/{s_tflops:g})^{ALPHA[k]} x (bandwidth ratio {bw:g}/{s_bw:g})"
                    f"^{1 - ALPHA[k]:.1f}; specs from accelerators.csv spec_source"
                )
            elif pd.notna(tflops) and pd.notna(bw):
                fit = constants[k]
                value = fit.c * math.exp(log_estimate(k, tflops, bw))
                method = "estimated"
                moved = ""
                if (acc, "transformer") in TRAINING_ANCHORS and k == "rnn":
                    # the anchor moved the fitted transformer value; the rnn estimate follows
                    fitted = constants["transformer"].c * math.exp(
                        log_estimate("transformer", tflops, bw)
                    )
                    factor = anchored(acc, "transformer", values)[0] / fitted
                    value *= factor
                    moved = (
                        f" x {fmt(factor)}, the factor by which the training anchor moved this "
                        f"accelerator's fitted transformer value {fmt(fitted)}"
                    )
                text = (
                    f"estimated: relative = C_k * TFLOPS^{ALPHA[k]} * BW^{1 - ALPHA[k]:.1f} with "
                    f"C_{k} = {fit.c:.6g}, fitted by least squares in log space over the "
                    f"{len(fit.used)} measured GPUs with both specs ({', '.join(fit.used)}); "
                    f"on those GPUs measured/fitted ranges {fit.low:.2f}-{fit.high:.2f}; "
                    f"this card's specs {tflops:g} dense FP16-tensor TFLOPS (FP32 accumulate; "
                    f"TPU, Trainium: bf16 per chip) and {bw:g} GB/s from accelerators.csv "
                    f"spec_source{moved}"
                )
            elif acc == "a10g" and ("a10", k) in values:
                value, method = values[("a10", k)][0], "estimated"
                text = f"estimated: {A10G_NOTE}; value of a10: {values[('a10', k)][1]}"
            else:
                raise ValueError(f"no measurement and no specs for {acc}/{k}")
            rows.append([acc, k, value, method, text])
    rows = _ratio_to_estimate(rows)
    rows = _capped(rows, specs, accelerators)
    rows = _vendor_ceilings(rows)
    return [[acc, k, fmt(value), method, text] for acc, k, value, method, text in rows]


@functools.cache  # read once per run: every anchored value and ceiling looks rows up
def load_anchors() -> pd.DataFrame:
    return pd.read_csv(SOURCES / "training_anchors.csv", dtype=str)


def anchored(
    acc: str, k: str, values: dict[tuple[str, str], tuple[float, str]]
) -> tuple[float, str]:
    """A value from published per-accelerator training results against a measured card."""
    base, benchmarks = TRAINING_ANCHORS[(acc, k)]
    table = load_anchors()
    mine = table[(table["accelerator"] == acc) & table["ratio_to"].str.startswith(base + " ")]
    used = mine[mine["benchmark"].apply(lambda b: any(f" {n} (" in b for n in benchmarks))]
    if used.empty:
        raise ValueError(f"no training anchor for {acc}/{k} in {benchmarks}")
    ratio = gmean(float(r) for r in used["ratio"])
    base_value = values[(base, k)][0]
    results = "; ".join(
        f"{row.benchmark} at {row.system_size} accelerators: {float(row.ratio):.3f} "
        f"({row.source}, {row.date})"
        for row in used.itertuples()
    )
    stand_in, kind = "", "adjusted"
    if any(BENCHMARK_CLASS[n] != k for n in benchmarks):
        stand_in = f" No {k} result exists: the {', '.join(benchmarks)} ratio stands in."
        kind = "estimated"
    text = (
        f"{kind}: {base} measured {fmt(base_value)} x {fmt(ratio)}, the geometric mean of "
        f"per-accelerator training speed ratios {acc}/{base} (1 / (minutes x accelerators)) in "
        f"{len(used)} MLPerf Training results: {results}; sources/training_anchors.csv. "
        "Caveats: runs at hundreds of chips measure scaling too; MLPerf trains in FP8/int8 "
        f"where this table is FP16.{stand_in}"
    )
    return base_value * ratio, text


Row = list  # [id, class, value, method, text]


def _ratio_to_estimate(rows: list[Row]) -> list[Row]:
    """T4 from the L4 estimate and their measured ratio (RATIO_TO_ESTIMATE): an estimate."""
    table = load_anchors()
    by_key = {(r[0], r[1]): r for r in rows}
    for acc, (base, benchmark) in RATIO_TO_ESTIMATE.items():
        found = table[(table["accelerator"] == acc) & table["benchmark"].str.startswith(benchmark)]
        ratio, source, date = (
            float(found["ratio"].iloc[0]),
            found["source"].iloc[0],
            found["date"].iloc[0],
        )
        for k in CLASSES:
            target, other = by_key[(acc, k)], by_key[(base, k)]
            target[2] = other[2] * ratio
            target[3] = "estimated"
            target[4] = (
                f"estimated: {base}'s {k} estimate {fmt(other[2])} x {ratio:.3f}, the measured "
                f"{acc}/{base} speed ratio of one {benchmark} ({source}, {date}; "
                "sources/training_anchors.csv; one workload, used for every class)"
            )
    return rows


def _vendor_ceilings(rows: list[Row]) -> list[Row]:
    """Estimates above their maker's own projection or result come down to it
    (VENDOR_CEILINGS)."""
    table = load_anchors()
    by_key = {(r[0], r[1]): r for r in rows}
    for (acc, k), (base, claim) in VENDOR_CEILINGS.items():
        found = table[
            (table["accelerator"] == acc)
            & (table["benchmark"] == claim)
            & table["ratio_to"].str.startswith(base)
        ]
        ratio, source, date = (
            float(found["ratio"].iloc[0]),
            found["source"].iloc[0],
            found["date"].iloc[0],
        )
        row, reference = by_key[(acc, k)], by_key[(base, k)]
        ceiling = reference[2] * ratio
        if row[3] == "estimated" and row[2] > ceiling:
            row[4] = (
                f"estimated: capped at {ratio:g}x {base} ({fmt(reference[2])}) = "
                f"{fmt(ceiling)}, the maker's own figure for {claim} ({source}, {date}); "
                f"before the cap {fmt(row[2])} ({row[4]})"
            )
            row[2] = ceiling
    return rows


def _capped(rows: list[Row], specs: pd.DataFrame, accelerators: pd.DataFrame) -> list[Row]:
    """No spec-fit estimate above its nearest measured sibling's speed per TFLOPS: the fit
    overrated TPUs against MLPerf (v6e came out faster than a measured H100). The sibling is
    the measured or adjusted accelerator of the same platform nearest in TFLOPS (of any
    platform where its own has none)."""
    platform = accelerators.set_index("id")["platform"]
    for row in rows:
        acc, k, value, method, text = row
        if method != "estimated" or not text.startswith("estimated: relative = C_k"):
            continue
        tflops = specs.loc[acc, "tflops"]
        known = [
            r
            for r in rows
            if r[1] == k and r[3] != "estimated" and pd.notna(specs.loc[r[0], "tflops"])
        ]
        own = [r for r in known if platform[r[0]] == platform[acc]]
        same = own or known
        whose = "its platform" if own else f"any platform (none of {platform[acc]}'s is)"
        sibling = min(same, key=lambda r: (abs(math.log(specs.loc[r[0], "tflops"] / tflops)), r[0]))
        cap = sibling[2] / specs.loc[sibling[0], "tflops"] * tflops
        if value > cap:
            row[2] = cap
            row[4] = (
                f"estimated: capped at {sibling[0]}'s {k} speed per TFLOPS ({fmt(sibling[2])} / "
                f"{specs.loc[sibling[0], 'tflops']:g}) x {tflops:g} TFLOPS, the nearest "
                f"{sibling[3]} accelerator of {whose}; the spec fit gave {fmt(value)} "
                f"({text})"
            )
    return rows


def derive_scaling() -> list[list[str]]:
    """Median multi-GPU efficiency per interconnect, class and GPU count (FP16 configs)."""
    raw = pd.read_csv(SOURCES / "lambda_multi_gpu_scaling.csv")
    keep = (
        (raw["precision"] == "fp16")
        & raw["workload_class"].isin(CLASSES)
        & raw["num_gpu"].isin(SCALING_COUNTS)
        & (raw["scaling_efficiency"] > 0)
        & (raw["throughput"] > 0)
        & ~raw["gpu_config"].str.startswith(SCALING_SKIP_PREFIXES)
    )
    data = raw[keep].copy()
    nvlink = data["gpu_config"].str.contains("SXM") | data["gpu_config"].str.contains("V100")
    data["interconnect"] = nvlink.map({True: "nvlink", False: "pcie"})
    data["config"] = data["set"] + ": " + data["gpu_config"]
    cite = (
        "sources/lambda_multi_gpu_scaling.csv (Lambda PyTorch FP16, sets "
        + ", ".join(f"{s} = {c}" for s, c in SET_CITE.items())
        + ")"
    )
    measured_points: dict[tuple[str, str, int], tuple[float, int, str]] = {}
    for (ic, k, n), group in data.groupby(["interconnect", "workload_class", "num_gpu"]):
        median = min(float(group["scaling_efficiency"].median()), 1.0)
        configs = sorted(group["config"].unique())
        text = (
            f"median of scaling_efficiency over {len(group)} (config, model) rows from "
            f"{len(configs)} configs ({'; '.join(configs)}), clipped to <= 1.0; {cite}"
        )
        measured_points[(str(ic), str(k), int(n))] = (median, len(configs), text)
    rows = []
    for ic in ("nvlink", "pcie"):
        for k in CLASSES:
            for n in SCALING_COUNTS:
                if (ic, k, n) in measured_points:
                    eff, count, text = measured_points[(ic, k, n)]
                else:
                    near = min(
                        (m for i, c, m in measured_points if (i, c) == (ic, k)),
                        key=lambda m: (abs(m - n), m),
                    )
                    eff, count, text = measured_points[(ic, k, near)]
                    text = f"no data for n={n}; filled from nearest n={near}: {text}"
                if rows and rows[-1][:2] == [ic, k] and eff > float(rows[-1][3]):
                    # Medians over differently sized config sets can rise with n (PCIe
                    # transformer: 0.968 at 2, 0.984 at 4); more cards on one link never
                    # scale better, so the smaller count's value caps the larger.
                    smaller = rows[-1][2]
                    text = (
                        f"capped at the n={smaller} value {rows[-1][3]} (more cards on one "
                        f"interconnect never scale better; this count's median was "
                        f"{fmt(eff)}): {text}"
                    )
                    eff = float(rows[-1][3])
                rows.append([ic, k, str(n), fmt(eff), str(count), text])
    nvlink = [r for r in rows if r[0] == "nvlink"]
    links = (("ici", "TPU"), ("xgmi", "AMD Infinity Fabric (xGMI)"), ("roce", "Gaudi RoCE"))
    for link, what in links:
        for _, k, n, eff, count, text in nvlink:
            text = f"estimated: no measured {what} scaling; nvlink values used ({text})"
            rows.append([link, k, n, eff, count, text])
    return rows


# Used prices observed before the Ethereum Merge (2022-09) are mining-boom prices: the RTX 3080
# sold at 2.4x its launch price at one year. They are kept in the source, not in the fit.
MINING_BOOM_ENDS = "2022-09"


def derive_resale() -> list[list[str]]:
    """The used-price curve: share of launch price = a x exp(-b x age), least squares on
    ln(share) over consumer cards observed after the mining boom.

    The engine uses exp(-b) per year of ownership on the price paid: with an exponential
    curve the yearly loss is the same whatever the card's age at purchase. ``a`` (above 1:
    24 GB cards traded over launch price in 2023-26) is reported, not used: nobody can
    count on selling above the price paid.
    """
    points = pd.read_csv(SOURCES / "used_prices.csv", dtype=str)
    consumer = points["notes"].str.contains("segment=consumer", regex=False)
    after_boom = points["observed_month"] >= MINING_BOOM_ENDS
    used = points[consumer & after_boom]
    ages = used["age_years"].astype(float).tolist()
    logs = [math.log(float(v)) for v in used["share"]]
    n = len(ages)
    mean_age, mean_log = sum(ages) / n, sum(logs) / n
    sxx = sum((x - mean_age) ** 2 for x in ages)
    slope = sum((x - mean_age) * (y - mean_log) for x, y in zip(ages, logs, strict=True)) / sxx
    a, b = math.exp(mean_log - slope * mean_age), -slope
    residuals = [y - (math.log(a) - b * x) for x, y in zip(ages, logs, strict=True)]
    spread = math.sqrt(sum(r * r for r in residuals) / (n - 2))
    cards = sorted(set(used["card"]))
    months = sorted(used["observed_month"])
    source = (
        f"least squares of ln(used price / launch price) on age over {n} points of "
        f"{len(cards)} consumer cards ({', '.join(cards)}) observed {months[0]}..{months[-1]} "
        f"(mining-boom prices before {MINING_BOOM_ENDS} left out; datacenter cards: 1 point, "
        f"not fitted); residual spread x/{math.exp(spread):.2f}; sources/used_prices.csv "
        "(Tom's Hardware eBay sold-listing averages via github.com/buttke/ebay-2021-2023-"
        "gpu-prices@883c310, and dated 2026 used-market quotes, cited per row)"
    )
    return [
        ["consumer", fmt(a), fmt(b), fmt(1 - math.exp(-b)), str(n), source],
    ]


def write(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def draw_lambda_tables(shared: Path) -> None:
    """sources/lambda_*.csv from the shared reference data: the FP16 rows this script reads
    of the single-GPU and the multi-GPU tables and the 2020 blog table's rows, only the
    columns it reads, each row citing its set (SET_CITE) or its page and date."""
    relative = pd.read_csv(shared / "lambda_relative_perf_single_gpu.csv")
    relative = relative[relative["precision"] == "fp16"]
    relative = relative[
        [
            "set",
            "precision",
            "gpu",
            *(f"{c}_{k}_{m}" for k in CLASSES for c, m in (("rel", "gmean"), ("n", "models"))),
        ]
    ].assign(source=relative["set"].map(SET_CITE))
    scaling = pd.read_csv(shared / "lambda_multi_gpu_scaling.csv")
    scaling = scaling[scaling["precision"] == "fp16"]
    scaling = scaling[
        [
            *("set", "precision", "gpu_config", "num_gpu", "model", "workload_class"),
            *("throughput", "scaling_efficiency"),
        ]
    ].assign(source=scaling["set"].map(SET_CITE))
    blog = pd.read_csv(shared / "lambda_blog_tables.csv")
    blog = blog[blog["source"].str.contains(BLOG_SOURCE, regex=False)]
    blog = blog[["source", "date", "precision", "framework", "model", "gpu", "throughput", "unit"]]
    for name, table in (
        ("lambda_relative_perf_single_gpu.csv", relative),
        ("lambda_multi_gpu_scaling.csv", scaling),
        ("lambda_blog_tables.csv", blog),
    ):
        table.to_csv(SOURCES / name, index=False, lineterminator="\n")


def main() -> None:
    import sys

    arguments = sys.argv[1:]
    if "--from-shared" in arguments:
        draw_lambda_tables(Path(arguments[arguments.index("--from-shared") + 1]))
    accelerators = pd.read_csv(DATA / "accelerators.csv", dtype={"id": str})
    write(
        DATA / "throughput.csv",
        ["id", "workload", "relative", "method", "source"],
        derive_throughput(accelerators),
    )
    write(
        DATA / "scaling.csv",
        ["interconnect", "workload", "num_gpu", "efficiency", "n_configs", "source"],
        derive_scaling(),
    )
    write(
        DATA / "resale.csv",
        ["segment", "a", "b", "yearly_loss", "points", "source"],
        derive_resale(),
    )


if __name__ == "__main__":
    main()
