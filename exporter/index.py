"""Index notes that make a vault of many sessions navigable: one note per project listing
its sessions from every source, newest first, and one note listing the projects.

They are built from the notes in the vault, not from one machine's state: sessions whose
sources were not read this run are listed, and so are those another machine exported into
the same synced vault; both machines write the same bytes, so they never flip-flop (a note
this machine wrote and nobody changed since is described from the state, unread). They are
rendered from templates like session notes and written through the same vault rules:
regenerated in their owned region, the user's text outside it kept, identical bytes never
rewritten.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import PurePosixPath
from typing import Any

from . import notefile
from .notespec import SOURCE_LABELS, NoteSettings
from .render import TemplateError, render, shipped_template_in_effect
from .vault import Action, Change, Vault

Notes = dict[str, tuple[str, dict[str, Any]]]  # every note of a vault: key -> (path, meta)

INDEX_PREFIX = notefile.INDEX_PREFIX  # (the keys of index notes, as their identities read)
_PROJECT_KEY = f"{INDEX_PREFIX}project/"
INDEX_TAG = "ai-session-index"  # outside the ai-session tree: `FROM #ai-session` lists sessions
PROJECT_TEMPLATE = "project_index.md.j2"
PROJECTS_TEMPLATE = "projects_index.md.j2"


def note_meta(frontmatter: dict[str, Any]) -> dict[str, Any]:
    """What an index lists about a session note (kept in the state between runs)."""
    return {
        "title": frontmatter.get("title"),
        "source": frontmatter.get("source"),
        "project": frontmatter.get("project"),
        "created": _time(frontmatter.get("created")),
        "updated": _time(frontmatter.get("updated")),  # its last message
        "models": list(frontmatter.get("models") or []),
        "messages": frontmatter.get("messages"),
        "parent": bool(frontmatter.get("parent")),
        "part": frontmatter.get("part"),
        "next_part": bool(frontmatter.get("next_part")),  # (a part the session goes on from)
    }


def _time(value: Any) -> str | None:
    """A time property as text: a date too (Obsidian's Date type writes ``2026-04-09``), and
    anything else typed by hand (a number, say) as it reads."""
    if isinstance(value, date):
        return value.isoformat()
    return value if value is None or isinstance(value, str) else str(value)


def note_stem(path: str) -> str:
    """``PurePosixPath(path).stem``, without making a path of each of a vault's notes (a
    tenth of a second for 20,000) where the answer is plain: a name ending ``.md``."""
    name = path.rpartition("/")[2]
    if len(name) > 3 and name.endswith(".md"):
        return name[:-3]
    return PurePosixPath(path).stem


def write_index_notes(
    vault: Vault, settings: NoteSettings, dataview: bool, found: Notes | None = None
) -> tuple[list[Change], list[TemplateError]]:
    """Render and write every project's index note and the index of projects (``found``:
    every note of the vault, if the caller surveyed it already). A note its template fails
    on is left as it is and its error returned; the others are written."""
    notes = found if found is not None else vault.notes(note_meta)
    if not notes:
        return [], []  # a vault without notes has no index to write

    projects: dict[str, list[dict[str, Any]]] = {}
    indexed: set[str] = set()  # the projects with an index note in the vault
    later: dict[str, list[dict[str, Any]]] = {}  # per project, its sessions' later parts
    parts: dict[str, dict[int, dict[str, Any]]] = {}  # a first part's key -> its later parts
    firsts: dict[str, dict[str, Any]] = {}  # the entries of first parts, by key
    for key, (path, meta) in notes.items():
        if key.startswith(_PROJECT_KEY):
            indexed.add(key.removeprefix(_PROJECT_KEY))
        if key.startswith(INDEX_PREFIX) or not meta or meta.get("parent"):
            continue  # subagents are reached from their parent's note
        if meta.get("part") not in (None, 1):
            # A later part of a long session, reached from its first part: its last message
            # is the session's (for the project's ``updated``).
            later.setdefault(str(meta.get("project") or "unknown-project"), []).append(meta)
            first, _, number = key.rpartition("#part")
            if first and number.isdigit():
                parts.setdefault(first, {})[int(number)] = meta
            continue
        entry = session_entry(path, meta)
        projects.setdefault(str(meta.get("project") or "unknown-project"), []).append(entry)
        if meta.get("part") == 1:
            firsts[key] = entry
    for key, entry in firsts.items():
        entry["messages"] = session_messages(entry, parts.get(key, {}))
    changes: list[Change] = []
    failures: list[TemplateError] = []
    summary = []
    # A project whose last note was deleted keeps its index note, listing none: left as it
    # was, it would link to the deleted note.
    for project in sorted(projects.keys() | indexed, key=str.lower):
        sessions = sorted(  # the link breaks ties: every machine lists them in one order
            projects.get(project, []),
            key=lambda e: (str(e.get("created") or ""), str(e["link"])),
            reverse=True,
        )
        updated = _latest([*sessions, *later.get(project, [])])
        key = f"{INDEX_PREFIX}project/{project}"
        proposed = f"{settings.folder}/Projects/{_component(project)}.md"
        relpath = vault.choose_path(key, proposed)
        context = {
            "project": project,
            "sessions": sessions,
            "dataview": dataview,
            "folder": settings.folder,
        }
        body = _body(PROJECT_TEMPLATE, context, settings, failures)
        fm = {
            "title": f"{project} · AI sessions",
            "ccexport_index": f"project/{project}",
            "project": project,
            "sessions": len(sessions),
            "updated": updated,
            "tags": [INDEX_TAG],
        }
        deleted = False  # the person deleted this project's index: listed, not linked
        if body is not None:
            fm = {k: v for k, v in fm.items() if v is not None}
            changes.append(vault.write_note(key, relpath, fm, body))
            deleted = changes[-1].action is Action.DELETED
        if not sessions:
            continue  # (not in the list of projects)
        link = None if deleted else relpath.removesuffix(".md")
        summary.append(project_entry(project, link, sessions, updated))
    if projects or indexed:
        key = f"{INDEX_PREFIX}projects"
        relpath = vault.choose_path(key, f"{settings.folder}/Projects.md")
        context = {"projects": summary, "dataview": dataview, "folder": settings.folder}
        body = _body(PROJECTS_TEMPLATE, context, settings, failures)
        fm = {
            "title": "AI sessions by project",
            "ccexport_index": "projects",
            "tags": [INDEX_TAG],
        }
        if body is not None:
            changes.append(vault.write_note(key, relpath, fm, body))
    return changes, failures


def session_entry(path: str, meta: dict[str, Any]) -> dict[str, Any]:
    """What a project's index template gets of one session note (``note_meta``, a link)."""
    from . import markdown

    entry = {**meta, "link": markdown.wikilink(note_stem(path), meta.get("title"))}
    entry["source_label"] = SOURCE_LABELS.get(str(meta.get("source")), meta.get("source"))
    entry["model"] = (meta.get("models") or [""])[0]
    return entry


