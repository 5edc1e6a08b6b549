"""Units read ahead by the worker pool (``exporter/readahead.py``): the vault and the report
are those of a run that reads every unit in the main process, whatever the workers did
(read and render a lone session, hand a family back whole, fail), and a session whose
subagent was written earlier is read again where that subagent is known."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from hashlib import sha256
from pathlib import Path

import pytest
import zstandard
from claude_builder import ClaudeSession, tool_use
from codex_builder import CodexRollout
from conftest import note_files
from test_sync import write_sessions

from exporter import readahead, readunit, workers
from exporter.export import ExportOptions, run_export
from exporter.notes import Note
from exporter.plan import LinkPlan
from exporter.state import State

SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # a made-up GitHub token


def export(vault: Path, home: Path, jobs: int, **kw):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=jobs, **kw))


@pytest.fixture
def handed(monkeypatch) -> Counter[str]:
    """Counts, in the main process, notes that came rendered from a unit read ahead, units
    read ahead, and those whose reading failed there."""
    seen: Counter[str] = Counter()
    done, take = workers.Renderer.done, readahead.ReadAhead.take
    submit = workers.Renderer.submit

    def counting_done(self, job, outcome):
        seen["rendered ahead"] += isinstance(outcome, Note)
        seen[job.key] += 1  # each note, rendered once (ahead, or in the pool)
        return done(self, job, outcome)

    def counting_submit(self, job, source_bytes=0):
        seen[job.key] += 1
        return submit(self, job, source_bytes)

    def counting_take(self, unit, wanted=True):
        handed_over = unit in self._tickets
        read = take(self, unit, wanted)
        if handed_over and wanted:
            seen["read ahead" if read is not None else "failed there"] += 1
        return read

    monkeypatch.setattr(workers.Renderer, "done", counting_done)
    monkeypatch.setattr(workers.Renderer, "submit", counting_submit)
    monkeypatch.setattr(readahead.ReadAhead, "take", counting_take)
    return seen


def _family(home: Path, number: int) -> None:
    """A session whose Task call ran a subagent: its notes link to each other."""
    sid = f"f{number:07x}-0000-4000-8000-000000000000"
    folder = home / ".claude" / "projects" / "-family"
    s = ClaudeSession(sid, "/home/dev/work/family", start="2026-06-01T10:00:00Z")
    s.user("Find the tests.")
    s.assistant([tool_use("Task", {"description": "List tests", "prompt": "List tests."},
                          "toolu_1")])  # fmt: skip
    s.tool_result("toolu_1", "Found 3.", rich={"status": "completed", "agentId": "a1"})
    s.assistant(f"Done; the token was {SECRET}.")
    s.write(folder / f"{sid}.jsonl")
    agent = ClaudeSession(sid, sidechain=True, agent_id="a1")
    agent.user("List tests.", parent=None)
    agent.assistant("Found 3.")
    agent.write(folder / sid / "subagents" / "agent-a1.jsonl")


def _home_with_a_family(tmp_path: Path) -> Path:
    """Enough sessions for the pool to read ahead, and one family among them."""
    home = tmp_path / "home"
    write_sessions(home, workers.PARALLEL_FROM + 30, turns=2)
    _family(home, 0)
    return home


def _parent_note(vault: Path) -> str:
    """The family's parent note (its path in the vault)."""
    (parent,) = [n for n in note_files(vault) if "Find the tests" in n and "agent" not in n]
    return parent


