"""A Session becomes a Note: a vault path, frontmatter (data) and a Markdown body.

The builder knows nothing of any source format. It names the note, builds its frontmatter
as data, and renders the body from the turns (turns.py) through the Jinja templates.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
from pathlib import PurePosixPath
from typing import Any

from .errors import Problem
from .markdown import unlinked
from .model import (
    CommandOutputPart,
    CommandPart,
    Message,
    MessageStream,
    Session,
    ToolCallPart,
)
from .notenames import (
    cut_keeping_path,
    file_title,
    fitted_name,
    path_component,
    session_title,
    short_id,
    shortened,
    tag_slug,
)
from .notespec import SOURCE_LABELS as SOURCE_LABELS  # (re-exported)
from .notespec import NoteSettings as NoteSettings
from .notespec import project_matches as project_matches
from .reference import read_reference_switch
from .render import (
    TemplateError,
    render,
    render_expression,
    shipped_template_in_effect,
    whole_outputs_shown,
)
from .session_body import SHIPPED_TEMPLATE_SHA256 as SHIPPED_SHA256
from .session_body import session_body
from .sessionfacts import session_facts
from .stats import add_properties, session_properties
from .template_open import left_open
from .toolinput import subagent_task
from .turns import (
    Attachment,
    LinkResolver,
    build_turns,
    clean_parts,
    link,
    local,
    shape_turns,
    unused_outputs,
)

UNKNOWN_PROJECT = "unknown-project"


@dataclass(slots=True)
class Note:
    """What the vault writes: a path, frontmatter as data, the owned body, attachments."""

    key: str
    relpath: str
    frontmatter: dict[str, Any]
    body: str
    attachments: list[Attachment] = field(default_factory=list)
    # Properties of the person's own, configured (``[frontmatter] add``): written into a
    # note that lacks them, then theirs (never overwritten or removed).
    seeded: dict[str, Any] = field(default_factory=dict)
    # What the run should say about this note, which was still written (a configured
    # property left out of it).
    problems: list[Problem] = field(default_factory=list)
    render_key: str | None = None  # what it was rendered from (``renderkey``)
    # How its problems name a note rendered ahead, at no path yet: ``placed_at`` names
    # its path instead.
    unplaced: str = ""

    def placed_at(self, relpath: str) -> Note:
        """The note at the path chosen for it, its problems naming that path."""
        problems = self.problems
        if self.unplaced and problems:
            problems = [
                replace(p, message=p.message.replace(self.unplaced, relpath)) for p in problems
            ]
        return replace(self, relpath=relpath, problems=problems, unplaced="")


def has_conversation(session: Session) -> bool:
    """A session worth a note: someone wrote something (not only /clear and friends)."""
    # A reply settles it before any prompt is cleaned; a stream is read once, in order.
    held = not isinstance(session.messages, MessageStream)
    if held and any(_is_reply(message) for message in session.messages):
        return True
    for message in session.messages:
        if message.role == "user":
            parts = clean_parts(message, session.source)
            # A prompt a command sent counts (spec-kit's with nothing typed): the command ran.
            if any(p.kind in ("text", "attachment") or type(p) is CommandPart and p.asks
                   or type(p) is CommandOutputPart and p.sent
                   for p in parts):  # fmt: skip
                return True
        elif not held and _is_reply(message):
            return True
    return False


def _is_reply(message: Message) -> bool:
    return message.role == "assistant" and any(
        p.kind in ("text", "tool_call", "thinking") for p in message.parts
    )


def project_of(session: Session) -> str:
    """The project's name as one text: macOS may give a folder's name decomposed (NFD)
    where another source gives it composed, and they must be one project, index and tag."""
    return unicodedata.normalize("NFC", session.project) if session.project else UNKNOWN_PROJECT


def default_relpath(session: Session, settings: NoteSettings, parent_path: str | None) -> str:
    """Where a new note goes; a subagent sits beside its parent's note."""
    if parent_path and session.parent_id:
        parent = PurePosixPath(parent_path)
        agent = session.session_id.rsplit("/agent-", 1)[-1]
        return str(parent.with_name(fitted_name(parent.stem, f" · agent {short_id(agent)}")))
    when = session.started_at.astimezone(settings.timezone) if session.started_at else None
    day = when.strftime("%Y-%m-%d") if when else "undated"
    title = cut_keeping_path(file_title(session_title(session)), 60)
    name = fitted_name(f"{day} {title}", f" {short_id(session.session_id)}")
    folders = settings.layout.format(
        source=session.source,
        project=path_component(project_of(session)),
        year=when.strftime("%Y") if when else "undated",
        month=when.strftime("%m") if when else "undated",
    )
    return "/".join([settings.folder, folders, path_component(name)])


