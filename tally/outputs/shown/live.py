"""The screen of `tally watch`: one poll as a rich renderable, redrawn in place (rich Live).

A pure function of the poll and the time now, so that the countdowns tick between polls
and a test can render it to text.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from tally.outputs.shown.console import cell, outcome_line, print_day, say, totals_table
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
        return f"{who} has more than half of the {cast} votes cast (C6)"
    if gap == 0:
        more = "any vote more"
    else:
        more = f"more than {votes_text(gap)} vote{'s' if gap != 1 else ''} more"
    who = f"{who} are tied: each needs" if len(result.leaders) > 1 else f"{who} needs"
    return f"{who} {more} for more than half of all votes cast (C6; {cast} cast now)"


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
        lines.append(_line(f"Closes {short(day.closes)} (in {left})"))
    else:
        lines.append(_line(f"Closed {short(day.closes)}", "bold"))
    minutes = game.rules.change_window_minutes
    if minutes and now < day.closes:
        barred = day.closes - timedelta(minutes=minutes)
        when = (
            "changes are barred now"
            if now >= barred
            else f"changes barred from {clock(barred)} (in {duration(barred - now, seconds=True)})"
        )
        lines.append(_line(f"No change in the last {minutes} min (V5): {when}"))
    return lines


def live_view(poll: Poll, game: Game, now: datetime) -> RenderableType:
    """What the director sees during the watch: standings, changes, who has not voted,
    the clocks, and whether reads work."""
    parts: list[RenderableType] = []
    result = poll.result
    if result is not None:
        thread = result.thread
        what = "sheriff election" if result.kind is DayKind.SHERIFF else "vote"
        parts.append(
            _line(
                f"Day {result.day.day} {what} (ruleset {result.ruleset}), thread "
                f"{thread.thread_id} “{thread.title}”",
                "bold",
            )
        )
    state = "FINAL COUNT" if poll.final else f"Poll {poll.number}"
    read = f"last read {clock(poll.last_read, seconds=True)}" if poll.last_read else "not read yet"
    requests = f"{poll.requests} request{'s' if poll.requests != 1 else ''}"
    upcoming = f"; next poll {clock(poll.next_at, seconds=True)}" if poll.next_at else ""
    parts.append(
        _line(f"{state}: {read} ({requests}{', every page' if poll.full else ''}){upcoming}")
    )
    parts.extend(clock_lines(poll, game, now))
    if poll.error is not None and poll.failing_since is not None:
        parts.append(
            _line(
                f"Reads fail since {clock(poll.failing_since, seconds=True)}: {poll.error} "
                "The count below is the last good one; tally keeps trying.",
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
        parts.append(
            _line(
                "Changes since the last poll:" if poll.changes else "No change since the last poll."
            )
        )
        for change in poll.changes:
            parts.append(Text("  ") + cell(change.text, _CHANGE_STYLE.get(change.kind, "bold")))
    if result.not_voted:
        parts.append(_line(f"Not voted ({len(result.not_voted)}): {'、'.join(result.not_voted)}"))
        if not poll.final:
            parts.append(
                Text("  ")
                + _line(
                    f"(the 催票 post: tally announce --kind reminder --game … "
                    f"--day {result.day.day})",
                    "dim",
                )
            )
    return Group(*parts)


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
            read = clock(last.last_read, seconds=True) if last.last_read else "never"
            say(self.console, f"\nStopped. The last good count, read {read}:")
        if last.final or interrupted:
            print_day(self.console, last.result)
