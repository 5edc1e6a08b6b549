"""How the Cline family's tool calls read in a note: Cline 4's ``use_subagents`` as subagent
calls linked to their transcripts, the older builds' calls written as XML in the model's
text (read from ``api_conversation_history.json``) as calls with their results, and a
search titled by what it looked for. Fixtures follow the schemas of tests/cline_builder.py
(no real sample of the XML era could be redistributed)."""

from __future__ import annotations

from datetime import UTC

import cline_builder as cb
from conftest import load_sessions, note_files, texts
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter.adapters.cline import ClineAdapter, KiloCodeAdapter, RooCodeAdapter
from exporter.adapters.cline.xmlcalls import _element, split_calls
from exporter.export import ExportOptions, run_export
from exporter.model import TextPart, ToolCallPart, ToolResultPart


def _note(home, vault, source: str = "cline") -> str:
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, sources=[source]))
    assert not report.failed
    notes = note_files(vault)
    return next(v.decode() for k, v in notes.items() if "agent" not in k.rsplit("/", 1)[-1])


def _parts(session, kind):
    return [p for m in session.messages for p in m.parts if isinstance(p, kind)]


# --- Cline 4: use_subagents -----------------------------------------------------------------


def _subagent(prompt: str, reply: str) -> list[dict]:
    return [cb.message("user", prompt, n=1), cb.message("assistant", cb.text(reply), n=2)]


def test_a_use_subagents_call_is_a_subagent_linked_where_it_was_called(tmp_path):
    """The call showed as a plain ``use_subagents`` call with its JSON (``{"tasks":
    [{"prompt": …}]}``), the subagent's note linked only in the header. Now it is a Subagent
    callout with its prompt, its result and the link to the transcript."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    data = home / ".cline" / "data"
    cb.sdk_session(data, "s1", [
        cb.message("user", "Who calls retry()?", n=0),
        cb.message("assistant", cb.tool_use("t1", "use_subagents",
                                            {"tasks": [{"prompt": "find every caller"}]}), n=1),
        cb.message("user", cb.tool_result("t1", "2 callers: api.ts:14, sync.ts:52"), n=2),
        cb.message("assistant", cb.text("Two places."), n=3),
    ], agents={"agent_x": _subagent("find every caller", "2 callers: api.ts:14, sync.ts:52")})  # fmt: skip
    sessions, problems = load_sessions(ClineAdapter(), home)
    assert problems == []
    main = next(s for s in sessions if s.session_id == "s1")
    assert _parts(main, ToolCallPart) == [ToolCallPart(
        "use_subagents", {"prompt": "find every caller"}, "t1", None, "s1/agent-agent_x")]  # fmt: skip
    note = _note(home, vault)
    assert (
        "> [!abstract]- Subagent — `use_subagents`\n>\n> Prompt:\n> ```text\n"
        "> find every caller\n> ```\n>\n> Result:\n>\n> 2 callers: api.ts:14, sync.ts:52\n>\n"
        "> Full transcript: [[" in note
    )
    assert '"tasks"' not in note


def test_several_tasks_are_one_subagent_each_paired_by_prompt(tmp_path):
    """A call of several tasks: one subagent call per task, paired with the transcript whose
    first prompt is the task's (not by file order); each has its subagent's last reply as
    result, the batch's own result stays after them, and a task without a transcript is a
    call without a link."""
    home = tmp_path / "home"
    data = home / ".cline" / "data"
    tasks = [{"prompt": "find the tests"}, {"prompt": "find the docs"}, {"prompt": "lost one"}]
    cb.sdk_session(data, "s2", [
        cb.message("user", "Survey the repo", n=0),
        cb.message("assistant", cb.tool_use("t1", "use_subagents", {"tasks": tasks}), n=1),
        cb.message("user", cb.tool_result("t1", "tests: 3 files\n\ndocs: README"), n=2),
    ], agents={"agent_a": _subagent("find the docs", "docs: README"),
               "agent_b": _subagent("find the tests", "tests: 3 files")})  # fmt: skip
    sessions, problems = load_sessions(ClineAdapter(), home)
    assert problems == []
    main = next(s for s in sessions if s.session_id == "s2")
    assert _parts(main, ToolCallPart) == [
        ToolCallPart("use_subagents", tasks[0], "t1#1", None, "s2/agent-agent_b"),
        ToolCallPart("use_subagents", tasks[1], "t1#2", None, "s2/agent-agent_a"),
        ToolCallPart("use_subagents", tasks[2], "t1#3", None, None),
    ]
    assert _parts(main, ToolResultPart) == [
        ToolResultPart("tests: 3 files", "t1#1"),
        ToolResultPart("docs: README", "t1#2"),
        ToolResultPart("tests: 3 files\n\ndocs: README", "t1"),  # what the model got
    ]


# --- XML tool calls in the model's history --------------------------------------------------


def test_a_call_written_as_xml_is_a_call_with_its_result(tmp_path):
    """Kilo Code's (and Roo's, Cline's) older model history: the call was escaped prose
    (``\\<read_file>``) and its result an unnamed tool output still carrying the
    ``[read_file for 'notes.md'] Result:`` header. Now it is one ``read_file`` call titled by
    its path, holding the output without the header; the model's words around it stay."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    root = cb.storage(home, cb.KILO, layout="mac")
    cb.task(root, "7c2d-kilo", api=[
        cb.message("user", cb.text("<task>\nTable the TODOs\n</task>")),
        cb.message("assistant", cb.text(
            "I'll read it first.\n\n<read_file>\n<path>notes.md</path>\n</read_file>")),
        cb.message("user", cb.text("[read_file for 'notes.md'] Result:\n- [ ] backup\n- [x] sync")),
        cb.message("assistant", cb.text("| task | done |\n| --- | --- |\n| backup | no |")),
    ])  # fmt: skip
    (session,), problems = load_sessions(KiloCodeAdapter(), home)
    assert problems == []
    reply = session.messages[1]
    assert reply.parts == (
        TextPart("I'll read it first."),
        ToolCallPart("read_file", {"path": "notes.md"}, "7c2d-kilo:1#1"),
    )
    assert session.messages[2].parts == (
        ToolResultPart("- [ ] backup\n- [x] sync", "7c2d-kilo:1#1"),
    )
    note = _note(home, vault, "kilo-code")
    assert (
        "> [!example]- `read_file` — `notes.md`\n> ```text\n> - [ ] backup\n> - [x] sync\n" in note
    )
    assert "Result:" not in note and "\\<read_file>" not in note and "Tool output" not in note
    assert "I'll read it first." in note and "tool_calls: 1" in note


