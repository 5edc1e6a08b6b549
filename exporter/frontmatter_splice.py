"""Our keys spliced into a note's frontmatter, every other byte of it kept.

``splice`` (``notefile.splice_frontmatter``) takes the lines of each key from PyYAML's
nodes: any block mapping, comments and all. A run that renders every note again (after an
upgrade) splices every note's frontmatter, nearly always of the plain shape ccexport
writes: there ``frontmatter_read`` gives the same lines and values without PyYAML, and
``_plain_splice`` does the same splice with them (tests/test_frontmatter_splice.py
compares the two). Where the person's text inside a key of ours must be looked at
(``keytext.Keeper``, with the nodes), the splice is left to PyYAML.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from . import frontmatter_read, lineends, notefile

if TYPE_CHECKING:
    import yaml

_UNSURE = object()


def splice(
    yaml_text: str,
    values: dict[str, Any],
    drop: Collection[str],
    existing: dict[str, Any] | None = None,
    keep: notefile.Keep | None = None,
    eol: str = lineends.LF,
) -> str | None:
    """``notefile.splice_frontmatter``: without PyYAML where sure, through it otherwise.
    Our keys are made in LF, compared with the note's text as LF where ``eol`` is CRLF,
    and written with ``eol``; the person's lines are kept with their own line ends."""
    spliced = _plain_splice(yaml_text, values, drop, existing, keep, eol)
    if spliced is _UNSURE:
        return _composed_splice(yaml_text, values, drop, existing, keep, eol)
    return spliced  # type: ignore[return-value]


def _plain_splice(
    yaml_text: str,
    values: dict[str, Any],
    drop: Collection[str],
    existing: dict[str, Any] | None,
    keep: notefile.Keep | None,
    eol: str = lineends.LF,
) -> str | None | object:
    """``_composed_splice`` for texts ``frontmatter_read`` reads, line for line; _UNSURE
    for the others, and where ``keep`` would need the nodes."""
    found = frontmatter_read.entries(yaml_text)
    if found is None:
        return _UNSURE
    ours_text = notefile.yaml_of(values)
    # (A note the person left as written holds what we write: read once.)
    ours_found = found if ours_text == yaml_text else frontmatter_read.entries(ours_text)
    if ours_found is None:
        return _UNSURE
    if not ours_found:
        return None
    ours_lines = notefile.yaml_lines(ours_text)
    starts = [e.first for e in ours_found] + [len(ours_lines)]
    ours = {
        e.name: "".join(ours_lines[starts[i] : starts[i + 1]]) for i, e in enumerate(ours_found)
    }
    expected: dict[Any, Any] = {e.name: e.value for e in ours_found}
    old = existing if existing is not None else {e.name: e.value for e in found}
    lines = notefile.yaml_lines(yaml_text)
    out: list[str] = []
    position = 0
    for entry in found:
        name, first, last = entry.name, entry.first, entry.last
        out.append("".join(lines[position:first]))
        if name in ours:
            fresh = ours.pop(name)
            text = "".join(lines[first : last + 1])
            if keep is not None and text != fresh:
                plain = getattr(keep, "without_nodes", None)
                if plain is None or not plain(name, text, entry.is_list):
                    return _UNSURE
            out.append(lineends.written(fresh, eol))
        elif name not in values and name not in drop:
            out.append("".join(lines[first : last + 1]))
            expected.setdefault(name, old.get(name))
        position = last + 1
    result = _joined(out, lines[position:], ours, eol)
    if result == yaml_text:  # (what it reads is known)
        return result if {e.name: e.value for e in found} == expected else None
    return result if _reads_as(result, expected) else None


