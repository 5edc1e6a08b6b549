"""What ``schedule install`` says beside the entry it writes (review35 2-4): whose nightly
run it replaces, a vault not exported to yet (it is not made: a mistyped ``--vault`` leaves
nothing behind), and sessions the vault records from outside this user's home, which the
scheduled run will not find. Each is said by the dry run too, read before anything is
written; none stops the install, except a vault whose parent folder is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import ConfigError, ExporterError

SHOWN_OUTSIDE = 3  # folders named of the sessions read outside the home; the rest counted


def install_notes(s: object, vault: Path, env: dict[str, str]) -> list[str]:
    """The lines ``install`` adds to what it says (the same for a dry run)."""
    from .schedule import LaunchdScheduler
    from .schedulers import LINGER, SystemdScheduler

    path = Path(os.path.abspath(vault.expanduser()))
    if not path.is_dir() and not path.parent.is_dir():
        raise ConfigError(
            f"{path.parent} does not exist, so a nightly run could not make {path.name} there "
            "(a drive or share not mounted?); mount it, or make the folder first, or correct "
            "--vault"
        )
    notes = []
    if replaced := replaced_vault(s, path):
        notes.append(
            f"This replaces the nightly export of {replaced}: a user has one nightly export, "
            f"so {replaced} is no longer exported at night (`ccexport schedule install "
            f"--vault {replaced}` puts it back)"
        )
    if not (path / ".ccexport" / "state.json").is_file():
        if isinstance(s, LaunchdScheduler) and not path.is_dir():
            # launchd opens the agent's log (in the vault's .ccexport) before the run
            # starts, and does not start it when the log's folder is missing.
            raise ConfigError(
                f"{path} does not exist: export into it once first (`ccexport --vault "
                f"{path}`), then install the nightly export; a mistyped --vault is not made"
            )
        made = "" if path.is_dir() else "makes the folder and "
        # (launchd's log needs .ccexport in a folder that exists: ``log_folder_needed``)
        left = (
            "the install makes only .ccexport/ there, for the nightly log"
            if log_folder_needed(s, path)
            else "the install makes nothing there"
        )
        notes.append(
            f"Note: {path} has not been exported to yet; the first nightly run {made}exports "
            "this user's sessions into it. If the name is mistyped, install again with the "
            f"right --vault ({left})"
        )
    if outside := outside_home(path, env):
        notes.append(outside)
    if isinstance(s, SystemdScheduler):
        notes.append(LINGER)  # (the install said nothing of it, the dry run alone did)
    return notes


def log_folder_needed(s: object, vault: Path) -> bool:
    """Whether ``install`` makes the vault's ``.ccexport`` (in a vault that exists only):
    launchd writes the agent's output there and needs the folder; the others start the run,
    which makes it."""
    from .schedule import LaunchdScheduler

    return isinstance(s, LaunchdScheduler) and vault.is_dir()


def replaced_vault(s: object, vault: Path) -> Path | None:
    """The vault whose nightly export is installed now, if it is another than ``vault``."""
    from .schedule import vault_of

    try:
        found = s.entry()  # type: ignore[attr-defined]
    except ExporterError:
        return None  # (the install itself says what is wrong with the scheduler)
    installed = vault_of(found.command) if found else None
    if installed is None or _same(installed, vault):
        return None
    return installed


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a.expanduser()) == os.path.realpath(b.expanduser())


def outside_home(vault: Path, env: dict[str, str]) -> str | None:
    """What to do when the vault records sessions read outside this user's home (a vault
    exported with ``--home DIR``) that neither its ``[paths]`` nor a variable installed with
    the command points the run to: the nightly run, which exports this home, finds none of
    them (the advice ``schedule status`` and ``doctor`` give after such a night)."""
    from .config import VAULT_CONFIG, resolve
    from .report import counted
    from .state import State

    sources = State.load(vault).sources
    if not sources:
        return None
    home = Path.home()
    looked = [home, *(Path(v) for v in env.values() if os.path.isabs(v))]
    try:
        looked += [f for folders in resolve({"vault": vault}).paths.values() for f in folders]
    except ExporterError:
        pass  # (a broken config stops the nightly run, which says so)
    roots = {str(p.expanduser()) for p in looked} | {
        os.path.realpath(p.expanduser()) for p in looked
    }
    outside = [k for k in sources if os.path.isabs(k) and not _under(k, roots)]
    if not outside:
        return None
    folders = sorted({os.path.dirname(k) for k in outside})
    shown = ", ".join(folders[:SHOWN_OUTSIDE])
    more = (
        f" and {len(folders) - SHOWN_OUTSIDE} more folders" if len(folders) > SHOWN_OUTSIDE else ""
    )
    held = counted(len(outside), "session", "sessions")
    return (
        f"Attention: the vault records {held} read outside this user's home ({home}), in "
        f"{shown}{more}: a scheduled run exports this user's home only, with the variables "
        f"set at install, and will not find them. For sessions exported from another folder "
        f"(--home DIR), name their folders in [paths] in {vault / VAULT_CONFIG} (claude-code "
        '= ["DIR/.claude"], …)'
    )


def _under(key: str, roots: set[str]) -> bool:
    return any(key == r or key.startswith(r.rstrip(os.sep) + os.sep) for r in roots)
