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
from .render import _short_model

PROJECT_TEMPLATE_SHA256 = "64dbe0e917319feebc37741769a0125b5dad6042b85aef0682a00e7f041dc1b7"
PROJECTS_TEMPLATE_SHA256 = "8ea7657d72e292fcf5a8ecc187f1a9ef505a93cd59dcfbeb6043f8d814e23370"
# A project's last activity in Dataview, as ``index._latest`` reads it: each note's last
# message, else its start (``max`` passes over a note with neither).
_LATEST = "max(map(rows, (r) => default(r.updated, r.created)))"


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
                shown = models[model] = escape_inline(_short_model(model))
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
            f'\n```dataview\nTABLE source, created, messages\nFROM "{folder}"\n'
            f'WHERE project = "{quoted}" AND !ccexport_index\nSORT created DESC\n```\n'
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
            f"\n```dataview\nTABLE length(rows) AS sessions, {_LATEST} AS latest\n"
            f'FROM "{folder}"\nWHERE project AND !ccexport_index\nGROUP BY project\n'
            f"SORT {_LATEST} DESC\n```\n"
        )
    return "".join(out)
