"""Two machines whose copies of one session differ, exporting into one vault synced without
``.ccexport/`` (Obsidian Sync skips hidden folders): the note settles on the fuller copy.

Each machine took the other's intact note, which holds a hash it never wrote, for an older
copy put back, read the session again and wrote its own: a title one machine knows, a fork
or a last answer only one holds, and the note changed on every run of each (review11 F1).
A note that holds less than this machine last wrote (fewer messages, or as many in fewer
lines) is still an older copy, made again.
"""

from __future__ import annotations

import shutil
from datetime import UTC
from pathlib import Path

import pytest
import yaml
from claude_builder import ClaudeSession
from conftest import note_files, stamps

from exporter import notefile
from exporter.export import ExportOptions, run_export

SID = "44444444-0000-4000-8000-000000000004"
FOLDER = ".claude/projects/-home-dev-work-shared"


def session(title: str | None = None, last: str | None = None) -> ClaudeSession:
    s = ClaudeSession(SID, "/home/dev/work/shared", start="2026-11-23T09:00:00Z")
    s.user("question 0")
    s.assistant("answer 0")
    s.user("question 1")
    # A second block of the last answer: Claude Code writes a line per block.
    s.assistant([{"type": "text", "text": t} for t in ("answer 1", last) if t])
    if title:
        s.meta("custom-title", customTitle=title, sessionId=SID)
    return s


class TwoMachines:
    """Machines ``a`` and ``b``, each with its home and its own ``.ccexport/``."""

    def __init__(self, tmp_path: Path) -> None:
        self.root, self.vault = tmp_path, tmp_path / "vault"
        self.current: str | None = None
        self.options: dict = {}  # more of ``ExportOptions``

    def home(self, name: str) -> Path:
        return self.root / f"home-{name}"

    def write(self, name: str, s: ClaudeSession) -> None:
        s.write(self.home(name) / FOLDER / f"{SID}.jsonl")

    def run(self, name: str):
        state = self.vault / ".ccexport"
        if self.current not in (None, name):
            state.rename(self.root / f"state-{self.current}")
            if (self.root / f"state-{name}").exists():
                (self.root / f"state-{name}").rename(state)
        self.current = name
        report = run_export(
            ExportOptions(
                vault=self.vault, home=self.home(name), timezone=UTC, workers=1, **self.options
            )
        )
        assert not report.failed, report.problems
        return report

    def note(self) -> str:
        (text,) = [b.decode() for p, b in note_files(self.vault).items() if SID[:8] in p]
        return text

    def settled(self) -> None:
        """A whole round after this one changes no file (bytes and times)."""
        before, times = note_files(self.vault, index=True), stamps(self.vault)
        for name in "abab":
            report = self.run(name)
            assert not report.changes, (name, report.changes)
            assert note_files(self.vault, index=True) == before, name
            assert stamps(self.vault) == times, name


def title(text: str) -> str:
    return yaml.safe_load(text.split("---\n")[1])["title"]


def test_a_title_one_machine_knows_settles(tmp_path: Path) -> None:
    m = TwoMachines(tmp_path)
    for name in "ab":
        m.write(name, session())
        m.run(name)
    m.write("a", session(title="Renamed on a"))  # /rename on a; b's copy is the older one
    m.run("a")
    assert title(m.note()) == "Renamed on a"
    report = m.run("b")
    assert not report.changes, report.changes  # b leaves a's note: it holds as much
    assert title(m.note()) == "Renamed on a"
    m.settled()


def test_a_last_answer_one_machine_holds_whole_settles_on_it(tmp_path: Path) -> None:
    """Copies of one session, one cut inside its last answer (the same messages, fewer
    lines): the note settles on the whole answer, whichever machine wrote last."""
    m = TwoMachines(tmp_path)
    m.write("a", session(last="and the second half of the answer"))
    m.write("b", session())
    for name in "ab":
        m.run(name)
    m.run("a")  # (b's first run, without a state, wrote its copy: a's makes it whole again)
    assert "second half" in m.note()
    m.settled()
    assert "second half" in m.note()


def test_an_older_copy_cut_inside_its_last_answer_is_made_again(tmp_path: Path) -> None:
    """On one machine: a backup of the note from before the answer's second block came,
    put back. It holds as many messages, in fewer lines: an older copy, made again."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    s = session()
    s.write(home / FOLDER / f"{SID}.jsonl")
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
    (note,) = [vault / p for p in note_files(vault) if SID[:8] in p]
    backup = tmp_path / "backup.md"
    shutil.copy2(note, backup)
    session(last="and the second half of the answer").write(home / FOLDER / f"{SID}.jsonl")
    run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
    assert "second half" in note.read_text()
    note.unlink()
    shutil.copy2(backup, note)
    report = run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1))
    assert [c.action for c in report.changes if c.key.endswith(SID)] == ["updated"]
    assert "second half" in note.read_text()


TOKEN = "ghp_" + "Zq7" * 12  # (synthetic)


def exported_note(m: TwoMachines) -> Path:
    """Machine a's note of the session, as it exported it."""
    m.write("a", session())
    m.run("a")
    (path,) = [m.vault / p for p in note_files(m.vault) if SID[:8] in p]
    return path


