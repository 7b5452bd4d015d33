"""`tally watch`: the last hour of a vote, live: the polls of a vote thread until its close
(``read_polls``, a generator), and the whole watch (``watch``: each poll shown, the wait between
polls, the announcement written at the close, Ctrl-C), so that the CLI only draws.

    from tally.commands.watch import Schedule, read_polls

    with Reader(Environment(), Reading()) as reader:
        for poll in read_polls(game, url, reader=reader, schedule=Schedule(every=60)):
            print(poll.number, poll.result.leaders if poll.result else None, poll.changes)

Each poll reads the vote thread again through the run's one ``Reader`` (one HTTP client:
robots.txt is read once, the per-host limits hold across polls), with the pages of the
last poll kept in memory, parsed: an unchanged thread costs one request, for its last
page, and the parse of that page. A 点评 or 楼中楼 added under a floor of an earlier page
shows at the next full read: every ``full_every`` polls, and at the close, when no page
read before the close is trusted (the same rule as ``tally votes``). The final read comes
a grace minute after the close, for clocks that differ; until it succeeds the watch goes
on trying, keeping the last good count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from tally.errors import FetchError, InputError, NotAThreadError, ParseError
from tally.forums import resolve_url
from tally.forums.fetch import is_url
from tally.forums.reader import Reader
from tally.rules.game import Day, Game
from tally.rules.guards import vote_day_of
from tally.rules.polls import Poll, changes
from tally.rules.verdicts import ThreadRole
from tally.rules.votes import DayResult, tally_day
from tally.vocabulary import Announcement, Markup

if TYPE_CHECKING:
    from tally.outputs.results import Posted

# Forums and the director's computer disagree on the time by seconds; the final read waits
# this long after the close.
GRACE = timedelta(minutes=1)
# What a forum that stops answering raises: the watch keeps its last good count.
PASSING = (FetchError, NotAThreadError, ParseError)


@dataclass(frozen=True)
class Schedule:
    every: float = 60.0  # seconds between polls (at least 1, and the forum's Crawl-delay)
    polls: int | None = None  # stop after this many polls (scripts, tests); None: the close
    full_every: int = 10  # every Nth poll reads every page again; 0: only at the close
    grace: timedelta = GRACE


class Watcher(Protocol):
    """Where a watch shows itself: the live screen, or a JSON line per poll."""

    def start(self, game: Game) -> None:
        """The watch of ``game``'s vote begins."""

    def poll(self, poll: Poll) -> None: ...

    def wait(self, seconds: float) -> None:
        """Wait between two polls (the live screen ticks its clocks meanwhile)."""

    def stop(self, last: Poll | None, *, interrupted: bool = False) -> None:
        """The watch is over: the final count, or the last good one after Ctrl-C."""

    def note(self, message: str) -> None: ...

    def warn(self, message: str) -> None: ...

    def posted(self, posted: Posted) -> None:
        """A post the watch made (--post, --remind-at)."""


def watch(
    game: Game,
    url: str,
    *,
    day: int | None = None,
    every: float = 60.0,
    polls: int | None = None,
    full_every: int = 10,
    reader: Reader,
    show: Watcher,
    announce_to: Path | None = None,
    markup: Markup | None = None,
    late_ok: bool = False,
    template_dir: Path | None = None,
    post: bool = False,
    remind_at: int | None = None,
) -> None:
    """The whole watch: every poll shown, the wait between polls (``every`` seconds; a full
    read every ``full_every`` polls; ``polls`` at most), the final count shown and then (a
    count is never lost to a file that cannot be written) the closing announcement written
    to ``announce_to``, atomically. Ctrl-C shows the last good count and raises."""
    from tally.commands.checks import check_output
    from tally.outputs.announce import check_templates

    if announce_to is not None:
        check_output(announce_to, "announcement")
    if announce_to is not None or post:
        # A broken template is found now, not at the close hours later.
        check_templates(Announcement.CLOSE, template_dir)
    if remind_at is not None:
        check_templates(Announcement.REMINDER, template_dir)
    if post or remind_at is not None:
        from tally.commands.post import ready

        # The cookies, the account and the reply box checked now, not at the close.
        ready(game, _vote_day(game, url, day, reader).vote_ref, 1, reader)
    schedule = Schedule(every, polls, full_every)
    show.start(game)
    last = None
    reminder: Reminder | None = Reminder(remind_at) if remind_at is not None else None
    try:
        for last in read_polls(game, url, day=day, schedule=schedule, reader=reader,
                               wait=show.wait, late_ok=late_ok):  # fmt: skip
            show.poll(last)
            if reminder is not None:
                reminder.at(last, game, reader, show, markup, template_dir)
    except KeyboardInterrupt:
        show.stop(last, interrupted=True)
        raise
    show.stop(last)
    if last is None or not last.final or last.result is None:
        return
    markup = markup or reader.markup_for(last.result.day.vote_ref)
    if announce_to is not None or post:
        from tally.commands.post import final_text, post_or_keep
        from tally.rules.closed import record

        text = _closing_text(last.result, game, markup, template_dir, post)
        outcome = record(last.result)
        if post:  # the file holds what is posted, mark and all: pasted, it is known again
            text = final_text(game, last.result.day.day, Announcement.CLOSE, text, outcome)
        if announce_to is not None:
            from tally.atomic import write_atomic

            write_atomic(announce_to, text.encode("utf-8"))
            show.note(f"wrote the announcement to {announce_to}")
        if post:
            show.posted(post_or_keep(game, last.result.day, Announcement.CLOSE, text,
                                     reader=reader, keep=announce_to, outcome=outcome,
                                     unchecked=last.result.unchecked))  # fmt: skip
    if reminder is not None and reminder.failure is not None:
        raise reminder.failure  # the close went well; the reminder did not: said again


