"""``[frontmatter] project_tag``: the tag a note's project goes below (``project/<name>``
by default, which many people use for their own projects), or false for none. A bad value
is a configuration error naming the key; a change re-renders the notes, moving the tag
ccexport wrote and keeping the person's own."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC
from functools import partial
from pathlib import Path

import frontmatter
import pytest
from claude_builder import ClaudeSession
from conftest import note_files
from typer.testing import CliRunner

from exporter.cli import app
from exporter.config import resolve
from exporter.errors import ConfigError
from exporter.export import ExportOptions, run_export
from exporter.options import export_options
from exporter.state import State

SESSION_ID = "33333333-3333-4333-8333-333333333333"


def vault_with_config(tmp_path: Path, text: str) -> Path:
    vault = tmp_path / "vault"
    (vault / ".ccexport").mkdir(parents=True, exist_ok=True)
    (vault / ".ccexport" / "config.toml").write_text(text, encoding="utf-8")
    return vault


def one_session_home(home: Path) -> None:
    projects = home / ".claude" / "projects" / "-home-dev-work-My-App"
    s = ClaudeSession(SESSION_ID, start="2026-11-20T09:00:00Z", cwd="/home/dev/work/My App")
    s.user("List the files")
    s.assistant("Done.")
    s.write(projects / f"{SESSION_ID}.jsonl")


def tags_of(vault: Path) -> list:
    (data,) = note_files(vault).values()
    return frontmatter.loads(data.decode())["tags"]


def tags_after_run(vault: Path, home: Path, prefix: str) -> list:
    """The session note's tags after a run with ``project_tag = prefix``."""
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, project_tag=prefix))
    assert not report.failed
    return tags_of(vault)


def remove_project_tag(vault: Path) -> Path:
    """The person removes the project tag from the session's note (its path)."""
    (path,) = (p for p in vault.rglob("*.md") if SESSION_ID[:8] in p.name)
    path.write_text(path.read_text(encoding="utf-8").replace("- project/my-app\n", ""))
    return path


def project_tag_removed(tmp_path: Path) -> tuple[Callable[[str], list], Path]:
    """A one-session vault exported once, its note's project tag then removed by the
    person: a run with a ``project_tag`` (the note's tags after it), and the note's path."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    one_session_home(home)
    tags_after_run(vault, home, "project")
    return partial(tags_after_run, vault, home), remove_project_tag(vault)


def test_the_default_is_the_project_tag_as_before(tmp_path):
    settings = resolve({"vault": tmp_path / "vault"}, env={})
    assert settings.project_tag == "project"
    assert export_options(settings, None).note_settings().project_tag == "project"
    rows = {key: (value, origin) for key, value, origin in settings.shown()}
    assert rows["frontmatter.project_tag"] == ('"project"', "default")


def test_a_prefix_from_the_config_file_reaches_the_notes_and_config_show(tmp_path):
    vault = vault_with_config(tmp_path, '[frontmatter]\nproject_tag = "ai/project"\n')
    settings = resolve({"vault": vault}, env={})
    assert export_options(settings, None).note_settings().project_tag == "ai/project"
    rows = {key: (value, origin) for key, value, origin in settings.shown()}
    assert rows["frontmatter.project_tag"][0] == '"ai/project"'
    assert "config.toml" in rows["frontmatter.project_tag"][1]


def test_false_means_no_project_tag(tmp_path):
    vault = vault_with_config(tmp_path, "[frontmatter]\nproject_tag = false\n")
    settings = resolve({"vault": vault}, env={})
    assert export_options(settings, None).note_settings().project_tag == ""
    rows = {key: value for key, value, _origin in settings.shown()}
    assert rows["frontmatter.project_tag"] == "false"


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ('""', "is empty"),
        ('"#project"', "without its '#'"),
        ('"my projects"', "a space"),
        ('"/project"', "cannot start or end with '/'"),
        ('"project/"', "cannot start or end with '/'"),
        ('"ai//project"', "'//'"),
        ('"ai.project"', "'.'"),
        ("true", "or false for no project tag"),
        ("3", "or false for no project tag"),
        ('"ai-session-index"', "cannot be 'ai-session-index' or below it"),
        ('"ai-session-index/projects"', "cannot be 'ai-session-index' or below it"),
        ('"ai-session"', "cannot be 'ai-session' or below it"),
        ('"AI-Session/project"', "cannot be 'ai-session' or below it"),
    ],
)
def test_a_bad_prefix_is_a_config_error_naming_the_key(tmp_path, value, said):
    vault = vault_with_config(tmp_path, f"[frontmatter]\nproject_tag = {value}\n")
    with pytest.raises(ConfigError) as caught:
        resolve({"vault": vault}, env={})
    message = str(caught.value)
    assert "'frontmatter.project_tag'" in message and "line 2" in message, message
    assert said in message, message


def test_a_bad_prefix_stops_the_export_with_exit_2(tmp_path):
    vault = vault_with_config(tmp_path, '[frontmatter]\nproject_tag = "my projects"\n')
    result = CliRunner().invoke(app, ["export", "--vault", str(vault), "--home", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "frontmatter.project_tag" in result.output


def test_the_prefix_is_part_of_the_render_fingerprint_and_the_default_is_as_before(tmp_path):
    default = ExportOptions(vault=tmp_path).render_fingerprint()
    assert ExportOptions(vault=tmp_path, project_tag="project").render_fingerprint() == default
    others = {
        ExportOptions(vault=tmp_path, project_tag=prefix).render_fingerprint()
        for prefix in ("ai/project", "")
    }
    assert len(others) == 2 and default not in others


def test_a_changed_prefix_moves_ccexport_s_tag_and_keeps_the_person_s(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    one_session_home(home)

    def run(prefix: str) -> dict:
        report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, project_tag=prefix))
        assert not report.failed
        return {k: report.total(k) for k in ("created", "updated")}

    assert run("project")["created"] == 1
    assert tags_of(vault) == ["ai-session", "ai-session/claude-code", "project/my-app"]
    # The person files the note under their own project too.
    (path,) = (p for p in vault.rglob("*.md") if SESSION_ID[:8] in p.name)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("- project/my-app\n", "- project/my-app\n- project/mine\n"))
    assert "project/mine" in tags_of(vault)

    assert run("ai/project")["updated"] == 1  # the session did not change: the setting did
    assert tags_of(vault) == [
        "ai-session", "ai-session/claude-code", "ai/project/my-app", "project/mine",
    ]  # fmt: skip
    assert run("")["updated"] == 1
    assert tags_of(vault) == ["ai-session", "ai-session/claude-code", "project/mine"]


def test_a_project_tag_the_person_removed_stays_removed_when_the_prefix_changes(tmp_path):
    """review38 M1: the renamed tag is a new one, and was written; docs/sync.md promises a
    tag of ccexport's the person removed stays removed, update after update."""
    run, _ = project_tag_removed(tmp_path)
    assert run("project") == ["ai-session", "ai-session/claude-code"]
    assert run("ai/project") == ["ai-session", "ai-session/claude-code"]
    assert run("ai/project") == ["ai-session", "ai-session/claude-code"]
    assert run("project") == ["ai-session", "ai-session/claude-code"]  # and back


