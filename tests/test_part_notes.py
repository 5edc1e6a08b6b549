"""A session too long for one note continues in linked part notes, cut at places that stay
put as the session grows: the parts already closed never change again."""

from __future__ import annotations

import re
import shutil
from datetime import UTC
from pathlib import Path

import pytest
from claude_builder import ClaudeSession, tool_use
from conftest import note_files
from hypothesis import given, settings
from hypothesis import strategies as st

from exporter import config, split
from exporter.errors import ConfigError
from exporter.export import ExportOptions, run_export
from exporter.model import Message, TextPart, ToolResultPart
from exporter.options import export_options
from exporter.state import STATE_DIR, STATE_FILE, State

LIMIT = 64 * 1024
SID = "0000abcd-0000-4000-8000-000000000000"


def grow(s: ClaudeSession, start: int, turns: int) -> None:
    for i in range(start, start + turns):
        s.user(f"question q{i}q")
        call = f"call-{i}"
        s.assistant([tool_use("Read", {"file_path": f"/src/f{i}.py"}, call)])
        s.tool_result(call, f"file f{i}\n" + "lorem ipsum dolor sit amet\n" * 150)
        s.assistant(f"answer a{i}a " + "consectetur adipiscing " * 40)


def write(home: Path, s: ClaudeSession) -> Path:
    return s.write(home / ".claude" / "projects" / "-w-big" / f"{SID}.jsonl")


def export(vault: Path, home: Path, **kw):
    options = ExportOptions(vault=vault, home=home, timezone=UTC, note_max_bytes=LIMIT, **kw)
    return run_export(options)


def exported(tmp_path: Path, turns: int) -> tuple[Path, Path, ClaudeSession]:
    """A home holding one session of ``turns`` turns, exported once into a vault beside it."""
    home, vault = tmp_path / "home", tmp_path / "v"
    s = ClaudeSession(SID, "/home/dev/work/big")
    grow(s, 0, turns)
    write(home, s)
    export(vault, home)
    return home, vault, s


def parts(vault: Path) -> dict[str, str]:
    return {path: data.decode() for path, data in note_files(vault).items()}


