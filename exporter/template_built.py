"""Text a template builds with ``~``, and what its filters return, held to the note's limit
on text built (``sandbox.MAX_NOTE_CHARS``).

Jinja compiles ``a ~ b`` to a plain join and a filter to a plain call, which no hook of
the sandbox sees: a macro passing ``s ~ s`` (or ``[s, s] | join``) to itself doubles a
text each call, 128 MB in 27 calls, gigabytes soon after, all before anything is printed.
So each ``~`` is compiled through ``JOIN_CHECK``, which measures its pieces before it joins
them, and each filter's result through ``BUILT_CHECK``, which measures it once made (as
``Sandbox.call`` does a method's). Only a text past the limit counts: a template joining
small pieces in a loop builds as much as it likes.
"""

from __future__ import annotations

from typing import Any

from .sandbox import MAX_NOTE_CHARS, _count_text
from .template_deadline import LOOP_CHECK

# The filters each ``~`` and each filter's result are passed through (names no template
# can write).
JOIN_CHECK = "(text joined)"
BUILT_CHECK = "(text built)"


def checked_filters() -> dict[str, Any]:
    """The two filters, for the sandbox's environment."""
    from jinja2 import pass_eval_context
    from jinja2.runtime import markup_join

    @pass_eval_context
    def joined(eval_ctx: Any, values: list[Any]) -> str:
        if eval_ctx.autoescape:  # ({% autoescape %}: escaping may grow the pieces)
            return built(markup_join(values))
        texts = [str(value) for value in values]
        size = sum(map(len, texts))
        if size > MAX_NOTE_CHARS:
            _count_text(size)  # (refused before it is joined)
        return "".join(texts)

    return {JOIN_CHECK: joined, BUILT_CHECK: built}


def built(value: Any) -> Any:
    """``value`` (a filter's result), refused when it is a text or list past the limit."""
    if isinstance(value, (str, bytes, list)) and len(value) > MAX_NOTE_CHARS:
        _count_text(len(value))
    return value


def texts_checked(tree: Any) -> Any:
    """``tree`` (a parsed template) with each ``~`` compiled through ``JOIN_CHECK`` and each
    filter's result through ``BUILT_CHECK`` (not a ``{% filter %}`` block's, whose text is
    printed, and counted so)."""
    from jinja2 import nodes
    from jinja2.visitor import NodeTransformer

    ours = {LOOP_CHECK, JOIN_CHECK, BUILT_CHECK}

    class Checked(NodeTransformer):
        def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
            node = self.generic_visit(node)
            pieces = nodes.List(node.nodes, lineno=node.lineno)
            return nodes.Filter(pieces, JOIN_CHECK, [], [], None, None, lineno=node.lineno)

        def visit_Filter(self, node: nodes.Filter) -> nodes.Node:
            node = self.generic_visit(node)
            if node.name in ours or _of_a_block(node):
                return node
            return nodes.Filter(node, BUILT_CHECK, [], [], None, None, lineno=node.lineno)

    return Checked().visit(tree)


def _of_a_block(node: Any) -> bool:
    """Is ``node`` a ``{% filter %}`` block's filter (its innermost one filters no value)?"""
    from jinja2 import nodes

    while isinstance(node, nodes.Filter):
        node = node.node
    return node is None
