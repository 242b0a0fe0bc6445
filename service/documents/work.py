"""The work a /breakeven question states, in exactly one of its ways, as hours on its card."""

from __future__ import annotations

from typing import Any

from hardware import Workload
from service.documents.errors import InvalidQuestion, Unanswerable, UnknownName
from service.documents.gpus import resolve_gpu
from service.documents.queries import MAX_CARDS, MAX_HOURS, BreakevenQuery
from service.engine.work import (
    Work,
    WorkError,
    from_hours,
    from_reference_run,
    from_transformer,
)
from service.runtime import Runtime

# The ways to state the work, each with its parameters; a question uses exactly one.
WAYS = {
    "hours": ("hours",),
    "reference_run": ("ref_gpu", "ref_count", "ref_hours"),
    "transformer": ("model", "param_count", "tokens", "method"),
}
ONE_WAY = (
    "state the work one way: hours= (on the card); ref_gpu=, ref_count= and ref_hours= "
    "(a run already done); or model= (or param_count=), tokens= and method= (a transformer job)"
)


def stated_work(query: BreakevenQuery, runtime: Runtime, gpu: str, workload: Workload) -> Work:
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
        work = _work(query, runtime, gpu, workload, used[0])
    except WorkError as exc:
        raise InvalidQuestion(exc.parameter, str(exc)) from exc
    blame = given[used[0]][-1] if used[0] != "transformer" else "tokens"
    if work.hours > MAX_HOURS:
        raise InvalidQuestion(
            blame, f"the job is {work.hours:,.0f} h on one {gpu}, over {MAX_HOURS:,} h"
        )
    if query.gpus is None and work.min_cards > MAX_CARDS:
        raise Unanswerable(
            "too-large",
            f"the job needs {work.memory_gb:,.0f} GB: {work.min_cards:,} x {gpu}, more than "
            f"the {MAX_CARDS} cards a quote buys; name a larger card (gpu=) or a method that "
            "needs less memory (method=lora or qlora)",
            "model" if query.model is not None else "param_count",
            "more memory than 64 cards hold",
        )
    return work


def _work(query: BreakevenQuery, runtime: Runtime, gpu: str, workload: Workload, way: str) -> Work:
    hardware = runtime.hardware
    if way == "hours":
        assert query.hours is not None
        return from_hours(query.hours)
    if way == "reference_run":
        ref_gpu, count, hours = query.ref_gpu, query.ref_count, query.ref_hours
        if ref_gpu is None or count is None or hours is None:
            missing = next(n for n in WAYS[way] if getattr(query, n) is None)
            raise InvalidQuestion(missing, "a reference run needs ref_gpu, ref_count, ref_hours")
        ref = resolve_gpu(hardware, ref_gpu, "ref_gpu")
        return from_reference_run(hardware, gpu, workload, ref.id, count, hours)
    if query.tokens is None:
        raise InvalidQuestion("tokens", "a transformer job needs tokens=")
    if query.model is not None and query.param_count is not None:
        raise InvalidQuestion("param_count", "give model= or param_count=, not both")
    model = None
    if query.model is not None:
        model = hardware.models.get(query.model.strip().lower())
        if model is None:
            known = sorted(m for m, v in hardware.models.items() if v.family == "transformer")
            raise UnknownName(
                "unknown-model",
                f"unknown model {query.model!r}; known: {', '.join(known)} (or give param_count=)",
                "model",
                f"unknown model {query.model!r}",
                known,
            )
        if model.family != "transformer":
            raise InvalidQuestion("model", f"{model.id} is a vision model: state hours= instead")
    method = hardware.methods[query.method or "full"]
    return from_transformer(hardware, gpu, model, query.param_count, query.tokens, method)


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
        "memory_gb": work.memory_gb,
        "memory_parts": work.memory_parts,
        "min_cards": work.min_cards,
    }
