"""A day's threads as the commands read them: the days before a day counted in order
(``days_before``), a day's threads each read once in a run (``day_threads``), the closed days
among threads read (``closed_days``), and the day's discussion and progress threads for its
acceleration requests (``request_threads``)."""

from __future__ import annotations

from collections.abc import Sequence

from tally.errors import (
    FetchError,
    GameFileError,
    NotAThreadError,
    ParseError,
    TallyError,
    clause,
)
from tally.forums import resolve_url
from tally.forums.getting import is_url
from tally.forums.reader import Reader
from tally.i18n import tr
from tally.model import Thread, ThreadKey
from tally.rules.counting.votes import Chain, DayResult, in_order
from tally.rules.game.game import Day, Game
from tally.rules.verdicts import ThreadRole
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
            threads[day.day] = tr("it closes {close}", close=short(day.closes))
        else:
            try:
                [threads[day.day]] = reader.read([day.vote], game.timezone, closes=day.closes)
            except GameFileError:
                raise
            except TallyError as exc:
                threads[day.day] = tr("its vote thread could not be read ({reason})",
                                      reason=clause(exc))
    return in_order(game, threads, until=number - 1)


def day_threads(game: Game, reader: Reader, *, decides: int | None = None) -> _DayThreads:
    """A reader of a day's threads for the checks that go day by day (lurkers, report):
    each thread read once in the run, and at or after its day's close from no page cached
    before it; day ``decides`` (the day whose cards are checked), read after its close,
    every page from the forum."""
    return _DayThreads(game, reader, decides)


class _DayThreads:
    def __init__(self, game: Game, reader: Reader, decides: int | None = None):
        self.game, self.reader, self.decides = game, reader, decides
        self.held: dict[ThreadKey, Thread] = {}
        self.live: set[ThreadKey] = set()  # read whole from the forum for the day decided

    def __call__(self, urls: list[str], day: Day) -> list[Thread]:
        keys = [resolve_url(u)[1].key for u in urls]
        decides = day.day == self.decides
        # A thread an earlier day shares (one 进程帖 for the game) is read again, whole, for
        # the day decided.
        wanted = [(k, u) for k, u in zip(keys, urls, strict=True)
                  if k not in self.held or (decides and k not in self.live)]  # fmt: skip
        got = self.reader.read([u for _, u in wanted], self.game.timezone, closes=day.closes,
                               decides=decides)  # fmt: skip
        self.held.update(zip([k for k, _ in wanted], got, strict=True))
        if decides:
            self.live.update(k for k, _ in wanted)
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


def request_threads(
    game: Game, day: Day, sources: Sequence[str], given: list[Thread], reader: Reader
) -> tuple[list[Thread] | None, str | None]:
    """The day's discussion and progress threads, where acceleration is asked for (S3):
    among the threads given, else read (from the forum or the archive) when the vote thread
    was; pages cached after the requests' deadline are good enough. (None, why) when they
    cannot be had."""
    from tally.rules.counting.acceleration import deadline

    roles = tuple(ThreadRole(r) for r in game.rules.acceleration_threads or ())
    keys = {ref.key for ref in map(day.ref, roles) if ref is not None}
    if not keys:
        names = " or ".join(str(r) for r in roles)
        return None, tr("day {day} names no {names} thread in {where}", day=day.day,
                        names=names, where=game.where())
    found = [t for t in given if t.key in keys]
    if found:
        return found, None
    if not any(is_url(s) for s in sources) and reader.how.archive is None:
        return None, tr("give the discussion thread's saved pages with the vote thread's")
    urls = [u for u in map(day.url, roles) if u]
    until = deadline(day, game.rules.acceleration_cutoff_hours, game.timezone)
    try:
        return reader.read(urls, game.timezone, closes=until), None
    except (FetchError, NotAThreadError, ParseError) as exc:
        return None, tr("the discussion thread could not be read ({reason})", reason=clause(exc))
