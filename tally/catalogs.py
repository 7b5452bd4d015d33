"""The message catalogs, kept: ``python -m tally.catalogs update`` extracts every marked
sentence (``tr``, ``ntr``, ``N_`` in the code, ``_``/``gettext`` in the desk's pages, as
``tally/locale/babel.cfg`` maps them) into each language's ``.po``; ``check`` lists what a
catalog lacks (a sentence untranslated, a placeholder lost) and fails on it; ``compile``
writes the ``.mo`` files (the wheel's build does it: ``tally.building``).

A development tool (Babel is a development and build requirement); the running program
reads compiled catalogs, and compiles in memory only in a checkout never built.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

from tally.atomic import write_atomic
from tally.i18n import DOMAIN, LOCALES, Language

ROOT = LOCALES.parent.parent
MAPPING = LOCALES / "babel.cfg"
KEYWORDS = {"tr": None, "ntr": (1, 2), "N_": None, "_": None, "gettext": None,
            "ngettext": (1, 2)}  # fmt: skip
# A placeholder: str.format's {name} (the code) or %(name)s (the desk's pages, Jinja's
# newstyle gettext).
PLACEHOLDER = re.compile(r"\{[a-z_][a-z0-9_]*(?:[:!][^{}]*)?\}|%\([a-z_]+\)[sd]")


HEADER = """\
# The sentences tally says to the director, in one language. Kept by
# `python -m tally.catalogs update` (entries added and removed from the code); the
# translations written by hand, following docs/glossary.md."""


# The header's dates stay as they are: a date that moves at every update makes every branch
# that adds a sentence conflict with every other (git keeps the history of each entry).
SINCE = datetime(2026, 12, 6, tzinfo=UTC)


def po_path(language: Language) -> Path:
    return LOCALES / language.value / "LC_MESSAGES" / f"{DOMAIN}.po"


def extract() -> Catalog:
    """Every sentence marked in the code and the desk's pages, as a template catalog."""
    with MAPPING.open() as f:
        method_map, options_map = parse_mapping_cfg(f)  # type: ignore[no-untyped-call]
    template = Catalog(project="tally", domain=DOMAIN, copyright_holder="tally's authors",
                       msgid_bugs_address="", version="", header_comment=HEADER,
                       last_translator="tally's authors", language_team="tally's authors",
                       creation_date=SINCE, revision_date=SINCE)  # fmt: skip
    for filename, lineno, message, comments, context in extract_from_dir(
        ROOT, method_map, options_map, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
        strip_comment_tags=True,
        directory_filter=lambda d: not Path(d).name.startswith((".", "__")),
    ):  # fmt: skip
        template.add(message, None, [(filename, lineno)], auto_comments=comments,
                     context=context)  # fmt: skip
    return template


def read(language: Language) -> Catalog:
    path = po_path(language)
    if not path.exists():
        return Catalog(locale=language.value, project="tally", domain=DOMAIN,
                       header_comment=HEADER, fuzzy=False, creation_date=SINCE,
                       revision_date=SINCE)  # fmt: skip
    with path.open("rb") as f:
        return read_po(f, locale=language.value, domain=DOMAIN)


def write(catalog: Catalog, path: Path) -> None:
    """The catalog as a ``.po``: sorted by sentence, no line numbers (an edit elsewhere in
    a file moves no entry), no obsolete entries."""
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=0, no_location=True, sort_output=True,
             ignore_obsolete=True)  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, buffer.getvalue())


def update() -> dict[Language, int]:
    """Each catalog brought up to the code: new sentences added (English's filled with
    themselves), gone ones dropped, nothing matched by likeness (a guess is no translation).
    Returns each catalog's count of sentences."""
    counts = {}
    for language in Language:
        catalog = read(language)
        # A template each: Babel puts the template's own entries into the catalog it updates.
        catalog.update(extract(), no_fuzzy_matching=True, update_creation_date=False)
        catalog.fuzzy = False  # the header: a catalog of ours, checked by `check`
        if language is Language.EN:
            for message in catalog:
                if message.id and not _translated(message):
                    message.string = message.id
        write(catalog, po_path(language))
        counts[language] = sum(1 for m in catalog if m.id)
    return counts


@dataclass(frozen=True)
class Fault:
    language: Language
    sentence: str
    problem: str

    def __str__(self) -> str:
        return f"{self.language.value}: {self.sentence[:70]!r}: {self.problem}"


def _translated(message: Message) -> bool:
    strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
    return all(strings) and not message.fuzzy


def _fields(text: str) -> set[str]:
    return {re.sub(r"[:!].*", "}", f) for f in PLACEHOLDER.findall(text)}


def faults(
    languages: Iterable[Language] = tuple(Language), template: Catalog | None = None
) -> list[Fault]:
    """What the catalogs lack: a sentence of the code missing from one, one untranslated
    (or marked fuzzy), a placeholder a translation lost or made up. ``template``: the
    sentences ``extract()`` returned already (the tests extract once for all of theirs)."""
    wanted = {m.id for m in (extract() if template is None else template) if m.id}
    found: list[Fault] = []
    for language in languages:
        catalog = read(language)
        have = {m.id: m for m in catalog if m.id}
        for message_id in sorted(wanted, key=str):
            message = have.get(message_id)
            sentence = message_id if isinstance(message_id, str) else message_id[0]
            if message is None:
                found.append(Fault(language, sentence, "not in the catalog (run update)"))
            elif not _translated(message):
                found.append(Fault(language, sentence, "not translated"))
            else:
                ids = message_id if isinstance(message_id, tuple | list) else (message_id,)
                strings = (message.string if isinstance(message.string, tuple | list)
                           else (message.string,))  # fmt: skip
                need = set().union(*(_fields(i) for i in ids))
                for string in strings:
                    if _fields(string or "") - need or (need - _fields(string or "") - {"{n}"}):
                        found.append(Fault(language, sentence, f"placeholders differ: {string!r}"))
    return found


def compile_all(into: Path = LOCALES) -> list[Path]:
    """Every ``.po`` compiled to its ``.mo`` under ``into`` (the package, or a build's), as
    the wheel's build compiles them."""
    from tally.building import compile_catalogs

    return compile_catalogs(LOCALES, [into])


def main(argv: list[str]) -> int:
    command = argv[0] if argv else ""
    if command == "update":
        for language, n in update().items():
            print(f"{po_path(language).relative_to(ROOT)}: {n} sentences")
        compile_all()  # what the checkout's tally reads
        return 0
    if command == "compile":
        for path in compile_all():
            print(f"wrote {path.relative_to(ROOT)}")
        return 0
    if command == "check":
        problems = faults()
        for fault in problems:
            print(fault)
        print(f"{len(problems)} faults")
        return 1 if problems else 0
    print("usage: python -m tally.catalogs update|compile|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
