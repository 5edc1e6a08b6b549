"""The ``ccexport`` command. Parses options, calls the library, prints; nothing more.

Exit codes: 0 all good; 1 some sessions could not be exported (the rest were, each failure
is named) or the run stopped on an error; 2 bad usage or configuration; 130 interrupted.
No traceback reaches the user for an expected condition; an unexpected one is one line
with a hint to re-run with ``--debug``, which shows the traceback.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Annotated, Any

import typer

from .cli_options import (
    _EXPORT_OPTIONS,
    _FLAG,
    _VIEW_OPTIONS,
    AcceptDeletedOpt,
    DebugOpt,
    DiffOpt,
    DryRunOpt,
    ForceOpt,
    HomeOpt,
    JobsOpt,
    JsonOpt,
    LogOpt,
    NoRedactOpt,
    ProjectOpt,
    QuietOpt,
    ReadVaultOpt,
    RestoreOpt,
    SinceOpt,
    SourceOpt,
    TemplatesOpt,
    ThinkingOpt,
    TodoOpt,
    ToolOutputLinesOpt,
    ToolOutputOpt,
    ToolsOpt,
    TzOpt,
    VaultOpt,
    VerboseOpt,
    _Command,
    _Group,
)
from .cli_output import (
    _echo_json,
    _err,
    _fail,
    _handled,
    _json_error,
    _progress,
    _said,
    _size,
    _UsageProblem,
    json_asked,
    json_guard,
    say_templates_instead,
)
from .cli_output import colour_enabled as colour_enabled  # re-exported: tests import it here
from .errors import ConfigError, ExporterError
from .quick_exit import exit_status, quick_exit

# The subcommands, made into click commands only when the command line names one (or they
# are listed, for --help, completion or a typo's suggestion): typer reading eleven functions'
# signatures into options took 8-10 ms of the start of every export, which names none.
subcommands = typer.Typer(
    pretty_exceptions_enable=False, add_completion=False, rich_markup_mode=None
)


class _Subcommands(MutableMapping[str, Any]):
    """``subcommands`` as click commands, made at the first look."""

    def __init__(self) -> None:
        self._made: dict[str, Any] | None = None

    def _commands(self) -> dict[str, Any]:
        if self._made is None:
            from typer.main import get_group

            from . import cli_groups  # noqa: F401  (its commands add themselves to subcommands)

            self._made = dict(get_group(subcommands).commands)
        return self._made

    def __getitem__(self, name: str) -> Any:
        return self._commands()[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._commands()[name] = command

    def __delitem__(self, name: str) -> None:
        del self._commands()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._commands())

    def __len__(self) -> int:
        return len(self._commands())


class _RootGroup(_Group):
    """``ccexport`` itself: its callback is the export, its subcommands wait to be named."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = _Subcommands()
        self._json_asked = False

    def make_context(self, info_name: Any, args: list[str], *more: Any, **extra: Any) -> Any:
        _said[:] = [False, ""]  # a new command (tests run many in one process)
        from .completion_install import told  # (typer's option, made to say what it writes)

        told(self.params)
        self._json_asked = json_asked(args)
        with json_guard(self._json_asked):
            return super().make_context(info_name, args, *more, **extra)

    def invoke(self, ctx: Any) -> Any:
        with json_guard(self._json_asked):
            return super().invoke(ctx)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except _UsageProblem as exc:  # `ccexport ~/Notes`: a folder where a command goes
            name = args[0] if args else ""
            if "/" in name or "\\" in name or Path(name).expanduser().is_dir():
                from shlex import quote

                exc.message = (
                    f"No such command {name!r}; to export into that folder: "
                    f"ccexport --vault {quote(name)}"
                )
            raise


app = typer.Typer(
    cls=_RootGroup,
    name="ccexport",
    help="Export AI coding-assistant sessions into an Obsidian vault.\n\n"
    "Start with:  ccexport --vault ~/Notes --dry-run",
    invoke_without_command=True,
    no_args_is_help=False,
    add_completion=True,
    pretty_exceptions_enable=False,
    # Help and usage errors as click prints them: rich (with markdown-it and pygments) took
    # 0.1 s of every --help, and its boxes squeezed each option's text into a narrow column.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"ccexport {version('ccexport-vault')}")
        except PackageNotFoundError:  # run from a checkout that was never installed
            typer.echo("ccexport (not installed)")
        raise typer.Exit()


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
    verbose: VerboseOpt = False,
    debug: DebugOpt = False,
    timezone: TzOpt = None,
    templates: TemplatesOpt = None,
    jobs: JobsOpt = None,
    force: ForceOpt = False,
    no_redact: NoRedactOpt = False,
    restore: RestoreOpt = False,
    accept_deleted: AcceptDeletedOpt = False,
    tool_output: ToolOutputOpt = None,
    tool_output_lines: ToolOutputLinesOpt = None,
    thinking: ThinkingOpt = None,
    tools: ToolsOpt = None,
    todo_as_checklist: TodoOpt = None,
    log_file: LogOpt = None,
    version: Annotated[
        bool | None,
        typer.Option(
            "--version", metavar="", callback=_version, is_eager=True, help="Show the version."
        ),
    ] = None,
) -> None:
    """Export every session found (the same as `ccexport export`)."""
    args = {k: v for k, v in locals().items() if k not in ("ctx", "version")}
    if ctx.invoked_subcommand is None:
        _export(args)
    # Options given before a subcommand reach it (or are refused by it), never dropped:
    # also a false or zero one (--no-todo-as-checklist, --tool-output-lines 0).
    ctx.obj = {k: v for k, v in args.items() if _given(ctx, k)}


