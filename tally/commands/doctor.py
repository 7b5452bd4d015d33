"""`tally doctor`: how tally reads one page of a board, field by field."""

from __future__ import annotations

from tally.commands.checks import zone
from tally.forums.reader import Reader
from tally.outputs.results import Diagnosed
from tally.settings import DEFAULT_ZONE


def doctor(source: str, *, timezone: str = DEFAULT_ZONE, reader: Reader) -> Diagnosed:
    """`tally doctor`: how tally reads one page of a board (a URL, or a saved file), field by
    field, where each was found, what is missing, and the board profile used."""
    from tally.forums.diagnosis import look

    return Diagnosed(look(source, reader, zone(timezone)))
