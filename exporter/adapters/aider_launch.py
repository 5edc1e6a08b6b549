"""How an Aider run was started, from the lines it logs as it starts: the command line it
echoes (``> /home/me/.venv/bin/aider --model sonnet``), the arguments its ``--verbose``
settings dump opens with (``> Command Line Args:   --model sonnet --verbose``), and the
browser version's script (``> …/aider/gui.py --browser``) and the module ``python -m aider``
runs (``> …/aider/__main__.py --model sonnet``); made the note's ``command`` property, as typed
(``aider --model sonnet``, ``python -m aider --model sonnet``).

Kept apart from aider_log.py, which reads a run's lines and asks this module which of them
say how the run was started.
"""

from __future__ import annotations

import re

# What Aider prints before it logs its command line: the ``.env`` files it loaded and its
# check for a newer version (with the lines ``--verbose`` adds to it). A command line after
# these alone is still the banner's first fact.
_BEFORE_COMMAND = (
    "Loaded ", "Too soon to check version", "Current version: ", "Latest version: ",
    "No update available", "Update available",
)  # fmt: skip
# ``--verbose``: the arguments as given (configargparse's report of where each setting came
# from opens with them), then the environment variables, config files and defaults it read
# and every option's value, keys among them (Aider shows their last four characters):
# settings, not conversation, and no line of them goes to the note.
_ARGS = re.compile(r"^Command Line Args:[ \t]*(.*?)\s*$")
_DUMP_HEADINGS = ("Environment Variables:", "Config File (", "Defaults:", "Option settings:")
# Aider's browser version (``aider --browser``, ``aider --gui``) runs its ``gui.py`` under
# Streamlit with the arguments given, and logs that script as the program.
_GUI = re.compile(r"^(?:\S*[/\\])?aider[/\\]gui\.py$")
# ``python -m aider`` logs the module's file as the program (Python's ``sys.argv[0]``); which
# Python ran it is not logged, so the command reads ``python -m aider``.
_MODULE = re.compile(r"^(?:\S*[/\\])?aider[/\\]__main__\.py$")


def is_command(line: str) -> bool:
    """A command line that starts Aider: a path or a word ending in ``aider``, or the
    browser version's script, ``…/aider/gui.py``, or its module's, ``…/aider/__main__.py``."""
    first = line.split(" ", 1)[0]
    return first.endswith(("aider", "aider.exe", "aider-chat")) or bool(
        _GUI.match(first) or _MODULE.match(first)
    )


class Launch:
    """The command line that started a run, read from the lines Aider printed as it started
    (``banner``: before anything was typed or answered)."""

    def __init__(self) -> None:
        self.line: str | None = None  # as logged: ``/home/me/.venv/bin/aider --model sonnet``
        self._args: str | None = None  # the arguments a --verbose dump gave

    def settings_dump(self, lines: list[str], at: int, banner: bool, first: bool) -> int:
        """Where a ``--verbose`` settings dump that opens at ``lines[at]`` ends (``at`` when
        none does): its headings, indented entries and the blank lines between them. Its
        arguments are the run's command line when it is the banner's ``first`` fact; the
        command line Aider echoes after it is the same one."""
        found = _ARGS.match(lines[at])
        if found is None and not (banner and lines[at].startswith(_DUMP_HEADINGS)):
            return at
        if found is not None and banner and first and self.line is None:
            self._args = found.group(1)
            self.line = f"aider {self._args}".strip()
        end = at + 1
        while end < len(lines) and (
            not lines[end].strip() or lines[end].startswith((" ", "\t", *_DUMP_HEADINGS))
        ):
            end += 1
        return end

    def echoed(self, line: str, before: list[str], first: bool) -> bool:
        """Whether ``line`` is the command line that started Aider, taken as such: the first
        fact of its banner (after the ``.env`` files it loaded and its version check alone,
        ``before`` it), or the one echoed after a ``--verbose`` dump of its arguments."""
        if not first or not is_command(line):
            return False
        if self.line is None:
            if all(b.startswith(_BEFORE_COMMAND) for b in before):
                self.line = line
            return self.line is not None
        words = line.strip().split(None, 1)
        if self._args is None or (words[1:] or [""])[0].strip() != self._args:
            return False
        self.line, self._args = line, None
        return True

    def command(self) -> str | None:
        """The command line as the person typed it: the program named without its folder
        (``aider --model sonnet``, not ``/Users/me/.venv/bin/aider …``), and the browser
        version's script as the ``aider`` that started it (``aider --browser``), and the
        module's file as ``python -m aider``."""
        if self.line is None:
            return None
        words = self.line.strip().split(" ", 1)
        if _MODULE.match(words[0]):
            return " ".join(["python -m aider", *words[1:]])
        program = "aider" if _GUI.match(words[0]) else words[0]
        return " ".join([program.replace("\\", "/").rsplit("/", 1)[-1], *words[1:]])
