"""Reading a whole live thread: every page, from the forum over HTTP, one way
(``tally.forums.ways``), each got by ``tally.forums.getting`` and built into the thread by
``tally.forums.built`` (which reads saved page files too).

A thread comes back only when every page its pager names was read and parsed and its
floors agree with the thread's reply count; anything less is an error naming the page,
never a shorter thread. Pages are kept in a cache between runs: a re-run downloads the
last known page (to learn whether the thread grew) and what is new, and takes the rest
from the cache, unless they were cached before ``not_before`` (the close: a tally at
or after the close never rests on a page cached before it) or ``--fresh`` is given.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import itertools
import logging
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo

from tally.errors import (
    ApiUnavailable,
    FetchError,
    PageMismatchError,
    ParseError,
    TallyError,
    ThreadGoneError,
)
from tally.forums import resolve_url
from tally.forums.api import API, PAGES
from tally.forums.built import build_thread, check_complete
from tally.forums.cache import MAX_VERSIONS, ThreadCache, cache_name
from tally.forums.getting import FetchOptions, PageReader, Progress, stored_history
from tally.forums.history import page_data, page_posts
from tally.forums.http import Http
from tally.forums.merged import CachedThread, cached_thread, gone, with_first_reads
from tally.forums.out_of_place import numbered_again, place_floating, renumbered
from tally.forums.ways import fell_back, way_of, with_edits
from tally.i18n import tr
from tally.model import History, Lost, Page, Thread, Version
from tally.times import instant
from tally.vocabulary import Origin


@dataclass
class Held:
    """The parsed pages of one thread, kept in memory between reads (``tally watch``).

    A page the cache would give is taken from here instead, already parsed: a poll of an
    unchanged thread parses its last page only. The same trust rules hold: a page held
    from before ``not_before`` is read again.
    """

    pages: dict[int, tuple[Page, datetime]] = field(default_factory=dict)
    page_count: int | None = None
    # The thread's history as last read: a poll adds what it kept, never reads it all again.
    history: History | None = None
    # The way the pages held were read (their numbers are that way's).
    way: str = PAGES

    def following(self, way: str) -> None:
        """Hold what ``way`` reads from now on: another way's pages are forgotten."""
        if way != self.way:
            self.pages.clear()
            self.page_count, self.history, self.way = None, None, way

    def trusted(self, n: int, not_before: datetime | None) -> tuple[Page, datetime] | None:
        """Page ``n`` as held, with when it was read, unless it was read before
        ``not_before``."""
        kept = self.pages.get(n)
        if kept is None or (not_before is not None and kept[1] < not_before):
            return None
        return kept

    def hold(self, read: _Read) -> None:
        """Hold the pages just read, each with when it was read, for the next poll."""
        self.pages = {n: (page, read.read_at[n]) for n, (page, _) in read.pages.items()}
        self.page_count = read.total


@dataclass(frozen=True)
class _Read:
    """A thread's pages as one pass read them: each page with where it came from
    (``Origin``), when each was read, and how many pages the thread had by the end."""

    pages: dict[int, tuple[Page, str]]
    read_at: dict[int, datetime]
    total: int

    def just_read(self) -> list[tuple[int, Page, datetime]]:
        """The pages this pass got from the forum, not from the cache or memory."""
        fresh = {Origin.NETWORK, Origin.REVALIDATED}
        return [(n, page, self.read_at[n]) for n, (page, o) in self.pages.items() if o in fresh]


def fetch_thread(
    url: str,
    tz: tzinfo,
    *,
    http: Http,
    options: FetchOptions,
    progress: Progress | None = None,
    held: Held | None = None,
) -> Thread:
    """Fetch and parse every page of the thread at ``url`` (``_fetched``), one way: through
    its platform's API where the board serves it (``tally.forums.api``), else through its
    HTML pages, said once; a board that stops serving the API mid-read is read again, whole,
    from its pages."""
    platform, ref = resolve_url(url)
    way, why = way_of(platform, ref, tz, http, options)
    try:
        thread = _fetched(url, tz, way, http=http, options=options, progress=progress,
                          held=held)  # fmt: skip
    except ApiUnavailable as exc:
        if way != API or options.offline:
            raise
        why = fell_back(platform, ref, http, options, exc)
        thread = _fetched(url, tz, PAGES, http=http, options=options, progress=progress,
                          held=held)  # fmt: skip
    if why is not None:  # said once the thread is read: a read that fails says why alone
        http.say_once(why, options.note)
    return thread


