"""Estimated cost of a session from its token counts and a dated table of list prices.

The table ships with the package (``data/prices.toml``, read once, never fetched); the
user's ``[prices]`` entries in config.toml come first. An estimate is made only when every
kind of token the session used has a price: a missing price gives no cost, never a low one.
A session that used several models is priced per model, where its source says which model
used which tokens; one whose input tokens are unknown (only its output is counted) gets no
estimate either.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cache
from math import inf
from pathlib import Path
from typing import Any

from .model import ModelUsage, Usage

KINDS = ("input", "output", "cache_read", "cache_write")


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens; None where the table gives no price for that kind."""

    pattern: str
    input: float | None = None
    output: float | None = None
    cache_read: float | None = None
    cache_write: float | None = None


@dataclass(frozen=True, slots=True)
class PriceTable:
    date: str  # the date the shipped list prices were read ("" when only the user's)
    user: tuple[Price, ...] = ()  # from config.toml: tried first
    shipped: tuple[Price, ...] = ()
    # Each model's price, once looked up: a run asks for the same few models per session.
    _found: dict[str, Price | None] = field(
        default_factory=dict, init=False, compare=False, hash=False, repr=False
    )

    def price_of(self, model: str) -> Price | None:
        try:
            return self._found[model]
        except KeyError:
            found = self._found[model] = self._look_up(model)
            return found

    def _look_up(self, model: str) -> Price | None:
        name = normalize_model(model)
        for price in self.user:
            if _matches(name, price.pattern):
                return price
        matching = [p for p in self.shipped if _matches(name, p.pattern)]
        return max(matching, key=lambda p: len(p.pattern), default=None)

    def with_user(self, entries: dict[str, dict[str, Any]]) -> PriceTable:
        """This table with the user's ``[prices]`` entries (checked by config) in front."""
        user = tuple(_price(pattern, values) for pattern, values in entries.items())
        return PriceTable(self.date, user, self.shipped)


def _matches(name: str, pattern: str) -> bool:
    """``fnmatchcase(name, pattern)``, asked only when ``name`` begins with the pattern's
    text before its first wildcard, which any match must: the first lookup of a run then
    compiles the few patterns of that model's family, not all of the table's (5 ms)."""
    return name.startswith(_literal_head(pattern)) and fnmatchcase(name, pattern)


@cache
def _literal_head(pattern: str) -> str:
    return re.split(r"[*?\[]", pattern, maxsplit=1)[0]


def normalize_model(model: str) -> str:
    """``anthropic/claude-sonnet-4.5`` -> ``claude-sonnet-4-5``: how the table names models."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    return re.sub(r"(?<=\d)\.(?=\d)", "-", name)


MAX_TOKENS = 10**15  # beyond any real session: a count this large is a damaged value


def estimate(usage: Usage, model: str | None, table: PriceTable) -> float | None:
    """USD for ``usage`` at ``model``'s list price, or None when it cannot be priced."""
    cost = _cost(usage, model, table)
    return None if cost is None else round(cost, 6)


def session_estimate(
    usage: Usage, per_model: ModelUsage, model: str | None, table: PriceTable
) -> float | None:
    """USD for a session's ``usage``: the tokens of each model in ``per_model`` at that
    model's price, any rest (tokens the source names no model for) at ``model``'s, the
    session's main model. None when any of them cannot be priced: an estimate of part of
    the tokens would be a low one."""
    if not per_model:
        return estimate(usage, model, table)
    named = sum((counts for _, counts in per_model), Usage())
    rest = Usage(*(max(0, a - b) for a, b in zip(_counts(usage), _counts(named), strict=True)))
    priced = [(name, counts) for name, counts in (*per_model, (model, rest)) if counts != Usage()]
    costs = [_cost(counts, name, table) for name, counts in priced]
    return None if None in costs else round(sum(c for c in costs if c is not None), 6)


def _counts(usage: Usage) -> tuple[int, int, int, int]:
    return (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
    )


def _cost(usage: Usage, model: str | None, table: PriceTable) -> float | None:
    if not model:
        return None
    price = table.price_of(model)
    counts = dict(zip(KINDS, _counts(usage), strict=True))
    if price is None or not any(counts.values()):
        return None
    if any(count > MAX_TOKENS or count < 0 for count in counts.values()):
        return None  # a damaged count: no estimate (and no float overflow)
    if counts["output"] and not (counts["input"] or counts["cache_read"] or counts["cache_write"]):
        return None  # output with no input counted: the input is unknown, not free
    total = 0.0
    for kind, count in counts.items():
        if not count:
            continue
        per_million = getattr(price, kind)
        if per_million is None:
            return None  # this kind has no price: no estimate rather than a low one
        total += count * per_million / 1_000_000
    return total


@cache
def shipped_table() -> PriceTable:
    """The price table in the package, read once per process."""
    # Beside this module, as render.py finds the templates (importlib.resources would add
    # 3 ms of imports to every start).
    text = (Path(__file__).parent / "data" / "prices.toml").read_text("utf-8")
    data = tomllib.loads(text)
    prices = tuple(
        _price(pattern, entry) for entry in data.get("model", []) for pattern in entry["match"]
    )
    return PriceTable(str(data.get("date", "")), (), prices)


def _price(pattern: str, values: dict[str, Any]) -> Price:
    kinds = {k: float(values[k]) for k in KINDS if values.get(k) is not None}
    return Price(normalize_model(pattern), **kinds)


def check_entry(values: Any) -> tuple[str | None, str] | None:
    """Why a ``[prices]`` entry from config.toml is unusable, as (the key of the entry at
    fault, or None for the entry as a whole; why), or None when it is fine."""
    from .config_file import toml_value
    from .config_values import did_you_mean

    if not isinstance(values, dict):
        return (
            None,
            f"must be a table such as {{ input = 3.0, output = 15.0 }}, not {toml_value(values)}",
        )
    for kind in values:
        if kind not in KINDS:
            return kind, (
                f"is not a setting ccexport knows{did_you_mean(kind, KINDS)}; a price takes "
                f"{', '.join(KINDS)} (USD per million tokens)"
            )
    for kind, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < inf:
            return kind, "must be a price in USD per million tokens, such as 3.0"  # nan, inf too
    if not values:
        return None, "gives no price; use " + ", ".join(KINDS)
    return None
