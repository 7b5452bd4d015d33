"""Every post of a thread as CSV rows (`tally archive`; README, *`tally archive` CSV*).

Columns, in this order:

===============  ==========================================================
platform         "discuz" or "tieba"
thread_id        the forum's thread id
post_id          the post id; for a comment, the comment's id
parent_post_id   empty for a floor; for a comment, the post id of its floor
floor            the floor number (a comment carries its floor's number)
author           account name
author_id        the forum's user id, when the page shows it
time             ISO 8601 with offset, e.g. 2024-05-08T10:01:00+08:00
edited_at        time of the last edit mark, same format; empty if none
text             what the author wrote, quoted blocks left out
kind             "post" or "comment"
edited_by        who made the last edit
quotes           post ids the post quotes, separated by spaces
red_font         1 if the post uses red font (RULES L7), else 0
large_font       1 if the post uses enlarged font (RULES L7), else 0
hidden           why the forum hides the body ("author_banned", "moderated"), else empty
author_display   the name shown when it differs from the account name (Tieba)
thread_title     the thread's title
===============  ==========================================================

The file is UTF-8 with a byte-order mark so that Excel in a Chinese locale reads it,
control characters in what users wrote are shown as visible stand-ins (␛ for ESC), and
any cell that would start a formula (``= + - @``, tab, CR, after NFKC) is prefixed
with an apostrophe so that a spreadsheet shows it as text.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tally.atomic import write_atomic
from tally.csvfile import excel_csv
from tally.model import Thread

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
)


def rows(threads: Iterable[Thread]) -> list[dict[str, Any]]:
    """One row per post and one per nested comment, in thread and floor order."""
    out: list[dict[str, Any]] = []
    for thread in threads:
        for post in thread.posts:
            out.append(
                {
                    "platform": post.platform,
                    "thread_id": post.thread_id,
                    "post_id": post.post_id,
                    "parent_post_id": "",
                    "floor": post.floor,
                    "author": post.author,
                    "author_id": post.author_id or "",
                    "time": post.time.isoformat(timespec="seconds"),
                    "edited_at": post.edited.at.isoformat(timespec="seconds")
                    if post.edited
                    else "",
                    "text": post.text,
                    "kind": "post",
                    "edited_by": post.edited.by if post.edited else "",
                    "quotes": " ".join(post.quoted_post_ids),
                    "red_font": int(post.red_font),
                    "large_font": int(post.large_font),
                    "hidden": post.hidden or "",
                    "author_display": post.author_display or "",
                    "thread_title": thread.title,
                }
            )
            for comment in post.comments:
                out.append(
                    {
                        "platform": post.platform,
                        "thread_id": post.thread_id,
                        "post_id": comment.comment_id,
                        "parent_post_id": post.post_id,
                        "floor": post.floor,
                        "author": comment.author,
                        "author_id": comment.author_id or "",
                        "time": comment.time.isoformat(timespec="seconds"),
                        "edited_at": "",
                        "text": comment.text,
                        "kind": "comment",
                        "edited_by": "",
                        "quotes": "",
                        "red_font": 0,
                        "large_font": 0,
                        "hidden": "",
                        "author_display": comment.author_display or "",
                        "thread_title": thread.title,
                    }
                )
    return out


def to_csv_bytes(threads: Iterable[Thread]) -> bytes:
    return excel_csv(rows(threads), COLUMNS, multiline=("text",))


def write_csv(threads: Iterable[Thread], path: str | Path) -> int:
    """Write the CSV atomically; returns the number of rows written."""
    threads = list(threads)
    data = to_csv_bytes(threads)
    write_atomic(path, data)
    return sum(1 + len(p.comments) for t in threads for p in t.posts)