def test_a_result_whose_header_repeats_a_long_or_bracketed_argument_finds_its_call(tmp_path):
    """Cline's header repeats the call's argument as written: a command of several lines, a
    glob or regex holding brackets, a long question. Such a header was not read as one: the
    call stood without its result, and the result as a prompt of the person's beginning
    ``[execute_command for '…'] Result:``."""
    home = tmp_path / "home"
    heredoc = "cat > a.txt <<'EOF'\nhello\nEOF"
    question = "Should I keep the old endpoint for the mobile app " + "and its clients " * 12 + "?"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000001", api=[
        cb.message("user", cb.text("<task>\nMake a.txt\n</task>")),
        cb.message("assistant", cb.text(
            f"Writing it.\n\n<execute_command>\n<command>{heredoc}</command>\n</execute_command>")),
        cb.message("user", cb.text(f"[execute_command for '{heredoc}'] Result:"),
                   cb.text("Command executed.")),
        cb.message("assistant", cb.text("<search_files>\n<path>.</path>\n<regex>def [a-z_]+_v1\\(</regex>\n</search_files>")),
        cb.message("user", cb.text("[search_files for 'def [a-z_]+_v1\\('] Result:\nFound 2 results.")),
        cb.message("assistant", cb.text("<execute_command>\n<command>ls [ab]*.txt</command>\n</execute_command>")),
        cb.message("user", cb.text("[execute_command for 'ls [ab]*.txt'] Result:\na.txt")),
        cb.message("assistant", cb.text(f"<ask_followup_question>\n<question>{question}</question>\n</ask_followup_question>")),
        cb.message("user", cb.text(f"[ask_followup_question for '{question}'] Result:\n<answer>\nkeep both\n</answer>")),
        cb.message("assistant", cb.text("Done.")),
    ])  # fmt: skip
    (session,), problems = load_sessions(ClineAdapter(), home)
    assert problems == []
    calls = [p for m in session.messages for p in m.parts if isinstance(p, ToolCallPart)]
    results = {p.call_id: p.output for m in session.messages for p in m.parts
               if isinstance(p, ToolResultPart)}  # fmt: skip
    assert [c.name for c in calls] == ["execute_command", "search_files", "execute_command"]
    assert [results.get(c.call_id) for c in calls] == [
        "Command executed.", "Found 2 results.", "a.txt"
    ]  # fmt: skip
    prompts = [p.text for m in session.messages if m.role == "user" for p in m.parts
               if isinstance(p, TextPart)]  # fmt: skip
    assert prompts == ["Make a.txt", "keep both"]  # the answer is theirs; no header is


