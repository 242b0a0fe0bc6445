"""Every provider name in the real-format samples, and what its adapter maps it to.

An offer is only as right as the name it was read from: a p4d.24xlarge priced as 8 A100
80GB, or an H100 NVL size priced as an SXM board, is a wrong answer nobody would notice. So
for each provider one test parses its samples (tests/fakes/samples) with the adapter's own
parsers, collects every name it met (instance type, SKU description, armSkuName, instance
type name, gpuType id, gpu_name) with what that name became, and compares the whole
collection with a literal table written from the provider's documentation:

- ``(accelerator id, GPUs per offer)`` for a name that was priced; the count is a tuple where
  one name is offered in several sizes (RunPod pods, GCP machines, Vast.ai listings);
- ``"skipped: <why>"`` for a name the adapter met and deliberately did not price: a Windows
  row, a type with no accelerator, a GPU the registry does not know (the skip report's);
- a set of both where one name's rows fared differently (Azure's Windows meters).

A name mapped to another variant, dropped, or newly met changes the table and fails the
test. Each entry's comment names the documentation that says what the name carries; most are
the ``source`` column of pricing/data/*.csv, which the adapters map through.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Mapping
from types import SimpleNamespace
from typing import Any

from hardware import Hardware
from pricing.adapters import azure, lambda_cloud, runpod, vast
from pricing.adapters.aws.bulk import parse_offer_file
from pricing.adapters.aws.common import UNMAPPED, skip_report
from pricing.adapters.aws.instances import load_instance_map
from pricing.adapters.aws.price_file import PREAMBLE_LINES
from pricing.adapters.aws.price_list import parse_price_list
from pricing.adapters.aws.public_spot import (
    LEGACY_REGIONS,
    fetch_document,
    parse_advisor,
    parse_spot_prices,
)
from pricing.adapters.aws.spot import parse_spot_history
from pricing.adapters.gcp import offers as gcp_offers
from pricing.adapters.gcp.availability import parse_aggregated_list
from pricing.adapters.gcp.skus import REJECTED, UNKNOWN, PriceBook
from pricing.adapters.gcp.tables import load_tables
from pricing.adapters.kit import Reason, SkipReport
from pricing.offer import Offer
from tests.fakes.aws import SAMPLES
from tests.fakes.gcp import sku

TODAY = "2026-11-29"

Count = int | tuple[int, ...]
Outcome = tuple[str, Count] | str
Table = dict[str, Outcome | frozenset[Outcome]]


class Names:
    """What each name met became, over every item or sample it was met in."""

    def __init__(self) -> None:
        self._mapped: dict[str, dict[str, set[int]]] = {}  # name -> accelerator -> counts
        self._skipped: dict[str, set[str]] = {}  # name -> why

    def met(self, name: str, offers: Iterable[Offer], why: str) -> None:
        """``name`` was read and gave ``offers``; none at all means skipped, for ``why``."""
        found = list(offers)
        for offer in found:
            self._mapped.setdefault(name, {}).setdefault(offer.accelerator, set()).add(offer.count)
        if not found:
            self._skipped.setdefault(name, set()).add(f"skipped: {why}")

    def table(self) -> Table:
        table: Table = {}
        for name in self._mapped | self._skipped:
            by_accelerator = sorted(self._mapped.get(name, {}).items())
            outcomes: list[Outcome] = [(a, _count(c)) for a, c in by_accelerator]
            outcomes += sorted(self._skipped.get(name, set()))
            table[name] = outcomes[0] if len(outcomes) == 1 else frozenset(outcomes)
        return table


def _count(counts: set[int]) -> Count:
    return next(iter(counts)) if len(counts) == 1 else tuple(sorted(counts))


def _reported(skipped: SkipReport, reasons: Mapping[Reason, str], name: str) -> str | None:
    """Why the skip report filed ``name``, as the tables say it; None when it did not."""
    return next((why for reason, why in reasons.items() if name in skipped.names(reason)), None)


def _sample(name: str) -> Any:
    return json.loads((SAMPLES / name).read_text())


def _each_alone(
    items: Iterable[tuple[str, Any]],
    parse: Callable[[Any, SkipReport], list[Offer]],
    new_report: Callable[[], SkipReport],
    why: Callable[[str, Any, SkipReport], str],
) -> Table:
    """Each (name, item) parsed on its own, so every item's fate is its own."""
    names = Names()
    for name, item in items:
        skipped = new_report()
        names.met(name, parse(item, skipped), why(name, item, skipped))
    return names.table()


