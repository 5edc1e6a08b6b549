"""The shipped session template (``templates/session.md.j2``), written out in Python.

Rendering the template through Jinja costs a sandboxed attribute check per field and a new
context per turn, item and tool call: about a fifth of rendering a note. When the template
in effect is the shipped file, unchanged, a note's body is written here instead, byte for
byte as Jinja would (``render.shipped_template_in_effect`` decides; a user's template, or
``CCEXPORT_REFERENCE_RENDER=1``, always goes through Jinja). The file's digest is part of
that decision: an edited shipped template is rendered by Jinja until this module follows
it, and ``tests/test_session_body.py`` fails until then.

Each function names the template block it stands for; the filters are the template's own.
"""

from __future__ import annotations

from typing import Any

from .markdown import callout, clipped_code, code_span, escape_inline, escape_prose, fence
from .render import short_model_name

UNANSWERED = (
    "No result of this call was recorded (the session ended, or was read, before the tool "
    "returned)."
)
AWAITING_APPROVAL = (
    "This call was waiting for the user's approval when the session ended, or was read: the "
    "tool had not run."
)
# sha256 of templates/session.md.j2 as this module writes it.
SHIPPED_TEMPLATE_SHA256 = "7d27720df173f206bcd578b8e0ef4f24a5c16aa9e6ae8c2a4e87cfda80f8cf50"

_SUBAGENT_TOOLS = ("Task", "Agent")
# A compaction the session records without its summary (its fold would open on nothing).
NO_SUMMARY = "*The session holds no summary of it.*"
# A file the assistant shortened to fit its prompt (Copilot's ``isSummarized``).
SHORTENED = (
    "*Only a shortened copy is in the session: the assistant left parts of it out to fit its"
    " prompt.*"
)
# A tool call that did not run (``not_run``): what its title says, in a callout of its own
# (not a failure: the person, or a permission, decided it).
_NOT_RUN = {"rejected": "rejected by the user", "denied": "not permitted"}  # else its word
_NOT_RUN_CALLOUT = "note"
# What the person decided of the assistant's work (``decision``): theirs, not the harness's
# "Notification"; in the kind of callout a call the person said no to has.
DECISION_TITLE = "User's decision"
_DECISION_CALLOUT = _NOT_RUN_CALLOUT
# What the editor sent with a prompt on its own (``origin``): said so, not "Attached".
_ATTACHED = {"editor-file": "Open in the editor", "editor-selection": "Selected in the editor"}


def session_body(context: dict[str, Any]) -> str:
    """The body of a note from the context ``notes.build_note`` gives the template."""
    out = [_header(context)]
    thinking = context["thinking"]
    checklist = context["todo_as_checklist"]
    for turn in context["turns"]:
        out.append("\n")
        if turn["role"] != "system":
            out.append(_turn_heading(turn))
        previous = None
        for item in turn["items"]:
            if item.get("in_call"):  # an image a tool returned: shown in its call's callout
                continue
            if previous is not None and not (item["one_line"] and previous["one_line"]):
                out.append("\n")
            out.append(_item(item, turn, thinking, checklist))
            previous = item
    return "".join(out)


