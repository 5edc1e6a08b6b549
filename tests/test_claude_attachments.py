"""Claude Code's ``attachment`` lines (docs/sources/claude-code.md has the table): the ones
that are evidence of what happened in the session are shown (a file the person attached
with ``@``, a file changed outside the session, a hook that blocked or failed, plan mode
and ultra effort entered and left, lines selected in the editor's diff view); the ones
that are only what the harness told the model leave no trace and no warning. All were
dropped but the editor's and queued prompts. Synthetic data only."""

from __future__ import annotations

import pytest
from claude_builder import ClaudeSession, both_readings
from conftest import the_exported_note
from test_claude_adapter import SID, load_all, only, projects

from exporter.model import AttachmentPart, NoticePart

FILE = {
    "type": "file",
    "filename": "/home/dev/shop/cart.py",
    "displayPath": "cart.py",
    "content": {
        "type": "text",
        "file": {
            "filePath": "/home/dev/shop/cart.py",
            "content": "def total(items):\n    return sum(items)\n",
            "numLines": 2,
            "startLine": 1,
            "totalLines": 2,
        },
    },
}
EDITED = {"type": "edited_text_file", "filename": "/home/dev/shop/tax.py", "snippet": "1\tx = 2"}
BLOCKED = {
    "type": "hook_blocking_error",
    "hookName": "PreToolUse:Bash",
    "toolUseID": "toolu_01",
    "hookEvent": "PreToolUse",
    "blockingError": {"blockingError": "rm -rf is not allowed", "command": "guard.sh"},
}
FAILED = {
    "type": "hook_non_blocking_error",
    "hookName": "PostToolUse:Edit",
    "toolUseID": "toolu_02",
    "hookEvent": "PostToolUse",
    "stderr": "prettier: command not found",
    "stdout": "",
    "exitCode": 127,
    "command": "prettier --write",
    "durationMs": 12,
}
PLAN = {"type": "plan_mode", "reminderType": "full", "isSubAgent": False,
        "planFilePath": "/home/dev/.claude/plans/p.md", "planExists": False}  # fmt: skip
PLAN_AGAIN = {**PLAN, "reminderType": "sparse"}
PLAN_EXIT = {"type": "plan_mode_exit", "planFilePath": "/home/dev/.claude/plans/p.md",
             "planExists": True}  # fmt: skip
EFFORT = {"type": "ultra_effort_enter", "reminderType": "full"}
EFFORT_EXIT = {"type": "ultra_effort_exit"}
DIFF_SELECTION = {
    "type": "selected_lines_in_diff",
    "filename": "/home/dev/shop/cart.py",
    "lineStart": 2,
    "lineEnd": 2,
    "content": "    return sum(items)",
}

# Only what the harness told the model: the kinds of the corpus and ``diagnostics``
LEFT_OUT = [
    {"type": "hook_success", "hookName": "SessionStart:startup", "hookEvent": "SessionStart",
     "content": "", "stdout": "{}", "stderr": "", "exitCode": 0, "command": "h", "durationMs": 3},
    {"type": "hook_additional_context", "hookName": "UserPromptSubmit", "toolUseID": "t",
     "hookEvent": "UserPromptSubmit", "content": ["Today is a holiday."]},
    {"type": "agent_listing_delta", "isInitial": True, "addedTypes": ["Explore"],
     "removedTypes": [], "addedLines": ["- Explore: finds files"], "showConcurrencyNote": False},
    {"type": "command_permissions", "allowedTools": ["Bash(git:*)"]},
    {"type": "deferred_tools_delta", "addedNames": ["WebFetch"], "removedNames": [],
     "readdedNames": [], "addedLines": ["WebFetch"], "pendingMcpServers": [],
     "needsAuthMcpServers": []},
    {"type": "mcp_instructions_delta", "addedNames": ["docs"], "removedNames": [],
     "addedBlocks": ["Use docs for the manual."]},
    {"type": "nested_memory", "path": "/home/dev/shop/CLAUDE.md", "displayPath": "CLAUDE.md",
     "content": {"type": "memory", "path": "/home/dev/shop/CLAUDE.md", "content": "Use tabs.",
                 "contentDiffersFromDisk": False}},
    {"type": "skill_listing", "isInitial": True, "names": ["pdf"], "skillCount": 1,
     "content": "- pdf: reads PDFs"},
    {"type": "dynamic_skill", "skillDir": "/home/dev/shop/.claude/skills",
     "skillNames": ["lint"], "displayPath": ".claude/skills"},
    {"type": "invoked_skills", "skills": [{"name": "pdf", "path": "p", "content": "Read it."}]},
    {"type": "task_reminder", "itemCount": 1, "content": [{"id": "1", "subject": "tax",
     "description": "add tax", "activeForm": "Adding tax", "status": "pending",
     "blockedBy": [], "blocks": []}]},
    {"type": "todo_reminder", "itemCount": 1, "content": [{"content": "add tax",
     "status": "pending", "activeForm": "Adding tax"}]},
    {"type": "task_status", "taskId": "b1", "taskType": "local_bash", "description": "npm test",
     "status": "completed", "deltaSummary": None, "outputFilePath": "/tmp/b1.out"},
    {"type": "date_change", "newDate": "2026-03-02"},
    {"type": "read_truncation_notice", "banner": "Only the first 2000 lines.",
     "toolUseID": "t"},
    {"type": "compact_file_reference", "filename": "/home/dev/shop/big.py",
     "displayPath": "big.py"},
    {"type": "auto_mode"},
    {"type": "auto_mode", "autoModeConsentFlow": False, "bashFirst": False,
     "steerOnly": False, "bypass": False},
    {"type": "budget_usd", "used": 1.5, "total": 5, "remaining": 3.5},
    {"type": "total_tokens_reminder", "text": "120,000 tokens used."},
    {"type": "batching_reminder_sent", "text": "Batch your tool calls.", "model": "m"},
    {"type": "silent_turn_reminder", "text": "Say something."},
    {"type": "diagnostics", "isNew": True, "files": [{"uri": "file:///home/dev/shop/cart.py",
     "diagnostics": [{"message": "unused name", "severity": "Warning",
                      "range": {"start": {"line": 1, "character": 0},
                                "end": {"line": 1, "character": 4}}}]}]},
]  # fmt: skip


