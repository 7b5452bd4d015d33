"""Posts approved late: held for a moderator (审核) at the close and shown since, with the
time they were posted; and posts that came into the vote thread after a read before the
close that they are older than (moved or merged in, 移动, 合并; approved, 审核).
``tally.rules.judging.standing.kept_from_the_close`` flags both.

Which read is "the first whole read after the close" is told from the thread's history,
read by read: each read is listed with an id of its own (two runs reading at once interleave
their pages' times), and a page a later read moved on (``ThreadCache.store_versions``: a
page unchanged again moves its last listing on) is known from the same page just before
and after the read.
"""

from __future__ import annotations

from datetime import datetime

from tally.i18n import tr
from tally.model import DURING_A_READ, History, Post, Thread, Version
from tally.rules.game.cast import Cast
from tally.rules.game.game import Day, Game
from tally.rules.judging.ballots import Flag
from tally.times import short


def came_in_late(thread: Thread, history: History, day: Day, game: Game, cast: Cast) -> list[Flag]:
    """The posts that came into the vote thread after a read they are older than: approved
    after the close (``approved_late``), or come in before it (``came_in_since``)."""
    approved = approved_late(thread, history, day, game, cast)
    flagged = {f.post_id for f in approved if f.post_id is not None}
    return [*approved, *came_in_since(thread, history, day, game, cast, flagged)]


def approved_late(thread: Thread, history: History, day: Day, game: Game, cast: Cast) -> list[Flag]:
    """Posts with a time before the close that tally's first whole read after the close did
    not show: held for a moderator (审核) and approved since, they come back with the time
    they were posted and number the floors after them again (found on a real X3.5, where
    two such ballots turned the result without a word). Counted, and flagged."""
    reads = _reads([v for v in history.versions if v.read_at >= day.closes])
    # The first whole read after the close, unless it is this read itself (the last).
    by_page = _by_page(history) if len(reads) > 1 else {}
    whole = next(((r, pages) for r in reads[:-1] if (pages := _whole(r, by_page))), None)
    if whole is None:
        return []
    first, pages = whole
    start = first[0].read_at
    shown = {p.post_id for v in pages for p in v.posts}
    # A page of that read lost past those it read back (``_whole`` took the read for whole
    # without it): the posts it could have shown are not said to have come since.
    lost = [v for v in history.lost if (v.read, v.way) == (first[0].read, first[0].way)
            and v.read and v.page not in {p.page for p in pages}]  # fmt: skip
    shown |= history.lost_could_show(thread.posts, lost)
    read = short(start.astimezone(game.timezone))
    flags = []
    for post in thread.posts:
        if post.post_id in shown or not _may_have_come(post, thread, cast, day):
            continue
        note = tr(
            "floor {floor} ({author}, {time}) was not in the thread when tally read it {read}, "
            "after the close: held for a moderator (审核) and approved since? Counted with the "
            "time it shows; rule on it if it should not be",
            floor=post.floor,
            author=post.author,
            time=short(post.time),
            read=read,
        )
        flags.append(Flag("approved late", note, cast.of(post).player, post.floor,
                          post.post_id))  # fmt: skip
    return flags


def came_in_since(
    thread: Thread, history: History, day: Day, game: Game, cast: Cast, flagged: set[str]
) -> list[Flag]:
    """Posts with a time before the close that a whole read begun before the close did not show,
    though they were more than ``DURING_A_READ`` older than it and no read before it had
    shown them: moved or merged in from another thread since (移动, 合并; found on a real
    X3.5, where a merged thread's ballot lines put the wrong player out), or held for a
    moderator and approved (审核). `tally watch --post` stops for them poll by poll; the
    reads after them show them, so the count alone said nothing. Counted, and flagged,
    once each (not those ``flagged`` already, approved after the close)."""
    # A lost version shows none of its posts: not one it could have shown is said to come
    # (one of a read begun before the close and lost after it among them).
    begun = {v.read for v in history.versions if v.read and v.read_at < day.closes}
    lost = [v for v in history.lost if v.read_at < day.closes or v.read in begun]
    could = history.lost_could_show(thread.posts, lost)
    waiting = {p.post_id: p for p in thread.posts if _may_have_come(p, thread, cast, day)
               and p.post_id not in flagged and p.post_id not in could}  # fmt: skip
    # The reads begun before the close, each with all its pages: one begun seconds before
    # it reads the pages after its first after it (a page the thread grew since among them).
    missed = _missed(_reads(list(history.versions)), waiting, history, day) if waiting else {}
    flags = []
    for pid, start in missed.items():
        post = waiting[pid]
        note = tr(
            "floor {floor} ({author}, {time}) was not in the thread when tally read it {read}, "
            "though posted before: moved or merged in from another thread since (移动, 合并), or "
            "held for a moderator and approved (审核)? Counted with the time it shows; rule on "
            "it if it should not be",
            floor=post.floor,
            author=post.author,
            time=short(post.time),
            read=short(start.astimezone(game.timezone)),
        )
        flags.append(Flag("came in", note, cast.of(post).player, post.floor, pid))
    return sorted(flags, key=lambda f: f.floor or 0)


