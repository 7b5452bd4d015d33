"""A director's templates within bounds: the files of their folder and nothing else, and a
render that ends, in time and in size.

A template is code someone else may have written (a house style passed around a forum): a
loop of loops hangs ``announce`` and, at the close, ``watch --post``; ``{{ 'x' * 10**8 }}``
makes a 100 MB post; a link in the folder makes a file elsewhere the announcement. So:

- every template file is resolved inside its folder (a link out of it, or an
  ``{% include %}`` through a linked folder, is refused), and must be a readable regular file
  (a FIFO, a folder or a dangling link of that name is named, never passed over for the
  built-in), of at most ``FILE_BYTES``, in UTF-8 (else one sentence with the line);
- a render stops after ``RENDER_SECONDS`` of work and at ``POST_CHARS`` characters of output
  (``PAGE_CHARS`` for the report's HTML page), and ``*`` and ``**`` in a template cannot build
  a value past that size first.
"""

from __future__ import annotations

import functools
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tally.errors import InputError
from tally.i18n import tr

RENDER_SECONDS = 10.0
POST_CHARS = 1_000_000  # a Discuz! post is at most tens of thousands (maxpostsize)
PAGE_CHARS = 64_000_000  # the report's page, its pictures inline
FILE_BYTES = 1 << 20


class RenderLimit(Exception):
    """A render went past a bound; its message is the sentence's end."""


def folder_loader(folder: str) -> Any:
    """A Jinja loader of the templates in ``folder``, within bounds (see the module)."""
    from jinja2 import BaseLoader, TemplateNotFound
    from jinja2.loaders import split_template_path

    root = os.path.realpath(folder)

    class FolderLoader(BaseLoader):
        def get_source(
            self, environment: Any, template: str
        ) -> tuple[str, str, Callable[[], bool]]:
            path = os.path.join(folder, *split_template_path(template))
            if not os.path.lexists(path):
                raise TemplateNotFound(template)  # the built-in, behind this loader
            real = os.path.realpath(path)
            if os.path.commonpath([root, real]) != root:
                raise InputError(tr(
                    "{path} leads out of the template folder {folder} (to {real}); a template "
                    "must be a file in the folder itself.", path=path, folder=folder,
                    real=real))  # fmt: skip
            data = _read(path)
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                line = data.count(b"\n", 0, exc.start) + 1
                raise InputError(tr(
                    "{path}, line {line}: the template is not UTF-8 text (byte {byte:,}); save it "
                    "as UTF-8.", path=path, line=line, byte=exc.start)) from None  # fmt: skip
            mtime = os.path.getmtime(path)
            return text, path, lambda: _unchanged(path, mtime)

    return FolderLoader()


def _read(path: str) -> bytes:
    """A template file's bytes, read as every file a user names is (tally.files): a regular
    file within its cap, or one sentence."""
    from tally.files import read_capped

    if os.path.islink(path) and not os.path.exists(path):
        raise InputError(tr("{path} is a link to nothing; remove it or make it a file.",
                            path=path))  # fmt: skip
    return read_capped(Path(path), "template", FILE_BYTES)


def _unchanged(path: str, mtime: float) -> bool:
    try:
        return os.path.getmtime(path) == mtime
    except OSError:
        return False


# A width or precision of seven digits and more in a format string ("%999999999d",
# "{:>999999999}"): a gigabyte of padding from a short text.
_WIDE = re.compile(r"%[-#0 +]*\d{7,}|%[-#0 +]*\d*\.\d{7,}|\{[^{}]*:[^{}]*\d{7,}[^{}]*\}")