def test_units_read_ahead_make_the_vault_of_a_run_that_reads_them_all_here(tmp_path, handed):
    home = tmp_path / "home"
    write_sessions(home, workers.PARALLEL_FROM + 60, turns=3)
    for number in range(3):
        _family(home, number)
    lone = ClaudeSession("e0000000-0000-4000-8000-000000000000", "/home/dev/work/p1")
    lone.user(f"Why is {SECRET} in the log?")
    lone.assistant("Because the test printed it.")
    lone.write(home / ".claude" / "projects" / "-p1" / "e0000000.jsonl")
    untitled = ClaudeSession("e1000000-0000-4000-8000-000000000000", "/home/dev/work/p1")
    untitled.user("```\n```")  # a title of nothing: not "Untitled session"
    untitled.assistant("That was an empty code block.")
    untitled.write(home / ".claude" / "projects" / "-p1" / "e1000000.jsonl")
    one = export(tmp_path / "one", home, 1)
    assert not handed["read ahead"] and not handed["rendered ahead"]  # one process
    two = export(tmp_path / "two", home, 2)
    assert handed["rendered ahead"] > 20 and not handed["failed there"], handed
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    assert one.as_dict() == two.as_dict()
    assert two.redactions and two.redactions == one.redactions  # counted in the workers
    # The state lists its units in one order whichever finished first: a vault kept in git
    # sees no change in it from one run to the next.
    units = [list(State.load(tmp_path / v).sources.items()) for v in ("one", "two")]
    assert units[0] == units[1] and len(units[0]) > 60
    notes = note_files(tmp_path / "two")
    parents = [b.decode() for n, b in notes.items() if "Find the tests" in n and "agent" not in n]
    assert len(parents) == 3  # rendered ahead with their links, at the paths chosen here
    assert all("Find the tests. f" in b and "· agent a1]]" in b for b in parents)
    # Families too: every note but the untitled session's came rendered from a worker.
    assert handed["rendered ahead"] == len(notes) - 1, handed


def test_a_run_with_enough_to_read_reads_every_unit_ahead_and_a_small_update_starts_no_pool(
    tmp_path, handed, monkeypatch
):
    """The pool starts before the first unit is read when the units to read are enough for
    it (not after 24 were read and rendered here, one by one); a nightly run with a few
    changed sessions reads them here, without a pool."""
    home = tmp_path / "home"
    paths = write_sessions(home, workers.PARALLEL_FROM + 30, turns=2)
    pools: list[int] = []
    new_pool = workers.Renderer._new_pool

    def counting(self, n):
        pools.append(n)
        return new_pool(self, n)

    monkeypatch.setattr(workers.Renderer, "_new_pool", counting)
    export(tmp_path / "two", home, 2)
    assert pools == [2] and handed["read ahead"] == workers.PARALLEL_FROM + 30, handed
    assert handed["rendered ahead"] == workers.PARALLEL_FROM + 30
    handed.clear()
    for path in paths[:3]:  # grown by a repeated line: read again, the same notes
        path.write_text(path.read_text() + path.read_text().splitlines()[-1] + "\n")
    again = export(tmp_path / "two", home, 2)
    assert pools == [2] and not handed["read ahead"]  # no second pool for three sessions
    assert again.total("skipped") == len(paths) - 3, again.as_dict()


def test_a_family_whose_note_would_go_elsewhere_is_read_again_here(tmp_path, handed):
    """A family's notes are rendered ahead at the paths new notes get. Where the main
    process would choose another (the parent's note was renamed in the vault, or a file of
    the person's holds its name), the unit is read again here: the same vault as one
    process, the renamed note updated where it is, the person's file left alone."""
    home = tmp_path / "home"
    write_sessions(home, workers.PARALLEL_FROM + 30, turns=2)
    for number in range(4):
        _family(home, number)
    export(tmp_path / "scratch", home, 1)
    parents = sorted(n for n in note_files(tmp_path / "scratch") if "Find the tests" in n
                     and "agent" not in n)  # fmt: skip
    for vault, jobs in ((tmp_path / "one", 1), (tmp_path / "two", 2)):
        taken = vault / parents[1]
        taken.parent.mkdir(parents=True)
        taken.write_text("My own note, whose name ccexport would give a session.\n")
        export(vault, home, jobs)
        (vault / parents[0]).rename(vault / parents[0].replace("Find the tests", "Found"))
        handed.clear()
        export(vault, home, jobs, force=True)
    notes = note_files(tmp_path / "two")
    assert notes == note_files(tmp_path / "one")
    # Two families read here (their two notes each), the other notes rendered ahead.
    assert handed["rendered ahead"] == len(notes) - 1 - 4, handed
    renamed = notes[parents[0].replace("Find the tests", "Found")].decode()
    assert "· agent a1]]" in renamed and parents[0] not in notes
    assert notes[parents[1]].startswith(b"My own note")
    moved = [n for n in notes if n.endswith(Path(parents[1]).stem + " (2).md")]
    assert len(moved) == 1 and "· agent a1]]" in notes[moved[0]].decode()


