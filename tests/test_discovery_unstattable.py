"""A file a discovery listed but cannot stat (a link that leads nowhere or back to itself,
or a rollout Codex moved to ``archived_sessions/`` between the listing and the stat) is
skipped alone: the files after it are still found (review44 H1: one dangling link sorted
first hid every later Codex rollout, "the sessions after it are missed"; OpenCode's
session tree the same). The walk of the source's folders names a link that loops, as for
every other source; one that leads nowhere is skipped as neither file nor folder."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC
from pathlib import Path

import pytest

from exporter.adapters.base import FileStamp
from exporter.export import ExportOptions, run_export

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "home"
DAY = ".codex/sessions/2026/03/10"
FIRST = "rollout-2026-03-10T07-00-00-019a2b3c-0000-7f60-8a1b-000000000001.jsonl"


def export(home: Path, vault: Path, source: str):
    return run_export(
        ExportOptions(vault=vault, home=home, timezone=UTC, workers=1, sources=[source])
    )


@pytest.mark.parametrize("link", ["dangling", "loop"])
def test_a_codex_link_that_cannot_be_followed_hides_no_other_rollout(tmp_path, link):
    home = tmp_path / "home"
    shutil.copytree(EXAMPLES / ".codex", home / ".codex")
    clean = export(home, tmp_path / "clean", "codex").total("found")
    target = home / DAY / FIRST
    os.symlink("/nonexistent/x.jsonl" if link == "dangling" else target, target)
    report = export(home, tmp_path / "vault", "codex")
    assert report.total("found") == clean == 4
    assert not [p for p in report.problems if "sessions after it are missed" in p.message]
    said = [p for p in report.problems if p.path == str(target)]
    if link == "loop":  # named by the walk, as for every source; a link to nothing is
        assert [(p.severity, "loop" in p.message) for p in said] == [("warning", True)]
    else:  # neither a file nor a folder: skipped as such, as every source skips it
        assert said == []


def test_an_opencode_tree_session_file_that_cannot_be_followed_hides_no_other(tmp_path):
    home = tmp_path / "home"
    tree = home / ".local/share/opencode/storage"
    for n in (1, 2):
        folder = tree / "session" / "global"
        folder.mkdir(parents=True, exist_ok=True)
        info = {"id": f"ses_{n}", "title": f"Session {n}", "time": {"created": 1767000000000}}
        (folder / f"ses_{n}.json").write_text(json.dumps(info))
        message = tree / "message" / f"ses_{n}" / f"msg_{n}.json"
        message.parent.mkdir(parents=True)
        message.write_text(json.dumps({"id": f"msg_{n}", "sessionID": f"ses_{n}", "role": "user",
                                       "time": {"created": 1767000000000}}))  # fmt: skip
        part = tree / "part" / f"msg_{n}" / f"prt_{n}.json"
        part.parent.mkdir(parents=True)
        part.write_text(json.dumps({"id": f"prt_{n}", "type": "text", "text": f"hello {n}"}))
    os.symlink("/nonexistent/ses_0.json", tree / "session" / "global" / "ses_0.json")
    os.symlink("/nonexistent/prt_9.json", tree / "part" / "msg_1" / "prt_9.json")
    report = export(home, tmp_path / "vault", "opencode")
    assert not [p for p in report.problems if "sessions after it are missed" in p.message]
    assert report.total("found") == 2, report.problems


def test_a_file_gone_since_the_listing_is_no_stamp(tmp_path):
    assert FileStamp.listed(tmp_path / "gone.jsonl") is None
    (tmp_path / "here.jsonl").write_text("{}\n")
    assert FileStamp.listed(tmp_path / "here.jsonl") == FileStamp.of(tmp_path / "here.jsonl")
