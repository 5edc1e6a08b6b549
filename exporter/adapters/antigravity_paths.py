"""An Antigravity conversation's project when no workspace is known for it: the folder
holding every path its tool calls named.

``cache/last_conversations.json`` names only each workspace's latest conversation, so an
older one exported for the first time, or any conversation once the cache is gone, has no
folder of its own. Its calls name paths, as the decoded arguments of ``list_dir``
(``DirectoryPath``), ``view_file`` (``AbsolutePath``), ``write_to_file`` (``TargetFile``),
``run_command`` (``Cwd``) and the like. Their common folder is taken, with care:

- a folder argument stands for itself, a file argument for the folder it lies in;
- only absolute paths count (POSIX, Windows ``C:\\…`` or a ``file://`` URI), never one with
  ``..`` in it, nor one under a ``.gemini`` folder (the agent's own plans and notes in its
  ``brain``, no project's);
- POSIX and Windows paths together, or Windows paths of two drives, give none;
- a common folder that holds many projects is none: a filesystem root, the folder of
  homes, a home (``/home/<name>``, ``/Users/<name>``, ``/root``, ``C:\\Users\\<name>``),
  a temporary folder (``/tmp``, ``/var/tmp``, macOS's ``/private/tmp``, Windows' ``Temp``),
  WSL's ``/mnt/<drive>``. ``/tmp/repo`` is a project; ``/tmp`` alone is not.

A conversation whose calls named only files of one subfolder is filed under that
subfolder's name: the transcript holds nothing that tells the project's root from it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePath, PurePosixPath, PureWindowsPath
from urllib.parse import unquote, urlparse

from ..model import Message, ToolCallPart

# Arguments naming a folder, and ones naming a file (of the calls seen: FORMATS.md §6.1)
FOLDER_ARGUMENTS = ("DirectoryPath", "Cwd", "SearchDirectory")
FILE_ARGUMENTS = ("TargetFile", "AbsolutePath")
_AGENT_STORE = ".gemini"
# Folders holding many projects (matched on the folder with "/" and lowercase)
_NO_PROJECT = re.compile(
    r"(?:[a-z]:)?/(?:"
    r"|home|home/[^/]+|users|users/[^/]+|root"
    r"|tmp|var|var/tmp|private|private/tmp|private/var|private/var/tmp"
    r"|windows|windows/temp|users/[^/]+/appdata(?:/local(?:/temp)?)?"
    r"|mnt|mnt/[a-z]|mnt/[a-z]/users|mnt/[a-z]/users/[^/]+"
    r")"
)


def folder_of_tool_paths(messages: Iterable[Message]) -> str | None:
    """The folder holding every path the conversation's tool calls named, when it may be a
    project's (see the module's docstring), else None."""
    folders = [folder for message in messages for folder in _named_folders(message)]
    if not folders or len({type(f) for f in folders}) > 1:
        return None
    common = folders[0]
    for folder in folders[1:]:
        common = _common(common, folder)
        if common is None:
            return None
    key = common.as_posix().lower()
    return None if _NO_PROJECT.fullmatch(key) else str(common)


def _named_folders(message: Message) -> list[PurePath]:
    found = []
    for part in message.parts:
        if not isinstance(part, ToolCallPart) or not isinstance(part.input, dict):
            continue
        for key in (*FOLDER_ARGUMENTS, *FILE_ARGUMENTS):
            path = _absolute(part.input.get(key))
            if path is not None and _AGENT_STORE not in path.parts:
                found.append(path if key in FOLDER_ARGUMENTS else path.parent)
    return found


def _absolute(value: object) -> PurePath | None:
    """An absolute path given as text, POSIX or Windows shaped or a ``file://`` URI."""
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        return None
    text = value.strip()
    if text.startswith("file://"):
        text = unquote(urlparse(text).path)
        if re.match(r"^/[A-Za-z]:/", text):
            text = text[1:]
    if re.match(r"^[A-Za-z]:[\\/]", text):
        path: PurePath = PureWindowsPath(text)
    elif text.startswith("/") and not text.startswith("//"):
        path = PurePosixPath(text)
    else:
        return None  # relative, "~/…", a UNC share: no place of its own
    return None if ".." in path.parts else path


def _common(a: PurePath, b: PurePath) -> PurePath | None:
    """The deepest folder holding both, None when they share no more than nothing (two
    drives). Windows parts compare without case, as Windows does."""
    fold = (lambda p: p.lower()) if isinstance(a, PureWindowsPath) else (lambda p: p)
    shared = 0
    for mine, theirs in zip(a.parts, b.parts, strict=False):
        if fold(mine) != fold(theirs):
            break
        shared += 1
    return type(a)(*a.parts[:shared]) if shared else None
