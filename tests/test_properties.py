"""The queryable properties (stats.py): each one computed from a session, one type in every
note, written into the frontmatter of real exports from every demo source."""

from __future__ import annotations

import fnmatch
import shutil
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import frontmatter
import pytest
from conftest import EXAMPLES_HOME, note_files
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter import prices
from exporter.daily import DailyNotes
from exporter.export import ExportOptions, run_export
from exporter.model import (
    CommandPart,
    Message,
    Session,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)
from exporter.notes import NoteSettings, build_note
from exporter.resume import resume_command
from exporter.stats import (
    PropertySettings,
    active_minutes,
    edited_files,
    main_model,
    prompt_count,
    session_properties,
)

sys.path.insert(0, str(Path(__file__).parent))
import demo_aider  # noqa: E402
import demo_cline  # noqa: E402
import demo_copilot_cli  # noqa: E402
import demo_cursor_agent  # noqa: E402
import demo_gemini  # noqa: E402
import demo_opencode  # noqa: E402

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def session(*messages: Message, **kw) -> Session:
    fields = {"source": "claude-code", "session_id": "5e0c1a77-3f0e-4c52-9a0b-0d1f6b2c7a10"}
    fields.update(kw)
    return Session(messages=tuple(messages), source_path=Path("/x.jsonl"), **fields)


def user(text: str, minute: float = 0) -> Message:
    return Message("user", (TextPart(text),), timestamp=at(minute))


def reply(minute: float = 0, model: str | None = None, *parts) -> Message:
    return Message("assistant", parts or (TextPart("ok"),), timestamp=at(minute), model=model)


def call(name: str, value) -> Message:
    return Message("assistant", (ToolCallPart(name, value, "c1"),))


# -- model, active, prompts, errors, tools, files ------------------------------------------


def test_model_is_the_one_that_wrote_most_replies():
    s = session(
        user("a"), reply(1, "claude-opus-4-5"), reply(2, "claude-haiku-4-5"),
        reply(3, "claude-haiku-4-5"), models=("claude-opus-4-5", "claude-haiku-4-5"),
    )  # fmt: skip
    assert main_model(s) == "claude-haiku-4-5"
    assert main_model(session(user("a"), models=("gpt-5",))) == "gpt-5"  # no reply names one


def test_active_sums_only_gaps_shorter_than_five_minutes():
    # 0 → 2 → 4 (4 active minutes), a 3-hour pause, then 184 → 187 (3 more)
    s = session(user("a", 0), reply(2), user("b", 4), reply(184), user("c", 187))
    assert active_minutes(s) == 7
    assert active_minutes(session(user("a", 0))) is None  # one dated message: unknown


def test_prompts_count_what_the_person_typed_not_injected_wrappers():
    s = session(
        user("fix it"),
        Message("user", (TextPart("<system-reminder>noise</system-reminder>"),)),
        Message("user", (ToolResultPart("done", "c1"),)),
        Message("user", (CommandPart("/compact"),)),
        reply(),
    )
    assert prompt_count(s) == 2


def test_files_from_every_source_s_edit_tools_relative_to_the_session_folder():
    patch = (
        "*** Begin Patch\n*** Update File: src/a.rs\n@@\n*** Add File: src/b.rs\n+x\n*** End Patch"
    )
    s = session(
        call("Write", {"file_path": "/work/app/README.md", "content": "x"}),  # Claude Code
        call("MultiEdit", {"file_path": "/work/app/src/a.rs", "edits": []}),
        call("NotebookEdit", {"notebook_path": "/work/app/nb.ipynb"}),
        call("apply_patch", patch),  # Codex, a tool of its own
        call("shell", {"command": ["apply_patch", patch.replace("b.rs", "c.rs")]}),  # older
        call("edit", {"filePath": "/work/app/x.ts"}),  # OpenCode
        call("replace", {"file_path": "/work/app/g.py"}),  # Gemini CLI
        call("replace_in_file", {"path": "h.py"}),  # Cline
        call("editor", {"path": "/work/app/k.tsx", "old_text": "a", "new_text": "b"}),  # Cline 4
        call("str_replace_editor", {"command": "view", "path": "/work/app/seen.md"}),  # a read
        call("str_replace_editor", {"command": "str_replace", "path": "/work/app/l.md"}),
        call("edited files", {"files": ["/work/app/i.cs"]}),  # Copilot Chat
        call("apply_patch", {"file_path": "/work/app/j.rs", "patch": "@@ -1 +1 @@"}),  # Cursor
        call("Read", {"file_path": "/work/app/not-written.md"}),
        call("Bash", {"command": "rm -rf build"}),
        cwd="/work/app",
    )
    assert edited_files(s) == [
        "README.md", "src/a.rs", "nb.ipynb", "src/b.rs", "src/c.rs", "x.ts", "g.py", "h.py",
        "k.tsx", "l.md", "i.cs", "j.rs",
    ]  # fmt: skip


