"""What Copilot sent of an attachment (``result.metadata.renderedUserMessage``), the
branch it told the model of, and the prompt as typed (``message``).

VS Code keeps only the place of an attached file or selection; Copilot's own record of the
prompt it sent holds each one's text, in an ``<attachment>`` element: its ``id`` the
variable's name, ``filePath`` the file's path. Its body is the file's text (Copilot's
``CodeSummary``), or a line ``Excerpt from <name>, lines a to b:`` and a fenced block
(``CodeSelection``), after the variable's ``modelDescription`` and a colon when it has one.
``isSummarized`` marks a file Copilot shortened to fit: its body is what was left (parts
of the file left out); a self-closing element was sent without its contents.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from ._values import json_kind

_ELEMENT = re.compile(
    r"(?ms)^<attachment\b(?P<attrs>[^>\n]*?)(?:/>|>\n(?P<body>.*?)\n?</attachment>)[ \t]*$"
)
_ATTR = re.compile(r'([A-Za-z_][\w.-]*)="([^"]*)"')
_EXCERPT = re.compile(r"\AExcerpt from [^\n]*:\n")
_FENCED = re.compile(
    r"\A(?P<fence>`{3,}|~{3,})[^\n`]*\n(?P<code>.*?)\n?(?P=fence)[ \t]*\n?\Z", re.S
)
_PATH_COMMENT = re.compile(r"\A[ \t]*(?://|#|--|<!--|/\*)[ \t]*filepath:[ \t]*(?P<path>[^\n]*?)"
                           r"[ \t]*(?:-->|\*/)?[ \t]*(?:\n|\Z)")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Rendered:
    """One ``<attachment>`` element of the prompt Copilot sent."""

    attrs: dict[str, str]
    body: str | None


def rendered_attachments(request: dict[str, Any]) -> list[Rendered]:
    """The ``<attachment>`` elements of the prompt Copilot recorded sending for a request
    (read only for these: the rest is instructions and context Copilot added)."""
    text = _rendered(request)
    if "<attachment" not in text:
        return []
    return [
        Rendered({k: html.unescape(v) for k, v in _ATTR.findall(m["attrs"])}, m["body"])
        for m in _ELEMENT.finditer(text)
    ]


def _rendered(request: dict[str, Any]) -> str:
    """The text of the prompt Copilot recorded sending for a request ("" when none)."""
    result = request.get("result")
    metadata = result.get("metadata") if isinstance(result, dict) else None
    sent = metadata.get("renderedUserMessage") if isinstance(metadata, dict) else None
    pieces = sent if isinstance(sent, list) else [sent]
    return "\n".join(
        p.get("text") if isinstance(p, dict) and isinstance(p.get("text"), str) else p
        for p in pieces
        if isinstance(p, str) or (isinstance(p, dict) and isinstance(p.get("text"), str))
    )


# The branch Copilot told the model the workspace was on, in the ``<repoContext>`` it adds.
_BRANCH = re.compile(r"<repoContext>[^<]*?^Current branch: ([^\s<]+)[ \t]*$", re.M | re.S)


def recorded_branch(requests: object) -> str | None:
    """The git branch the chat's last request was made on, as Copilot's context for it
    says (VS Code records none of its own); None when no request says."""
    for request in reversed(requests if isinstance(requests, list) else []):
        if isinstance(request, dict) and "<repoContext>" in (text := _rendered(request)):
            if (found := _BRANCH.search(text)) is not None:
                return found.group(1)
    return None


def sent_text(
    variable: dict[str, Any], rendered: list[Rendered], path: str | None
) -> tuple[str, bool] | None:
    """The text Copilot sent for an attached file or selection, and whether Copilot
    shortened it to fit, when its record of the prompt holds it: by the element's ``id``
    (the variable's name), else, for a whole file, by its ``filePath`` (``path``, the
    variable's file)."""
    names = {v for v in (variable.get("name"), variable.get("id")) if isinstance(v, str) and v}
    value = variable.get("value")
    has_range = isinstance(value, dict) and isinstance(value.get("range"), dict)
    element = next(
        (
            r
            for r in rendered
            if r.attrs.get("id") in names and r.attrs.get("filePath") in (None, path)
        ),
        None,
    )
    if element is None and path and not has_range:
        element = next((r for r in rendered if r.attrs.get("filePath") == path), None)
    if element is None or element.body is None:
        return None
    body = element.body
    first, _, rest = body.partition("\n")
    described = variable.get("modelDescription")
    if first.endswith(":") and (
        _EXCERPT.match(rest)  # a selection's description, then the excerpt
        or (isinstance(described, str) and described and first.startswith(described))
    ):
        body = rest  # "User's active selection, this should be the main focus:"
    excerpt = _EXCERPT.match(body)
    if excerpt:
        fenced = _FENCED.match(body[excerpt.end() :])
        if not fenced:
            return None  # not the shape Copilot writes: not guessed at
        body = fenced["code"]
    elif has_range:
        return None  # a selection is always an excerpt
    if "filePath" not in element.attrs:  # the path was written as the code's first line
        comment = _PATH_COMMENT.match(body)
        if comment and path and path.endswith(comment["path"].rsplit("/", 1)[-1]):
            body = body[comment.end() :]
    return (body, element.attrs.get("isSummarized") == "true") if body.strip() else None


def prompt_text(message: Any, notes: list[str]) -> str:
    """The prompt as typed (``message.text``; a plain string in very old files). When that
    is damaged, the text of its parsed ``parts``, said; when they hold none either, said."""
    text = message.get("text") if isinstance(message, dict) else message
    if isinstance(text, str):
        return text
    parts = message.get("parts") if isinstance(message, dict) else None
    held = [
        p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
    ] if isinstance(parts, list) else []  # fmt: skip
    if message is None:
        why = "it has no message (the prompt)"
    elif not isinstance(message, dict):
        why = f"its message (the prompt) is {json_kind(message)}, not an object"
    elif "text" not in message:
        why = "its message has no text (the prompt)"
    else:
        why = f"its prompt (message.text) is {json_kind(text)}, not text"
    found = "".join(held)
    notes.append(f"{why}: {'read from its parts' if found.strip() else 'left out'}")
    return found
