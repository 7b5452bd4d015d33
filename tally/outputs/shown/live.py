"""The screen of `tally watch`: one poll as a rich renderable, redrawn in place (rich Live).

A pure function of the poll and the time now, so that the countdowns tick between polls
and a test can render it to text.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from tally.i18n import ntr, tr
from tally.outputs.shown.console import (
    cell,
    not_voted_line,
    outcome_line,
    print_day,
    say,
    totals_table,
)
from tally.rules.counting.count import majority_gap, votes_text
from tally.rules.counting.polls import ChangeKind
from tally.rules.verdicts import DayKind
from tally.sanitise import one_line
from tally.times import clock, duration, short

if TYPE_CHECKING:
    from rich.console import Console

    from tally.environment import Environment
    from tally.rules.counting.polls import Poll
    from tally.rules.counting.votes import DayResult
    from tally.rules.game.game import Game
    from tally.rules.game.rulesets import Ruleset

_CHANGE_STYLE = {ChangeKind.NEW: "green", ChangeKind.STATUS: "yellow", ChangeKind.GONE: "red"}


def majority_text(result: DayResult, rules: Ruleset) -> str | None:
    """The leader's distance from a majority (C6), as the live screen says it."""
    gap = majority_gap(result.count, rules)
    if gap is None:
        return None
    who = "、".join(result.leaders)
    cast = votes_text(result.count.cast)
    if gap < 0:
        return tr("{who} has more than half of the {cast} votes cast (C6)", who=who, cast=cast)
    fields = dict(who=who, cast=cast, gap=votes_text(gap))
    tied = len(result.leaders) > 1
    if gap == 0 and tied:
        return tr("{who} are tied: each needs any vote more for more than half of all votes "
                  "cast (C6; {cast} cast now)", **fields)  # fmt: skip
    if gap == 0:
        return tr("{who} needs any vote more for more than half of all votes cast (C6; {cast} "
                  "cast now)", **fields)  # fmt: skip
    # "vote" or "votes" by the gap (half a vote is "votes"): ngettext's forms by whole numbers.
    many = 1 if gap == 1 else 2
    if tied:
        return ntr("{who} are tied: each needs more than {gap} vote more for more than half of "
                   "all votes cast (C6; {cast} cast now)",
                   "{who} are tied: each needs more than {gap} votes more for more than half of "
                   "all votes cast (C6; {cast} cast now)", many, **fields)  # fmt: skip
    return ntr("{who} needs more than {gap} vote more for more than half of all votes cast "
               "(C6; {cast} cast now)",
               "{who} needs more than {gap} votes more for more than half of all votes cast "
               "(C6; {cast} cast now)", many, **fields)  # fmt: skip


def _line(text: str, style: str = "") -> Text:
    return Text(one_line(text), style=style)


def clock_lines(poll: Poll, game: Game, now: datetime) -> list[Text]:
    """The close and the no-change window (V5), with the time left to each."""
    result = poll.result
    if result is None:
        return []
    day = result.day
    lines = []
    if now < day.closes:
        left = duration(day.closes - now, seconds=True)
        lines.append(_line(tr("Closes {closes} (in {left})", closes=short(day.closes), left=left)))
    else:
        lines.append(_line(tr("Closed {closes}", closes=short(day.closes)), "bold"))
    minutes = game.rules.change_window_minutes
    if minutes and now < day.closes:
        barred = day.closes - timedelta(minutes=minutes)
        if now >= barred:
            said = tr("No change in the last {minutes} min (V5): changes are barred now",
                      minutes=minutes)  # fmt: skip
        else:
            said = tr("No change in the last {minutes} min (V5): changes barred from {barred} "
                      "(in {left})", minutes=minutes, barred=clock(barred),
                      left=duration(barred - now, seconds=True))  # fmt: skip
        lines.append(_line(said))
    return lines