def test_files_leave_out_a_change_whose_result_is_an_error():
    """A Write the person refused, or was never permitted, changed nothing: ``files`` is
    what a query for "sessions that changed CLAUDE.md" reads (two corpus notes listed a
    file never written). A call with no result (interrupted) may have run: kept."""

    def edit(path: str, cid: str) -> Message:
        return Message("assistant", (ToolCallPart("Write", {"file_path": path}, cid),))

    def result(cid: str, error: bool) -> Message:
        return Message("user", (ToolResultPart("…", cid, is_error=error),))

    s = session(
        edit("/w/CLAUDE.md", "t1"), result("t1", True),  # refused
        edit("/w/a.py", "t2"), result("t2", False),
        edit("/w/b.py", "t3"),  # interrupted: no result
        edit("/w/c.py", "t4"), result("t4", True), edit("/w/c.py", "t5"), result("t5", False),
        cwd="/w",
    )  # fmt: skip
    assert edited_files(s) == ["a.py", "b.py", "c.py"]


def test_windows_paths_are_made_relative_to_a_windows_folder():
    s = session(call("write_file", {"file_path": "C:\\dev\\app\\src\\m.py"}), cwd="C:\\dev\\app")
    assert edited_files(s) == ["src/m.py"]


def test_properties_keep_one_type_and_leave_out_what_does_not_apply():
    busy = session(
        user("go", 0), reply(1, "claude-sonnet-4-5", ToolCallPart("Edit", {"file_path": "a"}, "1"),
                             ToolCallPart("Edit", {"file_path": "b"}, "2")),
        Message("user", (ToolResultPart("ok", "1"), ToolResultPart("boom", "2", is_error=True)),
                timestamp=at(2)),
        usage=Usage(1000, 200), models=("claude-sonnet-4-5",),
    )  # fmt: skip
    quiet = session(user("hi"), source="cursor", session_id="c1")
    a, b = session_properties(busy), session_properties(quiet)
    assert a["tools"] == ["Edit"] and a["files"] == ["a"] and a["errors"] == 1
    assert a["tokens"] == 1200 and a["prompts"] == 1 and a["active"] == 2
    for key in set(a) & set(b):
        assert type(a[key]) is type(b[key]), key
    assert b == {"prompts": 1, "errors": 0}  # no lists, model, tokens, cost or resume
    assert None not in a.values()


# -- cost ------------------------------------------------------------------------------------


def test_cost_estimate_from_the_shipped_list_prices():
    s = session(reply(0, "claude-sonnet-4-5-20250929"), usage=Usage(1_000_000, 100_000, 2_000_000))
    props = session_properties(s)
    # 1M input at $3 + 0.1M output at $15 + 2M cache reads at $0.30
    assert props["cost"] == pytest.approx(3.0 + 1.5 + 0.6)
    assert props["cost_estimated"] is True


def test_a_recorded_cost_is_kept_and_not_marked_estimated():
    s = session(reply(0, "claude-sonnet-4-5"), usage=Usage(1000, 10), cost=0.42)
    props = session_properties(s)
    assert "cost" not in props and "cost_estimated" not in props  # notes.py writes the 0.42
    note = build_note(s, "n.md", NoteSettings(), lambda key: None)
    assert note.frontmatter["cost"] == 0.42 and "cost_estimated" not in note.frontmatter


