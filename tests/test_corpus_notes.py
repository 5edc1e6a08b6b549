"""The corpus notes show what happened, search finds it, and nothing in them is live.

The Claude Code and Codex files of ../shared/corpus are exported through the real pipeline;
their sessions are loaded again through the adapters to know what each note must show.
Four measures (printed with ``-s``, quoted in the README):

- tool-output lines lost: sampled lines of every tool output are in its note, in order
  (an output above the truncation limit is sampled in the head and tail it keeps);
- identifiers searchable: snake_case and dunder names, paths, globs, flags and tool names
  from the session appear verbatim in the raw note text (Obsidian's search reads it);
- live constructs: the notes, read by CommonMark with Obsidian's rules, hold only the
  template's own constructs;
- titles: every title reads back as the same string in YAML 1.1 and YAML 1.2.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from datetime import UTC
from pathlib import Path

import pytest
import yaml
from conftest import CORPUS, load_sessions, note_files
from corpus_home import build_codex_home, build_corpus_home
from obsidian_check import constructs
from ruamel.yaml import YAML

from exporter.adapters import ClaudeCodeAdapter, CodexAdapter
from exporter.clean import strip_control
from exporter.export import ExportOptions, run_export
from exporter.model import Session, TextPart, ThinkingPart, ToolCallPart, ToolResultPart
from exporter.notefile import parse
from exporter.notenames import session_title
from exporter.notes import has_conversation
from exporter.redact import redactor
from exporter.turns import MAX_TOOL_OUTPUT, clean_parts

pytestmark = pytest.mark.corpus

SAMPLES_PER_OUTPUT = 12
# A run of reminders at the very end of a tool result is what Claude Code appends.
_TRAILING_REMINDERS = re.compile(r"(?:\s*<system-reminder>.*?</system-reminder>)+\s*\Z", re.S)
_TRAILING_AGENT = re.compile(r"\n?agentId: [\w-]+ \(for resuming[^\n]*\)\s*\Z")
# Words a person searches for: identifiers, paths, globs, flags.
_IDENTIFIERS = re.compile(
    r"(?<![\w/.*-])(?:"
    r"_{0,2}[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+_{0,2}(?:\.[A-Za-z]{1,5})?"  # snake, dunder
    r"|__[A-Za-z0-9]+__(?:\.[A-Za-z]{1,5})?"
    r"|(?:[\w.-]+/)+[\w.-]*\w"  # paths
    r"|\*\*?/[\w*./-]*\w|\*\.[A-Za-z0-9]{1,6}"  # globs
    r"|--[a-z][a-z0-9-]*[a-z0-9]"  # flags
    r")(?![\w*/-])"
)
_ALLOWED_CALLOUTS = {"info", "example", "failure", "quote", "abstract", "summary", "note"}
_ALLOWED_CALLOUTS |= {"warning"}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """(sessions by note identity, note text by identity, vault stems): one export."""
    corpus = CORPUS
    if not (corpus / "claude-code").is_dir():
        pytest.skip(f"the shared corpus is not beside this checkout ({corpus}); CI provides it")
    home = tmp_path_factory.mktemp("home")
    build_corpus_home(corpus, home)
    build_codex_home(corpus, home)
    vault = tmp_path_factory.mktemp("vault")
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC))
    assert not report.failed, [str(p) for p in report.problems if p.severity == "error"]
    sessions: dict[tuple[str, str], Session] = {}
    secrets = redactor()  # the pipeline redacts before a note is built; so does the check
    for adapter in (ClaudeCodeAdapter(), CodexAdapter()):
        found, _problems = load_sessions(adapter, home)
        for session in found:
            if has_conversation(session):
                key = (session.source, session.session_id)
                sessions.setdefault(key, secrets.session(session))
    notes: dict[tuple[str, str], list[str]] = {}
    for _relpath, data in sorted(note_files(vault).items()):
        text = data.decode()
        meta = parse(text).metadata
        notes.setdefault((meta.get("source"), str(meta.get("session_id"))), []).append(text)
    stems = {Path(relpath).stem for relpath in note_files(vault, index=True)}
    return sessions, notes, stems


def _results_to_check(session: Session) -> list[str]:
    """Tool outputs shown verbatim: every result except a subagent's report (prose)."""
    prose_calls = {
        p.call_id
        for m in session.messages
        for p in m.parts
        if isinstance(p, ToolCallPart) and (p.subagent_id or p.name in ("Task", "Agent"))
    }
    return [
        p.output
        for m in session.messages
        for p in m.parts
        if isinstance(p, ToolResultPart) and p.call_id not in prose_calls and p.output
    ]