def session_messages(first: dict[str, Any], later: dict[int, dict[str, Any]]) -> Any:
    """The messages of a session in parts, for the line that links its first part: those of
    all its parts (the first part's alone read as the session's count). Parts numbered past
    the first one the session does not go on from are left out: a larger limit joined the
    session into fewer parts, and left those in place."""
    total = first.get("messages")
    if type(total) is not int or not first.get("next_part"):
        return total  # (a count typed by hand, or a state kept before ``next_part``)
    for number in sorted(later):
        meta = later[number]
        count = meta.get("messages")
        total += count if type(count) is int else 0
        if not meta.get("next_part"):
            break
    return total


def project_entry(
    project: str, link: str | None, sessions: list[dict[str, Any]], updated: datetime | None
) -> dict[str, Any]:
    """What the index of projects gets of one project; ``link``: its index note's path
    without ``.md``, None when the person deleted it (listed, not linked)."""
    from . import markdown

    return {
        "project": project,
        "link": markdown.escape_inline(project)
        if link is None
        else markdown.wikilink(link, project),
        "sessions": len(sessions),
        "sources": sorted({str(s["source_label"]) for s in sessions}),
        "latest": _day(updated, sessions[0].get("created")),
    }


def _body(
    name: str, context: dict[str, Any], settings: NoteSettings, failures: list[TemplateError]
) -> str | None:
    """An index note's body through its template; the shipped one, when in effect, written
    by ``index_body`` (the same bytes, without Jinja). None, the error added to
    ``failures``, when the template fails on it."""
    from . import index_body  # each shipped template's digest, and its bytes in Python

    digest, write = {
        PROJECT_TEMPLATE: (index_body.PROJECT_TEMPLATE_SHA256, index_body.project_index_body),
        PROJECTS_TEMPLATE: (index_body.PROJECTS_TEMPLATE_SHA256, index_body.projects_index_body),
    }[name]
    if shipped_template_in_effect(name, settings.templates, digest):
        body = write(context)
        if body is not None:
            return body
    try:
        return render(name, context, settings.templates)
    except TemplateError as exc:
        failures.append(exc)
        return None


def _latest(sessions: list[dict[str, Any]]) -> datetime | None:
    """The project's latest activity: the last message of any of its sessions (a session
    resumed days after it began is later than one begun since), else the newest start."""
    latest = None
    for session in sessions:
        for value in (session.get("updated"), session.get("created")):
            try:
                when = datetime.fromisoformat(value) if isinstance(value, str) else None
            except ValueError:
                when = None
            if when is not None:
                if latest is None or _comparable(when) > _comparable(latest):
                    latest = when
                break
    return latest


def _day(updated: datetime | None, created: Any) -> str:
    """The day of the project's last activity, as its index note's ``updated`` reads (the
    export's wall time); the newest start as it was written where nothing is dated."""
    if updated is not None:
        return updated.isoformat()[:10]
    return (created or "")[:10]


def _comparable(when: datetime) -> datetime:
    """Times with a zone compared as instants; one without (typed by hand) as if in UTC."""
    return when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC)


def _component(text: str) -> str:
    """A project name as one file name (``vault.safe_component`` makes ``..`` safe). The
    zero-width space that keeps a ``[[`` in the name from being a link is left out: the
    brackets become ``-`` in a file name, and it would be an invisible character there."""
    from .markdown import ZERO_WIDTH_SPACE

    text = text.replace(ZERO_WIDTH_SPACE, "")
    return text.lstrip("/").replace("/", "-").replace("\\", "-")
