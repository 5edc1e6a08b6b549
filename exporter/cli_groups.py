"""The commands besides ``export`` and ``sources``: ``watch`` and ``doctor``, and the
``templates``, ``config`` and ``schedule`` groups, the chores around the export (copy the
templates to edit, show the settings, install the nightly run). Kept out of ``cli`` so that
module reads as the export itself.

They add themselves to ``cli.subcommands``; ``cli`` imports this module when the
subcommands are first made into click commands (a plain export never does).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer

from .cli import _check_home, _inherit, _settings, check_quiet_verbose, subcommands
from .cli_options import (
    DebugOpt,
    HomeOpt,
    JsonOpt,
    NoRedactOpt,
    ProjectOpt,
    ReadVaultOpt,
    SourceOpt,
    TemplatesOpt,
    TzOpt,
    VaultOpt,
    VerboseOpt,
    WatchQuietOpt,
    _Command,
    _Group,
)
from .cli_output import _echo_json, _err, _handled, _paint, say_templates_instead
from .config import required_vault
from .errors import ConfigError


@subcommands.command(
    "watch",
    cls=_Command,
    short_help="Keep running: export each session within seconds of it changing.",
)
def watch_cmd(
    ctx: typer.Context,
    vault: VaultOpt = None,
    home: HomeOpt = None,
    source: SourceOpt = None,
    project: ProjectOpt = None,
    quiet: WatchQuietOpt = False,
    verbose: VerboseOpt = False,
    debug: DebugOpt = False,
    timezone: TzOpt = None,
    templates: TemplatesOpt = None,
    no_redact: NoRedactOpt = False,
    interval: Annotated[
        float,
        # (at most a day: `inf` or 1e30 passed, then stopped the run with an OverflowError)
        typer.Option(
            "--interval", metavar="SECONDS", min=0.1, max=86400, help="Seconds between looks."
        ),
    ] = 2.0,
) -> None:
    """Keep running: export each session within seconds of it changing (Ctrl-C stops)."""
    own = {k: v for k, v in locals().items() if k not in ("ctx", "interval")}
    accepts = ("vault", "home", "source", "project", "quiet", "verbose", "debug", "timezone",
               "templates", "no_redact")  # fmt: skip
    a = _inherit(ctx, own, accepts)
    with _handled(a["debug"]):
        check_quiet_verbose(a["quiet"], a["verbose"])
        from .errors import ExporterError
        from .export import Interrupted
        from .options import check_vault, export_options
        from .pasted import complete_error, complete_report, run_words
        from .report import print_report, worth_a_watch_line
        from .watch import WatchEvents, watch
        from .zoneadvice import advice_kept, zone_advice

        cli = {k: a.get(k) for k in ("vault", "project", "timezone", "templates")}
        cli["sources"] = a.get("source")
        if a.get("no_redact"):
            cli["redact"] = False
        settings = _settings(cli)
        required_vault(settings)
        _check_home(a["home"])
        check_vault(settings.vault, False)
        say_templates_instead(settings, a["quiet"])
        options = export_options(settings, a["home"], workers=1)
        options.lock_wait = 0.0  # a busy vault (the nightly run) skips a round, never waits

        rounds = [0]
        pasted = run_words(settings, a["home"])
        said_of_zone = zone_advice(settings, cli)  # (said by the first round)

        def exported(report: Any) -> None:
            rounds[0] += 1
            complete_report(report, pasted)  # (its hints act on this vault)
            if rounds[0] == 1:
                report.timezone_advice = advice_kept(said_of_zone, options.vault, False)
            # The first round always: with a wrong --home it found nothing, and said nothing.
            if rounds[0] == 1 or worth_a_watch_line(report):
                stamp = time.strftime("%H:%M:%S")
                if not a["quiet"]:
                    typer.echo(f"[{stamp}] ", nl=False)
                # one line per source that changed, not fifteen for one session written; the
                # first round, where it looked if it found no session (as the export says it)
                looked = options if rounds[0] == 1 else None
                print_report(report, quiet=a["quiet"], verbose=a["verbose"], changed_only=True,
                             looked=looked, pasted=pasted)  # fmt: skip

        def busy(message: str) -> None:
            if not a["quiet"]:
                _err(f"vault busy, trying again: {message}", "yellow")

        if not a["quiet"]:
            typer.echo(f"Watching for changes (every {interval:g} s); Ctrl-C stops.")
        try:
            from .cli_output import pipe_closed

            watch(options, WatchEvents(exported, busy), interval=interval, gone=pipe_closed)
        except ExporterError as stop:  # (too many notes gone at once: the advice's vault)
            complete_error(stop, pasted)
            raise
        except (KeyboardInterrupt, Interrupted):
            # Each note is written whole; an export cut short is finished by the next run.
            if not a["quiet"]:
                typer.echo("Stopped.")
            raise typer.Exit(0) from None


@subcommands.command(
    "doctor", cls=_Command, short_help="Check sources, vault, schedule, config and templates."
)
def doctor_cmd(
    ctx: typer.Context,
    vault: ReadVaultOpt = None,
    home: HomeOpt = None,
    source: SourceOpt = None,
    templates: TemplatesOpt = None,
    json_out: JsonOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Check sources, vault, schedule, configuration and templates; exit 1 if one needs you."""
    own = {"vault": vault, "home": home, "source": source, "templates": templates,
           "json_out": json_out, "debug": debug}  # fmt: skip
    a = _inherit(ctx, own, ("vault", "home", "source", "templates", "json_out", "debug"))
    with _handled(a["debug"], a["json_out"]):
        from .config import vault_path_problem, without_files
        from .doctor import diagnose

        _check_home(a["home"])
        cli = {"vault": a["vault"], "sources": a["source"], "templates": a["templates"]}
        try:
            settings, broken = _settings(cli), None
        except ConfigError as exc:  # a broken file is a finding: say it, check the rest
            settings, broken = without_files(cli), str(exc)
            if settings.vault is not None and vault_path_problem(settings.vault):
                raise  # no config file's fault: a vault that is a file is a usage error (2)
        checks = diagnose(settings, a["home"], broken)
    attention = any(c.status == "attention" for c in checks)
    if a["json_out"]:
        _echo_json({"attention": attention, "checks": [c.as_dict() for c in checks]})
    else:
        area = None
        for check in checks:
            if check.area != area:
                area = check.area
                typer.echo(_paint(area, "bold"))
            mark = {"ok": "ok", "attention": "!!", "info": "--"}[check.status]
            colour = {"ok": "green", "attention": "red", "info": None}[check.status]
            typer.echo(f"  {_paint(mark, colour)}  {check.message}")
        typer.echo("Something needs your attention (marked !!)." if attention else "All good.")
    raise typer.Exit(1 if attention else 0)


