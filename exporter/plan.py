"""Where a family of sessions goes in the vault, and how its notes link to each other.

Every path of a family is chosen before any note is rendered, so a parent and its
subagents can link to each other. A link whose other end is not written yet is
remembered; when that note is written, the units waiting for it are exported once more.
A subagent in a unit of its own that names its parent (a Codex rollout) is asked before
the first unit: its parent's note links it where it will go, and is written once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING

from .model import Session, session_key
from .notefile import INDEX_PREFIX
from .notespec import NoteSettings
from .projectfolders import found_project_folders
from .redact_family import Found, inherited, relatives, to_redo, unread_redacted
from .redact_outputs import move_secret_path
from .session_secrets import KnownSecrets, secrets_of, without_secrets
from .vault import Vault
from .vaultpaths import inside, safe_relpath

if TYPE_CHECKING:
    from .adapters.base import Adapter, SessionRef

RelPath = Callable[..., str]  # default_relpath, or a stand-in given by the run


def default_relpath(session: Session, settings: NoteSettings, parent_path: str | None) -> str:
    """Where a new note goes (``notes.default_relpath``; the note builder is imported with
    the first note placed, not by a run that places none)."""
    from .notes import default_relpath as relpath

    return relpath(session, settings, parent_path)


class LinkPlan:
    """The paths chosen this run and the links still waiting for their other end."""

    def __init__(
        self, vault: Vault, settings: NoteSettings, relpath: RelPath = default_relpath
    ) -> None:
        self.vault = vault
        self.settings = settings
        self._relpath = relpath
        self._renamed_projects: dict[str, str | None] = {}  # folder -> its new name, if renamed
        # No session note recorded when the run began (a new machine, .ccexport/ lost)
        self._unrecorded = all(key.startswith(INDEX_PREFIX) for key in vault.state.notes)
        self._family_paths: dict[str, str] = {}
        self._unit_of: dict[str, str] = {
            key: unit for unit, rec in vault.state.sources.items() for key in rec.get("notes", [])
        }
        self.again: dict[str, None] = {}  # units to export once more, in order
        # What each note was rendered with this run: its subagents, and the note each of its
        # links named (by unit and key). A parent whose note already lists a subagent found
        # later, and links it where it landed, is not redone for it.
        self._rendered_children: dict[str, frozenset[str]] = {}
        self._rendered_forks: dict[str, tuple[tuple[str, str], ...]] = {}
        self._linked_to: dict[tuple[str, str], str] = {}
        # Subagents whose own units this run reads (``expect_children``): child -> parent,
        # parent -> children (in the order of their units), and those written under it.
        self._expected: dict[str, str] = {}
        self._coming: dict[str, list[str]] = {}
        self._arrived: set[str] = set()
        self._written: set[str] = set()  # notes written this run (``linked``)
        # Notes moved (a dry run: to be moved) off a name that held a secret of their
        # session's (``_without_secrets``): from, to.
        self.renamed: list[tuple[str, str]] = []
        # Note key -> its session's secrets (``session_secrets``): the session is rendered
        # without them (``with_known_children``), its note written with them.
        self.secrets_by_key: dict[str, tuple[tuple[str, str], ...]] = {}
        # The secrets of every session placed this run (``session_secrets``), and by unit:
        # what the run prints, the index notes and the state's facts may quote them.
        self.secrets = KnownSecrets()
        self.unit_secrets: dict[str, KnownSecrets] = {}
        # Session key -> its relatives (``redact_family``), for each session placed this run
        # that has any: a relative this run did not read is read if its note was redacted.
        self._relatives_of: dict[str, list[str]] = {}

    def place(
        self, sessions: list[Session], unit: str, failed: Callable[[Session, Exception], None]
    ) -> dict[str, str]:
        """The path of each session of a family; one that cannot be placed is ``failed``."""
        paths: dict[str, str] = {}
        for session in sessions:
            found = secrets_of(session)
            if found:
                self.secrets.add(found)
                self.unit_secrets.setdefault(unit, KnownSecrets()).add(found)
            try:
                parent_path = self._parent_path(session, paths)
                proposed = self._proposed(session, parent_path)
                chosen = self.vault.choose_path(session.key, proposed)
                paths[session.key] = self._without_secrets(session, chosen, unit)
            except Exception as exc:  # this session alone cannot be placed
                failed(session, exc)
                continue
            self._family_paths[session.key] = paths[session.key]
            self._unit_of[session.key] = unit
        for session in sessions:
            self._pass_on(session, unit)
        return paths

    def _proposed(self, session: Session, parent_path: str | None) -> str:
        """Where a new note of ``session`` goes: its project's folder, or the one folder
        beside it that the person renamed it to (``_project_renamed``)."""
        proposed = self._relpath(session, self.settings, parent_path)
        if parent_path or not self.settings.layout.endswith("{project}"):
            return proposed  # (a subagent sits beside its parent's note)
        folder, _, name = proposed.rpartition("/")
        if folder not in self._renamed_projects:
            self._renamed_projects[folder] = self._project_renamed(session, folder)
        renamed = self._renamed_projects[folder]
        return f"{renamed}/{name}" if renamed else proposed

    def _project_renamed(self, session: Session, folder: str) -> str | None:
        """The folder the person renamed a project's ``folder`` to in Obsidian: it is not
        there, and every note of the project the state records is found (by identity) in
        that one folder, beside where it was. Else the next new session of the project made
        a second folder of the old name (review29 F13). A machine without the state finds
        the project's notes by their properties (``found_project_folders``)."""
        from .notes import project_of  # (the note builder: imported by then)

        vault = self.vault
        if (vault.root / folder).exists() or not inside(folder):
            return None
        project = project_of(session)
        keys = [key for key, record in vault.state.notes.items()
                if not record.deleted and not key.startswith(INDEX_PREFIX)
                and record.meta.get("source") == session.source
                and record.meta.get("project") == project]  # fmt: skip
        places = {path.rpartition("/")[0] for key in keys if (path := vault.path_of(key))}
        if self._unrecorded:  # (no record of the project's notes: the notes tell)
            places = found_project_folders(vault, session.source, project, folder)
        if len(places) != 1:
            return None
        (place,) = places
        beside = place.rpartition("/")[0] == folder.rpartition("/")[0]
        return place if beside and place != folder and (vault.root / place).is_dir() else None

    def _relatives(self, session: Session) -> list[str]:
        return relatives(self.vault, session, self._coming.get(session.key, ()))

    def inherited(self, session: Session) -> Found:
        """The secrets of ``session``'s relatives placed this run (``redact_family``)."""
        return inherited(self._relatives(session), self.secrets_by_key)

    def lacks_inherited(self, session: Session) -> bool:
        """Was ``session`` read without a secret of a relative placed this run?"""
        carried = {value for value, _rule in secrets_of(session)}
        return any(value not in carried for value, _rule in self.inherited(session))

    def _pass_on(self, session: Session, unit: str) -> None:
        """A relative of ``session`` in another unit whose note may lack one of its secrets
        is exported once more (``redact_family.to_redo``)."""
        keys = self._relatives(session)
        if keys:
            self._relatives_of[session.key] = keys
        found = secrets_of(session)
        if not found:
            return
        placed = {k: self.secrets_by_key.get(k, ()) for k in keys if k in self._family_paths}
        for other in to_redo(self.vault, found, keys, placed, self._unit_of, unit):
            self._again(other)

    def read_relatives(self) -> None:
        """The relatives of the sessions placed this run, in units this run did not read,
        whose notes hold a redaction: exported once more, as their secrets (unknown until
        read) may be missing from the notes of those read (``redact_family``)."""
        placed = self._family_paths.keys()
        for unit in unread_redacted(self.vault, self._relatives_of, placed, self._unit_of):
            self._again(unit)
        self._relatives_of.clear()

    def _without_secrets(self, session: Session, path: str, unit: str) -> str:
        """The path of ``session``'s note, moved off a name holding a secret of its session
        (``session_secrets``: found since the name was chosen, when no rule knew it yet) as
        ``rename_secret_paths`` moves one the rules find; or of its parent's, placed this
        run (a subagent's note is named after its parent's, also one in a unit of its own).
        The notes that link to it from other units are exported again (a parent's, a
        subagent's in a unit of its own, a fork's); the index notes are written again. A
        dry run moves nothing."""
        found = secrets_of(session)
        if found:
            self.secrets_by_key[session.key] = found
        if session.parent_id:
            found += self.secrets_by_key.get(session_key(session.source, session.parent_id), ())
        clean = self._moved_off(session.key, found, path)
        if clean == path:
            return path
        linking = [
            *self.vault.state.children.get(session.key, ()),
            *(key for key, _how, _start in self.vault.state.forks.get(session.key, ())),
        ]
        for relative in (session.parent_id, session.forked_from):
            if relative:
                linking.append(session_key(session.source, relative))
        for key in linking:
            other = self._unit_of.get(key)
            if other and other != unit:
                self._again(other)
        return clean

    def choose_part(self, session: Session, number: int, first: str) -> str:
        """The path of part ``number`` of ``session``'s note (``split``; ``first``: its first
        part's), moved off a name holding a secret of the session, as the first part is."""
        from .notespec import part_key
        from .split import part_relpath  # (the note builder: imported by then)

        key = part_key(session.key, number)
        path = self.vault.choose_path(key, part_relpath(first, number))
        return self._moved_off(key, self.secrets_by_key.get(session.key, ()), path)

    def _moved_off(self, key: str, found: tuple[tuple[str, str], ...], path: str) -> str:
        """Where the note of ``key``, at ``path``, is once moved off a name holding one of
        ``found`` (``move_secret_path``); ``path`` when it holds none, or in a dry run."""
        record = self.vault.state.notes.get(key)
        if not found or record is None or record.path != path:
            return path
        clean = move_secret_path(self.vault, record, KnownSecrets(found).after(self.vault.scrub))
        if clean is None:
            return path
        self.renamed.append((path, clean))
        if self.vault.dry_run:
            return path
        self.vault.moved_off_secret(key, path, clean)
        return clean

    def places_as(self, sessions: list[Session], predicted: dict[str, str]) -> bool:
        """Would ``place`` give each of these sessions (a family, in order) that has a
        ``predicted`` path exactly that path? Nothing is reserved."""
        for session in sessions:
            path = predicted.get(session.key)
            if path is None:
                continue
            parent_path = self._parent_path(session, predicted)
            proposed = self._proposed(session, parent_path)
            if safe_relpath(proposed) != path or not self.vault.chooses(session.key, path):
                return False
        return True

    def links_hold(self, links: dict[str, str | None]) -> bool:
        """Are the links a note rendered ahead made (key -> target) still links: none leads
        to a note the person deleted (the main process links it no more)? Without side
        effects, as ``places_as``."""
        return not any(
            target is not None and self.vault.left_deleted(key) for key, target in links.items()
        )

    def resolver(self, unit: str, paths: dict[str, str]) -> Callable[[str], str | None]:
        """The link target (a note's stem) of a key, or None while that note is unknown."""

        def resolve(key: str) -> str | None:
            # (a note the person deleted: no link; it waits, as for a note not yet written,
            # so that ``--restore`` writing it links it again)
            if self.vault.left_deleted(key):
                path = None
            else:
                path = self._path_known(key, paths) or self._predicted_child(key, paths)
            if path is None:  # remember who waits for this note
                waiting = self.vault.state.links.setdefault(key, [])
                if unit not in waiting:
                    waiting.append(unit)
            else:
                self._linked_to[unit, key] = path
            return Path(path).stem if path else None

        return resolve

    def expect_children(self, units: Sequence[tuple[Adapter, SessionRef]]) -> None:
        """Ask the units to be read whose adapter tells it cheaply (``spawned_by``: one
        line read) which are subagents, and of which parent."""
        for adapter, ref in units:
            spawned_by = getattr(adapter, "spawned_by", None)
            found = spawned_by(ref) if spawned_by else None
            if found:
                child, parent = (session_key(adapter.name, i) for i in found)
                known = self.vault.state.children.get(parent, ())
                if child != parent and child not in self._expected and child not in known:
                    self._expected[child] = parent  # (one known already links as it did)
                    self._coming.setdefault(parent, []).append(child)

    def unmet(self) -> None:
        """Expected children no note came of (their unit failed or held no conversation, a
        filter left them out, or they named another parent when read): each parent whose
        note lists one is exported again without it."""
        for child, parent in list(self._expected.items()):
            if child in self._arrived:
                continue
            del self._expected[child]
            self._coming[parent].remove(child)
            unit = self._unit_of.get(parent)
            listed = child.partition(":")[2] in self._rendered_children.get(parent, ())
            if unit and listed and parent in self._written:  # (a failed one is retried anyway)
                self._again(unit)
            # Any other note linked where the child was to land (a grandchild's parent
            # link): redone too, so that it waits for the child as without the prediction.
            if child not in self._family_paths and self.vault.path_of(child) is None:
                for unit_key in [uk for uk in self._linked_to if uk[1] == child]:
                    del self._linked_to[unit_key]
                    self._again(unit_key[0])

    def with_known_children(self, session: Session) -> Session:
        """``session`` with the children learned from them: its subagents, and the sessions
        that went on from it (``forks``: forked or saved from it); as it is rendered, without
        the secrets it carries (``secrets_by_key`` keeps them: no renderer needs them)."""
        session = without_secrets(session)
        forks = self._known_forks(session)
        if forks != session.forks:
            session = replace(session, forks=forks)
        known = [
            *self.vault.state.children.get(session.key, ()),
            *self._coming.get(session.key, ()),
        ]
        if not known:
            return session
        ids = [k.partition(":")[2] for k in known]
        return replace(session, subagent_ids=tuple(dict.fromkeys([*session.subagent_ids, *ids])))

    def rendering(self, session: Session) -> None:
        """``session``'s note is being rendered with these subagents and forks."""
        self._rendered_children[session.key] = frozenset(session.subagent_ids)
        self._rendered_forks[session.key] = session.forks

    def linked(self, session: Session, own_unit: str) -> None:
        """This note now exists: notes waiting to link to it, and its parent, are redone."""
        self._written.add(session.key)
        for unit in self.vault.state.links.pop(session.key, []):
            if unit != own_unit:
                self._again(unit)
        if session.parent_id:
            parent = f"{session.source}:{session.parent_id}"
            if self._expected.get(session.key) == parent:
                self._arrived.add(session.key)
            known = self.vault.state.children.setdefault(parent, [])
            if session.key not in known:
                known.append(session.key)
                unit = self._unit_of.get(parent)
                if unit and unit != own_unit and not self._listed_by(parent, unit, session):
                    self._again(unit)
        if session.forked_from:
            self._went_on(session)

    def may_redo(self, unit: str, sessions: Iterable[Session]) -> bool:
        """Could writing the notes of these sessions make ``unit`` be exported again
        (``linked``): it waits to link to one of them, or holds the parent of one?"""
        for session in sessions:
            if unit in self.vault.state.links.get(session.key, ()):
                return True
            parent = f"{session.source}:{session.parent_id}" if session.parent_id else None
            if parent and self._unit_of.get(parent) == unit:
                return True
            origin = f"{session.source}:{session.forked_from}" if session.forked_from else None
            if origin and self._unit_of.get(origin) == unit:
                return True
        return False

    def _known_forks(self, session: Session) -> tuple[tuple[str, str], ...]:
        """The sessions known to have gone on from ``session``, in order of their start."""
        known = self.vault.state.forks.get(session.key)
        if not known:
            return session.forks
        return tuple((key.partition(":")[2], how) for key, how, _start in known)

    def _went_on(self, session: Session) -> None:
        """The note of a session forked or saved from another is written: that other
        session's note names it (``forks``), and is redone for it once, unless it was
        rendered this run already naming it, linked where its note is."""
        origin = f"{session.source}:{session.forked_from}"
        if origin == session.key:
            return
        how = "saved" if session.saved_copy else "forked"
        start = session.started_at.astimezone(UTC).isoformat() if session.started_at else ""
        entry = [session.key, how, start]
        known = self.vault.state.forks.setdefault(origin, [])
        if entry in known:
            return
        known[:] = [e for e in known if e[0] != session.key] + [entry]
        known.sort(key=lambda e: (not e[2], e[2], e[0]))  # (an unknown start last)
        unit = self._unit_of.get(origin)
        if not unit:  # (no note of it: nothing to name it in)
            return
        # (Its own unit too, unlike a subagent's parent: nothing planned the two together.)
        rendered = self._rendered_forks.get(origin)
        listed = rendered is not None and (session.session_id, how) in rendered
        if not (
            listed
            and self._linked_to.get((unit, session.key)) == self._family_paths.get(session.key)
        ):
            self._again(unit)

    def _again(self, unit: str) -> None:
        """Export ``unit`` once more this run; until then the state says it is not done."""
        self.again[unit] = None
        self.vault.state.outdate(unit)

    def _listed_by(self, parent: str, unit: str, child: Session) -> bool:
        """Was the parent's note rendered this run already listing ``child``, linked where
        its note is? (An old-layout agent file is a unit of its own, read after its parent,
        whose Task result named it: rendering the parent again would change nothing.)"""
        if child.session_id not in self._rendered_children.get(parent, ()):
            return False
        return self._linked_to.get((unit, child.key)) == self._family_paths.get(child.key)

    def _parent_path(self, session: Session, paths: dict[str, str]) -> str | None:
        """Where the note of ``session``'s parent is, if it has one. A session without one
        is not looked up under a parent key of ``None``: finding no such note, that search
        went through every note of the vault (0.5 s of a run over 20,000 sessions)."""
        if not session.parent_id:
            return None
        return self._path_known(f"{session.source}:{session.parent_id}", paths)

    def _path_known(self, key: str, paths: dict[str, str]) -> str | None:
        return paths.get(key) or self._family_paths.get(key) or self.vault.path_of(key)

    def _predicted_child(self, key: str, paths: dict[str, str]) -> str | None:
        """A subagent exported from its own file later sits beside its parent's note: one
        its parent lists (an agent only named by a Task result may never get a note), or
        one whose unit named its parent (``expect_children``; ``unmet`` if it never came)."""
        source, _, session_id = key.partition(":")
        parent_id, sep, _agent = session_id.rpartition("/agent-")
        if not sep and key in self._expected:
            parent_id, sep = self._expected[key].partition(":")[2], ":"
        if not sep or session_id not in self._rendered_children.get(f"{source}:{parent_id}", ()):
            return None
        parent_path = self._path_known(f"{source}:{parent_id}", paths)
        if not parent_path:
            return None
        stub = Session(source, session_id, (), Path(), parent_id=parent_id)
        return self._relpath(stub, self.settings, parent_path)