def test_no_estimate_for_an_unknown_model_or_an_unpriced_token_kind():
    table = prices.shipped_table()
    assert prices.estimate(Usage(1000, 10), "gpt-9-ultra", table) is None
    # Gemini has no cache price in the table: a session that read the cache gets none
    assert prices.estimate(Usage(1000, 10, 5000), "gemini-2.5-pro", table) is None
    assert prices.estimate(Usage(1_000_000, 0), "gemini-2.5-pro", table) == 1.25


def test_model_names_are_matched_across_sources_spellings():
    table = prices.shipped_table()
    for name in ("anthropic/claude-sonnet-4.5", "claude-4.5-sonnet", "claude-sonnet-4-5",
                 "claude-sonnet-4-5-20250929"):  # fmt: skip
        assert table.price_of(name).input == 3.0, name
    assert table.price_of("gpt-5-mini").input == 0.25  # the longest pattern wins over gpt-5
    assert table.price_of("copilot/gpt-5").input == 1.25
    assert table.price_of("gpt-5.5") is None  # not in the table: never priced as gpt-5
    # Codex's gpt-5.1-codex-max (14 turns in the corpus's code_butler rollout) had no estimate
    assert table.price_of("gpt-5.1-codex-max").input == 1.25
    assert table.price_of("gpt-5.1-codex-mini") is None  # a mini's price is not 5.1's


def test_the_user_s_prices_come_first():
    table = prices.shipped_table().with_user({"claude-sonnet-4-5*": {"input": 1, "output": 2}})
    s = session(reply(0, "claude-sonnet-4-5"), usage=Usage(1_000_000, 1_000_000))
    assert session_properties(s, PropertySettings(prices=table))["cost"] == 3.0


_GLOB_PIECES = ["claude-", "opus", "4-5", "-", "*", "?", "[0-9]", "[!a]", "[", "]", "gpt-5", "x"]


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(st.sampled_from(_GLOB_PIECES), max_size=6).map("".join),
    st.lists(st.sampled_from(_GLOB_PIECES), max_size=6).map("".join)
    | st.sampled_from([p.pattern for p in prices.shipped_table().shipped]),
)
def test_a_model_matches_a_price_pattern_exactly_as_fnmatchcase_says(name, pattern):
    """The lookup compiles only the patterns whose text before a wildcard starts the name."""
    assert prices._matches(name, pattern) == fnmatch.fnmatchcase(name, pattern)


def test_the_first_lookup_compiles_only_its_family_s_patterns():
    fnmatch._compile_pattern.cache_clear()  # the standard library's cache of patterns
    table = prices.PriceTable("", (), prices.shipped_table().shipped)
    assert table.price_of("claude-opus-4-5-20251101") is not None
    assert 0 < fnmatch._compile_pattern.cache_info().currsize < 10  # of the table's 53


def test_the_price_table_is_dated_and_says_it_holds_list_prices():
    text = (Path(prices.__file__).parent / "data" / "prices.toml").read_text()
    assert prices.shipped_table().date == "2025-11-24"
    assert "LIST prices" in text


# -- resume ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "session_id", "command"),
    [
        ("claude-code", "5e0c1a77-3f0e-4c52-9a0b-0d1f6b2c7a10",
         "claude --resume 5e0c1a77-3f0e-4c52-9a0b-0d1f6b2c7a10"),
        ("codex", "0199a1b2-0000-7000-8000-00000000abcd",
         "codex resume 0199a1b2-0000-7000-8000-00000000abcd"),
        ("gemini", "9d1c3c1e-1111-4222-8333-444455556666",
         "gemini --resume 9d1c3c1e-1111-4222-8333-444455556666"),
        ("opencode", "ses_3cf7dd8d4ffeUPfENpVxfFojZ2", "opencode --session ses_3cf7dd8d4ffeUPfENpVxfFojZ2"),
        ("copilot-cli", "2a3b4c5d-1111-4222-8333-444455556666",
         "copilot --resume 2a3b4c5d-1111-4222-8333-444455556666"),
        ("cursor", "c1", None),
        ("aider", "run-1", None),
        ("gemini", "project/logs", None),  # a prompt log, not a session the CLI can resume
    ],
)  # fmt: skip
def test_resume_command_per_source(source, session_id, command):
    assert resume_command(session(user("a"), source=source, session_id=session_id)) == command


