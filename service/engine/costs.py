"""The one cost model: what a job costs on a rental, what owning the cards costs, and where
the two cross. /breakeven, /rank, /offers, the sensitivity analysis and the ranges all price
through here, so an offer costs the same wherever it is asked about.

Work is counted in hours of the reference card (the one the question would buy). A rental
with hourly price p, effective speed s = n * eta(a, n, k) * S(a, k) and interruption
allowance o (a spot offer's published band, else the spot_overhead assumption; 0 on demand)
costs, per hour of the reference card's work (``usd_per_reference_hour``):

    rate = p * rent_factor * (S_ref / s) * (1 + o)

A job of H reference hours on one instance is busy b = H * S_ref / s hours. On N instances
of the offer (a cluster: when one cannot finish by the deadline, or hold the job) it runs

    hours = b / (N * e(N)) * (1 + o) / (1 - (N - 1) * o) + restarts * restart_hours

wall-clock hours, e(N) the efficiency of N machines on the offer's fabric
(hardware/fabrics.py). Interruptions scale with instances: the whole job stops when any one
of N interruptible instances is taken back, so the cluster is interrupted N times as often as
one instance and loses N times its share of running time (service/engine/interruption.py
``slowdown``; no N with (N - 1) o >= 1 makes progress); a session-bound offer restarts once
per session past the first, and is never clustered. N is the fewest that meet the deadline and
hold the job, which is also the cheapest: cost grows with N. The job costs N * hours * p *
rent_factor. Restarts are a cost of a particular job, not of an hour of work: they are in
the job's total, never in the rate.

A committed offer (a term of pricing.offer.TERM_MONTHS) is paid for every hour of its term,
used or not: its instances are each paid ceil(hours / T) * T hours, T the term's hours, so the job
costs N * ceil(hours / T) * T * p * rent_factor, p the effective hourly rate (upfront fees
spread over the term). The fewest instances are still the cheapest: N * ceil(x / (N e(N)))
is at least ceil(x), for x = hours on one instance in terms and e(N) <= 1. Its rate is the
hourly one, as for any offer; the unused hours of the last term are a cost of the job.

Rentals are weighed, and ranked, by their present value (:class:`PayClock`), the figure the
verdict compares: an hourly rental paid as the work is done, a committed one over its whole
terms, its upfront share at each term's start. Two offers of equal cash can differ in today's
money, and the cheaper in cash is not always the cheaper now.

Owning n cards for H reference hours costs capex - resale(H) + energy(H) (:class:`BuyModel`),
a new set of cards bought at each end of their useful life while work is left; the
break-even is the H where one set's cost meets a rental's, solved once, by
:func:`crossing_hours` (a crossing past the set's life is no payoff: the answer says so).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from hardware import BASES, Card, CardPrice, Hardware, SpeedKey, Workload
from hardware.ownership import System
from service.engine.assumptions import Assumptions
from service.engine.clusters import DEADLINE_TOLERANCE, Clusters
from service.engine.hours import HOURS_PER_MONTH, HOURS_PER_YEAR
from service.engine.interruption import class_shares, slowdown
from service.engine.offer_table import OfferTable
from service.engine.work import MAX_HOURS, MIN_HOURS

MODELS_KEPT = 256  # bought cards' models whose crossings are remembered
CROSSINGS_KEPT = 1024  # crossings remembered per model, by rate
NEWTON_STEPS = 50  # a cap; convergence is quadratic, 5-8 steps in practice
# A step this small, relative to the crossing (or to one hour below it), ends the search:
# far below a displayed figure, and above the rounding of hours up to the 1e7 cap.
NEWTON_TOLERANCE = 1e-12
# Work this share past a set of cards' life is float noise, not a reason to buy another set.
LIFE_TOLERANCE = 1e-9
BRACKET_STEPS = 200  # a cap on a discounted crossing's steps: Newton's, or halvings of its bracket


# -- renting -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PayClock:
    """When rent is paid, to weigh it in today's money: the discount rate per calendar hour
    and the calendar hours an hour of work takes (the bought cards' pace: both sides pay on
    one calendar, :class:`BuyModel`). The default discounts nothing: present value is cash."""

    discount_per_calendar_hour: float = 0.0
    calendar_per_hour: float = 1.0

    def hourly_share(self, hours: float) -> float:
        """Present value per USD of a rental paid as ``hours`` of work are done."""
        return present_share(self.discount_per_calendar_hour, hours * self.calendar_per_hour)

    def present(
        self,
        total: np.ndarray,
        hours: float,
        paid_hours: np.ndarray,
        term_hours: np.ndarray,
        upfront_share: np.ndarray,
    ) -> np.ndarray:
        """Each rental's ``total`` for ``hours`` of work in today's money: paid as the work
        is done; or, a committed offer, over its whole terms (``paid_hours`` of
        ``term_hours`` each), its upfront share at each term's start and the rest evenly."""
        rho = self.discount_per_calendar_hour
        if rho <= 0:
            return total
        present = total * self.hourly_share(hours)
        at: Any = np.flatnonzero(term_hours)  # the committed offers, computed apart
        if at.size == term_hours.size:
            at = slice(None)  # all of them (a committed order's stretch): no gathers
        if term_hours[at].size:
            term = term_hours[at]
            span = rho * np.maximum(np.round(paid_hours[at] / term), 1.0) * term  # rho n T
            whole = -np.expm1(-span)  # 1 - exp(-rho n T)
            share = whole / span  # paid evenly over the n terms
            upfront = upfront_share[at]
            if upfront.any():  # the mean of exp(-rho k T) over the n term starts
                starts = whole / (span / (rho * term) * -np.expm1(-rho * term))
                share += upfront * (starts - share)
            present[at] = total[at] * share
        return present

    def term_floor_share(self, term_hours: float, deadline_hours: float) -> float:
        """A floor under the present value per USD of any committed offer of this term that
        finishes by the deadline: paid evenly over the most terms it could take (fewer terms,
        or a share upfront, are worth more now). 0 where no deadline bounds the terms."""
        if self.discount_per_calendar_hour <= 0:
            return 1.0
        if not math.isfinite(deadline_hours):
            return 0.0
        most = math.floor(deadline_hours / term_hours) + 1  # at least ceil(run / T) for run <= D
        return present_share(self.discount_per_calendar_hour, most * term_hours)


