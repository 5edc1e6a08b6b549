"""A secret of a session learned after a run wrote something of it (by the spread pass: the
value was bare prose when its note was first named; or by rules an earlier run did not
apply: ``--no-redact``, an older engine) leaves no trace once it is known: the note's file
name, its aliases, the links to it (index notes, a parent's, a subagent's in a unit of its
own), an index note named by its project, a folder named by it, the state's records and
facts, conflict copies, a dry run's diff and what the run prints.

Every secret is generated at test time; none is real.
"""

from __future__ import annotations

import json
import random
import string
from datetime import UTC
from pathlib import Path

from claude_builder import ClaudeSession, tool_use
from codex_builder import CodexRollout
from conftest import note_files, stamps

from exporter.export import ExportOptions, ExportReport, run_export
from exporter.notefile import END_PREFIX

_RNG = random.Random(2727)
TOKEN = "".join(_RNG.choices(string.ascii_letters + string.digits, k=24))  # a spread secret
PASSWORD = "".join(_RNG.choices(string.ascii_letters + string.digits, k=20))
PAT = "ghp_" + "".join(_RNG.choices(string.ascii_letters + string.digits, k=36))  # a rule's
SECRETS = (TOKEN, PASSWORD, PAT)
SID = "c27c27c2-7b3d-4e5f-9a8b-1c2d3e4f5a03"
PROJECTS = ".claude/projects/-home-dev-work-shop"


def export(vault: Path, home: Path, **kw) -> ExportReport:
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, **kw))


def every_file(vault: Path) -> dict[str, str]:
    """Every file and folder in the vault (state and conflict copies too), with its text."""
    return {
        p.relative_to(vault).as_posix(): (
            p.read_text(encoding="utf-8", errors="replace") if p.is_file() else ""
        )
        for p in sorted(vault.rglob("*"))
        if p.name != "lock"
    }


def printed(report: ExportReport) -> str:
    """What a run prints, logs or sends as JSON of its problems and changes."""
    return "\n".join(
        [f"{p.path} {p.message}" for p in report.problems]
        + [f"{c.relpath} {c.message} {c.diff}" for c in (*report.changes, *report.indexes)]
    )


def assert_no_secret(texts: dict[str, str] | str) -> None:
    for where, text in texts.items() if isinstance(texts, dict) else [("output", texts)]:
        for secret in SECRETS:
            assert secret not in where, f"a secret in the path {where}"
            assert secret not in text, f"a secret in {where}"


def bare_then_named(home: Path, stage: int) -> None:
    """A session whose first prompt (its title, so its file name) holds a value no rule
    finds there; a later message names it (``api_token: …``)."""
    s = ClaudeSession(SID, "/home/dev/work/shop", start="2026-11-22T09:00:00Z")
    s.user(f"deploy with {TOKEN} please")
    s.assistant("Which service?")
    if stage >= 2:
        s.user(f"the api. config.yaml has api_token: {TOKEN}")
        s.assistant("Deploying.")
    s.write(home / PROJECTS / f"{SID}.jsonl")