def test_a_family_note_rendered_for_another_path_is_rendered_again_for_its_own(
    tmp_path, handed, monkeypatch
):
    """Should the check before a family is used ever miss a path the main process chooses
    differently, the note rendered for another path is not written: it is rendered again
    here, for the path and links of this run (it failed with an internal error, which said
    nothing the person could act on: review29 F6)."""
    home = _home_with_a_family(tmp_path)
    vault = tmp_path / "v"
    export(vault, home, 2)
    parent = _parent_note(vault)
    renamed = parent.replace("Find the tests", "Found")
    (vault / parent).rename(vault / renamed)
    monkeypatch.setattr(LinkPlan, "places_as", lambda self, sessions, predicted: True)
    report = export(vault, home, 2, force=True)
    assert not report.failed and not report.problems, report.problems
    assert "· agent a1]]" in note_files(vault)[renamed].decode() and parent not in note_files(vault)
    (agent,) = [b.decode() for n, b in note_files(vault).items() if "· agent a1" in n]
    assert f"[[{Path(renamed).stem}" in agent  # its parent, by the name it has now


def test_a_subagent_note_deleted_in_the_vault_fails_no_note_read_ahead(tmp_path, handed):
    """A subagent's note the person deleted (and a run left deleted): a worker rendering the
    parent ahead still linked it, the main process does not, and the parent's note failed
    with 'rendered ahead for <its own path>' (review10 F2: every such vault, at an upgrade
    that renders every note again). The unit is read here: the parent's note as one
    process writes it, without the link."""
    home = _home_with_a_family(tmp_path)
    for vault, jobs in ((tmp_path / "one", 1), (tmp_path / "two", 2)):
        export(vault, home, jobs)
        (agent,) = [n for n in note_files(vault) if "· agent a1" in n]
        (vault / agent).unlink()
        export(vault, home, jobs)  # the deletion is recorded: the note stays deleted
        report = export(vault, home, jobs, force=True)
        assert not report.failed and not report.problems, report.problems
    notes = note_files(tmp_path / "two")
    assert notes == note_files(tmp_path / "one")
    (parent,) = [b.decode() for n, b in notes.items() if "Find the tests" in n]
    assert agent not in notes and "· agent a1]]" not in parent and "List tests." in parent


def test_a_note_rendered_ahead_with_other_links_is_rendered_again_with_this_runs(
    tmp_path, handed, monkeypatch
):
    """Should the check before a family is used ever miss a link this run makes otherwise,
    the note is rendered again here with this run's links, instead of being written with
    the other (or failing with an internal error, as it did)."""
    home = _home_with_a_family(tmp_path)
    vault = tmp_path / "v"
    export(vault, home, 2)
    (agent,) = [n for n in note_files(vault) if "· agent a1" in n]
    (vault / agent).unlink()
    export(vault, home, 2)
    monkeypatch.setattr(LinkPlan, "links_hold", lambda self, links: True)
    report = export(vault, home, 2, force=True)
    assert not report.failed and not report.problems, report.problems
    (parent,) = [b.decode() for n, b in note_files(vault).items() if "Find the tests" in n]
    assert agent not in note_files(vault) and "· agent a1]]" not in parent


def test_a_family_whose_notes_failed_ahead_fails_for_its_own_reason_alone(
    tmp_path, handed, monkeypatch
):
    """review29 F6: a family rendered in a worker whose notes all failed there (a broken
    template) gave the check before it is used no path to check; its parent's note was
    renamed in the vault, so the subagent's links, made ahead for the parent's new-note
    name, were not this run's, and the subagent failed with an internal check's 'rendered
    ahead linking … otherwise' instead of the template's error. It is rendered again here:
    each note fails with the template's error, and nothing else is said."""
    home = _home_with_a_family(tmp_path)
    vault = tmp_path / "v"
    export(vault, home, 2)
    parent = _parent_note(vault)
    renamed = f"{Path(parent).parent}/Test finder (renamed).md"
    (vault / parent).rename(vault / renamed)
    from exporter import notes

    build_note = notes.build_note

    def broken_for_the_family(session, *args, **kw):  # (in the forked workers too)
        if session.key.startswith("claude-code:f0"):
            raise ValueError("the template is broken")
        return build_note(session, *args, **kw)

    monkeypatch.setattr(notes, "build_note", broken_for_the_family)
    report = export(vault, home, 2, force=True)
    errors = [p.message for p in report.problems if p.severity == "error"]
    assert len(errors) == 2 and all("the template is broken" in e for e in errors), errors
    assert not [p for p in report.problems if "rendered ahead" in p.message]


