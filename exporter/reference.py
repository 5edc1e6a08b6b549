"""The reference switch: ``CCEXPORT_REFERENCE_RENDER=1`` bypasses every speed-up of the note
builder, so that the identity tests can export both ways and compare every byte. Kept apart
from the Markdown modules because every run reads it, one that renders nothing too."""

from __future__ import annotations

import os

# Set to "1", every speed-up of the note builder is bypassed and notes are built the plain
# way (here: every text with code goes through the parser): the identity tests export
# through both paths and compare every byte.
REFERENCE_ENV = "CCEXPORT_REFERENCE_RENDER"


def reference_rendering() -> bool:
    """Is every speed-up of the note builder to be bypassed (``REFERENCE_ENV`` is "1")? As
    read at the start of the run or of the note being built (``read_reference_switch``):
    asked for every text, looking it up in the environment cost 1.5% of an export."""
    return _reference_switch[0]


def read_reference_switch() -> bool:
    """Read ``REFERENCE_ENV`` from the environment again; what ``reference_rendering`` says
    until the next reading."""
    _reference_switch[0] = os.environ.get(REFERENCE_ENV) == "1"
    return _reference_switch[0]


_reference_switch = [os.environ.get(REFERENCE_ENV) == "1"]
