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
from typing import TYPE_CHECKING, Protocol

from tally.commands.current import Current, GameFileNow
from tally.errors import FetchError, InputError, NotAThreadError, ParseError
from tally.forums import resolve_url
from tally.forums.getting import is_url
from tally.forums.reader import Reader
from tally.model import DURING_A_READ, Post
from tally.rules.counting.polls import Poll, changes
from tally.rules.counting.votes import DayResult, tally_day
from tally.rules.game.game import Day, Game
from tally.rules.verdicts import ThreadRole
from tally.times import short
from tally.vocabulary import Announcement, Markup

if TYPE_CHECKING:
    from tally.environment import Environment
    from tally.outputs.results import Posted
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


class Says(Protocol):
    """Where a watch says what it did (a file written) and what went wrong (standard error)."""

    def note(self, message: str) -> None: ...

    def warn(self, message: str) -> None: ...


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
    from tally.commands.checks import check_output
    from tally.outputs.written.announce import check_templates

    if announce_to is not None:
        check_output(announce_to, "announcement")
    if announce_to is not None or post:
        # A broken template is found now, not at the close hours later.
        check_templates(Announcement.CLOSE, template_dir)
    if remind_at is not None:
        check_templates(Announcement.REMINDER, template_dir)
    if post or remind_at is not None:
        from tally.commands.post import ready
        from tally.journal import can_record

        # The journal, the cookies, the account and the reply box checked now, not at the
        # close.
        can_record(game.path)
        ready(game, _vote_day(game, url, day, reader).vote_ref, 1, reader)
    schedule = Schedule(every, polls, full_every, full_before=remind_at)
    for watcher in watchers:
        watcher.start(game)
    last = None
    arrivals = _Arrivals(game)
    reminder: Reminder | None = Reminder(remind_at) if remind_at is not None else None
    try:
        for last in read_polls(game, url, day=day, schedule=schedule, reader=reader,
                               wait=_waiting(reader.env, watchers), late_ok=late_ok):  # fmt: skip
            arrivals.poll(last)
            for watcher in watchers:
                watcher.poll(last)
            if reminder is not None:
                reminder.at(last, last.game or game, reader, show, watchers, markup, template_dir)
    except KeyboardInterrupt:
        for watcher in watchers:
            watcher.stop(last, interrupted=True)
        raise
    for watcher in watchers:
        watcher.stop(last)
    if last is None or not last.final or last.result is None:
        return
    game = last.game or game  # the game file as the final count read it, not as at the start
    markup = markup or reader.markup_for(last.result.day.vote_ref)
    if announce_to is not None or post:
        from tally.commands.post import final_text, post_or_keep
        from tally.rules.counting.closed import record

        text = _closing_text(last.result, game, markup, template_dir, post)
        outcome = record(last.result.ballots, last.result.outcome)
        if post:  # the file holds what is posted, mark and all: pasted, it is known again
            text = final_text(game, last.result.day.day, Announcement.CLOSE, text, outcome)
        if announce_to is not None:
            from tally.atomic import write_atomic

            write_atomic(announce_to, text.encode("utf-8"))
            show.note(f"wrote the announcement to {announce_to}")
        if post:
            arrivals.check(last.result)
            _posted(watchers, post_or_keep(game, last.result.day, Announcement.CLOSE, text,
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

    def at(self, poll: Poll, game: Game, reader: Reader, show: Says,
           watchers: Sequence[Watcher], markup: Markup | None,
           template_dir: Path | None) -> None:  # fmt: skip
        from tally.commands.post import post_or_keep
        from tally.errors import AlreadyPosted, PostError
        from tally.outputs.written.announce import reminder_context, render

        result = poll.result
        # A failed poll carries the last good count, which may rest on cached pages: the
        # reminder waits for the next poll, which reads every page.
        if self.done or result is None or poll.final or not result.provisional or poll.error:
            return
        if poll.at < result.day.closes - timedelta(minutes=self.minutes):
            return
        self.done = True
        if not result.not_voted:  # nobody to remind: a 催票 would only be noise
            show.note(
                f"no reminder posted: every living player has voted on day {result.day.day}."
            )
            return
        markup = markup or reader.markup_for(result.day.vote_ref)
        text = render(Announcement.REMINDER, markup, reminder_context(result, game), template_dir)
        try:
            _posted(watchers, post_or_keep(game, result.day, Announcement.REMINDER, text,
                                           reader=reader))  # fmt: skip
        except AlreadyPosted as exc:  # a watch started again: the players were reminded
            show.note(f"no second reminder: {exc}")
        except (PostError, FetchError) as exc:
            self.failure = exc
            show.warn(f"the reminder was not posted: {exc}")


def _posted(watchers: Sequence[Watcher], posted: Posted) -> None:
    for watcher in watchers:
        watcher.posted(posted)


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
    current = Current(game)
    closes, close_at = chosen.closes, chosen.closes + schedule.grace
    before = schedule.full_before
    due = closes - timedelta(minutes=before) if before is not None else None
    every = schedule.every
    last: DayResult | None = None
    failing_since: datetime | None = None
    number = 0
    while True:
        # By the forum's clock (as its answers tell it: tally.forums.clocks), in its zone:
        # the final read comes after the close as the forum stamps the ballots.
        now = reader.now(url).astimezone(game.timezone)
        if closes <= now < close_at:
            wait((close_at - now).total_seconds())
            continue
        final = now >= closes
        number += 1
        full = not final and bool(
            schedule.full_every and number > 1 and (number - 1) % schedule.full_every == 0
        )
        if not final and due is not None and now >= due:
            # A 屏蔽 on a page before the last changes no floor: only reading it shows it
            # (until a read of every page succeeds: each poll after a failed one tries).
            full = True
        sent = reader.requests
        said: str | None = None
        try:
            # The game file and the ledger as they are now, at each poll as the thread is: a
            # ruling, a sheriff or a red card written since (K2: `tally cards`, the desk) is
            # in this count, and in the result posted at the close.
            was, (game, said) = game, current.now()
            if said is not None or game.sent_off != was.sent_off:
                chosen = _same_day(game, chosen)
                carried = days_before(game, chosen.day, reader).carried
                closes, close_at = chosen.closes, chosen.closes + schedule.grace
            not_before = closes if final else (now if full else None)
            thread = reader.thread(url, game.timezone, not_before=not_before, hold=True,
                                   closes=closes)  # fmt: skip
            result: DayResult | None = tally_day(
                thread, game, chosen.day, carried=carried, late_ok=late_ok
            )
            error = None
            if full:
                due = None
        except (*PASSING, GameFileNow) as exc:
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
        after = reader.now(url).astimezone(game.timezone)
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
            game=game,
            notes=(said,) if said is not None else (),
            offset=reader.clocks.offset(url),
        )
        if stop:
            return
        left = (wake - reader.now(url)).total_seconds()
        if left > 0:
            wait(left)


def _same_day(game: Game, chosen: Day) -> Day:
    """The day ``chosen`` as the game file says it now (its close moved, say); one sentence
    when the file no longer has it."""
    day = next((d for d in game.days if d.day == chosen.day), None)
    if day is None:
        raise GameFileNow(f"the game file no longer has day {chosen.day}, the day watched.")
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
                f"the forum's robots.txt asks for {delay:g} s between requests; "
                f"polling every {delay:g} s instead of {every:g} s."
            )
        return delay
    return every


