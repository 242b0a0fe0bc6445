"""Build ``snapshot.csv``: the hand-curated rows plus rows generated from the cloud catalogs.

Why a script: the bundled snapshot is the service's only price list before any live adapter
has run, so it should cover every cloud the adapters cover, in many regions, on demand and
spot, with a real date on every price. Typing hundreds of rows by hand cannot be checked;
generating them from third-party catalogs' figures (``catalog_prices.csv``, see
``catalog_prices.md``) can: a test re-runs this script and requires the result to equal the
shipped file byte for byte.

Inputs, all read-only:
- ``curated.csv``: the hand-curated rows (Colab, and the older sourced cloud rows);
- ``committed.csv``: committed terms (pricing/offer.py TERM_MONTHS), each row dated and sourced
  (pricing/data/README.md, "Committed terms"): taken as they are;
- ``china_prices.csv``, ``eur_prices.csv``: prices published in yuan and in euros (VAT
  excluded), each kept in its currency with the ECB rate of its day;
- ``catalog_prices.csv``: the figures of skypilot-org/skypilot-catalog files (AWS, GCP,
  Azure, Lambda, and the GPU marketplaces RunPod and Vast.ai), one row per catalog line;
  ``--from-catalogs DIR`` derives it again from the verbatim extracts (shared/data/catalogs/);
- ``aws_instances.csv``, ``azure_vms.csv``, ``gcp_machines.csv``, ``gcp_gpus.csv``,
  ``gcp_tpus.csv``: the project's own sourced instance tables, which the live adapters use;
- ``hardware/data/accelerators.csv``: canonical accelerator ids and their aliases.

Rules (pricing/data/README.md says the same in prose):
- One row per (provider, instance type, region, pricing). AWS and GCP list prices per zone:
  the region's row takes the cheapest zone and says so in ``notes``.
- The accelerator is the project's instance table's where it lists the instance type (it
  fixes catalog slips such as Azure ND96isr_H100_v5 listed with 12 GPUs); otherwise the
  catalog's AcceleratorName resolved through the registry's aliases. Unresolved: skipped.
- Spot only where SpotPrice is a price: present, above 0, not a placeholder (GCP TPU 700.0)
  and below the same line's on-demand price (equal means no spot discount is listed).
- GCP a2/a3/g2 machines: the catalog prices the VM and its GPUs on separate lines; a row
  is the VM line plus the GPU line of the same zone. GCP attached T4/V100 ride on an
  n1-standard-4 per GPU, priced for us-central1 only (the one region with a sourced N1
  price). TPU slices of at most 8 chips (the engine's scaling data ends at 8 devices).
- A curated row and a generated row for the same (provider, product, region, pricing):
  the generated row wins unless the curated row carries an exact date (YYYY-MM or
  YYYY-MM-DD) from another source than these catalogs (curated rows read from the same
  catalog carry its read date, 2026-11-30, and are recomputed here). Only the post-cut AWS
  p4d/p5 prices (2025-06) are kept that way: the catalog still lists the pre-cut prices.
- Marketplaces: RunPod lists the same price in all its data centres, so one row per pod
  type in region "global" (as the live adapter writes it), market "secure" (the catalog's
  rows are all Secure Cloud). Vast.ai's rows are medians of verified hosts' asks per GPU,
  count and size (SkyPilot's fetcher): one row per type and country, market "verified".
  ``SUPERSEDED`` names curated rows that describe a generated offer under another name or
  a country-wide region.

Run: ``python pricing/data/build_snapshot.py`` (stdlib only, deterministic); with
``--from-catalogs ../shared/data/catalogs`` it first derives ``catalog_prices.csv``.
"""

from __future__ import annotations

import csv
import io
import math
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
# The catalogs' figures the build reads, one row per catalog line, as the project keeps them
# (derived from the verbatim extracts in shared/data/catalogs/ by --from-catalogs; the
# extracts themselves are not part of the project): pricing/data/README.md, "Catalogs".
CATALOG_PRICES = HERE / "catalog_prices.csv"
CATALOG_COLUMNS = [
    "provider", "line", "InstanceType", "AcceleratorName", "AcceleratorCount", "Price",
    "SpotPrice", "Region", "AvailabilityZone", "GpuMemoryMiB",
]  # fmt: skip
ACCELERATORS = ROOT / "hardware" / "data" / "accelerators.csv"

COLUMNS = [
    "provider", "service", "product", "region", "zone", "accelerator", "count", "pricing",
    "usd_per_hour", "host_included", "price_as_of", "confidence", "source", "notes", "market",
    "purchase_option", "upfront_share", "interruption",
    "currency", "price_per_hour", "fx_per_usd", "fx_day",
]  # fmt: skip
READ_DATE = "2026-11-30"
# The catalogs do not say when they collected a price: it held at some time before the read
# date, so "before <read date>", which pricing.offer.price_date reads as of unknown age.
AS_OF = f"before {READ_DATE}"
DATE_NOTE = f"read {READ_DATE}; when the catalog collected it is not recorded"
CONFIDENCE = "medium"

# (extract file, service, catalog path, commit): catalog_prices.md.
CATALOG = {
    "aws": ("aws_gpu_vms.csv", "EC2", "catalogs/v7/aws/vms.csv",
            "001367d22a0033fac286a8c71aeac7109e431bcb"),
    "gcp": ("gcp_accel_vms.csv", "Compute Engine", "catalogs/v7/gcp/vms.csv",
            "017e2502fb63c7a28757acd94002b2d6099d3e3d"),
    "azure": ("azure_gpu_vms.csv", "Virtual Machines", "catalogs/v6/azure/vms.csv",
              "098741e70562f65d7af1cceb81e33b284f742604"),
    "lambda": ("lambda_vms.csv", "Lambda Cloud", "catalogs/v7/lambda/vms.csv",
               "11580132cea293395776b033c8533714d42abb4e"),
    "runpod": ("runpod_vms.csv", "RunPod", "catalogs/v7/runpod/vms.csv",
               "0727c2bd9e77f91cb1377127c5f793a28cf01384"),
    "vast": ("vast_vms.csv", "Vast.ai", "catalogs/v7/vast/vms.csv",
             "00690e7666c721997de53f0594aef3d86d560545"),
}  # fmt: skip
TPU_SERVICE = "Cloud TPU"

