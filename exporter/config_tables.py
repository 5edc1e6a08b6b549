"""The tables of a settings file (``[frontmatter]``, ``[prices]``, ``[daily]``,
``[redact]``, and the check that a table holds only keys it takes), each read into
``Settings`` or refused with the key and why (``fail``: the file's ConfigError, naming
the key's line)."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from .config_file import KeyPath, key_lines, key_name, table_headers
from .config_values import did_you_mean, nearest

if TYPE_CHECKING:
    from .config import Settings


def check_table(value: Any, path: KeyPath, keys: tuple[str, ...], fail: Any, takes: str) -> None:
    """``value`` is a table of some of ``keys``, else the error: for a key the table does not
    take, that key (``'index.dataviw'``) on its own line, the key it may have meant, and what
    the table takes (``takes``)."""
    if not isinstance(value, dict):
        raise fail(path, takes)
    for key in value:
        if key not in keys:
            raise fail(
                (*path, key),
                misplaced(path, key, keys, fail.text)
                or f"is not a setting ccexport knows{did_you_mean(key, keys)}; "
                f"'{key_name(path)}' {takes}",
            )


def misplaced(path: KeyPath, key: str, keys: Collection[str] | None, text: str) -> str | None:
    """Why ``key``, which the table at ``path`` does not take, is in it, when it is a
    top-level setting (or a typo of one, and of none of the table's ``keys``; None: the
    table's keys are names of any kind, a typo is not told from one): a line added at the
    end of the file, below the last ``[table]`` header, is in that table for TOML. Said
    with the header's line and the first table's, above which it goes."""
    from .config import setting_names

    names = setting_names()
    if key in names:
        said = f"is the top-level setting '{key}'"
    elif keys is not None and (near := nearest(key, names)) and not nearest(key, keys):
        said = f"is not a setting ccexport knows (did you mean the top-level setting '{near}'?)"
    else:
        return None
    headers, below = _header_above(path, key, text)
    if below is None or below[1] != tuple(path):  # a dotted key, an inline table
        return f"{said}, not a key of '{key_name(path)}': write it outside the table"
    first = headers[0]
    goes = "that header" if first == below else f"the first table ({first[2]}, line {first[0]})"
    return (
        f"{said}; it is written below {below[2]} (line {below[0]}), so TOML puts it in that "
        f"table: move it above {goes}"
    )


_IDENTITY_KEYS = frozenset({"source", "session_id", "part", "ccexport_index"})


def apply_frontmatter(s: Settings, value: Any, fail: Any) -> None:
    takes = "takes 'add' (a table of properties), 'drop' (a list) and 'project_tag' (a tag)"
    check_table(value, ("frontmatter",), ("add", "drop", "project_tag"), fail, takes)
    if "project_tag" in value:
        s.project_tag = _project_tag(value["project_tag"], fail)
    add = value.get("add", {})
    if not isinstance(add, dict):
        raise fail("frontmatter.add", "must map property names to values or {{ expressions }}")
    for name, given in add.items():
        if not isinstance(given, str | int | float | bool | list):
            raise fail(
                ("frontmatter", "add", name),
                "must be a string, a number, true or false, a list, or a {{ expression }}",
            )
    for name in add:
        if said := _setting_below_add(name, fail.text):
            raise fail(("frontmatter", "add", name), said)
        if said := _expression_syntax_error(add[name]):
            raise fail(("frontmatter", "add", name), said)
    named = sorted(_IDENTITY_KEYS & set(add))
    if named:
        raise fail(
            "frontmatter.add",
            f"cannot set {', '.join(repr(k) for k in named)}: they say which note a session's is",
        )
    drop = value.get("drop", [])
    if not isinstance(drop, list) or not all(isinstance(d, str) for d in drop):
        raise fail("frontmatter.drop", "must be a list of property names")
    if {"source", "session_id"} & set(drop):
        raise fail(
            "frontmatter.drop",
            "cannot drop 'source' or 'session_id': they say which session a note is",
        )
    s.frontmatter_add.update(add)
    s.frontmatter_drop = list(dict.fromkeys([*s.frontmatter_drop, *drop]))


# A tag as Obsidian reads one: letters, digits, "_" and "-", in segments parted by "/".
_TAG = re.compile(r"[\w-]+(?:/[\w-]+)*")


def _project_tag(value: Any, fail: Any) -> str | bool:
    """``[frontmatter] project_tag``: the tag the project's goes below (``"project"`` gives
    ``project/<name>``), or false for no project tag. A prefix Obsidian would not read as
    one tag (a space ends it, a ``#`` starts another) is refused rather than written."""
    where = ("frontmatter", "project_tag")
    takes = 'must be a tag such as "ai/project", or false for no project tag'
    if value is False:
        return False
    if not isinstance(value, str):
        raise fail(where, takes)
    if not value:
        raise fail(where, f"is empty: {takes}")
    if value.startswith("#"):
        raise fail(where, f"is written without its '#': project_tag = {value.lstrip('#')!r}")
    if value.startswith("/") or value.endswith("/") or "//" in value:
        raise fail(where, f"cannot start or end with '/', nor hold '//': {takes}")
    if not _TAG.fullmatch(value):
        bad = sorted({c for c in value if not re.fullmatch(r"[\w/-]", c)})
        shown = ", ".join("a space" if c.isspace() else repr(c) for c in bad)
        raise fail(where, f"holds {shown}, which a tag cannot: {takes}")
    # Obsidian finds a nested tag under its parent, case aside: below these, a project's
    # tag would mark session notes as index notes, or be one of the tags ccexport marks
    # every session note with (review38 M1).
    for taken in ("ai-session-index", "ai-session"):
        if value.casefold() == taken or value.casefold().startswith(f"{taken}/"):
            raise fail(where, f"cannot be {taken!r} or below it (ccexport's own tag): {takes}")
    return value


def _header_above(
    path: KeyPath, key: str, text: str
) -> tuple[list[tuple[int, KeyPath, str]], tuple[int, KeyPath, str] | None]:
    """The text's table headers, and the last one above the line setting ``path.key`` (None
    when no header is above it, or the key is not found)."""
    headers = table_headers(text)
    line = key_lines(text).get((*path, key))
    above = [h for h in headers if line is not None and h[0] < line]
    return headers, above[-1] if above else None


def _expression_syntax_error(value: Any) -> str | None:
    """Why a ``{{ expression }}`` value of ``add`` cannot be read as a template (``"{{
    title"``), or None: said when the config is read, as every other bad value is, not as
    an error (or, for a session whose end is not known, a warning) of every note."""
    if not (isinstance(value, str) and "{{" in value):
        return None
    import jinja2

    try:
        jinja2.Environment().parse(value)
    except jinja2.TemplateSyntaxError as exc:
        return f"is not a valid {{{{ expression }}}}: {exc.message}"
    return None


def _setting_below_add(name: str, text: str) -> str | None:
    """A top-level setting's name (``timezone``) as a key below a ``[frontmatter.add]``
    header: a line added at the end of the file, which TOML made a property of every note
    (and, once given, a property stays). None for any other key, and for one written in
    ``add = { … }``, which says what it means."""
    from .config import setting_names

    if name not in setting_names():
        return None
    _headers, below = _header_above(("frontmatter", "add"), name, text)
    if below is None or below[1] != ("frontmatter", "add"):
        return None
    said = misplaced(("frontmatter", "add"), name, None, text)
    return (
        f"{said}; to add a property of that name, write it in 'add = {{ … }}' under [frontmatter]"
    )


def apply_properties(s: Settings, key: str, value: Any, fail: Any) -> None:
    """``[prices]`` (model pattern -> prices), ``daily_notes = true|false`` and ``[daily]``
    (``enabled``, ``folder``, ``format``)."""
    from .prices import KINDS, check_entry

    if key == "prices":
        if not isinstance(value, dict):
            raise fail(key, 'must be a table such as [prices."claude-sonnet-4-5*"]')
        for pattern, entry in value.items():
            if not isinstance(entry, dict) and (why := misplaced((key,), pattern, None, fail.text)):
                raise fail((key, pattern), why)
            for kind in entry if isinstance(entry, dict) else ():
                if kind not in KINDS and (why := misplaced((key, pattern), kind, KINDS, fail.text)):
                    raise fail((key, pattern, kind), why)
            problem = check_entry(entry)
            if problem:
                sub, why = problem
                raise fail(("prices", pattern) if sub is None else ("prices", pattern, sub), why)
        s.prices.update(value)
        return
    if key == "daily_notes":
        value = {"enabled": value}
    takes = "takes 'enabled' (true or false), 'folder' and 'format'"
    check_table(value, ("daily",), ("enabled", "folder", "format"), fail, takes)
    if "enabled" in value and not isinstance(value["enabled"], bool):
        where = "daily_notes" if key == "daily_notes" else "daily.enabled"
        raise fail(where, "must be true or false")
    for sub in ("folder", "format"):
        if sub in value and not isinstance(value[sub], str):
            raise fail(f"daily.{sub}", "must be a string")
    if "folder" in value and ".." in value["folder"].replace("\\", "/").split("/"):
        raise fail("daily.folder", "must be a folder inside the vault")
    s.daily_notes = value.get("enabled", s.daily_notes)
    s.daily_folder = value["folder"].strip().strip("/") if "folder" in value else s.daily_folder
    s.daily_format = value.get("format") or s.daily_format


def apply_redact(s: Settings, value: Any, fail: Any) -> None:
    """``redact = false``, or a ``[redact]`` table: ``enabled``, ``extra`` rules, ``allow``."""
    from .redact_rules import Rule, RuleError, compile_rule

    if isinstance(value, bool):
        s.redact = value
        return
    takes = "takes true or false, or a table of 'enabled', 'extra', 'allow'"
    check_table(value, ("redact",), ("enabled", "extra", "allow"), fail, takes)
    if not isinstance(value.get("enabled", True), bool):
        raise fail("redact.enabled", "must be true or false")
    s.redact = value.get("enabled", s.redact)
    allow = value.get("allow", [])
    if not isinstance(allow, list) or not all(isinstance(a, str) and a for a in allow):
        raise fail("redact.allow", "must be a list of strings never to redact")
    s.redact_allow = list(dict.fromkeys([*s.redact_allow, *allow]))
    extra = value.get("extra", [])
    if not isinstance(extra, list):
        raise fail("redact.extra", 'must be a list of tables such as {id = "…", pattern = "…"}')
    rules = {r.id: r for r in s.redact_extra}
    for n, item in enumerate(extra):
        key = f"redact.extra[{n}]"
        takes = "takes 'id', 'pattern' and optionally 'keywords' and 'entropy'"
        check_table(
            item, ("redact", "extra", n), ("id", "pattern", "keywords", "entropy"), fail, takes
        )
        rule_id, pattern = item.get("id"), item.get("pattern")
        if not isinstance(rule_id, str) or not re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", rule_id):
            raise fail(f"{key}.id", "must be a name of lower-case letters, digits and '-'")
        if not isinstance(pattern, str) or not pattern:
            raise fail(f"{key}.pattern", "must be a regular expression (RE2 syntax)")
        keywords = item.get("keywords", [])
        if not isinstance(keywords, list) or not all(isinstance(k, str) and k for k in keywords):
            raise fail(f"{key}.keywords", "must be a list of words")
        entropy = item.get("entropy")
        if isinstance(entropy, bool) or not isinstance(entropy, int | float | None):
            raise fail(f"{key}.entropy", "must be a number of bits per character, such as 3.5")
        rule = Rule(rule_id, tuple(keywords), pattern, entropy, near=False, fold=True)
        try:
            compile_rule(rule)
        except RuleError as exc:
            raise fail(f"{key}.pattern", f"is not a valid pattern: {exc}") from None
        rules[rule_id] = rule
    s.redact_extra = list(rules.values())