templates_app = typer.Typer(
    cls=_Group,
    help="Copy the default templates somewhere you can edit them.\n\n"
    "`ccexport templates init` copies them; alone, `templates` prints this help.",
    rich_markup_mode=None,  # plain help, as the command's own (see cli.app)
)
config_app = typer.Typer(
    cls=_Group,
    help="Show the effective configuration.\n\nAlone, `config` is `config show`.",
    rich_markup_mode=None,
)
schedule_app = typer.Typer(
    cls=_Group,
    help="Run the export every night (cron, systemd, launchd, schtasks).\n\n"
    "Alone, `schedule` is `schedule status`.",
    rich_markup_mode=None,
)
subcommands.add_typer(templates_app, name="templates")
subcommands.add_typer(config_app, name="config")
subcommands.add_typer(schedule_app, name="schedule")


# A group named alone does its harmless command (review35 15: "Missing command", exit 2):
# `config` shows the settings, `schedule` the status; `templates` prints its help, as its
# one command writes files.
@templates_app.callback(invoke_without_command=True)
def templates_group(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


@config_app.callback(invoke_without_command=True)
def config_group(ctx: typer.Context, vault: ReadVaultOpt = None, debug: DebugOpt = False) -> None:
    _pass_on(ctx, vault, debug)  # (`config --vault X` as `config show --vault X`)
    if ctx.invoked_subcommand is None:
        config_show_cmd(ctx, vault, debug)


@schedule_app.callback(invoke_without_command=True)
def schedule_group(ctx: typer.Context, vault: ReadVaultOpt = None, debug: DebugOpt = False) -> None:
    _pass_on(ctx, vault, debug)
    if ctx.invoked_subcommand is None:
        schedule_status_cmd(ctx, vault, debug)


def _pass_on(ctx: typer.Context, vault: Path | None, debug: bool) -> None:
    """The group's own ``--vault`` and ``--debug``, given before its command's name (or with
    none), read by the command as the program's are (``_inherit``)."""
    given = {"vault": vault} if vault is not None else {}
    if debug:
        given["debug"] = True
    if given:
        ctx.obj = {**(ctx.obj or {}), **given}


@templates_app.command(
    "init", cls=_Command, short_help="Copy the default templates where you can edit them."
)
def templates_init_cmd(
    ctx: typer.Context,
    vault: VaultOpt = None,
    to: Annotated[Path | None, typer.Option("--to", metavar="DIR", help="Copy here.")] = None,
    force: Annotated[
        bool, typer.Option("--force", metavar="", help="Overwrite files already there.")
    ] = False,
    debug: DebugOpt = False,
) -> None:
    """Copy the default templates into <vault>/.ccexport/templates (or --to DIR)."""
    # --force before `templates` (the export's re-render) means overwrite here, as after it
    a = _inherit(ctx, {"vault": vault, "debug": debug, "force": force}, ("vault", "debug", "force"))
    elsewhere = None  # the templates a configuration names instead of the vault's own
    chosen = to is not None  # a folder of the person's own: used only where it is named
    with _handled(a["debug"]):
        from .render import init_templates

        if to is None:
            settings = _settings({"vault": a["vault"]})
            to = required_vault(settings, "--vault DIR", "--to DIR") / ".ccexport" / "templates"
            if settings.templates is not None and settings.templates.resolve() != to.resolve():
                elsewhere = (settings.templates, settings.origin.get("templates", "the config"))
        if to.exists() and not to.is_dir():
            raise ConfigError(f"{to} is a file, not a folder; give --to the folder to copy into")
        copied, kept = init_templates(to, force=a["force"])
    for name in copied:
        typer.echo(f"copied {to / name}")
    for name in kept:
        typer.echo(f"kept {to / name} (already there; --force overwrites it)")
    if not copied:  # (saying "the next export uses them" would read as if it wrote them)
        typer.echo("Nothing copied: every template is there already (--force overwrites "
                   "them with ours).")  # fmt: skip
    if chosen:
        if copied:
            typer.echo(f"Edit them; an export uses them with --templates {to} (or `templates` "
                       "in the config).")  # fmt: skip
    elif elsewhere:  # saying "the next export uses them" would not be true
        said = "Edit them; but the" if copied else "The"
        typer.echo(f"{said} export uses {elsewhere[0]} ({elsewhere[1]}) instead: "
                   "remove `templates` from the config to use these.")  # fmt: skip
    elif copied:
        typer.echo("Edit them; the next export uses them for every note.")


@config_app.command("show", cls=_Command)
def config_show_cmd(
    ctx: typer.Context, vault: ReadVaultOpt = None, debug: DebugOpt = False
) -> None:
    """Print each setting, its value, and where it came from."""
    a = _inherit(ctx, {"vault": vault, "debug": debug}, ("vault", "debug"))
    with _handled(a["debug"]):
        settings = _settings({"vault": a["vault"]})
    shown = list(settings.shown())
    width = max((len(key) for key, _, _ in shown), default=0)  # (frontmatter.project_tag)
    for key, value, origin in shown:
        typer.echo(f"{key:<{width}} {value or '-':<40} from {origin}")
    for line in _config_files_said(settings):
        typer.echo(line)


def _config_files_said(settings: Any) -> list[str]:
    """Where the settings are set (review40 L4: there is no `config set`, and no row named
    a file to edit on a home without one): the files read, or that would be."""
    from .config import config_files

    lines = ["", "Set a value by editing one of these files (the vault's wins over yours; a flag "
             "over both):"]  # fmt: skip
    for name, path in config_files(settings):
        if path is None:
            lines.append(f"  {name}: none (no vault given: --vault DIR)")
        else:
            there = "" if path.is_file() else " (not there: defaults apply)"
            lines.append(f"  {name}: {path}{there}")
    lines.append('A key goes above the first [table] (thinking = "hidden"); a key with a dot, '
                 "under its table: index.dataview is dataview = true below [index].")  # fmt: skip
    return lines


@schedule_app.command("install", cls=_Command)
def schedule_install_cmd(
    ctx: typer.Context,
    vault: VaultOpt = None,
    at: Annotated[
        str, typer.Option("--at", metavar="HH:MM", help="Time of day (local).")
    ] = "02:30",
    dry_run: Annotated[
        bool, typer.Option("--dry-run", metavar="", help="Print what would be installed.")
    ] = False,
    debug: DebugOpt = False,
    home: Annotated[Path | None, typer.Option("--home", hidden=True)] = None,  # refused below
) -> None:
    """Install (or update) the nightly export."""
    own = {"vault": vault, "dry_run": dry_run, "debug": debug, "home": home}
    a = _inherit(ctx, own, tuple(own))
    with _handled(a["debug"]):
        from .options import check_vault
        from .schedule import HOME_NOT_SCHEDULED, install, scheduler

        if a["home"] is not None:  # the nightly run exports this user's home, nothing else
            raise ConfigError(HOME_NOT_SCHEDULED)
        settings = _settings({"vault": a["vault"]})
        check_vault(
            required_vault(settings), dry_run=False
        )  # else it would fail every night, unseen
        done = install(scheduler(), settings.vault.expanduser().resolve(), at, a["dry_run"])
    typer.echo(done)


@schedule_app.command("status", cls=_Command)
def schedule_status_cmd(
    ctx: typer.Context, vault: ReadVaultOpt = None, debug: DebugOpt = False
) -> None:
    """Say what is installed and how the last run went."""
    a = _inherit(ctx, {"vault": vault, "debug": debug}, ("vault", "debug"))
    with _handled(a["debug"]):
        from .schedule import scheduler, status

        settings = _settings({"vault": a["vault"]})
        where = settings.vault.expanduser().resolve() if settings.vault else None
        typer.echo(status(scheduler(), where))


@schedule_app.command("remove", cls=_Command)
def schedule_remove_cmd(
    ctx: typer.Context,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", metavar="", help="Print what would be removed.")
    ] = False,
    debug: DebugOpt = False,
) -> None:
    """Remove exactly what `schedule install` made."""
    a = _inherit(ctx, {"dry_run": dry_run, "debug": debug}, ("dry_run", "debug"))
    with _handled(a["debug"]):
        from .schedule import remove, scheduler

        typer.echo(remove(scheduler(), a["dry_run"]))