def test_only_whole_calls_of_the_family_s_tools_outside_code_are_calls():
    """XML in a code block, a tag named in prose, a tool the family does not define, a call
    cut off or holding anything but parameters: the model's text, as written."""
    kept = [
        "Use `read_file` like this:\n\n```xml\n<read_file>\n<path>a.py</path>\n</read_file>\n```",
        "~~~\n<execute_command>\n<command>ls</command>\n</execute_command>\n~~~",
        "The <read_file> tool reads a file: <read_file><path>x</path></read_file>.",
        "<read_file> reads a file.\n</read_file>",
        "<my_tool>\n<path>a.py</path>\n</my_tool>",
        "<read_file>\n<path>a.py</path>",  # cut off while streaming
        "<read_file>\nplease read <path>a.py</path>\n</read_file>",
        "<thinking>\nFirst the tests.\n</thinking>",
        "Indented, a code block:\n\n    <read_file>\n    <path>a.py</path>\n    </read_file>",
    ]
    for text in kept:
        assert split_calls(text) == [text], text
    # after a closed fence, a call is a call again
    assert split_calls("```\ncode\n```\n<list_files>\n<path>.</path>\n</list_files>") == [
        "```\ncode\n```", ("list_files", {"path": "."})]  # fmt: skip


def test_calls_with_files_diffs_and_roo_s_args_keep_their_text():
    """A file's content is kept as written (only the line breaks around it dropped), the
    tool's own closing tag or ``</content>`` inside it included; several calls and the text
    between them, in order; Roo's ``<args><file>…`` as the file's parameters."""
    content = "<html>\n  </content> stays\n</write_to_file>\n</html>"
    text = (f"Writing it.\n<write_to_file>\n<path>a.html</path>\n<content>\n{content}\n</content>\n"
            "<line_count>4</line_count>\n</write_to_file>\nThen:\n"
            "<replace_in_file>\n<path>b.py</path>\n<diff>\n------- SEARCH\nx\n=======\ny\n"
            "+++++++ REPLACE\n</diff>\n</replace_in_file>")  # fmt: skip
    assert split_calls(text) == [
        "Writing it.",
        ("write_to_file", {"path": "a.html", "content": content, "line_count": "4"}),
        "Then:",
        ("replace_in_file", {"path": "b.py",
                             "diff": "------- SEARCH\nx\n=======\ny\n+++++++ REPLACE"}),
    ]  # fmt: skip
    roo = ("<read_file>\n<args>\n  <file>\n    <path>src/a.ts</path>\n  </file>\n</args>\n"
           "</read_file>")  # fmt: skip
    assert split_calls(roo) == [("read_file", {"path": "src/a.ts"})]
    two = (
        "<read_file><args><file><path>a</path></file><file><path>b</path></file></args></read_file>"
    )
    assert split_calls(two) == [("read_file", {"files": [{"path": "a"}, {"path": "b"}]})]
    mcp = ("<use_mcp_tool>\n<server_name>docs</server_name>\n<tool_name>search</tool_name>\n"
           '<arguments>\n{"q": "argparse"}\n</arguments>\n</use_mcp_tool>')  # fmt: skip
    assert split_calls(mcp) == [("use_mcp_tool", {"server_name": "docs", "tool_name": "search",
                                                  "arguments": {"q": "argparse"}})]  # fmt: skip


