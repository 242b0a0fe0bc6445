"""How much of its peak a card turns into training: model FLOPs utilization (MFU) fitted
on published language-model runs.

A run's MFU is the FLOPs its model needed (``training_flops``) over what its cards could
have done in the hours reported: peak dense 16-bit TFLOPS x accelerator-hours. The hours are
what the teams paid for, restarts and evaluation included, so the fit predicts hours as
billed, not a kernel's best step.

What moves MFU, and how each enters:

- the accelerator: through the throughput table. A card's utilization is the reference
  card's times the card's measured (or adjusted, or estimated) speed per peak TFLOPS against
  the reference card's (``card_factor``), so the FLOPs route and the speeds that price the
  rentals never disagree. Runs on cards other than the reference therefore *test* the
  table: the fit has no free parameter per card.
- sequence length: through the FLOPs themselves. Attention adds 12 x layers x width x
  sequence FLOPs a token (Narayanan et al. 2021, arXiv:2104.04473, eq. 3; PaLM's MFU,
  Chowdhery et al. 2022, App. B, counts it the same way), a quarter more for an 8B model at
  8,192 tokens.
- model size: a fitted power of the active parameters, held inside the sizes the runs span.
- software: a fitted factor for each era before today's. Runs of 2018-2020 (TF1, Apex) and
  of 2021-2022 (Megatron-DeepSpeed before FlashAttention) took longer for the same FLOPs;
  answers are for today's software, the last era.
- precision: runs in FP8 are counted at FP8's gain over BF16 on their card
  (hardware/precision.py: measured on H100s, carried to other cards by their peaks).
- cluster size: not a term. Most runs do not state their card count; the engine's scaling
  curves (scaling.csv, fabrics.csv) carry it.

The spread of the runs around the fit, left out one at a time, is the uncertainty the
answers state (``spread``), not an assumed percentage. How a run's hours were come by
(``HOURS_FROM``) is kept beside each, because it is most of that spread: a total the team
states scatters about half as much around the fit as a card count times "about two weeks".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from hardware.registry import Registry
from hardware.throughput import Throughput, Workload

REFERENCE_CARD = "a100-80gb"  # the card most runs used, and the one Lambda's sets share
REFERENCE_PARAMS = 7e9  # the utilization is stated at this size
DENSE_FLOPS_PER_PARAM_TOKEN = 6  # Kaplan et al. 2020: forward 2, backward 4
ATTENTION_FLOPS_PER_LAYER_WIDTH_TOKEN = 12  # per token of context: Narayanan et al. 2021, eq. 3
# Eras of training software, by the year a run trained (or was published, where the source
# gives no training dates); the last is today's and has no factor of its own.
ERAS = (("2018-2020", 2020), ("2021-2022", 2022), ("2023 on", 9999))
TODAY = ERAS[-1][0]
# The spread an answer states: where held-out runs' hours land, wide enough that at least
# 80 % of every kind of five or more runs does (the error table's coverage column).
SPREAD_PERCENTILES = (5, 95)
SPREAD_NAME = f"P{SPREAD_PERCENTILES[0]}-P{SPREAD_PERCENTILES[1]}"
DENSE, MIXTURE = "dense", "mixture of experts"
# The chip generation of each card a run trained on, for the error table's rows.
GENERATIONS = {
    "v100-16gb": "NVIDIA Volta",
    "v100-32gb": "NVIDIA Volta",
    "a100-40gb": "NVIDIA Ampere",
    "a100-80gb": "NVIDIA Ampere",
    "h100-sxm": "NVIDIA Hopper",
    "h800": "NVIDIA Hopper",
    "h200": "NVIDIA Hopper",
    "mi250": "AMD CDNA 2",
    "tpu-v2": "Google TPU v2-v3",
    "tpu-v3": "Google TPU v2-v3",
    "tpu-v4": "Google TPU v4",
}
WITHIN = 0.25  # the bar: a prediction within 25 % of the reported hours
# Where a run's accelerator-hours come from. Only figures of a finished run are fitted; a
# plan's step time times its steps is kept in the sources file, never fitted.
HOURS_FROM = {
    "stated": "the source states the accelerator-hours the run took",
    "count_x_duration": "the card count times the run's stated duration (coarse where the "
    "source rounds it: 'about two weeks')",
    "throughput": "the tokens over a measured rate: steady state, without restarts",
    "planned": "a plan's step time times its steps, not a run (never fitted)",
}
FITTED_HOURS = ("stated", "count_x_duration", "throughput")


class FitError(ValueError):
    """The published runs cannot be fitted: a run names an unknown card or lacks a figure."""


@dataclass(frozen=True, slots=True)
class Run:
    """One published training run, as the fit reads it."""

    id: str
    accelerator: str
    params: float
    active_params: float
    tokens: float
    hours: float  # accelerator-hours reported
    layers: int
    hidden: int
    seq_len: int
    precision: str  # bf16, fp16 or fp8 (the first word of the source's)
    software_year: int
    source: str
    hours_from: str  # a key of HOURS_FROM
    team: str = ""  # who trained it: a team's runs leave the fit together (team_out)

    @property
    def structure(self) -> str:
        return structure_of(self.params, self.active_params)

    @property
    def flops(self) -> float:
        shape = (self.layers, self.hidden, self.seq_len)
        return training_flops(self.active_params, self.tokens, *shape)

    @property
    def era(self) -> str:
        return era_of(self.software_year)


@dataclass(frozen=True, slots=True)
class Prediction:
    """A run against the fit: the error table's row."""

    run: Run
    utilization: float  # implied by the reported hours, at 16-bit peak
    predicted_hours: float  # by the fit, at the run's own era
    held_out_hours: float  # by the fit made without this run
    team_out_hours: float  # by the fit made without any run of its team

    @property
    def ratio(self) -> float:
        return self.predicted_hours / self.run.hours

    @property
    def held_out_ratio(self) -> float:
        return self.held_out_hours / self.run.hours

    @property
    def team_out_ratio(self) -> float:
        return self.team_out_hours / self.run.hours