def _fetched(
    url: str,
    tz: tzinfo,
    way: str,
    *,
    http: Http,
    options: FetchOptions,
    progress: Progress | None = None,
    held: Held | None = None,
) -> Thread:
    """Fetch and parse every page of the thread at ``url`` ``way``; ``held`` keeps the pages
    for the next read of the same thread (and gives those of the last).

    The last known page comes from the forum, and the pages before it from the cache (or
    ``held``) where trusted, unless the read shows them stale (``_settled``). A read that
    decides (``live``: a count, a reminder, the cards) takes every page from the forum: a
    moderator's 屏蔽 changes a page tally cached and moves no floor.
    """
    platform, ref = resolve_url(url)
    cached = cached_thread(options, cache_name(platform.name, way), ref)
    store = cached.store if cached is not None else None
    reader = PageReader(platform, ref, tz, http, store, options, way)
    # The cache's index written once a read, not at each page and sub-request put (5,000
    # writes of it in the quick loop of the tests, most of them for reads of 2 or 3 pages).
    with store.index_held() if store is not None else contextlib.nullcontext():
        return _read_whole(url, reader, cached, held, progress)


def _read_whole(
    url: str,
    reader: PageReader,
    cached: CachedThread | None,
    held: Held | None,
    progress: Progress | None,
) -> Thread:
    """``_fetched``'s read, ``reader`` the thread's and ``cached`` its place in the cache."""
    options, store, ref, way = reader.options, reader.store, reader.ref, reader.way
    if held is not None:
        held.following(way)
    known = None if options.fresh else _last_known(held, store)
    if options.offline and known is None:
        raise FetchError(tr("{url}: no page of this thread is in the cache, which --offline "
                            "counts from; run without it.", url=url))  # fmt: skip
    # What may stand in for the forum: the cache or memory, but for a read that decides.
    reuse = known is not None and (options.offline or not options.live)
    try:
        read = _read_pages(url, reader, known, reuse, held, progress)
    except ThreadGoneError as exc:
        raise gone(exc, store) from None
    so_far = held.history if held is not None and not options.fresh else None
    reused = not options.offline and any(
        o in (Origin.CACHE, Origin.MEMORY) for _, o in read.pages.values()
    )
    before = so_far if so_far is not None or not reused else stored_history(reader)
    read, thread, failed = _settled(url, reader, read, before, reused, held)
    # The posts first read in this thread before this read: its own, wherever else they
    # were read since (moved out by mistake and back).
    own = store.post_ids() if store is not None else frozenset()
    history, just_read = None, read.just_read()
    if store is not None:
        store.set_page_count(read.total)
        history = store_versions(reader, just_read, f"thread {ref.thread_id}", before)
        if held is not None:
            held.history = history
    if held is not None:
        held.hold(read)
    if failed is not None:
        raise failed
    assert thread is not None  # pages that failed to make one failed to parse
    check_complete(thread, [page for _, (page, _) in sorted(read.pages.items())], url)
    thread = replace(thread, read_by=way)
    if cached is None:
        return thread
    return with_first_reads(thread, cached, own, history, just_read, options)


def _last_known(held: Held | None, store: ThreadCache | None) -> int | None:
    """The thread's page count as last read: in memory, else in the cache."""
    known = held.page_count if held and held.page_count else None
    return known or (store.page_count if store is not None else None)