def test_a_secret_learned_later_leaves_the_notes_name_aliases_links_and_state(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    bare_then_named(home, 1)
    export(vault, home)
    (first,) = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    assert TOKEN in first.name  # (no rule could know it yet)
    with first.open("a") as f:
        f.write("a line of my own\n")
    bare_then_named(home, 2)
    report = export(vault, home, diff=True)
    assert_no_secret(every_file(vault))
    assert_no_secret(printed(report))
    (note,) = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    text = note.read_text()
    assert not first.exists() and "a line of my own" in text
    assert "- deploy with [REDACTED:generic-secret] please" in text  # (its alias, redacted)
    where = note.relative_to(vault).as_posix()
    assert any(p.path == where and "renamed" in p.message for p in report.problems)
    assert f"[[{note.stem}|" in (vault / "AI Sessions" / "Projects" / "shop.md").read_text()
    times = stamps(vault)
    assert export(vault, home).total("skipped") == 1 and stamps(vault) == times


def test_a_dry_run_moves_nothing_and_prints_no_secret(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    bare_then_named(home, 1)
    export(vault, home)
    before = every_file(vault)
    bare_then_named(home, 2)
    report = export(vault, home, dry_run=True, diff=True)
    assert every_file(vault) == before
    assert_no_secret(printed(report))
    assert any("would be renamed" in p.message for p in report.problems)


def family(home: Path) -> None:
    """A session naming two secrets once each, a subagent (in the session's folder) and a
    second session in a project folder named by a token."""
    folder = home / PROJECTS
    s = ClaudeSession(SID, "/home/dev/work/shop", branch=f"fix/rotate-{PASSWORD}")
    s.user(f"My .env has DB_PASSWORD={PASSWORD} and config.yaml has api_token: {TOKEN}")
    task = {"description": f"Rotate {TOKEN}", "prompt": f"Rotate the key {TOKEN}",
            "subagent_type": "general-purpose"}  # fmt: skip
    s.assistant([tool_use("Task", task, "toolu_t1")])
    s.tool_result("toolu_t1", [{"type": "text", "text": "Rotated."},
                               {"type": "text", "text": "agentId: b27b27b (for resuming)"}],
                  rich={"status": "completed", "agentId": "b27b27b"})  # fmt: skip
    s.meta("custom-title", customTitle=f"Rotate {TOKEN} now", sessionId=SID)
    s.write(folder / f"{SID}.jsonl")
    agent = ClaudeSession(SID, "/home/dev/work/shop", sidechain=True, agent_id="b27b27b")
    agent.user(f"Rotate the key {TOKEN}", parent=None)
    agent.assistant(f"Done: the old key {TOKEN} is revoked.")
    agent.write(folder / SID / "subagents" / "agent-b27b27b.jsonl")
    (folder / SID / "subagents" / "agent-b27b27b.meta.json").write_text(
        json.dumps(
            {
                "toolUseId": "toolu_t1",
                "agentType": "general-purpose",
                "description": f"Rotate {TOKEN}",
            }
        )  # fmt: skip
    )
    other = "b27a27a2-7b3d-4e5f-9a8b-1c2d3e4f5a02"
    s2 = ClaudeSession(other, f"/home/dev/work/{PAT}", start="2026-11-21T09:00:00Z")
    s2.user("why does the build fail?")
    s2.assistant("A missing file.")
    s2.write(home / ".claude/projects/-home-dev-work-x" / f"{other}.jsonl")


def test_notes_written_without_redaction_are_repaired_family_index_and_folder(tmp_path):
    """After ``--no-redact`` (or an engine before the spread pass), the first run with
    redaction leaves no secret anywhere: the subagent's name and the links between the
    two, the index note of the project named by a token (one note, rewritten, under its
    new key), and the folder the token named (ccexport's, emptied)."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    family(home)
    export(vault, home, redact=False)
    assert any(PAT in path for path in every_file(vault))  # (its folder and index note)
    report = export(vault, home)
    files = every_file(vault)
    assert_no_secret(files)
    assert_no_secret(printed(report))
    projects = sorted(p for p in files if p.startswith("AI Sessions/Projects/"))
    assert projects == [
        "AI Sessions/Projects/-REDACTED -github-pat-.md",
        "AI Sessions/Projects/shop.md",
    ]  # (no second note beside the old one)
    index = files["AI Sessions/Projects/-REDACTED -github-pat-.md"]
    assert "sessions: 1" in index and "ccexport_index: project/[REDACTED:github-pat]" in index
    state = json.loads(files[".ccexport/state.json"])
    assert "index:project/[REDACTED:github-pat]" in json.dumps(state)
    # parent and subagent link each other under their new names
    notes = note_files(vault)
    stems = {Path(p).stem for p in notes}
    parent = next(t for p, t in notes.items() if "agent" not in p and "shop" in p).decode()
    child = next(t for p, t in notes.items() if "· agent" in p).decode()
    linked = [line.split("[[")[1].split("|")[0].split("]]")[0]
              for line in (parent + child).splitlines() if "[[" in line]  # fmt: skip
    assert linked and all(stem in stems for stem in linked if "agent" in stem or "Rotate" in stem)
    times = stamps(vault)
    assert export(vault, home).total("skipped") == 3 and stamps(vault) == times


def test_a_folder_named_by_a_secret_with_a_file_of_the_persons_stays(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    family(home)
    export(vault, home, redact=False)
    (folder,) = [p for p in (vault / "AI Sessions" / "claude-code").iterdir() if PAT in p.name]
    (folder / "my notes.md").write_text("mine\n")
    export(vault, home)
    assert (folder / "my notes.md").read_text() == "mine\n"
    assert not [p for p in folder.iterdir() if p.name != "my notes.md"]


def test_conflict_copies_a_dry_runs_diff_and_warnings_quote_no_learned_secret(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    family(home)
    export(vault, home, redact=False)
    (path,) = [p for p in (vault / "AI Sessions" / "claude-code" / "shop").iterdir()
               if "agent" not in p.name]  # fmt: skip
    text = path.read_text()
    path.write_text(text.replace(END_PREFIX, "my line inside the region\n" + END_PREFIX, 1))
    dry = export(vault, home, dry_run=True, diff=True)
    assert "REDACTED" in "".join(c.diff for c in dry.changes)
    assert_no_secret(printed(dry))
    report = export(vault, home)
    assert report.total("conflicts") == 1
    assert_no_secret(printed(report))
    (copy,) = (vault / "AI Sessions" / "Conflicts").iterdir()
    assert "my line inside the region" in copy.read_text()
    assert_no_secret({copy.name: copy.read_text()})


P = "019a2b3c-4d5e-7f60-8a1b-27272727aaaa"
A = "019a2b3c-6000-7f60-8a1b-27272727bbbb"


def codex_home(home: Path, stage: int, thread_name: str | None = None) -> None:
    """A Codex session whose first prompt holds a bare value (named ``API_TOKEN=`` from
    stage 2 on), with a subagent in a rollout of its own that links it as its parent, and
    a thread name (``session_index.jsonl``) holding the value."""
    codex = home / ".codex"
    r = CodexRollout(P, "/home/dev/work/api", start="2026-03-10T08:00:00Z")
    r.user(f"deploy {TOKEN} to staging")
    r.spawn_agent("Check the staging logs", {"agent_id": A}, spawned=A)
    r.assistant("Spawned.")
    if stage >= 2:
        r.user(f"set API_TOKEN={TOKEN} in the env first")
        r.assistant("Done.")
    r.write(codex)
    a = CodexRollout(A, "/home/dev/work/api", start="2026-03-10T08:02:00Z",
                     source={"subagent": {"thread_spawn": {"parent_thread_id": P, "depth": 1}}})  # fmt: skip
    a.user("Check the staging logs", events=False)
    a.assistant("They are clean.")
    a.write(codex)
    name = thread_name or f"Deploy {TOKEN}"
    entry = {"id": P, "thread_name": name, "updated_at": "2026-03-10T08:05:00Z"}
    (codex / "session_index.jsonl").write_text(json.dumps(entry) + "\n")


def test_a_subagent_in_a_unit_of_its_own_links_its_parent_under_its_new_name(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    codex_home(home, 1)
    export(vault, home)
    assert any(TOKEN in p for p in every_file(vault))
    codex_home(home, 2)
    report = export(vault, home)
    files = every_file(vault)
    assert_no_secret(files)
    assert_no_secret(printed(report))
    (child,) = [p for p in files if "· agent" in p]
    (parent,) = [p for p in files if p.endswith(".md") and "codex/" in p and p != child]
    assert f"[[{Path(parent).stem}]]" in files[child] or f"[[{Path(parent).stem}|" in files[child]


def test_an_index_title_holding_a_secret_is_kept_redacted_and_the_unit_skipped(tmp_path):
    """The state records a unit's facts (a Codex thread name) without the secret its
    session named, and the next run still skips the unit unread."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    codex_home(home, 2)
    export(vault, home)
    state = (vault / ".ccexport" / "state.json").read_text()
    assert TOKEN not in state and "title=Deploy [REDACTED:generic-secret]" in state
    times = stamps(vault)
    again = export(vault, home)
    assert again.total("skipped") == 2 and stamps(vault) == times
    codex_home(home, 2, thread_name="Deploy the staging-server-02 build")  # a new name
    renamed = export(vault, home)
    assert renamed.total("updated") >= 1
    assert any("Deploy the staging-server-02 build" in t for t in every_file(vault).values())


def test_doctor_finds_a_name_and_alias_its_redacted_title_says_still_hold_a_secret(tmp_path):
    """A note an older version retitled redacted but left named by the value (its source
    gone since, so no run renames it): doctor names it, without the value."""
    from exporter.redact import redactor
    from exporter.vault_secrets import scan_vault

    home, vault = tmp_path / "home", tmp_path / "vault"
    bare_then_named(home, 1)
    export(vault, home)
    (note,) = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    old = f"deploy with {TOKEN} please"
    new = "deploy with [REDACTED:generic-secret] please"
    text = note.read_text()
    assert f"title: {old}\n" in text and f"- {old}\n" in text
    note.write_text(text.replace(f"title: {old}\n", f"title: {new}\n").replace(
        f"- {old}\n", f"- {old}\n- {new}\n"))  # fmt: skip
    (home / PROJECTS / f"{SID}.jsonl").unlink()
    (found,) = scan_vault(vault, redactor()).files
    assert found.ours == {"generic-secret": 1} and TOKEN not in found.path
    note = note.rename(note.with_name(note.name.replace(TOKEN, "-REDACTED -generic-secret-")))
    state = vault / ".ccexport" / "state.json"
    state.write_text(state.read_text().replace(TOKEN, "-REDACTED -generic-secret-"))
    text = note.read_text()
    note.write_text(text.replace(f"- {old}\n", ""))  # (renamed, its alias taken out)
    assert scan_vault(vault, redactor()).files == []


def test_a_session_is_rendered_without_the_secrets_it_carries(tmp_path, monkeypatch):
    """The secrets travel with a session to where its note is placed and written, not to
    the processes that render notes."""
    from exporter import workers
    from exporter.session_secrets import secrets_of

    carried: list[object] = []
    original = workers.render_job

    def spy(job, *args, **kwargs):
        carried.append(secrets_of(job.session))
        return original(job, *args, **kwargs)

    monkeypatch.setattr(workers, "render_job", spy)
    home, vault = tmp_path / "home", tmp_path / "vault"
    family(home)
    export(vault, home, workers=1)
    assert carried and not any(carried)


def test_a_note_the_person_moved_is_renamed_where_it_is_and_its_old_place_forgotten(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    bare_then_named(home, 1)
    export(vault, home)
    (note,) = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    (vault / "Archive").mkdir()
    moved = note.rename(vault / "Archive" / note.name)
    export(vault, home)  # (found where the person put it: the state remembers where it was)
    assert TOKEN in (vault / ".ccexport" / "state.json").read_text()
    bare_then_named(home, 2)
    export(vault, home)
    assert_no_secret(every_file(vault))
    assert not moved.exists() and len(list((vault / "Archive").iterdir())) == 1


def test_every_part_of_a_long_note_is_moved_off_the_name(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"

    def long_session(stage: int) -> None:
        s = ClaudeSession(SID, "/home/dev/work/shop", start="2026-11-22T09:00:00Z")
        s.user(f"deploy with {TOKEN} please")
        for n in range(12):
            s.assistant(f"Step {n}: " + "a line of the deploy log. " * 40)
            s.user(f"next {n}")
        if stage >= 2:
            s.user(f"the api. config.yaml has api_token: {TOKEN}")
            s.assistant("Deploying.")
        s.write(home / PROJECTS / f"{SID}.jsonl")

    long_session(1)
    export(vault, home, note_max_bytes=4000)
    assert len([p for p in every_file(vault) if TOKEN in p]) > 2  # (a folder of parts)
    long_session(2)
    report = export(vault, home, note_max_bytes=4000)
    assert_no_secret(every_file(vault))
    assert_no_secret(printed(report))


def half_repaired(tmp_path: Path, own_line: str = "") -> tuple[Path, Path, Path]:
    """(home, vault, the older index note): a vault an older version repaired half. It moved
    the index note of a project named by a token off its name, unchanged (``own_line``
    added to it, as the person's), and wrote the project's index note as now named beside
    it (`` (2)``)."""
    home, done, vault = tmp_path / "home", tmp_path / "done", tmp_path / "vault"
    family(home)
    export(done, home, redact=False)
    export(done, home)
    export(vault, home, redact=False)
    projects = vault / "AI Sessions" / "Projects"
    (stale,) = [p for p in projects.iterdir() if PAT in p.name]
    kept = stale.rename(projects / "-REDACTED -github-pat-.md")
    if own_line:
        with kept.open("a") as f:
            f.write(own_line)
    state = vault / ".ccexport" / "state.json"
    old = f"AI Sessions/Projects/{stale.name}"
    state.write_text(
        state.read_text().replace(old, "AI Sessions/Projects/-REDACTED -github-pat-.md")
    )
    own = done / "AI Sessions" / "Projects" / "-REDACTED -github-pat-.md"
    (projects / "-REDACTED -github-pat- (2).md").write_bytes(own.read_bytes())
    return home, vault, kept


def test_an_older_index_note_beside_the_projects_own_is_removed_when_all_ccexports(tmp_path):
    """The older index note of a half-repaired vault, holding nothing of the person's,
    goes."""
    home, vault, _ = half_repaired(tmp_path)
    projects = vault / "AI Sessions" / "Projects"
    report = export(vault, home)
    files = every_file(vault)
    assert_no_secret(files)
    assert_no_secret(printed(report))
    assert sorted(p.name for p in projects.iterdir()) == [
        "-REDACTED -github-pat- (2).md",
        "shop.md",
    ]
    assert any(p.message.startswith("removed:") for p in report.problems)


def test_an_older_index_note_with_the_persons_text_stays(tmp_path):
    home, vault, kept = half_repaired(tmp_path, own_line="my own line\n")
    export(vault, home)
    assert "my own line" in kept.read_text()


def test_a_render_key_is_made_without_the_secrets_a_session_carries():
    """The key is kept in the state: the same whether a worker (which read the session,
    and holds its secrets) or the main process (which hands it over without) made it."""
    from message_builder import msg, session

    from exporter.model import TextPart
    from exporter.renderkey import render_key
    from exporter.session_secrets import with_secrets, without_secrets
    from exporter.workers import RenderJob

    plain = session(msg("user", TextPart("deploy it")), session_id="p")
    carrying = with_secrets(plain, {TOKEN: "generic-secret"})
    assert carrying != plain and without_secrets(carrying) == plain
    keys = [render_key(RenderJob("unit", s, "a.md", {})) for s in (plain, carrying)]
    assert keys[0] is not None and keys[0] == keys[1]


def test_a_note_renamed_for_the_rules_and_then_its_sessions_secret_is_said_once(tmp_path):
    """After ``--no-redact``, the run's start moves a note off a name the rules find a
    secret in; placing its session moves it on, off one only the session named: one
    warning, naming where it went."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    s = ClaudeSession(SID, "/home/dev/work/shop", start="2026-11-22T09:00:00Z")
    key_id = "AKIA" + "".join(_RNG.choices(string.ascii_uppercase + string.digits, k=16))
    s.user(f"use {key_id} with {TOKEN}")  # (both in the file name: not cut)
    s.assistant("Which one?")
    s.user(f"the config has api_token: {TOKEN}")
    s.assistant("Done.")
    s.write(home / PROJECTS / f"{SID}.jsonl")
    export(vault, home, redact=False)
    report = export(vault, home)
    assert_no_secret(every_file(vault))
    said = [p.path for p in report.problems if p.message.startswith("renamed:")]
    (note,) = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    assert said == [note.relative_to(vault).as_posix()]


def test_a_note_rendered_ahead_in_a_worker_is_rendered_without_the_secrets_too(tmp_path):
    """With enough sessions to read, workers read, redact and render them ahead: there the
    session carried its secrets into the render (a template of the person's that prints
    ``session.extra`` in full showed them)."""
    from exporter import workers

    home, vault, mine = tmp_path / "home", tmp_path / "vault", tmp_path / "mine"
    for n in range(workers.PARALLEL_FROM + 6):
        s = ClaudeSession(f"c27c27c2-7b3d-4e5f-9a8b-{n:012d}", "/home/dev/work/shop")
        s.user(f"the api. config.yaml has api_token: {TOKEN}")
        s.assistant(f"Deploying {n}.")
        s.write(home / PROJECTS / f"{s.session_id}.jsonl")
    mine.mkdir()
    (mine / "session.md.j2").write_text(
        "# {{ title }}\n{% for key, value in session.extra.items() %}"
        "{{ key }}: {{ value.found if value.found is defined else value }}\n{% endfor %}"
    )
    report = export(vault, home, templates=mine, workers=2)
    assert not report.failed, report.problems[:3]
    assert_no_secret(every_file(vault))
