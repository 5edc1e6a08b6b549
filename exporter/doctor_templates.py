"""``doctor``'s look at the user's templates: each override read as a template with those it
extends, includes or imports, and the other files of the folder said for what they are."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .doctor import Check

# What a template that cannot be read costs (each of the shipped templates' names).
_TEMPLATE_MAKES = {
    "session.md.j2": "no session note can be written",
    "project_index.md.j2": "no project's index note can be written",
    "projects_index.md.j2": "the index of projects cannot be written",
}


def template_checks(templates: Path | None) -> list[Check]:
    """Each override, and whether it can be read as a template with those it uses: one that
    cannot fails the notes made with it (a syntax error, named with its file and line). A
    file an override includes or imports is part of it; a note template's name ccexport
    does not know (``sesion.md.j2``) is never used, which the person should know; any
    other file that nothing uses is only said."""
    from .doctor import Check as check  # (doctor imports this module)
    from .render import default_templates_dir, template_walk

    if templates is None:
        return [check("Templates", "ok", "the default templates are used")]
    defaults = {p.name for p in default_templates_dir().glob("*.j2")}
    files = sorted(p.name for p in templates.glob("*.j2"))
    if not files:
        return [check("Templates", "attention", f"{templates} holds no *.j2 template")]
    checks: list[Check] = []
    used: dict[str, str] = {}  # a file an override uses -> that override
    for name in (n for n in files if n in defaults):
        seen, problem = template_walk(name, templates)
        used.update({n: name for n in seen if n != name and n not in used})
        if problem:
            fails = _TEMPLATE_MAKES.get(name, "the notes made with it cannot be written")
            checks.append(check("Templates", "attention", f"{problem}: {fails}"))
        else:
            checks.append(check("Templates", "ok", f"{templates / name} overrides the default"))
    for name in (n for n in files if n not in defaults):
        if name in used:
            said = f"{templates / name} is used by {used[name]}"
            checks.append(check("Templates", "ok", said))
        elif name.endswith(".md.j2"):
            known = ", ".join(sorted(defaults))
            said = f"{templates / name} is not a template ccexport uses (those are {known})"
            checks.append(check("Templates", "attention", said))
        else:
            said = f"{templates / name} is used by none of the templates here"
            checks.append(check("Templates", "info", said))
    return checks
