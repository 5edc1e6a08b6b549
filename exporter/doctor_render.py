"""``doctor``'s look at what the vault's notes were rendered with: redaction in effect, the
notes the next run renders again and why, and the files ccexport wrote that still hold a
secret the current rules find (``vault_secrets``), with what to do."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from .doctor_check import Check
from .errors import ConfigError
from .report import counted
from .template_secrets import secret_said


def render_checks(
    settings: Any, home: Path | None, found: set[str] | None = None, state: Any = None
) -> list[Check]:
    """Redaction in effect, and how many notes of the units it reads (``found``: not an
    Aider run a new reading joined to another) the next run renders again, written with
    other templates, settings or rules (only those whose text changes are rewritten).
    ``state``: the vault's, read here if not given."""
    from .options import export_options
    from .redact_rules import RULES
    from .render import render_entry
    from .rendermade import notes_render
    from .runstart import recorded_folder
    from .state import State
    from .zones import machine_zone_name, with_vault_zone

    if settings.vault is None or not settings.vault.expanduser().is_dir():
        return []
    if settings.redact:
        extra = len(settings.redact_extra)
        rules = f"{len(RULES)} rules" + (f" and {extra} of yours" if extra else "")
        checks = [Check("Vault", "ok", f"secrets are redacted ({rules})")]
    else:
        # Turned off on purpose (--no-redact, redact = false): said, not flagged. The vault
        # is not searched for secrets then: every note a run writes may hold one.
        off = "redaction is off: secrets reach the vault (nor are its files searched for them)"
        checks = [Check("Vault", "info", off)]
    options = with_vault_zone(export_options(settings, home), machine_zone_name()).options
    state = State.load(settings.vault.expanduser()) if state is None else state
    folder = recorded_folder(settings.vault.expanduser(), state, options.folder)
    if folder != options.folder:  # (the export says so on every run, with what to do)
        moved = f'the notes\' folder "{options.folder}" is "{folder}" now (moved in the vault)'
        checks.append(Check("Vault", "info", f'{moved}: set folder = "{folder}" to say so'))
        options = replace(options, folder=folder)
    current = render_entry(options.render_fingerprint())
    units = [u for name, u in state.sources.items() if found is None or name in found]
    # (distinct notes: a vault exported from two places of one home, or a source file
    # that moved, has two units naming the same notes)
    renders = [notes_render(u.get("fingerprint") or []) for u in units]
    stale_units = [(u, r) for u, r in zip(units, renders, strict=True) if r != current]
    stale = bool(stale_units)
    if stale:
        checks += _stale_checks(state, stale_units)
    rules = options.redactor()
    if rules is not None:
        in_templates = _template_secrets(options, rules)
        for path, line, rule in in_templates:  # (as the export warns of them)
            checks.append(Check("Templates", "attention", f"{path}:{line} {secret_said(rule)}"))
        checks += secret_checks(settings, rules, state, current, options.folder, in_templates)
    return checks


def _stale_checks(state: Any, stale_units: list[tuple[dict, object]]) -> list[Check]:
    """How many notes the next run renders again, by why: a unit the last run did not
    finish (recorded with no fingerprint), one rendered by another version of ccexport, or
    with other templates, settings or rules. Distinct notes: a vault exported from two
    places of one home, or a source file that moved, has two units naming the same notes.
    A session in part notes counts once, by its first part, as the export's "N notes
    rendered again" and its counts do (cli8: doctor said 4 of a session in 4 parts, the
    export 1)."""
    from .notespec import is_later_part
    from .rendermade import UNFINISHED_WHY, made_by_another

    by_why: dict[str, set[str]] = {}
    for unit, render in stale_units:
        if render is None:
            why = f"left by the last run to be read again ({UNFINISHED_WHY})"
        elif made_by_another(render):
            why = "written by another version of ccexport"
        else:
            why = "written with other templates, settings or redaction rules"
        kept = (
            k
            for k in unit.get("notes", [])
            if not is_later_part(k) and k in state.notes and not state.notes[k].deleted
        )
        by_why.setdefault(why, set()).update(kept)
    seen: set[str] = set()
    checks = []
    for why, keys in by_why.items():
        n = len(keys - seen)
        seen |= keys
        if n:
            again = "the next run renders them again, rewriting those whose text changes"
            checks.append(Check("Vault", "info", f"{counted(n, 'note was', 'notes were')} "
                                                 f"{why}: {again}"))  # fmt: skip
    return checks


def _template_secrets(options: Any, rules: Any) -> list[tuple[str, int, str]]:
    """(file, line, rule) of each secret in the person's templates a run uses."""
    from .index import PROJECT_TEMPLATE, PROJECTS_TEMPLATE
    from .template_secrets import template_secrets

    names = (options.note_settings().session_template, PROJECT_TEMPLATE, PROJECTS_TEMPLATE)
    return template_secrets(options.templates, names, rules)


SHOWN_FILES = 10  # files a check names; --json lists them all


