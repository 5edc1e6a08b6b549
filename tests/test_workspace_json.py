"""A ``workspace.json`` (which folder an editor's workspace storage stands for) that is
JSON but holds no folder's URI was passed over in silence: the sessions of the workspace
lost their project and nothing said why. It is said as the unreadable one is."""

from __future__ import annotations

import pytest
from test_copilot_adapter import SID, USER, base, load, texts, write

from exporter.adapters import SourceContext
from exporter.adapters.copilot import CopilotAdapter


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ('{"folder": 7}', "names its folder by a number, not text"),
        ('{"folder": ["file:///w"]}', "names its folder by a list, not text"),
        ('{"folder": null}', "names no folder"),
        ("{}", "names no folder"),
        ("[1]", "is a list, not an object"),
        ('"file:///w"', "is text, not an object"),
    ],
)
def test_a_workspace_json_naming_no_folder_is_said(tmp_path, content, why):
    user = tmp_path / USER
    write(user / "workspaceStorage" / "ws1" / "chatSessions" / f"{SID}.json", base())
    path = user / "workspaceStorage" / "ws1" / "workspace.json"
    path.write_text(content)
    (s,), problems = load(tmp_path)
    assert texts(s, "user") and s.project is None
    assert [(p.path, p.severity, p.message) for p in problems] == [
        (str(path), "warning", f"{why}; the project of its sessions is unknown this run")
    ]


@pytest.mark.parametrize(
    ("content", "project"),
    [('{"folder": "file:///home/dev/shop"}', "shop"),
     ('{"workspace": "file:///home/dev/all.code-workspace"}', "all")],
)  # fmt: skip
def test_a_folder_or_a_workspace_file_is_read_without_a_word(tmp_path, content, project):
    user = tmp_path / USER
    write(user / "workspaceStorage" / "ws1" / "chatSessions" / f"{SID}.json", base())
    (user / "workspaceStorage" / "ws1" / "workspace.json").write_text(content)
    (s,), problems = load(tmp_path)
    assert s.project == project and problems == []


def test_a_workspace_json_that_is_a_folder_is_said_without_its_path_twice(tmp_path):
    user = tmp_path / USER
    write(user / "workspaceStorage" / "ws1" / "chatSessions" / f"{SID}.json", base())
    (user / "workspaceStorage" / "ws1" / "workspace.json").mkdir()
    (_s,), (problem,) = load(tmp_path)
    assert problem.message == (
        "could not be read (a folder, not a file); the project of its sessions is unknown this run"
    )


def test_a_chat_file_that_cannot_be_opened_is_said_by_its_reason(tmp_path):
    """It was said with the exception's text: the errno and the path again. (Found, then
    made a folder before it is read: a sync tool replacing it.)"""
    user = tmp_path / USER
    chat = user / "workspaceStorage" / "ws1" / "chatSessions" / f"{SID}.json"
    write(chat, base())
    adapter = CopilotAdapter()
    (ref,) = adapter.discover(SourceContext(tmp_path, {}, False))
    chat.unlink()
    chat.mkdir()
    problems = adapter.load(ref).problems
    assert [(p.path, p.severity, p.message) for p in problems] == [
        (
            str(chat),
            "error",
            "could not be read (a folder, not a file)",
        )
    ]