@dataclass
class Reminder:
    """`--remind-at N`: the 催票 post, once, at the first poll N minutes or less before the
    close. A reminder that fails is said at once and again at the end (the command fails),
    its text kept to paste; the watch goes on to the close."""

    minutes: int
    done: bool = False
    failure: Exception | None = None

    def at(self, poll: Poll, game: Game, reader: Reader, show: Watcher,
           markup: Markup | None, template_dir: Path | None) -> None:  # fmt: skip
        from tally.commands.post import post_or_keep
        from tally.errors import AlreadyPosted, PostError
        from tally.outputs.announce import reminder_context, render

        result = poll.result
        if self.done or result is None or poll.final or not result.provisional:
            return
        if poll.at < result.day.closes - timedelta(minutes=self.minutes):
            return
        self.done = True
        if not result.not_voted:  # nobody to remind: a 催票 would only be noise
            show.note(
                f"no reminder posted: every living player has voted on day {result.day.day}."
            )
            return
        markup = markup or reader.markup_for(result.day.vote_ref) or Markup.BBCODE
        text = render(Announcement.REMINDER, markup, reminder_context(result, game), template_dir)
        try:
            show.posted(post_or_keep(game, result.day, Announcement.REMINDER, text, reader=reader))
        except AlreadyPosted as exc:  # a watch started again: the players were reminded
            show.note(f"no second reminder: {exc}")
        except (PostError, FetchError) as exc:
            self.failure = exc
            show.warn(f"the reminder was not posted: {exc}")


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
    if not is_url(url):
        raise InputError(
            f"{url!r} is no URL: tally watch reads the vote thread from its forum; "
            "for saved pages use tally votes."
        )
    if schedule.every < 1:
        raise InputError(f"--every must be at least 1 second, not {schedule.every:g}.")
    env = reader.env
    wait = wait or env.sleep
    from tally.commands.threads import days_before

    chosen = _vote_day(game, url, day, reader)
    carried = days_before(game, chosen.day, reader).carried  # closed days: read once
    closes, close_at = chosen.closes, chosen.closes + schedule.grace
    every = schedule.every
    last: DayResult | None = None
    failing_since: datetime | None = None
    number = 0
    while True:
        now = env.now().astimezone(game.timezone)  # times shown are the forum's
        if closes <= now < close_at:
            wait((close_at - now).total_seconds())
            continue
        final = now >= closes
        number += 1
        full = not final and bool(
            schedule.full_every and number > 1 and (number - 1) % schedule.full_every == 0
        )
        sent = reader.requests
        try:
            not_before = closes if final else (now if full else None)
            thread = reader.thread(url, game.timezone, not_before=not_before, hold=True)
            result: DayResult | None = tally_day(
                thread, game, chosen.day, carried=carried, late_ok=late_ok
            )
            error = None
        except PASSING as exc:
            if last is None:
                raise  # nothing good to keep: the first read must work
            result, error = None, str(exc)
        if number == 1:
            every = _polite(every, reader, url)
        done = result is not None and not result.provisional
        if result is not None:
            found = changes(last, result)
            failing_since = None
            last = result
        else:
            found = ()
            failing_since = failing_since or now
        stop = done or (schedule.polls is not None and number >= schedule.polls)
        after = env.now().astimezone(game.timezone)
        wake = _next(after, every, closes, close_at)
        yield Poll(
            number=number,
            at=now,
            result=last,
            changes=found,
            error=error,
            failing_since=failing_since,
            last_read=last.as_of if last is not None else None,
            requests=reader.requests - sent,
            full=full or final,
            final=done,
            every=every,
            next_at=None if stop else wake,
        )
        if stop:
            return
        left = (wake - env.now()).total_seconds()
        if left > 0:
            wait(left)


def _vote_day(game: Game, url: str, day: int | None, reader: Reader) -> Day:
    """The day whose vote thread ``url`` is; any other thread is read once, as `tally votes`
    reads it, and refused with its sentences (a missing thread, another day's, one the game
    file does not name)."""
    key = resolve_url(url)[1].key
    found = game.locate(key)
    if found is not None and found[1] is ThreadRole.VOTE and day in (None, found[0].day):
        return found[0]
    thread = reader.thread(url, game.timezone)
    return vote_day_of(game, key, day, started=thread.posts[0].time if thread.posts else None)


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
                f"the forum's robots.txt asks for {delay:g} s between requests; "
                f"polling every {delay:g} s instead of {every:g} s."
            )
        return delay
    return every


def _closing_text(result: DayResult, game: Game, markup: Markup | None,
                  template_dir: Path | None, post: bool) -> str:  # fmt: skip
    """The closing post, rendered once for the file and the post. A template that fails
    at the close (stopped at its time or size limit, or broken since the start) posts
    nothing: with --post, the command fails as a post that was not made does (exit 7)."""
    from tally.errors import PostError
    from tally.outputs.announce import closing_post

    try:
        return closing_post(result, game, markup, template_dir=template_dir)
    except InputError as exc:
        if not post:
            raise
        raise PostError(
            f"the closing announcement was not posted, nor written: {str(exc).rstrip('.')}; the "
            "final count is above."
        ) from None
