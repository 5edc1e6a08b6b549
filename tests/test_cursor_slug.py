"""Cursor Agent transcripts of a home copied from another machine (``--home`` on a backup):
the working folder is not on this machine and no tool path names it. The folders Cursor
recorded opening (``workspaceStorage/*/workspace.json`` of the same home) name it exactly
when one has the project folder's slug; otherwise the project is the slug as written, never
one ``unknown-project`` folder for every project (audit7 F8)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from conftest import note_files
from cursor_agent_builder import AgentChat, tool
from test_cursor_adapter import CURSOR
from vscode_builder import make_db, workspace

from exporter.adapters.cursor import agent
from exporter.export import ExportOptions, run_export

T0 = datetime(2026, 5, 4, 9, 30, tzinfo=UTC)


def export(home: Path, vault: Path):
    opts = ExportOptions(vault=vault, home=home, sources=["cursor"], timezone=UTC, workers=1)
    return run_export(opts)


def chat(home: Path, cwd: str, cid: str, prompt: str) -> AgentChat:
    made = AgentChat(home, cwd, cid)
    made.user(prompt, T0).reply(f"answer to {prompt}").write()
    return made


def notes_by_folder(vault: Path) -> dict[str, list[str]]:
    """project folder -> its notes' title, project and cwd properties, sorted."""
    found: dict[str, list[str]] = {}
    for rel, body in sorted(note_files(vault).items()):
        folder = Path(rel).parent.name
        head = body.decode().split("\n---\n", 1)[0]
        facts = [ln for ln in head.splitlines() if ln.startswith(("project:", "cwd:", "title:"))]
        found.setdefault(folder, []).append(" | ".join(facts))
    return {folder: sorted(notes) for folder, notes in found.items()}


