"""Cline 4's ``read_files`` and ``run_commands`` calls name their subject in their
callout's title, as its ``editor`` calls show their path (review33 §9: a folded list of
ten untitled ``read_files`` calls said nothing of which file each read): the files read,
the command run (its first, marked cut where more follow)."""

from __future__ import annotations

from datetime import UTC

import cline_builder as cb
from conftest import note_files

from exporter.export import ExportOptions, run_export
from exporter.model import ToolCallPart
from exporter.toolinput import argument_summary


def _note(tmp_path, calls: list[tuple[str, dict]]) -> str:
    home, vault = tmp_path / "home", tmp_path / "vault"
    messages = [cb.message("user", "Look at the sidebar", n=0)]
    for i, (name, tool_input) in enumerate(calls):
        messages.append(
            cb.message("assistant", cb.tool_use(f"t{i}", name, tool_input), n=1 + 2 * i)
        )
        messages.append(cb.message("user", cb.tool_result(f"t{i}", "ok"), n=2 + 2 * i))
    messages.append(cb.message("assistant", cb.text("Done."), n=99))
    cb.sdk_session(home / ".cline" / "data", "s1", messages)
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, sources=["cline"]))
    assert not report.failed
    (text,) = note_files(vault).values()
    return text.decode()


def test_read_files_names_the_files_it_read(tmp_path):
    one = {"files": [{"path": "/src/app/sidebar.tsx", "start_line": 462, "end_line": 480}]}
    two = {"files": [{"path": "/src/a.ts"}, {"path": "/src/b.ts", "start_line": 1}]}
    note = _note(tmp_path, [("read_files", one), ("read_files", two)])
    assert "> [!example]- `read_files` — `/src/app/sidebar.tsx`" in note
    assert "> [!example]- `read_files` — `/src/a.ts, /src/b.ts`" in note
    assert "start_line: 462" in note  # (the lines read stay among its inputs)


def test_run_commands_names_its_command_and_says_when_more_follow(tmp_path):
    one = {"commands": ["grep -rn sidebar src/"]}
    two = {"commands": ["npm test", "npm run lint"]}
    note = _note(tmp_path, [("run_commands", one), ("run_commands", two)])
    assert "> [!example]- `run_commands` — `grep -rn sidebar src/`" in note
    assert "> [!example]- `run_commands` — `npm test` …" in note
    assert "npm run lint" in note  # (the rest stays among its inputs)


def test_a_list_without_a_name_in_it_gives_no_subject():
    for tool_input in ({"files": []}, {"files": [{"start_line": 3}]}, {"commands": [" ", 7]}):
        assert argument_summary(ToolCallPart("read_files", tool_input)) is None
