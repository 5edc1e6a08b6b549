"""``ccexport doctor``: everything a person needs to know when the notes are not what they
expect, each line marked ok, attention (something to fix) or info.

It only reads: sources through the adapters' discovery (no parsing), the vault's state and
nightly log, the files ccexport wrote in the vault (for secrets the current rules find:
``vault_secrets``), the scheduler's listing, the configuration files. Nothing is written
anywhere.
"""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from .adapters import SourceContext, select_adapters
from .doctor_check import Check
from .doctor_render import render_checks
from .doctor_template_places import place_checks
from .doctor_templates import template_checks
from .errors import ConfigError, ExporterError
from .pasted import completed, run_words
from .report import counted
from .sources import file_in_place_of_folder, holding, unreadable_below, wrong_named_folders


def diagnose(settings: Any, home: Path | None, config_error: str | None = None) -> list[Check]:
    """Every check, in the order they are shown. ``config_error``: why the configuration
    could not be read (``settings`` are then the defaults and the command line's)."""
    units: set[str] = set()  # what the next run reads (discovered), by unit
    checks = source_checks(settings, home, units)
    state = vault_state(settings.vault)  # (read once: a vault of 20,000 notes, a second)
    # (the render's checks are made before the vault's, shown after them: the vault's last
    # check, of notes gone, may follow a moved note's record in this state)
    rendered = render_checks(settings, home, units, state) if config_error is None else []
    checks += vault_checks(settings.vault, settings.folder, settings.attachments, state)
    checks += rendered
    checks += schedule_checks(settings.vault)
    checks += config_checks(settings, config_error)
    checks += template_checks(settings.templates, *_note_settings(settings, home))
    checks += place_checks(settings)
    # A command it says to paste acts on this vault and home, as an export's (review43
    # H2: doctor's "run ccexport --restore", pasted, restored notes in the config's vault).
    words = run_words(settings, home)
    return [replace(c, message=completed(c.message, words)) for c in checks]


def _note_settings(settings: Any, home: Path | None) -> tuple[Any, ...]:
    """The note settings an export would use and the redaction rules it reads templates
    with (nothing when they cannot be made)."""
    from .options import export_options

    try:
        options = export_options(settings, home)
        return options.note_settings(), options.redactor()
    except Exception:  # (said by the configuration's checks)  # noqa: BLE001
        return ()


def source_checks(settings: Any, home: Path | None, units: set[str] | None = None) -> list[Check]:
    ctx = SourceContext.for_home(home, settings.paths)
    checks: list[Check] = []
    any_found = False
    for adapter in select_adapters(settings.sources):
        name = f"{adapter.name}:"
        setup_note = getattr(adapter, "setup_note", None)
        note = setup_note(ctx) if setup_note else None
        if note:
            checks.append(Check("Sources", "info", f"{name} {note}"))
        # A folder named in [paths] or by a variable that is not there (the usual places
        # may be missing: "nothing found" is information, this needs the person)
        named = wrong_named_folders(ctx, adapter)
        for folder in named:
            why = f"{name} {folder.path} {folder.message(getattr(settings, 'origin', None))}"
            checks.append(Check("Sources", "attention", why))
        found_roots = [r for r in adapter.roots(ctx) if r.exists()]
        for root in found_roots:
            if file_in_place_of_folder(root) and all(root != f.path for f in named):
                why = f"{name} {root} is a file, not a folder: no session is read there"
                checks.append(Check("Sources", "attention", why))
        roots = [r for r in found_roots if not file_in_place_of_folder(r)]
        if (found_roots or named) and not roots:
            continue  # (said above: no "0 sessions" beside it)
        if not roots:
            places = adapter.roots(ctx)[:2]
            if places or not note:  # (with nowhere to look, its note said why)
                looked = ", ".join(str(r) for r in places) or "nowhere"
                checks.append(
                    Check("Sources", "info", f"{name} nothing found (looked in {looked})")
                )
            continue
        try:
            refs = list(adapter.discover(ctx))
        except OSError as exc:
            checks.append(Check("Sources", "attention", f"{name} cannot be listed: {exc}"))
            continue
        if units is not None:
            units.update(str(r.main.path) for r in refs)
        count = getattr(adapter, "count_sessions", None)
        sessions = sum(count(r) for r in refs) if count else len(refs)
        # (files, unread, as ``sources`` counts them: doctor stays fast on a large home; the
        # export's "found" counts the notes it makes. Their newest time is a file's, which a
        # copy or a sync sets, not a session's)
        newest = max((r.mtime_ns for r in refs), default=0)
        when = f", newest file modified {_when(newest / 1e9)}" if newest else ""
        where = ", ".join(str(r) for r in holding(roots, refs))
        found = counted(sessions, "session (by its files, unread)",
                        "sessions (by their files, unread)")  # fmt: skip
        any_found = any_found or sessions > 0
        checks.append(Check("Sources", "ok", f"{name} {found}{when} in {where}"))
        for problem in dict.fromkeys(r.unread_index for r in refs if r.unread_index):
            checks.append(Check("Sources", "attention", f"{name} {problem}"))  # an index
        for path in _not_sqlite(refs):
            why = f"{name} {path} is not a SQLite database; the export skips it"
            checks.append(Check("Sources", "attention", why))
        for root in roots if not getattr(adapter, "searched_roots", False) else []:
            if root.is_dir():
                for problem in unreadable_below(root, adapter.name):
                    checks.append(Check("Sources", "attention", f"{name} {problem}"))
    if any_found:
        checks.append(Check("Sources", "info", COUNTED_SO))
    if not any_found:  # ("All good." below would read as if there were something to export)
        where = f"under {home}" if home is not None else "in this home folder"
        which = f" of {', '.join(settings.sources)}" if settings.sources else ""
        why = f"no sessions{which} found {where}: an export writes nothing"
        why += " (is --home right?)" if not settings.sources else ""
        checks.append(Check("Sources", "info", why))
    return checks


