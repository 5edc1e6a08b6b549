"""The frontmatter of a note the exporter updates: our keys replaced, the user's kept.

A note in a vault carries properties the user added (their own keys, tags, aliases) next
to the ones the exporter writes. On update only the exporter's own keys are rewritten or
dropped; the user's keys keep their exact text, order and comments, and tags and aliases
are merged so that neither side loses any.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import notefile
from .state import NoteRecord

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

    existing = parsed.metadata
    if "aliases" in existing:  # an old title kept as an alias must not keep a secret,
        old = _as_list(existing["aliases"])  # nor a link (an alias is a name, never a link)
        aliases = [unlinked(scrub(a)) if isinstance(a, str) else a for a in old]
        existing = {**existing, "aliases": aliases}
    merged = merge_frontmatter(
        existing, ours, record.tags if record else list(ours.get("tags", []))
    )
    values = {k: merged[k] for k in ours}
    # Only our own keys are ever dropped: a property the configuration added (``[frontmatter]
    # add``) stays the person's once written, also after it leaves the configuration.
    drop = OWNED - set(values)
    yaml_text = notefile.splice_frontmatter(parsed.yaml, values, drop, parsed.metadata)
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
        theirs = [t for t in _as_list(existing.get("tags")) if t not in our_previous_tags]
        merged["tags"] = list(dict.fromkeys([*ours["tags"], *theirs]))
    if "aliases" in ours:
        merged["aliases"] = list(
            dict.fromkeys([*_as_list(existing.get("aliases")), *ours["aliases"]])
        )
    return merged


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
