"""What a tool call's input shows in a note: a one-line summary, its arguments as code
blocks (long text and edits on their own, the rest as YAML), and the to-do list a plan
tool wrote. Plain data for the turn builder (``turns.py``); no Markdown here."""

from __future__ import annotations

import re
from typing import Any

from .inputyaml import arguments_yaml
from .model import ToolCallPart

_PATH_KEYS = ("file_path", "filePath", "path", "notebook_path")  # the file a call is about
# What a search looked for says more than where (Glob and Grep take a pattern and a folder);
# a Skill call is named by its skill.
# (Gemini CLI: ``absolute_path``, an older read_file's file; ``dir_path``, list_directory's
# folder; ``agent_name``, the agent delegate_to_agent starts, named as a Task's kind is.
# Antigravity: ``CommandLine``, run_command's command; ``AbsolutePath``, view_file's file;
# ``DirectoryPath``, list_dir's folder.)
_SUMMARY_KEYS = ("command", "cmd", "CommandLine", "file_path", "filePath", "absolute_path",
                 "AbsolutePath", "pattern", "query", "regex", "search_term", "path", "dir_path",
                 "DirectoryPath", "url", "notebook_path", "skill", "target_file", "targetFile",
                 "TargetFile", "agent_name")  # fmt: skip


def call_description(part: ToolCallPart) -> str | None:
    """What the call is for, in words: the one its source gives, else its input's
    ``description`` when that is one line (Claude Code's, Gemini CLI's and Copilot CLI's
    shell tools carry one; a longer one stays among the inputs)."""
    if part.description:
        return part.description
    given = part.input.get("description") if isinstance(part.input, dict) else None
    if isinstance(given, str) and given.strip() and "\n" not in given and len(given) <= 200:
        return given
    return None


def call_title(part: ToolCallPart) -> tuple[str | None, str | None, str]:
    """What a call's title says: its description (prose, ``call_description``), its
    summary, one line saying what the call did (the description, else
    ``argument_summary``), and the mark that ends the summary where it was cut ("…" at
    its length, " …" after a command's first line of several; else nothing). The
    description is read once: this runs for every call."""
    description = call_description(part)
    if description:
        return description, description, ""
    summary = argument_summary(part)
    if summary is None:
        return None, None, ""
    text, cut = summary
    return None, text + cut, cut


def subagent_task(part: ToolCallPart) -> str | None:
    """What a subagent call asked its agent to do, as each source names it: Claude Code's
    and OpenCode's ``prompt``, Gemini's ``objective``, Codex's ``message`` (spawn_agent)."""
    task = text_field(part.input, "prompt") or text_field(part.input, "objective")
    return task or (text_field(part.input, "message") if part.subagent_id else None)


def subagent_kind(part: ToolCallPart) -> str | None:
    """The kind of agent a subagent call started: ``subagent_type`` (Claude Code, OpenCode),
    ``agent_type`` (Copilot CLI)."""
    return text_field(part.input, "subagent_type") or text_field(part.input, "agent_type")


def text_field(value: Any, key: str) -> str | None:
    """A tool input's text argument ``key``, or None."""
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, str) else None


def argument_summary(part: ToolCallPart) -> tuple[str, str] | None:
    """A call's main argument (machine text: a command, path or pattern, shown as code so
    search finds it), else the files a patch changes (Codex's ``apply_patch``); with the
    mark of a cut (``_clipped``)."""
    if isinstance(part.input, dict):
        for key in _SUMMARY_KEYS:
            value = part.input.get(key)
            if isinstance(value, str) and value.strip():
                first, *more = value.strip().split("\n", 1)
                return _clipped(first, bool(more))
        listed = _listed_subject(part.input)
        if listed:
            return listed
    files = patch_files(part.input)
    return _clipped(", ".join(files)) if files else None


def _listed_subject(value: dict[str, Any]) -> tuple[str, str] | None:
    """The subject of a call given a list (Cline 4's ``read_files``: ``files`` of
    ``{path, …}``; Gemini CLI's ``read_many_files``: ``paths``; ``run_commands``:
    ``commands``): the files' paths, or the first command's first line, with the cut's
    mark when more commands or lines follow."""
    files = value.get("files") if isinstance(value.get("files"), list) else value.get("paths")
    if isinstance(files, list):
        paths = [f.get("path") if isinstance(f, dict) else f for f in files]
        named = [p.strip() for p in paths if isinstance(p, str) and p.strip()]
        if named:
            return _clipped(", ".join(named))
    commands = value.get("commands")
    if isinstance(commands, list):
        said = [c.strip() for c in commands if isinstance(c, str) and c.strip()]
        if said:
            first, *more = said[0].split("\n", 1)
            return _clipped(first, bool(more) or len(said) > 1)
    return None


SUMMARY_LENGTH = 120