def test_a_long_session_continues_in_linked_parts_holding_every_turn_once(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    s = ClaudeSession(SID, "/home/dev/work/big")
    grow(s, 0, 60)
    write(home, s)
    report = export(vault, home)
    assert report.total("found") == 1 and not report.failed
    notes = parts(vault)
    names = sorted(notes, key=lambda p: (len(p), p))
    assert len(names) >= 4 and all(len(t.encode()) < LIMIT * 1.3 for t in notes.values())
    first = names[0]
    stem = Path(first).stem
    assert names[1:] == [
        f"{Path(first).parent}/{stem} (part {n}).md" for n in range(2, len(names) + 1)
    ]
    # Every turn in exactly one part, in order.
    text = "".join(notes[n] for n in names)
    asked = re.findall(r"(?m)^question q(\d+)q$", text)
    assert asked == [str(i) for i in range(60)]
    # Links both ways, in the properties and the text.
    for n, name in enumerate(names, start=1):
        body = notes[name]
        assert f"part: {n}\n" in body
        if n > 1:
            previous = Path(names[n - 2]).stem
            assert (
                f"previous_part: '[[{previous}]]'" in body
                and f"[[{previous}|part {n - 1}]]" in body
            )
        if n < len(names):
            following = Path(names[n]).stem
            assert (
                f"next_part: '[[{following}]]'" in body and f"[[{following}|part {n + 1}]]" in body
            )
    assert f"title: {notes[names[1]].split('title: ')[1].split(chr(10))[0]}".endswith("(part 2)")
    # Only the first part is listed in the project's index note.
    index = (vault / "AI Sessions" / "Projects" / "big.md").read_text()
    assert f"[[{stem}|" in index and "(part 2)" not in index


def test_earlier_parts_never_change_as_the_session_grows_and_re_runs_write_nothing(tmp_path):
    home, vault, s = exported(tmp_path, 40)
    before = note_files(vault)
    assert export(vault, home).as_dict()["totals"]["written"] == 0
    grow(s, 40, 45)
    write(home, s)
    report = export(vault, home)
    after = note_files(vault)
    names = sorted(before, key=lambda p: (len(p), p))
    first, closed, last = names[0], names[1:-1], names[-1]
    assert all(after[name] == before[name] for name in closed)  # not even rewritten
    # The first part holds the session's totals, which grew; its text did not change.
    assert after[first] != before[first]
    assert _without_totals(after[first]) == _without_totals(before[first])
    # The part that was last fills up and gains its link to the next part.
    assert len(after) > len(before) and after[last] != before[last]
    assert report.as_dict()["totals"]["written"] == 1  # one session, its notes written
    assert report.total("unchanged") == 0
    assert export(vault, home).as_dict()["totals"]["written"] == 0


TOTALS = re.compile(rb"(?m)^(tokens\w*|cost\w*): .*\n")


def _without_totals(note: bytes) -> bytes:
    return TOTALS.sub(b"", note)


def _adds_up(report) -> tuple[int, int, int]:
    totals = report.as_dict()["totals"]
    done = ("created", "updated", "unchanged", "conflicts", "failed", "deleted", "saved")
    assert sum(totals.get(name, 0) for name in done) == totals["found"] == 1, totals
    return totals["created"], totals["updated"], totals["unchanged"]


def test_a_session_in_parts_is_counted_once_so_the_counts_add_up_to_found(tmp_path):
    """As "found" counts sessions, so do the summary's other counts (review29 F8: "1 session
    found, 7 created", then "4 created, 1 updated, 6 unchanged", a no-op "1 unchanged")."""
    home, vault = tmp_path / "home", tmp_path / "v"
    s = ClaudeSession(SID, "/home/dev/work/big")
    grow(s, 0, 40)
    write(home, s)
    assert _adds_up(export(vault, home)) == (1, 0, 0)
    assert len(note_files(vault)) > 2
    grow(s, 40, 45)
    write(home, s)
    assert _adds_up(export(vault, home)) == (0, 1, 0)
    assert _adds_up(export(vault, home)) == (0, 0, 1)


def test_an_older_copy_of_a_part_put_back_is_made_again_as_a_fresh_export_writes_it(tmp_path):
    """Part 2 was the last part; the session grew a part 3. A backup of the old part 2 put
    back is this machine's own older copy: made again, it is the part 2 a fresh export
    writes. (Before, the last part held the session's tokens and cost, and such a copy
    kept them, counting the session's tokens twice in a Dataview sum: review13 F6. They
    are part 1's now, and no later part's.)"""
    home, vault, s = exported(tmp_path, 20)
    old = parts(vault)
    first, second = sorted(old, key=lambda p: (len(p), p))[:2]
    assert "tokens_in:" in old[first] and "cost:" in old[first]
    assert "tokens_in:" not in old[second] and "cost:" not in old[second]
    grow(s, 20, 25)
    write(home, s)
    export(vault, home)
    (vault / second).unlink()  # (a new file, as a backup or a sync tool puts one back)
    (vault / second).write_text(old[second])
    report = export(vault, home)
    assert [c.relpath for c in report.changes if c.action == "updated"] == [second]
    export(tmp_path / "fresh", home)
    assert parts(vault) == parts(tmp_path / "fresh")


def test_a_session_that_grows_past_the_limit_splits_and_keeps_its_first_note(tmp_path):
    home, vault, s = exported(tmp_path, 3)
    (first,) = note_files(vault)
    grow(s, 3, 40)
    write(home, s)
    report = export(vault, home)
    assert not report.failed and report.total("updated") == 1
    notes = parts(vault)
    assert first in notes and "part: 1" in notes[first] and len(notes) > 2
    assert "question q0q" in notes[first] and "question q39q" not in notes[first]


def test_parts_are_found_again_without_the_state_folder(tmp_path):
    """Each part names itself in its frontmatter: another machine finds the same notes."""
    home, vault, s = exported(tmp_path, 40)
    before = note_files(vault)
    shutil.rmtree(vault / ".ccexport")
    report = export(vault, home)
    assert note_files(vault) == before and report.as_dict()["totals"]["written"] == 0


def test_serial_and_parallel_runs_cut_the_same_parts(tmp_path):
    home = tmp_path / "home"
    for n in range(30):
        s = ClaudeSession(f"{n:08x}-0000-4000-8000-000000000000", "/home/dev/work/big")
        grow(s, 0, 12 if n % 5 == 0 else 1)
        s.write(home / ".claude" / "projects" / "-w-big" / f"{s.session_id}.jsonl")
    export(tmp_path / "one", home, workers=1)
    export(tmp_path / "two", home, workers=2)
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    assert sum("(part 2)" in p for p in note_files(tmp_path / "one")) == 6


def message(role: str, text: str) -> Message:
    return Message(role, (TextPart(text),))


def test_cuts_depend_only_on_what_comes_before_them():
    messages = tuple(
        message("user" if i % 2 == 0 else "assistant", f"m{i} " + "x" * (300 + 37 * (i % 7)))
        for i in range(200)
    )
    full = split.part_ranges(messages, 4000)
    for end in (50, 120, 199):
        prefix = split.part_ranges(messages[:end], 4000)
        assert prefix[:-1] == full[: len(prefix) - 1]  # every closed part is the same
        assert prefix[-1][0] == full[len(prefix) - 1][0]  # and the open one starts alike


def test_a_tool_result_stays_after_its_call_and_one_long_turn_is_cut_between_replies():
    call = Message("assistant", (TextPart("y" * 3000),))
    result = Message("user", (ToolResultPart("z" * 3000, "c1"),))
    messages = (message("user", "ask"), *[call, result] * 6)
    ranges = split.part_ranges(messages, 8000)
    assert len(ranges) > 1
    assert all(messages[start].role == "assistant" for start, _ in ranges[1:])


def test_a_note_written_whole_before_is_cut_into_parts_not_kept_as_shrunk(tmp_path):
    """Part 1 holds fewer messages than the whole note did: that is no shrunken source."""
    home, vault = tmp_path / "home", tmp_path / "v"
    s = ClaudeSession(SID, "/home/dev/work/big")
    grow(s, 0, 30)
    write(home, s)
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, note_max_bytes=100 * LIMIT))
    (whole,) = note_files(vault)
    report = export(vault, home)
    assert not [c for c in report.changes if c.action.value == "kept"]
    notes = parts(vault)
    assert len(notes) > 2 and "part: 1" in notes[whole] and "question q29q" not in notes[whole]


