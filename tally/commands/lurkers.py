"""`tally lurkers`: posts per player per day, the cards they earn, and the ledger with them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tally.commands.threads import day_threads
from tally.errors import InputError
from tally.forums.reader import Reader
from tally.outputs.results import Lurked
from tally.outputs.written import cardfile
from tally.rules.game import Game
from tally.rules.ledger import LedgerView, sent_off_days
from tally.rules.lurkers import DayCheck, check, history
from tally.times import short


def lurkers(
    game: Game,
    *,
    day: int | None = None,
    write: bool = True,
    reader: Reader,
    late_ok: bool = False,
) -> Lurked:
    """`tally lurkers`: posts per player up to ``day`` (default: the last closed), the cards
    of that day, and the ledger with them (written unless ``write`` is False)."""
    if game.path is None:
        raise InputError("the lurker check keeps its ledger beside the game file; load one.")
    number = day if day is not None else game.last_closed(reader.now()).day
    if game.day(number).discussion is None:
        raise InputError(
            f"day {number} has no discussion thread in {game.where()}; posts cannot be counted."
        )
    read = day_threads(game, reader, decides=number)
    days = history(game, number, read)
    result = check(game, days, number, late_ok=late_ok)
    view = record(game, game.path, result, write=write)
    off = sent_off_days(view.cards)
    if any(p not in game.sent_off for p in off):
        # A red this check made sends its player off at the close (K2): their posts after
        # it are 诈尸 (L5) in this run's flags, not only in the next run's.
        result = check(dataclasses.replace(game, sent_off=off), days, number, late_ok=late_ok)
    return Lurked(result, view)


def record(game: Game, game_path: Path, result: DayCheck, *, write: bool) -> LedgerView:
    """Add the proposed cards to the ledger beside the game file (atomically, once).

    Cards rest on a whole day: for a day not yet closed nothing is written (InputError
    when ``write`` is asked for).
    """
    from tally.rules import ledger

    if write and result.provisional:
        raise InputError(
            f"day {result.day.day} closes at {short(result.day.closes)} and its threads "
            "were read before that: cards are written only for a closed day; pass --no-write "
            "to see the counts so far."
        )
    path = cardfile.ledger_path(game_path)
    with cardfile.editing(path):
        cards, new = ledger.add(cardfile.load(path), result.cards)
        written = bool(write and new)
        if written:
            cardfile.save(path, cards)
    # Without --write the view shows the ledger as it would be; nothing is saved.
    return ledger.view(path, cards, game, new=new, written=written)
