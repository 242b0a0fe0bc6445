"""What a local card costs and does: the accelerator registry, buyable cards, throughput.

Imports flow one way: ``hardware`` <- ``pricing`` <- ``service``; this package imports neither.
"""

from hardware.cards import Card
from hardware.load import Hardware, load_hardware
from hardware.registry import PLATFORMS, Accelerator, Registry, UnknownAccelerator
from hardware.throughput import Scaling, Throughput, Workload

__all__ = [
    "PLATFORMS",
    "Accelerator",
    "Card",
    "Hardware",
    "Registry",
    "Scaling",
    "Throughput",
    "UnknownAccelerator",
    "Workload",
    "load_hardware",
]