def linked_keys(session: Session) -> set[str]:
    """The keys of every session a note of ``session`` may link to (what ``build_note``
    asks its resolver for), so links can be decided before rendering."""
    ids = {session.parent_id, session.forked_from, *session.subagent_ids}
    ids.update(ident for ident, _how in session.forks)
    ids.update(
        p.subagent_id for m in session.messages for p in m.parts if isinstance(p, ToolCallPart)
    )
    return {f"{session.source}:{i}" for i in ids if i}


def build_note(
    session: Session,
    relpath: str,
    settings: NoteSettings,
    resolve: LinkResolver,
    part: int | None = None,
) -> Note:
    """Render ``session`` into a Note at ``relpath`` (chosen by the vault); ``part``: the
    number of the part note of a session in parts (None: the session is one note)."""
    read_reference_switch()  # once per note: its texts then ask without a lookup
    tz = settings.timezone
    first_part = part is None or part == 1
    title = session_title(session)
    attachments: list[Attachment] = []
    turns = build_turns(session, settings.attachments_folder, tz, attachments, resolve, first_part)
    parent_link = link(resolve, session.source, session.parent_id)
    fork_link = link(resolve, session.source, session.forked_from)
    fork_links = links_onward(session, resolve)
    # A subagent's link reads as what it was asked: its call's description, else its task
    # shortened as a title is (Gemini's and Cline's calls carry no description).
    labels = {
        p.subagent_id: p.description or shortened(subagent_task(p))
        for m in session.messages
        for p in m.parts
        if isinstance(p, ToolCallPart) and p.subagent_id
    }
    subagent_links = [
        found
        for sid in session.subagent_ids
        if (found := link(resolve, session.source, sid, labels.get(sid))) is not None
    ]
    properties = session_properties(session, settings.properties, tz, first_part)
    properties.update(session_facts(session))  # client, starred, share_url, … (sessionfacts)
    shaped = shape_turns(turns, settings.view)
    unused = unused_outputs(
        turns, shaped, whole_outputs_shown(settings.session_template, settings.templates)
    )
    attachments = [a for a in attachments if a.relpath not in unused]
    context = {
        "properties": properties,  # model, active, files, resume, day, … (stats.py)
        "session": session,
        "title": title,
        "source_label": SOURCE_LABELS.get(session.source, session.source),
        "project": project_of(session),
        "turns": shaped,
        "parent_link": parent_link,
        "fork_link": fork_link,
        "fork_links": fork_links,
        "part": part,
        "subagent_links": subagent_links,
        "unread": unread_words(session.unread_lines),
        "started": local(session.started_at, tz),
        "ended": local(session.ended_at, tz),
        "tz": tz,
        # The settings of "Notes to taste", for templates (the turns are already shaped).
        "tool_output": settings.view.tool_output,
        "tool_output_lines": settings.view.tool_output_lines,
        "thinking": settings.view.thinking,
        "tools": settings.view.tools,
        "todo_as_checklist": settings.view.todo_as_checklist,
    }
    body = _body(settings, context)
    tags = note_tags(session, settings.project_tag)
    frontmatter = _frontmatter(session, title, tz, parent_link, subagent_links, turns, tags)
    frontmatter = add_properties(frontmatter, properties)
    if fork_link:
        frontmatter["forked_from"] = fork_link
    if fork_links["all"]:
        frontmatter["forks"] = fork_links["all"]
    problems: list[Problem] = []
    # (a note rendered ahead has no path yet: its session names it until it is placed)
    where = relpath or f"the note of session {session.session_id} in {session.source_path}"
    problems += left_open(settings, body, where)
    seeded = _configured_properties(frontmatter, settings, context, problems, where)
    unplaced = "" if relpath else where
    attachments = named_attachments(attachments, body, frontmatter, seeded)
    return Note(
        session.key, relpath, frontmatter, body, attachments, seeded, problems, unplaced=unplaced
    )