def test_filters_apply_to_units_read_ahead(tmp_path, handed, monkeypatch):
    """Sessions of two projects in one folder, read in turn: the workers leave out those of
    the project not asked for, as the main process does."""
    monkeypatch.setattr(workers, "PARALLEL_FROM", 4)  # the pool starts early
    home = tmp_path / "home"
    for i in range(60):
        sid = f"{i:08x}-0000-4000-8000-000000000000"
        s = ClaudeSession(sid, f"/home/dev/work/{('web', 'api')[i % 2]}")
        s.user(f"question of session {i}")
        s.assistant(f"answer of session {i}")
        s.write(home / ".claude" / "projects" / "-work" / f"{sid}.jsonl")
    one = export(tmp_path / "one", home, 1, project="web")
    two = export(tmp_path / "two", home, 2, project="web")
    assert handed["read ahead"] > 20
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    assert one.as_dict() == two.as_dict()
    assert one.total("created") == 30


def failing_read(unit, adapter_type, ref):
    raise RuntimeError("a worker that cannot read")


def test_a_unit_a_worker_could_not_read_is_read_in_the_main_process(tmp_path, handed, monkeypatch):
    home = tmp_path / "home"
    write_sessions(home, workers.PARALLEL_FROM + 30, turns=2)
    one = export(tmp_path / "one", home, 1)
    monkeypatch.setattr(readunit, "read_unit", failing_read)
    two = export(tmp_path / "two", home, 2)
    assert handed["failed there"] > 10 and not handed["read ahead"], handed
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    assert one.as_dict() == two.as_dict()


def test_a_unit_that_fails_in_a_workers_job_is_read_here_and_the_others_of_the_job_are_not(
    tmp_path, handed, monkeypatch
):
    """Units are handed over a few per job: one that fails there is read again in the main
    process alone; the others of its job come back read."""
    home = tmp_path / "home"
    write_sessions(home, workers.PARALLEL_FROM + 30, turns=2)
    one = export(tmp_path / "one", home, 1)
    read_unit = readunit.read_unit

    def failing_once(unit, adapter_type, ref):
        if ref.session_id.startswith(f"{40:08x}"):
            raise RuntimeError("a unit a worker cannot read")
        return read_unit(unit, adapter_type, ref)

    monkeypatch.setattr(readunit, "read_unit", failing_once)
    two = export(tmp_path / "two", home, 2)
    assert handed["failed there"] == 1 and handed["read ahead"] > 20, handed
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    assert one.as_dict() == two.as_dict()


def test_a_session_whose_subagent_is_known_is_read_again_where_it_is_known(tmp_path, handed):
    """An old-layout agent file names its parent, whose transcript does not name it: the
    first run learns the link when the agent's note is written (and redoes the parent).
    The next run rendered the parent ahead without it; it is read again here, with it."""
    home = tmp_path / "home"
    write_sessions(home, workers.PARALLEL_FROM + 30, turns=2)
    folder = home / ".claude" / "projects" / "-p2"
    sid = f"{53:08x}-0000-4000-8000-000000000000"  # the last of write_sessions: read ahead
    agent = ClaudeSession(sid, sidechain=True, agent_id="0ld1d")
    agent.user("List tests.", parent=None)
    agent.assistant("Found 3.")
    agent.write(folder / "agent-0ld1d.jsonl")
    for vault, jobs in ((tmp_path / "one", 1), (tmp_path / "two", 2)):
        export(vault, home, jobs)
        handed.clear()
        again = export(vault, home, jobs, force=True)
        assert not again.failed
    assert handed["read ahead"] > 10
    assert handed[f"claude-code:{sid}"] == 1  # read again here at once, not redone later
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    notes = note_files(tmp_path / "two").values()
    parent = [b.decode() for b in notes if b"title: question 0 of session 53\n" in b]
    assert len(parent) == 1 and "agent 0ld1d" in parent[0].split("---", 2)[1]  # lists it


