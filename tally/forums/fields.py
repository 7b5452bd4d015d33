"""What a reading of one page found, field by field (``tally doctor``'s answer): for each
field a count of the posts it was found in, where, an example, and what could not be read.
Each platform's pages make it (``Pages.diagnose``); ``tally.forums.diagnosis`` reads the page.
"""

from __future__ import annotations

from collections.abc import Sized
from dataclasses import dataclass, field

from tally.forums.boards import DEFAULT, Board
from tally.i18n import N_


@dataclass(frozen=True)
class FieldFound:
    """One field over the page's posts (or the page itself): how often, where, an example."""

    name: str
    essential: bool
    found: int
    of: int
    # The places it was found, most used first, with how many posts each answered.
    where: tuple[tuple[str, int], ...] = ()
    example: str = ""
    # What could not be read, as tally says it (the first few).
    missing: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return self.found == self.of


@dataclass(frozen=True)
class Diagnosis:
    source: str
    software: str  # "Discuz!", "Tieba", or "" when tally knows no forum in the page
    board: Board = DEFAULT
    # Whether tally knows the shape of the URL (a file: None).
    url_known: bool | None = None
    status: int | None = None  # the HTTP status, for a URL
    # Why the page is no thread page tally can read; None when it is one.
    problem: str | None = None
    posts: int = 0
    fields: tuple[FieldFound, ...] = field(default_factory=tuple)
    # What tally read instead of the URL given, and why ("" when it read that URL).
    read_instead: str = ""
    # How every command reads the thread ("api": its platform's interface; "pages"; "": a
    # saved page), and why not through the interface where the board does not serve it.
    read_by: str = ""
    read_by_why: str | None = None

    @property
    def missing(self) -> tuple[FieldFound, ...]:
        return tuple(f for f in self.fields if f.essential and not f.complete)

    @property
    def readable(self) -> bool:
        return self.problem is None and not self.missing


def page_field(name: str, essential: bool, value: str | None, where: str) -> FieldFound:
    """A field the page says once (its thread id, its page): found there, or where it was not."""
    if value is None:
        return FieldFound(name, essential, 0, 1, missing=(f"{where}.",))
    return FieldFound(name, essential, 1, 1, ((where, 1),), value)


def read_whole(source: str, software: str, posts: Sized, by: str) -> Diagnosis:
    """What a reader that reads a page one way only (or a thread through an API) found:
    each essential field in every post, ``by`` that reader; anything less is an error it
    raised, said as the diagnosis's problem instead."""
    where = ((by, len(posts)),)
    fields = tuple(
        FieldFound(name, True, len(posts), len(posts), where)
        # The names are machine values (--json's "name"), translated where shown.
        for name in (N_("post id"), N_("floor"), N_("author"), N_("time"), N_("body"))
    )
    return Diagnosis(source, software, problem=None, posts=len(posts), fields=fields)