# -- AWS ------------------------------------------------------------------------------------

AWS_INSTANCES = load_instance_map()
AWS: Table = {
    # Every GPU type as in docs.aws.amazon.com/ec2/latest/instancetypes/ac.html too (the
    # source column of pricing/data/aws_instances.csv, which the adapter maps through).
    # aws.amazon.com/ec2/instance-types/p4/: 8 NVIDIA A100 Tensor Core GPUs, 320 GB HBM2 in
    # all (40 GB each); the price list's own attribute says gpu=8
    "p4d.24xlarge": ("a100-40gb", 8),
    # aws.amazon.com/ec2/instance-types/p5/: 8 NVIDIA H100 80GB on NVSwitch (SXM5)
    "p5.48xlarge": ("h100-sxm", 8),
    # aws.amazon.com/ec2/instance-types/p3/: 1 NVIDIA Tesla V100, 16 GB
    "p3.2xlarge": ("v100-16gb", 1),
    # aws.amazon.com/ec2/instance-types/g4/: 1 NVIDIA T4 (g4dn.xlarge), 4 (12xlarge)
    "g4dn.xlarge": ("t4", 1),
    "g4dn.12xlarge": ("t4", 4),
    # aws.amazon.com/ec2/instance-types/g5/: 1 NVIDIA A10G (xlarge), 4 (12xlarge)
    "g5.xlarge": ("a10g", 1),
    "g5.12xlarge": ("a10g", 4),
    # aws.amazon.com/ec2/instance-types/g6/: 1 NVIDIA L4
    "g6.xlarge": ("l4", 1),
    # no accelerator (aws.amazon.com/ec2/instance-types/: general purpose m5/m5d/m1, compute
    # optimised c5/c6i, storage optimised h1); in the samples as spot.json/spot.js cells
    # (m5.large), a DescribeSpotPriceHistory row (m1.xlarge), Windows and Dedicated rows of
    # the offer file (c6i.large; c5.xlarge and h1.2xlarge in its JSON form) and a Dedicated
    # Host SKU (m5d)
    "m5.large": "skipped: no accelerator (not in aws_instances.csv)",
    "m1.xlarge": "skipped: no accelerator (not in aws_instances.csv)",
    "c6i.large": "skipped: no accelerator (not in aws_instances.csv)",
    "c5.xlarge": "skipped: no accelerator (not in aws_instances.csv)",
    "h1.2xlarge": "skipped: no accelerator (not in aws_instances.csv)",
    "m5d": "skipped: no accelerator (not in aws_instances.csv)",
}


def _aws_why(name: str, skipped: SkipReport) -> str:
    reported = _reported(skipped, {UNMAPPED: "accelerated, not in aws_instances.csv"}, name)
    known = AWS_INSTANCES.get(name)
    if reported is None and known is not None:
        return f"{known.use} in aws_instances.csv"  # inference, graphics, retired ...
    return reported or "no accelerator (not in aws_instances.csv)"


def _served(text: str) -> Any:
    """A public spot file read by the adapter's own reader (spot.js: JSONP taken off)."""
    answer = SimpleNamespace(status_code=200, text=text)
    return fetch_document(SimpleNamespace(get=lambda url, **_: answer), "https://spot", 1.0)  # type: ignore[arg-type]


def _spot_sizes(document: Any) -> tuple[list[str], list[str]]:
    """(every size, every region) a spot.json document lists."""
    regions = document["config"]["regions"]
    sizes = [s["size"] for r in regions for f in r["instanceTypes"] for s in f["sizes"]]
    return sizes, [*LEGACY_REGIONS.values(), *(r["region"] for r in regions)]


