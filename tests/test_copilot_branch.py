"""VS Code records no branch for a Copilot chat; Copilot tells the model the workspace's
branch in the ``<repoContext>`` it adds to the prompt it sends (kept in the request's
``result.metadata.renderedUserMessage``). That branch is the note's ``git_branch``, the
last request's, so a Base filtered by branch finds these chats too (review42 L2)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import CORPUS, load_sessions
from copilot_builder import markdown, request, session, write

from exporter.adapters.copilot import CopilotAdapter

USER = Path(".config") / "Code" / "User"
SID = "5e55104d-0000-4000-8000-000000000002"


def _sent(branch: str | None) -> dict:
    context = "Repository name: app\nOwner: me\n"
    if branch:
        context += f"Current branch: {branch}\nDefault branch: main\n"
    text = f"<context>\nThe current date is today.\n</context>\n<repoContext>\n{context}</repoContext>\n"
    return {"timings": {"totalElapsed": 5_000},
            "metadata": {"renderedUserMessage": [{"type": 1, "text": text}]}}  # fmt: skip


def _branch_of(tmp_path: Path, *branches: str | None, context: bool = True) -> str | None:
    requests = [
        request(
            n, f"question {n}", [markdown("answer")], **({"result": _sent(b)} if context else {})
        )
        for n, b in enumerate(branches)
    ]
    chats = tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions"
    write(chats / f"{SID}.json", session(SID, requests))
    (chats.parent / "workspace.json").write_text(json.dumps({"folder": "file:///w/app"}))
    (found,), problems = load_sessions(CopilotAdapter(), tmp_path)
    assert problems == []
    return found.git_branch


def test_the_branch_copilot_told_the_model_is_the_notes(tmp_path):
    assert _branch_of(tmp_path, "feature/login-fix") == "feature/login-fix"


def test_the_last_request_that_says_gives_the_branch(tmp_path):
    assert _branch_of(tmp_path, "main", "feature/two", None) == "feature/two"


def test_no_branch_where_copilot_said_none(tmp_path):
    assert _branch_of(tmp_path, None) is None
    assert _branch_of(tmp_path / "b", None, context=False) is None  # (nothing sent recorded)


def test_the_corpus_chat_has_its_branch(tmp_path):
    source = CORPUS / "copilot" / "Piebald-AI__splitrail__copilot.json"
    if not source.is_file():
        pytest.skip("../shared/corpus is not beside this clone (CI has it)")
    data = json.loads(source.read_text(encoding="utf-8"))
    chats = tmp_path / USER / "workspaceStorage" / "ws" / "chatSessions"
    chats.mkdir(parents=True)
    shutil.copyfile(source, chats / f"{data['sessionId']}.json")
    (chats.parent / "workspace.json").write_text(json.dumps({"folder": "file:///w/splitrail"}))
    (found,), _ = load_sessions(CopilotAdapter(), tmp_path)
    assert found.git_branch == "sample/main"
