"""The work a question states, in exactly one of its ways, as hours on its card."""

from __future__ import annotations

from typing import Any

from hardware import PRECISIONS, Hardware, Workload
from hardware.jobs import Model
from hardware.precision import FP8_WORKLOADS, SIXTEEN_BITS
from service.documents.errors import InvalidQuestion, Unanswerable, UnknownName
from service.documents.gpus import resolve_gpu
from service.documents.queries import MAX_CARDS
from service.engine.work import (
    MAX_HOURS,
    MIN_HOURS,
    Work,
    WorkError,
    from_hours,
    from_reference_run,
    from_steady,
    from_transformer,
    from_vision,
)
from service.runtime import Runtime

# The ways to state the work, each with its parameters; a question uses exactly one. A job
# is a transformer's (tokens) or a vision model's (images and epochs).
WAYS = {
    "hours": ("hours",),
    "steady": ("hours_per_month", "months"),
    "reference_run": ("ref_gpu", "ref_count", "ref_hours"),
    "job": (
        *("model", "param_count", "tokens", "method", "images", "epochs"),
        *("active_param_count", "seq_len", "micro_batch"),
    ),
}
TRANSFORMER_ONLY = (
    "param_count",
    "tokens",
    "method",
    "active_param_count",
    "seq_len",
    "micro_batch",
)
VISION_ONLY = ("images", "epochs")
# The parameters that size the work each way states it, as the answer quotes them when the
# work falls outside hours='s bounds; the first is the one named: the amount a person sets
# freely (a model or a card count is a choice of what to run, not of how much).
SIZED_BY = {
    "hours": ("hours",),
    "steady": ("hours_per_month", "months"),
    "reference_run": ("ref_hours", "ref_count"),
    "transformer": ("tokens", "param_count"),
    "vision": ("epochs", "images"),
}
ONE_WAY = (
    "state the work one way: hours= (on the card); hours_per_month= and months= (steady "
    "work); ref_gpu=, ref_count= and ref_hours= "
    "(a run already done); model= (or param_count=), tokens= and method= (a transformer "
    "job); or model=, images= and epochs= (a vision job)"
)


def job_workload(query: Any, hardware: Hardware) -> Workload:
    """The workload class the question is about: a named model's own, else ``workload=``.
    A model and a ``workload=`` that disagree are a 400, not a silent pick."""
    stated = Workload(query.workload)
    if query.model is None:
        return stated
    model = _model(hardware, query.model)
    own = Workload(model.workload)
    if "workload" in query.model_fields_set and stated != own:
        raise InvalidQuestion(
            "workload", f"{model.id} trains like a {own} workload; drop workload= or make it {own}"
        )
    return own


def check_precision(
    hardware: Hardware, gpu: str, workload: Workload, precision: str | None
) -> None:
    """A precision the named card does not train in, or FP8 for work not measured in it, is
    a 422 naming ``precision``: the answer would compare a card that cannot do the job."""
    if precision is None:
        return
    if precision == "fp8" and workload not in FP8_WORKLOADS:
        raise Unanswerable(
            "unsupported-precision",
            f"fp8 training is measured for transformers only, not {workload} work; ask bf16 "
            "or fp16, or leave precision= out",
            "precision",
            f"fp8 is not measured for {workload}",
        )
    support = hardware.precisions[gpu]
    if precision not in support.precisions:
        runs = ", ".join(p for p in PRECISIONS if p in support.precisions)
        raise Unanswerable(
            "unsupported-precision",
            f"{gpu} does not train in {precision}: it runs {runs} ({support.source})",
            "precision",
            f"{gpu} does not run {precision}",
            sorted(support.precisions),
        )


def precision_document(hardware: Hardware, gpu: str, precision: str | None) -> dict[str, Any]:
    """What the answer compared in: the precision asked, the speeds it used, FP8's gain on
    the named card."""
    if precision is None:
        return {
            "asked": None,
            "speeds": SIXTEEN_BITS,
            "gain": 1.0,
            "note": "16 bits (fp16 or bf16, whichever each card runs): every card and offer "
            "takes part; ask precision= to keep only those that run one",
        }
    gain = 1.0
    if precision == "fp8":
        gain = hardware.fp8_gain(gpu)
    return {
        "asked": precision,
        "speeds": "fp8" if precision == "fp8" else SIXTEEN_BITS,
        "gain": gain,
        "note": f"only cards and offers that train in {precision} take part"
        + (f"; FP8 trains {gain:.3f} x as fast as 16 bits on {gpu}" if precision == "fp8" else ""),
    }


def stated_work(query: Any, runtime: Runtime, gpu: str, workload: Workload) -> Work:
    """The work ``query`` states, in hours on one ``gpu``."""
    given = {
        way: [name for name in names if getattr(query, name) is not None]
        for way, names in WAYS.items()
    }
    used = [way for way, names in given.items() if names]
    if not used:
        raise InvalidQuestion("hours", ONE_WAY)
    if len(used) > 1:
        raise InvalidQuestion(given[used[1]][0], f"more than one way given; {ONE_WAY}")
    try:
        work = _work(query, runtime.hardware, gpu, workload, used[0])
    except WorkError as exc:
        raise InvalidQuestion(exc.parameter, str(exc)) from exc
    _within_bounds(query, work, gpu)
    buys = "gpus" in type(query).model_fields  # /breakeven buys cards; /rank ranks one
    if buys and query.gpus is None and work.min_cards > MAX_CARDS:
        raise Unanswerable(
            "too-large",
            f"the job needs {work.memory_gb:,.0f} GB: {work.min_cards:,} x {gpu}, more than "
            f"the {MAX_CARDS:,} cards a quote buys; name a larger card (gpu=) or a method that "
            "needs less memory (method=lora or qlora)",
            "model" if query.model is not None else "param_count",
            f"more memory than {MAX_CARDS:,} cards hold",
        )
    return work


