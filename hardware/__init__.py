"""What a local card costs and does: the accelerator registry, buyable cards, throughput.

Imports flow one way: ``hardware`` <- ``pricing`` <- ``service``; this package imports neither.
"""

from hardware.cards import BASES, Card, CardPrice, ResaleCurve
from hardware.hosts import Host, HostChoice
from hardware.load import Hardware, load_hardware
from hardware.registry import PLATFORMS, Accelerator, Registry, UnknownAccelerator
from hardware.throughput import Scaling, Throughput, Workload

__all__ = [
    "BASES",
    "PLATFORMS",
    "Accelerator",
    "Card",
    "CardPrice",
    "Hardware",
    "Host",
    "HostChoice",
    "Registry",
    "ResaleCurve",
    "Scaling",
    "Throughput",
    "UnknownAccelerator",
    "Workload",
    "load_hardware",
]
