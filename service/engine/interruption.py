"""What an interruption costs a training job, from the risk a provider publishes.

AWS's Spot Instance Advisor bands each spot instance type per region by "frequency of
interruption": the share of its spot instances reclaimed over the trailing month (<5%,
5-10%, 10-15%, 15-20%, >20%). A job that checkpoints loses, per interruption, the work since
its last checkpoint and the time to start again: ``LOST_HOURS_PER_INTERRUPTION``. So a band
costs (interruptions per instance-hour) x (hours lost each) more work:

    overhead = monthly share / HOURS_PER_MONTH x LOST_HOURS_PER_INTERRUPTION

An offer without a published band (GCP and Azure spot, marketplaces' interruptible tier,
Colab) pays the flat ``spot_overhead`` assumption (default 0.10) instead: a cautious figure
for a risk nobody states. Waiting for spot capacity to come back is in neither: the advisor
does not publish it.
"""

from __future__ import annotations

import math

from service.engine.hours import HOURS_PER_MONTH

# Half of a 30-minute checkpoint interval redone, plus reloading and restarting: the same
# half hour a Colab restart costs by default (`restart_hours`).
LOST_HOURS_PER_INTERRUPTION = 0.5
# Each band's monthly share at its upper bound, as the advisor's own "ranges" table gives it
# ("max": 5, 11, 16, 22, 100 percent; spot-advisor-data.json, copy of 2025-06-28 in
# alexei-led/spotinfo@5bdc33ce): >20% is open-ended, read as every instance once a month.
BAND_MONTHLY_SHARE = {"<5%": 0.05, "5-10%": 0.11, "10-15%": 0.16, "15-20%": 0.22, ">20%": 1.0}


# The bands in order: an offer's interruption class is 0 (on demand), 1 (interruptible, no
# band: the spot_overhead assumption) or 2 + its band's position here.
BANDS = tuple(BAND_MONTHLY_SHARE)
ON_DEMAND_CLASS, ASSUMED_CLASS = 0, 1


def band_overhead(band: str) -> float:
    """The extra share of work a published band costs; NaN where there is no band."""
    share = BAND_MONTHLY_SHARE.get(band)
    if share is None:
        return math.nan
    return share / HOURS_PER_MONTH * LOST_HOURS_PER_INTERRUPTION


def class_shares(spot_overhead: float) -> tuple[float, ...]:
    """The overhead of each interruption class, at ``spot_overhead``."""
    return (0.0, spot_overhead, *_BAND_OVERHEADS)


def interruption_class(interruptible: bool, band: str) -> int:
    if not interruptible:
        return ON_DEMAND_CLASS
    return 2 + BANDS.index(band) if band in BAND_MONTHLY_SHARE else ASSUMED_CLASS


_BAND_OVERHEADS = tuple(band_overhead(band) for band in BANDS)


def overhead_basis(band: str, spot_overhead: float) -> tuple[float, str]:
    """An interruptible offer's overhead and why, as the answer states it."""
    overhead = band_overhead(band)
    if math.isnan(overhead):
        return spot_overhead, (
            f"no published interruption rate: the spot_overhead assumption ({spot_overhead:g})"
        )
    share = BAND_MONTHLY_SHARE[band]
    return overhead, (
        f"AWS Spot Instance Advisor band {band}: up to {share:.0%} of instances reclaimed a "
        f"month, each losing {LOST_HOURS_PER_INTERRUPTION:g} h of work, "
        f"= {share:g} / {HOURS_PER_MONTH:g} h x {LOST_HOURS_PER_INTERRUPTION:g} h"
    )
