"""The frontmatter of a note the exporter updates: our keys replaced, the user's kept.

A note in a vault carries properties the user added (their own keys, tags, aliases) next
to the ones the exporter writes. On update only the exporter's own keys are rewritten or
dropped; the user's keys keep their exact text, order and comments, and tags and aliases
are merged so that neither side loses any.

What the person wrote inside a key of ours is kept too (``keytext.Keeper``), when that
key's text is not as ccexport writes it. A ``tags:`` or ``aliases:`` written twice (a
template pasted in) is joined into the one that holds ours, in the order of the text; the
other copy's comments stay where it was. Tags and aliases are compared as Obsidian reads
them (YAML 1.2): ``yes`` and ``on`` are two tags, though PyYAML (YAML 1.1) reads both as
true.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from . import lineends, notefile
from .state import NoteRecord

if TYPE_CHECKING:
    import yaml

# Frontmatter keys the exporter owns: rewritten on update, removed when no longer produced.
OWNED_KEYS = (
    "title", "source", "session_id", "project", "cwd", "git_branch", "git_commit",
    "git_remote", "models", "created", "updated", "messages", "tool_calls", "tokens_in",
    "tokens_out", "tokens_cache_read", "tokens_cache_write", "cost", "parent", "subagents",
    "forked_from", "forks", "model", "active", "prompts", "tools", "errors", "files", "tokens",
    "cost_estimated", "resume", "command", "day", "part", "previous_part", "next_part",
    "client", "share_url", "starred", "archived", "time_from_file", "premium_requests",
)  # fmt: skip
OWNED = frozenset(OWNED_KEYS)
# Keys ccexport took for itself after notes were written without them: a person may have
# used the name first (a client of theirs, their own ``starred`` or ``archived``). Where the
# state does not say ccexport wrote it, a value in the note that is not ours is theirs.
CLAIMED_LATE = frozenset(
    {"client", "share_url", "starred", "archived", "time_from_file", "premium_requests"}
)


def updated_yaml(
    parsed: notefile.NoteText,
    ours: dict[str, Any],
    record: NoteRecord | None,
    scrub: Callable[[str], str],
    theirs: frozenset[str] = frozenset(),
    own_copy: bool = False,
) -> str:
    """The note's frontmatter text with our keys rewritten and every other byte kept;
    ``theirs``: keys of ours the person's value of stays (``persons_title``); ``own_copy``:
    the note is an older copy this machine wrote (``notecopies.own_older``)."""
    from .keytext import Keeper  # (with the first note updated, as the note builder:
    from .markdown import unlinked  # neither is imported by a run that updates none)

    previous = record.tags if record else list(ours.get("tags", []))
    yaml_text, joined = joined_copies(parsed.yaml, ours, previous)
    existing = {**parsed.metadata, **joined} if joined else parsed.metadata
    if read := _as_obsidian_reads(yaml_text, existing, joined):
        existing = {**existing, **read}
    lists = {k: existing[k] for k in ("tags", "aliases") if k in existing}
    if "aliases" in existing:  # an old title kept as an alias must not keep a secret,
        old = _as_list(existing["aliases"])  # nor a link (an alias is a name, never a link)
        aliases = [unlinked(scrub(a)) if isinstance(a, str) else a for a in old]
        existing = {**existing, "aliases": aliases}
    # Only our own keys are ever dropped, and only those this note's last writing had: a
    # property the configuration added (``[frontmatter] add``) stays the person's once
    # written, and so does one the person added under a name of ours that this note lacked
    # (a ``day`` or ``parent`` of their own). Without a record (the state lost), and in an
    # older copy of this machine's put back, every key of ours not written now goes: a
    # ``part`` or ``next_part`` left would be wrong.
    known = record is not None and not own_copy
    drop = (OWNED.intersection(record.keys) if known else OWNED) - set(ours) - theirs
    # A tag of ours the record says was written and the note lacks, the person removed
    # (or renamed: theirs now). Without a record, and in an older copy, that is not known;
    # one they removed while ccexport wrote it no more, the record remembers apart.
    written = [*(record.tags if known else ()), *(record.removed_tags if record else ())]
    merged = merge_frontmatter(existing, ours, previous, drop, written)
    values = {k: merged[k] for k in ours}
    keep = Keeper(values, {**parsed.metadata, **lists}, yaml_text, parsed.eol)
    spliced = notefile.splice_frontmatter(
        yaml_text, values, drop, parsed.metadata, keep, parsed.eol
    )
    if spliced is None:  # not a block mapping (flow style, odd keys): written anew
        anew = notefile.yaml_of(_person_read_in_obsidian(yaml_text, merged, ours))
        spliced = lineends.written(anew, parsed.eol)
    return spliced


def removed_tags(
    parsed: notefile.NoteText, ours: list[Any], record: NoteRecord | None, own_copy: bool = False
) -> list[str]:
    """The tags of ccexport's the person removed from the note and ccexport writes no more
    (``ours``: those it writes now), for the state to remember (``NoteRecord.removed_tags``):
    with ``[frontmatter] project_tag = false`` for a run, the project tag they removed is
    not written, and the record of what was written no longer holds it; set back, it
    would return. A removal remembered stays so until ccexport writes the tag again (then
    the record of what it wrote holds it) or the person puts it back. In an older copy
    put back, a tag it lacks was not removed: only the removals remembered carry on."""
    if record is None:
        return []
    _, joined = joined_copies(parsed.yaml, {"tags": ours}, record.tags)
    theirs = joined.get("tags", _as_list(parsed.metadata.get("tags")))
    found = [*record.removed_tags, *(() if own_copy else record.tags)]
    return _unique(
        [
            t
            for t in found
            if isinstance(t, str) and t != QUERIED_TAG and t not in ours and t not in theirs
        ]
    )


def persons_properties(
    existing: dict[str, Any], ours: dict[str, Any], record: NoteRecord | None
) -> frozenset[str]:
    """The keys of ``CLAIMED_LATE`` whose value in the note is the person's: there, not
    written by ccexport as far as the state says (none without a state), and not ccexport's
    value now. They stay as they are, neither rewritten nor dropped."""
    wrote = frozenset(record.keys) if record is not None else frozenset()
    return frozenset(
        key for key in CLAIMED_LATE
        if key in existing and key not in wrote and existing[key] != ours.get(key, _ABSENT)
    )  # fmt: skip


_ABSENT = object()


def persons_title(
    existing: dict[str, Any],
    ours: dict[str, Any],
    record: NoteRecord | None = None,
    own_copy: bool = False,
) -> str | None:
    """The title the person typed in the note's properties, which stays theirs: one that
    is neither ccexport's now nor one it wrote before (each of those is among the note's
    aliases, where the update puts every title it writes). None when the title is
    ccexport's, or when that cannot be told: the note has no aliases (the configuration
    or the person dropped them) and no state, or they hold the title. Where the state's
    ``record`` says ccexport wrote this title, it is ccexport's whatever the aliases say;
    where it says ccexport wrote another, or kept the person's, it is theirs (not in an
    older copy this machine wrote, put back: ``own_copy``)."""
    title = existing.get("title")
    if "title" not in ours or type(title) is not str or not title.strip():
        return None
    if record is not None and "title" in record.keys and record.meta.get("title") == title:
        return None  # the title ccexport last wrote, as the state says (an alias edited)
    aliases = _as_list(existing.get("aliases"))
    if title == ours["title"]:
        return None
    if not aliases:  # (``aliases: []``: the titles it wrote are not there to tell by)
        # The state's record is (review43 M1: a typed title replaced without a word once
        # the person cleared the aliases): ccexport wrote another title last, or the title
        # was the person's then. Without the state, or in an older copy of this machine's
        # put back (its title one ccexport wrote before), it is ccexport's.
        if record is None or own_copy:
            return None
        return title if "title" not in record.keys or record.meta.get("title") else None
    if title in aliases:
        return None
    from .markdown import unlinked  # (an alias is never a link: one written as ``[[x]]``)

    return None if unlinked(title) in aliases else title


def _person_read_in_obsidian(
    yaml_text: str, merged: dict[str, Any], ours: dict[str, Any]
) -> dict[str, Any]:
    """``merged`` with the person's own values as Obsidian reads their text, for a
    frontmatter written anew: PyYAML's YAML 1.1 reading would turn ``reviewed: yes`` (a
    text in Obsidian) into a checkbox and ``version: 0o10`` (a number) into a text."""
    from .frontmatter_yaml import read_in_obsidian

    found = _value_nodes(yaml_text)
    return {
        key: read_in_obsidian(found[key], value) if key in found and key not in ours else value
        for key, value in merged.items()
    }


def merge_frontmatter(
    existing: dict[str, Any],
    ours: dict[str, Any],
    our_previous_tags: list[str],
    drop: frozenset[str] | set[str] = OWNED,
    written: Collection[Any] = (),
) -> dict[str, Any]:
    """The user's keys stay where they are; ours are replaced, ``drop`` left out; tags and
    aliases merge (``written``: the tags ccexport last wrote, ``merged_tags``)."""
    merged: dict[str, Any] = {}
    for key, value in existing.items():
        if key in ours:
            merged[key] = ours[key]
        elif key not in drop:
            merged[key] = value  # the user's own property
    for key, value in ours.items():
        merged.setdefault(key, value)
    if "tags" in ours:
        merged["tags"] = merged_tags(
            _as_list(existing.get("tags")), ours["tags"], our_previous_tags, written
        )
    if "aliases" in ours:
        merged["aliases"] = _unique([*_as_list(existing.get("aliases")), *ours["aliases"]])
    return merged


# The tag Sessions.base selects the session notes by (``bases.SESSION_TAG``; Dataview's
# ``FROM #ai-session`` too): one the person removed comes back, or the note leaves the table.
QUERIED_TAG = "ai-session"


def merged_tags(
    theirs: list[Any], ours: list[Any], previous: list[Any], written: Collection[Any] = ()
) -> list[Any]:
    """The note's tags as they stand, less those ccexport wrote before and writes no more,
    with ours that are missing put where ccexport puts them: after the one of ours that
    comes before it, else before the first of ours, else first. The person's tags keep
    their places and their order. One of ours in ``written`` (the tags ccexport last wrote
    into the note, as the state records them) that the note lacks, the person removed or
    renamed: their decision, it stays out, but for ``QUERIED_TAG``."""
    merged = _unique([t for t in theirs if t in ours or t not in previous])
    removed = _removed_names(theirs, ours, written)
    for i, tag in enumerate(ours):
        if tag in merged or (tag in written and tag != QUERIED_TAG):
            continue
        if tag not in written and _renamed_of_removed(tag, removed):
            continue
        before = [t for t in ours[:i] if t in merged]
        after = [t for t in ours[i + 1 :] if t in merged]
        place = merged.index(before[-1]) + 1 if before else merged.index(after[0]) if after else 0
        merged.insert(place, tag)
    return merged


def _removed_names(theirs: list[Any], ours: list[Any], written: Collection[Any]) -> set[str]:
    """The last names of the tags ccexport wrote, writes no more, and the note lacks: the
    person removed them (``[frontmatter] project_tag`` then changed: review38 M1)."""
    return {
        tag.rpartition("/")[2]
        for tag in written
        if isinstance(tag, str) and "/" in tag and tag not in ours and tag not in theirs
    }


def _renamed_of_removed(tag: Any, removed: set[str]) -> bool:
    """Is ``tag`` (new in ours) a removed tag of ours under another prefix, as a changed
    ``project_tag`` writes ``ai/project/x`` for ``project/x``? The removal carries over:
    docs/sync.md promises that a tag of ccexport's the person removed stays removed."""
    if not isinstance(tag, str) or "/" not in tag or tag.startswith(QUERIED_TAG):
        return False
    return tag.rpartition("/")[2] in removed


