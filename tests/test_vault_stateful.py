"""A person's months with ccexport, as a hypothesis state machine.

Sessions are added and grow (Claude Code appends lines), nightly runs export them, and in
between the person works in the vault: text below a note's end marker, properties and tags
typed as Obsidian's Properties UI writes them, a note renamed or moved to another folder (or
onto the name a moved or deleted note had), a note renamed in Obsidian (which rewrites every
link to it, the index notes' too), a note deleted, a line edited inside the generated part,
line ends turned into CRLF by a sync tool (an index note's too). After every run: nothing the
person wrote is lost (their text in the note, or an edit of the generated part in the
conflict copy the run named), a conflict copy is only made of a note the person edited
inside, their keys and tags are there, no note mixes LF and CRLF line ends (the person's
edits here write LF, a sync tool CRLF), no session has two notes, a deleted note
stays deleted (unless ``--restore``), every other session's note is up to date, the run
reported no error, and a second run right after changes no byte and no modification time.

``CCEXPORT_STATEFUL_EXAMPLES=300`` (and ``CCEXPORT_STATEFUL_STEPS=30``) run more than CI does;
``CCEXPORT_NO_SHRINK=1`` reports a failure unshrunk (a 30-step shrink can take minutes).
It found that a second conflict copy of a note saved in the same second replaced the
first (``tests/test_conflict_copies.py`` holds that case alone).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from datetime import UTC
from pathlib import Path

import yaml
from claude_builder import ClaudeSession
from hypothesis import HealthCheck, Phase, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from exporter import workers
from exporter.export import ExportOptions, ExportReport, run_export

BEGIN = "%% ccexport:begin"
END = re.compile(r"^%% ccexport:end [0-9a-f]+ %%$")
# What each run writes for itself, not a note: the lock (README: keep it out of sync).
RUN_FILES = {".ccexport/lock", ".ccexport/running"}
SAVED_TO = re.compile(r"was saved to (AI Sessions/Conflicts/.+)$")

# Words a session holds: Markdown-ish characters, snake_case, links, tags, fences, markers.
SESSION_WORDS = [
    "parser",
    "snake_case_name",
    "__init__",
    "[[Other note]]",
    "[[",
    "]]",
    "#tag",
    "#nested/tag",
    "**bold**",
    "_under_",
    "`code`",
    "$x^2$",
    "==mark==",
    "~~gone~~",
    "%%",
    "<div>",
    "a | b",
    "> quote",
    "- item",
    "1. first",
    "---",
    "```",
    "^block",
    "![[pic.png]]",
    "é ü 中文",
]
# Words the person writes: the same; inside the generated part, no Obsidian comment (``%%``
# there could be read as a marker of ours).
INSIDE_WORDS = [w for w in SESSION_WORDS if w != "%%"]
VALUES = ["yes", "01234", "10:30", "1.10", "NO", "some words", '"[[My note]]"', "'quoted'", "on"]
PROJECTS = ["/home/dev/work/app", "/home/dev/work/lib.rs"]
FOLDERS = ["Archive", "Archive/2026", "AI Sessions/mine", "Inbox/read later"]

session_text = st.lists(st.sampled_from(SESSION_WORDS), min_size=1, max_size=6).map(" ".join)
person_text = st.lists(st.sampled_from(SESSION_WORDS), max_size=4).map(" ".join)
inside_text = st.lists(st.sampled_from(INSIDE_WORDS), max_size=4).map(" ".join)


def sid_of(n: int) -> str:
    return f"{n + 0xA0:08x}-1111-4111-8111-{n:012x}"


def frontmatter_of(text: str) -> tuple[str, int] | None:
    """The YAML between the note's ``---`` lines, and where the closing line starts."""
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---\n", 3)
    return (text[4 : end + 1], end + 1) if end >= 0 else None