def _composed_splice(
    yaml_text: str,
    values: dict[str, Any],
    drop: Collection[str],
    existing: dict[str, Any] | None = None,
    keep: notefile.Keep | None = None,
    eol: str = lineends.LF,
) -> str | None:
    """``splice`` through PyYAML's nodes: any block mapping."""
    import yaml

    node = _block_mapping(yaml_text)
    ours_text = notefile.yaml_of(values)
    ours_node = _block_mapping(ours_text)
    if node is False or not ours_node:
        return None
    constructor = yaml.SafeLoader("")
    ours = _segments(ours_node, notefile.yaml_lines(ours_text))
    expected: dict[Any, Any] = constructor.construct_document(ours_node)
    old = (
        existing if existing is not None else yaml.load(yaml_text, Loader=notefile._loader()) or {}
    )
    lines = notefile.yaml_lines(yaml_text)
    out: list[str] = []
    position = 0
    for key, value in node.value if node else []:
        name = key.value if isinstance(key, yaml.ScalarNode) and key.tag.endswith(":str") else None
        first = key.start_mark.line
        # (an alias's marks are those of the anchor it names, maybe lines above)
        last = max(first, value.end_mark.line - (value.end_mark.column == 0))
        while last > first and _is_gap(lines[last]):
            last -= 1  # comments and blank lines after a value stay with the next key
        out.append("".join(lines[position:first]))
        if name in ours:
            fresh = ours.pop(name)  # a key twice: the later copy goes
            segment = lines[first : last + 1]
            kept = None
            if keep is not None and _differs("".join(segment), fresh, eol):
                kept = keep(name, key, value, segment, fresh)
            if kept is None:
                out.append(lineends.written(fresh, eol))
            else:  # (the person's lines in it as they were, those made anew LF: in a
                # CRLF note, all CRLF: a lone LF of theirs inside a key of ours too)
                out.append(kept[0] if eol == lineends.LF else lineends.bare_to_crlf(kept[0]))
                expected[name] = kept[1]
        elif name not in values and name not in drop:
            out.append("".join(lines[first : last + 1]))
            constructed = constructor.construct_object(key, deep=True)
            expected.setdefault(constructed, old.get(constructed))
        position = last + 1
    result = _joined(out, lines[position:], ours, eol)
    return result if _reads_as(result, expected) else None


def _joined(out: list[str], rest: list[str], ours: dict[str, str], eol: str) -> str:
    """The frontmatter's text: what was written so far, the person's lines after the last
    key of ours, then our keys it did not hold yet (on a line of their own), with ``eol``."""
    out.append("".join(rest))
    if ours:
        if out[-1] and not out[-1].endswith(("\n", "\r")):
            out.append(eol)
        out.extend(lineends.written(text, eol) for text in ours.values())
    return "".join(out)


def _differs(text: str, fresh: str, eol: str) -> bool:
    """Is a key's ``text`` in the note not ``fresh`` (ccexport's, LF)? Compared as LF in a
    note whose line ends are CRLF: a key as ccexport writes it is then not the person's."""
    return lineends.as_lf(text, eol) != fresh


def _reads_as(result: str, expected: dict[Any, Any]) -> bool:
    """Whatever the text held, the result must read back as exactly the intended properties
    (read without PyYAML where ``frontmatter_read`` is sure of it)."""
    read = frontmatter_read.load(result)
    if read is not None:
        return read == expected
    import yaml

    try:
        return (yaml.load(result, Loader=notefile._loader()) or {}) == expected
    except yaml.YAMLError:
        return False


def _block_mapping(text: str) -> yaml.MappingNode | None | bool:
    """The composed block mapping of ``text``; None if empty; False if it is anything else."""
    import yaml

    try:
        node = yaml.compose(text, Loader=notefile._loader())
    except yaml.YAMLError:
        return False
    if node is not None and (not isinstance(node, yaml.MappingNode) or node.flow_style):
        return False
    return node


def _segments(node: yaml.MappingNode, lines: list[str]) -> dict[str, str]:
    """The text of each top-level key of a dump (no comments, no blank lines in it)."""
    starts = [key.start_mark.line for key, _ in node.value] + [len(lines)]
    return {
        key.value: "".join(lines[starts[i] : starts[i + 1]])
        for i, (key, _) in enumerate(node.value)
    }


def _is_gap(line: str) -> bool:
    return not line.strip() or line.startswith("#")