def test_a_subagent_whose_unit_comes_first_is_written_before_its_parent_is_planned(
    tmp_path, monkeypatch
):
    """An old-layout agent file in another project folder, read before its parent: in one
    process its note is written first, so the parent's note lists it at once. With the
    pool it was still being rendered when the parent was planned; the parent was redone
    later and the update put ``subagents`` at the end of its properties: other bytes."""
    monkeypatch.setattr(workers, "PARALLEL_FROM", 2)  # the pool starts at once
    home = tmp_path / "home"
    projects = home / ".claude" / "projects"
    write_sessions(home / "fill", 6)
    for path in (home / "fill").rglob("*.jsonl"):
        target = projects / "-0fill" / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        path.rename(target)
    pid = "b0000001-0000-4000-8000-000000000000"
    agent = ClaudeSession(pid, "/home/dev/work/b", sidechain=True, agent_id="x1")
    agent.user("List tests.", parent=None)
    agent.assistant("Found 3.")
    agent.write(projects / "-a" / "agent-x1.jsonl")
    parent = ClaudeSession(pid, "/home/dev/work/b")
    parent.user("parent in b")
    parent.assistant("ok")
    parent.write(projects / "-b" / f"{pid}.jsonl")
    one, two = export(tmp_path / "one", home, 1), export(tmp_path / "two", home, 2)
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    assert one.as_dict() == two.as_dict()
    notes = note_files(tmp_path / "two")
    listed = [b.decode() for n, b in notes.items() if n.endswith("parent in b b0000001.md")]
    assert len(listed) == 1 and "subagents:" in listed[0].split("---", 2)[1]


def test_codex_rollouts_read_ahead_find_a_forks_origin_as_the_main_process_does(
    tmp_path, handed, monkeypatch
):
    """A worker's Codex adapter is told the run's sources: a fork read ahead drops the
    history it copied from its origin's rollout, as when the main process reads it."""
    monkeypatch.setattr(workers, "PARALLEL_FROM", 4)  # the pool starts early
    home = tmp_path / "home"
    origin_id = "019a0000-1111-7222-8333-444455556666"
    for i in range(30):
        r = CodexRollout(f"019a0000-0000-7000-8000-{i:012x}", start=f"2026-03-10T07:{i:02d}:00Z")
        r.user(f"question {i}" + (f" about {SECRET}" if i == 3 else ""))
        r.assistant(f"answer {i}")
        r.write(home / ".codex")
    origin = CodexRollout(origin_id, start="2026-03-10T08:00:00Z")
    origin.user("Add a health endpoint")
    origin.assistant("Added `GET /health`.")
    origin.write(home / ".codex")
    fork = CodexRollout(
        "019a0000-0000-7000-8000-00000000f0f0", forked_from=origin_id, start="2026-03-10T09:00:00Z"
    )
    fork.lines += [x for x in origin.lines if x["type"] != "session_meta"]  # what it copied
    fork.user("Instead, add metrics")
    fork.assistant("Added /metrics.")
    fork.write(home / ".codex")
    one = export(tmp_path / "one", home, 1)
    handed.clear()
    two = export(tmp_path / "two", home, 2)
    assert handed["read ahead"] > 20 and handed["rendered ahead"] > 20, handed
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    assert one.as_dict() == two.as_dict()
    assert two.redactions and two.redactions == one.redactions
    (forked,) = [b.decode() for n, b in note_files(tmp_path / "two").items() if "f0f0" in n]
    turns = forked.split("### User", 1)[1]  # (its properties and callout link the origin)
    assert "Added /metrics." in turns and "Add a health endpoint" not in turns


def test_a_compressed_rollout_is_weighed_as_it_expands(tmp_path, monkeypatch):
    """A ``.jsonl.zst`` rollout takes about ten times its size in memory once read: it is
    read ahead only if that is under the limit, as a plain rollout of that size would be."""
    monkeypatch.setattr(workers, "PARALLEL_FROM", 4)
    monkeypatch.setattr(readahead, "READ_AHEAD_BELOW", 6_000)
    home = tmp_path / "home"
    for i in range(12):
        r = CodexRollout(f"019a0000-0000-7000-8000-{i:012x}", start=f"2026-03-10T07:{i:02d}:00Z")
        r.user(f"question {i}")
        r.assistant(" ".join(sha256(f"{i} {k}".encode()).hexdigest() for k in range(25)))
        path = r.write(home / ".codex")
        if i in (5, 6):  # compressed: a few hundred bytes on disk, several KB read
            zst = path.with_name(path.name + ".zst")
            zst.write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
            path.unlink()
            assert zst.stat().st_size < 6_000 <= zst.stat().st_size * 10
        else:
            assert path.stat().st_size < 6_000
    read: list[str] = []
    take = readahead.ReadAhead.take

    def recording(self, unit, wanted=True):
        got = take(self, unit, wanted)
        if got is not None:
            read.append(Path(unit).name)
        return got

    monkeypatch.setattr(readahead.ReadAhead, "take", recording)
    one, two = export(tmp_path / "one", home, 1), export(tmp_path / "two", home, 2)
    assert len(read) == 10 and not any(name.endswith(".zst") for name in read), read
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    assert one.as_dict() == two.as_dict()


