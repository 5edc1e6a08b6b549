"""A Copilot CLI model's token counts, from its ``session.shutdown`` metrics: the cached
tokens apart from the input they are part of (FORMATS.md §6.6)."""

from __future__ import annotations

from typing import Any

from ...model import Usage, add_usage


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


class TokenTotals:
    """A session's tokens, per model (None: the session's own ``tokenDetails``), from its
    shutdowns: the last one's running totals, as with ``PremiumRequests`` (codeburn #946:
    each shutdown's output and cache reads hold the one before's). A shutdown where a
    model of the one before is missing, or any of its counts fell, is of a counter that
    started over (a CLI counting each run alone; a compaction): the totals before it are
    kept and its own added."""

    def __init__(self) -> None:
        self.banked: dict[str | None, Usage] = {}
        self.last: dict[str | None, Usage] = {}

    def shutdown(self, counts: dict[str | None, Usage]) -> None:
        if _started_over(self.last, counts):
            for model, usage in self.last.items():
                add_usage(self.banked, model, usage)
        self.last = counts

    def per_model(self) -> dict[str | None, Usage]:
        totals = dict(self.banked)
        for model, usage in self.last.items():
            add_usage(totals, model, usage)
        return totals

    def total(self) -> Usage:
        return sum(self.per_model().values(), Usage())


def _started_over(before: dict[str | None, Usage], now: dict[str | None, Usage]) -> bool:
    fields = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    return any(
        model not in now or any(getattr(now[model], f) < getattr(usage, f) for f in fields)
        for model, usage in before.items()
    )


def premium_requests(data: dict) -> int | float | None:
    """The premium requests a process's shutdown, or a checkpoint so far, counts
    (``totalPremiumRequests``), what Copilot bills by; None where it says none."""
    premium = data.get("totalPremiumRequests")
    counted = isinstance(premium, int | float) and not isinstance(premium, bool)
    return premium if counted and premium >= 0 else None


class PremiumRequests:
    """A session's premium requests. Each run of the CLI writes its ``session.shutdown``
    with the session's running total, not the run's own: a resumed run starts from the
    totals the last one wrote (codeburn #946: three shutdowns of one session, each holding
    the one before; its checkpoints never fall at a resume), so the last shutdown counts
    the runs before it and adding them counted those twice. A count below the one before
    is a counter that started over (a CLI before the running totals, which counted each
    run alone, copilot-cli #524; a compaction's reset, copilot-cli #1582): the counts up to
    it are kept and the new one added. A ``session.usage_checkpoint`` after the last
    shutdown (a resumed run killed, crashed or still going) is the newer running total
    where it is higher; with no shutdown at all, the last checkpoint is the count."""

    def __init__(self) -> None:
        self.banked: int | float = 0  # the counts of the runs before a counter started over
        self.shutdown_total: int | float | None = None  # (None: no shutdown records a count)
        self.last_checkpoint: int | float | None = None  # (since the last shutdown)

    def shutdown(self, data: dict) -> None:
        if (premium := premium_requests(data)) is not None:
            if self.shutdown_total is not None and premium < self.shutdown_total:
                self.banked += self.shutdown_total
            self.shutdown_total = premium
            self.last_checkpoint = None

    def checkpoint(self, data: dict) -> None:
        if (premium := premium_requests(data)) is not None:
            self.last_checkpoint = premium

    def total(self) -> int | float | None:
        if self.shutdown_total is None:
            return self.last_checkpoint
        return self.banked + max(self.shutdown_total, self.last_checkpoint or 0)
