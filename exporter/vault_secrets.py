"""Files ccexport wrote in a vault that still hold a secret the current rules find.

Redaction runs on everything a run writes from a session, and a change of the rules renders
every note whose source is still read again. Some files are never written again, though: a
note whose source is gone (a note is never changed because its source vanished), a note of a
source the settings no longer export, a note whose markers are gone, a conflict copy, an
attachment (named by its content's hash: written once), the nightly log (only added to). A
secret an older version of the rules missed stays in them. This module finds them, for
``ccexport doctor``.

The files are read with the very rules a run would use (``Redactor.text``, whose keyword
prefilter leaves most text unscanned), and only read: nothing is written, no link is
followed (every file is read through ``vaultio.read_file``), a file that cannot be read is
named with why. What is returned names each file and the rules found in it, with counts:
never a secret (a path that holds one is shown redacted). A placeholder
(``[REDACTED:<rule>]``) is no secret.

In a note, the text the person wrote (their properties, their text outside the generated
part) is counted apart from ccexport's: it is theirs and no run changes it, but a secret in
a synced vault is a risk wherever it is.

What is not read: the state file (its records of titles and earlier paths are redacted
again by every run whose rules are new to the vault; the paths of the sources and the ids
in it are kept as they are on purpose), ``Sessions.base`` and ``.ccexport/bases.json``
(names of assistants and views only), and templates.
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import vaultio
from .session_secrets import KnownSecrets

if TYPE_CHECKING:
    from .redact import Redactor
    from .state import NoteRecord, State

NOTE, INDEX, CONFLICT, ATTACHMENT, LOG = (
    "note", "index note", "conflict copy", "attachment", "log"
)  # fmt: skip
# Why no run writes the file again, where that is known.
SOURCE_GONE = "its source is gone, and a note is never changed because its source vanished"
NOT_EXPORTED = "its source, {}, is not among the sources these settings export"
OTHER_PROJECT = "its project is not the one these settings export"
NO_SOURCE = "no source in this vault's state wrote it (another machine's note, or an older state)"
MARKERS_GONE = "its ccexport markers are missing or changed, so no run updates it"
EDITED = "you edited its generated part: a run keeps your edit until its session changes"
CONFLICT_WHY = "a conflict copy: ccexport writes it once and never again"
ATTACHMENT_WHY = "an attachment is named by its content and never written again"
LOG_WHY = "a log is only added to"
YOURS_WHY = "your own text: ccexport never changes it"

READ_AT_MOST = 64 << 20  # a larger file in the attachments folder is not read
_IMAGES = frozenset({"png", "jpg", "jpeg", "gif", "webp", "svg"})
_TEXT = frozenset({"txt", "md"})


@dataclass(frozen=True, slots=True)
class SecretFile:
    """A file that holds what the current rules redact. ``path`` is vault-relative, shown
    redacted; ``ours`` and ``yours`` count the rules found (rule id -> matches) in what
    ccexport wrote and in the person's own text; ``why`` says why no run writes it again
    (empty when unknown)."""

    path: str
    kind: str
    ours: dict[str, int]
    yours: dict[str, int]
    why: str = ""

    @property
    def rules(self) -> dict[str, int]:
        every = Counter(self.ours)
        every.update(self.yours)
        return dict(sorted(every.items()))

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "rules": self.rules,
            "in_ccexport_text": dict(sorted(self.ours.items())),
            "in_your_text": dict(sorted(self.yours.items())),
            "why": self.why,
        }


@dataclass(slots=True)
class SecretScan:
    """What a scan found: the files with a secret, how many files were read, and those that
    could not be read (path, why)."""

    files: list[SecretFile] = field(default_factory=list)
    read: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)


def scan_vault(
    vault: Path,
    rules: Redactor,
    state: State | None = None,
    *,
    render: Sequence[object] | None = None,
    sources: Iterable[str] = (),
    project: str | None = None,
    attachments: str = "attachments/ccexport",
    notes_folder: str = "",
) -> SecretScan:
    """Every file ccexport wrote in ``vault`` that holds a secret ``rules`` find, which no
    run will write again. ``state``: the vault's (loaded when not given). ``render``: the
    render fingerprint a run would use now (``["render", …]``); a note whose source is still
    there but was rendered otherwise is rendered again by the next run, so what ccexport
    wrote in it is not reported (the person's text in it is). ``sources`` and ``project``:
    the settings' filters (a note of a source they leave out is never rendered again).
    ``notes_folder``: the notes' folder, below which the copies of edits are saved."""
    from .state import State

    root = vault.expanduser().resolve()
    state = State.load(root) if state is None else state
    scan = SecretScan()
    units = _units_of(state)
    wanted = frozenset(sources)
    seen: set[str] = set()
    for key, record in sorted(state.notes.items(), key=lambda item: item[1].path):
        if record.deleted or record.path in seen:
            # (a note the person deleted: a file now at its path is theirs; two records may
            # name one path, a note given another's old name)
            continue
        seen.add(record.path)
        # Rendered again only if every unit naming it is: the one a run reads now may be
        # any of them (a unit of an older home, with an older fingerprint, says nothing).
        whys = [_why_kept(key, record, u, state, render, wanted, project)
                for u in units.get(key) or [None]]  # fmt: skip
        why = _kept_by_any(whys)
        _scan_note(root, rules, key, record, why, scan)
    from .editcopies import copy_folders, is_copy

    # (the visible folder of edit copies, which a sync tool carries; the hidden one before)
    for folder in copy_folders(notes_folder):
        for relpath in _files_in(root, folder, scan):
            if is_copy(folder, relpath.rpartition("/")[2]):
                _scan_plain(root, rules, relpath, CONFLICT, CONFLICT_WHY, scan)
    from .vaultattach import written_name

    for relpath in _files_in(root, attachments.strip("/"), scan):
        if written_name(relpath.rpartition("/")[2]):  # (the person's files may share it)
            _scan_attachment(root, rules, relpath, scan)
    from .schedule import LOG_NAME

    log = f"{vaultio.STATE_DIR}/{LOG_NAME}"
    if vaultio.kind(root, log) != "missing":
        _scan_plain(root, rules, log, LOG, LOG_WHY, scan)
    return scan


def _units_of(state: State) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Each note's key -> every (unit, the unit's record) naming it: a vault exported from
    two homes, or a source file that moved, has two units naming one note."""
    units: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for unit, rec in state.sources.items():
        for key in rec.get("notes", []):
            units.setdefault(key, []).append((unit, rec))
    return units


def _kept_by_any(whys: list[str | None]) -> str | None:
    """Why no run writes a note again, of the reasons of the units naming it: kept if any
    unit keeps it (a unit whose source is gone is no reason while another's is there: the
    source moved), rendered again (None) only if all are."""
    if len(whys) > 1 and any(w != SOURCE_GONE for w in whys):
        whys = [w for w in whys if w != SOURCE_GONE]
    kept = [w for w in whys if w is not None]
    return next((w for w in kept if w), kept[0] if kept else None)


def _why_kept(
    key: str,
    record: NoteRecord,
    unit: tuple[str, dict[str, Any]] | None,
    state: State,
    render: Sequence[object] | None,
    sources: frozenset[str],
    project: str | None,
) -> str | None:
    """Why no run writes the generated part of the note again: a sentence, "" when it is not
    known, None when the next run renders it again (so what ccexport wrote is not reported)."""
    from .notefile import INDEX_PREFIX

    if key.startswith(INDEX_PREFIX):  # built from the notes: again when the rules change
        return "" if render is None or state.render == render[1] else None
    if unit is None:
        return NO_SOURCE
    name, rec = unit
    if _source_gone(name):
        return SOURCE_GONE
    source = key.partition(":")[0]
    if sources and source not in sources:
        return NOT_EXPORTED.format(source)
    if project:
        from .notespec import project_matches

        if not project_matches(project, record.meta.get("project")):
            return OTHER_PROJECT
    fingerprint = rec.get("fingerprint") or [None]
    if render is not None and fingerprint[0] != list(render):
        return None  # rendered with other rules (or settings): the next run renders it again
    return ""


def _source_gone(unit: str) -> bool:
    """Is the unit's file gone? A unit is named by its main file's path, with ``#…`` after
    it for a part of one (an Aider run in its log). Anything else is not known: not gone."""
    if not os.path.isabs(unit):
        return False
    if os.path.lexists(unit):
        return False
    head, hash_sign, _ = unit.rpartition("#")
    return not (hash_sign and os.path.lexists(head))


def _read(root: Path, relpath: str, scan: SecretScan, limit: int = -1) -> bytes | None:
    """The file's bytes, or None (it is gone, or cannot be read: then said in ``scan``)."""
    try:
        found = vaultio.read_file(root, relpath, limit)
    except OSError as exc:  # a link, FIFO or device (never opened), a file not ours to read
        from .errors import os_reason

        reason = str(exc) if isinstance(exc, vaultio.UnsafePathError) else os_reason(exc)
        scan.unreadable.append((relpath, reason))
        return None
    if found is None:
        return None
    scan.read += 1
    return found[0]


