"""With --project or --since, the counts and the problems are those of the sessions the
filters keep ("the counts cover just those sessions too"). `--project zzz` on the demo
said "0 sessions found … 3 without a conversation" and printed the warnings of a
notes-app file: files the filter leaves out were counted and reported.

A file whose sessions the filters all leave out is not counted as without a conversation,
and its warnings and errors are not this run's (nor a failure of it); the next run reads
it again and reports them. A file that gives no session at all (empty, or unreadable) has
no project and no end that can be told: --project, which keeps no session of unknown
project, does not count it as without a conversation, and --since counts it as its time
at discovery took it in. Its warnings and errors are always reported: it may hold a
session the run wanted."""

from __future__ import annotations

import json
import os
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from claude_builder import ClaudeSession
from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter import readahead, workers
from exporter.adapters.claude_code import ClaudeCodeAdapter
from exporter.cli import app
from exporter.errors import Problem
from exporter.export import ExportOptions, run_export

CLEAR = "<command-name>/clear</command-name>\n<command-message>clear</command-message>"
FAILING = "0000dead"  # a unit whose load also reports an error (see ``failing_loads``)


def export(vault: Path, home: Path, **kw):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, **kw))


def session(home: Path, n: int, project: str, *, talk: bool = True, bad_line: bool = False,
            start: str = "2026-05-01T10:00:00Z", sid: str | None = None) -> Path:  # fmt: skip
    sid = sid or f"{n:08x}-0000-4000-8000-000000000000"
    s = ClaudeSession(sid, f"/home/dev/work/{project}", start=start)
    s.user(f"question {n} about {project}" if talk else CLEAR)
    if bad_line:
        s.raw("{not json")
    if talk:
        s.assistant(f"answer {n}")
    return s.write(home / ".claude" / "projects" / f"-{project}" / f"{sid}.jsonl")


@pytest.fixture
def failing_loads(monkeypatch):
    """A unit whose file name starts with ``FAILING`` reports an error besides what it
    read (as a subagent file that cannot be read does)."""
    load = ClaudeCodeAdapter.load

    def with_an_error(self, ref, keep=None):
        result = load(self, ref, keep)
        if ref.main.path.name.startswith(FAILING):
            why = "could not be read (made up by the test)"
            result.problems.append(Problem(str(ref.main.path), why, severity="error"))
        return result

    monkeypatch.setattr(ClaudeCodeAdapter, "load", with_an_error)


def paths_of(report, severity: str) -> set[str]:
    return {Path(p.path).name for p in report.problems if p.severity == severity}