def _unique(values: list[Any]) -> list[Any]:
    """``values`` without repeats, in order: equal and of one type (``1``, ``1.0`` and
    ``true`` are three tags; a value YAML made unhashable is compared too). A set for the
    rest: a person's list of thousands of tags stays linear."""
    unique: list[Any] = []
    seen: set[Any] = set()
    for value in values:
        try:
            if (type(value), value) in seen:
                continue
            seen.add((type(value), value))
        except TypeError:  # (a list or a mapping inside the list)
            if any(type(u) is type(value) and u == value for u in unique):
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


def given_properties(record: NoteRecord | None, seeded: dict[str, Any]) -> Collection[str]:
    """The person's properties (``seeded``: those configured) a note was given: none for a
    new note; each configured one where not known (an older version wrote the state,
    giving every note each it lacked: one it lacks now, the person deleted)."""
    if record is None:
        return ()
    return record.seeded if record.seeded is not None else seeded.keys()


def seeded_metadata(
    metadata: dict[str, Any], seeded: dict[str, Any], existing: dict[str, Any],
    done: Collection[str] = (),
) -> dict[str, Any]:  # fmt: skip
    """Our properties and the person's configured ones the note lacks and was never given
    (``done``: one they deleted stays deleted); a key ccexport owns is always ours: written
    every time, or it would be dropped as no longer produced."""
    extra = {
        k: v
        for k, v in seeded.items()
        if k not in metadata and (k in OWNED or (k not in existing and k not in done))
    }
    return {**metadata, **extra} if extra else metadata


