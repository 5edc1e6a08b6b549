"""The options of ``ccexport``, declared once and shared by its commands.

Each option is an ``Annotated`` type so every command that takes it spells it, and documents
it, the same way; the group and command classes keep typer's type placeholders out of
``--help`` for flags and build typer's value validators only when a value needs one (they
import pydantic). Kept apart from the commands so ``cli.py`` reads as what each does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from . import cli_complete
from .cli_output import _fail
from .sourcenames import SOURCES


def _no_flag_placeholders(params: list[Any]) -> list[Any]:
    """typer >= 0.29 prints a type after every option ("<bool>"); a flag takes no value."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


def _deferred_validation(params: list[Any]) -> list[Any]:
    """typer >= 0.29 builds a pydantic validator for every option of the command, given or
    not, and importing pydantic alone costs more than the start-up budget: each option gets
    a stand-in that builds typer's validator only for a value it cannot take as it is."""
    if _DeferredCoercion is None:
        return params
    for param in params:
        if getattr(param, "_runtime_param", False) is None:  # typer's, not built yet
            found = param.type_descriptor
            try:
                stand_in = _DeferredCoercion(found.parameter_info, found.annotation, found)
            except TypeError:  # a typer whose validators take other fields: leave them be
                return params
            param._runtime_param = stand_in
    return params


try:  # typer >= 0.29 checks values with pydantic; older ones with click's types
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_path
except ImportError:
    _DeferredCoercion = None
else:
    _PLAIN_NUMBER = re.compile(r"[1-9][0-9]{0,8}").fullmatch

    @dataclass(frozen=True)
    class _DeferredCoercion(RuntimeParam):  # type: ignore[no-redef]
        """An option left out, a text, a path, a list of texts or a plain number within its
        bounds comes out exactly as from typer's own validator (tests/test_startup.py
        compares the two); anything else goes to that validator, built when it is needed."""

        descriptor: Any = None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            info, annotation = self.parameter_info, self.annotation
            if info.parser is None:
                if annotation is str and isinstance(value, str):
                    return value
                if annotation is Path and info.path_type is None and isinstance(value, str):
                    return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
                if annotation == list[str] and isinstance(value, tuple | list):
                    if all(isinstance(item, str) for item in value):
                        return list(value)
                if annotation is int and isinstance(value, str) and _PLAIN_NUMBER(value):
                    number = int(value)  # no sign, space or leading zero: read one way only
                    if _within(number, info.min, info.max):
                        return number
            typer_own = build_runtime_param(self.descriptor)
            return typer_own._coerce_value(value, param=param, ctx=ctx)

    def _within(number: int, low: Any, high: Any) -> bool:
        """Inside the option's bounds; a number outside goes to typer's own message (or its
        clamping)."""
        return (low is None or number >= low) and (high is None or number <= high)


# The options that name a file or folder. An empty value ("", or spaces) would be read as
# the current folder: `--vault "$NOTES"` with NOTES unset would export into wherever cron
# or the shell happens to be, and `--home ""` would search it for sessions.
_PATH_FLAGS = ("--vault", "--home", "--templates", "--to", "--log-file")


def _refuse_empty_paths(args: list[str]) -> None:
    for n, arg in enumerate(args):
        if arg == "--":
            return
        flag, equals, value = arg.partition("=")
        if flag not in _PATH_FLAGS:
            continue
        if not equals:
            value = args[n + 1] if n + 1 < len(args) else "-"  # a missing one: click says so
        if not value.strip():  # one line, as the other errors about these folders
            _fail(f"{flag} is empty; give a folder (is a variable in the command unset?)", 2)


class _Group(TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        return _deferred_validation(_no_flag_placeholders(super().get_params(ctx)))

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:  # shell completion parses half-typed lines
            _refuse_empty_paths(args)
        return super().parse_args(ctx, args)


class _Command(TyperCommand):
    def get_params(self, ctx: Any) -> list[Any]:
        return _deferred_validation(_no_flag_placeholders(super().get_params(ctx)))

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:  # shell completion parses half-typed lines
            _refuse_empty_paths(args)
        return super().parse_args(ctx, args)


_NAMES = ", ".join(SOURCES)
# metavar "" keeps typer's "<bool>"/"<list[str]>" type placeholders out of --help.
VaultOpt = Annotated[
    Path | None, typer.Option("--vault", metavar="DIR", help="The vault folder to write into.")
]
# A command that reads the vault and its config but writes nothing there (sources, doctor,
# config show, schedule status): "the folder to write into" was not what it does.
ReadVaultOpt = Annotated[
    Path | None,
    typer.Option(
        "--vault", metavar="DIR", help="The vault (its .ccexport/config.toml is read too)."
    ),
]
HomeOpt = Annotated[
    Path | None,
    typer.Option("--home", metavar="DIR", help="Look for sources under this folder, not ~."),
]
SourceOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--source",
        metavar="NAME",
        help=f"Only this source (repeatable): {_NAMES}.",
        autocompletion=cli_complete.sources,
    ),
]
SinceOpt = Annotated[
    str | None,
    typer.Option(
        "--since",
        metavar="DATE",
        help="Only sessions active since: 2026-11-01 or 7d.",
        autocompletion=cli_complete.since,
    ),
]
ProjectOpt = Annotated[
    str | None,
    typer.Option("--project", metavar="TEXT", help="Only projects whose name contains this."),
]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", metavar="", help="Say what would be written; write nothing.")
]
DiffOpt = Annotated[
    bool, typer.Option("--diff", metavar="", help="With --dry-run: show a diff of each change.")
]
JsonOpt = Annotated[
    bool,
    typer.Option(
        "--json",
        metavar="",
        help="Print one JSON document on stdout, nothing else there (the summary goes to stderr).",
    ),
]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", metavar="", help="Print only errors (for cron).")
]
# (watch's: it runs in a terminal; "for cron" is the export's)
WatchQuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet", "-q", metavar="", help="Print only errors: no line per round that wrote."
    ),
]
VerboseOpt = Annotated[
    bool,
    typer.Option("--verbose", "-v", metavar="", help="One line per note written, with its path."),
]
DebugOpt = Annotated[
    bool, typer.Option("--debug", metavar="", help="Show the traceback of an unexpected error.")
]
TzOpt = Annotated[
    str | None,
    typer.Option(
        "--timezone",
        metavar="ZONE",
        help="Time zone for note times (default: the vault's zone).",
        autocompletion=cli_complete.timezone,
    ),
]
TemplatesOpt = Annotated[
    Path | None,
    typer.Option("--templates", metavar="DIR", help="A folder of templates that override ours."),
]
# At most 64 (workers.MAX_JOBS): thousands of forked workers took minutes to start.
MAX_JOBS = 64


