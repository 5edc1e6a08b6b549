"""The index of projects dates each project by its last activity (the last message of any
of its sessions), the day its own index note's ``updated`` says, in the export's time."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from claude_builder import ClaudeSession
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exporter.export import ExportOptions, run_export
from exporter.notefile import read_frontmatter

OLD = "0a1b2c3d-0000-4000-8000-00000000000a"
NEW = "bbbbbbbb-0000-4000-8000-000000000000"


def _session(home: Path, sid: str, times: list[datetime], cwd: str = "/home/dev/work/app"):
    """A session of ``cwd`` with a prompt and a reply at each of ``times``."""
    s = ClaudeSession(sid, cwd, start=times[0].isoformat())
    for n, at in enumerate(times):
        s.clock = at
        s.user(f"prompt {n}")
        s.assistant(f"reply {n}")
    folder = "-" + cwd.strip("/").replace("/", "-")
    s.write(home / ".claude" / "projects" / folder / f"{sid}.jsonl")


def _export(vault: Path, home: Path, tz=UTC, **kw) -> None:
    report = run_export(ExportOptions(vault=vault, home=home, timezone=tz, **kw))
    assert not report.problems, report.problems


def _latest(vault: Path, project: str = "app") -> str:
    """What Projects.md says of ``project``: the date after ``latest``."""
    text = (vault / "AI Sessions" / "Projects.md").read_text()
    (line,) = [x for x in text.splitlines() if x.startswith(f"- [[AI Sessions/Projects/{project}|")]
    return line.rsplit(" · latest ", 1)[1]


def _updated_day(vault: Path, project: str = "app") -> str:
    index = (vault / "AI Sessions" / "Projects" / f"{project}.md").read_text()
    return read_frontmatter(index)["updated"].isoformat()[:10]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_a_session_resumed_today_dates_the_project_today(tmp_path):
    """An old session (begun on the 1st) resumed today (the 9th) and a newer one begun
    yesterday (the 8th): the project was last active today, not on the day the newest
    session began."""
    home, vault = tmp_path / "home", tmp_path / "v"
    _session(home, OLD, [at("2026-03-01T10:00:00"), at("2026-03-09T16:00:00")])
    _session(home, NEW, [at("2026-03-08T10:00:00")])
    _export(vault, home)
    assert _latest(vault) == "2026-03-09"
    assert _updated_day(vault) == "2026-03-09"


def test_the_day_is_the_exports_wall_time_as_the_index_notes_updated(tmp_path):
    """23:30 UTC on the 9th is the 10th at UTC+2: both notes say the 10th."""
    home, vault = tmp_path / "home", tmp_path / "v"
    _session(home, OLD, [at("2026-03-01T10:00:00"), at("2026-03-09T23:30:00")])
    _session(home, NEW, [at("2026-03-08T10:00:00")])
    _export(vault, home, tz=timezone(timedelta(hours=2)))
    assert _latest(vault) == _updated_day(vault) == "2026-03-10"


def test_the_dataview_block_dates_a_project_by_its_notes_updated(tmp_path):
    """The Dataview variant reads each note's ``updated`` (its start where it has none),
    as the plain list does, and sorts by it."""
    home, vault = tmp_path / "home", tmp_path / "v"
    _session(home, OLD, [at("2026-03-01T10:00:00"), at("2026-03-09T16:00:00")])
    _export(vault, home, index_dataview=True)
    text = (vault / "AI Sessions" / "Projects.md").read_text()
    latest = "max(map(rows, (r) => default(r.updated, r.created)))"
    sessions = "length(filter(rows, (r) => !r.parent AND (!r.part OR r.part = 1)))"
    assert f"TABLE {sessions} AS sessions, {latest} AS latest\n" in text
    assert f"SORT {latest} DESC\n" in text
    assert "rows.created" not in text


DAYS = st.integers(min_value=0, max_value=40)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(st.tuples(DAYS, DAYS), min_size=1, max_size=3), st.integers(-11, 12))
def test_projects_md_says_the_day_of_the_last_message(tmp_path_factory, spans, hours):
    """Sessions each begun on one day and last resumed some days later, exported in any
    time zone: Projects.md says the day of the last message of all, in that zone, and the
    project's index note says the same day."""
    tmp = tmp_path_factory.mktemp("p")
    home, vault = tmp / "home", tmp / "v"
    tz = timezone(timedelta(hours=hours))
    base = at("2026-01-01T20:00:00")
    last = base
    for n, (begin, more) in enumerate(spans):
        times = [base + timedelta(days=begin)]
        if more:
            times.append(times[0] + timedelta(days=more, minutes=37))
        _session(home, f"{n:08d}-0000-4000-8000-000000000000", times)
        last = max(last, times[-1])  # (its reply, seconds later, falls on the same day)
    _export(vault, home, tz=tz)
    shown = _latest(vault)
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", shown), shown
    assert shown == _updated_day(vault)
    assert shown == last.astimezone(tz).date().isoformat()
