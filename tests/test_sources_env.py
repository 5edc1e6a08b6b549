"""``ccexport sources`` and ``ccexport doctor`` list what the export reads where the
environment moves a source ("also read" in the README): the same sessions, from the same
discovery. ``OPENCODE_DB``, ``KILO_DB`` and ``CLINE_SESSION_DATA_DIR`` named places outside
every folder the two commands looked in: they said "(not found)" and "nothing found" while
the export read the sessions there."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from claude_builder import cowork_task
from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.adapters import ADAPTERS
from exporter.cli import app

runner = CliRunner()

# Each variable the README lists in "also read", set to the demo home's copy of the source
# (a path below it), with the source it moves and the sessions ``sources --home`` counts
# there.
MOVED = [
    ("claude-code", 8, {"CLAUDE_CONFIG_DIR": ".claude"}),
    ("codex", 4, {"CODEX_HOME": ".codex"}),
    ("cursor", 6, {"CURSOR_CONFIG_DIR": ".cursor", "XDG_CONFIG_HOME": ".config"}),
    ("trae", 1, {"XDG_CONFIG_HOME": ".config"}),
    ("copilot", 2, {"XDG_CONFIG_HOME": ".config", "APPDATA": "AppData/Roaming"}),
    ("copilot", 2, {"VSCODE_PORTABLE": "portable"}),  # a copy of .config/Code/User
    ("gemini", 5, {"GEMINI_CLI_HOME": ""}),
    ("copilot-cli", 2, {"COPILOT_HOME": ".copilot"}),
    ("opencode", 3, {"XDG_DATA_HOME": ".local/share"}),
    ("opencode", 2, {"OPENCODE_DB": ".local/share/opencode/opencode.db"}),  # not the tree
    ("kilo", 1, {"KILO_DB": ".local/share/kilo/kilo.db"}),
    ("cline", 2, {"CLINE_DATA_DIR": ".cline/data", "XDG_CONFIG_HOME": ".config"}),
    ("cline", 1, {"CLINE_DIR": ".cline"}),
    (
        "cline",
        1,
        {"CLINE_SESSION_DATA_DIR": ".cline/data/sessions", "CLINE_DB_DATA_DIR": ".cline/data/db"},
    ),  # fmt: skip
    ("roo-code", 1, {"APPDATA": "AppData/Roaming"}),
    ("zoo-code", 1, {"XDG_CONFIG_HOME": ".config"}),
    ("kilo-code", 1, {"VSCODE_APPDATA": "Library/Application Support"}),
    ("aider", 2, {"AIDER_CHAT_HISTORY_FILE": "src/weather-cli/.aider.chat.history.md"}),
]


def run(*args: str):
    return runner.invoke(app, list(args))


# Claude Desktop's folder (Cowork tasks, the Code tab's titles) where each variable puts it;
# the demo home has no Desktop app, so a Cowork task is made there.
DESKTOP_MOVED = [
    ("XDG_CONFIG_HOME", ("Claude",)),
    ("APPDATA", ("Claude",)),
    ("LOCALAPPDATA", ("Packages", "Claude_pzs8sxrjxfjjc", "LocalCache", "Roaming", "Claude")),
]


def test_every_variable_of_every_source_is_tried_here():
    tried = {name for _source, _count, variables in MOVED for name in variables}
    tried |= {name for name, _tail in DESKTOP_MOVED}
    declared = {name for adapter in ADAPTERS for name in adapter.env_vars}
    assert declared <= tried


@pytest.mark.parametrize(("source", "expected", "variables"), MOVED,
                         ids=lambda v: "+".join(v) if isinstance(v, dict) else str(v))  # fmt: skip
def test_sources_and_doctor_list_what_the_export_reads_where_a_variable_points(
    tmp_path, isolated_home, monkeypatch, source, expected, variables
):
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(EXAMPLES_HOME, elsewhere, symlinks=True)
    user = elsewhere / ".config" / "Code" / "User"
    shutil.copytree(user, elsewhere / "portable" / "user-data" / "User")
    for name, below in variables.items():
        monkeypatch.setenv(name, str(elsewhere / below))
    assert not any(isolated_home.iterdir())  # nothing is under ~: all of it is elsewhere

    export = run("--vault", str(tmp_path / "v"), "--source", source, "--dry-run", "--json")
    assert json.loads(export.stdout)["totals"]["found"]  # the export reads it

    listed = json.loads(run("sources", "--source", source, "--json").stdout)["sources"]
    assert sum(row["sessions"] for row in listed) == expected, listed
    where = [Path(row["path"]) for row in listed if row["sessions"]]
    assert where and all(path.is_relative_to(elsewhere) for path in where)
    plain = run("sources", "--source", source).output
    assert "(not found)" not in plain and str(where[0]) in plain

    checks = json.loads(run("doctor", "--source", source, "--json").stdout)["checks"]
    (found,) = [c for c in checks if c["message"].startswith(f"{source}:") and
                c["status"] == "ok"]  # fmt: skip
    assert f"{source}: {expected} session" in found["message"]
    assert str(where[0]) in found["message"] and "nothing found" not in found["message"]


def test_a_database_named_inside_the_data_folder_is_counted_once(
    tmp_path, isolated_home, monkeypatch
):
    shutil.copytree(EXAMPLES_HOME / ".local", isolated_home / ".local")
    monkeypatch.setenv("OPENCODE_DB", "opencode.db")  # relative to the data folder
    listed = json.loads(run("sources", "--source", "opencode", "--json").stdout)["sources"]
    assert [(r["path"], r["sessions"]) for r in listed if r["exists"]] == [
        (str(isolated_home / ".local" / "share" / "opencode"), 3)
    ]
    monkeypatch.setenv("OPENCODE_DB", str(isolated_home / ".local/share/opencode/opencode.db"))
    listed = json.loads(run("sources", "--source", "opencode", "--json").stdout)["sources"]
    assert [(r["path"], r["sessions"]) for r in listed if r["exists"]] == [
        (str(isolated_home / ".local" / "share" / "opencode"), 3)
    ]


def test_under_home_the_variables_do_not_apply_to_sources_either(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENCODE_DB", str(EXAMPLES_HOME / ".local/share/opencode/opencode.db"))
    monkeypatch.setenv("CLINE_SESSION_DATA_DIR", str(EXAMPLES_HOME / ".cline/data/sessions"))
    listed = json.loads(run("sources", "--home", str(tmp_path), "--source", "opencode",
                            "--source", "cline", "--json").stdout)["sources"]  # fmt: skip
    assert not any(row["sessions"] for row in listed)


@pytest.mark.parametrize(("variable", "tail"), DESKTOP_MOVED, ids=[v for v, _ in DESKTOP_MOVED])
def test_a_cowork_task_is_found_where_a_variable_puts_claude_desktops_folder(
    tmp_path, isolated_home, monkeypatch, variable, tail
):
    """``LOCALAPPDATA`` (the Microsoft Store install), ``APPDATA`` and ``XDG_CONFIG_HOME``
    move Claude Desktop's folder; the adapter read them but did not declare them, so the
    tests did not clear them and the schedule did not carry them."""
    sid = "c0c0c0c0-0000-4000-8000-000000000002"
    cowork_task(tmp_path.joinpath("elsewhere", *tail), sid, {"title": "Tidy"})
    monkeypatch.setenv(variable, str(tmp_path / "elsewhere"))
    export = run("--vault", str(tmp_path / "v"), "--source", "claude-code", "--dry-run", "--json")
    assert json.loads(export.stdout)["totals"]["found"] == 1
    (claude,) = [a for a in ADAPTERS if a.name == "claude-code"]
    assert variable in claude.env_vars
