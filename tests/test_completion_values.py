"""Shell completion of option values (cli10 3), through the completion protocol the
installed scripts use (``_CCEXPORT_COMPLETE=complete_bash`` with ``COMP_WORDS``; zsh's
``_TYPER_COMPLETE_ARGS``): no shell is run. Before, ``--source <TAB>`` and the others
offered nothing, and the shell fell back to file names (zsh printed ``_files``)."""

from __future__ import annotations

from datetime import date
from zoneinfo import available_timezones

import pytest
from typer.testing import CliRunner

from exporter.cli import app
from exporter.sourcenames import SOURCES

runner = CliRunner()


def offered(line: str) -> list[str]:
    """What bash is offered for the last word of ``line`` (the word typed so far)."""
    words = line.split(" ")
    env = {"_CCEXPORT_COMPLETE": "complete_bash", "COMP_WORDS": line,
           "COMP_CWORD": str(len(words) - 1)}  # fmt: skip
    result = runner.invoke(app, [], env=env, prog_name="ccexport")
    assert result.exit_code == 0, result.output
    return result.stdout.split()


def zsh_said(line: str) -> str:
    env = {"_CCEXPORT_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": line}
    result = runner.invoke(app, [], env=env, prog_name="ccexport")
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", ["", "sources ", "watch "])
def test_source_offers_every_source_name(command):
    assert offered(f"ccexport {command}--source ") == list(SOURCES)
    assert offered(f"ccexport {command}--source cl") == ["claude-code", "cline"]


def test_a_source_given_already_is_not_offered_again():
    assert offered("ccexport --source codex --source co") == ["copilot", "copilot-cli"]


def test_zsh_is_offered_the_names_with_their_labels_not_files():
    said = zsh_said("ccexport --source cop")
    assert said.startswith("_arguments") and '"copilot":"Copilot Chat (VS Code)"' in said
    assert "_files" not in said


@pytest.mark.parametrize(
    ("option", "choices"),
    [
        ("--thinking", ["folded", "shown", "hidden"]),
        ("--tools", ["full", "summary", "hidden"]),
        ("--tool-output", ["full", "head", "none"]),
    ],
)
def test_notes_to_taste_offer_their_choices(option, choices):
    assert offered(f"ccexport {option} ") == choices
    assert offered(f"ccexport {option} {choices[1][:2]}") == [choices[1]]


def test_since_offers_times_ago_and_a_number_its_units():
    shown = offered("ccexport --since ")
    assert {"1d", "7d", "2w", "3mo", "1y"} <= set(shown)
    assert date.today().replace(day=1).isoformat() in shown
    assert offered("ccexport --since 3") == ["3min", "3h", "3d", "3w", "3mo", "3y"]


def test_since_offers_only_what_it_takes():
    from exporter.config_values import parse_since

    for value in [*offered("ccexport --since "), *offered("ccexport --since 12")]:
        parse_since(value)  # (raises for one it would refuse)


def test_timezone_offers_the_zones_this_python_knows():
    berlin = offered("ccexport --timezone Europe/Be")
    assert "Europe/Berlin" in berlin and all(z.startswith("Europe/Be") for z in berlin)
    assert set(berlin) <= available_timezones()


@pytest.mark.parametrize("option", ["--vault", "--home", "--templates"])
def test_a_folder_option_offers_nothing_so_the_shell_completes_paths(option):
    """(typer's scripts drop click's item types: the shell's own path completion is used
    when nothing is offered: bash -o default, zsh _files.)"""
    assert offered(f"ccexport {option} ") == []
    assert zsh_said(f"ccexport {option} ").strip() == "_files"
