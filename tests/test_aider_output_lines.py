"""Aider's output lines kept as it printed them: a banner word (``https://aider.chat/…``,
``Warning: …``) after a reply is the reply's tool output, not a banner; the spaces of a
line of output are its own; a reply cut off inside one of Aider's tag fences is closed."""

from __future__ import annotations

from aider_builder import AiderLog
from test_aider_adapter import load, outputs, utc_clock  # noqa: F401 (Aider writes local time: tests pin the zone)

FAILED = (
    "The LLM did not conform to the edit format.",
    "https://aider.chat/docs/troubleshooting/edit-errors.html",
    "# 1 SEARCH/REPLACE block failed to match!",
)


EDIT = "app.py\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```"


def test_banner_words_after_a_reply_before_any_prompt_are_its_output(tmp_path):
    """Corpus run 2024-08-06 09:47:11: Aider fixed its linter's finding as it started, before
    anything was typed, and the failed edit's report lost its link to Aider's help and a
    warning, because they began with a banner word."""
    log = AiderLog().run("2024-08-06 09:47:11").aider("Attempt to fix lint errors? y")
    log.reply(EDIT).tokens("2,100", "40", "0.01", "0.01").aider(*FAILED, "Warning: stale")
    log.prompt("include the country too").reply("Done.")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert outputs(session) == ["\n".join(FAILED) + "\nWarning: stale"]


def notices_and_replies(session) -> list[str]:
    return [
        getattr(p, "text", None) or getattr(p, "notice", "")
        for m in session.messages
        if m.role in ("user", "assistant")
        for p in m.parts
        if p.kind in ("text", "notice")
    ]


def test_a_ctrl_c_that_cut_a_reply_off_is_said_after_that_reply(tmp_path):
    """Aider reports the Ctrl-C as it comes and logs the reply it cut off afterwards
    (corpus line 2267): the note said the prompt was interrupted, then showed a reply."""
    log = AiderLog().run("2024-08-06 10:00:00").prompt("use GitTemporaryDirectory")
    log.aider("", "", "^C again to exit")
    log.reply("Certainly! I'll make the changes:\n\n<<<<<<< SEARCH\n    with Ignorant")
    log.prompt("try again").reply("Done.").tokens("1,000", "10", "0.01", "0.01")
    log.write(tmp_path / "home" / "src" / "r")
    (session,), _ = load(tmp_path / "home")
    assert notices_and_replies(session) == [
        "use GitTemporaryDirectory",
        "Certainly! I'll make the changes:\n\n<<<<<<< SEARCH\n    with Ignorant",
        "interrupted",
        "try again",
        "Done.",
    ]


def test_a_ctrl_c_at_aiders_prompt_after_a_finished_turn_quits_and_is_no_interruption(tmp_path):
    """Corpus lines 81862-81871: usage line, edit applied, commit, then Ctrl-C twice to
    leave Aider; 173 of 564 notes ended "Interrupted by the user". A prompt left without
    an answer, and a reply cut off before its usage line, were interrupted."""
    log = AiderLog().run("2024-08-19 10:00:00").prompt("catch the error").reply("Done.")
    log.tokens("8,023", "191", "0.03", "0.03")
    log.aider("Applied edit to main.py", "Commit 69e471f fix: catch it", "^C again to exit")
    log.aider("^C KeyboardInterrupt")
    log.run("2024-08-19 11:00:00").prompt("explain it").reply("It is").aider("^C KeyboardInterrupt")
    log.run("2024-08-19 12:00:00").prompt("and this?").aider("^C again to exit")
    log.write(tmp_path / "home" / "src" / "r")
    (quit_, cut, unanswered), _ = load(tmp_path / "home")
    assert notices_and_replies(quit_) == ["catch the error", "Done."]
    assert notices_and_replies(cut) == ["explain it", "It is", "interrupted"]
    assert notices_and_replies(unanswered) == ["and this?", "interrupted"]