def named_attachments(
    attachments: list[Attachment], body: str, *properties: dict[str, Any]
) -> list[Attachment]:
    """The files the note names, by their path or their file name, in its body or its
    properties: those copied into the vault. The shipped template shows a text file as code
    where it was attached, not by its file, and a copy no note names would sit in the
    attachments folder unlinked (review39 L3); a person's template that embeds it, or one
    naming the file of a whole output, still gets it. Each text is read once for every
    file (``turns._attach`` names a file by 16 hex digits of its hash and its extension)."""
    if not attachments:
        return attachments
    texts = [(body, _stems(body))]
    named = [a for a in attachments if _named_in(texts, a)]
    if len(named) < len(attachments):
        said = repr(properties)
        texts.append((said, _stems(said)))
        named = [a for a in attachments if _named_in(texts, a)]
    return named


_NAME_STEM = re.compile(r"([0-9a-f]{16})\.")


def _stems(text: str) -> dict[str, list[int]]:
    """Where each 16-hex-digit stem followed by a dot ends in ``text``."""
    found: dict[str, list[int]] = {}
    for m in _NAME_STEM.finditer(text):
        found.setdefault(m.group(1), []).append(m.end())
    return found


def _named_in(texts: list[tuple[str, dict[str, list[int]]]], attachment: Attachment) -> bool:
    stem, _, ext = attachment.relpath.rpartition("/")[2].partition(".")
    return any(text.startswith(ext, end) for text, stems in texts for end in stems.get(stem, ()))


def links_onward(session: Session, resolve: LinkResolver) -> dict[str, list[str]]:
    """The links to the sessions that went on from this one (``Session.forks``), those
    whose note is known: by how ("forked", "saved"), and "all" in their order."""
    found: dict[str, list[str]] = {"forked": [], "saved": [], "all": []}
    for ident, how in session.forks:
        target = link(resolve, session.source, ident)
        if target is not None:
            found["saved" if how == "saved" else "forked"].append(target)
            found["all"].append(target)
    return found


def unread_words(lines: tuple[int, ...], shown: int = 8) -> str:
    """What a note says of the lines of its session's file that could not be read (none:
    ""): the evidence has a gap, and the run that found it may have gone unread."""
    if not lines:
        return ""
    numbers = [str(n) for n in lines[:shown]]
    if len(lines) > shown:
        numbers.append(f"{len(lines) - shown} more")
    listed = numbers[0] if len(numbers) == 1 else ", ".join(numbers[:-1]) + " and " + numbers[-1]
    one = len(lines) == 1
    return (
        f"{'Line' if one else 'Lines'} {listed} of this session's file could not be read: "
        f"{'it is' if one else 'they are'} not in this note."
    )


def _body(settings: NoteSettings, context: dict[str, Any]) -> str:
    """The note's body through its template; the shipped session template, when in effect,
    written by ``session_body`` (the same bytes, several times faster)."""
    name, folder = settings.session_template, settings.templates
    if name == "session.md.j2" and shipped_template_in_effect(name, folder, SHIPPED_SHA256):
        return session_body(context)
    return render(name, context, folder)


