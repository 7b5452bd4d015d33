"""`tally watch`: the last hour of a vote, live: the polls of a vote thread until its close
(``read_polls``, a generator), and the whole watch (``watch``: each poll handed to every
watcher, the wait between polls, the announcement written at the close, Ctrl-C). A watcher
(``tally.outputs.shown.watchers.Watcher``) is whatever follows the watch: the terminal's live
screen or JSON lines, and any other live output beside it.

    from tally.commands.watch import Schedule, read_polls

    with Reader(Environment(), Reading()) as reader:
        for poll in read_polls(game, url, reader=reader, schedule=Schedule(every=60)):
            print(poll.number, poll.result.leaders if poll.result else None, poll.changes)

Each poll reads the vote thread again through the run's one ``Reader`` (one HTTP client:
robots.txt is read once, the per-host limits hold across polls), with the pages of the
last poll kept in memory, parsed: an unchanged thread costs one request, for its last
page, and the parse of that page. A 点评 or 楼中楼 added under a floor of an earlier page
shows at the next full read: every ``full_every`` polls, and at the close, when no page
read before the close is trusted (the same rule as ``tally votes``). The watch goes by the
forum's clock, as its answers tell it (``tally.forums.clocks``): the final read comes a grace
minute after the close as the forum stamps the ballots, however far this computer's clock
is off, and a read the forum's answer dates before the close is no final read; until one
succeeds the watch goes on trying, keeping the last good count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from tally.commands.current import Current, GameFileNow
from tally.commands.watch_posts import Arrivals, Reminder, Says, Writes, close
from tally.errors import FetchError, InputError, NotAThreadError, ParseError
from tally.forums import resolve_url
from tally.forums.getting import is_url
from tally.forums.reader import Reader
from tally.i18n import N_, tr
from tally.rules.counting.polls import Poll, changes
from tally.rules.counting.state import Carried
from tally.rules.counting.votes import DayResult, tally_day
from tally.rules.game.game import Day, Game
from tally.rules.verdicts import ThreadRole
from tally.vocabulary import Announcement, Markup

if TYPE_CHECKING:
    from tally.environment import Environment
    from tally.outputs.shown.watchers import Watcher

# The final read waits this long after the close by the forum's clock: a ballot sent in the
# close's last second is stamped before it and shows a moment later.
GRACE = timedelta(minutes=1)
# What a forum that stops answering raises: the watch keeps its last good count.
PASSING = (FetchError, NotAThreadError, ParseError)


@dataclass(frozen=True)
class Schedule:
    every: float = 60.0  # seconds between polls (at least 1, and the forum's Crawl-delay)
    polls: int | None = None  # stop after this many polls (scripts, tests); None: the close
    full_every: int = 10  # every Nth poll reads every page again; 0: only at the close
    grace: timedelta = GRACE
    # The first poll this many minutes or less before the close reads every page again:
    # the reminder's (--remind-at), which names who has not voted to the players.
    full_before: int | None = None


def watch(
    game: Game,
    url: str,
    *,
    day: int | None = None,
    every: float = 60.0,
    polls: int | None = None,
    full_every: int = 10,
    reader: Reader,
    show: Says,
    watchers: Sequence[Watcher],
    announce_to: Path | None = None,
    markup: Markup | None = None,
    late_ok: bool = False,
    template_dir: Path | None = None,
    post: bool = False,
    remind_at: int | None = None,
) -> None:
    """The whole watch: every poll shown to each of ``watchers`` (the terminal is one), the
    wait between polls (``every`` seconds; a full read every ``full_every`` polls; ``polls``
    at most), the final count shown and then (a count is never lost to a file that cannot be
    written) the closing announcement written to ``announce_to``, atomically. Ctrl-C shows
    the last good count and raises. ``show`` says what was written and what failed."""
    writes = Writes(announce_to, post, remind_at, markup, template_dir)
    _check_writes(writes, game, url, day, reader)
    schedule = Schedule(every, polls, full_every, full_before=remind_at)
    for watcher in watchers:
        watcher.start(game)
    last = None
    arrivals = Arrivals(game)
    reminder = Reminder(remind_at, writes) if remind_at is not None else None
    try:
        for last in read_polls(game, url, day=day, schedule=schedule, reader=reader,
                               wait=_waiting(reader.env, watchers), late_ok=late_ok):  # fmt: skip
            arrivals.poll(last)
            for watcher in watchers:
                watcher.poll(last)
            if reminder is not None:
                reminder.at(last, last.game or game, reader, show, watchers)
    except KeyboardInterrupt:
        for watcher in watchers:
            watcher.stop(last, interrupted=True)
        raise
    for watcher in watchers:
        watcher.stop(last)
    if last is None or not last.final or last.result is None:
        return
    # The game file as the final count read it, not as at the start.
    close(writes, last, last.game or game, reader, show, watchers, arrivals)
    if reminder is not None and reminder.failure is not None:
        raise reminder.failure  # the close went well; the reminder did not: said again


def _check_writes(writes: Writes, game: Game, url: str, day: int | None, reader: Reader) -> None:
    """What the watch will write and post, checked before its first poll rather than at
    the close hours later: the file writable, the templates, and for a post the journal,
    the cookies, the account and the reply box."""
    from tally.commands.checks import check_output
    from tally.outputs.written.announce import check_templates

    if writes.to is not None:
        check_output(writes.to, N_("announcement"))
    if writes.closing:
        check_templates(Announcement.CLOSE, writes.template_dir)
    if writes.remind_at is not None:
        check_templates(Announcement.REMINDER, writes.template_dir)
    if writes.post or writes.remind_at is not None:
        from tally.commands.post import ready
        from tally.journal import can_record

        can_record(game.path)
        ready(game, _vote_day(game, url, day, reader).vote_ref, 1, reader)


def _waiting(env: Environment, watchers: Sequence[Watcher]) -> Callable[[float], None]:
    """How the watch waits between polls: the environment's sleep; in steps of a second,
    each watcher that ticks woken after each, when one does (the live screen's clocks)."""
    ticking = [w for w in watchers if w.ticks]
    if not ticking:
        return env.sleep

    def wait(seconds: float) -> None:
        end = env.now() + timedelta(seconds=seconds)
        while (left := (end - env.now()).total_seconds()) > 0:
            env.sleep(min(1.0, left))
            for watcher in ticking:
                watcher.tick()

    return wait


def read_polls(
    game: Game,
    url: str,
    *,
    day: int | None = None,
    schedule: Schedule = Schedule(),
    reader: Reader,
    wait: Callable[[float], None] | None = None,
    late_ok: bool = False,
) -> Iterator[Poll]:
    """Poll the vote thread at ``url`` until the day's final count (or ``schedule.polls``).

    The first read must succeed (a wrong URL, another day's thread or an unreachable forum
    stops here, with the sentences of `tally votes`); after it, a forum that fails gives
    polls with ``error`` set and the last good count, until it answers again. ``wait``:
    how to wait between polls (the environment's sleep by default).
    """
    _check_watchable(url, schedule)
    wait = wait or reader.env.sleep
    watched = _Watched.of(game, _vote_day(game, url, day, reader), schedule, reader)
    before = schedule.full_before
    due = watched.closes - timedelta(minutes=before) if before is not None else None
    polls = _Polls(url, schedule, reader, late_ok, Current(game), game, watched, due)
    while True:
        # By the forum's clock (as its answers tell it: tally.forums.clocks), in its zone:
        # the final read comes after the close as the forum stamps the ballots.
        now = reader.now(url).astimezone(polls.game.timezone)
        closes, close_at = polls.watched.closes, polls.watched.close_at
        if closes <= now < close_at:
            wait((close_at - now).total_seconds())
            continue
        poll = polls.poll(now)
        yield poll
        if poll.next_at is None:
            return
        left = (poll.next_at - reader.now(url)).total_seconds()
        if left > 0:
            wait(left)


@dataclass
class _Polls:
    """A watch's polls so far: the game file and the day as the last poll read them, the
    last good count, since when reads fail, and whether the reminder's full read is due."""

    url: str
    schedule: Schedule
    reader: Reader
    late_ok: bool
    current: Current
    game: Game
    watched: _Watched
    due: datetime | None  # the reminder's full read, until one succeeds
    every: float = field(init=False)  # the schedule's, or the forum's Crawl-delay
    number: int = 0
    last: DayResult | None = None
    failing_since: datetime | None = None

    def __post_init__(self) -> None:
        self.every = self.schedule.every

    def poll(self, now: datetime) -> Poll:
        """The next poll, begun at ``now`` (the forum's clock): the thread read and
        counted, or the last good count kept with the reason the read failed."""
        reader, url = self.reader, self.url
        final = now >= self.watched.closes
        self.number += 1
        # A 屏蔽 on a page before the last changes no floor: only reading it shows it
        # (until a read of every page succeeds: each poll after a failed one tries).
        full = _full_by_schedule(self.number, final, self.schedule) or (
            not final and self.due is not None and now >= self.due
        )
        sent = reader.requests
        result, error, said = self._read(now, final, full)
        if self.number == 1:
            self.every = _polite(self.every, reader, url)
        done = result is not None and not result.provisional
        if result is not None:
            found = changes(self.last, result)
            self.failing_since = None
            self.last = result
        else:
            found = ()
            self.failing_since = self.failing_since or now
        stop = done or (self.schedule.polls is not None and self.number >= self.schedule.polls)
        after = reader.now(url).astimezone(self.game.timezone)
        wake = _next(after, self.every, self.watched.closes, self.watched.close_at)
        return Poll(
            number=self.number,
            at=now,
            result=self.last,
            changes=found,
            error=error,
            failing_since=self.failing_since,
            last_read=self.last.as_of if self.last is not None else None,
            requests=reader.requests - sent,
            full=full or final,
            final=done,
            every=self.every,
            next_at=None if stop else wake,
            game=self.game,
            notes=(said,) if said is not None else (),
            offset=reader.clocks.offset(url),
        )

    def _read(
        self, now: datetime, final: bool, full: bool
    ) -> tuple[DayResult | None, str | None, str | None]:
        """The count of this poll, or None and why the read failed; and what the game
        file's change since the last poll says. The first read must work."""
        said: str | None = None
        try:
            # The game file and the ledger as they are now, at each poll as the thread is: a
            # ruling, a sheriff or a red card written since (K2: `tally cards`, the desk) is
            # in this count, and in the result posted at the close.
            was, (self.game, said) = self.game, self.current.now()
            if said is not None or self.game.sent_off != was.sent_off:
                day = _same_day(self.game, self.watched.day)
                self.watched = _Watched.of(self.game, day, self.schedule, self.reader)
            not_before = self.watched.closes if final else (now if full else None)
            result = self.watched.count(self.url, self.game, self.reader, not_before, self.late_ok)
        except (*PASSING, GameFileNow) as exc:
            if self.last is None:
                raise  # nothing good to keep: the first read must work
            return None, str(exc), said
        if full:
            self.due = None
        return result, None, said


def _check_watchable(url: str, schedule: Schedule) -> None:
    """A watch reads a forum, and not more often than once a second."""
    if not is_url(url):
        raise InputError(
            tr("{url!r} is no URL: tally watch reads the vote thread from its forum; "
               "for saved pages use tally votes.", url=url)
        )
    if schedule.every < 1:
        raise InputError(tr("--every must be at least 1 second, not {every}.",
                             every=format(schedule.every, "g")))


@dataclass(frozen=True)
class _Watched:
    """The day watched as the game file says it now: its close, the grace minute's end,
    and what the closed days before it carried (read once, and again when the file
    changes what they make)."""

    day: Day
    carried: Carried
    closes: datetime
    close_at: datetime

    @classmethod
    def of(cls, game: Game, day: Day, schedule: Schedule, reader: Reader) -> _Watched:
        from tally.commands.threads import days_before

        carried = days_before(game, day.day, reader).carried
        return cls(day, carried, day.closes, day.closes + schedule.grace)

    def count(
        self, url: str, game: Game, reader: Reader, not_before: datetime | None, late_ok: bool
    ) -> DayResult:
        """The day's count from the thread as it is now (no page cached before
        ``not_before`` trusted)."""
        thread = reader.thread(url, game.timezone, not_before=not_before, hold=True,
                               closes=self.closes)  # fmt: skip
        return tally_day(thread, game, self.day.day, carried=self.carried, late_ok=late_ok)


def _full_by_schedule(number: int, final: bool, schedule: Schedule) -> bool:
    """Whether poll ``number`` reads every page again by the schedule: every
    ``full_every``-th poll after the first; the final read always does, by its own rule."""
    return not final and bool(
        schedule.full_every and number > 1 and (number - 1) % schedule.full_every == 0
    )


def _same_day(game: Game, chosen: Day) -> Day:
    """The day ``chosen`` as the game file says it now (its close moved, say); one sentence
    when the file no longer has it."""
    day = next((d for d in game.days if d.day == chosen.day), None)
    if day is None:
        raise GameFileNow(
            tr("the game file no longer has day {day}, the day watched.", day=chosen.day)
        )
    return day


def _vote_day(game: Game, url: str, day: int | None, reader: Reader) -> Day:
    """The day whose vote thread ``url`` is; any other thread is read once, as `tally votes`
    reads it, and refused with its sentences (a missing thread, another day's, one the game
    file does not name)."""
    key = resolve_url(url)[1].key
    found = game.locate(key)
    if found is not None and found[1] is ThreadRole.VOTE and day in (None, found[0].day):
        return found[0]
    thread = reader.thread(url, game.timezone)
    return game.vote_day(key, day, started=thread.posts[0].time if thread.posts else None)


def _next(now: datetime, every: float, closes: datetime, close_at: datetime) -> datetime:
    """When the next poll is due: ``every`` seconds on, but never inside the grace minute
    after the close (a page read then could be from either side of it)."""
    due = now + timedelta(seconds=every)
    if now < closes and due >= closes:
        return close_at
    return due


def _polite(every: float, reader: Reader, url: str) -> float:
    """``every``, or longer when the forum's robots.txt asks for a longer Crawl-delay."""
    delay = reader.crawl_delay(url)
    if delay is not None and delay > every:
        if reader.how.warn is not None:
            reader.how.warn(
                tr("the forum's robots.txt asks for {delay} s between requests; "
                   "polling every {delay} s instead of {every} s.",
                   delay=format(delay, "g"), every=format(every, "g"))
            )
        return delay
    return every
