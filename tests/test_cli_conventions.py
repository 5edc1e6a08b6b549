"""What a newcomer meets: errors a person can act on, output that tells the truth, and the
conventions of well-kept Python command lines. In-process (CliRunner) unless a real process
is the point (exit codes of the console script, signals)."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import deny_writes
from test_sync import write_sessions
from typer.testing import CliRunner

from exporter.cli import app, colour_enabled
from exporter.sourcenames import SOURCES

runner = CliRunner()


def run(*args: str, **kw):
    return runner.invoke(app, [str(a) for a in args], **kw)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "src-home"
    write_sessions(home, 6)  # projects p0, p1, p2, two sessions each
    return home


def one_line_error(result, code: int, *needles: str) -> None:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


# -- 2. errors a person can act on --------------------------------------------------------


def test_a_vault_that_is_a_file_is_a_usage_error(tmp_path, home):
    vault = tmp_path / "notes.md"
    vault.write_text("mine")
    one_line_error(run("--vault", vault, "--home", home), 2, str(vault), "is a file")
    assert vault.read_text() == "mine"


def test_a_vault_below_a_file_is_a_usage_error_naming_the_file(tmp_path, home):
    """It said "<vault>/.ccexport/config.toml: cannot be read (Not a directory)"."""
    blocker = tmp_path / "notes.md"
    blocker.write_text("mine")
    for command in ([], ["doctor"]):
        result = run(*command, "--vault", blocker / "v", "--home", home)
        one_line_error(result, 2, f"{blocker / 'v'} cannot be made: {blocker} is a file")
    assert blocker.read_text() == "mine"


def test_an_unwritable_vault_is_named_with_what_to_do(tmp_path, home, monkeypatch):
    vault = tmp_path / "v"
    vault.mkdir()
    deny_writes(vault, monkeypatch)
    one_line_error(run("--vault", vault, "--home", home), 2, str(vault), "cannot be written")
    assert list(vault.iterdir()) == []


def test_an_immutable_vault_fails_in_one_line(tmp_path, home):
    vault = tmp_path / "v"
    vault.mkdir()
    if subprocess.run(["chattr", "+i", str(vault)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not supported on this file system")
    try:
        one_line_error(run("--vault", vault, "--home", home), 2, str(vault))
    finally:
        subprocess.run(["chattr", "-i", str(vault)], check=True)
    assert list(vault.iterdir()) == []


def test_a_full_disk_while_writing_the_state_is_one_line_exit_1(tmp_path, home, monkeypatch):
    from exporter import vault as vault_module

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "v" / "x"))

    monkeypatch.setattr(vault_module.Vault, "save_state", full)
    one_line_error(run("--vault", tmp_path / "v", "--home", home), 1, "the disk is full")


@pytest.fixture
def tiny_filesystem(tmp_path: Path):
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root); covered by injection above")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_really_full_disk_fails_the_run_in_one_line_and_keeps_what_was_written(
    tmp_path, tiny_filesystem
):
    big_home = tmp_path / "big-home"
    write_sessions(big_home, 40, turns=6)  # ~100 KB of notes: more than the 48 KB disk
    result = subprocess.run(
        [sys.executable, "-m", "exporter", "--vault", tiny_filesystem / "v", "--home", big_home],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "No space left on device" in result.stderr or "disk is full" in result.stderr
    for note in (tiny_filesystem / "v").rglob("*.md"):  # every note there is whole
        assert "%% ccexport:end " in note.read_text(encoding="utf-8")  # the hash follows


@pytest.mark.parametrize("kind", ["missing", "file", "source-folder"])
def test_a_home_that_cannot_be_meant_is_a_usage_error(tmp_path, home, kind):
    target = {
        "missing": tmp_path / "nope",
        "file": home
        / ".claude"
        / "projects"
        / "-p0"
        / os.listdir(home / ".claude/projects/-p0")[0],
        "source-folder": home / ".claude",
    }[kind]
    result = run("--vault", tmp_path / "v", "--home", target)
    one_line_error(result, 2, str(target))
    if kind == "source-folder":
        assert f"--home {home}" in result.stderr  # says what to give instead
    assert not (tmp_path / "v").exists()
    one_line_error(run("sources", "--home", target), 2, str(target))


def test_an_unreadable_folder_inside_a_source_is_reported(tmp_path, home, monkeypatch):
    locked = home / ".claude" / "projects" / "-p1"
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path) == locked:
            raise PermissionError(errno.EACCES, "Permission denied", str(locked))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = run("--vault", tmp_path / "v", "--home", home)
    assert result.exit_code == 1, result.output
    assert f"{locked}: cannot be read (Permission denied)" in result.stderr
    listed = run("sources", "--home", home, "--json")
    assert listed.exit_code == 1  # as doctor and the export: this needs attention
    assert [p["path"] for p in json.loads(listed.stdout)["unreadable"]] == [str(locked)]
    shown = run("sources", "--home", home)
    assert shown.exit_code == 1 and f"error: {locked}: cannot be read" in shown.stderr
    monkeypatch.setattr(os, "scandir", real_scandir)
    assert run("sources", "--home", home).exit_code == 0


def test_an_unexpected_error_is_one_line_with_a_hint_and_debug_shows_it(
    tmp_path, home, monkeypatch
):
    from exporter import export

    def boom(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(export, "run_export", boom)
    result = run("--vault", tmp_path / "v", "--home", home)
    one_line_error(result, 1, "unexpected error: RuntimeError: a bug", "--debug")
    shown = run("--vault", tmp_path / "v", "--home", home, "--debug")
    assert shown.exit_code == 1 and "Traceback" in shown.stderr and "a bug" in shown.stderr


# -- 3. output that tells the truth --------------------------------------------------------


def test_json_is_the_only_thing_on_stdout(tmp_path, home):
    result = run("--vault", tmp_path / "v", "--home", home, "--json")
    doc = json.loads(result.stdout)  # the whole of stdout is one document
    assert doc["totals"]["created"] == 6 and doc["elapsed_seconds"] >= 0
    assert "6 sessions found" in result.stderr  # the human summary went to stderr
    sources = json.loads(run("sources", "--home", home, "--json").stdout)
    assert {"sources", "unreadable"} <= sources.keys()


def test_json_is_written_when_the_vault_is_locked(tmp_path, home):
    from exporter.state import VaultLock

    vault = tmp_path / "v"
    vault.mkdir()
    with VaultLock(vault.resolve()):
        result = subprocess.run(
            [sys.executable, "-m", "exporter", "--vault", vault, "--home", home, "--json"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    doc = json.loads(result.stdout)
    assert result.returncode == doc["exit_code"] == 1
    assert "another ccexport run" in doc["error"] and "waited for 5 s, it is still" in doc["error"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--jobs", "0"], "--jobs must be a number of processes from 1 to 64, not 0"),
        (["--jobs", "5000"], "--jobs must be a number of processes"),  # it forked 5,000 workers
        (["--jobs", "x"], "--jobs must be a number of processes from 1 to 64, not 'x'"),
        (["--no-such-flag"], "No such option: --no-such-flag"),
        (["--since"], "Option '--since' requires an argument"),
        (["--tool-output", "most"], "--tool-output must be one of full, head, none"),
        (["--quiet", "sources"], "--quiet does not apply to `ccexport sources`"),
        (["sources", "--dry-run"], "No such option: --dry-run"),
    ],
)
def test_json_is_written_for_a_bad_option_too(tmp_path, home, args, message):
    """The README's promise: under --json an early failure is still one JSON document, also
    when click itself refuses the command line (it printed nothing on stdout before)."""
    result = run("--json", "--vault", tmp_path / "v", "--home", home, *args)
    doc = json.loads(result.stdout)  # the whole of stdout
    assert result.exit_code == doc["exit_code"] == 2
    assert message in doc["error"] and message in result.stderr
    assert not (tmp_path / "v").exists()


def test_json_is_written_when_ctrl_c_comes_before_the_export(tmp_path, home, monkeypatch):
    from exporter import options

    def pressed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(options, "check_vault", pressed)
    result = run("--vault", tmp_path / "v", "--home", home, "--json")
    assert result.exit_code == 130
    assert json.loads(result.stdout) == {"error": "interrupted", "exit_code": 130}


@pytest.mark.parametrize(
    "args",
    [
        ["--vault", "", "--home", "{home}"],
        ["--vault=", "--home", "{home}"],
        ["--vault", "  ", "--home", "{home}"],
        ["--vault", "{vault}", "--home", ""],
        ["sources", "--home", ""],
        ["templates", "init", "--to", ""],
    ],
)
def test_an_empty_folder_is_refused_not_read_as_the_current_one(tmp_path, home, monkeypatch, args):
    """`--vault "$NOTES"` with NOTES unset (a cron line): an empty value was the current
    folder, so the notes went wherever the command ran, and `--home ""` searched it."""
    here = tmp_path / "cwd"
    here.mkdir()
    monkeypatch.chdir(here)
    args = [a.format(home=home, vault=tmp_path / "v") for a in args]
    one_line_error(run(*args), 2, "is empty; give a folder")
    assert list(here.iterdir()) == [] and not (tmp_path / "v").exists()


def test_filters_apply_to_the_counts(tmp_path, home):
    vault = tmp_path / "v"
    assert run("--vault", vault, "--home", home).exit_code == 0
    doc = json.loads(run("--vault", vault, "--home", home, "--project", "p1", "--json").stdout)
    assert doc["totals"]["found"] == 2 and doc["totals"]["skipped"] == 2
    assert doc["totals"]["created"] == doc["totals"]["updated"] == 0
    # "unchanged" counts as the printed summary does: the notes not even read are in it.
    assert doc["totals"]["unchanged"] == 2 and doc["sources"]["claude-code"]["unchanged"] == 2


def test_empty_sources_are_named_and_listed_under_verbose(tmp_path, home):
    empty = home / ".claude" / "projects" / "-p0" / "empty.jsonl"
    empty.write_text("")
    result = run("--vault", tmp_path / "v", "--home", home, "--verbose")
    assert "; 1 more without a conversation (no note)" in result.stdout
    assert f"no conversation (claude-code): {empty}" in result.stdout
    created = [line for line in result.stdout.splitlines() if line.startswith("created: ")]
    sessions = [line for line in created if "/claude-code/" in line]
    assert len(sessions) == 6 and all(line.endswith(".md") for line in sessions)
    assert sum("/Projects/" in line for line in created) == 3  # an index note per project
    quiet = run("--vault", tmp_path / "v2", "--home", home)
    assert "no conversation (claude-code)" not in quiet.stdout


def test_elapsed_time_and_per_source_counts_in_the_summary(tmp_path, home):
    result = run("--vault", tmp_path / "v", "--home", home)
    assert re.search(r"6 sessions found, 6 created, .* in \d+\.\d s", result.stdout)
    assert "  claude-code: 6 found, 6 created" in result.stdout


def test_a_folder_given_as_the_command_says_to_use_vault(tmp_path):
    """`ccexport ~/Notes`, the first thing many type: "No such command" alone did not help."""
    vault = tmp_path / "Notes"
    result = run(vault, env={"COLUMNS": "400"})  # the error box wraps long lines
    assert result.exit_code == 2 and f"ccexport --vault {vault}" in result.stderr
    assert not vault.exists()
    assert "Did you mean 'sources'" in run("sourcse").stderr  # a typo still gets typer's hint


def test_home_given_before_sources_is_used(tmp_path, home):
    result = run("--home", home, "sources")
    assert result.exit_code == 0
    line = next(x for x in result.stdout.splitlines() if x.startswith("claude-code"))
    assert " 6 " in line and str(home) in line
    refused = run("--dry-run", "sources", "--home", home)
    assert refused.exit_code == 2 and "--dry-run does not apply" in refused.stderr


def test_options_before_the_command_are_never_dropped_even_false_or_zero(monkeypatch):
    """Only options with a true value were passed on: `--no-todo-as-checklist` or
    `--tool-output-lines 0` before `export` were dropped, and before `sources` not refused."""
    from exporter import cli

    seen: list[dict] = []
    monkeypatch.setattr(cli, "_export", seen.append)
    assert run("--no-todo-as-checklist", "--tool-output-lines", "0", "export").exit_code == 0
    assert seen[-1]["todo_as_checklist"] is False and seen[-1]["tool_output_lines"] == 0
    assert run("--todo-as-checklist", "export", "--no-todo-as-checklist").exit_code == 0
    assert seen[-1]["todo_as_checklist"] is False  # given after the name too: that one wins
    refused = run("--no-todo-as-checklist", "sources")
    assert refused.exit_code == 2 and "--no-todo-as-checklist does not apply" in refused.stderr


def test_a_repeatable_option_given_on_both_sides_of_the_command_keeps_every_value(monkeypatch):
    """`ccexport --source codex export --source aider` exported aider alone: the --source
    before the command's name was dropped without a word."""
    from exporter import cli

    seen: list[dict] = []
    monkeypatch.setattr(cli, "_export", seen.append)
    args = ("--source", "codex", "--source", "aider", "export", "--source", "gemini")
    assert run(*args, "--source", "codex").exit_code == 0
    assert seen[-1]["source"] == ["codex", "aider", "gemini"]


