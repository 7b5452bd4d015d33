"""Rich tables and sentences of threads and counts, for the director to read: a line that
may hold what a forum user wrote (``say``, ``cell``), a thread's floors, a day's count, its
outcome, the demo. Each takes a rich ``Console`` and knows nothing of the terminal around it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tally.rules.counting.state import FactKind, Source
from tally.rules.counting.votes import DayResult
from tally.rules.verdicts import DayKind, OutcomeResult, Status
from tally.sanitise import one_line
from tally.times import compared, duration, short

if TYPE_CHECKING:
    from tally.model import Thread


def cell(value: object, style: str = "") -> Text:
    """Anything that may hold what a forum user wrote, ready for a table cell or a line.

    Sanitised (no control characters, one line), and a ``Text``: rich never reads it as
    markup (``[red]``, ``[link=…]``, a stray ``[/b]``) or as emoji codes.
    """
    return Text(one_line(str(value)), style=style)


def say(console: Console, value: object, style: str = "") -> None:
    """Print one line that may hold what a forum user wrote.

    Leading line breaks and spaces are tally's own layout (a blank line before a heading,
    an indent) and are kept; the rest is one sanitised line.
    """
    text = str(value)
    body = text.lstrip("\n ")
    lead = text[: len(text) - len(body)]
    for _ in range(lead.count("\n")):
        console.print()
    # Soft wrap: the terminal wraps a long line, and copying it gives the line back whole.
    console.print(Text(" " * lead.count(" ") + one_line(body), style=style), soft_wrap=True)


# From this many columns on, the ballots are a table; below, two lines each.
WIDE = 100
_STATUS_STYLE = {Status.COUNTED: "green", Status.SUPERSEDED: "yellow", Status.VOID: "red"}
_REMARK_STATUS = {
    Status.NOT_A_BALLOT: "not a ballot",
    Status.BANNED: "banned",
    Status.DELETED: "deleted",
    Status.MOVED_IN: "moved in",
    Status.DISCUSSION: "discussion post",
}


def weighed(voter: str, result: DayResult) -> str:
    """A voter as the totals name them: with their weight where it is not 1 ("bob ×1.5")."""
    from tally.rules.counting.count import votes_text

    weight = result.count.weights.get(voter)
    return f"{voter} ×{votes_text(weight[0])}" if weight is not None and weight[0] != 1 else voter


def totals_table(result: DayResult) -> Table:
    """Each player's votes, the voters with their weights, and the bonuses with their rule."""
    from tally.rules.counting.count import votes_text

    totals = Table(title="Totals")
    for column in ("player", "votes", "voters (weight)", "bonus"):
        totals.add_column(column)
    for t in result.totals:
        voters = ", ".join(weighed(v, result) for v in t.voters)
        bonus = "; ".join(f"+{votes_text(a)} {why} ({rule})" for a, why, rule in t.bonuses)
        totals.add_row(cell(t.player), votes_text(t.votes), cell(voters), cell(bonus))
    if result.count.abstained:
        totals.add_row("(弃权)", votes_text(result.count.abstained), "", "")
    return totals


def print_day(console: Console, result: DayResult) -> None:
    """The table a director checks against the thread, floor by floor."""

    thread = result.thread
    day = result.day
    say(
        console,
        f"\nDay {day.day} {'sheriff election' if result.kind == DayKind.SHERIFF else 'vote'} "
        f"(ruleset {result.ruleset}), thread {thread.thread_id} “{thread.title}”: "
        f"{thread.page_count} page(s), {len(thread.posts)} posts",
    )
    if result.provisional:
        closes, read = compared(day.closes, result.as_of)
        say(
            console,
            f"PROVISIONAL: the day closes {closes}, {duration(day.closes - result.as_of)} "
            f"after this count ({read}); ballots and changes may still come.",
            style="bold yellow",
        )
    derived = [f for f in result.facts if f.source is Source.DERIVED]
    if derived:
        said = "; ".join(
            f"{f.what} {f.player} ({f.note})"
            if f.what in (FactKind.SHERIFF, FactKind.DEPUTY)
            else f"the sheriff {f.player}'s {f.note}"
            if f.what is FactKind.DECLARATION
            else f"{f.player} out ({f.note})"
            for f in derived
        )
        say(console, f"From the earlier days' counts (not in the game file): {said}")
    console.print(totals_table(result))
    _print_floors(console, _floor_rows(result))
    for flag in result.flags:
        where = f"floor {flag.floor}: " if flag.floor else ""
        say(console, f"flag {flag.rule}: {where}{flag.note}")
    if result.not_voted:
        say(console, f"Not voted ({len(result.not_voted)}): {'、'.join(result.not_voted)}")
    say(console, outcome_line(result))


class _FloorRow(NamedTuple):
    """A line of the ballots table: a ballot, or a post that holds none."""

    order: tuple[Any, ...]  # the thread's order: floor, its 点评 after it, then time
    floor: str
    who: str
    kind: str
    target: str
    when: str
    status: str
    style: str
    why: str


