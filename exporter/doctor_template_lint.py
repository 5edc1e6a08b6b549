"""``doctor``'s reading of a person's templates for what renders without an error but harms
the notes: session text printed with no escaping filter (it becomes live Markdown: an
unclosed ``<!--`` or ``%%`` in a title hides the person's notes below in reading view, a
Templater command runs), a sample note ending inside an open code block or comment, and a
template writing frontmatter of its own."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .template_open import still_open

if TYPE_CHECKING:
    from jinja2 import nodes

    from .doctor_check import Check
    from .doctor_templates import SampleNotes
    from .notespec import NoteSettings

# The filters that make session text safe to print (``filter_args``), and those whose
# result is a number, not the text.
_ESCAPING = frozenset({"prose", "literal", "inline", "fence", "code", "callout", "wikilink"})
# (``to_json``, ``tojson``, ``short_model``, ``format`` and ``join`` give the text they are
# given, or hold it, as it came: followed.)
_NO_TEXT = frozenset({"length", "count", "int", "float", "wordcount"})
# Filters whose arguments they make safe themselves (a link's target and label).
_SAFE_ARGUMENTS = frozenset({"wikilink"})
# A ``replace`` is the author's own escaping, for a place no filter of ours fits (the
# shipped project index quotes ``project`` in a Dataview query with it): not said.
_OWN_ESCAPING = frozenset({"replace"})
# Session text, by the name or field a template reads it as, with the filter to use.
_RAW_NAMES = {"title": "inline", "project": "inline"}
_RAW_FIELDS = {
    "text": "prose", "prompt": "prose", "explanation": "prose", "description": "inline",
    "title": "inline", "project": "inline", "summary": "inline", "cwd": "code",
    "git_branch": "code", "agent_label": "inline", "output": 'fence("text")',
    "command": "code", "model": "inline", "models": "inline",
}  # fmt: skip


def raw_text_checks(templates: Path, names: Iterable[str]) -> list[Check]:
    """One check for each output expression that prints session text with no escaping
    filter, by file and line, in the files ``names`` of ``templates`` (the overrides and
    the files they use: one nothing uses writes nothing). Each is read as the run reads
    it, its secrets redacted: a check quotes what the template wrote."""
    import jinja2

    from .doctor_check import Check
    from .template_secrets import redacted_source, rules_in_effect

    checks = []
    env = jinja2.Environment()
    rules = rules_in_effect()
    for name in sorted(set(names)):
        path = templates / name
        try:
            parsed = env.parse(redacted_source(path.read_text(encoding="utf-8"), rules)[0])
        except Exception:  # noqa: BLE001 (template_checks says why it cannot be read)
            continue
        for line, shown, use in _raw_outputs(parsed):
            said = (
                f"{path}:{line}: prints {shown} unescaped: session text becomes live Markdown "
                f"(an unclosed <!-- or %% hides your notes below it in reading view); use "
                f"`| {use}`"
            )
            checks.append(Check("Templates", "attention", said))
        for line, name in block_after_text(parsed):
            said = (
                f"{path}:{line}: prints `{name}` after text on its line: what it writes is a "
                "block, and its first line joins that line (a reply starting with a code block "
                "opens one that runs over the end marker and your notes below it); start a "
                f"line of its own with it"
            )
            checks.append(Check("Templates", "attention", said))
    return checks


# The filters whose output is a block of lines (``filter_args``): each must start a line.
_BLOCK_FILTERS = frozenset({"prose", "literal", "fence", "callout"})


def block_after_text(tree: nodes.Node) -> list[tuple[int, str]]:
    """(line, filter) for each output of a block filter with text before it on its line
    (``**{{ turn.role }}:** {{ item.text | prose }}``, ``- {{ item.text | literal }}``),
    text a template writes or prints in the same output; a line begun by a tag before it
    (``{% if x %}{{ … | prose }}``) is not followed."""
    from jinja2 import nodes

    found: list[tuple[int, str]] = []
    for output in tree.find_all(nodes.Output):
        before = ""  # what the line holds so far
        for expr in output.nodes:
            printed = expr.data if isinstance(expr, nodes.TemplateData) else None
            if isinstance(expr, nodes.Const) and isinstance(expr.value, str):
                printed = expr.value
            if printed is not None:
                before = printed.rpartition("\n")[2] if "\n" in printed else before + printed
                continue
            name = _block_filter(expr)
            if name and before.strip():
                found.append((expr.lineno, name))
            before += "…"
    return found


def _block_filter(expr: nodes.Node) -> str | None:
    """The block filter ``expr`` prints through (either branch of an ``a if c else b``)."""
    from jinja2 import nodes

    if isinstance(expr, nodes.CondExpr):
        return _block_filter(expr.expr1) or (
            _block_filter(expr.expr2) if expr.expr2 is not None else None
        )
    while isinstance(expr, nodes.Filter):
        if expr.name in _BLOCK_FILTERS:
            return expr.name
        expr = expr.node
    return None


def _raw_outputs(
    node: nodes.Node, held: dict[str, tuple[str, str]] | None = None
) -> list[tuple[int, str, str]]:
    """(line, the expression as written, the filter to use) for each output of session text
    with no escaping filter; a ``{% filter prose %}`` block's outputs are escaped."""
    from jinja2 import nodes

    held = _held_values(node) if held is None else held
    found: list[tuple[int, str, str]] = []
    for child in node.iter_child_nodes():
        if isinstance(child, nodes.FilterBlock) and _escapes(child.filter):
            continue
        if isinstance(child, nodes.Output):
            for expr in child.nodes:
                if not isinstance(expr, nodes.TemplateData):
                    found += [(expr.lineno, *raw) for raw in _raw_in(expr, held)]
            continue
        found += _raw_outputs(child, held)
    return found


