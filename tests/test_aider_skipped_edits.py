"""Edits Aider did not make: ``Skipping edits to X`` (the person said no to Aider's question
to create X or to edit it outside the chat; X matches .gitignore), ``Did not apply edit to
X (--dry-run)`` and ``Unable to create X, skipping edits.`` Each is an ``edit`` of X of
its own, one that did not run (or failed), never a line of another file's edit (review23
F6), and none puts X among the note's files."""

from __future__ import annotations

from datetime import UTC

from aider_builder import CORPUS_SMALL as SMALL
from aider_builder import AiderLog, corpus_home
from test_aider_adapter import load, outputs, utc_clock  # noqa: F401 (Aider writes local time: tests pin the zone)
from test_aider_failures import calls_and_results

from exporter.export import ExportOptions, run_export
from exporter.stats import edited_files, error_count


def edits(session) -> list[tuple[str | None, str, str | None, bool]]:
    return [(c.input.get("path"), r.output, r.not_run, r.is_error)
            for c, r in calls_and_results(session)]  # fmt: skip


def test_edits_aider_skipped_are_each_their_own_edit_that_did_not_run(tmp_path):
    log = AiderLog().run("2026-06-09 14:01:00").prompt("add a retry to the webhook")
    log.reply("src/webhook.py\n```python\n<<<<<<< SEARCH\n=======\nretry()\n>>>>>>> REPLACE\n```")
    log.tokens("1.2k", "80", "0.01", "0.01")
    log.aider("", "src/retry.py", "Create new file? (Y)es/(N)o [Yes]: n",
              "Skipping edits to src/retry.py",
              "Skipping edits to .env that matches gitignore spec.",
              "Applied edit to src/webhook.py", "Commit 1234567 feat: retry the webhook",
              "Unable to create src/ro.py, skipping edits.")  # fmt: skip
    log.prompt("now try it dry").reply("Here it is.")
    log.aider("Did not apply edit to src/webhook.py (--dry-run)",
              "Did not apply edit to src/config.py (--dry-run)")  # fmt: skip
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    question = "src/retry.py\nCreate new file? (Y)es/(N)o [Yes]: n\n"
    assert edits(session) == [
        ("src/retry.py", question + "Skipping edits to src/retry.py", "rejected", False),
        (".env", "Skipping edits to .env that matches gitignore spec.", "denied", False),
        ("src/webhook.py",
         "Applied edit to src/webhook.py\nCommit 1234567 feat: retry the webhook", None, False),
        ("src/ro.py", "Unable to create src/ro.py, skipping edits.", None, True),
        ("src/webhook.py", "Did not apply edit to src/webhook.py (--dry-run)", "denied", False),
        ("src/config.py", "Did not apply edit to src/config.py (--dry-run)", "denied", False),
    ]  # fmt: skip
    assert [o for o in outputs(session) if "Skipping" in o or "Did not" in o] == [
        question + "Skipping edits to src/retry.py",
        "Skipping edits to .env that matches gitignore spec.",
        "Did not apply edit to src/webhook.py (--dry-run)",
        "Did not apply edit to src/config.py (--dry-run)",
    ]  # each its own: under no other file's edit
    assert edited_files(session) == ["src/webhook.py"] and error_count(session) == 1
    vault = tmp_path / "vault"
    run_export(ExportOptions(vault=vault, home=tmp_path / "home", timezone=UTC))
    (note,) = [p.read_text() for p in vault.rglob("*add a retry*.md")]
    assert "\nfiles:\n- src/webhook.py\n" in note
    assert "`edit` — `src/retry.py` (rejected by the user)" in note
    assert "`edit` — `src/config.py` (not permitted)" in note
    assert "`edit` — `src/ro.py` (error)" in note


def test_the_corpus_small_log_files_each_skipped_edit_under_its_own_file(corpus, tmp_path):
    """The agentsview log (trimmed) had its dry-run and skipped lines in the callout of
    ``edit — src/retry.py``, a file they do not concern."""
    sessions, _ = load(corpus_home(corpus, SMALL, tmp_path / "home", "myrepo"))
    first = min(sessions, key=lambda s: s.started_at)  # "add a retry to the webhook"
    assert edits(first) == [
        ("src/webhook.py", "Applied edit to src/webhook.py", None, False),
        ("src/webhook.py", "Applied edit to src/webhook.py", None, False),
        ("src/retry.py", "Creating empty file src/retry.py", None, False),
        ("src/skip.py", "Did not apply edit to src/skip.py (--dry-run)", "denied", False),
        ("src/other.py", "Skipping edits to src/other.py", "rejected", False),
    ]
    assert edited_files(first) == ["src/webhook.py", "src/retry.py"]


SPEED_UP = "<<<<<<< SEARCH\nslow()\n=======\nfast()\n>>>>>>> REPLACE"


def test_a_file_aider_left_out_of_the_chat_is_its_own_notice_not_an_edits_line(tmp_path):
    """``Skipping X that matches aiderignore spec.``: Aider's new Coder (after a ``/code``
    reply, switching back) leaves X out of the chat. It was read as a line of the edit
    before it; it is Aider's notice of its own about X, as ``Skipping edits to X`` is
    (not an edit: X is in no call, nor in files)."""
    log = AiderLog().run("2026-06-09 14:01:00").prompt("/code speed it up", " speed it up")
    log.reply(f"src/app.py\n```python\n{SPEED_UP}\n```")
    log.tokens("1.2k", "80", "0.01", "0.01")
    log.aider("Applied edit to src/app.py", "Commit 1234567 perf: speed it up",
              "Skipping notes/secret.md that matches aiderignore spec.",
              "Skipping .env that matches gitignore spec.")  # fmt: skip
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert edits(session) == [
        ("src/app.py", "Applied edit to src/app.py\nCommit 1234567 perf: speed it up", None, False),
    ]
    assert outputs(session) == [
        "Applied edit to src/app.py\nCommit 1234567 perf: speed it up",
        "Skipping notes/secret.md that matches aiderignore spec.",
        "Skipping .env that matches gitignore spec.",
    ]
    assert edited_files(session) == ["src/app.py"]