def secret_checks(
    settings: Any,
    rules: Any,
    state: Any,
    current: list[object],
    folder: str | None = None,
    in_templates: list[tuple[str, int, str]] | None = None,
) -> list[Check]:
    """Files ccexport wrote that still hold a secret the current rules find, and that no run
    writes again (``vault_secrets``): named, with the rules found and what to do, never the
    secret. ``in_templates``: the (file, line, rule) of each secret in the templates in
    effect: a note's secret of such a rule came from there (an older run wrote it as is)."""
    from .config import resolve
    from .vault_secrets import scan_vault

    try:  # what a run exports: the configuration's sources, not doctor's own --source
        exported = resolve({"vault": settings.vault}).sources
    except ConfigError:
        exported = settings.sources
    scan = scan_vault(
        settings.vault.expanduser(), rules, state, render=current,
        sources=exported or (), project=settings.project,
        attachments=settings.attachments,
        notes_folder=settings.folder if folder is None else folder,
    )  # fmt: skip
    checks = []
    if scan.files:
        many = counted(len(scan.files), "file", "files")
        hold, write = ("holds", "writes it") if len(scan.files) == 1 else ("hold", "writes them")
        lines = [f"{many} ccexport wrote still {hold} a secret the current redaction rules "
                 f"find, and no run {write} again:"]  # fmt: skip
        template_lines = {rule: f"{path}:{line}" for path, line, rule in in_templates or ()}
        lines += [f"  {_secret_line(found, template_lines)}" for found in scan.files[:SHOWN_FILES]]
        if len(scan.files) > SHOWN_FILES:
            more = len(scan.files) - SHOWN_FILES
            lines.append(f"  … and {more} more (ccexport doctor --json lists them all)")
        files = tuple(found.as_dict() for found in scan.files)
        checks.append(Check("Vault", "attention", "\n      ".join(lines), files))
    elif scan.read:  # (a vault with nothing of ccexport's in it yet: nothing to say)
        read = counted(scan.read, "file", "files")
        checks.append(
            Check("Vault", "ok", f"no secret the current rules find in the {read} ccexport wrote")
        )
    if scan.unreadable:
        many = _unread_count(scan.unreadable)
        checks.append(
            Check(
                "Vault", "info", f"{many} not searched for secrets: {_by_reason(scan.unreadable)}"
            )
        )
    return checks


# The reasons ``vault_secrets`` gives for a folder it could not list (a notes folder that
# is a link): counted as folders, not files.
_FOLDER_REASONS = ("is not a folder", "cannot be listed")


def _unread_count(unreadable: list[tuple[str, str]]) -> str:
    """What was not searched, each counted: "2 files", "1 folder", "1 file and 1 folder"."""
    folders = sum(why.startswith(_FOLDER_REASONS) for _, why in unreadable)
    files = len(unreadable) - folders
    said = [counted(files, "file", "files")] if files else []
    said += [counted(folders, "folder", "folders")] if folders else []
    return " and ".join(said)


def _by_reason(unreadable: list[tuple[str, str]]) -> str:
    """The files (folders) not searched, a few of each reason, the reason said once (a notes folder
    that is a link gave every note below it: its long reason was said 59 times)."""
    reasons: dict[str, list[str]] = {}
    for path, why in unreadable:
        reasons.setdefault(why, []).append(path)
    groups = []
    for why, paths in reasons.items():
        shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
        groups.append(f"{shown} ({why})")
    return "; ".join(groups)


_WHAT_TO_DO = {
    "conflict copy": "delete the copy once you have kept what you want of it",
    "attachment": "delete it (a note that shows it then says it was deleted); to have it "
    "back as the session holds it, redacted, run once with --restore --force",
    "log": "delete its old lines, or the whole log",
}


def _secret_line(found: Any, template_lines: dict[str, str] | None = None) -> str:
    """One file: its path, the rules found and in whose text, why it stays, what to do.
    ``template_lines``: rule -> the template's file and line holding a secret of it."""
    from .vault_secrets import MARKERS_GONE

    def rules(counts: dict[str, int]) -> str:
        return ", ".join(f"{rule} ×{n}" if n > 1 else rule for rule, n in sorted(counts.items()))

    parts = []
    note = found.kind in ("note", "index note")
    if found.ours:
        where = " in ccexport's part" if note else ""
        parts.append(f"{rules(found.ours)}{where}" + (f" ({found.why})" if found.why else ""))
    if found.yours:
        parts.append(f"{rules(found.yours)} in your own text")
    if found.kind in _WHAT_TO_DO:
        todo = _WHAT_TO_DO[found.kind]
    elif found.why == MARKERS_GONE:
        todo = "put its markers back, or take the secret out of the note yourself"
    elif found.ours and template_lines and (from_template := found.ours.keys() & template_lines):
        where = ", ".join(sorted(template_lines[rule] for rule in from_template))
        todo = (
            f"it came from your template ({where}): take it out of the template; the next "
            "run then writes every note again without it"
        )
    elif found.ours:
        todo = "take the secret out of the note yourself, or delete the note"
    else:
        todo = "take it out of your text (ccexport never changes it)"
    return f"{found.path}: {'; '.join(parts)}: {todo}"
