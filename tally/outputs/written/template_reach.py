"""Which of the values tally hands a template the template can reach, read from its syntax
tree: the report draws a picture (a few hundred milliseconds of matplotlib each) only when
its template can show it.

Sound, not clever: a value is left out only when the template has no way to it. A
sandboxed template reaches a value of its context by its name alone (no function it may
call hands it the context); the items of a list (the report's ``days``) only through
``{% for d in days %}``, and an item's values only as ``d.key`` or ``d["key"]`` with a key
written out. Anything else (the list or an item used whole: printed, filtered, compared,
handed to a macro, unpacked, set to another name; ``loop.previtem``; a key computed; a
recursive loop; another template included, imported or extended) and everything is taken
as reached. Which is why the reading needs no knowledge of Jinja's scopes: a name is held
to the strictest rule wherever it appears.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# What a loop's ``loop`` gives that holds no item: ``previtem``, ``nextitem`` and calling
# ``loop`` itself (a recursive loop) do, and so does iterating it.
_LOOP_SAFE = frozenset(
    {"index", "index0", "revindex", "revindex0", "first", "last", "length", "depth",
     "depth0", "cycle", "changed"}
)  # fmt: skip
# What may be asked of the list itself without reaching an item's values.
_LIST_SAFE_FILTERS = frozenset({"length", "count"})


@dataclass(frozen=True)
class Reach:
    """What a template may read: the context's names (``names``) and, of each item of
    the list, the keys (``keys``)."""

    names: frozenset[str]
    keys: frozenset[str]


def reach(tree: Any, items: str, item_keys: frozenset[str]) -> Reach | None:
    """What the template ``tree`` (Jinja's ``nodes.Template``) may read of its context,
    whose ``items`` is a list of dicts with the keys ``item_keys``; None when it cannot be
    told (then it may read everything)."""
    from jinja2 import nodes

    walked = list(_walk(tree))
    if any(isinstance(n, nodes.Extends | nodes.Include | nodes.Import | nodes.FromImport)
           for n, _ in walked):  # fmt: skip
        return None  # another template's reach is its own
    loop_names: set[str] = set()
    for node, _ in walked:
        if isinstance(node, nodes.For) and _is_name(node.iter, items):
            target = node.target
            if node.recursive or not isinstance(target, nodes.Name):
                return None
            if target.name in (items, "loop"):
                return None
            loop_names.add(target.name)
    names: set[str] = set()
    keys: set[str] = set()
    for node, parent in walked:
        if not isinstance(node, nodes.Name) or node.ctx != "load":
            continue
        name = node.name
        names.add(name)
        if name == items:
            whole = (
                (isinstance(parent, nodes.For) and parent.iter is node)
                or (isinstance(parent, nodes.If) and parent.test is node)
                or (isinstance(parent, nodes.Filter) and parent.node is node
                    and parent.name in _LIST_SAFE_FILTERS and not parent.args
                    and not parent.kwargs and parent.dyn_args is None
                    and parent.dyn_kwargs is None)
            )  # fmt: skip
            if not whole:
                return None
        elif name in loop_names:
            key = _key(node, parent)
            if key not in item_keys:
                return None  # used whole, a key computed, or a dict's method (items)
            keys.add(key)
        elif name == "loop" and not (
            isinstance(parent, nodes.Getattr) and parent.node is node and parent.attr in _LOOP_SAFE
        ):
            return None
    return Reach(frozenset(names), frozenset(keys))


def _walk(tree: Any) -> Iterator[tuple[Any, Any]]:
    """Every node of ``tree`` with its parent; a stack, not recursion (a template may nest
    as deep as Jinja's parser lets it)."""
    stack: list[tuple[Any, Any]] = [(tree, None)]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        stack.extend((child, node) for child in node.iter_child_nodes())


def _is_name(node: Any, name: str) -> bool:
    from jinja2 import nodes

    return isinstance(node, nodes.Name) and node.name == name


def _key(node: Any, parent: Any) -> str | None:
    """The key ``parent`` reads of the item ``node`` (``d.key``, ``d["key"]``), if it is one
    written out."""
    from jinja2 import nodes

    if isinstance(parent, nodes.Getattr) and parent.node is node:
        return str(parent.attr)
    if isinstance(parent, nodes.Getitem) and parent.node is node:
        written = parent.arg
        if isinstance(written, nodes.Const) and isinstance(written.value, str):
            return written.value
    return None
