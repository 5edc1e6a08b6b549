"""Part notes a session no longer has: a session once cut into three parts, written again
into one or two (``note_max_bytes`` raised, or a version that cuts otherwise), leaves its
later parts. Each that holds nothing but what ccexport wrote there goes, as an older index
note of a renamed project goes (``index_secrets``): a note of ours, unedited, holds nothing
of the person's to lose. One the person edited stays, and the run's warning names it; so
does one a note of theirs links to (``vaultbacklinks``): their link would lead nowhere.

Looked for when the session's new last note is written (it lost its ``next_part``): the
state's records of the same session's parts numbered past it.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from . import notefile, vaultio
from .notecopies import only_generated
from .vaultbacklinks import names_linked_by_own_notes
from .vaultlinkread import link_name

if TYPE_CHECKING:
    from .state import NoteRecord
    from .vault import Vault


GAP_LOOKED = 64  # missing part numbers looked past (``parts_past_the_end``)


def parts_past_the_end(vault: Vault, key: str, metadata: dict[str, Any]) -> str:
    """Remove the parts of ``key``'s session past the note just written as ``key`` with
    ``metadata`` (when it is the session's last: no ``next_part``), those that hold nothing
    but ours; return what the report says of them and of those kept, "" for none."""
    if metadata.get("next_part"):
        return ""
    number = metadata.get("part")
    number = number if type(number) is int else 1
    session = key.partition("#part")[0]
    # (looked up one by one from the next number: a pass over every record for each note
    # written would cost a vault of 20,000 notes minutes. Parts are numbered without gaps
    # but where a part was kept, edited or linked to, past others removed: looked past a
    # gap of up to GAP_LOOKED numbers, so that part goes once it holds nothing of theirs)
    later, missed, next_number = [], 0, number + 1
    while missed <= GAP_LOOKED:
        other = f"{session}#part{next_number}"
        if other in vault.state.notes:
            later.append(other)
            missed = 0
        else:
            missed += 1
        next_number += 1
    removed, kept, beyond, linked = [], [], [], []
    names: set[str] | None = None  # what the person's notes link to, read if a part is to go

    def linked_to(path: str) -> bool:
        nonlocal names
        names = names_linked_by_own_notes(vault) if names is None else names
        return link_name(path) in names

    end = _time(metadata.get("updated"))
    for other in later:
        record = vault.state.notes[other]
        verdict = _verdict(vault, other, record)
        if verdict == "mine":  # (the person's edit, or their text around it): it stays
            kept.append(record.path)
        elif verdict == "ours" and not _reaches(end, _time(record.meta.get("updated"))):
            beyond.append(record)  # (the source holds less than the part: kept, as a
            # note whose source shrank is: ``vault.SHRUNK``)
        elif verdict == "ours" and linked_to(record.path):
            linked.append(record.path)  # (a link of theirs would lead nowhere: it stays)
        elif verdict != "elsewhere":  # ours unedited, or gone already: no record kept
            if verdict == "ours":
                removed.append(record.path)
                if not vault.dry_run:
                    vaultio.remove_file(vault.root, record.path)
            if not vault.dry_run:
                del vault.state.notes[other]
    said = []
    if removed:
        how = "would be removed" if vault.dry_run else "were removed"
        said.append(f"its part notes past it that held nothing of yours {how} ({_names(removed)})")
    if kept:
        one = len(kept) == 1
        said.append(
            f"{_names(kept)}, {'a part' if one else 'parts'} it no longer has, "
            f"{'is' if one else 'are'} left in place as you edited "
            f"{'it' if one else 'them'}: keep what you want of {'it' if one else 'them'}, "
            f"then delete {'it' if one else 'them'}"
        )
    if linked:
        one = len(linked) == 1
        said.append(
            f"{_names(linked)}, {'a part' if one else 'parts'} it no longer has, "
            f"{'is' if one else 'are'} left in place as notes of yours link to "
            f"{'it' if one else 'them'}: change those links to this note, then delete "
            f"{'it' if one else 'them'}"
        )
    if beyond:
        one = len(beyond) == 1
        said.append(
            f"{_names([record.path for record in beyond])}: left in place, as the session as "
            f"now read may not hold {'it' if one else 'them'} (it ends earlier, or without a "
            f"time: its source holds less than before?). {'It holds' if one else 'They hold'} "
            f"{'; '.join(_holding(record.meta) for record in beyond)}, as read before; if "
            f"that was a damaged line since repaired, or a file put back, delete "
            f"{'it' if one else 'them'}: no run removes {'it' if one else 'them'}, --force "
            "neither"
        )
    return f"the session now ends in this note: {'; '.join(said)}" if said else ""


def _holding(meta: dict[str, Any]) -> str:
    """What a part note holds, as its record says: "12 messages, 09:03 to 09:06"."""
    count = meta.get("messages")
    what = f"{count} message{'' if count == 1 else 's'}" if type(count) is int else "messages"
    start, end = _time(meta.get("created")), _time(meta.get("updated"))
    if start and end:
        return f"{what} of {start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M}"
    return f"{what} up to {end:%Y-%m-%d %H:%M}" if end else what


def _time(value: Any) -> datetime | None:
    """A note's ``updated`` (its last message) as written or recorded, None if not a time."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    return value if isinstance(value, datetime) else None


def _reaches(end: datetime | None, part_end: datetime | None) -> bool:
    """Does the session, ending at ``end``, hold a part that ended at ``part_end``? Not
    known (a time missing, one with a zone and one without): no, and the part stays."""
    if end is None or part_end is None or (end.tzinfo is None) != (part_end.tzinfo is None):
        return False
    return part_end <= end


def _verdict(vault: Vault, key: str, record: NoteRecord) -> str:
    """``ours`` (a note of ours, as written), ``mine`` (the person's edits in it or around
    it), ``gone`` (no file there), ``elsewhere`` (the file there is not that note: left)."""
    if record.deleted:
        return "gone"
    try:
        found = vaultio.read_file(vault.root, record.path)
        parsed = notefile.parse(found[0].decode("utf-8"), record.lines) if found else None
    except (OSError, UnicodeDecodeError, notefile.NoteFormatError):
        return "elsewhere"  # (unreadable, or not a note: never removed)
    if found is None:
        return "gone"
    if parsed is None or notefile.identity(parsed.metadata) != key:
        return "elsewhere"
    if vault.as_written(record):  # untouched since this machine wrote it
        return "ours"
    own_keys = {*record.keys, *(record.seeded or ())}
    return "ours" if only_generated(parsed, own_keys, record.tags, record.hash) else "mine"


def _names(paths: list[str]) -> str:
    return ", ".join(path.rpartition("/")[2] for path in paths)
