"""A library imported without a part of it that tally never uses, where the library does
without that part when it cannot be imported (httpx its command-line tool, sqlite_utils
pandas and numpy: tally.forums.http, tally.records).

Each such library imports the part in a try and falls back when the import fails. A finder
first on ``sys.meta_path`` makes the part's import fail (ModuleNotFoundError, as a part not
installed would) in the thread importing the library, while it is imported, and is taken
out at once: another thread importing the part meanwhile (a program that embeds tally, a
pool's thread parsing a page) imports it as ever, and so does a later import. A part
imported already is left as it is, and the library gets it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import sys
import threading
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

_importing = threading.Lock()


class _KeptOut(importlib.abc.MetaPathFinder):
    """Fails the import of ``names`` in the thread ``thread`` alone; others ask on."""

    def __init__(self, names: Sequence[str], thread: int) -> None:
        self.names = frozenset(names)
        self.thread = thread

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname in self.names and threading.get_ident() == self.thread:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


def import_without(name: str, kept_out: Sequence[str]) -> bool:
    """Import ``name`` with the modules ``kept_out`` failing to import in this thread while
    it is imported (those not imported already); True when this call imported it, False
    when it was."""
    with _importing:
        if name in sys.modules:
            return False
        finder = _KeptOut(kept_out, threading.get_ident())
        sys.meta_path.insert(0, finder)
        try:
            importlib.import_module(name)
        finally:
            sys.meta_path.remove(finder)
        return True
