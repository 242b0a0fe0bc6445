"""Small builders shared by the tests."""

from __future__ import annotations

import collections
import math
import re
import signal
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, Table, func, select

from hardware import (
    Accelerator,
    Card,
    CardPrice,
    Hardware,
    Host,
    Registry,
    ResaleCurve,
    Scaling,
    Throughput,
    Workload,
)
from hardware.fabrics import FabricPoint, Fabrics, InstanceFabric
from hardware.ownership import SITE_PARAMETERS, SITES, Ownership, Sourced
from hardware.precision import PrecisionSupport
from hardware.tariffs import Tariffs
from hardware.throughput import ScalingPoint
from hardware.utilization import DENSE, MIXTURE, UtilizationFit
from pricing.offer import Offer, PricingModel, StoredOffer
from pricing.store import Run, Store, runs

FETCHED = datetime(2026, 11, 1, tzinfo=UTC)


def offer(**fields: object) -> Offer:
    values: dict[str, object] = {
        "provider": "custom",
        "product": "box",
        "region": "us-east-1",
        "accelerator": "ref",
        "count": 1,
        "pricing": PricingModel.ON_DEMAND,
        "usd_per_hour": 1.0,
        "price_as_of": "2026-11-01",
        "source": "test",
    }
    values.update(fields)
    return Offer(**values)  # type: ignore[arg-type]


def a3_highgpu_8g(
    pricing: PricingModel, usd: float, option: str = "", upfront: float = 0.0
) -> Offer:
    """Google Cloud's 8 x H100 SXM machine (a3-highgpu-8g, us-central1) at ``usd`` an hour
    in ``pricing``; a committed one bought by purchase ``option``, ``upfront`` paid first."""
    committed = {"purchase_option": option, "upfront_share": upfront} if option else {}
    return offer(
        provider="custom",
        product="a3-highgpu-8g",
        region="us-central1",
        accelerator="h100-sxm",
        count=8,
        pricing=pricing,
        usd_per_hour=usd,
        **committed,
    )


def stored(*offers: Offer) -> list[StoredOffer]:
    return [StoredOffer(o, run_id=1, fetched_at=FETCHED) for o in offers]


def count_rows(store: Store, table: Table) -> int:
    with store.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def runs_of(store: Store, adapter: str) -> list[Run]:
    """Every run of one adapter, oldest first: the history the tests read and the service not."""
    query = select(runs).where(runs.c.adapter == adapter).order_by(runs.c.id)
    with store.engine.connect() as conn:
        rows = conn.execute(query).mappings().all()
    times = ("started_at", "finished_at")
    return [Run(**{**row, **{name: _utc(row[name]) for name in times}}) for row in rows]


