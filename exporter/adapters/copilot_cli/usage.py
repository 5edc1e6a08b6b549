"""A Copilot CLI model's token counts, from its ``session.shutdown`` metrics: the cached
tokens apart from the input they are part of (FORMATS.md §6.6)."""

from __future__ import annotations

from typing import Any

from ...model import Usage


def positive(value: Any) -> int:
    """A count of tokens or messages: a positive whole number, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def model_usage(entry: dict) -> Usage | None:
    """A model's tokens: its ``tokenDetails`` (input without the cached part), else its
    ``usage``, whose ``inputTokens`` counts the whole prompt, the cache reads and writes in
    it (``inputTokens`` = ``tokenDetails.input`` + cache read + cache write, in the CLI's
    own logs): the uncached rest is the input. An ``inputTokens`` below the cached tokens
    cannot hold them, and is taken as it is."""
    details = token_details(entry.get("tokenDetails"))
    if details is not None:
        return details
    usage = entry.get("usage")
    if not isinstance(usage, dict):
        return None
    known = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")
    if not any(key in usage for key in known):
        return None  # (e.g. reasoningTokens alone)
    read, write = positive(usage.get("cacheReadTokens")), positive(usage.get("cacheWriteTokens"))
    prompt = positive(usage.get("inputTokens"))
    uncached = prompt - read - write if prompt >= read + write else prompt
    return Usage(uncached, positive(usage.get("outputTokens")), read, write)


def token_details(details: Any) -> Usage | None:
    """``tokenDetails``: ``{input, output, cache_read, cache_write: {tokenCount}}``, the
    input without the cached tokens."""
    if not isinstance(details, dict):
        return None

    def tokens(key: str) -> int:
        entry = details.get(key)
        return positive(entry.get("tokenCount")) if isinstance(entry, dict) else 0

    if not any(
        isinstance(details.get(k), dict) for k in ("input", "output", "cache_read", "cache_write")
    ):
        return None
    return Usage(tokens("input"), tokens("output"), tokens("cache_read"), tokens("cache_write"))


def shutdown_totals(data: dict) -> tuple[list[tuple[str, Usage | None]], Usage | None]:
    """A process's ``session.shutdown`` totals: each model it names, with its tokens (None
    where it has none), and, when no model has them (CLI 1.0.77 writes ``{requests: 2}``
    alone), the session's ``tokenDetails``."""
    metrics = data.get("modelMetrics")
    models = [
        (model, model_usage(entry) if isinstance(entry, dict) else None)
        for model, entry in (metrics.items() if isinstance(metrics, dict) else [])
    ]
    if any(usage is not None for _, usage in models):
        return models, None
    return models, token_details(data.get("tokenDetails"))


def premium_requests(data: dict) -> int | float | None:
    """The premium requests a process's shutdown, or a checkpoint so far, counts
    (``totalPremiumRequests``), what Copilot bills by; None where it says none."""
    premium = data.get("totalPremiumRequests")
    counted = isinstance(premium, int | float) and not isinstance(premium, bool)
    return premium if counted and premium >= 0 else None


class PremiumRequests:
    """A session's premium requests: each process's shutdown count, summed over the runs
    of a resumed session; a session no shutdown counts (killed, crashed, still going), the
    running total of its last ``session.usage_checkpoint``, never added to a shutdown's
    (whether a resumed run's checkpoint counts from that run or from the session's start
    is not known)."""

    def __init__(self) -> None:
        self.shutdowns: int | float | None = None  # (None: no shutdown records a count)
        self.last_checkpoint: int | float | None = None

    def shutdown(self, data: dict) -> None:
        if (premium := premium_requests(data)) is not None:
            self.shutdowns = (self.shutdowns or 0) + premium

    def checkpoint(self, data: dict) -> None:
        if (premium := premium_requests(data)) is not None:
            self.last_checkpoint = premium

    def total(self) -> int | float | None:
        return self.last_checkpoint if self.shutdowns is None else self.shutdowns