def test_a_streamed_session_is_first_read_ahead_and_its_messages_here(tmp_path, monkeypatch):
    """A session so long that it is streamed is never held: a worker does its first reading
    (totals, where it ends), unredacted; the main process redacts it and reads its messages
    part by part, unless the adapter kept them as it read (Claude Code and Codex do: their
    parts come packed, see test_packed.py). Notes (in parts), redaction counts and report: those of one
    process."""
    from exporter.adapters import claude_code, codex

    monkeypatch.setattr(workers, "PARALLEL_FROM", 4)
    monkeypatch.setattr(claude_code, "STREAM_FROM", 60_000)
    monkeypatch.setattr(codex, "STREAM_FROM", 60_000)
    monkeypatch.setattr(readahead, "READ_AHEAD_BELOW", 50_000)  # held, they would be too long
    home = tmp_path / "home"
    write_sessions(home, 12, turns=2)
    long = ClaudeSession("5a5a0000-0000-4000-8000-000000000001", "/home/dev/work/big")
    for i in range(30):
        long.user(f"question {i} about {SECRET} " + "lorem ipsum " * 100)
        long.assistant(f"answer {i} " + "dolor sit " * 200)
    path = long.write(home / ".claude" / "projects" / "-big" / f"{long.session_id}.jsonl")
    rollout = CodexRollout("019a0000-0000-7000-8000-00000000beef")
    for i in range(30):
        rollout.user(f"codex question {i} with {SECRET} " + "lorem ipsum " * 100)
        rollout.assistant(f"codex answer {i} " + "dolor sit " * 200)
    codex_path = rollout.write(home / ".codex")
    assert min(path.stat().st_size, codex_path.stat().st_size) >= 60_000  # both streamed
    read: list[str] = []
    packed: list[str] = []
    take = readahead.ReadAhead.take

    def recording(self, unit, wanted=True):
        got = take(self, unit, wanted)
        if got is not None:
            read.extend(r.session.session_id for r in got.sessions if r.session.is_streamed)
            packed.extend(r.session.session_id for r in got.sessions if r.packed)
        return got

    monkeypatch.setattr(readahead.ReadAhead, "take", recording)
    kw = {"note_max_bytes": 30_000}
    one, two = export(tmp_path / "one", home, 1, **kw), export(tmp_path / "two", home, 2, **kw)
    # Both read ahead and cut into parts there (``packed``): neither is read again here.
    assert read == [] and sorted(packed) == sorted([long.session_id, rollout.thread_id])
    notes = note_files(tmp_path / "two", index=True)
    assert notes == note_files(tmp_path / "one", index=True)
    assert one.as_dict() == two.as_dict() and two.redactions == one.redactions
    assert sum("(part " in n for n in notes) >= 4 and SECRET not in str(notes)


def test_a_unit_made_out_of_date_by_a_note_still_rendering_is_read_in_its_turn(
    tmp_path, monkeypatch
):
    """An old-layout agent file waits for its parent's note (the first run's --since left
    the parent out). When the parent is written, the agent's unit is out of date: in one
    process that happens before the agent's turn, and it is read then. With the pool the
    parent's note was still rendering; the unit was counted as skipped and redone at the
    end, without its redactions counted. Now pending notes that may do so are written
    first: the same report."""
    monkeypatch.setattr(workers, "PARALLEL_FROM", 2)
    home = tmp_path / "home"
    write_sessions(home, 3)
    pid = "f0000000-0000-4000-8000-000000000000"
    _family(home, 0)
    old = ClaudeSession(pid, "/home/dev/work/family", sidechain=True, agent_id="0ld1d")
    old.user(f"Old layout. {SECRET}", parent=None)
    old.assistant("Found old.")
    old.write(home / ".claude" / "projects" / "-family" / "agent-0ld1d.jsonl")
    since = datetime(2026, 6, 3, tzinfo=UTC)
    reports = []
    for vault, jobs in ((tmp_path / "one", 1), (tmp_path / "two", 2)):
        export(vault, home, jobs, since=since)
        reports.append(export(vault, home, jobs))
    one, two = reports
    assert note_files(tmp_path / "one", index=True) == note_files(tmp_path / "two", index=True)
    assert one.as_dict() == two.as_dict()
    assert two.total("skipped") == 0 and two.redactions == {"github-pat": 2}  # both files


