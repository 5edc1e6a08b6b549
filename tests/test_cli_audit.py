"""What a first-time user met setting ccexport up for nightly use, and was told wrong or not
at all (from a helper's audit of the command line, 2026-12): each test fails without its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import deny_writes
from test_sync import write_sessions
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()


def run(*args: object, **kw):
    return runner.invoke(app, [str(a) for a in args], **kw)


def read_only(tmp_path: Path, monkeypatch) -> Path:
    """A folder this user cannot write (as os.access says: the tests may run as root)."""
    parent = tmp_path / "read-only"
    parent.mkdir()
    return deny_writes(parent, monkeypatch)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "src-home"
    write_sessions(home, 3)
    return home


def vault_lines(result) -> list[str]:
    lines = result.stdout.splitlines()
    start = lines.index("Vault") + 1
    return [line for line in lines[start:] if line.startswith("  ")][:4]


# -- doctor ----------------------------------------------------------------------------------


def test_doctor_after_a_run_that_found_nothing_says_the_state_is_fine(tmp_path):
    """A run over a home with no sessions writes a good state with no notes; doctor said
    "!!  …/state.json is damaged; the next run rebuilds it" and exited 1."""
    empty, vault = tmp_path / "empty-home", tmp_path / "v"
    empty.mkdir()
    vault.mkdir()  # (a vault that is not there is not made by a run that finds nothing)
    assert run("--vault", vault, "--home", empty).exit_code == 0
    result = run("doctor", "--vault", vault, "--home", empty)
    assert "damaged" not in result.stdout, result.stdout
    assert "0 session notes recorded" in result.stdout
    assert not any("!!" in line for line in vault_lines(result))


def test_doctor_still_names_a_damaged_state(tmp_path, home):
    vault = tmp_path / "v"
    assert run("--vault", vault, "--home", home).exit_code == 0
    (vault / ".ccexport" / "state.json").write_text('{"version": 2, "notes": ')
    result = run("doctor", "--vault", vault, "--home", home)
    assert result.exit_code == 1
    assert "state.json is not valid JSON" in result.stdout


def test_a_dry_run_warns_that_the_vault_cannot_be_written(tmp_path, home, monkeypatch):
    """A dry run into a vault this user cannot write said "would create" for every note
    (exit 0), while the same run without --dry-run stops with "cannot be written" (exit 2)."""
    parent = read_only(tmp_path, monkeypatch)
    vault = parent / "v"
    result = run("--vault", vault, "--home", home, "--dry-run")
    assert result.exit_code == 0, result.output  # a warning: the dry run itself went fine
    assert (
        f"{vault}: cannot be written ({parent} is read-only or not yours): a run without "
        "--dry-run stops here" in result.output
    )
    assert run("--vault", vault, "--home", home).exit_code == 2
    monkeypatch.undo()
    assert "cannot be written" not in run("--vault", tmp_path / "v", "--home", home,
                                          "--dry-run").output  # fmt: skip


def test_doctor_says_a_vault_that_cannot_be_made_cannot_be(tmp_path, home, monkeypatch):
    """A vault not made yet inside a folder this user cannot write: doctor said "does not
    exist yet; the first export makes it" (All good, exit 0), and the export then stopped
    with "cannot be written" (exit 2)."""
    parent = read_only(tmp_path, monkeypatch)
    vault = parent / "v"
    result = run("doctor", "--vault", vault, "--home", home)
    assert result.exit_code == 1, result.output
    assert f"!!  the vault {vault} cannot be written ({parent} is read-only" in result.stdout
    assert run("--vault", vault, "--home", home).exit_code == 2  # as the export says
    monkeypatch.undo()
    fine = run("doctor", "--vault", tmp_path / "new", "--home", home)
    assert "does not exist yet; the first export makes it" in fine.stdout


# -- the nightly log ---------------------------------------------------------------------------


def test_the_nightly_log_says_a_repeated_error_once(tmp_path, home):
    """A template mistake hit by every note was one line on the terminal, "(3 times)", but
    the nightly log (what `schedule status` and doctor read back) had it once per note: a
    line per session every night."""
    templates, vault, log = tmp_path / "t", tmp_path / "v", tmp_path / "nightly.log"
    templates.mkdir()
    (templates / "session.md.j2").write_text("{{ session.nope }}\n")
    args = ("--vault", vault, "--home", home, "--templates", templates, "--quiet")
    result = run(*args, "--log-file", log)
    assert result.exit_code == 1
    entry = log.read_text().splitlines()
    assert entry[0].endswith(
        "exit 1: 3 sessions found, 0 created, 0 updated, 0 unchanged, 3 failed"
    )
    assert len(entry) == 3 and entry[1].startswith("  error: ") and entry[1].endswith("(3 times)")
    assert entry[2].startswith("    in note: ")  # the first note it failed, and how many more
    assert [line[2:] for line in entry[1:]] == result.stderr.splitlines()  # as the terminal


# -- no vault --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [[], ["export"], ["watch"], ["doctor"], ["schedule", "install"], ["templates", "init"]],
)
def test_no_vault_is_said_alike_by_every_command_naming_the_config_file(
    command, home, no_real_schedulers
):
    """A newcomer's first `ccexport` read "use --vault DIR, CCEXPORT_VAULT, or `vault` in
    the config" (which file?), watch and schedule install "use --vault DIR (or
    CCEXPORT_VAULT)", doctor "--vault DIR or CCEXPORT_VAULT": three answers, none saying
    where the config file is."""
    from exporter.config import user_config_path

    with_home = ["--home", home] if command in ([], ["export"], ["watch"], ["doctor"]) else []
    result = run(*command, *with_home)
    assert result.exit_code == (1 if command == ["doctor"] else 2), result.output
    said = result.stdout if command == ["doctor"] else result.stderr
    assert "no vault given: use --vault DIR, " in said
    assert f'set CCEXPORT_VAULT, or put vault = "~/Notes" in {user_config_path()}' in said
    assert not no_real_schedulers.exists()


# -- a misspelt source -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "hint"),
    [
        (["claude"], "names 'claude', not a source (did you mean claude-code?); choose from "),
        (["Codex"], "(did you mean codex?)"),
        (["claude_code"], "(did you mean claude-code?)"),
        (["codex,gemini"], "(one name per --source: --source codex --source gemini)"),
        (["claude", "xyz"], "names 'claude', 'xyz', not sources ('claude': did you mean claude-"),
    ],
)
def test_a_misspelt_source_is_answered_with_the_name_meant(typed, hint, tmp_path):
    """It read "--source names unknown sources ['claude']; choose from …": a Python list,
    and the name meant left to find among fifteen."""
    given = [a for name in typed for a in ("--source", name)]
    for command in ([], ["sources"]):
        # (the vault below the test's home folder, tmp_path/home: one above it is refused)
        where = ("--vault", tmp_path / "v") if not command else ("--home", tmp_path)
        result = run(*command, *where, *given)
        assert result.exit_code == 2
        assert hint in result.stderr and "['" not in result.stderr, result.stderr


def test_a_misspelt_source_in_the_config_file_too(tmp_path):
    vault = tmp_path / "v"
    config = vault / ".ccexport" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('sources = ["claude-cod"]\n')
    result = run("--vault", vault, "--home", tmp_path)
    assert result.exit_code == 2
    assert "line 1: 'sources' names 'claude-cod', not a source (did you mean claude-code?)" in (
        result.stderr
    )
    config.write_text('sources = "codex,gemini"\n')
    result = run("--vault", vault, "--home", tmp_path)
    assert '(a list: sources = ["codex", "gemini"])' in result.stderr


# -- sources with the vault's config ---------------------------------------------------------


def test_sources_reads_the_places_the_vaults_config_names(tmp_path, home):
    """`[paths]` and `sources` in <vault>/.ccexport/config.toml are read by the export
    (`ccexport --vault v`) and by `doctor --vault v`, but `ccexport sources` took no --vault
    ("No such option: --vault"), and `ccexport --vault v sources` was refused: it listed
    other places than the export read, and Aider as "set the folders to search with
    [paths] aider" when the vault's config had just done so."""
    repo = tmp_path / "repos" / "tool"
    repo.mkdir(parents=True)
    (repo / ".aider.chat.history.md").write_text(
        "\n# aider chat started at 2026-05-01 10:00:00\n\n#### hello\n\nhi\n"
    )
    vault = tmp_path / "v"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "config.toml").write_text(
        f'sources = ["aider"]\n[paths]\naider = ["{tmp_path / "repos"}"]\n'
    )
    for args in (["sources", "--vault", vault], ["--vault", vault, "sources"]):
        result = run(*args, "--home", home)
        assert result.exit_code == 0, result.output
        rows = result.stdout.splitlines()[1:]
        assert len(rows) == 1 and rows[0].split()[:2] == ["aider", "1"], result.stdout
        assert str(tmp_path / "repos") in rows[0]
    listed = json.loads(run("sources", "--vault", vault, "--home", home, "--json").stdout)
    assert [row["source"] for row in listed["sources"]] == ["aider"]
    assert run("sources", "--vault", tmp_path / "v" / ".ccexport" / "config.toml").exit_code == 2


