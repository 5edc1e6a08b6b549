"""What Claude Code's own ``system`` lines report that a reader of the session needs: a hook
that failed (``stop_hook_summary``'s ``hookErrors``) or stopped the turn, a request to the
API that failed (``api_error``, ``error``: each retry is one line) or was refused
(``api_refusal``), and a reply another model gave instead (``model_refusal_fallback``). Each
is a notice, in the words of the line; a line that reports nothing (hooks that ran fine)
is none."""

from __future__ import annotations

from typing import Any

from ..model import NoticePart
from ._values import stripped_text as _text

RETRY_SUBTYPES = ("api_error", "error")


def system_notice(rec: dict[str, Any]) -> NoticePart | None:
    subtype = rec.get("subtype")
    if subtype == "stop_hook_summary":
        return _hooks(rec)
    if subtype in RETRY_SUBTYPES:
        return _api_error(rec)
    if subtype == "api_refusal":
        why = _text(rec.get("apiRefusalExplanation")) or _text(rec.get("apiRefusalCategory"))
        return NoticePart("error", "The API refused the request" + (f": {why}" if why else ""))
    if subtype == "model_refusal_fallback":
        first, then = _text(rec.get("originalModel")), _text(rec.get("fallbackModel"))
        if first and then:
            return NoticePart("notification", f"{first} refused; {then} answered instead")
        return NoticePart("notification", "The model refused; another answered instead")
    return None


def _hooks(rec: dict[str, Any]) -> NoticePart | None:
    errors = rec.get("hookErrors")
    said = [f"A hook failed: {e.strip()}" for e in errors if _text(e)] if isinstance(
        errors, list
    ) else []  # fmt: skip
    if rec.get("preventedContinuation") is True:
        reason = _text(rec.get("stopReason"))
        said.append("A hook stopped the turn" + (f": {reason}" if reason else ""))
    return NoticePart("notification", "\n".join(said)) if said else None


def _api_error(rec: dict[str, Any]) -> NoticePart:
    error = rec.get("error") if isinstance(rec.get("error"), dict) else {}
    status = error.get("status")
    inner = error.get("error") if isinstance(error.get("error"), dict) else {}
    inner = inner.get("error") if isinstance(inner.get("error"), dict) else inner
    message = _text(error.get("message")) or _text(inner.get("message")) or _text(error.get("type"))
    text = "API error"
    if isinstance(status, int) and not isinstance(status, bool) and status:
        text += f" (status {status})"
    text += f": {message}" if message else ""
    attempt, most = rec.get("retryAttempt"), rec.get("maxRetries")
    if isinstance(attempt, int) and isinstance(most, int) and most > 0 and attempt > 0:
        text += f"; retrying (attempt {attempt} of {most})"
    limits = error.get("rateLimits") if isinstance(error.get("rateLimits"), dict) else {}
    wait = limits.get("retryAfterSeconds")
    if isinstance(wait, int | float) and not isinstance(wait, bool) and wait > 0:
        text += f"; retry after {wait:g} s"
    return NoticePart("error", text)