def test_force_before_templates_init_overwrites_as_after_it(tmp_path):
    """`ccexport --force templates init` was refused: '--force does not apply'."""
    to = tmp_path / "t"
    assert run("templates", "init", "--to", to).exit_code == 0
    (to / "session.md.j2").write_text("mine", encoding="utf-8")
    kept = run("templates", "init", "--to", to)
    assert kept.exit_code == 0 and (to / "session.md.j2").read_text() == "mine"
    forced = run("--force", "templates", "init", "--to", to)
    assert forced.exit_code == 0, forced.stderr
    assert (to / "session.md.j2").read_text() != "mine"


def test_export_subcommand_takes_options_given_before_it(tmp_path, home):
    result = run("--vault", tmp_path / "v", "--dry-run", "export", "--home", home)
    assert result.exit_code == 0 and "Dry run, nothing written" in result.stdout
    assert not (tmp_path / "v").exists()


# -- 4. conventions -------------------------------------------------------------------------


def test_version_and_completion():
    version = run("--version")
    assert version.exit_code == 0 and re.match(r"ccexport \S+", version.stdout)
    shown = run("--help").stdout
    assert "--install-completion" in shown and "--show-completion" in shown


def test_help_has_no_type_placeholders_and_lists_the_sources():
    for args in (["--help"], ["export", "--help"], ["sources", "--help"], ["doctor", "--help"]):
        shown = run(*args).stdout
        assert not re.search(r"<(bool|list\[str\]|str|path|int)>", shown), (args, shown)
    assert all(name in run("--help").stdout for name in SOURCES)
    bad = run("--vault", "v", "--source", "nonsense")
    assert bad.exit_code == 2 and all(name in bad.stderr for name in SOURCES)


