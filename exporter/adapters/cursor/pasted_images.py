"""An image pasted into a Cursor prompt from the clipboard: Cursor keeps its own copy in the
``User`` folder, ``workspaceStorage/images/<random>-image.png``, and the prompt names that
copy by its path on the machine it was pasted on (``c:\\Users\\me\\AppData\\Roaming\\Cursor\\
User\\workspaceStorage\\images\\0.7449537880301038-image.png``). That copy is read, so the
note shows the screenshot the prompt was about.

Only Cursor's images folder is read, never another file a prompt names (an image picked from
disk may have changed since, or name anything): first the one of the ``User`` folder being
read (found by the path's last three parts, so a path recorded on Windows is found under
``--home`` on Linux), never the path as recorded. A file that is not there (the person
or Cursor deleted it) is no error: the prompt then names the image only, as before.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..base import open_regular

FOLDER = ("workspaceStorage", "images")
# A pasted screenshot is a few megabytes at most; a larger file is named, not copied.
MAX_IMAGE = 32 * 1024 * 1024
TOO_LARGE = f"larger than {MAX_IMAGE // (1024 * 1024)} MB"


def pasted_image(recorded: str, user_dir: Path | None) -> tuple[bytes | None, str | None]:
    """(the bytes of Cursor's copy of the image at ``recorded``, why they are not copied
    into the vault); (None, None) when the path is not one of Cursor's copies or the file
    is not there."""
    for path in _candidates(recorded, user_dir):
        if not _in_its_folder(path):
            continue  # a link out of the images folder: not Cursor's copy
        try:
            with open_regular(path) as f:
                data = f.read(MAX_IMAGE + 1)
        except (OSError, ValueError):  # absent, unreadable, a folder, a NUL in the name
            continue
        if len(data) > MAX_IMAGE:
            return None, TOO_LARGE
        if data:
            return data, None
    return None, None


def _candidates(recorded: str, user_dir: Path | None) -> list[Path]:
    """Where Cursor's copy can be: in the images folder of ``user_dir``, the folder read
    (never at the path as recorded: exporting a copied home must not read this machine's
    files, nor a network path). A path whose last parts are not
    ``workspaceStorage/images/<name>`` (``..`` included) is none of Cursor's copies."""
    parts = re.split(r"[\\/]", recorded)
    if len(parts) < 3 or not _is_copy(parts[-3:]):
        return []
    return [user_dir.joinpath(*FOLDER, parts[-1])] if user_dir is not None else []


def _is_copy(last: list[str]) -> bool:
    """Are these the last three parts of a path in Cursor's images folder?"""
    folder, images, name = last
    return (
        folder.casefold() == FOLDER[0].casefold()
        and images.casefold() == FOLDER[1]
        and name not in ("", ".", "..")
        and ":" not in name  # (Windows: a drive-relative name, or a file's hidden stream)
    )


def _in_its_folder(path: Path) -> bool:
    """Is the file, links followed, still in the folder that holds its name?"""
    try:
        real = os.path.realpath(path)
        return os.path.dirname(real) == os.path.realpath(path.parent)
    except (OSError, ValueError):
        return False
