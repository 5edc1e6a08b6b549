"""The export pipeline: discover, skip what is unchanged, load, build notes, write.

One discovery unit (a session file with its subagents) is in memory at a time. A unit
whose files have the same size and mtime as at the last run is skipped without being read.
Every failure is caught at the unit, note or template it belongs to, reported, and the run
goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from . import notefile, vaultio, vaultrun
from .adapters import Adapter, SessionRef
from .collector import collector_eased, collector_lasting
from .doctor_templates import unknown_template_problems
from .errors import ConfigError, Problem, unit_unread
from .exportcounts import Counting
from .exportsubmit import Submitting
from .interrupts import check_ctrl_c, ctrl_c_noted
from .keptfamily import KeptFamilies
from .model import Session
from .notewriter import NoteWriter
from .options import ExportOptions, unwritable
from .outcome import ExportReport, Interrupted, add_unreadable  # re-exported
from .plan import LinkPlan, default_relpath
from .readahead import ReadAhead
from .readvalues import ReadSession, ReadSettings
from .redact_outputs import redact_report
from .redaction_tally import RedactionTally
from .render import fresh_templates
from .renderkey import recorded_keys
from .runstart import open_vault, renamed_again, unrecorded_notes, vault_notices
from .sources import discover, unreadable_in_sources  # discover: re-exported
from .state import VaultLock
from .template_secrets import run_start
from .unchanged import UnchangedUnits
from .unitprogress import UnitProgress
from .unitreader import UnitReader
from .vault import Action, Change, Vault
from .workers import Renderer, RenderJob, failed
from .zones import machine_zone_name, with_vault_zone

# The note builder (notes, split, packed) is imported where a note is planned, with the
# first one: a run with nothing new to write never imports it.
if TYPE_CHECKING:
    from .workers import Outcome

Progress = Callable[[int, int], None]  # (done, total)
NOT_READ_SHOWN = 5  # the session files a full disk kept unread that the report names


def run_export(options: ExportOptions, progress: Progress | None = None) -> ExportReport:
    """Export every session found into the vault; never raises for one bad session."""
    if options.vault.exists() and not options.vault.is_dir():
        raise ConfigError(f"the vault {options.vault} is not a folder")
    with collector_eased():
        return _export(options, progress)


def _export(options: ExportOptions, progress: Progress | None) -> ExportReport:
    unreadable: list[Problem] = []
    zoned = with_vault_zone(options, machine_zone_name())
    options = zoned.options
    with collector_lasting():
        units = discover(options, unreadable)
        unreadable += unreadable_in_sources(options)
    if options.dry_run:
        vault, options, followed, unrecorded = open_vault(options)
        report = _Run(options, vault).run(units, progress)
        report.problems += followed + unrecorded_notes(unrecorded, report.changes, True)
        if why := unwritable(options.vault):  # what it would write, the real run could not
            stops = "a run without --dry-run stops here; make it writable or choose another --vault"
            report.problems.append(Problem(str(options.vault), f"{why}: {stops}"))
        report.problems += zoned.problems
        return add_unreadable(report, unreadable)
    if not units and not options.vault.exists():  # (a mistyped --vault: no empty vault made)
        report = ExportReport(problems=zoned.problems)
        return add_unreadable(report, unreadable)
    vaultio.make_vault(options.vault)  # (not its parents: a drive not mounted)
    vault_path = options.vault.expanduser().resolve()
    with VaultLock(vault_path, wait=options.lock_wait, waiting=options.waiting) as lock:
        vault, options, followed, unrecorded = open_vault(options)
        vaultrun.begin_run(vault)
        zoned.kept_in(vault.root)
        run = _Run(options, vault, lock.identity())
        try:
            with ctrl_c_noted():
                report = run.run(units, progress)
        except KeyboardInterrupt:
            # Ctrl-C: what was written stays (each note is atomic); the next run finishes,
            # and redoes a parent whose note links a child not written yet.
            run.plan.unmet()
            run.empty_unsaid()
            run.record_attachments()
            vault.save_state()
            raise Interrupted(run.written()) from None
        vaultrun.end_run(vault)
        report.problems += zoned.problems + followed
        report.problems += unrecorded_notes(unrecorded, report.changes, False)
        return add_unreadable(report, unreadable)


class _Run(Submitting, Counting):
    def __init__(
        self, options: ExportOptions, vault: Vault, lock: tuple[int, int, int] | None = None
    ) -> None:
        self.options = options
        self.vault = vault
        self.report = ExportReport(dry_run=options.dry_run)
        fresh_templates()  # templates edited since an earlier run in this process are read
        # (read with the run's rules: a secret in a template or an ``add`` value is redacted)
        self.settings, template_secrets = run_start(options, options.note_settings())
        self.fingerprint = options.render_fingerprint()
        # Templates or settings changed since the index notes were written: write them again.
        # A unit records the fingerprint it was rendered with, so a unit whose notes failed
        # is rendered again next time while the units that succeeded stay skipped.
        self.rerender = vault.state.render != self.fingerprint
        self.redactor = options.redactor()
        self._redactions = RedactionTally()  # said of the notes written (review43 L3)
        if self.redactor:
            vault.scrub = self.redactor.text  # conflict copies and diffs quote old notes
        self.report.problems += vault_notices(vault, self.redactor, self.rerender)
        self.report.problems += unknown_template_problems(options.templates)  # (as doctor)
        self.report.problems += template_secrets
        # default_relpath is looked up here, so a test can stand in for it on this module
        self.plan = LinkPlan(vault, self.settings, default_relpath)
        self._units: dict[str, tuple[Adapter, SessionRef]] = {}
        self._unit = self._source = ""  # the unit being read, and its adapter's name
        self.notes = NoteWriter(vault, self.report, self.plan.secrets_by_key)
        self.kept = KeptFamilies(vault, self.notes, options.force)  # (a shrunk parent's)
        self._again_pass = False
        self._read_any = False  # a unit was read (not skipped) this run
        self._unread: list[str] = []  # units not read, or read in part: the disk filled
        self._written_by: dict[str, str] = {}  # note key -> the unit that wrote it this run
        self._counted: dict[str, bool] = {}  # session key -> counted found (True: skipped)
        self._listed: list[Change] = []  # notes of skipped units, listed by a dry run
        self.unchanged = UnchangedUnits(options, vault, self.fingerprint, self.plan.unit_secrets)
        self._progress: dict[str, UnitProgress] = {}  # units whose notes are being rendered
        usable = not (options.force or options.restore or self.rerender)  # (``renderkey``)
        known = partial(recorded_keys, vault.state, usable)
        self.renderer = Renderer(
            self.settings, options.workers, lock, ReadSettings.of(options), known
        )
        self.ahead = ReadAhead(self.renderer)  # units read by workers before their turn
        self.reader = UnitReader(options, self.ahead, self.plan, self.redactor,
                                 self._children_written)  # fmt: skip
        if vault.attachment_names:  # (the files ccexport wrote: one gone, stays gone)
            vault.attachment_names.remember(vault.state.attachments, options.restore)

    def record_attachments(self) -> bool:
        """Put the attachments written so far in the state's record; True if it changed."""
        names = self.vault.attachment_names
        recorded = names.recorded() if names else None
        if recorded is None or recorded == self.vault.state.attachments:
            return False
        self.vault.state.attachments = recorded
        return True

    def written(self) -> int:
        """Notes created or updated so far in this run."""
        return self.notes.written()

    def run(
        self, units: list[tuple[Adapter, SessionRef]], progress: Progress | None
    ) -> ExportReport:
        try:
            self._export_all(units, progress)
        finally:
            self.renderer.close()
        check_ctrl_c()
        self.notes.late_failures(self.vault.land())
        for change in self.notes.changes.values():
            self.notes.count(change)
        # (a unit skipped, then redone for a link learned later, is listed as redone only)
        listed = [c for c in self._listed if c.key not in self.notes.changes]
        self.report.changes = [*self.notes.changes.values(), *listed]
        # A deletion reported on an earlier run (no message now) is no news for the index.
        changes = self.notes.changes.values()
        news = [c for c in changes if c.action is not Action.DELETED or c.message]
        changed = any(c.action is not Action.UNCHANGED for c in news)
        indexed = True
        # (--restore writes again an index note the person deleted, also when nothing changed)
        relist = self.rerender or changed or self.vault.relist or self.options.restore
        if self.options.index and relist:
            indexed = self.notes.write_indexes(
                self.settings, self.options.index_dataview, self.plan.secrets
            )
        if indexed:
            self.vault.state.render = self.fingerprint
        # A run that read no source and changed nothing leaves the state as it was read.
        touched = self.record_attachments() or self.rerender or self._read_any or bool(news)
        for change in self.notes.late_failures(self.vault.save_state(touched)):
            if not change.key.startswith(notefile.INDEX_PREFIX):  # (no source's notes)
                self.notes.count(change)
        self._say_not_read()
        self.report.rendered_again = self.unchanged.rendered_again()
        self.report.rendered_again_notes = self.unchanged.rendered_again_notes()
        renamed_again(self.report.problems, self.vault, self.plan.renamed)
        if self.redactor:  # problems and changes can quote a source line or an old note
            redact_report(self.report, self.plan.secrets.after(self.redactor.text))
            self.report.redactions = self._redactions.in_written(self.report.changes)
        return self.report

    def _export_all(
        self, units: list[tuple[Adapter, SessionRef]], progress: Progress | None
    ) -> None:
        # (an index that could not be read: its units take the facts of the last run)
        units = [(adapter, self.unchanged.with_recorded_facts(ref)) for adapter, ref in units]
        named = [(adapter, ref, str(ref.main.path)) for adapter, ref in units]  # unit's name
        for adapter, ref, unit in named:
            self._counts(adapter.name)
            self._units[unit] = (adapter, ref)
        skipped = self.unchanged.skipped
        at_start = [skipped(unit, ref) for _adapter, ref, unit in named]
        reading = [(a, ref) for (a, ref, _u), skip in zip(named, at_start, strict=True) if not skip]
        self.plan.expect_children(reading)  # (subagents in units of their own: Codex)
        to_read = [ref for _a, ref in reading]
        self.renderer.plan(len(to_read), sum(ref.size for ref in to_read))
        self.ahead.ask(units, 0, skipped)
        for done, (adapter, ref, unit) in enumerate(named, start=1):
            check_ctrl_c()  # one Python dropped (see ``ctrl_c_noted``) stops the run here
            self.ahead.ask(units, done, skipped)
            # Until a unit is read, nothing can change whether one is skipped (only writing
            # notes, or outdating their links, does): a run with nothing new asks once.
            known = None if self._read_any else at_start[done - 1]
            if self.notes.full is not None and not self.unchanged.skipped(unit, ref):
                self._not_read(adapter, unit)  # (nothing more can be written: not read)
                if progress:
                    progress(done, len(units))
                continue
            try:
                self._export_or_skip(adapter, ref, unit, known)
            except Exception as exc:  # one unit, whatever went wrong, fails alone
                self.ahead.take(unit, wanted=False)
                self._unit_failed(adapter, ref, exc)
            if progress:
                progress(done, len(units))
        self._write_finished(wait=True)
        self.plan.unmet()
        self.plan.read_relatives()  # (their secrets: ``redact_family``)
        # A note written above may be the missing end of a link in another note (a child
        # found after its parent, an origin after its fork): those notes are redone once,
        # read again here.
        self._again_pass = True
        self.ahead.stop()
        for _ in range(0 if self.notes.full is not None else 2):
            again = [u for u in self.plan.again if u in self._units]
            self.plan.again.clear()
            for unit in again:
                self._export_unit(*self._units[unit])
            self._write_finished(wait=True)

    def _export_or_skip(
        self, adapter: Adapter, ref: SessionRef, unit: str, known: bool | None
    ) -> None:
        """``known``: whether the unit is skipped, if that is known still to hold."""
        skip = self.unchanged.skipped(unit, ref) if known is None else known
        if skip and self.plan.may_redo(unit, self.renderer.pending_sessions()):
            # A note still being rendered may make this unit out of date once written (its
            # link's other end, its subagent): in one process it is written by now, and the
            # unit is read in its turn rather than skipped and redone at the end.
            self._write_finished(wait=True)
            skip = self.unchanged.skipped(unit, ref)
        if skip:
            self.ahead.take(unit, wanted=False)  # if it was read ahead, for nothing
            counts = self._counts(adapter.name)
            self._listed += self.unchanged.skip(unit, adapter.name, counts, self.notes,
                                                self._counted)  # fmt: skip
        else:
            self._export_unit(adapter, ref)
            self._write_finished()

    def _unit_failed(self, adapter: Adapter, ref: SessionRef, exc: Exception) -> None:
        unit = str(ref.main.path)
        self._counts(adapter.name).failed += 1
        self.report.problems.append(
            Problem(unit, f"could not be exported ({type(exc).__name__}: {exc})",
                    severity="error", source=adapter.name)
        )  # fmt: skip
        state = self._progress.get(unit)
        if state:
            state.complete = False

    def _not_read(self, adapter: Adapter, unit: str, counted: bool = True) -> None:
        """A unit left unread, or read in part, as the disk filled (``_say_not_read``):
        it keeps its record, so the next run reads it. Counted as failed, as a unit that
        could not be exported is, unless its sessions read so far are."""
        if not self._unread:
            self.ahead.stop()  # (units read ahead by workers: no more)
        self.ahead.take(unit, wanted=False)
        self._unread.append(unit)
        if counted:
            self._counts(adapter.name).failed += 1

    def _say_not_read(self) -> None:
        """The units a full disk kept from being read, said in its one line (a run on a big
        home read every one of them, for minutes, to write nothing: review29)."""
        if not self._unread:
            return
        many = len(self._unread)
        files = "1 session file was" if many == 1 else f"{many} session files were"
        shown = ", ".join(self._unread[:NOT_READ_SHOWN])
        more = f" and {many - NOT_READ_SHOWN} more" if many > NOT_READ_SHOWN else ""
        self.notes.full_also(f"{files} then not read, their sessions not exported "
                             f"({shown}{more}): the next run exports them")  # fmt: skip

    def _export_unit(self, adapter: Adapter, ref: SessionRef) -> None:
        """Load a unit and plan its notes; they are written as their rendering finishes."""
        self._unit = unit = str(ref.main.path)
        self._source = adapter.name
        self._read_any = True
        state = self._progress[unit] = UnitProgress(ref)
        if not self._again_pass:  # (a unit redone was weighed the first time)
            self.renderer.expect(ref.size)
        try:
            for loaded in self.reader.families(adapter, ref):
                if self.notes.full is not None:  # (a database of many: the rest unread)
                    state.complete = False
                    self._not_read(adapter, unit, counted=False)
                    break
                problems, errors = state.took(loaded)
                self.report.problems.extend(p for p in problems if p not in self.report.problems)
                self._counts(adapter.name).failed += errors if not self._again_pass else 0
                sessions = [r.session for r in loaded.sessions]
                if not self._again_pass:  # a unit redone counts once
                    self._count_found(adapter.name, sessions)
                    self.unchanged.count_rendered_again(unit)
                    self._redactions.family((s.key for s in sessions), loaded.redactions)
                ahead = {r.session.key: r for r in loaded.sessions if r.note or r.packed}
                self._plan_family(sessions, state, ahead)
                self._write_finished()
        except Exception as exc:  # one unreadable session must not stop the run
            self._counts(adapter.name).failed += 1
            self.report.problems.append(
                Problem(unit, unit_unread(exc), severity="error", source=adapter.name)
            )
            state.complete = False
        if not self._again_pass and state.empty(bool(self.options.project)):
            self._count_empty(adapter.name, unit)
        state.loaded = True
        self._maybe_done(unit)

    def _children_written(self, sessions: list[Session]) -> None:
        """A subagent whose own unit came first (an old-layout agent file in another
        project folder) is written before its parent is planned, as in one process: its
        parent's note then lists it at once, instead of being redone with it later."""
        if self.renderer.renders_a_child_of({s.key for s in sessions}):
            self._write_finished(wait=True)

    def _maybe_done(self, unit: str) -> None:
        """Every note of a fully read unit is written: remember it, skip it next time. One
        that met an error (a locked database, a note not written) is read again by the next
        run even if its files are as an earlier run recorded them: it kept that record."""
        state = self._progress.get(unit)
        if state and state.loaded and state.outstanding == 0:
            del self._progress[unit]
            if state.complete:
                fingerprint, keys = self.unchanged.done(unit, state.ref, state.written,
                                                        state.filtered)  # fmt: skip
                self.vault.state.remember(unit, fingerprint, keys)
            else:
                self.vault.state.outdate(unit)

    def _plan_family(
        self, sessions: list[Session], state: UnitProgress, ahead: dict[str, ReadSession]
    ) -> None:
        """Choose every path first, so parent and subagent notes can link to each other;
        then decide each link and hand the rendering over (``ahead``: the sessions whose
        notes were rendered already, read ahead: alone, or at the paths chosen here)."""
        paths = self.plan.place(
            sessions, self._unit, lambda session, exc: self._session_failed(session, exc, state)
        )
        resolve = self.plan.resolver(self._unit, paths)
        for session in sessions:
            if session.key not in paths:
                continue  # failed above
            owner = self._written_by.setdefault(session.key, self._unit)
            if owner != self._unit:  # the same session reached through two sources
                why = f"{session.key} was already exported from {owner}; this copy is skipped"
                self.report.problems.append(Problem(self._unit, why, source=session.source))
                continue  # (one session, counted once: its copy is not "found")
            try:
                known = self.plan.with_known_children(session)
                self.plan.rendering(known)
                read = ahead.get(session.key)
                if read is not None and read.note is not None:
                    self._done_ahead(read, known, paths[session.key], resolve, state)
                    continue
                packed = read.packed if read is not None else None
                self._submit(known, paths[session.key], resolve, state, packed)
                self._write_finished()  # (a family of many is not held rendered whole)
            except Exception as exc:  # this session alone fails; its family goes on
                self._session_failed(session, exc, state)

    def _session_failed(
        self, session: Session, exc: Exception, state: UnitProgress, key: str | None = None
    ) -> None:
        """The session (or, with ``key``, one of its parts) could not be exported."""
        key = key or session.key
        why = f"{key} could not be exported ({type(exc).__name__}: {exc})"
        where = str(session.source_path) if session.source_path.parts else self._unit
        self.report.problems.append(Problem(where, why, severity="error", source=session.source))
        self.notes.record(Change(Action.FAILED, key, where, why))
        state.complete = False

    def _write_finished(self, wait: bool = False) -> None:
        for job, outcome in self.renderer.finished(wait):
            state = self._progress[job.unit]
            state.outstanding -= 1
            try:
                written = self._write(job, outcome)
            except Exception as exc:  # a note the vault cannot take fails alone
                why = f"could not be written ({type(exc).__name__}: {exc})"
                self.notes.failed(job, failed(job, why))
                written = False
            if written:
                state.written.append(job.key)
            else:
                state.complete = False
            self._maybe_done(job.unit)

    def _write(self, job: RenderJob, outcome: Outcome) -> bool:
        # (by another version?)
        made_otherwise = self.unchanged.made_otherwise(job.unit, job.session.source)
        if not self.kept.keeps(job, outcome):  # (kept with its parent's: the source shrank)
            outcome = self.kept.titled(job, outcome, self.settings)  # (one that grew)
            if not self.notes.write(job, outcome, self.settings, made_otherwise):
                return False
            self.kept.wrote(job)
        if job.part is None or job.part.number == 1:
            self.plan.linked(job.session, job.unit)
        return True