@dataclass(frozen=True)
class UtilizationFit:
    """MFU of transformer training on the reference card, today's software, by model size."""

    at_reference: float  # on REFERENCE_CARD, at REFERENCE_PARAMS active parameters
    size_slope: float  # MFU grows as active parameters ** size_slope
    era_factors: Mapping[str, float]  # older software against today's (1.0)
    # a mixture of experts' utilization on its active parameters against a dense model's:
    # what routing and the experts' all-to-all cost
    mixture_factor: float
    smallest: float  # active parameters of the smallest and largest runs fitted
    largest: float
    # by structure (dense, mixture of experts): SPREAD_NAME of predicted / reported hours,
    # each run predicted by the fit made without its team's runs: how a new team's run fares
    spreads: Mapping[str, tuple[float, float]]
    predictions: tuple[Prediction, ...]

    @property
    def spread(self) -> tuple[float, float]:
        """A dense model's spread: the kind most questions are."""
        return self.spreads[DENSE]

    def utilization(self, active_params: float, era: str = TODAY, structure: str = DENSE) -> float:
        """On the reference card. Sizes beyond the runs' are held at the nearest run's."""
        held = min(max(active_params, self.smallest), self.largest)
        size = (held / REFERENCE_PARAMS) ** self.size_slope
        mixture = self.mixture_factor if structure == MIXTURE else 1.0
        return self.at_reference * size * self.era_factors.get(era, 1.0) * mixture

    @property
    def within(self) -> tuple[int, int]:
        """(runs predicted within WITHIN of their reported hours, runs)."""
        hits = sum(abs(p.ratio - 1) <= WITHIN for p in self.predictions)
        return hits, len(self.predictions)

    @property
    def held_out_within(self) -> tuple[int, int]:
        hits = sum(abs(p.held_out_ratio - 1) <= WITHIN for p in self.predictions)
        return hits, len(self.predictions)

    def by_kind(self) -> tuple[KindTally, ...]:
        """Each kind of run against the spread an answer states for its structure
        (``spreads``): dense or a mixture of experts, the card's generation, how the hours
        were come by. A run held
        out alone still has its team's other runs in the fit; held out with its team, it has
        none: the second is how a new team's run will fare."""
        kinds: dict[tuple[str, str], list[Prediction]] = {}
        for p in self.predictions:
            run = p.run
            for axis, kind in (
                ("structure", run.structure),
                ("generation", GENERATIONS.get(run.accelerator, run.accelerator)),
                ("hours from", run.hours_from),
            ):
                kinds.setdefault((axis, kind), []).append(p)
        tallies = []
        for (axis, kind), rows in kinds.items():
            alone = np.array([p.held_out_ratio for p in rows])
            team = np.array([p.team_out_ratio for p in rows])
            low, high = np.array([self.spreads[p.run.structure] for p in rows]).T
            tallies.append(
                KindTally(
                    axis=axis,
                    kind=kind,
                    runs=len(rows),
                    median_held_out=float(np.median(alone)),
                    covered_held_out=int(np.sum((alone >= low) & (alone <= high))),
                    median_team_out=float(np.median(team)),
                    covered_team_out=int(np.sum((team >= low) & (team <= high))),
                )
            )
        axes = ("structure", "generation", "hours from")
        return tuple(sorted(tallies, key=lambda t: (axes.index(t.axis), -t.runs, t.kind)))

    def by_hours_from(self) -> tuple[HoursTally, ...]:
        """The tally for each way of coming by the hours that some run was: whether the
        misses are the model's or the figures'."""
        tallies = []
        for kind in FITTED_HOURS:
            rows = [p for p in self.predictions if p.run.hours_from == kind]
            if not rows:
                continue
            tallies.append(
                HoursTally(
                    hours_from=kind,
                    runs=len(rows),
                    within=sum(abs(p.ratio - 1) <= WITHIN for p in rows),
                    held_out_within=sum(abs(p.held_out_ratio - 1) <= WITHIN for p in rows),
                    scatter=float(np.std(np.log([p.ratio for p in rows]))),
                )
            )
        return tuple(tallies)


