"""Secrets in a person's own templates and ``[frontmatter] add`` values.

A session's text is redacted before it is rendered; a template's own text never passes
through that step. A token written in a template (or a file it includes, or an ``add``
value) would then reach every note. So the template loader redacts each source it reads
with the run's rules before Jinja compiles it: the note holds ``[REDACTED:<rule>]`` where
the template spelt the secret. The export and ``doctor`` say, once per run, which file and
line holds one. A template that builds a secret from pieces at render time (``'gh' ~
'p_…'``) is not found: only its source is read.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import Problem
from .redact_names import PLACED, PLACEHOLDER

if TYPE_CHECKING:
    import jinja2

    from .redact import Redactor

BOM = "\ufeff"
# The rules the templates are read with: the built-in ones until a run says otherwise
# (``use_rules``), so that nothing renders a template unredacted by default.
_DEFAULT = object()
_rules_in_effect: list[Any] = [_DEFAULT]


def use_rules(rules: Redactor | None, *, default: bool = False) -> None:
    """Read templates with ``rules`` from now on (None: ``--no-redact``, as they are;
    ``default``: the built-in rules)."""
    _rules_in_effect[0] = _DEFAULT if default else rules


def rules_in_effect() -> Redactor | None:
    rules = _rules_in_effect[0]
    if rules is _DEFAULT:
        from .redact import redactor

        return redactor()
    return rules


def redacted_source(source: str, rules: Redactor | None) -> tuple[str, list[tuple[int, str]]]:
    """``source`` without a leading byte-order mark, each secret in it replaced by its
    placeholder; and the (line, rule) of each secret found there, lines counted from 1 in
    ``source``."""
    source = source.removeprefix(BOM)
    if rules is None:
        return source, []
    redacted, found = _redacted(source, rules)
    return redacted, list(found)


@lru_cache(maxsize=64)
def _redacted(source: str, rules: Redactor) -> tuple[str, tuple[tuple[int, str], ...]]:
    """(``redacted_source``'s work, once per text and rules: a run reads a template when its
    secrets are said, when its files are walked and when it is compiled.)"""
    redacted = rules.text(source)
    if redacted is source or redacted == source:
        return source, ()
    was, now = source.splitlines(), redacted.splitlines()
    found: list[tuple[int, str]] = []
    matcher = difflib.SequenceMatcher(None, was, now, autojunk=False)
    for tag, start, _, new_start, new_end in matcher.get_opcodes():
        if tag == "equal":
            continue
        before = set(PLACED.findall("\n".join(was[start : start + 1])))
        for rule in dict.fromkeys(PLACED.findall("\n".join(now[new_start:new_end]))):
            if rule not in before:
                found.append((start + 1, rule))
    return redacted, tuple(found)


def person_loader(user_dir: str, rules: Any) -> jinja2.BaseLoader:
    """The loader of a person's template folder: each source without the byte-order mark
    an editor may save (Notepad: it would print U+FEFF before every note's heading, which is
    then no heading), and with each secret in it written as its placeholder."""
    import jinja2

    class PersonLoader(jinja2.FileSystemLoader):
        def get_source(self, environment: Any, template: str) -> Any:
            try:
                source, filename, uptodate = super().get_source(environment, template)
            except UnicodeDecodeError as exc:
                raise not_utf8(exc, Path(user_dir, template), template) from None
            return redacted_source(source, rules)[0], filename, uptodate

    return PersonLoader(user_dir)


def not_utf8(exc: UnicodeDecodeError, path: Path, name: str) -> jinja2.TemplateSyntaxError:
    """A template file that is not UTF-8 text, said with the line and column of its first
    byte that is not (Python says a byte offset: "position 2")."""
    import jinja2

    data = exc.object if isinstance(exc.object, bytes) else b""
    line = data.count(b"\n", 0, exc.start) + 1
    column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
    byte = f" 0x{data[exc.start]:02x}" if exc.start < len(data) else ""
    return jinja2.TemplateSyntaxError(
        f"not UTF-8 text: byte{byte} in column {column} (save the file as UTF-8)",
        line,
        name,
        str(path),
    )


def secret_said(rule: str, of: str = "template") -> str:
    """What a warning says of a secret found in a template (after its file and line), or
    in the configuration's ``add`` values (``of``)."""
    article = "an" if rule[:1] in "aeio" else "a"  # (an openai-api-key, a uri-credentials)
    return f"holds {article} {rule}: written as {PLACEHOLDER.format(rule)}; take it out of the {of}"


def template_secrets(
    user_dir: Path | None, names: Iterable[str], rules: Redactor | None
) -> list[tuple[str, int, str]]:
    """(file, line, rule) of each secret in the person's templates ``names`` and what they
    extend, include or import (the shipped ones hold none)."""
    if user_dir is None or rules is None:
        return []
    from .render import template_walk

    found: list[tuple[str, int, str]] = []
    files: set[Path] = set()
    for name in names:
        if not (Path(user_dir) / name).is_file():
            continue
        for used in template_walk(name, Path(user_dir))[0]:
            files.add(Path(user_dir) / used)
    for path in sorted(files):
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):  # (the render says what is wrong)
            continue
        found += [(str(path), line, rule) for line, rule in redacted_source(source, rules)[1]]
    return found


def template_secret_problems(
    user_dir: Path | None, names: Iterable[str], rules: Redactor | None
) -> list[Problem]:
    """One warning per template file and line holding a secret."""
    return [
        Problem(path, secret_said(rule), line=line)
        for path, line, rule in template_secrets(user_dir, names, rules)
    ]


def redacted_additions(
    additions: Mapping[str, Any], rules: Redactor | None
) -> tuple[dict[str, Any], list[Problem]]:
    """``[frontmatter] add`` with each secret in its texts replaced by its placeholder (an
    expression's source too), and one warning per value that held one."""
    kept = dict(additions)
    problems: list[Problem] = []
    if rules is None:
        return kept, problems
    for key, value in additions.items():
        if not isinstance(value, str):
            continue
        redacted = rules.text(value)
        if redacted is value or redacted == value:
            continue
        kept[key] = redacted
        for rule in dict.fromkeys(PLACED.findall(redacted)):
            problems.append(
                Problem(f"config frontmatter.add.{key}", secret_said(rule, of="configuration"))
            )
    return kept, problems


def run_start(options: Any, settings: Any) -> tuple[Any, list[Problem]]:
    """At a run's start: read templates with the run's rules from now on, and give back the
    note settings with ``add`` values redacted, and the warnings for every secret found in
    the templates the run uses and in those values (said once per run, not per note)."""
    from dataclasses import replace

    from .index import PROJECT_TEMPLATE, PROJECTS_TEMPLATE

    rules = options.redactor()
    use_rules(rules)
    names = (settings.session_template, PROJECT_TEMPLATE, PROJECTS_TEMPLATE)
    problems = template_secret_problems(options.templates, names, rules)
    additions, said = redacted_additions(settings.frontmatter_add, rules)
    if said:
        settings = replace(settings, frontmatter_add=additions)
    return settings, problems + said
