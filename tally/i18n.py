"""The language tally speaks to the director: Chinese or English, from one set of gettext
catalogs (``tally/locale/<lang>/LC_MESSAGES/tally.po``, compiled to ``.mo`` when the wheel is
built: ``tally.building``), and which one a run uses and why.

Chosen as people expect: ``TALLY_LANG``, else the config file's ``language``, else the
locale (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as gettext reads them; ``C`` and
``POSIX`` say nothing), else Windows' language of the user interface, else English.

Every sentence tally writes for the director goes through :func:`tr` (or :func:`ntr` where
a number decides the words); a sentence kept in a table until it is shown is marked with
:func:`N_` and translated where it is shown. ``tr`` formats with ``str.format``'s named
fields after translating, so a catalog moves the fields where Chinese wants them. What the
players read (the announcements) and what machines read (JSON keys, reason codes, rule
ids) is never translated. The name is not ``_``: tally's display code names its
singledispatch functions ``_``.
"""

from __future__ import annotations

import gettext
import io
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

from tally.errors import InputError

DOMAIN = "tally"
LOCALES = Path(__file__).parent / "locale"
ENV = "TALLY_LANG"


class Language(StrEnum):
    """A language tally has a catalog for, by its catalog's folder name."""

    EN = "en"
    ZH = "zh_CN"

    @property
    def said(self) -> str:
        """The language's name in itself (what ``tally config`` prints)."""
        return {"en": "English", "zh_CN": "中文（简体）"}[self.value]


@dataclass(frozen=True)
class Choice:
    """The language chosen and what chose it: ``TALLY_LANG``, ``config file PATH``, the
    locale's variable (``LANG=zh_CN.UTF-8``), ``Windows``, or tally's default."""

    language: Language
    source: str
    said: bool = True  # False: nothing said a language (tally's default, English)


DEFAULT = Choice(Language.EN, "tally's default", said=False)


def language_of(value: str) -> Language | None:
    """The catalog a locale name or a director's word asks for: ``zh``, ``zh_CN.UTF-8``,
    ``zh-Hans``, ``chinese`` are Chinese; ``en``, ``en_US``, ``english`` English; any
    other language tally has no catalog for (None)."""
    word = value.strip().lower().replace("-", "_").split(".")[0].split("@")[0]
    if word in ("zh", "chinese", "中文") or word.startswith(("zh_", "zh_hans")):
        # Traditional Chinese reads the simplified catalog better than English.
        return Language.ZH
    if word in ("en", "english") or word.startswith("en_"):
        return Language.EN
    return None


def word(value: object, source: str) -> Language:
    """A language the director named (``TALLY_LANG``, the config's ``language``), or one
    sentence saying which words tally takes."""
    found = language_of(value) if isinstance(value, str) else None
    if found is None:
        raise InputError(
            f"{source}: {str(value)[:40]!r} is not a language tally speaks; "
            'say "zh" (中文) or "en" (English).'
        )
    return found


def from_locale(environ: Mapping[str, str]) -> Choice | None:
    """What the locale's variables say, as gettext reads them: ``LC_ALL``, ``LC_MESSAGES``,
    ``LANG`` (the first set), and ``LANGUAGE``'s list before them unless the locale is C (as
    GNU gettext does). A language tally has no catalog for falls to the next in
    ``LANGUAGE``'s list, else to what comes after the locale."""
    locale_var, locale = next(
        ((k, environ[k]) for k in ("LC_ALL", "LC_MESSAGES", "LANG") if environ.get(k)), ("", "")
    )
    if locale.split(".")[0] in ("C", "POSIX"):
        return None
    for name in environ.get("LANGUAGE", "").split(":") if locale else ():
        if name and (found := language_of(name)) is not None:
            return Choice(found, f"LANGUAGE={environ['LANGUAGE']}")
    if locale and (found := language_of(locale)) is not None:
        return Choice(found, f"{locale_var}={locale}")
    return None


def from_windows() -> Choice | None:
    """The language of Windows' user interface (not the locale of formats)."""
    if sys.platform != "win32":  # pragma: no cover - Windows only
        return None
    import ctypes  # pragma: no cover
    import locale as locales  # pragma: no cover

    lcid = ctypes.windll.kernel32.GetUserDefaultUILanguage()  # pragma: no cover
    found = language_of(locales.windows_locale.get(lcid, ""))  # pragma: no cover
    return Choice(found, "Windows") if found else None  # pragma: no cover


