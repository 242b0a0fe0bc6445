"""What every entry point needs, built once from the settings: hardware, store, catalog."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, current_app

from hardware import Hardware, load_hardware
from pricing.refresh import ensure_snapshot
from pricing.store import Store
from service.catalog import Catalog
from service.settings import Settings

EXTENSION = "breakeven"


@dataclass
class Services:
    settings: Settings
    hardware: Hardware
    store: Store
    catalog: Catalog

    def resolve_accelerator(self, name: str) -> str | None:
        return self.hardware.registry.canonical(name)


def open_services(settings: Settings) -> Services:
    """Load the data, create the schema if needed and the bundled prices on first start."""
    hardware = load_hardware()
    store = Store(settings.resolved_database_url())
    store.create_schema()
    services = Services(
        settings, hardware, store, Catalog(store, hardware, settings.catalog_check_seconds)
    )
    ensure_snapshot(store, services.resolve_accelerator)
    return services


def init_app(app: Flask, services: Services) -> None:
    app.extensions[EXTENSION] = services


def current_services() -> Services:
    return current_app.extensions[EXTENSION]
