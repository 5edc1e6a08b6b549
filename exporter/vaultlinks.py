"""Links Obsidian rewrote in a generated part: not the person's edit.

When the person renames or moves a note in Obsidian, Obsidian rewrites every link to it,
the links inside other notes' generated parts too (a project's index lists the note; a
parent links its subagent; the list of projects links each index). Their hash then no
longer matches the end marker. Such a part differs from what ccexport wrote only in those
links: put back as they were written, they give the text the marker's hash was made from,
and the note is updated without a conflict copy.

Each link is put back exactly as it was written: to the note its target now leads to, in
the form ccexport writes (a session by its name, an index note by its path in the vault),
under the name that note had when the linking note was written. A note's earlier paths
are kept with the run that found it moved (``NoteRecord.was``), and each note with the run
that last wrote it (``NoteRecord.run``). So only Obsidian's rewrite is undone: a link the
person pointed elsewhere, or any other change, is still their edit. A link to a note
moved by hand onto its name since has more readings (Obsidian's link to that note, the
link as written to the note that had the name, Obsidian's link to a note of its alias's
title); each is tried, and the hash decides.

Obsidian writes a new target in one of three forms (its "New link format"): the name, the
path in the vault, or the path relative to the linking note; an alias that was the old name
follows the rename (Obsidian 1.2.1 and later).
"""

from __future__ import annotations

import itertools
import posixpath
import re
from collections.abc import Callable, Mapping
from typing import Any

from .notefile import INDEX_PREFIX, hash_matches
from .statefile import NoteRecord

PATHS_KEPT = 8  # earlier paths remembered per note
CHOICES_TRIED = 64  # ways to read links to notes gone that share titles (each a substitution)
AS_WRITTEN = ""  # a choice for a link: left as it is
_PROJECT_INDEX = f"{INDEX_PREFIX}project/"  # a project's index note, by its key

# A wikilink: its target, its heading or block, its alias if it has one ("[[a/b|c]]": "a/b",
# "", "c"); also how vaultbacklinks reads the links of the person's notes.
WIKILINK = re.compile(r"\[\[([^\[\]|#^\n]+)((?:[#^][^\[\]|\n]*)?)(?:\|([^\[\]\n]*))?\]\]")


def stem(path: str) -> str:
    """A note's link name: its file name without ``.md``."""
    name = path.rpartition("/")[2]
    return name[:-3] if name.endswith(".md") else name


def _bare(path: str) -> str:
    return path[:-3] if path.endswith(".md") else path


def link_paths(target: str, folder: str) -> tuple[str, list[str]]:
    """A link target without ``.md``, and the paths in the vault it may lead to, as
    Obsidian resolves one: its path in the vault, then (a path) from the linking note's
    ``folder``. A plain name also leads to any note of that name (``stem``)."""
    target = _bare(target.strip())
    if "/" not in target:
        return target, [target]
    return target, [target, posixpath.normpath(posixpath.join(folder, target))]


def _title_key(text: str) -> str:
    """A title as a link's alias to its note shows it (``markdown.link_alias``), without
    its spaces, for comparing the two; without "#" and "^" too, which aliases written
    before 8 December held as spaces. (Imported here: a run that reads no link's alias,
    most of them, never loads the Markdown modules.)"""
    from .markdown import link_alias

    return link_alias(text).translate(_NOT_COMPARED)  # (aliases before "::" was parted)


_NOT_COMPARED = str.maketrans("", "", " \u200b#^")


def written_target(key: str, path: str) -> str:
    """How ccexport links the note ``key`` at ``path``: an index note by its path in the
    vault (the list of projects), a session by its name."""
    return _bare(path) if key.startswith(INDEX_PREFIX) else stem(path)


def remembered(
    key: str, record: NoteRecord, path: str, run: int, scrub: Callable[[str], str] = str
) -> list[list[Any]]:
    """``record.was`` once the note ``key`` moved from ``record.path`` to ``path``, found in
    ``run`` (a new list: records share theirs with the state file's table). Only a move
    that changes how the note is linked is remembered (not a session moved to a folder),
    and never a path holding a secret (``scrub`` changes it): the state keeps none."""
    old = record.path
    if written_target(key, path) == written_target(key, old) or scrub(old) != old:
        return record.was
    return [*record.was, [old, run]][-PATHS_KEPT:]


