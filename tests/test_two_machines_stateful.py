"""Two machines, one synced vault, as a hypothesis state machine.

Machines A and B each have their own home (their own sessions, and sometimes the same
session: a home synced or copied, its file equal on both or a longer version on one) and
their own copy of the vault. ``sync`` copies the vault's files both ways as a simple sync
tool does: a file changed on one side since the last sync goes to the other (times kept),
a file deleted on one side is deleted on the other, and for a file changed on both the
newer wins (a change beats a deletion). ``.ccexport/`` is not synced (Obsidian Sync skips
hidden folders), or in the other variant it is too, all but the run's own lock files.
Between runs the person writes below a note's end marker, adds a tag, renames, moves or
deletes a note, on one machine.

After every run (README "Several machines, one vault", "Your notes are yours"): it
reported no error; it made no second note of a session the vault had a note of; every line
and tag the person had in that vault is still in a note of its session; no note has fewer
messages than before the run, nor than the version of its session this machine holds;
and a second run right after changes no byte and no time. After every sync, every line the
person wrote is in both vaults unless they deleted its note or the sync tool's newer-wins
choice dropped the version holding it (counted, not blamed on ccexport). ``settle`` runs
A, B, A, B with syncs between and then requires neither machine to write anything.

``CCEXPORT_TWO_MACHINES_EXAMPLES`` / ``CCEXPORT_TWO_MACHINES_STEPS`` run more than CI;
``CCEXPORT_NO_SHRINK=1`` reports a failure unshrunk. It found that a note moved as a new
file (``tests/test_moved_copy.py``), or one the person deleted and the other machine or
the sync tool put back (``tests/test_two_machines_cases.py``), was compared or read by the
run after the one that found it, which then wrote the state again.
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
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule
from test_vault_stateful import (
    END,
    FOLDERS,
    PROJECTS,
    frontmatter_of,
    identity,
    machine_settings,
    person_text,
    session_text,
    sid_of,
)

from exporter.export import ExportOptions, ExportReport, run_export

MACHINES = ("A", "B")
RUN_FILES = {".ccexport/lock", ".ccexport/running"}  # one machine's run: never synced
MINE = re.compile(r"^my note \d+\b")
TAG = re.compile(r"^mine_\d+$")

machine = st.sampled_from(MACHINES)


def other(m: str) -> str:
    return "B" if m == "A" else "A"


def below_end(text: str) -> list[str]:
    lines = text.split("\n")
    at = next((i for i, line in enumerate(lines) if END.match(line)), None)
    return [] if at is None else lines[at + 1 :]


class TwoMachines(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="ccexport-two-machines-"))
        self.homes = {m: self.root / f"home-{m}" for m in MACHINES}
        self.vaults = {m: self.root / f"vault-{m}" for m in MACHINES}
        for v in self.vaults.values():
            v.mkdir()
        self.sync_state = False
        # The one conversation each session id is, and the line count after each turn:
        # a machine holds a prefix of it (so two copies are equal or one a longer version).
        self.sessions: dict[str, ClaudeSession] = {}
        self.bounds: dict[str, list[int]] = {}
        self.held: dict[str, dict[str, int]] = {m: {} for m in MACHINES}  # turns held
        self.base: dict[str, bytes] = {}  # every synced file as the last sync left it
        self.lines: dict[str, dict[str, str]] = {m: {} for m in MACHINES}  # line -> sid
        self.deleted: set[str] = set()  # sessions whose note the person deleted somewhere
        self.counter = 0

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def unique(self) -> int:
        self.counter += 1
        return self.counter

    # -- a vault as it is ----------------------------------------------------------------

    def notes(self, m: str) -> dict[str, list[Path]]:
        vault = self.vaults[m]
        found: dict[str, list[Path]] = {}
        for path in sorted(vault.rglob("*.md")):
            if any(part.startswith(".") for part in path.relative_to(vault).parts):
                continue
            ident = identity(path.read_text(encoding="utf-8"))
            if ident is not None and ident[0] == "claude-code":
                found.setdefault(ident[1], []).append(path)
        return found

    def mine(self, m: str) -> dict[str, set[str]]:
        """The person's lines below end markers and tags, by session, in vault ``m``."""
        out: dict[str, set[str]] = {}
        for sid, paths in self.notes(m).items():
            for path in paths:
                text = path.read_text(encoding="utf-8")
                got = out.setdefault(sid, set())
                got.update(line for line in below_end(text) if MINE.match(line))
                meta = yaml.safe_load(frontmatter_of(text)[0])
                got.update(f"#{t}" for t in meta.get("tags") or [] if TAG.match(str(t)))
        return out

    def messages(self, m: str) -> dict[Path, int]:
        return {
            path: yaml.safe_load(frontmatter_of(path.read_text(encoding="utf-8"))[0])["messages"]
            for paths in self.notes(m).values()
            for path in paths
        }

    def synced_files(self, m: str) -> dict[str, Path]:
        vault = self.vaults[m]
        out = {}
        for path in vault.rglob("*"):
            rel = path.relative_to(vault).as_posix()
            if not path.is_file() or rel in RUN_FILES:
                continue
            parts = rel.split("/")
            hidden = any(p.startswith(".") for p in parts)
            if hidden and not (self.sync_state and parts[0] == ".ccexport"):
                continue
            if parts[-1].startswith(".ccexport-") or parts[-1].endswith(".tmp"):
                continue
            out[rel] = path
        return out

    def snapshot(self, m: str) -> dict[str, tuple[bytes, int]]:
        vault = self.vaults[m]
        return {
            p.relative_to(vault).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(vault.rglob("*"))
            if p.is_file() and p.relative_to(vault).as_posix() not in RUN_FILES
        }

    # -- sessions ------------------------------------------------------------------------

    def write_session(self, m: str, sid: str) -> None:
        s = self.sessions[sid]
        folder = s.cwd.replace("/", "-").replace(".", "-")
        path = self.homes[m] / ".claude" / "projects" / folder / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        upto = self.bounds[sid][self.held[m][sid]]
        path.write_text("".join(line + "\n" for line in s.lines[:upto]), encoding="utf-8")

    def more_turns(self, sid: str, prompts: list[str]) -> None:
        s = self.sessions[sid]
        for prompt in prompts:
            s.user(prompt)
            s.assistant(f"reply: {prompt}")
            self.bounds[sid].append(len(s.lines))

    @initialize(
        sync_state=st.booleans(),
        prompts=st.lists(session_text, min_size=1, max_size=2),
    )
    def start(self, sync_state: bool, prompts: list[str]) -> None:
        self.sync_state = sync_state
        event(f".ccexport synced: {sync_state}")
        self.add_session("A", prompts)

    @rule(
        m=machine,
        prompts=st.lists(session_text, min_size=1, max_size=3),
        project=st.sampled_from(PROJECTS),
    )
    def add_session(self, m: str, prompts: list[str], project: str = PROJECTS[0]) -> None:
        n = len(self.sessions)
        sid = sid_of(n)
        self.sessions[sid] = ClaudeSession(
            sid, project, start=f"2026-03-{n % 28 + 1:02d}T1{n % 10}:00:00Z"
        )
        self.bounds[sid] = [0]
        self.more_turns(sid, prompts)
        self.held[m][sid] = len(prompts)
        self.write_session(m, sid)

    @precondition(lambda self: self.sessions)
    @rule(m=machine, data=st.data(), prompts=st.lists(session_text, min_size=1, max_size=2))
    def grow_session(self, m: str, data: st.DataObject, prompts: list[str]) -> None:
        """The session goes on on machine ``m`` (first taking what the other had of it)."""
        if not self.held[m]:
            return
        sid = data.draw(st.sampled_from(sorted(self.held[m])))
        if self.held[m][sid] < len(self.bounds[sid]) - 1:
            event("a shorter copy of a session grew past the other's")
        self.more_turns(sid, prompts)
        self.held[m][sid] = len(self.bounds[sid]) - 1
        self.write_session(m, sid)

    @precondition(lambda self: self.sessions)
    @rule(m=machine, data=st.data())
    def copy_session(self, m: str, data: st.DataObject) -> None:
        """The home is synced or copied: ``m``'s version of a session goes to the other
        machine, which had none or a shorter one."""
        to = other(m)
        longer = sorted(s for s, n in self.held[m].items() if n > self.held[to].get(s, 0))
        if not longer:
            return
        sid = data.draw(st.sampled_from(longer))
        event(
            "a session copied to the other home"
            + (" (over a shorter one)" * (sid in self.held[to]))
        )
        self.held[to][sid] = self.held[m][sid]
        self.write_session(to, sid)

    # -- runs ----------------------------------------------------------------------------

    def export(self, m: str) -> ExportReport:
        options = ExportOptions(vault=self.vaults[m], home=self.homes[m], timezone=UTC, workers=1)
        return run_export(options)

    @rule(m=machine)
    def run(self, m: str) -> None:
        notes_before = self.notes(m)
        mine_before = self.mine(m)
        messages_before = self.messages(m)
        report = self.export(m)
        errors = [p for p in report.problems if p.severity == "error"]
        assert not report.failed and not errors, errors
        if report.conflicts():
            event("a run made a conflict copy")
        if any("a second copy" in p.message for p in report.problems):
            event("a run saw a second copy of a note")
        notes = self.notes(m)
        for sid, paths in notes.items():
            before = notes_before.get(sid, [])
            new = set(paths) - set(before)
            assert not new or not before, f"{m}: a second note of {sid}: {new} beside {before}"
            assert len(paths) <= max(1, len(before)), (m, sid, paths, before)
        for sid, before in notes_before.items():
            gone = set(before) - set(notes.get(sid, []))
            assert not gone, f"{m}: the run took away {gone}"
        mine_after = self.mine(m)
        for sid, items in mine_before.items():
            lost = items - mine_after.get(sid, set())
            assert not lost, f"{m}: the person's {sorted(lost)} in {sid}'s note is gone"
        messages = self.messages(m)
        for path, count in messages_before.items():
            assert messages[path] >= count, f"{m}: {path} went from {count} to {messages[path]}"
        for sid, turns in self.held[m].items():
            if sid in notes:
                best = max(messages[p] for p in notes[sid])
                assert best >= 2 * turns, f"{m}: {sid}'s note has {best} messages, not {2 * turns}"
            elif sid not in self.deleted:
                raise AssertionError(f"{m}: no note of {sid}, which no one deleted")
        self.check_quiet(m)

    def check_quiet(self, m: str) -> None:
        """A second run right after writes nothing: no byte, no time."""
        before = self.snapshot(m)
        again = self.export(m)
        assert not again.failed, again.problems
        assert again.total("written") == 0 and not again.conflicts(), (m, again.changes)
        after = self.snapshot(m)
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        assert not changed, f"{m}: a second run changed {changed}"

    @rule()
    def settle(self) -> None:
        """A, B, A, B with syncs between: then neither machine writes anything (README: both
        machines write the same bytes, with or without ``.ccexport/`` synced)."""
        for m in ("A", "B", "A", "B"):
            self.sync()
            self.run(m)
        self.sync()
        for m in MACHINES:
            before = self.snapshot(m)
            report = self.export(m)
            assert not report.failed, report.problems
            after = self.snapshot(m)
            changed = sorted(
                k for k in before.keys() | after.keys() if before.get(k) != after.get(k)
            )
            assert not changed, f"{m} after settling still changed {changed}: {report.changes}"

    # -- the sync tool -------------------------------------------------------------------

    @rule()
    def sync(self) -> None:
        files = {m: self.synced_files(m) for m in MACHINES}
        data = {m: {rel: p.read_bytes() for rel, p in files[m].items()} for m in MACHINES}
        expected = set(self.lines["A"]) | set(self.lines["B"])
        owner = {**self.lines["A"], **self.lines["B"]}
        dropped: set[str] = set()  # lines only in a version the sync tool threw away
        for rel in sorted(set(data["A"]) | set(data["B"]) | set(self.base)):
            a, b, o = data["A"].get(rel), data["B"].get(rel), self.base.get(rel)
            if a == b:
                win = "A"
            elif a == o:
                win = "B"
            elif b == o:
                win = "A"
            elif a is None or b is None:  # changed on one side, deleted on the other
                win = "A" if b is None else "B"
                event("sync: a change beat a deletion")
            else:
                ta = files["A"][rel].stat().st_mtime_ns
                tb = files["B"][rel].stat().st_mtime_ns
                win = "B" if tb > ta else "A"
                event("sync: both changed, the newer won")
                lose = data[other(win)][rel].decode("utf-8", "replace").split("\n")
                keep = data[win][rel].decode("utf-8", "replace").split("\n")
                dropped |= {x for x in lose if MINE.match(x) and x not in keep}
            lose_m = other(win)
            if data[win].get(rel) is None:
                if rel in files[lose_m]:
                    lose_text = data[lose_m][rel].decode("utf-8", "replace").split("\n")
                    dropped |= {x for x in lose_text if MINE.match(x)}
                    files[lose_m][rel].unlink()
                self.base.pop(rel, None)
                continue
            if data[lose_m].get(rel) != data[win][rel]:
                target = self.vaults[lose_m] / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                if target.exists():
                    target.unlink()  # a sync tool writes a new file (another inode)
                shutil.copy2(files[win][rel], target)
            self.base[rel] = data[win][rel]
        present = {m: self.mine(m) for m in MACHINES}
        for line in sorted(expected):
            sid = owner[line]
            here = all(line in present[m].get(sid, set()) for m in MACHINES)
            if not here:
                assert line in dropped, f"sync model: {line!r} of {sid} vanished unexplained"
                event("sync: the newer-wins choice (or a deletion) dropped the person's text")
        kept = {line: owner[line] for line in expected if line not in dropped}
        for m in MACHINES:
            self.lines[m] = dict(kept)
        assert sorted(self.synced_files("A")) == sorted(self.synced_files("B"))

    # -- the person in one vault ---------------------------------------------------------

    def pick(self, m: str, data: st.DataObject) -> tuple[str, Path] | None:
        notes = self.notes(m)
        if not notes:
            return None
        sid = data.draw(st.sampled_from(sorted(notes)))
        return sid, data.draw(st.sampled_from(notes[sid]))

    def pick_text(self, m: str, data: st.DataObject) -> tuple[str, Path, str] | None:
        """A note of machine ``m`` (if it has one) and its text."""
        picked = self.pick(m, data)
        return picked and (*picked, picked[1].read_text(encoding="utf-8"))

    @rule(m=machine, data=st.data(), words=person_text)
    def write_below_end_marker(self, m: str, data: st.DataObject, words: str) -> None:
        if not (picked := self.pick_text(m, data)):
            return
        sid, path, text = picked
        line = f"my note {self.unique()} {words}".rstrip()
        path.write_text(text + ("" if text.endswith("\n") else "\n") + line + "\n")
        self.lines[m][line] = sid

    @rule(m=machine, data=st.data())
    def add_tag(self, m: str, data: st.DataObject) -> None:
        if not (picked := self.pick_text(m, data)):
            return
        _sid, path, text = picked
        fm, close = frontmatter_of(text)
        lines = fm.split("\n")[:-1]
        start = lines.index("tags:")
        end = start + 1
        while end < len(lines) and lines[end].lstrip().startswith("- "):
            end += 1
        lines.insert(end, f"  - mine_{self.unique()}")
        path.write_text("---\n" + "".join(x + "\n" for x in lines) + text[close:])

    @rule(
        m=machine, data=st.data(), rename=st.booleans(), folder=st.none() | st.sampled_from(FOLDERS)
    )
    def rename_or_move(self, m: str, data: st.DataObject, rename: bool, folder: str | None) -> None:
        picked = self.pick(m, data)
        if picked is None:
            return
        _sid, path = picked
        vault = self.vaults[m]
        name = f"Renamed {self.unique()}.md" if rename else path.name
        target = (vault / folder if folder else path.parent) / name
        if target.exists():
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(path, target)

    @rule(m=machine, data=st.data())
    def delete_note(self, m: str, data: st.DataObject) -> None:
        if not (picked := self.pick_text(m, data)):
            return
        sid, path, text = picked
        path.unlink()
        self.deleted.add(sid)
        for line in [x for x in below_end(text) if MINE.match(x)]:
            self.lines[m].pop(line, None)


TwoMachines.TestCase.settings = machine_settings("CCEXPORT_TWO_MACHINES", 15)
TestTwoMachines = TwoMachines.TestCase
