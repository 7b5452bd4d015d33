"""`tally watch`: the last hour of a vote, live, as a generator of polls the CLI only draws.

    from tally.watch import Schedule, watch

    for poll in watch(game, url, env=Environment(), how=Reading(), schedule=Schedule(every=60)):
        print(poll.number, poll.result.leaders if poll.result else None, poll.changes)

Each poll reads the vote thread again through one HTTP client (robots.txt is read once,
the per-host limits hold across polls) and the cache, with the pages of the last poll kept
in memory, parsed (``Held``): an unchanged thread costs one request, for its last page, and
the parse of that page. A 点评 or 楼中楼 added under a floor of an earlier page shows
at the next full read: every ``full_every`` polls, and at the close, when no page read
before the close is trusted (the same rule as ``tally votes``). The final read comes a
grace minute after the close, for clocks that differ; until it succeeds the watch goes on
trying, keeping the last good count.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from tally.environment import Environment
from tally.errors import FetchError, InputError, NotAThreadError, ParseError
from tally.forums.fetch import FetchOptions, Held, fetch_thread, is_url
from tally.forums.http import Http
from tally.rules.changes import Poll, changes
from tally.rules.game import Game
from tally.rules.votes import DayResult, day_of_sources, tally_day
from tally.workflows import Reading

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


def watch(
    game: Game,
    url: str,
    *,
    day: int | None = None,
    schedule: Schedule = Schedule(),
    env: Environment,
    how: Reading,
) -> Iterator[Poll]:
    """Poll the vote thread at ``url`` until the day's final count (or ``schedule.polls``).

    The first read must succeed (a wrong URL or an unreachable forum stops here, as in
    `tally votes`); after it, a forum that fails gives polls with ``error`` set and the last
    good count, until it answers again.
    """
    if not is_url(url):
        raise InputError(
            f"{url!r} is no URL: tally watch reads the vote thread from its forum; "
            "for saved pages use tally votes."
        )
    chosen = day_of_sources(game, [url], day)
    if chosen is None:
        raise InputError(
            f"{url} is not the vote thread of any day in {game.where()}; name the day with --day N."
        )
    if schedule.every < 1:
        raise InputError(f"--every must be at least 1 second, not {schedule.every:g}.")
    closes, close_at = chosen.closes, chosen.closes + schedule.grace
    http = Http(dataclasses.replace(env.http, cookies=how.cookies), warn=how.warn)
    held = Held()
    every = schedule.every
    last: DayResult | None = None
    failing_since: datetime | None = None
    number = 0
    try:
        while True:
            now = env.now().astimezone(game.timezone)  # times shown are the forum's
            if closes <= now < close_at:
                env.sleep((close_at - now).total_seconds())
                continue
            final = now >= closes
            number += 1
            full = not final and bool(
                schedule.full_every and number > 1 and (number - 1) % schedule.full_every == 0
            )
            options = FetchOptions(
                http=http.options,
                cache_dir=(how.cache_dir or env.cache_folder()) if how.use_cache else None,
                fresh=how.fresh and number == 1,
                not_before=closes if final else (now if full else None),
                clock=env.clock,
                warn=how.warn,
            )
            sent = http.requests
            try:
                thread = fetch_thread(
                    url,
                    game.timezone,
                    http=http,
                    options=options,
                    progress=how.progress if number == 1 else None,
                    held=held,
                )
                result: DayResult | None = tally_day(thread, game, chosen.day)
                error = None
            except PASSING as exc:
                if last is None:
                    raise  # nothing good to keep: the first read must work
                result, error = None, str(exc)
            if number == 1:
                every = _polite(every, http, url, how)
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
                requests=http.requests - sent,
                full=full or final,
                final=done,
                every=every,
                next_at=None if stop else wake,
            )
            if stop:
                return
            wait = (wake - env.now()).total_seconds()
            if wait > 0:
                env.sleep(wait)
    finally:
        http.close()


def _next(now: datetime, every: float, closes: datetime, close_at: datetime) -> datetime:
    """When the next poll is due: ``every`` seconds on, but never inside the grace minute
    after the close (a page read then could be from either side of it)."""
    due = now + timedelta(seconds=every)
    if now < closes and due >= closes:
        return close_at
    return due


def _polite(every: float, http: Http, url: str, how: Reading) -> float:
    """``every``, or longer when the forum's robots.txt asks for a longer Crawl-delay."""
    delay = http.crawl_delay(url)
    if delay is not None and delay > every:
        if how.warn is not None:
            how.warn(
                f"the forum's robots.txt asks for {delay:g} s between requests; "
                f"polling every {delay:g} s instead of {every:g} s."
            )
        return delay
    return every


def write_announcement(path: Path, result: DayResult, game: Game, fmt: str | None = None) -> None:
    """The closing announcement of the final count, written atomically to ``path``."""
    from tally.atomic import write_atomic
    from tally.outputs.announce import closing_post

    write_atomic(path, closing_post(result, game, fmt).encode("utf-8"))
