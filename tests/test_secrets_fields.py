"""Secrets in every field of the model, at any place in its text, never reach a note: the
property below plants a token in one field of a session (its prose, tool calls, outputs,
properties, attachments) between random text, redacts the session and renders its note.

The tokens are generated at test time from random characters (``test_redact.SAMPLES``);
none is real.
"""

from __future__ import annotations

import codecs
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_redact import SAMPLES, Gen

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
from exporter.notes import NoteSettings, build_note, default_relpath
from exporter.redact import redactor
from exporter.redact_parts import WITHHELD

AT = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
# Rules whose sample is the token alone: planted as it is.
TOKENS = [
    SAMPLES[rule](Gen(n))[1]
    for n, rule in enumerate(("github-pat", "anthropic-api-key", "aws-access-key", "slack-token",
                              "stripe-key", "npm-token", "google-api-key", "gitlab-pat"))
]  # fmt: skip
# What may stand right before or after a token: a separator, a JSON or URL escape, nothing
# at the very start or end of the text.
BEFORE = ["", " ", "\n", "\\n", "\\t", "%3D", "\\u003c", '"', "'", "`", "(", "[", "=", ":", "é"]
AFTER = ["", " ", "\n", "\\n", '"', "'", "`", ")", "]", ",", ";", "é", "%26", "/"]


def _session(plant: str, where: str) -> Session:
    """A session with ``plant`` in the one field named ``where`` and plain text elsewhere."""

    def put(name: str, default: str = "plain") -> str:
        return plant if where == name else default

    call = {"command": put("input value"), "options": [{put("input key", "k"): 1}]}
    user = (TextPart(put("prompt")), CommandPart(put("command")),
            AttachmentPart("application/octet-stream", put("file", "x = 1").encode(),
                           name=put("file name")))  # fmt: skip
    assistant = (
        ThinkingPart(put("thinking")),
        ToolCallPart(put("tool name", "Bash"), call, "c1", description=put("description")),
        ToolResultPart(put("tool output"), "c1"),
        CommandOutputPart(put("command output")),
        SummaryPart(put("summary"), trigger=put("trigger", "auto")),
        NoticePart("error", put("notice")),
    )
    messages = (Message("user", user, timestamp=AT),
                Message("assistant", assistant, timestamp=AT, model=put("message model", "m")))  # fmt: skip
    return Session(
        "claude-code", "5ec7e700-0000-4000-8000-0000000000aa", messages, Path("s.jsonl"),
        title=put("title", "t"), project=put("project", "p"), cwd=put("cwd", "/w/p"),
        git_branch=put("branch", "main"), git_commit=put("commit", "0" * 40),
        git_remote=put("remote", "https://git.example/p.git"), models=(put("models", "m"),),
        agent_label=put("agent label", "a"), started_at=AT, ended_at=AT,
        extra={"plan": put("extra", "p")},
    )  # fmt: skip


FIELDS = ["prompt", "command", "file", "file name", "thinking", "tool name", "input value",
          "input key", "description", "tool output", "command output", "summary", "trigger",
          "notice", "message model", "title", "project", "cwd", "branch", "commit", "remote",
          "models", "agent label", "extra"]  # fmt: skip


def _written(session: Session) -> str:
    """Everything a note of ``session`` puts in the vault: its path, frontmatter, body and
    attachments."""
    settings_ = NoteSettings(timezone=UTC)
    relpath = default_relpath(session, settings_, None)
    note = build_note(session, relpath, settings_, lambda key: None)
    files = b"".join(a.data for a in note.attachments).decode("utf-8", "replace")
    return "\n".join([relpath, repr(note.frontmatter), repr(note.seeded), note.body, files])


@settings(max_examples=500, deadline=None)
@given(
    token=st.sampled_from(TOKENS),
    where=st.sampled_from(FIELDS),
    before=st.text(max_size=30),
    after=st.text(max_size=30),
    left=st.sampled_from(BEFORE),
    right=st.sampled_from(AFTER),
    split=st.sampled_from(["", "", "\x1b[m", "\x1b[01;31m\x1b[K", "\x00", "\x08", "\x7f"]),
    at=st.integers(1, 12),
)
# Found by the property: ESC \ (a terminal's string terminator) took the backslash of the
# literal "\n" after it when rendered, and glued "n" to the token joined across ESC [m.
@example(token="ghp_2Yw4aCQ9gfZ6y1T9eWl56NgISIwGnzQ6itzm", where="prompt", before="\x1b",
         after="", left="\\n", right="", split="\x1b[m", at=1)  # fmt: skip
# And an empty terminal string (ESC X, then ESC \ ending it) took that backslash too: the
# rendered note glued "n" to the token the rules' pass had seen after "\n" (secrets4).
@example(token="ghp_2Yw4aCQ9gfZ6y1T9eWl56NgISIwGnzQ6itzm", where="prompt", before="\x1bX\x1b",
         after="", left="\\n", right="", split="\x1b[m", at=1)  # fmt: skip
def test_a_token_anywhere_in_any_field_never_reaches_the_note(
    token, where, before, after, left, right, split, at
):
    # Random text, then a separator, on each side; or the token at the very start or end.
    head = before + (left or " ") if before else left
    tail = (right or " ") + after if after else right
    # A terminal code or control character inside the token goes when the note is rendered.
    planted = token[:at] + split + token[at:]
    session = _session(head + planted + tail, where)
    clean = redactor().session(session, Counter())
    assert token not in _written(clean)


