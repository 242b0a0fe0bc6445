"""A question asked again with other hours (service/engine/again.py): priced from the offers
its last reading costed, it must answer exactly as a full reading does, or not at all.

The catalogs are toy ones (tests/helpers), long enough that the cheapest-first orders are
walked and committed terms read on, with interruptible offers, platforms and markets to gate
by, so every part of an answer (headline, tiers, same card, measured, left out) is proved."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from pricing.offer import PricingModel
from service.engine import again as again_module
from service.engine import breakeven
from service.engine.assumptions import Assumptions
from service.engine.breakeven import Quote, QuoteError, QuoteRequest, quote
from service.engine.offer_table import OfferTable
from tests.helpers import offer, stored, toy_hardware

TOY = toy_hardware()
PLAIN = Assumptions(electricity=0.0, host_cost=0.0, host_watts=0.0, utilization=1.0)


def _catalog(seed: int, size: int = 1200) -> OfferTable:
    """Offers of both toy cards, on both platforms, on demand, spot (cloud and marketplace)
    and on 1- and 3-year terms, some with estimated speeds (the fast card's)."""
    rng = random.Random(seed)
    offers = []
    for i in range(size):
        fast = rng.random() < 0.4
        fields: dict[str, object] = {
            "product": rng.choice(("ib-", "eth-", "solo-")) + ("fast" if fast else "ref"),
            "region": f"r{i}",
            "accelerator": "fast" if fast else "ref",
            "count": rng.choice((1, 2, 4, 8)),
            "usd_per_hour": round(rng.uniform(0.3, 3.0) * (2.2 if fast else 1.0), 4),
        }
        kind = rng.choice(("on_demand", "on_demand", "spot", "market", "term"))
        if kind in ("spot", "market"):
            fields["pricing"] = PricingModel.SPOT
            fields["market"] = "verified" if kind == "market" else "cloud"
        if kind == "term":
            fields["pricing"] = rng.choice((PricingModel.RESERVED_1Y, PricingModel.RESERVED_3Y))
            fields["purchase_option"], fields["upfront_share"] = "no_upfront", 0.0
        offers.append(offer(**fields))
    return OfferTable(stored(*offers), TOY)


def _answer(result: Quote | str) -> Quote | str:
    """What a person reads of a quote: all of it but the offers a what-if prices again."""
    return result if isinstance(result, str) else replace(result, priced=None)


def _ask(table: OfferTable, request: QuoteRequest, again_ok: bool) -> Quote | str:
    try:
        return _answer(quote(table, TOY, request, again_ok=again_ok))
    except QuoteError as exc:
        return f"{exc.parameter}: {exc}"


def _planned(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each asking from now on was priced from a plan."""
    planned: list[bool] = []
    found = again_module.again

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = found(*args, **kwargs)
        planned.append(result is not None)
        return result

    monkeypatch.setattr(breakeven, "again", counted)
    return planned


# Each question, and how many of its twelve askings at least a plan must answer
QUESTIONS = [
    ({"pricing": "dependable"}, 6),
    ({"pricing": "any", "deadline_hours": 600.0, "gpus": 256}, 6),
    ({"pricing": "on_demand", "assumptions": replace(PLAIN, discount_rate=0.1)}, 6),
    ({"pricing": "reserved_3y", "gpus": 8}, 6),
    ({"pricing": "spot", "markets": frozenset({"cloud"})}, 6),
    ({"pricing": "dependable", "platforms": frozenset({"cuda"}), "top": 3}, 6),
    # so few offers make the deadline that fewer than `top` are among the plan's, and an
    # offer outside it may make it too: never answered from a plan
    ({"deadline_hours": 40.0, "gpus": 1024, "assumptions": replace(PLAIN, max_instances=2)}, 0),
]


@pytest.mark.parametrize(("fields", "least"), QUESTIONS, ids=lambda f: str(f)[:40])
def test_a_question_asked_again_answers_as_a_full_reading(monkeypatch, fields, least) -> None:  # type: ignore[no-untyped-def]
    """Twelve hours from 3 to 40,000 asked one after another: each answer, priced from the
    last asking's plan where it proves every part, is the full reading's to the last field;
    and most of them were priced from a plan where a plan can prove them."""
    planned = _planned(monkeypatch)
    rng = random.Random(7)
    table = _catalog(11)
    base = QuoteRequest(reference="ref", hours=1.0, **{"assumptions": PLAIN, **fields})
    hours = [3.0, 40000.0] + [rng.uniform(10, 20000) for _ in range(10)]
    for h in hours:
        request = replace(base, hours=h)
        assert _ask(table, request, True) == _ask(table, request, False), h
    assert sum(planned) >= least


def test_a_plan_that_no_longer_proves_a_part_is_read_again(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Work from 50 h to 30,000 h by a deadline of 600 h: small work runs on one instance
    and the reading stops at each order's first offers; large work needs clusters, whose
    cheapest may lie past them. Where the last asking's plan cannot prove a part, the
    question is read in full (its answer the full reading's) and planned again, so the same
    hours asked once more are priced from the new plan."""
    outcomes: list[str] = []
    found = again_module.again

    def counted(table, request, *args):  # type: ignore[no-untyped-def]
        held = table.plans.get(again_module.plan_key(request)) is not None
        result = found(table, request, *args)
        outcomes.append("planned" if result is not None else "refused" if held else "new")
        return result

    monkeypatch.setattr(breakeven, "again", counted)
    table = _catalog(23)
    base = QuoteRequest(
        reference="ref", hours=1.0, gpus=256, deadline_hours=600.0, assumptions=PLAIN, top=3
    )
    refused = 0
    for hours in (50.0, 30000.0, 200.0, 12000.0, 90.0, 25000.0, 400.0, 30000.0):
        request = replace(base, hours=hours)
        outcomes.clear()
        assert _ask(table, request, True) == _ask(table, request, False), hours
        if outcomes[0] == "refused":
            refused += 1
            outcomes.clear()
            assert _ask(table, request, True) == _ask(table, request, False), hours
            assert outcomes[0] == "planned"  # the full reading's own plan proves it
    assert refused >= 1  # a plan from small work could not prove large work


def test_a_what_if_prices_the_offers_of_a_full_reading(client, settings) -> None:  # type: ignore[no-untyped-def]
    """A question asked with sensitivity= after the same question with other hours: its
    flips come from a full reading's offers, as on a server that never saw the first."""
    from service.http.app import create_app

    client.get("/breakeven?gpu=rtx3090&hours=400")
    asked = "/breakeven?gpu=rtx3090&hours=500&sensitivity=all&detail=full"
    after = client.get(asked).json
    fresh = create_app(settings)
    try:
        alone = fresh.test_client().get(asked).json
    finally:
        fresh.extensions["breakeven"].store.dispose()
    assert after["sensitivity"] == alone["sensitivity"]
    assert after["rent"] == alone["rent"]


# Found in review: three places where a full reading's shortcut, not the plan, was wrong; a
# plan that costed more then disagreed with it. Each is a fresh reading's answer here.


def test_equal_offers_past_the_shortlist_go_to_the_askers_country() -> None:
    """Two offers at 1.00 USD/h, the first by row in us-east-1, the second in DE; asked from
    DE for one rental (top=1): the tie goes to DE (JobCost.tie), however the catalog orders
    them. The shortlist took the first `top` of each order and never saw the second."""
    offers = [
        offer(provider="custom", product="ib-a", region="us-east-1", usd_per_hour=1.0),
        offer(provider="toy", product="ib-b", region="de", usd_per_hour=1.0),
        offer(provider="custom", product="ib-c", region="fr", usd_per_hour=1.5),
    ]
    table = OfferTable(stored(*offers), TOY)
    request = QuoteRequest(
        reference="ref", hours=50.0, pricing="on_demand", top=1, country="de", assumptions=PLAIN
    )
    (best,) = quote(table, TOY, request, again_ok=False).rent
    assert best.stored.offer.region == "de"
    assert _ask(table, replace(request, hours=60.0), True) == _ask(
        table, replace(request, hours=60.0), False
    )


def test_a_session_restart_can_make_a_dearer_rate_the_cheaper_rental() -> None:
    """Colab-like offers, 10 h sessions, 1 h of work redone per restart, 19 h of ref's work:
    X at 1.00 USD per hour of ref's work needs two sessions on ref (19 + 1 = 20 h, 20.00
    USD); Y at 2.10 USD/h on the fast card (1.05 per hour of ref's work) does it in one
    (9.5 h, 19.95 USD). The order sorts X first; a restart is a step, so it is read on."""
    session = {"pricing": PricingModel.COMPUTE_UNITS, "provider": "colab", "product": "colab"}
    offers = [
        offer(region="us", accelerator="ref", usd_per_hour=1.0, **session),
        offer(region="eu", accelerator="fast", usd_per_hour=2.1, **session),
    ]
    table = OfferTable(stored(*offers), TOY)
    request = QuoteRequest(
        reference="ref",
        hours=19.0,
        gpus=8,
        pricing="any",
        top=1,
        session_hours=10.0,
        deadline_hours=100.0,
        assumptions=replace(PLAIN, spot_overhead=0.0, restart_hours=1.0),
    )
    (best,) = quote(table, TOY, request, again_ok=False).rent
    assert best.stored.offer.region == "eu"
    assert best.total_usd == pytest.approx(19.95)


def test_a_marketplaces_banded_offer_is_its_tiers_best() -> None:
    """A cloud's spot offer and a marketplace's, both with a published band (<5 %): both sit
    in the banded order, the cloud's first. The marketplace's interruptible tier has one
    offer, and says so, though the headline's reading never costed it."""
    offers = [
        offer(provider="aws", product="ib-a", region="us-east-1", pricing=PricingModel.SPOT,
              interruption="<5%", usd_per_hour=1.0),
        offer(provider="toy", product="ib-b", region="eu", pricing=PricingModel.SPOT,
              market="verified", interruption="<5%", usd_per_hour=1.5),
    ]  # fmt: skip
    table = OfferTable(stored(*offers), TOY)
    request = QuoteRequest(
        reference="ref", hours=50.0, gpus=64, pricing="spot", top=1, deadline_hours=100.0,
        assumptions=replace(PLAIN, max_instances=64),
    )  # fmt: skip
    tiers = {t.tier.name: t.best for t in quote(table, TOY, request, again_ok=False).tiers}
    assert tiers["interruptible"] is not None
    assert tiers["interruptible"].stored.offer.product == "ib-b"


def test_a_reading_of_thousands_of_offers_is_not_planned(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A plan keeps at most PLAN_ROWS offers (counted once per costing; 2,000 here): a deep
    reading that costed more (a walk by a tight deadline: 6,000 here) is read afresh each
    time, and a table's plans stay small; a shallow one is planned."""
    from service.engine import cheapest

    monkeypatch.setattr(again_module, "PLAN_ROWS", 2000)
    costed: list[int] = []
    job_on = cheapest.job_on

    def counted(*args):  # type: ignore[no-untyped-def]
        costed.append(args[2].size)
        return job_on(*args)

    monkeypatch.setattr(cheapest, "job_on", counted)
    table = _catalog(3, size=6000)
    deep = QuoteRequest(
        reference="ref", hours=30000.0, gpus=4096, deadline_hours=30.0, assumptions=PLAIN
    )
    _ask(table, deep, True)
    assert sum(costed) > 2000
    assert table.plans.get(again_module.plan_key(deep)) is None
    costed.clear()
    shallow = replace(deep, hours=50.0, deadline_hours=None, gpus=1)
    _ask(table, shallow, True)
    assert sum(costed) <= 2000
    assert table.plans.get(again_module.plan_key(shallow)) is not None


def test_one_price_in_thousands_of_regions_is_not_all_costed() -> None:
    """3,000 offers at 1.00 USD/h, one to a region (a hostile import could make them): the
    shortlist takes the offers that tie its last one, but at most TIED_MOST of them, so a
    question does not cost the whole run; the answer names the first ones by row, at the
    same cost."""
    from service.engine.breakeven import memory_need
    from service.engine.offer_table import TIED_MOST

    offers = [offer(region=f"r{i}", usd_per_hour=1.0) for i in range(3000)]
    table = OfferTable(stored(*offers), TOY)
    request = QuoteRequest(reference="ref", hours=100.0, assumptions=PLAIN, top=3)
    shortlist = table.shortlist(request, memory_need(request, 24.0))
    assert request.top < shortlist.index.size <= request.top + TIED_MOST
    result = quote(table, TOY, request, again_ok=False)
    assert [r.stored.offer.region for r in result.rent] == ["r0", "r1", "r2"]
    assert {r.total_usd for r in result.rent} == {100.0}


def test_a_card_with_many_offers_is_walked_for_its_same_card_rental(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The same card's rental, where the headline's costing does not prove it, was costed
    over every offer of the card at once, which is right for a few and a catalog scan for a
    card in every region. Past FEW_ROWS (20 here) they are walked as any offers are; the
    rental is still the cheapest of them all, costed at once."""
    from service.engine import cheapest
    from tests.test_deadlines import _costed_in_full

    monkeypatch.setattr(cheapest, "FEW_ROWS", 20)
    rng = random.Random(9)
    offers = [  # the fast card cheap, so the headline's walk never reaches ref's offers
        offer(product="ib-fast", region=f"f{i}", accelerator="fast",
              usd_per_hour=round(rng.uniform(0.5, 1.0), 4))
        for i in range(400)
    ] + [
        offer(product="ib-ref", region=f"r{i}", usd_per_hour=round(rng.uniform(3.0, 5.0), 4))
        for i in range(400)
    ]  # fmt: skip
    table = OfferTable(stored(*offers), TOY)
    request = QuoteRequest(
        reference="ref", hours=3000.0, gpus=256, deadline_hours=100.0, assumptions=PLAIN, top=1
    )
    result = quote(table, TOY, request, again_ok=False)
    assert result.same_card is not None
    job, admitted = _costed_in_full(table, request, result)
    own = admitted & job.feasible & (table.accelerator_code == table.accelerators["ref"])
    assert result.same_card[0].present_usd == pytest.approx(float(job.present_usd[own].min()))
    assert result.same_card[1] == int(
        (admitted & (table.accelerator_code == table.accelerators["ref"])).sum()
    )


def test_a_plan_keeps_only_the_offers_its_parts_need(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A reading keeps all it read, most of it far above any part's choice (a term reading
    reads its orders in growing chunks). Once proved, the plan leaves out each offer whose
    own floor is over twice every admitting part's choice: it then holds fewer offers than
    its reading costed (a plan that kept them all fails), and the hours asked next, near
    the last, are each priced from it, as a full reading prices them."""
    planned = _planned(monkeypatch)
    table = _catalog(5)
    base = QuoteRequest(reference="ref", hours=500.0, assumptions=PLAIN)
    for hours in (500.0, 510.0):
        assert _ask(table, replace(base, hours=hours), True)
    plan = table.plans.get(again_module.plan_key(base))
    assert plan is not None and plan.ready is not None and plan.ready.trimmed
    read = {int(row) for rows in plan.costed for row in rows}
    assert plan.ready.rows.size < len(read)  # 69 of 85 here; 209 of 771 for a bundled 3090
    planned.clear()
    for hours in (520.0, 480.0, 600.0, 430.0, 515.5):
        request = replace(base, hours=hours)
        assert _ask(table, request, True) == _ask(table, request, False), hours
    assert all(planned)


def test_the_buy_side_remembered_is_the_hardware_datas_it_was_read_from() -> None:
    """The buy side of a question but for its hours is remembered (breakeven.bought), and
    asked of other hardware data (the card dearer) it is read from that data, not handed
    the last one's."""
    from tests.helpers import toy_card

    cheap = TOY
    dear = replace(TOY, cards={"ref": toy_card("ref", 3000.0)})
    table = _catalog(2)
    request = QuoteRequest(reference="ref", hours=500.0, assumptions=PLAIN)
    assert quote(table, cheap, request).buy.purchase_usd == 1000.0
    assert quote(table, dear, replace(request, hours=510.0)).buy.purchase_usd == 3000.0
    assert quote(table, cheap, replace(request, hours=520.0)).buy.purchase_usd == 1000.0


def test_a_clouds_banded_spot_offer_is_its_tiers_best_behind_a_marketplaces() -> None:
    """The banded order holds a cloud's spot offers with a published band and a
    marketplace's interruptible ones. Where a marketplace's come first in it, the shortlist
    takes them alone: the cloud's banded offer (0.30 an hour, under 5 % interrupted) is
    still the spot tier's best, over its unbanded one (0.50 at the assumed overhead), in
    the full reading as in a plan. The full reading named the unbanded one before (a
    review's differential fuzz: 95 such tiers in 54,000 askings, the plan's right)."""
    banded = {"pricing": PricingModel.SPOT, "interruption": "<5%"}
    offers = [
        offer(product="dc", usd_per_hour=1.0),
        offer(product="spot-plain", usd_per_hour=0.5, pricing=PricingModel.SPOT),
        offer(product="spot-banded", usd_per_hour=0.3, **banded),
        *(
            offer(
                product=f"market-{i}", region=f"r{i}", usd_per_hour=0.2, market="verified", **banded
            )
            for i in range(3)
        ),
    ]
    table = OfferTable(stored(*offers), TOY)
    # a deadline one interrupted instance meets (the default, the bought card's 100 h, none does)
    request = QuoteRequest(
        reference="ref", hours=100.0, top=1, deadline_hours=1000.0, assumptions=PLAIN
    )
    for again_ok in (False, True, True):
        result = quote(table, TOY, replace(request, hours=100.0 + again_ok), again_ok=again_ok)
        spot = next(tier.best for tier in result.tiers if tier.tier.name == "spot")
        assert spot is not None and spot.stored.offer.product == "spot-banded"


def test_a_sweep_that_jumps_is_priced_from_the_plan_its_trim_was_cut_from(  # type: ignore[no-untyped-def]
    monkeypatch, client
) -> None:
    """A dashboard jumping between 100 h and 10,000 h of 3090 work on the bundled catalog:
    the plan trimmed at one of them does not prove the other, the plan it was cut from
    does. Each asking after the first is priced from one of them, where every other one was
    read in full (its plan thrown away and trimmed again)."""
    planned = _planned(monkeypatch)
    for i in range(10):
        response = client.get(f"/breakeven?gpu=rtx3090&hours={(100 if i % 2 else 10000) + i}")
        assert response.status_code == 200
    assert planned == [False] + [True] * 9
