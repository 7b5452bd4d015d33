"""A thread built from its pages: complete or refused (``check_complete``), pages saved as
files read as one thread each (``read_saved_thread_files``), and what a read says of itself
(``summary``).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, tzinfo
from pathlib import Path

from tally.errors import (
    FetchError,
    InputError,
    ParseError,
)
from tally.files import PAGE, read_capped
from tally.forums import PLATFORMS, by_name, recognise_text
from tally.forums.base import CommentBatch, check_clock
from tally.forums.boards import Boards
from tally.forums.charset import decode_page
from tally.forums.out_of_place import place_floating
from tally.model import Page, Post, Thread
from tally.vocabulary import Origin


def check_complete(
    thread: Thread, pages: Sequence[Page], source: str, *, saved: bool = False
) -> None:
    """The floors read must account for the replies the thread says it has."""
    if not thread.short_of_replies():
        return
    replies = len(thread.posts) - 1
    comments = sum(len(p.comments) for p in thread.posts)
    where = f"page {_short_page(thread, pages)}"
    # --fresh reads the forum again; a saved file is what it is: it is saved again.
    advice = "Save it again from the forum." if saved else "Run again with --fresh."
    fullest = max((len(p.posts) for p in pages), default=0)
    small = [
        (p.page, pid) for p in pages for pid in p.top if pid.isdecimal() and int(pid) < fullest
    ]
    if small:
        # The forum merges the posts it shows above the others (keyed by post id) with the
        # page's own (keyed by their place there): a small id takes another post's key.
        gone = ", ".join(map(str, thread.gaps[:10])) or "one"
        where = f"page {small[0][0]}"
        advice = (
            f"Page {small[0][0]} shows post(s) {', '.join(pid for _, pid in small)} above its "
            "others (置顶回复 or 热门回复) with a post id smaller than the posts a page shows: "
            f"the forum then leaves a reply out of the page (floor(s) {gone} not read), and "
            "reading again changes nothing; have a moderator unstick it (解除置顶), or count "
            "by hand."
        )
    raise FetchError(
        f"{source}: the thread says it has {thread.reply_count} replies but tally read "
        f"{replies} (and {comments} comments); {where} may be incomplete. {advice}"
    )


def _short_page(thread: Thread, pages: Sequence[Page]) -> int:
    """The page most likely missing posts: the one where a floor number is skipped, else
    the emptiest page but the last (which is short by nature)."""
    for gap in thread.gaps:
        for page in pages:
            floors = [p.floor for p in page.posts]
            if floors and min(floors) - 1 <= gap <= max(floors) + 1:
                return page.page
    full = max(len(p.posts) for p in pages)
    short = [p for p in pages[:-1] if len(p.posts) < full]
    return short[0].page if short else pages[-1].page


def read_saved_thread_files(
    paths: Iterable[Path], tz: tzinfo, *, partial: bool = False, boards: Boards | None = None
) -> list[Thread]:
    """Parse saved pages; the pages of each thread must all be there.

    With ``partial`` (``tally archive --partial``) a thread is built from what was given,
    and what is missing (pages, 楼中楼, replies) is listed in ``Thread.missing``; a count
    never accepts such a thread.
    """
    saved = _saved_parts(paths, tz, boards)
    threads = [_saved_thread(key, saved, partial) for key in saved.pages]
    for platform_name, found in saved.batches.items():
        tids = {tid for name, _, tid in saved.pages if name == platform_name}
        for batch, where in found:
            if batch.thread_id is not None and batch.thread_id not in tids:
                raise InputError(
                    f"{where} holds comments of thread {batch.thread_id}, "
                    "whose pages were not given."
                )
    return threads


@dataclass(frozen=True)
class _Saved:
    """Saved files sorted by what they hold: each thread's pages by number (one thread per
    board and id: thread 23 of two boards are two threads) and the file first naming it,
    and each platform's batches of 楼中楼 with their files."""

    pages: dict[tuple[str, str, str], dict[int, Page]]
    names: dict[tuple[str, str, str], str]
    batches: dict[str, list[tuple[CommentBatch, str]]]


def _saved_parts(paths: Iterable[Path], tz: tzinfo, boards: Boards | None) -> _Saved:
    saved = _Saved({}, {}, {})
    for path in paths:
        body = read_capped(path, "saved page", PAGE)
        for candidate in PLATFORMS:
            refused = candidate.pages.saved_refusal(body, str(path))
            if refused is not None:
                raise refused
        text = decode_page(body, None, source=str(path))
        platform = recognise_text(text, str(path))
        part = platform.pages.parse_saved(text, tz, source=str(path), boards=boards)
        if isinstance(part, CommentBatch):
            saved.batches.setdefault(platform.name, []).append((part, str(path)))
            continue
        key = (platform.name, part.origin, part.thread_id)
        saved.names.setdefault(key, str(path))
        pages = saved.pages.setdefault(key, {})
        if part.page in pages:
            raise InputError(f"{path} is page {part.page} of thread {part.thread_id}, given twice.")
        pages[part.page] = part
    return saved


