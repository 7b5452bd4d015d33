"""A day's threads as the commands read them: the days before a day counted in order
(``days_before``), a day's threads each read once in a run (``day_threads``), the closed days
among threads read (``closed_days``), and the moment ``--as-of`` names (``as_of_time``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, time

from tally.errors import GameFileError, InputError, TallyError
from tally.forums import resolve_url
from tally.forums.reader import Reader
from tally.model import Thread, ThreadKey
from tally.rules.game import Day, Game
from tally.rules.standing import floor_time
from tally.rules.votes import Chain, DayResult, in_order
from tally.times import short


def days_before(
    game: Game, number: int, reader: Reader, given: Sequence[Thread] = ()
) -> Chain:
    """The days before day ``number``, counted in order from their vote threads (among
    ``given``, else read: a day read at or after its close trusts no page cached before
    it): what they made, and what day ``number`` inherits (its sheriff, who is out). A day
    whose thread cannot be read is said so, not guessed (``Carried.unchecked``)."""
    held = {t.key: t for t in given}
    threads: dict[int, Thread | str] = {}
    for day in game.days:
        if day.day >= number:
            break
        if day.vote_ref.key in held:
            threads[day.day] = held[day.vote_ref.key]
        elif reader.now() < day.closes:
            threads[day.day] = f"it closes {short(day.closes)}"
        else:
            try:
                [threads[day.day]] = reader.read([day.vote], game.timezone, closes=day.closes)
            except GameFileError:
                raise
            except TallyError as exc:
                threads[day.day] = f"its vote thread could not be read ({str(exc).rstrip('.')})"
    return in_order(game, threads, until=number - 1)


def day_threads(game: Game, reader: Reader) -> _DayThreads:
    """A reader of a day's threads for the checks that go day by day (lurkers, report):
    each thread read once in the run, and at or after its day's close from no page cached
    before it."""
    return _DayThreads(game, reader)


class _DayThreads:
    def __init__(self, game: Game, reader: Reader):
        self.game, self.reader = game, reader
        self.held: dict[ThreadKey, Thread] = {}

    def __call__(self, urls: list[str], day: Day) -> list[Thread]:
        keys = [resolve_url(u)[1].key for u in urls]
        wanted = [(k, u) for k, u in zip(keys, urls, strict=True) if k not in self.held]
        got = self.reader.read([u for _, u in wanted], self.game.timezone, closes=day.closes)
        self.held.update(zip([k for k, _ in wanted], got, strict=True))
        return [self.held[k] for k in keys]


def closed_days(
    game: Game, threads: Sequence[Thread], *, late_ok: bool = False
) -> list[DayResult]:
    """Every day whose vote thread is among ``threads`` and was read after its close,
    counted in order (each with what the days before it made); a day that cannot be
    counted stops with its sentence."""
    by_key = {t.key: t for t in threads if not t.missing}
    found: dict[int, Thread | str] = {}
    for day in game.days:
        thread = by_key.get(day.vote_ref.key)
        if thread is not None and thread.as_of is not None and thread.as_of >= day.closes:
            found[day.day] = thread
    return list(in_order(game, found, strict=True, late_ok=late_ok).results.values())


def as_of_time(thread: Thread, given: str, game: Game, day: Day) -> datetime:
    """``--as-of``: a floor number (the moment it was posted), a date and time in the game's
    clock ("2026-12-01 20:30"), or a time alone on the day of the close ("20:30")."""
    text = given.strip()
    if text.isdigit():
        return floor_time(thread, int(text))
    try:
        if len(text) <= 8 and ":" in text:
            moment = datetime.combine(day.closes.date(), time.fromisoformat(text))
        else:
            moment = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(
            f"--as-of {given!r} is neither a floor number nor a time (2026-12-01 20:30, or "
            "20:30 on the day of the close)."
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=game.timezone)
    return moment
