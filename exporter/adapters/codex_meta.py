"""What a Codex rollout's ``session_meta`` says of where its session ran (FORMATS.md §2.3):
the client that wrote it (``originator``, ``source``) and the model provider that served
it (``model_provider``), which decides whether OpenAI's list prices apply to its tokens."""

from __future__ import annotations

from typing import Any

from ..model import ModelUsage, Usage, usage_per_model

# ``originator``: the client's own name for itself, which tells Codex Desktop from the VS
# Code extension (both write ``source: "vscode"``) and the TUI from ``codex exec``.
_ORIGINATORS = {
    "codex_cli_rs": "Codex CLI", "codex-tui": "Codex CLI", "codex_exec": "codex exec",
    "codex_vscode": "Codex VS Code extension", "codex desktop": "Codex Desktop",
}  # fmt: skip
_SOURCES = {
    "cli": "Codex CLI", "exec": "codex exec", "vscode": "Codex VS Code extension",
    "mcp": "Codex MCP server",
}  # fmt: skip


def client(meta: dict[str, Any]) -> str | None:
    """The client the session ran in, in words ("Codex Desktop", "Codex CLI", …): its
    ``originator`` where known, else its ``source``, else the originator as written (a
    client ccexport does not know names itself so). None when neither says."""
    originator, source = meta.get("originator"), meta.get("source")
    if isinstance(originator, str) and originator.strip().lower() in _ORIGINATORS:
        return _ORIGINATORS[originator.strip().lower()]
    if isinstance(source, str) and source in _SOURCES:
        return _SOURCES[source]
    named = " ".join(originator.split()) if isinstance(originator, str) else ""
    return named[:80] or None


def other_provider(meta: dict[str, Any]) -> str | None:
    """The provider that served the session's models when it is not OpenAI (``ollama``,
    ``azure``, ``openrouter``: an id of the person's Codex config), else None. A rollout
    that names none is from a build that served OpenAI's models alone."""
    provider = meta.get("model_provider")
    if not isinstance(provider, str) or not provider.strip():
        return None
    provider = "".join(provider.split())
    return None if provider.lower() == "openai" else provider


def served_by(provider: str, per_model: ModelUsage, usage: Usage, models: list[str]) -> ModelUsage:
    """A session's tokens per model as priced when ``provider`` served them: each model
    named ``model@provider`` (``gpt-5@azure``), which the shipped prices (OpenAI's own list
    prices) never match, so the cost is unknown unless a ``[prices]`` entry names it. The
    tokens of no model known (or all, after a total went down) are named so too, by the
    session's one model (``@provider`` alone when it had several or none): priced by the
    session's main model, they would get OpenAI's price after all."""
    named = tuple((f"{model}@{provider}", counts) for model, counts in per_model)
    covered = sum((counts for _, counts in per_model), Usage())
    rest = Usage(
        max(0, usage.input_tokens - covered.input_tokens),
        max(0, usage.output_tokens - covered.output_tokens),
        max(0, usage.cache_read_tokens - covered.cache_read_tokens),
        max(0, usage.cache_write_tokens - covered.cache_write_tokens),
    )
    if rest == Usage():
        return named
    return (*named, (f"{models[0] if len(models) == 1 else ''}@{provider}", rest))


def priced_usage(
    meta: dict[str, Any], per_model: dict[str | None, Usage] | None, usage: Usage, models: list[str]
) -> ModelUsage:
    """The session's tokens per model, for its estimated cost (``Session.model_usage``):
    by each turn's model, and named with their provider when not OpenAI (``served_by``)."""
    counted = usage_per_model(per_model) if per_model else ()
    provider = other_provider(meta)
    return served_by(provider, counted, usage, models) if provider else counted
