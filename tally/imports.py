"""A library imported without a part of it that tally never uses, where the library does
without that part when it cannot be imported (httpx its command-line tool, sqlite_utils
pandas and numpy: tally.forums.http, tally.records).

Each such library imports the part in a try and falls back when the import fails. A None in
``sys.modules`` makes an import fail as Python documents (ModuleNotFoundError); it stands
while the library is imported and is taken out at once, so that a later import of the part
imports it as ever. A part imported already is left as it is, and the library gets it.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Sequence

_importing = threading.Lock()


def import_without(name: str, kept_out: Sequence[str]) -> bool:
    """Import ``name`` with the modules ``kept_out`` failing to import while it is imported
    (those not imported already); True when this call imported it, False when it was."""
    with _importing:
        if name in sys.modules:
            return False
        stopped = [m for m in kept_out if m not in sys.modules]
        for module in stopped:
            sys.modules[module] = None  # type: ignore[assignment]
        try:
            importlib.import_module(name)
        finally:
            for module in stopped:
                if module in sys.modules and sys.modules[module] is None:
                    del sys.modules[module]
        return True