def test_every_option_help_is_shown_as_written():
    """typer reads help as rich markup: "- [x]" in a help text vanished from --help."""
    from typer.main import get_command

    shown = " ".join(run("--help", env={"COLUMNS": "400"}).stdout.split())
    command = get_command(app)
    command.make_context("ccexport", [])  # (its options as a command line reads them: the
    for param in command.params:  # completion one says what it writes, completion_install)
        if getattr(param, "help", None) and not param.hidden:
            assert " ".join(param.help.split()) in shown, param.help


def test_source_names_for_help_are_the_registered_adapters():
    from exporter.adapters import ADAPTERS

    assert list(SOURCES.items()) == [(a.name, a.label) for a in ADAPTERS]


def test_colour_only_on_a_terminal_and_never_with_no_color(monkeypatch):
    class Tty:
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert colour_enabled(Tty()) and not colour_enabled(object())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not colour_enabled(Tty())


def test_the_progress_bar_is_drawn_on_the_terminal_it_was_checked_for(capsys, monkeypatch):
    """Enabled because stderr is a terminal, it was drawn on stdout: with stdout in a file
    (`ccexport --vault X > log`) the bar was lost and the file began with an empty line."""
    import io

    from exporter.cli_output import _progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with _progress(enabled=True) as tick:
        tick(1, 2)
    assert capsys.readouterr().out == ""
    assert "Exporting" in terminal.getvalue()


