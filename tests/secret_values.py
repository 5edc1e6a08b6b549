"""A hypothesis strategy of values shaped like a secret, for the redaction properties."""

from __future__ import annotations

import string

from hypothesis import assume
from hypothesis import strategies as st

ALNUM = string.ascii_letters + string.digits


@st.composite
def secret_values(draw, min_size: int = 14, max_size: int = 24) -> str:
    """A value as random as a key: letters of both cases and digits, none repeated."""
    chars = draw(
        st.lists(st.sampled_from(ALNUM), min_size=min_size, max_size=max_size, unique=True)
    )
    value = "".join(chars)
    assume(any(c.isdigit() for c in value) and any(c.islower() for c in value))
    assume(any(c.isupper() for c in value))
    return value