def test_parts_cut_at_other_places_are_written_again_not_kept_as_shrunk(tmp_path):
    """Another ``note_max_bytes`` (or a version cutting otherwise) moves the cuts: a part
    then holds fewer messages than the note of its number did, which said its source had
    shrunk. Each was kept, with a warning naming --force, and the vault held overlapping
    parts (13 such warnings over the corpus's sessions at 64 KB, then 80 KB)."""
    home, vault, s = exported(tmp_path, 30)
    report = run_export(
        ExportOptions(vault=vault, home=home, timezone=UTC, note_max_bytes=LIMIT * 5 // 4)
    )
    assert not [c for c in report.changes if c.action.value == "kept"]
    joined = "".join(parts(vault).values())
    for i in range(30):  # every turn once: no part left over from the first cuts
        assert joined.count(f"answer a{i}a") == 1, i


def test_the_last_part_of_a_session_that_shrank_is_kept(tmp_path):
    """A source cut short (a backup put back) still keeps the part that held more, the
    cuts before it being where they were."""
    home, vault, s = exported(tmp_path, 30)
    before = parts(vault)
    last = max(before, key=lambda path: (len(path), path))
    shrunk = ClaudeSession(SID, "/home/dev/work/big")
    grow(shrunk, 0, 28)
    write(home, shrunk)
    report = export(vault, home)
    assert [c.relpath for c in report.changes if c.action.value == "kept"] == [last]
    assert parts(vault)[last] == before[last]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("4194304", 4194304), ('"500 KB"', 500 * 1024), ('"4MB"', 4 * 1024 * 1024)],
)
def test_the_part_size_is_a_setting(tmp_path, value, expected):
    vault = tmp_path / "v"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "config.toml").write_text(f"note_max_bytes = {value}\n")
    settings = config.resolve({"vault": str(vault)}, env={})
    assert export_options(settings, None).note_max_bytes == expected


@pytest.mark.parametrize("value", ['"huge"', "100", "true", '"-4 MB"'])
def test_a_bad_part_size_names_the_file_and_key(tmp_path, value):
    vault = tmp_path / "v"
    (vault / ".ccexport").mkdir(parents=True)
    path = vault / ".ccexport" / "config.toml"
    path.write_text(f"note_max_bytes = {value}\n")
    with pytest.raises(ConfigError, match="note_max_bytes") as error:
        config.resolve({"vault": str(vault)}, env={})
    assert str(path) in str(error.value)