def _sampled_lines(output: str) -> list[str]:
    text = _TRAILING_AGENT.sub("", _TRAILING_REMINDERS.sub("", strip_control(output)))
    text = text.strip("\n")
    if len(text) > MAX_TOOL_OUTPUT:  # only the head and tail are kept
        half = MAX_TOOL_OUTPUT // 2
        text = (
            text[: half - 1000].rsplit("\n", 1)[0] + "\n" + text[-half + 1000 :].split("\n", 1)[-1]
        )
    lines = [line.rstrip() for line in text.split("\n") if line.strip()]
    step = max(1, len(lines) // SAMPLES_PER_OUTPUT)
    return lines[::step]


def _unquoted(note: str) -> str:
    """A note's text with one callout level taken off each line (outputs sit in one)."""
    return re.sub(r"(?m)^> ?", "", note)


def test_no_sampled_tool_output_line_is_lost(exported):
    sessions, notes, _ = exported
    sampled = lost = 0
    examples = []
    for key, session in sessions.items():
        note = _unquoted("\n".join(notes.get(key, [])))
        for output in _results_to_check(session):
            pos = 0
            for line in _sampled_lines(output):
                sampled += 1
                found = note.find(line, pos)
                if found < 0:
                    lost += 1
                    examples.append((key[1][:12], line[:80]))
                else:
                    pos = found + len(line)
    print(f"\ntool-output lines sampled: {sampled}, lost: {lost}")
    assert sampled > 5000
    assert lost == 0, examples[:10]


def _searchable_texts(session: Session) -> list[str]:
    texts: list[str] = []
    for message in session.messages:
        for part in clean_parts(message, session.source):
            if isinstance(part, TextPart | ThinkingPart):
                texts.append(part.text)
            elif isinstance(part, ToolCallPart):
                texts.append(part.name)
                if part.description:
                    texts.append(part.description)
                if isinstance(part.input, dict):
                    texts.extend(v for v in part.input.values() if isinstance(v, str))
    return texts


def test_identifiers_are_searchable_verbatim(exported):
    sessions, notes, _ = exported
    total = found = 0
    missing: Counter[str] = Counter()
    for key, session in sessions.items():
        if key not in notes:
            continue
        note = "\n".join(notes[key])
        tokens = {t for text in _searchable_texts(session) for t in _IDENTIFIERS.findall(text)}
        tokens |= {p.name for m in session.messages for p in m.parts if isinstance(p, ToolCallPart)}
        for token in tokens:
            total += 1
            if token in note:
                found += 1
            else:
                missing[token] += 1
    share = found / total
    print(f"\nidentifier tokens (note, token) pairs: {total}, verbatim in the note: {share:.2%}")
    assert total > 2000
    assert share >= 0.995, missing.most_common(20)


def test_no_construct_in_any_note_comes_from_session_text(exported):
    sessions, notes, stems = exported
    live: list[tuple[str, str, str]] = []
    checked = 0
    for key, texts in notes.items():
        for note in texts:
            owned = parse(note).owned
            if owned is None:
                continue
            checked += 1
            turn_headings = len(re.findall(r"(?m)^### (?:User|Assistant|Parent agent)\b", owned))
            heads = Counter()
            for c in constructs(owned):
                if c.kind == "heading":
                    heads[c.detail] += 1
                elif c.kind == "callout" and c.detail[2:].split("]")[0] in _ALLOWED_CALLOUTS:
                    continue
                elif c.kind == "wikilink" and _our_link(c.detail, stems):
                    continue
                else:
                    live.append((key[1][:12], c.kind, c.detail[:60]))
            if heads["h1"] != 1 or heads["h2"] or heads["h3"] != turn_headings:
                live.append((key[1][:12], "heading", str(dict(heads))))
    print(f"\nnotes checked: {checked}, live constructs from session text: {len(live)}")
    assert checked > 40
    assert live == []


def _our_link(detail: str, stems: set[str]) -> bool:
    """A wikilink the template wrote: to another exported note, or an attachment."""
    target = detail.lstrip("!").removeprefix("[[").split("|")[0].split("]")[0]
    return target in stems or target.startswith("attachments/ccexport/")


def test_every_title_round_trips_through_yaml_1_1_and_1_2(exported):
    sessions, notes, _ = exported
    checked = 0
    bad = []
    for key, session in sessions.items():
        if key not in notes:
            continue
        head = notes[key][0].split("\n---\n", 1)[0].removeprefix("---\n")
        expected = session_title(session)
        for value in (
            yaml.safe_load(head)["title"],
            YAML(typ="safe", pure=True).load(io.StringIO(head))["title"],
        ):
            if value != expected:
                bad.append((key[1][:12], expected, value))
        checked += 1
    print(f"\ntitles checked: {checked}, not round-tripping: {len(bad)}")
    assert checked > 40
    assert bad == []