# What the sources' counts are, beside the export's "found" (review26 F8: "29 sessions"
# here, "32 found ... 6 more without a conversation" in the export), said once.
COUNTED_SO = (
    "sessions are counted from their files without reading them, as `ccexport sources` "
    "counts them: the export's \"found\" counts the notes it makes, each subagent's too, and "
    'says those without a conversation apart ("N more without a conversation")'
)

_SQLITE_FILES = (".vscdb", ".db")


def _not_sqlite(refs: list[Any]) -> list[Path]:
    """The databases among the sessions' files whose first bytes are not SQLite's: damaged
    or another kind of file. Discovery does not open them, so without this look doctor said
    "All good." while the export failed on them. Their first 16 bytes only, never a lock."""
    paths = {f.path for r in refs for f in (r.main, *r.related) if f.path.suffix in _SQLITE_FILES}
    from .adapters._sqlite import MAGIC

    bad = []
    for path in sorted(paths):
        try:
            with open(path, "rb") as f:
                head = f.read(len(MAGIC))
        except OSError:
            continue  # an unreadable file or folder is reported by the checks of folders
        if head and head != MAGIC:  # an empty file is an empty database
            bad.append(path)
    return bad


_LOAD = object()  # (``vault_checks`` reads the state itself)


def vault_state(vault: Path | None) -> Any:
    """The vault's state as ``doctor`` reads it, once for all its checks; None without a
    vault folder."""
    from .state import State

    if vault is None or not vault.expanduser().is_dir():
        return None
    return State.load(vault.expanduser())


