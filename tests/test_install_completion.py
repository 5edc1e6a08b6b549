"""``--install-completion`` says which files it wrote and what line it added where, adds
only the line that loads the script (cli8: typer's said only where the script went, not
that ``~/.bashrc`` was edited; for zsh it also set a completion style for every command,
and for PowerShell it changed the execution policy). HOME is each test's own (conftest)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from exporter import completion_install
from exporter.cli import app

runner = CliRunner()


@pytest.fixture
def home() -> Path:
    return Path.home()  # (conftest's tmp HOME: the real one is never touched)


def _install(monkeypatch, shell: str):
    monkeypatch.setattr(completion_install, "shell_name", lambda: shell)
    return runner.invoke(app, ["--install-completion"])


def test_bash_names_the_script_and_the_line_added_to_bashrc(monkeypatch, home):
    bashrc = home / ".bashrc"
    bashrc.write_text("alias ll='ls -l'")  # (the person's, with no newline at its end)
    result = _install(monkeypatch, "bash")
    assert result.exit_code == 0, result.output
    script = home / ".bash_completions" / "ccexport.sh"
    line = f"source '{script}'"
    assert f"bash completion script written to {script}" in result.stdout
    assert f"Added this line to {bashrc}: {line}" in result.stdout
    assert "To undo: delete that line and the script" in result.stdout
    assert bashrc.read_text() == f"alias ll='ls -l'\n{line}\n"
    assert "_CCEXPORT_COMPLETE" in script.read_text()
    again = _install(monkeypatch, "bash")  # the line once, and said so
    assert f"{bashrc} already has the line that loads it ({line}): unchanged" in again.stdout
    assert bashrc.read_text() == f"alias ll='ls -l'\n{line}\n"


def test_zsh_adds_the_line_that_loads_it_and_no_completion_style(monkeypatch, home):
    zshrc = home / ".zshrc"
    zshrc.write_text("export EDITOR=vim\n")
    result = _install(monkeypatch, "zsh")
    assert result.exit_code == 0, result.output
    line = "fpath+=~/.zfunc; autoload -Uz compinit; compinit"
    assert f"zsh completion script written to {home / '.zfunc' / '_ccexport'}" in result.stdout
    assert f"Added this line to {zshrc}: {line}" in result.stdout
    assert zshrc.read_text() == f"export EDITOR=vim\n{line}\n"  # (no zstyle of every command)


def test_fish_writes_its_completions_file_only(monkeypatch, home):
    result = _install(monkeypatch, "fish")
    assert result.exit_code == 0, result.output
    script = home / ".config" / "fish" / "completions" / "ccexport.fish"
    assert f"fish completion script written to {script}" in result.stdout
    assert "No other file changed" in result.stdout
    assert sorted(p.name for p in home.rglob("*") if p.is_file()) == ["ccexport.fish"]


@pytest.mark.parametrize("shell", ["pwsh", "powershell", "tcsh", None])
def test_other_shells_change_nothing_and_point_to_show_completion(monkeypatch, home, shell):
    before = sorted(home.rglob("*"))
    result = _install(monkeypatch, shell)
    assert result.exit_code == 1
    assert "Completion not installed" in result.stderr
    assert "ccexport --show-completion" in result.stderr
    assert sorted(home.rglob("*")) == before


def test_help_says_what_it_changes_and_show_completion_stays():
    shown = runner.invoke(app, ["--help"]).stdout
    assert "~/.bashrc" in " ".join(shown.split())
    assert "--show-completion" in shown


def test_a_shell_named_as_typer_takes_it_and_show_completion_prints_the_script(monkeypatch, home):
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")  # (typer: --x SHELL)
    shown = runner.invoke(app, ["--show-completion", "bash"])
    assert shown.exit_code == 0 and "_CCEXPORT_COMPLETE=complete_bash" in shown.stdout
    result = runner.invoke(app, ["--install-completion", "zsh"])
    assert result.exit_code == 0, result.output
    assert f"Added this line to {home / '.zshrc'}" in result.stdout
