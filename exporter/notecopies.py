"""Which file of a vault is a session's note, where there are several or it changed: a
sync tool's conflict copy or a duplicate beside it (``copy_of``, ``choose_note``), an older
copy put in its place (``older_copy``), or another machine's note of the same session
(``behind``). ``vaultsurvey`` asks; these decide from paths and parsed notes alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from enum import IntEnum

from . import notefile
from .clock import too_late
from .state import NoteRecord


class MadeBy(IntEnum):
    """Which version last rendered a unit's notes, as far as their counts go."""

    THIS = 0
    ANOTHER = 1  # it may date a session or count its calls otherwise
    # one that counted ccexport's own remark (Cursor's, Copilot's, Gemini's) as a message:
    # its note may hold one message more than this version counts for the same session
    COUNTING_REMARKS = 2


# Source -> the first revision not counting ccexport's own remark on what it keeps among a
# note's ``messages`` (Cursor's transcript, Copilot's pending edits; Gemini's prompts left
# alone in its prompt log, a revision later). A source not named makes no such remark.
REMARKS_UNCOUNTED = {
    "cursor": ("2026-12-07", 19),
    "copilot": ("2026-12-07", 19),
    "gemini": ("2026-12-07", 21),
}


def counted_remarks(entry: object, source: str) -> bool:
    """Were a unit's notes of ``source`` rendered by a version that counted ccexport's own
    remark as a message (one before the source's ``REMARKS_UNCOUNTED``, or one that did not
    say)? Never for a source ccexport makes no remark on."""
    uncounted = REMARKS_UNCOUNTED.get(source)
    if uncounted is None:
        return False
    made = entry[2] if isinstance(entry, list) and len(entry) > 2 else None
    date, _, number = str(made).rpartition(" ")[2].partition(".")
    return not number.isdigit() or (date, int(number)) < uncounted


SIZE_KEY = "messages"  # a note whose count would go down holds more than its source gives


def holds_more(note: dict, ours: dict, made_otherwise: int = MadeBy.THIS) -> str:
    """What a note's properties say it holds beyond the note its source now gives, "" for
    nothing: more messages; or as many, but more tool calls, or a later end from the same
    start, as a copy of the source cut inside its last message gives (Claude Code writes
    each block of a reply on a line of its own: a backup taken mid-answer, a pruned file).
    A note made again with other settings, another time zone or another template holds as
    many of each, so it is written. ``made_otherwise``: the note was last rendered by another
    version of ccexport: only messages decide, since a version may date or
    count a session's calls otherwise (Copilot CLI's end moved from its last event to its
    last message: every such note looked cut, and was kept stale until ``--force``); one
    that counted ccexport's own remark as a message (``MadeBy.COUNTING_REMARKS``) may hold
    one more."""
    had, has = note.get(SIZE_KEY), ours.get(SIZE_KEY)
    if type(had) is not int or type(has) is not int or has > had:
        return ""
    if made_otherwise == MadeBy.COUNTING_REMARKS and has == had - 1:
        return ""
    if has < had:
        return f"the note holds {had} messages, the source now gives {has}"
    if made_otherwise:
        return ""
    calls, now = note.get("tool_calls"), ours.get("tool_calls")
    if type(calls) is int and type(now) is int and now < calls:
        return f"the note holds {had} messages and {calls} tool calls, the source now {now}"
    ended, ends = note.get("updated"), ours.get("updated")
    dated = all(type(t) is datetime for t in (ended, ends, note.get("created")))
    if dated and note["created"] == ours.get("created") and ends < ended and not _past_clock(ended):
        return f"the note's {had} messages end at {ended:%H:%M:%S}, the source's at {ends:%H:%M:%S}"
    return ""


def _past_clock(ended: datetime) -> bool:
    """Is a note's end past the clock (a time a clock set wrong gave, which this version
    no longer reads)? Such an end says nothing of a fuller note: with the same messages and
    calls the note is written, and the repair reaches it without ``--force``."""
    if ended.tzinfo is None:  # a wall time in the note's zone: at most 14 hours ahead of UTC
        ended = ended.replace(tzinfo=UTC) - timedelta(hours=14)
    return too_late(ended)


def cut_elsewhere(part: dict, ours: dict) -> bool:
    """Do a part note and the part of that number the session now gives hold other spans
    of it, its cuts having moved (another ``note_max_bytes``, or a version cutting
    otherwise), so that fewer messages say nothing of a shrink? A part followed by another
    ends at a cut: what it no longer holds went on to the next part. The last part beginning
    elsewhere is compared by where the session ends: earlier is a shrink."""
    if ours.get("next_part"):
        return True
    if part.get("created") == ours.get("created"):
        return False  # the same start: fewer messages, or an earlier end, are a shrink
    ended, ends = part.get("updated"), ours.get("updated")
    return not (type(ended) is datetime and type(ends) is datetime and ends < ended)


SHRUNK = "source has fewer turns than the note; kept"
# Why, and what --force would do: in a synced vault the likely cause is another machine's
# fuller copy of the session, which --force would replace with this one (review29 F10).
SHRUNK_WHY = (
    "another machine syncing this vault may have exported a fuller copy of the session, or "
    "the source shrank, or this version of ccexport no longer counts some of them; --force "
    "writes this machine's copy over the note, replacing a fuller one"
)


