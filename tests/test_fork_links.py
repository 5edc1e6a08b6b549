"""A session's note names the sessions that went on from it (its forks, its saved copies),
not only the other way round; found in a later run, in the same run in either order, or by
workers, the notes are the same bytes.

Codex: a fork's rollout names its origin (``forked_from_id``); a fork made by editing an
earlier prompt, before Codex wrote that field, is a new rollout whose second line is the
origin's own ``session_meta``. Both are forks (``codex resume`` appends to the rollout).
"""

from __future__ import annotations

import shutil
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
from codex_builder import CodexRollout
from conftest import note_files
from test_codex_parent_once import counting_writes

from exporter import export as export_module
from exporter import readahead, workers
from exporter.adapters.codex import CodexAdapter
from exporter.export import ExportOptions, run_export
from exporter.state import State

ORIGIN = "019a0000-1111-7222-8333-444455556666"
EDITED = "019a0000-2222-7000-8000-00000000aaaa"
FORK = "019a0000-3333-7000-8000-00000000bbbb"


def origin_rollout(turns: int = 1) -> CodexRollout:
    r = CodexRollout(ORIGIN, start="2026-03-10T08:00:00Z")
    r.context()
    for n in range(turns):
        r.user(f"Add a health endpoint, step {n}")
        r.assistant(f"Added step {n} of `GET /health`.")
    return r


def edited_rollout(origin: CodexRollout) -> CodexRollout:
    """A fork by an edited prompt (2025): its own session_meta, then the origin's, then the
    origin's lines (here all of them: the prompt edited is a new one)."""
    r = CodexRollout(EDITED, start="2026-03-10T09:00:00Z")
    r.lines += origin.lines  # (the origin's session_meta first)
    r.user("Go on: add a readiness probe")
    r.assistant("Added `GET /ready`.")
    return r


def fork_rollout(origin: CodexRollout) -> CodexRollout:
    r = CodexRollout(FORK, start="2026-03-10T08:30:00Z", forked_from=ORIGIN)
    r.lines += [x for x in origin.lines if x["type"] != "session_meta"]
    r.user("Instead, add metrics")
    r.assistant("Added `/metrics`.")
    return r


def export(home: Path, vault: Path, **kw):
    kw.setdefault("workers", 1)
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, **kw))


def note_of(vault: Path, session_id: str) -> str:
    (text,) = [
        t.decode()
        for t in note_files(vault).values()
        if f"session_id: {session_id}\n" in t.decode()
    ]
    return text


def generated(note: str) -> str:
    return note.split("%% ccexport:end")[0]


def write_all(home: Path, *, fork: bool = True) -> None:
    origin = origin_rollout()
    origin.write(home / ".codex")
    edited_rollout(origin).write(home / ".codex")
    if fork:
        fork_rollout(origin).write(home / ".codex")


def counting_loads(monkeypatch) -> Counter[str]:
    loads: Counter[str] = Counter()
    real = CodexAdapter.load

    def load(self, ref):
        loads[ref.main.path.name] += 1
        return real(self, ref)

    monkeypatch.setattr(CodexAdapter, "load", load)
    return loads


def stamps(vault: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(vault).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(vault.rglob("*"))
        if p.is_file() and p.name != "lock"
    }