def _found(rules: Redactor, text: str, counts: Counter[str]) -> bool:
    """Does ``text`` hold a secret? ``counts`` gains one per secret, by rule."""
    return rules.text(text, counts) is not text


def _shown(rules: Redactor, relpath: str) -> str:
    return rules.text(relpath)  # a name that holds a secret is shown without it


def _scan_note(
    root: Path,
    rules: Redactor,
    key: str,
    record: NoteRecord,
    why: str | None,
    scan: SecretScan,
) -> None:
    from .notefile import INDEX_PREFIX

    data = _read(root, record.path, scan)
    if data is None:
        return
    text = data.decode("utf-8", "replace")
    every: Counter[str] = Counter()
    name: Counter[str] = Counter()
    _found(rules, record.path.rpartition("/")[2], name)
    shown = _shown(rules, record.path)
    if "[REDACTED:" in text:  # (its title may say what its name and aliases still hold)
        left = _leftovers(text, record.path.rpartition("/")[2])
        name.update(left.values())
        shown = KnownSecrets(left.items()).text(shown)
    if not _found(rules, text, every) and not name:
        return  # (most notes: the keyword prefilter finds nothing to look at)
    ours, yours, kept = _split_note(rules, text, record)
    if not ours and not yours:
        ours = every  # found only in the whole: counted as the note's
    if kept == MARKERS_GONE or (kept == EDITED and why == ""):
        why = kept  # (a source gone, or left out, says more than an edit)
    ours.update(name)
    if why is None:  # the next run writes it again with the current rules (and renames it)
        ours = Counter()
    if not ours and not yours:
        return
    kind = INDEX if key.startswith(INDEX_PREFIX) else NOTE
    scan.files.append(
        SecretFile(shown, kind, dict(ours), dict(yours),
                   (why or "") if ours else YOURS_WHY)
    )  # fmt: skip


