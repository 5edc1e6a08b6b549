"""The frontmatter of a note the exporter updates: our keys replaced, the user's kept.

A note in a vault carries properties the user added (their own keys, tags, aliases) next
to the ones the exporter writes. On update only the exporter's own keys are rewritten or
dropped; the user's keys keep their exact text, order and comments, and tags and aliases
are merged so that neither side loses any.

What the person wrote inside a key of ours is kept too (``Keeper``), when that key's
text is not as ccexport writes it: their tags where they put them, the items of a list
each on its own line as typed, the comments between them and after them, a flow list
(``[a, b]  # c``) as a flow list, a comment after a value that changes. A ``tags:`` or
``aliases:`` written twice (a template pasted in) is joined into the one that holds ours,
in the order of the text; the other copy's comments stay where it was. The result is
read back before it is used: what cannot be kept so is written plainly, never lost.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from . import notefile
from .state import NoteRecord

if TYPE_CHECKING:
    import yaml

# Frontmatter keys the exporter owns: rewritten on update, removed when no longer produced.
OWNED_KEYS = (
    "title", "source", "session_id", "project", "cwd", "git_branch", "git_commit",
    "git_remote", "models", "created", "updated", "messages", "tool_calls", "tokens_in",
    "tokens_out", "tokens_cache_read", "tokens_cache_write", "cost", "parent", "subagents",
    "forked_from", "model", "active", "prompts", "tools", "errors", "files", "tokens",
    "cost_estimated", "resume", "day", "part", "previous_part", "next_part",
)  # fmt: skip
OWNED = frozenset(OWNED_KEYS)


def updated_text(
    parsed: notefile.NoteText,
    ours: dict[str, Any],
    owned: str,
    record: NoteRecord | None,
    scrub: Callable[[str], str],
) -> str:
    """The note with our keys and region rewritten and every other byte kept."""
    from .markdown import unlinked  # (with the first note updated, as the note builder)

    previous = record.tags if record else list(ours.get("tags", []))
    yaml_text, joined = joined_copies(parsed.yaml, ours, previous)
    existing = {**parsed.metadata, **joined} if joined else parsed.metadata
    if "aliases" in existing:  # an old title kept as an alias must not keep a secret,
        old = _as_list(existing["aliases"])  # nor a link (an alias is a name, never a link)
        aliases = [unlinked(scrub(a)) if isinstance(a, str) else a for a in old]
        existing = {**existing, "aliases": aliases}
    merged = merge_frontmatter(existing, ours, previous)
    values = {k: merged[k] for k in ours}
    # Only our own keys are ever dropped: a property the configuration added (``[frontmatter]
    # add``) stays the person's once written, also after it leaves the configuration.
    drop = OWNED - set(values)
    keep = Keeper(values, parsed.metadata)
    yaml_text = notefile.splice_frontmatter(yaml_text, values, drop, parsed.metadata, keep)
    if yaml_text is None:  # not a block mapping (flow style, odd keys): written anew
        yaml_text = notefile.yaml_of(merged)
    return notefile.recompose(parsed, yaml_text, owned)


def merge_frontmatter(
    existing: dict[str, Any], ours: dict[str, Any], our_previous_tags: list[str]
) -> dict[str, Any]:
    """The user's keys stay where they are; ours are replaced; tags and aliases merge."""
    merged: dict[str, Any] = {}
    for key, value in existing.items():
        if key in ours:
            merged[key] = ours[key]
        elif key not in OWNED:
            merged[key] = value  # the user's own property
    for key, value in ours.items():
        merged.setdefault(key, value)
    if "tags" in ours:
        merged["tags"] = merged_tags(
            _as_list(existing.get("tags")), ours["tags"], our_previous_tags
        )
    if "aliases" in ours:
        merged["aliases"] = _unique([*_as_list(existing.get("aliases")), *ours["aliases"]])
    return merged


def merged_tags(theirs: list[Any], ours: list[Any], previous: list[Any]) -> list[Any]:
    """The note's tags as they stand, less those ccexport wrote before and writes no more,
    with ours that are missing put where ccexport puts them: after the one of ours that
    comes before it, else before the first of ours, else first. The person's tags keep
    their places and their order."""
    merged = _unique([t for t in theirs if t in ours or t not in previous])
    for i, tag in enumerate(ours):
        if tag in merged:
            continue
        before = [t for t in ours[:i] if t in merged]
        after = [t for t in ours[i + 1 :] if t in merged]
        place = merged.index(before[-1]) + 1 if before else merged.index(after[0]) if after else 0
        merged.insert(place, tag)
    return merged


def _unique(values: list[Any]) -> list[Any]:
    """``values`` without repeats, in order (a value YAML made unhashable is compared too).
    A set for the rest: a person's list of thousands of tags stays linear."""
    unique: list[Any] = []
    seen: set[Any] = set()
    for value in values:
        try:
            if value in seen:
                continue
            seen.add(value)
        except TypeError:  # (a list or a mapping inside the list)
            if value in unique:
                continue
        unique.append(value)
    return unique


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [value]