def test_aws_maps_every_instance_type_in_its_samples() -> None:
    skipped = skip_report()
    read: list[tuple[list[str], list[Offer]]] = []  # per sample: the names, the offers

    def price_list(entries: list[Any]) -> None:
        parsed = [json.loads(e) if isinstance(e, str) else e for e in entries]
        names = [p["product"]["attributes"]["instanceType"] for p in parsed]
        read.append((names, parse_price_list(entries, AWS_INSTANCES, TODAY, skipped)))

    price_list(_sample("aws_get_products_p4d_24xlarge.json")["response"]["PriceList"])
    price_list([_sample("aws_get_products_pricelist_element_verbatim_dedicated_host.json")])
    # The offer file as JSON: its products in the PriceList element's shape (product + terms)
    bulk = _sample("aws_bulk_offer_ec2_json_excerpt.json")
    terms = bulk["terms"]
    price_list(
        [
            {"product": product, "terms": {kind: terms[kind].get(sku_id, {}) for kind in terms}}
            for sku_id, product in bulk["products"].items()
        ]
    )
    data = (SAMPLES / "aws_bulk_offer_ec2_regional_csv_header_and_rows.csv").read_bytes()
    rows = list(csv.DictReader(io.StringIO(data.decode().split("\n", PREAMBLE_LINES)[-1])))
    file = parse_offer_file([data], "ap-northeast-1", AWS_INSTANCES, TODAY, skipped)
    read.append(([row["Instance Type"] for row in rows], file.offers))
    history = _sample("aws_describe_spot_price_history.json")["SpotPriceHistory"]
    spot = parse_spot_history(history, "us-west-1", AWS_INSTANCES, TODAY)
    read.append(([row["InstanceType"] for row in history], spot))
    for name in ("aws_spot_json_excerpt.json", "aws_spot_js_excerpt.js"):
        document = _served((SAMPLES / name).read_text())
        sizes, regions = _spot_sizes(document)
        read.append((sizes, parse_spot_prices(document, regions, AWS_INSTANCES, TODAY)))

    names = Names()
    for met, offers in read:
        for name in met:
            names.met(name, [o for o in offers if o.product == name], _aws_why(name, skipped))
    assert names.table() == AWS
    # The Spot Instance Advisor maps no name itself: its bands go to the spot offers of the
    # same type, all of them priced above.
    advisor = parse_advisor(_sample("aws_spot_advisor_data_excerpt.json"))
    assert {instance for _, instance in advisor} <= {
        n for n, o in AWS.items() if isinstance(o, tuple)
    }


# -- Google Cloud ---------------------------------------------------------------------------

GCP_TABLES = load_tables()
GCP_SKUS = (
    "gcp_billing_catalog_skus_compute_engine_verbatim.json",
    "gcp_billing_catalog_skus_spot_gpu_and_tpu_RECONSTRUCTED.json",
)
AMERICAS = ["us-central1", "us-east1", "us-west1"]
ZONED = ["us-central1", "europe-west1"]  # the regions of the AcceleratorTypes sample


def _gcp_context() -> list[dict[str, Any]]:
    """What the samples lack to price a machine, from the fake's SKU builder: the spot A2
    host parts, the N1 host attached GPUs ride on, a GPU SKU per accelerator type listed."""
    parts = (("Core", "CPU"), ("Ram", "RAM"))
    return [
        *(
            sku(
                f"Spot Preemptible A2 Instance {part} running in Americas",
                0.001,
                AMERICAS,
                "Preemptible",
                group,
            )
            for part, group in parts
        ),
        *(
            sku(f"N1 Predefined Instance {part} running in Americas", 0.01, ZONED, group=group)
            for part, group in parts
        ),
        *(
            sku(f"Nvidia Tesla {gpu} GPU running in Americas", 1.0, ZONED)
            for gpu in ("V100", "P100", "P4", "K80")
        ),
    ]


