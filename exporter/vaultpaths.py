"""Names of files and folders in a vault: safe on every system, never outside the vault;
which folders and names a walk of the vault's notes leaves out (``LeftOut``); and where a
vault must not be (``assistant_folder``, ``too_high``).

A note's path comes from session data (titles, project names) that may hold anything, and a
recorded path comes from a state file that may be damaged or planted. Every name written is
made of components that Linux, macOS and Windows all accept (no reserved device names, no
forbidden characters, short enough for common file systems), and a recorded path is used
only if it stays inside the vault.
"""

from __future__ import annotations

import codecs
import os
import re
import sys
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import Problem

if TYPE_CHECKING:
    from .state import State

MAX_NAME_BYTES = 200  # below the 255-byte limit of common file systems, room for " (2)"
# Windows's device names, also with an extension and with spaces before it ("nul .txt"),
# and with a superscript digit ("COM¹"); the console's CONIN$ and CONOUT$ too.
_RESERVED = re.compile(
    r"^(con|prn|aux|nul|conin\$|conout\$|com[\d¹²³]|lpt[\d¹²³]) *(\..*)?$", re.IGNORECASE
)
_COMMENT_MARK = re.compile("%{2,}")
_FORBIDDEN = re.compile(r'[<>"/\\|?*#^\[\]\x00-\x1f\x7f]')
# Marks that change the direction text is shown in: a name holding U+202E shows its end
# first ("PWN ‮txt.exe" reads as "PWN exe.txt"). Taken out, as the name shows nothing of them.
_DIRECTION_MARKS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def safe_component(name: str) -> str:
    """One path component that is valid on Linux, macOS and Windows."""
    name = unicodedata.normalize("NFC", name)
    stem, ext = (name[:-3], ".md") if name.endswith(".md") else (name, "")
    stem = _FORBIDDEN.sub("-", stem.replace(":", " -"))
    if not stem.isascii():
        stem = _DIRECTION_MARKS.sub("", stem)
    if "%%" in stem:  # Obsidian's comment mark: a link to a name holding it may not work
        stem = _COMMENT_MARK.sub("%", stem)
    stem = " ".join(stem.split()).strip(" .")
    if not stem:  # "", ".", "..", "..." : a name made of nothing safe
        stem = "_"
    if _RESERVED.match(stem):
        stem = "_" + stem
    budget = MAX_NAME_BYTES - len(ext.encode())
    if len(stem.encode()) > budget:
        stem = stem.encode()[:budget].decode("utf-8", "ignore").rstrip(" .") or "_"
    return stem + ext


def fold(text: str) -> str:
    """A name as a case-insensitive file system (macOS, Windows, and a vault synced to one)
    tells names apart: ``Projects/MyApp.md`` and ``Projects/myapp.md`` are one file there,
    and a name macOS gives decomposed (NFD) is the composed one."""
    return unicodedata.normalize("NFC", text).casefold()


def safe_relpath(relpath: str) -> str:
    """A vault-relative path made of safe components; never absolute, never ``..``."""
    parts = [safe_component(p) for p in relpath.replace("\\", "/").split("/") if p.strip()]
    return "/".join(parts) or "_"


def inside(relpath: str) -> bool:
    """A recorded path that stays in the vault (a damaged or planted state may say else).
    On Windows a component with a colon names a drive (``C:`` joined to the vault is ``C:``,
    elsewhere) or a file's hidden stream, and one of dots and spaces alone (``.. ``) is
    ``..``: never names ``safe_component`` makes."""
    parts = relpath.replace("\\", "/").split("/")
    return (
        bool(relpath)
        and not relpath.startswith("/")
        and all(part.strip(" .") and ":" not in part for part in parts)
    )


# Never notes: Obsidian shows no dot folder (``.obsidian``, ``.trash``, ``.git``, ``.ccexport``,
# and sync tools' archives: ``.stversions``, ``.dropbox.cache``, ``.sync``) and ccexport never
# names one (``safe_component`` strips a leading dot); nor the recycle bins a NAS or Windows
# keeps at a share's top. Copies of notes in them would be found as the notes themselves.
_SKIP_DIRS = {"#recycle", "@eaDir", "$RECYCLE.BIN"}
# A folder holding one of these is a vault of its own (Obsidian's settings, ccexport's state).
VAULT_MARKS = (".ccexport", ".obsidian")


def skipped_folder(name: str) -> bool:
    return name.startswith(".") or name in _SKIP_DIRS


