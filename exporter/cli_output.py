"""What ``ccexport`` prints and how it stops: errors as one line and an exit code, colour
only on a terminal, JSON documents, the progress bar and sizes.

Kept apart from the commands so every command fails and prints the same way.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from .errors import ConfigError, ExporterError, VaultLockedError, os_error_message

# The usage errors typer reports: typer >= 0.29 has its own click, whose errors derive from
# TyperException; an older typer raises click's own, reached through typer (click is not a
# dependency of ours).
_UsageProblem: Any = getattr(typer, "TyperException", None) or typer.core.click.ClickException  # type: ignore[attr-defined]

# This command's JSON document is on stdout (``[0]``), and the last error said (``[1]``).
_said: list[Any] = [False, ""]


def json_asked(args: list[str]) -> bool:
    """``--json`` among the arguments (before a ``--``): known even when they do not parse."""
    return "--json" in (args[: args.index("--")] if "--" in args else args)


@contextmanager
def json_guard(asked: bool) -> Iterator[None]:
    """Under ``--json`` stdout ends with one JSON document whatever stops the command: a
    usage error click reports (a bad value, an unknown option), an option given before a
    command that does not take it, a Ctrl-C before the export began. A command that printed
    its own document (a summary, an error) is left as it is."""
    try:
        yield
    except _UsageProblem as exc:
        _json_error(asked, exc.format_message(), exc.exit_code)
        raise
    except typer.Exit as exc:
        if exc.exit_code:
            stopped = "interrupted" if exc.exit_code == 130 else ""
            _json_error(asked, _said[1] or stopped, exc.exit_code)
        raise
    except KeyboardInterrupt:
        _json_error(asked, "interrupted", 130)
        raise
    except Exception as exc:  # a bug that escaped the command: main() says so in one line
        _json_error(asked, f"unexpected error: {type(exc).__name__}: {exc}", 1)
        raise


def _json_error(asked: bool, message: str, code: int) -> None:
    if asked and not _said[0]:
        _echo_json({"error": message or "failed (see the messages above)", "exit_code": code})


@contextmanager
def _handled(debug: bool, json_out: bool = False, log_file: Path | None = None) -> Iterator[None]:
    """Every expected failure becomes one line (and one JSON document under --json) with its
    exit code; anything else one line with a hint, or the traceback under --debug."""
    if locale := not_utf8_locale():  # (review48 H2: each non-ASCII name failed on its own)
        _err(f"warning: {locale}", "yellow")
    try:
        yield
    except (typer.Exit, typer.Abort):
        raise
    except KeyboardInterrupt:
        _err("interrupted", "yellow")
        raise typer.Exit(130) from None
    except ConfigError as exc:
        _stop(str(exc), 2, json_out, log_file)
    except (VaultLockedError, ExporterError) as exc:
        _stop(str(exc), 1, json_out, log_file)
    except OSError as exc:
        message, code = os_error_message(exc)
        _stop(message, code, json_out, log_file, exc if debug else None)
    except Exception as exc:  # a bug: say so in one line, the traceback on request
        message = f"unexpected error: {type(exc).__name__}: {exc}"
        if not debug:
            message += " (run again with --debug to see the traceback)"
        _stop(message, 1, json_out, log_file, exc if debug else None)


NOT_UTF8 = (
    "this locale's file-system encoding is {0}, not UTF-8 (LC_ALL=C with PYTHONUTF8=0?), so "
    "a note, vault or session file whose name is not ASCII, as most notes' are, cannot be "
    "written or read: run ccexport with a UTF-8 locale (LANG=C.UTF-8), or PYTHONUTF8=1"
)


def not_utf8_locale() -> str | None:
    """What is said when names are read and written in an encoding other than UTF-8."""
    import codecs

    encoding = sys.getfilesystemencoding()
    return None if codecs.lookup(encoding).name == "utf-8" else NOT_UTF8.format(encoding)


def _stop(
    message: str,
    code: int,
    json_out: bool,
    log_file: Path | None,
    exc: BaseException | None = None,
) -> None:
    if exc is not None:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    if log_file:
        from .nightlylog import append_run_log

        try:
            append_run_log(log_file, None, code, message)
        except OSError:
            pass  # the log is on the same full or read-only disk: the exit code still tells
    if json_out:
        _echo_json({"error": message, "exit_code": code})
    _fail(message, code)


class _progress:
    """A progress bar on a terminal for long runs; nothing otherwise. Leaving the block
    (also by Ctrl-C) removes the bar."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._bar: Any = None

    def __enter__(self) -> Any:
        if not self.enabled:
            return None
        from rich.console import Console
        from rich.progress import Progress

        # On stderr, the terminal it was checked for: on stdout (rich's default) the bar was
        # lost when stdout went to a file or a pipe, which got a stray empty line instead.
        self._bar = Progress(transient=True, console=Console(stderr=True))
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


