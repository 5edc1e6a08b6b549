"""The shipped index templates (``project_index.md.j2``, ``projects_index.md.j2``) written
out in Python: the same bytes, without importing Jinja at the end of a run (a twentieth of
a second, which a nightly run with one changed session would pay for its index notes).

Used only while the shipped files are the ones in effect (``shipped_template_in_effect``)
and every value is of the kind the exporter writes; anything else (a property edited to a
list, say) goes through Jinja, errors and all. ``tests/test_index_body.py`` compares both
ways on generated indexes.
"""

from __future__ import annotations

from typing import Any

from .markdown import escape_inline
from .render import short_model_name

PROJECT_TEMPLATE_SHA256 = "e46fd59c957c3e560e8e9eecb5b62772bf04eb71f92127594923464530666627"
PROJECTS_TEMPLATE_SHA256 = "4605f89c6e6b9a4ce10f065b7045f6d6059dd09722323867974f83692996510d"
# A project's last activity in Dataview, as ``index._latest`` reads it: each note's last
# message, else its start (``max`` passes over a note with neither).
_LATEST = "max(map(rows, (r) => default(r.updated, r.created)))"
# What the lists count as a session: not a subagent's note, nor a long session's later part.
_SESSIONS = "length(filter(rows, (r) => !r.parent AND (!r.part OR r.part = 1)))"
# A project's sessions in Dataview, each a group of its part notes (one, when it fits one
# note), as its list line gives it: its first part's link, source and start, and the messages
# of all its parts up to the one it ends in (``index.session_messages``: a part left past it,
# one the person edited, is not counted). A lambda sees the group's ``rows`` (Dataview's
# lambdas capture the row they are evaluated in).
_FIRST = "minby(rows, (r) => default(r.part, 1))"
_END = "min(map(filter(rows, (p) => !p.next_part), (p) => default(p.part, 1)))"
_MESSAGES = f"sum(map(filter(rows, (r) => default(r.part, 1) <= {_END}), (r) => r.messages))"
_PROJECT_TABLE = (
    f"TABLE WITHOUT ID {_FIRST}.file.link AS session, {_FIRST}.source AS source, "
    f"{_FIRST}.created AS created, {_MESSAGES} AS messages"
)


def project_index_body(c: dict[str, Any]) -> str | None:
    """``project_index.md.j2`` rendered, or None when a value is not of the plain kind."""
    project, folder = c["project"], c["folder"]
    if not (isinstance(project, str) and isinstance(folder, str)):
        return None
    out = [f"# {escape_inline(project)}\n\nSessions of this project from every assistant, "
           "newest first.\n\n"]  # fmt: skip
    models: dict[str, str] = {}  # each model's label escaped once: a project has few
    for s in c["sessions"]:
        created, link, label = s["created"], s["link"], s["source_label"]
        model, messages = s["model"], s["messages"]
        if not (
            (created is None or isinstance(created, str))
            and isinstance(link, str)
            and isinstance(label, str)
            and isinstance(model, str)
            and (messages is None or type(messages) is int)
        ):
            return None
        line = f"- {(created or 'undated')[:10]} · {link} · {label}"
        if model:
            shown = models.get(model)
            if shown is None:
                shown = models[model] = escape_inline(short_model_name(model))
            line += " · " + shown
        if messages:
            line += f" · {messages} messages"
        out.append(line + "\n")
    if c["dataview"]:
        # A Dataview string: its escapes, and no line break (a line of backticks in a
        # project's name would close the block, and the rest of it be live Markdown).
        quoted = project.replace("\\", "\\\\").replace('"', '\\"')
        quoted = quoted.replace("\r", " ").replace("\n", " ")
        out.append(
            f'\n```dataview\n{_PROJECT_TABLE}\nFROM "{folder}"\n'
            f'WHERE project = "{quoted}" AND !ccexport_index AND !parent\n'
            f'GROUP BY source + ":" + session_id\nSORT {_FIRST}.created DESC\n```\n'
        )
    return "".join(out)


def projects_index_body(c: dict[str, Any]) -> str | None:
    """``projects_index.md.j2`` rendered, or None when a value is not of the plain kind."""
    folder = c["folder"]
    if not isinstance(folder, str):
        return None
    out = ["# AI sessions by project\n\n"]
    for p in c["projects"]:
        link, sessions, sources, latest = p["link"], p["sessions"], p["sources"], p["latest"]
        if not (
            isinstance(link, str)
            and type(sessions) is int
            and isinstance(sources, list)
            and all(isinstance(s, str) for s in sources)
            and isinstance(latest, str)
        ):
            return None
        plural = "s" if sessions != 1 else ""
        out.append(
            f"- {link} · {sessions} session{plural} · {', '.join(sources)} · "
            f"latest {latest or 'undated'}\n"
        )
    if c["dataview"]:
        out.append(
            f"\n```dataview\nTABLE {_SESSIONS} AS sessions, {_LATEST} AS latest\n"
            f'FROM "{folder}"\nWHERE project AND !ccexport_index\nGROUP BY project\n'
            f"SORT {_LATEST} DESC\n```\n"
        )
    return "".join(out)
