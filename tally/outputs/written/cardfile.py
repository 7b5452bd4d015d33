"""The card ledger's file: ``GAME.cards.csv`` beside the game file, read and written.

UTF-8 with a byte-order mark and CRLF (Excel opens it as it is), columns ``day, player,
colour, rule, reason, source``; written atomically. The director may edit it by hand, so
it is read strictly: a line that is not a card, a header that is not the ledger's, is one
sentence naming the line. Every change is a read, an edit and a write made under a lock
(``editing``): two tallies adding cards at once both land, one after the other.
"""

from __future__ import annotations

import contextlib
import csv
import io
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from tally.atomic import try_lock, unlock
from tally.csvfile import read_long_cells, restore, write_excel_csv
from tally.errors import GameFileError, OutputError
from tally.files import read_capped
from tally.i18n import tr
from tally.rules.cards.ledger import Card
from tally.rules.verdicts import Colour

COLUMNS = ("day", "player", "colour", "rule", "reason", "source")
# How long a change waits for another tally's change of the same ledger, looking again
# every LOCK_POLL seconds.
LOCK_WAIT = 30.0
LOCK_POLL = 0.05


def ledger_path(game_path: Path) -> Path:
    return game_path.with_name(game_path.stem + ".cards.csv")


def load(path: Path) -> list[Card]:
    """The ledger's cards; a missing ledger is an empty one."""
    if not path.exists():
        return []
    try:
        text = read_capped(path, "card ledger", error=GameFileError).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GameFileError(tr("{path}: the card ledger cannot be read ({error}).", path=path,
                               error=exc)) from None  # fmt: skip
    if not text.strip():
        return []
    read_long_cells()
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in reader.fieldnames or []]
    if sorted(header) != sorted(COLUMNS):
        raise GameFileError(tr(
            "{path}, line 1: {header!r} is not the ledger's header ({columns}); its first line "
            "was lost or the file is another's: put the header back (or move the file away) "
            "and run again.", path=path, header=",".join(header)[:80],
            columns=",".join(COLUMNS)))  # fmt: skip
    cards = []
    for n, raw in enumerate(reader, start=2):
        where = tr("{path}, line {line}", path=path, line=n)
        if None in raw or any(v is None for v in raw.values()):
            raise GameFileError(tr("{where}: not the ledger's {n} columns.", where=where,
                                   n=len(COLUMNS)))  # fmt: skip
        # tally's own cells come back as written (a "-" name was written as "'-").
        row = {k.strip(): restore(v) if isinstance(v, str) else v for k, v in raw.items()}
        try:
            day = int((row.get("day") or "").strip())
        except ValueError:
            raise GameFileError(tr("{where}: day {day!r} is not a number.", where=where,
                                   day=row.get("day"))) from None  # fmt: skip
        colour = (row.get("colour") or "").strip().lower()
        if colour not in tuple(Colour):
            raise GameFileError(tr("{where}: colour {colour!r} is not blue, yellow or red.",
                                   where=where, colour=colour))  # fmt: skip
        player = (row.get("player") or "").strip()
        if not player:
            raise GameFileError(tr("{where}: the card names no player.", where=where))
        cards.append(
            Card(
                day,
                player,
                Colour(colour),
                (row.get("rule") or "").strip(),
                (row.get("reason") or "").strip(),
                (row.get("source") or "director").strip() or "director",
            )
        )
    return cards


@contextlib.contextmanager
def editing(path: Path, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the ledger for one change (read, edit, write): another tally changing it waits
    (up to ``wait`` seconds, then one sentence), so that no card is lost between them."""
    lock_path = path.with_name(f".{path.name}.lock")  # hidden: the director sees the ledger
    try:
        handle = open(lock_path, "a+b")  # noqa: SIM115 - held for the whole change
    except OSError as exc:
        raise OutputError(tr("cannot lock the card ledger {path} ({error}).", path=path,
                             error=exc.strerror)) from None  # fmt: skip
    deadline = time.monotonic() + wait
    try:
        while not try_lock(handle):
            if time.monotonic() > deadline:
                raise OutputError(tr(
                    "the card ledger {path} is being changed by another tally for more than "
                    "{wait:g} s; run again when it is done (or remove {lock} if no tally runs).",
                    path=path, wait=wait, lock=lock_path.name))  # fmt: skip
            time.sleep(LOCK_POLL)
        yield
    finally:
        unlock(handle)
        handle.close()


def save(path: Path, cards: Iterable[Card]) -> None:
    write_excel_csv(
        path,
        (
            {
                "day": c.day,
                "player": c.player,
                "colour": c.colour,
                "rule": c.rule,
                "reason": c.reason,
                "source": c.source,
            }
            for c in cards
        ),
        COLUMNS,
    )
