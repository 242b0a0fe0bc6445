"""The `breakeven` command: the same settings, data and answers as the REST API.

What it prints for a person passes through pricing/controls.py's escaping: offer text comes
from imports and live sources, and a terminal would act on an escape sequence in it. A store
that does not answer is one line, for every command, not a traceback.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import shutil
import sys
import threading
import types
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import click
from pydantic import BaseModel, ValidationError

from hardware import Workload
from pricing.adapters.custom import CUSTOM, merge, read_custom_file
from pricing.controls import escape_controls, escape_lines
from pricing.errors import AdapterError, ImportRejected, StoreError, StoreUnavailable
from pricing.measurement_store import add_measurements, export_file, read_file
from pricing.offer import Offer, named_date
from pricing.refresh import RunResult, refresh
from pricing.store import Store, utcnow
from service.catalog import describe as describe_error
from service.cli.text import (
    describe_gpus,
    describe_offers,
    describe_quote,
    describe_ranking,
    table,
)
from service.documents.breakeven import breakeven_document
from service.documents.errors import QuestionError, Unanswerable
from service.documents.gpus import gpu_document
from service.documents.offers import offers_document, to_csv
from service.documents.providers import describe_outcome, describe_result
from service.documents.queries import PAGE_MAX, BreakevenQuery, OffersQuery, RankQuery
from service.documents.rank import rank_document
from service.i18n import LANGUAGES, Translator, from_locale, translator
from service.jobs import scheduler as scheduling
from service.jobs.fx import refresh_rates
from service.jobs.locks import ProviderLock
from service.jobs.measure_card import CannotMeasure, measure_card
from service.jobs.refresh import build_adapters, refresh_policy, scheduled_adapters
from service.runtime import Runtime, open_runtime
from service.settings import Settings


def _runtime(ctx: click.Context) -> Runtime:
    """The command's runtime; its database connections close with the command (a CLI run
    inside a longer process, a test's or a script's, left them open)."""
    settings: Settings = ctx.obj
    runtime = open_runtime(settings)
    ctx.call_on_close(runtime.store.dispose)
    return runtime


class _Commands(click.Group):
    """The command group, answering a store that fails under any command in one line."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except StoreError as error:  # down, refusing, or its schema gone
            raise click.ClickException(
                f"the price store is not answering ({escape_controls(describe_error(error))}); "
                "check BREAKEVEN_DATABASE_URL and that the database is up"
            ) from error


EXIT_CODES = (
    "Exit codes: 0 an answer; 1 a question with no answer (nothing to compare, a deadline "
    "no rental meets) or a store that does not answer; 2 a bad or missing option or value "
    "(an unknown card among them). Each error is one line on stderr."
)


class OptionError(click.ClickException):
    """A bad or missing option or value: exit 2, in one line (no usage block)."""

    exit_code = 2


def _question_failed(error: QuestionError, model: type[BaseModel]) -> click.ClickException:
    """A question the documents refused, in the CLI's words: a bad or missing option (an
    unknown name among them) exits 2, a question with no answer 1 (EXIT_CODES)."""
    detail = _cli_spelling(error.detail, model)
    if isinstance(error, Unanswerable):
        return click.ClickException(detail)
    return OptionError(detail)


def _cli_spelling(text: str, model: type[BaseModel]) -> str:
    """A detail written for REST ("leave gpus= out", "deadline_days=2") with the option
    names the CLI takes (--gpus, --deadline-days=2)."""
    names = "|".join(sorted(model.model_fields, key=len, reverse=True))

    def option(match: re.Match[str]) -> str:
        flag = "--" + match[1].replace("_", "-")
        return f"{flag}=" if match[2] else flag

    text = re.sub(rf"(?<![\w-])({names})=(?=([\w.+-])?)", option, text)
    return re.sub(rf"^({names}):", lambda m: "--" + m[1].replace("_", "-") + ":", text)


