"""Printing an export report for people: a summary, then what went wrong."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from .errors import Problem, visible
from .outcome import ExportReport, SourceCounts
from .pasted import completed
from .vault import SHRUNK, Action
from .vaultio import anchored, append_path, read_file, write_path
from .vaultplaces import DELETED_NOTE

if TYPE_CHECKING:
    from .options import ExportOptions

_VERB = {
    Action.CREATED: "create",
    Action.RENAMED: "create (renamed)",
    Action.UPDATED: "update",
    Action.CONFLICT: "update (conflict)",
    Action.UNCHANGED: "leave alone",
    Action.KEPT: "keep (source shrank)",
    Action.FAILED: "fail",
    Action.DELETED: "leave deleted",
    Action.SAVED_MEANWHILE: "keep (saved meanwhile)",  # (never in a dry run: nothing lands)
}
_WRITTEN = (Action.CREATED, Action.RENAMED, Action.UPDATED, Action.CONFLICT)
# Warnings shown per file in the summary for people; the rest of that file's are counted
# in one line (a first export of a long Aider log warned 57 times). --verbose and --json
# give every one; errors are always listed.
WARNINGS_PER_FILE = 5
# Notes the person saved while the run updated them: not "unchanged" (the run did not
# leave them be, it gave way), and each is named in a warning.
SAVED = "saved during the run (kept as you saved it)"


def counted(n: int, one: str, many: str) -> str:
    """``1 session``, ``2 sessions``."""
    return f"{n} {one if n == 1 else many}"


def worth_a_watch_line(report: ExportReport) -> bool:
    """Whether a ``watch`` round is printed: it wrote, failed, or gave way to a note the
    person saved meanwhile (whose warning would otherwise go unseen while they type)."""
    return bool(report.total("written") or report.total("saved") or report.failed)


# Past "unchanged", each count the summary names when it is not zero, in this order: the
# first line's and each source's, so that each line adds up to its "found".
_OTHER_COUNTS = (
    ("conflicts", "conflict", "conflicts"),
    ("saved", SAVED, SAVED),
    ("failed", "failed", "failed"),
    ("deleted", "deleted in the vault (left deleted)", "deleted in the vault (left deleted)"),
)


def summary_line(report: ExportReport, elapsed: float | None = None) -> str:
    parts = [
        counted(report.total("found"), "session found", "sessions found"),
        f"{report.total('created')} created",
        f"{report.total('updated')} updated",
        f"{report.total('unchanged') + report.total('skipped')} unchanged",
    ]
    for name, one, many in _OTHER_COUNTS:
        if report.total(name):
            parts.append(counted(report.total(name), one, many))
    if report.index_failed:  # else a run that exits 1 for an index note would say no failure
        parts.append(counted(report.index_failed, "index note failed", "index notes failed"))
    prefix = "Dry run, nothing written: " if report.dry_run else ""
    suffix = f" in {elapsed:.1f} s" if elapsed is not None else ""
    return prefix + ", ".join(parts) + _empty(report.total("empty")) + suffix


def _empty(n: int) -> str:
    """Files, databases or runs read that hold no conversation: no note, and not among the
    sessions counted before (as "3 without a conversation" read: 3 empty notes)."""
    return f"; {n} more without a conversation (no note)" if n else ""


def redaction_line(report: ExportReport) -> str:
    """How many secrets were redacted, per rule (never the secrets themselves)."""
    total = sum(report.redactions.values())
    rules = sorted(report.redactions.items(), key=lambda item: (-item[1], item[0]))
    listed = ", ".join(f"{rule} {n}" for rule, n in rules)
    # (review40 L7: "redacted" was said of a dry run, and of a run that wrote nothing)
    done = "would be redacted" if report.dry_run else "redacted"
    return f"{total} secret{'s' if total != 1 else ''} {done} ({listed})"


def source_line(source: str, counts: SourceCounts) -> str:
    """A source's counts, in the first line's words and order (its conflicts and the notes
    deleted in the vault too: without them a source's line came up short of its "found"),
    each left out when it is zero but "found" (review35 10: "0 created, 0 updated, …,
    0 failed" on every line of every run)."""
    parts = [f"{counts.found} found"]
    for name, n in (
        ("created", counts.created),
        ("updated", counts.updated),
        ("unchanged", counts.unchanged + counts.skipped),
    ):
        if n:
            parts.append(f"{n} {name}")
    for name, one, many in _OTHER_COUNTS:
        if n := getattr(counts, name):
            parts.append(counted(n, one, many))
    return f"  {source}: {', '.join(parts)}{_empty(counts.empty)}"


def shown_sources(report: ExportReport, verbose: bool) -> list[tuple[str, SourceCounts]]:
    """The sources the summary gives a line (review35 10: fifteen lines on every run, a
    no-op too, and an error came after them): those that wrote, kept a note saved meanwhile
    or failed; with ``verbose``, every one that has a count. A run in which every note
    failed (a template's mistake) lists none: the first line counts them, the error says
    why, and a line per source said only "N failed" fifteen times before it."""
    sources = [(s, c) for s, c in report.per_source.items() if any(c.as_dict().values())]
    if verbose:
        return sources
    found = report.total("found")
    if found and report.total("failed") == found and not report.total("written"):
        return []
    return [(s, c) for s, c in sources if c.written or c.saved or c.failed]


def written_into_line(report: ExportReport, options: ExportOptions) -> str | None:
    """Where the run's new notes are (review35 11: a first run named no folder, and the
    person had to read the README to find AI Sessions/): the notes' folder as set, or the
    folder all of them share (one the person moved the notes' folder to)."""
    created = [c.relpath for c in report.changes if c.action is Action.CREATED]
    if not created:
        return None
    folder = options.folder.strip("/")
    if not folder or not all(r.startswith(folder + "/") for r in created):
        folder = os.path.commonpath([os.path.dirname(r) or "." for r in created])
    where = Path(os.path.abspath(options.vault.expanduser())) / folder
    notes = counted(len(created), "new note", "new notes")
    return f"{notes} {'would be' if report.dry_run else 'written'} in {where}"


def nothing_found_line(report: ExportReport, options: ExportOptions) -> str | None:
    """Where a run that found no session looked, and what to try: "0 sessions found" and
    exit 0 alone left a newcomer with a wrong --home, or a filter matching nothing, to guess."""
    # (a warning, of a file that holds no session the run wanted, says nothing of where it
    # looked; an error is its own explanation)
    if report.total("found") or report.total("empty") or report.failed:
        return None
    chosen = []  # (from the command line or the config: named as both spell them)
    if options.project:
        chosen.append(f"project {options.project!r}")
    if options.since:
        chosen.append(f"since {options.since:%Y-%m-%d %H:%M}")
    if options.sources:
        chosen.append(f"sources {', '.join(options.sources)}")
    if chosen:
        hint = _project_hint(options) if options.project else None
        if "aider" in (options.sources or ()) and not options.paths.get("aider"):
            from .adapters.aider import UNSET_HINT  # (review48 L3: it was never said)

            hint = f"{UNSET_HINT}."
        return (
            f"No session matched the filters ({'; '.join(chosen)}); "
            f"{hint or '`ccexport sources` lists what there is.'}"
        )
    home = options.home if options.home is not None else Path.home()
    check = " (is --home right?)" if options.home is not None else ""
    return (
        f"No sessions found under {home}{check}: `ccexport sources` lists where each "
        "assistant's history was looked for."
    )


# Project names a hint after a ``--project`` that matched nothing may list.
PROJECTS_SHOWN = 5


def _project_hint(options: ExportOptions) -> str | None:
    """Where to find the project a ``--project`` that matched nothing meant (``ccexport
    sources`` lists no project): the names in the vault that come close to it, else where
    the vault lists its projects (and the first few). None when the vault knows a project
    it matches (another filter left its sessions out) or cannot be read."""
    from difflib import get_close_matches

    from .notefile import INDEX_PREFIX
    from .notespec import project_matches
    from .state import State
    from .vaultpaths import fold

    wanted = str(options.project)
    try:
        notes = State.load(options.vault.expanduser()).notes
    except (OSError, ValueError):
        return None
    names = {
        str(record.meta["project"])
        for key, record in notes.items()
        if not key.startswith(INDEX_PREFIX) and record.meta.get("project")
    }
    if any(project_matches(wanted, name) for name in names):
        return None
    by_fold = {fold(name): name for name in sorted(names, key=str.lower)}
    near = get_close_matches(fold(wanted), list(by_fold), n=3, cutoff=0.6)
    if near:
        listed = " or ".join(repr(by_fold[n]) for n in near)
        return f"did you mean {listed}?"
    if not names:
        return (
            "`ccexport --dry-run` without --project lists the notes a run would write "
            "(by default in a folder per project)."
        )
    shown = sorted(names, key=str.lower)[:PROJECTS_SHOWN]
    more = f", and {len(names) - len(shown)} more" if len(names) > len(shown) else ""
    index = notes.get(f"{INDEX_PREFIX}projects")
    where = (
        f"{index.path} lists this vault's projects"
        if index is not None and not index.deleted
        else "this vault's projects are"
    )
    return f"{where}: {', '.join(shown)}{more}."


CONFLICT_LINE = "  conflict: "  # how the nightly log names an edit saved aside (``doctor``)


# The nightly log's size past which its oldest entries go: it keeps about the newest half.
LOG_MAX_BYTES = 1_000_000


def append_log(path: Path, report: ExportReport | None, code: int, error: str = "") -> None:
    """One entry per run in the nightly log: when, how it ended, and what went wrong."""
    _trim_log(path)
    stamp = datetime.now().astimezone().isoformat(timespec="seconds")
    lines = [f"[{stamp}] exit {code}: {summary_line(report) if report else error}"]
    if report:  # its errors as --quiet printed them: one template mistake is one line,
        # each edit saved aside (the copy is in a hidden folder Obsidian does not show), then
        # its warnings, which --quiet keeps off the scheduler's mail: the log is the only
        # place a nightly run can say that a line was unreadable or a note kept
        lines += [f"{CONFLICT_LINE}{c.relpath}: {c.message}" for c in report.conflicts()]
        failed = _failed_notes(report)  # (each error with the note it failed, as printed)
        lines += [f"  {line}" for line in problem_lines(report.problems, True, False, failed)]
        warnings = [p for p in report.problems if p.severity != "error"]
        lines += [f"  {line}" for line in problem_lines(warnings, False, False)]
    append_path(path, ("\n".join(lines) + "\n").encode())  # never through a planted link


def _trim_log(path: Path) -> None:
    """A log past ``LOG_MAX_BYTES`` keeps its newest entries, about half of it: a run's
    warnings go into it every night, and nothing else ever shortens it."""
    try:
        found = read_file(*anchored(path))
    except OSError:  # (the append says what is wrong with it)
        return
    if found is None or len(found[0]) <= LOG_MAX_BYTES:
        return
    tail = found[0][-(LOG_MAX_BYTES // 2) :]
    start = tail.find(b"\n[")  # an entry's first line, else a line's (one long entry)
    write_path(path, tail[(start if start >= 0 else tail.find(b"\n")) + 1 :])


def print_report(
    report: ExportReport,
    *,
    quiet: bool = False,
    verbose: bool = False,
    to_stderr: bool = False,
    elapsed: float | None = None,
    looked: ExportOptions | None = None,
    changed_only: bool = False,
    pasted: str = "",
) -> None:
    """The summary for people. ``to_stderr``: stdout is kept for one JSON document.
    ``looked``: the run's ExportOptions, to say where a run that found nothing looked.
    ``changed_only`` (a ``watch`` round): a line only for the sources that changed a note.
    ``pasted``: the options a command to paste needs to act as this run (``pasted``)."""

    def say(text: str) -> None:
        typer.echo(completed(text, pasted), err=to_stderr)

    if report.dry_run and not quiet:
        now_at = _where_now(report)
        for change in [*report.changes, *report.indexes]:  # the index notes' too
            if change.action is Action.UNCHANGED and not verbose:
                continue  # (a vault of thousands: the summary counts them; --verbose names them)
            say(f"would {_VERB[change.action]}: {now_at(change.relpath)}")
            if change.diff:
                say(change.diff)
    elif verbose and not quiet:
        for change in [*report.changes, *report.indexes]:
            if change.action in _WRITTEN:
                say(f"{change.action.value}: {change.relpath}")
    if verbose and not quiet:
        for source, path in report.empty_units:
            say(f"no conversation ({source}): {path}")
    if not quiet:
        say(summary_line(report, elapsed))
        for source, counts in shown_sources(report, verbose):
            if not changed_only or _changed(counts):
                say(source_line(source, counts))
        if report.redactions_said():
            say(redaction_line(report))
        if again := report.rendered_again_said():
            written = "would be written" if report.dry_run else "were written"
            say(f"{again}; only those whose text changed {written}.")
        if report.timezone_advice:
            say(report.timezone_advice)
        if looked is not None and (where := written_into_line(report, looked)):
            say(where)
        hint = nothing_found_line(report, looked) if looked is not None else None
        if hint:
            say(hint)
    for change in report.conflicts():
        typer.echo(f"conflict: {change.relpath}: {change.message}", err=True)
    for line in problem_lines(report.problems, quiet, verbose, _failed_notes(report)):
        typer.echo(line, err=True)  # (its commands completed with the report: ``pasted``)


def _where_now(report: ExportReport) -> Callable[[str], str]:
    """A note's path in the folder the notes were followed to, when the person renamed or
    moved it (review35 5: a dry run listed "would leave deleted: AI Sessions/…" after
    "AI Sessions" became "AI Chats": a note left deleted keeps its old place in the state)."""
    from .runstart import FolderFollowed

    moved = next((p for p in report.problems if isinstance(p, FolderFollowed)), None)
    return moved.now_at if moved else str


def _failed_notes(report: ExportReport) -> dict[str, list[str]]:
    """The notes each error failed, by the error as said (a template error met by 41
    notes is one line: the notes are where a person looks for the session it failed on)."""
    failed: dict[str, list[str]] = {}
    for change in report.changes:
        if change.action is Action.FAILED and change.message:
            failed.setdefault(change.message, []).append(change.relpath)
    return failed


def _changed(counts: SourceCounts) -> bool:
    return bool(counts.written or counts.failed or counts.saved or counts.deleted)


def problem_lines(
    problems: list[Problem],
    quiet: bool,
    verbose: bool,
    failed_notes: dict[str, list[str]] | None = None,
) -> list[str]:
    """One line per distinct problem (a template mistake hit by 300 notes is one line), and
    past ``WARNINGS_PER_FILE`` warnings of one file, one line counting the rest of them;
    so for the notes of one source kept because their source gives fewer turns (each named
    by its note: an upgrade that reads a source otherwise warned 155 times, line by line).
    An error that failed notes (``failed_notes``: by the error as said) is followed by a
    line naming the first of them, or with ``verbose`` one line for each."""
    seen: dict[str, int] = {}
    shown: dict[str, int] = {}  # warnings of a file (or kept notes of a source) listed so far
    folded: dict[str, int] = {}  # those not listed
    for problem in problems:
        if problem.severity != "error" and quiet:
            continue
        line = f"{problem.severity}: {problem}"
        if line in seen:
            seen[line] += 1
            continue
        if problem.severity != "error" and not verbose:
            group = _group(problem)
            shown[group] = shown.get(group, 0) + 1
            if shown[group] > WARNINGS_PER_FILE:
                if group not in folded:
                    seen[f"\0{group}"] = 0  # (its line goes where the first would)
                folded[group] = folded.get(group, 0) + 1
                continue
        seen[line] = 1
    lines = []
    for line, count in seen.items():
        if line.startswith("\0"):
            lines.append(_folded_line(line[1:], folded[line[1:]]))
        else:
            lines.append(line if count == 1 else f"{line} ({count} times)")
            notes = (failed_notes or {}).get(line.removeprefix("error: "), [])
            lines += _note_lines(notes, verbose) if line.startswith("error: ") else []
    return lines


def _note_lines(notes: list[str], verbose: bool) -> list[str]:
    if verbose or len(notes) == 1:
        return [f"  in note: {visible(note)}" for note in notes]
    if not notes:
        return []
    more = counted(len(notes) - 1, "more", "more")
    return [f"  in note: {visible(notes[0])} and {more} (--verbose names every one)"]


_KEPT_GROUP = "\0kept "  # (no path starts with a NUL)
# The notes of one source first seen deleted in the vault: past the first few, one line
# counts them (review43 L1: a folder of 23 notes gone was 23 lines).
_DELETED_GROUP = "\0deleted "


def _group(problem: Problem) -> str:
    if problem.message.startswith(SHRUNK) and problem.source:
        return _KEPT_GROUP + problem.source
    if problem.message == DELETED_NOTE and problem.source:
        return _DELETED_GROUP + problem.source
    return problem.path


def _folded_line(group: str, n: int) -> str:
    if group.startswith(_KEPT_GROUP):
        source, why = group[len(_KEPT_GROUP) :], SHRUNK.removesuffix("; kept")
        return (
            f"warning: {counted(n, 'more note', 'more notes')} of {source} kept: {why} "
            f"(--verbose lists every one; if an upgrade reads {source} otherwise, "
            f"`ccexport --force --source {source}` once brings them up to date, and "
            "overwrites as well any note whose source did shrink)"
        )
    if group.startswith(_DELETED_GROUP):
        source = group[len(_DELETED_GROUP) :]
        return (
            f"warning: {counted(n, 'more note', 'more notes')} of {source} deleted in the "
            "vault; left deleted (--verbose lists every one; `ccexport --restore` writes "
            "them again)"
        )
    more = counted(n, "more warning", "more warnings")
    return f"warning: {visible(group)}: {more} (--verbose lists every one)"