class _Reading:
    """An adapter whose units a worker may read (its class is what a job names)."""

    reads_alone = True


class _Pool:
    """A renderer with a pool of two workers that records the units asked to be read."""

    pool = object()
    workers = 2

    def __init__(self) -> None:
        self.asked: list[str] = []

    def read_ahead(self, _function, jobs):
        self.asked.extend(unit for unit, _type, _ref in jobs)
        return object(), None

    def read_result(self, _ticket):
        return None  # (as if the worker had failed: the main process reads it)


def _units(sizes: list[int]) -> list:
    from exporter.adapters.base import FileStamp, SessionRef

    return [
        (_Reading(), SessionRef("x", f"s{k}", FileStamp(Path(f"/h/s{k}.jsonl"), size, 0)))
        for k, size in enumerate(sizes)
    ]


def _asked_ahead(sizes: list[int]) -> list[int]:
    renderer = _Pool()
    readahead.ReadAhead(renderer).ask(_units(sizes), 0, lambda unit, ref: False)
    return [int(unit.removeprefix("/h/s").removesuffix(".jsonl")) for unit in renderer.asked]


def test_units_are_read_ahead_a_window_deep_and_further_past_a_long_unit():
    """A long unit keeps the main process reading in its turn: the workers get the units
    after it to read meanwhile (within the bound on source read ahead), not only its parts."""
    window = readahead.READ_AHEAD_PER_WORKER * 2
    assert _asked_ahead([1000] * 2000) == list(range(window))
    sizes = [1000] * 2000
    sizes[10] = readahead.LONG_UNIT  # read by the main process: not read ahead itself
    deeper = 11 + window * readahead.WINDOWS_PAST_LONG
    assert _asked_ahead(sizes) == [*range(10), *range(11, deeper)]
    sizes = [200_000] * 2000  # the bound on source read ahead still holds
    sizes[10] = readahead.LONG_UNIT
    asked = _asked_ahead(sizes)
    assert len(asked) == readahead.READ_AHEAD_BYTES // 200_000 < deeper - 1


class _Streaming(_Reading):
    """An adapter that streams a file of 64 MB or more and keeps its messages as it reads."""

    keeps_streamed = True

    def streams(self, ref) -> bool:
        return ref.main.size >= 64 * 1024 * 1024

    def held_size(self, ref) -> int:
        return 0 if self.streams(ref) else ref.size


def test_a_session_cut_into_packed_parts_is_read_ahead_at_once_and_one_at_a_time():
    """Its first reading now packs its parts too (seconds per 100 MB): the next such unit is
    handed over as soon as the run starts, however far ahead, alone in its job; the one after
    it only once it is taken (what comes back is held until its turn)."""
    big = 100 * 1024 * 1024
    sizes = [1000] * 2000
    sizes[1500] = sizes[1800] = big
    units = [(_Streaming(), ref) for _adapter, ref in _units(sizes)]
    renderer = _Pool()
    ahead = readahead.ReadAhead(renderer)
    ahead.ask(units, 0, lambda unit, ref: False)
    asked = [int(u.removeprefix("/h/s").removesuffix(".jsonl")) for u in renderer.asked]
    assert asked == [1500, *range(readahead.READ_AHEAD_PER_WORKER * 2)]
    ahead.ask(units, 1, lambda unit, ref: False)
    assert "/h/s1800.jsonl" not in renderer.asked  # one at a time
    ahead.take("/h/s1500.jsonl")  # its turn
    before = len(renderer.asked)
    ahead.ask(units, 1501, lambda unit, ref: False)
    assert renderer.asked[before] == "/h/s1800.jsonl"  # then the window past 1500
    skipped = readahead.ReadAhead(_Pool())
    skipped.ask(units, 0, lambda unit, ref: unit == "/h/s1500.jsonl")  # unchanged: not read
    assert "/h/s1500.jsonl" not in skipped.renderer.asked
    assert "/h/s1800.jsonl" in skipped.renderer.asked
