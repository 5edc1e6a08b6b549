"""A folder the person named for a source (``[paths]`` in a config file, or a variable such
as ``CODEX_HOME``) that does not exist, or is a file, is said: a warning of the export,
``!!`` in ``doctor``, a row of ``ccexport sources``. The review (review15, finding 3) copied
the README's configuration example: Claude Code's only folder and both of Aider's were not
there, and the export left both sources out without a word, ``doctor`` said "nothing found"
and "All good.". The usual places (``~/.claude`` …) stay allowed to be absent, silently."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.adapters import ADAPTERS
from exporter.cli import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def user_config(home: Path, text: str) -> Path:
    config = home / ".config" / "ccexport" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text, encoding="utf-8")
    return config


def warnings_of(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("warning: ")]


def test_a_paths_folder_that_is_not_there_is_a_warning_of_each_run_naming_the_setting(
    isolated_home, tmp_path
):
    missing = isolated_home / "backup" / "laptop" / ".claude"
    config = user_config(isolated_home, '[paths]\nclaude-code = ["~/backup/laptop/.claude"]\n')
    vault = tmp_path / "v"
    for _ in range(2):  # every run says it, once
        result = run("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--source",
                     "claude-code", "--source", "codex")  # fmt: skip
        assert result.exit_code == 0, result.output
        said = [w for w in warnings_of(result.output) if str(missing) in w]
        assert said == [
            f"warning: {missing}: does not exist, but [paths] claude-code in the user config "
            f"({config}) names it: no Claude Code session is read there"
        ]
        assert "4 sessions found" in result.output  # the other source goes on (codex's 4)
    answer = run("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--json")
    listed = json.loads(answer.stdout)["warnings"]
    assert [w["path"] for w in listed if w["source"] == "claude-code"] == [str(missing)]
    quiet = run("--vault", str(vault), "--home", str(EXAMPLES_HOME), "--quiet")
    assert quiet.exit_code == 0 and "warning" not in quiet.output  # --quiet: errors only


def test_the_vaults_config_is_named_and_each_of_two_folders_is_said_alone(isolated_home, tmp_path):
    vault = tmp_path / "v"
    repos = tmp_path / "repos"
    shutil.copytree(EXAMPLES_HOME / "src", repos)
    (vault / ".ccexport").mkdir(parents=True)
    config = vault / ".ccexport" / "config.toml"
    config.write_text(f'[paths]\naider = ["{repos}", "~/work"]\n', encoding="utf-8")
    result = run("--vault", str(vault), "--source", "aider")
    assert "aider: 2 found" in result.output
    assert warnings_of(result.output) == [
        f"warning: {isolated_home / 'work'}: does not exist, but [paths] aider in the vault "
        f"config ({config}) names it: no Aider session is read there"
    ]


def test_a_variable_naming_no_folder_is_said_and_the_usual_places_missing_are_not(
    isolated_home, tmp_path, monkeypatch
):
    shutil.copytree(EXAMPLES_HOME / ".claude", isolated_home / ".claude")
    vault = tmp_path / "v"

    def said(*args: str) -> list[str]:  # (the demo transcripts' own warnings left out)
        output = run("--vault", str(vault), *args).output
        return [w for w in warnings_of(output) if f"{isolated_home / '.claude'}/" not in w]

    assert said() == []  # ~/.codex, ~/.gemini … are not there: no word
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    assert said() == [
        f"warning: {tmp_path / 'codex-home'}: does not exist, but CODEX_HOME names it: no "
        "Codex session is read there"
    ]
    # with --home the variables do not apply: nothing to say about them
    assert said("--home", str(isolated_home)) == []


def test_a_paths_folder_that_is_a_file_is_said_and_a_database_named_there_is_not(
    isolated_home, tmp_path
):
    (tmp_path / "codex-notes.txt").write_text("not a folder\n")
    database = tmp_path / "oc.db"
    shutil.copy(EXAMPLES_HOME / ".local/share/opencode/opencode.db", database)
    user_config(isolated_home, f'[paths]\ncodex = ["{tmp_path / "codex-notes.txt"}"]\n'
                               f'opencode = ["{database}"]\n')  # fmt: skip
    result = run("--vault", str(tmp_path / "v"), "--source", "codex", "--source", "opencode")
    assert "opencode: 2 found" in result.output
    (said,) = warnings_of(result.output)
    assert said.startswith(f"warning: {tmp_path / 'codex-notes.txt'}: is a file, not a folder, "
                           "but [paths] codex in the user config")  # fmt: skip


def test_doctor_calls_for_attention_and_exits_1(isolated_home, tmp_path):
    repos = tmp_path / "repos"
    shutil.copytree(EXAMPLES_HOME / "src", repos)
    vault = tmp_path / "v"
    asked = ("doctor", "--vault", str(vault), "--home", str(EXAMPLES_HOME), "--json")
    user_config(isolated_home, f'[paths]\naider = ["{repos}"]\n')
    assert run(*asked).exit_code == 0  # all there: nothing to do
    user_config(isolated_home, f'[paths]\naider = ["{repos}", "~/work"]\n'
                               'claude-code = ["~/backup/.claude"]\n')  # fmt: skip
    result = run(*asked)
    assert result.exit_code == 1
    checks = [c for c in json.loads(result.stdout)["checks"] if c["area"] == "Sources"]
    flagged = [c["message"] for c in checks if c["status"] == "attention"]
    assert [m.split(" does not exist")[0] for m in flagged] == [
        f"claude-code: {isolated_home / 'backup' / '.claude'}",
        f"aider: {isolated_home / 'work'}",
    ]
    assert all("[paths]" in m and "user config" in m for m in flagged)
    said = [c["message"] for c in checks]
    assert not any(m.startswith("claude-code: nothing found") for m in said)  # said once
    assert any(m.startswith("aider: 2 sessions") for m in said)  # the folder that is there


def test_sources_shows_a_named_folder_that_is_not_there_beside_one_with_sessions(
    isolated_home, tmp_path
):
    repos = tmp_path / "repos"
    shutil.copytree(EXAMPLES_HOME / "src", repos)
    user_config(isolated_home, f'[paths]\naider = ["{repos}", "~/wrok"]\n')
    result = run("sources", "--source", "aider")
    lines = [line for line in result.output.splitlines() if line.startswith("aider")]
    assert len(lines) == 2 and str(repos) in lines[0] and " 2 " in lines[0]
    assert lines[1].endswith(f"{isolated_home / 'wrok'} (not found) ([paths] aider names it)")
    rows = json.loads(run("sources", "--source", "aider", "--json").stdout)["sources"]
    assert [(r["path"], r["exists"]) for r in rows] == [
        (str(repos), True), (str(isolated_home / "wrok"), False)
    ]  # fmt: skip


def test_sources_exits_1_for_a_named_folder_that_is_not_there_as_doctor_does(
    isolated_home, tmp_path
):
    """It printed "(not found)" and exited 0, where doctor calls for attention (exit 1): a
    configured folder that is not there is a typo most likely, and a script checking the
    exit status of ``sources`` was told all was well."""
    repos = tmp_path / "repos"
    shutil.copytree(EXAMPLES_HOME / "src", repos)
    config = user_config(isolated_home, f'[paths]\naider = ["{repos}", "~/wrok"]\n')
    result = run("sources", "--source", "aider")
    assert result.exit_code == 1
    (said,) = warnings_of(result.stderr)
    assert said.startswith(f"warning: {isolated_home / 'wrok'}: does not exist, but [paths] aider")
    assert str(config) in said  # the file that names it, as the export's warning says
    listed = json.loads(run("sources", "--source", "aider", "--json").stdout)
    assert [p["path"] for p in listed["not_folders"]] == [str(isolated_home / "wrok")]
    user_config(isolated_home, f'[paths]\naider = ["{repos}"]\n')
    assert run("sources", "--source", "aider").exit_code == 0  # (the usual places: silent)
    assert run("sources", "--source", "codex").exit_code == 0


def test_sources_shows_a_variables_folder_that_is_not_there_beside_the_usual_one(
    isolated_home, tmp_path, monkeypatch
):
    shutil.copytree(EXAMPLES_HOME / ".claude", isolated_home / ".claude")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-elsewhere"))
    rows = json.loads(run("sources", "--source", "claude-code", "--json").stdout)["sources"]
    shown = [(r["path"], r["exists"], r["note"]) for r in rows]
    assert (str(tmp_path / "claude-elsewhere"), False, "CLAUDE_CONFIG_DIR names it") in shown
    assert any(r["sessions"] for r in rows)


def test_the_folder_variables_are_variables_their_sources_read():
    from exporter.sources import FOLDER_VARIABLES

    declared = {adapter.name: adapter.env_vars for adapter in ADAPTERS}
    for source, variables in FOLDER_VARIABLES.items():
        assert set(variables) <= set(declared[source]), source


def test_doctor_says_what_its_counts_are_beside_the_exports_found(tmp_path):
    """review26 F8: doctor said "claude-code: 29 sessions, newest <time>" where the export
    said "32 found ... 6 more without a conversation": doctor counts files unread (it stays
    fast), the export the notes it makes; and "newest" was a file's time (a copy's), not a
    session's. Each is now said for what it is, the difference once."""
    from exporter.doctor import COUNTED_SO

    result = run("doctor", "--home", str(EXAMPLES_HOME), "--vault", str(tmp_path / "v"), "--json")
    checks = [c for c in json.loads(result.stdout)["checks"] if c["area"] == "Sources"]
    (claude,) = [c["message"] for c in checks if c["message"].startswith("claude-code:")]
    assert claude.startswith("claude-code: 8 sessions (by their files, unread), newest file ")
    assert "newest file modified 20" in claude
    # (the command it names carries the run's --vault and --home: review43 H2)
    words = f"--vault {tmp_path / 'v'} --home {EXAMPLES_HOME}"
    said = COUNTED_SO.replace("`ccexport sources`", f"`ccexport {words} sources`")
    assert [c["message"] for c in checks].count(said) == 1
    assert '"found"' in COUNTED_SO and "without a conversation" in COUNTED_SO
