"""The shipped data: complete, sourced, consistent, and reproducible from its sources."""

from __future__ import annotations

import csv
import filecmp
import math
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from hardware import Hardware, UnknownAccelerator, Workload, load_hardware
from hardware.fabrics import FabricPoint, Fabrics
from hardware.throughput import Scaling, ScalingPoint
from pricing.adapters.bundled import BundledAdapter

DATA = Path(str(resources.files("hardware") / "data"))
REQUIRED_BUYABLE = [
    "rtx2060", "rtx2070", "rtx2080", "rtx2080ti", "rtx3060", "rtx3070", "rtx3080", "rtx3090",
    "rtx3090ti", "rtx4070", "rtx4080", "rtx4090", "rtx5090", "rtx-a4000", "rtx-a5000",
    "rtx-a6000", "rtx6000-ada",
]  # fmt: skip
RENTABLE = ["t4", "v100-16gb", "a10g", "a100-40gb", "a100-80gb", "h100-sxm", "h200", "b200",
            "l4", "l40s", "tpu-v2", "tpu-v3", "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e",
            "trainium", "trainium2"]  # fmt: skip


@pytest.fixture(scope="module")
def shipped_offers(hardware: Hardware):  # type: ignore[no-untyped-def]
    return BundledAdapter(hardware.registry.canonical).fetch().offers


def test_every_accelerator_in_a_shipped_offer_has_all_three_speeds(
    hardware: Hardware,
    shipped_offers,  # type: ignore[no-untyped-def]
) -> None:
    needed = {o.accelerator for o in shipped_offers} | set(RENTABLE)
    missing = [(a, k) for a in needed for k in Workload if (a, k) not in hardware.throughput]
    assert missing == []
    assert all(hardware.speed(a, k).relative > 0 for a in needed for k in Workload)


def test_every_accelerator_has_all_three_speeds(hardware: Hardware) -> None:
    assert len(hardware.throughput) == 3 * len(hardware.registry)


def test_every_throughput_price_and_spec_row_names_its_source(
    hardware: Hardware,
    shipped_offers,  # type: ignore[no-untyped-def]
) -> None:
    assert all(t.source.strip() and t.method for t in hardware.throughput.values())
    assert all(c.price_source.strip() and c.price_as_of.strip() for c in hardware.cards.values())
    assert all(a.spec_source.strip() for a in hardware.registry)
    assert all(o.source.strip() and o.price_as_of.strip() for o in shipped_offers)


def test_estimated_speeds_say_how(hardware: Hardware) -> None:
    estimated = [t for t in hardware.throughput.values() if t.method == "estimated"]
    assert estimated  # some speeds are estimated today: a check over none would pass vacuously
    assert all("estimated" in t.source.lower() for t in estimated), estimated


def test_required_cards_are_buyable_with_dated_prices(hardware: Hardware) -> None:
    for card_id in REQUIRED_BUYABLE:
        card = hardware.cards[card_id]
        assert card.purchase_usd > 0 and card.price_as_of[:4].isdigit()


def test_every_purchase_price_has_basis_date_kind_and_source(hardware: Hardware) -> None:
    """No vendor system price per GPU passes for a card's price (V100 at 9,937.50 USD)."""
    for card in hardware.cards.values():
        assert card.prices, card.accelerator
        for price in card.prices:
            assert price.basis in ("launch", "new", "used")
            assert re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", price.as_of), (card.accelerator, price)
            assert price.kind in ("list", "street", "sold-average", "quote", "estimate")
            assert price.source.strip() and price.usd > 0
            if price.usd_low is not None:
                assert price.usd_low <= price.usd
            if price.usd_high is not None:
                assert price.usd <= price.usd_high


def test_the_default_buy_price_is_new_else_used_else_launch(hardware: Hardware) -> None:
    """An RTX 3090 is no longer sold new: its default is the newest used price; an RTX 4090
    is: the new street price; an RTX 2080 has only its launch price."""
    assert hardware.cards["rtx3090"].price().basis == "used"  # type: ignore[union-attr]
    assert hardware.cards["rtx4090"].price().basis == "new"  # type: ignore[union-attr]
    assert hardware.cards["rtx2080"].price().basis == "launch"  # type: ignore[union-attr]
    launch = hardware.cards["rtx3090"].price("launch")
    assert launch is not None and (launch.usd, launch.as_of) == (1499.0, "2020-09")
    assert "v100-16gb" not in hardware.cards  # only SXM2-module quotes were found


def test_aliases_resolve_provider_spellings(hardware: Hardware) -> None:
    cases = {
        "nvidia-tesla-a100": "a100-40gb",
        "NVIDIA A100": "a100-40gb",
        "A100-80GB": "a100-80gb",
        "RTX 3090": "rtx3090",
        "3090": "rtx3090",
        "nvidia-tesla-t4": "t4",
        "NVIDIA_L4": "l4",
        "Trillium": "tpu-v6e",
    }
    assert {name: hardware.registry.resolve(name).id for name in cases} == cases


