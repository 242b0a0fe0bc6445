"""Lists of offers and cards with each source text once (`detail=compact` of /rank and
/offers; /breakeven's compact answer is service/documents/brief.py).

Ten rentals of a ranking, or a page of the catalog, name the same few sources (a catalog, a
price page, the speed table's row for a card) over and over: a third to a half of such a
list was those texts repeated. In the compact form every offer's `source` (its price's, and
its speed's under `throughput`) becomes `source_ref`, the index of the text in the
answer's `sources`; `detail=full` gives every offer its own texts.
"""

from __future__ import annotations

from typing import Any

# The parts of the answers that list offers and the cards compared.
OFFER_PARTS = ("rent", "cards", "too_small", "offers")
CONTAINERS = (dict, list)  # JSON's containers as the documents build them: plain, not subclassed


def compact(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with its offers' source texts given once, in ``sources``."""
    sources: list[str] = []
    seen: dict[str, int] = {}

    def ref(text: str) -> int:
        if text not in seen:
            seen[text] = len(sources)
            sources.append(text)
        return seen[text]

    def strip(value: Any) -> Any:
        # the answer's leaves are most of its values: test their type once, call nothing
        if type(value) is list:
            return [strip(item) if type(item) in CONTAINERS else item for item in value]
        out = {}
        for key, item in value.items():
            kind = type(item)
            if kind is str and key == "source":
                out["source_ref"] = ref(item)
            else:
                out[key] = strip(item) if kind in CONTAINERS else item
        return out

    out = {
        key: strip(value) if key in OFFER_PARTS and type(value) in CONTAINERS else value
        for key, value in document.items()
    }
    out["sources"] = sources
    return out
