"""One report of one cause: a file that failed (an error: a database locked) and the warning
another unit gave of the same file (what waits on it: a legacy tree, the working folders it
gives) are said as one error, its consequence appended."""

from __future__ import annotations

from dataclasses import replace

from .errors import Problem


def folded(problems: list[Problem]) -> list[Problem]:
    """``problems`` with each warning that repeats an error of the same file (the error's
    words, then "; " and what follows of it) folded into that error, in its place."""
    errors: dict[str, list[tuple[str, int]]] = {}  # path -> (its error's words, place)
    for i, problem in enumerate(problems):
        if problem.severity == "error":
            errors.setdefault(problem.path, []).append((problem.message, i))
    if not errors:
        return problems
    out = list(problems)
    dropped: set[int] = set()
    for i, problem in enumerate(problems):
        if problem.severity == "error":
            continue
        for message, at in errors.get(problem.path, ()):
            if problem.message.startswith(f"{message}; "):
                more = problem.message[len(message) + 2 :]
                if more not in out[at].message:
                    out[at] = replace(out[at], message=f"{out[at].message}; {more}")
                dropped.add(i)
                break
    return [p for i, p in enumerate(out) if i not in dropped]