def test_unknown_name_suggests_close_ids(hardware: Hardware) -> None:
    with pytest.raises(UnknownAccelerator) as info:
        hardware.registry.resolve("rtx3095")
    assert "rtx3090" in info.value.suggestions


def test_scaling_is_at_most_one_and_falls_with_more_cards(hardware: Hardware) -> None:
    for link in ("pcie", "nvlink", "ici"):
        for k in Workload:
            etas = [hardware.scaling.efficiency(link, k, n) for n in (1, 2, 4, 8)]
            assert etas[0] == 1.0 and all(0 < e <= 1 for e in etas)


def test_scaling_never_rises_with_more_cards(hardware: Hardware) -> None:
    """The PCIe transformer medians were 0.968 at 2 cards and 0.984 at 4 (different config
    sets): 4 cards now keep the 2-card value, and a rising curve is refused at load."""
    assert hardware.scaling.efficiency("pcie", Workload.TRANSFORMER, 4) == 0.968
    assert hardware.efficiency("rtx3090", Workload.TRANSFORMER, 4) == 0.968  # consumer: PCIe
    for link in ("pcie", "nvlink", "ici"):
        for k in Workload:
            etas = [hardware.scaling.efficiency(link, k, n) for n in range(1, 17)]
            assert etas == sorted(etas, reverse=True), (link, k)
    rising = [
        ScalingPoint("pcie", Workload.CNN, 2, 0.9, "test"),
        ScalingPoint("pcie", Workload.CNN, 4, 0.95, "test"),
    ]
    with pytest.raises(ValueError, match=r"rises from 0\.9 at 2 cards to 0\.95 at 4"):
        Scaling(rising)


def test_consumer_cards_use_pcie(hardware: Hardware) -> None:
    consumer = [acc for acc, card in hardware.cards.items() if card.consumer]
    assert consumer and all(hardware.registry[a].interconnect == "pcie" for a in consumer)


def test_memory_and_power_are_plausible(hardware: Hardware) -> None:
    for acc in hardware.registry:
        assert 4 <= acc.memory_gb <= 200, acc.id
        assert acc.board_power_w is None or 50 <= acc.board_power_w <= 1500, acc.id


def test_derived_tables_are_reproducible_from_their_sources(tmp_path: Path) -> None:
    copy = tmp_path / "data"
    shutil.copytree(DATA, copy)
    subprocess.run([sys.executable, str(copy / "derive.py")], check=True)
    for name in ("throughput.csv", "scaling.csv"):
        assert filecmp.cmp(copy / name, DATA / name, shallow=False), f"{name} is stale"


def test_csv_headers_are_what_the_loader_reads() -> None:
    expected = {
        "accelerators.csv": "id,name,aliases,kind,memory_gb,program_memory_gb,board_power_w,"
        "fp16_tensor_tflops,"
        "mem_bw_gbps,interconnect,platform,spec_source",
        "cards.csv": "id,consumer",
        "prices.csv": "id,basis,usd,usd_low,usd_high,as_of,kind,source,notes",
        "hosts.csv": "host,max_cards,site,price_usd,watts,price_kind,price_as_of,price_source,"
        "watts_kind,watts_source",
        "resale.csv": "segment,a,b,yearly_loss,points,source",
        "throughput.csv": "id,workload,relative,method,source",
        "scaling.csv": "interconnect,workload,num_gpu,efficiency,n_configs,source",
    }
    for name, header in expected.items():
        with (DATA / name).open() as handle:
            assert ",".join(next(csv.reader(handle))) == header


def test_bundled_gcp_attached_gpus_are_priced_with_their_vm(shipped_offers) -> None:  # type: ignore[no-untyped-def]
    """GPU price + n1-standard-4 (0.19 on demand, 0.04815 spot), as the live adapter does:
    a T4 alone at 0.35 USD/h would undercut every offer that comes with a machine."""
    attached = {
        (o.accelerator, str(o.pricing)): o
        for o in shipped_offers
        if o.provider == "gcp" and o.product.startswith("n1-standard-4 + ")
    }
    prices = {key: o.usd_per_hour for key, o in attached.items()}
    assert prices == {
        ("t4", "on_demand"): 0.35 + 0.19,
        ("t4", "spot"): pytest.approx(0.14 + 0.04815),
        ("v100-16gb", "on_demand"): pytest.approx(2.48 + 0.19),
        ("v100-16gb", "spot"): pytest.approx(0.992 + 0.04815),
    }
    assert all(o.host_included for o in attached.values())
    assert all(o.host_included for o in shipped_offers)


