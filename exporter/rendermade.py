"""What a unit's fingerprint in the state says of how its notes were rendered: by this
version, by another, or left by the last run to be read again; the export and ``doctor`` read it
alike."""

from __future__ import annotations

from .render import notes_made_by

# Why a unit recorded with no fingerprint (``State.outdate``) is rendered again: a note of
# it failed (a template's mistake, a full disk), the run was stopped, the filters left out a
# session of it that had a warning, a note of it deleted came back, or this machine's copy
# of a note another wrote was given up for theirs. The export and ``doctor`` say it alike
# (review40 M2: doctor said "written by another version of ccexport" after a broken
# template; review41 L-2: "not finished" was said of a note come back).
UNFINISHED_WHY = (
    "a note failed or came back, the run was stopped, its filters left one out, or another "
    "machine's copy was taken"
)


def notes_render(fingerprint: list) -> object:
    """The render entry a unit's notes were made with, as its fingerprint in the state says
    (None: none, the last run did not finish them). The first entry, unless filters left
    out every session of the unit when the run rendered with other settings: their entry
    (second) then ends with the render its notes kept (``unchanged.done``)."""
    if not fingerprint:
        return None
    filters = fingerprint[1] if len(fingerprint) > 2 else None
    if isinstance(filters, list) and len(filters) == 4 and filters[0] == "filtered":
        return filters[3]
    return fingerprint[0]


def made_by_another(entry: object) -> bool:
    """Were a unit's notes rendered by another version of ccexport (or one that did not
    say: before 7 December), as its fingerprint's first entry says?"""
    return not (isinstance(entry, list) and entry[2:3] == [notes_made_by()])
