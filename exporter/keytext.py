"""The text of a key ccexport owns, with what the person wrote inside it kept.

``splice_frontmatter`` asks ``Keeper`` for a key of ours whose text is not as ccexport
writes it: the person's tags where they put them, each item of a list on its own line as
typed, the comments between and after them, a flow list (``[a, b]  # c``) as a flow list,
a comment after a value that changes, an anchor (``&a``) their own key refers to. PyYAML's
node marks say where each value, item and comment is. Items are compared as Obsidian reads
them (YAML 1.2: ``yes`` and ``on`` are two texts, not twice ``true``). Each text is read
back before it is used; what cannot be kept in place is written plainly with its comments
as lines below it, never lost, and written so again by the next update.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from . import lineends, notefile
from .frontmatter_yaml import read_in_obsidian

if TYPE_CHECKING:
    import yaml

_FLOW_PLAIN = re.compile(r"[\w/.][\w/. -]*")  # plain in a flow list too: no indicator
_DASH = re.compile(r"[ \t]*-[ \t]+")  # what stands before an item of a block list
# After the last value on a line, only indicators and blanks come before its comment.
# (After a block scalar's ``|`` or ``>``, its indicators: ``|-``, ``>2``.)
_COMMENT = re.compile(r"[ \t,:\[\]{}|>+0-9-]*?(?P<comment>[ \t]+#.*)\Z|(?P<alone>#.*)\Z")
_ANCHOR = re.compile(r"&[^ \t\r\n,\[\]{}]+")
_BLOCK_ITEM = re.compile(r"[-?](?:[ \t]|\Z)|[^'\"\[{][^#]*?:(?:[ \t]|\Z)")
_LONE_DASHES = re.compile(r"[ \t]*(?:-[ \t]+)*-?[ \t]*(?P<comment>#.*)")  # "- # c" (nested below)


class Keeper:
    """``splice_frontmatter``'s ``keep``: the new text of a key of ours with the person's
    own text in it kept and what PyYAML reads there, or None for ccexport's plain text.
    ``metadata``: the note's values as Obsidian reads them (its lists of tags, aliases);
    ``text``: the frontmatter's text (where an anchor may be referred to); ``eol``: the
    note's line ends (a list as ccexport writes it but in CRLF is not the person's)."""

    def __init__(
        self, values: dict[str, Any], metadata: dict[str, Any], text: str, eol: str = lineends.LF
    ) -> None:
        self.values, self.metadata, self.text, self.eol = values, metadata, text, eol
        self._aliases: set[str] | None = None

    def __call__(
        self, name: str, key: yaml.Node, value: yaml.Node, segment: list[str], fresh: str
    ) -> tuple[str, Any] | None:
        import yaml

        text, wanted = "".join(segment), self.values[name]
        if type(wanted) is not list or not isinstance(value, yaml.SequenceNode):
            # A value that changes: a comment after it stays after it. One that does not,
            # under an anchor the person's keys may refer to: as it was.
            anchored = "&" in text and _anchor_at(segment, key, value)
            tries = [text] if anchored else []
            tries += [_with_comment(key, value, segment, fresh)] if "#" in text else []
        elif self._as_written(name, text):
            return None  # as ccexport writes it: nothing of the person's in it
        else:
            tries = [_edited_list(key, value, segment, wanted, fresh, self.referred)]
            tries.append(_plain_list(key, value, segment, fresh))
        for kept in tries:
            read = _read_back(kept, name) if kept is not None else None
            if read is None:
                continue
            if type(wanted) is not list:
                if _same(read[0], wanted):
                    return str(kept), read[0]
            elif _same(read[1], kept.reads if isinstance(kept, _Pinned) else wanted):
                return str(kept), read[0]
        return None

    def without_nodes(self, name: str, text: str, is_list: bool) -> bool:
        """Would this return None for the key ``name`` whose text is ``text`` (its value a
        list: ``is_list``), whatever its nodes? (``frontmatter_splice`` splices the plain
        shape without composing it, and asks the nodes only where this says no.)"""
        if type(self.values[name]) is not list or not is_list:
            return "&" not in text and "#" not in text
        return self._as_written(name, text)

    def _as_written(self, name: str, text: str) -> bool:
        """Is ``text`` the list ``name`` as ccexport writes it (in the note's line ends)?"""
        if name not in self.metadata:
            return False
        return notefile.yaml_of({name: self.metadata[name]}) == lineends.as_lf(text, self.eol)

    def referred(self, anchor: str) -> bool:
        """Is the anchor ``&name`` referred to (``*name``) in the frontmatter?"""
        if f"*{anchor[1:]}" not in self.text:
            return False
        import yaml

        if self._aliases is None:
            try:
                self._aliases = {
                    e.anchor
                    for e in yaml.parse(self.text, Loader=notefile._loader())
                    if isinstance(e, yaml.AliasEvent)
                }
            except yaml.YAMLError:
                self._aliases = set()
        return anchor[1:] in self._aliases


class _Pinned(str):
    """A list's text holding an item ccexport would drop, kept for the anchor on it that
    the person's own keys refer to; ``reads`` is the list it holds."""

    reads: list[Any]


def _read_back(kept: str, name: str) -> tuple[Any, Any] | None:
    """What PyYAML reads in ``kept`` for ``name``, and what Obsidian (YAML 1.2) reads."""
    import yaml

    try:
        node = yaml.compose(str(kept), Loader=notefile._loader())  # (C: str itself)
        loaded = yaml.SafeLoader("").construct_document(node)
    except yaml.YAMLError:
        return None
    if not isinstance(loaded, dict) or list(loaded) != [name]:
        return None
    return loaded[name], read_in_obsidian(node.value[0][1], loaded[name])


def _anchor_at(segment: list[str], key: yaml.Node, value: yaml.Node) -> bool:
    row = value.start_mark.line - key.start_mark.line
    return (
        0 <= row < len(segment) and _ANCHOR.match(segment[row], value.start_mark.column) is not None
    )


def _with_comment(key: yaml.Node, value: yaml.Node, segment: list[str], fresh: str) -> str | None:
    """``fresh`` with the comment that ended the value's line before."""
    import yaml

    line = key.start_mark.line
    one_line = isinstance(value, yaml.ScalarNode) or getattr(value, "flow_style", False)
    if len(segment) != 1 or not one_line or value.end_mark.line != line:
        return None
    comment = comment_after(segment[0], value.end_mark.column)
    if comment is None:
        return None
    if comment.startswith("#"):  # (after an empty value)
        comment = f" {comment}"
    first, nl, rest = fresh.partition("\n")
    eol = segment[0][len(segment[0].rstrip("\r\n")) :] if not rest else nl  # (a line ending kept)
    return f"{first}{comment}{eol}{rest}"


def comment_after(line: str, column: int) -> str | None:
    """The comment that ends ``line`` after ``column`` (where the last value on it ends),
    with the blanks before it."""
    found = _COMMENT.match(line.rstrip("\r\n"), column)
    return found and (found["comment"] or found["alone"])


def _edited_list(
    key: yaml.Node,
    value: yaml.SequenceNode,
    segment: list[str],
    wanted: list[Any],
    fresh: str,
    referred: Callable[[str], bool],
) -> str | None:
    """The list's text with each item that stays as typed, in place, with the comments
    around it; new items in the list's style; a dropped item's comment left as a line.
    An item ccexport would drop stays when it carries an anchor referred to elsewhere
    (the person's key would be left with nothing to refer to)."""
    import yaml

    nodes = value.value
    if not all((isinstance(n, yaml.ScalarNode) or n.flow_style)
               and n.start_mark.line == n.end_mark.line for n in nodes):  # fmt: skip
        return None  # (an item over several lines, a nested block list: written plainly)
    written = notefile.yaml_lines(fresh)[1:]
    if not written or not written[0].startswith("- "):
        return None  # (an empty list is written "key: []")
    texts: list[str | None] = []  # each item as ccexport writes it (None: over lines)
    for line in written:
        if line.startswith("- "):
            item = line[2:].rstrip("\r\n")  # (a block list or mapping in it: as over lines,
            texts.append(None if _BLOCK_ITEM.match(item) else item)  # not kept so next time)
        elif line:
            texts[-1] = None
    if len(texts) != len(wanted):
        return None
    constructor = yaml.SafeLoader("")
    have = [read_in_obsidian(n, constructor.construct_object(n, deep=True)) for n in nodes]
    plan = _plan(have, wanted)
    if any(kept is None and texts[i] is None for kept, i in plan):
        return None  # (a new item written over several lines: the list is, plainly)
    pinned = False
    for n, (kept, i) in enumerate(plan):
        row = nodes[i].start_mark.line - key.start_mark.line if kept is False else -1
        found = _ANCHOR.match(segment[row], nodes[i].start_mark.column) if row >= 0 else None
        if found and referred(found[0]):
            plan[n], pinned = (True, i), True
    if value.flow_style:
        text = _edited_flow(key, value, segment, plan, texts)
    else:
        text = _edited_block(key, nodes, segment, plan, texts)
    if text is None or not pinned:
        return text
    text = _Pinned(text)
    text.reads = [have[i] if kept else wanted[i] for kept, i in plan if kept is not False]
    return text


def _edited_block(
    key: yaml.Node,
    nodes: list[yaml.Node],
    segment: list[str],
    plan: list[tuple[bool | None, int]],
    texts: list[Any],
) -> str | None:
    first = key.start_mark.line
    rows: dict[int, int] = {}  # segment line -> item
    for i, node in enumerate(nodes):
        row = node.start_mark.line - first
        if not 0 < row < len(segment) or row in rows:
            return None
        if not _DASH.fullmatch(segment[row][: node.start_mark.column]):
            return None
        rows[row] = i
    above: list[list[str]] = [[] for _ in nodes]  # the comment lines above each item
    gap: list[str] = []
    for row in range(1, len(segment)):
        if row in rows:
            above[rows[row]], gap = gap, []
        elif segment[row].strip() and not segment[row].lstrip().startswith("#"):
            return None
        else:
            gap.append(segment[row])
    head = segment[0]
    eol = head[len(head.rstrip("\r\n")) :] or "\n"
    dash = segment[nodes[0].start_mark.line - first][: nodes[0].start_mark.column]
    out = [head]
    for kept, i in plan:
        if kept is None:
            out.append(f"{dash}{texts[i]}{eol}")
            continue
        node = nodes[i]
        line = segment[node.start_mark.line - first]
        out += above[i]
        if kept:
            out.append(line)
            dash = line[: node.start_mark.column]
        elif comment := comment_after(line, node.end_mark.column):
            out.append(f"{line[: len(line) - len(line.lstrip())]}{comment.lstrip()}{eol}")
    return "".join([*out, *gap])


def _plain_list(key: yaml.Node, value: yaml.Node, segment: list[str], fresh: str) -> str | None:
    """``fresh`` (a list that cannot be kept in place: an item over several lines, a nested
    block list, a flow list over several lines) with the comment after the key kept after
    it, and every other comment (and blank line) as a line below the list. The next update
    finds them there and writes them so again (an indented comment line is still in the
    key's text, one at the start of a line is between keys)."""
    rows = comment_lines(key, value, segment, blanks=True)
    if not rows:
        return None
    first, nl, rest = fresh.partition("\n")
    if 0 in rows:  # (after the key, or after a value on its line): after the key still
        del rows[0]
        column = max(c for r, c in _ends(key, value) if r == key.start_mark.line)
        head = comment_after(segment[0], column) or ""
        first += f" {head}" if head.startswith("#") else head
    return "".join([f"{first}{nl}{rest}", *rows.values()])


def comment_lines(
    key: yaml.Node, value: yaml.Node, segment: list[str], blanks: bool = False
) -> dict[int, str]:
    """The comments in a key's text (``segment``, from the key's line) by the row each
    stood on: a comment line as it is, one after a value as a line of its own at the start
    of a line (then between keys: kept as it is by a later update); with ``blanks``, the
    blank lines too. A line inside a text over several lines is that text."""
    first = key.start_mark.line
    ends: dict[int, int] = {}
    for line, column in _ends(key, value):
        ends[line - first] = max(column, ends.get(line - first, 0))
    inside: set[int] = set()
    for node in _scalars(value):
        inside.update(range(node.start_mark.line - first + 1, node.end_mark.line - first + 1))
        if node.end_mark.column == 0:
            inside.discard(node.end_mark.line - first)
    kept: dict[int, str] = {}
    for row, line in enumerate(segment):
        eol = line[len(line.rstrip("\r\n")) :] or "\n"
        if row not in inside and (line.lstrip().startswith("#") or blanks and not line.strip()):
            kept[row] = line
        elif row in ends and (comment := comment_after(line, ends[row])):
            kept[row] = f"{comment.lstrip()}{eol}"
        elif row not in inside and (lone := _LONE_DASHES.fullmatch(line.rstrip("\r\n"))):
            kept[row] = f"{lone['comment']}{eol}"  # (an item's dash, its value below)
    return kept


def _scalars(node: yaml.Node) -> Iterator[yaml.Node]:
    import yaml

    if isinstance(node, yaml.ScalarNode):
        yield node
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _scalars(item)
    elif isinstance(node, yaml.MappingNode):
        for pair in node.value:
            for item in pair:
                yield from _scalars(item)


def _ends(*nodes: yaml.Node) -> Iterator[tuple[int, int]]:
    """Where each value ends (a block collection's end is where the next one begins)."""
    import yaml

    for node in nodes:
        if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
            yield node.start_mark.line, node.start_mark.column  # (its text: lines below)
        elif isinstance(node, yaml.ScalarNode) or getattr(node, "flow_style", False):
            yield node.end_mark.line, node.end_mark.column
        if isinstance(node, yaml.SequenceNode):
            yield from _ends(*node.value)
        elif isinstance(node, yaml.MappingNode):
            yield from _ends(*(n for pair in node.value for n in pair))


def _plan(have: list[Any], wanted: list[Any]) -> list[tuple[bool | None, int]]:
    """How ``wanted`` is made of ``have``, in order: (True, i) keeps item i, (False, i)
    drops it, (None, k) writes ``wanted[k]`` anew."""
    where: dict[tuple[type, Any], list[int]] = {}  # each value's places (a scan per
    for i, item in enumerate(have):  # wanted item grew with the square of the list)
        try:
            where.setdefault((type(item), item), []).append(i)
        except TypeError:
            pass  # unhashable: found by a scan
    plan: list[tuple[bool | None, int]] = []
    start = 0
    for k, want in enumerate(wanted):
        try:
            places = where.get((type(want), want), [])
            j = bisect_left(places, start)
            hit = places[j] if j < len(places) else None
        except TypeError:
            hit = next((i for i in range(start, len(have)) if _same(have[i], want)), None)
        if hit is None:
            plan.append((None, k))
            continue
        plan += [(False, i) for i in range(start, hit)]
        plan.append((True, hit))
        start = hit + 1
    return plan + [(False, i) for i in range(start, len(have))]


def _same(a: Any, b: Any) -> bool:
    """Equal and of one type, item by item (``1``, ``1.0`` and ``true`` are three tags)."""
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(map(_same, a, b))
    return a is b or bool(a == b)


def _edited_flow(
    key: yaml.Node,
    value: yaml.SequenceNode,
    segment: list[str],
    plan: list[tuple[bool | None, int]],
    texts: list[Any],
) -> str | None:
    """A flow list on the key's line, still one: ``[a, b]  # c`` becomes ``[a, b, d]  # c``
    (one over several lines is written plainly, the comments inside it as lines below)."""
    line, nodes = segment[0], value.value
    if len(segment) != 1 or value.end_mark.line != key.start_mark.line:
        return None
    start, end = value.start_mark.column, value.end_mark.column
    opening, closing, comma = "[", "]", ", "
    if nodes:
        opening = line[start : nodes[0].start_mark.column]
        closing = line[nodes[-1].end_mark.column : end]
    if len(nodes) > 1:
        comma = line[nodes[0].end_mark.column : nodes[1].start_mark.column]
    items = [
        _flow_text(texts[i])
        if kept is None
        else line[nodes[i].start_mark.column : nodes[i].end_mark.column]
        for kept, i in plan
        if kept is not False
    ]
    return f"{line[:start]}{opening}{comma.join(items)}{closing}{line[end:]}"


def _flow_text(text: str) -> str:
    """A value written plain in a block list, as it may stand in a flow list."""
    if text[0] in "'\"" or _FLOW_PLAIN.fullmatch(text):
        return text
    return "'" + text.replace("'", "''") + "'"  # (a plain text is the value as it is)