A2_STANDARD = ("a100-40gb", (1, 2, 4, 8, 16))  # a2-highgpu-1g ... 8g, a2-megagpu-16g
GCP: Table = {
    # Cloud Billing SKUs (description). cloud.google.com/compute/docs/gpus and
    # /accelerator-optimized-machines: A2 Standard machines carry 1, 2, 4, 8 or 16 NVIDIA
    # A100 40GB, priced whole as GPU + vCPU + RAM SKUs (gcp_gpus.csv, gcp_machines.csv)
    "Nvidia Tesla A100 GPU running in Americas": A2_STANDARD,
    "Nvidia Tesla A100 GPU attached to Spot Preemptible VMs running in Americas": A2_STANDARD,
    "A2 Instance Core running in Americas": A2_STANDARD,
    "A2 Instance Ram running in Americas": A2_STANDARD,
    # a T2D (no GPU) RAM SKU priced in IDR: the catalog asked for is USD
    "T2D AMD Instance Ram running in Singapore": "skipped: non-USD or malformed (reported)",
    # cloud.google.com/tpu/docs/v6e: priced per chip; v6e-1, one chip, the smallest slice
    "TpuV6e ... running in <region> (exact wording unverified; SkyPilot matches substring "
    "'TpuV6e', gpuhunt regex \\bTpu[-\\w]*\\b)": ("tpu-v6e", 1),
    # AcceleratorTypes names. cloud.google.com/compute/docs/gpus: V100 16 GB on N1, up to 8
    # a VM (maximumCardsPerInstance 8 in us-central1), offered 1, 2, 4, 8 with the N1 host
    "nvidia-tesla-v100": ("v100-16gb", (1, 2, 4, 8)),
    # gcp_gpus.csv: K80 retired by Google in 2024; P4 an inference card, P100 without
    # throughput data: known, not priced
    "nvidia-tesla-k80": "skipped: known in gcp_gpus.csv, not priced",
    "nvidia-tesla-p4": "skipped: known in gcp_gpus.csv, not priced",
    "nvidia-tesla-p100": "skipped: known in gcp_gpus.csv, not priced",
    # the P4 Virtual Workstation (a GRID licence): its SKUs are skipped as "Virtual Workstation"
    "nvidia-tesla-p4-vws": "skipped: not in gcp_gpus.csv",
}


def _gcp_sku_why(item: Mapping[str, Any], skipped: SkipReport) -> str:
    if any(item["skuId"] in refused for refused in skipped.names(REJECTED)):
        return "non-USD or malformed (reported)"
    unknown = _reported(skipped, {UNKNOWN: "unknown accelerator (reported)"}, item["description"])
    return unknown or "no offer"


def _gcp_type_why(accelerator_type: str) -> str:
    known = {gpu.accelerator_type for gpu in GCP_TABLES.gpus.values()}
    return (
        "known in gcp_gpus.csv, not priced" if accelerator_type in known else "not in gcp_gpus.csv"
    )


def test_gcp_maps_every_sku_and_accelerator_type_in_its_samples() -> None:
    samples = [item for name in GCP_SKUS for item in _sample(name)["skus"]]
    skipped = gcp_offers.skip_report()
    book = PriceBook()
    book.read([*samples, *_gcp_context()], skipped)
    names = Names()
    # Availability unchecked: every machine a SKU prices; an offer cites its SKU ids.
    unchecked = gcp_offers.build_offers(book, GCP_TABLES, None, TODAY, skipped)
    for item in samples:
        cited = [o for o in unchecked if item["skuId"] in o.source]
        names.met(item["description"], cited, _gcp_sku_why(item, skipped))
    # Availability as the AcceleratorTypes sample gives it: which type, how many a VM.
    zones = _sample("gcp_compute_acceleratorTypes_aggregatedList.json")["items"]
    available = parse_aggregated_list(zones.items())
    checked = gcp_offers.build_offers(book, GCP_TABLES, available, TODAY, skipped)
    listed = {t["name"] for zone in zones.values() for t in zone.get("acceleratorTypes", [])}
    for accelerator_type in listed:
        attached = [o for o in checked if o.product.endswith(f"x {accelerator_type}")]
        names.met(accelerator_type, attached, _gcp_type_why(accelerator_type))
    assert names.table() == GCP