def test_a_part_ends_at_a_turn_when_the_turn_fits_within_a_quarter_over_the_limit():
    sizes = [600, 300, 200]  # the replies of one turn: 1.1 of the limit in all
    turn = [message("user", "ask")] + [message("assistant", "r" * n) for n in sizes]
    messages = (*turn, message("user", "next"), message("assistant", "ok"))
    limit = sum(split.estimated_bytes(m) for m in turn) * 100 // 110
    assert split.part_ranges(messages, limit) == [(0, 4), (4, 6)]


def test_a_re_run_counts_the_session_once_not_each_part(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    s = ClaudeSession(SID, "/home/dev/work/big")
    grow(s, 0, 40)
    write(home, s)
    first = export(vault, home)
    again = export(vault, home)
    assert first.total("found") == again.total("found") == again.total("skipped") == 1


def test_parts_joined_again_under_a_larger_limit_lose_their_part_properties(tmp_path):
    """Even without the state folder: the part properties are the exporter's own."""
    home, vault, s = exported(tmp_path, 30)
    first = min(note_files(vault), key=len)
    shutil.rmtree(vault / ".ccexport")
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, note_max_bytes=100 * LIMIT))
    text = (vault / first).read_text()
    assert "question q29q" in text
    assert "part:" not in text and "next_part" not in text and "[!info] Part" not in text


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_a_texts_estimated_size_is_its_utf8_bytes_and_its_quote_marks(text):
    from exporter.split import _text_bytes

    assert _text_bytes(text) == len(text.encode("utf-8", "replace")) + 2 * text.count("\n")


def test_only_the_first_part_of_a_subagent_holds_its_task(tmp_path):
    """A subagent's first prompt is its parent agent's task; the parts after the first
    open with later prompts, which stay "User" (serial and parallel runs alike)."""
    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / "-w-big"
    parent = ClaudeSession(SID, "/home/dev/work/big")
    parent.user("Survey the sources.")
    parent.assistant("Started a subagent.")
    write(home, parent)
    agent = ClaudeSession(SID, "/home/dev/work/big", sidechain=True, agent_id="a1b2c3d")
    grow(agent, 0, 40)
    agent.write(folder / SID / "subagents" / "agent-a1b2c3d.jsonl")
    for jobs in (1, 2):
        vault = tmp_path / f"v{jobs}"
        assert not export(vault, home, workers=jobs).failed
        notes = {p: t for p, t in parts(vault).items() if "· agent" in p}
        first = next(t for p, t in notes.items() if "(part" not in p)
        later = [t for p, t in notes.items() if "(part" in p]
        assert len(later) >= 2
        assert (
            first.count("### Parent agent") == 1
            and "### Parent agent" in first.split("question q1q")[0]
        )
        for text in [first, *later]:  # a part's prompts are its "User" turns: the person's
            prompts = int(re.search(r"^prompts: (\d+)$", text, re.M).group(1))
            assert prompts == text.count("\n### User")
        assert all("### Parent agent" not in t and "### User" in t for t in later)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_template_knows_which_part_it_renders(tmp_path, jobs):
    """``part``: the number of the part note a template renders, none for a session in one
    note (a template could not tell a part from a whole note but by its title)."""
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "session.md.j2").write_text(
        "{% if part %}Part {{ part }} of {{ title }}{% else %}Whole: {{ title }}{% endif %}\n",
        encoding="utf-8",
    )
    home = tmp_path / "home"
    big = ClaudeSession(SID, "/w/big")
    grow(big, 0, 40)
    write(home, big)
    small = ClaudeSession("0000abcd-1111-4000-8000-000000000000", "/w/big")
    grow(small, 0, 1)
    small.write(home / ".claude" / "projects" / "-w-big" / "small.jsonl")
    vault = tmp_path / "v"
    export(vault, home, templates=templates, workers=jobs)
    bodies = [b.decode().split("%% ccexport:begin", 1)[1] for b in note_files(vault).values()]
    parts = sorted(int(m) for b in bodies for m in re.findall(r"\nPart (\d+) of ", b))
    assert len(parts) > 2 and parts == list(range(1, len(parts) + 1))
    assert sum("\nWhole: question q0q" in b for b in bodies) == 1


def _index_line(vault: Path) -> str:
    index = (vault / "AI Sessions" / "Projects" / "big.md").read_text()
    (line,) = [line for line in index.splitlines() if line.startswith("- ") and SID[:8] in line]
    return line