def test_the_demo_with_a_project_nothing_matches_counts_and_reports_nothing(tmp_path):
    everything = export(tmp_path / "all", EXAMPLES_HOME, dry_run=True).as_dict()
    assert everything["totals"]["empty"] == 3 and len(everything["warnings"]) == 2
    doc = export(tmp_path / "v", EXAMPLES_HOME, project="zzz", dry_run=True).as_dict()
    assert doc["totals"]["found"] == doc["totals"]["empty"] == 0
    assert doc["warnings"] == doc["errors"] == []
    result = CliRunner().invoke(app, ["--vault", str(tmp_path / "v"), "--home",
                                      str(EXAMPLES_HOME), "--project", "zzz", "--dry-run"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "0 sessions found" in result.stdout and "without a conversation" not in result.stdout
    assert "warning" not in result.stderr
    # the project of the file with the two warnings: they are this run's
    notes = export(tmp_path / "v", EXAMPLES_HOME, project="notes-app", dry_run=True).as_dict()
    assert [w["line"] for w in notes["warnings"]] == [7, 17]


def test_project_leaves_out_what_it_can_tell_is_another_projects_and_reports_the_rest(
    tmp_path, failing_loads
):
    home, vault = tmp_path / "home", tmp_path / "v"
    session(home, 1, "web")
    session(home, 2, "api", talk=False, bad_line=True)  # no conversation, one warning
    session(home, 3, "api", sid=f"{FAILING}-0000-4000-8000-000000000003")  # an error
    unknown = (
        home / ".claude" / "projects" / "-lost" / f"{FAILING}-0000-4000-8000-00000000000f.jsonl"
    )
    unknown.parent.mkdir(parents=True)
    unknown.write_text("{not json\n")  # no session: no project can be told

    web = export(vault, home, project="web", dry_run=True)
    assert (web.total("found"), web.total("empty"), web.total("failed")) == (1, 0, 1)
    assert paths_of(web, "warning") == paths_of(web, "error") == {unknown.name}

    api = export(vault, home, project="api", dry_run=True)
    assert (api.total("found"), api.total("empty"), api.total("failed")) == (1, 1, 2)
    assert paths_of(api, "warning") == {unknown.name, "00000002-0000-4000-8000-000000000000.jsonl"}
    assert paths_of(api, "error") == {unknown.name, f"{FAILING}-0000-4000-8000-000000000003.jsonl"}

    # A run with --project web reads them without a word; the next run says it all.
    export(vault, home, project="web")
    after = export(vault, home)
    assert after.total("empty") == 1 and after.total("failed") == 2
    assert paths_of(after, "warning") == paths_of(api, "warning")
    assert paths_of(after, "error") == paths_of(api, "error")


def test_since_follows_its_filter_the_end_of_a_session_or_else_the_time_of_its_file(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "v"
    now = datetime.now(UTC)
    old = (now - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    recent = (now - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    session(home, 1, "web", start=recent)
    ended = session(home, 2, "web", talk=False, bad_line=True, start=old)  # file touched now
    nothing = home / ".claude" / "projects" / "-web" / "0000000e-0000-4000-8000-000000000000.jsonl"
    nothing.write_text("")  # no session, so no end: its time is the file's, now
    untouched = session(home, 4, "web", talk=False, bad_line=True, start=old)
    stamp = (now - timedelta(days=30)).timestamp()
    os.utime(untouched, (stamp, stamp))  # not even read: discovery leaves it out

    report = export(vault, home, since=now - timedelta(days=7), dry_run=True, workers=1)
    assert report.total("found") == 1
    assert report.empty_units == [("claude-code", str(nothing))]
    assert report.problems == []  # the warning of a session that ended before: not this run's
    assert ended.name in paths_of(export(vault, home, dry_run=True), "warning")


def test_workers_reading_ahead_count_and_report_as_the_main_process(tmp_path, monkeypatch):
    monkeypatch.setattr(workers, "PARALLEL_FROM", 4)  # the pool starts early
    read_ahead: Counter[str] = Counter()
    take = readahead.ReadAhead.take

    def counting_take(self, unit, wanted=True):
        read = take(self, unit, wanted)
        read_ahead["units"] += read is not None
        return read

    monkeypatch.setattr(readahead.ReadAhead, "take", counting_take)
    home = tmp_path / "home"
    for n in range(40):
        project = ("web", "api")[n % 2]
        session(home, n, project, talk=n % 4 > 1, bad_line=n % 3 == 0)
    for project in ("web", "api"):
        one = export(tmp_path / "one", home, project=project, workers=1, dry_run=True)
        two = export(tmp_path / "two", home, project=project, workers=2, dry_run=True)
        assert one.total("empty") == 10 and one.total("found") == 10
        assert len(one.problems) == 7  # the bad lines of this project's files alone
        assert json.dumps(one.as_dict()) == json.dumps(two.as_dict())
    assert read_ahead["units"] > 10


def test_since_judges_a_session_with_no_known_end_by_its_start():
    """``--since 7d`` exported Cursor tabs of 2024 and a Codex session of 2025: their
    database or file was touched since (by other sessions), and with no end known each was
    kept, however old its start."""
    from dataclasses import replace

    from message_builder import T0, msg, session

    from exporter.model import TextPart
    from exporter.readvalues import selected

    base = session(msg("user", TextPart("hi")))
    since = T0 + timedelta(days=1)
    started_before = replace(base, ended_at=None)
    assert not selected(started_before, None, since)
    assert selected(replace(base, ended_at=None, started_at=since), None, since)
    assert selected(replace(base, ended_at=None, started_at=None), None, since)  # nothing known
    assert not selected(base, None, since) and selected(base, None, T0)  # an end, as before


def test_since_counts_an_unchanged_log_of_many_sessions_as_reading_it_would(tmp_path):
    """One Aider log holds every run in its folder, and it was touched since --since (by
    today's run): left unread as unchanged, it counted, and a dry run listed as "would
    leave alone", runs of 2024 that reading it leaves out."""
    from aider_builder import AiderLog

    home, vault = tmp_path / "home", tmp_path / "v"
    now = datetime.now(UTC)
    log = AiderLog()
    for started, asked in (("2024-03-01 10:00:00", "old one"), ("2024-03-02 10:00:00", "old two")):
        log.run(started).prompt(asked).reply("old answer")
    log.run((now - timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S")).prompt("new").reply("ok")
    log.write(home / "src" / "proj")
    assert export(vault, home, sources=["aider"]).total("created") == 3
    since = now - timedelta(days=7)
    read = export(tmp_path / "fresh", home, sources=["aider"], since=since, dry_run=True)
    left = export(vault, home, sources=["aider"], since=since, dry_run=True)
    assert read.total("found") == left.total("found") == 1
    alone = [c.relpath for c in left.changes if c.action.name == "UNCHANGED"]
    assert len(alone) == 1 and "new" in alone[0], alone
