"""A tool call's code arguments are shown as code, in the file's language, whatever the
source calls them: OpenCode's and Copilot's ``oldString``/``newString`` (beside a
``filePath``), Cline's ``old_text``/``new_text``. A one-line edit was an escaped string in
a JSON block (``"<Filter className=\\"size-4\\" />"``), which search does not find as typed."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from message_builder import msg, session

from exporter.markdown_code import REFERENCE_ENV
from exporter.model import Message, Session, TextPart, ToolCallPart
from exporter.notes import NoteSettings, build_note
from exporter.notespec import TurnView
from exporter.toolinput import call_description, call_title, input_blocks

_MD = MarkdownIt("commonmark")


def summary_of(part: ToolCallPart) -> str | None:
    return call_title(part)[1]


@pytest.mark.parametrize(
    ("path_key", "old", "new"),
    [
        ("filePath", "oldString", "newString"),  # OpenCode, Copilot
        ("path", "old_text", "new_text"),  # Cline's editor
        ("path", "old_str", "new_str"),  # an editor tool's str_replace
        ("file_path", "old_string", "new_string"),  # Claude Code, Gemini
    ],
)
def test_a_one_line_edit_is_code_in_the_files_language(path_key, old, new):
    line = '<Filter className="size-4 stroke-2" />'
    arguments = {path_key: "src/ui/Filter.tsx", old: line, new: line + " "}
    title = summary_of(ToolCallPart("edit", arguments))
    blocks = input_blocks(arguments, "edit", title)
    assert blocks == [
        {"label": old, "text": line, "lang": "tsx"},
        {"label": new, "text": line + " ", "lang": "tsx"},
    ]  # and no JSON block: the path is in the call's title


def test_a_file_path_is_the_calls_title_when_it_has_no_description():
    assert summary_of(ToolCallPart("edit", {"filePath": "src/cart.ts"}, "c1")) == "src/cart.ts"


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=60))
def test_the_note_shows_a_one_line_edit_as_typed(line):
    """Read by a CommonMark parser, the note holds the line, unescaped, in a code block."""
    call = ToolCallPart("edit", {"filePath": "src/a_b.py", "oldString": line}, "c1")
    s = session(msg("user", TextPart("fix it")), msg("assistant", call))
    body = build_note(s, "n.md", NoteSettings(), lambda key: None).body
    fences = [(t.info, t.content) for t in _MD.parse(body) if t.type == "fence"]
    assert ("python", line + "\n") in fences


@pytest.mark.parametrize(
    ("tool", "arguments", "title"),
    [
        ("Grep", {"pattern": "#\\[test\\]", "path": "src/lexer"}, "#\\[test\\]"),
        ("Glob", {"path": "/home/dev/app", "pattern": "**/*.md"}, "**/*.md"),
        ("WebSearch", {"query": "rust borrow", "path": "x"}, "rust borrow"),
        ("Skill", {"skill": "bmad:core:party-mode"}, "bmad:core:party-mode"),
        ("Read", {"file_path": "src/a.py", "pattern": "x"}, "src/a.py"),
        ("read_file", {"target_file": "src/db.rs", "should_read_entire_file": True}, "src/db.rs"),
        # Cursor's web search names its query search_term
        ("WebSearch", {"search_term": "HBO 1990s", "explanation": "why"}, "HBO 1990s"),
    ],
)
def test_a_call_is_titled_by_what_it_looked_for_or_the_skill_it_ran(tool, arguments, title):
    """A search's pattern or query says more than the folder it searched (which the title
    showed); a Skill call is named by its skill (only in the folded JSON before)."""
    assert summary_of(ToolCallPart(tool, arguments, "c1")) == title


def test_a_plan_is_markdown():
    """Claude Code's ExitPlanMode presents a plan written in Markdown: highlighted so."""
    plan = "# Plan\n\n1. Read the lexer\n2. Fix `next_token`"
    (block,) = input_blocks({"plan": plan}, "ExitPlanMode")
    assert block == {"label": "plan", "text": plan, "lang": "markdown"}
    (listed,) = input_blocks({"plan": [{"step": "a", "status": "done"}]}, "update_plan")
    assert listed["lang"] == "yaml"  # Codex's plan is a to-do list, not Markdown


def _shown(part: ToolCallPart) -> list[str]:
    """What the note shows of a call's input: its title's summary and each input block."""
    _, summary, _cut = call_title(part)
    return [summary or "", *(b["text"] for b in input_blocks(part.input, part.name, summary))]


_KEYS = st.sampled_from(["description", "command", "file_path", "path", "filePath", "pattern",
                         "query", "timeout", "mode", "content", "oldString", "url"])  # fmt: skip
_VALUES = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=260)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(_KEYS, _VALUES, max_size=5), st.one_of(st.none(), _VALUES))
def test_no_argument_of_a_call_is_lost(arguments, description):
    """Every argument is in the note, whole: in the title only where the title shows it
    whole, else among the inputs (a description other than the title's, an argument the
    title cuts short). A Copilot CLI edit titled by its intent lost the file it edited;
    Gemini's run_shell_command lost its description."""
    part = ToolCallPart("tool", arguments, "c1", description)
    shown = _shown(part)
    _, summary, _cut = call_title(part)
    listed = [b for b in input_blocks(part.input, part.name, summary) if b["lang"] == "yaml"]
    read = yaml.safe_load(listed[0]["text"]) if listed else {}
    for key, value in arguments.items():
        assert any(value == s or value in s for s in shown) or read.get(key) == value, (key, shown)


