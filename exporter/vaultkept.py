"""A note kept because its source now gives fewer turns, holding a secret the current rules
redact (a rule added since, an older version, or another machine's rules or ``--no-redact``
let it through): the secret is redacted where it stands, and every turn stays.

Writing such a note again from its shorter source would leave the turns only the note still
holds in a hidden copy (review43 H1: 18 messages became 6, and with an edit of the person's
in the note the run said only that the edit was saved). Here only what the rules redact
changes: the generated part and the values of ccexport's properties, never the person's
text around them. A generated part the person edited keeps its end marker's hash, so the
edit is still known as theirs when the note is next written from its source."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from . import lineends, notefile, notehash
from .notecopies import earlier_hashes

if TYPE_CHECKING:
    from .notefile import NoteText
    from .statefile import NoteRecord


def redacted_in_kept(dry_run: bool) -> str:
    """What the run says beside its "kept" of such a note."""
    done = "would be redacted" if dry_run else "was redacted"
    return f"a secret the current rules redact {done} in it, every turn kept"


def redacted_note(
    parsed: NoteText, record: NoteRecord | None, ours: Iterable[str], scrub: Callable[[str], str]
) -> tuple[str, str, bool]:
    """The note's new text, its generated part, and whether the person edited that part:
    each redacted where it stands; the frontmatter's other lines and the text around the
    generated part byte for byte."""
    assert parsed.owned is not None
    edited = parsed.edited
    if edited is None:  # (a note written before markers carried a hash: the record's)
        read = lineends.without_cr(parsed.owned)
        edited = record is not None and not notefile.hash_matches(read, record.hash[:16])
    owned = scrub(parsed.owned).strip("\n")
    values = {}
    for key in ours:
        if key in parsed.metadata and (new := _scrubbed(parsed.metadata[key], scrub)) is not None:
            values[key] = new
    yaml_text = parsed.yaml
    if values:
        spliced = notefile.splice_frontmatter(
            parsed.yaml, values, (), parsed.metadata, None, parsed.eol
        )
        if spliced is None:  # not a block mapping: written anew, as an update would
            spliced = lineends.written(notefile.yaml_of({**parsed.metadata, **values}), parsed.eol)
        yaml_text = spliced
    marker = None
    if edited:  # the end marker says what ccexport wrote, so the edit stays the person's
        hash_ = parsed.written_hash
        marker = f"{notefile.END_PREFIX} {hash_} %%" if hash_ else notefile.END
    return notefile.recompose(parsed, yaml_text, owned, marker), owned, edited


def recorded(
    record: NoteRecord,
    owned: str,
    edited: bool,
    stat: list[int],
    scrub: Callable[[str], str],
) -> NoteRecord:
    """The note's record after its secret was redacted in place: the new file's stat, and,
    for a generated part the person did not edit, its new hash (the old one among those
    this machine wrote before); what index notes list of it redacted too."""
    meta = {k: _scrubbed(v, scrub) or v for k, v in record.meta.items()}
    if edited:
        return replace(record, stat=stat, meta=meta)
    hash_ = notehash.trimmed_sha256(owned)
    return replace(
        record,
        hash=hash_,
        lines=owned.count("\n") + 1,
        stat=stat,
        meta=meta,
        hashes=earlier_hashes(record, hash_),
    )


def _scrubbed(value: Any, scrub: Callable[[str], str]) -> Any:
    """The value redacted (a text, or a list's texts); None where nothing changed."""
    if isinstance(value, str):
        new = scrub(value)
        return new if new != value else None
    if isinstance(value, list):
        items = [scrub(v) if isinstance(v, str) else v for v in value]
        return items if items != value else None
    return None
