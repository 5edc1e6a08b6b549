"""Notes to taste: tool_output, thinking, tools and todo_as_checklist change the notes as the
README says, reach templates as variables, re-render every note once when changed, and a bad
value is a configuration error naming the key."""

from __future__ import annotations

import re
from datetime import UTC
from pathlib import Path

import frontmatter
import pytest
from claude_builder import ClaudeSession, tool_use
from conftest import load_sessions, note_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from message_builder import msg, session
from obsidian_check import constructs
from typer.testing import CliRunner

from exporter import markdown
from exporter.cli import app
from exporter.config import resolve
from exporter.errors import ConfigError
from exporter.export import ExportOptions, run_export
from exporter.model import Session, TextPart, ThinkingPart, ToolCallPart, ToolResultPart
from exporter.notes import NoteSettings, build_note
from exporter.options import export_options
from exporter.turns import TurnView

OUTPUT = "\n".join(f"output line {n}" for n in range(1, 31))  # 30 lines


def call(name: str, value, call_id: str = "c1", output: str | None = None, **result) -> list:
    parts = [msg("assistant", ToolCallPart(name, value, call_id), minute=2)]
    if output is not None:
        parts.append(msg("user", ToolResultPart(output, call_id, **result), minute=3))
    return parts


def body(s: Session, **view) -> str:
    return build_note(s, "n.md", NoteSettings(view=TurnView(**view)), lambda key: None).body


def worked() -> Session:
    """A prompt, a reasoning, two shell calls (one with 30 lines of output), a reply."""
    return session(
        msg("user", TextPart("List the files"), minute=0),
        msg("assistant", ThinkingPart("I should run ls first"), minute=1),
        *call("Bash", {"command": "ls -la"}, "c1", OUTPUT, exit_code=0),
        *call("Bash", {"command": "git status"}, "c2", "clean", exit_code=1, is_error=True),
        msg("assistant", TextPart("Here they are."), minute=5),
    )


def fenced_output(text: str) -> list[str]:
    """The lines of the first ```text block holding "output line" (inside a callout)."""
    lines = [line.removeprefix("> ").removeprefix(">") for line in text.splitlines()]
    start = next(i for i, line in enumerate(lines) if line == "output line 1")
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
    return lines[start:end]


# -- tool_output -------------------------------------------------------------------------


def test_tool_output_full_is_the_default_and_keeps_every_line():
    text = body(worked())
    assert text == body(worked(), tool_output="full")
    assert fenced_output(text) == OUTPUT.splitlines()
    assert "more line" not in text


def test_tool_output_head_keeps_exactly_n_lines_and_says_how_many_are_left_out():
    text = body(worked(), tool_output="head", tool_output_lines=5)
    assert fenced_output(text) == [f"output line {n}" for n in range(1, 6)]
    assert "output line 6" not in text
    assert "> *… 25 more lines*" in text
    one_more = body(worked(), tool_output="head", tool_output_lines=29)
    assert "output line 29" in one_more and "output line 30" not in one_more
    assert "*… 1 more line*" in one_more


def test_tool_output_head_leaves_a_short_output_whole_without_a_marker():
    text = body(worked(), tool_output="head", tool_output_lines=30)
    assert fenced_output(text) == OUTPUT.splitlines()
    assert "more line" not in text


def test_tool_output_none_keeps_the_call_and_its_input_but_no_output():
    text = body(worked(), tool_output="none")
    assert "output line" not in text and "clean" not in text
    assert "ls -la" in text and "`Bash`" in text


def test_tool_output_none_leaves_out_a_result_without_its_call():
    s = session(
        msg("user", TextPart("go"), minute=0),
        msg("assistant", ToolResultPart("orphan output", "nobody"), minute=1),
    )
    assert "orphan output" in body(s)
    assert "orphan output" not in body(s, tool_output="none")


def test_a_subagent_s_result_is_its_reply_and_is_never_cut():
    answer = "\n".join(f"finding {n}" for n in range(1, 11))
    s = session(
        msg("user", TextPart("survey"), minute=0),
        *call("Task", {"prompt": "look around", "description": "Survey"}, "t1", answer),
    )
    assert "finding 10" in body(s, tool_output="head", tool_output_lines=2)
    assert "finding 10" in body(s, tool_output="none")


# -- thinking ----------------------------------------------------------------------------