def choose(environ: Mapping[str, str], configured: tuple[object, str] | None = None) -> Choice:
    """The language of a run: ``TALLY_LANG``, else the config file's ``language``
    (``configured``: its value and its source), else the locale, else Windows' language,
    else English. A word tally does not take is one sentence."""
    if environ.get(ENV, "").strip():
        return Choice(word(environ[ENV], ENV), ENV)
    if configured is not None:
        value, source = configured
        return Choice(word(value, f"{source}, key 'language'"), source)
    return from_locale(environ) or from_windows() or DEFAULT


def configured_language(environ: Mapping[str, str]) -> tuple[object, str] | None:
    """The config file's ``language`` and where it stands (None when it says none); a config
    file tally cannot read says none here: the command that reads it says why."""
    import tomllib

    from tally.environment import config_file

    path = config_file(environ)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, tomllib.TOMLDecodeError):
        return None
    return (data["language"], f"config file {path}") if "language" in data else None


# The run's language. Unset: the process's own choice (the environment and the config file),
# worked out once when first asked; a command, a desk request, a test sets it for its time
# (the desk's pollers: a function, the language of the latest page asked for).
_speaking: ContextVar[Language | Callable[[], Language] | None] = ContextVar(
    "tally_language", default=None
)


@cache
def process_choice() -> Choice:
    """The language this process speaks when nothing set one: the environment and the
    config file, read tolerantly (a bad word there is the command's to say, not import's)."""
    from tally.environment import Environment

    environ = Environment().environ  # the process's variables (read there alone)
    try:
        return choose(environ, configured_language(environ))
    except InputError:
        return DEFAULT


def current() -> Language:
    """The language sentences are translated to now."""
    language = _speaking.get()
    if language is None:
        return process_choice().language
    return language if isinstance(language, Language) else language()


@contextmanager
def speaking(language: Language | Callable[[], Language]) -> Iterator[None]:
    """Translate to ``language`` (or the one it returns, asked at each sentence) for the
    time of the ``with``."""
    token = _speaking.set(language)
    try:
        yield
    finally:
        _speaking.reset(token)


@cache
def catalog(language: Language) -> gettext.NullTranslations:
    """The language's compiled catalog; a checkout that was never built compiles its ``.po``
    in memory (with Babel, which the development install has); English without one reads
    the sentences as written."""
    folder = LOCALES / language.value / "LC_MESSAGES"
    mo, po = folder / f"{DOMAIN}.mo", folder / f"{DOMAIN}.po"
    # A .po edited since the .mo was compiled (a checkout installed once, then translated):
    # the .po, as it is now, where Babel is there to compile it.
    stale = po.exists() and (not mo.exists() or po.stat().st_mtime > mo.stat().st_mtime)
    if stale:
        try:
            from babel.messages.mofile import write_mo
            from babel.messages.pofile import read_po
        except ImportError:  # an installed wheel without Babel: its .mo
            stale = False
    if not stale:
        if not mo.exists():
            return gettext.NullTranslations()
        with mo.open("rb") as f:
            return gettext.GNUTranslations(f)
    with po.open("rb") as f:
        read = read_po(f)
    buffer = io.BytesIO()
    write_mo(buffer, read)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def N_(message: str) -> str:
    """Mark ``message`` for the catalog where it is written; it is translated where shown."""
    return message


def tr(message: str, /, **fields: Any) -> str:
    """``message`` in the run's language, its ``{fields}`` filled."""
    said = gettext_plain(message)
    return said.format(**fields) if fields else said


def ntr(singular: str, plural: str, n: int, /, **fields: Any) -> str:
    """The words for ``n`` things (English has two forms, Chinese one), ``{n}`` and the
    other fields filled."""
    said = catalog(current()).ngettext(singular, plural, n)
    return said.format(n=n, **fields)


def gettext_plain(message: str) -> str:
    """``message`` in the run's language, unformatted (Jinja's newstyle gettext fills its
    ``%(name)s`` fields itself)."""
    return catalog(current()).gettext(message) if message else message


def ngettext_plain(singular: str, plural: str, n: int) -> str:
    return catalog(current()).ngettext(singular, plural, n)