# GCP attached GPUs ride on an n1-standard-4 per GPU (4 vCPUs, 15 GB, the live adapter's
# sizing); its us-central1 price: skypilot-org/skypilot-catalog catalogs/v7/gcp/vms.csv
# @017e2502 (read 2026-11-30), the row pricing/data/README.md "Derivations" cites.
N1_REGION = "us-central1"
N1_STANDARD_4 = {"on_demand": 0.19, "spot": 0.04815}
N1_SOURCE = (
    "n1-standard-4 us-central1 0.19 on demand / 0.04815 spot: skypilot-org/skypilot-catalog "
    "catalogs/v7/gcp/vms.csv@017e2502fb63c7a28757acd94002b2d6099d3e3d (read 2026-11-30)"
)
# GCP machine types gcp_machines.csv does not list: (GPU line name in the catalog, GPUs).
# A3 Ultra = 8 x H200 141GB (cloud.google.com/compute/docs/accelerator-optimized-machines).
GCP_EXTRA_MACHINES = {"a3-ultragpu-8g": ("H200", 8)}
# Catalog GPU line names for the GPU types gcp_gpus.csv names (accelerator_type column).
GCP_GPU_LINE = {
    "nvidia-tesla-a100": "A100",
    "nvidia-a100-80gb": "A100-80GB",
    "nvidia-l4": "L4",
    "nvidia-h100-80gb": "H100",
    "nvidia-h100-mega-80gb": "H100-MEGA",
}
TPU_MAX_CHIPS = 8
PLACEHOLDER_PRICES = {700.0, 99999999.0}
# Lambda names only "H100" for its PCIe instance; the instance type says the form.
LAMBDA_ACCELERATOR = {"gpu_1x_h100_pcie": "h100-pcie"}
# Catalog prices the live AWS price list no longer shows: AWS cut P4/P5 on-demand prices
# in mid-2025 (curated.csv: p4d was 32.7726, p5 98.32); the catalog still lists these.
AWS_PRE_CUT = ("p4d.", "p4de.", "p5.", "p5e.", "p5en.")
# AWS's us-east-1 on-demand list prices as its Price List API gave them on 2026-07-20
# (karpenter's generated table): a dated price wins over the catalog's undated one there.
AWS_LIST_PRICES = "aws_list_prices.csv"
# Azure's Linux on-demand prices per region, from its Retail Prices API on 2026-06-18
# (karpenter-provider-azure's generated table): the same for Azure's rows.
AZURE_LIST_PRICES = "azure_list_prices.csv"
# The catalog's two eras of the P4 and P5 families: AWS cut their on-demand prices in mid-2025
# (between karpenter's tables of 2025-04-28 and 2025-06-23, history.csv); a line above the
# family's us-east-1 list price of 2026 by more than any region's premium (REGION_PREMIUM)
# is from before the cut: history, not current, and undated, so left out.
REGION_PREMIUM = 1.3
# AWS Spot Instance Advisor bands per region and type (spot_advisor.csv, a dated copy).
SPOT_ADVISOR = "aws_spot_advisor.csv"
PRE_CUT_NOTE = (
    "on-demand equals the list price before AWS's mid-2025 P4/P5 price cut, so the catalog "
    "line likely predates 2025-06"
)

# Curated rows that describe a generated offer under another product name or a
# country-wide region: (provider, product, region, pricing) -> the generated row's key.
SUPERSEDED = {
    ("lambda", "1x A100 40GB", "us", "on_demand"): (
        "lambda", "gpu_1x_a100", "us-east-1", "on_demand"),
    ("lambda", "1x A10", "us", "on_demand"): ("lambda", "gpu_1x_a10", "us-east-1", "on_demand"),
    ("lambda", "1x Quadro RTX 6000", "us", "on_demand"): (
        "lambda", "gpu_1x_rtx6000", "us-east-1", "on_demand"),
    ("lambda", "8x V100", "us", "on_demand"): ("lambda", "gpu_8x_v100", "us-east-1", "on_demand"),
    ("gcp", "v5p (per chip)", "us-central1", "on_demand"): (
        "gcp", "v5p-8", "us-central1", "on_demand"),
    ("gcp", "v5p (per chip)", "us-central1", "spot"): ("gcp", "v5p-8", "us-central1", "spot"),
    ("gcp", "a2-highgpu-1g", "us", "spot"): ("gcp", "a2-highgpu-1g", "us-central1", "spot"),
}  # fmt: skip
_EXACT_DATE = re.compile(r"\d{4}-\d{2}(-\d{2})?")
_SEPARATORS = re.compile(r"[\s_]+")


def normalize_name(name: str) -> str:
    """hardware/registry.py's normalize_name: lowercase, spaces and underscores as dashes."""
    return _SEPARATORS.sub("-", name.strip().lower())


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def catalog_lines(provider: str) -> list[dict[str, str]]:
    """The lines of ``provider``'s catalog, in its order, as catalog_prices.csv keeps them."""
    return [line for line in _catalog_prices() if line["provider"] == provider]


_READ: dict[Path, list[dict[str, str]]] = {}


def _catalog_prices() -> list[dict[str, str]]:
    if CATALOG_PRICES not in _READ:
        _READ[CATALOG_PRICES] = read_csv(CATALOG_PRICES)
    return _READ[CATALOG_PRICES]