def _clipped(line: str, more: bool = False) -> tuple[str, str]:
    """A title's argument, and "…" where it was cut (at its length, or " …" after a
    command's first line of several): a path or command cut short must not read as whole,
    another file or a command that does less (``rm -rf /srv/app`` of
    ``rm -rf /srv/app/build``). The mark is apart so that a note shows it after the code."""
    if len(line) > SUMMARY_LENGTH:
        return line[: SUMMARY_LENGTH - 1].rstrip(), "…"
    return (line.rstrip(), " …") if more else (line, "")


# Codex's apply_patch (a tool of its own, or a shell command): one header per file.
_PATCH_FILE = re.compile(
    r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.MULTILINE
)


def patch_files(value: Any) -> list[str]:
    """The files a Codex patch in a tool input changes (the input a patch, or a shell
    command's words holding one), in order; none for any other input."""
    if isinstance(value, dict):
        value = value.get("command", value.get("input", value.get("patch")))
    if isinstance(value, list):
        value = "\n".join(v for v in value if isinstance(v, str))
    if not isinstance(value, str) or "*** Begin Patch" not in value:
        return []
    return [a or b for a, b in _PATCH_FILE.findall(value)]


_LANG_BY_EXT = {
    "py": "python", "js": "javascript", "ts": "typescript", "tsx": "tsx", "jsx": "jsx",
    "rs": "rust", "go": "go", "md": "markdown", "json": "json", "yaml": "yaml", "yml": "yaml",
    "toml": "toml", "sh": "sh", "html": "html", "css": "css", "java": "java", "rb": "ruby",
    "c": "c", "h": "c", "cpp": "cpp", "sql": "sql",
}  # fmt: skip


_LANG_BY_MEDIA = {
    "text/x-diff": "diff", "text/x-patch": "diff", "application/json": "json",
    "application/xml": "xml", "text/xml": "xml", "application/yaml": "yaml",
    "application/x-yaml": "yaml", "application/toml": "toml", "application/sql": "sql",
    "application/x-sh": "sh", "text/markdown": "markdown", "text/html": "html",
}  # fmt: skip
# A line span after a file's name, as selections carry it: "app.py:12-20", "app.py#L3-L9".
_SPAN = re.compile(r"(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?)$")


def lang_of_file(name: str, media_type: str = "") -> str:
    """The code block language for a file's text: from its name's extension, else from its
    media type, else plain ``text``."""
    base = _SPAN.sub("", name.strip()).rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    ext = base.rsplit(".", 1)[-1].lower() if "." in base else ""
    media = media_type.split(";", 1)[0].strip().lower()
    return _LANG_BY_EXT.get(ext) or _LANG_BY_MEDIA.get(media) or "text"


# Arguments that hold code or file text, shown as code in the file's language even on one
# line (among the other arguments it would be a quoted value, not code): Claude Code's and Gemini's
# old_string, OpenCode's and Copilot's oldString, Cline's old_text, an editor's file_text.
_CODE_KEYS = {
    "content", "contents", "new_string", "old_string", "code", "patch", "new_source",
    "oldString", "newString", "old_text", "new_text", "old_str", "new_str", "file_text",
}  # fmt: skip


# A unified diff given as an argument (Cline's replace_in_file ``diff``, a hunk or a file
# header first): highlighted as a diff, not in the language of the file it changes.
# Codex's patch format (``*** Begin Patch``, as Cursor's apply_patch takes it too) is one.
_UNIFIED_DIFF = re.compile(
    r"\s*(?:@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@|--- \S.*\n\+\+\+ \S|\*\*\* Begin Patch)"
)


# Arguments written in Markdown: a plan the assistant presents (Claude Code's ExitPlanMode).
_PROSE_KEYS = {"plan"}


def _tool_lang(tool: str) -> str:
    """The language a tool runs its code in, when its name says it and no path gives one:
    JavaScript for Codex's freeform ``js_repl`` and an MCP server's ``js`` tool
    (``mcp__node_repl__js``, which Codex Desktop calls with a ``code`` argument)."""
    name = tool.lower().rpartition("__")[2]
    return "javascript" if name in ("js_repl", "js", "javascript") else "text"


