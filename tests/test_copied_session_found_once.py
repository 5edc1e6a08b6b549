"""A Claude Code session file copied into a second project folder (resumed elsewhere: the
same id, another ``cwd``) is "found" once in every run, whichever copy is exported
(review43 L6): when the other copy became the newer, the unit skipped as unchanged counted
the session from its record and the unit read counted it again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import EXAMPLES_HOME
from typer.testing import CliRunner

from exporter.cli import app

runner = CliRunner()
SESSION = "0b7e3c51-9d2a-4f1e-8c3b-6a5d4e3f2a19"


def _copy_elsewhere(home: Path) -> Path:
    projects = home / ".claude" / "projects"
    lines = (projects / "-Users-dev-legacy-tool" / f"{SESSION}.jsonl").read_text().splitlines()
    moved = [line.replace("/Users/dev/legacy-tool", "/home/dev/work/omega") for line in lines]
    copy = projects / "-home-dev-work-omega" / f"{SESSION}.jsonl"
    copy.parent.mkdir()
    copy.write_text("\n".join(moved) + "\n")
    return copy


def _resume(copy: Path) -> None:
    last = json.loads(copy.read_text().splitlines()[-1])
    turn = {**last, "type": "user", "parentUuid": last["uuid"],
            "uuid": "d0000000-0000-4000-8000-000000000001",
            "timestamp": "2025-06-09T10:00:00.000Z",
            "message": {"role": "user", "content": "resumed in omega"}}  # fmt: skip
    turn.pop("requestId", None)
    with copy.open("a") as out:
        out.write(json.dumps(turn) + "\n")


def _found(home: Path, vault: Path) -> tuple[int, dict[str, int]]:
    args = ["--vault", str(vault), "--home", str(home), "--source", "claude-code", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    counts = json.loads(result.stdout)["sources"]["claude-code"]
    said = counts["created"] + counts["updated"] + counts["unchanged"] + counts["deleted"]
    assert said == counts["found"], counts  # the source's line adds up to its "found"
    return counts["found"], counts


def test_a_session_copied_into_another_project_is_found_once(tmp_path: Path) -> None:
    home, vault = tmp_path / "home", tmp_path / "v"
    shutil.copytree(EXAMPLES_HOME / ".claude", home / ".claude")
    alone, _ = _found(home, tmp_path / "alone")
    copy = _copy_elsewhere(home)
    assert _found(home, vault)[0] == alone
    assert _found(home, vault)[0] == alone  # both units skipped
    _resume(copy)  # the copy is the newer now: read, the other skipped
    found, counts = _found(home, vault)
    assert found == alone and counts["updated"] >= 1
    assert _found(home, vault)[0] == alone
    assert _found(home, tmp_path / "fresh")[0] == alone