def test_subagents_are_resumed_through_their_parent():
    assert resume_command(session(user("a"), session_id="agent-a1", parent_id="p")) is None


# -- day -------------------------------------------------------------------------------------


def test_day_links_to_the_daily_note_of_the_first_local_day():
    s = session(user("late", 0), started_at=datetime(2026, 11, 20, 23, 30, tzinfo=UTC))
    daily = PropertySettings(daily=DailyNotes("Journal", "YYYY-MM-DD"))
    assert session_properties(s, daily, UTC)["day"] == "[[Journal/2026-11-20|2026-11-20]]"
    ahead = timezone_plus(2)
    assert session_properties(s, daily, ahead)["day"] == "[[Journal/2026-11-21|2026-11-21]]"
    assert "day" not in session_properties(s)  # no daily notes configured: off


def timezone_plus(hours: int):
    from datetime import timezone

    return timezone(timedelta(hours=hours))


def test_daily_note_link_without_a_folder():
    assert DailyNotes("", "YYYY-MM-DD").link(date(2026, 1, 2)) == "[[2026-01-02]]"


# -- through an export: every demo source ------------------------------------------------


@pytest.fixture(scope="module")
def demo_vault(tmp_path_factory) -> Path:
    """The demo home with every source (written again here so the test does not depend on
    which sources examples/home holds today)."""
    home = tmp_path_factory.mktemp("home")
    for demo in (demo_aider, demo_cline, demo_copilot_cli, demo_cursor_agent, demo_gemini,
                 demo_opencode):  # fmt: skip
        demo.write(home)
    shutil.copytree(EXAMPLES_HOME, home, dirs_exist_ok=True)  # the same files where shared
    vault = tmp_path_factory.mktemp("vault")
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
    return vault


def _notes(vault: Path) -> list[dict]:
    return [frontmatter.loads(text.decode()).metadata for text in note_files(vault).values()]


def test_every_note_has_the_properties_with_one_type_each(demo_vault):
    types: dict[str, set[type]] = {}
    for fm in _notes(demo_vault):
        for key in ("model", "active", "prompts", "tools", "errors", "files", "tokens", "cost",
                    "cost_estimated", "resume"):  # fmt: skip
            if key in fm:
                types.setdefault(key, set()).add(type(fm[key]))
    assert types["model"] == {str} and types["resume"] == {str}
    assert types["active"] == types["prompts"] == types["errors"] == types["tokens"] == {int}
    assert types["tools"] == types["files"] == {list}
    assert types["cost"] == {float} and types["cost_estimated"] == {bool}


def test_properties_per_source_where_the_source_has_the_data(demo_vault):
    by_source: dict[str, list[dict]] = {}
    for fm in _notes(demo_vault):
        by_source.setdefault(fm["source"], []).append(fm)
    has = lambda src, key: any(key in fm for fm in by_source[src])  # noqa: E731
    for src in by_source:
        assert has(src, "prompts"), src
    for src in ("claude-code", "codex", "cursor", "trae", "copilot", "gemini", "opencode",
                "cline", "copilot-cli", "aider"):  # fmt: skip
        assert has(src, "model"), src
    for src in ("claude-code", "codex", "cursor", "gemini", "opencode", "cline", "copilot-cli",
                "copilot"):  # fmt: skip
        assert has(src, "tools"), src
    for src in ("claude-code", "codex", "gemini", "opencode", "copilot-cli"):
        assert has(src, "resume"), src
    for src in ("codex", "cursor", "gemini", "opencode", "cline", "copilot", "trae"):
        assert has(src, "files"), src
    for src in ("claude-code", "codex", "gemini", "opencode", "cline", "aider"):
        assert has(src, "tokens"), src
    assert has("claude-code", "active") and has("codex", "active")
    # recorded costs stay as recorded; Claude Code records none, so it is estimated
    assert any(fm.get("cost_estimated") for fm in by_source["claude-code"])
    assert not any(fm.get("cost_estimated") for fm in by_source["opencode"] if "cost" in fm)