def test_a_project_tag_the_person_kept_follows_the_prefix(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    one_session_home(home)
    for prefix in ("project", "ai/project", "project"):
        run_export(ExportOptions(vault=vault, home=home, timezone=UTC, project_tag=prefix))
        assert tags_of(vault)[-1] == f"{prefix}/my-app"


def test_a_project_tag_the_person_removed_stays_removed_through_a_run_without_project_tags(
    tmp_path,
):
    """With ``project_tag = false`` for a run, the removed tag is not written, so the record
    of what was written no longer holds it: the state remembers the removal apart, and the
    tag does not come back with the default, nor under another prefix."""
    run, path = project_tag_removed(tmp_path)
    vault = tmp_path / "vault"
    note_path = path.relative_to(vault).as_posix()
    for prefix in ("project", "", "", "project", "", "ai/project", "", "project"):
        assert run(prefix) == ["ai-session", "ai-session/claude-code"], prefix
        if not prefix:  # (read back from the state file: the removal, remembered apart)
            (record,) = (r for r in State.load(vault).notes.values() if r.path == note_path)
            assert "project/my-app" in record.removed_tags and record.tags == tags_of(vault)


def test_a_project_tag_the_person_put_back_is_written_again_after_a_run_without(tmp_path):
    """A removal remembered ends when the person puts the tag back: it is theirs again,
    and follows the setting as ccexport's."""
    run, path = project_tag_removed(tmp_path)
    run("")
    path.write_text(path.read_text(encoding="utf-8").replace(
        "- ai-session/claude-code\n", "- ai-session/claude-code\n- project/my-app\n"
    ))  # fmt: skip
    assert run("") == ["ai-session", "ai-session/claude-code", "project/my-app"]
    assert run("project") == ["ai-session", "ai-session/claude-code", "project/my-app"]
    assert run("ai/project") == ["ai-session", "ai-session/claude-code", "ai/project/my-app"]


def test_a_project_tag_ccexport_dropped_itself_comes_back_with_the_setting(tmp_path):
    """``false`` drops the tag from the note: ccexport's doing, not a removal to remember."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    one_session_home(home)
    for prefix, expected in (("project", True), ("", False), ("", False), ("project", True)):
        run_export(ExportOptions(vault=vault, home=home, timezone=UTC, project_tag=prefix))
        assert ("project/my-app" in tags_of(vault)) is expected, prefix
