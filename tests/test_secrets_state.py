"""The facts an index beside the sessions gives a unit (a title, a folder, a model) are
recorded in the state with the unit's fingerprint: redacted when they are read, so the
state never holds a secret from them and a re-run still skips the unit.

The tokens are generated at test time from random characters; none is real.
"""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import cline_builder as cb
from test_redact import SAMPLES, Gen
from test_redact_export import every_file
from test_side_index import TID, a_folder, codex_session, frontmatter

from exporter.export import ExportOptions, run_export
from exporter.outcome import ExportReport

TOKEN = SAMPLES["github-pat"](Gen(41))[1]
SLACK = SAMPLES["slack-token"](Gen(42))[1]


def export(home: Path, vault: Path, **kw) -> ExportReport:
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, **kw))


def assert_clean(vault: Path) -> None:
    for path, text in every_file(vault).items():
        for secret in (TOKEN, SLACK):
            assert secret not in path and secret not in text, path


def test_a_title_from_codex_s_session_index_never_reaches_the_state(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    codex_session(home)
    index = home / ".codex" / "session_index.jsonl"
    index.write_text(json.dumps({"id": TID, "thread_name": f"Deploy with {TOKEN}"}) + "\n")
    assert export(home, vault).total("created") == 1
    assert_clean(vault)
    assert frontmatter(vault)["title"] == "Deploy with [REDACTED:github-pat]"
    assert export(home, vault).total("skipped") == 1  # the facts compare as recorded
    with a_folder(index):  # unreadable: the facts recorded last time are used, redacted
        assert export(home, vault).total("skipped") == 1
    assert_clean(vault)
    assert frontmatter(vault)["title"] == "Deploy with [REDACTED:github-pat]"


def test_a_title_folder_and_model_from_cline_s_sessions_db_never_reach_the_state(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    data = home / ".cline" / "data"
    messages = [cb.message("user", "hello"), cb.message("assistant", "hi")]
    cb.sdk_session(data, "1764145500000_s1", messages)
    cb.sessions_db(data, [{
        "session_id": "1764145500000_s1", "cwd": f"/w/app-{TOKEN}", "model": f"m {SLACK}",
        "metadata_json": json.dumps({"title": f"Rotate {TOKEN}"}),
    }])  # fmt: skip
    assert export(home, vault, sources=["cline"]).total("created") == 1
    assert_clean(vault)
    assert export(home, vault, sources=["cline"]).total("skipped") == 1
