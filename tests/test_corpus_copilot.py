"""Every VS Code chat session file in ../shared/corpus/copilot (the flat .json and the
kind 0/1/2 .jsonl logs) exports without a crash, every prompt and every markdown part of
every response findable in the notes. (The corpus's Copilot CLI event streams are another
product's format and not part of this source.)"""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC

import pytest
from conftest import normalize, note_files

from exporter.adapters.copilot_replay import replay
from exporter.export import ExportOptions, run_export

pytestmark = pytest.mark.corpus
VSCODE_FILES = [
    "Piebald-AI__splitrail__copilot.json",
    "git-ai-project__git-ai__copilot_session_simple.json",
    "git-ai-project__git-ai__copilot_session_simple.jsonl",
    "git-ai-project__git-ai__copilot_session_multiline.jsonl",
]


def test_vscode_chat_sessions_export_and_nothing_is_lost(corpus, tmp_path):
    user = tmp_path / "home" / ".config" / "Code" / "User"
    sessions = []
    for i, name in enumerate(VSCODE_FILES):
        source = corpus / "copilot" / name
        data = replay(source, []) if name.endswith(".jsonl") else json.loads(source.read_text())
        sessions.append(data)
        ext = ".jsonl" if name.endswith(".jsonl") else ".json"
        chats = user / "workspaceStorage" / f"ws{i}" / "chatSessions"
        chats.mkdir(parents=True)
        shutil.copyfile(source, chats / f"{data['sessionId']}{ext}")
        (chats.parent / "workspace.json").write_text(
            json.dumps({"folder": f"file:///w/project{i}"})
        )
    report = run_export(
        ExportOptions(
            vault=tmp_path / "v", home=tmp_path / "home", sources=["copilot"], timezone=UTC
        )
    )
    assert not report.failed, report.problems
    notes = note_files(tmp_path / "v")
    everything = normalize("\n".join(b.decode() for b in notes.values()))
    checked, missing = 0, []
    for data in sessions:
        for req in data["requests"]:
            texts = [(req["message"]["text"], False)]
            # markdown parts, as the answer shows them (inline references become names)
            texts += [
                (p["value"], True)
                for p in req["response"]
                if isinstance(p, dict) and "kind" not in p
            ]
            for text, markdown in texts:
                if text.strip():
                    checked += 1
                    if normalize(text, escaped=markdown) not in everything:
                        missing.append(text[:100])
    assert checked > 40 and missing == []
    # the same session in two workspaces (the corpus has one as .json and as .jsonl) is one note
    assert len(notes) == len({d["sessionId"] for d in sessions})


def test_token_counts_recorded_in_results_are_read(corpus, tmp_path):
    from conftest import load_sessions

    from exporter.adapters.copilot import CopilotAdapter

    name = "git-ai-project__git-ai__copilot_session_multiline.jsonl"
    data = replay(corpus / "copilot" / name, [])
    chats = tmp_path / ".config" / "Code" / "User" / "workspaceStorage" / "ws" / "chatSessions"
    chats.mkdir(parents=True)
    shutil.copyfile(corpus / "copilot" / name, chats / f"{data['sessionId']}.jsonl")
    (session,), _ = load_sessions(CopilotAdapter(), tmp_path)
    # the two requests whose results record usage: 9723 + 9948 prompt, 33 + 40 completion
    assert (session.usage.input_tokens, session.usage.output_tokens) == (19_671, 73)


def _export_one(corpus, tmp_path, name: str) -> str:
    data = replay(corpus / "copilot" / name, []) if name.endswith(".jsonl") else None
    data = data or json.loads((corpus / "copilot" / name).read_text())
    chats = tmp_path / "home" / ".config" / "Code" / "User" / "workspaceStorage" / "ws"
    (chats / "chatSessions").mkdir(parents=True)
    ext = ".jsonl" if name.endswith(".jsonl") else ".json"
    shutil.copyfile(corpus / "copilot" / name, chats / "chatSessions" / f"{data['sessionId']}{ext}")
    options = ExportOptions(
        vault=tmp_path / "v", home=tmp_path / "home", sources=["copilot"], timezone=UTC
    )
    assert not run_export(options).failed
    (note,) = note_files(tmp_path / "v").values()
    return note.decode()