def test_thinking_folded_shown_hidden():
    assert "> [!quote]- Thinking\n" in body(worked())
    shown = body(worked(), thinking="shown")
    assert "> [!quote] Thinking\n" in shown and "[!quote]-" not in shown
    hidden = body(worked(), thinking="hidden")
    assert "Thinking" not in hidden and "run ls first" not in hidden


def test_redacted_thinking_follows_the_setting():
    s = session(msg("user", TextPart("q")), msg("assistant", ThinkingPart("", redacted=True)))
    assert "> [!quote]- Thinking (redacted)" in body(s)
    assert "> [!quote] Thinking (redacted)" in body(s, thinking="shown")
    assert "Thinking" not in body(s, thinking="hidden")


def test_a_turn_left_with_nothing_to_show_has_no_heading():
    s = session(
        msg("user", TextPart("q"), minute=0),
        msg("assistant", ThinkingPart("just thinking"), minute=1),
        msg("user", TextPart("and?"), minute=2),
    )
    assert "### Assistant" in body(s)
    assert "### Assistant" not in body(s, thinking="hidden")


# -- tools -------------------------------------------------------------------------------


def test_tools_summary_is_one_line_per_call_in_one_list():
    text = body(worked(), tools="summary")
    assert "- `Bash` — `ls -la` · exit 0\n- `Bash` — `git status` · exit 1\n" in text
    assert "output line" not in text and "[!example]" not in text and "[!failure]" not in text
    assert "Here they are." in text and "List the files" in text


def test_tools_summary_names_a_subagent_and_links_its_note():
    s = session(
        msg("user", TextPart("survey"), minute=0),
        msg("assistant", ToolCallPart("Task", {"subagent_type": "explore", "prompt": "p"}, "t1",
                                      description="Survey", subagent_id="agent-1")),
    )  # fmt: skip
    note = build_note(
        s, "n.md", NoteSettings(view=TurnView(tools="summary")), lambda key: "Child note"
    )
    assert "- Subagent `explore` — Survey → [[Child note]]" in note.body


def test_tools_hidden_leaves_calls_out_but_properties_alone():
    default = build_note(worked(), "n.md", NoteSettings(), lambda key: None)
    hidden = build_note(
        worked(), "n.md", NoteSettings(view=TurnView(tools="hidden")), lambda key: None
    )
    assert "Bash" not in hidden.body and "ls -la" not in hidden.body
    assert "Here they are." in hidden.body
    assert hidden.frontmatter == default.frontmatter  # messages, tool_calls, tools, errors …


def test_every_setting_at_once_leaves_frontmatter_as_it_was():
    default = build_note(worked(), "n.md", NoteSettings(), lambda key: None)
    view = TurnView("none", 3, "hidden", "summary", True)
    other = build_note(worked(), "n.md", NoteSettings(view=view), lambda key: None)
    assert other.frontmatter == default.frontmatter and other.body != default.body


# -- todo_as_checklist -------------------------------------------------------------------

# The plan tools' inputs, shaped as the corpus and each tool's own format have them.
TODO_SHAPES = {
    "TodoWrite": {"todos": [
        {"content": "Read the code", "status": "completed", "activeForm": "Reading"},
        {"content": "Write the test", "status": "in_progress", "activeForm": "Writing"},
        {"content": "Ship it", "status": "pending", "activeForm": "Shipping"}]},
    "update_plan": {"explanation": "Three steps.", "plan": [
        {"step": "Read the code", "status": "completed"},
        {"step": "Write the test", "status": "in_progress"},
        {"step": "Ship it", "status": "pending"}]},
    "write_todos": {"todos": [
        {"description": "Read the code", "status": "completed"},
        {"description": "Write the test", "status": "in_progress"},
        {"description": "Ship it", "status": "pending"}]},
    "todowrite": {"todos": [
        {"content": "Read the code", "status": "completed", "priority": "high", "id": "1"},
        {"content": "Write the test", "status": "in_progress", "priority": "high", "id": "2"},
        {"content": "Ship it", "status": "pending", "priority": "low", "id": "3"}]},
    "todo_write": {"merge": False, "todos": [
        {"id": "a", "content": "Read the code", "status": "TODO_STATUS_COMPLETED"},
        {"id": "b", "content": "Write the test", "status": "in_progress"},
        {"id": "c", "content": "Ship it", "status": "pending"}]},
    "update_todo": {"todos": "- [x] Read the code\n- [ ] Write the test\n- [ ] Ship it"},
    "manage_todo_list": {"operation": "write", "todoList": [
        {"id": 1, "title": "Read the code", "description": "all of it", "status": "completed"},
        {"id": 2, "title": "Write the test", "description": "…", "status": "in-progress"},
        {"id": 3, "title": "Ship it", "description": "…", "status": "not-started"}]},
}  # fmt: skip