@dataclass(frozen=True)
class Limits:
    """What a job asks of a rental besides its price: to finish by ``deadline_hours`` of
    wall-clock time (inf: whenever), to hold ``total_memory_gb`` across its instances
    (None: a replica per device, which the memory gate already checked) with
    ``per_card_overhead_gb`` kept on every accelerator besides, on at most
    ``max_instances`` instances of the offer; and ``clock``, when its cash is paid."""

    deadline_hours: float = math.inf
    total_memory_gb: float | None = None
    max_instances: int = 1
    per_card_overhead_gb: float = 0.0
    clock: PayClock = field(default_factory=PayClock)  # how its cash is weighed in today's money
    home: str | None = None  # the asker's country (lower case): where a tie goes first


NO_LIMITS = Limits()


@dataclass(frozen=True)
class JobCost:
    """A job on each of a set of rentals, position by position. A rental that cannot do it
    within the limits costs inf and has 0 instances."""

    hours: np.ndarray  # wall-clock hours each rental runs, restarts included
    sessions: np.ndarray  # runtimes it takes: 1 unless session-bound
    total_usd: np.ndarray
    instances: np.ndarray  # N: instances of the offer the job runs on
    rate: np.ndarray  # usd_per_reference_hour at that N (restarts aside)
    # hours each instance is paid for: the hours it runs, or whole terms of a committed offer
    paid_hours: np.ndarray
    # the job on one instance with no deadline, restarts aside: no N or deadline costs less
    floor_usd: np.ndarray
    # the total in today's money (Limits.clock): what the cheapest is chosen by
    present_usd: np.ndarray
    # between rentals of equal cost: 0 a dated price in the asker's country, 1 one there
    # undated, 2 a dated price elsewhere, 3 the rest (OfferTable.tie_rank)
    tie: np.ndarray

    @property
    def feasible(self) -> np.ndarray:
        return self.instances > 0

    @classmethod
    def joined(cls, parts: Sequence[JobCost]) -> JobCost:
        """Several sets of rentals' costs, end to end."""
        return cls(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)))

    def take(self, kept: np.ndarray) -> JobCost:
        """The costs of the rentals at ``kept`` (a mask or positions)."""
        return JobCost(*(getattr(self, f.name)[kept] for f in fields(self)))


class _Column:
    """One offer-table column at a set of rentals' rows, gathered the first time a cost
    reads it and kept on the rentals (a non-data descriptor: the kept array answers after)."""

    def __init__(self, column: str, keyed: bool = False) -> None:
        self._column, self._keyed = column, keyed  # keyed: one array per speed key

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, rentals: Any, owner: type | None = None) -> Any:
        if rentals is None:
            return self
        values = getattr(rentals._table, self._column)
        values = (values[rentals._key] if self._keyed else values)[rentals._index]
        rentals.__dict__[self._name] = values
        return values


