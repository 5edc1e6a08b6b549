"""A tool call of a session's last reply that was still waiting for the person's approval
(they had not answered "run this?" when the session was saved or read) said "no result of
this call was recorded … before the tool returned": the tool never ran. Where the file
tells such a call from one approved and running (Copilot CLI's permission events, Copilot
Chat's unconfirmed invocation, Roo Code's ``isAnswered``), the note says it was waiting for
approval instead; where it does not, it says "no result", true of both. A call approved and
still running keeps "no result"; one answered says nothing."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path

import cline_builder as cb
import copilot_builder as cp
import pytest
from conftest import UNANSWERED_SAID, said_under
from copilot_cli_builder import CopilotCliSession, request
from hypothesis import given, settings
from hypothesis import strategies as st
from test_unanswered import SID, notes
from test_unanswered_more import chat, cline_task, invocation, running, the_note

from exporter.adapters import copilot_log
from exporter.adapters._unanswered import AWAITING_APPROVAL, last_reply_marked
from exporter.model import Message, NoticePart, Session, TextPart, ToolCallPart, ToolResultPart
from exporter.notes import NoteSettings, build_note
from exporter.render import default_templates_dir

AWAITING_SAID = (
    "*This call was waiting for the user's approval when the session ended, or was read: the "
    "tool had not run.*"
)


def said(note: str, words: str, *calls: str) -> None:
    said_under(note, *calls, words=words)


# -- the shared rule ------------------------------------------------------------------------


def test_the_rule_says_waiting_only_of_a_last_call_the_source_says_was_asked():
    a, b = (ToolCallPart("bash", {"command": f"run {i}"}, i) for i in "ab")
    reply = Message("assistant", (a, b))

    def notices(*messages: Message, asked=lambda call: call.call_id == "a") -> list[str]:
        marked = last_reply_marked(messages, asked=asked)
        return [p.notice for m in marked for p in m.parts if isinstance(p, NoticePart)]

    assert notices(reply) == ["awaiting_approval", "unanswered"]
    assert notices(reply, asked=lambda call: False) == ["unanswered", "unanswered"]
    answered = Message("tool", (ToolResultPart("", "a"),))
    assert notices(reply, answered) == ["unanswered"]  # (answered: a ran, b says no result)
    assert notices(reply, Message("user", (TextPart("never mind"),))) == []  # (not the last)
    assert notices(reply, Message("user", (NoticePart("interrupted"),))) == ["interrupted"]


# -- Copilot CLI: permission.requested, and no permission.completed -------------------------


def asking_log(
    home: Path,
    *,
    answer: str | None = None,
    hook: bool = False,
    ran: bool = False,
    agent: bool = False,
    after: list[tuple[str, dict]] | None = None,
) -> None:
    """The CLI asked to run ``ls dist`` (approved: it ran), then ``rm -rf dist``, with
    ``answer`` to that question (none: still asked), or a hook's; ``ran``: its result."""
    s = CopilotCliSession(SID)
    s.user("Clean the build")
    ls = {"command": "ls dist"}
    s.assistant("Looking first.", [request("c1", "bash", ls)])
    s.event("tool.execution_start", {"toolCallId": "c1", "toolName": "bash", "arguments": ls})
    s.event("permission.requested", _asked("p1", "c1", "ls dist"))
    s.event("permission.completed", {"requestId": "p1", "toolCallId": "c1",
                                     "result": {"kind": "approved"}})  # fmt: skip
    s.tool("c1", "bash", ls, "app.js")
    envelope = {"agentId": "ag"} if agent else {}
    if agent:  # the question is a sub-agent's, about its own call
        task = {"prompt": "Clean the build output", "agent_type": "general"}
        s.assistant("Delegating.", [request("task-1", "task", task)])
        s.event("subagent.started", {"toolCallId": "task-1", "agentName": "general"}, **envelope)
    rm = {"command": "rm -rf dist"}
    s.assistant("Removing it.", [request("c2", "bash", rm)])
    s.events[-1].update(envelope)
    s.event("tool.execution_start", {"toolCallId": "c2", "toolName": "bash", "arguments": rm},
            **envelope)  # fmt: skip
    asked = _asked("p2", "c2", "rm -rf dist")
    if hook:
        asked["resolvedByHook"] = True
    s.event("permission.requested", asked, **envelope)
    if answer:
        s.event("permission.completed", {"requestId": "p2", "toolCallId": "c2",
                                         "result": {"kind": answer}}, **envelope)  # fmt: skip
    if ran:
        done = {"toolCallId": "c2", "success": True, "result": {"content": "removed"}}
        s.event("tool.execution_complete", done, **envelope)
    for kind, data in after or []:
        s.event(kind, data)
    s.write(home / ".copilot")


