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
# What one note's template may build in one step and in all, beyond ``range()``: the
# characters of text made by ``*`` (or a width: ``center``, ``ljust``, ``indent``), the
# items of lists made by ``*`` (counted with ``range()``'s numbers), and the bits of a
# number made by ``**``. Each is checked before the value is made: ``"x" * 3000000000``
# would take 3 GB first, and ``[0] * 100000`` in a loop in a loop runs for hours printing
# nothing (the 64 MB cap counts only what is printed).
_built_left = [MAX_NOTE_CHARS]
MAX_POWER_BITS = 1_000_000
_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs"})
_WIDTH_FILTERS = {"center": ("width", 1), "indent": ("width", 1)}
# What the template being rendered is given (its context and Jinja's globals): an undefined
# name is said with the nearest of their keys, worked out only then (not for every note).
_names_given: ContextVar[tuple[Collection[str], ...]] = ContextVar("names_given", default=())
_TEMPLATE_LOCAL = re.compile(r"l_\d+_(\w+)")  # how compiled Jinja names a template's variable


class TooMuch(Exception):
    """A template printed or counted past its limits; raised at its line."""


_WHAT_TO_DO = "build less in one note: a loop in a loop, or a number too large?"


def _count_text(size: int) -> None:
    """Count ``size`` characters of text a template builds (not prints) against the note's."""
    _built_left[0] -= max(size, 0)
    if _built_left[0] < 0:
        limit = f"{MAX_NOTE_CHARS // (1024 * 1024)} MB"
        raise TooMuch(f"built more than {limit} of text for one note ({_WHAT_TO_DO})")


def _count_items(size: int) -> None:
    """Count ``size`` items of a list a template builds, with ``range()``'s numbers."""
    _range_left[0] -= max(size, 0)
    if _range_left[0] < 0:
        raise TooMuch(
            f"range() and lists built with * gave more than {MAX_RANGE_NUMBERS:,} items for "
            f"one note ({_WHAT_TO_DO})"
        )


def checked_binop(operator: str, left: Any, right: Any) -> None:
    """Refuse, before it is made, what ``left <operator> right`` would build past the
    note's limits: a repeated text or list (``*``), a huge number (``**``), a text padded
    to a huge width (``%``, as ``"%999999999d" % 1``)."""
    if operator == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(times, int) and isinstance(seq, (str, bytes, list, tuple)):
                size = len(seq) * max(times, 0)
                (_count_text if isinstance(seq, (str, bytes)) else _count_items)(size)
    elif operator == "**" and isinstance(left, int) and isinstance(right, int):
        if right > 0 and abs(left) > 1 and right * left.bit_length() > MAX_POWER_BITS:
            raise TooMuch(f"{left} ** {right} is a number too large to make ({_WHAT_TO_DO})")
    elif operator == "%" and isinstance(left, str):
        _count_text(_percent_width(left, right))
    elif operator == "+" and isinstance(left, (str, bytes, list, tuple)):
        # (only a result past the limit counts: ``s + s`` doubled by a macro calling itself)
        size = len(left) + (len(right) if isinstance(right, (str, bytes, list, tuple)) else 0)
        if isinstance(left, (str, bytes)) and size > MAX_NOTE_CHARS:
            _count_text(size)
        elif isinstance(left, (list, tuple)) and size > MAX_RANGE_NUMBERS:
            _count_items(size)


