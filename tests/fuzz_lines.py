"""Damage for JSON Lines fixtures (shared by the Gemini CLI and Copilot CLI fuzz tests).

A record is one line. ``damaged`` draws one record and either puts a hostile value at some
place inside it (wrong type, huge, empty, lone surrogate) or garbles the raw line.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import strategies as st

MARKER = re.compile(r"mk\d+x")
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
hostile = st.one_of(
    scalars,
    st.sampled_from(["x" * 200_000, "\n" * 50_000, 10**400, "\ud800", ""]),
    st.lists(scalars, max_size=3),
    st.dictionaries(st.text(max_size=6), scalars, max_size=3),
)


def places(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place inside a JSON value, as a tuple of keys and indexes."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += places(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += places(item, (*prefix, i))
    return found


def put(value: Any, place: tuple, new: Any) -> Any:
    if not place:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[place[0]] = put(value[place[0]], place[1:], new)
    return copy


def encode(record: Any) -> bytes:
    if isinstance(record, bytes):
        return record
    return json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogatepass")


@st.composite
def damaged(draw: Any, records: list[dict[str, Any]]) -> tuple[int, Any]:
    """(index, replacement): a record with one hostile value, or its line garbled."""
    index = draw(st.integers(0, len(records) - 1))
    record = records[index]
    if draw(st.booleans()):
        raw = encode(record)
        cut = draw(st.integers(0, len(raw)))
        return index, raw[:cut] + draw(st.binary(max_size=8)) + raw[cut + 1 :]
    place = draw(st.sampled_from(places(record)))
    return index, put(record, place, draw(hostile))


def lines(records: list[Any]) -> bytes:
    """The records as a JSON Lines file; a garbled line keeps its own line."""
    return b"".join(encode(r).replace(b"\n", b" ") + b"\n" for r in records)


def markers_of(records: list[Any]) -> set[str]:
    return set(MARKER.findall(json.dumps(records, default=str)))
