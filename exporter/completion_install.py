"""``--install-completion``, saying what it writes where (cli8).

typer's own wrote its script below the home and edited the shell's startup file, saying
only "bash completion installed in ~/.bash_completions/ccexport.sh": not that ``~/.bashrc``
had a line added; for zsh it also set every command's completion menu style
(``zstyle ':completion:*' menu select``) in ``~/.zshrc``, and for PowerShell it made the
user's script execution policy ``Unrestricted`` and appended to their profile, without a
word. This one writes the same script, adds to the startup file only the line that loads
it (when it is not there yet), names each file it wrote and the line it added, and leaves
PowerShell's profile and policy to the person: ``--show-completion`` prints the script.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

HELP = (
    "Install completion for the current shell (bash, zsh, fish): writes its script under "
    "your home and, for bash and zsh, a line that loads it into ~/.bashrc or ~/.zshrc; "
    "says which files it changed."
)


@dataclass(frozen=True, slots=True)
class Installed:
    """What an install wrote: the script, and the startup file with the line it needs
    (``line_added``: False when the file had it already)."""

    script: Path
    startup: Path | None = None
    line: str = ""
    line_added: bool = False


def told(params: list[Any]) -> None:
    """typer's ``--install-completion`` among a command's ``params``, made to do this
    module's install (typer makes the option anew for each command line)."""
    for param in params:
        if param.name == "install_completion":
            param.callback, param.help = _option_given, HELP


def _option_given(ctx: Any, param: Any, value: Any) -> Any:
    if not value or ctx.resilient_parsing:  # (a shell's completion parses half a line)
        return value
    install_completion(ctx, value)


def install_completion(ctx: Any, value: Any) -> None:
    """The option's work: install for the shell (``value`` when it names one, else the one
    this runs in), say what was written where, and end the command."""
    prog = ctx.find_root().info_name or "ccexport"
    shell = value if isinstance(value, str) else shell_name()
    shell = getattr(shell, "value", shell)  # (typer passes its Shells enum when told one)
    if shell in ("powershell", "pwsh"):
        typer.echo(
            "Completion not installed: ccexport does not change PowerShell's execution policy "
            f"or your profile. To have it, add what `{prog} --show-completion` prints to "
            "your profile ($PROFILE) yourself.",
            err=True,
        )
        raise typer.Exit(1)
    if shell not in ("bash", "zsh", "fish"):
        named = f"{shell!r} is" if shell else "this shell could not be told, so it is"
        typer.echo(
            f"Completion not installed: {named} not one ccexport installs it for (bash, zsh, "
            f"fish). `{prog} --show-completion` prints the script for the shell it runs in.",
            err=True,
        )
        raise typer.Exit(1)
    try:
        done = install(shell, prog, Path.home())
    except OSError as exc:
        why = exc.strerror or str(exc)
        where = f": {exc.filename}" if exc.filename else ""
        typer.echo(f"Completion not installed: {why}{where}", err=True)
        raise typer.Exit(1) from None
    for line in installed_lines(shell, done):
        typer.echo(line)
    raise typer.Exit(0)


def install(shell: str, prog: str, home: Path) -> Installed:
    """Write ``prog``'s completion script for ``shell`` (bash, zsh or fish) below ``home``
    and, for bash and zsh, add the line that loads it to the shell's startup file."""
    from typer.completion import get_completion_script

    var = "_{}_COMPLETE".format(prog.replace("-", "_").upper())
    script_text = get_completion_script(prog_name=prog, complete_var=var, shell=shell)
    if shell == "bash":
        script = home / ".bash_completions" / f"{prog}.sh"
        startup, line = home / ".bashrc", f"source '{script}'"
    elif shell == "zsh":  # (a file of ~/.zfunc, found by zsh's completion once on fpath)
        script = home / ".zfunc" / f"_{prog}"
        startup, line = home / ".zshrc", "fpath+=~/.zfunc; autoload -Uz compinit; compinit"
    else:  # fish reads its completions folder itself
        script, startup, line = home / ".config" / "fish" / "completions" / f"{prog}.fish", None, ""
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(script_text.rstrip("\n") + "\n", encoding="utf-8")
    if startup is None:
        return Installed(script)
    return Installed(script, startup, line, _line_added(startup, line))


def _line_added(startup: Path, line: str) -> bool:
    """Append ``line`` to the startup file unless a line of it is that already; the file's
    other lines are left as they are (not read and written back)."""
    try:
        text = startup.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        text = ""
    if line in (held.strip() for held in text.splitlines()):
        return False
    with startup.open("a", encoding="utf-8") as out:
        out.write(("" if not text or text.endswith("\n") else "\n") + line + "\n")
    return True


def installed_lines(shell: str, done: Installed) -> list[str]:
    """What the person is told: each file written, the line added (to take out again)."""
    lines = [f"{shell} completion script written to {done.script}"]
    if done.startup is None:
        lines.append("No other file changed; it takes effect in a new terminal.")
        return lines
    if done.line_added:
        lines.append(f"Added this line to {done.startup}: {done.line}")
    else:
        lines.append(f"{done.startup} already has the line that loads it ({done.line}): unchanged")
    lines.append("It takes effect in a new terminal. To undo: delete that line and the script.")
    return lines


def shell_name() -> str | None:
    """The shell this runs in, as typer tells it (its process's parent), else ``$SHELL``."""
    try:
        import shellingham  # (typer's own dependency, for this)

        return str(shellingham.detect_shell()[0]).lower()
    except Exception:  # (no such module, or a parent it could not tell)
        return Path(os.environ.get("SHELL", "")).name.lower() or None
