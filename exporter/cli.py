"""The ``ccexport`` command. Parses options, calls the library, prints; nothing more.

Exit codes: 0 all good; 1 some sessions could not be exported (the rest were, each failure
is named); 2 bad usage or configuration.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

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
templates_app = typer.Typer(help="Copy the default templates somewhere you can edit them.")
config_app = typer.Typer(help="Show the effective configuration.")
schedule_app = typer.Typer(help="Run the export every night (cron, systemd, launchd, schtasks).")
app.add_typer(templates_app, name="templates")
app.add_typer(config_app, name="config")
app.add_typer(schedule_app, name="schedule")

VaultOpt = Annotated[Path | None, typer.Option("--vault", help="The vault folder to write into.")]
HomeOpt = Annotated[
    Path | None, typer.Option("--home", help="Look for sources under this folder instead of ~.")
]
SourceOpt = Annotated[
    list[str] | None, typer.Option("--source", help="Only this source (repeatable).")
]
SinceOpt = Annotated[
    str | None, typer.Option("--since", help="Only sessions active since: 2026-11-01 or 7d.")
]
ProjectOpt = Annotated[
    str | None, typer.Option("--project", help="Only projects whose name contains this text.")
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
TemplatesOpt = Annotated[
    Path | None, typer.Option("--templates", help="A folder of templates that override ours.")
]
JobsOpt = Annotated[
    int | None,
    typer.Option(
        "--jobs", "-j", min=1, help="Processes that render notes (default: one per core)."
    ),
]
LogOpt = Annotated[
    Path | None, typer.Option("--log-file", hidden=True, help="Append a line per run (schedule).")
]


@app.callback()
def main_callback(
    ctx: typer.Context,
    vault: VaultOpt = None,
    home: HomeOpt = None,
    source: SourceOpt = None,
    since: SinceOpt = None,
    project: ProjectOpt = None,
    dry_run: DryRunOpt = False,
    diff: DiffOpt = False,
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
    timezone: TzOpt = None,
    templates: TemplatesOpt = None,
    jobs: JobsOpt = None,
    log_file: LogOpt = None,
) -> None:
    """Export every session found (the same as `ccexport export`)."""
    if ctx.invoked_subcommand is None:
        _export(locals())


@app.command("export")
def export_cmd(
    vault: VaultOpt = None,
    home: HomeOpt = None,
    source: SourceOpt = None,
    since: SinceOpt = None,
    project: ProjectOpt = None,
    dry_run: DryRunOpt = False,
    diff: DiffOpt = False,
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
    timezone: TzOpt = None,
    templates: TemplatesOpt = None,
    jobs: JobsOpt = None,
    log_file: LogOpt = None,
) -> None:
    """Export every session found into the vault."""
    _export(locals())


@app.command("sources")
def sources_cmd(home: HomeOpt = None, source: SourceOpt = None, json_out: JsonOpt = False) -> None:
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


@templates_app.command("init")
def templates_init_cmd(
    vault: VaultOpt = None,
    to: Annotated[Path | None, typer.Option("--to", help="Copy here instead.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite files already there.")] = False,
) -> None:
    """Copy the default templates into <vault>/.ccexport/templates (or --to DIR)."""
    from .render import init_templates

    if to is None:
        settings = _settings({"vault": vault})
        if settings.vault is None:
            _fail("no vault given: use --vault DIR or --to DIR", 2)
        to = settings.vault / ".ccexport" / "templates"
    copied, kept = init_templates(to, force=force)
    for name in copied:
        typer.echo(f"copied {to / name}")
    for name in kept:
        typer.echo(f"kept {to / name} (already there; --force overwrites it)")
    typer.echo("Edit them; the next export uses them for every note.")


@config_app.command("show")
def config_show_cmd(vault: VaultOpt = None) -> None:
    """Print each setting, its value, and where it came from."""
    settings = _settings({"vault": vault})
    for key, value, origin in settings.shown():
        typer.echo(f"{key:<17} {value or '-':<40} from {origin}")


@schedule_app.command("install")
def schedule_install_cmd(
    vault: VaultOpt = None,
    at: Annotated[str, typer.Option("--at", help="Time of day, HH:MM (local).")] = "02:30",
) -> None:
    """Install (or update) the nightly export."""
    from .schedule import install, scheduler

    settings = _settings({"vault": vault})
    if settings.vault is None:
        _fail("no vault given: use --vault DIR (or CCEXPORT_VAULT)", 2)
    try:
        done = install(scheduler(), settings.vault.expanduser().resolve(), at)
    except (ConfigError, ExporterError) as exc:
        _fail(str(exc), 2 if isinstance(exc, ConfigError) else 1)
    typer.echo(done)


@schedule_app.command("status")
def schedule_status_cmd(vault: VaultOpt = None) -> None:
    """Say what is installed and how the last run went."""
    from .schedule import scheduler, status

    settings = _settings({"vault": vault})
    typer.echo(
        status(scheduler(), settings.vault.expanduser().resolve() if settings.vault else None)
    )


@schedule_app.command("remove")
def schedule_remove_cmd() -> None:
    """Remove exactly what `schedule install` made."""
    from .schedule import remove, scheduler

    try:
        typer.echo(remove(scheduler()))
    except ExporterError as exc:
        _fail(str(exc), 1)


def _settings(cli: dict[str, Any]) -> Any:
    from .config import resolve

    try:
        return resolve(cli)
    except ConfigError as exc:
        _fail(str(exc), 2)


def _export(args: dict[str, Any]) -> None:
    from .export import run_export
    from .options import export_options
    from .report import append_log, print_report

    cli = {k: args.get(k) for k in ("vault", "source", "since", "project", "timezone", "templates")}
    cli["sources"] = cli.pop("source")
    settings = _settings(cli)
    if settings.vault is None:
        _fail("no vault given: use --vault DIR, CCEXPORT_VAULT, or `vault` in the config", 2)
    quiet, json_out = args["quiet"], args["json_out"]
    try:
        options = export_options(
            settings, args["home"], args["dry_run"], args["diff"], workers=args["jobs"]
        )
        with _progress(enabled=not quiet and not json_out) as progress:
            report = run_export(options, progress)
    except ConfigError as exc:
        _fail(str(exc), 2)
    except ExporterError as exc:
        if args["log_file"]:
            append_log(args["log_file"], None, 1, str(exc))
        _fail(str(exc), 1)
    print_report(report, quiet=quiet)
    if json_out:
        typer.echo(orjson.dumps(report.as_dict()).decode())
    code = 1 if report.failed else 0
    if args["log_file"]:
        append_log(args["log_file"], report, code)
    raise typer.Exit(code)


class _progress:
    """A progress bar on a terminal for long runs; nothing otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._bar: Any = None

    def __enter__(self) -> Any:
        if not self.enabled:
            return None
        from rich.progress import Progress

        self._bar = Progress(transient=True)
        self._bar.start()
        task = self._bar.add_task("Exporting", total=None)
        return lambda done, total: self._bar.update(task, completed=done, total=total)

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


def _fail(message: str, code: int) -> Any:
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(code)


def main() -> None:
    app()