def test_doctor_reports_sources_vault_schedule_config_and_exits_1_on_attention(
    tmp_path, home, monkeypatch
):
    vault = tmp_path / "v"
    assert run("--vault", vault, "--home", home).exit_code == 0
    result = run("doctor", "--vault", vault, "--home", home)
    assert result.exit_code == 0, result.output
    for area in ("Sources", "Vault", "Schedule", "Configuration", "Templates"):
        assert area in result.stdout
    assert "claude-code: 6 sessions" in result.stdout
    assert "6 session notes recorded" in result.stdout
    doc = json.loads(run("doctor", "--vault", vault, "--home", home, "--json").stdout)
    assert doc["attention"] is False
    (vault / ".ccexport" / "templates").mkdir()
    (vault / ".ccexport" / "templates" / "sesion.md.j2").write_text("typo in the name")
    bad = run("doctor", "--vault", vault, "--home", home)
    assert bad.exit_code == 1 and "sesion.md.j2 is not a template ccexport uses" in bad.stdout


def test_doctor_names_a_broken_config_file_and_checks_the_rest(tmp_path, home):
    """It stopped at the broken file with exit 2, as the export does, saying nothing about
    the sources, the vault or the schedule a person asked it about."""
    vault = tmp_path / "v"
    config = vault / ".ccexport" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('folder = "Sessions"\ncolour = "blue"\n')
    result = run("doctor", "--vault", vault, "--home", home)
    assert result.exit_code == 1, result.output
    assert "claude-code: 6 sessions" in result.stdout and f"{vault} is writable" in result.stdout
    assert f"!!  vault config ({config}), line 2: 'colour' is not a setting" in result.stdout
    doc = json.loads(run("doctor", "--vault", vault, "--home", home, "--json").stdout)
    assert doc["attention"] is True
    assert any("'colour'" in c["message"] and c["status"] == "attention" for c in doc["checks"])
    bad_flag = run("doctor", "--vault", vault, "--home", home, "--source", "nonsense")
    assert bad_flag.exit_code == 2  # a bad command line is still a usage error