def test_a_copied_home_files_each_project_by_its_recorded_folder_or_by_its_slug(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    workspace(home / CURSOR, "ws-app", "file:///home/dev/my-app", {})
    workspace(home / CURSOR, "ws-other", "file:///home/dev/elsewhere", {})
    chat(home, "/home/dev/my-app", "app-1", "fix the login")
    corpus = chat(home, "/home/dev/corpus", "corpus-1", "count the files")
    corpus.subagent("corpus-sub").user("list the folder").reply("three files").write()
    chat(home, "/home/dev/corpus", "corpus-2", "sort the files")
    chat(home, "/w/app", "w-app-1", "build the app")
    report = export(home, vault)
    assert not report.failed and report.problems == []
    assert notes_by_folder(vault) == {
        "my-app": ["title: fix the login | project: my-app | cwd: /home/dev/my-app"],
        "home-dev-corpus": [
            "title: count the files | project: home-dev-corpus",
            "title: list the folder | project: home-dev-corpus",
            "title: sort the files | project: home-dev-corpus",
        ],
        "w-app": ["title: build the app | project: w-app"],
    }


def test_two_recorded_folders_of_one_slug_name_neither(tmp_path):
    """``/w/a-b`` and ``/w/a/b`` have one slug: which was opened there is not known."""
    home, vault = tmp_path / "home", tmp_path / "v"
    workspace(home / CURSOR, "ws-1", "file:///w/a-b", {})
    workspace(home / CURSOR, "ws-2", "file:///w/a/b", {})
    chat(home, "/w/a-b", "c1", "which one")
    report = export(home, vault)
    assert report.problems == []
    assert notes_by_folder(vault) == {"w-a-b": ["title: which one | project: w-a-b"]}


def test_a_windows_folder_recorded_as_a_uri_names_its_transcripts_folder(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    workspace(home / CURSOR, "ws-1", "file:///c%3A/Users/me/src/win-app", {})
    chat(home, "C:\\Users\\me\\src\\win-app", "c1", "port it")
    report = export(home, vault)
    assert report.problems == []
    assert notes_by_folder(vault) == {
        "win-app": ["title: port it | project: win-app | cwd: c:/Users/me/src/win-app"]
    }


def test_a_tool_path_still_wins_over_the_recorded_folder(tmp_path):
    """``/home/dev/my/app`` named by a tool is the folder, though ``/home/dev/my-app`` (the
    same slug) was opened: exact evidence of this conversation comes first; a conversation
    of that project folder naming no path takes the recorded folder."""
    home, vault = tmp_path / "home", tmp_path / "v"
    workspace(home / CURSOR, "ws-1", "file:///home/dev/my-app", {})
    made = AgentChat(home, "/home/dev/my/app", "c1")
    made.user("read it", T0).reply(tool("Read", path="/home/dev/my/app/main.py"), "Read.").write()
    chat(home, "/home/dev/my-app", "c2", "just talk")
    export(home, vault)
    assert notes_by_folder(vault) == {
        "app": ["title: read it | project: app | cwd: /home/dev/my/app"],
        "my-app": ["title: just talk | project: my-app | cwd: /home/dev/my-app"],
    }


def test_a_damaged_workspace_record_keeps_the_folder_of_the_last_run(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    record = workspace(home / CURSOR, "ws-app", "file:///home/dev/my-app", {}).parent
    chat(home, "/home/dev/my-app", "c1", "fix the login")
    assert export(home, vault).problems == []
    before = note_files(vault)
    (record / "workspace.json").write_text('{"folder": "file:///home/dev/my-a', encoding="utf-8")
    report = export(home, vault)
    (problem,) = report.problems
    assert problem.path == str(record / "workspace.json") and problem.severity == "warning"
    assert problem.message.startswith("could not be read (")
    assert problem.message.endswith(
        "; until it can be read, the working folders it gives are kept from the last run"
    )
    assert note_files(vault) == before and report.total("written") == 0


def test_an_unknown_project_note_of_an_older_vault_takes_its_project_and_keeps_its_edits(
    tmp_path, monkeypatch
):
    """A vault written before: the transcript's note is in ``unknown-project/``. Once its
    folder is known, the note is rewritten where it is (the vault never moves a note: the
    person may have put it there), with its project, tag and folder, filed in that
    project's index and no longer in ``unknown-project``'s; the person's words stay."""
    home, vault = tmp_path / "home", tmp_path / "v"
    chat(home, "/home/dev/my-app", "c1", "fix the login")
    with monkeypatch.context() as before:  # as this version did: the slug was not read
        before.setattr(agent, "slug_of", lambda path: None)
        export(home, vault)
    (old,) = [vault / rel for rel in note_files(vault)]
    assert old.parent.name == "unknown-project"
    assert "project: unknown-project\n" in old.read_text() and "cwd:" not in old.read_text()
    old.write_text(old.read_text() + "\nMy own words about the login.\n", encoding="utf-8")
    workspace(home / CURSOR, "ws-app", "file:///home/dev/my-app", {})
    report = export(home, vault)
    assert report.problems == [] and report.total("conflicts") == 0
    assert report.total("updated") == 1
    assert [vault / rel for rel in note_files(vault)] == [old]
    text = old.read_text()
    assert "project: my-app\n" in text and "cwd: /home/dev/my-app\n" in text
    assert "- project/my-app\n" in text and "> [!info] Cursor · my-app ·" in text
    assert text.endswith("\nMy own words about the login.\n")
    projects = vault / "AI Sessions" / "Projects"
    assert "[[2026-05-04 fix the login c1|fix the login]]" in (projects / "my-app.md").read_text()
    assert "fix the login" not in (projects / "unknown-project.md").read_text()
    assert export(home, vault).total("written") == 0  # and it stays so


def headers(*folders: str) -> dict:
    """The global database's ``composer.composerHeaders``, a composer in each folder."""
    return {
        "composer.composerHeaders": {
            "allComposers": [
                {"composerId": f"h-{n}", "workspaceIdentifier": {"id": f"w{n}", "uri": {
                    "fsPath": folder, "path": folder, "scheme": "file"}}}
                for n, folder in enumerate(folders)
            ]
        }
    }  # fmt: skip


def test_a_folder_the_composer_headers_name_names_a_transcripts_folder(tmp_path):
    """No ``workspaceStorage`` in the copy (left out of the backup), but the global
    database's headers name the folder a composer was in."""
    home, vault = tmp_path / "home", tmp_path / "v"
    make_db(home / CURSOR / "globalStorage" / "state.vscdb", headers("/home/dev/tool"), {})
    chat(home, "/home/dev/tool", "c1", "sharpen it")
    report = export(home, vault)
    assert report.problems == []
    assert notes_by_folder(vault) == {
        "tool": ["title: sharpen it | project: tool | cwd: /home/dev/tool"]
    }


def test_a_global_database_that_cannot_be_read_keeps_the_folder_of_the_last_run(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    db = make_db(home / CURSOR / "globalStorage" / "state.vscdb", headers("/home/dev/tool"), {})
    chat(home, "/home/dev/tool", "c1", "sharpen it")
    assert export(home, vault).problems == []
    before = note_files(vault)
    db.write_bytes(b"this is no database at all" * 100)
    report = export(home, vault)
    said = [p for p in report.problems if "working folders" in p.message]
    # (one report of the database: its own error, naming what waits on it)
    assert [(p.path, p.severity) for p in said] == [(str(db), "error")]
    assert said[0].message.endswith(
        "; until it can be read, the working folders it gives are kept from the last run"
    )
    assert note_files(vault) == before and report.total("written") == 0


def test_the_records_are_read_once_a_run_and_a_workspace_file_is_no_folder(tmp_path, monkeypatch):
    """Every ``workspace.json`` once, whatever the number of project folders and
    transcripts; a multi-root workspace names a ``.code-workspace`` file, never a working
    folder."""
    from exporter.adapters.cursor import agent_store

    home, vault = tmp_path / "home", tmp_path / "v"
    workspace(home / CURSOR, "ws-1", "file:///home/dev/one", {})
    workspace(home / CURSOR, "ws-2", "file:///w/multi.code-workspace", {})
    for n in range(3):
        chat(home, "/home/dev/one", f"one-{n}", f"first {n}")
        chat(home, "/home/dev/two", f"two-{n}", f"second {n}")
    chat(home, "/w/multi.code-workspace", "multi", "not a folder")
    read: list[Path] = []
    real = agent_store.folder_of_workspace
    monkeypatch.setattr(agent_store, "folder_of_workspace", lambda d, *a: read.append(d) or real(d, *a))  # fmt: skip
    assert export(home, vault).problems == []
    assert sorted(p.name for p in read) == ["ws-1", "ws-2"]
    found = notes_by_folder(vault)
    assert found["one"][0] == "title: first 0 | project: one | cwd: /home/dev/one"
    assert found["home-dev-two"][0] == "title: second 0 | project: home-dev-two"
    assert found["w-multi-code-workspace"] == [
        "title: not a folder | project: w-multi-code-workspace"
    ]


def test_the_workspace_path_of_the_user_info_names_the_folder(tmp_path):
    """The first prompt's ``<user_info>`` says ``Workspace Path: /Users/me/src/my-app``: one
    folder is one project, whether or not a tool call named a path in it (review20 F1)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    AgentChat(home, "/Users/me/src/my-app", "c1").user("hello", T0, info=True).reply("hi").write()
    named = AgentChat(home, "/Users/me/src/my-app", "c2").user("read it", T0, info=True)
    named.reply(tool("Read", path="/Users/me/src/my-app/main.py"), "Read.").write()
    report = export(home, vault)
    assert not report.failed and report.problems == []
    assert notes_by_folder(vault) == {
        "my-app": [
            "title: hello | project: my-app | cwd: /Users/me/src/my-app",
            "title: read it | project: my-app | cwd: /Users/me/src/my-app",
        ]
    }


def test_a_workspace_path_of_another_slug_is_not_trusted_and_a_windows_one_is_read(tmp_path):
    """A ``Workspace Path:`` whose slug is not the project folder's names nothing (the slug
    stands); a Windows one is read by its form, on any system."""
    home, vault = tmp_path / "home", tmp_path / "v"
    info = "<user_info>\nOS Version: linux\nWorkspace Path: /Users/me/elsewhere\n</user_info>"
    other = AgentChat(home, "/Users/me/src/my-app", "c1")
    other.user(f"{info}\n<user_query>\nodd one\n</user_query>", query=False).reply("ok").write()
    win = AgentChat(home, "C:\\Users\\me\\src\\win-app", "c2").user("port it", T0, info=True)
    win.reply("ok").write()
    report = export(home, vault)
    assert report.problems == []
    assert notes_by_folder(vault) == {
        "Users-me-src-my-app": ["title: odd one | project: Users-me-src-my-app"],
        "win-app": ["title: port it | project: win-app | cwd: C:\\Users\\me\\src\\win-app"],
    }
