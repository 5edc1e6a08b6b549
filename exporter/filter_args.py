"""What a template's text filters (``prose``, ``inline``, ``code`` …) make of a value that is
not text, before the Markdown functions see it.

- A name the template misspelt (``{{ titel | inline }}``) raises the undefined's own error,
  with its "did you mean", as it does without a filter: not a type error naming neither.
- ``None`` (a field a session may lack: ``session.cwd``, ``item.summary``) prints nothing:
  no empty code span or block, and no link (never to a note named "None"). As the body of
  a callout it is an empty body: the callout's title line alone.
- A number or a yes/no prints as its text (``item.exit_code | code``).
- Anything else (a list, a dict) is an error naming the filter and what it was given.
"""

from __future__ import annotations

from typing import Any


class FilterArgumentError(TypeError):
    """A text filter given a value that has no text (a list, a dict, a session)."""


def text_argument(value: Any, filter_name: str) -> str:
    """``value`` as the text a filter works on (see the module's docstring)."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return str(value)
    from jinja2 import Undefined

    if isinstance(value, Undefined):
        value._fail_with_undefined_error()  # raises: "'titel' is undefined (did you mean …)"
    raise FilterArgumentError(
        f"the {filter_name} filter takes text, and was given {_kind_of(value)}: "
        'pick one of its fields, or print it with | to_json | fence("json")'
    )


def _kind_of(value: Any) -> str:
    kinds = {list: "a list", tuple: "a list", dict: "a dict (a mapping)"}
    return kinds.get(type(value), f"a {type(value).__name__}")


def checked_filters() -> dict[str, Any]:
    """The text filters, each checking its text arguments first."""
    from . import markdown
    from .render import note_link, short_model_name

    # (none is "" here, which prose, literal, inline and short_model print as nothing; a
    # fence, a code span and a link would print something, so those ask for none first)
    def prose(text: Any) -> str:
        return markdown.escape_prose(text_argument(text, "prose"))

    def literal(text: Any) -> str:
        return markdown.escape_prose(text_argument(text, "literal"), literal=True)

    def inline(text: Any) -> str:
        return markdown.escape_inline(text_argument(text, "inline"))

    def fence(text: Any, lang: Any = "") -> str:
        if text is None:
            return ""
        return markdown.fence(text_argument(text, "fence"), text_argument(lang, "fence"))

    def code(text: Any, cut: Any = "") -> str:
        # (``| code(item.summary_cut)``: the cut's mark after the code, not in it)
        if text is None:
            return ""
        return markdown.clipped_code(text_argument(text, "code"), text_argument(cut, "code"))

    def callout(body: Any, kind: Any = "note", title: Any = "", folded: bool = True) -> str:
        return markdown.callout(
            text_argument(kind, "callout"),
            text_argument(title, "callout"),
            text_argument(body, "callout"),
            folded=folded,
        )

    def short_model(name: Any) -> str:
        return short_model_name(text_argument(name, "short_model"))

    def wikilink(target: Any, label: Any = None) -> str:
        if target is None:  # no link to a note named "None"
            return ""
        target = text_argument(target, "wikilink")
        if not target.strip():  # nor to one named "_" (an empty text)
            return ""
        return note_link(
            target,
            None if label is None else text_argument(label, "wikilink"),
        )

    return {
        "short_model": short_model,
        "prose": prose,
        "literal": literal,
        "inline": inline,
        "fence": fence,
        "code": code,
        "callout": callout,
        "wikilink": wikilink,
    }