def live_view(poll: Poll, game: Game, now: datetime) -> RenderableType:
    """What the director sees during the watch: standings, changes, who has not voted,
    the clocks, and whether reads work."""
    parts: list[RenderableType] = []
    result = poll.result
    if result is not None:
        thread = result.thread
        fields = dict(day=result.day.day, ruleset=result.ruleset, thread=thread.thread_id,
                      title=thread.title)  # fmt: skip
        if result.kind is DayKind.SHERIFF:
            head = tr("Day {day} sheriff election (ruleset {ruleset}), thread {thread} “{title}”",
                      **fields)  # fmt: skip
        else:
            head = tr("Day {day} vote (ruleset {ruleset}), thread {thread} “{title}”", **fields)
        parts.append(_line(head, "bold"))
    parts.append(_line(poll_line(poll)))
    parts.extend(clock_lines(poll, game, now))
    if poll.error is not None and poll.failing_since is not None:
        parts.append(
            _line(
                tr("Reads fail since {since}: {error} The count below is the last good one; "
                   "tally keeps trying.", since=clock(poll.failing_since, seconds=True),
                   error=poll.error),
                "bold red",
            )
        )
    if result is None:
        return Group(*parts)
    parts.append(totals_table(result))
    majority = majority_text(result, game.rules)
    if majority:
        parts.append(_line(majority))
    parts.append(_line(outcome_line(result), "bold" if poll.final else ""))
    if poll.number > 1:
        parts.append(_line(tr("Changes since the last poll:") if poll.changes
                           else tr("No change since the last poll.")))  # fmt: skip
        for change in poll.changes:
            parts.append(Text("  ") + cell(change.text, _CHANGE_STYLE.get(change.kind, "bold")))
    if result.not_voted:
        parts.append(_line(not_voted_line(result.not_voted)))
        if not poll.final:
            said = tr("(the 催票 post: tally announce --kind reminder --game … --day {day})",
                      day=result.day.day)  # fmt: skip
            parts.append(Text("  ") + _line(said, "dim"))
    return Group(*parts)


def poll_line(poll: Poll) -> str:
    """Which poll this is, when the thread was last read, with how many requests, and when
    the next poll comes."""
    state = tr("FINAL COUNT") if poll.final else tr("Poll {number}", number=poll.number)
    if poll.last_read:
        read = tr("last read {at}", at=clock(poll.last_read, seconds=True))
    else:
        read = tr("not read yet")
    if poll.full:
        requests = ntr("{n} request, every page", "{n} requests, every page", poll.requests)
    else:
        requests = ntr("{n} request", "{n} requests", poll.requests)
    if poll.next_at:
        return tr("{state}: {read} ({requests}); next poll {at}", state=state, read=read,
                  requests=requests, at=clock(poll.next_at, seconds=True))  # fmt: skip
    return tr("{state}: {read} ({requests})", state=state, read=read, requests=requests)


class LiveScreen:
    """The watch on a terminal: the view of the last poll, redrawn in place (``draw``: the
    clocks tick when it is drawn again between polls); at the end, the full table of the
    last count."""

    def __init__(self, console: Console, game: Game, env: Environment):
        from rich.live import Live

        self.console, self.game, self.env = console, game, env
        self.poll: Poll | None = None
        self.live = Live(console=console, auto_refresh=False, transient=False)
        self.started = False

    def draw(self) -> None:
        if self.poll is None:
            return
        if not self.started:
            self.live.start()
            self.started = True
        now = self.env.now() + self.poll.offset  # the forum's clock, as the poll's times
        self.live.update(live_view(self.poll, self.game, now), refresh=True)

    def show(self, poll: Poll) -> None:
        self.poll = poll
        self.draw()

    def close(self, last: Poll | None, *, interrupted: bool = False) -> None:
        if self.started:
            self.live.stop()
        if last is None or last.result is None:
            return
        if interrupted:
            read = clock(last.last_read, seconds=True) if last.last_read else tr("never")
            say(self.console, "\n" + tr("Stopped. The last good count, read {at}:", at=read))
        if last.final or interrupted:
            print_day(self.console, last.result)
