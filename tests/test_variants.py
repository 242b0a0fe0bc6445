"""GPU variants (issue 33): the registry tells apart the forms providers mix up (H100 SXM,
PCIe and NVL; A100 80GB SXM4 and PCIe), each with its own specs and speed, and every
provider's name for each lands on the right one, with the provider's documentation as the
source of the mapping."""

from __future__ import annotations

import csv
from importlib import resources
from pathlib import Path

import pytest

from hardware import Hardware, Workload
from pricing.adapters.runpod import resolve_gpu as runpod_gpu
from pricing.adapters.vast import resolve_gpu as vast_gpu

SNAPSHOT = Path(str(resources.files("pricing") / "data")) / "snapshot.csv"


def test_each_variant_has_its_own_specs_and_speed(hardware: Hardware) -> None:
    """The A100 80GB PCIe is measured in Lambda's 2025-12 set at 2.821 (transformer), 7 %
    under the SXM4 board's 3.037; the H100 NVL (94 GB, 400 W) has no measurement: its spec
    estimate sits between the PCIe and SXM cards."""
    r = hardware.registry
    assert (r["a100-80gb"].board_power_w, r["a100-80gb-pcie"].board_power_w) == (400, 300)
    assert (r["h100-nvl"].memory_gb, r["h100-pcie"].memory_gb, r["h100-sxm"].memory_gb) == (
        94,
        80,
        80,
    )
    ids = ("a100-80gb", "a100-80gb-pcie", "h100-sxm", "h100-pcie", "h100-nvl")
    speed = {a: hardware.speed(a, Workload.TRANSFORMER) for a in ids}
    assert speed["a100-80gb-pcie"].relative == 2.821 and speed["a100-80gb"].relative == 3.037
    assert speed["a100-80gb-pcie"].method == "measured"
    assert speed["h100-pcie"].relative < speed["h100-nvl"].relative < speed["h100-sxm"].relative
    assert speed["h100-nvl"].method == "estimated"


# (provider, product in the bundled snapshot) -> the accelerator it is, and why.
MAPPED = {
    # learn.microsoft.com .../nca100v4-series: "NVIDIA A100 PCIe 80 GB"
    ("azure", "Standard_NC24ads_A100_v4"): "a100-80gb-pcie",
    # .../ndma100v4-series: 8 A100 80GB on NVLink 3.0 (SXM4)
    ("azure", "Standard_ND96amsr_A100_v4"): "a100-80gb",
    # .../ncadsh100v5-series: "Nvidia PCIe H100 GPU (94GB)", the H100 NVL
    ("azure", "Standard_NC40ads_H100_v5"): "h100-nvl",
    # .../ndh100v5-series: 8 H100 on NVLink 4.0 (an HGX board)
    ("azure", "Standard_ND96isr_H100_v5"): "h100-sxm",
    # runpod.io/pricing lists H100 PCIe, H100 SXM, H100 NVL, A100 PCIe and A100 SXM apart
    ("runpod", "1x_H100_SECURE"): "h100-pcie",
    ("runpod", "1x_H100-SXM_SECURE"): "h100-sxm",
    ("runpod", "1x_H100-NVL_SECURE"): "h100-nvl",
    ("runpod", "1x_A100-80GB_SECURE"): "a100-80gb-pcie",
    ("runpod", "1x_A100-80GB-SXM_SECURE"): "a100-80gb",
    # Vast.ai names the form in the offer type (H100_NVL, H100_SXM, A100_SXM4)
    ("vast", "2x-H100_NVL-32-65536"): "h100-nvl",
    ("vast", "2x-H100_SXM-32-65536"): "h100-sxm",
    ("vast", "2x-A100_SXM4-32-65536"): "a100-40gb",  # 40 GB a GPU in its GpuInfo
    # lambda.ai/pricing: "1x H100 PCIe", "1x H100 SXM", "8x A100 SXM 80GB"
    ("lambda", "gpu_1x_h100_pcie"): "h100-pcie",
    ("lambda", "gpu_1x_h100_sxm5"): "h100-sxm",
    ("lambda", "gpu_8x_a100_80gb_sxm4"): "a100-80gb",
    # cloud.google.com/compute/docs/gpus: A3 High (H100 SXM), A2 Ultra (A100 80GB SXM4)
    ("gcp", "a3-highgpu-8g"): "h100-sxm",
    ("gcp", "a2-ultragpu-8g"): "a100-80gb",
    # aws.amazon.com/ec2/instance-types/p5, /p4: H100 SXM, A100 80GB SXM4
    ("aws", "p5.48xlarge"): "h100-sxm",
    ("aws", "p4de.24xlarge"): "a100-80gb",
}


@pytest.fixture(scope="module")
def bundled() -> dict[tuple[str, str], set[str]]:
    with SNAPSHOT.open(newline="", encoding="utf-8") as handle:
        found: dict[tuple[str, str], set[str]] = {}
        for row in csv.DictReader(handle):
            found.setdefault((row["provider"], row["product"]), set()).add(row["accelerator"])
        return found


@pytest.mark.parametrize(("key", "accelerator"), MAPPED.items(), ids=lambda v: str(v))
def test_each_providers_name_lands_on_its_variant(
    bundled: dict[tuple[str, str], set[str]], key: tuple[str, str], accelerator: str
) -> None:
    assert bundled[key] == {accelerator}


def test_the_live_marketplace_adapters_resolve_the_variants(hardware: Hardware) -> None:
    """RunPod's gpuTypes ids and Vast.ai's gpu_name (with the memory a bare A100 needs)."""
    canonical = hardware.registry.canonical
    runpod = {
        "NVIDIA A100 80GB PCIe": "a100-80gb-pcie",
        "NVIDIA A100-SXM4-80GB": "a100-80gb",
        "NVIDIA H100 PCIe": "h100-pcie",
        "NVIDIA H100 80GB HBM3": "h100-sxm",
        "NVIDIA H100 NVL": "h100-nvl",
    }
    for gpu_id, accelerator in runpod.items():
        assert runpod_gpu({"id": gpu_id, "displayName": ""}, canonical) == accelerator, gpu_id
    vast = {
        ("H100 NVL", 94): "h100-nvl",
        ("H100 SXM", 80): "h100-sxm",
        ("H100 PCIE", 80): "h100-pcie",
        ("A100 PCIE", 80): "a100-80gb-pcie",
        ("A100 SXM4", 80): "a100-80gb",
        ("A100 PCIE", 40): "a100-40gb",
    }
    for (name, memory), accelerator in vast.items():
        assert vast_gpu(name, memory, canonical)[0] == accelerator, name
