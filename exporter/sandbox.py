"""The Jinja sandbox templates run in: what they may read and call, and how much they may
print for one note.

Jinja is imported here when a note is rendered: a run with nothing to render starts
without it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

# What one note's template may print: more than ten times any note (a long session is cut
# into parts of about 4 MB), little enough that a loop gone wrong fills no disk.
MAX_NOTE_CHARS = 64 * 1024 * 1024
# The numbers ``range()`` may give one note's template in all. Jinja caps one call at
# 100,000; a range in a range would still run for hours.
MAX_RANGE_NUMBERS = 1_000_000
_range_left = [MAX_RANGE_NUMBERS]


class TooMuch(Exception):
    """A template printed or counted past its limits; raised at its line."""


@lru_cache(maxsize=1)
def sandbox() -> type[jinja2.Environment]:
    """The sandbox, with a fast path for the plain dicts notes are built from: their keys
    are data, never attributes, so ``item.kind`` reads the key without the attribute checks
    (a large share of render time otherwise)."""
    from datetime import date, datetime, time, timedelta, tzinfo
    from types import ModuleType

    from jinja2.exceptions import SecurityError
    from jinja2.runtime import LoopContext
    from jinja2.sandbox import SandboxedEnvironment, safe_range
    from jinja2.utils import Cycler, Joiner, Namespace

    from .model import Session

    # Objects none of whose public attributes the sandbox refuses or wraps (it does so only
    # for functions, methods, types, code, frames, generators and strings' ``format``):
    # for them its checks always end in plain ``getattr``, so they are skipped.
    plain_types = (LoopContext, Session, datetime, date)
    # Whose methods a template may call: plain values and Jinja's own helpers. Jinja's
    # sandbox calls any public method, and a session holds a Path: a template could read
    # the unredacted transcript (``session.source_path.read_text()``) or write files.
    callable_owners = (str, bytes, int, float, list, tuple, dict, set, frozenset, date,
                       time, timedelta, tzinfo, LoopContext, Cycler, Joiner, Namespace)  # fmt: skip

    def counted_range(*args: int) -> range:
        numbers = safe_range(*args)
        _range_left[0] -= len(numbers)
        if _range_left[0] < 0:
            raise TooMuch(
                f"range() gave more than {MAX_RANGE_NUMBERS:,} numbers for one note "
                "(a loop in a loop?)"
            )
        return numbers

    class Sandbox(SandboxedEnvironment):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.globals["range"] = counted_range

        def call(self, context: Any, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
            if not self.is_safe_callable(obj):  # named by its type, not its value: one line
                owner = getattr(obj, "__self__", None)  # for every note's session path
                kind = owner if isinstance(owner, type) else type(owner)
                name = f"{kind.__name__}.{getattr(obj, '__name__', '?')}"
                raise SecurityError(
                    f"{name}() cannot be called in a template (only methods of text, "
                    "numbers, lists, dicts and dates can)"
                )
            return super().call(context, obj, *args, **kwargs)

        def is_safe_callable(self, obj: Any) -> bool:
            owner = getattr(obj, "__self__", None)  # a method's object (or class)
            if owner is not None and not isinstance(owner, ModuleType):
                kind = owner if isinstance(owner, type) else type(owner)
                if not issubclass(kind, callable_owners):
                    return False
            return super().is_safe_callable(obj)

        def getattr(self, obj: Any, attribute: str) -> Any:
            kind = type(obj)
            if kind is dict:
                try:
                    return obj[attribute]
                except KeyError:
                    pass
            elif kind in plain_types and not attribute.startswith("_"):
                try:
                    return getattr(obj, attribute)
                except AttributeError:
                    pass
            return super().getattr(obj, attribute)

    return Sandbox


def rendered(template: jinja2.Template, context: dict[str, Any]) -> str:
    """``template.render(**context)``, stopped with TooMuch past the limits. The error is
    raised inside the template, where it printed the text that went past, so it carries
    that line."""
    _range_left[0] = MAX_RANGE_NUMBERS
    chunks = template.generate(**context)
    out: list[str] = []
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if size > MAX_NOTE_CHARS:
            limit = f"{MAX_NOTE_CHARS // (1024 * 1024)} MB"
            chunks.throw(TooMuch(f"printed more than {limit} for one note (a loop gone wrong?)"))
        out.append(chunk)
    return "".join(out)