def _asked(request_id: str, call_id: str, command: str) -> dict:
    return {
        "requestId": request_id,
        "permissionRequest": {
            "kind": "shell", "toolCallId": call_id, "fullCommandText": command,
            "intention": "Run a command", "commands": [], "possiblePaths": [],
            "possibleUrls": [], "hasWriteFileRedirection": False, "canOfferSessionApproval": True,
        },
    }  # fmt: skip


def test_copilot_cli_a_last_call_still_asked_says_it_waited_for_approval(tmp_path, monkeypatch):
    """Held and streamed readings alike (``notes`` checks they give the same note)."""
    asking_log(tmp_path)
    (note,) = notes(tmp_path, "copilot-cli", monkeypatch).values()
    said(note, AWAITING_SAID, "rm -rf dist")  # (not under ls: asked, approved, answered)
    assert UNANSWERED_SAID not in note


def test_copilot_cli_a_sub_agent_s_call_still_asked_too(tmp_path, monkeypatch):
    asking_log(tmp_path, agent=True)
    made = notes(tmp_path, "copilot-cli", monkeypatch)
    (main,) = [n for k, n in made.items() if "agent" not in k]
    (child,) = [n for k, n in made.items() if "agent" in k]
    said(child, AWAITING_SAID, "rm -rf dist")
    said(main, UNANSWERED_SAID, "`task`")  # (the delegating call waits on the sub-agent)
    assert AWAITING_SAID not in main


@pytest.mark.parametrize(
    "how", [{"answer": "approved"}, {"answer": "approved-for-session"}, {"hook": True}]
)
def test_copilot_cli_a_call_approved_and_running_keeps_no_result(tmp_path, monkeypatch, how):
    """Approved by the person (once, or for the session) or by a hook that asked no one:
    the tool runs, and has not returned."""
    asking_log(tmp_path, **how)
    (note,) = notes(tmp_path, "copilot-cli", monkeypatch).values()
    said(note, UNANSWERED_SAID, "rm -rf dist")
    assert AWAITING_SAID not in note


def test_copilot_cli_a_call_answered_or_stopped_says_nothing_more(tmp_path, monkeypatch):
    """Approved and returned; or still asked, then the turn aborted (said: interrupted) or
    the person wrote something else (the question went unanswered: the chat went on)."""
    asking_log(tmp_path / "ran", answer="approved", ran=True)
    (note,) = notes(tmp_path / "ran", "copilot-cli", monkeypatch).values()
    assert AWAITING_SAID not in note and UNANSWERED_SAID not in note and "removed" in note
    abort = ("abort", {"reason": "user initiated"})
    asking_log(tmp_path / "abort", after=[abort])
    (note,) = notes(tmp_path / "abort", "copilot-cli", monkeypatch).values()
    assert AWAITING_SAID not in note and "Interrupted by the user" in note
    prompt = ("user.message", {"content": "Leave it", "attachments": []})
    asking_log(tmp_path / "prompt", after=[prompt])
    (note,) = notes(tmp_path / "prompt", "copilot-cli", monkeypatch).values()
    assert AWAITING_SAID not in note and UNANSWERED_SAID not in note