# Trees of code a vault can hold (a projects folder, or a home, opened as a vault): often
# thousands of files, none a note of ccexport's (it writes none there), and a copy of a note
# in one (a package's docs) was taken for the note moved, and updated there. A virtual
# environment is known by its ``pyvenv.cfg``.
CODE_TREES = {"node_modules", "__pycache__", "site-packages", "bower_components"}
VENV_MARK = "pyvenv.cfg"


def undecodable_part(relpath: str) -> str | None:
    """``relpath`` up to its first component whose name is not valid UTF-8 (Python holds
    its bytes as surrogates, which neither the state nor a note can hold), or None."""
    if relpath.isascii():
        return None
    parts = relpath.split("/")
    for n, part in enumerate(parts):
        try:
            part.encode("utf-8")
        except UnicodeEncodeError:
            return "/".join(parts[: n + 1])
    return None


# What a walk of the vault leaves out, said once a run (``NoteSurvey.said_by_survey``).
NESTED_VAULT = (
    "holds a vault of its own ({marks}): its notes are not this vault's, so ccexport leaves "
    'them alone and writes nothing there. If that is the vault you meant, run with --vault "{at}"'
)
UNDECODABLE = (
    "the name is not valid UTF-8, so {what} cannot be recorded or linked: left as {left}, "
    "not updated. Rename it to UTF-8 (for example with convmv) and run again"
)
NOT_UTF8_LOCALE = (
    "the name cannot be read in this locale, whose file-system encoding is {encoding}, not "
    "UTF-8, so {what} cannot be recorded or linked: left as {left}, not updated. Run "
    "ccexport with a UTF-8 locale (LANG=C.UTF-8, or PYTHONUTF8=1)"
)


class LeftOut:
    """What the walks of a vault's notes leave out, each said once a run (``said``): a
    folder that is a vault of its own, a note whose name is not UTF-8. ``state``: the
    vault's, whose records say where its notes are."""

    def __init__(self, root: Path, state: State) -> None:
        self.root, self.state = root, state
        self.said: list[Problem] = []
        self.keys: set[str] = set()  # the notes left out for their names (not deleted)
        self.notes_folders: tuple[str, ...] = ()  # the run's (``runstart.open_vault``)

    def _say(self, problem: Problem) -> None:
        if all(p.path != problem.path for p in self.said):
            self.said.append(problem)

    def ours(self, folder: str, marks: Collection[str]) -> bool:
        """Is ``folder``, holding ``marks`` (``VAULT_MARKS``), this vault's all the same? It
        is where its notes go (the ``folder`` set, not one followed), or above that: a
        vault there would hold this one's notes. With ``.obsidian/`` alone, also below that,
        or where this vault recorded notes: Obsidian shows a nested vault as a plain folder
        of the outer one, and a person may open a folder of theirs (the notes' folder, on a
        phone) as a vault as well, or had ``.ccexport/`` lost (a new machine)."""
        prefix = folder + "/"
        if any(f == folder or f.startswith(prefix) for f in self.notes_folders):
            return True
        if ".ccexport" in marks:
            return False
        if any(folder.startswith(f + "/") for f in self.notes_folders):
            return True
        return any(r.path.startswith(prefix) for r in self.state.notes.values())

    def vault_of_its_own(self, folder: str, names: Collection[str]) -> bool:
        """Is ``folder`` (the names it holds) a vault of its own, outside this one, as the
        folders ``skipped_folder`` names are (but ``ours``)? Another ccexport vault
        (``.ccexport/``): its notes are its state's, their links written from its top, which
        this vault would rewrite from its own (review48 H1); an Obsidian vault
        (``.obsidian/``) too. Said once."""
        marks = [mark for mark in VAULT_MARKS if mark in names]
        if not marks or self.ours(folder, marks):
            return False
        listed = ", ".join(f"{mark}/" for mark in marks)
        self._say(Problem(folder, NESTED_VAULT.format(marks=listed, at=self.root / folder)))
        return True

    def code_tree(self, folder: str, files: Collection[str]) -> bool:
        """Is ``folder`` (the files it holds) a tree of code a walk of notes does not enter
        (``CODE_TREES``, a virtual environment), being neither where the notes go nor
        above or below that?"""
        name = folder.rpartition("/")[2]
        if name not in CODE_TREES and VENV_MARK not in files:
            return False
        prefix = folder + "/"
        return not any(
            f == folder or f.startswith(prefix) or folder.startswith(f + "/")
            for f in self.notes_folders
        )

    def undecodable(self, relpath: str, key: str) -> bool:
        """Is the path of ``key``'s note not valid UTF-8 (``undecodable_part``)? Said once
        a name; the note is not taken for deleted by the person."""
        bad = undecodable_part(relpath)
        if bad is None:
            return False
        self.keys.add(key)
        one = bad == relpath
        what = "this ccexport note" if one else "the ccexport notes in this folder"
        left, encoding = "it is" if one else "they are", sys.getfilesystemencoding()
        if codecs.lookup(encoding).name == "utf-8":
            self._say(Problem(bad, UNDECODABLE.format(what=what, left=left)))
        else:  # (``LC_ALL=C`` with ``PYTHONUTF8=0``: names are read as ASCII, a UTF-8 one not)
            said = NOT_UTF8_LOCALE.format(encoding=encoding, what=what, left=left)
            self._say(Problem(bad, said))
        return True


