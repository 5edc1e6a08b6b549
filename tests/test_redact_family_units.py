"""A family split over units (a Codex subagent's rollout names its parent thread) shares its
secrets as a family read in one unit does: the parent's reach its subagent's note, the
subagent's its parent's, on the first run and when one of them changes later
(``redact_family``). All values are synthetic."""

from __future__ import annotations

import os
import random
import string
from datetime import UTC
from pathlib import Path

import pytest
from codex_builder import CodexRollout

from exporter.export import ExportOptions, run_export

_RNG = random.Random(6262)
TOKEN = "".join(_RNG.choices(string.ascii_letters + string.digits, k=24))
PASSWORD = "".join(_RNG.choices(string.ascii_letters + string.digits, k=20))
P = "019a2b3c-4d5e-7f60-8a1b-36363636aaaa"
A = "019a2b3c-6000-7f60-8a1b-36363636bbbb"


def family(
    home: Path,
    *,
    named: bool = True,
    child_names: bool = True,
    more: str = "",
    later: str = "",
    child_start: str = "2026-03-10T08:02:00Z",
) -> None:
    """A parent that names ``TOKEN`` (``API_TOKEN=``) and hands it to a subagent bare; the
    subagent names ``PASSWORD`` (``DB_PASSWORD=``), which the parent's answer says bare."""
    codex = home / ".codex"
    r = CodexRollout(P, "/home/dev/work/api", start="2026-03-10T08:00:00Z")
    r.user(f"set API_TOKEN={TOKEN} and deploy" if named else f"deploy {TOKEN} to staging")
    r.spawn_agent(f"Check the deploy used {TOKEN}", {"agent_id": A}, spawned=A)
    r.assistant(f"The subagent found the database at {PASSWORD}, all well.")
    if more:
        r.user(more)
        r.assistant("Noted.")
    r.write(codex)
    a = CodexRollout(A, "/home/dev/work/api", start=child_start,
                     source={"subagent": {"thread_spawn": {"parent_thread_id": P, "depth": 1}}})  # fmt: skip
    a.user(f"Check the deploy used {TOKEN}", events=False)
    a.assistant(f"DB_PASSWORD={PASSWORD} in .env" if child_names else f"saw {PASSWORD}")
    if later:
        a.user(later, events=False)
        a.assistant("Noted.")
    a.write(codex)


def vault_text(vault: Path) -> str:
    return "\n".join(
        f"{p.relative_to(vault)}\n{p.read_text(encoding='utf-8', errors='replace')}"
        for p in sorted(vault.rglob("*"))
        if p.is_file() and p.name != "lock"
    )


def export(home: Path, vault: Path, workers: int = 1):
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=workers))


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("child_first", [False, True])
def test_a_parents_and_a_subagents_secrets_reach_each_others_notes(tmp_path, workers, child_first):
    """Whichever unit is read first (a rollout's file is named by its start: a subagent's
    clock may be behind)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    family(home, child_start="2026-03-10T07:58:00Z" if child_first else "2026-03-10T08:02:00Z")
    report = export(home, vault, workers)
    text = vault_text(vault)
    assert report.total("created") == 2
    assert TOKEN not in text and PASSWORD not in text
    assert "Check the deploy used" in text  # (the subagent's note is there, redacted)
    again = export(home, vault, workers)  # and the next run reads nothing again
    assert again.total("skipped") == 2


def test_a_secret_learned_later_reaches_a_relative_an_earlier_run_wrote(tmp_path):
    """The subagent's rollout is unchanged (its unit skipped); its parent names the value
    it passed on only later: the subagent's note, written with the value bare, is redone."""
    home, vault = tmp_path / "home", tmp_path / "v"
    family(home, named=False, child_names=False)
    export(home, vault)
    assert TOKEN in vault_text(vault)
    family(home, named=False, child_names=False, more=f"API_TOKEN={TOKEN} was the one")
    export(home, vault)
    text = vault_text(vault)
    assert TOKEN not in text
    assert PASSWORD in text  # (no rule named it anywhere: it stays)