def _utc(moment: datetime) -> datetime:
    """SQLite hands datetimes back naive; the store wrote them as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def toy_hardware() -> Hardware:
    """Round numbers, so every expectation in the engine tests is computed by hand.

    ref: 24 GB, 300 W, $1,000, speed 1.0 in every class.
    fast: 80 GB, speed 2.0 (cnn, transformer) and 1.5 (rnn), nvlink.
    small: 16 GB, speed 1.0.
    chip: 32 GB, speed 2.0, platform xla (a TPU-like chip: CUDA code does not run on it).
    Scaling: pcie 0.9 at 2 cards, 0.8 at 4; nvlink 0.95 at 2, 0.9 at 8.
    """
    accelerators = [
        Accelerator("ref", "Ref Card", "gpu", 24, 300, 100, 1000, "pcie", "toy"),
        Accelerator("fast", "Fast Card", "gpu", 80, 700, 400, 3000, "nvlink", "toy"),
        Accelerator("small", "Small Card", "gpu", 16, 70, 60, 300, "pcie", "toy"),
        Accelerator("chip", "Toy Chip", "tpu", 32, 200, 200, 1600, "pcie", "toy", platform="xla"),
    ]
    speeds = {
        "ref": (1.0, 1.0, 1.0),
        "fast": (2.0, 2.0, 1.5),
        "small": (1.0, 1.0, 1.0),
        "chip": (2.0, 2.0, 2.0),
    }
    throughput = {
        (acc, k): Throughput(acc, k, value, "measured", "toy")
        for acc, values in speeds.items()
        for k, value in zip(Workload, values, strict=True)
    }
    points = [
        ScalingPoint(link, k, n, eta, "toy")
        for k in Workload
        for link, n, eta in [
            ("pcie", 2, 0.9),
            ("pcie", 4, 0.8),
            ("nvlink", 2, 0.95),
            ("nvlink", 8, 0.9),
        ]
    ]
    card = toy_card("ref", 1000.0)
    return Hardware(
        Registry(accelerators),
        {"ref": card},
        throughput,
        Scaling(points),
        TOY_FABRICS,
        TOY_HOSTS,
        TOY_RESALE,
        TOY_OWNERSHIP,
        models={},
        methods={},
        utilization=TOY_UTILIZATION,
        precisions=TOY_PRECISIONS,
        tariffs=Tariffs(()),
    )


def toy_card(accelerator: str, usd: float, basis: str = "new") -> Card:
    """A consumer card with one sourced price."""
    price = CardPrice(basis, usd, None, None, "2026-01", "list", f"toy price {accelerator}", "")
    return Card(accelerator, True, (price,))


# Hosts: desktop 1-2 cards 500 USD 100 W; workstation 4 cards 2,000 USD 200 W; server 8
# cards 5,000 USD 500 W. Used cards lose 20 % a year (b = -ln 0.8).
TOY_HOSTS = tuple(
    Host(name, cards, site, usd, watts, "toy", "2026-01", "toy", "toy", "toy")
    for name, cards, site, usd, watts in [
        ("desktop", 2, "home", 500.0, 100.0),
        ("workstation", 4, "office", 2000.0, 200.0),
        ("server", 8, "colo", 5000.0, 500.0),
    ]
)
# Owning in the toy world costs the cards, the host and power at 0.165 USD/kWh, nothing
# else: no site costs, network, fees, first-owner drop or discounting, so toy arithmetic
# stays hand-checkable; tests of those costs set them (tests/test_ownership.py).
# Every toy card trains in 16 bits, none in FP8 (a defaultdict: cards tests add run the same).
TOY_PRECISIONS: dict[str, PrecisionSupport] = collections.defaultdict(
    lambda: PrecisionSupport("toy", frozenset({"fp16", "bf16"}), None, "toy")
)
# A flat language-model utilization: 0.4 of peak at every size, dense or a mixture of
# experts, no runs behind it.
TOY_UTILIZATION = UtilizationFit(
    0.4, 0.0, {}, 1.0, 1.0, 1e15, {DENSE: (0.8, 1.25), MIXTURE: (0.8, 1.25)}, ()
)
TOY_OWNERSHIP = Ownership(
    {
        item: Sourced(item, value, None, None, "toy", "2026-01", "estimated", "toy")
        for item, value in {
            **{f"site.{s}.{p}": 0.0 for s in SITES for p in SITE_PARAMETERS},
            **{f"site.{s}.electricity": 0.165 for s in SITES},
            **{f"site.{s}.pue": 1.0 for s in SITES},
            "resale.consumer.first_owner_drop": 0.0,
            "resale.datacenter.first_owner_drop": 1.0,
            "resale.datacenter.yearly_loss": 0.2,
            "selling.card.share": 0.0,
            "selling.card.share_above": 0.0,
            "selling.card.above_usd": 0.0,
            "selling.card.per_order_usd": 0.0,
            "selling.system.share": 0.0,
            "network.up_to_1000000": 0.0,
            "money.discount_rate": 0.0,
        }.items()
    },
    {},
)
# Between machines: every RDMA fabric 0.9 at 2 nodes, 0.8 at 8; plain Ethernet 0.8 and 0.6.
# Any provider's product named ib-... is on InfiniBand, eth-... on Ethernet; the rest on none.
TOY_FABRICS = Fabrics(
    [
        FabricPoint(fabric, nodes, eta, "measured", "toy")
        for fabric in ("infiniband", "roce", "efa", "gpudirect_tcpx")
        for nodes, eta in ((2, 0.9), (8, 0.8))
    ]
    + [
        FabricPoint("ethernet", 2, 0.8, "measured", "toy"),
        FabricPoint("ethernet", 8, 0.6, "measured", "toy"),
    ],
    [
        InstanceFabric(provider, re.compile(pattern), fabric, "toy")
        for provider in ("aws", "gcp", "azure", "lambda", "custom", "toy")
        for pattern, fabric in (("ib-.*", "infiniband"), ("eth-.*", "ethernet"))
    ],
)
TOY_RESALE = ResaleCurve(a=1.0, b=-math.log(0.8), yearly_loss=0.2, points=3, source="toy")


def downgrade(engine: Engine, revision: str) -> None:
    """Take a store's schema back to ``revision`` (Alembic), as an operator would."""
    from alembic import command

    from pricing import schema

    with engine.begin() as conn:
        config = schema._config()
        config.attributes["connection"] = conn
        command.downgrade(config, revision)