def _within_bounds(query: Any, work: Work, gpu: str) -> None:
    """The bounds of hours= hold for the work however it is stated: a job's parameters have
    bounds of their own, but their product does not (epochs=5e-324 made a job of 0 h, whose
    answer had Colab lines of -0.5 h and a sensitivity that divided by zero)."""
    if MIN_HOURS <= work.hours <= MAX_HOURS:
        return
    sized_by = [name for name in SIZED_BY[work.stated] if getattr(query, name) is not None]
    stated = " x ".join(f"{name}={_as_given(getattr(query, name))}" for name in sized_by)
    if work.hours < MIN_HOURS:
        size = f"{work.hours:.2g} h on one {gpu}, under the {MIN_HOURS:g} h floor of hours="
    else:
        size = f"{work.hours:,.0f} h on one {gpu}, over the {MAX_HOURS:,} h bound of hours="
    raise InvalidQuestion(sized_by[0], f"{stated} makes the job {size}")


def _as_given(value: float) -> str:
    """A number in the shortest spelling that reads back as it, so the problem quotes what
    was asked: 1e+06, 1281167, and 5e-324 (which :g writes 4.94066e-324)."""
    spellings = (f"{value:g}", repr(float(value)).removesuffix(".0"))
    return min((s for s in spellings if float(s) == value), key=len)


def _work(query: Any, hardware: Hardware, gpu: str, workload: Workload, way: str) -> Work:
    if way == "hours":
        return from_hours(query.hours)
    if way == "steady":
        missing = next((n for n in WAYS[way] if getattr(query, n) is None), None)
        if missing is not None:
            raise InvalidQuestion(missing, "steady work needs hours_per_month= and months=")
        return from_steady(query.hours_per_month, query.months)
    if way == "reference_run":
        ref_gpu, count, hours = query.ref_gpu, query.ref_count, query.ref_hours
        if ref_gpu is None or count is None or hours is None:
            missing = next(n for n in WAYS[way] if getattr(query, n) is None)
            raise InvalidQuestion(missing, "a reference run needs ref_gpu, ref_count, ref_hours")
        ref = resolve_gpu(hardware, ref_gpu, "ref_gpu")
        return from_reference_run(hardware, gpu, workload, ref.id, count, hours)
    model = _model(hardware, query.model) if query.model is not None else None
    vision = (model is not None and model.family == "vision") or any(
        getattr(query, name) is not None for name in VISION_ONLY
    )
    if vision:
        return _vision_job(query, hardware, gpu, model)
    if query.tokens is None:
        raise InvalidQuestion("tokens", "a transformer job needs tokens=")
    if model is not None and query.param_count is not None:
        raise InvalidQuestion("param_count", "give model= or param_count=, not both")
    method = hardware.methods[query.method or "full"]
    return from_transformer(
        hardware,
        gpu,
        model,
        query.param_count,
        query.tokens,
        method,
        active_params=query.active_param_count,
        seq_len=query.seq_len,
        micro_batch=query.micro_batch or 1,
        precision=query.precision,
    )


def _vision_job(query: Any, hardware: Hardware, gpu: str, model: Model | None) -> Work:
    if model is None or model.family != "vision":
        known = ", ".join(sorted(m.id for m in hardware.models.values() if m.family == "vision"))
        named = f"{model.id} is a transformer" if model is not None else "no model= given"
        raise InvalidQuestion("model", f"images= and epochs= state a vision job: {named}; {known}")
    if query.precision == "fp8":
        raise Unanswerable(
            "unsupported-precision",
            f"fp8 training is measured on language models, not on {model.id}; ask bf16 or "
            "fp16, or leave precision= out",
            "precision",
            "fp8 is not measured for vision models",
        )
    stray = next((name for name in TRANSFORMER_ONLY if getattr(query, name) is not None), None)
    if stray is not None:
        raise InvalidQuestion(
            stray, f"{model.id} is a vision model: state images= and epochs=, not {stray}="
        )
    missing = next((name for name in VISION_ONLY if getattr(query, name) is None), None)
    if missing is not None:
        raise InvalidQuestion(missing, f"a vision job needs images= and epochs= ({model.id})")
    return from_vision(hardware, gpu, model, query.images, query.epochs)


def _model(hardware: Hardware, name: str) -> Model:
    model = hardware.models.get(name.strip().lower())
    if model is None:
        known = sorted(hardware.models)
        raise UnknownName(
            "unknown-model",
            f"unknown model {name!r}; known: {', '.join(known)} (or give param_count=)",
            "model",
            f"unknown model {name!r}",
            known,
        )
    return model


def work_document(work: Work, gpu: str) -> dict[str, Any]:
    """The answer's ``work`` block: how the work was stated and what it came to."""
    return {
        "stated": work.stated,
        "description": work.description,
        "gpu_hours": work.hours,
        "gpu": gpu,
        "flops": work.flops,
        "precision": work.precision,
        "utilization": work.utilization,
        "utilization_anchor": work.utilization_anchor,
        "hours_spread": None if work.hours_spread is None else list(work.hours_spread),
        "memory_gb": work.memory_gb,
        "memory_parts": work.memory_parts,
        "memory_note": work.memory_note,
        "min_cards": work.min_cards,
        "hours_per_month": work.hours_per_month,
        "months": work.months,
    }