def sandbox(limit: int) -> Any:
    """Jinja's immutable sandbox, with no value larger than ``limit`` built by a template:
    ``*`` and ``**`` refused past it before they run, no call or filter given a number past
    it (``'x'.ljust(10**9)``, ``|center(10**9)``), no format string padding past it."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def check(args: Any) -> None:
        for value in args:
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) > limit:
                raise RenderLimit(tr("it asks for a value of {value:,}", value=value))
            wide = _WIDE.search(value) if isinstance(value, str) else None
            if wide is not None:
                raise RenderLimit(tr("it formats with a width of {width!r}", width=wide[0]))

    class Bounded(ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**", "%"})

        def __init__(self, **options: Any) -> None:
            super().__init__(**options)
            self.filters = {name: _checked(f, check) for name, f in self.filters.items()}

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            if operator == "*":
                for seq, n in ((left, right), (right, left)):
                    sized = isinstance(seq, str | list | tuple) and isinstance(n, int)
                    if sized and len(seq) * n > limit:
                        raise RenderLimit(tr("it builds a value of {n:,} items",
                                             n=len(seq) * n))  # fmt: skip
                return left * right
            if operator == "%":
                check([left])
            whole = isinstance(left, int) and isinstance(right, int) and abs(left) > 1
            if operator == "**" and whole and right * abs(left).bit_length() > 4 * limit:
                raise RenderLimit(tr("it computes {left} ** {right}", left=left, right=right))
            return super().call_binop(context, operator, left, right)

        # Every loop of a template's code iterates through ``ticking``, which looks at the
        # render's clock now and then (see ``bounded_render``).
        ticking = staticmethod(_ticking)

        def _generate(self, source: Any, name: Any, filename: Any, defer_init: bool = False) -> str:
            python = super()._generate(source, name, filename, defer_init)
            return _LOOP.sub(r"\1for \2 in environment.ticking(\3):", python)

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
            _in_time()  # a macro that calls itself twice loops without a loop
            check(args)
            check(kwargs.values())
            check([getattr(__obj, "__self__", None)])  # "{:>999999999}".format(1)
            return super().call(__context, __obj, *args, **kwargs)

    return Bounded


def _checked(f: Callable[..., Any], check: Callable[[Any], None]) -> Callable[..., Any]:
    """A filter whose parameters are checked; the value it filters is not (a big number
    shown is no big text), the format string of ``|format`` is."""
    skip = 2 if getattr(f, "jinja_pass_arg", None) is not None else 1
    if f.__name__ == "do_format":
        skip -= 1

    @functools.wraps(f)
    def filtered(*args: Any, **kwargs: Any) -> Any:
        _in_time()  # a chain of filters over a range loops without a template loop
        check(args[skip:])
        check(kwargs.values())
        return f(*args, **kwargs)

    return filtered


# A loop in the Python that Jinja makes of a template: one line, "for <names> in <iterable>:"
# (its names never hold " in ").
_LOOP = re.compile(r"^( *)for (.+?) in (.+):$", re.M)
# The render under way in this thread: when it must end, and the seconds it was given.
_render = threading.local()


def _in_time() -> None:
    deadline = getattr(_render, "deadline", None)
    if deadline is not None and time.monotonic() > deadline:
        raise RenderLimit(tr("it ran for more than {seconds:g} seconds", seconds=_render.seconds))


def _ticking(items: Any) -> Iterator[Any]:
    """``items``, one by one, the render's clock looked at every 64th turn of the render's
    loops (a loop of loops over a long text calls nothing else that would look)."""
    deadline = getattr(_render, "deadline", None)
    if deadline is None:  # rendered outside bounded_render: nothing to look at
        yield from items
        return
    for item in items:
        # The turns of every loop of the render, counted together: loops of 63 turns
        # nested five deep look at the clock as often as one loop of their product.
        _render.turns = turns = _render.turns + 1
        if not turns & 63 and time.monotonic() > deadline:
            raise RenderLimit(tr("it ran for more than {seconds:g} seconds",
                                 seconds=_render.seconds))  # fmt: skip
        yield item


def bounded_render(chunks: Iterator[str], limit: int, seconds: float | None = None) -> str:
    """The render's output, joined from ``chunks`` (a template's ``generate``), stopped at
    ``limit`` characters or after ``seconds``.

    The clock is looked at where a template can go on: each turn of each of its loops (the
    code Jinja makes of it iterates through ``_ticking``) and each call it makes (a macro
    calling itself), so a template's straight code, at most a file's length, is all that
    runs between two looks; tally's and the libraries' code runs as it is, untraced."""
    spent = RENDER_SECONDS if seconds is None else seconds
    before = (getattr(_render, "deadline", None), getattr(_render, "seconds", None),
              getattr(_render, "turns", 0))  # fmt: skip
    _render.deadline, _render.seconds, _render.turns = time.monotonic() + spent, spent, 0
    out: list[str] = []
    size = 0
    try:
        for chunk in chunks:
            size += len(chunk)
            if size > limit:
                raise RenderLimit(tr("its text passes {limit:,} characters", limit=limit))
            out.append(chunk)
    finally:
        _render.deadline, _render.seconds, _render.turns = before
    return "".join(out)