def _with_marks(reader: PageReader, read: _Read, before: History | None) -> _Read:
    """The pages with the edit marks their interface hid, learnt through an API once the
    close has passed (``with_edits``)."""
    options = reader.options
    if reader.api is None or (options.closes is not None and options.clock() < options.closes):
        return read
    return replace(read, pages=with_edits(reader, read.pages, before))


def _built(url: str, reader: PageReader, read: _Read) -> tuple[_Read, Thread]:
    """The thread the pages make, and the pages as it holds them: the posts a page shows
    without their floor on their floors (kept so, in the history and in memory, as the
    forum shows them once they are placed)."""
    pages = read.pages
    whole = set(pages) >= set(range(1, max(p.page_count for p, _ in pages.values()) + 1))
    placed = place_floating([p for p, _ in pages.values()], url, whole=whole)
    pages = {n: (placed[i], o) for i, (n, (_, o)) in enumerate(pages.items())}
    ordered = [pages[n] for n in sorted(pages)]
    # Stamped in the forum's zone at its offset then, as the posts' times are: the moment of
    # the read, or, counted --offline from the cache, of the last read the cache holds (the
    # thread is known up to then, not up to this run: a standing counted an hour later from
    # the same pages is no newer, and is still provisional where that read was).
    when = max(read.read_at.values()) if reader.options.offline else reader.options.clock()
    stamped = instant(when.astimezone(reader.tz))
    name, tid = reader.platform.name, reader.ref.thread_id
    thread = build_thread(name, tid, url, [p for p, _ in ordered], [o for _, o in ordered],
                          read_at=stamped)  # fmt: skip
    return replace(read, pages=pages), thread


def _settled(
    url: str,
    reader: PageReader,
    read: _Read,
    before: History | None,
    reused: bool,
    held: Held | None,
) -> tuple[_Read, Thread | None, ParseError | None]:
    """The pages and the thread they make (None where they make none) once no page
    ``reused`` from the cache or memory is stale, with the parse error to raise once the
    pages read are kept.

    Stale: a post of a page just read on another floor than before (a floor before it was
    deleted, and the floors after it numbered again), fewer floors than the thread's
    replies, a thread shown newest first, or two posts on one floor; then every page is
    read again.
    """
    failed: ParseError | None = None
    thread: Thread | None = None
    try:
        read = _with_marks(reader, read, before)
        read, thread = _built(url, reader, read)
        stale = reused and (
            _moved(read.pages, before, reader.way) or thread.short_of_replies()
            or _newest_first(read.pages)
        )
    except ParseError as exc:
        # Two posts on one floor: the cached pages and the live ones disagree, or the
        # forum's own do.
        stale, failed = reused, None if reused else exc
    if not stale and renumbered([page for page, _ in read.pages.values()]):
        # Pages the forum numbered before and after a delete, read together: read them all
        # again, page 1 first (X3.5 numbers by place from the first view of the page that
        # lost a post; the last page, read first, still showed the old numbers).
        stale, failed = True, None
    if stale:
        if held is not None:
            held.pages.clear()
        read = _read_pages(url, reader, None, False, held, None)
        try:
            read = _with_marks(reader, read, before)
            read, thread = _built(url, reader, read)
        except ParseError as exc:
            failed = exc
        if failed is None and (twice := renumbered([page for page, _ in read.pages.values()])):
            failed = numbered_again(url, *twice)
    return read, thread, failed