def test_doctor_names_a_database_that_is_not_one(tmp_path):
    """Discovery does not open databases: doctor said "All good." (exit 0) while the export
    failed on a damaged state.vscdb (exit 1)."""
    import shutil

    from conftest import EXAMPLES_HOME

    home = tmp_path / "home"
    shutil.copytree(EXAMPLES_HOME / ".config" / "Cursor", home / ".config" / "Cursor")
    damaged = home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    damaged.write_bytes(b"not a database, whatever it was once")
    args = ("--vault", tmp_path / "v", "--home", home, "--source", "cursor")
    assert run(*args).exit_code == 1  # the export fails on it
    result = run("doctor", *args)
    assert result.exit_code == 1, result.output
    assert f"!!  cursor: {damaged} is not a SQLite database" in result.stdout
    assert result.stdout.count("is not a SQLite database") == 1  # the sound ones are not named


def test_the_console_script_exit_codes(tmp_path, home):
    def ccexport(*args):
        return subprocess.run(
            [sys.executable, "-m", "exporter", *map(str, args)], capture_output=True, text=True
        )

    assert ccexport("--vault", tmp_path / "v", "--home", home, "--quiet").returncode == 0
    assert ccexport("--vault", tmp_path / "v", "--source", "nonsense").returncode == 2
    assert ccexport("--vault", tmp_path / "v", "--home", tmp_path / "nope").returncode == 2