class LinkTargets:
    """Which note a link target leads to, as Obsidian resolves it, for the notes ccexport
    wrote: by path in the vault, by path relative to the linking note, or by name when
    only one of them has it. Built once a run, when a part first needs it."""

    def __init__(
        self,
        notes: Mapping[str, NoteRecord],
        titles_before: Mapping[str, Any] | None = None,
        titles_listed: Mapping[str, list[str]] | None = None,
    ) -> None:
        self.notes = notes
        # The notes retitled this run, their titles before: the vault's own map, which grows
        # as the run writes notes (an empty one given is that map too, not a copy).
        self.titles_before = titles_before if titles_before is not None else {}
        self.by_path: dict[str, str] = {}
        self.by_name: dict[str, set[str]] = {}  # (two notes of one name: a path is written)
        self._by_title: dict[str, set[str]] | None = None  # built when first asked
        self._retitled = 0  # how many retitled notes ``_by_title`` was built with
        self.titles_listed: Mapping[str, list[str]] = titles_listed or {}  # (``listed``)
        self._then: tuple[int, set[str]] | None = None  # (run, targets_then(run))
        for key, record in notes.items():
            if not record.deleted:
                self._add(key, record.path)

    def _add(self, key: str, path: str) -> None:
        self.by_path[_bare(path)] = key
        self.by_name.setdefault(stem(path), set()).add(key)

    def move(self, key: str, old: str, new: str) -> None:
        """The note ``key`` moved from ``old`` to ``new`` (kept up to date in place: a
        run that finds many notes moved does not build this again for each)."""
        if self.by_path.get(_bare(old)) == key:
            del self.by_path[_bare(old)]
        self.by_name.get(stem(old), set()).discard(key)
        self._add(key, new)

    def key_of(self, target: str, folder: str) -> str | None:
        target, paths = link_paths(target, folder)
        found = next((self.by_path[p] for p in paths if p in self.by_path), None)
        if found is None:
            named = self.by_name.get(target, ())
            found = next(iter(named)) if len(named) == 1 else None
        # (A note whose record this run dropped, one saved while the run wrote it, is no
        # longer known: the next run writes it again.)
        return found if found in self.notes else None

    def listed(self, titles: Mapping[str, list[str]]) -> None:
        """The titles the index notes listed the notes by other than their records' (the
        person's, typed in a note's properties: the alias of the links to it, though the
        state's record keeps ccexport's until the note is written again)."""
        self.titles_listed = titles
        self._by_title = None

    def keys_by_title(self, alias: str) -> list[str]:
        """The session notes whose title the alias of a link to it shows (deleted ones too):
        a link Obsidian rewrote to a name no record holds (the note renamed in Obsidian,
        then deleted or moved before a run) still says whose it was, or whose it may have
        been when notes share a title (the hash decides). Compared as ``_title_key`` gives
        them: "%%" or an emoji is a title too, and a title of ``[ ] | # ^`` alone is linked
        without an alias (asked for by ""). A note retitled this run is known by the title
        it had too: the links were written with that one. A project's index note is known
        by its project's name, the alias the list of projects links it by."""
        if self._by_title is None or self._retitled != len(self.titles_before):
            self._by_title, self._retitled = {}, len(self.titles_before)
            for key, record in self.notes.items():
                if key.startswith(_PROJECT_INDEX):
                    project = key[len(_PROJECT_INDEX) :]
                    self._by_title.setdefault(_title_key(project), set()).add(key)
                    continue
                titles = (record.meta.get("title"), self.titles_before.get(key))
                for title in (*titles, *self.titles_listed.get(key, ())):
                    if isinstance(title, str) and not key.startswith(INDEX_PREFIX):
                        self._by_title.setdefault(_title_key(title), set()).add(key)
        found = self._by_title.get(_title_key(alias), set())
        return sorted(k for k in found if k in self.notes)  # (dropped this run: ``key_of``)

    def gone_relatives(self, key: str, leads_nowhere: Callable[[str, str], bool]) -> list[str]:
        """The notes the note ``key`` links by their place rather than their title (its
        session's other parts, its subagents, its parent) that are no longer where they
        were written: deleted, or renamed and then deleted."""
        if not key or key.startswith(INDEX_PREFIX):
            return []
        session = key.partition("#")[0]
        source, _, name = session.partition(":")
        parent = f"{source}:{name.partition('/')[0]}" if "/" in name else None
        found = []
        for other, record in self.notes.items():
            if other == key:
                continue
            base = other.partition("#")[0]
            if base in (session, parent) or base.startswith(f"{session}/"):
                then = _bare(record.path)
                if record.deleted or leads_nowhere(then, ""):
                    found.append(other)
        return found

    def targets_then(self, run: int) -> set[str]:
        """How ccexport linked each note when a note last written in ``run`` linked to it:
        a link still so written may be one Obsidian never rewrote, its name taken since by
        another note (moved onto it by hand)."""
        if self._then is None or self._then[0] != run:
            self._then = (run, {written_target(k, self.path_then(k, run)) for k in self.notes})
        return self._then[1]

    def path_then(self, key: str, run: int) -> str:
        """Where the note ``key`` was when a note last written in ``run`` linked to it."""
        record = self.notes[key]
        for path, moved_in in record.was:
            if moved_in > run:
                return path
        return record.path