def test_commands_that_only_read_the_vault_do_not_say_they_write_into_it():
    for command in (["sources"], ["doctor"], ["config", "show"], ["schedule", "status"]):
        shown = run(*command, "--help").stdout
        assert "The vault (its .ccexport/config.toml is read too)." in shown, command
        assert "write into" not in shown, command
    assert "The vault folder to write into." in run("--help").stdout


# -- a run that finds nothing ----------------------------------------------------------------


def test_a_run_that_finds_nothing_says_where_it_looked(tmp_path):
    """A wrong --home (or a home whose assistants keep their history elsewhere) gave
    "0 sessions found, 0 created, 0 updated, 0 unchanged" and exit 0, nothing more; only
    doctor said "is --home right?"."""
    empty = tmp_path / "empty-home"
    empty.mkdir()
    result = run("--vault", tmp_path / "v", "--home", empty)
    assert result.exit_code == 0
    pasted = f"ccexport --vault {tmp_path / 'v'} --home {empty} sources"  # (this run's: cli6 M1)
    assert (
        f"No sessions found under {empty} (is --home right?): `{pasted}` lists where"
        in result.stdout
    )
    assert run("--vault", tmp_path / "v", "--home", empty, "--quiet").output == ""
    as_json = run("--vault", tmp_path / "v", "--home", empty, "--json")
    assert json.loads(as_json.stdout)["totals"]["found"] == 0  # stdout: the document alone
    assert "No sessions found under" in as_json.stderr