def ecb_feed(days: dict[date, dict[str, str]]) -> str:
    """The ECB's XML rate feed (eurofxref-daily.xml, -hist-90d.xml) as it is served: a
    ``<Cube time=...>`` per day of ``<Cube currency= rate=>``, units per euro."""
    cubes = "".join(
        f'<Cube time="{day.isoformat()}">'
        + "".join(f'<Cube currency="{c}" rate="{r}"/>' for c, r in rates.items())
        + "</Cube>"
        for day, rates in days.items()
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01"
    xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
  <Cube>{cubes}</Cube>
</gesmes:Envelope>"""


def source_of(answer: dict, part: dict) -> str:  # type: ignore[type-arg]
    """An answer's offer or speed's source text, in a compact answer (`source_ref` into the
    answer's `sources`) or a full one (`source`)."""
    if "source_ref" in part:
        return answer["sources"][part["source_ref"]]
    return part["source"]


class CountingAdapter:
    """An adapter that only counts its fetches: one offer of its own each time."""

    name = "counting"

    def __init__(self) -> None:
        self.fetches = 0

    def fetch(self):  # type: ignore[no-untyped-def]
        from pricing.adapters import Batch

        self.fetches += 1
        return Batch([offer(provider=self.name)], "v1")


def scheduler_launcher(env: dict[str, str], folder: Path):  # type: ignore[no-untyped-def]
    """A generator fixture's body: `breakeven scheduler` processes started on ``env``, each
    logging to ``folder``/<name>.log; every one still running is killed (continued first,
    if stopped) and reaped at the end."""
    started: list[subprocess.Popen] = []  # type: ignore[type-arg]

    def launch(name: str) -> subprocess.Popen:  # type: ignore[type-arg]
        with (folder / f"{name}.log").open("w") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "service", "scheduler"], env=env, stderr=log, stdout=log
            )
        started.append(process)
        return process

    yield launch
    for process in started:
        if process.poll() is None:
            process.send_signal(signal.SIGCONT)
            process.kill()
        process.wait(timeout=10)


def web_adapter(kind, url: str, retries: int = 3, timeout: float = 10.0):  # type: ignore[no-untyped-def]
    """A keyless web adapter (pricing/adapters/kit.WebAdapter) of ``kind`` on a fake at
    ``url``: quick retries, the real registry, and a clock on 2026-12-06 at noon."""
    from hardware import load_hardware
    from pricing.adapters.kit import HttpConfig, WebConfig
    from pricing.http import make_session

    http = HttpConfig(timeout_seconds=timeout, retries=retries, backoff_seconds=0.01)
    return kind(
        WebConfig(url=url, http=http),
        load_hardware().registry.canonical,
        http=make_session(retries, 0.01),
        clock=lambda: datetime(2026, 12, 6, 12, tzinfo=UTC),
    )


def check_http_faults(fake, adapter) -> None:  # type: ignore[no-untyped-def]
    """What a keyless web adapter must do, through its fake (``adapter(fake, retries=...,
    timeout=...)`` builds it on the fake): throttling and a 5xx answered first are retried;
    a 5xx past the retries and a hung backend each fail the fetch with an AdapterError that
    says why, never a hang or a half-read list. The stall goes last: the fake's fixture
    releases it."""
    from pricing.errors import AdapterError

    fake.faults.statuses = [429, 503]
    assert adapter(fake).fetch().offers
    fake.faults.status = 500
    with pytest.raises(AdapterError, match="HTTP 500"):
        adapter(fake, retries=1).fetch()
    fake.faults.status = None
    fake.faults.delay_seconds = 10.0
    with pytest.raises(AdapterError, match="Timeout"):
        adapter(fake, retries=0, timeout=0.3).fetch()


def check_a_failing_source_spares_the_others(  # type: ignore[no-untyped-def]
    fake, settings, app, provider: str, bundled_source: str
) -> None:
    """A refresh of ``provider`` and Colab (read from tables, no network) where the
    provider's fake answers HTTP 500: Colab's run lands, the provider's bundled rows (their
    source naming ``bundled_source``) keep serving, and the refresh exits 1."""
    from click.testing import CliRunner

    from service.cli import cli

    fake.faults.status = 500
    env = {
        "BREAKEVEN_DATA_DIR": str(settings.data_dir),
        f"BREAKEVEN_{provider.upper()}_URL": fake.url,
        "BREAKEVEN_REFRESH_PROVIDERS": f"{provider},colab",
        "BREAKEVEN_HTTP_RETRIES": "0",
    }
    client = app.test_client()
    before = client.get(f"/offers?provider={provider}").get_json()["offers"]
    result = CliRunner().invoke(cli, ["refresh"], env=env)
    assert result.exit_code == 1, result.output
    assert f"{provider}: failed" in result.output and "colab: ok" in result.output
    assert client.get(f"/offers?provider={provider}").get_json()["offers"] == before
    assert before and all(bundled_source in o["source"] for o in before)