def derive_catalog_prices(folder: Path) -> str:
    """catalog_prices.csv from the verbatim catalog extracts in ``folder`` (shared/data/
    catalogs/, whose README says where and when each was read): every line of each, the
    columns the build reads, and for Vast.ai's A100 lines the GPU memory its GpuInfo
    states (the form of card it is)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CATALOG_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for provider, (file, _, _, _) in CATALOG.items():
        for number, line in enumerate(read_csv(folder / file), start=1):
            memory = _MIB.search(line.get("GpuInfo", ""))
            row = {column: line.get(column, "") for column in CATALOG_COLUMNS}
            row.update(provider=provider, line=str(number))
            row["GpuMemoryMiB"] = memory.group(1) if memory and provider == "vast" else ""
            writer.writerow(row)
    return out.getvalue()


def alias_table() -> dict[str, str]:
    table = {}
    for row in read_csv(ACCELERATORS):
        for spelling in (row["id"], row["name"], *row["aliases"].split("|")):
            if spelling.strip():
                table[normalize_name(spelling)] = row["id"]
    return table


def price(text: str) -> float | None:
    """A catalog cell as a usable price: None for empty, zero or placeholder cells."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value > 0 and value not in PLACEHOLDER_PRICES else None


def fmt(value: float) -> str:
    """A computed USD figure: at most 6 decimals, no trailing zeros."""
    return f"{value:.6f}".rstrip("0").rstrip(".")


def source(provider: str) -> str:
    _, _, path, commit = CATALOG[provider]
    return f"skypilot-org/skypilot-catalog {path}@{commit} (read {READ_DATE})"


class Skips:
    """Catalog lines left out, counted by reason (the README's table)."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()

    def add(self, provider: str, reason: str) -> None:
        self.counts[(provider, reason)] += 1


def offer(
    provider: str,
    service: str,
    product: str,
    region: str,
    accelerator: str,
    count: int,
    pricing: str,
    usd: str,
    notes: list[str],
    confidence: str = CONFIDENCE,
    extra_source: str = "",
    market: str = "cloud",
    dated: tuple[str, str] | None = None,
) -> dict[str, str]:
    """A snapshot row from a catalog; ``dated``: (as of, source) of a dated price that
    replaced the catalog's undated one."""
    if dated is not None:
        as_of, cited = dated
        return {
            **offer(provider, service, product, region, accelerator, count, pricing, usd, []),
            "price_as_of": as_of,
            "confidence": "high",
            "source": cited,
            "notes": "; ".join(notes),
        }
    return {
        "provider": provider,
        "service": service,
        "product": product,
        "region": region,
        "zone": "",
        "accelerator": accelerator,
        "count": str(count),
        "pricing": pricing,
        "usd_per_hour": usd,
        "host_included": "true",
        "price_as_of": AS_OF,
        "confidence": confidence,
        "source": source(provider) + (f"; {extra_source}" if extra_source else ""),
        "notes": "; ".join([*notes, DATE_NOTE]),
        "market": market,
    }


def zone_note(zones: list[str]) -> str:
    return f"cheapest of {len(zones)} zones" if len(zones) > 1 else f"1 zone ({zones[0]})"


def cheapest(candidates: list[tuple[float, str, str, str]]) -> tuple[str, str, list[str]]:
    """(price text, zone, all zones) of the cheapest (value, text, zone, extra) candidate."""
    best = min(candidates, key=lambda c: (c[0], c[2]))
    return best[1], best[2], sorted({c[2] for c in candidates})


def dated_confidence(listed: Row) -> str:
    """A dated price's confidence: a provider's own list or page is high; a dated row may say
    less (dated_prices.csv's ``confidence``: one host's rate is medium)."""
    return listed.get("confidence") or "high"


def list_priced(row: Row, listed: Row, column: str = "on_demand_usd_per_hour") -> Row:
    """``row`` at a dated price (a provider's list or page) instead of the catalog's undated
    one, the catalog's figure and how far off it was in the notes (crosscheck.csv lists
    those beyond DISAGREEMENT)."""
    catalog_usd, usd = row["usd_per_hour"], float(listed[column])
    off = float(catalog_usd) / usd - 1
    said = f"the skypilot catalog's price is {catalog_usd} ({off:+.0%})"
    if abs(off) > DISAGREEMENT:
        said += f": {DISAGREES} by more than 25 %, the catalog's is of an older era"
    return {
        **row,
        "usd_per_hour": fmt(usd),
        "price_as_of": listed["as_of"],
        "confidence": dated_confidence(listed),
        "source": listed["source"],
        "notes": f"{said}; {row['notes'].removesuffix('; ' + DATE_NOTE)}",
    }


# --- AWS -----------------------------------------------------------------------------------


def aws(aliases: dict[str, str], skips: Skips) -> list[dict[str, str]]:
    table = {r["instance_type"]: r for r in read_csv(HERE / "aws_instances.csv")}
    bands = {(r["region"], r["instance_type"]): r for r in read_csv(HERE / SPOT_ADVISOR)}
    list_prices = {(r["instance_type"], r["region"]): r for r in read_csv(HERE / AWS_LIST_PRICES)}
    _, service, _, _ = CATALOG["aws"]
    by_key: dict[tuple[str, str, str, str, int], list[tuple[float, str, str, str]]]
    by_key = defaultdict(list)
    seen = set()
    for line in catalog_lines("aws"):
        itype = line["InstanceType"]
        listed = table.get(itype)
        if listed is not None:
            accelerator, count = listed["accelerator"], int(listed["count"] or 0)
        else:
            accelerator = aliases.get(normalize_name(line["AcceleratorName"]), "")
            count = int(float(line["AcceleratorCount"] or 0))
        if not accelerator or count < 1:
            skips.add("aws", f"{line['AcceleratorName'] or '(none)'} ({itype.split('.')[0]})")
            continue
        zone_key = (itype, line["AvailabilityZone"])
        if zone_key in seen:  # p4de lists each zone twice (GpuInfo 'A100' / 'A100-80GB')
            continue
        seen.add(zone_key)
        on_demand, spot = price(line["Price"]), price(line["SpotPrice"])
        base = (itype, line["Region"], accelerator)
        cut = list_prices.get((itype, "us-east-1")) if itype.startswith(AWS_PRE_CUT) else None
        after_cut = float(cut["on_demand_usd_per_hour"]) if cut else math.inf
        dated_here = (itype, line["Region"]) in list_prices  # its list price replaces it
        if on_demand is not None and on_demand > after_cut * REGION_PREMIUM and not dated_here:
            skips.add("aws", f"{itype} on demand from before the 2025-06 price cut")
            on_demand = None
        if on_demand is not None:
            by_key[(*base, "on_demand", count)].append(
                (on_demand, line["Price"], line["AvailabilityZone"], "")
            )
        if spot is not None and (on_demand is None or spot < on_demand):
            by_key[(*base, "spot", count)].append(
                (spot, line["SpotPrice"], line["AvailabilityZone"], "")
            )
    rows = []
    for (itype, region, accelerator, pricing, count), candidates in by_key.items():
        text, _, zones = cheapest(candidates)
        notes = [zone_note(zones) + " (AWS zone IDs)", "Linux"]
        confidence = CONFIDENCE
        list_price = list_prices.get((itype, region)) if pricing == "on_demand" else None
        if list_price is not None:
            row = offer("aws", service, itype, region, accelerator, count, pricing, text, notes)
            rows.append(list_priced(row, list_price))
            continue
        if pricing == "on_demand" and itype.startswith(AWS_PRE_CUT):
            notes.append(PRE_CUT_NOTE)
            confidence = "low"
        band = bands.get((region, itype)) if pricing == "spot" else None
        if band is not None:
            notes.append(
                f"interruption band {band['band']}: AWS Spot Instance Advisor as of "
                f"{band['as_of']} ({band['source']})"
            )
        row = offer(
            "aws", service, itype, region, accelerator, count, pricing, text, notes, confidence
        )
        rows.append({**row, "interruption": band["band"] if band else ""})
    return rows


