"""Rich tables for the terminal: what the commands print for the director to read."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.table import Table

from tally.model import Post, Thread


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
