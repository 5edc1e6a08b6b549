"""Redaction in the pipeline: no byte ccexport writes or prints from a session holds a
secret, whatever the source and wherever the secret sat (prompt, title and so file name,
branch, tool input and output, thinking, index notes, state, conflict copies, diffs, JSON
and log output); and the setting and the rules re-render notes once, like a template.

The keys are generated from random characters at test time; none is real.
"""

from __future__ import annotations

import json
import random
import string
from collections import Counter
from datetime import UTC
from pathlib import Path

import pytest
from claude_builder import ClaudeSession, tool_use
from codex_builder import CodexRollout
from conftest import note_files, stamps
from copilot_builder import markdown, request, session, terminal_tool, write
from typer.testing import CliRunner

from exporter.adapters import ADAPTERS, FileStamp, LoadResult, SessionRef
from exporter.cli import app
from exporter.errors import Problem
from exporter.export import ExportOptions, ExportReport, run_export
from exporter.model import (
    AttachmentPart,
    CommandOutputPart,
    CommandPart,
    Message,
    NoticePart,
    Session,
    SummaryPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from exporter.notefile import END_PREFIX
from exporter.redact import redactor
from exporter.redact_outputs import redact_report
from exporter.state import State
from exporter.vault import Action, Change

SID = "5ec7e700-0000-4000-8000-000000000001"
_rng = random.Random(20261130)
_ALNUM = string.ascii_letters + string.digits


def _token(prefix: str, n: int) -> str:
    return prefix + "".join(_rng.choice(_ALNUM) for _ in range(n))


GITHUB = _token("gh" + "p_", 36)
ANTHROPIC = _token("sk-ant-" + "api03-", 93) + "AA"
AWS = "AK" + "IA" + "".join(_rng.choice(string.ascii_uppercase + "234567") for _ in range(16))
SLACK = "xo" + "xb-" + "1234567890123-1234567890123-" + _token("", 24)
DB_PASSWORD = _token("Pw", 14)
THINKING = _token("AI" + "za", 35)
OUTPUT = _token("npm" + "_", 36)
SECRETS = (GITHUB, ANTHROPIC, AWS, SLACK, DB_PASSWORD, THINKING, OUTPUT)


def claude_home(home: Path) -> Path:
    """One Claude Code session with a secret in every place a session can hold one."""
    s = ClaudeSession(SID, "/home/dev/work/shop", branch="main")
    s.user(f"push with {GITHUB} please")  # the first prompt: title, file name, index entry
    s.assistant([
        {"type": "thinking", "thinking": f"The key {THINKING} is in the config."},
        tool_use("Bash", {"command": f"ANTHROPIC_API_KEY={ANTHROPIC} ./deploy.sh",
                          "description": "Deploy", "password": DB_PASSWORD}, "t1"),
    ])  # fmt: skip
    s.tool_result("t1", f"aws_access_key_id = {AWS}\n//registry.npmjs.org/ {OUTPUT}\n")
    s.assistant(f"Posted to Slack with {SLACK}. Connection: postgres://app:{DB_PASSWORD}@db/x")
    return s.write(home / ".claude" / "projects" / "-home-dev-work-shop" / f"{SID}.jsonl")


def codex_home(home: Path) -> None:
    r = CodexRollout("019a0000-0000-7000-8000-00000000c0de", "/home/dev/work/api")
    r.user(f"use {GITHUB} for the release")
    r.reasoning(f"Token {THINKING} found")
    r.shell(["bash", "-lc", f"echo {ANTHROPIC}"], f"{AWS}\n")
    r.assistant(f"Done; {SLACK} rotated")
    r.write(home / ".codex")


def copilot_home(home: Path) -> None:
    user = home / ".config" / "Code" / "User"
    response = [
        markdown(f"Your key {ANTHROPIC} works."),
        terminal_tool("call_1", f"curl -u ci:{DB_PASSWORD} https://ci", f"ok {AWS}"),
    ]
    data = session(
        "c0de0000-0000-4000-8000-000000000002", [request(0, f"deploy {GITHUB}", response)]
    )
    write(user / "workspaceStorage" / "ws" / "chatSessions" / "c0de.json", data)
    write(user / "workspaceStorage" / "ws" / "workspace.json", {"folder": "file:///w/api"})


def every_file(vault: Path) -> dict[str, str]:
    """Every file in the vault, state and conflict copies included, with its path."""
    return {
        p.relative_to(vault).as_posix(): p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(vault.rglob("*"))
        if p.is_file() and p.name != "lock"
    }


def assert_no_secret(texts: dict[str, str] | str, secrets=SECRETS) -> None:
    for where, text in texts.items() if isinstance(texts, dict) else [("output", texts)]:
        for secret in secrets:
            assert secret not in where, f"a secret in the path {where}"
            assert secret not in text, f"a secret in {where}"


def export(vault: Path, home: Path, **kw) -> ExportReport:
    return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, **kw))