def _missed(
    reads: list[tuple[Version, ...]], waiting: dict[str, Post], history: History, day: Day
) -> dict[str, datetime]:
    """Of ``waiting``, those a whole read begun before the close did not show though they
    were more than ``DURING_A_READ`` older than it and no read before it had shown them;
    each with the start of that read. A post is due once a read's start passes it, and
    leaves when a read shows it: each read costs its own posts, not the thread's (a watch
    counts at each poll, its history the pages of hundreds of reads)."""
    queue = sorted(waiting.values(), key=lambda p: p.time)
    seen: set[str] = set()
    due: dict[str, Post] = {}  # older than a read, neither shown nor missed yet
    missed: dict[str, datetime] = {}  # a post, and the start of the first read without it
    by_page = _by_page(history)
    i = 0
    for read in reads:
        start = read[0].read_at
        if start >= day.closes:
            break  # begun in the order they began
        while i < len(queue) and queue[i].time < start - DURING_A_READ:
            if queue[i].post_id not in seen:
                due[queue[i].post_id] = queue[i]
            i += 1
        # Only a read that could have missed one is made whole.
        pages = _whole(read, by_page) if due else None
        if pages is not None:
            shown = {p.post_id for v in pages for p in v.posts}
            for pid in [pid for pid in due if pid not in shown]:
                missed[pid] = start
                del due[pid]
        for v in read:
            for p in v.posts:
                seen.add(p.post_id)
                due.pop(p.post_id, None)
    return missed


def _may_have_come(post: Post, thread: Thread, cast: Cast, day: Day) -> bool:
    """Whether ``post`` is one that could come into the vote thread unseen and count: a
    reply with a time before the close, not one tally read in another thread (a "moved in"
    row already, not held, 审核), nor the director's own (held, no ballot: nobody's vote)."""
    return (post.floor != 1 and post.time <= day.closes and post.post_id not in thread.moved_in
            and not cast.of(post).is_director)  # fmt: skip


def _reads(versions: list[Version]) -> list[tuple[Version, ...]]:
    """The reads ``versions`` come of, each its pages, in the order they began: by the
    read's id (two runs reading at once interleave their pages' times); versions kept
    before reads had ids, by time, a read ending where a page comes again."""
    by_id: dict[str, list[Version]] = {}
    loose: list[list[Version]] = []
    for v in sorted(versions, key=lambda v: v.read_at):
        if v.read:
            by_id.setdefault(v.read, []).append(v)
        elif loose and not any((f.way, f.page) == (v.way, v.page) for f in loose[-1]):
            loose[-1].append(v)
        else:
            loose.append([v])
    return sorted((tuple(r) for r in (*by_id.values(), *loose)), key=lambda r: r[0].read_at)


def _by_page(history: History) -> dict[tuple[str, int], list[Version]]:
    """Each page's versions, by its way and number, oldest read first (``_whole`` looks a
    read's pages up in them: the reads of a watch are hundreds)."""
    found: dict[tuple[str, int], list[Version]] = {}
    for v in sorted(history.versions, key=lambda v: v.read_at):
        found.setdefault((v.way, v.page), []).append(v)
    return found


def _whole(
    read: tuple[Version, ...], by_page: dict[tuple[str, int], list[Version]]
) -> tuple[Version, ...] | None:
    """Every page of the thread as ``read`` found it, or None when it did not read them
    all (``by_page``: the history's versions, ``_by_page``). A read's last page is always
    read, so pages 1 to its highest are the thread then (unless it ends on a full page
    before one a read before it found: the history kept it cut short); one it did not
    keep is known where the history holds that page the same just before and just after
    the read (an unchanged page's listing that a later read moved on,
    ``ThreadCache.store_versions``); a read that took it from the cache is not whole
    otherwise."""
    pages = {v.page: v for v in read}
    way = read[0].way  # a read is made one way (a thread is never read half one way)
    start, end = read[0].read_at, read[-1].read_at
    # Kept only up to a page it could not write, or the one that filled the history
    # (``ThreadCache.store_versions``): it ends before a page a read before it found, on a
    # full page. A thread that deletes took a page from ends on one not full (its last).
    top = max(pages)
    if any(w == way and n > top and mine[0].read_at < start for (w, n), mine in by_page.items()):
        fullest = max(len(v.posts) for (w, _), mine in by_page.items() if w == way for v in mine)
        if len(pages[top].posts) >= fullest:
            return None
    for n in range(1, top + 1):
        if n in pages:
            continue
        mine = by_page.get((way, n), [])
        before = [v for v in mine if v.read_at < start]
        after = [v for v in mine if v.read_at > end]
        if not (before and after) or before[-1].posts != after[0].posts:
            return None
        pages[n] = before[-1]
    return tuple(pages[n] for n in sorted(pages))
