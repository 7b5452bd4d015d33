"""The archive's format: its columns, and threads as rows (`tally archive`, CSV and SQLite
alike). ``tally.forums.archived`` reads the rows back into threads, so that a re-tally from
an archive equals the tally from the forum, ballot for ballot.

The first ten columns are the stable contract; the rest carry what a tally needs and
the first ten do not (the floor a reply links to, the quotes with their authors, the page,
the order of 点评, the thread's title, URL, pages, reply count and read time).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tally.imports import import_without
from tally.model import Comment, Post, Thread
from tally.times import iso

if TYPE_CHECKING:
    from sqlite_utils import Database


class RowKind(StrEnum):
    """What a row is: a floor, or a nested comment under one (楼中楼, 点评)."""

    POST = "post"
    COMMENT = "comment"


COLUMNS = (
    "platform",
    "thread_id",
    "post_id",
    "parent_post_id",
    "floor",
    "author",
    "author_id",
    "time",
    "edited_at",
    "text",
    "kind",
    "edited_by",
    "quotes",
    "red_font",
    "large_font",
    "hidden",
    "author_display",
    "thread_title",
    # What reading the archive back needs (added after the columns above).
    "reply_to",
    "quoted",
    "page",
    "position",
    "thread_url",
    "thread_pages",
    "thread_replies",
    "thread_read_at",
    "thread_missing",
    # Which board the thread is of, and how many 点评/楼中楼 a floor had (a row removed from
    # the archive shows): added later, so an archive without them still reads.
    "origin",
    "comments",
    # How the thread was read ("api", "pages"; tally.forums.api): added later still.
    "thread_read_by",
    # The forum showed its time to the minute only (added later still).
    "to_the_minute",
)
LATER_COLUMNS = ("origin", "comments", "thread_read_by", "to_the_minute")
KEY = ("origin", "platform", "thread_id", "post_id")
# What is the thread's, not the post's: one row of the SQLite archive's threads table, and
# repeated on every row of the flat CSV.
THREAD_COLUMNS = (
    "thread_url",
    "thread_pages",
    "thread_replies",
    "thread_read_at",
    "thread_missing",
    "thread_read_by",
)


def rows(threads: Iterable[Thread]) -> list[dict[str, Any]]:
    """One row per post and one per nested comment, in thread and floor order."""
    out: list[dict[str, Any]] = []
    for thread in threads:
        cells = _thread_cells(thread)
        for post in thread.posts:
            out.append(_post_row(post, cells))
            for position, comment in enumerate(post.comments, start=1):
                out.append(_comment_row(comment, position, post, cells))
    return out


def _thread_cells(thread: Thread) -> dict[str, Any]:
    """The cells every row of ``thread`` repeats: the thread's own, and its board."""
    return {
        "thread_title": thread.title,
        "thread_url": thread.url,
        "thread_pages": thread.page_count,
        "thread_replies": "" if thread.reply_count is None else thread.reply_count,
        "thread_read_at": iso(thread.read_at),
        "thread_missing": "; ".join(thread.missing),
        "thread_read_by": thread.read_by,
        "origin": thread.origin,
    }


def _post_row(post: Post, cells: dict[str, Any]) -> dict[str, Any]:
    quoted = [{"post_id": q.post_id, "author": q.author, "text": q.text} for q in post.quotes]
    return {
        "platform": post.platform,
        "thread_id": post.thread_id,
        "post_id": post.post_id,
        "parent_post_id": "",
        "floor": post.floor,
        "author": post.author,
        "author_id": post.author_id or "",
        "time": iso(post.time),
        "edited_at": iso(post.edited.at) if post.edited else "",
        "text": post.text,
        "kind": RowKind.POST.value,
        "edited_by": post.edited.by if post.edited else "",
        "quotes": " ".join(post.quoted_post_ids),
        "red_font": int(post.red_font),
        "large_font": int(post.large_font),
        "hidden": post.hidden or "",
        "author_display": post.author_display or "",
        "reply_to": post.reply_to or "",
        "quoted": json.dumps(quoted, ensure_ascii=False) if quoted else "",
        "page": post.page,
        "position": 0,
        **cells,
        "comments": len(post.comments),
        "to_the_minute": int(post.to_the_minute),
    }


def _comment_row(
    comment: Comment, position: int, post: Post, cells: dict[str, Any]
) -> dict[str, Any]:
    """The row of a nested comment, the ``position``-th under ``post``'s floor."""
    return {
        "platform": post.platform,
        "thread_id": post.thread_id,
        "post_id": comment.comment_id,
        "parent_post_id": post.post_id,
        "floor": post.floor,
        "author": comment.author,
        "author_id": comment.author_id or "",
        "time": iso(comment.time),
        "edited_at": "",
        "text": comment.text,
        "kind": RowKind.COMMENT.value,
        "edited_by": "",
        "quotes": "",
        "red_font": int(comment.red_font),
        "large_font": 0,
        "hidden": "",
        "author_display": comment.author_display or "",
        "reply_to": "",
        "quoted": "",
        "page": post.page,
        "position": position,
        **cells,
        "comments": None,  # a comment has none of its own
        "to_the_minute": int(comment.to_the_minute),
    }


def database(path: Path) -> Database:
    """The SQLite archive at ``path`` as sqlite_utils opens it (created when it is not
    there), sqlite_utils imported without pandas and numpy (tally.imports).

    sqlite_utils imports pandas and numpy whenever they are installed (``import_module`` in
    a try, None when it fails), only to know the column types of numpy's numbers and
    pandas's Timestamp; tally's rows hold Python's own str, int and None, and the two took
    ~0.35 s of each run that writes or reads an archive. When pandas or numpy is imported
    already (a program that embeds tally) sqlite_utils has it as before.
    """
    import_without("sqlite_utils", ["pandas", "numpy"])
    from sqlite_utils import Database

    return Database(path)
