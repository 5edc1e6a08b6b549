"""Which result answers which tool call, for the turn builder (turns.py)."""

from __future__ import annotations

from collections import deque
from typing import Any

from .model import ToolCallPart, ToolResultPart


class ToolPairs:
    """Each tool call's result, paired by id and by order: a call takes the first result
    with its id after it, so an id used again (models that number their calls afresh each
    turn: ``call_0``) pairs each call with its own result. Calls of one id in one run of
    the model's messages are answered in order; one left unanswered when another message
    came (an interruption, other results) is passed over by a later call of its id. A
    result that came before its call waits for it, and one more result for an answered
    call (a repeat) replaces the answer. Calls and results are counted in message order
    (cleaning keeps them all), so the pass that builds the turns asks for them by that
    count."""

    __slots__ = ("answers", "answered", "calls", "results")

    def __init__(self, messages: Any) -> None:
        self.answers: dict[int, ToolResultPart] = {}  # call number -> its result
        self.answered: set[int] = set()  # numbers of the results shown with their call
        # id -> (number, run of model messages) of its calls still unanswered
        waiting: dict[str, deque[tuple[int, int]]] = {}
        early: dict[str, deque[tuple[int, ToolResultPart]]] = {}  # results before a call
        last: dict[str, int] = {}  # id -> number of its latest call
        calls = results = run = 0
        for message in messages:
            if message.role != "assistant":
                run += 1
            for part in message.parts:
                if isinstance(part, ToolCallPart):
                    if part.call_id:
                        last[part.call_id] = calls
                        found = early.get(part.call_id)
                        queue = waiting.setdefault(part.call_id, deque())
                        if queue and queue[-1][1] != run:
                            queue.clear()  # left unanswered: its turn went on without it
                        if found:
                            number, result = found.popleft()
                            self.answers[calls] = result
                            self.answered.add(number)
                        else:
                            queue.append((calls, run))
                    calls += 1
                elif isinstance(part, ToolResultPart):
                    if part.call_id:
                        queue = waiting.get(part.call_id)
                        if queue:
                            self.answers[queue.popleft()[0]] = part
                            self.answered.add(results)
                        elif part.call_id in last:
                            self.answers[last[part.call_id]] = part  # a repeat: the latest
                            self.answered.add(results)
                        else:
                            early.setdefault(part.call_id, deque()).append((results, part))
                    results += 1
        self.calls = self.results = 0

    def result_of_next_call(self) -> ToolResultPart | None:
        self.calls += 1
        return self.answers.get(self.calls - 1)

    def next_result_is_paired(self) -> bool:
        self.results += 1
        return self.results - 1 in self.answered