class Rentals:
    """A set of rental offers as the numbers their cost depends on, each column read from the
    offer table when a cost first needs it: a job reads about half of them (the memory,
    session and band columns only where the question needs them), and the gathers were a
    large share of costing a few thousand offers."""

    usd_per_hour = _Column("price")
    speed = _Column("speed", keyed=True)  # s: reference-card units of work each does per hour
    interruptible = _Column("interruptible")
    band_overhead = _Column("band_overhead")  # a published band's allowance; NaN: none
    session_bound = _Column("session_bound")
    # service/engine/interruption.py: on demand, assumed, or a band
    interruption_class = _Column("interruption_class")
    fabric = _Column("fabric_code")  # a code into clusters.names: the network between two
    instance_memory = _Column("total_memory")  # GB in all of one instance's accelerators
    instance_cards = _Column("cards")
    term_hours = _Column("term_hours")  # a committed offer's term, paid whole; 0: as used
    upfront_share = _Column("upfront_share")  # of a committed term's total, paid at its start

    def __init__(
        self, table: OfferTable, index: np.ndarray, reference_speed: float, key: SpeedKey
    ) -> None:
        self._table, self._index, self._key = table, index, key
        self.reference_speed = reference_speed  # S_ref: the units an hour of its work holds
        self.clusters: Clusters = table.clusters
        # what a job's cost takes from the offers whatever its hours (_unmoved, _ties)
        self._unmoved_by: dict[tuple[float, float], tuple[np.ndarray, ...]] = {}
        self._ties_by: dict[str | None, np.ndarray] = {}

    @classmethod
    def of(
        cls, table: OfferTable, index: np.ndarray, reference_speed: float, key: SpeedKey
    ) -> Rentals:
        """The offers at ``index``, their work counted in hours of a card of speed
        ``reference_speed`` at ``key`` (a workload class, 16 bits or FP8)."""
        return cls(table, index, reference_speed, key)

    def share(self, spot_overhead: float) -> np.ndarray:
        """o: the extra work each offer's interruptions cost: its published band's where it
        has one, else ``spot_overhead``; on-demand offers none (by interruption class)."""
        return _class_shares(spot_overhead)[self.interruption_class]

    def rate(self, spot_overhead: float, rent_factor: float = 1.0) -> np.ndarray:
        """``usd_per_reference_hour``: one hour of the reference card's work on each offer,
        on one instance, the interruption allowance included, session restarts not (they
        belong to a job). The job's own rate at N = 1, to the last bit."""
        return self._unmoved(spot_overhead, rent_factor)[2]

    def floor_usd(self, hours: float, spot_overhead: float, rent_factor: float) -> np.ndarray:
        """``hours`` of the reference card's work on one instance of each offer, with no
        deadline and restarts aside: no N, deadline or term costs less (JobCost.floor_usd)."""
        return self.rate(spot_overhead, rent_factor) * hours

    def _per_work(self, rent_factor: float) -> np.ndarray:
        """USD per hour of the reference card's work, before interruptions and clusters."""
        return self.usd_per_hour * self.reference_speed / self.speed * rent_factor

    def job(
        self,
        hours: float,
        assumptions: Assumptions,
        rent_factor: float = 1.0,
        session_hours: float | None = None,
        limits: Limits = NO_LIMITS,
    ) -> JobCost:
        """``hours`` of the reference card's work on each offer, on the fewest instances
        that meet ``limits``."""
        share, per_work, alone = self._unmoved(assumptions.spot_overhead, rent_factor)
        busy = self.busy_hours(hours)  # b: one instance, no interruptions
        n = self.instances(busy, share, assumptions.spot_overhead, limits)
        feasible = n > 0
        used = np.maximum(n, 1)
        # one instance each (most questions): e(1) = 1 and 1 + o, no lookups
        clustered = bool((n > 1).any())
        efficiency = self._efficiency(used) if clustered else 1.0
        stretch = slowdown(share, used) if clustered else 1.0 + share
        work = busy / (used * efficiency) * stretch
        feasible &= np.isfinite(work)
        if session_hours is not None and self.session_bound.any():
            sessions = np.ones_like(work)
            bound = self.session_bound
            sessions[bound] = sessions_needed(work[bound], session_hours)
            # each session past the first restarts the job: restart_hours of paid time redone
            run = work + (sessions - 1) * assumptions.restart_hours
        else:
            sessions, run = np.ones_like(work), work
        feasible &= run <= limits.deadline_hours * (1 + DEADLINE_TOLERANCE)
        paid = paid_hours(run, self.term_hours)
        total = np.where(feasible, used * paid * self.usd_per_hour * rent_factor, np.inf)
        rate = _per_reference_hour(per_work, stretch, efficiency) if clustered else alone
        floor = alone * hours  # floor_usd
        present = limits.clock.present(total, hours, paid, self.term_hours, self.upfront_share)
        return JobCost(
            hours=run,
            sessions=sessions,
            total_usd=total,
            instances=np.where(feasible, used, 0),
            rate=rate,
            paid_hours=paid,
            floor_usd=floor,
            present_usd=present,
            tie=self._ties(limits.home),
        )

    def _unmoved(
        self, spot_overhead: float, rent_factor: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What a job's cost takes from these offers whatever its hours: o, the work's price
        and one instance's rate per hour of work, per_work (1 + o) (:meth:`rate`, the floor's
        per hour too). Kept on the rentals, read-only: a plan's are costed at every asking
        (service/engine/again.py)."""
        key = (spot_overhead, rent_factor)
        found = self._unmoved_by.get(key)
        if found is None:
            share = self.share(spot_overhead)
            per_work = self._per_work(rent_factor)
            alone = _per_reference_hour(per_work, 1.0 + share, 1.0)  # slowdown(o, 1)
            found = self._unmoved_by[key] = _read_only(share, per_work, alone)
        return found

    def _ties(self, home: str | None) -> np.ndarray:
        """JobCost.tie of these offers for an asker at ``home``, kept as :meth:`_unmoved`."""
        found = self._ties_by.get(home)
        if found is None:
            found = self._ties_by[home] = _read_only(self._table.tie_rank(home)[self._index])[0]
        return found

    def instances(
        self, busy: np.ndarray, share: np.ndarray, spot_overhead: float, limits: Limits
    ) -> np.ndarray:
        """N for each offer: the fewest instances that hold the job and finish ``busy``
        hours of one instance's work by the deadline; 0 where no N up to max_instances does.

        Memory first: a job one instance cannot hold takes ceil(need / instance memory) of
        them, on a fabric that shards across machines only. Then time: the least N with
        N * e(N) / slowdown(o, N) >= busy / deadline (service/engine/clusters.py)."""
        most = np.minimum(self.clusters.largest[self.fabric], limits.max_instances)
        n = np.ones(busy.shape, dtype=np.int64)
        if limits.total_memory_gb is not None:
            room = self.instance_memory - self.instance_cards * limits.per_card_overhead_gb
            room = np.maximum(room, 1e-9)  # cards smaller than their own overhead hold nothing
            short = room < limits.total_memory_gb
            n[short] = np.ceil(limits.total_memory_gb / room[short])
            unsharded = short & ~self.clusters.shards[self.fabric]
            n[unsharded] = most[unsharded] + 1  # cannot hold it: past any cluster allowed
        if math.isfinite(limits.deadline_hours):
            needed = _needed(busy, limits.deadline_hours)
            if keeps_up_alone(needed, share).all():
                return np.where(n <= most, n, 0)  # each alone makes it: no search
            shares = class_shares(spot_overhead)
            fewest = self.clusters.fewest(
                self.fabric, self.interruption_class, shares, needed, limits.max_instances
            )
            n = np.maximum(n, fewest)
        return np.where(n <= most, n, 0)

    def busy_hours(self, hours: float) -> np.ndarray:
        """``hours`` of the reference card's work on one instance of each offer, no
        interruptions: b."""
        return hours * self.reference_speed / self.speed

    def outrun(self, hours: float, spot_overhead: float, deadline: float) -> np.ndarray:
        """Which offers one instance of cannot do ``hours`` of work by ``deadline``
        (interruptions counted): they need a cluster, or miss it."""
        needed = _needed(self.busy_hours(hours), deadline)
        return ~keeps_up_alone(needed, self.share(spot_overhead))

    def _efficiency(self, n: np.ndarray) -> np.ndarray:
        """e(N) on each offer's fabric."""
        return self.clusters.efficiency[self.fabric, n - 1]