def test_an_inputs_one_line_description_titles_a_call_its_source_gave_none():
    shell = ToolCallPart(
        "run_shell_command", {"command": "npm run bench", "description": "Benchmark"}
    )
    assert (call_description(shell), _shown(shell)) == ("Benchmark", ["Benchmark", "npm run bench"])
    long = "Run the benchmark\nand compare it with yesterday's"
    body = ToolCallPart("create_issue", {"title": "Slow", "description": long})
    assert call_description(body) is None and any(long in s for s in _shown(body))
    # the source's own description wins; the input's other one is kept among the inputs
    edit = ToolCallPart("edit", {"path": "src/routes.ts"}, "c1", "Add the limiter")
    assert _shown(edit)[0] == "Add the limiter" and "src/routes.ts" in _shown(edit)[1]


def test_a_patch_is_titled_by_the_files_it_changes():
    """Codex's apply_patch named no file in its title (the file was in the patch only)."""
    patch = (
        "*** Begin Patch\n*** Update File: src/a.rs\n@@\n*** Add File: src/b.rs\n+x\n*** End Patch"
    )
    assert summary_of(ToolCallPart("apply_patch", patch)) == "src/a.rs, src/b.rs"
    older = ToolCallPart("shell", {"command": ["apply_patch", patch]})
    assert summary_of(older) == "src/a.rs, src/b.rs"
    assert summary_of(ToolCallPart("apply_patch", "not a patch")) is None
    assert patch in _shown(ToolCallPart("apply_patch", patch))  # the patch itself still shown


@pytest.mark.parametrize(
    ("arguments", "title"),
    [
        ({"objective": "Where is the note list loaded?"}, "Subagent — `investigator`"),
        (
            {"agent_type": "explore", "prompt": "Find the POST /notes tests"},
            "Subagent — `explore`: `investigator`",
        ),
    ],
)
def test_a_subagent_calls_task_and_kind_are_read_as_each_source_names_them(arguments, title):
    """Gemini's subagent task is its ``objective`` (the demo's parent note held it nowhere);
    Copilot CLI names the agent's kind ``agent_type``."""
    call = ToolCallPart("investigator", arguments, "c1", None, "kid")
    s = session(msg("user", TextPart("look")), msg("assistant", call))
    body = build_note(s, "n.md", NoteSettings(), lambda key: "[[kid note]]").body
    prompt = arguments.get("objective") or arguments["prompt"]
    assert f"> [!abstract]- {title}\n" in body
    assert f"> Prompt:\n> ```text\n> {prompt}\n> ```" in body


def test_a_subagents_link_reads_as_its_task_where_its_call_has_no_description():
    """Gemini's subagent call carries no description: the header's link to its note read
    as a cut agent id (``… · agent investig``); it reads as the task, shortened as a title
    is. A description, where there is one, still wins."""
    task = "Where is the note list loaded? " + "Look in every store module and the app. " * 3
    asked = ToolCallPart("investigator", {"objective": task}, "c1", None, "kid")
    described = ToolCallPart("Task", {"prompt": task}, "c2", "Find the store", "kid2")
    s = session(
        msg("user", TextPart("look")),
        msg("assistant", asked, described),
        subagent_ids=("kid", "kid2"),
    )
    body = build_note(s, "n.md", NoteSettings(), lambda key: key.split(":")[1] + " note").body
    (header,) = [line for line in body.splitlines() if line.startswith("> Subagents:")]
    label = "Where is the note list loaded? Look in every store module and the app. Look in…"
    assert header == f"> Subagents: [[kid note|{label}]], [[kid2 note|Find the store]]"


def test_a_unified_diff_argument_is_a_diff_and_a_powershell_command_is_powershell():
    """Cline's edit gives a unified diff of a Python file: it was fenced as Python; Copilot
    CLI's ``powershell`` tool's command was fenced as ``sh``."""
    diff = "@@ -85,3 +85,6 @@\n     args = parse()\n+    if args.dry_run:\n+        return"
    assert input_blocks({"path": "sync.py", "diff": diff}, "editedExistingFile", "sync.py") == [
        {"label": "diff", "text": diff, "lang": "diff"}
    ]
    header = "--- a/sync.py\n+++ b/sync.py\n@@ -1 +1 @@\n-a\n+b"
    assert input_blocks({"path": "x.py", "content": header}, "write", "x.py")[0]["lang"] == "diff"
    # code that merely holds "@@" or "---" is the file's language
    code = "x = 1\n--- not a header\n@@ here @@"
    assert input_blocks({"path": "x.py", "content": code}, "write", "x.py")[0]["lang"] == "python"
    blocks = input_blocks({"command": "cargo test", "timeout": 60}, "powershell", "cargo test")
    assert [b["lang"] for b in blocks] == ["powershell", "yaml"]
    assert input_blocks({"command": "ls"}, "bash", "ls")[0]["lang"] == "sh"


