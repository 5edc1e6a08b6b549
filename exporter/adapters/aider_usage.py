"""Aider's usage lines (``Tokens: 5,244 sent, 604 received. Cost: $0.02 request, $0.07
session.``) summed into a run's tokens and cost.

Kept apart from aider_log.py, which finds the lines and hands them here.
"""

from __future__ import annotations

import re

from ..model import Usage

# (without "Cost: …" for a model whose prices Aider does not know)
USAGE_LINE = re.compile(r"^Tokens: (?P<tokens>.*?)\.(?:\s*Cost: (?P<cost>.*?)\.?)?\s*$")
# (a development build of 0.50 called the cache hits "cached": "492 sent, 1,278 cached")
_COUNT = re.compile(r"([\d.,]+)\s*([kKmM]?) (sent|received|cache write|cache hit|cached)\b")
_SAME = {"cached": "cache hit"}
_COST = re.compile(r"\$([\d.,]+) (request|message|session)")


class RunUsage:
    """A run's tokens and cost, one usage line at a time."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.request_costs: list[float] = []
        self.session_cost: float | None = None
        self.session_printed = ""  # (its digits, as Aider printed them: how far it rounds)
        # The first request already had a running total above its cost: the run's prompts
        # went to an Aider started before its header, whose banner is another Aider's.
        self.started_before = False
        # Aider's running total restarted (another Aider went on writing in the run; or
        # Aider 0.48's, which counted an /ask or /help request twice): it did not go on
        # from the last one by this request's cost, down or up. What the totals before
        # came to, each stretch counted as a run is: its last total, or its requests'
        # costs when its total started above its first one.
        self.banked = 0.0
        self.stretch: list[float] = []  # the request costs since the total last restarted
        self.stretch_before = False  # this stretch's total started above its request

    def cost(self) -> float | None:
        if self.session_cost is None:
            return sum(self.request_costs) if self.request_costs else None
        return self.banked + self._stretch_cost()

    def _stretch_cost(self) -> float:
        if self.stretch_before or self.session_cost is None:
            # (its total holds what the process spent before the run)
            return sum(self.stretch)
        return self.session_cost  # Aider's own running total for the stretch

    def count(self, tokens: str, cost: str) -> None:
        found = _COUNT.findall(tokens)
        counts = {_SAME.get(what, what): _number(n, unit) for n, unit, what in found}
        sent, hit, write = (counts.get(k, 0) for k in ("sent", "cache hit", "cache write"))
        # Aider's "sent" is the request's prompt tokens, cache hits among them, plus the
        # cache writes it adds: input here is what was neither read from nor written to
        # the cache, as every other source counts it. Its 0.50 builds also logged "sent"
        # without either ("194 sent, 9,474 cache write"): exact counts (later ones are
        # rounded, "20k sent, 215 cache write, 20k cache hit") with "sent" below what was
        # cached, it is the input.
        cached = hit + write
        older = sent < cached and not any(unit for _, unit, _ in found)
        self.usage += Usage(
            sent if older else max(0, sent - cached), counts.get("received", 0), hit, write
        )
        printed = {what: amount.replace(",", "") for amount, what in _COST.findall(cost)}
        costs = {what: float(amount) for what, amount in printed.items()}
        first = not self.request_costs and self.session_cost is None
        request = costs.get("request", costs.get("message"))
        if first and request is not None and costs.get("session", request) > request:
            self.started_before = True
        session = costs.get("session")
        if session is not None and self._restarted(
            printed.get("request", printed.get("message")), printed["session"]
        ):
            self.banked += self._stretch_cost()
            self.stretch = []
            self.stretch_before = request is not None and session > request
        elif first:
            self.stretch_before = self.started_before
        for what, amount in printed.items():
            if what == "session":
                self.session_cost, self.session_printed = costs[what], amount
            else:
                self.request_costs.append(costs[what])
                self.stretch.append(costs[what])

    def _restarted(self, request: str | None, session: str) -> bool:
        """Is this running total not the last one going on (another Aider's, a new one's,
        or one Aider miscounted)? A total goes on from the last by this request's cost, to
        the rounding of the digits printed (a cent's, more below a cent: "$0.00011
        message"); a total that went down, or up by more or less than that, restarted.
        Without the request's cost only a total that went down says so."""
        if self.session_cost is None:
            return False
        if float(session) < self.session_cost:
            return True
        if request is None:
            return False
        rounding = sum(map(_half_digit, (self.session_printed, request, session)))
        return abs(self.session_cost + float(request) - float(session)) > rounding + 1e-12


def _half_digit(printed: str) -> float:
    """Half the last digit Aider printed (``0.02``: 0.005): how far from its value it is."""
    return 0.5 * 10.0 ** -len(printed.partition(".")[2])


def _number(digits: str, unit: str) -> int:
    value = float(digits.replace(",", ""))
    return round(value * {"k": 1_000, "m": 1_000_000}.get(unit.lower(), 1))