# -- a note the person deleted ----------------------------------------------------------------


def _notes(vault: Path) -> dict[str, Path]:
    return {p.name: p for p in (vault / "AI Sessions" / "claude-code").rglob("*.md")}


def test_a_deleted_note_stays_deleted_is_reported_once_and_restore_brings_it_back(tmp_path, home):
    vault = tmp_path / "v"
    assert run("--vault", vault, "--home", home).exit_code == 0
    victim = sorted(_notes(vault).values())[0]
    victim.unlink()
    first = run("--vault", vault, "--home", home, "--json")
    doc = json.loads(first.stdout)
    assert doc["totals"]["deleted"] == 1 and doc["totals"]["created"] == 0
    # (the command to paste acts on this vault and home: review40 M1)
    assert [w["message"] for w in doc["warnings"]] == [
        f"deleted in the vault; left deleted (`ccexport --vault {vault} --home {home} "
        "--restore` writes it again)"
    ]
    assert not victim.exists()
    index = "".join(p.read_text() for p in (vault / "AI Sessions").rglob("Projects*/**/*.md"))
    index += (vault / "AI Sessions" / "Projects.md").read_text()
    assert victim.stem not in index  # no dead link to it
    again = run("--vault", vault, "--home", home)
    assert again.exit_code == 0 and "deleted in the vault" not in again.stderr  # said once
    assert "1 deleted in the vault (left deleted)" in again.stdout and not victim.exists()
    restored = run("--vault", vault, "--home", home, "--restore")
    assert restored.exit_code == 0 and victim.exists()
    assert f"{victim.stem}]]" in (vault / "AI Sessions" / "Projects.md").read_text() or any(
        victim.stem in p.read_text() for p in (vault / "AI Sessions").rglob("Projects/*.md")
    )


def test_a_deleted_note_stays_deleted_when_its_session_grows(tmp_path, home):
    vault = tmp_path / "v"
    run("--vault", vault, "--home", home)
    victim = sorted(_notes(vault).values())[0]
    session_id = victim.read_text().split("session_id: ", 1)[1].split()[0].strip("'\"")
    victim.unlink()
    source = next((home / ".claude" / "projects").rglob(f"{session_id}.jsonl"))
    from claude_builder import ClaudeSession

    more = ClaudeSession(session_id, "/home/dev/work/p0", start="2026-06-01T10:00:00Z")
    more.user("one more question after the note was deleted")
    with open(source, "a", encoding="utf-8") as f:
        f.write(more.text())
    result = run("--vault", vault, "--home", home)
    assert result.exit_code == 0 and not victim.exists()
    assert not any("one more question" in p.read_text() for p in _notes(vault).values())


def test_a_moved_note_is_not_a_deleted_one(tmp_path, home):
    vault = tmp_path / "v"
    run("--vault", vault, "--home", home)
    victim = sorted(_notes(vault).values())[0]
    moved = vault / "Elsewhere" / victim.name
    moved.parent.mkdir()
    victim.rename(moved)
    result = run("--vault", vault, "--home", home, "--json")
    assert json.loads(result.stdout)["totals"]["deleted"] == 0
    assert moved.exists() and not victim.exists()