def _held_values(tree: nodes.Node) -> dict[str, tuple[str, str]]:
    """The names of ``tree`` that hold session text as it came, one step from where it was
    read: ``{% set t = item.text %}``, ``{% with t = item.text %}``, and a macro's argument
    given it by a call in the same file (``show(item.text)`` or ``show(x=item.text)``), each
    with (what it holds, as written; the filter to use). Not followed: a name set from
    another such name, an argument a macro passes on, macros of another file, a ``{% set
    %}…{% endset %}`` block (its outputs are read as any), a loop over session text."""
    from jinja2 import nodes

    held: dict[str, tuple[str, str]] = {}

    def hold(name: str, value: nodes.Node, via: str = "") -> None:
        raw = _raw_in(value, {})
        if raw and name not in held:
            held[name] = (f"{name}, which holds {raw[0][0]}{via},", raw[0][1])

    for assign in tree.find_all(nodes.Assign):
        if isinstance(assign.target, nodes.Name):
            hold(assign.target.name, assign.node)
    for block in tree.find_all(nodes.With):
        for target, value in zip(block.targets, block.values, strict=False):
            if isinstance(target, nodes.Name):
                hold(target.name, value)
    macros = {macro.name: [a.name for a in macro.args] for macro in tree.find_all(nodes.Macro)}
    for call in tree.find_all(nodes.Call):
        if not isinstance(call.node, nodes.Name) or call.node.name not in macros:
            continue
        params, via = (
            macros[call.node.name],
            f" (given by {call.node.name}() at line {call.lineno})",
        )
        for param, value in zip(params, call.args, strict=False):
            hold(param, value, via)
        for keyword in call.kwargs:
            if keyword.key in params:
                hold(keyword.key, keyword.value, via)
    return held


def _escapes(filter_node: Any) -> bool:
    while filter_node is not None:  # (``{% filter upper | prose %}``: its last is outermost)
        if filter_node.name in _ESCAPING:
            return True
        filter_node = filter_node.node
    return False


