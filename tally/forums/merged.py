"""What the cache knows of a thread's posts beyond its own pages: the posts first read in
another thread of the board (a moderator moved or merged them in, 移动/合并; a post keeps its
id), the roles each was first read under, the days whose vote thread was merged in or whose
game file was mended since, and a thread tally read before that the forum says is gone.
``tally.forums.fetch`` asks once a thread is read whole.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from urllib.parse import urlsplit

from tally.errors import ThreadGoneError
from tally.forums import ThreadRef
from tally.forums.cache import Cache, ThreadCache
from tally.forums.getting import FetchOptions
from tally.forums.reads import UNSURE, VOTE, Roles, first_roles
from tally.i18n import tr
from tally.model import History, Page, Thread


@dataclass(frozen=True)
class CachedThread:
    """Where a thread's pages and the posts first read in it are kept between runs: the
    cache, the thread's own folder in it, and the names it is kept under there."""

    cache: Cache
    store: ThreadCache
    name: str  # the platform's, read one way (``cache_name``)
    host: str
    ref: ThreadRef


def cached_thread(options: FetchOptions, name: str, ref: ThreadRef) -> CachedThread | None:
    """Where the thread is kept in the cache, if a cache is used."""
    if options.cache_dir is None:
        return None
    cache = Cache(options.cache_dir, options.warn)
    host = urlsplit(ref.base).netloc
    return CachedThread(cache, cache.thread(name, host, ref.thread_id), name, host, ref)


def with_first_reads(
    thread: Thread,
    cached: CachedThread,
    own: frozenset[str],
    history: History | None,
    just_read: list[tuple[int, Page, datetime]],
    options: FetchOptions,
) -> Thread:
    """The thread with what the cache knows of its posts: those first read in another
    thread (``moved_in``), the roles each was first read under (``read_as``), the days it
    was merged into or mended for, and its runs closed; the posts first read now are noted
    as its ``own``."""
    cache, store, name, ref = cached.cache, cached.store, cached.name, cached.ref
    ids = frozenset(p.post_id for p in thread.posts)
    moved = cache.read_elsewhere(name, cached.host, ref.thread_id, ids - own)
    store.note_post_ids(own | (ids - moved.keys()))  # the posts first read in it
    moved_as = cache.roles_of(name, cached.host, moved)
    # The days whose vote thread tally read posts of that stand in this thread now: that
    # vote thread was merged into this one (合并).
    merged = frozenset(d for roles in moved_as.values() for d, r in roles if r == VOTE)
    # And the days another of whose threads (the discussion) was merged into this one.
    talk = frozenset(d for roles in moved_as.values() for d, r in roles if r not in (VOTE, UNSURE))
    new = ids - own - moved.keys()
    unseen = _came_in_unseen(thread, new, history, just_read)
    mended = _mended(cache, name, ref, store.roles() or {}, options, merged)
    roles = store.note_roles(options.roles, new, merged, unseen, talk, mended)
    read_as = {pid: r for pid in ids - moved.keys() if (r := first_roles(roles, pid))}
    read_as.update(moved_as)
    runs = store.note_closed(thread.closed, thread.read_at) if thread.read_at else ()
    return replace(thread, history=history, moved_in=moved, read_as=read_as, closed_runs=runs,
                   mended=mended)  # fmt: skip


def _mended(
    cache: Cache, platform: str, ref: ThreadRef, known: Roles,
    options: FetchOptions, merged: frozenset[int],
) -> frozenset[int]:  # fmt: skip
    """The days this thread is read as the vote thread of now, having been read as another
    of their threads before, whose game file was mended since: a thread the file names now,
    otherwise than as that day's vote thread, was read as its vote thread then (the two
    URLs swapped, day 1's vote URL left on day 2). Only the game file's own threads say it:
    another game's on the board share the cache (its day 2 is not this game's)."""
    def read_otherwise(d: int) -> bool:
        """Posts first read under another of day ``d``'s roles, and never as its vote
        thread's (on a day whose one thread is both, none: no scan on each of its polls)."""
        by_role = known.get(d, {})
        other = set().union(*(ids for role, ids in by_role.items() if role not in (VOTE, UNSURE)))
        return bool(other - by_role.get(VOTE, frozenset()))

    switched = {d for d, r in options.roles if r == VOTE and read_otherwise(d)} - merged
    found: set[int] = set()
    for other, roles in options.named:
        if not switched - found:
            break
        if other.key == ref.key:
            continue
        was = cache.thread(platform, urlsplit(other.base).netloc, other.thread_id).roles() or {}
        found |= {d for d in switched if VOTE in was.get(d, {}) and (d, VOTE) not in roles}
    return frozenset(found)


def _came_in_unseen(
    thread: Thread, new: frozenset[str], history: History | None,
    just_read: list[tuple[int, Page, datetime]],
) -> frozenset[str]:  # fmt: skip
    """Of the posts first read now (``new``), those that came in unseen by the reads before
    this one (``History.came_in_unseen``)."""
    now = min((t for _, _, t in just_read), default=thread.read_at)
    if history is None or now is None or not new:
        return frozenset()
    return history.came_in_unseen(thread.posts, now)[0] & new


def gone(exc: ThreadGoneError, store: ThreadCache | None) -> ThreadGoneError:
    """The forum says a thread tally read before does not exist: deleted, or merged into
    another thread (合并 keeps the other's tid), which the day's vote may be pointed at."""
    ids = store.post_ids() if store is not None else frozenset()
    if not ids:
        return exc
    # The forum's sentence without its advice, which the merge's sentence replaces.
    # TRANSLATORS: the end of the sentences of a missing thread, as they are translated.
    advice = ("; check the tid in the URL", tr("; check the tid in the URL"))
    said = str(exc).rstrip(".。").removesuffix(advice[0]).removesuffix(advice[1])
    roles = store.roles() if store is not None else None
    read_as = sorted({(d, r) for d, by in (roles or {}).items() for r in by if r != UNSURE})
    named = "、".join(
        tr("day {day}'s vote thread", day=d) if r == VOTE
        else tr("day {day}'s discussion thread", day=d)
        for d, r in read_as
    )  # fmt: skip
    if not named:
        return ThreadGoneError(
            tr("{said}; tally read it before ({n} posts): a moderator deleted it, or merged it "
               "into another thread (合并: its posts go to the thread it is merged into, which "
               "keeps its own tid), so nothing is counted from it; if it was merged, point the "
               "day's URL in the game file at that thread, where tally tells the posts first "
               "read here by their ids.", said=said, n=len(ids))
        )
    return ThreadGoneError(
        tr("{said}; tally read it before ({n} posts, as {named}): a moderator deleted it, or "
           "merged it into another thread (合并: its posts go to the thread it is merged into, "
           "which keeps its own tid), so nothing is counted from it; if it was merged, point "
           "the day's URL in the game file at that thread, where tally tells the posts first "
           "read here by their ids.", said=said, n=len(ids), named=named)
    )