def test_a_filter_that_matches_nothing_says_so_and_no_line_of_zeros_per_source(tmp_path, home):
    """--project nonexistent printed the summary and one line of zeros per source, and
    nothing saying that the filter was why; --project p1 a line of zeros for each source
    with no session of p1."""
    codex_home = home / ".codex" / "sessions" / "2026" / "05" / "01"
    codex_home.mkdir(parents=True)
    (codex_home / "rollout-2026-05-01T10-00-00-0000.jsonl").write_text("")
    vault = tmp_path / "v"
    none = run("--vault", vault, "--home", home, "--project", "nonexistent")
    assert none.exit_code == 0
    assert "No session matched the filters (project 'nonexistent'); `ccexport --vault" in (
        none.stdout
    )
    assert (
        f"--home {home} --dry-run`" in none.stdout
    )  # (this run's vault and home: cli6 M1)  # (`ccexport sources` lists no project: review15 F7)
    assert "0 found" not in none.stdout
    some = run("--vault", vault, "--home", home, "--project", "p1")
    assert "  claude-code: 1 found, 1 created" in some.stdout
    assert "No session" not in some.stdout
    assert [line for line in some.stdout.splitlines() if line.startswith("  ")] == [
        "  claude-code: 1 found, 1 created"
    ]
    # a warning about some file (real homes nearly always have one) hid the hint
    (home / ".claude" / "projects" / "-p1" / "broken.jsonl").write_text("{not json\n")
    warned = run("--vault", tmp_path / "v2", "--home", home, "--project", "nonexistent")
    assert "No session matched the filters (project 'nonexistent')" in warned.stdout


