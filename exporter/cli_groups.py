"""The ``templates``, ``config`` and ``schedule`` command groups: the chores around the export
(copy the templates to edit, show the settings, install the nightly run), kept out of
``cli`` so that module reads as the commands that look at sessions.

The groups add themselves to ``cli.subcommands``; ``cli`` imports this module when the
subcommands are first made into click commands (a plain export never does).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .cli import _inherit, _settings, subcommands
from .cli_options import DebugOpt, VaultOpt, _Command, _Group
from .cli_output import _handled
from .errors import ConfigError

templates_app = typer.Typer(
    cls=_Group, help="Copy the default templates somewhere you can edit them."
)
config_app = typer.Typer(cls=_Group, help="Show the effective configuration.")
schedule_app = typer.Typer(
    cls=_Group, help="Run the export every night (cron, systemd, launchd, schtasks)."
)
subcommands.add_typer(templates_app, name="templates")
subcommands.add_typer(config_app, name="config")
subcommands.add_typer(schedule_app, name="schedule")


@templates_app.command("init", cls=_Command)
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
    a = _inherit(ctx, {"vault": vault, "debug": debug}, ("vault", "debug"))
    elsewhere = None  # the templates a configuration names instead of the vault's own
    with _handled(a["debug"]):
        from .render import init_templates

        if to is None:
            settings = _settings({"vault": a["vault"]})
            if settings.vault is None:
                raise ConfigError("no vault given: use --vault DIR or --to DIR")
            to = settings.vault / ".ccexport" / "templates"
            if settings.templates is not None and settings.templates.resolve() != to.resolve():
                elsewhere = (settings.templates, settings.origin.get("templates", "the config"))
        if to.exists() and not to.is_dir():
            raise ConfigError(f"{to} is a file, not a folder; give --to the folder to copy into")
        copied, kept = init_templates(to, force=force)
    for name in copied:
        typer.echo(f"copied {to / name}")
    for name in kept:
        typer.echo(f"kept {to / name} (already there; --force overwrites it)")
    if elsewhere:  # saying "the next export uses them" would not be true
        typer.echo(f"Edit them; but the export uses {elsewhere[0]} ({elsewhere[1]}) instead: "
                   "remove `templates` from the config to use these.")  # fmt: skip
    else:
        typer.echo("Edit them; the next export uses them for every note.")


@config_app.command("show", cls=_Command)
def config_show_cmd(ctx: typer.Context, vault: VaultOpt = None, debug: DebugOpt = False) -> None:
    """Print each setting, its value, and where it came from."""
    a = _inherit(ctx, {"vault": vault, "debug": debug}, ("vault", "debug"))
    with _handled(a["debug"]):
        settings = _settings({"vault": a["vault"]})
    for key, value, origin in settings.shown():
        typer.echo(f"{key:<17} {value or '-':<40} from {origin}")


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
) -> None:
    """Install (or update) the nightly export."""
    a = _inherit(
        ctx, {"vault": vault, "dry_run": dry_run, "debug": debug}, ("vault", "dry_run", "debug")
    )
    with _handled(a["debug"]):
        from .schedule import install, scheduler

        settings = _settings({"vault": a["vault"]})
        if settings.vault is None:
            raise ConfigError("no vault given: use --vault DIR (or CCEXPORT_VAULT)")
        done = install(scheduler(), settings.vault.expanduser().resolve(), at, a["dry_run"])
    typer.echo(done)


@schedule_app.command("status", cls=_Command)
def schedule_status_cmd(
    ctx: typer.Context, vault: VaultOpt = None, debug: DebugOpt = False
) -> None:
    """Say what is installed and how the last run went."""
    a = _inherit(ctx, {"vault": vault, "debug": debug}, ("vault", "debug"))
    with _handled(a["debug"]):
        from .schedule import scheduler, status

        settings = _settings({"vault": a["vault"]})
        where = settings.vault.expanduser().resolve() if settings.vault else None
        typer.echo(status(scheduler(), where))


@schedule_app.command("remove", cls=_Command)
def schedule_remove_cmd(ctx: typer.Context, debug: DebugOpt = False) -> None:
    """Remove exactly what `schedule install` made."""
    a = _inherit(ctx, {"debug": debug}, ("debug",))
    with _handled(a["debug"]):
        from .schedule import remove, scheduler

        typer.echo(remove(scheduler()))
