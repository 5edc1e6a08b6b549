"""The Jinja sandbox templates run in: what they may read and call, and how much they may
print for one note.

Jinja is imported here when a note is rendered: a run with nothing to render starts
without it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Collection
from contextvars import ContextVar
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
# What the template being rendered is given (its context and Jinja's globals): an undefined
# name is said with the nearest of their keys, worked out only then (not for every note).
_names_given: ContextVar[tuple[Collection[str], ...]] = ContextVar("names_given", default=())
_TEMPLATE_LOCAL = re.compile(r"l_\d+_(\w+)")  # how compiled Jinja names a template's variable


class TooMuch(Exception):
    """A template printed or counted past its limits; raised at its line."""


@lru_cache(maxsize=1)
def sandbox() -> type[jinja2.Environment]:
    """The sandbox, with a fast path for the plain dicts notes are built from: their keys
    are data, never attributes, so ``item.kind`` reads the key without the attribute checks
    (a large share of render time otherwise). Its ``strict_undefined`` makes an undefined
    name an error, said with the name it may have meant."""
    from datetime import date, datetime, time, timedelta, tzinfo
    from types import ModuleType

    from jinja2 import StrictUndefined, Undefined
    from jinja2.exceptions import SecurityError
    from jinja2.runtime import LoopContext
    from jinja2.sandbox import SandboxedEnvironment, safe_range
    from jinja2.utils import Cycler, Joiner, Namespace, missing

    from .config_values import did_you_mean
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

    def fields_of(obj: Any) -> list[str]:
        """What a template may read of ``obj``: a dict's keys; an object's public attributes
        (its methods too where a template may call them)."""
        if isinstance(obj, dict):
            return [key for key in obj if isinstance(key, str)]
        calls = isinstance(obj, callable_owners)
        names = []
        for name in dir(obj):
            try:
                if not name.startswith("_") and (calls or not callable(getattr(obj, name))):
                    names.append(name)
            except Exception:  # noqa: BLE001 (a property that fails is no field to offer)
                continue
        return names

    def names_set_in_templates() -> set[str]:
        """The names the templates running have set themselves (a loop's variable, a ``{%
        set %}``, a macro's argument), read off their frames up the stack: Jinja keeps each
        as a local ``l_<depth>_<name>`` of the compiled template's functions. A typo of a
        loop's ``item`` is then not said to mean ``title``."""
        found: set[str] = set()
        frame = sys._getframe(1)
        while frame is not None:
            if "debug_info" in frame.f_globals and "root" in frame.f_globals:  # a template's
                for local, value in frame.f_locals.items():
                    named = _TEMPLATE_LOCAL.fullmatch(local)
                    if named and value is not missing and not isinstance(value, Undefined):
                        found.add(named[1])
            frame = frame.f_back
        return found

    class NearestUndefined(StrictUndefined):
        """StrictUndefined whose error names the nearest known name (``'sesion' is
        undefined (did you mean session?)``, ``… has no attribute 'titel' (did you mean
        title?)``): of the names the template is given, or the fields of the object missed
        on. Worked out only when the error is raised."""

        __slots__ = ()

        @property
        def _undefined_message(self) -> str:
            said = super()._undefined_message
            name = self._undefined_name
            if self._undefined_hint or not isinstance(name, str):  # (the sandbox's refusals)
                return said
            obj = self._undefined_obj
            if obj is missing:  # a name: given to the template, or set in it
                known: Collection[str] = names_set_in_templates().union(*_names_given.get())
            else:
                known = fields_of(obj)
            return said + did_you_mean(name, known)

    class Sandbox(SandboxedEnvironment):
        strict_undefined = NearestUndefined

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
    given = _names_given.set((context.keys(), template.globals.keys()))
    try:
        chunks = template.generate(**context)
        out: list[str] = []
        size = 0
        for chunk in chunks:
            size += len(chunk)
            if size > MAX_NOTE_CHARS:
                limit = f"{MAX_NOTE_CHARS // (1024 * 1024)} MB"
                chunks.throw(
                    TooMuch(f"printed more than {limit} for one note (a loop gone wrong?)")
                )
            out.append(chunk)
    finally:
        _names_given.reset(given)
    return "".join(out)