@pytest.mark.parametrize("tool", sorted(TODO_SHAPES))
def test_each_plan_tool_becomes_a_checklist(tool):
    s = session(msg("user", TextPart("plan it")), *call(tool, TODO_SHAPES[tool], "p1", "ok"))
    text = body(s, todo_as_checklist=True)
    assert f"> [!todo] Plan — `{tool}`" in text
    boxes = [line for line in text.splitlines() if line.startswith("> - [")]
    in_progress = " *(in progress)*" if tool != "update_todo" else ""
    assert boxes == [
        "> - [x] Read the code",
        f"> - [ ] Write the test{in_progress}",
        "> - [ ] Ship it",
    ]
    assert ("Three steps." in text) == (tool == "update_plan")
    default = body(s)  # off by default: the call is shown as any other
    assert "[!todo]" not in default and f"> [!example]- `{tool}`" in default


def test_a_cancelled_item_stays_unchecked_and_says_so():
    plan = {"todos": [{"content": "Port to Windows", "status": "cancelled"}]}
    s = session(msg("user", TextPart("plan")), *call("TodoWrite", plan, "p1"))
    assert "> - [ ] Port to Windows *(cancelled)*" in body(s, todo_as_checklist=True)


def test_a_checklist_item_is_escaped_like_any_session_text():
    hostile = "Fix [[Secret note]] <img src=x onerror=alert(1)> #tag `code` **bold**\n# heading"
    s = session(
        msg("user", TextPart("plan")),
        *call("TodoWrite", {"todos": [{"content": hostile, "status": "pending"}]}, "p1"),
    )
    line = next(x for x in body(s, todo_as_checklist=True).splitlines() if "- [ ]" in x)
    assert line == "> - [ ] " + markdown.escape_inline(hostile)
    assert "\\[\\[Secret" in line and "\\<img" in line and "\\#tag" in line


def test_a_checklist_is_shown_even_when_tools_are_summarised_or_hidden():
    plan = TODO_SHAPES["TodoWrite"]
    s = session(msg("user", TextPart("plan")), *call("TodoWrite", plan, "p1"), *call(
        "Bash", {"command": "make"}, "c9", "built"))  # fmt: skip
    for tools in ("summary", "hidden"):
        text = body(s, tools=tools, todo_as_checklist=True)
        assert "> - [x] Read the code" in text
        assert ("`make`" in text) == (tools == "summary")


def test_a_plan_call_without_readable_items_stays_an_ordinary_call():
    s = session(msg("user", TextPart("plan")), *call("TodoWrite", {"todos": [{"id": "1"}]}, "p1"))
    text = body(s, todo_as_checklist=True)
    assert "[!todo]" not in text and "`TodoWrite`" in text


def test_real_plan_calls_in_the_corpus_become_checklists(corpus, tmp_path):
    from corpus_home import build_codex_home, build_corpus_home

    from exporter.adapters import all_adapters
    from exporter.turns import TODO_TOOLS

    home = tmp_path / "home"
    build_corpus_home(corpus, home)
    build_codex_home(corpus, home)
    settings = NoteSettings(view=TurnView(todo_as_checklist=True))
    calls = boxes = 0
    for adapter in [a for a in all_adapters() if a.name in ("claude-code", "codex")]:
        for s in load_sessions(adapter, home)[0]:
            planned = [
                p
                for m in s.messages
                for p in m.parts
                if isinstance(p, ToolCallPart) and p.name.lower() in TODO_TOOLS
            ]
            if not planned:
                continue
            text = build_note(s, "n.md", settings, lambda key: None).body
            calls += len(planned)
            assert text.count("[!todo] Plan — ") == len(planned), s.source_path
            boxes += len(re.findall(r"(?m)^> - \[[ x]\] \S", text))
    assert calls >= 100 and boxes >= 3 * calls  # 107 TodoWrite and 20 update_plan calls


# -- templates ---------------------------------------------------------------------------