# A ``%`` conversion's width and precision: digits, or ``*`` for the next argument's value.
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[-+ #0]*(\*|\d*)(?:\.(\*|\d*))?")
# A ``str.format`` field's spec: [[fill]align][sign][z][#][0][width][grouping][.precision]
_BRACE_SPEC = re.compile(r"(?:.?[<>=^])?[-+ ]?z?#?0?(\d*)[,_]?(?:\.(\d+))?")


def _largest_int(values: Any) -> int:
    values = values.values() if isinstance(values, dict) else values
    values = values if isinstance(values, (tuple, list)) else (values,)
    return max((v for v in values if type(v) is int), default=0)


def _percent_width(text: str, args: Any) -> int:
    """The widest ``text % args`` pads one value to (a ``*`` takes an argument's value)."""
    biggest = _largest_int(args) if "*" in text else 0
    return max(
        ((biggest if w == "*" else int(w or 0)) + (biggest if p == "*" else int(p or 0))
         for w, p in _PERCENT_SPEC.findall(text)),
        default=0,
    )  # fmt: skip


def _brace_width(text: str, args: Any) -> int:
    """The widest ``text.format(*args)`` pads one value to (a spec of fields: any value)."""
    import string

    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:  # (refused by ``format`` itself, before it builds anything)
        return 0
    width = 0
    for _, _, spec, _ in fields:
        if spec and "{" in spec:
            width = max(width, 2 * _largest_int(args))
        elif spec and (found := _BRACE_SPEC.match(spec)):
            width = max(width, int(found.group(1) or 0) + int(found.group(2) or 0))
    return width


def _format_checked(function: Any) -> Any:
    """Jinja's ``format`` filter (``"%s" % args``), refusing a width past the note's
    limits before it pads."""
    import functools

    @functools.wraps(function)
    def checked(value: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(value, str):
            _count_text(_percent_width(value, args or kwargs))
        return function(value, *args, **kwargs)

    return checked


def _width_checked(function: Any, argument: str, position: int) -> Any:
    """A Jinja filter that pads to a width (``center``, ``indent``), refusing a width past
    the note's limits before it pads."""
    import functools

    @functools.wraps(function)  # (keeps Jinja's pass_* marks)
    def checked(*args: Any, **kwargs: Any) -> Any:
        width = kwargs.get(argument, args[position] if len(args) > position else 0)
        if isinstance(width, int):
            _count_text(width)
        return function(*args, **kwargs)

    return checked


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
    from jinja2.utils import Cycler, Joiner, Namespace, generate_lorem_ipsum, missing

    from .config_values import did_you_mean
    from .model import Session
    from .template_built import checked_filters, texts_checked
    from .template_deadline import LOOP_CHECK, check_clock, loop_started, loops_checked
    from .template_kinds import other_kind

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
        check_clock()
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
            # (a field of another kind of value, the session's on a turn: said so, not the
            # nearest name of this one, which it does not mean)
            return said + (other_kind(name, obj) or did_you_mean(name, known))

    def counted_lipsum(n: int = 5, *args: Any, **kwargs: Any) -> str:
        _count_text(max(n, 0) * 1000)  # (a paragraph is at most about a thousand characters)
        return generate_lorem_ipsum(n, *args, **kwargs)

    class CheckedNamespace(Namespace):
        """``namespace()``, whose values a loop cannot double past the note's limits
        (``{% set ns.s = ns.s ~ ns.s %}`` forty times is a terabyte)."""

        def __setitem__(self, name: str, value: Any) -> None:
            if isinstance(value, (str, bytes, list, tuple)) and len(value) > MAX_NOTE_CHARS:
                _count_text(len(value))
            super().__setitem__(name, value)

    class Sandbox(SandboxedEnvironment):
        strict_undefined = NearestUndefined
        intercepted_binops = frozenset({"*", "**", "%", "+"})

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.globals["range"] = counted_range
            self.globals["lipsum"] = counted_lipsum
            self.globals["namespace"] = CheckedNamespace
            self.filters[LOOP_CHECK] = loop_started
            self.filters.update(checked_filters())  # (each ``~``, each filter's result)
            self.filters["format"] = _format_checked(self.filters["format"])
            for name, (argument, position) in _WIDTH_FILTERS.items():
                self.filters[name] = _width_checked(self.filters[name], argument, position)

        def wrap_str_format(self, value: Any) -> Any:
            """Jinja's sandboxed ``str.format`` / ``format_map``, refusing a width past the
            note's limits before it pads ("{:300000000}".format(1))."""
            wrapped = super().wrap_str_format(value)
            if wrapped is None:
                return None
            text, named_map = value.__self__, value.__name__ == "format_map"

            def checked(*args: Any, **kwargs: Any) -> Any:
                given = [*args, *kwargs.values()]
                if named_map and args and isinstance(args[0], dict):
                    given = list(args[0].values())
                _count_text(_brace_width(text, given))
                return wrapped(*args, **kwargs)

            return checked

        def _generate(self, source: Any, *args: Any, **kwargs: Any) -> Any:
            """(Jinja's hook between parsing and compiling: each loop gets its clock check.)"""
            return super()._generate(texts_checked(loops_checked(source)), *args, **kwargs)

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            check_clock()
            checked_binop(operator, left, right)
            return super().call_binop(context, operator, left, right)

        def call(self, context: Any, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
            check_clock()
            if not self.is_safe_callable(obj):  # named by its type, not its value: one line
                owner = getattr(obj, "__self__", None)  # for every note's session path
                kind = owner if isinstance(owner, type) else type(owner)
                name = f"{kind.__name__}.{getattr(obj, '__name__', '?')}"
                raise SecurityError(
                    f"{name}() cannot be called in a template (only methods of text, "
                    "numbers, lists, dicts and dates can)"
                )
            called, owner = getattr(obj, "__name__", ""), getattr(obj, "__self__", None)
            if called in _WIDTH_METHODS and isinstance(owner, (str, bytes)):
                # ("x".ljust(3000000000): refused before it pads)
                _count_text(max([a for a in args if isinstance(a, int)], default=0))
            result = super().call(context, obj, *args, **kwargs)
            if isinstance(result, (str, bytes, list)) and len(result) > MAX_NOTE_CHARS:
                _count_text(len(result))  # (a replace() of a replace(): stopped here)
            return result

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
    """``template.render(**context)``, stopped with TooMuch past the limits (and with
    TooSlow past its time: ``template_deadline``). The error is raised inside the template,
    where it printed the text that went past, so it carries that line."""
    from .template_deadline import TooSlow, rendered_in_time, seconds_for, start_clock, stop_clock

    which = template.filename or template.name or "(an expression)"
    _range_left[0] = MAX_RANGE_NUMBERS
    _built_left[0] = MAX_NOTE_CHARS
    given = _names_given.set((context.keys(), template.globals.keys()))
    start_clock(seconds_for(which))
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
    except TooSlow:
        rendered_in_time(which, late=True)
        raise
    finally:
        stop_clock()
        _names_given.reset(given)
    rendered_in_time(which, late=False)
    return "".join(out)


def macro_calling_itself(exc: BaseException) -> str | None:
    """The macro the traceback shows called over and over (Jinja calls one through its
    ``Macro._invoke``), or None."""
    from collections import Counter

    from jinja2.runtime import Macro

    calls: Counter[str] = Counter()
    tb = exc.__traceback__
    while tb is not None:
        macro = (
            tb.tb_frame.f_locals.get("self") if tb.tb_frame.f_code.co_name == "_invoke" else None
        )
        if isinstance(macro, Macro):
            calls[macro.name] += 1
        tb = tb.tb_next
    name, times = calls.most_common(1)[0] if calls else ("", 0)
    return name if times >= 20 else None