def _read_pages(
    url: str,
    reader: PageReader,
    known: int | None,
    reuse: bool,
    held: Held | None,
    progress: Progress | None,
) -> _Read:
    """Every page of the thread: the last known one first (to learn whether it grew), from
    the forum; with ``reuse``, the pages before it from memory or the cache where trusted."""
    options = reader.options
    start = known or 1
    try:
        first, origin, when = reader.read(start, cached_ok=options.offline)
    except FetchError as exc:
        offline = _offline_hint(exc, url, reader, held)
        if offline is None:
            raise
        raise offline from None
    except PageMismatchError:
        # The thread lost pages since the last run: start again from the top.
        start, reuse = 1, False
        first, origin, when = reader.read(1, cached_ok=False)
        if held is not None:
            held.pages.clear()
    pages: dict[int, tuple[Page, str]] = {start: (first, origin)}
    read_at = {start: when}
    remembered = held is not None and not options.fresh and reuse
    total = first.page_count
    if progress:
        progress(1, total)
    while True:
        if total > options.max_pages:
            raise FetchError(
                tr("{url} has {count} pages, more than tally reads ({most}).", url=url,
                   count=total, most=options.max_pages)
            )
        wanted = [n for n in range(1, total + 1) if n not in pages]
        for n in wanted:
            kept = (
                held.trusted(n, options.not_before) if held and remembered and n < start else None
            )
            if kept is not None:
                pages[n] = (kept[0], Origin.MEMORY)
                read_at[n] = kept[1]
        wanted = [n for n in wanted if n not in pages]
        if not wanted:
            break
        for n, (page, origin, when) in _read_each(reader, wanted, start if reuse else 0):
            pages[n] = (page, origin)
            read_at[n] = when
            if progress:
                progress(len(pages), total)
        # The thread can grow while it is read: go on until no page names more.
        total = max(total, max(p.page_count for p, _ in pages.values()))
    return _Read(pages, read_at, total)


def _offline_hint(
    exc: FetchError, url: str, reader: PageReader, held: Held | None
) -> FetchError | None:
    """The forum failed: where the cache holds the whole thread, the error that says
    --offline would count from it (a thread held across polls is a watch's or the desk's:
    they take no --offline)."""
    options = reader.options
    if (
        options.offline
        or held is not None
        or not _whole_in_cache(url, reader.tz, reader.http, options)
    ):
        return None
    if options.not_before is not None:
        hint = tr("The cache holds every page of this thread as read after the close: add "
                  "--offline to count from it.")  # fmt: skip
    else:
        hint = tr("The cache holds every page of this thread as read before the close: add "
                  "--offline to count from it.")  # fmt: skip
    # TRANSLATORS: what is wrong, then what to do; two sentences.
    advised = FetchError(tr("{said} {advice}", said=exc, advice=hint))
    advised.failure = str(exc)
    return advised


def _read_each(
    reader: PageReader, wanted: list[int], cached_below: int
) -> Iterator[tuple[int, tuple[Page, str, datetime]]]:
    """The pages ``wanted`` from the forum, as many at once as the options allow, those
    below ``cached_below`` from the cache where trusted."""
    workers = max(1, min(reader.http.options.max_in_flight, len(wanted)))
    # The last page of a two-page thread is read here: no thread is started for it.
    pool = ThreadPoolExecutor(max_workers=workers) if len(wanted) > 1 else None
    # Each page is read in the caller's context (the run's language: a page's error is said
    # in it, whichever thread read the page); a copy each, since a context runs in one thread.
    caller = contextvars.copy_context()

    def read(n: int) -> tuple[int, tuple[Page, str, datetime]]:
        return n, caller.copy().run(reader.read, n, cached_ok=n < cached_below)

    try:
        yield from (pool.map if pool is not None else map)(read, wanted)
    finally:
        if pool is not None:
            pool.shutdown()


def _newest_first(pages: dict[int, tuple[Page, str]]) -> bool:
    """Whether page 1 came from the cache or memory and shows the newest floors first (a
    thread the forum shows in reverse order, its author's 回帖倒序排列): new posts land on
    page 1 and push the others on, so the last page alone cannot tell what changed."""
    first = pages.get(1)
    if first is None or first[1] not in (Origin.CACHE, Origin.MEMORY):
        return False
    page = first[0]
    floors = [p.floor for p in page.posts if p.floor != 1 and p.post_id not in page.top]
    return len(floors) >= 2 and all(a > b for a, b in itertools.pairwise(floors))


