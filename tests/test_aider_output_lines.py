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