def identity(text: str) -> tuple[str, str] | None:
    found = frontmatter_of(text)
    if found is None:
        return None
    try:
        meta = yaml.safe_load(found[0])
    except yaml.YAMLError:
        return None
    if not isinstance(meta, dict) or "session_id" not in meta:
        return None
    return str(meta.get("source")), str(meta["session_id"])


def end_line(lines: list[str]) -> int:
    return next(i for i, line in enumerate(lines) if END.match(line))


class PersonsMonths(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="ccexport-stateful-"))
        self.home, self.vault = self.root / "home", self.root / "vault"
        self.sessions: dict[str, ClaudeSession] = {}
        self.turns: dict[str, int] = {}
        self.noted: set[str] = set()  # sessions a run has written a note for, not deleted
        self.deleted: set[str] = set()
        self.below: dict[str, str] = {}  # a line written below the end marker -> session
        self.inside: dict[str, str] = {}  # a line written inside the generated part -> session
        self.keys: dict[str, dict[str, str]] = {}  # session -> the person's key -> its line
        self.tags: dict[str, set[str]] = {}
        self.copies: set[str] = set()  # conflict copies the runs named
        self.counter = 0
        self.freed: set[Path] = set()  # where notes were before the person moved or deleted them
        self.edited: set[str] = set()  # keys of the notes edited inside their generated part

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def unique(self) -> int:
        self.counter += 1
        return self.counter

    # -- the vault as it is --------------------------------------------------------------

    def notes(self) -> dict[str, list[Path]]:
        """Every session note in the vault (outside dot folders), by session id."""
        found: dict[str, list[Path]] = {}
        for path in sorted(self.vault.rglob("*.md")):
            if any(part.startswith(".") for part in path.relative_to(self.vault).parts):
                continue
            ident = identity(path.read_text(encoding="utf-8"))
            if ident is not None:
                assert ident[0] == "claude-code", (path, ident)
                found.setdefault(ident[1], []).append(path)
        return found

    def note(self, sid: str) -> Path:
        (path,) = self.notes()[sid]
        return path

    def snapshot(self) -> dict[str, tuple[bytes, int]]:
        return {
            p.relative_to(self.vault).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(self.vault.rglob("*"))
            if p.is_file() and p.relative_to(self.vault).as_posix() not in RUN_FILES
        }

    # -- sessions ------------------------------------------------------------------------

    def write_turns(self, sid: str, prompts: list[str]) -> None:
        s = self.sessions[sid]
        before = len(s.lines)
        for prompt in prompts:
            s.user(prompt)
            s.assistant(f"reply: {prompt}")
        folder = s.cwd.replace("/", "-").replace(".", "-")
        path = self.home / ".claude" / "projects" / folder / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as f:  # as Claude Code appends
            f.write("".join(line + "\n" for line in s.lines[before:]))
        self.turns[sid] += len(prompts)

    @rule(prompts=st.lists(session_text, min_size=1, max_size=3), project=st.sampled_from(PROJECTS))
    def add_session(self, prompts: list[str], project: str = PROJECTS[0]) -> None:
        n = len(self.sessions)
        sid = sid_of(n)
        self.sessions[sid] = ClaudeSession(
            sid, project, start=f"2026-03-{n % 28 + 1:02d}T1{n % 10}:00:00Z"
        )
        self.turns[sid] = 0
        self.write_turns(sid, prompts)

    @initialize(prompts=st.lists(session_text, min_size=1, max_size=3))
    def first_session_and_run(self, prompts: list[str]) -> None:
        self.add_session(prompts)
        self.run()

    @precondition(lambda self: self.sessions)
    @rule(data=st.data(), prompts=st.lists(session_text, min_size=1, max_size=2))
    def grow_session(self, data: st.DataObject, prompts: list[str]) -> None:
        sid = data.draw(st.sampled_from(sorted(self.sessions)))
        self.write_turns(sid, prompts)

    # -- runs ----------------------------------------------------------------------------

    def export(self, **kw) -> ExportReport:
        kw.setdefault("workers", 1)
        return run_export(ExportOptions(vault=self.vault, home=self.home, timezone=UTC, **kw))

    def after_run(self, report: ExportReport) -> None:
        errors = [p for p in report.problems if p.severity == "error"]
        assert not report.failed and not errors, errors
        for name in ("created", "updated", "conflicts", "deleted"):
            if report.total(name):
                event(f"a run with notes {name}")
        for change in report.conflicts():
            # Only a note the person edited inside its generated part has a copy to keep:
            # never an index note, whose links Obsidian rewrites when a note is renamed.
            assert change.key in self.edited, f"a conflict copy of {change.key}"
            match = SAVED_TO.search(change.message)
            assert match, change.message
            assert match.group(1) not in self.copies, f"a copy replaced: {match.group(1)}"
            self.copies.add(match.group(1))
        self.noted = set(self.sessions) - self.deleted
        self.check()
        before = self.snapshot()
        again = self.export()
        assert not again.failed, again.problems
        assert again.total("written") == 0 and not again.conflicts(), again.changes
        after = self.snapshot()
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        assert not changed, f"a second run changed {changed}"

    @precondition(lambda self: self.sessions)
    @rule()
    def run(self) -> None:
        self.after_run(self.export())

    @precondition(lambda self: self.sessions)
    @rule()
    def run_with_two_workers(self) -> None:
        saved = workers.PARALLEL_FROM, workers.PARALLEL_FROM_BYTES
        workers.PARALLEL_FROM, workers.PARALLEL_FROM_BYTES = 1, 1  # a pool even for one note
        try:
            report = self.export(workers=2)
        finally:
            workers.PARALLEL_FROM, workers.PARALLEL_FROM_BYTES = saved
        self.after_run(report)

    @precondition(lambda self: self.deleted)
    @rule()
    def run_with_restore(self) -> None:
        report = self.export(restore=True)
        self.deleted.clear()
        self.after_run(report)

    # -- what must hold after a run ------------------------------------------------------

    def check(self) -> None:
        notes = self.notes()
        for sid, paths in notes.items():
            assert len(paths) == 1, f"{sid} has {len(paths)} notes: {paths}"
        for sid in self.deleted:
            assert sid not in notes, f"deleted note of {sid} written again: {notes[sid]}"
        assert set(notes) == self.noted, (set(notes), self.noted)
        texts = {sid: paths[0].read_text(encoding="utf-8") for sid, paths in notes.items()}
        for sid, text in texts.items():
            meta = yaml.safe_load(frontmatter_of(text)[0])
            assert meta["messages"] == 2 * self.turns[sid], (sid, meta["messages"])
            fm = frontmatter_of(text)[0]
            for key, line in self.keys.get(sid, {}).items():
                assert f"\n{line}\n" in f"\n{fm}", (key, line, fm)
            tags = [str(t) for t in meta.get("tags") or []]
            assert self.tags.get(sid, set()) <= set(tags), (self.tags.get(sid), tags)
        copies = {}
        for rel in self.copies:
            path = self.vault / rel
            assert path.is_file(), f"the conflict copy {rel} the run named is gone"
            copies[rel] = path.read_text(encoding="utf-8")
        for path in self.vault.rglob("*.md"):
            if not any(part.startswith(".") for part in path.relative_to(self.vault).parts):
                data = path.read_bytes()  # (CRLF throughout, or none)
                assert b"\r\n" not in data or data.count(b"\n") == data.count(b"\r\n"), path
        for line, sid in self.below.items():
            lines = texts[sid].split("\n")
            assert line in lines[end_line(lines) + 1 :], (line, texts[sid])
        for line, sid in self.inside.items():
            where = [sid] if line in texts.get(sid, "").split("\n") else []
            where += [rel for rel, text in copies.items() if line in text.split("\n")]
            assert where, f"the person's edit {line!r} of {sid}'s note is nowhere"

    # -- the person in the vault ---------------------------------------------------------

    def live(self) -> list[str]:
        """Sessions whose note is in the vault (a run wrote it, the person kept it)."""
        return sorted(self.noted)

    def pick(self, data: st.DataObject) -> tuple[str, Path]:
        sid = data.draw(st.sampled_from(self.live()))
        return sid, self.note(sid)

    @precondition(lambda self: self.noted)
    @rule(data=st.data(), words=person_text)
    def write_below_end_marker(self, data: st.DataObject, words: str) -> None:
        sid, path = self.pick(data)
        line = f"my note {self.unique()} {words}".rstrip()
        text = path.read_text(encoding="utf-8")
        path.write_text(text + ("" if text.endswith("\n") else "\n") + line + "\n")
        self.below[line] = sid

    @precondition(lambda self: self.noted)
    @rule(
        data=st.data(),
        value=st.none() | st.sampled_from(VALUES),
        tag=st.none() | st.sampled_from(["mine", "area/work", "to_read", "2026"]),
        obsidian_indent=st.booleans(),
    )
    def add_property(
        self, data: st.DataObject, value: str | None, tag: str | None, obsidian_indent: bool
    ) -> None:
        sid, path = self.pick(data)
        text = path.read_text(encoding="utf-8")
        fm, close = frontmatter_of(text)
        lines = fm.split("\n")[:-1]
        n = self.unique()
        if tag is not None:
            tag = f"{tag}_{n}" if tag != "2026" else f"y{n}"
            start = lines.index("tags:")
            end = start + 1
            while end < len(lines) and lines[end].lstrip().startswith("- "):
                end += 1
            items = [line.lstrip()[2:] for line in lines[start + 1 : end]] + [tag]
            indent = "  " if obsidian_indent else re.match(r"\s*", lines[end - 1]).group()
            lines[start + 1 : end] = [f"{indent}- {item}" for item in items]
            self.tags.setdefault(sid, set()).add(tag)
        if value is not None:
            key = f"my_key_{n}"
            lines.append(f"{key}: {value}")
            self.keys.setdefault(sid, {})[key] = f"{key}: {value}"
        path.write_text("---\n" + "".join(line + "\n" for line in lines) + text[close:])

    @precondition(lambda self: self.noted)
    @rule(data=st.data(), quoted=st.booleans())
    def retitle_in_properties(self, data: st.DataObject, quoted: bool) -> None:
        """The person types a title of their own: it stays theirs, byte for byte."""
        sid, path = self.pick(data)
        text = path.read_text(encoding="utf-8")
        fm, close = frontmatter_of(text)
        lines = fm.split("\n")[:-1]
        start = next(i for i, line in enumerate(lines) if line.startswith("title:"))
        end = start + 1
        while end < len(lines) and lines[end].startswith(" "):
            end += 1  # (a long title folded over lines)
        title = f"My title {self.unique()}"
        line = f'title: "{title}"  # mine' if quoted else f"title: {title}"
        lines[start:end] = [line]
        path.write_text("---\n" + "".join(x + "\n" for x in lines) + text[close:])
        self.keys.setdefault(sid, {})["title"] = line

    @precondition(lambda self: self.noted)
    @rule(data=st.data(), rename=st.booleans(), folder=st.none() | st.sampled_from(FOLDERS))
    def rename_or_move(self, data: st.DataObject, rename: bool, folder: str | None) -> None:
        sid, path = self.pick(data)
        name = f"Renamed {self.unique()}.md" if rename else path.name
        target = (self.vault / folder if folder else path.parent) / name
        if target == path:
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        assert not target.exists()
        os.rename(path, target)  # as `mv` and Obsidian do: the same file, its time kept
        self.freed.add(path)

    @precondition(lambda self: self.noted and any(not p.exists() for p in self.freed))
    @rule(data=st.data())
    def give_a_freed_name(self, data: st.DataObject) -> None:
        """A note takes the name (and folder) a note moved away from or deleted had."""
        sid, path = self.pick(data)
        target = data.draw(st.sampled_from(sorted(p for p in self.freed if not p.exists())))
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(path, target)
        self.freed.add(path)
        event("a note took a freed name")

    @precondition(lambda self: self.noted)
    @rule(data=st.data(), index=st.booleans())
    def sync_tool_writes_crlf(self, data: st.DataObject, index: bool) -> None:
        """A sync tool (or git's autocrlf) turns a note's line ends into CRLF, or an index
        note's."""
        indexes = sorted((self.vault / "AI Sessions").glob("Projects*.md"))
        indexes += sorted((self.vault / "AI Sessions" / "Projects").glob("*.md"))
        path = data.draw(st.sampled_from(indexes)) if index and indexes else self.pick(data)[1]
        path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))

    @precondition(lambda self: self.noted)
    @rule(data=st.data())
    def delete_note(self, data: st.DataObject) -> None:
        sid, path = self.pick(data)
        path.unlink()
        self.freed.add(path)
        self.noted.discard(sid)
        self.deleted.add(sid)
        for line in [line for line, s in self.below.items() if s == sid]:
            del self.below[line]
        copies = [(self.vault / rel).read_text(encoding="utf-8").split("\n") for rel in self.copies]
        for line in [line for line, s in self.inside.items() if s == sid]:
            if not any(line in lines for lines in copies):  # deleted along with its note
                del self.inside[line]
        self.keys.pop(sid, None)
        self.tags.pop(sid, None)

    @precondition(lambda self: self.noted)
    @rule(data=st.data(), words=inside_text, replace=st.booleans())
    def edit_generated_part(self, data: st.DataObject, words: str, replace: bool) -> None:
        sid, path = self.pick(data)
        lines = path.read_text(encoding="utf-8").split("\n")
        first = next(i for i, line in enumerate(lines) if line.startswith(BEGIN)) + 1
        last = end_line(lines)
        at = data.draw(st.integers(first, last - 1))
        line = f"my edit {self.unique()} {words}".rstrip()
        if replace and lines[at].strip():
            self.inside.pop(lines[at], None)  # an edit of theirs they wrote over
            lines[at] = line
        else:
            lines.insert(at + 1, line)
        path.write_text("\n".join(lines))
        self.inside[line] = sid
        self.edited.add(f"claude-code:{sid}")

    @precondition(lambda self: self.noted)
    @rule(data=st.data(), folder=st.none() | st.sampled_from(FOLDERS))
    def rename_in_obsidian(self, data: st.DataObject, folder: str | None) -> None:
        """Obsidian renames (or moves) a note and, with "Automatically update internal
        links" (on by default), rewrites every link to it in the vault's notes: the index
        notes' among them, inside their generated part."""
        _sid, path = self.pick(data)
        new = f"Renamed {self.unique()}"
        target = (self.vault / folder if folder else path.parent) / f"{new}.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(path, target)
        self.freed.add(path)
        link = re.compile(r"\[\[" + re.escape(path.stem) + r"(?=[|#\]])")
        for note in self.vault.rglob("*.md"):
            if ".ccexport" not in note.relative_to(self.vault).parts:
                text = note.read_text(encoding="utf-8")
                if link.search(text):
                    note.write_text(link.sub("[[" + new, text), encoding="utf-8")
                    event("Obsidian rewrote a link")


def machine_settings(prefix: str, examples: int, steps: int = 12) -> settings:
    """A state machine's settings: CI's counts, more through ``<prefix>_EXAMPLES`` and
    ``<prefix>_STEPS``, no shrinking with ``CCEXPORT_NO_SHRINK``."""
    return settings(
        max_examples=int(os.environ.get(f"{prefix}_EXAMPLES", str(examples))),
        stateful_step_count=int(os.environ.get(f"{prefix}_STEPS", str(steps))),
        deadline=None,
        phases=[
            p for p in Phase if p is not Phase.shrink or not os.environ.get("CCEXPORT_NO_SHRINK")
        ],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


PersonsMonths.TestCase.settings = machine_settings("CCEXPORT_STATEFUL", 25)
TestPersonsMonths = PersonsMonths.TestCase