def seeded_metadata(
    metadata: dict[str, Any], seeded: dict[str, Any], existing: dict[str, Any]
) -> dict[str, Any]:
    """Our properties and the person's configured ones the note lacks (a key ccexport owns
    is always ours: written every time, or it would be dropped as no longer produced)."""
    extra = {
        k: v for k, v in seeded.items() if k not in metadata and (k not in existing or k in OWNED)
    }
    return {**metadata, **extra} if extra else metadata


# The person's text inside our keys. PyYAML's node marks say where each value, item and
# comment is; everything here is asked for only when a key's text is not ccexport's own.

_COPY = re.compile(r"^([\"']?)(tags|aliases)\1[ \t]*:", re.MULTILINE)
_FLOW_PLAIN = re.compile(r"[\w/.][\w/. -]*")  # plain in a flow list too: no indicator
_DASH = re.compile(r"[ \t]*-[ \t]+")  # what stands before an item of a block list
# After the last value on a line, only indicators and blanks come before its comment.
_COMMENT = re.compile(r"[ \t,:\[\]{}]*?(?P<comment>[ \t]+#.*)\Z|(?P<alone>#.*)\Z")


class Keeper:
    """``splice_frontmatter``'s ``keep``: the new text of a key of ours with the person's
    own text in it kept, or None for ccexport's plain text."""

    def __init__(self, values: dict[str, Any], metadata: dict[str, Any]) -> None:
        self.values, self.metadata = values, metadata

    def __call__(
        self, name: str, key: yaml.Node, value: yaml.Node, segment: list[str], fresh: str
    ) -> str | None:
        import yaml

        text, wanted = "".join(segment), self.values[name]
        if type(wanted) is not list or not isinstance(value, yaml.SequenceNode):
            # A value that changes: a comment after it stays after it.
            kept = _with_comment(key, value, segment, fresh) if "#" in text else None
        elif name in self.metadata and notefile.yaml_of({name: self.metadata[name]}) == text:
            return None  # as ccexport writes it: nothing of the person's in it
        else:
            kept = _edited_list(key, value, segment, wanted, fresh)
        if kept is None:
            return None
        try:
            ok = yaml.load(kept, Loader=notefile._loader()) == {name: wanted}
        except yaml.YAMLError:
            ok = False
        return kept if ok else None


def _with_comment(key: yaml.Node, value: yaml.Node, segment: list[str], fresh: str) -> str | None:
    """``fresh`` with the comment that ended the value's line before."""
    import yaml

    line = key.start_mark.line
    if len(segment) != 1 or not isinstance(value, yaml.ScalarNode) or value.end_mark.line != line:
        return None
    comment = _comment(segment[0], value.end_mark.column)
    if comment is None:
        return None
    if comment.startswith("#"):  # (after an empty value)
        comment = f" {comment}"
    first, nl, rest = fresh.partition("\n")
    eol = segment[0][len(segment[0].rstrip("\r\n")) :] if not rest else nl  # (a line ending kept)
    return f"{first}{comment}{eol}{rest}"


def _comment(line: str, column: int) -> str | None:
    """The comment that ends ``line`` after ``column`` (where the last value on it ends),
    with the blanks before it."""
    found = _COMMENT.match(line.rstrip("\r\n"), column)
    return found and (found["comment"] or found["alone"])


def _edited_list(
    key: yaml.Node, value: yaml.SequenceNode, segment: list[str], wanted: list[Any], fresh: str
) -> str | None:
    """The list's text with each item that stays as typed, in place, with the comments
    around it; new items in the list's style; a dropped item's comment left as a line."""
    import yaml

    nodes = value.value
    if not all(isinstance(n, yaml.ScalarNode) and n.start_mark.line == n.end_mark.line
               for n in nodes):  # fmt: skip
        return None
    written = notefile.yaml_lines(fresh)[1:]
    texts = [line[2:].rstrip("\r\n") for line in written if line]
    if len(texts) != len(wanted) or not all(line.startswith("- ") for line in written if line):
        return None  # (an empty list is written "key: []")
    constructor = yaml.SafeLoader("")
    have = [constructor.construct_object(n, deep=True) for n in nodes]
    plan = _plan(have, wanted)
    if value.flow_style:
        return _edited_flow(key, value, segment, plan, texts)
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
        elif comment := _comment(line, node.end_mark.column):
            out.append(f"{line[: len(line) - len(line.lstrip())]}{comment.lstrip()}{eol}")
    return "".join([*out, *gap])


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
    return type(a) is type(b) and a == b