def _given(ctx: typer.Context, name: str) -> bool:
    """The command line set this option (not its default)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT")


def _inherit(ctx: typer.Context, own: dict[str, Any], accepts: tuple[str, ...]) -> dict[str, Any]:
    """``own`` completed with the options given before the subcommand's name; an option
    that means nothing to this subcommand is a usage error, not silently ignored."""
    given = dict(ctx.obj or {})
    stray = [k for k in given if k not in accepts]
    if stray:
        no = {k: "--no-" + k.replace("_", "-") for k in stray if given[k] is False}
        flags = ", ".join(no.get(k) or _FLAG.get(k, "--" + k.replace("_", "-")) for k in stray)
        verb = "does" if len(stray) == 1 else "do"
        names, at = [], ctx  # the subcommand's words (the program may be `python -m exporter`)
        while at.parent is not None:
            names.insert(0, at.info_name or "")
            at = at.parent
        _fail(f"{flags} {verb} not apply to `ccexport {' '.join(names)}`", 2)
    merged = dict(own)
    for key, value in given.items():
        if not _given(ctx, key):
            merged[key] = value
        elif isinstance(value, list) and isinstance(own.get(key), list):
            # A repeatable option (--source) given on both sides: all of them, in order.
            merged[key] = list(dict.fromkeys([*value, *own[key]]))
        # (a single value given after the command's name too: that one wins)
    return merged


@subcommands.command("export", cls=_Command)
def export_cmd(
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
    verbose: VerboseOpt = False,
    debug: DebugOpt = False,
    timezone: TzOpt = None,
    templates: TemplatesOpt = None,
    jobs: JobsOpt = None,
    force: ForceOpt = False,
    no_redact: NoRedactOpt = False,
    restore: RestoreOpt = False,
    accept_deleted: AcceptDeletedOpt = False,
    tool_output: ToolOutputOpt = None,
    tool_output_lines: ToolOutputLinesOpt = None,
    thinking: ThinkingOpt = None,
    tools: ToolsOpt = None,
    todo_as_checklist: TodoOpt = None,
    log_file: LogOpt = None,
) -> None:
    """Export every session found into the vault."""
    own = {k: v for k, v in locals().items() if k != "ctx"}
    _export(_inherit(ctx, own, _EXPORT_OPTIONS))


@subcommands.command("sources", cls=_Command)
def sources_cmd(
    ctx: typer.Context,
    vault: ReadVaultOpt = None,
    home: HomeOpt = None,
    source: SourceOpt = None,
    json_out: JsonOpt = False,
    debug: DebugOpt = False,
) -> None:
    """List what was found where: source, folder, sessions, size."""
    own = {"vault": vault, "home": home, "source": source, "json_out": json_out, "debug": debug}
    a = _inherit(ctx, own, tuple(own))
    with _handled(a["debug"], a["json_out"]):
        from .sources import file_in_place_of_folder, list_sources, unreadable_folders

        _check_home(a["home"])
        # With --vault, its config's [paths] and sources too: the places an export reads.
        settings = _settings({"vault": a["vault"], "sources": a["source"]})
        found = list_sources(a["home"], settings.sources, settings.paths)
        problems = unreadable_folders(found)
        rows = [row for row in found if row.listed]
        # A folder named in [paths] or by a variable that is not there: a typo, most likely,
        # and doctor's attention (exit 1) as well as each export's warning.
        named = [row.named.problem(settings.origin) for row in rows if row.named]
    if a["json_out"]:
        _echo_json(
            {
                "sources": [r.as_dict() for r in rows],
                "unreadable": [p.as_dict() for p in problems],
                "not_folders": [p.as_dict() for p in named],
            }
        )
    else:
        typer.echo(f"{'source':<12} {'sessions':>8} {'size':>10}  folder")
        for row in rows:
            if row.path is None:  # nowhere to look until it is set up: the note says how
                where = row.note or "-"
            else:
                where = str(row.path) if row.exists else f"{row.path} (not found)"
                where += " (a file, not a folder)" if file_in_place_of_folder(row.path) else ""
                where += f" ({row.note})" if row.note else ""
            typer.echo(f"{row.source:<12} {row.sessions:>8} {_size(row.size):>10}  {where}")
        for problem in problems:
            _err(f"error: {problem}", "red")
        for problem in named:
            _err(f"warning: {problem}", "yellow")
    if problems or named:  # as doctor: something the export would miss needs attention
        raise typer.Exit(1)


def _settings(cli: dict[str, Any]) -> Any:
    from .config import resolve

    return resolve(cli)  # a ConfigError is turned into exit 2 by _handled


def _check_home(home: Path | None) -> None:
    from .options import check_home

    check_home(home)


def check_quiet_verbose(quiet: bool, verbose: bool) -> None:
    """``--quiet --verbose`` is a usage error (review35 15: taken without a word, and the
    run printed only errors: which one wins was the reader's guess)."""
    if quiet and verbose:
        raise ConfigError(
            "--quiet and --verbose ask for opposite things (only errors, or a line per "
            "note); give one of them"
        )


def _export(args: dict[str, Any]) -> None:
    json_out, quiet, debug = args["json_out"], args["quiet"], args["debug"]
    log_file = args["log_file"]
    started = time.monotonic()
    with _handled(debug, json_out, log_file):
        from .config import required_vault
        from .export import Interrupted, run_export
        from .nightlylog import append_run_log
        from .options import check_vault, export_options
        from .pasted import complete_error, complete_report, run_words
        from .report import print_report
        from .zoneadvice import advice_kept, zone_advice

        check_quiet_verbose(quiet, args["verbose"])
        if args.get("diff") and not args["dry_run"]:  # it was ignored, and the run wrote
            raise ConfigError("--diff shows what a --dry-run would change: add --dry-run")
        cli = {k: args.get(k) for k in ("vault", "since", "project", "timezone", "templates")}
        cli["sources"] = args.get("source")
        if args.get("no_redact"):
            cli["redact"] = False
        cli.update({k: args.get(k) for k in _VIEW_OPTIONS})  # "Notes to taste"
        settings = _settings(cli)
        required_vault(settings)
        _check_home(args["home"])
        check_vault(settings.vault, args["dry_run"])
        say_templates_instead(settings, quiet)
        options = export_options(
            settings,
            args["home"],
            args["dry_run"],
            args["diff"],
            workers=args["jobs"],
            force=args["force"],
            restore=args["restore"],
            accept_deleted=args["accept_deleted"],
        )
        if not quiet:  # (a pause of seconds while another run finishes, explained)
            options.waiting = lambda message: _err(message, "yellow")
        pasted = run_words(settings, args["home"])
        said_of_zone = zone_advice(settings, cli, options.dry_run)  # (before a run keeps a zone)
        try:
            with _progress(enabled=not quiet and not json_out) as progress:
                report = run_export(options, progress)
        except ExporterError as stop:  # a run stopped: its advice acts on this vault too
            complete_error(stop, pasted)
            raise
        except Interrupted as stop:
            _err(f"interrupted: {stop.written} notes written, run again to finish", "yellow")
            if json_out:
                _echo_json({"error": "interrupted", "exit_code": 130, "written": stop.written})
            raise typer.Exit(130) from None
    complete_report(report, pasted)
    report.timezone_advice = advice_kept(said_of_zone, options.vault, options.dry_run)
    elapsed = time.monotonic() - started
    print_report(
        report,
        quiet=quiet,
        verbose=args["verbose"],
        to_stderr=json_out,
        elapsed=elapsed,
        looked=options,
        pasted=pasted,
    )
    if json_out:
        _echo_json({**report.as_dict(), "elapsed_seconds": round(elapsed, 3)})
    code = 1 if report.failed else 0
    if log_file:
        append_run_log(log_file, report, code)
    raise typer.Exit(code)


def console() -> None:
    """The ``ccexport`` command and ``python -m exporter``: ``main``, then a quick exit."""
    try:
        main()
        code = 0
    except SystemExit as stop:
        code = exit_status(stop.code)
    quick_exit(code)


def main() -> None:
    """Runs a command: anything that escapes it is still one line, not a traceback
    (``--debug`` shows it). Raises SystemExit as a command line would."""
    asked = json_asked(sys.argv[1:])  # what escaped the command's own guard: here, too
    try:
        app()
    except KeyboardInterrupt:
        _json_error(asked, "interrupted", 130)
        _err("interrupted", "yellow")
        sys.exit(130)
    except Exception as exc:
        _json_error(asked, f"unexpected error: {type(exc).__name__}: {exc}", 1)
        if "--debug" in sys.argv:
            raise
        _err(f"Error: unexpected error: {type(exc).__name__}: {exc} "
             "(run again with --debug to see the traceback)", "red")  # fmt: skip
        sys.exit(1)