def test_the_index_gives_a_split_session_all_its_messages_and_links_its_first_part(tmp_path):
    """It said the first part's count as the session's ("10 messages" for one of 113:
    review26 F1b); after a larger limit joined the parts into fewer, the older parts it
    left in place are not counted again."""
    home, vault, s = exported(tmp_path, 60)
    run_export(ExportOptions(vault=tmp_path / "whole", home=home, timezone=UTC,
                             note_max_bytes=100 * LIMIT))  # fmt: skip
    (whole,) = note_files(tmp_path / "whole").values()
    total = int(re.search(rb"\nmessages: (\d+)\n", whole).group(1))
    first = min(note_files(vault), key=len)
    line = _index_line(vault)
    assert f"[[{Path(first).stem}|" in line and line.endswith(f" · {total} messages")
    last = vault / max(note_files(vault), key=lambda path: (len(path), path))
    last.write_text(last.read_text() + "my own words\n")  # (edited: it stays)
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, note_max_bytes=3 * LIMIT))
    goes_on = {  # each part's number: does the session go on from it
        int(re.search(r"\npart: (\d+)\n", t).group(1)): "\nnext_part:" in t
        for t in parts(vault).values()
    }
    assert min(n for n, more in goes_on.items() if not more) < max(goes_on)  # (parts left)
    assert _index_line(vault).endswith(f" · {total} messages")


def test_a_state_kept_before_the_index_knew_where_parts_go_on_is_read_once(tmp_path):
    """The notes an older version recorded list no ``next_part``: they are read once for it,
    and the index counts every part (another machine's index says the same)."""
    home, vault, s = exported(tmp_path, 60)
    counted = _index_line(vault)
    state = State.load(vault)
    for record in state.notes.values():
        record.meta = {k: v for k, v in record.meta.items() if k != "next_part"}
    (vault / STATE_DIR / STATE_FILE).write_bytes(state.dumps())
    other = ClaudeSession("2222abcd-0000-4000-8000-000000000000", "/home/dev/work/big")
    grow(other, 0, 1)
    other.write(home / ".claude" / "projects" / "-w-big" / "other.jsonl")  # (the index relisted)
    export(vault, home)
    first = note_files(vault)[min(note_files(vault), key=len)]
    own = int(re.search(rb"\nmessages: (\d+)\n", first).group(1))  # the first part's alone
    assert _index_line(vault) == counted and not counted.endswith(f" · {own} messages")


def _numbered(vault: Path) -> dict[int, str]:
    """Each part note's number, and its path."""
    return {
        int(m.group(1)) if (m := re.search(r"\npart: (\d+)\n", text)) else 1: path
        for path, text in parts(vault).items()
    }


def test_parts_a_larger_limit_no_longer_needs_go_unless_edited(tmp_path):
    """A session once cut into parts, written again under a larger limit into fewer, kept
    its later parts (the README said they stay): the vault no longer matched the session.
    Those that hold nothing but what ccexport wrote go; one the person edited stays, and
    the warning names it; their records go with them (a third run says nothing)."""
    home, vault, s = exported(tmp_path, 60)
    before = _numbered(vault)
    assert len(before) >= 5
    edited = vault / before[4]
    edited.write_text(edited.read_text() + "my own words\n")
    report = run_export(
        ExportOptions(vault=vault, home=home, timezone=UTC, note_max_bytes=3 * LIMIT)
    )
    after = _numbered(vault)
    assert sorted(after) == [1, 2, 4] and after[4] == before[4]
    assert "my own words" in (vault / before[4]).read_text()
    for n in set(before) - {1, 2, 4}:
        assert not (vault / before[n]).exists()
    said = [p.message for p in report.problems if "now ends in this note" in p.message]
    (warning,) = said
    assert f"{Path(before[3]).name}" in warning and "were removed" in warning
    assert f"{Path(before[4]).name}, a part it no longer has, is left in place" in warning
    assert Path(before[4]).name not in warning.split("were removed")[0].split("(")[-1]
    state = State.load(vault)
    assert not [k for k in state.notes if k.endswith(("#part3", "#part5"))]
    again = run_export(
        ExportOptions(vault=vault, home=home, timezone=UTC, note_max_bytes=3 * LIMIT)
    )
    assert not [p for p in again.problems if "now ends in this note" in p.message]