# How far before a read a floor it did not show must be dated to be late.
_MARGIN = DURING_A_READ


@dataclass
class _Arrivals:
    """Players' floors that came into the vote thread with times before what tally's reads
    had already shown: approved by a moderator since (审核), or moved or merged in from
    another thread (移动, 合并; a merged thread's ballot lines put the wrong player out,
    posted unattended, on a real X3.5). Followed poll by poll (a merge at any poll, not only
    the last), from the reads in the cache's history before the first; "before" is older
    than the newest floor those reads showed, or ``_MARGIN`` before the last of them.
    `watch --post` posts nothing while one stands."""

    game: Game
    seen: set[str] = field(default_factory=set)
    newest: datetime | None = None
    late: dict[str, Post] = field(default_factory=dict)
    started: bool = False

    def poll(self, poll: Poll) -> None:
        if poll.error is not None or poll.result is None:
            return  # a poll that failed read nothing new
        thread = poll.result.thread
        if not self.started:
            self.started = True
            history = thread.history.versions if thread.history is not None else ()
            for v in history:
                if v.read_at < poll.at:
                    self._saw(v.posts, v.read_at)
        if self.newest is not None:
            cast = self.game.cast()
            for post in thread.posts:
                if (post.post_id not in self.seen and post.floor != 1
                        and post.time < self.newest and not cast.of(post).is_director):
                    self.late[post.post_id] = post
        self._saw(thread.posts, poll.result.as_of)

    def _saw(self, posts: Sequence[Post], read_at: datetime) -> None:
        self.seen.update(p.post_id for p in posts)
        # A time past the read's is one the clock puts in the future: no measure.
        times = [p.time for p in posts if p.floor != 1 and p.time <= read_at]
        for t in (*times, read_at - _MARGIN):
            self.newest = t if self.newest is None or t > self.newest else self.newest

    def check(self, result: DayResult) -> None:
        """Stop the unattended post while a late floor stands in the final read."""
        from tally.errors import PostError

        standing = {p.post_id for p in result.thread.posts}
        late = sorted((p for pid, p in self.late.items() if pid in standing),
                      key=lambda p: p.floor)  # fmt: skip
        if not late:
            return
        floors = "、".join(f"{p.floor}楼 {p.author} {short(p.time)}" for p in late[:8])
        floors += "…" if len(late) > 8 else ""
        where = f" --game {self.game.path}" if self.game.path is not None else ""
        raise PostError(
            f"the closing announcement was not posted: {len(late)} floor(s) came into the "
            f"thread with times before what tally's reads had already shown ({floors}): "
            "approved by a moderator since (审核), or moved in from another thread (移动, "
            "合并); look at them in the count above, then post with tally announce"
            f"{where} --day {result.day.day} --kind close --post."
        )


def _closing_text(result: DayResult, game: Game, markup: Markup | None,
                  template_dir: Path | None, post: bool) -> str:  # fmt: skip
    """The closing post, rendered once for the file and the post. A template that fails
    at the close (stopped at its time or size limit, or broken since the start) posts
    nothing: with --post, the command fails as a post that was not made does (exit 7)."""
    from tally.errors import PostError
    from tally.outputs.written.announce import closing_post

    try:
        return closing_post(result, game, markup, template_dir=template_dir)
    except InputError as exc:
        if not post:
            raise
        raise PostError(
            f"the closing announcement was not posted, nor written: {str(exc).rstrip('.')}; the "
            "final count is above."
        ) from None