def throughput_rows() -> list[dict[str, str]]:
    with (DATA / "throughput.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_every_throughput_row_says_how_it_is_known() -> None:
    rows = throughput_rows()
    assert {r["method"] for r in rows} == {"measured", "adjusted", "estimated"}
    for row in rows:
        assert row["source"].strip(), row
        # a carried-over measurement (a bridge, a twin, a ratio) is never called measured
        if row["method"] == "measured":
            assert "bridge" not in row["source"] and not row["source"].startswith("adjusted")
        else:
            assert row["source"].startswith(row["method"] + ":"), row


def test_one_chip_in_two_memory_sizes_is_one_speed(hardware: Hardware) -> None:
    for k in Workload:
        assert hardware.speed("v100-32gb", k).relative == hardware.speed("v100-16gb", k).relative


def test_an_l4_is_at_least_twice_a_t4(hardware: Hardware) -> None:
    """Measured 2.2-2.8x (McCormick 2024; the data audit of 2026-11-30)."""
    for k in Workload:
        assert hardware.speed("l4", k).relative >= 2 * hardware.speed("t4", k).relative


def test_an_h100_outruns_a_tpu_v6e_chip_as_in_mlperf(hardware: Hardware) -> None:
    """MLPerf Training 4.1 GPT-3: an H100 does 1.85-2.0x a v6e chip's work per minute."""
    for k in (Workload.CNN, Workload.TRANSFORMER):
        ratio = hardware.speed("h100-sxm", k).relative / hardware.speed("tpu-v6e", k).relative
        assert 1.4 < ratio < 2.5, (k, ratio)
        assert hardware.speed("tpu-v6e", k).method == "adjusted"


def test_no_spec_estimate_beats_its_nearest_measured_sibling_per_tflops(
    hardware: Hardware,
) -> None:
    known = [
        (acc, k)
        for (acc, k), t in hardware.throughput.items()
        if t.method != "estimated" and hardware.registry[acc].fp16_tensor_tflops
    ]
    for (acc, k), speed in hardware.throughput.items():
        if not speed.source.startswith(("estimated: relative = C_k", "estimated: capped")):
            continue
        me = hardware.registry[acc]
        assert me.fp16_tensor_tflops is not None
        same = [(a, c) for a, c in known if c == k and hardware.registry[a].platform == me.platform]
        pool = same or [(a, c) for a, c in known if c == k]

        own = me.fp16_tensor_tflops

        def distance(item: tuple[str, Workload], own: float = own) -> tuple[float, str]:
            tflops = hardware.registry[item[0]].fp16_tensor_tflops or 1.0
            return abs(math.log(tflops / own)), item[0]

        sibling, _ = min(pool, key=distance)
        per_tflops = hardware.speed(sibling, k).relative / (
            hardware.registry[sibling].fp16_tensor_tflops or 1.0
        )
        # 3 decimals in the file, for the sibling too: rounding slack
        assert speed.relative <= per_tflops * own * 1.002 + 0.0005, (acc, k, sibling)


def test_amd_and_the_current_nvidia_generation_are_in_the_registry(hardware: Hardware) -> None:
    platforms = {acc: hardware.registry[acc].platform for acc in ("mi300x", "rx7900xtx")}
    assert platforms == {"mi300x": "rocm", "rx7900xtx": "rocm"}
    for acc in ("mi300x", "rx7900xtx", "rtx5080", "rtx5070ti", "rtx-pro6000", "rtx5090"):
        assert acc in hardware.cards, acc  # buyable at a dated price
        speeds = [hardware.speed(acc, k) for k in Workload]
        assert all(s.source.startswith(s.method) for s in speeds), acc
    # AMD's speeds rest on MLPerf entries against measured NVIDIA cards, not on specs
    assert hardware.speed("mi300x", Workload.TRANSFORMER).method == "adjusted"
    assert hardware.speed("rx7900xtx", Workload.CNN).method == "adjusted"
    assert hardware.registry.resolve("Instinct MI300X").id == "mi300x"
    assert hardware.registry.resolve("RTX PRO 6000 Blackwell").id == "rtx-pro6000"
    # MI250: two dies, each a 64 GB device; Intel Gaudi on its own platform
    assert hardware.registry["mi250"].device_memory_gb == 64
    assert {hardware.registry[a].platform for a in ("gaudi2", "gaudi3")} == {"gaudi"}
    assert hardware.speed("gaudi2", Workload.CNN).method == "adjusted"  # MLPerf vs H100
    # Gaudi 3 has no measurement: an estimate held under Intel's own "up to 1.7x H100"
    for k in Workload:
        ceiling = 1.7 * hardware.speed("h100-sxm", k).relative
        assert hardware.speed("gaudi3", k).relative <= ceiling + 0.001


def test_every_spec_row_names_its_source_and_a_date(hardware: Hardware) -> None:
    for acc in hardware.registry:
        assert re.search(r"\b(19|20)\d{2}\b", acc.spec_source), acc.id


# -- fabrics.csv and instance_fabrics.csv (issue 30) ----------------------------------------


def test_every_fabric_row_is_sourced_and_no_curve_rises() -> None:
    hardware = load_hardware()
    for name in hardware.fabrics.names[:-1]:  # "none" has no curve
        points = hardware.fabrics.points(name)
        assert points, name
        for point in points:
            assert point.kind in {"measured", "estimated"} and point.source, point
            assert 0 < point.efficiency <= 1
        efficiencies = [p.efficiency for p in points]
        assert efficiencies == sorted(efficiencies, reverse=True), name
    # a rising curve is refused at load, not served
    with pytest.raises(ValueError, match="never scale better"):
        Fabrics(
            [
                FabricPoint("ethernet", 2, 0.5, "measured", "x"),
                FabricPoint("ethernet", 8, 0.6, "measured", "x"),
            ],
            [],
        )


@pytest.mark.parametrize(
    ("provider", "product", "fabric"),
    [
        ("aws", "p5.48xlarge", "efa"),
        ("aws", "p4d.24xlarge", "efa"),
        ("aws", "g5.12xlarge", "ethernet"),
        ("azure", "Standard_ND96isr_H100_v5", "infiniband"),
        ("azure", "Standard_ND96amsr_A100_v4", "infiniband"),
        ("azure", "Standard_NC24ads_A100_v4", "ethernet"),
        ("gcp", "a3-ultragpu-8g", "roce"),
        ("gcp", "a3-megagpu-8g", "gpudirect_tcpx"),
        ("gcp", "a3-highgpu-8g", "gpudirect_tcpx"),
        # 1 to 4 GPUs: a single NIC, no GPUDirect-TCPX (63 of them beat 8 IB nodes of 8)
        ("gcp", "a3-highgpu-1g", "ethernet"),
        ("gcp", "a3-highgpu-4g", "ethernet"),
        ("gcp", "a2-ultragpu-8g", "ethernet"),
        ("gcp", "v5p-8", "none"),
        ("lambda", "gpu_8x_h100_sxm5", "ethernet"),
        ("runpod", "8x_H100-SXM_SECURE", "none"),
        ("vast", "8x-H100_SXM-32-65536", "none"),
        ("colab", "A100 40GB runtime", "none"),
        ("custom", "my-cluster", "none"),  # an import's network is unknown
    ],
)
def test_each_offer_has_the_fabric_its_provider_documents(
    provider: str, product: str, fabric: str
) -> None:
    assert load_hardware().fabrics.of(provider, product) == fabric


def test_every_bundled_offer_is_matched_by_a_row_of_its_provider() -> None:
    """No bundled cloud product falls through to `none` by accident: each provider with
    rows in the snapshot has a catch-all or a row that matches."""
    hardware = load_hardware()
    providers = {row.provider for row in hardware.fabrics.instances}
    snapshot = Path(__file__).parents[1] / "pricing" / "data" / "snapshot.csv"
    with snapshot.open(newline="", encoding="utf-8") as handle:
        bundled = {(row["provider"], row["product"]) for row in csv.DictReader(handle)}
    assert {p for p, _ in bundled} <= providers
    unmatched = [
        (p, product)
        for p, product in bundled
        if not any(
            r.provider == p and r.product.fullmatch(product) for r in hardware.fabrics.instances
        )
    ]
    assert unmatched == []


def test_a_speed_speaks_for_its_own_class_only(hardware, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Issue 34: no class borrows another class's result. A training result adjusts only
    the class its benchmark belongs to, and a ratio standing in for another class (the RX
    7900 XTX's RNN speed, BERT's: no FP16 figure to estimate it from) is an estimate; the
    MI300X and TPU v5e, with no CNN result, carry estimated CNN speeds, the MI300X's held
    under its one training result (0.964x an H100)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("derive", DATA / "derive.py")
    assert spec is not None and spec.loader is not None
    derive = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "derive", derive)  # its dataclasses look themselves up
    spec.loader.exec_module(derive)
    for (acc, k), (_, benchmarks) in derive.TRAINING_ANCHORS.items():
        borrowed = any(derive.BENCHMARK_CLASS[b] != k for b in benchmarks)
        assert not borrowed or hardware.speed(acc, Workload(k)).method == "estimated", (acc, k)
    for item in hardware.throughput.values():
        assert "stands in" not in item.source or item.method == "estimated", item
    assert hardware.speed("rx7900xtx", Workload.RNN).method == "estimated"
    mi300x = hardware.speed("mi300x", Workload.CNN)
    assert mi300x.method == "estimated" and "capped at 0.964x h100-sxm" in mi300x.source
    assert hardware.speed("tpu-v5e", Workload.CNN).method == "estimated"