@click.group(
    cls=_Commands,
    help="Rent cloud GPUs/TPUs or buy your own cards? Settings come from BREAKEVEN_* variables.",
    epilog=EXIT_CODES,
)
@click.version_option(package_name="gpu-breakeven", prog_name="breakeven")
@click.option(
    "--lang",
    type=click.Choice(LANGUAGES),
    default=None,
    help="Language of the text: en or zh-CN [BREAKEVEN_LANG, else LC_ALL/LC_MESSAGES/LANG, "
    "else en].",
)
@click.pass_context
def cli(ctx: click.Context, lang: str | None) -> None:
    try:
        settings = Settings()
    except ValidationError as exc:
        raise click.UsageError(f"bad BREAKEVEN_* setting: {exc}") from exc
    chosen = lang or settings.lang or from_locale(os.environ)
    ctx.obj = settings.model_copy(update={"lang": chosen}) if chosen else settings


def _reader(ctx: click.Context) -> Translator:
    """The text's language: --lang, else BREAKEVEN_LANG, else the terminal's locale."""
    settings: Settings = ctx.obj
    return translator(settings.lang)


def _width(wide: bool) -> int | None:
    """The columns text is fitted to: the terminal's (COLUMNS, else 80 off a terminal);
    none with --wide."""
    return None if wide else shutil.get_terminal_size((80, 24)).columns


WIDE = click.option(
    "--wide",
    is_flag=True,
    help="Lines as long as they come (default: fit the terminal, 80 columns off one).",
)


