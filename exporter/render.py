"""Jinja templates: where they are found and the filters they may use.

Templates are looked up file by file: a user's folder first (``--templates`` or the vault's
``.ccexport/templates``), then the defaults shipped with the package. Rendering runs in the
sandbox of ``sandbox.py`` with ``StrictUndefined``, so a typo is an error naming the template
and line, never an empty string in a note.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import notefile
from .errors import ExporterError, Problem
from .reference import REFERENCE_ENV as REFERENCE_ENV
from .reference import read_reference_switch, reference_rendering
from .sandbox import macro_calling_itself, rendered, sandbox
from .template_secrets import person_loader, rules_in_effect, use_rules
from .template_values import unshared

if TYPE_CHECKING:
    import jinja2


Place = tuple[str, int | None]  # a template's file, and the line when it is known


class TemplateError(ExporterError):
    """A template could not be loaded or rendered; names the file and line."""

    def __init__(self, place: Place, what: str) -> None:
        (self.path, self.line), self.what = place, what
        self.where = f"{self.path}:{self.line}" if self.line else self.path
        super().__init__(f"{self.where}: {what}")

    def problem(self, **kwargs: Any) -> Problem:
        """The report's problem: the template's file as its path, the line as its line."""
        return Problem(self.path, self.what, line=self.line, **kwargs)


# Templates ccexport shipped once and no longer does: a copy of an old session.md.j2 may
# still extend or import them.
RETIRED_TEMPLATES = frozenset({"base_session.md.j2", "_parts.md.j2"})
RETIRED_HINT = (
    "ccexport no longer ships it: this template is a copy from an older version. Delete it "
    "to use ours, or copy ours over it with `ccexport templates init --force` (with `--to "
    "DIR` for a folder outside the vault; your edits are overwritten)"
)


def default_templates_dir() -> Path:
    """The shipped templates: inside the installed package, or beside it in a checkout."""
    packaged = Path(__file__).parent / "templates"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "templates"


def _to_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def short_model_name(name: str) -> str:
    """``claude-sonnet-4-5-20250929`` -> ``claude-sonnet-4-5``: the dated suffix is noise."""
    return re.sub(r"-\d{8}$", "", name)


@lru_cache(maxsize=1)
def filters() -> dict[str, Any]:
    """The filters a template may use. The Markdown modules come with the first template
    (a run that renders nothing, or only the shipped templates, never needs Jinja's). Each
    text filter checks its argument first (``filter_args``): a misspelt name keeps its "did
    you mean", a none prints nothing, a number prints as its text."""
    from .filter_args import checked_filters

    return {**checked_filters(), "to_json": _to_json}


def note_link(target: Any, label: str | None = None) -> str:
    """The ``wikilink`` filter: its target made a name a note can have, as note names are
    made (``# | ^ [ ]`` and the like become ``-``), so session text given as a target
    cannot link to a heading or block, or end the link; ``{{ project | wikilink }}`` is
    the project's index note (a project holding no ``/``). The label is made safe as ours."""
    from . import markdown
    from .vaultpaths import safe_relpath

    return markdown.wikilink(safe_relpath(str(target)), label)


def environment(user_dir: str | None) -> jinja2.Environment:
    """One sandboxed environment per template folder, cached for the run (``fresh_templates``
    starts each run afresh, so a template edited between runs of ``watch`` is read again;
    within a run every note uses the templates as they were when first read, with no file
    check per note). A person's templates are read through the run's redaction rules
    (``template_secrets``): a secret written in one reaches no note."""
    if not user_dir:
        return _environment(None, None)

    return _environment(user_dir, rules_in_effect())


@lru_cache(maxsize=8)
def _environment(user_dir: str | None, rules: Any) -> jinja2.Environment:
    import jinja2

    default = jinja2.FileSystemLoader(str(default_templates_dir()))
    loaders: list[jinja2.BaseLoader] = [default, jinja2.PrefixLoader({"default": default})]
    if user_dir:
        # A user's file wins; ours stay reachable as "default/<name>" to extend.
        loaders.insert(0, person_loader(user_dir, rules))
    sandboxed = sandbox()
    env = sandboxed(
        loader=jinja2.ChoiceLoader(loaders),
        undefined=sandboxed.strict_undefined,  # StrictUndefined, saying the name meant
        autoescape=False,  # Markdown, not HTML: escaping is the filters' job
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.filters.update(filters())
    return env


def fresh_templates() -> None:
    """Forget the templates read by an earlier run in this process, and read the reference
    switch again."""
    read_reference_switch()
    use_rules(None, default=True)  # (the built-in rules, until the run says its own)
    _environment.cache_clear()
    shipped_template_in_effect.cache_clear()
    user_template_facts.cache_clear()


@lru_cache(maxsize=8)
def shipped_template_in_effect(name: str, user_dir: Path | None, digest: str) -> bool:
    """Is template ``name`` the shipped file, unchanged (its sha256 is ``digest``), with no
    file of the user's in its place? Then a note may be written without Jinja, the same
    bytes (``session_body``). Asked once per run."""
    import hashlib

    if reference_rendering():
        return False
    if user_dir is not None and os.path.lexists(Path(user_dir) / name):
        return False
    try:
        data = (default_templates_dir() / name).read_bytes()
    except OSError:
        return False
    return hashlib.sha256(data).hexdigest() == digest


def render(name: str, context: dict[str, Any], user_dir: Path | None = None) -> str:
    """Render template ``name``; any failure becomes a TemplateError with file and line."""
    import jinja2

    env = environment(str(user_dir) if user_dir else None)
    try:
        template = env.get_template(name)
        # A person's template that shows tool calls its own way (its own ``item`` or
        # ``tool_call`` block) gets the images a tool returned as items after the call, as
        # before ``attachments``: ours would leave them out of the turn, and theirs out.
        own = user_template_facts(name, user_dir)[0] if user_dir else frozenset()
        context = {**unshared(context), "images_in_calls": not own & {"item", "tool_call"}}
        text = rendered(template, context)
    except jinja2.TemplateSyntaxError as exc:
        raise _syntax_error(exc, name, env) from None
    except jinja2.TemplateNotFound as exc:  # by {% extends %}, {% include %} or {% import %}
        where = _template_location(exc, _user_file(name, user_dir))
        what = f"template not found: {exc.name}"
        if exc.name in RETIRED_TEMPLATES:
            what += f"; {RETIRED_HINT}"
        raise TemplateError(where, what) from None
    except RecursionError as exc:  # ({% extends "session.md.j2" %} in session.md.j2 itself)
        raise _endless(exc, name, user_dir) from None
    except MemoryError as exc:  # (its message is empty)
        where = _template_location(exc, _user_file(name, user_dir))
        at = f" at line {where[1]}" if where[1] else ""
        what = f"template error: the template ran out of memory{at} (it builds too much)"
        raise TemplateError(where, what) from None
    except Exception as exc:  # a runtime error inside a user's template
        where = _template_location(exc, _user_file(name, user_dir))
        raise TemplateError(where, f"template error: {exc}{_nearest_named(exc, env)}") from None
    stray = notefile.stray_end_marker(text)
    if stray is not None:
        raise TemplateError(
            _line_holding(env, template, "ccexport:end"),
            f"template error: prints {stray!r}, which would end ccexport's part of the note "
            "there (the rest would be taken for your text); the note is not written",
        )
    return text


@lru_cache(maxsize=8)
def user_template_facts(name: str, user_dir: Path) -> tuple[frozenset[str], bool]:
    """What template ``name`` of ``user_dir`` (with those it extends, includes or imports)
    does the person's own way: the blocks their files override in a template of ours they
    extend (a whole copy, ``templates init``'s, overrides nothing: it is all theirs), and
    whether any of them shows ``output_path`` (one written before does not: the whole
    outputs it would never name are not copied)."""
    from jinja2 import nodes

    env = environment(str(user_dir))
    blocks: set[str] = set()
    shows_whole_outputs = False
    for used in template_walk(name, user_dir)[0]:
        try:
            source = env.loader.get_source(env, used)[0]  # type: ignore[union-attr]
            parsed = env.parse(source)
        except Exception:  # noqa: BLE001 (the render says what is wrong, file and line)
            continue
        shows_whole_outputs = shows_whole_outputs or "output_path" in source
        if not used.startswith("default/") and os.path.isfile(Path(user_dir) / used):
            if parsed.find(nodes.Extends) is not None:
                blocks.update(block.name for block in parsed.find_all(nodes.Block))
    return frozenset(blocks), shows_whole_outputs


def whole_outputs_shown(name: str, user_dir: Path | None) -> bool:
    """Does the session template in effect name the file of a whole tool output?"""
    return user_dir is None or user_template_facts(name, Path(user_dir))[1]


def compile_problem(name: str, user_dir: Path) -> TemplateError | None:
    """Why the user's template ``name``, or a template it extends, includes or imports
    (named as text), cannot be read as a template: a syntax error, with its file and line;
    one it names that is not there; a file that is not UTF-8 text. None when all can. What a
    render would meet before any session's data: ``doctor`` asks it."""
    return template_walk(name, user_dir)[1]


def template_walk(name: str, user_dir: Path) -> tuple[set[str], TemplateError | None]:
    """The templates ``name`` uses, itself and those it extends, includes or imports (named
    as text), each read as a template; and the first that cannot be (``compile_problem``),
    where the walk stops."""
    import jinja2
    from jinja2 import meta

    env = environment(str(user_dir))
    names: list[tuple[str, str | None]] = [(name, None)]  # (a name, the one naming it)
    seen: set[str] = set()
    optional: dict[str, set[str]] = {}  # a template -> what it includes "ignore missing"
    while names:
        current, named_by = names.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            source, filename, _ = env.loader.get_source(env, current)  # type: ignore[union-attr]
            parsed = env.parse(source, current, filename)
            names += [(n, current) for n in meta.find_referenced_templates(parsed) if n]
            optional[current] = _included_if_there(parsed)
        except jinja2.TemplateSyntaxError as exc:
            return seen, _syntax_error(exc, current, env)
        except jinja2.TemplateNotFound as exc:
            if named_by is not None and exc.name in optional.get(named_by, ()):
                seen.discard(current)  # (the render skips it, and so does the walk)
                continue
            what = f"template not found: {exc.name}"
            if exc.name in RETIRED_TEMPLATES:
                what += f"; {RETIRED_HINT}"
            where = (_user_file(name, user_dir), None)
            if named_by is not None:  # the line naming it, as a render says it
                where = _line_holding(env, env.get_template(named_by), repr(exc.name)[1:-1])
            return seen, TemplateError(where, what)
        except Exception as exc:  # unreadable, not UTF-8
            failed = (_user_file(current, user_dir), None)
            return seen, TemplateError(failed, f"template error: {exc}")
    return seen, None


def _endless(exc: RecursionError, name: str, user_dir: Path | None) -> TemplateError:
    """A template calling itself without end: a macro named, at its line, when the frames
    say one calls itself; else a template extending or including itself."""
    where = _template_location(exc, _user_file(name, user_dir))
    macro = macro_calling_itself(exc)
    if macro is not None and where[1]:
        return TemplateError(
            where,
            f"template error: the macro {macro}() calls itself without end (a call in it "
            "that never stops calling it?)",
        )
    from .template_cycle import cycle

    if (found := cycle(name, user_dir)) is not None:  # the line closing it, in its file
        return TemplateError(*found)
    what = (
        "template error: it calls itself without end: does it extend or include itself? "
        f'Ours is {{% extends "default/{name}" %}}'
    )
    return TemplateError((_user_file(name, user_dir), None), what)


def _included_if_there(parsed: jinja2.nodes.Template) -> set[str]:
    """The names ``{% include "…" ignore missing %}`` names: a render skips one that is not
    there, so ``doctor`` does not say it cannot be found."""
    from jinja2 import nodes

    return {
        node.template.value
        for node in parsed.find_all(nodes.Include)
        if node.ignore_missing and isinstance(node.template, nodes.Const)
    }


def _syntax_error(
    exc: jinja2.TemplateSyntaxError, name: str, env: jinja2.Environment
) -> TemplateError:
    where = exc.filename or exc.name or name
    from .template_blocks import opened_at

    what = f"template syntax error: {exc.message}{_nearest_named(exc, env)}{opened_at(exc, env)}"
    return TemplateError((where, exc.lineno), what)


# Jinja's words for a filter or test it does not have: "No filter named 'defalt'." when the
# template is compiled, "No test named 'od' found." when a branch using it runs.
_NO_SUCH = re.compile(r"No (filter|test) named '(\w+)'")


def _nearest_named(exc: Exception, env: jinja2.Environment) -> str:
    """`` (did you mean default?)`` for a filter or test the template misspelt, else ``""``."""
    from .config_values import did_you_mean

    found = _NO_SUCH.search(str(exc))
    if found is None:
        return ""
    named = env.filters if found[1] == "filter" else env.tests
    # (a name a template can write: not the deadline's own hidden loop filter)
    return did_you_mean(found[2], [name for name in named if name.isidentifier()])


def init_templates(dest: Path, *, force: bool = False) -> tuple[list[str], list[str]]:
    """Copy the shipped templates into ``dest``: (names copied, names kept as they were)."""
    from .vaultio import write_path  # inside a vault, no planted link is followed

    copied, kept = [], []
    for path in sorted(default_templates_dir().glob("*.j2")):
        target = dest / path.name
        if os.path.lexists(target) and not force:
            kept.append(path.name)
            continue
        write_path(target, path.read_bytes())
        copied.append(path.name)
    return copied, kept


# What a note of a session that did not change holds, as this code writes it: raised with
# every change that alters such notes (a source read more fully, a notice added, a note
# filed elsewhere), so that the next run after an upgrade, or a pull of the code, renders
# every note once again (rewriting only those whose bytes differ). The version alone moves
# at releases only: the fixes between them reached a note only when its session grew.
NOTES_REVISION = "2026-12-08.27"


def notes_made_by() -> str:
    """The version and notes' revision a vault's notes were last rendered by (the state
    keeps it: a run, and ``doctor``, can then tell an upgrade from a change of settings)."""
    from . import __version__

    return f"{__version__} {NOTES_REVISION}"


def render_entry(fingerprint: str) -> list[object]:
    """The first entry of a unit's fingerprint in the state: how its notes were rendered
    (templates, settings, version: a hash), and by which version (``notes_made_by``), so
    that a run can tell, unit by unit, an upgrade from a change of settings."""
    return ["render", fingerprint, notes_made_by()]


def template_fingerprint(user_dir: Path | None, settings: Any) -> str:
    """A hash of the templates in effect (a user's file overrides the shipped one), the
    settings that shape a note, the version of ccexport and its notes' revision."""
    import hashlib

    from . import __version__

    files: dict[str, bytes] = {}
    for path in sorted(default_templates_dir().glob("*.j2")):
        files[path.name] = path.read_bytes()
    if user_dir and Path(user_dir).is_dir():
        files.update(_user_files(Path(user_dir)))
    digest = hashlib.sha256(f"{__version__} {NOTES_REVISION}".encode())
    for name, data in sorted(files.items()):
        digest.update(name.encode() + b"\0" + data + b"\0")
    digest.update(repr(settings).encode())
    return digest.hexdigest()


def _user_files(folder: Path) -> dict[str, bytes]:
    """Every file a template in ``folder`` can include, by its name there: an edited
    ``parts/header.md`` re-renders the notes as an edited ``session.md.j2`` does. Hidden
    files and folders (an editor's swap file, ``.git``) are left out."""
    found: dict[str, bytes] = {}
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            path = Path(root, name)
            if not name.startswith(".") and path.is_file():  # never a FIFO or a device
                found[path.relative_to(folder).as_posix()] = path.read_bytes()
    return found


def render_expression(source: str, context: dict[str, Any], user_dir: Any, name: str) -> str:
    """A small template from the configuration (a frontmatter value), rendered safely."""
    env = environment(str(user_dir) if user_dir else None)
    try:
        return rendered(env.from_string(source), context).strip()
    except Exception as exc:  # anything a user's expression can raise
        raise TemplateError((f"config {name}", None), f"expression error: {exc}") from None


def _line_holding(env: jinja2.Environment, template: jinja2.Template, needle: str) -> Place:
    """The template's file and the first line of it holding ``needle`` (no line if none
    does: the text came from a variable or another file)."""
    where = template.filename or template.name or "template"
    try:
        source = env.loader.get_source(env, template.name)[0] if env.loader else ""
    except Exception:  # (read when the note was rendered: gone since, say)
        return where, None
    for number, line in enumerate(source.splitlines(), 1):
        if needle in line:
            return where, number
    return where, None


def _user_file(name: str, user_dir: Path | None) -> str:
    """Where template ``name`` is read from, for an error with no line (one reading it)."""
    mine = Path(user_dir, name) if user_dir else None
    return str(mine) if mine is not None and os.path.lexists(mine) else name


def _template_location(exc: BaseException, file: str) -> Place:
    """The template file and line a runtime error came from, read off the traceback
    (``file`` with no line when none is a template's)."""
    where: Place = (file, None)
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.endswith((".j2", ".md", ".jinja")):
            where = (filename, tb.tb_lineno)
        tb = tb.tb_next
    return where
