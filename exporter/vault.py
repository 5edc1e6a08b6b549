"""Writing notes into a vault the user lives in, without ever losing what they wrote.

The vault knows a note only as a path, frontmatter and an owned body. Rules:

- A note is found by its identity (``source`` + ``session_id`` in its frontmatter): at the
  path recorded last time, or anywhere in the vault if the user moved it.
- Only the region between the markers and the exporter's own frontmatter keys are
  rewritten. The user's keys, tags, aliases and any text outside the region stay.
- If the user edited inside the region, their version is copied to
  ``.ccexport/conflicts/`` before it is replaced, and the run reports a conflict.
- A file at a target path that is not ours is never touched: the note gets another name.
- Identical bytes are never rewritten; every write is a temp file in the same folder
  (named with a leading dot, so Obsidian ignores it), fsync, rename.
- Nothing is ever deleted.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from . import notefile
from .notefile import NoteFormatError
from .state import STATE_DIR, STATE_FILE, NoteRecord, State

TEMP_PREFIX = ".ccexport-"
RUNNING_MARKER = "running"  # present while a run writes; left behind by a killed run
MAX_NAME_BYTES = 200  # below the 255-byte limit of common file systems, room for " (2)"
_RESERVED = re.compile(r"^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$", re.IGNORECASE)
_FORBIDDEN = re.compile(r'[<>"/\\|?*#^\[\]\x00-\x1f\x7f]')
_SKIP_DIRS = {".obsidian", ".trash", ".git", STATE_DIR}
# Frontmatter keys the exporter owns: rewritten on update, removed when no longer produced.
OWNED_KEYS = (
    "title", "source", "session_id", "project", "cwd", "git_branch", "git_commit",
    "git_remote", "models", "created", "updated", "messages", "tool_calls", "tokens_in",
    "tokens_out", "tokens_cache_read", "tokens_cache_write", "cost", "parent", "subagents",
    "forked_from",
)  # fmt: skip


class Action(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    CONFLICT = "conflict"  # updated, the user's edit inside the owned region saved aside
    RENAMED = "renamed"  # created under another name: a foreign file held the path
    FAILED = "failed"


@dataclass(slots=True)
class Change:
    action: Action
    key: str
    relpath: str
    message: str = ""
    diff: str = ""


def safe_component(name: str) -> str:
    """One path component that is valid on Linux, macOS and Windows."""
    name = unicodedata.normalize("NFC", name).replace(":", " -")
    name = _FORBIDDEN.sub("-", name)
    name = " ".join(name.split()).strip(" .")
    if not name or name in (".", ".."):
        name = "_"
    if _RESERVED.match(name):
        name = "_" + name
    stem, dot, ext = name.rpartition(".") if name.endswith(".md") else (name, "", "")
    budget = MAX_NAME_BYTES - len((dot + ext).encode())
    if len(stem.encode()) > budget:
        stem = stem.encode()[:budget].decode("utf-8", "ignore").rstrip(" .")
    return stem + dot + ext


def safe_relpath(relpath: str) -> str:
    """A vault-relative path made of safe components; never absolute, never ``..``."""
    parts = [safe_component(p) for p in relpath.replace("\\", "/").split("/") if p.strip()]
    return "/".join(parts) or "_"


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{TEMP_PREFIX}{os.getpid()}-{path.name}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _owned_hash(owned: str) -> str:
    return hashlib.sha256(owned.encode("utf-8", "replace")).hexdigest()


class Vault:
    """A vault folder and the exporter's state in it. ``dry_run`` writes nothing."""

    def __init__(self, root: Path, *, dry_run: bool = False, diff: bool = False) -> None:
        self.root = root.expanduser().resolve()
        self.dry_run = dry_run
        self.want_diff = diff
        self.state = State.load(self.root)
        self._state_bytes = self.state.dumps()
        self._identities: dict[str, str] | None = None
        self._reserved: dict[str, str] = {}  # relpath -> key, for paths chosen this run
        self._renamed: set[str] = set()  # keys that could not take their proposed name

    # -- paths -------------------------------------------------------------------------

    def path_of(self, key: str) -> str | None:
        """Where the note for ``key`` is now, if it exists: recorded, or found by identity."""
        record = self.state.notes.get(key)
        if record and (self.root / record.path).is_file():
            return record.path
        return self._find_by_identity(key)

    def choose_path(self, key: str, proposed: str) -> str:
        """The note's path: where it already is, else ``proposed`` made safe and free."""
        existing = self.path_of(key)
        if existing:
            self._reserved[existing] = key
            return existing
        base = safe_relpath(proposed)
        stem, _, _ = base.rpartition(".md")
        candidate, n = base, 1
        while not self._free(candidate, key):
            n += 1
            candidate = f"{stem} ({n}).md"
        if candidate != base:
            self._renamed.add(key)
        self._reserved[candidate] = key
        return candidate

    def _free(self, relpath: str, key: str) -> bool:
        holder = self._reserved.get(relpath)
        if holder is not None:
            return holder == key
        path = self.root / relpath
        if not path.exists():
            return True
        return self._identity_of(path) == key

    def _identity_of(self, path: Path) -> str | None:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return notefile.read_identity(f.read(8192))
        except OSError:
            return None

    def _find_by_identity(self, key: str) -> str | None:
        if self._identities is None:
            self._identities = self._scan_identities()
        found = self._identities.get(key)
        return found if found and (self.root / found).is_file() else None

    def _scan_identities(self) -> dict[str, str]:
        """Every note in the vault that names a session in its frontmatter."""
        found: dict[str, str] = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
            for name in sorted(filenames):
                if name.endswith(".md") and not name.startswith("."):
                    path = Path(dirpath) / name
                    key = self._identity_of(path)
                    if key and key not in found:
                        found[key] = path.relative_to(self.root).as_posix()
        return found

    # -- notes -------------------------------------------------------------------------

    def write_note(
        self,
        key: str,
        relpath: str,
        metadata: dict[str, Any],
        body: str,
        meta: dict[str, Any] | None = None,
    ) -> Change:
        """Create or update one note in place; see the module rules."""
        path = self.root / relpath
        owned = body.strip("\n")
        record = self.state.notes.get(key)
        ours = list(metadata.get("tags", []))
        meta = meta or {}
        try:
            current = path.read_text(encoding="utf-8") if path.exists() else None
        except (OSError, UnicodeDecodeError) as exc:
            return Change(Action.FAILED, key, relpath, f"cannot read the note: {exc}")
        if current is None:
            text = notefile.compose(metadata, "", owned, notefile.NEW_NOTE_TAIL)
            renamed = key in self._renamed
            action = Action.RENAMED if renamed else Action.CREATED
            message = (
                "another file already had the name, so this note got a new one" if renamed else ""
            )
            self._write(path, text)
            self._record(key, relpath, owned, ours, list(metadata), meta)
            return Change(action, key, relpath, message, self._diff("", owned, relpath))
        try:
            parsed = notefile.parse(current, record.lines if record else None)
        except NoteFormatError as exc:
            return Change(Action.FAILED, key, relpath, f"left unchanged: {exc}")
        if parsed.owned is None:
            why = "left unchanged: its ccexport markers are gone (delete the note to re-export it)"
            return Change(Action.FAILED, key, relpath, why)
        merged = merge_frontmatter(
            parsed.metadata,
            metadata,
            record.tags if record else ours,
            record.keys if record else [],
        )
        text = notefile.compose(merged, parsed.before, owned, parsed.after)
        if text == current:
            self._record(key, relpath, owned, ours, list(metadata), meta)
            return Change(Action.UNCHANGED, key, relpath)
        edited = record is not None and _owned_hash(parsed.owned) != record.hash
        if edited and parsed.owned.strip("\n") != owned:
            saved = self._save_conflict(relpath, current)
            action, message = (
                Action.CONFLICT,
                f"your edit inside the generated part was saved to {saved}",
            )
        else:
            action, message = Action.UPDATED, ""
        self._write(path, text)
        self._record(key, relpath, owned, ours, list(metadata), meta)
        return Change(action, key, relpath, message, self._diff(parsed.owned, owned, relpath))

    def write_attachment(self, relpath: str, data: bytes) -> bool:
        """Write a content-addressed file once; True if it was new."""
        path = self.root / safe_relpath(relpath)
        if path.exists():
            return False
        if not self.dry_run:
            _atomic_write(path, data)
        return True

    def _write(self, path: Path, text: str) -> None:
        if not self.dry_run:
            _atomic_write(path, text.encode("utf-8", "replace"))

    def _record(
        self,
        key: str,
        relpath: str,
        owned: str,
        tags: list[str],
        keys: list[str],
        meta: dict[str, Any],
    ) -> None:
        lines = owned.count("\n") + 1
        self.state.notes[key] = NoteRecord(relpath, _owned_hash(owned), lines, tags, keys, meta)

    def _save_conflict(self, relpath: str, text: str) -> str:
        stamp = datetime.now().strftime("%Y-%m-%d %H%M%S")
        name = f"{stamp} {Path(relpath).name}"
        target = self.root / STATE_DIR / "conflicts" / name
        if not self.dry_run:
            _atomic_write(target, text.encode("utf-8", "replace"))
        return f"{STATE_DIR}/conflicts/{name}"

    def _diff(self, old: str, new: str, relpath: str) -> str:
        if not self.want_diff:
            return ""
        lines = difflib.unified_diff(
            old.splitlines(), new.splitlines(), f"a/{relpath}", f"b/{relpath}", lineterm=""
        )
        return "\n".join(lines)

    # -- state -------------------------------------------------------------------------

    def save_state(self) -> None:
        """Written after the notes, atomically, and only if it changed."""
        data = self.state.dumps()
        if not self.dry_run and data != self._state_bytes:
            _atomic_write(self.root / STATE_DIR / STATE_FILE, data)
            self._state_bytes = data

    def begin_run(self) -> int:
        """Mark a run as started; if the last one never finished, sweep what it left."""
        marker = self.root / STATE_DIR / RUNNING_MARKER
        removed = self.sweep_temp_files() if marker.exists() else 0
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
        return removed

    def end_run(self) -> None:
        (self.root / STATE_DIR / RUNNING_MARKER).unlink(missing_ok=True)

    def sweep_temp_files(self) -> int:
        """Remove the temp files a killed run left behind (names start with a dot)."""
        removed = 0
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if d not in (".obsidian", ".trash", ".git")]
            for name in filenames:
                if name.startswith(TEMP_PREFIX) and name.endswith(".tmp"):
                    os.unlink(os.path.join(dirpath, name))
                    removed += 1
        return removed


def merge_frontmatter(
    existing: dict[str, Any],
    ours: dict[str, Any],
    our_previous_tags: list[str],
    our_previous_keys: list[str] | None = None,
) -> dict[str, Any]:
    """The user's keys stay where they are; ours are replaced; tags and aliases merge."""
    owned = set(OWNED_KEYS) | set(our_previous_keys or ())
    merged: dict[str, Any] = {}
    for key, value in existing.items():
        if key in ours:
            merged[key] = ours[key]
        elif key not in owned:
            merged[key] = value  # the user's own property
    for key, value in ours.items():
        merged.setdefault(key, value)
    if "tags" in ours:
        theirs = [t for t in _as_list(existing.get("tags")) if t not in our_previous_tags]
        merged["tags"] = list(dict.fromkeys([*ours["tags"], *theirs]))
    if "aliases" in ours:
        merged["aliases"] = list(
            dict.fromkeys([*_as_list(existing.get("aliases")), *ours["aliases"]])
        )
    return merged


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [value]
