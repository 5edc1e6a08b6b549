"""A person's template that extends, includes or imports itself, or a cycle of them
(``{% extends "session.md.j2" %}`` in their own session.md.j2; a.j2 extending b.j2 that
extends a.j2): Jinja recurses until Python stops it, an error with no template line. This
finds the line that closes the cycle, in the file that holds it, as other template errors
name theirs (``render._endless`` asks it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

_VERBS = {"Extends": "extends", "Include": "includes", "Import": "imports", "FromImport": "imports"}


def _references(env: Any, name: str) -> tuple[str, list[tuple[str, str, int]]]:
    """The file of template ``name`` and the templates it names as text: (verb, name,
    line) each, in order."""
    from jinja2 import nodes

    source, filename, _ = env.loader.get_source(env, name)
    parsed = env.parse(source, name, filename)
    found = []
    for node in parsed.find_all((nodes.Extends, nodes.Include, nodes.Import, nodes.FromImport)):
        if isinstance(node.template, nodes.Const) and isinstance(node.template.value, str):
            found.append((_VERBS[type(node).__name__], node.template.value, node.lineno))
    found.sort(key=lambda ref: ref[2])
    return filename or name, found


def cycle(name: str, user_dir: Path | None) -> tuple[tuple[str, int], str] | None:
    """((file, line), what) of the reference that brings template ``name``'s chain back to
    a template already on it, or None when none does (the recursion was another's)."""
    from .render import environment

    env = environment(str(user_dir) if user_dir else None)
    path: list[tuple[str, str]] = []  # (a template on the chain, how it names the next)

    def walk(current: str, seen: set[str]) -> tuple[tuple[str, int], str] | None:
        try:
            filename, refs = _references(env, current)
        except Exception:  # noqa: BLE001 (one not there, not a template: said elsewhere)
            return None
        for verb, target, line in refs:
            if target == current or target in {t for t, _ in path}:
                return (filename, line), _said(path, current, verb, target)
            if target in seen:
                continue
            seen.add(target)
            path.append((current, verb))
            found = walk(target, seen)
            path.pop()
            if found:
                return found
        return None

    return walk(name, {name})


def _said(path: list[tuple[str, str]], current: str, verb: str, target: str) -> str:
    if target == current:
        from .render import default_templates_dir

        said = f"template error: {current} {verb} itself, so it never ends"
        if (default_templates_dir() / current).is_file():
            said += (
                f' (ours is {{% extends "default/{current}" %}}: a file of yours named as '
                "ours is read in its place)"
            )
        return said
    steps = [*path[[t for t, _ in path].index(target) :], (current, verb)]
    # "a.j2 includes b.j2, which extends a.j2 again"
    chain = f"{steps[0][0]} {steps[0][1]}"
    for template, how in steps[1:]:
        chain += f" {template}, which {how}"
    return f"template error: {chain} {target} again: they call each other without end"