def test_the_settings_are_template_variables(tmp_path):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "session.md.j2").write_text(
        "{{ tool_output }} {{ tool_output_lines }} {{ thinking }} {{ tools }} "
        "{{ todo_as_checklist }}\n",
        encoding="utf-8",
    )
    view = TurnView("head", 7, "shown", "summary", True)
    note = build_note(worked(), "n.md", NoteSettings(templates=folder, view=view), lambda k: None)
    assert note.body == "head 7 shown summary True\n"
    default = build_note(worked(), "n.md", NoteSettings(templates=folder), lambda k: None)
    assert default.body == "full 20 folded full False\n"


# -- configuration and command line -----------------------------------------------------


def vault_with_config(tmp_path: Path, text: str) -> Path:
    vault = tmp_path / "vault"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "config.toml").write_text(text, encoding="utf-8")
    return vault


def test_config_file_values_reach_the_notes(tmp_path):
    vault = vault_with_config(
        tmp_path,
        'tool_output = "head"\ntool_output_lines = 4\nthinking = "hidden"\n'
        'tools = "summary"\ntodo_as_checklist = true\n',
    )
    options = export_options(resolve({"vault": vault}, env={}), None)
    assert options.view == TurnView("head", 4, "hidden", "summary", True)
    assert options.note_settings().view == options.view


def test_flags_win_over_the_config_file(tmp_path):
    vault = vault_with_config(tmp_path, 'tools = "hidden"\ntodo_as_checklist = true\n')
    cli = {"vault": vault, "tools": "summary", "todo_as_checklist": False}
    settings = resolve(cli, env={})
    assert (settings.tools, settings.todo_as_checklist) == ("summary", False)
    assert settings.origin["tools"] == "command line"


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('tool_output = "some"', "'tool_output'"),
        ("tool_output_lines = 0", "'tool_output_lines'"),
        ('tool_output_lines = "20"', "'tool_output_lines'"),
        ("tool_output_lines = true", "'tool_output_lines'"),
        ('thinking = "open"', "'thinking'"),
        ('tools = "none"', "'tools'"),
        ('todo_as_checklist = "yes"', "'todo_as_checklist'"),
    ],
)
def test_a_bad_value_names_the_file_and_the_key(tmp_path, line, key):
    vault = vault_with_config(tmp_path, line + "\n")
    with pytest.raises(ConfigError) as caught:
        resolve({"vault": vault}, env={})
    assert key in str(caught.value) and "config.toml" in str(caught.value)


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--tools", "verbose"], "--tools"),
        (["--thinking", "open"], "--thinking"),
        (["--tool-output", "tail"], "--tool-output"),
        (["--tool-output-lines", "0"], "--tool-output-lines"),
    ],
)
def test_a_bad_flag_exits_2_naming_the_flag(tmp_path, args, flag):
    result = CliRunner().invoke(
        app, ["export", "--vault", str(tmp_path / "v"), "--home", str(tmp_path), *args]
    )
    assert result.exit_code == 2, result.output
    assert flag in result.output and "must be" in result.output
    assert not (tmp_path / "v").exists()


# -- re-rendering ------------------------------------------------------------------------


def small_home(home: Path) -> None:
    projects = home / ".claude" / "projects" / "-home-dev-work-project"
    for n, sid in enumerate(["11111111-1111-4111-8111-111111111111",
                             "22222222-2222-4222-8222-222222222222"]):  # fmt: skip
        s = ClaudeSession(sid, start=f"2026-11-2{n}T09:00:00Z")
        s.user("List the files")
        s.assistant([{"type": "thinking", "thinking": "run ls", "signature": "x"}])
        s.assistant([tool_use("Bash", {"command": "ls"}, f"toolu_{n}")])
        s.tool_result(f"toolu_{n}", OUTPUT)
        s.assistant("Done.")
        s.write(projects / f"{sid}.jsonl")


def test_a_settings_change_re_renders_every_note_once(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    small_home(home)

    def run(**view) -> dict:
        report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC,
                                          view=TurnView(**view)))  # fmt: skip
        assert not report.failed
        return {k: report.total(k) for k in ("created", "updated", "unchanged", "skipped")}

    assert run()["created"] == 2
    assert run() == {"created": 0, "updated": 0, "unchanged": 0, "skipped": 2}
    assert run(tools="summary")["updated"] == 2
    notes = note_files(vault)
    assert all(b"- `Bash` \xe2\x80\x94 `ls`" in data for data in notes.values())
    assert run(tools="summary") == {"created": 0, "updated": 0, "unchanged": 0, "skipped": 2}
    assert note_files(vault) == notes
    assert run(tools="summary", thinking="hidden")["updated"] == 2
    for data in note_files(vault).values():
        post = frontmatter.loads(data.decode())
        assert post["tool_calls"] == 1 and "Thinking" not in post.content