# --- Azure ---------------------------------------------------------------------------------


def azure(aliases: dict[str, str], skips: Skips) -> list[dict[str, str]]:
    table = {r["arm_sku_name"]: r for r in read_csv(HERE / "azure_vms.csv")}
    list_prices = {(r["arm_sku_name"], r["region"]): r for r in read_csv(HERE / AZURE_LIST_PRICES)}
    _, service, _, _ = CATALOG["azure"]
    rows = []
    for line in catalog_lines("azure"):
        size = line["InstanceType"]
        listed = table.get(size)
        notes = []
        if listed is not None:
            accelerator, count = listed["accelerator"], int(listed["count"])
            if line["AcceleratorCount"] and int(float(line["AcceleratorCount"])) != count:
                notes.append(
                    f"GPU count {count} from pricing/data/azure_vms.csv (catalog says "
                    f"{line['AcceleratorCount']})"
                )
        else:
            accelerator = aliases.get(normalize_name(line["AcceleratorName"]), "")
            count = int(float(line["AcceleratorCount"] or 0))
        if not accelerator or count < 1:
            skips.add("azure", f"{line['AcceleratorName'] or '(none)'} ({size})")
            continue
        on_demand, spot = price(line["Price"]), price(line["SpotPrice"])
        notes.append("catalog v6 (no v7 Azure catalog); Linux")
        if on_demand is not None:
            row = offer(
                "azure", service, size, line["Region"], accelerator, count, "on_demand",
                line["Price"], notes,
            )  # fmt: skip
            list_price = list_prices.get((size, line["Region"]))
            rows.append(row if list_price is None else list_priced(row, list_price))
        if spot is not None and (on_demand is None or spot < on_demand):
            rows.append(
                offer(
                    "azure",
                    service,
                    size,
                    line["Region"],
                    accelerator,
                    count,
                    "spot",
                    line["SpotPrice"],
                    notes,
                )
            )
    return rows


# --- Lambda --------------------------------------------------------------------------------


def lambda_cloud(aliases: dict[str, str], skips: Skips) -> list[dict[str, str]]:
    _, service, _, _ = CATALOG["lambda"]
    rows = []
    for line in catalog_lines("lambda"):
        itype = line["InstanceType"]
        if not line["AcceleratorName"]:
            continue  # CPU-only instance types
        accelerator = LAMBDA_ACCELERATOR.get(itype) or aliases.get(
            normalize_name(line["AcceleratorName"]), ""
        )
        if not accelerator:
            skips.add("lambda", f"{line['AcceleratorName']} ({itype})")
            continue
        on_demand = price(line["Price"])
        if on_demand is None:
            skips.add("lambda", f"no price ({itype})")
            continue
        count = int(float(line["AcceleratorCount"]))
        notes = ["Lambda sells no spot"]
        rows.append(
            offer(
                "lambda",
                service,
                itype,
                line["Region"],
                accelerator,
                count,
                "on_demand",
                line["Price"],
                notes,
            )
        )
    return rows


# --- GPU marketplaces ----------------------------------------------------------------------


# RunPod's GPU names that mean another card than the registry's alias: its "H100" pods are
# the PCIe card and its "A100-80GB" pods the A100 80GB PCIe (its pricing page lists "H100
# PCIe" beside "H100 SXM" and "H100 NVL", "A100 PCIe" beside "A100 SXM"; SkyPilot's RunPod
# adaptor maps 'A100-80GB' to 'NVIDIA A100 80GB PCIe': shared/reviews/data-audit-2026-12-01.md
# N17), not the SXM boards the aliases name.
RUNPOD_NAMES = {"H100": "h100-pcie", "A100-80GB": "a100-80gb-pcie"}


def runpod(aliases: dict[str, str], skips: Skips) -> list[dict[str, str]]:
    """One row per pod type and pricing: RunPod prices every data centre alike."""
    _, service, _, _ = CATALOG["runpod"]
    by_key: dict[tuple[str, str, int, str], tuple[str, set[str]]] = {}
    for line in catalog_lines("runpod"):
        itype = line["InstanceType"]
        if not line["AcceleratorName"]:
            continue  # CPU-only pods
        accelerator = RUNPOD_NAMES.get(line["AcceleratorName"]) or aliases.get(
            normalize_name(line["AcceleratorName"]), ""
        )
        if not accelerator:
            skips.add("runpod", f"{line['AcceleratorName']} ({itype})")
            continue
        count = int(float(line["AcceleratorCount"]))
        on_demand, spot = price(line["Price"]), price(line["SpotPrice"])
        listed = [("on_demand", on_demand, line["Price"])]
        if spot is not None and (on_demand is None or spot < on_demand):
            listed.append(("spot", spot, line["SpotPrice"]))
        for pricing, value, text in listed:
            if value is None:
                continue
            key = (itype, accelerator, count, pricing)
            known = by_key.setdefault(key, (text, set()))
            if float(known[0]) != value:
                raise SystemExit(f"runpod {itype} {pricing}: data centres differ in price")
            known[1].add(line["AvailabilityZone"])
    return [
        offer(
            "runpod",
            service,
            itype,
            "global",
            accelerator,
            count,
            pricing,
            text,
            [f"same price in {len(zones)} data centres", "Secure Cloud"],
            market="secure",
        )
        for (itype, accelerator, count, pricing), (text, zones) in by_key.items()
    ]