def test_another_machines_note_holding_a_secret_is_made_again(tmp_path: Path) -> None:
    """A note another machine wrote (an older version, or its rules let a token through)
    that holds as much is left alone, but not one holding what this machine redacts."""
    m = TwoMachines(tmp_path)
    path = exported_note(m)
    parsed = notefile.parse(path.read_text())
    owned = parsed.owned.replace("answer 0", f"answer 0 {TOKEN}")
    text = notefile.compose(parsed.metadata, parsed.before, owned, parsed.after)
    path.unlink()
    path.write_text(text)  # as another machine's sync brings it: a new file, intact
    report = m.run("a")
    assert [c.action for c in report.changes if c.key.endswith(SID)] == ["updated"]
    assert TOKEN not in path.read_text() and "answer 0" in path.read_text()


def put_back(note: Path, copy: Path) -> None:
    """A copy put in the note's place as a sync tool or a backup restores it: a new file."""
    note.unlink()
    shutil.copy2(copy, note)


def test_this_machines_own_older_copy_is_made_again_though_it_holds_as_much(tmp_path):
    """A copy of the note from before the session was retitled (as many messages, as many
    lines) put back: an intact generated part this machine wrote before, so its own older
    copy, made again; another machine's such note is left alone (review13 F2: a copy from
    before ``--tool-output none`` brought the tools' output back into the vault)."""
    m = TwoMachines(tmp_path)
    path = exported_note(m)
    backup = tmp_path / "backup.md"
    shutil.copy2(path, backup)
    m.write("a", session(title="Renamed on a"))
    m.run("a")
    put_back(path, backup)
    assert title(path.read_text()) == "question 0"
    report = m.run("a")
    assert [c.action for c in report.changes if c.key.endswith(SID)] == ["updated"]
    assert title(path.read_text()) == "Renamed on a"
    m.settled()


@pytest.mark.parametrize("generated", ["another machine's", "as written"])
def test_a_note_quoting_a_secret_in_a_property_of_ours_is_made_again(tmp_path, generated):
    """The secret only in a property of ours (``cwd``: a machine that ran ``--no-redact``,
    a copy of such a note put back), its generated part another machine's or the one this
    machine wrote: made again, the property redacted (review13 F3)."""
    m = TwoMachines(tmp_path)
    path = exported_note(m)
    parsed = notefile.parse(path.read_text())
    owned = parsed.owned
    if generated == "another machine's":
        owned = owned.replace("answer 0", "answer 0, in another machine's words")
    metadata = {**parsed.metadata, "cwd": f"/home/dev/{TOKEN}/shared"}
    path.unlink()
    path.write_text(notefile.compose(metadata, parsed.before, owned, parsed.after))
    report = m.run("a")
    assert [c.action for c in report.changes if c.key.endswith(SID)] == ["updated"]
    assert TOKEN not in path.read_text()


def long_session(exchanges: int) -> ClaudeSession:
    s = ClaudeSession(SID, "/home/dev/work/shared", start="2026-11-23T09:00:00Z")
    for i in range(exchanges):
        s.user(f"question {i}")
        s.assistant(f"answer {i}: " + "a sentence of the answer. " * 20)
    return s


def test_a_long_sessions_first_part_is_not_overwritten_by_a_shorter_whole_copy(tmp_path):
    """A session cut into part notes, then its transcript replaced by an older copy that
    fits one note: part 1 was overwritten by the short note without a word, its part 2
    left pointing at it (review13 F1). It is kept, with the one-time warning, as a note
    whose source shrank is."""
    home, vault = tmp_path / "home", tmp_path / "vault"
    source = home / FOLDER / f"{SID}.jsonl"

    def export():
        return run_export(ExportOptions(vault=vault, home=home, timezone=UTC, workers=1,
                                        note_max_bytes=8000))  # fmt: skip

    long_session(40).write(source)
    export()
    (first,) = [vault / p for p in note_files(vault) if SID[:8] in p and "(part " not in p]
    held = yaml.safe_load(first.read_text().split("---\n")[1])
    assert held["part"] == 1
    long_session(3).write(source)
    report = export()
    assert [c.action.value for c in report.changes if c.key.endswith(SID)] == ["kept"]
    assert yaml.safe_load(first.read_text().split("---\n")[1])["messages"] == held["messages"]
    assert any("fewer turns" in p.message for p in report.problems)


def test_two_machines_one_with_a_long_sessions_parts_settle_on_them(tmp_path):
    """Machine a holds the session long (part notes), b an older copy that fits one note:
    each rewrote part 1 its own way on every run (review13 F1)."""
    m = TwoMachines(tmp_path)
    m.options = {"note_max_bytes": 8000}
    m.write("a", long_session(40))
    m.write("b", long_session(3))
    for name in "abab":
        m.run(name)
    (first,) = [m.vault / p for p in note_files(m.vault) if SID[:8] in p and "(part " not in p]
    assert yaml.safe_load(first.read_text().split("---\n")[1])["part"] == 1
    m.settled()