# -- help ------------------------------------------------------------------------------------


@pytest.mark.parametrize("group", [[], ["templates"], ["config"], ["schedule"]])
def test_the_list_of_commands_in_help_cuts_no_sentence(group):
    """`ccexport --help` listed "watch  Keep running: export each session within seconds of
    it..." and "doctor  Check sources, vault, schedule, configuration and templates;...",
    `templates --help` "init  Copy the default templates into <vault>/.ccexport/templates
    (or...": sentences cut at the width of a terminal."""
    shown = run(*group, "--help", env={"COLUMNS": "80"}).stdout
    listed = shown[shown.index("Commands:") :].splitlines()[1:]
    assert listed and not [line for line in listed if line.rstrip().endswith("...")], listed


def test_a_templates_folder_that_is_not_there_is_said_to_be_missing(tmp_path):
    """A typo in --templates read "--templates is not a folder: /home/me/tempaltes", which
    sent a person to check what kind of thing it was rather than its name."""
    missing = run("--vault", tmp_path / "v", "--home", tmp_path, "--templates", tmp_path / "nope")
    assert missing.exit_code == 2
    assert f"--templates does not exist: {tmp_path / 'nope'}" in missing.stderr
    (tmp_path / "file.j2").write_text("")
    a_file = run("--vault", tmp_path / "v", "--home", tmp_path, "--templates", tmp_path / "file.j2")
    assert a_file.exit_code == 2
    assert f"--templates is a file, not a folder: {tmp_path / 'file.j2'}" in a_file.stderr


# -- watch -----------------------------------------------------------------------------------


def test_a_watch_round_names_only_the_sources_that_changed(tmp_path, monkeypatch):
    """One session written while `watch` ran printed the summary and a line for every
    source (fifteen on the demo home, fourteen of them "0 created, 0 updated, … unchanged")
    at every change, for as long as it ran."""
    from exporter import watch as watch_module
    from exporter.outcome import ExportReport, SourceCounts

    def one_round(options, events, interval, gone):
        report = ExportReport()
        report.per_source["claude-code"] = SourceCounts(found=3, skipped=3)
        report.per_source["codex"] = SourceCounts(found=2, updated=1, unchanged=1)
        report.per_source["cursor"] = SourceCounts(found=1, skipped=1)
        events.exported(report)
        raise KeyboardInterrupt

    monkeypatch.setattr(watch_module, "watch", one_round)
    result = run("watch", "--vault", tmp_path / "v", "--home", tmp_path)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[1].endswith("] 6 sessions found, 0 created, 1 updated, 5 unchanged")
    assert lines[2:] == [
        "  codex: 2 found, 1 updated, 1 unchanged",
        "Stopped.",
    ]


# -- schedule --------------------------------------------------------------------------------


def test_a_nightly_run_that_could_never_write_is_not_installed(
    tmp_path, monkeypatch, no_real_schedulers
):
    """`schedule install --vault` a vault inside a folder this user cannot write was
    installed ("Installed …", exit 0), and every night's run then stopped with "cannot be
    written", seen only by a later `schedule status`. Now it is refused as the export
    refuses it (exit 2), dry run or not."""
    monkeypatch.setenv("CCEXPORT_SCHEDULER", "cron")
    parent = read_only(tmp_path, monkeypatch)
    for dry in ([], ["--dry-run"]):
        result = run("schedule", "install", "--vault", parent / "v", *dry)
        assert result.exit_code == 2, result.output
        assert f"the vault {parent / 'v'} cannot be written ({parent} is read-only" in (
            result.stderr
        )
    assert not no_real_schedulers.exists()
    fine = run("schedule", "install", "--vault", tmp_path / "v", "--dry-run")
    assert fine.exit_code == 0 and "Dry run, nothing installed" in fine.stdout