def vast(aliases: dict[str, str], skips: Skips) -> list[dict[str, str]]:
    """One row per offer type and country: the type's median ask over every region's hosts
    (SkyPilot's fetcher sets it on each host at or under it), listed where that host is."""
    _, service, _, _ = CATALOG["vast"]
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for line in catalog_lines("vast"):
        itype = line["InstanceType"]
        count = int(float(line["AcceleratorCount"]))
        accelerator = _vast_accelerator(line, count, aliases)
        if not accelerator:
            skips.add("vast", f"{line['AcceleratorName']} ({itype})")
            continue
        on_demand = price(line["Price"])
        if on_demand is None:
            skips.add("vast", f"no price ({itype})")
            continue
        country = line["Region"].split(",")[-2].strip().lower() if "," in line["Region"] else ""
        region = country or "unknown"
        notes = [
            "median ask of this type's offers over every region, set on each host at or "
            "under it by SkyPilot's fetcher (skypilot-org/skypilot@0fb0b222 "
            "sky/catalog/data_fetchers/fetch_vast.py)",
            f"host in {line['Region'].strip()}",
            "no interruptible price listed",
        ]
        row = offer(
            "vast", service, itype, region, accelerator, count, "on_demand", line["Price"],
            notes, market="verified",
        )  # fmt: skip
        rows.setdefault((itype, region), row)  # a type listed twice in one country: once
    return list(rows.values())


# Vast.ai names the A100's form, not its memory: the catalog's GPU memory tells them apart.
VAST_A100 = {40: "a100-40gb", 80: "a100-80gb"}
_MIB = re.compile(r"'TotalGpuMemoryInMiB': (\d+)")


def _vast_accelerator(line: dict[str, str], count: int, aliases: dict[str, str]) -> str:
    stub = line["InstanceType"].split("-")[1] if "-" in line["InstanceType"] else ""
    if line["AcceleratorName"] == "A100":
        total = line["GpuMemoryMiB"]
        per_gpu_gb = round(int(total) / count / 1024) if total and count else 0
        return VAST_A100.get(per_gpu_gb, "")
    for name in (stub.replace("_", " "), line["AcceleratorName"]):
        found = aliases.get(normalize_name(name), "")
        if found:
            return found
    return ""


# --- GCP -----------------------------------------------------------------------------------


def gcp(aliases: dict[str, str], skips: Skips) -> list[dict[str, str]]:
    _, service, _, _ = CATALOG["gcp"]
    lines = catalog_lines("gcp")
    gpu_lines: dict[tuple[str, int, str], dict[str, str]] = {}
    for line in lines:
        if not line["InstanceType"] and not line["AcceleratorName"].startswith("tpu-"):
            key = (line["AcceleratorName"], int(line["AcceleratorCount"]), line["AvailabilityZone"])
            gpu_lines.setdefault(key, line)
    return [
        *_gcp_machines(lines, gpu_lines, aliases, skips, service),
        *_gcp_attached(gpu_lines, skips, service),
        *_gcp_tpus(lines, skips),
    ]


def _gcp_machine_table(aliases: dict[str, str]) -> dict[str, tuple[str, int, str]]:
    """Machine type -> (catalog GPU line name, GPUs, canonical accelerator)."""
    by_type = {g["accelerator_type"]: g["accelerator"] for g in read_csv(HERE / "gcp_gpus.csv")}
    table = {}
    for m in read_csv(HERE / "gcp_machines.csv"):
        gpu_line = GCP_GPU_LINE[m["accelerator_type"]]
        table[m["machine_type"]] = (gpu_line, int(m["gpus"]), by_type[m["accelerator_type"]])
    for machine, (gpu_line, gpus) in GCP_EXTRA_MACHINES.items():
        table[machine] = (gpu_line, gpus, aliases[normalize_name(gpu_line)])
    return table


Row = dict[str, str]
GpuLines = dict[tuple[str, int, str], Row]


# GCP's dated list prices (gcp_list_prices.csv: the Cloud Billing catalog as exported on
# 2026-07-30). They replace the skypilot catalog's sums, whose GPU lines in some regions are
# a non-on-demand SKU's: its fetcher takes the first OnDemand-typed SKU whose description
# contains the GPU's name, and Google's Dynamic Workload Scheduler SKUs ("DWS Defined
# Duration ...", about half the price) are OnDemand-typed and contain it (pricing/data/
# README.md, "GCP's half-price rows").
GCP_LIST_PRICES = HERE / "gcp_list_prices.csv"
GCP_LIST_COLUMN = {"on_demand": "on_demand_usd_per_hour", "spot": "spot_usd_per_hour"}
# A GPU line below this share of the same GPU's dearest line across the catalog's regions is
# a DWS SKU's, not on demand (on-demand GPU prices differ by region by well under that: the
# dated list prices of a3-highgpu-8g span 88.49 to 141.58 USD/h, 0.63): with no dated list
# price to replace it, it is left out. Not the median: the H200's lines are DWS-priced in
# six regions of nine.
HALF_PRICE_SHARE = 0.6
# Where a dated price and the catalog's disagree by more than this, the row says so
# (and pricing/data/README.md lists it).
DISAGREEMENT = 0.25
DISAGREES = "disagrees"  # the word crosscheck.csv finds such rows by


def _gcp_list_prices() -> dict[tuple[str, str], Row]:
    return {(r["machine"], r["region"]): r for r in read_csv(GCP_LIST_PRICES)}