# A ``tags:`` or ``aliases:`` written twice (PyYAML's node marks say where each copy is).
_COPY = re.compile(r"^([\"']?)(tags|aliases)\1[ \t]*:", re.MULTILINE)


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
        values = [_as_read_in_obsidian(v, vs) for (_, v), vs in zip(found, values, strict=True)]
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
    """A list's items as Obsidian reads them (YAML 1.2): the tag ``yes`` stays the text
    ``yes``, not ``true``; ``1:30`` is no 90. (Items written anew are written so.)"""
    import yaml

    from .frontmatter_yaml import read_in_obsidian

    nodes = value.value if isinstance(value, yaml.SequenceNode) else [value]
    if len(nodes) != len(items):
        return items  # (a text split at its commas)
    return [read_in_obsidian(n, item) for n, item in zip(nodes, items, strict=True)]


def _as_obsidian_reads(
    yaml_text: str, metadata: dict[str, Any], joined: dict[str, list[Any]]
) -> dict[str, list[Any]]:
    """The note's tags and aliases as Obsidian reads them, where PyYAML may read them
    otherwise: one of their items is not a text, or is one YAML 1.2 may not read as text
    (``0o17``). A text is a text in both: the common case composes nothing."""
    from .frontmatter_yaml import yaml12_not_text

    names = [
        name
        for name in ("tags", "aliases")
        if name in metadata
        and name not in joined
        and not all(type(t) is str and not yaml12_not_text(t) for t in _as_list(metadata[name]))
    ]
    if not names:
        return {}
    found = _value_nodes(yaml_text)
    return {n: _as_read_in_obsidian(found[n], _as_list(metadata[n])) for n in names if n in found}