def _edited_flow(
    key: yaml.Node,
    value: yaml.SequenceNode,
    segment: list[str],
    plan: list[tuple[bool | None, int]],
    texts: list[str],
) -> str | None:
    """A flow list on the key's line, still one: ``[a, b]  # c`` becomes ``[a, b, d]  # c``
    (one over several lines is written plainly: the comments inside it are lost)."""
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


def joined_copies(
    yaml_text: str, ours: dict[str, Any], previous: list[Any]
) -> tuple[str, dict[str, list[Any]]]:
    """A ``tags:`` or ``aliases:`` written more than once (YAML readers keep only the last,
    or refuse the note): the text with one copy, the one holding ours (else the first),
    and the values of all copies in their order, to be merged into it. The other copies'
    comments stay where they were, as comment lines."""
    if all(yaml_text.count(name) < 2 for name in ("tags", "aliases")):
        return yaml_text, {}  # (the common case, in a fraction of a microsecond)
    names = [found[2] for found in _COPY.finditer(yaml_text)]
    repeated = {n for n in names if names.count(n) > 1 and n in ours}
    if not repeated:
        return yaml_text, {}
    import yaml

    try:
        node = yaml.compose(yaml_text, Loader=notefile._loader())
    except yaml.YAMLError:
        return yaml_text, {}
    if not isinstance(node, yaml.MappingNode) or node.flow_style:
        return yaml_text, {}
    lines = notefile.yaml_lines(yaml_text)
    constructor = yaml.SafeLoader("")
    copies: dict[str, list[tuple[yaml.Node, yaml.Node]]] = {n: [] for n in repeated}
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.tag.endswith(":str") and k.value in repeated:
            copies[k.value].append((k, v))
    joined: dict[str, list[Any]] = {}
    replaced: dict[int, tuple[int, list[str]]] = {}  # first line -> (last line, new lines)
    for name, found in copies.items():
        known = [*ours[name], *(previous if name == "tags" else [])]
        values = [_as_list(constructor.construct_object(v, deep=True)) for _, v in found]
        holder = next((i for i, vs in enumerate(values) if any(t in known for t in vs)), 0)
        for i, (_k, v) in enumerate(found):
            if i != holder:  # (its items are written anew: as Obsidian read them)
                values[i] = _as_read_in_obsidian(v, values[i])
        joined[name] = [t for vs in values for t in vs]
        for i, (k, v) in enumerate(found):
            if i != holder:
                replaced[k.start_mark.line] = _comments_of(k, v, lines)
    out, row = [], 0
    while row < len(lines):
        last, kept = replaced.get(row, (row, [lines[row]]))
        out += kept
        row = last + 1
    return "".join(out), joined


def _as_read_in_obsidian(value: yaml.Node, items: list[Any]) -> list[Any]:
    """The items of a list written anew, each a plain word that YAML 1.1 (PyYAML) reads as
    true, false or a number but YAML 1.2 (Obsidian) as text kept as that text: the tag
    ``yes`` stays the tag ``yes``, not ``true``; ``1:30`` is no 90."""
    import yaml

    from .frontmatter_yaml import yaml12_not_text

    nodes = value.value if isinstance(value, yaml.SequenceNode) else [value]
    if len(nodes) != len(items):
        return items
    return [
        node.value
        if isinstance(node, yaml.ScalarNode)
        and not node.style  # (plain: None, or "" from the C loader)
        and isinstance(item, bool | int | float)
        and not yaml12_not_text(node.value)
        else item
        for node, item in zip(nodes, items, strict=True)
    ]


def _comments_of(key: yaml.Node, value: yaml.Node, lines: list[str]) -> tuple[int, list[str]]:
    """The last line of a key's text (as ``splice_frontmatter`` sees it) and its comments."""
    first = key.start_mark.line
    last = value.end_mark.line - (value.end_mark.column == 0)
    while last > first and (not lines[last].strip() or lines[last].startswith("#")):
        last -= 1
    ends: dict[int, int] = {}
    for line, column in _ends(key, value):
        ends[line] = max(column, ends.get(line, 0))
    kept = []
    for row in range(first, last + 1):
        line = lines[row]
        eol = line[len(line.rstrip("\r\n")) :] or "\n"
        if line.lstrip().startswith("#"):
            kept.append(line.lstrip())
        elif row in ends and (comment := _comment(line, ends[row])):
            kept.append(f"{comment.lstrip()}{eol}")
    return last, kept  # (at the start of their lines: each stays with the key after it)


def _ends(*nodes: yaml.Node) -> Iterator[tuple[int, int]]:
    """Where each value ends (a block collection's end is where the next one begins)."""
    import yaml

    for node in nodes:
        if isinstance(node, yaml.ScalarNode) or getattr(node, "flow_style", False):
            yield node.end_mark.line, node.end_mark.column
        if isinstance(node, yaml.SequenceNode):
            yield from _ends(*node.value)
        elif isinstance(node, yaml.MappingNode):
            yield from _ends(*(n for pair in node.value for n in pair))