@pytest.mark.parametrize(
    ("tool_input", "title"),
    [
        ({"command": "rm -rf /srv/app/" + "b" * 130}, "rm -rf /srv/app/" + "b" * 103 + "…"),
        ({"file_path": "/home/dev/" + "x" * 200 + ".py"}, "/home/dev/" + "x" * 109 + "…"),
        ({"command": "cat > notes.txt <<'EOF'\nline one\nEOF"}, "cat > notes.txt <<'EOF' …"),
        ({"command": "pytest -q"}, "pytest -q"),
        ({"command": "a" * 120}, "a" * 120),
    ],
)
def test_a_title_cut_short_says_so(tool_input, title):
    # A path or command cut at the title's length (or a command's first line of several)
    # must not read as whole: "rm -rf /srv/app" of "rm -rf /srv/app/build" runs another.
    assert call_title(ToolCallPart("Bash", tool_input, "c1"))[1] == title


def test_a_patch_in_codexs_format_is_a_diff_not_the_files_language():
    # Cursor's apply_patch takes Codex's format; it was highlighted as the file's language.
    patch = (
        "*** Begin Patch\n*** Update File: src/main.rs\n@@\n-let a = 1;\n+let a = 2;\n*** End Patch"
    )
    blocks = input_blocks({"path": "src/main.rs", "patch": patch}, "apply_patch")
    assert [(b["text"], b["lang"]) for b in blocks if b["text"] == patch] == [(patch, "diff")]


def test_javascript_a_tool_runs_is_javascript_not_text():
    """Codex Desktop's ``mcp__node_repl__js`` (a ``code`` argument, the corpus's 79793f80)
    and Codex's freeform ``js_repl`` (its input a string) run JavaScript: it was fenced as
    ``text``. A path still decides a file's language, and other tools' code stays text."""
    code = "await tab.goto('http://localhost:3000')\nconsole.log(await tab.title())"
    blocks = input_blocks({"title": "Open the UI", "timeout_ms": 5000, "code": code},
                          "mcp__node_repl__js")  # fmt: skip
    assert [(b["label"], b["lang"]) for b in blocks] == [("", "yaml"), ("code", "javascript")]
    assert input_blocks(code, "js_repl") == [{"label": "", "text": code, "lang": "javascript"}]
    in_file = input_blocks({"path": "a.py", "code": "x = 1"}, "mcp__node_repl__js")
    assert [b["lang"] for b in in_file if b["label"] == "code"] == ["python"]
    assert input_blocks({"code": "x = 1"}, "run_code")[0]["lang"] == "text"
    assert input_blocks("ls -la", "shell") == [{"label": "", "text": "ls -la", "lang": "text"}]


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "jinja"])
def test_a_cut_titles_mark_stands_after_its_code_not_in_it(monkeypatch, reference):
    """ "…" is no part of the command or path: inside the code span, copying the command
    copied it too, and a cut path read as a file named so."""
    if reference:
        monkeypatch.setenv(REFERENCE_ENV, "1")
    else:
        monkeypatch.delenv(REFERENCE_ENV, raising=False)
    calls = [
        ToolCallPart("Bash", {"command": "cat > notes.txt <<'EOF'\nline one\nEOF"}, "t1"),
        ToolCallPart("Read", {"file_path": "/home/dev/" + "x" * 200 + ".py"}, "t2"),
        ToolCallPart("Task", {"prompt": "p", "command": "make " + "y" * 130}, "t3"),
        ToolCallPart("Bash", {"command": "echo wait…"}, "t4"),  # its own "…": code, whole
    ]
    t0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    s = Session("claude-code", "5e0c1a77-3f0e-4c52-9a0b-0d1f6b2c7a10",
                (Message("user", (TextPart("go"),), "u0", t0),
                 Message("assistant", tuple(calls), "a1", t0)), Path("/x.jsonl"))  # fmt: skip
    for view in (TurnView(), TurnView(tools="summary")):
        body = build_note(s, "n.md", NoteSettings(timezone=UTC, view=view), lambda k: None).body
        assert "`Bash` — `cat > notes.txt <<'EOF'` …" in body
        assert "`Read` — `/home/dev/" + "x" * 109 + "`…" in body
        assert "`make " + "y" * 114 + "`…" in body
        assert "`Bash` — `echo wait…`" in body


@pytest.mark.parametrize("given", ["", "  \n"])
def test_a_call_given_blank_text_shows_no_empty_input_block(given):
    """A call whose input is blank text (a custom tool called with none) showed an empty
    code block under its title, as if it held something; a call given no input shows none."""
    assert input_blocks(given, "apply_patch") == []
    call = ToolCallPart("run_checks", given, "c1")
    s = session(msg("user", TextPart("check")), msg("assistant", call))
    body = build_note(s, "n.md", NoteSettings(), lambda key: None).body
    assert [t for t in _MD.parse(body) if t.type == "fence"] == []
    assert "run_checks" in body