def test_every_place_in_a_claude_note_and_the_vault_is_redacted(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    claude_home(home)
    report = export(vault, home, workers=1)
    files = every_file(vault)
    assert_no_secret(files)
    (name,) = [p for p in files if p.startswith("AI Sessions/claude-code/")]
    assert "REDACTED" in name and "github-pat" in name  # the title is the file name
    note = files[name]
    assert "title: push with [REDACTED:github-pat] please" in note  # frontmatter and aliases
    for rule in ("anthropic-api-key", "google-api-key", "aws-access-key", "npm-token",
                 "slack-token", "uri-credentials", "generic-password"):  # fmt: skip
        assert f"[REDACTED:{rule}]" in note, rule
    index = files["AI Sessions/Projects/shop.md"]
    assert "REDACTED" in index and "push with" in index
    assert State.load(vault).notes[f"claude-code:{SID}"].meta["title"] == (
        "push with [REDACTED:github-pat] please"
    )
    assert report.redactions == {
        "github-pat": 1, "anthropic-api-key": 1, "google-api-key": 1, "aws-access-key": 1,
        "npm-token": 1, "slack-token": 1, "uri-credentials": 1, "generic-password": 1,
    }  # fmt: skip


@pytest.mark.parametrize("build", [codex_home, copilot_home], ids=["codex", "copilot"])
def test_other_sources_are_redacted_the_same_way(tmp_path, build):
    home, vault = tmp_path / "home", tmp_path / "vault"
    build(home)
    report = export(vault, home)
    assert report.total("created") == 1 and not report.failed
    files = every_file(vault)
    assert_no_secret(files)
    assert sum(report.redactions.values()) >= 4
    assert any("[REDACTED:github-pat]" in text for text in files.values())


def test_parallel_workers_only_ever_receive_redacted_sessions(tmp_path, monkeypatch):
    from exporter import workers

    seen: list[str] = []
    original = workers.render_job

    def spy(job, *args, **kwargs):
        seen.append(repr(job.session))
        return original(job, *args, **kwargs)

    monkeypatch.setattr(workers, "render_job", spy)
    home = tmp_path / "home"
    claude_home(home)
    export(tmp_path / "vault", home, workers=1)
    assert seen and all(secret not in text for text in seen for secret in SECRETS)


def test_a_rerun_is_a_no_op_and_counts_nothing(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    claude_home(home)
    export(vault, home)
    before, times = note_files(vault, index=True), stamps(vault)
    again = export(vault, home)
    assert again.total("skipped") == 1 and again.redactions == {}
    assert note_files(vault, index=True) == before and stamps(vault) == times


def test_no_redact_writes_secrets_and_turning_it_on_rewrites_the_notes_once(tmp_path):
    """Notes written without redaction (by --no-redact, or by a version before redaction
    existed) are rewritten redacted by the first run with it on; the next run is a no-op."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    claude_home(home)
    export(vault, home, redact=False)
    assert GITHUB in "".join(every_file(vault).values())  # --no-redact: written as they are
    (old,) = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    with old.open("a") as f:
        f.write("a line of my own\n")
    report = export(vault, home)
    assert report.total("updated") == 1 and report.redactions["github-pat"] == 1
    # the note whose file name held the token moved to the redacted name, with the user's text
    assert_no_secret(every_file(vault))
    (new,) = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    assert not old.exists() and "a line of my own" in new.read_text()
    assert [p.message for p in report.problems if p.path == new.relative_to(vault).as_posix()]
    times = stamps(vault)
    assert export(vault, home).total("skipped") == 1 and stamps(vault) == times


def test_changing_the_rules_rerenders_once(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    claude_home(home)
    export(vault, home)
    from exporter.redact_rules import Rule

    shop = (Rule("shop-word", ("shop",), r"\bshop\b"),)
    changed = export(vault, home, redact_extra=shop)
    assert changed.total("updated") == 1 and changed.redactions["shop-word"] >= 1
    assert export(vault, home, redact_extra=shop).total("skipped") == 1


def test_conflict_copies_and_dry_run_diffs_never_quote_an_old_secret(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    claude_home(home)
    export(vault, home, redact=False)
    (path,) = (vault / "AI Sessions" / "claude-code").rglob("*.md")
    text = path.read_text()
    path.write_text(text.replace(END_PREFIX, "my own line inside the region\n" + END_PREFIX, 1))
    dry = export(vault, home, dry_run=True, diff=True)
    diffs = "\n".join(c.diff for c in dry.changes)
    assert "-" in diffs and "REDACTED" in diffs
    assert_no_secret(diffs)
    report = export(vault, home)
    assert report.total("conflicts") == 1
    (copy,) = (vault / "AI Sessions" / "Conflicts").iterdir()
    saved = copy.read_text()
    assert "my own line inside the region" in saved
    assert_no_secret(saved)


def test_problems_and_changes_are_redacted_before_they_are_reported():
    report = ExportReport(
        problems=[Problem(f"/x/{GITHUB}.jsonl", f"bad line: {{'k': '{AWS}'}}", 3)],
        changes=[Change(Action.CONFLICT, "k", f"a/{GITHUB}.md", f"saved {SLACK}", f"-{OUTPUT}")],
    )
    redact_report(report, redactor())
    assert_no_secret(json.dumps(report.as_dict()) + repr(report.changes))
    assert report.problems[0].line == 3


runner = CliRunner()


def test_cli_json_verbose_and_log_never_print_a_secret(tmp_path):
    home, vault, log = tmp_path / "home", tmp_path / "vault", tmp_path / "run.log"
    claude_home(home)
    result = runner.invoke(app, ["--vault", str(vault), "--home", str(home), "--json",
                                 "--verbose", "--log-file", str(log)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert_no_secret(result.output + result.stderr + log.read_text())
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["redactions"]["github-pat"] == 1
    dry = runner.invoke(app, ["--vault", str(tmp_path / "v2"), "--home", str(home),
                              "--dry-run", "--diff"])  # fmt: skip
    assert dry.exit_code == 0 and "REDACTED" in dry.output
    assert_no_secret(dry.output)


def test_the_no_redact_flag_and_the_setting(tmp_path):
    home = tmp_path / "home"
    claude_home(home)
    off = runner.invoke(app, ["--vault", str(tmp_path / "a"), "--home", str(home), "--no-redact"])
    assert off.exit_code == 0 and GITHUB in "".join(every_file(tmp_path / "a").values())
    vault = tmp_path / "b"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "config.toml").write_text("redact = false\n")
    assert runner.invoke(app, ["--vault", str(vault), "--home", str(home)]).exit_code == 0
    assert GITHUB in "".join(every_file(vault).values())


def test_extra_patterns_and_allowed_strings_from_the_config(tmp_path):
    home, vault = tmp_path / "home", tmp_path / "vault"
    claude_home(home)
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "config.toml").write_text(
        "[redact]\n"
        'extra = [{id = "deploy-script", pattern = "deploy\\\\.sh", keywords = ["deploy"]}]\n'
        f'allow = ["{AWS}"]\n'
    )
    result = runner.invoke(app, ["--vault", str(vault), "--home", str(home), "--json"])
    assert result.exit_code == 0, result.output
    redactions = json.loads(result.stdout.strip().splitlines()[-1])["redactions"]
    assert redactions["deploy-script"] == 1 and "aws-access-key" not in redactions
    text = "".join(every_file(vault).values())
    assert AWS in text and "deploy.sh" not in text and "[REDACTED:deploy-script]" in text


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ('[redact]\nextra = [{id = "x", pattern = "(?=lookahead)"}]\n', "redact.extra[0].pattern"),
        ('[redact]\nextra = [{id = "x", pattern = "(unclosed"}]\n', "redact.extra[0].pattern"),
        ('[redact]\nextra = [{id = "Bad Id", pattern = "a"}]\n', "redact.extra[0].id"),
        ("[redact]\nallow = 3\n", "redact.allow"),
        ('redact = "no"\n', "'redact'"),
    ],
)
def test_a_bad_redaction_setting_is_a_config_error_naming_the_key(tmp_path, config, named):
    vault = tmp_path / "vault"
    (vault / ".ccexport").mkdir(parents=True)
    (vault / ".ccexport" / "config.toml").write_text(config)
    result = runner.invoke(app, ["--vault", str(vault), "--home", str(tmp_path)])
    assert result.exit_code == 2
    assert named in result.output + result.stderr


def _session_with_a_secret_everywhere(source: str, path: Path) -> Session:
    """Every text field of the model holds a secret: what any adapter can hand over."""
    from datetime import datetime

    at = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    parts_user = (TextPart(f"deploy with {GITHUB}"), CommandPart(f"/login {SLACK}"),
                  AttachmentPart("image/png", b"\x89PNG", name=f"{AWS}.png"),
                  AttachmentPart("text/plain", f"GITHUB_TOKEN={GITHUB}\n".encode(), "a.env"),
                  AttachmentPart("application/json", json.dumps({"key": ANTHROPIC}).encode()))  # fmt: skip
    parts_assistant = (
        ThinkingPart(f"the key is {THINKING}"),
        TextPart(f"Using {ANTHROPIC}"),
        ToolCallPart("Bash", {"command": f"echo {OUTPUT}", "password": DB_PASSWORD}, "c1",
                     description=f"print {AWS}"),
        ToolResultPart(f"{AWS}\n", "c1"),
        CommandOutputPart(f"token {SLACK}"),
        SummaryPart(f"Earlier: {GITHUB}", trigger=f"auto {AWS}"),
        NoticePart("error", f"rate limited for {ANTHROPIC}"),
    )  # fmt: skip
    return Session(
        source, "5ec7e700-0000-4000-8000-0000000000ff",
        (Message("user", parts_user, timestamp=at),
         Message("assistant", parts_assistant, timestamp=at, model=f"gpt-5 {OUTPUT}")),
        path, title=f"fix {GITHUB}", project=f"shop-{AWS}", cwd=f"/w/shop-{AWS}",
        git_branch=f"fix/{SLACK}", git_remote=f"https://ci:{DB_PASSWORD}@git.example/shop.git",
        git_commit=f"{AWS}", models=(f"claude {SLACK}",),
        agent_label=f"agent {OUTPUT}", started_at=at, ended_at=at, extra={"api_key": THINKING},
    )  # fmt: skip


@pytest.mark.parametrize("source", [cls.name for cls in ADAPTERS])
def test_every_source_and_every_field_of_the_model(tmp_path, monkeypatch, source):
    """Redaction works on the model every adapter produces, so a source is covered by
    handing the pipeline a session under its name with a secret in every field."""
    from exporter import export as export_module
    from exporter import sources

    unit = tmp_path / "unit.jsonl"
    unit.write_text("{}\n")

    class Fake:
        name, label = source, source

        def roots(self, ctx):
            return [tmp_path]

        def discover(self, ctx):
            yield SessionRef(source, "one", FileStamp.of(unit))

        def load(self, ref):
            return LoadResult([_session_with_a_secret_everywhere(source, unit)])

    monkeypatch.setattr(sources, "select_adapters", lambda names: [Fake()])
    monkeypatch.setattr(export_module, "unreadable_in_sources", lambda options: [], raising=False)
    vault = tmp_path / "vault"
    report = export(vault, tmp_path)
    assert report.total("created") == 1, report.problems
    files = every_file(vault)
    assert_no_secret(files)
    assert any(f"/{source}/" in path for path in files)
    assert report.redactions["github-pat"] >= 3  # text, summary, title


def test_a_text_file_attached_to_a_message_is_redacted_and_an_image_is_not_touched():
    """A text file (source code, a log, JSON) is session text: its secrets are replaced as
    in any prompt. An image's pixels (bytes that are no PNG's chunks here: only its text
    metadata is read, test_redact_media), and bytes that are not UTF-8, are kept as they are."""
    r = redactor()
    counts: Counter[str] = Counter()
    source = f"const token = process.env.T || '{GITHUB}';\n".encode()
    message = Message("user", (
        AttachmentPart("text/x-typescript; charset=utf-8", source, "app.ts"),
        AttachmentPart("application/vnd.api+json", f'{{"k": "{SLACK}"}}'.encode()),
        AttachmentPart("image/png", b"\x89PNG" + GITHUB.encode()),
        AttachmentPart("text/plain", b"\xff\xfe" + GITHUB.encode()),
    ))  # fmt: skip
    code, api, image, latin = r.message(message, counts, "claude-code").parts
    assert code.data == b"const token = process.env.T || '[REDACTED:github-pat]';\n"
    assert code.name == "app.ts" and code.media_type.startswith("text/x-typescript")
    assert SLACK.encode() not in api.data and b"[REDACTED:" in api.data
    assert image is message.parts[2]  # an image's pixels: not text, not scanned
    assert latin is message.parts[3]  # not UTF-8: not text after all
    assert counts["github-pat"] == 1 and sum(counts.values()) == 2
    clean = Message("user", (AttachmentPart("text/plain", b"no secret here\n"),))
    assert r.message(clean, counts, "claude-code") is clean


def test_a_text_attachment_is_written_as_a_text_file(tmp_path):
    from exporter.turns import _attachment_item

    written: list = []
    text = _attachment_item(AttachmentPart("text/plain", b"x = 1\n", "a.py"), "att", written)
    image = _attachment_item(AttachmentPart("image/png", b"\x89PNG"), "att", written)
    other = _attachment_item(AttachmentPart("application/zip", b"PK\x03\x04\0\0"), "att", written)
    assert text["path"].endswith(".txt") and image["path"].endswith(".png")
    assert other["path"].endswith(".bin")


@pytest.mark.parametrize(
    "wrapper",
    ["<system-reminder>Keep going.</system-reminder>", "<ide_selection>a = 1</ide_selection>",
     "<command-message>deploy</command-message>"],
)  # fmt: skip
def test_a_secret_the_harness_split_is_redacted_where_the_note_joins_it(tmp_path, wrapper):
    """The note takes what the harness injected out of a prompt, joining the text around
    it: a token split by a reminder was whole in the title, the file name, the index and
    the state, though each half alone was no secret (from the safety audit)."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    s = ClaudeSession(SID, "/home/dev/work/shop")
    s.user(f"token {GITHUB[:19]}{wrapper}{GITHUB[19:]} end")
    s.assistant("Pushed.")
    s.write(home / ".claude" / "projects" / "-home-dev-work-shop" / f"{SID}.jsonl")
    report = export(vault, home, workers=1)
    files = every_file(vault)
    assert_no_secret(files, [GITHUB])
    (name,) = [p for p in files if p.startswith("AI Sessions/claude-code/")]
    assert "title: token [REDACTED:github-pat] end" in files[name]
    assert report.redactions == {"github-pat": 1}


def test_a_prompt_the_harness_did_not_split_a_secret_in_keeps_its_injected_parts(tmp_path):
    """Only a prompt whose cleaning joins a secret is cleaned before the note: any other
    keeps its wrappers for the note to read (a slash command stays a command)."""
    from exporter.model import Message, TextPart

    text = "<command-name>/deploy</command-name>\n<command-args>prod</command-args>"
    prompt = Message("user", (TextPart(text),))
    assert redactor().message(prompt, None, "claude-code") is prompt