def _session(*between: dict, after_reply: tuple[dict, ...] = ()) -> ClaudeSession:
    s = ClaudeSession(SID, "/home/dev/shop")
    s.user("why is @cart.py wrong?")
    for attachment in between:
        s.raw(s._envelope("attachment", attachment=attachment))
    s.assistant("It sums the items, not their prices.")
    for attachment in after_reply:
        s.raw(s._envelope("attachment", attachment=attachment))
    s.user("and the tax?")
    s.assistant("Tax is added once.")
    return s


def _load(tmp_path, s: ClaudeSession):
    s.write(projects(tmp_path, "-home-dev-shop") / f"{SID}.jsonl")
    sessions, problems = load_all(tmp_path)
    return only(sessions), problems


def _notices(session) -> list[str]:
    return [p.text for m in session.messages for p in m.parts
            if isinstance(p, NoticePart) and p.notice == "notification"]  # fmt: skip


def test_a_file_the_person_attached_goes_with_their_prompt(tmp_path):
    session, problems = _load(tmp_path, _session(FILE))
    assert problems == []
    prompt = session.messages[0]
    assert prompt.role == "user" and prompt.parts[-1] == AttachmentPart(
        "text/plain", b"def total(items):\n    return sum(items)\n", "cart.py"
    )


def test_a_file_read_again_after_a_compaction_is_the_harnesss(tmp_path):
    # No prompt waits for it (the reply came between): Claude Code restoring what the
    # model had read, not the person attaching it
    session, _ = _load(tmp_path, _session(after_reply=(FILE,)))
    assert not any(isinstance(p, AttachmentPart) for m in session.messages for p in m.parts)


def test_a_hook_that_blocked_or_failed_and_a_file_changed_outside_are_notices(tmp_path):
    session, problems = _load(tmp_path, _session(EDITED, BLOCKED, FAILED))
    assert problems == []
    assert _notices(session) == [
        "/home/dev/shop/tax.py changed since Claude Code read it (an edit of the user's, a linter or a command)",
        "A hook blocked the tool call (PreToolUse:Bash): rm -rf is not allowed",
        "A hook failed (PostToolUse:Edit, exit code 127): prettier: command not found",
    ]


def test_a_mode_is_said_where_it_changed_not_at_every_reminder(tmp_path):
    s = _session(PLAN, after_reply=(PLAN_AGAIN, PLAN_AGAIN, EFFORT, PLAN_EXIT, EFFORT_EXIT))
    session, problems = _load(tmp_path, s)
    assert problems == []
    assert _notices(session) == [
        "Plan mode entered", "Ultra effort entered", "Plan mode left", "Ultra effort left"
    ]  # fmt: skip


def test_lines_selected_in_the_diff_view_are_the_editors_selection(tmp_path):
    session, _ = _load(tmp_path, _session(DIFF_SELECTION))
    (part,) = [p for p in session.messages[0].parts if isinstance(p, AttachmentPart)]
    assert (part.origin, part.name, part.data) == (
        "editor-selection", "/home/dev/shop/cart.py:2", b"    return sum(items)"
    )  # fmt: skip