def test_copilot_cli_an_answer_to_no_known_question_leaves_no_claim(tmp_path, monkeypatch):
    """A damaged answer (no request id): any question may be the one answered, so none is
    said to wait; the call has no result all the same."""
    asking_log(tmp_path, after=[("permission.completed", {"result": {"kind": "approved"}})])
    (note,) = notes(tmp_path, "copilot-cli", monkeypatch).values()
    said(note, UNANSWERED_SAID, "rm -rf dist")
    assert AWAITING_SAID not in note


# -- Copilot Chat: an invocation VS Code had not confirmed ----------------------------------


def unconfirmed(command: str, **extra) -> dict:
    made = invocation("t2", command, **extra)
    del made["isConfirmed"]
    return made


def test_copilot_chat_a_call_waiting_for_confirmation_says_so(tmp_path):
    """``NeedsInput``: the response waits for the person, and the call has no
    ``isConfirmed`` yet; in the log and in the whole file alike."""
    for log in (False, True):
        home = tmp_path / str(log) / "home"
        chat(home, running(4, unconfirmed("rm -rf dist")), log=log)
        note = the_note(home, "copilot")
        said(note, AWAITING_SAID, "rm -rf dist")
        assert UNANSWERED_SAID not in note


def test_copilot_chat_an_older_build_s_unconfirmed_call_says_so(tmp_path):
    """Before ``modelState``: the invocation not complete, and not confirmed (those builds
    confirmed at once a call no one needed to approve)."""
    chat(tmp_path / "home", running(None, unconfirmed("rm -rf dist", isComplete=False)))
    said(the_note(tmp_path / "home", "copilot"), AWAITING_SAID, "rm -rf dist")


def test_copilot_chat_a_call_approved_or_still_streamed_keeps_no_result(tmp_path):
    """Confirmed and running (the response waiting for the person on something else, or
    an older build's call not complete); or Pending with no ``isConfirmed``: the newer
    builds write that of a call whose arguments still streamed as well."""
    lasts = [
        running(4, invocation("t2", "rm -rf dist")),
        running(None, invocation("t2", "rm -rf dist", isComplete=False, isConfirmed=True)),
        running(0, unconfirmed("rm -rf dist")),
    ]
    for n, last in enumerate(lasts):
        home = tmp_path / str(n) / "home"
        chat(home, last)
        note = the_note(home, "copilot")
        said(note, UNANSWERED_SAID, "rm -rf dist")
        assert AWAITING_SAID not in note, n


_MODEL_STATES = st.sampled_from([None, 0, 1, 2, 3, 4])
_CONFIRMED = st.sampled_from(
    ["absent", True, False, {"type": 1}, {"type": 4}, {"type": 0}, {"type": 5}]
)
_WAITS = ("unanswered", "awaiting_approval", "notification")