def test_a_forks_secret_reaches_the_session_it_went_on_from(tmp_path):
    """A Codex fork (``forked_from_id``) names a value its origin holds bare."""
    home, vault = tmp_path / "home", tmp_path / "v"
    origin = CodexRollout(P, "/home/dev/work/api", start="2026-03-10T08:00:00Z")
    origin.user(f"try {PASSWORD} on the staging database")
    origin.assistant("It connects.")
    origin.write(home / ".codex")
    fork = CodexRollout(A, "/home/dev/work/api", start="2026-03-10T09:00:00Z", forked_from=P)
    fork.lines += [x for x in origin.lines if x["type"] != "session_meta"]
    fork.user(f"put DB_PASSWORD={PASSWORD} in the env instead")
    fork.assistant("Done.")
    fork.write(home / ".codex")
    export(home, vault)
    assert PASSWORD not in vault_text(vault)


@pytest.mark.parametrize("workers", [1, 2])
def test_claude_codes_older_agent_file_shares_its_sessions_secrets(tmp_path, workers):
    """An ``agent-<id>.jsonl`` beside its session (a unit of its own) is told the value its
    session named, and its session the value the agent named."""
    from claude_builder import ClaudeSession, tool_use

    home, vault = tmp_path / "home", tmp_path / "v"
    sid, agent_id = "0bb0b0b0-1111-4222-8333-363636363636", "abc363"
    folder = home / ".claude" / "projects" / "-w-proj"
    s = ClaudeSession(sid, "/w/proj", version="2.0.10")
    s.user(f"api_token: {TOKEN} is what deploys use")
    task = {"description": "Check", "prompt": f"Check the logs for {TOKEN}."}
    s.assistant([tool_use("Task", task, "toolu_1")])
    s.tool_result("toolu_1", "done", rich={"status": "completed", "agentId": agent_id})
    s.assistant(f"The agent saw {PASSWORD} too.")
    s.write(folder / f"{sid}.jsonl")
    agent = ClaudeSession(sid, "/w/proj", sidechain=True, agent_id=agent_id, version="2.0.10")
    agent.user(f"Check the logs for {TOKEN}.", parent=None)
    agent.assistant(f"DB_PASSWORD={PASSWORD} is in the logs")
    agent.write(folder / f"agent-{agent_id}.jsonl")
    export(home, vault, workers)
    text = vault_text(vault)
    assert "Check the logs for" in text and TOKEN not in text and PASSWORD not in text


@pytest.mark.parametrize("changed", ["parent", "subagent"])
def test_a_relative_read_alone_later_keeps_the_secrets_of_the_one_left_unread(tmp_path, changed):
    """One side of the family goes on while the other's unit is skipped: the side read
    again does not show the other's secret it held redacted (the other is read too)."""
    home, vault = tmp_path / "home", tmp_path / "v"
    family(home)
    export(home, vault)
    kept = next(
        p
        for p in (home / ".codex").rglob("*.jsonl")
        if (P if changed != "parent" else A)[-8:] in p.name
    )
    before, stat = kept.read_bytes(), kept.stat()
    if changed == "parent":
        family(home, more="one more thing")
    else:
        family(home, later="and one more check")
    kept.write_bytes(before)  # (the other side's file as the first run read it)
    os.utime(kept, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    report = export(home, vault)
    assert report.total("skipped") >= 1 or report.total("unchanged") >= 1
    text = vault_text(vault)
    assert TOKEN not in text and PASSWORD not in text
    assert ("one more thing" if changed == "parent" else "and one more check") in text


def test_a_relatives_note_is_read_as_the_vault_is_never_through_a_link(tmp_path):
    """Whether a relative's note holds a redaction is read as every read of the vault is:
    a note that is a link (to a file outside the vault) is not followed."""
    from types import SimpleNamespace

    from exporter.notespec import part_key
    from exporter.redact_family import PLACED_START, _note_holds

    vault = tmp_path / "vault"
    (vault / "AI Sessions").mkdir(parents=True)
    outside = tmp_path / "elsewhere.md"
    outside.write_text("token [REDACTED:github-pat]\n")
    (vault / "AI Sessions" / "linked.md").symlink_to(outside)
    (vault / "AI Sessions" / "plain.md").write_text("token [REDACTED:github-pat]\n")
    notes = {
        part_key("codex:a", 1): SimpleNamespace(path="AI Sessions/linked.md"),
        part_key("codex:b", 1): SimpleNamespace(path="AI Sessions/plain.md"),
    }
    fake = SimpleNamespace(root=vault, state=SimpleNamespace(notes=notes))
    assert _note_holds(fake, "codex:b", {PLACED_START})
    assert not _note_holds(fake, "codex:a", {PLACED_START})