def input_blocks(value: Any, tool: str = "", shown: str | None = None) -> list[dict[str, str]]:
    """A tool's input as code blocks: long text fields on their own, the rest as YAML; an
    argument left out only when the call's title shows it whole (``shown``, the title's
    summary): a ``description`` other than the title's is kept, as is a path the title
    cuts short."""
    if isinstance(
        value, str
    ):  # (blank: a call given no input, which an empty block shows no better)
        lang = "diff" if "patch" in tool else _tool_lang(tool)
        return [{"label": "", "text": value, "lang": lang}] if value.strip() else []
    if not isinstance(value, dict):
        return (
            [{"label": "", "text": arguments_yaml(value), "lang": "yaml"}]
            if value is not None
            else []
        )
    path = next((value[k] for k in _PATH_KEYS if isinstance(value.get(k), str)), "")
    ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    code_lang = _LANG_BY_EXT.get(ext) or _tool_lang(tool)
    rest = {}
    blocks = []
    for key, item in value.items():
        if key == "description" and shown is not None and item == shown:
            continue  # shown in the call's title
        if key in ("command", "cmd", "CommandLine") and isinstance(item, str):
            lang = "powershell" if tool.lower() in ("powershell", "pwsh") else "sh"
            blocks.append({"label": "", "text": item, "lang": lang})
        elif isinstance(item, str) and "\n" in item and _UNIFIED_DIFF.match(item):
            # (a patch has lines; one line that starts as one, a path say, is no patch)
            blocks.append({"label": key, "text": item, "lang": "diff"})
        elif isinstance(item, str) and key in _PROSE_KEYS and "\n" in item:
            blocks.append({"label": key, "text": item, "lang": "markdown"})
        elif isinstance(item, str) and key in _CODE_KEYS:
            blocks.append({"label": key, "text": item, "lang": code_lang})
        elif isinstance(item, str) and ("\n" in item or len(item) > 200):
            blocks.append({"label": key, "text": item, "lang": _LANG_BY_EXT.get(ext, "text")})
        elif _holds_code(item):
            # A list of edits (MultiEdit): each one's code on its own, as an Edit's is.
            others = _code_of_each(key, item, _LANG_BY_EXT.get(ext, "text"), blocks)
            if any(others):
                rest[key] = others
        else:
            rest[key] = item
    if rest and set(rest) - {_primary_key(value, shown)}:
        blocks.insert(0 if not blocks or blocks[0]["lang"] not in ("sh", "powershell") else 1,
                      {"label": "", "text": arguments_yaml(rest), "lang": "yaml"})  # fmt: skip
    return blocks


def _holds_code(item: Any) -> bool:
    """A list of edits, each holding the text it replaces and the new text (``[{old_string,
    new_string}, …]``; not a to-do list's items, whose ``content`` is prose)."""
    return (
        isinstance(item, list)
        and bool(item)
        and all(isinstance(e, dict) and _EDIT_KEYS <= e.keys() for e in item)
        and all(isinstance(e[k], str) for e in item for k in _EDIT_KEYS)
    )


_EDIT_KEYS = {"old_string", "new_string"}


def _code_of_each(
    key: str, entries: list[dict[str, Any]], lang: str, blocks: list[dict[str, str]]
) -> list[dict[str, Any]]:
    """Add each entry's code to ``blocks`` (labelled ``edits[0].old_string``); return the
    entries' other fields."""
    others = []
    for n, entry in enumerate(entries):
        other = {}
        for field, text in entry.items():
            if field in _CODE_KEYS and isinstance(text, str):
                blocks.append({"label": f"{key}[{n}].{field}", "text": text, "lang": lang})
            else:
                other[field] = text
        others.append(other)
    return others


def _primary_key(value: dict[str, Any], shown: str | None) -> str | None:
    """The argument the call's title already shows whole (``shown``: its description, or
    its main argument when short enough to be shown whole; OpenCode titles a call by its
    path): left out of the YAML. One the title shows cut short stays."""
    if not shown:
        return None
    return next((k for k, v in value.items() if v == shown), None)


# Tools that write the assistant's plan or to-do list (Claude Code, Codex, Cursor, Gemini CLI,
# OpenCode, Copilot CLI, VS Code Copilot), and where each keeps the list and an item's text.
TODO_TOOLS = {"todowrite", "todo_write", "update_plan", "write_todos", "update_todo",
              "manage_todo_list"}  # fmt: skip
_TODO_LISTS = ("todos", "plan", "todoList")
_TODO_TEXTS = ("content", "step", "title", "description", "text")
_DONE = {"completed", "complete", "done", "todo_status_completed"}
_CHECKBOX = re.compile(r"^\s*[-*+]\s+\[([ xX])\]\s+(.*\S)")


def todo_items(part: ToolCallPart) -> list[dict[str, Any]] | None:
    """The to-do list a plan tool wrote: [{text, done, status}], or None for other calls
    (and for a list with no readable item, which is then shown as an ordinary call)."""
    if part.name.lower() not in TODO_TOOLS or not isinstance(part.input, dict):
        return None
    found = next((part.input[k] for k in _TODO_LISTS if k in part.input), None)
    items: list[dict[str, Any]] = []
    if isinstance(found, str):  # a Markdown checklist already (Copilot CLI)
        for line in found.splitlines():
            if m := _CHECKBOX.match(line):
                done = m.group(1) != " "
                items.append({"text": m.group(2), "done": done,
                              "status": "completed" if done else "pending"})  # fmt: skip
    elif isinstance(found, list):
        for entry in found:
            if not isinstance(entry, dict):
                continue
            text = next((entry[k] for k in _TODO_TEXTS if isinstance(entry.get(k), str)), "")
            if not text.strip():
                continue
            status = entry.get("status")
            status = status if isinstance(status, str) else ""
            status = status.lower().removeprefix("todo_status_").replace("-", "_")
            done = status in _DONE or entry.get("completed") is True or entry.get("done") is True
            items.append({"text": text, "done": done, "status": "completed" if done else status})
    return items or None
