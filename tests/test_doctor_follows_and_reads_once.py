"""``ccexport doctor`` on a vault whose notes' folder the person renamed in Obsidian checks
the folder the run follows for a symbolic link, not the configured name, gone since the
rename (vault5 item 4). And it reads the vault's state once and makes its sample note
once with each template, however many checks ask: on a vault of 20,000 notes each
reading of the state is a second (vault5 item 5)."""

from __future__ import annotations

import json
import os
import shutil

from test_conflicts_in_followed_folder import renamed_and_followed
from typer.testing import CliRunner
from vault_builder import export, write_session

from exporter import notes
from exporter.cli import app
from exporter.render import default_templates_dir
from exporter.state import State


def _doctor(vault, home) -> list[dict]:
    result = CliRunner().invoke(
        app, ["doctor", "--vault", str(vault), "--home", str(home), "--json"]
    )
    return json.loads(result.stdout)["checks"]


def test_doctor_names_the_renamed_notes_folder_when_it_is_a_link(tmp_path):
    home, vault = renamed_and_followed(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    os.rename(vault / "Chats", elsewhere)  # (then kept outside the vault, linked in)
    (vault / "Chats").symlink_to(elsewhere, target_is_directory=True)
    checks = _doctor(vault, home)
    linked = [c for c in checks if c["message"].startswith(f"{vault / 'Chats'} (to {elsewhere})")]
    assert [c["status"] for c in linked] == ["attention"], checks
    assert "point --vault at the vault that holds the real folder" in linked[0]["message"]


def test_doctor_reads_the_state_once_and_makes_each_sample_note_once(tmp_path, monkeypatch):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_session(home, ["first question"])
    export(vault, home)
    templates = vault / ".ccexport" / "templates"
    templates.mkdir()
    for name in ("session.md.j2", "project_index.md.j2", "projects_index.md.j2"):
        shutil.copy(default_templates_dir() / name, templates / name)
    loads, made = [], []
    real_load, real_build = State._load.__func__, notes.build_note

    def load(cls, root):
        loads.append(root)
        return real_load(cls, root)

    def build_note(session, *args, **kwargs):
        made.append(args[1].templates)
        return real_build(session, *args, **kwargs)

    monkeypatch.setattr(State, "_load", classmethod(load))
    monkeypatch.setattr(notes, "build_note", build_note)
    checks = _doctor(vault, home)
    assert any("session notes recorded" in c["message"] for c in checks), checks
    assert any("overrides the default" in c["message"] for c in checks), checks
    assert len(loads) == 1, loads  # (before: 3, for the vault, notes gone, the render)
    assert sorted(map(str, made)) == sorted([str(templates), "None"]), made  # (before: 4)