@cli.command(help="Start the REST service (gunicorn).")
@click.option("--host", default=None, help="Bind address [BREAKEVEN_HOST, 127.0.0.1].")
@click.option("--port", type=int, default=None, help="Port [BREAKEVEN_PORT, 8000].")
@click.option("--workers", type=int, default=None, help="Workers [BREAKEVEN_WEB_WORKERS].")
@click.pass_context
def serve(ctx: click.Context, host: str | None, port: int | None, workers: int | None) -> None:
    """The server runs in a fresh interpreter (same process id: signals reach it) that
    patches the standard library for gevent before anything else: service/serve.py."""
    overrides = {"host": host, "port": port, "web_workers": workers}
    given = {name: value for name, value in overrides.items() if value is not None}
    settings = ctx.obj.model_copy(update=given)
    environment = {**os.environ, **{f"BREAKEVEN_{k.upper()}": str(v) for k, v in given.items()}}
    click.echo(f"gpu-breakeven on http://{settings.host}:{settings.port}", err=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", "service.serve"], environment)


def _options_from(
    model: type[BaseModel], skip: tuple[str, ...] = ()
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """One --option per field of a query model, so the CLI and REST never drift apart."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        for name, field in reversed(model.model_fields.items()):
            if name in skip:
                continue
            flag = "--" + name.replace("_", "-")
            kind = _click_type(field.annotation)
            command = click.option(flag, name, type=kind, default=None, help=field.description)(
                command
            )
        return command

    return decorate


def _click_type(annotation: Any) -> click.ParamType:
    """An option's type from its query field's: the choices of a Literal or an enum, a
    number for a number, text otherwise; pydantic checks every bound after."""
    bare = _bare(annotation)
    if get_origin(bare) is Literal:
        return click.Choice([str(value) for value in get_args(bare)])
    if isinstance(bare, type) and issubclass(bare, Enum):
        return click.Choice([str(member.value) for member in bare])
    if bare is int:
        return click.INT
    if bare is float:
        return click.FLOAT
    return click.STRING


def _bare(annotation: Any) -> Any:
    """The type under Optional[...] and Annotated[...]."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _bare(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        kinds = [kind for kind in get_args(annotation) if kind is not type(None)]
        return _bare(kinds[0]) if len(kinds) == 1 else annotation
    return annotation


def _question(
    name: str,
    help_text: str,
    model: type[BaseModel],
    build: Callable[[Any, Runtime], dict[str, Any]],
    describe: Callable[[dict[str, Any], Translator, int | None], str],
) -> click.Command:
    """A command asking what a REST endpoint answers: the query's fields as options, the
    same document, printed as JSON (--json) or as text for a person."""

    @cli.command(name, help=help_text)
    @_options_from(model)
    @click.option("--json", "as_json", is_flag=True, help="Print the REST JSON answer.")
    @WIDE
    @click.pass_context
    def command(ctx: click.Context, as_json: bool, wide: bool, **params: Any) -> None:
        if params.pop("explain", None):  # quote --explain: every input's sensitivity
            params["sensitivity"] = params.get("sensitivity") or "all"
        if not as_json and "detail" in params:  # the text reads the whole answer
            params["detail"] = "full"
        try:
            query = model(**{k: v for k, v in params.items() if v is not None})
        except ValidationError as exc:
            raise OptionError(_validation_message(exc)) from exc
        try:
            document = build(query, _runtime(ctx))
        except QuestionError as error:
            raise _question_failed(error, model) from error
        if as_json:
            click.echo(json.dumps(document, indent=2))
        else:
            click.echo(escape_lines(describe(document, _reader(ctx), _width(wide))))

    return command


quote = click.option(
    "--explain",
    is_flag=True,
    default=None,
    help="Say what would have to be true for the other verdict (--sensitivity all).",
)(
    _question(
        "quote",
        "Rent or buy: the /breakeven answer at the terminal.",
        BreakevenQuery,
        breakeven_document,
        describe_quote,
    )
)
rank = _question(
    "rank",
    "Which card? Cards and rentals ranked by training per dollar (/rank).",
    RankQuery,
    rank_document,
    describe_ranking,
)


@cli.command(help="Accelerators, their purchase prices and throughput.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table")
@WIDE
@click.pass_context
def gpus(ctx: click.Context, fmt: str, wide: bool) -> None:
    hardware = _runtime(ctx).hardware
    docs = [gpu_document(hardware, acc) for acc in hardware.registry]
    if fmt == "json":
        click.echo(json.dumps(docs, indent=2))
        return
    click.echo(describe_gpus(docs, _reader(ctx), _width(wide)))


@cli.command(help="Current rental offers, with /offers' filters and order; all unless --limit.")
@_options_from(OffersQuery, skip=("format", "limit", "offset"))
@click.option("--limit", type=click.IntRange(1), default=None, help="Print this many.")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table")
@WIDE
@click.pass_context
def prices(ctx: click.Context, limit: int | None, fmt: str, wide: bool, **params: Any) -> None:
    given = {k: v for k, v in params.items() if v is not None}
    runtime = _runtime(ctx)
    docs: list[dict[str, Any]] = []
    while True:  # /offers' pages, one after another: every offer asked for, not the first page
        want = PAGE_MAX if limit is None else min(PAGE_MAX, limit - len(docs))
        try:
            query = OffersQuery(**given, limit=want, offset=len(docs))
        except ValidationError as exc:
            raise OptionError(_validation_message(exc)) from exc
        try:
            document = offers_document(query, runtime)
        except QuestionError as error:
            raise _question_failed(error, OffersQuery) from error
        docs += document["offers"]
        ended = not document["offers"] or len(docs) >= document["total"]
        if ended or (limit is not None and len(docs) >= limit):
            break
    if fmt == "json":  # JSON writes every control as \uXXXX already
        click.echo(json.dumps(docs, indent=2))
    elif fmt == "csv":
        click.echo(to_csv([_printable(doc) for doc in docs]), nl=False)
    else:
        click.echo(describe_offers(docs, _reader(ctx), _width(wide)))
        if len(docs) < document["total"]:
            click.echo(f"(the first {len(docs):,} of {document['total']:,}; --limit chose them)")


def _printable(doc: dict[str, Any]) -> dict[str, Any]:
    """An offer's fields with their text escaped: a CSV read at a terminal is shown too."""
    return {k: escape_controls(v) if isinstance(v, str) else v for k, v in doc.items()}


@cli.command(help="Fetch prices now from the price sources.")
@click.option("--provider", "names", multiple=True, help="Only this source (repeatable).")
@click.option("--force", is_flag=True, help="Accept a run that drops many offers at once.")
@WIDE
@click.pass_context
def refresh_command(ctx: click.Context, names: Sequence[str], force: bool, wide: bool) -> None:
    runtime = _runtime(ctx)
    adapters = build_adapters(runtime)
    unknown = sorted(set(names) - set(adapters))
    if unknown:
        raise click.UsageError(
            f"unknown provider {', '.join(unknown)}; known: {', '.join(adapters)}"
        )
    # Without --provider: the scheduled sources (BREAKEVEN_REFRESH_PROVIDERS).
    chosen = [adapters[n] for n in names] if names else scheduled_adapters(runtime)

    width = _width(wide)

    def report(result: RunResult) -> None:
        bar.update(1)
        click.echo(escape_lines(_one_line(describe_result(result), width)), err=True)

    # One line per source, written here: the refresh's own warning of a failure (for the
    # scheduler's log) would print it a second time through logging's last resort.
    quiet = logging.NullHandler()
    logging.getLogger("pricing").addHandler(quiet)
    results: list[RunResult] = []
    try:
        with click.progressbar(length=len(chosen), label="refreshing", file=sys.stderr) as bar:
            policy = refresh_policy(runtime.settings)
            for adapter in chosen:  # each under its provider's lock, whoever else refreshes
                lock = ProviderLock(runtime.settings, runtime.store, adapter.name)
                if not lock.try_acquire():
                    busy = RunResult(adapter.name, "skipped", error=ALREADY_REFRESHING)
                    report(busy)
                    results.append(busy)
                    continue
                try:
                    results += refresh(runtime.store, [adapter], policy, report, force)
                finally:
                    lock.release()
    finally:
        logging.getLogger("pricing").removeHandler(quiet)
    click.echo(describe_outcome(results), err=True)
    if any(r.status == "failed" for r in results):
        ctx.exit(1)


# Why a source was not refreshed: another refresh of it holds its lock (the scheduler, POST
# /refresh or another `breakeven refresh`); two at once could make the older prices current.
ALREADY_REFRESHING = "already refreshing elsewhere (the scheduler, POST /refresh or another CLI)"


def _one_line(text: str, width: int | None) -> str:
    """``text`` cut to the terminal's width, an ellipsis where it was cut (--wide: whole)."""
    if width is None or len(text) <= width:
        return text
    return text[: max(width - 1, 1)] + "\N{HORIZONTAL ELLIPSIS}"


refresh_command.name = "refresh"


@cli.command("fx-refresh", help="Fetch the ECB's exchange rates now (BREAKEVEN_ECB_RATES_URL).")
@click.pass_context
def fx_refresh_command(ctx: click.Context) -> None:
    runtime = _runtime(ctx)
    try:
        fetched = refresh_rates(runtime)
    except (AdapterError, StoreError) as exc:
        click.echo(escape_lines(f"exchange rates: {exc}; the rates stored before stay"), err=True)
        ctx.exit(1)
    for note in fetched.held:
        click.echo(escape_lines(f"exchange rates: {note}"), err=True)
    newest = runtime.fx.current().latest_day
    click.echo(f"exchange rates: {fetched.written} stored; newest {newest}", err=True)


@cli.group(help="Offers you bring: negotiated rates, quotes.")
def offers() -> None:
    pass


@offers.command("import", help="Import offers from a CSV file (all rows or none).")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="Drop earlier custom offers instead of merging.")
@click.pass_context
def import_offers(ctx: click.Context, file: Path, replace: bool) -> None:
    runtime = _runtime(ctx)
    started = utcnow()
    try:
        today = datetime.now(UTC).date()
        imported = read_custom_file(file, runtime.resolve_accelerator, today, runtime.fx.rate)
        imported = _doubt_old_conversions(imported, runtime.settings.fx_stale_after_days)
    except ImportRejected as exc:
        click.echo(f"{file}: {len(exc.errors)} bad row(s), nothing imported:", err=True)
        for error in exc.errors:
            click.echo(f"  {escape_controls(str(error))}", err=True)
        ctx.exit(1)

    def next_run(current: list[Offer]) -> tuple[Sequence[Offer], str]:
        batch = merge(current, imported, replace)
        return batch.offers, batch.source_version

    # Read, merge and write under one per-database lock: a concurrent import is not lost.
    try:
        run = runtime.store.record_merged_run(CUSTOM, next_run, started)
    except StoreUnavailable as exc:  # the lock or the database past its timeout
        raise click.ClickException(
            f"nothing imported: the database did not answer in time, or another import "
            f"still holds its lock; try again ({type(exc.orig).__name__})"
        ) from exc
    click.echo(f"imported {len(imported)} offers; custom now has {run.row_count} (run {run.id})")
    for line in _conversions(imported, today, runtime.settings.fx_stale_after_days):
        click.echo(line, err=True)


def _doubt_old_conversions(imported: Sequence[Offer], stale_after_days: float) -> list[Offer]:
    """A price converted at a rate older than its own day by more than
    BREAKEVEN_FX_STALE_AFTER_DAYS is kept, of low confidence and saying why: every answer
    that shows it shows that (issue 58, N5), and a headline resting on it names the cheapest
    dated alternative (a warning at import alone is gone with the terminal)."""
    marked = []
    for offer in imported:
        lag = _rate_lag_days(offer)
        if lag is not None and lag > stale_after_days:
            said = (
                f"converted from {offer.currency} at the rate of {offer.fx_day}, {lag} days "
                f"before the price's day (BREAKEVEN_FX_STALE_AFTER_DAYS {stale_after_days:g})"
            )
            notes = f"{offer.notes}; {said}" if offer.notes else said
            offer = dataclasses.replace(offer, confidence="low", notes=notes)
        marked.append(offer)
    return marked


def _rate_lag_days(offer: Offer) -> int | None:
    """Days between the rate a price was converted at and the price's own day (a month's
    last for YYYY-MM); None where nothing was converted."""
    if not offer.currency or offer.currency == "USD" or not offer.fx_day:
        return None
    price_day = named_date(offer.price_as_of)  # a month's end, as its rate was looked up
    if price_day is None:
        return None
    return (price_day - date.fromisoformat(offer.fx_day)).days


def _conversions(imported: Sequence[Offer], today: Any, stale_after_days: float) -> list[str]:
    """What each currency an import converted was converted at: the rate's day and age, and
    a warning where the rate is older than BREAKEVEN_FX_STALE_AFTER_DAYS (issue 58, N5: a
    price dated today was converted at a 236-day-old rate without a word)."""
    used: dict[tuple[str, str], int] = {}
    for offer in imported:
        if offer.currency and offer.currency != "USD" and offer.fx_day:
            key = (offer.currency, offer.fx_day)
            used[key] = used.get(key, 0) + 1
    lines = []
    for (currency, day), rows in sorted(used.items()):
        age = (today - datetime.fromisoformat(day).date()).days
        line = f"{rows} {currency} price(s) converted at the rate of {day} ({age} days old)"
        if age > stale_after_days:
            line = (
                f"WARNING: {line}, past BREAKEVEN_FX_STALE_AFTER_DAYS ({stale_after_days:g}): "
                "run `breakeven fx-refresh` and import again for today's rate"
            )
        lines.append(line)
    return lines


@cli.command(help="Refresh the scheduled sources on BREAKEVEN_REFRESH_CRON (one per database).")
@click.pass_context
def scheduler(ctx: click.Context) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    scheduling.run(_runtime(ctx))
    # a refresh still stuck in its thread past the stop's grace must not keep the process
    # alive (a supervisor restarts only a process that ends)
    if any(not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        logging.shutdown()
        os._exit(0)


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
    runtime = _runtime(ctx)
    try:
        workloads = [Workload(c.strip()) for c in classes.split(",") if c.strip()]
    except ValueError as exc:
        raise click.UsageError(f"--classes: {exc}") from exc
    try:
        report = measure_card(runtime, workloads, seconds, device, size, card, calibrate)
    except CannotMeasure as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(report)


@cli.group(help="Share throughput measurements between teams.")
def measurements() -> None:
    pass


@measurements.command("export", help="Write the newest measurement per card and class to FILE.")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.pass_context
def measurements_export(ctx: click.Context, file: Path) -> None:
    count = export_file(_runtime(ctx).store, file)
    click.echo(f"exported {count} measurements to {file}")


@measurements.command("import", help="Add the measurements of an exported FILE (all or none).")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.pass_context
def measurements_import(ctx: click.Context, file: Path) -> None:
    runtime = _runtime(ctx)
    try:
        batch = read_file(file, lambda acc: acc in runtime.hardware.registry)
    except ValueError as exc:
        raise click.ClickException(f"nothing imported: {exc}") from exc
    add_measurements(runtime.store, batch)
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
    click.echo(f"schema at revision {store.schema_revision()}")
    store.dispose()


@cli.command(help="List every BREAKEVEN_* setting with its default and meaning.")
def settings() -> None:
    from service.docs import settings_rows  # the README's settings table, row for row

    rows = [[row.name, row.default, row.meaning] for row in settings_rows()]
    click.echo(table(["variable", "default", "meaning"], rows))


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        name = ".".join(str(p) for p in error["loc"]) or "input"
        parts.append(f"--{name.replace('_', '-')}: {error['msg']}")
    return "; ".join(parts)


def main() -> None:
    cli(prog_name="breakeven")
