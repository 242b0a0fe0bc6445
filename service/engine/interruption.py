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

Azure publishes eviction-rate bands too, per VM size and region, in Resource Graph's
``SpotResources`` table ("0-5" ... "20+"), and says how to read them: "Eviction rates are
quoted per hour. For example, an eviction rate of 10% means a VM has a 10% chance of being
evicted within the next hour, based on historical eviction data of the last 28 days"
(learn.microsoft.com, "Use Azure Spot Virtual Machines"; MicrosoftDocs/azure-docs
articles/virtual-machines/spot-vms.md@f32727c8, ms.date 2023-03-09). So an Azure band's upper
bound is the chance one VM is evicted in ``AZURE_PERIOD_HOURS`` (an hour) of running, no
assumption needed, and the open "20+" is read, as AWS's ">20%", as every VM. Reading the
bands needs Azure credentials (pricing/adapters/azure/eviction.py); no dated copy for GPU
sizes was found to bundle. Azure spot without a band, GCP spot, the marketplaces'
interruptible tier and Colab pay the flat ``spot_overhead`` assumption (default 0.10)
instead: a cautious figure for a risk nobody states.

On N instances (:func:`slowdown`) the whole job stops when any one is taken back. Read as a
renewal process, an instance whose allowance alone is o loses x = o / (1 + o) of its running
time (alone it then takes 1 / (1 - x) = 1 + o times its work); N of them lose N x, so the job
takes 1 / (1 - N x) = (1 + o) / (1 - (N - 1) o) times its work, and makes no progress where
(N - 1) o >= 1. For the small allowances of AWS's bands this is about 1 + N o; for Azure's
hourly bands on many VMs it is not (eight "5-10" VMs: 1.62, not 1.40), and a "20+" VM (o =
0.5) cannot be clustered past two.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pricing.offer import AZURE_EVICTION_BANDS

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


# Azure states its own period: a band is the chance of an eviction within the next hour.
AZURE_PERIOD_HOURS = 1.0
# Each Azure band's upper bound; the open "20+" read as every VM, as AWS's ">20%" is.
AZURE_BAND_SHARE = dict(zip(AZURE_EVICTION_BANDS, (0.05, 0.10, 0.15, 0.20, 1.0), strict=True))

# Every band: (its upper bound, the hours of running that bound is the chance of one
# interruption in).
_READINGS = {
    **{band: (share, BAND_PERIOD_HOURS) for band, share in BAND_SHARE.items()},
    **{band: (share, AZURE_PERIOD_HOURS) for band, share in AZURE_BAND_SHARE.items()},
}

# The bands in order: an offer's interruption class is 0 (on demand), 1 (interruptible, no
# band: the spot_overhead assumption) or 2 + its band's position here.
BANDS = tuple(_READINGS)
ON_DEMAND_CLASS, ASSUMED_CLASS = 0, 1


def band_overhead(band: str) -> float:
    """The extra share of work a published band costs one instance; NaN where there is none."""
    reading = _READINGS.get(band)
    if reading is None:
        return math.nan
    share, period_hours = reading
    return share / period_hours * LOST_HOURS_PER_INTERRUPTION


def extra_work(overhead: float, instances: int) -> float:
    """The extra share of its work a job does on ``instances`` interruptible instances, each
    of whose interruptions alone cost ``overhead`` (o): N o / (1 - (N - 1) o), o itself on
    one instance, inf where the N of them would leave no progress (see above). One rent
    line's, as its answer states it."""
    left = 1.0 - (instances - 1) * overhead
    return instances * overhead / left if left > 0 else math.inf


def slowdown(overhead: Any, instances: Any) -> Any:
    """How many times its work's hours the job takes: 1 + :func:`extra_work`, that is
    (1 + o) / (1 - (N - 1) o); elementwise on arrays, in one division (the engine's hot
    path)."""
    if np.ndim(overhead) == 0 and np.ndim(instances) == 0:
        return 1.0 + extra_work(overhead, instances)
    left = 1.0 - (np.asarray(instances) - 1) * overhead
    stretch = np.full(left.shape, np.inf)  # where no progress is made
    np.divide(1.0 + overhead, left, out=stretch, where=left > 0)
    return stretch


def class_shares(spot_overhead: float) -> tuple[float, ...]:
    """The overhead of each interruption class, at ``spot_overhead``."""
    return (0.0, spot_overhead, *_BAND_OVERHEADS)


def interruption_class(interruptible: bool, band: str) -> int:
    if not interruptible:
        return ON_DEMAND_CLASS
    return 2 + BANDS.index(band) if band in _READINGS else ASSUMED_CLASS


_BAND_OVERHEADS = tuple(band_overhead(band) for band in BANDS)


# How an answer says the allowance grows with instances (its job_overhead says by how much).
ON_SEVERAL = "more than N times that on N (job_overhead)"


def overhead_basis(band: str, spot_overhead: float) -> tuple[float, str]:
    """An interruptible offer's overhead and why, as the answer states it."""
    overhead = band_overhead(band)
    if math.isnan(overhead):
        return spot_overhead, (
            f"no published interruption rate: the spot_overhead assumption ({spot_overhead:g})"
        )
    if band in AZURE_BAND_SHARE:
        share = AZURE_BAND_SHARE[band]
        bound = (
            "open-ended, read as every VM evicted"
            if share == 1.0
            else f"up to a {share:.0%} chance a VM is evicted"
        )
        return overhead, (
            f"Azure eviction rate {band}: {bound} within the next hour (Azure's own "
            f"reading, from the last 28 days), each eviction losing "
            f"{LOST_HOURS_PER_INTERRUPTION:g} h of work: {share:g} / "
            f"{AZURE_PERIOD_HOURS:g} h x {LOST_HOURS_PER_INTERRUPTION:g} h on one instance, "
            f"{ON_SEVERAL}; waiting for capacity not counted"
        )
    share = BAND_SHARE[band]
    return overhead, (
        f"AWS Spot Instance Advisor band {band}: up to {share:.0%} of its instances reclaimed "
        f"over the trailing month, read as the chance one is in {BAND_PERIOD_HOURS:g} h of "
        f"running (an assumption: AWS does not say how long they ran), each losing "
        f"{LOST_HOURS_PER_INTERRUPTION:g} h of work: {share:g} / {BAND_PERIOD_HOURS:g} h x "
        f"{LOST_HOURS_PER_INTERRUPTION:g} h on one instance, {ON_SEVERAL}; "
        "waiting for capacity not counted"
    )
