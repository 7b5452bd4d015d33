"""A thread built from its pages: complete or refused (``check_complete``), pages saved as
files read as one thread each (``read_saved_thread_files``), and what a read says of itself
(``summary``).
"""

from __future__ import annotations

import functools
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
from tally.i18n import N_, ntr, tr
from tally.model import Page, Post, Thread
from tally.vocabulary import Origin


def check_complete(
    thread: Thread, pages: Sequence[Page], source: str, *, saved: bool = False
) -> None:
    """The floors read must account for the replies the thread says it has."""
    found = shortfall(thread, pages, source, saved=saved)
    if found is not None:
        # TRANSLATORS: what is wrong, then what to do; two sentences.
        raise FetchError(tr("{said} {advice}", said=found[0], advice=found[1]))


def shortfall(
    thread: Thread, pages: Sequence[Page], source: str, *, saved: bool = False
) -> tuple[str, str] | None:
    """Why the floors read fall short of the replies the thread says it has, and what to
    do; None when they do not."""
    if not thread.short_of_replies():
        return None
    replies = len(thread.posts) - 1
    comments = sum(len(p.comments) for p in thread.posts)
    page = _short_page(thread, pages)
    # --fresh reads the forum again; a saved file is what it is: it is saved again.
    advice = tr("Save it again from the forum.") if saved else tr("Run again with --fresh.")
    fullest = max((len(p.posts) for p in pages), default=0)
    small = [
        (p.page, pid) for p in pages for pid in p.top if pid.isdecimal() and int(pid) < fullest
    ]
    if small:
        # The forum merges the posts it shows above the others (keyed by post id) with the
        # page's own (keyed by their place there): a small id takes another post's key.
        page = small[0][0]
        posts = ", ".join(pid for _, pid in small)
        advice = tr(
            "Page {page} shows post(s) {posts} above its others (置顶回复 or 热门回复) with a "
            "post id smaller than the posts a page shows: the forum then leaves a reply out "
            "of the page (floor(s) {floors} not read), and reading again changes nothing; "
            "have a moderator unstick it (解除置顶), or count by hand.",
            page=page,
            posts=posts,
            floors=", ".join(map(str, thread.gaps[:10])),
        ) if thread.gaps else tr(
            "Page {page} shows post(s) {posts} above its others (置顶回复 or 热门回复) with a "
            "post id smaller than the posts a page shows: the forum then leaves a reply out "
            "of the page (floor(s) one not read), and reading again changes nothing; have a "
            "moderator unstick it (解除置顶), or count by hand.",
            page=page,
            posts=posts,
        )  # fmt: skip
    said = tr(
        "{source}: the thread says it has {replies} replies but tally read {read} (and "
        "{comments} comments); page {page} may be incomplete.",
        source=source,
        replies=thread.reply_count,
        read=replies,
        comments=comments,
        page=page,
    )
    return said, advice


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
                    tr(
                        "{where} holds comments of thread {thread}, whose pages were not given.",
                        where=where,
                        thread=batch.thread_id,
                    )
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
            raise InputError(
                tr(
                    "{path} is page {page} of thread {thread}, given twice.",
                    path=path,
                    page=part.page,
                    thread=part.thread_id,
                )
            )
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
                tr(
                    "thread {thread} has {count} pages but page(s) {pages} were not given "
                    "(saved from {path}).",
                    thread=tid,
                    count=count,
                    pages=shown,
                    path=saved.names[key],
                )
            )
        notes.append(
            ntr(
                "page {pages} of {count}",
                "pages {pages} of {count}",
                len(absent),
                pages=shown,
                count=count,
            )
        )
    source = os.fspath(saved.names[key])
    mine = [b for b, _ in saved.batches.get(platform_name, []) if b.thread_id in (None, tid)]
    ordered = place_floating([pages[n] for n in sorted(pages)], source, whole=not absent)
    with_comments = by_name(platform_name).pages.attach_saved(
        ordered, mine, source=source, missing=notes if partial else None
    )
    origins = [Origin.FILE] * len(with_comments)
    thread = build_thread(platform_name, tid, source, with_comments, origins)
    if not partial:
        check_complete(thread, with_comments, source, saved=True)
    elif not absent and (found := shortfall(thread, with_comments, source, saved=True)):
        notes.append(found[0].rstrip(".。"))
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
                    tr(
                        "{source}: page {page} shows post {post} stuck to its top (置顶回复) "
                        "without its floor number, and no page read holds it on its floor; "
                        "the pages disagree (read the thread again with --fresh).",
                        source=source,
                        page=page.page,
                        post=pid,
                    )
                )
    for before, after in itertools.pairwise(posts):
        if before.floor == after.floor:
            # Rulings and announcements name floors: two posts on one floor cannot both be it.
            raise ParseError(
                tr(
                    "{source}: posts {post} and {other} both claim floor {floor}; the pages "
                    "disagree (read the thread again with --fresh).",
                    source=source,
                    post=before.post_id,
                    other=after.post_id,
                    floor=after.floor,
                )
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
        Origin.NETWORK: N_("{n} from the network"),
        Origin.REVALIDATED: N_("{n} unchanged (checked with the forum)"),
        Origin.CACHE: N_("{n} from the cache"),
        Origin.MEMORY: N_("{n} as read before"),
        Origin.FILE: N_("{n} from saved files"),
        Origin.ARCHIVE: N_("{n} from the archive"),
    }
    parts = _listed([tr(said[o], n=n) for o in Origin if (n := thread.sources.count(o))])
    if not thread.gaps:
        return tr("thread {thread}: {count} page(s), {sources}", thread=thread.thread_id,
                  count=thread.page_count, sources=parts)  # fmt: skip
    shown = ", ".join(map(str, thread.gaps[:20])) + (" …" if len(thread.gaps) > 20 else "")
    return tr(
        "thread {thread}: {count} page(s), {sources}; floors {floors} are gone (deleted or "
        "hidden by the forum)",
        thread=thread.thread_id,
        count=thread.page_count,
        sources=parts,
        floors=shown,
    )


def _listed(parts: list[str]) -> str:
    """Words listed as the run's language lists them (Chinese: ，)."""
    # TRANSLATORS: a list, one more item added to it at a time ("a, b" then "a, b, c").
    return functools.reduce(lambda a, b: tr("{list}, {item}", list=a, item=b), parts[1:],
                            parts[0]) if parts else ""  # fmt: skip