def test_both_kinds_of_fork_link_back_and_the_origin_names_both(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_all(home)
    report = export(home, vault)
    assert not [p for p in report.problems if p.severity == "error"]
    edited, forked, origin = (note_of(vault, i) for i in (EDITED, FORK, ORIGIN))
    assert "> Forked from [[" in edited and "> Forked from [[" in forked
    assert f"forked_from: '[[{Path(origin_path(vault)).stem}]]'" in edited
    fork_stem, edited_stem = Path(path_of(vault, FORK)).stem, Path(path_of(vault, EDITED)).stem
    # In the header beside the other links, in the order they started (08:30, then 09:00).
    header = origin.split("### User")[0]
    assert f"> Forked into [[{fork_stem}]], [[{edited_stem}]]\n" in header
    assert f"forks:\n- '[[{fork_stem}]]'\n- '[[{edited_stem}]]'\n" in origin


def origin_path(vault: Path) -> str:
    return path_of(vault, ORIGIN)


def path_of(vault: Path, session_id: str) -> str:
    (path,) = [
        p for p, t in note_files(vault).items() if f"session_id: {session_id}\n" in t.decode()
    ]
    return path


@pytest.mark.parametrize("workers", [1, 2])
def test_a_continuation_found_later_rewrites_the_origin_once_then_nothing(
    tmp_path, monkeypatch, workers
):
    home, vault = tmp_path / "home", tmp_path / "v"
    origin = origin_rollout()
    origin.write(home / ".codex")
    export(home, vault, workers=workers)
    before = note_of(vault, ORIGIN)
    assert "Forked into" not in before and "forks:" not in before
    edited_rollout(origin).write(home / ".codex")
    fork_rollout(origin).write(home / ".codex")
    writes = counting_writes(monkeypatch)
    loads = counting_loads(monkeypatch)
    report = export(home, vault, workers=workers)
    assert not report.problems
    assert writes[origin_path(vault)] == 1  # once, for both
    if workers == 1:  # (read once more: its own file did not change)
        assert loads[f"{origin.filename()}"] == 1
    after = note_of(vault, ORIGIN)
    assert "> Forked into [[" in after and after.count("[[2026-03-10") >= 2
    # The same notes as a vault that found all three at once.
    export(home, tmp_path / "once", workers=workers)
    assert note_files(vault) == note_files(tmp_path / "once")
    # And a run after changes nothing, and reads nothing.
    held = stamps(vault)
    loads.clear()
    writes.clear()
    export(home, vault, workers=workers)
    assert stamps(vault) == held
    assert not loads and not writes


@pytest.mark.parametrize("workers", [1, 2])
def test_whichever_is_read_first_the_notes_are_those_of_two_runs(tmp_path, monkeypatch, workers):
    home = tmp_path / "home"
    origin = origin_rollout()
    origin.write(home / ".codex")
    export(home, tmp_path / "two", workers=workers)
    edited_rollout(origin).write(home / ".codex")
    fork_rollout(origin).write(home / ".codex")
    export(home, tmp_path / "two", workers=workers)
    export(home, tmp_path / "forward", workers=workers)
    real = export_module.discover
    monkeypatch.setattr(export_module, "discover", lambda *a: list(reversed(real(*a))))
    export(home, tmp_path / "backward", workers=workers)
    two = note_files(tmp_path / "two")
    assert "> Forked into [[" in note_of(tmp_path / "two", ORIGIN)
    assert note_files(tmp_path / "forward") == two
    assert note_files(tmp_path / "backward") == two


def test_the_state_records_them_and_an_older_state_without_them_loads(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    write_all(home)
    export(home, vault)
    data = orjson.loads((vault / ".ccexport" / "state.json").read_bytes())
    assert data["forks"] == {
        f"codex:{ORIGIN}": [
            [f"codex:{FORK}", "forked", "2026-03-10T08:30:01+00:00"],
            [f"codex:{EDITED}", "forked", "2026-03-10T09:00:01+00:00"],
        ]
    }
    del data["forks"]
    (vault / ".ccexport" / "state.json").write_bytes(orjson.dumps(data))
    assert State.load(vault).forks == {}
    data["forks"] = {f"codex:{ORIGIN}": [["damaged"], [f"codex:{FORK}", "forked", ""]]}
    (vault / ".ccexport" / "state.json").write_bytes(orjson.dumps(data))
    assert State.load(vault).forks == {f"codex:{ORIGIN}": [[f"codex:{FORK}", "forked", ""]]}


def test_an_origin_without_a_note_costs_nothing(tmp_path):
    """--since leaves the origin out: its continuation is written, no error, no origin."""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_all(home, fork=False)
    since = datetime(2026, 3, 10, 8, 30, tzinfo=UTC)
    report = export(home, vault, since=since)
    assert not [p for p in report.problems if p.severity == "error"]
    (only,) = note_files(vault).values()
    assert f"session_id: {EDITED}\n" in only.decode()
    # The origin's note comes later, naming its continuation.
    export(home, vault)
    assert "> Forked into [[" in note_of(vault, ORIGIN)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_continuation_gone_from_disk_keeps_its_link(tmp_path, workers):
    """(With workers, the grown origin is read and rendered ahead, knowing nothing of its
    continuation: that note is not used, it is rendered again naming it.)"""
    home, vault = tmp_path / "home", tmp_path / "v"
    write_all(home, fork=False)
    export(home, vault, workers=workers)
    held = note_of(vault, ORIGIN)
    for path in (home / ".codex").rglob(f"*{EDITED}.jsonl"):
        path.unlink()
    # The origin changes (a turn more): its note is written again, the link kept.
    grown = origin_rollout(turns=2)
    for path in (home / ".codex").rglob(f"*{ORIGIN}.jsonl"):
        path.write_text(grown.text(), encoding="utf-8")
    export(home, vault, workers=workers)
    after = note_of(vault, ORIGIN)
    assert after != held and "step 1" in after
    assert "> Forked into [[" in after and "forks:" in after


def test_parts_the_first_names_the_forks(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    origin = origin_rollout(turns=40)
    origin.write(home / ".codex")
    edited_rollout(origin).write(home / ".codex")
    fork_rollout(origin).write(home / ".codex")
    export(home, vault, note_max_bytes=4000)
    parts = sorted(
        (t.decode() for t in note_files(vault).values() if f"session_id: {ORIGIN}\n" in t.decode()),
        key=lambda t: int(t.split("\npart: ", 1)[1].split("\n", 1)[0]),
    )
    assert len(parts) > 2
    first, *others = parts
    assert "> Forked into [[" in first and "forks:" in first
    assert not any("Forked into" in p or "forks:" in p for p in others)


@pytest.mark.corpus
def test_corpus_a_fork_by_an_edited_prompt_links_both_ways(corpus, tmp_path):
    """The rollout an audit took for a resume (F4): line 2 is the session_meta of 9cd28a74,
    then that session's lines up to its last prompt, which the person replaced (Esc Esc):
    a fork, as Codex's fork_conversation made it (cut before the nth prompt). Its note says
    so, and the origin's note now names it."""
    found = sorted((corpus / "codex").glob("*rollout-2025-09-16T14-12-31-613a9a68*.jsonl"))
    if not found:
        pytest.skip("the forked Codex rollout (613a9a68) is not in this corpus")
    first, second = found[0].read_text(encoding="utf-8").splitlines()[:2]
    own_id, origin_id = (orjson.loads(line)["payload"]["id"] for line in (first, second))
    origins = sorted((corpus / "codex").glob(f"*rollout-*{origin_id}.jsonl"))
    if not origins:
        pytest.skip(f"the rollout it forked ({origin_id}) is not in this corpus")
    home = tmp_path / "home"
    for path in (found[0], origins[0]):
        name = path.name.split("__", 2)[-1]
        dest = home / ".codex" / "sessions" / name[8:12] / name[13:15] / name[16:18] / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)
    vault = tmp_path / "v"
    export(home, vault)
    fork = note_of(vault, own_id)
    assert "> Forked from [[" in fork and "Resumed" not in fork
    # (the copy of the origin is left out: its first prompt is the origin's note's alone)
    turns = fork.split("### User", 1)[1]
    assert "检查目前项目的设计" not in turns and "等下再继续" in turns
    origin = note_of(vault, origin_id)
    fork_stem = Path(path_of(vault, own_id)).stem
    assert f"> Forked into [[{fork_stem}]]\n" in origin.split("### User")[0]
    assert f"forks:\n- '[[{fork_stem}]]'\n" in origin


def test_an_origin_read_ahead_by_a_worker_still_names_its_continuation(tmp_path, monkeypatch):
    """A worker reads and renders the grown origin ahead of its turn, knowing nothing of the
    session that went on from it (the run's state knows): that note is not used."""
    monkeypatch.setattr(workers, "PARALLEL_FROM", 4)  # the pool starts early
    home, vault = tmp_path / "home", tmp_path / "v"

    def others(turns: int) -> None:
        for i in range(30):
            r = CodexRollout(
                f"019a0000-0000-7000-8000-{i:012x}", start=f"2026-03-10T07:{i:02d}:00Z"
            )
            for n in range(turns):
                r.user(f"question {i}.{n}")
                r.assistant(f"answer {i}.{n}")
            r.write(home / ".codex")

    others(1)
    write_all(home, fork=False)
    export(home, vault, workers=2)
    others(2)  # every unit changed: read ahead by the pool
    grown = origin_rollout(turns=2)
    for path in (home / ".codex").rglob(f"*{ORIGIN}.jsonl"):
        path.write_text(grown.text(), encoding="utf-8")
    taken: Counter[str] = Counter()
    real = readahead.ReadAhead.take

    def take(self, unit, wanted=True):
        found = real(self, unit, wanted)
        if wanted and found is not None:
            taken["read ahead"] += 1
        return found

    monkeypatch.setattr(readahead.ReadAhead, "take", take)
    export(home, vault, workers=2)
    assert taken["read ahead"] > 20, taken
    after = note_of(vault, ORIGIN)
    assert "step 1" in after and "> Forked into [[" in after and "forks:" in after


def test_claude_code_the_session_continued_names_its_continuation(tmp_path):
    """Claude Code: a resumed or forked session is a new file starting with a copy of the
    other (the file does not tell which): the other's note names it as a fork."""
    from claude_builder import RESUMED, RESUMED_AGAIN, resumed_sessions

    first = "11111111-2222-4333-8444-555555555555"
    home, vault = tmp_path / "home", tmp_path / "v"
    resumed_sessions(home / ".claude" / "projects" / "-w-proj", first)
    export(home, vault)
    for origin, child in ((first, RESUMED), (RESUMED, RESUMED_AGAIN)):
        stem = Path(path_of(vault, child)).stem
        note = note_of(vault, origin)
        assert f"> Forked into [[{stem}]]\n" in note and f"forks:\n- '[[{stem}]]'\n" in note
        assert "> Forked from [[" in note_of(vault, child)


def test_a_dry_run_changes_nothing_and_the_next_run_names_the_continuation(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    origin = origin_rollout()
    origin.write(home / ".codex")
    export(home, vault)
    edited_rollout(origin).write(home / ".codex")
    held = stamps(vault)
    report = export(home, vault, dry_run=True)
    assert stamps(vault) == held
    # (the origin once: it was listed UNCHANGED as well, from the pass that skipped its unit)
    told = sorted((c.key, c.action.name) for c in report.changes)
    assert told == [(f"codex:{ORIGIN}", "UPDATED"), (f"codex:{EDITED}", "CREATED")]
    export(home, vault)
    assert "> Forked into [[" in note_of(vault, ORIGIN)


def test_an_origin_in_the_same_unit_as_its_fork_is_redone_too(tmp_path):
    """No source puts a session and one that went on from it in one unit today; one that
    did would not plan them together (as a family's subagents are): the origin's note,
    rendered before its fork's was written, is redone for it, once."""
    from exporter.model import Session
    from exporter.notespec import NoteSettings
    from exporter.plan import LinkPlan
    from exporter.vault import Vault

    def plan_for(vault: Vault) -> LinkPlan:
        return LinkPlan(vault, NoteSettings(), lambda s, _st, _p: f"AI/{s.session_id}.md")

    vault = Vault(tmp_path / "v")
    origin = Session("codex", "o", (), Path("o.jsonl"))
    fork = Session("codex", "f", (), Path("f.jsonl"), forked_from="o")
    plan = plan_for(vault)
    plan.place([origin, fork], "unit", lambda s, e: pytest.fail(str(e)))
    for session in (origin, fork):
        plan.rendering(plan.with_known_children(session))
        plan.linked(session, "unit")
    assert list(plan.again) == ["unit"]
    # Redone, it names the fork; written again, the fork asks for nothing more.
    plan.again.clear()
    plan.rendering(plan.with_known_children(origin))
    assert plan.with_known_children(origin).forks == (("f", "forked"),)
    plan.linked(origin, "unit")
    plan.linked(fork, "unit")
    assert not plan.again


def test_every_property_a_session_note_gets_is_one_ccexport_owns(tmp_path):
    """A key ccexport writes but does not own stays as the person's once ccexport stops
    writing it (a note that no longer has it): ``forks`` was such a key. The demo home's
    notes (every source, a fork, a saved chat, subagents) and parts of a long session."""
    from conftest import EXAMPLES_HOME

    from exporter.vaultmerge import OWNED

    write_all(tmp_path / "home")
    shutil.copytree(EXAMPLES_HOME, tmp_path / "home", dirs_exist_ok=True)
    export(tmp_path / "home", tmp_path / "v", note_max_bytes=4000)
    keys: set[str] = set()
    for text in note_files(tmp_path / "v").values():
        head = text.decode().split("\n---\n", 1)[0]
        if "\nsession_id: " in head:
            keys.update(
                line.split(":", 1)[0] for line in head.splitlines()[1:] if line[:1].isalpha()
            )
    assert {"forks", "forked_from", "part", "subagents"} <= keys
    assert keys - {"aliases", "tags"} <= OWNED, sorted(keys - OWNED)


@pytest.mark.parametrize("make", [fork_rollout, edited_rollout])
def test_a_fork_exported_before_its_origin_leaves_the_copy_to_it_when_it_comes(tmp_path, make):
    """A fork read while its origin was not on disk (pruned, not yet copied back) holds the
    copy it began with. Once the origin's note is written, the fork's note loses that copy
    to it and links it: it was kept as a session that shrank ('source has fewer turns than
    the note; kept', review10 F4), holding the origin's prompts with no link either way."""
    home, vault = tmp_path / "home", tmp_path / "v"
    origin = origin_rollout()
    make(origin).write(home / ".codex")
    export(home, vault)
    child = EDITED if make is edited_rollout else FORK
    assert "step 0" in note_of(vault, child).split("### User", 1)[1]
    origin.write(home / ".codex")
    report = export(home, vault)
    assert not report.problems, report.problems
    fork = note_of(vault, child)
    assert "> Forked from [[" in fork and "step 0" not in fork.split("### User", 1)[1]
    assert "> Forked into [[" in note_of(vault, ORIGIN)
    held = stamps(vault)
    export(home, vault)
    assert stamps(vault) == held