def test_the_attached_selection_and_files_are_shown_with_their_text(corpus, tmp_path):
    """The text of each attachment (5 in these two sessions: an attached file, the selection
    'Bonjour World' twice, two files open in the editor) is in Copilot's record of the prompt
    it sent; the note shows it where it was asked about, not 'not stored in the session'."""
    note = _export_one(
        corpus, tmp_path / "a", "git-ai-project__git-ai__copilot_session_simple.json"
    )
    assert "not stored in the session" not in note
    # VS Code sent the selection on its own: said so, not "Attached" (the person did not)
    selection = (
        "> [!cite] Selected in the editor `/Users/svarlamov/projects/testing-git/index.ts:10`\n"
    )
    assert note.count(selection) == 2
    assert selection + "> ```typescript\n> Bonjour World\n> ```\n" in note
    assert selection + "> ```typescript\n> hello world\n> ```\n" in note
    assert "User's active" not in note  # Copilot's words around the text, not the person's
    splitrail = _export_one(corpus, tmp_path / "b", "Piebald-AI__splitrail__copilot.json")
    assert "not stored in the session" not in splitrail
    assert (
        "Open in the editor `/home/sample/workspace/splitrail/src/analyzers/kilo_code.rs`"
        in splitrail
    )
    assert "pub struct KiloCodeAnalyzer;" in splitrail


def test_an_edit_comes_before_the_text_that_follows_it(corpus, tmp_path):
    """VS Code shows an edit where its (empty) code block is in the answer: the edit comes
    before 'Done! I've changed…', not after it."""
    note = _export_one(
        corpus, tmp_path / "a", "git-ai-project__git-ai__copilot_session_simple.json"
    )
    edit = note.index(
        "> [!example]- `copilot_replaceString` — `/Users/svarlamov/projects/testing-git/index.ts`"
    )
    assert note.index('I\'ll change "Bonjour World"') < edit < note.index("Done! I've changed")
    # what the edit replaced, from the model's own call: "Bonjour World" gone, "hello world" in
    shown = note[edit : note.index("Done! I've changed")]
    assert "console.log('Bonjour World');" in shown and "console.log('hello world');" in shown
    jokes = _export_one(
        corpus, tmp_path / "b", "git-ai-project__git-ai__copilot_session_multiline.jsonl"
    )
    assert jokes.index(
        "`copilot_insertEdit` — `/Users/svarlamov/projects/testing-git/jokes.csv`"
    ) < jokes.index("I added a joke about")
    assert "\n\n\n" not in jokes.split("%% ccexport:begin")[1]  # no blank lines where it was


def test_the_corpus_calls_keep_what_they_show(corpus, tmp_path):
    """(Guard.) None of the corpus's calls failed, was denied by a hook or is an edit call
    VS Code showed: reading ``resultError``, merging a shown edit call with its edits and
    saying a hook's denial once change none of these notes. Each call is one callout, a
    success, under its tool's name, and each edit is named after the call that made it."""
    shown = {
        "Piebald-AI__splitrail__copilot.json": {
            "copilot_findTextInFiles": 5,
            "copilot_readFile": 8,
        },
        "git-ai-project__git-ai__copilot_session_simple.json": {
            "copilot_findTextInFiles": 1,
            "copilot_replaceString": 1,
        },
        "git-ai-project__git-ai__copilot_session_multiline.jsonl": {
            "copilot_insertEdit": 1,
            "copilot_readFile": 1,
        },
    }
    for n, (name, calls) in enumerate(shown.items()):
        note = _export_one(corpus, tmp_path / str(n), name)
        callouts = re.findall(r"(?m)^> \[!(\w+)\]- `([^`]+)`", note)
        assert sorted(callouts) == sorted(
            ("example", tool) for tool, count in calls.items() for _ in range(count)
        ), name
        assert f"tool_calls: {sum(calls.values())}\n" in note and "errors: 0\n" in note
        assert "(error)" not in note
        # The one notification: the multiline chat was saved with its edit neither kept nor
        # undone (``hasPendingEdits: true``), said after its last reply.
        pending = "the assistant's edits were neither kept nor undone."
        expected = int(name.endswith("multiline.jsonl"))
        assert (note.count("Notification"), note.count(pending)) == (expected, expected), name
        if expected:
            assert note.index(pending) > note.rindex("### Assistant"), name
