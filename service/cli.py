"""The `breakeven` command: the same settings, data and answers as the REST API."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError

from hardware import Workload
from pricing import schema
from pricing.adapters.custom import CUSTOM, merge, read_custom_file
from pricing.errors import ImportRejected
from pricing.measurements import add_measurements, export_file, read_file
from pricing.refresh import RunResult, refresh
from pricing.store import Store, utcnow
from service import measuring
from service import scheduler as scheduling
from service.answers import breakeven_document, gpu_document, offer_document
from service.api.offers import to_csv
from service.api.rank import RankQuery, rank_document
from service.problems import Problem
from service.schemas import BreakevenQuery
from service.services import Services, open_services
from service.settings import Settings, settings_table
from service.sources import build_adapters, refresh_policy, scheduled_adapters


def _services(ctx: click.Context) -> Services:
    settings: Settings = ctx.obj
    return open_services(settings)


@click.group(
    help="Rent cloud GPUs/TPUs or buy your own cards? Settings come from BREAKEVEN_* variables."
)
@click.pass_context
def cli(ctx: click.Context) -> None:
    try:
        ctx.obj = Settings()
    except ValidationError as exc:
        raise click.UsageError(f"bad BREAKEVEN_* setting: {exc}") from exc


@cli.command(help="Start the REST service (gunicorn).")
@click.option("--host", default=None, help="Bind address [BREAKEVEN_HOST, 127.0.0.1].")
@click.option("--port", type=int, default=None, help="Port [BREAKEVEN_PORT, 8000].")
@click.option("--workers", type=int, default=None, help="Workers [BREAKEVEN_WEB_WORKERS].")
@click.pass_context
def serve(ctx: click.Context, host: str | None, port: int | None, workers: int | None) -> None:
    from service.server import serve as run_server

    overrides = {"host": host, "port": port, "web_workers": workers}
    settings = ctx.obj.model_copy(update={k: v for k, v in overrides.items() if v is not None})
    click.echo(f"gpu-breakeven on http://{settings.host}:{settings.port}", err=True)
    run_server(settings)


def _quote_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """One --option per /breakeven parameter, generated so the two never drift apart."""
    for name, field in reversed(BreakevenQuery.model_fields.items()):
        flag = "--" + name.replace("_", "-")
        command = click.option(flag, name, default=None, help=field.description)(command)
    return command


@cli.command(help="Rent or buy: the /breakeven answer at the terminal.")
@_quote_options
@click.option("--json", "as_json", is_flag=True, help="Print the REST JSON answer.")
@click.pass_context
def quote(ctx: click.Context, as_json: bool, **params: str | None) -> None:
    try:
        query = BreakevenQuery(**{k: v for k, v in params.items() if v is not None})
    except ValidationError as exc:
        raise click.UsageError(_validation_message(exc)) from exc
    document = _answer(lambda: breakeven_document(query, _services(ctx)))
    if as_json:
        click.echo(json.dumps(document, indent=2))
        return
    click.echo(_describe_quote(document))


def _rank_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """One --option per /rank parameter."""
    for name, field in reversed(RankQuery.model_fields.items()):
        flag = "--" + name.replace("_", "-")
        command = click.option(flag, name, default=None, help=field.description)(command)
    return command


@cli.command(help="Which card? Cards and rentals ranked by training per dollar (/rank).")
@_rank_options
@click.option("--json", "as_json", is_flag=True, help="Print the REST JSON answer.")
@click.pass_context
def rank(ctx: click.Context, as_json: bool, **params: str | None) -> None:
    try:
        query = RankQuery(**{k: v for k, v in params.items() if v is not None})
    except ValidationError as exc:
        raise click.UsageError(_validation_message(exc)) from exc
    d = _answer(lambda: rank_document(query, _services(ctx)))
    if as_json:
        click.echo(json.dumps(d, indent=2))
        return
    by_hours = d["ranked_by"] == "reference_hours_per_usd"
    metric = f"{d['gpu']} h per USD" if by_hours else "per $1,000"
    rows = [
        [
            c["id"],
            f"{c['memory_gb']:g}",
            f"{c['purchase_usd']:,.0f}",
            f"{c['throughput']['relative']:.2f}",
            f"{(c['reference_hours_per_usd'] if by_hours else c['throughput_per_1000_usd']):.3f}",
            ("" if c["within_budget"] else "over budget") + ("" if c["fits"] else "too small"),
        ]
        for c in [*d["cards"], *d["too_small"]]
    ]
    click.echo(_table(["card", "GB", "USD", d["workload"], metric, "note"], rows))
    click.echo("")
    rent = [
        [r["provider"], r["product"], r["pricing"], f"{r['usd_per_reference_hour']:.4f}"]
        for r in d["rent"]
    ]
    click.echo(_table(["provider", "product", "pricing", f"USD per {d['gpu']} h"], rent))


@cli.command(help="Accelerators, their purchase prices and throughput.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table")
@click.pass_context
def gpus(ctx: click.Context, fmt: str) -> None:
    hardware = _services(ctx).hardware
    docs = [gpu_document(hardware, acc) for acc in hardware.registry]
    if fmt == "json":
        click.echo(json.dumps(docs, indent=2))
        return
    rows = [
        [
            d["id"],
            f"{d['memory_gb']:g}",
            f"{d['buy']['purchase_usd']:,.0f}" if d["buy"] else "-",
            *(f"{d['throughput'][k]['relative']:.2f}" for k in ("cnn", "transformer", "rnn")),
            "estimated" if d["throughput"]["transformer"]["method"] == "estimated" else "measured",
        ]
        for d in docs
    ]
    header = ["gpu", "GB", "buy USD", "cnn", "transformer", "rnn", "throughput"]
    click.echo(_table(header, rows))


@cli.command(help="Current rental offers.")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table")
@click.pass_context
def prices(ctx: click.Context, fmt: str) -> None:
    docs = [offer_document(s) for s in _services(ctx).catalog.table().rows]
    if fmt == "json":
        click.echo(json.dumps(docs, indent=2))
    elif fmt == "csv":
        click.echo(to_csv(docs), nl=False)
    else:
        rows = [
            [
                d["provider"],
                d["product"],
                d["region"],
                d["accelerator"],
                str(d["count"]),
                d["pricing"],
                f"{d['usd_per_hour']:.4f}",
                d["price_as_of"],
            ]
            for d in docs
        ]
        header = ["provider", "product", "region", "gpu", "n", "pricing", "USD/h", "as of"]
        click.echo(_table(header, rows))


@cli.command(help="Fetch prices now from the price sources.")
@click.option("--provider", "names", multiple=True, help="Only this source (repeatable).")
@click.option("--force", is_flag=True, help="Accept a run that drops many offers at once.")
@click.pass_context
def refresh_command(ctx: click.Context, names: Sequence[str], force: bool) -> None:
    services = _services(ctx)
    adapters = build_adapters(services)
    unknown = sorted(set(names) - set(adapters))
    if unknown:
        raise click.UsageError(
            f"unknown provider {', '.join(unknown)}; known: {', '.join(adapters)}"
        )
    # Without --provider: the scheduled sources (BREAKEVEN_REFRESH_PROVIDERS).
    chosen = [adapters[n] for n in names] if names else scheduled_adapters(services)

    def report(result: RunResult) -> None:
        line = f"{result.adapter}: {result.status}, {result.row_count} offers"
        if result.dropped:
            line += f", {result.dropped} impossible prices dropped"
        if result.suspect:
            line += f", {result.suspect} flagged suspect"
        if result.error:
            line += f" ({result.error})"
        click.echo(f"{line} in {result.seconds:.1f}s", err=True)

    with click.progressbar(length=len(chosen), label="refreshing", file=sys.stderr) as bar:
        results = refresh(
            services.store,
            chosen,
            refresh_policy(services.settings),
            on_result=lambda r: (bar.update(1), report(r)),
            force=force,
        )
    if any(r.status == "failed" for r in results):
        ctx.exit(1)


refresh_command.name = "refresh"


@cli.group(help="Offers you bring: negotiated rates, quotes.")
def offers() -> None:
    pass


@offers.command("import", help="Import offers from a CSV file (all rows or none).")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="Drop earlier custom offers instead of merging.")
@click.pass_context
def import_offers(ctx: click.Context, file: Path, replace: bool) -> None:
    services = _services(ctx)
    started = utcnow()
    try:
        imported = read_custom_file(file, services.resolve_accelerator, datetime.now(UTC).date())
    except ImportRejected as exc:
        click.echo(f"{file}: {len(exc.errors)} bad row(s), nothing imported:", err=True)
        for error in exc.errors:
            click.echo(f"  {error}", err=True)
        ctx.exit(1)
    current = [s.offer for s in services.store.current_offers(CUSTOM)]
    batch = merge(current, imported, replace)
    run = services.store.record_run(CUSTOM, batch.offers, started, batch.source_version)
    click.echo(f"imported {len(imported)} offers; custom now has {run.row_count} (run {run.id})")


@cli.command(help="Refresh the scheduled sources on BREAKEVEN_REFRESH_CRON (one per database).")
@click.pass_context
def scheduler(ctx: click.Context) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    scheduling.run(_services(ctx))


@cli.command(help="Measure this machine's card on the standard training loops (PyTorch).")
@click.option("--classes", default="cnn,transformer,rnn", help="Workload classes to run.")
@click.option("--seconds", type=float, default=30.0, help="Timed seconds per class.")
@click.option(
    "--device", type=click.Choice(["cuda", "cpu"]), default=None, help="Default: cuda if present."
)
@click.option(
    "--size",
    type=click.Choice(["standard", "tiny"]),
    default=None,
    help="Model size; default standard on cuda, tiny on cpu.",
)
@click.option("--card", default=None, help="Registry id to file it under (default: detected).")
@click.option(
    "--calibrate", is_flag=True, help="Record a calibration from this card's published figure."
)
@click.pass_context
def measure(
    ctx: click.Context,
    classes: str,
    seconds: float,
    device: str | None,
    size: str | None,
    card: str | None,
    calibrate: bool,
) -> None:
    services = _services(ctx)
    try:
        workloads = [Workload(c.strip()) for c in classes.split(",") if c.strip()]
    except ValueError as exc:
        raise click.UsageError(f"--classes: {exc}") from exc
    try:
        report = measuring.measure_card(services, workloads, seconds, device, size, card, calibrate)
    except measuring.CannotMeasure as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(report)


@cli.group(help="Share throughput measurements between teams.")
def measurements() -> None:
    pass


@measurements.command("export", help="Write the newest measurement per card and class to FILE.")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.pass_context
def measurements_export(ctx: click.Context, file: Path) -> None:
    count = export_file(_services(ctx).store, file)
    click.echo(f"exported {count} measurements to {file}")


@measurements.command("import", help="Add the measurements of an exported FILE (all or none).")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.pass_context
def measurements_import(ctx: click.Context, file: Path) -> None:
    services = _services(ctx)
    try:
        batch = read_file(file, lambda acc: acc in services.hardware.registry)
    except ValueError as exc:
        raise click.ClickException(f"nothing imported: {exc}") from exc
    add_measurements(services.store, batch)
    click.echo(f"imported {len(batch)} measurements from {file}")


@cli.group(help="The price store's schema.")
def db() -> None:
    pass


@db.command("upgrade", help="Migrate the database to the current schema (Alembic).")
@click.pass_context
def db_upgrade(ctx: click.Context) -> None:
    settings: Settings = ctx.obj
    store = Store(settings.resolved_database_url())
    store.create_schema()
    click.echo(f"schema at revision {schema.current_revision(store.engine)}")
    store.dispose()


@cli.command(help="List every BREAKEVEN_* setting with its default and meaning.")
def settings() -> None:
    click.echo(_table(["variable", "default", "meaning"], [list(r) for r in settings_table()]))


def _answer(build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return build()
    except Problem as problem:
        extra = problem.extra_data or {}
        hint = ""
        if extra.get("suggestions"):
            hint = f"\ndid you mean: {', '.join(extra['suggestions'])}"
        raise click.ClickException(f"{problem.message}{hint}") from problem


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        name = ".".join(str(p) for p in error["loc"]) or "input"
        parts.append(f"--{name.replace('_', '-')}: {error['msg']}")
    return "; ".join(parts)


def _describe_quote(d: dict[str, Any]) -> str:
    buy, a = d["buy"], d["assumptions"]
    lines = [
        f"{d['hours']:g} h of {d['workload']} training on {buy['gpus']} x {d['gpu']}",
        "",
        f"BUY   {buy['total_usd']:>12,.2f} USD  = cards {buy['purchase_usd']:,.2f}"
        f" + host {buy['host_usd']:,.2f} + energy {buy['energy_usd']:,.2f}"
        f" - resale {buy['resale_usd']:,.2f}  ({buy['hours']:,.1f} busy h)",
    ]
    header = ["provider", "product", "region", "pricing", "USD/h", "hours", "total USD", "b/e h"]
    rows = [
        [
            r["provider"],
            r["product"],
            r["region"],
            r["pricing"],
            f"{r['usd_per_hour']:.4f}",
            f"{r['hours']:,.1f}",
            f"{r['total_usd']:,.2f}",
            "never" if r["breakeven_hours"] is None else f"{r['breakeven_hours']:,.0f}",
        ]
        for r in d["rent"]
    ]
    lines += ["", "RENT (cheapest first)", _table(header, rows), ""]
    verdict = d["verdict"].upper()
    lines.append(f"VERDICT: {verdict}, saving {d['savings_usd']:,.2f} USD")
    if d["breakeven"]:
        be = d["breakeven"]
        lines.append(
            f"Buying pays off after {be['hours']:,.0f} h of work"
            f" (~{be['days']:,.0f} days at {a['utilization']:.0%} utilization)."
        )
    else:
        lines.append("Buying never pays off: the cheapest rental costs less than the power.")
    stale = " (STALE)" if d["prices"]["stale"] else ""
    lines.append(f"Cheapest rental priced as of {d['prices']['as_of']}{stale}.")
    lines.append("Assumptions: " + ", ".join(f"{k}={v}" for k, v in a.items()))
    return "\n".join(lines)


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=False)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join(fmt.format(*row) for row in [header, *rows])


def main() -> None:
    cli(prog_name="breakeven")
