"""Units unchanged since their notes were written: not read again.

A unit is skipped when its files and the way its notes are rendered are what the state
recorded, unless ``--force`` asks for everything or ``--restore`` for a note the person
deleted, or a note was replaced by another file (an older copy taken back), or one left
deleted is back in its place (another machine wrote it, a sync tool brought it back). Its
notes are then counted from the state alone, each looked up in its folder's listing (read
once a run) for a deletion in the vault.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime

from .adapters import SessionRef
from .fact_secrets import facts_match, facts_redacted
from .notecopies import MadeBy, counted_remarks
from .notespec import is_later_part, project_matches
from .notewriter import NoteWriter
from .options import ExportOptions
from .outcome import SourceCounts
from .render import render_entry
from .rendermade import UNFINISHED_WHY, made_by_another, notes_render
from .session_secrets import KnownSecrets
from .vault import Action, Change, Vault


class UnchangedUnits:
    def __init__(
        self,
        options: ExportOptions,
        vault: Vault,
        render: str,
        secrets: dict[str, KnownSecrets] | None = None,
    ) -> None:
        self.options = options
        self.vault = vault
        self.render = render  # the run's render fingerprint
        # A unit's fingerprint is asked for up to three times a run (to plan the pool, in
        # its turn, once its notes are written); its files' stamps and the run decide it.
        self._fingerprints: dict[str, list[list[object]]] = {}
        self._counted: set[str] = set()  # units read whose notes were rendered otherwise
        self._again: Counter[bool] = Counter()  # their notes, by another version or not
        self._by: Counter[str] = Counter()  # those by another version that said which
        self._moved = 0  # their notes, rendered otherwise only for the folder they moved to
        self._unfinished = 0  # their notes, left to be done again by the last run
        # unit -> its fingerprint as the state held it when the run first asked (``done``)
        self._at_start: dict[str, list[list[object]] | None] = {}
        self._moved_from: tuple[str, str] | None = None  # (folder, its fingerprint), asked once
        # unit -> its sessions' secrets (``LinkPlan.unit_secrets``): its facts may hold them
        self._secrets = secrets if secrets is not None else {}

    def count_rendered_again(self, unit: str) -> None:
        """A unit read whose notes were last rendered otherwise: counted, with why."""
        if unit in self._counted:
            return
        self._counted.add(unit)
        record = self.vault.state.sources.get(unit)
        entry = notes_render((record or {}).get("fingerprint") or [])
        if record and entry != render_entry(self.render):
            kept = self.vault.state.notes
            notes = len(
                [
                    k
                    for k in self._matching_notes(unit)  # (those the filters select)
                    if not is_later_part(k) and k in kept and not kept[k].deleted
                ]
            )  # (as doctor counts them)
            if entry is None:  # a run failed on them, or stopped before they were done
                self._unfinished += notes
                return
            if self._folder_moved_only(entry):
                self._moved += notes
                return
            self._again[made_by_another(entry)] += notes
            if made_by_another(entry) and isinstance(entry, list) and len(entry) > 2:
                self._by[str(entry[2])] += notes

    def _folder_moved_only(self, entry: object) -> bool:
        """Were a unit's notes rendered, by this version, exactly as now but for the notes'
        folder, which the person renamed or moved in the vault and this run follows
        (``runstart.moved_folder``)? Then that is why they are rendered again (review35 5:
        "the templates, settings or redaction rules changed" was said, of none changed)."""
        if made_by_another(entry) or not isinstance(entry, list) or len(entry) < 2:
            return False
        if self._moved_from is None:
            now = self.options.folder
            old = next((o for o, new in self.vault.state.folders.items() if new == now), None)
            before = replace(self.options, folder=old).render_fingerprint() if old else ""
            self._moved_from = (old or "", before)
        return bool(self._moved_from[1]) and entry[1] == self._moved_from[1]

    def rendered_again_notes(self) -> int:
        """How many notes of the units read ``rendered_again`` speaks of (0: none)."""
        return sum(self._again.values()) + self._moved + self._unfinished

    def rendered_again(self) -> str:
        """Why the notes of units read this run were rendered again, and how many ("": none
        was). A run after an upgrade updated hundreds of notes with no word of why."""
        by_version, otherwise, moved = self._again[True], self._again[False], self._moved
        unfinished = self._unfinished
        if not by_version + otherwise + moved + unfinished:
            return ""
        whys = []
        if moved and self._moved_from:
            old, now = self._moved_from[0], self.options.folder
            whys.append(
                f'their folder "{old}" was renamed or moved to "{now}" in the vault, and they '
                "were followed there"
            )
        if by_version:
            why = "this version of ccexport writes notes otherwise"
            if self._by:  # (two versions sharing a vault tell each other so)
                why += f" than the one that last wrote them ({self._by.most_common(1)[0][0]})"
            whys.append(why)
        elif otherwise:
            whys.append("the templates, settings or redaction rules changed")
        if unfinished:  # (review40 M2: said of no note, while doctor blamed another version)
            others = by_version + otherwise + moved
            said = f"the last run left them to be read again ({UNFINISHED_WHY})"
            whys.append(f"{unfinished} of them: {said}" if others else said)
        n = by_version + otherwise + moved + unfinished
        return f"{n} note{'s' if n != 1 else ''} rendered again: {'; '.join(whys)}"

    def made_otherwise(self, unit: str, source: str) -> MadeBy:
        """Were the unit's notes last rendered by another version of ccexport? Such a note
        may end later, count more calls, or (of a source ccexport remarks on) count a remark
        of ccexport's as a message, for that alone (``notecopies.holds_more``)."""
        entry = notes_render(self.vault.state.sources.get(unit, {}).get("fingerprint") or [])
        if not made_by_another(entry):
            return MadeBy.THIS
        # (a notice of kind "remark", counted as a message before the source's
        # ``notecopies.REMARKS_UNCOUNTED``)
        if counted_remarks(entry, source):
            return MadeBy.COUNTING_REMARKS
        return MadeBy.ANOTHER

    def with_recorded_facts(self, ref: SessionRef) -> SessionRef:
        """A unit whose index could not be read this run (or no longer names it), with the
        facts its notes were last made from: its title does not flip to the first prompt
        (and back next run, an alias more each time), its folder is not lost, and if its
        files did not change it is skipped. A unit not exported before has none to take:
        its notes get what its own files say."""
        if ref.unread_index is None and not ref.recalls_facts:
            return ref
        record = self.vault.state.sources.get(str(ref.main.path))
        fingerprint = record.get("fingerprint") if record else None
        if not fingerprint:  # never exported, or outdated (its record of facts is gone)
            return ref
        own = fingerprint[2:] if _filters(fingerprint) else fingerprint[1:]  # [0]: the render's
        return ref.with_facts(SessionRef.facts_in(own))

    def fingerprint(self, unit: str, ref: SessionRef) -> list[list[object]]:
        """What a unit's notes were made from: its files and the way notes are rendered."""
        found = self._fingerprints.get(unit)
        if found is None:
            found = [render_entry(self.render), *ref.fingerprint()]
            self._fingerprints[unit] = found
            self._at_start[unit] = self.vault.state.sources.get(unit, {}).get("fingerprint")
        return found

    def done(
        self, unit: str, ref: SessionRef, written: list[str], filtered: bool
    ) -> tuple[list[list[object]], list[str]]:
        """What the state remembers of a unit whose notes were all written: its fingerprint
        and its notes. One whose filters (``--since``, ``--project``: a ``since`` in the
        config applies to every run) left out some of its sessions also remembers those
        filters, and keeps the notes it had of sessions they left out: a run whose filters
        keep no more of it skips it while its files stay the same. Else every nightly run
        read again each database or log holding an old conversation, and a change of
        settings never finished (its older notes are rendered again when read without the
        filters, or with filters that keep them)."""
        # (its facts as the state keeps them: without a secret its sessions named)
        fingerprint = facts_redacted(self.fingerprint(unit, ref), self._secrets.pop(unit, None))
        if not filtered:
            return fingerprint, written
        before = self.vault.state.sources.get(unit, {}).get("notes", [])
        entry = self._filter_entry()
        made = notes_render(self._at_start.get(unit) or [])
        if not written and made is not None and made != fingerprint[0]:
            # The filters left out every session of it, so none of its notes was rendered
            # with this run's templates and settings: the filters' entry says how they were
            # (review40 L1: a --project run with another setting made every note of the
            # vault look rendered with it, and the next full run said all of them were
            # rendered again "because the settings changed"). As the run found it: a link
            # redone this run may have marked the unit to be read again since.
            entry.append(made)
        kept = [*written, *(key for key in before if key not in written)]
        return [fingerprint[0], entry, *fingerprint[1:]], kept

    def _filter_entry(self) -> list[object]:
        """The filters a unit was read with, second in its fingerprint (after the render's:
        the last entry is the unit's own facts)."""
        since, project = self.options.since, self.options.project
        return ["filtered", since.isoformat() if since else "", project or ""]

    def skipped(self, unit: str, ref: SessionRef) -> bool:
        """Is the unit unchanged since its notes were written (and none is to be restored)?"""
        return (
            not self.options.force
            and not self._to_restore(unit)
            and self._unchanged(unit, self.fingerprint(unit, ref))
            and not self._replaced(unit)
        )

    def _unchanged(self, unit: str, fingerprint: list[list[object]]) -> bool:
        """Does the state record the unit with this fingerprint, or with it and filters that
        kept at least what this run's keep (a ``since`` as early or earlier, the same
        ``--project`` or none)?"""
        state = self.vault.state
        if state.unchanged(unit, fingerprint):
            return True
        recorded = state.sources.get(unit, {}).get("fingerprint") or []
        if facts_match(recorded, fingerprint):  # (a fact the state keeps redacted)
            return True
        entry = _filters(recorded)
        unfiltered = [*recorded[:1], *recorded[2:]]
        same = unfiltered == fingerprint or facts_match(unfiltered, fingerprint)
        if entry is None or not same:
            return False
        since, project = entry
        if (project and project != self.options.project) or not (since or project):
            return False
        try:
            return not since or bool(self.options.since) and self.options.since >= (
                datetime.fromisoformat(since))  # fmt: skip
        except (TypeError, ValueError):  # (a state file edited by hand)
            return False

    def _replaced(self, unit: str) -> bool:
        """Was one of the unit's notes replaced by another file (an older copy taken back),
        or is one the person deleted back in its place? Its source did not change, but the
        note must be made again from it (in this run: the next would otherwise do it)."""
        notes = self.vault.state.notes
        for key in self.vault.state.sources[unit].get("notes", ()):
            record = notes.get(key)
            if record is None:
                continue
            if record.deleted:
                if self.vault.is_back(key, record):
                    return True
            elif self.vault.replaced(record, key):
                return True
        return False

    def skip(
        self, unit: str, source: str, counts: SourceCounts, notes: NoteWriter,
        counted: dict[str, bool] | None = None,
    ) -> list[Change]:  # fmt: skip
        """Count a skipped unit's notes, and record those deleted in the vault since; a
        dry run also gets the notes it leaves alone, to list them. ``counted``: the
        sessions the run counted already (True: as skipped), each counted once (a Claude
        Code session copied into two project folders: review43 L6)."""
        counted = {} if counted is None else counted
        keys = self._matching_notes(unit)
        mine = {k for k in keys if not is_later_part(k) and k not in counted}  # (a part: none)
        counted.update(dict.fromkeys(mine, True))
        counts.found += len(mine)
        counts.skipped += len(mine)
        deleted = set()
        for key in keys:
            change = self.vault.note_deleted(key)  # one stat: deleted in Obsidian?
            if change:
                counts.skipped -= key in mine
                if key in mine:
                    counted[key] = False  # (counted as deleted, not skipped)
                notes.record(change)
                notes.report_deleted(change, source)
                deleted.add(key)
        if not self.options.dry_run:
            return []
        return [change for change in self._listed(keys) if change.key not in deleted]

    def _to_restore(self, unit: str) -> bool:
        """With ``--restore``, a unit with a note the person deleted is read again: one the
        state says is deleted, or one not where the state says (its path may hold another
        note by now: one restored earlier in this run, given its freed name)."""
        if not self.options.restore:
            return False
        notes = self.vault.state.notes
        keys = self.vault.state.sources.get(unit, {}).get("notes", [])
        return any(k in notes and (notes[k].deleted or self.vault.is_missing(notes[k].path)
                                   or self.vault.holds_another(notes[k].path, k))
                   for k in keys)  # fmt: skip

    def _matching_notes(self, unit: str) -> list[str]:
        """The notes of an unchanged unit that the filters select (so ``--project web``
        counts web's sessions, not every session as unchanged). Discovery left out units
        not touched since ``--since``; a unit touched since (a log or database holds many
        sessions) has each note's session judged as reading it would (``selected``)."""
        keys = self.vault.state.sources[unit].get("notes", [])
        wanted, since = self.options.project, self.options.since
        if not wanted and not since:
            return list(keys)
        notes = self.vault.state.notes
        return [
            key
            for key in keys
            if key in notes
            and (not wanted or project_matches(wanted, str(notes[key].meta.get("project") or "")))
            and (not since or not self._before(notes[key].meta, since))
        ]

    def _before(self, meta: dict, since: datetime) -> bool:
        """Did the note's session end (else begin) before ``since``, as its properties say
        (local times of the note's zone, this run's)?"""
        value = meta.get("updated") or meta.get("created")
        try:
            when = datetime.fromisoformat(value) if isinstance(value, str) else None
        except ValueError:
            return False
        if when is None:
            return False
        if when.tzinfo is None:
            when = when.replace(tzinfo=self.options.timezone) if self.options.timezone else (
                when.astimezone())  # fmt: skip
        return when < since

    def _listed(self, keys: list[str]) -> list[Change]:
        """The notes a dry run leaves alone (those the filters select), read from the
        state."""
        found = []
        for key in keys:
            record = self.vault.state.notes.get(key)
            if record:
                found.append(Change(Action.UNCHANGED, key, record.path))
        return found


def _filters(fingerprint: list) -> tuple[str, str] | None:
    """The ``since`` and ``--project`` a unit's fingerprint says it was read with, if any."""
    entry = fingerprint[1] if len(fingerprint) > 2 else None
    if isinstance(entry, list) and len(entry) in (3, 4) and entry[0] == "filtered":
        return entry[1], entry[2]
    return None
