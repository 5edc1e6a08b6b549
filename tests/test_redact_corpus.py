"""False positives, measured on the real sessions in ../shared/corpus: every text in it
(each file, and each text value of its databases) and every note exported from it.

Each hit is listed here with why it is right to redact it; anything else redacted fails
the test. Ids, git SHAs, hashes and base64 blobs in the corpus all stay as they were.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from datetime import UTC
from pathlib import Path

import pytest
from corpus_home import build_codex_home, build_corpus_home

from exporter.export import ExportOptions, run_export
from exporter.notefile import END
from exporter.redact import redactor

pytestmark = pytest.mark.corpus
PLACEHOLDER = re.compile(r"\[REDACTED:([\w-]+)\]")
_END_HASH = re.compile(r"%% ccexport:end [0-9a-f]+ %%")
# What each expected hit removes: its file, rule, how often, and the shape of what went.
EXPECTED = {
    # A Mixpanel project token (32 hex) and a PostHog project key (phc_…) pasted into
    # aider's analytics code: real keys of a real project, if only client-side ones.
    ("aider/Aider-AI__aider__chat-history.md", "generic-secret"): (16, r"[0-9a-f]{32}|phc_\w+"),
    # The password in Postgres URLs of a local setup: a credential by form; the rest of
    # each URL stays. (RabbitMQ's default, amqp://guest:guest@…, is no secret: it stays.)
    (
        "codex/bumpy-croc__ai-trading-bot__rollout-2025-10-14T22-34-26-"
        "0199e4a5-5b78-78f2-b041-6b876f71fdab.jsonl",
        "uri-credentials",
    ): (2, r"dev_password_\d+"),
    # The key Cursor encrypts the paths it sends for indexing with ("pathEncryptionKey":
    # "…"), found since camelCase names are: a key by its name and form.
    ("cursor/slevin48__cursor-history__state.vscdb", "generic-secret"): (1, r"[\w-]{43}"),
}
_KEPT = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"  # UUIDs
    r"|\b[0-9a-f]{40}\b|\b[0-9a-f]{64}\b"  # git SHAs, SHA-256
    r"|[A-Za-z0-9+/]{200,}={0,2}"  # base64 blobs (images, encrypted reasoning)
)


def corpus_texts(corpus: Path):
    """(file, text) for every file of the corpus and every text value of its databases."""
    for path in sorted(corpus.rglob("*")):
        if not path.is_file() or "LICENSES" in path.parts or path.suffix in (".tsv",):
            continue
        name = path.relative_to(corpus).as_posix()
        if path.suffix in (".vscdb", ".db", ".sqlite"):
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                tables = [r[0] for r in con.execute("select name from sqlite_master")]
                for table in tables:
                    try:
                        rows = con.execute(f'select * from "{table}"').fetchall()
                    except sqlite3.Error:
                        continue
                    for row in rows:
                        for value in row:
                            if isinstance(value, bytes):
                                value = value.decode("utf-8", "replace")
                            if isinstance(value, str):
                                yield name, value
            finally:
                con.close()
        elif name != "PROVENANCE.md":
            yield name, path.read_text(encoding="utf-8", errors="replace")


def removed(original: str, redacted: str) -> list[tuple[str, str]]:
    """(rule, text it replaced) for each placeholder in ``redacted``."""
    pieces = PLACEHOLDER.split(redacted)
    kept, rules = pieces[0::2], pieces[1::2]
    assert original.startswith(kept[0])
    pos, out = len(kept[0]), []
    for rule, after in zip(rules, kept[1:], strict=True):
        end = original.index(after, pos) if after else len(original)
        out.append((rule, original[pos:end]))
        pos = end + len(after)
    return out


def test_every_hit_in_the_corpus_is_expected_and_ids_hashes_blobs_stay(corpus):
    rules = redactor()
    found: Counter[tuple[str, str]] = Counter()
    for name, text in corpus_texts(corpus):
        redacted = rules.text(text)
        if redacted == text:
            continue
        gone = removed(text, redacted)
        for rule, secret in gone:
            count, shape = EXPECTED.get((name, rule), (0, "(?!)"))
            assert re.fullmatch(shape, secret), f"{name}: {rule} took {secret[:6]}…"
            found[name, rule] += 1
        secrets = {secret for _, secret in gone}
        lost = [m for m in _KEPT.findall(text) if m not in redacted and m not in secrets]
        assert lost == [], f"{name}: {lost[:3]}"
    assert dict(found) == {key: count for key, (count, _) in EXPECTED.items()}


def test_notes_exported_from_the_corpus_differ_only_by_the_expected_hits(corpus, tmp_path):
    home = tmp_path / "home"
    build_corpus_home(corpus, home)
    build_codex_home(corpus, home)
    on = run_export(ExportOptions(vault=tmp_path / "on", home=home, timezone=UTC))
    off = run_export(ExportOptions(vault=tmp_path / "off", home=home, timezone=UTC, redact=False))
    assert on.redactions == {"uri-credentials": 2} and off.redactions == {}
    notes_on = {p.relative_to(tmp_path / "on"): p for p in (tmp_path / "on").rglob("*.md")}
    notes_off = {p.relative_to(tmp_path / "off"): p for p in (tmp_path / "off").rglob("*.md")}
    assert notes_on.keys() == notes_off.keys()  # no title (so no file name) held a secret
    gone = Counter()
    for relpath, path in notes_on.items():
        # the end marker carries a hash of the region, which differs where a secret went
        text_on, text_off = (_END_HASH.sub(END, p.read_text()) for p in (path, notes_off[relpath]))
        for rule, secret in removed(text_off, text_on):
            assert rule == "uri-credentials" and re.fullmatch(r"dev_password_\d+", secret)
            gone[rule] += 1
    assert gone == {"uri-credentials": 2}
