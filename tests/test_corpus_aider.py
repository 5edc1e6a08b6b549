"""The real Aider logs in ../shared/corpus/aider (the Aider author's own history of 1,133
runs, and a small synthetic one) export end to end: one note per run that holds a
conversation, every prompt and every reply findable in the notes. (How long the big one
takes is measured by hand and in the README, never by a timed test.)"""

from __future__ import annotations

import re
import shutil
from datetime import UTC

import pytest
from conftest import normalize, note_files

from exporter.adapters import SourceContext
from exporter.adapters.aider import AiderAdapter
from exporter.export import ExportOptions, run_export
from exporter.redact import redact_text

pytestmark = pytest.mark.corpus
BIG = "Aider-AI__aider__chat-history.md"
SMALL = "kenn-io__agentsview__testdata__aider__myrepo__.aider.chat.history.md"


@pytest.fixture
def home(corpus, tmp_path):
    home = tmp_path / "home"
    for repo, name in (("aider", BIG), ("myrepo", SMALL)):
        (home / "src" / repo).mkdir(parents=True)
        shutil.copyfile(corpus / "aider" / name, home / "src" / repo / ".aider.chat.history.md")
    return home


def test_every_run_with_a_prompt_is_a_session(home, corpus):
    adapter = AiderAdapter()
    refs = list(adapter.discover(SourceContext(home, {}, False)))
    sessions = [s for ref in refs for s in adapter.load(ref).sessions]
    raw = (corpus / "aider" / BIG).read_text(encoding="utf-8")
    runs = re.split(r"(?m)^# aider chat started at .*$", raw)
    with_prompt = [r for r in runs[1:] if re.search(r"(?m)^####", r)]
    big = [s for s in sessions if s.project == "aider"]
    assert len(big) == len(with_prompt) + 1  # + the prompt before the first header
    assert len({s.session_id for s in sessions}) == len(sessions)
    assert sum(1 for s in big if s.cost) > 300  # from the "> Tokens: … Cost: …" lines
    small = [s for s in sessions if s.project == "myrepo"]
    assert len(small) == 2  # the third run is empty


def test_the_logs_export_with_every_prompt_and_reply_findable(home, corpus, tmp_path):
    vault = tmp_path / "v"
    report = run_export(ExportOptions(vault=vault, home=home, sources=["aider"], timezone=UTC))
    assert not report.failed and report.problems == []
    notes = note_files(vault)
    assert len(notes) > 600
    everything = normalize("\n".join(b.decode() for b in notes.values()))
    prompts, replies = _prompts_and_replies((corpus / "aider" / BIG).read_text(encoding="utf-8"))
    # secrets typed into a prompt are in the note as [REDACTED:…] placeholders
    missing = [
        p[:80] for p in prompts if normalize(redact_text(p), escaped=False) not in everything
    ]
    assert len(prompts) > 800 and missing == []
    missing = [r[:80] for r in replies if normalize(redact_text(r)) not in everything]
    assert len(replies) > 600 and missing == []
    small = next(v.decode() for k, v in notes.items() if "/myrepo/" in k and "retry" in k)
    assert "Applied edit to src/webhook.py" in small and "Step 1" in small


def _prompts_and_replies(raw: str) -> tuple[list[str], list[str]]:
    """Plain prompts (not /commands) and the first paragraph of each reply, in the log."""
    prompts, replies, lines = [], [], raw.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("#### ") and not line[5:].lstrip().startswith(("/", "!")):
            if line[5:].strip() and not lines[i - 1].startswith("#### "):
                prompts.append(line[5:].rstrip())
        elif line and lines[i - 1] == "" and i > 1 and lines[i - 2].startswith("#### "):
            if not line.startswith((">", "#", "`", "<", "=")) and len(line) > 20:
                replies.append(line)
    return prompts, replies
