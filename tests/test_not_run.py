"""A tool call that did not run (``ToolResultPart.not_run``: rejected by the person, not
permitted, cancelled) is shown as such, not as a failure: a callout of its own that says
why, with the call's input and the text the harness returned; it is not counted in
``errors``, and a write or edit that did not run puts no path into ``files``. Both
renderers (the shipped template through Jinja, and session_body) write the same bytes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from conftest import note_files

from exporter.markdown_code import REFERENCE_ENV
from exporter.model import Message, Session, TextPart, ToolCallPart, ToolResultPart
from exporter.notes import NoteSettings, build_note
from exporter.notespec import TurnView
from exporter.stats import edited_files, error_count

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
REJECTION = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
    "it was a file edit, the new_string was NOT written to the file)."
)


def _session(*parts_of_each: tuple) -> Session:
    """A prompt, then one message per tuple of parts (a call's, then its result's)."""
    messages = [Message("user", (TextPart("tidy the repo"),), "u0", T0)]
    for n, parts in enumerate(parts_of_each, 1):
        role = "tool" if all(p.kind == "tool_result" for p in parts) else "assistant"
        messages.append(Message(role, parts, f"m{n}", T0 + timedelta(minutes=n)))
    return Session(
        "claude-code", "5e0c1a77-3f0e-4c52-9a0b-0d1f6b2c7a10", tuple(messages),
        Path("/x.jsonl"), cwd="/w",
    )  # fmt: skip


def _mixed() -> Session:
    return _session(
        (ToolCallPart("Write", {"file_path": "/w/notes.md", "content": "# Notes"}, "t1"),),
        (ToolResultPart(REJECTION, "t1", not_run="rejected"),),
        (ToolCallPart("Bash", {"command": "sleep 100"}, "t2"),),
        (ToolResultPart("", "t2", not_run="cancelled"),),
        (
            ToolCallPart(
                "Edit", {"file_path": "/w/a.py", "old_string": "a", "new_string": "b"}, "t3"
            ),
        ),  # fmt: skip
        (ToolResultPart("Access denied", "t3", not_run="denied"),),
        (ToolCallPart("Task", {"prompt": "Survey the tests"}, "t4", "Survey"),),
        (ToolResultPart(REJECTION, "t4", not_run="rejected"),),
        (ToolResultPart("stopped", "t9", not_run="cancelled"),),  # its call is not in the log
        (
            ToolCallPart(
                "Edit", {"file_path": "/w/b.py", "old_string": "a", "new_string": "b"}, "t5"
            ),
        ),  # fmt: skip
        (ToolResultPart("no match", "t5", is_error=True),),  # a real failure, for contrast
    )


def _note(session: Session, monkeypatch, reference: bool, view: TurnView | None = None):
    if reference:
        monkeypatch.setenv(REFERENCE_ENV, "1")
    else:
        monkeypatch.delenv(REFERENCE_ENV, raising=False)
    settings = NoteSettings(timezone=UTC, view=view or TurnView())
    return build_note(session, "n.md", settings, lambda key: None)


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "jinja"])
def test_a_call_that_did_not_run_says_why_in_a_callout_that_is_no_failure(monkeypatch, reference):
    body = _note(_mixed(), monkeypatch, reference).body
    assert "> [!note]- `Write` — `/w/notes.md` (rejected by the user)\n" in body
    assert "> [!note]- `Bash` — `sleep 100` (cancelled)\n" in body
    assert "> [!note]- `Edit` — `/w/a.py` (not permitted)\n" in body
    assert "> [!note]- Subagent — Survey (rejected by the user)\n" in body
    assert "> [!note]- Tool output (cancelled)\n" in body
    # The only failure is the call that ran and failed.
    failures = [line for line in body.splitlines() if "[!failure]" in line]
    assert failures == ["> [!failure]- `Edit` — `/w/b.py` (error)"]
    # Its input and the text the harness returned are still there.
    assert "> # Notes\n" in body
    assert "> The user doesn't want to proceed with this tool use." in body


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "jinja"])
def test_as_one_line_of_a_list_it_says_why_too(monkeypatch, reference):
    body = _note(_mixed(), monkeypatch, reference, TurnView(tools="summary")).body
    assert "- `Write` — `/w/notes.md` (rejected by the user)\n" in body
    assert "- `Bash` — `sleep 100` (cancelled)\n" in body
    assert "- Subagent — Survey (rejected by the user)\n" in body
    assert "- `Edit` — `/w/b.py` (error)\n" in body


def test_both_renderers_write_the_same_note(monkeypatch):
    for view in (TurnView(), TurnView(tools="summary")):
        fast = _note(_mixed(), monkeypatch, False, view)
        jinja = _note(_mixed(), monkeypatch, True, view)
        assert (fast.body, fast.frontmatter) == (jinja.body, jinja.frontmatter)


def test_it_is_not_an_error_and_changed_no_file(monkeypatch):
    note = _note(_mixed(), monkeypatch, False)
    assert note.frontmatter["errors"] == 1  # the Edit that failed, not the three not run
    assert "files" not in note.frontmatter  # nothing was written: the one write was rejected


def test_a_source_that_also_marks_it_an_error_is_read_the_same():
    """``not_run`` says what happened; an adapter that set ``is_error`` too (as every source
    marks such a call to the model) does not make it a failure."""
    s = _session(
        (ToolCallPart("Write", {"file_path": "/w/x.md", "content": "x"}, "t1"),),
        (ToolResultPart(REJECTION, "t1", is_error=True, not_run="rejected"),),
        (ToolCallPart("Write", {"file_path": "/w/y.md", "content": "y"}, "t2"),),
        (ToolResultPart("ok", "t2"),),
    )
    assert error_count(s) == 0
    assert edited_files(s) == ["y.md"]


@pytest.mark.corpus
def test_the_corpus_sessions_with_a_rejected_call(corpus, tmp_path):
    """Real Claude Code sessions: a Write the person rejected (codemie 9eda1058, lines 20
    and 21) and two parallel calls, one rejected and one stopped beside it (sniffly
    fed8ce56). Each is shown as such, none is counted in ``errors``."""
    from exporter.export import ExportOptions, run_export

    files = {
        "codemie-ai__codemie-code__session-9eda1058.jsonl": "9eda1058-9706-484a-b992-d03f9cfa2546",
        "chiphuyen__sniffly__fed8ce56-bc79-401f-a83e-af084253362f.jsonl":
            "fed8ce56-b6e9-4867-af0c-6941038c9e4b",
    }  # fmt: skip
    projects = tmp_path / "home" / ".claude" / "projects" / "-w-corpus"
    projects.mkdir(parents=True)
    for name, session_id in files.items():
        (projects / f"{session_id}.jsonl").write_bytes((corpus / "claude-code" / name).read_bytes())
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path / "home", timezone=UTC))
    notes = {
        next(sid[:8] for sid in files.values() if sid[:8] in path): text.decode()
        for path, text in note_files(vault).items()
    }
    codemie, sniffly = notes["9eda1058"], notes["fed8ce56"]
    assert (
        "> [!note]- `Write` — `/Users/user/repo/available-tools.md` (rejected by the user)\n"
        in (codemie)
    )
    assert "[!failure]" not in codemie and "\nerrors: 0\n" in codemie
    assert "\nfiles:" not in codemie
    said = [line for line in sniffly.splitlines() if line.startswith("> [!")]
    assert sum(line.endswith("(rejected by the user)") for line in said) == 1
    assert sum(line.endswith("(cancelled)") for line in said) == 1
    assert not any("[!failure]" in line and "doesn't want" in line for line in said)


def test_a_template_written_before_not_run_still_marks_such_a_call(tmp_path):
    """A person's template from before ``not_run`` knows only ``is_error``: a call that
    did not run is one to it, as before, never a call that ran and succeeded."""
    folder = tmp_path / "my-templates"
    folder.mkdir()
    (folder / "session.md.j2").write_text(
        '{% extends "default/session.md.j2" %}\n{% block tool_call %}\n'
        '{{ "did not succeed" if item.is_error else "succeeded" }}: {{ item.name }}\n'
        "{% endblock %}\n"
    )
    settings = NoteSettings(timezone=UTC, templates=folder)
    body = build_note(_mixed(), "n.md", settings, lambda key: None).body
    said = [line for line in body.splitlines() if line.endswith(("Write", "Bash", "Edit"))]
    assert said == [
        "did not succeed: Write", "did not succeed: Bash", "did not succeed: Edit",
        "did not succeed: Edit",
    ]  # fmt: skip


def test_a_block_that_overrides_ours_has_the_words_for_a_call_that_did_not_run(tmp_path):
    folder = tmp_path / "my-templates"
    folder.mkdir()
    (folder / "session.md.j2").write_text(
        '{% extends "default/session.md.j2" %}\n{% block tool_call %}\n'
        "{{ item.name }}: [{{ not_run_words }}]\n{% endblock %}\n"
    )
    settings = NoteSettings(timezone=UTC, templates=folder)
    body = build_note(_mixed(), "n.md", settings, lambda key: None).body
    said = [line for line in body.splitlines() if line.endswith("]")]
    assert said == [
        "Write: [rejected by the user]", "Bash: [cancelled]", "Edit: [not permitted]",
        "Task: [rejected by the user]", "Edit: []",
    ]  # fmt: skip


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "jinja"])
def test_a_plan_turned_down_says_so_as_a_checklist_too(monkeypatch, reference):
    todos = {"todos": [{"content": "Tidy", "status": "pending", "activeForm": "Tidying"}]}
    s = _session(
        (ToolCallPart("TodoWrite", todos, "t1"),),
        (ToolResultPart(REJECTION, "t1", not_run="rejected"),),
        (ToolCallPart("TodoWrite", todos, "t2"),),
        (ToolResultPart("InputValidationError", "t2", is_error=True),),
    )
    body = _note(s, monkeypatch, reference, TurnView(todo_as_checklist=True)).body
    assert "> [!todo] Plan — `TodoWrite` (rejected by the user)\n" in body
    assert "> [!todo] Plan — `TodoWrite` (error)\n" in body


@pytest.mark.corpus
def test_a_corpus_write_whose_permission_was_never_granted_did_not_run(corpus, tmp_path):
    """claude-code-viewer 1af7fc5e, line 26: "Claude requested permissions to write to …,
    but you haven't granted it yet." The Write did not run: not permitted, no error."""
    from exporter.export import ExportOptions, run_export

    name = "d-kimuson__claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    projects = tmp_path / "home" / ".claude" / "projects" / "-w-corpus"
    projects.mkdir(parents=True)
    source = corpus / "claude-code" / name
    (projects / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl").write_bytes(source.read_bytes())
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path / "home", timezone=UTC))
    (text,) = [t.decode() for p, t in note_files(vault).items() if "1af7fc5e" in p]
    assert "> [!note]- `Write` — `/path/to/Demo/CLAUDE.md` (not permitted)\n" in text
    properties = yaml.safe_load(text.split("---\n")[1])
    assert properties["errors"] == 0
    assert not any("CLAUDE.md" in path for path in properties.get("files", []))