def _needed(busy: np.ndarray, deadline: float) -> np.ndarray:
    """Instances' work per instance-hour to do ``busy`` hours by ``deadline`` (a deadline of
    0 h: none, unless no work)."""
    return busy / deadline if deadline > 0 else np.where(busy > 0, np.inf, 0.0)


def keeps_up_alone(needed: np.ndarray, share: np.ndarray) -> np.ndarray:
    """Whether one instance, interrupted at ``share``, does the work ``needed`` an hour."""
    return needed * (1.0 + share) <= 1.0 + DEADLINE_TOLERANCE


@functools.lru_cache(maxsize=64)
def _class_shares(spot_overhead: float) -> np.ndarray:
    """class_shares as an array to index by class (read-only: one per overhead, shared)."""
    shares = np.asarray(class_shares(spot_overhead))
    shares.flags.writeable = False
    return shares


def _read_only(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """``arrays`` made read-only: shared by every job on the same rentals."""
    for array in arrays:
        array.flags.writeable = False
    return arrays


def _per_reference_hour(per_work: np.ndarray, stretch: Any, efficiency: Any) -> np.ndarray:
    """usd_per_reference_hour on N instances: the work's price times slowdown(o, N) / e(N)
    (``stretch``: service/engine/interruption.py)."""
    return per_work * stretch / efficiency


def paid_hours(run: np.ndarray, term_hours: np.ndarray) -> np.ndarray:
    """Hours an instance is paid for to run ``run`` hours: as used, or whole terms of a
    committed offer (at least one: a term is bought before its first hour)."""
    if not term_hours.any():
        return run
    # a run that fills its terms to the last bit fills them: two years of work in exactly
    # two 1-year terms is 2 terms, not 3 for a rounding error of 1e-12
    fill = run / np.where(term_hours > 0, term_hours, 1.0) / (1 + DEADLINE_TOLERANCE)
    terms = np.maximum(np.ceil(fill), 1.0)
    return np.where(term_hours > 0, terms * term_hours, run)


def sessions_needed(work_hours: np.ndarray, session_hours: float) -> np.ndarray:
    """Runtimes a session-bound offer (Colab) takes to do ``work_hours``: one at the least.
    A job that rounded to 0 h took ceil(0) = 0 sessions, so -1 restarts: hours -0.5 and a
    negative total, cheaper than any real offer."""
    return np.maximum(np.ceil(work_hours / session_hours), 1.0)


def verdict(buy_usd: float, rent_usd: float) -> str:
    """Which side a question's answer names: buying only where it costs less (a tie rents:
    nothing is bought for no saving)."""
    return "buy" if buy_usd < rent_usd else "rent"


# -- buying ------------------------------------------------------------------------------------


def present_share(discount_per_hour: float, hours: float) -> float:
    """What money paid evenly over ``hours`` of calendar time is worth now, per unit: 1 for
    no discount or no time, (1 - exp(-rho T)) / (rho T) with rho the continuous rate."""
    x = discount_per_hour * hours
    return 1.0 if x < 1e-12 else -math.expm1(-x) / x


def _each_life(x: float, lives: int) -> float:
    """Today's value of one USD paid at the end of each of ``lives`` lives, ``x`` the
    discount over one life (kappa x life): the geometric sum of exp(-k x), k = 1 .. lives."""
    if lives == 0:
        return 0.0
    if x < 1e-12:
        return float(lives)
    return math.exp(-x) * math.expm1(-lives * x) / math.expm1(-x)


def _stream(kappa: float, hours: float) -> float:
    """The present value of one USD per hour of work paid as ``hours`` of work are done,
    the calendar running kappa's rate per hour of work: hours x present_share."""
    x = kappa * hours
    return hours if x < 1e-12 else -math.expm1(-x) / kappa


@dataclass(frozen=True)
class BuyModel:
    """Owning the cards as a function of workload H (reference-card hours), and the clock
    both sides pay on. The cards are bought now and sold when the work is done; power and
    the site are paid as the work goes, over the bought cards' calendar time. At the
    continuous discount rate kappa per hour of work, their present value is

        cost(H) = capex + (energy + site) x (1 - exp(-kappa H)) / kappa
                  - resale_start x exp(-(decay + kappa) H)

    (kappa = 0: capex + (energy + site) x H - resale_start x exp(-decay H), the cash).
    Rentals are paid as the work is done, at the pace the bought cards would do it: over
    the same calendar (a deadline only bounds it: the cards finish within it), so neither
    side gains from paying later.

    No card runs past its useful life: work longer than ``life_hours`` (of work, the life's
    calendar time at the cards' pace) is done by sets of cards bought one after another,
    each sold when its life or the work ends. A replacement is the same cards at today's
    price (``replacement_usd``; the host and network are kept): what the answer can source,
    and no credit taken for prices that may fall. One set's cost is the formula above; the
    next ones are it again, each starting a life later."""

    capex_usd: float  # paid now: cards, host or whole systems, network between nodes
    energy_usd_per_hour: float  # per hour of work: power at the site's tariff and PUE
    site_usd_per_hour: float  # per hour of work: colocation, support, staff
    resale_start_usd: float  # what selling them would fetch at once, fees paid
    resale_decay_per_hour: float
    discount_per_calendar_hour: float = 0.0  # ln(1 + discount_rate) / hours a year
    calendar_per_hour: float = 1.0  # calendar hours the bought cards take per hour of work
    life_hours: float = math.inf  # hours of work one set of cards does in its useful life
    replacement_usd: float = 0.0  # what each later set costs: the cards again, no host

    @property
    def running_usd_per_hour(self) -> float:
        """Power and the site, per hour of work: what owning costs as it goes."""
        return self.energy_usd_per_hour + self.site_usd_per_hour

    def margin(self, rent_per_hour: float) -> float:
        """What an hour of work rented costs over owning's running costs: what each hour
        owned saves, towards the purchase."""
        return rent_per_hour - self.running_usd_per_hour

    @property
    def discount_per_hour(self) -> float:
        """kappa: the discount rate per hour of work, on the bought cards' calendar."""
        return self.discount_per_calendar_hour * self.calendar_per_hour

    def replacements(self, hours: float) -> int:
        """Sets of cards bought after the first for ``hours`` of work: one each time a set's
        life ends with work left (a hair past a life, float noise, buys none)."""
        if hours <= self.life_hours * (1 + LIFE_TOLERANCE):
            return 0
        return math.ceil(hours / self.life_hours * (1 - LIFE_TOLERANCE)) - 1

    def _last_set_hours(self, hours: float) -> float:
        """The work the last set does: what is left after the full lives before it."""
        return hours - self.replacements(hours) * self.life_hours

    def resale(self, hours: float) -> float:
        """Cash from selling every set of cards: each after its life, the last when the
        ``hours`` of work are done."""
        full = self.replacements(hours) * self._sold(self.life_hours)
        return full + self._sold(self._last_set_hours(hours))

    def _sold(self, hours: float) -> float:
        """What one set fetches after ``hours`` of work."""
        return self.resale_start_usd * math.exp(-self.resale_decay_per_hour * hours)

    def cash(self, hours: float) -> float:
        """Undiscounted: what owning costs in money paid and received, whenever."""
        bought = self.capex_usd + self.replacements(hours) * self.replacement_usd
        return bought + self.running_usd_per_hour * hours - self.resale(hours)

    def cost(self, hours: float) -> float:
        """The present value of owning for ``hours`` of work: the figure a verdict weighs."""
        later = self.replacement_usd * self._later_sets(hours)
        return self.capex_usd + later + self.running_present(hours) - self.resale_present(hours)

    def running_present(self, hours: float) -> float:
        return self.running_usd_per_hour * _stream(self.discount_per_hour, hours)

    def resale_present(self, hours: float) -> float:
        """Every set's sale in today's money: the full lives' sales a life apart, then the
        last set's when the work ends."""
        kappa, life = self.discount_per_hour, self.life_hours
        full = self._sold(life) * _each_life(kappa * life, self.replacements(hours))
        return full + self._sold(self._last_set_hours(hours)) * math.exp(-kappa * hours)

    def _later_sets(self, hours: float) -> float:
        """Today's value of one USD paid at the start of each set after the first."""
        return _each_life(self.discount_per_hour * self.life_hours, self.replacements(hours))

    def paid_as_worked(self, usd_per_hour: float, hours: float) -> float:
        """The present value of ``usd_per_hour`` paid as ``hours`` of work are done on this
        calendar: a rental's side of the crossing (:func:`crossing_hours`)."""
        return usd_per_hour * _stream(self.discount_per_hour, hours)

    def running_share(self, hours: float) -> float:
        """Present value per USD paid as ``hours`` of work are done (rent paid so too)."""
        return self.clock.hourly_share(hours)

    @property
    def clock(self) -> PayClock:
        """The calendar both sides pay on, for weighing rent in today's money."""
        return PayClock(self.discount_per_calendar_hour, self.calendar_per_hour)


def buy_model(
    price_usd: float,
    watts: float,
    cards: int,
    speed: float,
    a: Assumptions,
    nodes: int = 1,
) -> BuyModel:
    """What owning ``cards`` cards in ``nodes`` nodes costs per hour of work, in hours of the
    reference card, with every default filled (:func:`buy_assumptions`).

    ``speed`` is how many reference-card hours of work the cards do per busy hour (n x eta
    for n reference cards; S(card) / S(ref) for another card).
    """
    missing = [name for name in FILLED if getattr(a, name) is None]
    if missing:
        raise ValueError(f"buy_model needs {missing} filled: buy_assumptions()")
    parts = site_parts(price_usd, watts, cards, a, nodes)
    energy_per_busy_hour = (cards * watts * a.load + a.host_watts) / 1000 * a.pue
    energy_per_busy_hour *= a.electricity
    calendar = 1.0 / (speed * a.utilization)  # calendar hours per hour of work
    # resale(H) = resale_start * exp(-decay * H): value lost with calendar time, which is
    # busy time (H / speed) over utilization
    decay = -math.log1p(-a.depreciation) * calendar / HOURS_PER_YEAR
    return BuyModel(
        capex_usd=cards * price_usd + a.host_cost + nodes * a.network_usd,
        energy_usd_per_hour=energy_per_busy_hour / speed,
        site_usd_per_hour=sum(parts.values()) * calendar,
        resale_start_usd=cards * price_usd * a.resale,
        resale_decay_per_hour=decay,
        discount_per_calendar_hour=math.log1p(a.discount_rate) / HOURS_PER_YEAR,
        calendar_per_hour=calendar,
        life_hours=a.lifetime_years * HOURS_PER_YEAR / calendar,
        replacement_usd=cards * price_usd,
    )


# The buy side's assumptions whose defaults come from data: buy_model needs them all.
FILLED = (
    "electricity",
    "pue",
    "host_cost",
    "host_watts",
    "colo_usd_per_kw_month",
    "support_share",
    "staff_usd_per_node_year",
    "network_usd",
    "discount_rate",
    "selling_fee",
    "resale",
    "depreciation",
)


def site_parts(
    price_usd: float, watts: float, cards: int, a: Assumptions, nodes: int
) -> dict[str, float]:
    """The site's running costs per calendar hour: colocation on the nodes' nameplate
    draw (cards at board power and the hosts: what a rack is provisioned for), support on
    the purchase, staff per node."""
    nameplate_kw = (cards * watts + a.host_watts) / 1000
    purchase = cards * price_usd + a.host_cost
    return {
        "colo_usd": a.colo_usd_per_kw_month * nameplate_kw / HOURS_PER_MONTH,
        "support_usd": a.support_share * purchase / HOURS_PER_YEAR,
        "staff_usd": a.staff_usd_per_node_year * nodes / HOURS_PER_YEAR,
    }


def calendar_hours(work_hours: float, speed: float, utilization: float) -> float:
    """Calendar hours bought cards take for ``work_hours`` of the reference card's work:
    busy hours (work / speed) over the share of the calendar they train."""
    return work_hours / speed / utilization


# The network a buyer puts between the nodes of a bought cluster: InfiniBand, as on-premises
# training clusters are built (every on-premises multi-node MLPerf Training system of
# docs/research/multinode-scaling-2026-12-02.md); consumer cards go in boxes on Ethernet.
BOUGHT_FABRIC = {True: "ethernet", False: "infiniband"}  # by Card.consumer


def bought_fabric(hardware: Hardware, reference: str) -> str:
    card = hardware.cards.get(reference)
    return BOUGHT_FABRIC[card is not None and card.consumer]


def bought_speed(hardware: Hardware, reference: str, workload: Workload, cards: int) -> float:
    """Reference-card hours of work ``cards`` bought cards do per busy hour: n x eta(n)
    within a host, times e(nodes) across the hosts they fill (hosts.csv sizes them)."""
    nodes = hardware.host(cards).count
    across = hardware.fabrics.efficiency(bought_fabric(hardware, reference), nodes)
    return cards * hardware.efficiency(reference, workload, cards) * across


@dataclass(frozen=True)
class BuyBasis:
    """The buy side's defaults that come from data, and where from: the answer states them."""

    host: str
    host_source: str
    resale: str
    site: str  # home, office or colo
    site_basis: str  # given, or the host class's
    sources: dict[str, str]  # assumption -> where its value came from


def buy_assumptions(
    a: Assumptions,
    hardware: Hardware,
    reference: str,
    cards: int,
    site: str | None = None,
    price_basis: str = "new",
    price_usd: float | None = None,
    system: System | None = None,
) -> tuple[Assumptions, BuyBasis]:
    """``a`` with every unset buy-side assumption filled from the hardware data: the host
    sized for ``cards`` (hosts.csv) or the whole systems they come in (systems.csv), the
    site's costs, the network, the discount rate, and resale as the seller gets it."""
    own = hardware.ownership
    filled: dict[str, float] = {}
    sources: dict[str, str] = {}
    choice = hardware.host(cards)
    h = choice.host
    host, host_source = "as given", "host_cost= and host_watts="
    if a.host_cost is None or a.host_watts is None:
        host = h.name if choice.count == 1 else f"{choice.count} x {h.name}"
        host_source = (
            f"{host} for {cards} card(s) (hosts.csv): price {h.price_usd:g} USD each "
            f"({h.price_kind}, {h.price_as_of}: {h.price_source}); draw {h.watts:g} W each "
            f"({h.watts_kind}: {h.watts_source})"
        )
        if system is not None:
            host = f"{choice.count} x {system.cards}-card system"
            host_source = (
                f"the host is in the system's price (systems.csv); draw {h.watts:g} W per "
                f"node besides the cards ({h.watts_kind}: {h.watts_source})"
            )
        if a.host_cost is None:
            filled["host_cost"] = 0.0 if system is not None else choice.price_usd
        if a.host_watts is None:
            filled["host_watts"] = choice.watts
    where = site or h.site
    site_basis = "given (site=)" if site else f"where a {h.name} runs by default (hosts.csv)"
    for name, value in own.site(where).items():
        if getattr(a, name) is None:
            filled[name] = value.value
            sources[name] = f"site {where}: {value.cite()}"
    if a.network_usd is None:
        card = hardware.cards.get(reference)
        if card is not None and card.consumer and choice.count > 1:
            filled["network_usd"] = 0.0
            sources["network_usd"] = "Ethernet between desktops: no sourced cost, 0"
        else:
            network = own.network_per_node(choice.count)
            filled["network_usd"] = network.value
            sources["network_usd"] = f"{choice.count} node(s): {network.cite()}"
    if a.discount_rate is None:
        filled["discount_rate"] = own.discount_rate.value
        sources["discount_rate"] = own.discount_rate.cite()
    resale = _resale_defaults(
        a, hardware, reference, price_basis, price_usd, system, filled, sources
    )
    return replace(a, **filled), BuyBasis(host, host_source, resale, where, site_basis, sources)


def _resale_defaults(
    a: Assumptions,
    hardware: Hardware,
    reference: str,
    price_basis: str,
    price_usd: float | None,
    system: System | None,
    filled: dict[str, float],
    sources: dict[str, str],
) -> str:
    """Fill resale, depreciation and selling_fee; returns how the resale was set."""
    own = hardware.ownership
    card = hardware.cards.get(reference)
    consumer = card is not None and card.consumer
    if a.depreciation is None:
        if consumer:
            filled["depreciation"] = hardware.resale.yearly_loss
            sources["depreciation"] = f"used-price curve (resale.csv): {hardware.resale.source}"
        else:
            loss = own.yearly_loss_of(reference)
            filled["depreciation"] = max(loss.value, 0.0)
            sources["depreciation"] = loss.cite()
    if a.resale is not None:
        if a.selling_fee is None:
            filled["selling_fee"] = 0.0
        return "resale= as given (net of any selling fee)"
    # the share of the price paid the cards fetch on the used market now
    if price_basis == "used":
        kept, how = 1.0, "bought used: worth what was paid, less time"
    else:
        pair = _own_pair(card)
        if pair is not None:
            new, used = pair
            kept = min(used.usd / new.usd, 1.0)
            how = (
                f"used {used.usd:g} USD ({used.as_of}: {used.source}) over new {new.usd:g} USD "
                f"({new.as_of}: {new.source}): {1 - kept:.1%} below new"
            )
        else:
            drop = own.first_owner_drop(consumer)
            kept = 1.0 - drop.value
            how = f"first-owner drop {drop.value:.1%} ({drop.cite()})"
    # the fee on what the card fetches on the market, whatever was paid for it (price=
    # moves what is paid, not what a used card sells for): the resale share stays linear
    market = card.price(price_basis) if card is not None and price_basis in BASES else None
    if market is None and card is not None and price_basis == "given":
        market = card.price()
    paid = market.usd if market is not None else (price_usd or 0.0)
    fee = a.selling_fee
    if fee is None:
        fee = own.selling_fee(paid * kept, system is not None)
        filled["selling_fee"] = fee
        channel = "a broker's discount on a whole server" if system else "eBay's fee schedule"
        sources["selling_fee"] = f"{channel} at {paid * kept:,.0f} USD a card (ownership.csv)"
    filled["resale"] = kept * (1.0 - fee)
    return f"{how}; then less selling fees of {fee:.1%}"


def _own_pair(card: Card | None) -> tuple[CardPrice, CardPrice] | None:
    """A card's newest new price and its newest used price where both are sourced."""
    if card is None:
        return None
    new, used = card.price("new"), card.price("used")
    return None if new is None or used is None else (new, used)


# -- where they cross --------------------------------------------------------------------------


def crossing_rates(job: JobCost, hours: float, term_hours: np.ndarray) -> np.ndarray:
    """Each rental's cost per hour of work, the rent side its break-even is solved with: the
    job's own total over its hours, restarts included (the rate alone leaves a session-bound
    job's restarts out); a committed offer's rate, every hour of its terms used (its cost is
    a step per term, which the job's own average would turn into a crossing that moves with
    the job's size: 100 h on a 1-year term, a year's price over 100 h). A job below the
    smallest work a question may state, MIN_HOURS, has no restarts to spread: its rate (and
    dividing by 1e-300 h would overflow)."""
    per_hour = job.total_usd / hours if hours >= MIN_HOURS else job.rate
    return np.where(term_hours > 0, job.rate, per_hour)


def crossing_hours(model: BuyModel, rent_per_hour: np.ndarray) -> np.ndarray:
    """Workload H at which buying stops being dearer than renting at each of
    ``rent_per_hour`` USD per reference hour; inf where it never does.

    Undiscounted, buying costs capex - resale_start * exp(-decay * H) + running * H and
    renting rent_per_hour * H: their difference f(H) is convex with f(0) = capex -
    resale_start >= 0, so there is one crossing, inside [0, capex / margin]: closed form
    without resale, Newton's method from capex / margin with it. Discounted, f has at most
    one turning point (f' = 0 where exp((decay) H) meets a constant), so it still crosses
    zero once from above: Newton's method kept inside a bracket that halves when a step
    leaves it. A quote solves it for its listed rentals only (``top``, at most 100), where a
    loop over floats beats numpy's per-call overhead several times over.
    """
    rates = np.asarray(rent_per_hour, dtype=np.float64).tolist()
    # Remembered per model: an hourly offer's rate per hour of work does not move with the
    # hours asked, nor the bought cards' model, so a question asked again with other hours
    # solves again only what moved (a discounted crossing is a dozen Newton steps).
    known = _crossings_of(model)
    if len(known) > CROSSINGS_KEPT:
        known.clear()
    found = []
    for rate in rates:
        hours = known.get(rate)
        if hours is None:
            hours = known[rate] = _crossing(model, rate)
        found.append(hours)
    return np.array(found, dtype=np.float64)


@functools.lru_cache(maxsize=MODELS_KEPT)
def _crossings_of(model: BuyModel) -> dict[float, float]:
    """The crossings worked out against ``model``, by rate."""
    return {}


def _crossing(model: BuyModel, rate: float) -> float:
    """:func:`crossing_hours` for one rate, in floats: inf where buying never gets cheaper;
    0 where no rental can do the work at all (an infinite rate: buying from the first hour)."""
    if math.isinf(rate):
        return 0.0
    margin = model.margin(rate)
    capex, start = model.capex_usd, model.resale_start_usd
    decay = model.resale_decay_per_hour
    if _owning_runs_dearer(model, rate):
        return math.inf
    if start >= capex:
        return 0.0
    if model.discount_per_calendar_hour > 0:
        return _discounted_crossing(model, rate)
    if start == 0 or decay == 0:
        return (capex - start) / margin
    # Newton from the right: f(capex / margin) = resale left > 0, and f is convex, so each
    # step lands between the root and the last point
    hours = capex / margin
    for _ in range(NEWTON_STEPS):
        decayed = start * math.exp(-decay * hours)
        step = (margin * hours - capex + decayed) / (margin - decay * decayed)
        hours -= step
        if abs(step) <= NEWTON_TOLERANCE * max(hours, 1.0):
            break
    return hours


# Why buying never gets cheaper than a rental (NEVER_REASONS), each case tested once, here,
# for the crossing and for the answer that explains its absence.
NEVER_REASONS = {
    "running": "the rental costs no more per hour of work than owning's power and site",
    "discounting": "the rental costs more per hour than owning runs, but so little more that "
    "renting for ever is worth less today than buying, at the discount rate",
    "beyond": "the costs cross only past the longest work a question spans",
}


def never_reason(model: BuyModel, rate: float) -> str:
    """Which of NEVER_REASONS keeps buying from paying off against ``rate`` USD per hour of
    work (for a rate whose crossing is inf)."""
    if _owning_runs_dearer(model, rate):
        return "running"
    if model.discount_per_calendar_hour > 0 and _renting_forever_worth_less(model, rate):
        return "discounting"
    return "beyond"


def _owning_runs_dearer(model: BuyModel, rate: float) -> bool:
    """Owning's power and site cost at least the rental per hour of work: each hour owned
    adds to buying's lead, so it is never caught up."""
    return model.margin(rate) <= 0


def _renting_forever_worth_less(model: BuyModel, rate: float) -> bool:
    """What each hour saves against renting, summed over all time in today's money
    (margin / kappa), is less than the purchase: no crossing of present values."""
    margin = model.margin(rate)
    return model.capex_usd - margin / model.discount_per_hour > 0


def _discounted_crossing(model: BuyModel, rate: float) -> float:
    """The crossing of present values: f(H) = capex - resale_start x exp(-(decay + kappa) H)
    - margin x (1 - exp(-kappa H)) / kappa, both sides' running costs on one calendar. Its
    slope is zero at most once (exp(decay H) meets a constant), so from f(0) > 0 it crosses
    zero at most once: Newton's method inside a bracket [low, high] with f(low) > 0 >=
    f(high), bisecting where a step would leave it (f need not be convex)."""
    kappa = model.discount_per_hour
    margin = model.margin(rate)
    start, lost = model.resale_start_usd, model.resale_decay_per_hour + kappa

    def f(hours: float) -> tuple[float, float]:
        """f and its slope at ``hours``."""
        resale = start * math.exp(-lost * hours)
        value = model.capex_usd - resale - margin * _stream(kappa, hours)
        return value, lost * resale - margin * math.exp(-kappa * hours)

    if _renting_forever_worth_less(model, rate):
        return math.inf
    low, high = 0.0, (model.capex_usd - start) / margin
    if high <= 0:  # under the smallest float (a capex of 5e-324): doubling 0 never ends
        return 0.0
    while f(high)[0] > 0:  # the bracket's right end: past the crossing, or none within the cap
        if high >= MAX_HOURS:
            return math.inf
        low, high = high, min(high * 2, MAX_HOURS)
    hours = high
    for _ in range(BRACKET_STEPS):
        value, slope = f(hours)
        if value > 0:
            low = hours
        else:
            high = hours
        guess = hours - value / slope if slope != 0 else math.inf
        if not low < guess < high:
            guess = (low + high) / 2
        if abs(guess - hours) <= NEWTON_TOLERANCE * max(guess, 1.0):
            return guess
        hours = guess
    return hours


def crossing(model: BuyModel, rent_per_hour: float) -> float | None:
    """The crossing for one rate; None where buying never gets cheaper."""
    hours = _crossing(model, rent_per_hour)
    return None if math.isinf(hours) else hours