def _floor_rows(result: DayResult) -> list[_FloorRow]:
    """The ballots and the posts that hold none (listed, never counted), in the thread's
    order, each with why it stands so."""
    rows = []
    for b in result.ballots:
        counted = b.status == Status.COUNTED
        status = "in force now" if result.provisional and counted else str(b.status)
        why = "" if b.note == status else b.note
        if b.reason:
            why = f"{b.reason}: {why}"  # the code once, then what it means here
        flags = [f for f in b.flags if f != b.note]  # a look-alike's note is its flag too
        if flags:
            why += " [flag: " + "; ".join(flags) + "]"
        floor = f"{b.floor}" + (" 点评" if b.comment else "")
        target, style = b.target or b.written or "", _STATUS_STYLE[b.status]
        order = (b.floor, b.comment, b.posted_at)
        rows.append(_FloorRow(order, floor, b.voter or b.author, str(b.kind), target,
                              short(b.time), status, style, why.strip()))  # fmt: skip
    for r in result.remarks:
        floor = f"{r.floor}" + (" 点评" if r.comment else "")
        style = "dim" if r.status == Status.NOT_A_BALLOT else "red"
        rows.append(_FloorRow((r.floor, r.comment, r.time), floor, r.player or r.author, "", "",
                              short(r.time), _REMARK_STATUS[r.status], style,
                              r.note or r.words))  # fmt: skip
    rows.sort(key=lambda row: row.order)
    return rows


def _print_floors(console: Console, rows: list[_FloorRow]) -> None:
    """The rows as a table on a wide terminal; on a narrow one, each on a line, why it
    stands so on the next."""
    if console.width >= WIDE:
        ballots = Table(title="Ballots, floor by floor")
        for column in ("floor", "voter", "kind", "target", "time", "status"):
            ballots.add_column(column, no_wrap=True)
        ballots.add_column("why", overflow="fold")  # wrapped at spaces, never cut short
        for _, floor, who, kind, target, when, status, style, why in rows:
            ballots.add_row(floor, cell(who), kind, cell(target), when, cell(status, style),
                            cell(why))  # fmt: skip
        console.print(ballots)
        return
    say(console, "\nBallots, floor by floor")
    for _, floor, who, kind, target, when, status, style, why in rows:
        head = Text(f"{floor:>6}  ") + cell(who) + Text(f"  {kind} ")
        head += cell(target) + Text(f"  {when}  ") + cell(status, style)
        console.print(head, soft_wrap=True)
        if why:
            say(console, f"        {why}")


def outcome_line(result: DayResult) -> str:
    """The last line of a count: who is out (or sheriff) and by which rule; before the
    close, who leads and what would happen if the day closed now."""
    o = result.outcome
    if result.provisional:
        verdict = {
            OutcomeResult.ELIMINATED: f"{o.player} would be out",
            OutcomeResult.SHERIFF: f"{o.player} would be sheriff",
            OutcomeResult.NONE: "nobody would be "
            + ("sheriff" if result.kind == DayKind.SHERIFF else "out"),
        }[o.result]
        leaders = "、".join(result.leaders) or "nobody"
        return (
            f"Standing now (not final): {leaders} leading; if the day closed now, {verdict} — "
            f"{o.note} [rule {o.code}]"
        )
    verdict = {
        OutcomeResult.ELIMINATED: f"{o.player} is out",
        OutcomeResult.SHERIFF: f"{o.player} is sheriff",
        OutcomeResult.NONE: "nobody",
    }[o.result]
    return f"Outcome: {verdict} — {o.note} [rule {o.code}]"

def print_demo(
    console: Console,
    name: str,
    forum: str,
    threads: Iterable[Thread],
    result: DayResult,
    markup: str,
) -> None:
    """The demo in a dozen lines: what was read, how the day was counted, what it says."""
    from tally.rules.counting.count import votes_text

    say(console, f"Sample game {name}, served at {forum} (pages a real Discuz! X3.5 rendered)")
    for t in threads:
        comments = sum(len(p.comments) for p in t.posts)
        say(
            console,
            f"  read thread {t.thread_id} “{t.title}”: {t.page_count} page(s), "
            f"{len(t.posts)} posts, {comments} 点评",
        )
    by_status = {s: [b for b in result.ballots if b.status == s] for s in Status}
    reasons = "、".join(dict.fromkeys(str(b.reason) for b in by_status[Status.VOID]))
    say(
        console,
        f"Day {result.day.day} (ruleset {result.ruleset}): {len(result.ballots)} ballots — "
        f"{len(by_status[Status.COUNTED])} in force, {len(by_status[Status.SUPERSEDED])} "
        f"changed, {len(by_status[Status.VOID])} void" + (f" ({reasons})" if reasons else ""),
    )
    totals = " · ".join(f"{t.player} {votes_text(t.votes)}" for t in result.totals)
    say(console, f"Totals: {totals or 'none'}; not voted: {'、'.join(result.not_voted) or 'none'}")
    o = result.outcome
    verdict = {
        OutcomeResult.ELIMINATED: f"{o.player} is out",
        OutcomeResult.SHERIFF: f"{o.player} is sheriff",
        OutcomeResult.NONE: "nobody",
    }[o.result]
    say(console, f"Outcome: {verdict} — {o.note} [rule {o.code}]")
    say(console, f"\nThe announcement to paste ({markup}), as `tally announce` prints it:")
    console.print()
