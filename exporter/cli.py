"""The ``ccexport`` command. Parses options, calls the library, prints; nothing more.

Exit codes: 0 all good; 1 some sessions could not be exported (the rest were, each failure
is named); 2 bad usage or configuration.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import orjson
import typer

from .errors import ConfigError, ExporterError

app = typer.Typer(
    name="ccexport",
    help="Export AI coding-assistant sessions into an Obsidian vault.\n\n"
    "Start with:  ccexport --vault ~/Notes --dry-run",
    invoke_without_command=True,
    no_args_is_help=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

VaultOpt = Annotated[Path | None, typer.Option("--vault", help="The vault folder to write into.")]
HomeOpt = Annotated[
    Path | None, typer.Option("--home", help="Look for sources under this folder instead of ~.")
]
SourceOpt = Annotated[
    list[str] | None, typer.Option("--source", help="Only this source (repeatable).")
]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Say what would be written; write nothing.")
]
DiffOpt = Annotated[
    bool, typer.Option("--diff", help="With --dry-run: show a diff of each change.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="End stdout with one JSON summary object.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors (for cron).")]
TzOpt = Annotated[
    str | None, typer.Option("--timezone", help="Time zone for note times (default: local).")
]


@app.callback()
def main_callback(
    ctx: typer.Context,
    vault: VaultOpt = None,
    home: HomeOpt = None,
    source: SourceOpt = None,
    dry_run: DryRunOpt = False,
    diff: DiffOpt = False,
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
    timezone: TzOpt = None,
) -> None:
    """Export every session found (the same as `ccexport export`)."""
    if ctx.invoked_subcommand is None:
        _export(vault, home, source, dry_run, diff, json_out, quiet, timezone)


@app.command("export")
def export_cmd(
    vault: VaultOpt = None,
    home: HomeOpt = None,
    source: SourceOpt = None,
    dry_run: DryRunOpt = False,
    diff: DiffOpt = False,
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
    timezone: TzOpt = None,
) -> None:
    """Export every session found into the vault."""
    _export(vault, home, source, dry_run, diff, json_out, quiet, timezone)


@app.command("sources")
def sources_cmd(
    home: HomeOpt = None,
    source: SourceOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """List what was found where: source, folder, sessions, size."""
    from .sources import list_sources

    try:
        rows = list_sources(home, source)
    except ConfigError as exc:
        _fail(str(exc), 2)
    if json_out:
        typer.echo(orjson.dumps([r.as_dict() for r in rows]).decode())
        return
    typer.echo(f"{'source':<12} {'sessions':>8} {'size':>10}  folder")
    for row in rows:
        where = str(row.path) if row.exists else f"{row.path} (not found)"
        typer.echo(f"{row.source:<12} {row.sessions:>8} {_size(row.size):>10}  {where}")


def _export(
    vault: Path | None,
    home: Path | None,
    sources: list[str] | None,
    dry_run: bool,
    diff: bool,
    json_out: bool,
    quiet: bool,
    timezone: str | None,
) -> None:
    from .export import ExportOptions, run_export
    from .report import print_report

    if vault is None:
        _fail("no vault given: use --vault DIR (or run `ccexport --help`)", 2)
    try:
        options = ExportOptions(
            vault=vault,
            home=home,
            sources=sources,
            dry_run=dry_run,
            diff=diff,
            timezone=_zone(timezone),
        )
        with _progress(enabled=not quiet and not json_out) as progress:
            report = run_export(options, progress)
    except ConfigError as exc:
        _fail(str(exc), 2)
    except ExporterError as exc:
        _fail(str(exc), 1)
    print_report(report, quiet=quiet)
    if json_out:
        typer.echo(orjson.dumps(report.as_dict()).decode())
    raise typer.Exit(1 if report.failed else 0)


def _zone(name: str | None):  # type: ignore[no-untyped-def]
    if not name:
        return None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(f"unknown time zone {name!r}") from None


class _progress:
    """A progress bar on a terminal for long runs; nothing otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._bar = None
        self._task = None

    def __enter__(self):  # type: ignore[no-untyped-def]
        if not self.enabled:
            return None
        from rich.progress import Progress

        self._bar = Progress(transient=True)
        self._bar.start()
        self._task = self._bar.add_task("Exporting", total=None)

        def update(done: int, total: int) -> None:
            self._bar.update(self._task, completed=done, total=total)  # type: ignore[union-attr]

        return update

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def _fail(message: str, code: int) -> None:
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(code)


def main() -> None:
    app()