@pytest.mark.corpus
def test_properties_of_every_claude_and_codex_corpus_session(corpus, tmp_path):
    from conftest import load_sessions
    from corpus_home import build_codex_home, build_corpus_home

    from exporter.adapters.claude_code import ClaudeCodeAdapter
    from exporter.adapters.codex import CodexAdapter

    build_corpus_home(corpus, tmp_path)
    build_codex_home(corpus, tmp_path)
    found = {"claude-code": [], "codex": []}
    for adapter in (ClaudeCodeAdapter(), CodexAdapter()):
        sessions, _ = load_sessions(adapter, tmp_path)
        found[adapter.name] = [session_properties(s) for s in sessions]
    for name, props in found.items():
        assert props, name
        assert sum("files" in p for p in props) >= 5, name  # Write/Edit, apply_patch
        assert all(isinstance(p.get("active", 0), int) for p in props)
        # wall-clock spans can be months; active time stays a working day or less here
        assert max(p.get("active", 0) for p in props) < 24 * 60
    codex_files = [f for p in found["codex"] for f in p.get("files", [])]
    assert codex_files and not any(f.startswith("*** ") for f in codex_files)
    assert any(p.get("cost_estimated") for p in found["claude-code"])


def test_the_info_line_says_how_to_reopen_the_session():
    s = session(user("hi"), reply(1, "claude-sonnet-4-5"))
    body = build_note(s, "n.md", NoteSettings(), lambda key: None).body
    info = next(line for line in body.splitlines() if line.startswith("> [!info]"))
    assert "reopen: `claude --resume 5e0c1a77-3f0e-4c52-9a0b-0d1f6b2c7a10`" in info
    cursor = session(user("hi"), source="cursor", session_id="c1")
    assert "reopen" not in build_note(cursor, "n.md", NoteSettings(), lambda key: None).body


def test_prices_from_config_toml_reach_the_notes_and_re_render_them(tmp_path):
    from exporter import config
    from exporter.errors import ConfigError
    from exporter.options import export_options

    vault = tmp_path / "v"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "config.toml").write_text(
        '[prices."claude-sonnet-4-5*"]\ninput = 10.0\noutput = 20.0\n'
    )
    settings = config.resolve({"vault": str(vault)}, env={})
    assert settings.prices == {"claude-sonnet-4-5*": {"input": 10.0, "output": 20.0}}
    options = export_options(settings, None)
    s = session(reply(0, "claude-sonnet-4-5"), usage=Usage(1_000_000, 1_000_000))
    note = build_note(s, "n.md", options.note_settings(), lambda key: None)
    assert note.frontmatter["cost"] == 30.0 and note.frontmatter["cost_estimated"] is True
    plain = ExportOptions(vault=vault)
    assert options.render_fingerprint() != plain.render_fingerprint()  # a price change re-renders
    for bad, why in [
        ({"m": {"input": "cheap"}}, "input' must be a price"),
        ({"m": {"inptu": 1.0}}, r"inptu' is not a setting ccexport knows \(did you mean input\?\)"),
        ({"m": 3}, "must be a table"),
    ]:
        with pytest.raises(ConfigError, match=f"prices.m.*{why}"):
            config._apply(config.Settings(), {"prices": bad}, "f", allow_vault=False, base=tmp_path)


def test_an_absurd_token_count_gets_no_estimate_and_no_crash():
    from exporter.model import Usage
    from exporter.prices import estimate, shipped_table

    table = shipped_table()
    assert estimate(Usage(input_tokens=10**300), "claude-sonnet-4-5", table) is None
    assert estimate(Usage(input_tokens=-5), "claude-sonnet-4-5", table) is None
    assert estimate(Usage(input_tokens=1_000_000), "claude-sonnet-4-5", table) > 0
