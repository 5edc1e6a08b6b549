"""A Cursor tool's result (``toolFormerData.result``, JSON) as the text a reader wants: its
output or a file's contents, else what the model was told (``resultForModel``, beside an
apply_patch's diff object); a search's matches as lines (``file:line:text``, grep's own
form); a codebase search's chunks each as its ``path:first-last`` line and its code; lint
errors a line each; any other shape as JSON."""

from __future__ import annotations

from typing import Any

from .._jsonl import json_text


def result_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, dict):
        for key in ("output", "contents", "content", "resultForModel"):
            if isinstance(value.get(key), str):
                return value[key]
        shown = (
            _grep(value.get("success"))
            or _lints(value.get("linterErrorsByFile"))
            or _code_results(value.get("codeResults"))
        )
        if shown is not None:
            return shown
    return json_text(value, indent=True)


def _grep(found: Any) -> str | None:
    """grep's ``{success: {workspaceResults: {<root>: {content: {matches: [{file, matches:
    [{lineNumber, content, isContextLine}]}]}}}}}``: each line as ``file:line:text`` (a
    context line ``file-line-text``, as grep writes it); none for another shape."""
    roots = found.get("workspaceResults") if isinstance(found, dict) else None
    if not isinstance(roots, dict):
        return None
    lines: list[str] = []
    for root in roots.values():
        content = root.get("content") if isinstance(root, dict) else None
        files = content.get("matches") if isinstance(content, dict) else None
        if not isinstance(files, list):
            return None
        for entry in files:
            if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
                return None
            for match in entry.get("matches") or []:
                if not isinstance(match, dict):
                    return None
                mark = "-" if match.get("isContextLine") else ":"
                text = match.get("content") if isinstance(match.get("content"), str) else ""
                number = _plain(match.get("lineNumber"))
                lines.append(f"{entry['file']}{mark}{number}{mark}{text}")
    return "\n".join(lines) if lines else None


def _code_results(results: Any) -> str | None:
    """codebase_search's ``codeResults: [{codeBlock: {relativeWorkspacePath, range,
    contents, originalContents, detailedLines}, score}]``: each chunk as its
    ``path:first-last`` line (the range's 0-based positions as the 1-based lines it covers)
    and its ``contents`` once (``originalContents`` and ``detailedLines`` hold the same code
    again); none for another shape."""
    if not isinstance(results, list) or not results:
        return None
    shown: list[str] = []
    for result in results:
        block = result.get("codeBlock") if isinstance(result, dict) else None
        if not isinstance(block, dict) or not isinstance(block.get("relativeWorkspacePath"), str):
            return None
        code = block.get("contents")
        if not isinstance(code, str):
            code = block.get("originalContents")
        if not isinstance(code, str):
            return None
        where = block["relativeWorkspacePath"] + _lines(block.get("range"))
        code = code.strip("\n")  # (the chunk's own blank lines around it)
        shown.append(f"{where}\n{code}" if code.strip() else where)
    return "\n\n".join(shown)


def _lines(span: Any) -> str:
    """``:first-last`` of a range (``startPosition``/``endPosition``, 0-based, a 0 left
    out): an end at column 0 ends the line before; none for a range not of that shape."""
    if not isinstance(span, dict):
        return ""
    start, end = span.get("startPosition"), span.get("endPosition")
    if not isinstance(start, dict) or not isinstance(end, dict):
        return ""
    numbers = [start.get("line", 0), end.get("line", 0), end.get("column", 0)]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers):
        return ""
    first, last, column = numbers
    last = last + 1 if column else last
    return f":{first + 1}-{max(first + 1, last)}"


def _lints(by_file: Any) -> str | None:
    """read_lints' ``linterErrorsByFile``: each error as ``path:line:column: severity:
    message`` (lines and columns as Cursor counts them); none for another shape."""
    if not isinstance(by_file, list):
        return None
    lines: list[str] = []
    for entry in by_file:
        errors = entry.get("errors") if isinstance(entry, dict) else None
        if not isinstance(errors, list):
            return None
        path = _plain(entry.get("relativeWorkspacePath"), "")
        for error in errors:
            if not isinstance(error, dict):
                return None
            span = error.get("range") if isinstance(error.get("range"), dict) else {}
            start = span.get("startPosition") if isinstance(span.get("startPosition"), dict) else {}
            severity = _plain(error.get("severity"), "").removeprefix("DIAGNOSTIC_SEVERITY_")
            where = f"{path}:{_plain(start.get('line'))}:{_plain(start.get('column'))}"
            message = _plain(error.get("message"), "")
            lines.append(f"{where}: {severity.lower() or 'problem'}: {message}")
    return "\n".join(lines) if lines else None


def _plain(value: Any, missing: str = "?") -> str:
    """A number or text of a result as written; anything else (absent, damaged) as
    ``missing``, never as a Python repr (``None``, ``['x']``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return missing