def test_what_the_model_says_through_a_tool_is_its_text_and_each_result_finds_its_call(tmp_path):
    """A question to the person (with its options) and a completion's result are the
    model's words, as the UI transcript shows them; the person's answer that comes back is
    their prompt. A result finds the call its header names (a search's, not the read's
    before it), and Cline's notice for a call it skipped is that call's, cancelled."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.ROO)
    skipped = "Skipping tool [write_to_file for 'b.py'] due to user rejecting a previous tool."
    cb.task(root, "roo-1", api=[
        cb.message("user", cb.text("<task>\nFix b.py\n</task>")),
        cb.message("assistant", cb.text(
            "<ask_followup_question>\n<question>Which fix?</question>\n<follow_up>\n"
            "<suggest>small</suggest>\n<suggest>big</suggest>\n</follow_up>\n"
            "</ask_followup_question>")),
        cb.message("user", cb.text("[ask_followup_question for 'Which fix?'] Result:"),
                   cb.text("<answer>\nsmall\n</answer>")),
        cb.message("assistant", cb.text(
            "<read_file>\n<path>b.py</path>\n</read_file>\n\n<search_files>\n<path>.</path>\n"
            "<regex>def b</regex>\n</search_files>")),
        cb.message("user", cb.text("[search_files for 'def b'] Result:\nb.py:1"),
                   cb.text("[read_file for 'b.py'] Result:\ndef b(): pass")),
        cb.message("assistant", cb.text(
            "<apply_diff>\n<path>b.py</path>\n<diff>x</diff>\n</apply_diff>\n"
            "<write_to_file>\n<path>b.py</path>\n<content>y</content>\n</write_to_file>")),
        cb.message("user", cb.text("[apply_diff for 'b.py'] Result:\nThe user denied this "
                                   "operation."), cb.text(skipped)),
        cb.message("assistant", cb.text(
            "<attempt_completion>\n<result>\nLeft b.py as it was.\n</result>\n"
            "</attempt_completion>")),
    ])  # fmt: skip
    (session,), problems = load_sessions(RooCodeAdapter(), home)
    assert problems == []
    assert texts(session, "user") == ["Fix b.py", "small"]
    assert texts(session, "assistant") == ["Which fix?\n\n- small\n- big", "Left b.py as it was."]
    calls = {p.call_id: p.name for p in _parts(session, ToolCallPart)}
    assert calls == {"roo-1:3#1": "read_file", "roo-1:3#2": "search_files",
                     "roo-1:5#1": "apply_diff", "roo-1:5#2": "write_to_file"}  # fmt: skip
    assert _parts(session, ToolResultPart) == [
        ToolResultPart("b.py:1", "roo-1:3#2"),
        ToolResultPart("def b(): pass", "roo-1:3#1"),
        ToolResultPart("The user denied this operation.", "roo-1:5#1", not_run="rejected"),
        ToolResultPart(skipped, "roo-1:5#2", not_run="cancelled"),
    ]
    assert "Result:" not in " ".join(texts(session))


def test_a_result_no_call_names_stays_as_it_was(tmp_path):
    """A result whose header names no call of the reply before it (a reply with no XML
    call, as in builds that sent calls natively) keeps its header: nothing is lost."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000009", api=[
        cb.message("user", "<task>Port it</task>"),
        cb.message("assistant", "<read_file>\n<path>a</path>\n</read_file>"),
        cb.message("user", "[execute_command for 'make'] Result: ok"),
    ])  # fmt: skip
    (session,), _ = load_sessions(ClineAdapter(), home)
    assert _parts(session, ToolResultPart) == [
        ToolResultPart("[execute_command for 'make'] Result: ok")
    ]


# --- titles ---------------------------------------------------------------------------------


def test_a_search_is_titled_by_what_it_looked_for(tmp_path):
    """``searchFiles`` (``{path: ".", regex}``) was titled by its folder, ``.``; now by its
    regex."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000010", ui=[
        cb.say(0, "task", "Where is apply_changes used?"),
        cb.tool(1, "searchFiles", path=".", regex="apply_changes", content="sync.py:3"),
    ])  # fmt: skip
    note = _note(home, vault)
    assert "> [!example]- `searchFiles` — `apply_changes`\n" in note
    assert "> path: .\n" in note  # (its input still shows the folder searched)


_PIECES = st.sampled_from([
    "<read_file>\n", "</read_file>\n", "<path>a.md</path>\n", "prose\n", "<read_file> is how\n",
    "<execute_command>\n", "<command>ls</command>\n", "</execute_command>\n", "x",
])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_remembering_where_a_closing_tag_is_never_changes_what_is_read(text):
    """Each line that opens with a tool's tag looked for its closing tag to the end of the
    text (quadratic in prose that opens many lines so); the search is now remembered from
    one line to the next. Whatever the text, each line reads as it did searched afresh."""
    shared: dict = {}
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    for start in starts:
        for name in ("read_file", "execute_command"):
            tag = f"<{name}>"
            if text.startswith(tag, start):
                at = start + len(tag)
                assert _element(text, at, name, shared) == _element(text, at, name, {})


def test_feedback_on_a_completion_is_the_persons_words_alone(tmp_path):
    """Cline sends the person's feedback on a completion inside its own sentence: the note
    showed "The user has provided feedback on the results. Consider …" and escaped
    ``\\<feedback>`` tags as the person's prompt."""
    home = tmp_path / "home"
    root = cb.storage(home, cb.CLINE)
    cb.task(root, "1762500000001", api=[
        cb.message("user", cb.text("<task>\nTidy notes.md\n</task>")),
        cb.message("assistant", cb.text(
            "<attempt_completion>\n<result>\nTidied notes.md.\n</result>\n</attempt_completion>")),
        cb.message("user", cb.text("[attempt_completion] Result:"), cb.text(
            "The user has provided feedback on the results. Consider their input to continue "
            "the task, and then attempt completion again.\n<feedback>\nalso sort the list\n"
            "</feedback>")),
        cb.message("assistant", cb.text("Sorted.")),
    ])  # fmt: skip
    (session,), _ = load_sessions(ClineAdapter(), home)
    assert texts(session, "user") == ["Tidy notes.md", "also sort the list"]