def links_followed(
    owned: str,
    written_hash: str,
    note: NoteRecord,
    targets: LinkTargets,
    attachment: Callable[[str, str], str | None] | None = None,
    leads_nowhere: Callable[[str, str], bool] | None = None,
    key: str = "",
) -> bool:
    """Is ``owned`` (a generated part whose hash is not ``written_hash``) what ccexport
    wrote into ``note``, but for links to notes moved since, which Obsidian rewrote? And,
    given ``attachment`` (a link target and the note's folder -> the path ccexport named
    the file it leads to by, ``vaultattach``), but for embeds of attachments the person
    renamed (tried after the notes alone: an attachment embedded under a name the person
    gave it before is written so). Given ``leads_nowhere`` (a link target and the note's
    folder -> no note there), a link to a name no note has is known by its alias, the
    title of the note it was (renamed in Obsidian, then deleted or moved); a link with
    no such alias by another link to the same name that has one, else by its place: the
    note ``key``'s other parts, subagents or parent that are gone."""
    folder = note.path.rpartition("/")[0]
    changed = False
    # Links to a name no note has, by their place in the text: the notes each may have been
    # (by its alias, a title). Two notes of one title: each is tried, and the hash decides.
    options: dict[int, list[str]] = {}
    if leads_nowhere:
        links = WIKILINK.finditer(owned)
        nowhere = [m for m in links if targets.key_of(m.group(1), folder) is None]
        titled = {m.start(): targets.keys_by_title(m.group(3) or "") for m in nowhere}
        # One name, one note: a parent's "Full transcript: [[x]]" is the note its
        # "Subagents: [[x|title]]" names.
        by_name: dict[str, list[str]] = {}
        for match in nowhere:
            by_name.setdefault(match.group(1), []).extend(titled[match.start()])
        relatives: list[str] | None = None
        for match in nowhere:
            target = match.group(1)
            keys = titled[match.start()] or by_name[target]
            embed = owned[match.start() - 1 : match.start()] == "!"  # (an image, a file)
            if not keys and not embed:  # ("continued in [[x|part 2]]": no title to go by)
                if relatives is None:
                    relatives = targets.gone_relatives(key, leads_nowhere)
                # (or none of them: a link of a template's own to a file, not a note)
                keys = [*relatives, AS_WRITTEN] if relatives else []
            if keys and leads_nowhere(target, folder):
                options[match.start()] = list(dict.fromkeys(keys))
    # Links to a note not there when this one was written (moved onto that name by hand
    # since): Obsidian's link to it, put back; or the link as written, where its target is
    # how another note was linked then; or Obsidian's link to a note of the alias's title
    # that was there (renamed in Obsidian, then deleted or moved). The hash decides.
    for match in WIKILINK.finditer(owned):
        target, alias = match.group(1), match.group(3)
        key = targets.key_of(target, folder)
        if key is None or written_target(key, targets.path_then(key, note.run)) == target:
            continue
        readings = [key, AS_WRITTEN] if target in targets.targets_then(note.run) else [key]
        # Another note its alias names (of another title, or of the same: a note that took
        # the name of one deleted, then renamed in Obsidian, took that one's links along).
        readings += [k for k in targets.keys_by_title(alias or "") if k != key]
        if len(readings) > 1:
            options[match.start()] = readings
    places = list(options)
    choices = list(itertools.islice(itertools.product(*options.values()), CHOICES_TRIED))

    def put_back(match: re.Match[str], aliases: bool, files: bool, chosen: dict[int, str]) -> str:
        nonlocal changed
        target, rest, alias = match.group(1), match.group(2), match.group(3)
        key = targets.key_of(target, folder)
        pick = chosen.get(match.start())
        if pick == AS_WRITTEN:
            return match.group(0)
        if pick is not None and (key is not None or not files):
            key = pick
        if key is None:
            written = attachment(target, folder) if files and attachment else None
            if written is None or written == target:
                return match.group(0)
            changed = True
            return f"[[{written}{rest}{'' if alias is None else '|' + alias}]]"
        then = targets.path_then(key, note.run)
        written = written_target(key, then)
        if written == target:
            return match.group(0)
        changed = True
        now = targets.notes[key].path
        if aliases and alias is not None and alias == stem(now):
            alias = stem(then)  # (Obsidian renamed an alias that was the note's name)
        return f"[[{written}{rest}{'' if alias is None else '|' + alias}]]"

    for choice in choices:
        chosen = dict(zip(places, choice, strict=True))
        for files in (False, True) if attachment else (False,):
            for aliases in (False, True):
                changed = False
                text = WIKILINK.sub(
                    lambda m, a=aliases, f=files, c=chosen: put_back(m, a, f, c), owned
                )
                if changed and hash_matches(text, written_hash):
                    return True
    return False