def _header(c: dict[str, Any]) -> str:
    session, started, ended = c["session"], c["started"], c["ended"]
    facts = c["properties"] or {}  # (the source's facts among them: ``sessionfacts``)
    line = f"# {escape_inline(c['title'])}\n\n> [!info] {c['source_label']}"
    line += f" ({escape_inline(facts['client'])})" if "client" in facts else ""
    line += " · " + escape_inline(c["project"])
    if session.git_branch:
        line += f" · {code_span(session.git_branch)}"
    # The zones' names where the clocks changed between start and end (01:50 EDT → 01:10 EST).
    zoned = started and ended and started.utcoffset() != ended.utcoffset()
    if started:
        line += f" · {started.strftime('%Y-%m-%d %H:%M')}"
        line += f" {started.tzname()}" if zoned else ""
    if ended and started and ended.date() == started.date():
        line += f" → {ended.strftime('%H:%M')}"
    elif ended:
        line += f" → {ended.strftime('%Y-%m-%d %H:%M')}"
    if zoned:
        line += f" {ended.tzname()}"
    if started and "time_from_file" in facts:
        line += " (the file's time)"
    if session.models:
        line += " · " + escape_inline(", ".join(map(short_model_name, session.models)))
    if facts.get("premium_requests"):  # (a count of none is a property, not said here)
        count = facts["premium_requests"]
        line += f" · {count} premium request{'' if count == 1 else 's'}"
    if "archived" in facts:
        line += " · archived"
    properties = c["properties"]
    if properties and "resume" in properties:
        line += f" · reopen: {code_span(properties['resume'])}"
    line += "\n"
    label = f" ({escape_inline(session.agent_label)})" if session.agent_label else ""
    if c["parent_link"]:
        line += f"> Subagent{label} of {c['parent_link']}\n"
    elif session.parent_id:  # its session was never exported (deleted first, or filtered)
        line += f"> Subagent{label} of session {code_span(session.parent_id)}, which has no note"
        # (or the adapter found it stored without a conversation: ``extra["parent_empty"]``)
        empty = session.extra.get("parent_empty")
        line += f": {c['source_label']} keeps no messages of it\n" if empty else "\n"
    if c["fork_link"] and session.saved_copy:
        line += f"> Saved from {c['fork_link']}: a copy of its conversation as it was then, "
        line += "which that note holds too.\n"
    elif c["fork_link"]:
        line += f"> Forked from {c['fork_link']}: "
        line += "the conversation before the fork is in that note.\n"
    onward = c["fork_links"]
    if onward["forked"]:
        line += f"> Forked into {', '.join(onward['forked'])}\n"
    if onward["saved"]:
        line += f"> Saved as {', '.join(onward['saved'])}\n"
    if c["subagent_links"]:
        line += f"> Subagents: {', '.join(c['subagent_links'])}\n"
    if "share_url" in facts:
        line += f"> Shared at {escape_inline(facts['share_url'])}\n"
    if c["unread"]:
        line += f"> {c['unread']}\n"
    return line


def _turn_heading(turn: dict[str, Any]) -> str:
    # A subagent's task is written by the agent that started it, not by the person
    who = "Parent agent" if turn["task"] else "User" if turn["role"] == "user" else "Assistant"
    when = f" · {turn['when']}" if turn["when"] else ""
    # The model the replies changed to, where they changed.
    model = f" · {escape_inline(short_model_name(turn['model']))}" if turn.get("model") else ""
    queued = " · sent while the assistant was working" if turn["queued"] else ""
    return f"### {who}{when}{model}{queued}\n\n"


