"""The answer's `sensitivity` and `ranges` blocks: what would have to be true for the other
verdict, and how sure this one is."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from service.engine.breakeven import Quote
from service.engine.offer_table import OfferTable
from service.engine.ranges import SPEED_SPREAD, Ranges
from service.engine.sensitivity import STEPS, case_of, sensitivity, sentence


def sensitivity_document(quote: Quote, table: OfferTable, asked: tuple[str, ...]) -> dict[str, Any]:
    flips = sensitivity(case_of(quote, table), asked)
    return {
        "parameters": [
            {
                "parameter": f.parameter,
                "value": f.value,
                "bounds": list(f.bounds),
                "flip": f.flip,
                "buy_wins": f.buy_wins,
                "step": f.step,
                "low": asdict(f.low),
                "high": asdict(f.high),
                "note": f.note,
                "sentence": sentence(f),
            }
            for f in flips
        ],
        "sentences": [sentence(f) for f in flips],
        "steps": {
            name: f"{kind} {size:g}" for name, (kind, size) in STEPS.items() if name in asked
        },
    }


def ranges_document(r: Ranges) -> dict[str, Any]:
    return {
        "offers": asdict(r.offers),
        "speed": {**asdict(r.speed), "methods": list(r.speed.methods)},
        "speed_spread_by_method": SPEED_SPREAD,
        "work": None if r.work is None else {**asdict(r.work), "ratios": list(r.work.ratios)},
        "buy_usd": r.buy_usd,
        "close": r.close,
        "note": r.note,
    }