# -- Azure ----------------------------------------------------------------------------------

AZURE_VMS = azure.load_vm_map()
AZURE: Table = {
    # learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/..., as azure_vms.csv
    # cites. .../ncast4v3-series: NC4as_T4_v3 has 1 NVIDIA T4 (16 GB); its pay-as-you-go,
    # Spot, Low Priority and 1-year Reservation meters priced, the Windows meter (productName
    # "... Series Windows") not: a licence is in its price
    "Standard_NC4as_T4_v3": frozenset({("t4", 1), "skipped: Windows licence in the price"}),
    # .../nccadsh100v5-series: 1 "Nvidia H100 GPU (94GB)", the H100 NVL, not the 80 GB PCIe
    # card; the " Win" meter ("... Srs Win") not priced
    "Standard_NCC40ads_H100_v5": frozenset(
        {("h100-nvl", 1), "skipped: Windows licence in the price"}
    ),
}


def _azure_why(name: str, item: Any, skipped: SkipReport) -> str:
    reported = _reported(skipped, {azure.UNMAPPED: "not in azure_vms.csv (reported)"}, name)
    if reported is not None:
        return reported
    if skipped.names(azure.REJECTED):
        return "non-USD or malformed (reported)"
    if name in azure.FRACTIONAL:
        return "a fraction of a GPU"
    if azure.is_windows(str(item.get("productName") or "")):
        return "Windows licence in the price"
    return "not a Linux hourly price"


def test_azure_maps_every_vm_size_in_its_sample() -> None:
    items = _sample("azure_retail_prices_gpu_vm_items.json")["Items"]
    found = _each_alone(
        [(item["armSkuName"], item) for item in items],
        lambda item, skipped: azure.parse_items([item], AZURE_VMS, TODAY, skipped),
        azure.skip_report,
        _azure_why,
    )
    assert found == AZURE


# -- Lambda Cloud ---------------------------------------------------------------------------

LAMBDA: Table = {
    # Lambda's instance types (LambdaLabs/docsy-lambda-docs, cloud/faq/available-
    # configurations.md): "1x NVIDIA A100, 40 GB", "4x NVIDIA RTX A6000, 48 GB". The sample is
    # the OpenAPI example (v1.5.3), whose descriptions are placeholders: gpu_1x_a100 is
    # "1x RTX A100 (24 GB)", a GPU that does not exist: reported, never guessed from the name
    "gpu_1x_a100": "skipped: GPU not in the hardware registry (reported)",
    # NOTE: the example describes gpu_4x_a6000 as "4x RTX 6000 (24 GB)", 4 Quadro RTX 6000,
    # and the adapter goes by the description, not the name. Lambda's documentation gives
    # 4 RTX A6000 (48 GB) for this name, and live answers say so ("4x A6000 (48 GB)", which
    # resolves to rtx-a6000); only this placeholder disagrees with its own name.
    "gpu_4x_a6000": ("quadro-rtx6000", 4),
}


def _keyed_why(reasons: Mapping[Reason, str], otherwise: str) -> Callable[..., str]:
    """Why for a parser run on one item: the first reason its skip report filed anything
    under, else ``otherwise``."""

    def why(name: str, item: Any, skipped: SkipReport) -> str:
        filed = (what for reason, what in reasons.items() if skipped.names(reason))
        return next(filed, otherwise)

    return why


