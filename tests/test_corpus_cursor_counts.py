"""The real Cursor agent transcript (corpus ``cursor-session-simple.jsonl``: 1 prompt, 10
replies, 10 ``[REDACTED]`` marks where Cursor kept no thinking: alone on lines 3-8 and 10,
at the end of the text on lines 2, 9 and 11) reads with what it holds: ``messages: 11``
(ccexport's own remark on what the transcript keeps not is no message), and the remark
counts every mark (review33 §1 and §3 on real data; the review counted 8, missing the
trailing marks of lines 9 and 11)."""

from __future__ import annotations

import pytest
from conftest import CORPUS, note_files
from test_corpus_cursor import REAL_TRANSCRIPT, export_home, place

from exporter import notefile

pytestmark = pytest.mark.corpus


@pytest.fixture
def real_transcript():
    if not (CORPUS / REAL_TRANSCRIPT).is_file():
        pytest.skip(f"the real Cursor transcript is not in the shared corpus ({CORPUS})")
    return REAL_TRANSCRIPT


def test_the_real_transcript_counts_its_messages_and_its_redaction_marks(real_transcript, tmp_path):
    place(CORPUS, str(real_transcript), tmp_path / "home")
    export_home(tmp_path / "home", tmp_path / "v")
    (text,) = (b.decode() for b in note_files(tmp_path / "v").values())
    assert notefile.parse(text).metadata["messages"] == 11
    marks = (CORPUS / real_transcript).read_text(encoding="utf-8").count("[REDACTED]")
    assert marks == 10  # (the file as the corpus holds it)
    assert "its redaction mark stands in its place 10 times" in text
