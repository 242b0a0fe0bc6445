"""What a local card costs and does: the accelerator registry, buyable cards, throughput.

Imports flow one way: ``hardware`` <- ``pricing`` <- ``service``; this package imports neither.
"""

from hardware.cards import BASES, Card, CardPrice, ResaleCurve
from hardware.hosts import Host, HostChoice
from hardware.load import Hardware, load_hardware
from hardware.precision import PRECISIONS, SPEED_KEYS, Precision, SpeedKey, speed_key
from hardware.registry import PLATFORMS, Accelerator, Registry, UnknownAccelerator
from hardware.throughput import Scaling, Throughput, Workload

__all__ = [
    "BASES",
    "PLATFORMS",
    "PRECISIONS",
    "SPEED_KEYS",
    "Accelerator",
    "Card",
    "CardPrice",
    "Hardware",
    "Host",
    "HostChoice",
    "Precision",
    "Registry",
    "ResaleCurve",
    "Scaling",
    "SpeedKey",
    "Throughput",
    "UnknownAccelerator",
    "Workload",
    "load_hardware",
    "speed_key",
]