def _moved(pages: dict[int, tuple[Page, str]], before: History | None, way: str) -> bool:
    """Whether a post of a page just read stands on another floor than it last did: a floor
    before it was deleted, and the floors after it are numbered again and move up a page,
    so the pages taken from the cache or memory are not the thread as it is. Read ``way``
    alone (a delete leaves the interface's floors as they were, X3.5's pages number again)."""
    floor_of: dict[str, int] = {}
    for version in before.versions if before is not None else ():
        if version.way != way:
            continue
        for post in version.posts:
            floor_of[post.post_id] = post.floor
    live = {Origin.NETWORK, Origin.REVALIDATED}
    return any(
        floor_of.get(p.post_id, p.floor) != p.floor
        for page, origin in pages.values()
        if origin in live
        for p in page.posts
    )


def store_versions(
    reader: PageReader,
    pages: Sequence[tuple[int, Page, datetime]],
    name: str,
    known: History | None = None,
) -> History:
    """Keep the pages just read as versions of the thread's history, and give its one
    history, whichever way each read was made (``known`` and what was added to it, else all
    of it read from the cache)."""
    store, options = reader.store, reader.options
    assert store is not None
    added = []
    read = uuid.uuid4().hex[:12]  # this read's own: another run's pages may come between
    ordered = sorted(pages, key=lambda p: p[0])
    data = [page_data(page.posts) for _, page, _ in ordered]
    listed = [(n, d, when) for (n, _, when), d in zip(ordered, data, strict=True)]
    stored = store.store_versions(listed, read)
    for (number, _, when), as_stored, kept in zip(ordered, data, stored, strict=False):
        if kept == "full":
            (options.warn or logging.getLogger("tally").warning)(
                tr("{thread}'s history holds {most} versions, as many as tally keeps: this "
                   "read is not kept (the history is in {folder}).", thread=name,
                   most=MAX_VERSIONS, folder=store.folder)
            )
            break
        # An unchanged page is a read too ("same"): ThreadCache.store_versions moves its
        # last listing on to this read (with the history full it lists nothing, and this
        # run's history still holds the page as read).
        # Its posts as stored, as the next run reads them back: a field the stored form
        # leaves out (a poster's user group, ``Post.moderator``) made the page unequal to its
        # stored self, and a read before it whose listing moved on to this one not whole.
        if kept in ("kept", "same"):
            added.append(Version(number, when, page_posts(as_stored), read, reader.way))
        elif kept == "unwritable":
            known = None
    if known is not None and not known.lost:
        return History((*known.versions, *added), known.capped)
    # Read again where a version was lost (this read may have mended its file), with this
    # read's own pages as it read them, whatever became of their files.
    whole = stored_history(reader) or History()
    if _mended(store, whole.lost, data, reader.way):
        whole = stored_history(reader) or History()
    own = {(v.way, v.page, v.read_at, v.read): v for v in added}
    versions = {(v.way, v.page, v.read_at, v.read): v for v in whole.versions} | own
    return replace(whole, versions=tuple(sorted(versions.values(), key=lambda v: v.read_at)),
                   lost=tuple(v for v in whole.lost if (v.way, v.page, v.read_at, v.read)
                              not in own))  # fmt: skip


def _mended(store: ThreadCache, lost: Sequence[Lost], data: Sequence[bytes], way: str) -> bool:
    """Write again the files of the versions ``lost`` whose content a read just read (the
    same SHA-256): a page found as its last read found it weighs its file's size alone
    (``ThreadCache._whole``), which a byte changed passes. Whether any was written."""
    if not lost:
        return False
    read = {hashlib.sha256(d).hexdigest(): d for d in data}
    wanted = {v.digest for v in lost if v.way == way and v.digest in read}
    return any([store.mend(read[digest]) for digest in sorted(wanted)])


def _whole_in_cache(url: str, tz: tzinfo, http: Http, options: FetchOptions) -> bool:
    """Whether --offline would read the thread: every page (and 楼中楼) cached, and trusted
    (after ``not_before``), the thread whole. Asked only once the forum has failed."""
    if options.cache_dir is None or options.fresh:
        return False
    try:
        fetch_thread(url, tz, http=http, options=replace(options, offline=True))
    except TallyError:
        return False
    return True