def colour_enabled(stream: Any) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    return "NO_COLOR" not in os.environ and bool(getattr(stream, "isatty", lambda: False)())


def _paint(text: str, colour: str | None, stream: Any = None) -> str:
    if colour is None or not colour_enabled(stream or sys.stdout):
        return text
    return typer.style(text, bold=True) if colour == "bold" else typer.style(text, fg=colour)


def _err(text: str, colour: str | None = None) -> None:
    typer.echo(_paint(text, colour, sys.stderr), err=True)


def say_templates_instead(settings: Any, quiet: bool) -> None:
    """With ``--templates DIR``, the templates folder it replaces in this run, when there is
    one: the config's ``templates``, else the vault's own ``.ccexport/templates``. One
    folder is used, whole, never merged file by file with another (docs/templates.md), so
    every note made with the replaced templates was written again with ours, then back by
    the next run, without a word."""
    if quiet or settings.origin.get("templates") != "command line" or settings.vault is None:
        return
    replaced = _templates_without_the_flag(settings.vault)
    if replaced is None or replaced[0].resolve() == settings.templates.resolve():
        return
    folder, origin = replaced
    whose = (
        f"the vault's own in {folder}"
        if origin == OWN_TEMPLATES_ORIGIN
        else f"those in {folder} (`templates` of the {origin})"
    )
    _err(
        f"The templates in {settings.templates} are used for this run, not {whose} (one "
        "templates folder is used: --templates, else the config's, else the vault's)"
    )


OWN_TEMPLATES_ORIGIN = "the vault's .ccexport/templates"  # (config.resolve's word for it)


def _templates_without_the_flag(vault: Path) -> tuple[Path, str] | None:
    """The templates folder a run in ``vault`` uses without ``--templates``, and where it
    is named; None for ours."""
    from .config import resolve

    try:
        settings = resolve({"vault": vault})
    except Exception:  # noqa: BLE001 (a config that cannot be read fails the run itself)
        return None
    if settings.templates is None:
        return None
    return settings.templates, settings.origin.get("templates", "config")


def _echo_json(value: Any) -> None:
    import orjson

    typer.echo(orjson.dumps(value).decode())
    _said[0] = True


def _fail(message: str, code: int) -> Any:
    _said[1] = message
    _err(f"Error: {message}", "red")
    raise typer.Exit(code)


_pipe_closed: set[Any] = set()  # the streams whose reader went away (``pipe_closed``)


def pipe_closed() -> bool:
    """Has the reader of stdout or stderr gone away (``_PipeSafe``)? A command that runs
    until stopped (``watch``) may stop then, as ``… | head -3`` expects."""
    return bool(_pipe_closed)


class _PipeSafe:
    """A text stream (stdout, stderr) whose writes to a pipe closed by its reader (``| head
    -1``) are dropped, and all that follow: the command goes on as if they had been read,
    and exits with its own status. Click otherwise ended it with exit 1 and no word, and a
    cron job under ``set -o pipefail`` saw a failure that was none (review48 M2)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text))
        except BrokenPipeError:
            self._closed()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._closed()

    def _closed(self) -> None:
        """What is still buffered, and every later write, goes to the null device (Python's
        own advice for EPIPE): the flush at the exit then fails no more."""
        _pipe_closed.add(self._stream)
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, self._stream.fileno())
            finally:
                os.close(null)
        except (OSError, ValueError, AttributeError):
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def closed_pipes_dropped() -> None:
    """The command's output to a closed pipe is dropped (``_PipeSafe``); the console only."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, _PipeSafe):
            setattr(sys, name, _PipeSafe(stream))
