"""A regional AWS offer file (``index.csv``) in its real shape, from a few rows to over 1 GB.

The ingest benchmark streams a large generated file; the test fakes serve small ones. Both
start from the verbatim sample of a regional file: its five preamble lines, its 91-column
header and a real row as the base of every generated one. The sample is read as data from
where the test fakes keep it, so bench imports nothing from tests.
"""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

from pricing.adapters.aws.price_file import PREAMBLE_LINES

SAMPLE = (
    Path(__file__).resolve().parents[1]
    / "tests/fakes/samples/aws_bulk_offer_ec2_regional_csv_header_and_rows.csv"
)

# Roughly the mix of a real regional file: mostly CPU families; every instance type priced
# for many operating systems, tenancies, capacity states and terms; GPU rows a small share.
_CPU_TYPES = [
    f"{f}.{s}"
    for f in ("m5", "c6i", "r6i", "m7g", "c7g", "r7i", "t3", "i4i", "x2idn")
    for s in ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge")
]
_GPU_TYPES = [
    "p4d.24xlarge",
    "p5.48xlarge",
    "g5.xlarge",
    "g5.12xlarge",
    "g6.xlarge",
    "g6e.12xlarge",
    "g4dn.xlarge",
    "trn1.32xlarge",
    "inf2.xlarge",
    "p9.96xlarge",
]
_OPERATING_SYSTEMS = [
    "Linux",
    "Windows",
    "RHEL",
    "SUSE",
    "Red Hat Enterprise Linux with HA",
    "Ubuntu Pro",
]
_TENANCIES = [("Shared", "BoxUsage"), ("Dedicated", "DedicatedUsage"), ("Host", "HostBoxUsage")]
_CAPACITY = ["Used", "UnusedCapacityReservation", "AllocatedCapacityReservation"]
_SOFTWARE = ["NA", "SQL Web", "SQL Std"]


def sample_rows() -> list[list[str]]:
    with SAMPLE.open() as handle:
        return list(csv.reader(handle))


def bulk_header() -> list[str]:
    return sample_rows()[PREAMBLE_LINES]


def bulk_row(instance_type: str, usd: float, region: str = "us-east-1", **fields: str) -> dict:
    """A Linux, shared, on-demand BoxUsage row; keyword fields override columns by name
    (spaces as underscores: Operating_System="Windows")."""
    row = dict(zip(bulk_header(), sample_rows()[6], strict=True))  # a real row as the base
    row.update(
        {
            "TermType": "OnDemand",
            "PriceDescription": f"${usd} per On Demand Linux {instance_type} Instance Hour",
            "Unit": "Hrs",
            "PricePerUnit": f"{usd:.10f}",
            "Currency": "USD",
            "LeaseContractLength": "",
            "PurchaseOption": "",
            "OfferingClass": "",
            "Instance Type": instance_type,
            "Instance Family": "GPU instance",
            "Tenancy": "Shared",
            "Operating System": "Linux",
            "License Model": "No License required",
            "usageType": f"USE1-BoxUsage:{instance_type}",
            "operation": "RunInstances",
            "CapacityStatus": "Used",
            "Pre Installed S/W": "NA",
            "MarketOption": "OnDemand",
            "Region Code": region,
        }
    )
    row.update({name.replace("_", " "): value for name, value in fields.items()})
    return row


def offer_file(rows: list[dict], version: str = "20261120000000") -> bytes:
    """A regional index.csv: the real preamble and header, then the given rows."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    preamble = sample_rows()[:PREAMBLE_LINES]
    preamble[3] = ["Version", version]
    writer.writerows(preamble)
    writer.writerow(bulk_header())
    for row in rows:
        writer.writerow([row.get(name, "") for name in bulk_header()])
    return out.getvalue().encode()


def write_realistic_offer_file(path: Path, target_bytes: int, seed: int = 7) -> int:
    """Write a regional index.csv of at least ``target_bytes``; returns its size."""
    rng = random.Random(seed)
    header = bulk_header()
    index = {name: i for i, name in enumerate(header)}
    base = [bulk_row("m5.large", 0.096)[name] for name in header]
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerows(sample_rows()[:PREAMBLE_LINES])
        writer.writerow(header)
        size = handle.tell()
        while size < target_bytes:
            gpu = rng.random() < 0.06
            instance_type = rng.choice(_GPU_TYPES if gpu else _CPU_TYPES)
            tenancy, usage = rng.choice(_TENANCIES)
            reserved = rng.random() < 0.55
            row = list(base)
            row[index["Instance Type"]] = instance_type
            row[index["Instance Family"]] = "GPU instance" if gpu else "General purpose"
            row[index["Operating System"]] = rng.choice(_OPERATING_SYSTEMS)
            row[index["Tenancy"]] = tenancy
            row[index["usageType"]] = f"USE1-{usage}:{instance_type}"
            row[index["CapacityStatus"]] = rng.choice(_CAPACITY)
            row[index["Pre Installed S/W"]] = rng.choice(_SOFTWARE)
            row[index["TermType"]] = "Reserved" if reserved else "OnDemand"
            row[index["LeaseContractLength"]] = rng.choice(["1yr", "3yr"]) if reserved else ""
            row[index["PricePerUnit"]] = f"{rng.uniform(0.01, 120):.10f}"
            row[index["SKU"]] = f"{rng.getrandbits(64):016X}"
            writer.writerow(row)
            if reserved:  # reserved terms come with an upfront-fee row
                row[index["Unit"]] = "Quantity"
                row[index["PriceDescription"]] = "Upfront Fee"
                writer.writerow(row)
            size = handle.tell()
    return size