def _jobs_in_range(value: str | None) -> int | None:
    """``--jobs`` a whole number from 1 to MAX_JOBS, else refused as the other bad values of
    options are (typer's parsing and bounds answered in pydantic's words: "Input should be
    a valid integer", "Input should be greater than or equal to 1")."""
    if value is None:
        return None
    # (digits only: Python's int() takes "1_6", " 3" and other scripts' digits too)
    number = int(value) if re.fullmatch(r"-?[0-9]+", value) else None
    if number is None or not 1 <= number <= MAX_JOBS:
        shown = repr(value) if number is None else number
        _fail(f"command line: --jobs must be a number of processes from 1 to {MAX_JOBS}, "
              f"not {shown}", 2)  # fmt: skip
    return number


JobsOpt = Annotated[
    # (read as text: a word is refused in ccexport's words, as a number out of range is)
    str | None,
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        callback=_jobs_in_range,
        help=f"Processes that render notes (default: cores, at most {MAX_JOBS}).",
    ),
]
ForceOpt = Annotated[
    bool,
    typer.Option(
        "--force",
        metavar="",
        help="Read every source again and overwrite notes even where their source now holds "
        "fewer turns: such notes lose the turns it no longer holds.",
    ),
]
NoRedactOpt = Annotated[
    bool,
    typer.Option(
        "--no-redact", metavar="", help="Write secrets found in sessions as they are (unsafe)."
    ),
]
RestoreOpt = Annotated[
    bool,
    typer.Option("--restore", metavar="", help="Write again the notes you deleted in the vault."),
]
AcceptDeletedOpt = Annotated[
    bool,
    typer.Option(
        "--accept-deleted",
        metavar="",
        help=(
            "Take every note gone from the vault as deleted by you, even when all or most are "
            "gone at once."
        ),
    ),
]
ToolOutputOpt = Annotated[
    str | None,
    typer.Option(
        "--tool-output",
        metavar="full|head|none",
        help="Tool outputs: whole, first lines, none.",
        autocompletion=cli_complete.tool_output,
    ),
]
ToolOutputLinesOpt = Annotated[
    int | None,
    typer.Option("--tool-output-lines", metavar="N", help="Lines kept by --tool-output head."),
]
ThinkingOpt = Annotated[
    str | None,
    typer.Option(
        "--thinking",
        metavar="folded|shown|hidden",
        help="Reasoning in notes.",
        autocompletion=cli_complete.thinking,
    ),
]
ToolsOpt = Annotated[
    str | None,
    typer.Option(
        "--tools",
        metavar="full|summary|hidden",
        help="Tool calls: whole, one line each, none.",
        autocompletion=cli_complete.tools,
    ),
]
TodoOpt = Annotated[
    bool | None,
    typer.Option(
        "--todo-as-checklist/--no-todo-as-checklist",
        help="Plan and to-do tool calls as a Markdown checklist, done items ticked.",
    ),
]
_VIEW_OPTIONS = ("tool_output", "tool_output_lines", "thinking", "tools", "todo_as_checklist")
LogOpt = Annotated[
    Path | None,
    typer.Option("--log-file", hidden=True, help="Append a line per run (used by the schedule)."),
]

# How each option is spelled, for messages about options given before a subcommand.
_FLAG = {"json_out": "--json", "source": "--source", "no_redact": "--no-redact"}

_EXPORT_OPTIONS = (
    "vault", "home", "source", "since", "project", "dry_run", "diff", "json_out", "quiet",
    "verbose", "debug", "timezone", "templates", "jobs", "force", "no_redact", "restore",
    "accept_deleted", "log_file", *_VIEW_OPTIONS,
)  # fmt: skip