def _leftovers(text: str, name: str) -> dict[str, str]:
    """Values the note's redacted title says its name or aliases hold (``doctor_leftovers``)."""
    from .doctor_leftovers import leftover_secrets
    from .notefile import read_frontmatter

    return leftover_secrets(read_frontmatter(text), name)


def _split_note(
    rules: Redactor, text: str, record: NoteRecord
) -> tuple[Counter[str], Counter[str], str | None]:
    """What the rules find in ccexport's part of a note and in the person's, and why no run
    writes the note (None: as its source says)."""
    from .notefile import NoteFormatError, parse

    ours: Counter[str] = Counter()
    yours: Counter[str] = Counter()
    try:
        parsed = parse(text, record.lines)
    except NoteFormatError:  # (its properties are not YAML: no run writes it either)
        return Counter(), Counter(), MARKERS_GONE
    written = frozenset(record.keys) or _owned_keys()
    for key, block in _yaml_blocks(parsed.yaml):
        _found(rules, block, ours if key in written else yours)
    if parsed.owned is None:
        _found(rules, parsed.before, ours)  # (where the generated part ends is not known)
        return ours, yours, MARKERS_GONE
    _found(rules, parsed.before, yours)
    _found(rules, parsed.after, yours)
    _found(rules, parsed.owned, ours)
    return ours, yours, (EDITED if parsed.edited else None)


