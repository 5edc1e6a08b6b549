"""``doctor``'s look at the user's templates: each override read as a template with those it
extends, includes or imports, and the other files of the folder said for what they are; a
session template that reads well is also tried on a sample session, where an error that
only shows when a note is made (an unknown variable) is met before the nightly run's."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import Problem

if TYPE_CHECKING:
    from .doctor_check import Check
    from .model import Session
    from .notespec import NoteSettings
    from .render import TemplateError

# What a template that cannot be read costs (each of the shipped templates' names).
_TEMPLATE_MAKES = {
    "session.md.j2": "no session note can be written",
    "project_index.md.j2": "no project's index note can be written",
    "projects_index.md.j2": "the index of projects cannot be written",
}


# (``template_checks``' rules when the run's are not known: the built-in ones)
BUILT_IN_RULES: Any = object()


def template_checks(
    templates: Path | None, settings: NoteSettings | None = None, rules: Any = BUILT_IN_RULES
) -> list[Check]:
    """Each override, and whether it can be read as a template with those it uses: one that
    cannot fails the notes made with it (a syntax error, named with its file and line). A
    file an override includes or imports is part of it; a note template's name ccexport
    does not know (``sesion.md.j2``) is never used, which the person should know; any
    other file that nothing uses is only said. The templates are read with ``rules``, the
    redaction rules a run reads them with (its ``redactor()``: None when redaction is off),
    so that what doctor says of them (an error quoting the template's text) holds no
    secret the run's rules would take out of it."""
    from .doctor_check import Check
    from .doctor_template_lint import raw_text_checks, sample_output_checks
    from .render import default_templates_dir, fresh_templates, template_walk
    from .template_secrets import use_rules

    fresh_templates()  # (a second doctor in this process, in tests or ``watch``: as edited)
    if rules is not BUILT_IN_RULES:
        use_rules(rules)
    if templates is None:
        return [Check("Templates", "ok", "the default templates are used")]
    defaults = {p.name for p in default_templates_dir().glob("*.j2")}
    files = sorted(p.name for p in templates.glob("*.j2"))
    if not files:
        return [Check("Templates", "attention", f"{templates} holds no *.j2 template")]
    checks: list[Check] = []
    used: dict[str, str] = {}  # a file an override uses -> that override
    samples = SampleNotes(templates, settings)  # (each made once, for every check of it)
    for name in (n for n in files if n in defaults):
        seen, problem = template_walk(name, templates)
        fails = _TEMPLATE_MAKES.get(name, "the notes made with it cannot be written")
        if problem is None:
            problem = tried_on_a_sample(name, templates, settings, samples)
            fails = _FAILS_ON.get(name, fails)
        if problem:
            checks.append(Check("Templates", "attention", f"{problem}: {fails}"))
            for helper in seen - {name}:  # (said with it: not "ok" beside its "!!")
                used.setdefault(helper, "")
            continue
        used.update({n: name for n in seen if n != name and not used.get(n)})
        checks.append(Check("Templates", "ok", f"{templates / name} overrides the default"))
    unknown = unknown_templates(templates, used)
    for name in _other_files(templates, defaults, used):
        if name in used:
            if used[name]:  # (one used by a template that fails is said with it)
                checks.append(
                    Check("Templates", "ok", f"{templates / name} is used by {used[name]}")
                )
        elif name in unknown:
            checks.append(Check("Templates", "attention", f"{templates / name} is {unknown[name]}"))
        else:
            said = f"{templates / name} is used by none of the templates here"
            checks.append(Check("Templates", "info", said))
    linted = [n for n in [*files, *used] if n in defaults or used.get(n)]  # (what is used)
    made = sample_output_checks(templates, settings, samples)
    return checks + raw_text_checks(templates, linted) + made


def unknown_templates(templates: Path, used: Collection[str] | None = None) -> dict[str, str]:
    """The note templates of the folder ``templates`` whose names ccexport does not know
    (``sesion.md.j2``), so that no note is made with them, each with what is said of it:
    ``doctor`` and every export say it alike. A file that an override of the folder extends,
    includes or imports is part of that override, not one of these: ``used`` names those
    files (when it is None and there is such a name, the overrides are read for them)."""
    from .render import default_templates_dir, template_walk

    defaults = sorted(p.name for p in default_templates_dir().glob("*.j2"))
    names = sorted(
        p.name
        for p in templates.glob("*.md.j2")
        if p.name not in defaults and not p.name.startswith(".")
    )
    if names and used is None:
        used = set()
        for override in (name for name in defaults if (templates / name).is_file()):
            used.update(template_walk(override, templates)[0])
    known = ", ".join(defaults)
    return {
        name: (
            f"not a template ccexport uses, so no note is made with it"
            f"{_near(name, defaults)}; those it uses are {known}"
        )
        for name in names
        if name not in (used or ())
    }


def _near(name: str, defaults: list[str]) -> str:
    """`` (did you mean session.md.j2?)`` for a name close to one of ours, by the part
    before ``.md.j2`` (which every name shares: ``notes.md.j2`` is no ``session.md.j2``)."""
    from difflib import get_close_matches

    stems = {n.removesuffix(".md.j2"): n for n in defaults if n.endswith(".md.j2")}
    near = get_close_matches(name.removesuffix(".md.j2").lower(), list(stems), n=1, cutoff=0.6)
    return f" (did you mean {stems[near[0]]}?)" if near else ""


def unknown_template_problems(templates: Path | None) -> list[Problem]:
    """A run's warning for each note template of the folder in effect that ccexport does not
    know by its name (as ``doctor`` says it): without it the run used ours in its place, and
    only ``doctor`` told why a typo in the name changed nothing."""
    if templates is None:
        return []
    return [
        Problem(str(templates / name), said) for name, said in unknown_templates(templates).items()
    ]


def _other_files(templates: Path, defaults: set[str], used: dict[str, str]) -> list[str]:
    """The folder's files that are no override, by their names for Jinja: each file an
    override uses, in a subfolder too and whatever it is called (``parts/header.md``), and
    every other ``*.j2`` (a hidden folder's aside)."""
    names = (path.relative_to(templates) for path in templates.rglob("*.j2"))
    found = {n.as_posix() for n in names if not any(p.startswith(".") for p in n.parts)}
    found.update(name for name in used if (templates / name).is_file())
    return sorted(found - defaults)


# What a template that fails on the sample costs.
_FAILS_ON = {
    "session.md.j2": "each session note it fails on is not written",
    "project_index.md.j2": "each project's index note it fails on is not written",
    "projects_index.md.j2": "the index of projects is not written",
}


class SampleNotes:
    """The note of ``sample_session``, made with the session template of ``templates`` and
    as ccexport's own makes it (the index templates list that one), each once however
    many checks ask (doctor made the person's twice, ours once per index template)."""

    def __init__(self, templates: Path, settings: NoteSettings | None) -> None:
        from .notespec import NoteSettings

        # (without the configured properties: an expression of those that fails is the
        # config's, which the run names so, not this template's)
        self.chosen = replace(
            settings or NoteSettings(timezone=UTC), templates=templates, frontmatter_add={}
        )
        self._made: dict[bool, Any] = {}  # the person's (True) or ours: the note, or its error

    def note(self, theirs: bool = True) -> Any:
        """The sample's note; raises what making it raised."""
        from .notes import build_note

        if theirs not in self._made:
            chosen = self.chosen if theirs else replace(self.chosen, templates=None)
            try:
                self._made[theirs] = build_note(sample_session(), "sample.md", chosen, _no_link)
            except Exception as exc:  # noqa: BLE001 (raised again to each who asks)
                self._made[theirs] = exc
        made = self._made[theirs]
        if isinstance(made, Exception):
            raise made
        return made


def _no_link(key: str) -> None:
    return None


def tried_on_a_sample(
    name: str, templates: Path, settings: NoteSettings | None, samples: SampleNotes | None = None
) -> TemplateError | None:
    """The error rendering template ``name`` of ``templates`` meets on ``sample_session``
    (an index template: on the index notes listing it), named with its file and line as
    the run names it, or None. A template that fails on every note fails here.
    ``samples``: the sample's notes, made once for all of doctor's checks."""
    from .index import note_meta, project_entry, session_entry
    from .render import TemplateError, render

    samples = samples or SampleNotes(templates, settings)
    chosen = samples.chosen
    try:
        if name == "session.md.j2":
            samples.note()
            return None
        note = samples.note(theirs=False)  # (the session note as ours writes it)
        entry = session_entry(f"{chosen.folder}/sample.md", note_meta(note.frontmatter))
        listed = {"dataview": False, "folder": chosen.folder}
        if name == "project_index.md.j2":
            render(name, {**listed, "project": "sample", "sessions": [entry]}, templates)
        elif name == "projects_index.md.j2":
            row = project_entry("sample", f"{chosen.folder}/Projects/sample", [entry], None)
            render(name, {**listed, "projects": [row]}, templates)
    except TemplateError as exc:
        return TemplateError((exc.path, exc.line), f"{exc.what}; met on a sample session")
    return None


def sample_session() -> Session:
    """A short session with a value in each field the shipped header reads and an item of
    each common kind: a prompt, thinking, a reply, a call and its result, a failed call,
    a typed command with its output."""
    from .model import (
        CommandOutputPart,
        CommandPart,
        Message,
        Session,
        TextPart,
        ThinkingPart,
        ToolCallPart,
        ToolResultPart,
        Usage,
    )

    when = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    read = ToolCallPart("Read", {"file_path": "src/app.py"}, "c1", "Read the app")
    test = ToolCallPart("Bash", {"command": "pytest -q"}, "c2")
    return Session(
        source="claude-code",
        session_id="00000000-0000-4000-8000-000000000000",
        source_path=Path("sample.jsonl"),
        title="A sample session",
        project="sample",
        cwd="/home/dev/sample",
        git_branch="main",
        git_commit="0123456789abcdef0123456789abcdef01234567",
        models=("claude-sonnet-4-5",),
        started_at=when,
        ended_at=when,
        usage=Usage(1200, 300, 4000, 100),
        messages=(
            Message("user", (TextPart("Why does the test fail?"),), "u1", when),
            Message("assistant", (ThinkingPart("Read the code first."), read), "a1", when),
            Message("tool", (ToolResultPart("print('hi')", "c1"),), "t1", when),
            Message("assistant", (TextPart("It needs a fixture."), test), "a2", when),
            Message("tool", (ToolResultPart("1 failed", "c2", True),), "t2", when),
            Message("user", (CommandPart("git status", shell=True),), "u2", when),
            Message("user", (CommandOutputPart("clean"),), "u3", when),
        ),
    )