def _saved_thread(key: tuple[str, str, str], saved: _Saved, partial: bool) -> Thread:
    """The thread of ``key`` from its saved pages and 楼中楼; with ``partial`` what it
    lacks is its ``missing``, else an error."""
    platform_name, _, tid = key
    pages = saved.pages[key]
    count = max(p.page_count for p in pages.values())
    absent = [p for p in range(1, count + 1) if p not in pages]
    notes: list[str] = []
    if absent:
        shown = ", ".join(map(str, absent[:10])) + (" …" if len(absent) > 10 else "")
        if not partial:
            raise InputError(
                f"thread {tid} has {count} pages but page(s) {shown} were not given "
                f"(saved from {saved.names[key]})."
            )
        notes.append(f"page{'s' if len(absent) > 1 else ''} {shown} of {count}")
    source = os.fspath(saved.names[key])
    mine = [b for b, _ in saved.batches.get(platform_name, []) if b.thread_id in (None, tid)]
    ordered = place_floating([pages[n] for n in sorted(pages)], source, whole=not absent)
    with_comments = by_name(platform_name).pages.attach_saved(
        ordered, mine, source=source, missing=notes if partial else None
    )
    origins = [Origin.FILE] * len(with_comments)
    thread = build_thread(platform_name, tid, source, with_comments, origins)
    try:
        check_complete(thread, with_comments, source, saved=True)
    except FetchError as exc:
        if not partial:
            raise
        if not absent:
            notes.append(str(exc).rsplit(". ", 1)[0])
        # else the pages not given hold the replies not read: the note above says so.
    return replace(thread, missing=tuple(notes)) if notes else thread


def build_thread(
    platform_name: str,
    tid: str,
    source: str,
    pages: list[Page],
    origins: Sequence[str],
    read_at: datetime | None = None,
) -> Thread:
    seen: set[str] = set()
    posts: list[Post] = []
    for page in pages:
        for post in page.posts:
            # A post can show on two pages when the thread grew between two reads.
            if post.post_id not in seen:
                seen.add(post.post_id)
                posts.append(post)
    posts.sort(key=lambda p: p.floor)
    count = max((p.page_count for p in pages), default=0)
    whole = {p.page for p in pages} >= set(range(1, count + 1))
    for page in pages if whole else ():
        for pid in page.elsewhere:
            if pid not in seen:
                # Shown out of its place (a 置顶回复 from a later page, without its number)
                # and not found where it stands: the pages were read at different times.
                raise ParseError(
                    f"{source}: page {page.page} shows post {pid} stuck to its top (置顶回复) "
                    "without its floor number, and no page read holds it on its floor; the "
                    "pages disagree (read the thread again with --fresh)."
                )
    for before, after in itertools.pairwise(posts):
        if before.floor == after.floor:
            # Rulings and announcements name floors: two posts on one floor cannot both be it.
            raise ParseError(
                f"{source}: posts {before.post_id} and {after.post_id} both claim floor "
                f"{after.floor}; the pages disagree (read the thread again with --fresh)."
            )
    if posts and posts[0].time.tzinfo is not None:  # pages alike may run back between them
        check_clock(posts, posts[0].time.tzinfo, source)
    floors = {p.floor for p in posts}
    gaps = tuple(f for f in range(1, max(floors, default=0) + 1) if f not in floors)
    first = pages[0]
    return Thread(
        platform=platform_name,
        thread_id=tid,
        url=source,
        title=first.title,
        # The thread's page count, as its pages say (a partial read holds fewer).
        page_count=max(len(pages), *(p.page_count for p in pages)),
        posts=tuple(posts),
        reply_count=first.reply_count,
        sources=tuple(origins),
        gaps=gaps,
        read_at=read_at,
        origin=first.origin,
        closed=max(pages, key=lambda p: p.page).closed,  # the last page is read live
    )


def summary(thread: Thread) -> str:
    """Where the pages came from, and the floors the forum no longer shows."""
    said = {
        Origin.NETWORK: "from the network",
        Origin.REVALIDATED: "unchanged (checked with the forum)",
        Origin.CACHE: "from the cache",
        Origin.MEMORY: "as read before",
        Origin.FILE: "from saved files",
        Origin.ARCHIVE: "from the archive",
    }
    parts = [f"{n} {said[o]}" for o in Origin if (n := thread.sources.count(o))]
    text = f"thread {thread.thread_id}: {thread.page_count} page(s), " + ", ".join(parts)
    if thread.gaps:
        shown = ", ".join(map(str, thread.gaps[:20])) + (" …" if len(thread.gaps) > 20 else "")
        text += f"; floors {shown} are gone (deleted or hidden by the forum)"
    return text
