"""Rich tables for the terminal: what the commands print for the director to read."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.table import Table

from tally.model import Post, Thread
from tally.votes import DayResult


def _first_line(text: str, width: int = 40) -> str:
    line = text.split("\n", 1)[0]
    return line if len(line) <= width else line[: width - 1] + "…"


def _marks(post: Post, floors: dict[str, int]) -> str:
    marks = []
    for q in post.quotes:
        target = floors.get(q.post_id or "")
        marks.append(f"quotes #{target}" if target else "quotes")
    if post.edited:
        marks.append(f"edited {post.edited.at:%m-%d %H:%M} by {post.edited.by}")
    if post.comments:
        marks.append(f"{len(post.comments)} 点评")
    if post.red_font:
        marks.append("red font")
    if post.large_font:
        marks.append("large font")
    if post.hidden:
        marks.append(f"hidden ({post.hidden})")
    return "; ".join(marks)


def print_threads(console: Console, threads: Iterable[Thread]) -> None:
    """Each thread as a table of floors, with its comments indented under them."""
    for thread in threads:
        comments = sum(len(p.comments) for p in thread.posts)
        console.print(
            f"\nThread {thread.thread_id} “{thread.title}”: {thread.page_count} page(s), "
            f"{len(thread.posts)} posts, {comments} comments",
            markup=False,
        )
        floors = {p.post_id: p.floor for p in thread.posts}
        table = Table(show_lines=False)
        for column in ("floor", "author", "time", "text", "marks"):
            table.add_column(column)
        for post in thread.posts:
            table.add_row(
                str(post.floor),
                post.author,
                f"{post.time:%Y-%m-%d %H:%M}",
                _first_line(post.text),
                _marks(post, floors),
            )
            for c in post.comments:
                table.add_row(
                    "", f"  └ {c.author}", f"{c.time:%Y-%m-%d %H:%M}", _first_line(c.text), "点评"
                )
        console.print(table)


_STATUS_STYLE = {"counted": "green", "superseded": "yellow", "void": "red"}


def print_day(console: Console, result: DayResult) -> None:
    """The table a director checks against the thread, floor by floor."""
    from tally.count import votes_text

    thread = result.thread
    console.print(
        f"\nDay {result.day.day} {'sheriff election' if result.kind == 'sheriff' else 'vote'} "
        f"(ruleset {result.ruleset}), thread {thread.thread_id} “{thread.title}”: "
        f"{thread.page_count} page(s), {len(thread.posts)} posts",
        markup=False,
    )
    weights = result.count.weights
    totals = Table(title="Totals")
    for column in ("player", "votes", "voters (weight)", "bonus"):
        totals.add_column(column)
    for t in result.totals:
        voters = ", ".join(
            f"{v} ×{votes_text(weights[v][0])}" if v in weights and weights[v][0] != 1 else v
            for v in t.voters
        )
        bonus = "; ".join(f"+{votes_text(a)} {why} ({rule})" for a, why, rule in t.bonuses)
        totals.add_row(t.player, votes_text(t.votes), voters, bonus)
    if result.count.abstained:
        totals.add_row("(弃权)", votes_text(result.count.abstained), "", "")
    console.print(totals)

    ballots = Table(title="Ballots, floor by floor")
    for column in ("floor", "voter", "kind", "target", "time", "status", "why"):
        ballots.add_column(column)
    for b in result.ballots:
        floor = f"{b.floor}" + (" 点评" if b.comment else "")
        why = b.note
        if b.reason:
            why = f"{b.reason}: {why}"
        if b.flags:
            why += " [flag: " + "; ".join(b.flags) + "]"
        ballots.add_row(
            floor,
            b.voter or b.author,
            b.kind,
            b.target or b.written or "",
            f"{b.time:%m-%d %H:%M}",
            f"[{_STATUS_STYLE[b.status]}]{b.status}[/]",
            _escape(why),
        )
    console.print(ballots)
    for flag in result.flags:
        where = f"floor {flag.floor}: " if flag.floor else ""
        console.print(f"flag {flag.rule}: {where}{flag.note}", markup=False)
    if result.not_voted:
        console.print(
            f"Not voted ({len(result.not_voted)}): {'、'.join(result.not_voted)}", markup=False
        )
    o = result.outcome
    verdict = {
        "eliminated": f"{o.player} is out",
        "sheriff": f"{o.player} is sheriff",
        "none": "nobody",
    }[o.result]
    console.print(f"Outcome: {verdict} — {o.note} [rule {o.rule}]", markup=False)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