def test_a_terminal_code_ending_with_an_escapes_backslash_leaves_no_token_glued_on():
    """A code whose last character is a backslash (a string's ``ESC \\``, a CSI's final
    ``\\``) before ``n``, ``t``, ``r`` or ``u``: the note shows that letter glued to the token
    the code split; read with the backslash kept, the token is found after its escape."""
    token = TOKENS[0]
    for code in ("\x1bX\x1b\\", "\x1b]0;title\x1b\\", "\x1bP\x1b\\", "\x1b[\\"):
        for escape in ("n", "t", "r", "u003c"):
            text = f"out {code}{escape}{token[:3]}\x1b[m{token[3:]} done"
            out = redactor().text(text)
            assert token not in out and "[REDACTED:github-pat]" in out, repr(text)
    for plain in ("a \x1bX\x1b\\nothing here \x1b[m", "x \x1b]0;t\x1b\\n y"):  # no token
        assert redactor().text(plain) is plain


def test_model_names_the_commit_and_the_compaction_trigger_are_redacted():
    token = TOKENS[0]
    counts: Counter[str] = Counter()
    for where in ("models", "message model", "commit", "trigger"):
        clean = redactor().session(_session(f"x {token}", where), counts)
        assert token not in repr(clean), where
    assert counts == {"github-pat": 4}


def test_a_session_without_secrets_comes_back_as_the_same_object():
    session = _session("plain", "prompt")
    assert redactor().session(session) is session


def test_a_text_file_of_no_declared_type_or_not_in_utf8_is_redacted():
    """A ``.env`` attached without a type (sources say ``application/octet-stream``), a
    Latin-1 ``.properties`` file, a UTF-16 file (PowerShell's redirection): text, redacted,
    and otherwise byte for byte as it was. A file that is not text (bytes with NULs, a PDF)
    cannot be redacted without breaking it: holding a secret, it is not copied, and the note
    says why; so is an image that shows one outside its text metadata (which is left out,
    test_redact_media), as here where no PNG chunk can be read (test_redact_binary)."""
    token = TOKENS[2]
    env = f"AWS_KEY={token}\n".encode()
    latin = f"name=M\u00fcller\nkey={token}\n".encode("latin-1")
    utf16 = codecs.BOM_UTF16_LE + f"key={token}\r\n".encode("utf-16-le")
    binary = b"\x00\x01" + token.encode()
    parts = (
        AttachmentPart("application/octet-stream", env, ".env"),
        AttachmentPart("text/x-java-properties", latin),
        AttachmentPart("text/plain", utf16),
        AttachmentPart("application/octet-stream", binary),
        AttachmentPart("image/png", b"\x89PNG\r\n\x1a\n" + token.encode()),
        AttachmentPart("application/pdf", b"%PDF-1.4 " + token.encode()),
    )
    counts: Counter[str] = Counter()
    out = redactor().message(Message("user", parts), counts, "claude-code").parts
    assert out[0].data == b"AWS_KEY=[REDACTED:aws-access-key]\n" and out[0].is_text
    assert out[1].data == "name=M\u00fcller\nkey=[REDACTED:aws-access-key]\n".encode("latin-1")
    assert out[2].data == codecs.BOM_UTF16_LE + "key=[REDACTED:aws-access-key]\r\n".encode(
        "utf-16-le"
    )
    for withheld, part in ((out[3], parts[3]), (out[4], parts[4]), (out[5], parts[5])):
        assert withheld.data is None and withheld.media_type == part.media_type
        assert withheld.withheld == WITHHELD and withheld.name is None
    assert counts == {"aws-access-key": 6}
    # The note says it was attached and why it is not in the vault.
    note = _written(redactor().session(_session("x\0" + token, "file"), Counter()))
    assert token not in note
    assert f"*Attached `plain`, not copied into the vault: {WITHHELD}.*" in note
    kept = AttachmentPart("application/zip", b"PK\x03\x04\x00no secret")
    assert redactor().message(Message("user", (kept,)), Counter(), "claude-code").parts[0] is kept


def test_a_file_that_only_looks_like_utf16_is_still_redacted():
    """A byte order mark, then an odd number of bytes: not UTF-16 after all. It was copied
    as it was, secret and all; it is read as Latin-1 (every byte a character) instead."""
    token = TOKENS[2]
    line = f"key={token}\n" if len(token) % 2 == 0 else f"key={token} \n"
    odd = codecs.BOM_UTF16_LE + line.encode()
    assert len(odd) % 2 == 1
    part = AttachmentPart("text/plain", odd)
    (out,) = redactor().message(Message("user", (part,)), Counter(), "claude-code").parts
    assert (
        out.data == codecs.BOM_UTF16_LE + line.replace(token, "[REDACTED:aws-access-key]").encode()
    )


def test_a_redacted_session_renders_like_one_written_without_the_secret():
    """Redaction replaces the token and nothing else: the note is the note of a session
    whose field held the placeholder from the start."""
    token = TOKENS[0]
    for where in ("models", "trigger", "commit", "message model"):
        clean = redactor().session(_session(f"v {token}", where))
        plain = _session("v [REDACTED:github-pat]", where)
        assert _written(clean) == _written(plain)


def test_a_withheld_attachment_reads_the_same_from_the_template_and_its_python_twin(
    monkeypatch,
):
    clean = redactor().session(_session("x\0" + TOKENS[0], "file"), Counter())
    fast = _written(clean)
    monkeypatch.setenv("CCEXPORT_REFERENCE_RENDER", "1")  # the Jinja template itself
    assert _written(clean) == fast and f"not copied into the vault: {WITHHELD}" in fast
