"""The text of `--json`: ``json.dumps(data, ensure_ascii=False, indent=2)``, byte for byte,
written in about half the time.

Given an indent, CPython 3.11 encodes in pure Python (its C encoder writes no indent): a
generator for each container, each piece of text handed up through every generator above
it (a ballot's field through three), each value's type tried in turn. Here a container is
one call that appends its lines; a value of a plain type is written by the function for its
type; a key, with its line's comma and indent, is written once a depth (a ballot's twenty
keys once a run, not once a ballot); strings are escaped by json's C escaper. Writing a
leaf container with json's C encoder, its items parted by the depth's newline, was no
faster on tally's outputs: it pays its own setup for each ballot.

What json.dumps does with any value it takes is done the same way: a tuple is a list; a
bool, int, float or None key becomes its text; an int or float of a subclass is written as
the number (``int.__repr__``, ``float.__repr__``); NaN and the infinities as NaN, Infinity
and -Infinity (tally writes none); a str subclass as its text. A container inside itself,
or a value or key JSON has no word for, is json.dumps's to refuse: it is asked, and raises
its own ValueError or TypeError; so is one nested too deep for this writer's recursion.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

_INDENT = "  "
_INFINITY = float("inf")


class _Unencodable(Exception):
    """A value json.dumps refuses: it is asked again, to raise its own error."""


def dumps(data: Any) -> str:
    """``json.dumps(data, ensure_ascii=False, indent=2)``: the same text."""
    out: list[str] = []
    try:
        _value(data, "\n", out, set())
    except (_Unencodable, RecursionError):
        # Two frames a depth against json's one: a value nested past about half the
        # interpreter's limit is json.dumps's to write (or to refuse, as deep as its own).
        return json.dumps(data, ensure_ascii=False, indent=2)
    return "".join(out)


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


# The text of a plain value of exactly these types; a subclass takes ``_scalar``'s way.
_WRITE: dict[type, Callable[[Any], str]] = {
    str: encode_basestring,
    int: int.__repr__,
    float: _float,
    bool: lambda value: "true" if value else "false",
    type(None): lambda value: "null",
}


def _scalar(value: Any) -> str | None:
    """A plain value's text, json.dumps's checks in its order; None for anything else."""
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    return None


def _key(key: Any) -> str:
    """A key's text: a str as it is; a bool, int, float or None as json.dumps writes it as a
    value (the same text, in the order of its checks or of ``_scalar``'s: no value is two of
    these kinds but a bool, which both check first)."""
    if isinstance(key, str):
        return key
    text = _scalar(key)
    if text is None:
        raise _Unencodable
    return text


def _value(value: Any, newline: str, out: list[str], seen: set[int]) -> None:
    """``value`` at the depth whose lines start with ``newline``."""
    kind = type(value)
    if kind is dict:
        _dict(value, newline, out, seen)
    elif kind is list:
        _list(value, newline, out, seen)
    elif (text := _scalar(value)) is not None:
        out.append(text)
    elif isinstance(value, (list, tuple)):
        _list(value, newline, out, seen)
    elif isinstance(value, dict):
        _dict(value, newline, out, seen)
    else:
        raise _Unencodable


def _list(items: list[Any] | tuple[Any, ...], newline: str, out: list[str], seen: set[int]) -> None:
    if not items:
        out.append("[]")
        return
    _enter(items, seen)
    inner = newline + _INDENT
    part = "[" + inner
    for item in items:
        write = _WRITE.get(type(item))
        if write is not None:
            out.append(part + write(item))
        else:
            out.append(part)
            _value(item, inner, out, seen)
        part = "," + inner
    out.append(newline + "]")
    seen.discard(id(items))


def _dict(mapping: dict[Any, Any], newline: str, out: list[str], seen: set[int]) -> None:
    if not mapping:
        out.append("{}")
        return
    _enter(mapping, seen)
    inner = newline + _INDENT
    heads = _heads(inner)
    first = True
    for key, item in mapping.items():
        head = heads.get(key) if type(key) is str else None
        if head is None:
            head = f",{inner}{encode_basestring(_key(key))}: "
            if type(key) is str:
                heads[key] = head
        if first:
            head = "{" + head[1:]
            first = False
        write = _WRITE.get(type(item))
        if write is not None:
            out.append(head + write(item))
        else:
            out.append(head)
            _value(item, inner, out, seen)
    out.append(newline + "}")
    seen.discard(id(mapping))


def _heads(inner: str) -> dict[str, str]:
    """A depth's keys as written before their values: the comma, the newline and indent,
    the key and its colon. Forgotten when they grow many (players' names are keys too)."""
    heads = _HEADS.get(inner)
    if heads is None or len(heads) > 1000:
        heads = _HEADS[inner] = {}
    return heads


_HEADS: dict[str, dict[str, str]] = {}


def _enter(container: object, seen: set[int]) -> None:
    if id(container) in seen:
        raise _Unencodable  # inside itself: json.dumps says so
    seen.add(id(container))