def _gpu_dearest(gpu_lines: GpuLines) -> dict[str, float]:
    """The dearest on-demand price per GPU of each GPU line name, over zones and counts."""
    per_gpu: dict[str, float] = {}
    for (name, count, _), line in gpu_lines.items():
        usd = price(line["Price"])
        if usd is not None:
            per_gpu[name] = max(per_gpu.get(name, 0.0), usd / count)
    return per_gpu


def _gcp_machines(
    lines: list[Row], gpu_lines: GpuLines, aliases: dict[str, str], skips: Skips, service: str
) -> list[Row]:
    table = _gcp_machine_table(aliases)
    listed = _gcp_list_prices()
    dearest = _gpu_dearest(gpu_lines)
    by_key: dict[tuple[str, str, str], list[tuple[float, str, str, str]]] = defaultdict(list)
    for line in lines:
        machine = line["InstanceType"]
        if not machine:
            continue
        if machine not in table:
            skips.add("gcp", f"machine type without a sourced GPU pairing ({machine})")
            continue
        gpu_name, gpus, _ = table[machine]
        zone = line["AvailabilityZone"]
        gpu = gpu_lines.get((gpu_name, gpus, zone))
        if gpu is None:
            skips.add("gcp", f"VM line without a GPU line in its zone ({machine})")
            continue
        for pricing, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
            vm_usd, gpu_usd = price(line[column]), price(gpu[column])
            if vm_usd is None or gpu_usd is None:
                continue
            total = round(vm_usd + gpu_usd, 6)
            detail = f"VM {line[column]} + {gpus}x {gpu_name} {gpu[column]} ({zone})"
            by_key[(machine, line["Region"], pricing)].append((total, fmt(total), zone, detail))
    rows = []
    for (machine, region, pricing), candidates in by_key.items():
        if pricing == "spot":
            on_demand = by_key.get((machine, region, "on_demand"))
            if on_demand and min(candidates)[0] >= min(on_demand)[0]:
                continue
        best = min(candidates, key=lambda c: (c[0], c[2]))
        zones = sorted({c[2] for c in candidates})
        gpu_name, gpus, accelerator = table[machine]
        notes = [zone_note(zones), best[3]]
        row = listed.get((machine, region))
        usd = row[GCP_LIST_COLUMN[pricing]] if row else ""
        if usd:
            dated = (row["as_of"], row["source"])
            off = best[0] / float(usd) - 1
            said = f"the skypilot catalog's sum is {best[1]} ({off:+.0%})"
            if abs(off) > DISAGREEMENT:
                said += f": {DISAGREES} by more than 25 %, " + (
                    "the catalog's GPU line is not the on-demand SKU's"
                    if pricing == "on_demand"
                    else "spot prices move often and the two were read at different times"
                )
            notes = [said, best[3]]
            rows.append(
                offer(
                    "gcp", service, machine, region, accelerator, gpus, pricing, fmt(float(usd)),
                    notes, dated=dated,
                )
            )  # fmt: skip
            continue
        if pricing == "on_demand":
            gpu_line = gpu_lines[(gpu_name, gpus, best[2])]
            share = float(gpu_line["Price"]) / gpus / dearest[gpu_name]
            if share < HALF_PRICE_SHARE:
                skips.add(
                    "gcp",
                    f"GPU line under {HALF_PRICE_SHARE:.0%} of its dearest region's and no "
                    f"dated list price: a DWS SKU's price ({machine})",
                )
                continue
        rows.append(
            offer("gcp", service, machine, region, accelerator, gpus, pricing, best[1], notes)
        )
    return rows


def _gcp_attached(gpu_lines: GpuLines, skips: Skips, service: str) -> list[Row]:
    n1 = {g["sku_gpu"]: g for g in read_csv(HERE / "gcp_gpus.csv") if g["attach"] == "n1"}
    machine_gpus = set(GCP_GPU_LINE.values()) | {g for g, _ in GCP_EXTRA_MACHINES.values()}
    by_key: dict[tuple[str, int, str, str], list[tuple[float, str, str, str]]]
    by_key = defaultdict(list)
    for (name, count, zone), line in sorted(gpu_lines.items()):
        if name in machine_gpus:
            continue  # priced with their A2/A3/G2 machine
        listed = n1.get(name)
        if listed is None or not listed["accelerator"]:
            skips.add("gcp", f"GPU line without a host or not in the registry ({name})")
            continue
        if line["Region"] != N1_REGION:
            skips.add("gcp", f"attached GPU outside {N1_REGION} (no sourced N1 price) ({name})")
            continue
        for pricing, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
            gpu_usd = price(line[column])
            if gpu_usd is None:
                continue
            host = round(N1_STANDARD_4[pricing] * count, 6)
            total = round(gpu_usd + host, 6)
            detail = (
                f"GPU {line[column]}/h for {count} + n1-standard-{4 * count} host "
                f"{fmt(host)}/h (4 vCPUs, 15 GB per attached GPU, as the live GCP adapter "
                "sizes it)"
            )
            by_key[(name, count, line["Region"], pricing)].append((total, fmt(total), zone, detail))
    rows = []
    for (name, count, region, pricing), candidates in by_key.items():
        listed = n1[name]
        best = min(candidates, key=lambda c: (c[0], c[2]))
        zones = sorted({c[2] for c in candidates})
        product = f"n1-standard-{4 * count} + {count}x {listed['accelerator_type']}"
        rows.append(
            offer(
                "gcp",
                service,
                product,
                region,
                listed["accelerator"],
                count,
                pricing,
                best[1],
                [zone_note(zones), best[3]],
                extra_source=N1_SOURCE,
            )
        )
    return rows


