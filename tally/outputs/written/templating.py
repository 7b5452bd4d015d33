"""The Jinja machinery every template of tally runs in: the director's folder before the
built-in templates, Jinja's sandbox within bounds (``template_bounds``), undefined values as
errors (StrictUndefined), and a template that fails said in one sentence with its file and
line. What a template renders (an announcement, the report) is its caller's business: the
announcements hand in ``finalize`` (every printed value made inert), the report asks for
HTML (autoescaped).

The built-in templates live in ``templates/`` (the package ``tally.templates`` once
installed); a director may point ``--template-dir`` at a folder of their own with the same
names (a template missing there is the built-in one).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from tally.errors import InputError, TallyError
from tally.i18n import tr
from tally.kept import Kept
from tally.outputs.written import template_bounds as bounds

# The built-in templates: templates/ in a checkout, the package tally.templates in a wheel
# (read with importlib.resources by Jinja's PackageLoader).
TEMPLATES = "tally.templates"

Finalize = Callable[[Any], Any]
T = TypeVar("T")


def environment(
    template_dir: Path | None, *, html: bool = False, finalize: Finalize | None
) -> Any:
    """The Jinja environment of ``template_dir`` (None: the built-ins alone)."""
    if template_dir is not None and not template_dir.is_dir():
        raise InputError(tr("the template folder {folder} does not exist.", folder=template_dir))
    return _jinja(str(template_dir) if template_dir is not None else None, html, finalize)


@functools.lru_cache(maxsize=8)
def _jinja(folder: str | None, html: bool, finalize: Finalize | None) -> Any:
    """One Jinja environment per template folder: it keeps the templates it compiled (and
    compiles again a template whose file changed), so a watch or a script that renders
    many posts compiles each once. The director's folder first, the built-ins behind it;
    sandboxed whichever answers (the built-ins need nothing the sandbox forbids)."""
    from jinja2 import BaseLoader, ChoiceLoader, PackageLoader, StrictUndefined

    built_in = PackageLoader(TEMPLATES, ".")
    loader: BaseLoader = built_in
    if folder is not None:
        loader = ChoiceLoader([bounds.folder_loader(folder), built_in])
    compiled = _compiled(html, finalize)
    if html:  # the report: HTML escaped, no BBCode to break
        return _reusing(bounds.sandbox(bounds.PAGE_CHARS), compiled)(
            loader=loader, autoescape=True, undefined=StrictUndefined,
            trim_blocks=True, lstrip_blocks=True, bytecode_cache=compiled,
        )  # fmt: skip
    return _reusing(bounds.sandbox(bounds.POST_CHARS), compiled)(
        loader=loader,
        undefined=StrictUndefined,
        finalize=finalize,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=compiled,
    )


# Compiled templates a process keeps, for each kind of environment.
COMPILED_KEPT = 64


def _reusing(base: Any, compiled: Any) -> Any:
    """``base``, an environment class, whose compiling of a template's text into Python is
    done once for every file that holds the same text (see ``_compiled``)."""

    class Reusing(base):  # type: ignore[misc]
        def compile(
            self,
            source: Any,
            name: str | None = None,
            filename: str | None = None,
            raw: bool = False,
            defer_init: bool = False,
        ) -> Any:
            generate = super().compile
            if raw or not isinstance(source, str):
                return generate(source, name, filename, raw, defer_init)
            python = compiled.python(
                source, name, defer_init, lambda: generate(source, name, filename, True, defer_init)
            )
            # The file named in tracebacks and messages is this one's, as Jinja would name it.
            return self._compile(python, filename or "<template>")

    return Reusing


@functools.cache
def _compiled(html: bool, finalize: Finalize | None) -> Any:
    """The templates compiled so far by the environments of one kind (``html``,
    ``finalize``: what the compiled code depends on), never kept by a file's time: the
    code of each by its name, its file and a checksum of its text (Jinja's bytecode cache),
    and the Python that Jinja makes of a template's text by that text and the template's
    name alone (what Jinja's code generator reads; the file is only the code's label). An
    environment made for another folder (each run's, each test's) compiles the built-ins
    no more, a copy of a template in another folder is only handed to Python's compile,
    and a template changed on disk is compiled again whatever its mtime says."""
    from jinja2 import BytecodeCache
    from jinja2.bccache import Bucket

    class Compiled(BytecodeCache):
        def __init__(self) -> None:
            self._code: Kept[tuple[str, str], Any] = Kept(COMPILED_KEPT)
            self._python: Kept[tuple[str, str | None, bool], str] = Kept(COMPILED_KEPT)

        def python(
            self, source: str, name: str | None, defer_init: bool, make: Callable[[], str]
        ) -> str:
            key = (self.get_source_checksum(source), name, defer_init)
            found = self._python.get(key)
            if found is None:
                found = make()  # a template that does not compile raises, and is not kept
                self._python.put(key, found)
            return found

        def load_bytecode(self, bucket: Bucket) -> None:
            code = self._code.get((bucket.key, bucket.checksum))  # name and file, text
            if code is not None:
                bucket.code = code

        def dump_bytecode(self, bucket: Bucket) -> None:
            if bucket.code is not None:
                self._code.put((bucket.key, bucket.checksum), bucket.code)

    return Compiled()


def template_text(
    name: str,
    context: Mapping[str, Any],
    template_dir: Path | None = None,
    *,
    html: bool = False,
    finalize: Finalize | None,
) -> str:
    """Render the template ``name`` (the director's, else the built-in one); a template that
    fails is one sentence naming its file and line. ``finalize`` is what every value goes
    through: asked of each caller (an announcement's makes players' BBCode inert, RULES L7;
    an HTML page escapes instead), so that no caller forgets it."""
    env = environment(template_dir, html=html, finalize=finalize)
    return render(_template(env, name, template_dir), name, context, html=html)


def render(template: Any, name: str, context: Mapping[str, Any], *, html: bool) -> str:
    """Render the compiled ``template`` (of the file ``name``) within bounds; a template
    that fails is one sentence naming its file and line (see ``template_text``)."""
    from jinja2 import TemplateError, UndefinedError
    from jinja2.exceptions import SecurityError

    limit = bounds.PAGE_CHARS if html else bounds.POST_CHARS
    try:
        return bounds.bounded_render(template.generate(**context), limit)
    except TallyError:
        raise  # an included file refused (a link out of the folder, not UTF-8): said so
    except bounds.RenderLimit as exc:
        where = _where(exc, template.filename or name)
        raise InputError(tr(
            "{where}: the template was stopped, {why} (a render may take {seconds:g} seconds "
            "and write {limit:,} characters).", where=where, why=exc,
            seconds=bounds.RENDER_SECONDS, limit=limit)) from None  # fmt: skip
    except SecurityError as exc:
        raise InputError(tr("{where}: the template tried something the sandbox forbids "
                            "({error}).", where=_where(exc, name),
                            error=exc)) from None  # fmt: skip
    except UndefinedError as exc:
        raise InputError(tr("{where}: the template uses a value tally does not give ({error}).",
                            where=_where(exc, name), error=exc)) from None  # fmt: skip
    except TemplateError as exc:
        raise InputError(broken(_where(exc, name), exc)) from None
    except Exception as exc:  # the director's code failed (1 // 0, "a" + 1): say where
        error = f"{type(exc).__name__}: {exc}"
        raise InputError(tr("{where}: the template failed ({error}).", where=_where(exc, name),
                            error=error)) from None  # fmt: skip


def broken(where: str, error: object) -> str:
    return tr("{where}: the template is broken ({error}).", where=where, error=error)


def compile_templates(
    names: Iterable[str],
    template_dir: Path | None,
    *,
    html: bool = False,
    finalize: Finalize | None,
) -> None:
    """Compile the templates ``names`` now, so that a broken one in the director's folder
    stops the command before any page is read."""
    env = environment(template_dir, html=html, finalize=finalize)
    for name in names:
        _template(env, name, template_dir)


def with_source(
    name: str, template_dir: Path | None, *, html: bool = False, finalize: Finalize | None
) -> tuple[Any, Any]:
    """The compiled template ``name`` (the director's, else the built-in one) and the syntax
    tree of the very text it was compiled from, for a caller that reads the template before
    it renders it (the report, for the pictures it shows); broken, one sentence."""
    env = environment(template_dir, html=html, finalize=finalize)

    def load() -> tuple[Any, Any]:
        source, filename, uptodate = env.loader.get_source(env, name)
        # As Jinja's loaders load a template (its compiled code kept by the text's
        # checksum), from the text read once: a file changed since is not the one read.
        bucket = env.bytecode_cache.get_bucket(env, name, filename, source)
        code = bucket.code
        if code is None:
            code = env.compile(source, name, filename)
            bucket.code = code
            env.bytecode_cache.set_bucket(bucket)
        template = env.template_class.from_code(env, code, env.make_globals(None), uptodate)
        return template, env.parse(source, name, filename)

    return _said(load, name, template_dir)


def _template(env: Any, name: str, template_dir: Path | None) -> Any:
    """The compiled template ``name``; one sentence with the file and line when it is not."""
    return _said(lambda: env.get_template(name), name, template_dir)


def _said(load: Callable[[], T], name: str, template_dir: Path | None) -> T:
    """``load()``, a template's loading, with a template missing or broken said in one
    sentence."""
    from jinja2 import TemplateError, TemplateNotFound, TemplateSyntaxError

    try:
        return load()
    except TemplateNotFound:
        if template_dir is None:
            raise InputError(tr("no template {name} in tally.", name=name)) from None
        raise InputError(tr("no template {name} in {folder}.", name=name,
                            folder=template_dir)) from None  # fmt: skip
    except TemplateSyntaxError as exc:
        where = tr("{path}, line {line}", path=exc.filename or name, line=exc.lineno)
        raise InputError(broken(where, exc.message)) from None
    except TemplateError as exc:
        raise InputError(broken(_where(exc, name), exc)) from None


def _where(exc: BaseException, name: str) -> str:
    """The template file and line a render failed at, from the traceback Jinja rewrites."""
    tb = exc.__traceback__
    found = name
    while tb is not None:
        code = tb.tb_frame.f_code
        # Jinja's frames of a template's lines (any file name: an include may be part.txt).
        if code.co_filename.endswith(".j2") or "__jinja_exception__" in tb.tb_frame.f_globals:
            found = tr("{path}, line {line}", path=code.co_filename, line=tb.tb_lineno)
        tb = tb.tb_next
    return found