def test_the_note_shows_each_kind_shown(tmp_path):
    s = _session(FILE, DIFF_SELECTION, EDITED, BLOCKED, FAILED, PLAN,
                 after_reply=(PLAN_AGAIN, EFFORT, PLAN_EXIT, EFFORT_EXIT))  # fmt: skip
    s.write(projects(tmp_path, "-home-dev-shop") / f"{SID}.jsonl")
    note = the_exported_note(tmp_path, "claude-code")
    first_turn = note.split("### User", 2)[1]
    assert "> [!cite] Attached `cart.py`" in first_turn
    assert ">     return sum(items)" in first_turn
    assert "> [!cite] Selected in the editor `/home/dev/shop/cart.py:2`" in first_turn
    for said in (
        "/home/dev/shop/tax.py changed since Claude Code read it (an edit of the user's, a linter or a command)",
        "A hook blocked the tool call (PreToolUse:Bash): rm -rf is not allowed",
        "A hook failed (PostToolUse:Edit, exit code 127): prettier: command not found",
        "Plan mode entered",
        "Ultra effort entered",
        "Plan mode left",
        "Ultra effort left",
    ):
        assert note.count(f"> [!info] Notification\n>\n> {said}\n") == 1, said
    assert "\nprompts: 2\n" in note


@pytest.mark.parametrize("attachment", LEFT_OUT, ids=lambda a: a["type"])
def test_what_the_harness_told_the_model_leaves_no_trace(tmp_path, attachment):
    without, _ = _load(tmp_path / "without", _session())
    session, problems = _load(tmp_path / "with", _session(attachment, after_reply=(attachment,)))
    assert problems == []
    # (the lines' times differ: the builder's clock ticks per line)
    assert [(m.role, m.parts) for m in session.messages] == [
        (m.role, m.parts) for m in without.messages
    ]


def test_the_lines_read_as_a_long_session_is_streamed(tmp_path):
    s = _session(FILE, EDITED, BLOCKED, PLAN, *LEFT_OUT, after_reply=(PLAN_EXIT, FILE))
    path = s.write(projects(tmp_path, "-home-dev-shop") / f"{SID}.jsonl")
    streamed, whole = both_readings(path)
    assert streamed == whole


def test_an_image_is_attached_as_its_bytes_and_another_kind_by_its_name():
    from claude_builder import tiny_png

    from exporter.adapters.claude_attachments import attached_file

    png = tiny_png()
    image = {"type": "file", "filename": "/w/a.png", "content": {"type": "image", "file": {
        "base64": __import__("base64").b64encode(png).decode(), "type": "image/png"}}}  # fmt: skip
    assert attached_file(image) == AttachmentPart("image/png", png, "/w/a.png")
    notebook = {"type": "file", "filename": "/w/n.ipynb", "content": {"type": "notebook"}}
    assert attached_file(notebook) == AttachmentPart("application/octet-stream", None, "/w/n.ipynb")
    assert attached_file({"type": "file", "content": {"type": "text"}}) is None


def test_what_a_hook_blocked_is_said_by_its_event():
    from exporter.adapters.claude_attachments import attachment_notice

    def said(**fields) -> str:
        return attachment_notice({"type": "hook_blocking_error", **fields}).text

    assert said(hookEvent="Stop", blockingError={"blockingError": "tests fail"}) == (
        "A hook kept the assistant from stopping (Stop): tests fail"
    )
    assert said(hookEvent="UserPromptSubmit", hookName="UserPromptSubmit") == (
        "A hook blocked the prompt (UserPromptSubmit)"
    )
    assert said() == "A hook blocked"
    failed = attachment_notice({"type": "hook_non_blocking_error", "exitCode": 1})
    assert failed.text == "A hook failed (exit code 1)"
    assert attachment_notice({"type": "edited_text_file", "filename": " "}) is None


@pytest.mark.parametrize("kind", [[], {"type": "file"}, 3, None])
def test_an_attachment_of_a_damaged_kind_costs_nothing_else(tmp_path, kind):
    """A line whose attachment's kind is no text (a list: the fuzz test's draw) was a
    TypeError that cost the session; it is passed over as a kind not known."""
    without, _ = _load(tmp_path / "without", _session())
    damaged = {"type": kind, "prompt": [{"type": "text", "text": "mk9x steering"}]}
    session, _ = _load(tmp_path / "with", _session(damaged))
    assert [(m.role, m.parts) for m in session.messages] == [
        (m.role, m.parts) for m in without.messages
    ]