@dataclass(frozen=True, slots=True)
class KindTally:
    """The runs of one kind against the stated spread, held out alone and with their team."""

    axis: str  # structure, generation or hours from
    kind: str
    runs: int
    median_held_out: float  # median predicted / reported hours, each run held out alone
    covered_held_out: int  # runs whose held-out ratio falls inside their structure's spread
    median_team_out: float  # the same, each run held out with its team's
    covered_team_out: int


@dataclass(frozen=True, slots=True)
class HoursTally:
    """The runs whose hours were come by one way, against the fit."""

    hours_from: str
    runs: int
    within: int  # predicted within WITHIN of the reported hours
    held_out_within: int  # the same, by the fit made without each run
    scatter: float  # standard deviation of log(predicted / reported)


def training_flops(
    active_params: float,
    tokens: float,
    layers: int | None = None,
    hidden: int | None = None,
    seq_len: int | None = None,
) -> float:
    """Full training's FLOPs: the dense 6 N a token, and attention's scores where the shape
    is known (without it, the dense part alone: a few per cent low for short contexts)."""
    dense = DENSE_FLOPS_PER_PARAM_TOKEN * active_params * tokens
    if layers is None or hidden is None or seq_len is None:
        return dense
    return dense + ATTENTION_FLOPS_PER_LAYER_WIDTH_TOKEN * layers * hidden * seq_len * tokens


def structure_of(params: float, active_params: float) -> str:
    """Dense, or a mixture of experts: fewer parameters active a token than the model has."""
    return MIXTURE if active_params < params else DENSE


def era_of(year: int) -> str:
    return next(name for name, last in ERAS if year <= last)


def card_factor(
    throughput: Mapping[tuple[str, Workload], Throughput], registry: Registry, card: str
) -> float:
    """A card's transformer utilization against the reference card's: its speed per peak
    TFLOPS over the reference card's, as the throughput table has them."""
    speed = throughput[(card, Workload.TRANSFORMER)].relative
    reference = throughput[(REFERENCE_CARD, Workload.TRANSFORMER)].relative
    return (speed / reference) * (_peak(registry, REFERENCE_CARD) / _peak(registry, card))