@settings(max_examples=200, deadline=None)
@given(
    state=_MODEL_STATES,
    result=st.booleans(),
    calls=st.lists(
        st.tuples(
            _CONFIRMED, st.sampled_from([True, False, "absent"]), st.booleans(), st.booleans()
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_copilot_chat_waiting_notices_only_ever_add_to_no_result(state, result, calls):
    """Whatever the shapes of a last request's calls (an MCP tool's or not): every call that
    said "no result" before the response's waits were read still says it, or that it waited
    for approval; "waiting for approval" is said only of a call with no ``isConfirmed``, and
    a result's approval only of the last call saved skipped, both only of a NeedsInput
    response (or, for the first, an older build's call not complete); in any other response
    the notes are as before."""
    tools = []
    for n, (confirmed, complete, answered, at_once) in enumerate(calls):
        if answered:
            made = cp.terminal_tool(f"t{n}", f"step {n}", "done")
        else:
            made = invocation(f"t{n}", f"step {n}")
        if at_once:
            made["source"] = {"type": "mcp", "label": "docs"}
        if confirmed == "absent":
            del made["isConfirmed"]
        else:
            made["isConfirmed"] = confirmed
        if complete == "absent":
            del made["isComplete"]
        else:
            made["isComplete"] = complete
        tools += [made, cp.markdown(f"After step {n}. ")] if n % 2 else [made]
    last = running(state, *tools)
    if result:
        last["result"] = {"timings": {"totalElapsed": 1_000}}
    data = cp.session("s", [last])

    def marks(read_waits: bool) -> list[tuple[str | None, str]]:
        original = copilot_log.waits
        if not read_waits:
            copilot_log.waits = lambda response, state, last: {}
        try:
            (messages, _models) = copilot_log.session_messages(copy.deepcopy(data))
        finally:
            copilot_log.waits = original
        parts = [p for m in messages for p in m.parts]
        return [(parts[i - 1].call_id, p.notice) for i, p in enumerate(parts)
                if isinstance(p, NoticePart) and p.notice in _WAITS]  # fmt: skip

    now, before = marks(True), marks(False)
    if state != 4:
        assert now == before
        return
    noticed = {c for c, _ in now}
    assert {c for c, _ in before} <= noticed
    assert all(n != "notification" for _, n in before)
    confirmed = {f"t{n}": c for n, (c, *_) in enumerate(calls)}
    assert all(confirmed[c] == "absent" for c, n in now if n == "awaiting_approval")
    results = [c for c, n in now if n == "notification"]
    assert all(confirmed[c] == {"type": 5} for c in results)
    assert results in ([], [f"t{len(calls) - 1}"])


# -- Roo Code: a tool's question not marked answered, in a file that marks them --------------


def roo_task(home: Path, *, last_answered: bool = False, marks: bool = True, last=None) -> None:
    """A Roo Code task whose first edit was approved (``isAnswered``, when the build marks
    it), that then asked to edit another file (``last``: another question instead)."""
    root = cb.storage(home, cb.ROO)
    first = cb.tool(3, "editedExistingFile", kind="ask", path="src/util.ts", diff="- a\n+ b")
    if marks:
        first["isAnswered"] = True
    asked = last or cb.tool(7, "appliedDiff", kind="ask", path="src/app.ts", diff="- c\n+ d")
    if last_answered:
        asked["isAnswered"] = True
    cb.task(root, "1762500000000", ui=[
        cb.say(0, "task", "Fix the failing test"),
        cb.api_request(1, 100, 20, 0.01),
        cb.say(2, "text", "Editing the helper."),
        first,
        cb.say(4, "checkpoint_saved"),
        cb.api_request(5, 120, 20, 0.01),
        cb.say(6, "text", "Now the app."),
        asked,
    ])  # fmt: skip


def test_roo_code_a_tool_s_question_not_answered_says_it_waited(tmp_path):
    roo_task(tmp_path / "home")
    note = the_note(tmp_path / "home", "roo-code")
    said(note, AWAITING_SAID, "src/app.ts")  # (not under the first edit: approved, answered)
    assert UNANSWERED_SAID not in note


def test_roo_code_reopened_since_it_still_says_so(tmp_path):
    """Reopening the task asks to resume it: the question was never answered."""
    root = cb.storage(tmp_path / "home", cb.ROO)
    roo_task(tmp_path / "home")
    folder = root / "tasks" / "1762500000000"
    ui = json.loads((folder / "ui_messages.json").read_text())
    (folder / "ui_messages.json").write_text(json.dumps([*ui, cb.ask(9, "resume_task")]))
    said(the_note(tmp_path / "home", "roo-code"), AWAITING_SAID, "src/app.ts")


def test_a_question_the_file_does_not_tell_answered_keeps_no_result(tmp_path):
    """Approved (marked) and still running; a file that marks no question (Cline, an older
    Roo Code: approved or not, it reads alike); a command's question (Roo Code marks only a
    tool's)."""
    cases = {
        "approved": {"last_answered": True},
        "unmarked": {"marks": False},
        "command": {"last": cb.ask(7, "command", "npm test")},
    }
    for name, how in cases.items():
        home = tmp_path / name / "home"
        roo_task(home, **how)
        note = the_note(home, "roo-code")
        assert note.count(UNANSWERED_SAID) == 1 and AWAITING_SAID not in note, name
    cline_task(tmp_path / "cline" / "home")  # (Cline: its command question, last)
    note = the_note(tmp_path / "cline" / "home")
    assert note.count(UNANSWERED_SAID) == 1 and AWAITING_SAID not in note


# -- a template written before this notice ----------------------------------------------------


def _waiting_session() -> Session:
    when = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
    call = ToolCallPart("bash", {"command": "rm -rf dist"}, "c1")
    return Session(
        source="copilot-cli",
        session_id="s1",
        source_path=Path("/logs/s1.jsonl"),
        messages=(
            Message("user", (TextPart("Clean the build"),), "u1", when),
            Message("assistant", (TextPart("Removing it."), call, AWAITING_APPROVAL), "a1", when),
        ),
        started_at=when,
        ended_at=when,
    )


def test_the_shipped_template_says_it_under_the_call():
    body = build_note(_waiting_session(), "n.md", NoteSettings(timezone=UTC), lambda k: None).body
    said(body, AWAITING_SAID, "rm -rf dist")


def test_a_template_written_before_this_notice_shows_it_as_a_notification(tmp_path):
    """A copy of the shipped template made before ``awaiting_approval`` shows a notice it
    does not know as a "Notification" holding its text, which says what happened."""
    shipped = (default_templates_dir() / "session.md.j2").read_text()
    branch = (
        '{% elif item.kind == "notice" and item.notice == "awaiting_approval" %}\n'
        + AWAITING_SAID
        + "\n"
    )
    assert branch in shipped
    folder = tmp_path / "my-templates"
    folder.mkdir()
    (folder / "session.md.j2").write_text(shipped.replace(branch, ""))
    settings_ = NoteSettings(timezone=UTC, templates=folder)
    body = build_note(_waiting_session(), "n.md", settings_, lambda k: None).body
    assert AWAITING_SAID not in body
    assert (
        "> [!info] Notification\n>\n> Waiting for the user's approval: the tool had not run."
        in body
    )


def test_a_template_written_before_the_no_result_notice_says_it_too(tmp_path):
    """The same for ``unanswered`` (added the same day): an older template showed it as an
    empty "Notification", saying nothing of what happened."""
    from dataclasses import replace

    from exporter.adapters._unanswered import UNANSWERED

    shipped = (default_templates_dir() / "session.md.j2").read_text()
    branch = '{% elif item.kind == "notice" and item.notice == "unanswered" %}\n'
    branch += UNANSWERED_SAID + "\n"
    assert branch in shipped
    folder = tmp_path / "my-templates"
    folder.mkdir()
    (folder / "session.md.j2").write_text(shipped.replace(branch, ""))
    waiting = _waiting_session()
    last = waiting.messages[-1]
    parts = tuple(UNANSWERED if p is AWAITING_APPROVAL else p for p in last.parts)
    session = replace(waiting, messages=(waiting.messages[0], replace(last, parts=parts)))
    settings_ = NoteSettings(timezone=UTC, templates=folder)
    body = build_note(session, "n.md", settings_, lambda k: None).body
    assert UNANSWERED_SAID not in body
    assert (
        "> [!info] Notification\n>\n> No result was recorded: the session ended, or was read, "
        "before the tool returned." in body
    )
    shipped_body = build_note(session, "n.md", NoteSettings(timezone=UTC), lambda k: None).body
    said(shipped_body, UNANSWERED_SAID, "rm -rf dist")