def _item(item: dict[str, Any], turn: dict[str, Any], thinking: str, checklist: bool) -> str:
    kind = item["kind"]
    if kind == "text":
        # A subagent's task is a model's Markdown, as the assistant's replies are: only
        # what a person typed is escaped to read as typed
        literal = turn["role"] == "user" and not turn["task"]
        return escape_prose(item["text"], literal=literal) + "\n"
    if kind == "thinking":
        if item["redacted"]:
            return f"> [!quote]{'' if thinking == 'shown' else '-'} Thinking (redacted)\n"
        text = escape_prose(item["text"])
        return callout("quote", "Thinking", text, folded=thinking != "shown") + "\n"
    if kind == "tool_call":
        return _tool_call(item, checklist)
    if kind == "tool_result":
        body = fence(item["output"], "text")
        if item["output_path"]:
            body += f"\n*The whole output is {code_span(item['output_path'])}.*"
        more = item["output_more"]
        if more:
            # printf-style, as the template's ``format`` filter: the same text for any number
            body += "\n*… %d more line%s*" % (more, "s" if more != 1 else "")  # noqa: UP031
        if item["not_run"]:
            title = f"Tool output ({_not_run(item)})"
            return callout(_NOT_RUN_CALLOUT, title, body) + "\n"
        return callout("failure" if item["is_error"] else "example", "Tool output", body) + "\n"
    if kind == "command" and item["shell"]:
        return fence(item["command"], "sh") + "\n"
    if kind == "command":
        return code_span(item["command"]) + "\n"
    if kind == "command_output":
        title = "Prompt sent" if item["sent"] else "Error output" if item["is_error"] else "Output"
        return callout("note", title, fence(item["output"], "text")) + "\n"
    if kind == "summary":
        said = [escape_inline(item["trigger"])] if item["trigger"] else []
        said += [f"at {item['tokens']:,} tokens"] if item["tokens"] else []
        title = "Conversation compacted" + (f" ({', '.join(said)})" if said else "")
        body = escape_prose(item["text"]) if item["text"] else NO_SUMMARY
        return callout("summary", title, body) + "\n"
    if kind == "attachment" and item["text"] is not None:
        body = fence(item["text"], item["lang"])
        if item["shortened"]:
            body += f"\n\n{SHORTENED}"
        if item["cut"]:
            body += f"\n\n*Its first and last lines; the whole file is {code_span(item['path'])}.*"
        attached = _ATTACHED.get(item["origin"], "Attached")
        title = f"{attached} {code_span(item['name'])}" if item["name"] else None
        title = title or ("Attached text" if attached == "Attached" else attached)
        return callout("cite", title, body, folded=item["lines"] > 20) + "\n"
    if kind == "attachment":
        attached = _ATTACHED.get(item["origin"], "Attached")
        named = f"{attached} {code_span(item['name'])}:\n" if item["name"] else ""
        return f"{named}![[{item['path']}]]\n"
    if kind == "notice":
        notice = item["notice"]
        if notice == "interrupted":
            return "*Interrupted by the user.*\n"
        if notice == "unanswered":
            return f"*{UNANSWERED}*\n"
        if notice == "awaiting_approval":
            return f"*{AWAITING_APPROVAL}*\n"
        if notice == "attachment":
            attached = _ATTACHED.get(item.get("origin"), "Attached")
            named = f"{attached} {code_span(item['text'])}" if item["text"] else "An attachment"
            why = item.get("withheld")
            where = f"not copied into the vault: {why}" if why else "not stored in the session"
            return f"*{named}, {where}.*\n"
        if notice == "rewound":
            return (
                "*The user went back to an earlier point of the conversation and continued "
                "from here.*\n"
            )
        if notice == "decision":
            text = escape_prose(item["text"], literal=True)
            return callout(_DECISION_CALLOUT, DECISION_TITLE, text, folded=False) + "\n"
        title = _NOTICE_TITLES.get(notice, "Notification")
        if notice == "error" and item["app"]:
            title = "Error"
        if notice == "error" and ("\n" in item["text"].strip() or len(item["text"]) > 2000):
            # A traceback, a payload: not prose. Folded when long: past 20 lines, or 2,000
            # characters (an exception quoting the whole prompt on one line).
            lines = item["text"].strip("\n").count("\n") + 1
            long = lines > 20 or len(item["text"]) > 2000
            return callout("warning", title, fence(item["text"], "text"), folded=long) + "\n"
        text = escape_prose(item["text"], literal=True)
        kind = "warning" if notice in _NOTICE_TITLES else "info"
        return callout(kind, title, text, folded=False) + "\n"
    return ""


_NOTICE_TITLES = {"error": "API error", "warning": "Warning"}


def _duration(seconds: float) -> str:
    """A call's time: tenths of a second, or milliseconds under a tenth (a 4 ms call read
    '0.0 s'); a recorded 0 stays as recorded. Printf-style, as the template's ``format``."""
    if 0 < seconds < 0.1:
        return "%.0f ms" % (seconds * 1000)  # noqa: UP031
    return "%.1f s" % seconds  # noqa: UP031