def fit(
    runs: Iterable[Run],
    factor: Callable[[str], float],
    registry: Registry,
    fp8_gain: Callable[[str], float],
) -> UtilizationFit:
    """Least squares on log MFU: log u = log u0 + k(card) + slope log(N / 7e9) + era, with
    k(card) fixed by the throughput table and an FP8 run counted at FP8's gain on its card
    (hardware/precision.py). Each run is also predicted by the fit made without it, which is
    what ``spread`` and the held-out column report."""
    runs = tuple(runs)
    unknown = sorted({run.accelerator for run in runs if run.accelerator not in registry})
    if unknown:
        raise FitError(f"published runs name accelerators the registry lacks: {unknown}")
    unfit = sorted(run.id for run in runs if run.hours_from not in FITTED_HOURS)
    if unfit:
        raise FitError(f"runs whose hours_from is not a finished run's {FITTED_HOURS}: {unfit}")
    if len(runs) < 8:
        raise FitError(f"{len(runs)} runs cannot fit {2 + len(ERAS) - 1} parameters")
    implied = np.array([_implied(run, registry, fp8_gain) for run in runs])
    offsets = np.array([math.log(factor(run.accelerator)) for run in runs])
    design = np.array([_features(run) for run in runs])
    target = np.log(implied) - offsets
    coefficients = _solve(design, target)
    held_out = _held_out(design, target, [run.id for run in runs])
    team_out = _held_out(design, target, [run.team or run.id for run in runs])  # no team: its own
    fitted = design @ coefficients
    predictions = tuple(
        Prediction(
            run,
            float(implied[i]),
            run.hours * float(implied[i] / math.exp(fitted[i] + offsets[i])),
            run.hours * float(implied[i] / math.exp(held_out[i] + offsets[i])),
            run.hours * float(implied[i] / math.exp(team_out[i] + offsets[i])),
        )
        for i, run in enumerate(runs)
    )
    spreads = {}
    for structure in (DENSE, MIXTURE):
        ratios = [p.team_out_ratio for p in predictions if p.run.structure == structure]
        if not ratios:  # no run of the kind: the other kind's spread
            continue
        # each end read outward to the nearest run: a kind of few runs keeps its extremes
        low = float(np.percentile(ratios, SPREAD_PERCENTILES[0], method="lower"))
        high = float(np.percentile(ratios, SPREAD_PERCENTILES[1], method="higher"))
        spreads[structure] = (low, high)
    for structure in (DENSE, MIXTURE):
        spreads.setdefault(structure, next(iter(spreads.values())))
    sizes = [run.active_params for run in runs]
    return UtilizationFit(
        at_reference=math.exp(coefficients[0]),
        size_slope=float(coefficients[1]),
        era_factors={name: math.exp(coefficients[2 + i]) for i, (name, _) in enumerate(ERAS[:-1])},
        mixture_factor=math.exp(coefficients[-1]),
        smallest=min(sizes),
        largest=max(sizes),
        spreads=spreads,
        predictions=predictions,
    )


def _held_out(design: np.ndarray, target: np.ndarray, groups: list[str]) -> np.ndarray:
    """Each row predicted by the fit made without every row of its group."""
    labels = np.array(groups)
    predicted = np.empty(len(groups))
    for group in set(groups):
        out = labels == group
        predicted[out] = design[out] @ _solve(design[~out], target[~out])
    return predicted


def _features(run: Run) -> list[float]:
    eras = [1.0 if run.era == name else 0.0 for name, _ in ERAS[:-1]]
    mixture = 1.0 if run.structure == MIXTURE else 0.0
    return [1.0, math.log(run.active_params / REFERENCE_PARAMS), *eras, mixture]


def _solve(design: np.ndarray, target: np.ndarray) -> np.ndarray:
    coefficients, *_ = np.linalg.lstsq(design, target, rcond=None)
    return coefficients


def _implied(run: Run, registry: Registry, fp8_gain: Callable[[str], float]) -> float:
    """MFU at 16-bit peak; an FP8 run's FLOPs are counted at BF16's speed."""
    speedup = fp8_gain(run.accelerator) if run.precision == "fp8" else 1.0
    return run.flops / (run.hours * 3600 * _peak(registry, run.accelerator) * 1e12 * speedup)


def _peak(registry: Registry, card: str) -> float:
    peak = registry[card].fp16_tensor_tflops
    if peak is None:
        raise FitError(f"{card} has no peak TFLOPS")
    return peak
