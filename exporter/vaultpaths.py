"""Names of files and folders in a vault: safe on every system, never outside the vault.

A note's path comes from session data (titles, project names) that may hold anything, and a
recorded path comes from a state file that may be damaged or planted. Every name written is
made of components that Linux, macOS and Windows all accept (no reserved device names, no
forbidden characters, short enough for common file systems), and a recorded path is used
only if it stays inside the vault.
"""

from __future__ import annotations

import re
import unicodedata

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