def _owned_keys() -> frozenset[str]:
    from .vaultmerge import OWNED_KEYS

    return frozenset(OWNED_KEYS)


def _yaml_blocks(yaml_text: str) -> list[tuple[str, str]]:
    """The frontmatter as (top-level key, its lines): a value is read with its key, so a
    rule that needs the name before it (``password: …``) finds it, as in a source."""
    blocks: list[tuple[str, list[str]]] = []
    for line in yaml_text.splitlines(keepends=True):
        head = line[:1]
        if head and head not in " \t-#\r\n" and ":" in line:
            blocks.append((line.partition(":")[0].strip().strip("'\""), [line]))
        elif blocks:
            blocks[-1][1].append(line)
        else:
            blocks.append(("", [line]))
    return [(key, "".join(lines)) for key, lines in blocks]


def _files_in(root: Path, folder: str, scan: SecretScan) -> list[str]:
    """The regular files in a vault folder (not below it), never through a link."""
    found = vaultio.kind(root, folder)
    if found == "missing":
        return []
    if found != "folder":
        scan.unreadable.append((folder, "is not a folder (a link is never followed)"))
        return []
    try:
        entries = list(os.scandir(root / folder))
    except OSError as exc:
        from .errors import os_reason

        scan.unreadable.append((folder, f"cannot be listed: {os_reason(exc)}"))
        return []
    files = []
    for entry in entries:
        if vaultio.is_temp_name(entry.name):
            continue  # a run's file on its way (removed by the next run)
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            continue
        files.append(f"{folder}/{entry.name}")  # (a link or FIFO: refused, named, by _read)
    return sorted(files)


def _scan_plain(
    root: Path, rules: Redactor, relpath: str, kind: str, why: str, scan: SecretScan
) -> None:
    data = _read(root, relpath, scan)
    if data is None:
        return
    from .model import decode_text

    counts: Counter[str] = Counter()
    _found(rules, relpath.rpartition("/")[2], counts)
    _found(rules, decode_text(data)[0], counts)
    if counts:
        scan.files.append(SecretFile(_shown(rules, relpath), kind, dict(counts), {}, why))


def _scan_attachment(root: Path, rules: Redactor, relpath: str, scan: SecretScan) -> None:
    """A copied file, read as a run reads one it copies: a text file's characters; an
    image's text metadata, then, as of any other file, its bytes and the text they compress
    (``redact_binary.texts``)."""
    from .model import decode_text, reads_as_text

    try:
        size = os.lstat(root / relpath).st_size  # (only to leave a large file unread)
    except OSError:
        size = 0  # (said by _read below)
    if size > READ_AT_MOST:
        scan.unreadable.append((relpath, f"larger than {READ_AT_MOST >> 20} MB: not read"))
        return
    data = _read(root, relpath, scan)
    if data is None:
        return
    counts: Counter[str] = Counter()
    _found(rules, relpath.rpartition("/")[2], counts)
    ext = relpath.rpartition(".")[2].lower()
    if ext not in _IMAGES and (ext in _TEXT or reads_as_text(data)):
        _found(rules, decode_text(data)[0], counts)
    else:  # an image, audio, a PDF, an archive: as a run looks at them (redact_parts)
        from .redact_binary import texts
        from .redact_media import without_secrets

        if ext in _IMAGES:
            without_secrets(data, lambda text: _found(rules, text, counts))
        if not counts:
            any(_found(rules, text, counts) for text in texts(data))
    if counts:
        scan.files.append(
            SecretFile(_shown(rules, relpath), ATTACHMENT, dict(counts), {}, ATTACHMENT_WHY)
        )