def vault_checks(
    vault: Path | None,
    folder: str = "AI Sessions",
    attachments: str = "attachments/ccexport",
    loaded: Any = _LOAD,
) -> list[Check]:
    """The vault's own checks; ``loaded``: its state (``vault_state``), read here if not
    given."""
    from .index import INDEX_PREFIX
    from .options import check_vault
    from .state import LOCK_FILE, STATE_DIR, STATE_FILE

    if vault is None:
        from .config import no_vault_message

        return [Check("Vault", "attention", no_vault_message())]
    vault = vault.expanduser()
    if not vault.exists():
        try:  # the first export makes it: only where this user can write
            check_vault(vault, dry_run=False)
        except ConfigError as exc:
            return [Check("Vault", "attention", str(exc))]
        return [Check("Vault", "info", f"{vault} does not exist yet; the first export makes it")]
    if not vault.is_dir():
        return [Check("Vault", "attention", f"{vault} is a file, not a folder")]
    checks = []
    if os.access(vault, os.W_OK | os.X_OK):
        checks.append(Check("Vault", "ok", f"{vault} is writable"))
    else:
        checks.append(Check("Vault", "attention", f"{vault} cannot be written by this user"))
    state_dir = vault / STATE_DIR
    state_file = state_dir / STATE_FILE
    state = None
    if state_file.is_file():
        state = vault_state(vault) if loaded is _LOAD else loaded
    # (the notes' folder as the run follows it: the person's rename of it in Obsidian)
    followed = _followed(vault, folder, state)
    checks += [
        Check("Vault", "attention", why) for why in linked_folders(vault, followed, attachments)
    ]
    holder = _lock_holder(state_dir / LOCK_FILE)
    if holder:
        checks.append(Check("Vault", "info", f"a run is writing the vault now ({holder})"))
    if state is not None:
        # (a state with no notes is a good one of a run that found no conversation; one never
        # read, a link say, holds nothing: ``loaded`` is None)
        if state.unreadable or state.loaded is None:
            why = state.unreadable or "damaged"
            checks.append(
                Check("Vault", "attention", f"{state_file} is {why}; the next run rebuilds it")
            )
        else:
            # (the state is written by a run that changed something: one that changed
            # nothing, or failed every note, leaves it, so it dates the last change)
            last = _when(state_file.stat().st_mtime)
            sessions = sum(1 for key in state.notes if not key.startswith(INDEX_PREFIX))
            said = f"{sessions} session notes recorded; last changed by a run {last}"
            checks.append(Check("Vault", "ok", said))
            if gone := _notes_gone(vault, state):
                checks.append(Check("Vault", "attention", gone))
    else:
        checks.append(Check("Vault", "info", "no export has run into this vault yet"))
    # (the copies are below the folder the run follows, the person's rename of it)
    if saved := _edits_saved_aside(vault, followed):
        checks.append(saved)
    if templater := _templater_runs_new_notes(vault):
        checks.append(Check("Vault", "attention", templater))
    return checks


def linked_folders(vault: Path, folder: str, attachments: str) -> list[str]:
    """The folders ccexport writes below (the notes folder, the attachments folder and
    ``.ccexport``) that are, or lie below, a symbolic link: never written through, so every
    file below fails, while the vault itself looked writable (review29 F1)."""
    from .state import STATE_DIR

    found: dict[str, str] = {}
    for relpath in (folder, attachments, STATE_DIR):
        path = vault
        for name in relpath.strip("/").split("/") if relpath.strip("/") else []:
            path = path / name
            if path.is_symlink():
                found.setdefault(str(path), linked_folder_advice(path))
                break
    return list(found.values())


def linked_folder_advice(path: Path) -> str:
    """What to do about a linked folder in the vault (the export says it too, once)."""
    from .vaultio import LINKED_FOLDER

    try:
        to = f" (to {os.readlink(path)})"
    except OSError:
        to = ""
    return f"{path}{to} {LINKED_FOLDER}"


def _followed(vault: Path, folder: str, state: Any) -> str:
    """The notes' folder as the run follows it: where the ``state`` says the person moved
    it in Obsidian (``runstart.recorded_folder``), else ``folder``."""
    from .runstart import recorded_folder

    return folder if state is None else recorded_folder(vault, state, folder)


def _edits_saved_aside(vault: Path, folder: str) -> Check | None:
    """The person's edits of generated parts saved aside and not yet dealt with, and the
    notes' earlier texts an older version kept aside (``editcopies.copies_said``)."""
    from .editcopies import copies_said

    said = copies_said(vault, folder)
    if said is None:
        return None
    message, paths = said
    return Check("Vault", "attention", message, tuple({"path": path} for path in paths))


TEMPLATER_SETTINGS = ".obsidian/plugins/templater-obsidian/data.json"


