"""What an interruption costs a training job, from the risk a provider publishes.

AWS's Spot Instance Advisor bands each spot instance type per region by "frequency of
interruption": "the rate at which Spot has reclaimed capacity during the trailing month"
(<5%, 5-10%, 10-15%, 15-20%, >20%). That is a share of instances reclaimed, not a rate per
hour: AWS does not publish how long the instances ran. It is read here as the chance that
one instance is reclaimed in ``BAND_PERIOD_HOURS`` (a day) of running, the band's upper
bound: a stated assumption (were they to run the whole month, the risk an hour would be 30
times lower; instances of a few hours would make it higher). A job that checkpoints loses,
per interruption, the work since its last checkpoint and the time to start again:
``LOST_HOURS_PER_INTERRUPTION``. So one instance costs

    overhead = band share / BAND_PERIOD_HOURS x LOST_HOURS_PER_INTERRUPTION

more work, and a job on N instances N times that: any one of N taken back stops them all
(service/engine/costs.py). Waiting for capacity to come back is not counted: the reclaimed
instance is not paid while it waits, and the others are taken as released meanwhile.

Azure publishes eviction-rate bands too ("eviction rates for the last 28 trailing days",
Resource Graph), but no dated copy for its GPU sizes was found to bundle; Azure spot, GCP
spot, the marketplaces' interruptible tier and Colab pay the flat ``spot_overhead``
assumption (default 0.10) instead: a cautious figure for a risk nobody states.
"""

from __future__ import annotations

import math

# The running time a band's share is read over (see above): an assumption, stated in every
# answer that uses a band.
BAND_PERIOD_HOURS = 24.0
# Half of a 30-minute checkpoint interval redone, plus reloading and restarting: the same
# half hour a Colab restart costs by default (`restart_hours`).
LOST_HOURS_PER_INTERRUPTION = 0.5
# Each band's share at its upper bound, as the advisor's own "ranges" table gives it ("max":
# 5, 11, 16, 22, 100 percent; spot-advisor-data.json, copy of 2025-06-28 in
# alexei-led/spotinfo@5bdc33ce): >20% is open-ended, read as every instance.
BAND_SHARE = {"<5%": 0.05, "5-10%": 0.11, "10-15%": 0.16, "15-20%": 0.22, ">20%": 1.0}


# The bands in order: an offer's interruption class is 0 (on demand), 1 (interruptible, no
# band: the spot_overhead assumption) or 2 + its band's position here.
BANDS = tuple(BAND_SHARE)
ON_DEMAND_CLASS, ASSUMED_CLASS = 0, 1


def band_overhead(band: str) -> float:
    """The extra share of work a published band costs one instance; NaN where there is none."""
    share = BAND_SHARE.get(band)
    if share is None:
        return math.nan
    return share / BAND_PERIOD_HOURS * LOST_HOURS_PER_INTERRUPTION


def class_shares(spot_overhead: float) -> tuple[float, ...]:
    """The overhead of each interruption class, at ``spot_overhead``."""
    return (0.0, spot_overhead, *_BAND_OVERHEADS)


def interruption_class(interruptible: bool, band: str) -> int:
    if not interruptible:
        return ON_DEMAND_CLASS
    return 2 + BANDS.index(band) if band in BAND_SHARE else ASSUMED_CLASS


_BAND_OVERHEADS = tuple(band_overhead(band) for band in BANDS)


def overhead_basis(band: str, spot_overhead: float) -> tuple[float, str]:
    """An interruptible offer's overhead and why, as the answer states it."""
    overhead = band_overhead(band)
    if math.isnan(overhead):
        return spot_overhead, (
            f"no published interruption rate: the spot_overhead assumption ({spot_overhead:g})"
        )
    share = BAND_SHARE[band]
    return overhead, (
        f"AWS Spot Instance Advisor band {band}: up to {share:.0%} of its instances reclaimed "
        f"over the trailing month, read as the chance one is in {BAND_PERIOD_HOURS:g} h of "
        f"running (an assumption: AWS does not say how long they ran), each losing "
        f"{LOST_HOURS_PER_INTERRUPTION:g} h of work: {share:g} / {BAND_PERIOD_HOURS:g} h x "
        f"{LOST_HOURS_PER_INTERRUPTION:g} h per instance, times the instances; waiting for "
        "capacity not counted"
    )