def test_the_view_is_part_of_the_render_fingerprint(tmp_path):
    base = ExportOptions(vault=tmp_path)
    prints = {
        ExportOptions(vault=tmp_path, view=view).render_fingerprint()
        for view in (TurnView(), TurnView(tool_output="head"), TurnView(tool_output_lines=5),
                     TurnView(thinking="shown"), TurnView(tools="summary"),
                     TurnView(todo_as_checklist=True))
    }  # fmt: skip
    assert len(prints) == 6 and base.render_fingerprint() in prints


def test_config_show_lists_each_setting_and_where_it_came_from(tmp_path):
    vault = vault_with_config(tmp_path, 'thinking = "shown"\n')
    rows = {key: (value, origin) for key, value, origin in resolve({"vault": vault}).shown()}
    assert rows["thinking"][0] == '"shown"' and "config.toml" in rows["thinking"][1]
    assert rows["tool_output"] == ('"full"', "default")  # as TOML writes them
    assert rows["tool_output_lines"] == ("20", "default")
    assert rows["tools"] == ('"full"', "default") and rows["todo_as_checklist"][0] == "false"


# Pieces Obsidian, its plugins or CommonMark act on (see test_note_safety.py for the full set).
HOSTILE = [
    "#tag",
    "[[Note]]",
    "![[a.png]]",
    "==m==",
    "%%h%%",
    "%% ccexport:end %%",
    "$x$",
    "<div onclick=x()>",
    "- [ ] task",
    "[x] done",
    "> [!warning] b",
    "# Head",
    "key:: v",
    "`code`",
    "```",
    "~~~",
    "\n",
    "\n\n",
    "**",
    "_",
    "[",
    "]",
    "!",
    "<",
    "^id",
    " ",
]
hostile_text = st.lists(st.sampled_from(HOSTILE) | st.text("ab #[]`\n-*>", max_size=5),
                        min_size=1, max_size=8).map("".join)  # fmt: skip
VIEWS = [TurnView(todo_as_checklist=True), TurnView("head", 2, "shown", "summary", True),
         TurnView("none", 20, "hidden", "hidden", True)]  # fmt: skip


def _plan_kinds(items: list[str], output: str, view: TurnView) -> list[str]:
    plan = {"todos": [{"content": text, "status": "pending"} for text in items]}
    s = session(
        msg("user", TextPart("plan")),
        *call("TodoWrite", plan, "p1", "ok"),
        *call("Bash", {"command": "make"}, "c1", output),
    )
    note = build_note(s, "n.md", NoteSettings(view=view), lambda key: None)
    return sorted(c.kind for c in constructs(note.body))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(hostile_text, min_size=1, max_size=4), hostile_text, st.sampled_from(VIEWS))
def test_checklist_items_and_cut_outputs_never_become_constructs(items, output, view):
    items = [text if text.strip() else "x" for text in items]
    plain = _plan_kinds(["plain words"] * len(items), "plain\nwords\nhere", view)
    assert _plan_kinds(items, output, view) == plain, (items, output)


def test_the_flags_reach_the_notes(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    small_home(home)
    args = ["--vault", str(vault), "--home", str(home), "--timezone", "UTC", "-q"]
    flags = ["--tools", "summary", "--thinking", "hidden", "--todo-as-checklist"]
    result = CliRunner().invoke(app, ["export", *args, *flags])
    assert result.exit_code == 0, result.output
    for data in note_files(vault).values():
        assert b"\n- `Bash` \xe2\x80\x94 `ls`\n" in data and b"Thinking" not in data
    result = CliRunner().invoke(app, ["export", *args, "--tool-output", "head",
                                      "--tool-output-lines", "2", "--no-todo-as-checklist"])  # fmt: skip
    assert result.exit_code == 0, result.output
    for data in note_files(vault).values():
        assert b"> output line 2\n> ```\n> *\xe2\x80\xa6 28 more lines*" in data