def test_a_dry_run_says_which_parts_would_go_and_removes_none(tmp_path):
    home, vault, s = exported(tmp_path, 60)
    before = parts(vault)
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC,
                                      note_max_bytes=100 * LIMIT, dry_run=True))  # fmt: skip
    assert parts(vault) == before
    (said,) = [p.message for p in report.problems if "now ends in this note" in p.message]
    assert "would be removed" in said
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, note_max_bytes=100 * LIMIT))
    assert list(_numbered(vault)) == [1]


def test_a_part_touched_but_as_written_goes_and_one_given_a_property_stays(tmp_path):
    """Its file's time changed (a sync tool, another machine) with its text as written:
    still nothing of the person's. A property the person added is theirs: it stays."""
    import os

    home, vault, s = exported(tmp_path, 60)
    before = _numbered(vault)
    os.utime(vault / before[3], (1_700_000_000, 1_700_000_000))
    given = vault / before[5]
    given.write_text(given.read_text().replace("\npart: 5\n", "\npart: 5\nrating: 5\n", 1))
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, note_max_bytes=3 * LIMIT))
    assert sorted(_numbered(vault)) == [1, 2, 5]


def _cut_at_the_second_part(tmp_path: Path) -> tuple[Path, Path, dict]:
    """A session exported in parts whose source is then cut at the end of its second part
    (a backup put back, a damaged line repaired): its home, vault and parts before."""
    home, vault, s = exported(tmp_path, 60)
    before = _numbered(vault)
    text = (vault / before[2]).read_text()
    last_turn = max(int(n) for n in re.findall(r"answer a(\d+)a", text))
    shorter = ClaudeSession(SID, "/home/dev/work/big")
    grow(shorter, 0, last_turn + 1)
    write(home, shorter)
    return home, vault, before


def test_parts_past_the_end_of_a_source_that_shrank_stay(tmp_path):
    """A source cut short at a cut (a backup put back) also leaves fewer parts, their last
    one as the note had it: the parts past it hold what the source no longer does, and stay,
    as a note whose source shrank is kept."""
    home, vault, before = _cut_at_the_second_part(tmp_path)
    report = export(vault, home)
    assert sorted(_numbered(vault)) == sorted(before)
    said = [p.message for p in report.problems if "now ends in this note" in p.message]
    assert said and "left in place, as the session as now read may not hold them" in said[0]


def test_parts_an_older_version_left_past_the_end_go_when_the_note_is_found_unchanged(tmp_path):
    """A vault whose limit was raised before this version holds the later parts already:
    the session's last note, found as it would be written, removes them too."""
    home, vault, s = exported(tmp_path, 60)
    before = {path: (vault / path).read_bytes() for path in _numbered(vault).values()}
    records = dict(State.load(vault).notes)
    larger = ExportOptions(vault=vault, home=home, timezone=UTC, note_max_bytes=3 * LIMIT)
    run_export(larger)
    state = State.load(vault)  # (put back as an older version left them: files and records)
    for path, data in before.items():
        if not (vault / path).exists():
            (vault / path).write_bytes(data)
    for key, record in records.items():
        if key not in state.notes:
            state.notes[key] = record
    # (and as the first run of a version whose notes are rendered anew finds them)
    state.render = ""
    for unit in state.sources.values():
        unit["fingerprint"] = ""
    for record in state.notes.values():
        record.render_key = ""
    (vault / STATE_DIR / STATE_FILE).write_bytes(state.dumps())
    assert len(_numbered(vault)) == len(before)
    report = run_export(larger)
    assert not [c for c in report.changes if c.action.value not in ("unchanged",)]
    assert sorted(_numbered(vault)) == [1, 2]
    # (and the run says so, as when the note is written anew)
    said = [p.message for p in report.problems if "were removed" in p.message]
    assert len(said) == 1 and "held nothing of yours" in said[0]


def test_a_part_left_past_a_shrunk_end_says_what_it_holds_and_that_it_may_be_deleted(tmp_path):
    """A part kept as the session now reads shorter (a huge damaged line since repaired) is
    said on every run, --force too: the warning names what it holds and lets the person
    delete it."""
    home, vault, before = _cut_at_the_second_part(tmp_path)
    export(vault, home)
    report = export(vault, home, force=True)
    assert sorted(_numbered(vault)) == sorted(before)
    (said,) = [p.message for p in report.problems if "now ends in this note" in p.message]
    held = re.search(r"part 3\)\.md, .*?: left in place", said)
    assert held, said
    assert "They hold 33 messages of 2026-11-20 09:06 to 2026-11-20 09:08" in said, said
    assert "delete them: no run removes them, --force neither" in said