def test_doctor_counts_each_note_to_render_again_once(tmp_path, home):
    """A vault exported from two places holding the same sessions (a home and its copy)
    has two units naming each note: doctor counted 12 notes for the 6."""
    vault, copy = tmp_path / "v", tmp_path / "copy-home"
    shutil.copytree(home, copy)
    for where in (home, copy):
        assert run("--vault", vault, "--home", where, "--no-redact").exit_code == 0
    shown = run("doctor", "--vault", vault, "--home", home)
    assert "6 notes were written with other templates" in shown.stdout, shown.stdout


def test_a_fifo_in_place_of_the_vault_config_is_an_error_not_a_hang(tmp_path, home):
    vault = tmp_path / "v"
    (vault / ".ccexport").mkdir(parents=True)
    os.mkfifo(vault / ".ccexport" / "config.toml")
    result = subprocess.run(
        [sys.executable, "-m", "exporter", "--vault", vault, "--home", home],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "config.toml: not a regular file" in result.stderr


def test_doctor_says_redaction_is_on_and_how_many_notes_a_rule_change_renders_again(tmp_path, home):
    vault = tmp_path / "v"
    assert run("--vault", vault, "--home", home, "--no-redact").exit_code == 0
    shown = run("doctor", "--vault", vault, "--home", home)
    assert "secrets are redacted" in shown.stdout  # the config has it on; the run did not
    assert "6 notes were written with other templates, settings or redaction rules" in (
        shown.stdout
    )
    assert run("--vault", vault, "--home", home).exit_code == 0  # redacted now
    again = run("doctor", "--vault", vault, "--home", home)
    assert "notes were written with other" not in again.stdout
    (vault / ".ccexport" / "config.toml").write_text("redact = false\n")
    off = run("doctor", "--vault", vault, "--home", home)
    assert off.exit_code == 0 and "redaction is off: secrets reach the vault" in off.stdout


def test_a_stray_option_names_the_command_as_ccexport_under_python_m_too(tmp_path):
    """The nightly run is `python -P -m exporter …`: its log said "does not apply to
    `ccexport -m exporter doctor`"."""
    for words in (["doctor"], ["schedule", "status"]):
        done = subprocess.run(
            [sys.executable, "-m", "exporter", "--quiet", *words],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 2
        assert f"--quiet does not apply to `ccexport {' '.join(words)}`" in done.stderr


def test_diff_without_dry_run_is_refused_rather_than_ignored(tmp_path, home):
    """--diff shows what a dry run would change; given alone it was ignored and the run wrote
    every note."""
    result = run("--vault", tmp_path / "v", "--home", home, "--diff")
    one_line_error(result, 2, "--diff shows what a --dry-run would change: add --dry-run")
    assert not (tmp_path / "v").exists()
    shown = run("--vault", tmp_path / "v", "--home", home, "--diff", "--dry-run")
    assert shown.exit_code == 0 and "+++" in shown.output


def test_one_of_a_thing_is_said_in_the_singular(tmp_path):
    from vault_builder import write_session

    home = tmp_path / "home"
    write_session(home, ["q"])
    result = run("--vault", tmp_path / "v", "--home", home)
    assert "1 session found, 1 created" in result.stderr + result.stdout
    doctor = run("doctor", "--vault", tmp_path / "v", "--home", home)
    assert "claude-code: 1 session" in doctor.stdout and "1 sessions" not in doctor.stdout


def test_json_names_a_template_error_s_file_and_line_apart(tmp_path, home):
    """A script reading ``--json`` got ``path`` "…/session.md.j2:2" and ``line`` null."""
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "session.md.j2").write_text("# {{ title }}\n{{ nosuch }}\n")
    result = run("--vault", tmp_path / "v", "--home", home, "--templates", folder, "--json")
    errors = {(p["path"], p["line"], p["message"]) for p in json.loads(result.stdout)["errors"]}
    assert errors == {(str(folder / "session.md.j2"), 2, "template error: 'nosuch' is undefined")}