def _raw_in(expr: nodes.Node, held: dict[str, tuple[str, str]]) -> list[tuple[str, str]]:
    """The session text ``expr`` prints as it is: (its name as written, the filter to use);
    ``held``: the names that hold such text (``_held_values``)."""
    from jinja2 import nodes

    if isinstance(expr, nodes.Filter):
        # (its arguments too: ``"%s" | format(item.text)``, a callout's title, a fence's lang)
        given = (
            [] if expr.name in _SAFE_ARGUMENTS else [*expr.args, *(k.value for k in expr.kwargs)]
        )
        raw = [found for arg in given for found in _raw_in(arg, held)]
        if expr.name in _ESCAPING | _NO_TEXT | _OWN_ESCAPING or expr.node is None:
            return raw
        return _raw_in(expr.node, held) + raw
    if isinstance(expr, (nodes.List, nodes.Tuple)):  # (``[item.text] | join``)
        return [found for part in expr.items for found in _raw_in(part, held)]
    if isinstance(expr, nodes.CondExpr):
        return _raw_in(expr.expr1, held) + (
            _raw_in(expr.expr2, held) if expr.expr2 is not None else []
        )
    if isinstance(expr, nodes.Concat):
        return [raw for part in expr.nodes for raw in _raw_in(part, held)]
    if isinstance(expr, nodes.Add):
        return _raw_in(expr.left, held) + _raw_in(expr.right, held)
    if isinstance(expr, nodes.Call) and isinstance(expr.node, nodes.Getattr):
        return _raw_in(expr.node.node, held)  # a method of the text: ``item.text.strip()``
    if isinstance(expr, nodes.Name) and expr.name in held:
        return [held[expr.name]]
    field = _field_read(expr)
    if field is None:
        return []
    name, is_field = field
    use = (_RAW_FIELDS if is_field else _RAW_NAMES).get(name)
    return [(_written(expr), use)] if use else []


def _field_read(expr: nodes.Node) -> tuple[str, bool] | None:
    """(the name, whether it is a field of a value) that ``expr`` reads, or None."""
    from jinja2 import nodes

    if isinstance(expr, nodes.Name):
        return expr.name, False
    if isinstance(expr, nodes.Getattr):
        return expr.attr, True
    if isinstance(expr, nodes.Getitem) and isinstance(expr.arg, nodes.Const):
        return (expr.arg.value, True) if isinstance(expr.arg.value, str) else None
    return None


def _written(expr: nodes.Node) -> str:
    """``item.text``, ``s["title"]``: the expression as a person wrote it, near enough."""
    from jinja2 import nodes

    if isinstance(expr, nodes.Name):
        return expr.name
    if isinstance(expr, nodes.Getattr):
        return f"{_written(expr.node)}.{expr.attr}"
    if isinstance(expr, nodes.Getitem) and isinstance(expr.arg, nodes.Const):
        return f"{_written(expr.node)}[{expr.arg.value!r}]"
    return "…"


def sample_output_checks(
    templates: Path, settings: NoteSettings | None, samples: SampleNotes | None = None
) -> list[Check]:
    """What the session template's part of a sample note does to the note around it: ends
    inside an open code block or comment (the person's notes below shown as code, or
    hidden), or starts with frontmatter of its own (a rule and a heading, not properties).
    ``samples``: the sample's notes, made once for all of doctor's checks."""
    from .doctor_check import Check

    body = sample_body(templates, settings, samples)
    if body is None:
        return []
    template = templates / "session.md.j2"
    checks = []
    if body.lstrip("\ufeff").startswith("---"):
        checks.append(
            Check(
                "Templates",
                "attention",
                f"{template} starts its part with ---, as frontmatter would: below ccexport's "
                "own properties it is a rule and a heading, not properties; put properties "
                "in the config's [frontmatter] add (docs/notes.md, Properties)",
            )
        )
    if opened := still_open(body):
        checks.append(
            Check(
                "Templates",
                "attention",
                f"{template} leaves {opened} open at the end of a sample note: the end "
                'marker, "## My notes" and your notes below it would show as '
                f"{'code' if 'code' in opened else 'nothing (hidden)'} in Obsidian",
            )
        )
    return checks


def sample_body(
    templates: Path, settings: NoteSettings | None, samples: SampleNotes | None = None
) -> str | None:
    """The part the session template of ``templates`` writes for ``sample_session``, or
    None when it fails (``tried_on_a_sample`` says why) or there is none of the person's."""
    from .doctor_templates import SampleNotes

    if not (templates / "session.md.j2").is_file():
        return None
    try:
        return (samples or SampleNotes(templates, settings)).note().body
    except Exception:  # noqa: BLE001 (said by template_checks)
        return None