# Where a vault must not be: an assistant's own folder, which ccexport only reads (review48 M1).
IN_ASSISTANT = (
    "is inside {0}'s own folder {1}, which ccexport only reads: {0}'s clean-up, or "
    "deleting that folder, would take the notes with it"
)


def in_assistant(source: str, folder: Path) -> str:
    return IN_ASSISTANT.format(source, folder)


# The first folder under a home that is an assistant's own (``~/.claude``), not shared.
_SHARED_TOPS = {".config", ".local", "Library", "AppData"}


def assistant_folder(
    vault: Path, home: Path | None, paths: Mapping[str, Sequence[Path]]
) -> tuple[str, Path] | None:
    """The source and its own folder that ``vault`` is at or below (``~/.claude/Notes``: Claude
    Code's ``~/.claude``; a folder ``[paths]`` gives; an editor's storage), or None. ``home``:
    the run's (None: this user's). Not Aider's: its ``[paths]`` are the person's projects."""
    vault = Path(os.path.abspath(vault.expanduser()))
    base = Path.home() if home is None else home.expanduser().resolve()
    top = vault.relative_to(base).parts[:1] if vault.is_relative_to(base) else ()
    for source, folders in paths.items():
        for folder in folders if source != "aider" else ():
            if vault.is_relative_to(Path(os.path.abspath(folder.expanduser()))):
                return source, folder
    if not (top and (top[0].startswith(".") or top[0] in _SHARED_TOPS)):
        return None  # (most vaults: no adapter is imported)
    from .adapters import SourceContext, all_adapters

    ctx = SourceContext.for_home(home, {k: list(v) for k, v in paths.items()})
    for adapter in (a for a in all_adapters() if a.name != "aider"):
        for root in adapter.roots(ctx):
            first = root.relative_to(base).parts[:1] if root.is_relative_to(base) else ()
            own = base / first[0] if first and first[0] not in _SHARED_TOPS else root
            if own.is_dir() and vault.is_relative_to(own):
                return adapter.name, own
    return None


# A vault far above the person's notes (review cli10 4): every Markdown file below it would
# be read as one of its notes, a copy of a vault's notes taken for its own, and the walk
# would go through the whole disk.
TOO_HIGH = (
    "the vault {vault} is {what}: every Markdown file below it would be read as one of its "
    "notes. Give the folder of your notes (--vault ~/Notes)"
)
HOME_AS_VAULT = (
    "; to use your home folder itself as the vault, open it in Obsidian first (its "
    ".obsidian/ makes it a vault), then run again"
)


def too_high(vault: Path, home: Path | None = None) -> str | None:
    """Why ``vault`` cannot be a vault for being far above any notes, or None: the top of a
    drive (``/``, ``C:\\``), a folder holding the home folder (``/home``), or the home folder
    itself unless it is a vault already (``.obsidian/`` or ``.ccexport/`` there: some keep
    their notes so, on purpose; without one, ``--vault ~/$UNSET`` is the likelier cause)."""
    path = Path(os.path.realpath(vault.expanduser()))
    home = Path(os.path.realpath(Path.home() if home is None else home))
    if path == Path(path.anchor):
        shown = "" if str(path) == str(vault) else f" ({path})"
        return TOO_HIGH.format(vault=vault, what=f"the top of the file system{shown}")
    if path != home and home.is_relative_to(path):
        return TOO_HIGH.format(vault=vault, what=f"above your home folder ({home})")
    if path == home and not any((path / mark).is_dir() for mark in VAULT_MARKS):
        return TOO_HIGH.format(vault=vault, what="your home folder") + HOME_AS_VAULT
    return None
