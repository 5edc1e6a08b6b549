"""A session across the autumn change of the clocks: in the repeated hour, a later time
reads earlier (01:10 after 01:50), so the note names the zones once the clocks changed."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from claude_builder import ClaudeSession
from conftest import note_files

from exporter.export import ExportOptions, run_export

SID = "0dd0d0d0-1111-4222-8333-444444444444"


def _note(tmp_path, start: str, minutes: int) -> str:
    s = ClaudeSession(SID, "/w/proj", start=start)
    s.user("before the change")
    s.assistant("first answer")
    s.tick(minutes * 60)
    s.user("after the change")
    s.assistant("second answer")
    s.write(tmp_path / "home" / ".claude" / "projects" / "-w-proj" / f"{SID}.jsonl")
    zone = ZoneInfo("America/New_York")  # EDT -> EST at 2026-11-01 06:00 UTC
    run_export(ExportOptions(vault=tmp_path / "v", home=tmp_path / "home", timezone=zone))
    (text,) = [d.decode() for d in note_files(tmp_path / "v").values()]
    return text


def test_a_session_across_the_change_names_the_zones(tmp_path):
    text = _note(tmp_path, "2026-11-01T05:49:50Z", 20)
    assert " · 2026-11-01 01:49 EDT → 01:10 EST · " in text
    assert "### User · 01:49\n" in text  # the zone the session began in: said in the header
    assert "### User · 01:10 EST\n" in text


def test_a_session_within_one_zone_names_none(tmp_path):
    text = _note(tmp_path, "2026-11-01T07:00:00Z", 20)
    assert " · 2026-11-01 02:00 → 02:20 · " in text
    assert "EST" not in text and "EDT" not in text