def shrunk_why(existing: dict, ours: dict, made_otherwise: int) -> str:
    """Why the note must be kept (unless forced): its source now holds less than it does;
    "" when it does not."""
    more = holds_more(existing, ours, made_otherwise)
    if not more:
        return ""
    was_part, is_part = existing.get("part"), ours.get("part")
    if was_part != is_part and not (was_part and not is_part):
        return ""  # counts of different spans (a long session now cut into parts); a
        # part that held more than the whole session now gives: it shrank
    if was_part and is_part and cut_elsewhere(existing, ours):
        return ""  # the same session cut at other places: its parts hold other spans
    if ours.get("forked_from") and not existing.get("forked_from"):
        return ""  # a fork whose origin's note is here now: the copy it began with is that
        # note's (a fork's note holds it while its origin has none)
    return f"{SHRUNK} ({more}: {SHRUNK_WHY})"


def only_generated(
    parsed: notefile.NoteText, keys: Iterable[str], tags: Iterable[str], hash_: str
) -> bool:
    """Does a note hold nothing but what ccexport wrote there: the generated part as the
    state records it (``hash_``) and unedited, none but its own properties (``keys``) and
    tags, and no text of the person's around it? Such a note, no longer needed, may go."""
    if parsed.owned is None or parsed.edited is not False:
        return False
    if not notefile.hash_matches(parsed.owned, hash_[:16]):
        return False  # (another intact generated part: an older copy, another machine's)
    meta = parsed.metadata
    found_tags = meta.get("tags")
    return (
        set(meta) <= set(keys)
        and (found_tags is None or isinstance(found_tags, list) and set(found_tags) <= set(tags))
        and not parsed.before.strip()
        and parsed.after.strip() in ("", notefile.NEW_NOTE_TAIL.strip())
    )


def _rank(relpath: str) -> tuple[int, list[str]]:
    """An order of files that does not depend on a machine's state: the shortest name first,
    then the folders compared one by one (a prefix first)."""
    folders = relpath.split("/")
    return len(folders[-1]), folders


def copy_of(relpath: str, other: str) -> bool:
    """Is ``relpath`` a sync tool's conflict copy, or Obsidian's or a file manager's
    duplicate, of ``other``? Such a copy lengthens the name of the file (``X.sync-conflict-
    ….md``, ``X (conflicted copy ….md``, ``X 2.md``, ``X-PC.md``) or of a folder above it
    (``AI Sessions 2/``), and keeps the rest."""
    mine, theirs = relpath.split("/"), other.split("/")
    if len(mine) != len(theirs) or mine == theirs:
        return False
    return all(
        a == b or a.removesuffix(".md").startswith(b.removesuffix(".md"))
        for a, b in zip(mine, theirs, strict=True)
    )


def choose_note(paths: list[str], recorded: str | None) -> str:
    """Which of several files naming one session is its note, the same on every machine: not
    a copy of another of them (``copy_of``); of those, the one this machine's state records,
    else the first by ``_rank``. A copy the person made under a name of their own is no sync
    tool's: the note this machine writes stays the one it wrote."""
    originals = [p for p in paths if not any(copy_of(p, q) for q in paths if q != p)]
    if recorded is not None and recorded in originals:
        return recorded
    return min(originals or paths, key=_rank)


HASHES_KEPT = 4  # generated parts a note's record remembers this machine wrote before


def earlier_hashes(before: NoteRecord | None, hash_: str) -> list[str]:
    """The generated parts this machine wrote of a note before the one of ``hash_`` (its
    record's ``hashes``), as the end markers carry them."""
    if before is None:
        return []
    if before.hash == hash_:
        return before.hashes
    return [before.hash[:16], *(h for h in before.hashes if h != hash_[:16])][:HASHES_KEPT]


def own_older(parsed: notefile.NoteText, record: NoteRecord) -> bool:
    """Is the note's generated part one this machine wrote before (put back: a backup, a
    sync tool's versions, ``git checkout``), whatever it holds?"""
    owned = parsed.owned
    return owned is not None and any(notefile.hash_matches(owned, h) for h in record.hashes)


def behind(parsed: notefile.NoteText, record: NoteRecord) -> bool:
    """Does an intact generated part other than the one this machine last wrote hold less
    than that one: fewer messages, or as many in fewer lines (an older copy put back)? One
    that holds as much is another machine's, made from its own copy of the session (a title
    or a fork that machine knows of): left alone, as that machine leaves this one's. Were
    both rewritten, two machines whose copies differ would each rewrite the note on every
    run; this way the note settles on the fuller of the two."""
    had, has = record.meta.get(SIZE_KEY), parsed.metadata.get(SIZE_KEY)
    part, ours = parsed.metadata.get("part"), record.meta.get("part")
    if type(had) is not int or type(has) is not int:
        return True
    if part != ours:  # counts of different spans: made again, but for a part of a longer
        return not (part and not ours and has >= had)  # copy over this machine's whole note
    if has != had:
        return has < had
    return (parsed.owned or "").count("\n") + 1 < record.lines


def older_copy(parsed: notefile.NoteText | None, record: NoteRecord) -> bool | None:
    """Is the note's generated part another intact one than the state records (an older
    copy)? False: the one recorded (the person wrote outside it, or a sync tool changed its
    line ends), or the person's edit inside it (its markers gone too: the writes report
    that); None: not known (unread, or written before markers held a hash)."""
    if parsed is None:
        return None
    if parsed.owned is None or notefile.hash_matches(parsed.owned, record.hash[:16]):
        return False
    return None if parsed.edited is None else not parsed.edited
