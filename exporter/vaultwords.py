"""What the vault says of a note it writes otherwise than asked, or leaves as it is: each
sentence once, for the vault and the tests that look for it."""

from __future__ import annotations

EMPTIED = "it was empty: written again"
RENAMED_NEW = "another file already had the name, so this note got a new one"
IN_CLOUD_ONLY = (
    "left as it is: iCloud keeps it in the cloud only (not downloaded to this Mac); "
    "the first run after it is downloaded updates it"
)
MERGE_CONFLICT = (
    "left unchanged: it holds a merge's conflict (<<<<<<<, =======, >>>>>>> lines); "
    "resolve it, and the next run updates the note"
)
# A note whose begin or end marker line is missing or changed (deleted, or text typed on
# it): where the generated part ends is unknown, so nothing is written. Deleting the note
# would lose the person's text in it: the advice says to move that out first.
MARKERS_GONE = (
    "left unchanged: its ccexport markers are missing or changed (the `%% ccexport:begin "
    "… %%` and `%% ccexport:end … %%` lines must each stand alone, as written); put them "
    "back as they were and the next run updates it, or move your own text out of the note, "
    "delete it and run `ccexport --restore`, which writes it again (`--project` narrows it)"
)