def _value_nodes(yaml_text: str) -> dict[str, yaml.Node]:
    """Each top-level key's value node (the last of a key written twice, as PyYAML's value
    is); none for a frontmatter that is not a mapping PyYAML can compose."""
    import yaml

    try:
        node = yaml.compose(yaml_text, Loader=notefile._loader())
    except yaml.YAMLError:
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}


def _comments_of(key: yaml.Node, value: yaml.Node, lines: list[str]) -> tuple[int, list[str]]:
    """The last line of a key's text (as ``splice_frontmatter`` sees it) and its comments,
    each at the start of its line: each stays with the key after it."""
    from .keytext import comment_lines

    first = key.start_mark.line
    last = max(first, value.end_mark.line - (value.end_mark.column == 0))
    while last > first and (not lines[last].strip() or lines[last].startswith("#")):
        last -= 1
    found = comment_lines(key, value, lines[first : last + 1]).values()
    return last, [line.lstrip() for line in found]  # (left indented, the key before would
    # take them in, and a plain rewrite of it would move them again)


def edit_kept(current: str, parsed: notefile.NoteText, yaml_text: str, owned: str) -> str | None:
    """The note as the person has it, only its frontmatter text ``yaml_text``, when the run
    would write the generated part exactly as it was last written (its session unchanged,
    read again): their edit of that part stays where they made it, with the end marker's
    hash of what was written, so it is still their edit once there is something new to
    write (then it is copied to a conflict copy). None when there is something new."""
    if parsed.written_hash is None or not notefile.hash_matches(owned, parsed.written_hash):
        return None
    return notefile.with_frontmatter(current, parsed, yaml_text)


def same_but_line_ends(text: str, current: str) -> bool:
    """The note as it is differs from what would be written only in its line ends: a sync
    tool or git (autocrlf) turned it to CRLF, as a new file. Rewriting it would mix the
    two, the tool would turn it again, and every run would rewrite it: it is left as is."""
    return "\r\n" in current and text.replace("\r\n", "\n") == current.replace("\r\n", "\n")