def _templater_runs_new_notes(vault: Path) -> str | None:
    """Why Templater's "Trigger Templater on new file creation", set in the vault, is a
    danger (None: not set there). With it on, Templater runs every ``<% … %>`` of a note
    created in the vault, ccexport's among them, and a session's text may hold one: ERB or
    EJS code, or words a web page planted. (Templater's newer versions keep the setting
    outside the vault, where it is not looked for: docs/notes.md says to keep it off.)"""
    import json

    path = vault / TEMPLATER_SETTINGS
    try:  # (through links: .obsidian is often shared between vaults; never a FIFO)
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as f:
            settings = json.loads(f.read(1 << 20))
    except (OSError, ValueError):
        return None
    if not isinstance(settings, dict) or settings.get("trigger_on_file_creation") is not True:
        return None
    return (
        'Templater\'s "Trigger Templater on new file creation" is on in this vault: it runs '
        "the <% … %> commands of every note ccexport creates, and a session's text may hold "
        "such a command (ERB or EJS code, or words a web page planted). Turn it off, or "
        "export into a vault without it"
    )


def _notes_gone(vault: Path, state: Any) -> str | None:
    """Why the next export would stop: every note recorded is gone, or more than half of
    them at once (``notesgone.stop_if_notes_gone``), asked of the vault with its ``state``
    (a note found moved has its record follow it there)."""
    from .notesgone import stop_if_notes_gone
    from .vault import Vault

    try:
        stop_if_notes_gone(Vault(vault, dry_run=True, state=state), allowed=False)
    except ExporterError as exc:
        return str(exc)
    return None


def schedule_checks(vault: Path | None) -> list[Check]:
    from .report import CONFLICT_LINE
    from .schedule import (
        LOG_NAME,
        checked_entry,
        found_nothing,
        last_run,
        log_path,
        scheduler,
        vault_of,
    )

    try:
        s = scheduler()
        found = checked_entry(s)
    except ExporterError as exc:
        return [Check("Schedule", "info", str(exc))]
    if found is None:
        return [Check("Schedule", "info", f"no nightly export installed ({s.kind})")]
    checks = [Check("Schedule", "ok", f"installed ({s.kind}): {found.shown}")]
    if found.off:  # commented out, disabled, or its Python is gone: it never runs
        checks.append(Check("Schedule", "attention", f"it does not run: {found.off}"))
    default = vault.expanduser() / ".ccexport" / LOG_NAME if vault else None
    log = log_path(found.command) or default
    last = last_run(log) if log else None
    if last is None:
        checks.append(Check("Schedule", "info", "it has not run yet"))
    elif nothing := found_nothing(last, vault_of(found.command) or vault):
        checks.append(Check("Schedule", "attention", f"last run: {last}\n      {nothing}"))
    elif "exit 0" in last.partition("\n")[0] and f"\n{CONFLICT_LINE}" not in last:
        checks.append(Check("Schedule", "ok", f"last run: {last}"))
    elif "exit 0" in last.partition("\n")[0]:  # an edit of the person's was saved aside
        checks.append(Check("Schedule", "attention", f"last run saved edits aside: {last}"))
    else:
        checks.append(Check("Schedule", "attention", f"last run failed: {last}"))
    return checks


def config_checks(settings: Any, error: str | None = None) -> list[Check]:
    from .config import VAULT_CONFIG, user_config_path

    if error is not None:  # the export stops on it (exit 2); the other checks used defaults
        return [Check("Configuration", "attention", f"{error} (the other checks use the defaults)")]
    files = [user_config_path()]
    if settings.vault is not None:
        files.append(settings.vault.expanduser() / VAULT_CONFIG)
    checks = [
        Check("Configuration", "ok" if f.is_file() else "info",
              f"{f} {'is read' if f.is_file() else 'does not exist (defaults apply)'}")
        for f in files
    ]  # fmt: skip
    if os.environ.get("CCEXPORT_VAULT"):
        checks.append(Check("Configuration", "ok", "CCEXPORT_VAULT is set"))
    return checks


def _lock_holder(lock: Path) -> str | None:
    """Who holds the vault lock, asked without taking it (None when nobody does)."""
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return None
    try:
        import fcntl

        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            text = os.read(fd, 200).decode(errors="replace").split()
            return f"pid {text[0]}" if text else "pid unknown"
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    except ImportError:  # Windows: no OS lock to ask; the pid file is advisory
        return None
    finally:
        os.close(fd)


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds).astimezone().strftime("%Y-%m-%d %H:%M")
