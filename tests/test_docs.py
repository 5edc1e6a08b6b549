"""The README documents every command and option, and its first lines are the two set-up
commands."""

from __future__ import annotations

import click
import typer.main
from conftest import ROOT

from exporter.cli import app

README = (ROOT / "README.md").read_text(encoding="utf-8")


def commands(group: click.Group, prefix: str = "ccexport"):
    for name, command in group.commands.items():
        yield f"{prefix} {name}", command
        if isinstance(command, click.Group):
            yield from commands(command, f"{prefix} {name}")


def test_every_command_and_option_is_documented():
    root = typer.main.get_command(app)
    for path, command in commands(root):
        assert command.help or command.short_help, f"{path} has no help"
        words = path.split()[1:]
        assert " ".join(words) in README, f"{path} is not in the README"
        for param in command.params:
            for opt in param.opts:
                if (
                    opt.startswith("--")
                    and opt not in ("--help",)
                    and not getattr(param, "hidden", False)
                ):
                    assert opt in README, f"{path} {opt} is not in the README"


def test_readme_opens_with_the_two_commands():
    block = README.split("```sh", 1)[1].split("```", 1)[0].strip().splitlines()
    assert block[0].startswith("pip install . && ccexport --vault demo-vault --home examples/home")
    assert block[1].startswith("pip install -e '.[test]' && pytest")
