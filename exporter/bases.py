"""``AI Sessions/Sessions.base``: a view file for Obsidian's core Bases plugin.

It holds a table of every session (date, session, assistant, project, model, active
minutes, tokens, cost), newest first, and one such table per assistant found in the vault.
A session is one row, as the index notes count it: a subagent's note (``parent``) is left
out, and so is a long session's later part (``previous_part``: its first part, the row,
holds the session's tokens and cost, ``split``).
Only keys Obsidian documents are used (help.obsidian.md, "Bases syntax": ``filters``,
``formulas``, ``properties``, ``views`` with ``type``, ``name``, ``filters``, ``order``;
a view's ``sort`` is the list of ``{property, direction}`` the API documents as
``BasesSortConfig``).

The file is the user's as much as ours, like an index note, but Obsidian rewrites it
whole when a view is changed in the app, so there is no region to own. The rule: the first
run writes it; later runs only add a view ccexport has never written (a new assistant),
keeping every view, key and comment the user has. A view ccexport wrote and the user
deleted stays deleted (the names written are kept in ``.ccexport/bases.json``); delete the
file to get ccexport's current views back. A file that is not readable as a Bases file is
left alone.
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any

from . import vaultio
from .errors import os_reason
from .index import INDEX_PREFIX, Notes, note_meta
from .notespec import SOURCE_LABELS, NoteSettings
from .vault import Action, Change, Vault

if TYPE_CHECKING:
    from ruamel.yaml import YAML

BASE_NAME = "Sessions.base"
BASE_KEY = f"{INDEX_PREFIX}bases"
RECORD = f"{vaultio.STATE_DIR}/bases.json"
SESSION_TAG = "ai-session"
ALL_VIEW = "All sessions"
COLUMNS = ["created", "formula.session", "source", "project", "model", "active", "tokens",
           "cost"]  # fmt: skip
# The notes the base lists: sessions, as ``Projects.md`` and the README's Dataview queries
# count them (``file.hasProperty`` and ``not``: help.obsidian.md, "Functions", "Bases syntax").
NOT_SESSIONS = ['file.hasProperty("parent")', 'file.hasProperty("previous_part")']
FILTERS = {"and": [f'file.hasTag("{SESSION_TAG}")', {"not": NOT_SESSIONS}]}
# What the versions before wrote, subagents and later parts listed as sessions (review35 7):
# a file whose filters are still exactly these gets the ones above.
OLD_FILTERS = {"and": [f'file.hasTag("{SESSION_TAG}")']}
# Documented keys (the schema check in the tests holds ccexport to them).
TOP_KEYS = {"filters", "formulas", "properties", "summaries", "views"}
VIEW_KEYS = {"type", "name", "limit", "groupBy", "filters", "order", "summaries", "sort"}


def base_document(sources: list[str]) -> dict[str, Any]:
    """The Bases file ccexport writes for a vault holding notes from ``sources``."""
    labels = sorted({SOURCE_LABELS.get(s, s): s for s in sources}.items(), key=lambda i: i[0])
    views = [_table(ALL_VIEW, None)]
    views += [_table(label, source) for label, source in labels]
    return {
        "filters": FILTERS,
        "formulas": {"session": "file.asLink(title)"},
        "properties": {
            "created": {"displayName": "Date"},
            "formula.session": {"displayName": "Session"},
            "source": {"displayName": "Assistant"},
            "active": {"displayName": "Active (min)"},
            "cost": {"displayName": "Cost (USD)"},
        },
        "views": views,
    }


def _table(name: str, source: str | None) -> dict[str, Any]:
    view: dict[str, Any] = {"type": "table", "name": name}
    if source is not None:
        view["filters"] = {"and": [f'source == "{source}"']}
    view["order"] = list(COLUMNS)
    view["sort"] = [{"property": "created", "direction": "DESC"}]
    return view


def write_bases_file(vault: Vault, settings: NoteSettings, found: Notes | None = None) -> Change:
    """Write or extend the Bases file; never raises for what the vault holds (``found``:
    every note of the vault, if the caller surveyed it already)."""
    relpath = f"{settings.folder}/{BASE_NAME}"
    found = found if found is not None else vault.notes(note_meta)
    sources = sorted(
        {
            str(meta["source"])
            for key, (_, meta) in found.items()
            if not key.startswith(INDEX_PREFIX) and meta and meta.get("source")
        }
    )
    ours = base_document(sources)
    try:
        return _write(vault, relpath, ours, all(s in SOURCE_LABELS for s in sources))
    except (OSError, UnicodeDecodeError) as exc:
        return Change(Action.FAILED, BASE_KEY, relpath, f"could not be written: {os_reason(exc)}")


def _write(vault: Vault, relpath: str, ours: dict[str, Any], known: bool) -> Change:
    found = vaultio.read_file(vault.root, relpath)
    if found is None and vault.in_cloud_only(relpath):  # a new file would be a second one
        return _left_alone(relpath, "iCloud keeps it in the cloud only (not downloaded here)")
    if found is None:
        text = _first_text(ours) if known else _dump(_yaml(), ours)
        _save(vault, relpath, text, [v["name"] for v in ours["views"]])
        return Change(Action.CREATED, BASE_KEY, relpath)
    from ruamel.yaml.error import YAMLError

    yaml = _yaml()
    text = found[0].decode("utf-8")
    try:
        doc = yaml.load(text)
    except YAMLError as exc:
        return _left_alone(relpath, f"it is not valid YAML ({exc.__class__.__name__})")
    views = doc.get("views") if isinstance(doc, dict) else None
    if not isinstance(views, list):
        return _left_alone(relpath, "it has no list of views")
    present = {v.get("name") for v in views if isinstance(v, dict)}
    refiltered = doc.get("filters") == OLD_FILTERS  # (never the person's own)
    if refiltered:
        doc["filters"] = ours["filters"]
    record = _record(vault)
    written = set(record.get(relpath, []))
    if relpath not in record:
        # Written on another machine, whose .ccexport/ is not synced (Obsidian Sync skips
        # it): its views of ours are taken as written, so one the person deletes later
        # stays deleted here too instead of coming back from this machine's next run.
        written = {v["name"] for v in ours["views"] if v["name"] in present}
    new = [v for v in ours["views"] if v["name"] not in present and v["name"] not in written]
    if not new and not refiltered:
        if relpath not in record and not vault.dry_run:
            _remember(vault, relpath, sorted(written))
        return Change(Action.UNCHANGED, BASE_KEY, relpath)
    views.extend(new)
    _save(vault, relpath, _dump(yaml, doc), [*sorted(written), *(v["name"] for v in new)])
    said = ["added views: " + ", ".join(v["name"] for v in new)] if new else []
    if refiltered:
        said.append("subagents and later parts of a session are no longer listed as sessions")
    return Change(Action.UPDATED, BASE_KEY, relpath, "; ".join(said))


def _left_alone(relpath: str, why: str) -> Change:
    return Change(Action.UNCHANGED, BASE_KEY, relpath, f"left alone: {why}")


def _save(vault: Vault, relpath: str, text: str, names: list[str]) -> None:
    if vault.dry_run:
        return
    vaultio.write_file(vault.root, relpath, text.encode("utf-8"))
    _remember(vault, relpath, names)


def _remember(vault: Vault, relpath: str, names: list[str]) -> None:
    """Record the view names ccexport has written into the Bases file at ``relpath``."""
    record = _record(vault)
    record[relpath] = list(dict.fromkeys(names))
    data = json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    vaultio.write_file(vault.root, RECORD, data.encode("utf-8"))


def _record(vault: Vault) -> dict[str, list[str]]:
    """The view names ccexport has written, per Bases file."""
    try:
        found = vaultio.read_file(vault.root, RECORD, limit=1 << 20)
        data = json.loads(found[0].decode("utf-8")) if found else {}
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: [n for n in v if isinstance(n, str)] for k, v in data.items() if isinstance(v, list)}


def _yaml() -> YAML:
    from ruamel.yaml import YAML  # imported when a file is there to keep: it costs start-up

    yaml = YAML()  # round trip: the user's comments, order and quoting survive an added view
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    return yaml


def _first_text(doc: dict[str, Any]) -> str:
    """The file as ``_dump(_yaml(), doc)`` writes it, for a document naming only the
    assistants ccexport knows, written directly: importing a YAML library costs a first
    export 20 ms or more. Every scalar of such a document is a text YAML reads back as
    itself, unquoted (tests/test_startup.py compares the two for each assistant)."""
    lines: list[str] = []
    _mapping_lines(lines, doc, "")
    return "\n".join(lines) + "\n"


def _mapping_lines(lines: list[str], mapping: dict[str, Any], indent: str) -> None:
    for key, value in mapping.items():
        if isinstance(value, dict):
            lines.append(f"{indent}{key}:")
            _mapping_lines(lines, value, indent + "  ")
        elif isinstance(value, list):
            lines.append(f"{indent}{key}:")
            _sequence_lines(lines, value, indent + "  ")
        else:
            lines.append(f"{indent}{key}: {value}")


def _sequence_lines(lines: list[str], items: list[Any], indent: str) -> None:
    """Items under their key, as ``_yaml()`` indents them; a mapping's first key on the
    dash's line."""
    for item in items:
        if isinstance(item, dict):
            first = len(lines)
            _mapping_lines(lines, item, indent + "  ")
            lines[first] = f"{indent}- {lines[first][len(indent) + 2 :]}"
        else:
            lines.append(f"{indent}- {item}")


def _dump(yaml: YAML, doc: Any) -> str:
    out = io.StringIO()
    yaml.dump(doc, out)
    return out.getvalue()