def _configured_properties(
    fm: dict[str, Any],
    settings: NoteSettings,
    context: dict[str, Any],
    problems: list[Problem],
    note: str,
) -> dict[str, Any]:
    """Properties the user dropped or added in the configuration (``[frontmatter]``). An
    added one that the note has among its own replaces its value; the others are returned,
    to be written into a note that lacks them (a ``status`` the person then changes).

    An expression that fails where the session has no start or end time (``{{
    created.strftime(...) }}`` on a session whose source records none) leaves its property
    out of that note, with a warning that names the setting and the note (``note``: its
    path in the vault, or its session's file): the note itself is written. One that fails
    with both times known is wrong for every note, and fails the note, naming the
    setting."""
    for key in settings.frontmatter_drop:
        fm.pop(key, None)
    seeded: dict[str, Any] = {}
    if not settings.frontmatter_add:
        return seeded
    values = {
        **context,
        "title": unlinked(context["title"]),
        "project": unlinked(context["project"]),
        "created": fm.get("created"),
        "updated": fm.get("updated"),
    }
    for key, value in settings.frontmatter_add.items():
        if isinstance(value, str) and "{{" in value:
            name = f"frontmatter.add.{key}"
            try:
                shown = render_expression(value, values, settings.templates, name)
            except TemplateError as exc:
                if values["created"] is not None and values["updated"] is not None:
                    raise
                unknown = "start" if values["created"] is None else "end"
                # (The setting is the warning's file: past a few notes, the report counts
                # the rest of them in one line.)
                why = f"{exc.what}: left out of {note} (its session's {unknown} is not known)"
                problems.append(Problem(exc.path, why, line=exc.line))
                continue
            # A session's text cannot make a link; an expression that writes one itself
            # ("[[{{ project }}]]") keeps it.
            value = shown if "[[" in value else unlinked(shown)
        if key in fm:
            fm[key] = value
            if key == "title" and isinstance(fm.get("aliases"), list):
                # Every title ccexport writes is an alias too: a later one of the person's
                # is told from it so (``vaultmerge.persons_title``).
                fm["aliases"] = list(dict.fromkeys([*fm["aliases"], unlinked(value)]))
        else:
            seeded[key] = value
    return seeded


def _frontmatter(
    session: Session,
    title: str,
    tz: tzinfo | None,
    parent_link: str | None,
    subagent_links: list[str],
    turns: list[dict[str, Any]],
    tags: list[str],
) -> dict[str, Any]:
    """The exporter's properties, in a fixed order; absent values are left out. What a
    session wrote cannot become a link (``unlinked``); the links are ccexport's own."""
    project = project_of(session)
    spoken = sum(1 for t in turns for _ in t["messages"])
    title = unlinked(title)
    fm: dict[str, Any] = {
        "title": title,
        "aliases": [title],
        "source": session.source,
        "session_id": session.session_id,
        "project": unlinked(project),
        "cwd": unlinked(session.cwd),
        "git_branch": unlinked(session.git_branch),
        "git_commit": unlinked(session.git_commit),
        "git_remote": unlinked(session.git_remote),
        "models": unlinked(list(session.models)) or None,
        "created": _naive(session.started_at, tz),
        "updated": _naive(session.ended_at, tz),
        "messages": spoken,
        "tool_calls": session.tool_call_count,
        "tokens_in": session.usage.input_tokens or None,
        "tokens_out": session.usage.output_tokens or None,
        "tokens_cache_read": session.usage.cache_read_tokens or None,
        "tokens_cache_write": session.usage.cache_write_tokens or None,
        "cost": round(session.cost, 6) if session.cost is not None else None,
        "parent": parent_link,
        "subagents": subagent_links or None,
        "tags": tags,
    }
    return {k: v for k, v in fm.items() if v is not None}


def note_tags(session: Session, project_tag: str) -> list[str]:
    """A session note's tags: ``ai-session`` (what Sessions.base finds them by), its
    source's, and its project's below ``project_tag`` (``[frontmatter] project_tag``: many
    people file their own projects under ``#project/``; "": none)."""
    tags = ["ai-session", f"ai-session/{session.source}"]
    if project_tag:
        tags.append(f"{project_tag}/{tag_slug(project_of(session))}")
    return tags


def _naive(value: datetime | None, tz: tzinfo | None) -> datetime | None:
    """Local wall-clock time without offset: what Obsidian's date & time property reads."""
    if value is None:
        return None
    return value.astimezone(tz).replace(tzinfo=None, microsecond=0)
