"""Where each GPU is offered: the Compute Engine AcceleratorTypes aggregated list.

The answer maps every zone either to its accelerator types (with maximumCardsPerInstance)
or to a ``warning`` (NO_RESULTS_ON_PAGE); zones with only a warning are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# accelerator type -> region -> most cards one VM can take there
Availability = dict[str, dict[str, int]]


def parse_aggregated_list(items: Iterable[tuple[str, Mapping[str, Any]]]) -> Availability:
    available: Availability = {}
    for scope, scoped in items:
        types = scoped.get("acceleratorTypes") or []
        if not types or not scope.startswith("zones/"):
            continue
        region = scope.removeprefix("zones/").rsplit("-", 1)[0]
        for accelerator in types:
            per_region = available.setdefault(accelerator["name"], {})
            cards = int(accelerator.get("maximumCardsPerInstance", 0))
            per_region[region] = max(per_region.get(region, 0), cards)
    return available