def _gcp_tpus(lines: list[Row], skips: Skips) -> list[Row]:
    # product prefix ("v5litepod") -> (accelerator, TensorCores per chip), from gcp_tpus.csv
    kinds = {}
    for t in read_csv(HERE / "gcp_tpus.csv"):
        prefix, size = t["product"].rsplit("-", 1)
        kinds[prefix] = (t["accelerator"], int(size) // int(t["slice_chips"]))
    by_key: dict[tuple[str, str, str], list[tuple[float, str, str, str]]] = defaultdict(list)
    for line in lines:
        name = line["AcceleratorName"]
        if line["InstanceType"] or not name.startswith("tpu-"):
            continue
        product = name.removeprefix("tpu-")
        prefix, size = product.rsplit("-", 1)
        if prefix not in kinds:
            skips.add("gcp", f"TPU kind not in gcp_tpus.csv ({prefix})")
            continue
        chips = int(size) // kinds[prefix][1]
        if chips > TPU_MAX_CHIPS:
            skips.add("gcp", f"TPU slice above {TPU_MAX_CHIPS} chips ({prefix})")
            continue
        on_demand, spot = price(line["Price"]), price(line["SpotPrice"])
        if on_demand is None and spot is None:
            skips.add("gcp", f"TPU placeholder or empty price ({product})")
            continue
        zone = line["AvailabilityZone"]
        if on_demand is not None:
            by_key[(product, line["Region"], "on_demand")].append(
                (on_demand, line["Price"], zone, "")
            )
        if spot is not None and (on_demand is None or spot < on_demand):
            by_key[(product, line["Region"], "spot")].append((spot, line["SpotPrice"], zone, ""))
    rows = []
    for (product, region, pricing), candidates in by_key.items():
        text, _, zones = cheapest(candidates)
        prefix, size = product.rsplit("-", 1)
        accelerator, cores = kinds[prefix]
        chips = int(size) // cores
        per_chip = fmt(float(text) / chips)
        notes = [zone_note(zones), f"{chips} chips, {per_chip} per chip-hour"]
        rows.append(
            offer("gcp", TPU_SERVICE, product, region, accelerator, chips, pricing, text, notes)
        )
    return rows


# --- merge ---------------------------------------------------------------------------------


def key4(row: dict[str, str]) -> tuple[str, str, str, str]:
    return (row["provider"], row["product"], row["region"], row["pricing"])


def merge(
    curated: list[dict[str, str]], generated: list[dict[str, str]]
) -> tuple[list[dict[str, str]], list[tuple[dict[str, str], dict[str, str]]], list[str]]:
    """All rows, the (curated, generated) pairs where the generated row won, and notes on
    the pairs where the curated row was kept."""
    by_key = {key4(g): g for g in generated}
    assert len(by_key) == len(generated), "two generated rows share a key"
    replaced, kept_notes, kept = [], [], []
    for row in curated:
        target = SUPERSEDED.get(key4(row), key4(row))
        twin = by_key.get(target)
        if twin is None:
            if key4(row) in SUPERSEDED:
                raise SystemExit(f"SUPERSEDED names a row the catalogs no longer give: {target}")
            kept.append(row)
        elif _EXACT_DATE.fullmatch(row["price_as_of"]):
            kept.append(row)
            del by_key[target]
            kept_notes.append(f"kept curated {key4(row)} over catalog {twin['usd_per_hour']}")
        else:
            replaced.append((row, twin))
    return kept + list(by_key.values()), replaced, kept_notes


def sort_key(row: dict[str, str]) -> tuple[object, ...]:
    return (
        row["provider"],
        row["service"],
        row["product"],
        row["region"],
        row["pricing"],
        row["accelerator"],
        int(row["count"]),
    )


@dataclass
class Report:
    rows: int
    by_provider_pricing: Counter[tuple[str, str]]
    skipped: Counter[tuple[str, str]]
    replaced: list[tuple[Row, Row]]
    kept: list[str]


# Dated published prices (dated_prices.csv: a provider's own pricing page as checked on a
# known day) replace a catalog's undated price for the same product and pricing, in every
# region the catalog lists it; a dated product the catalog lacks (RunPod's Community Cloud)
# is added. Where a provider's dated prices sit well above its catalog rows, the catalog's
# other rows of that provider are of an older era: they stay, with confidence low.
DATED_PRICES = HERE / "dated_prices.csv"
OLDER_ERA = {
    "lambda": "this catalog's prices of the products Lambda's page dated 2026-09-25 are 23-42 % "
    "below those (dated_prices.csv): this row is probably of an older era",
}


# A marketplace's dated price is one host's rate, or one day's median over its hosts: one
# offer, so one row, never copied onto the catalog's regions (each its own hosts' undated
# ask, kept as it is). Where the host is unknown the row's region is "global".
ONE_ROW = frozenset({"vast"})


def dated(generated: list[Row], aliases: dict[str, str]) -> list[Row]:
    prices = {(r["provider"], r["product"], r["pricing"]): r for r in read_csv(DATED_PRICES)}
    out, used = [], set()
    one_row: dict[tuple[str, str, str], Row] = {}
    for row in generated:
        key = (row["provider"], row["product"], row["pricing"])
        found = prices.get(key)
        if found is not None and row["provider"] in ONE_ROW:
            one_row.setdefault(key, row)  # its accelerator and count, for the one row
            found = None
        if found is None:
            if row["provider"] in OLDER_ERA and row["price_as_of"].startswith("before"):
                row = {
                    **row,
                    "confidence": "low",
                    "notes": f"{row['notes']}; {OLDER_ERA[row['provider']]}",
                }
            out.append(row)
            continue
        used.add(key)
        out.append(list_priced(row, found, column="usd_per_hour"))
    for key, template in one_row.items():
        used.add(key)
        found = prices[key]
        out.append(
            {
                **template,
                "region": "global",
                "usd_per_hour": found["usd_per_hour"],
                "price_as_of": found["as_of"],
                "confidence": dated_confidence(found),
                "source": found["source"],
                "notes": "a dated marketplace price, one row: its host's country is not "
                "stated, and it is not copied onto the catalog's regions (each keeps its own "
                "hosts' undated ask)",
            }
        )
    for key, found in prices.items():
        if key in used:
            continue
        provider, product, pricing = key
        gpus, name = product.split("x_", 1)
        accelerator = (
            RUNPOD_NAMES.get(name.rsplit("_", 1)[0])
            or alias_table()[normalize_name(name.rsplit("_", 1)[0])]
        )
        service = CATALOG[provider][1]
        usd, market = found["usd_per_hour"], found["market"]
        out.append(
            {
                **offer(
                    provider, service, product, "global", accelerator, int(gpus), pricing, usd,
                    [], market=market,
                ),
                "price_as_of": found["as_of"],
                "confidence": dated_confidence(found),
                "source": found["source"],
                "notes": "a dated price the catalog does not list",
            }
        )  # fmt: skip
    return out


def in_currency(name: str) -> list[Row]:
    """Prices published in another currency than the dollar: China's GPU clouds in yuan
    (china_prices.csv: no credential-free API) and Europe's in euros, VAT excluded
    (eur_prices.csv). Each keeps its price in its currency (currency, price_per_hour) and
    the ECB reference rate that converts it (fx_per_usd, fx_day): the rate of its day, or
    the newest bundled before it, or, for a price older than the bundled year, the oldest
    bundled (the note says so). The service's parser makes the dollars of them
    (pricing/adapters/tabular.py). A committed row carries its purchase option."""
    sys.path.insert(0, str(ROOT))  # the rates are the service's own: one conversion
    from pricing.fx import FxError, bundled_rates

    rates = bundled_rates()
    rows = []
    for line in read_csv(HERE / name):
        day = date.fromisoformat(_first_day(line["price_as_of"]))
        try:
            rate = rates.rate(line["currency"], day)
        except FxError:  # older than the bundled rates: the oldest, later than the price
            rate = rates.rate(line["currency"], rates.earliest_day)
        amount = float(line["price"])
        per_instance = line["unit"] == "per instance-hour"
        whole = amount if per_instance else amount * int(line["count"])
        lag = (day - rate.day).days
        behind = f", {lag} days before the price's" if lag > 7 else ""
        if lag < 0:
            behind = f", the oldest bundled: {-lag} days after the price's"
        rows.append(
            {
                "provider": line["provider"],
                "service": line["service"],
                "product": line["product"],
                "region": line["region"],
                "zone": "",
                "accelerator": line["accelerator"],
                "count": line["count"],
                "pricing": line["pricing"],
                "usd_per_hour": "",  # price_per_hour at fx_per_usd
                "currency": line["currency"],
                "price_per_hour": fmt(whole),
                "fx_per_usd": f"{rate.per_usd:.10g}",
                "fx_day": rate.day.isoformat(),
                "host_included": "true",
                "price_as_of": line["price_as_of"],
                "confidence": line["confidence"],
                "source": line["source"],
                "notes": (
                    f"{amount:g} {line['currency']} {line['unit']} at {rate.per_usd:.4f} "
                    f"{line['currency']} per USD (ECB reference rate of {rate.day}{behind}); "
                    + line["notes"]
                ),
                "market": "cloud",
                "purchase_option": line.get("purchase_option", ""),
                "upfront_share": line.get("upfront_share", ""),
            }
        )
    return rows


def _first_day(as_of: str) -> str:
    """A price's day: YYYY-MM-DD as given, a month's first day for YYYY-MM."""
    return as_of if len(as_of) == 10 else f"{as_of}-01"


def build() -> tuple[str, Report]:
    aliases = alias_table()
    skips = Skips()
    curated = read_csv(HERE / "curated.csv")
    generated = [
        *aws(aliases, skips),
        *azure(aliases, skips),
        *gcp(aliases, skips),
        *lambda_cloud(aliases, skips),
        *runpod(aliases, skips),
        *vast(aliases, skips),
    ]
    generated = dated(generated, aliases)
    rows, replaced, kept_notes = merge(curated, generated)
    rows += read_csv(HERE / "committed.csv")
    rows += in_currency("china_prices.csv") + in_currency("eur_prices.csv")
    rows.sort(key=sort_key)
    out = io.StringIO()
    for row in rows:
        row.setdefault("market", "cloud")  # curated rows: the clouds' own data centres
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    report = Report(
        rows=len(rows),
        by_provider_pricing=Counter((r["provider"], r["pricing"]) for r in rows),
        skipped=skips.counts,
        replaced=replaced,
        kept=kept_notes,
    )
    return out.getvalue(), report


def crosscheck(text: str) -> str:
    """The rows whose dated price and the catalog's disagree by more than 25 %, as CSV:
    pricing/data/README.md's cross-check table."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["provider", "product", "region", "pricing", "usd_per_hour", "price_as_of", "second_source"]
    )
    for row in csv.DictReader(io.StringIO(text)):
        said = row["notes"].split("; ")[0]
        if f": {DISAGREES} by more than" in said:
            writer.writerow(
                [
                    row[k]
                    for k in (
                        "provider",
                        "product",
                        "region",
                        "pricing",
                        "usd_per_hour",
                        "price_as_of",
                    )
                ]
                + [said]
            )
    return out.getvalue()


def main() -> None:
    arguments = sys.argv[1:]
    if "--from-catalogs" in arguments:  # re-derive the catalogs' figures from the extracts
        folder = Path(arguments[arguments.index("--from-catalogs") + 1])
        CATALOG_PRICES.write_text(derive_catalog_prices(folder), encoding="utf-8")
    text, report = build()
    (HERE / "snapshot.csv").write_text(text, encoding="utf-8")
    (HERE / "crosscheck.csv").write_text(crosscheck(text), encoding="utf-8")
    if "-q" in sys.argv[1:]:
        return
    print(f"snapshot.csv: {report.rows} offers")
    for (provider, pricing), n in sorted(report.by_provider_pricing.items()):
        print(f"  {provider:7} {pricing:14} {n}")
    print("catalog lines skipped:")
    for (provider, reason), n in sorted(report.skipped.items()):
        print(f"  {provider:7} {n:5}  {reason}")
    print("curated rows replaced by a catalog row:")
    for old, new in report.replaced:
        print(
            f"  {key4(old)} {old['usd_per_hour']} ({old['price_as_of']}) -> "
            f"{key4(new)} {new['usd_per_hour']}"
        )
    for note in report.kept:
        print(f"  {note}")


if __name__ == "__main__":
    main()