def _tool_call(item: dict[str, Any], checklist: bool) -> str:
    if checklist and item["todos"]:
        return _checklist(item)
    subagent = item["subagent"] or item["name"] in _SUBAGENT_TOOLS
    if item["one_line"]:
        status = ""
        if item["exit_code"] is not None:
            status += f" · exit {item['exit_code']}"
        if item["is_error"] and item["exit_code"] is None and not item["not_run"]:
            status += " (error)"
        if item["not_run"]:
            status += f" ({_not_run(item)})"
        summary = ""
        if item["summary"]:
            summary = " — " + _summary(item)
        if subagent:
            agent = f" {code_span(item['agent_type'])}" if item["agent_type"] else ""
            link = f" → {item['subagent']}" if item["subagent"] else ""
            return f"- Subagent{agent}{summary}{link}{status}\n"
        return f"- {code_span(item['name'])}{summary}{status}\n"
    if subagent:
        return _subagent_call(item)
    body = ""
    for block in item["inputs"]:
        if block["label"]:
            body += f"{code_span(block['label'])}:\n"
        body += fence(block["text"], block["lang"]) + "\n"
    if item["output"]:
        body += fence(item["output"], "text") + "\n"
    for file in item["attachments"]:
        body += f"![[{file['path']}]]\n"
    if item["output_path"]:
        body += f"*The whole output is {code_span(item['output_path'])}.*\n"
    more = item["output_more"]
    if more:
        body += f"*… {more} more line{'s' if more != 1 else ''}*\n"
    status = ""
    if item["exit_code"] is not None:
        status += f" · exit {item['exit_code']}"
    if item["duration"] is not None:
        status += f" · {_duration(item['duration'])}"
    if item["is_error"] and item["exit_code"] is None and not item["not_run"]:
        status += " (error)"
    if item["not_run"]:
        status += f" ({_not_run(item)})"
    summary = f" — {_summary(item)}" if item["summary"] else ""
    title = code_span(item["name"]) + summary + status
    return callout(_call_callout(item), title, body) + "\n"


def _not_run(item: dict[str, Any]) -> str:
    return _NOT_RUN.get(item["not_run"], item["not_run"])


def _call_callout(item: dict[str, Any]) -> str:
    if item["not_run"]:
        return _NOT_RUN_CALLOUT
    return "failure" if item["is_error"] else "example"


def _summary(item: dict[str, Any]) -> str:
    if item["summary_code"]:
        return clipped_code(item["summary"], item["summary_cut"])
    return escape_inline(item["summary"])


def _checklist(item: dict[str, Any]) -> str:
    body = ""
    if item["explanation"]:
        body += escape_prose(item["explanation"]) + "\n\n"
    for todo in item["todos"]:
        box = "x" if todo["done"] else " "
        status = ""
        if todo["status"] in ("in_progress", "cancelled"):
            status = f" *({todo['status'].replace('_', ' ')})*"
        body += f"- [{box}] {escape_inline(todo['text'])}{status}\n"
    title = "Plan — " + code_span(item["name"])
    if item["not_run"]:  # a plan the person turned down is still shown, but said so
        title += f" ({_not_run(item)})"
    elif item["is_error"]:
        title += " (error)"
    return callout("todo", title, body, folded=False) + "\n"


def _subagent_call(item: dict[str, Any]) -> str:
    body = ""
    if item["prompt"]:
        body += "Prompt:\n" + fence(item["prompt"], "text") + "\n\n"
    if item["output"]:
        # A failed call's output is what the tool said, not the agent's reply: code.
        result = fence(item["output"], "text") if item["is_error"] else escape_prose(item["output"])
        body += "Result:\n\n" + result + "\n\n"
    for file in item["attachments"]:
        body += f"![[{file['path']}]]\n\n"
    if item["output_path"]:
        body += f"*The whole result is {code_span(item['output_path'])}.*\n\n"
    if item["subagent"]:
        body += f"Full transcript: {item['subagent']}\n"
    agent = code_span(item["agent_type"]) + ": " if item["agent_type"] else ""
    name = _summary(item) if item["summary"] else code_span(item["name"])
    if item["not_run"]:  # rejected, not permitted or cancelled: no agent ran, or it stopped
        title = f"Subagent — {agent}{name} ({_not_run(item)})"
        return callout(_NOT_RUN_CALLOUT, title, body) + "\n"
    if item["is_error"]:  # the call failed (a rejected input): no agent ran
        return callout("failure", "Subagent — " + agent + name + " (error)", body) + "\n"
    return callout("abstract", "Subagent — " + agent + name, body) + "\n"