def test_lambda_maps_every_instance_type_in_its_sample(hardware: Hardware) -> None:
    resolve = hardware.registry.canonical
    found = _each_alone(
        _sample("lambda_cloud_instance_types_response.json")["data"].items(),
        lambda entry, skipped: lambda_cloud.parse_instance_types(
            {"data": {entry["instance_type"]["name"]: entry}}, resolve, TODAY, skipped
        ),
        lambda_cloud.skip_report,
        _keyed_why(
            {lambda_cloud.UNKNOWN_GPU: "GPU not in the hardware registry (reported)"},
            "no GPU or no price",
        ),
    )
    assert found == LAMBDA


# -- RunPod ---------------------------------------------------------------------------------

PODS = (1, 2, 4, 8)  # pods of 1, 2, 4, 8 GPUs up to maxGpuCount (8 in the sample but one)
RUNPOD: Table = {
    # docs.runpod.io/references/gpu-types (runpod/docs references/gpu-types.mdx): GPU ID,
    # display name, memory; a gpuType is one GPU, rented in pods of several
    "NVIDIA GeForce RTX 3090": ("rtx3090", PODS),  # "RTX 3090", 24 GB
    "NVIDIA GeForce RTX 4090": ("rtx4090", PODS),  # "RTX 4090", 24 GB
    "NVIDIA A100 80GB PCIe": ("a100-80gb-pcie", PODS),  # "A100 PCIe", 80 GB (not the SXM4)
    "NVIDIA H100 80GB HBM3": ("h100-sxm", PODS),  # "H100 SXM", 80 GB
    "NVIDIA B200": ("b200", PODS),  # "B200", 180 GB; Secure Cloud only in the sample
    "NVIDIA GeForce RTX 5090": ("rtx5090", (1, 2, 4)),  # "RTX 5090", 32 GB; maxGpuCount 4
}


def test_runpod_maps_every_gpu_type_in_its_sample(hardware: Hardware) -> None:
    resolve = hardware.registry.canonical
    found = _each_alone(
        [
            (t["id"], t)
            for t in _sample("runpod_graphql_gpu_types_response.json")["data"]["gpuTypes"]
        ],
        lambda entry, skipped: runpod.parse_gpu_types(
            {"data": {"gpuTypes": [entry]}}, resolve, TODAY, skipped
        ),
        runpod.skip_report,
        _keyed_why(
            {
                runpod.UNKNOWN_GPU: "GPU not in the hardware registry (reported)",
                runpod.BAD_PRICE: "malformed price (reported)",
            },
            "no tier offered or priced",
        ),
    )
    assert found == RUNPOD


# -- Vast.ai --------------------------------------------------------------------------------

VAST: Table = {
    # Vast.ai's offer search (vast-ai/docs api-reference/openapi/yaml/search_offers.yaml):
    # gpu_name "GPU model name", num_gpus a listing's GPUs, gpu_ram "GPU RAM in MB" each
    "RTX 3090": ("rtx3090", (1, 2)),  # GeForce RTX 3090, 24576 MB; 1x (two hosts) and 2x
    "RTX 4090": ("rtx4090", 1),  # GeForce RTX 4090, 24564 MB (the verbatim row)
    "RTX 5090": ("rtx5090", 1),  # GeForce RTX 5090, 32607 MB
    "H100 SXM": ("h100-sxm", 8),  # H100 SXM5 80 GB (81559 MB), 8 in one listing
    "RTX 6000Ada": ("rtx6000-ada", 1),  # RTX 6000 Ada Generation, 49140 MB; a deverified host
}


def test_vast_maps_every_gpu_name_in_its_sample(hardware: Hardware) -> None:
    resolve = hardware.registry.canonical
    found = _each_alone(
        [(o["gpu_name"], o) for o in _sample("vast_bundles_offers_response.json")["offers"]],
        lambda entry, skipped: vast.parse_offers({"offers": [entry]}, resolve, TODAY, skipped),
        vast.skip_report,
        _keyed_why(
            {
                vast.UNKNOWN_GPU: "GPU not in the hardware registry (reported)",
                vast.BAD_OFFER: "bad GPU name, count or price (reported)",
                vast.RENTED: "already rented (reported)",
            },
            "no offer",
        ),
    )
    assert found == VAST
