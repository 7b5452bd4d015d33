"""The rows of an archive: threads to rows (`tally archive`, CSV and SQLite alike) and rows
back to threads (an archive read as a source), so that a re-tally from an archive equals
the tally from the forum, ballot for ballot.

The first ten columns are the stable contract; the rest carry what a tally needs and
the first ten do not (the floor a reply links to, the quotes with their authors, the page,
the order of 点评, the thread's title, URL, pages, reply count and read time).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tally.errors import InputError
from tally.model import Comment, Edit, Post, Quote, Thread
from tally.times import iso

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
)
# Columns an archive must have to be read back; an archive of an older tally lacks some.
NEEDED = COLUMNS
KEY = ("platform", "thread_id", "post_id")
# What is the thread's, not the post's: one row of the SQLite archive's threads table, and
# repeated on every row of the flat CSV.
THREAD_COLUMNS = (
    "thread_url",
    "thread_pages",
    "thread_replies",
    "thread_read_at",
    "thread_missing",
)




def rows(threads: Iterable[Thread]) -> list[dict[str, Any]]:
    """One row per post and one per nested comment, in thread and floor order."""
    out: list[dict[str, Any]] = []
    for thread in threads:
        meta = {
            "thread_title": thread.title,
            "thread_url": thread.url,
            "thread_pages": thread.page_count,
            "thread_replies": "" if thread.reply_count is None else thread.reply_count,
            "thread_read_at": iso(thread.read_at),
            "thread_missing": "; ".join(thread.missing),
        }
        for post in thread.posts:
            quoted = [
                {"post_id": q.post_id, "author": q.author, "text": q.text} for q in post.quotes
            ]
            out.append(
                {
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
                    "kind": "post",
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
                    **meta,
                }
            )
            for position, comment in enumerate(post.comments, start=1):
                out.append(
                    {
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
                        "kind": "comment",
                        "edited_by": "",
                        "quotes": "",
                        "red_font": 0,
                        "large_font": 0,
                        "hidden": "",
                        "author_display": comment.author_display or "",
                        "reply_to": "",
                        "quoted": "",
                        "page": post.page,
                        "position": position,
                        **meta,
                    }
                )
    return out


# -- reading rows back ------------------------------------------------------------------------

# What Excel makes of a long number when it saves a CSV: "1.5E+11".
_SCIENTIFIC = re.compile(r"^\d(\.\d+)?E\+\d+$", re.IGNORECASE)


@dataclass(frozen=True)
class _Cells:
    """One row, read strictly: every failure is one sentence naming the row and column."""

    row: Mapping[str, Any]
    where: str  # "posts.csv, row 7"

    def text(self, column: str) -> str:
        value = self.row.get(column)
        return "" if value is None else str(value)

    def optional(self, column: str) -> str | None:
        return self.text(column) or None

    def required(self, column: str) -> str:
        value = self.text(column)
        if not value.strip():
            raise InputError(f"{self.where}: {column} is empty.")
        return value

    def ident(self, column: str) -> str:
        value = self.text(column).strip()
        if _SCIENTIFIC.match(value):
            raise InputError(
                f"{self.where}: {column} is {value!r}, a number a spreadsheet shortened; "
                "save the CSV with that column as text, or archive the game again."
            )
        if not value:
            raise InputError(f"{self.where}: {column} is empty.")
        return value

    def number(self, column: str) -> int:
        value = self.maybe_number(column)
        if value is None:
            raise InputError(f"{self.where}: {column} is empty.")
        return value

    def maybe_number(self, column: str) -> int | None:
        value = self.text(column).strip()
        if not value:
            return None
        if not re.fullmatch(r"\d+", value):
            raise InputError(f"{self.where}: {column} is {value!r}, not a whole number.")
        return int(value)

    def flag(self, column: str) -> bool:
        value = self.text(column).strip()
        if value not in ("0", "1", ""):
            raise InputError(f"{self.where}: {column} is {value!r}, not 0 or 1.")
        return value == "1"

    def time(self, column: str) -> datetime:
        value = self.maybe_time(column)
        if value is None:
            raise InputError(f"{self.where}: {column} is empty.")
        return value

    def maybe_time(self, column: str) -> datetime | None:
        value = self.text(column).strip()
        if not value:
            return None
        try:
            parsed: datetime | None = datetime.fromisoformat(value)
        except ValueError:
            parsed = None
        if parsed is None or parsed.tzinfo is None:
            raise InputError(
                f"{self.where}: {column} is {value!r}, not the time tally wrote "
                "(2024-05-08T10:01:00+08:00); a spreadsheet re-formats times when it saves: "
                "keep that column as text, or archive the game again."
            )
        return parsed


def check_columns(present: Sequence[str], source: str) -> None:
    """An archive must carry every column a re-tally reads."""
    lacking = [c for c in NEEDED if c not in present]
    if lacking:
        shown = ", ".join(lacking[:6]) + (" …" if len(lacking) > 6 else "")
        raise InputError(
            f"{source} lacks the column(s) {shown} that tally reads an archive by; it was "
            "written by an older tally or edited: archive the game again."
        )


def threads_from_rows(found: Iterable[tuple[Mapping[str, Any], str]], source: str) -> list[Thread]:
    """The threads the rows hold, each as it was read when archived.

    ``found`` gives each row with where it is ("posts.csv, row 7"). A 点评 whose floor is
    not in the archive, two rows for one post, or a thread whose pages are not all there is
    an error; a thread the archive says was partial keeps what it lacks in ``missing``.
    """
    by_thread: dict[tuple[str, str], list[tuple[int, _Cells]]] = {}
    for order, (row, where) in enumerate(found):
        cells = _Cells(row, where)
        key = (cells.ident("platform"), cells.ident("thread_id"))
        by_thread.setdefault(key, []).append((order, cells))
    threads = []
    for (platform, tid), items in by_thread.items():
        threads.append(_thread(platform, tid, items, source))
    return threads


def _thread(platform: str, tid: str, items: list[tuple[int, _Cells]], source: str) -> Thread:
    def place(item: tuple[int, _Cells]) -> tuple[int, int, int]:
        # Floor, then the floor before its 点评 in the forum's order: rows sorted by hand
        # (or read from a database) come back in thread order.
        order, cells = item
        position = cells.maybe_number("position")
        return (cells.number("floor"), position if position is not None else order, order)

    items.sort(key=place)
    first = items[0][1]
    posts: dict[str, dict[str, Any]] = {}
    comments: dict[str, list[Comment]] = {}
    seen: set[str] = set()
    for _, c in items:
        post_id = c.ident("post_id")
        if post_id in seen:
            raise InputError(f"{c.where}: post {post_id} of thread {tid} is in the archive twice.")
        seen.add(post_id)
        kind = c.text("kind").strip()
        if kind == "comment":
            comments.setdefault(c.ident("parent_post_id"), []).append(
                Comment(
                    comment_id=post_id,
                    author=c.required("author"),
                    author_id=c.optional("author_id"),
                    time=c.time("time"),
                    text=c.text("text"),
                    author_display=c.optional("author_display"),
                )
            )
            continue
        if kind != "post":
            raise InputError(f"{c.where}: kind is {kind!r}, not post or comment.")
        edited_at = c.maybe_time("edited_at")
        posts[post_id] = dict(
            platform=platform,
            thread_id=tid,
            post_id=post_id,
            floor=c.number("floor"),
            author=c.required("author"),
            author_id=c.optional("author_id"),
            time=c.time("time"),
            text=c.text("text"),
            quotes=_quotes(c),
            reply_to=c.optional("reply_to"),
            edited=Edit(c.text("edited_by"), edited_at) if edited_at else None,
            red_font=c.flag("red_font"),
            large_font=c.flag("large_font"),
            hidden=c.optional("hidden"),
            author_display=c.optional("author_display"),
            page=c.number("page"),
        )
    for parent in comments:
        if parent not in posts:
            raise InputError(
                f"{source}: 点评/楼中楼 of post {parent} of thread {tid}, whose floor is not "
                "in the archive."
            )
    built = sorted(
        (Post(**p, comments=tuple(comments.get(pid, ()))) for pid, p in posts.items()),
        key=lambda p: p.floor,
    )
    pages = first.number("thread_pages")
    missing = [m for m in first.text("thread_missing").split("; ") if m]
    present = {p.page for p in built}
    absent = [n for n in range(1, pages + 1) if n not in present]
    if absent and not missing:
        shown = ", ".join(map(str, absent[:10]))
        raise InputError(
            f"{source} holds no post of page(s) {shown} of thread {tid} "
            f"({pages} pages): the archive is incomplete; archive the thread again."
        )
    floors = {p.floor for p in built}
    return Thread(
        platform=platform,
        thread_id=tid,
        url=first.text("thread_url") or source,
        title=first.text("thread_title"),
        page_count=pages,
        posts=tuple(built),
        reply_count=first.maybe_number("thread_replies"),
        sources=("archive",) * pages,
        gaps=tuple(f for f in range(1, max(floors, default=0) + 1) if f not in floors),
        read_at=first.maybe_time("thread_read_at"),
        missing=tuple(missing),
    )


def _quotes(c: _Cells) -> tuple[Quote, ...]:
    raw = c.text("quoted").strip()
    if not raw:
        return tuple(Quote("", pid) for pid in c.text("quotes").split())
    try:
        items = json.loads(raw)
        return tuple(
            Quote(str(q.get("text") or ""), q.get("post_id"), q.get("author")) for q in items
        )
    except (ValueError, AttributeError, TypeError):
        raise InputError(f"{c.where}: quoted is not the JSON list tally wrote.") from None
