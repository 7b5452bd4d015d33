"""Reading whole threads: every page, from the forum over HTTP or from saved files.

A thread comes back only when every page its pager names was read and parsed and its
floors agree with the thread's reply count; anything less is an error naming the page,
never a shorter thread. Pages are kept in a cache between runs: a re-run downloads the
last known page (to learn whether the thread grew) and what is new, and takes the rest
from the cache, unless they were cached before ``not_before`` (the close: a tally at
or after the close never rests on a page cached before it) or ``--fresh`` is given.
"""

from __future__ import annotations

import itertools
import logging
import os
import uuid
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from urllib.parse import urlsplit

from tally.errors import (
    ApiUnavailable,
    FetchError,
    InputError,
    NotAThreadError,
    PageMismatchError,
    ParseError,
    TallyError,
    ThreadGoneError,
    TruncatedPageError,
)
from tally.files import PAGE, read_capped
from tally.forums import PLATFORMS, Platform, ThreadRef, by_name, recognise_text, resolve_url
from tally.forums.api import API, PAGES, PROBE_KEPT, Api, learn_edits
from tally.forums.asking import Answer, Request
from tally.forums.base import CommentBatch, check_clock
from tally.forums.boards import Boards
from tally.forums.cache import (
    MAX_VERSIONS,
    UNSURE,
    VOTE,
    Cache,
    Entry,
    ThreadCache,
    first_roles,
    kept_as,
)
from tally.forums.charset import decode_page
from tally.forums.history import page_data
from tally.forums.http import REDIRECTS, Http
from tally.forums.out_of_place import numbered_again, place_floating, renumbered
from tally.model import History, Page, Post, Thread, Version
from tally.times import instant
from tally.vocabulary import Origin

MAX_PAGES = 2000

Progress = Callable[[int, int], None]  # (pages done, pages known)


@dataclass(frozen=True)
class FetchOptions:
    """How one read of a thread goes (``tally.forums.reader.Reader`` makes them)."""

    # None: no cache at all.
    cache_dir: Path | None = None
    fresh: bool = False
    # Cached pages fetched before this time are fetched again.
    not_before: datetime | None = None
    max_pages: int = MAX_PAGES
    # A page cut short is fetched again this many times before tally gives up.
    truncation_retries: int = 2
    # What time it is (aware): pages are stamped with it in the cache, threads with it
    # when read. Tests and `tally watch` pass their own.
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    # Where warnings go (a cookie file for another host, a cache that cannot be written);
    # None: the "tally" logger.
    warn: Callable[[str], None] | None = None
    # Where a read says what needs no action (a board read from its HTML pages, its
    # interface off); None: nowhere.
    note: Callable[[str], None] | None = None
    # The close of the day the thread is read for, when the reader knows it: what an
    # interface hides of a post (its edit mark) is learnt for a read made at or after it,
    # where it decides what the post said at the close (None: for every read).
    closes: datetime | None = None
    # The board profiles a page is read with (None: the built-in ones).
    boards: Boards | None = None
    # Every page from the cache, never the forum (--offline): the network is down.
    offline: bool = False
    # Every page from the forum, none from the cache or memory: the read decides what the
    # director acts on or posts (a count, a reminder, the cards), and a page the forum
    # changed since tally cached it (a delete, a 屏蔽) must not decide it.
    live: bool = False
    # What the game file makes of the thread: each (day, role) it is named for ("vote",
    # "discussion", …), kept in the cache with the posts this read finds first; () for a
    # read without a game file.
    roles: tuple[tuple[int, str], ...] = ()
    # Every other thread the game file names, with its (day, role) pairs: a thread tally read
    # as a day's vote thread that the file names otherwise now says the file was mended.
    named: tuple[tuple[ThreadRef, tuple[tuple[int, str], ...]], ...] = ()


def is_url(source: str) -> bool:
    return "://" in source


@dataclass
class _PageReader:
    """Reads one page (and its sub-requests), from the cache where the policy allows."""

    platform: Platform
    ref: ThreadRef
    tz: tzinfo
    http: Http
    store: ThreadCache | None
    options: FetchOptions
    # Through its HTML pages, or through the platform's API (``tally.forums.api``).
    way: str = PAGES

    @property
    def api(self) -> Api | None:
        return self.platform.api if self.way == API else None

    def read(self, number: int, cached_ok: bool) -> tuple[Page, str, datetime]:
        """The page, where it came from, and when the oldest answer it rests on was fetched."""
        read = self.api.read_page if self.api is not None else self.platform.read_page
        for attempt in range(self.options.truncation_retries + 1):
            get = _Get(self, cached_ok and attempt == 0)
            try:
                page = read(self.ref, number, get, self.tz, boards=self.options.boards)
            except TruncatedPageError:
                if attempt == self.options.truncation_retries:
                    raise
                continue
            if self.store is not None:
                now = self.options.clock()
                for key, body, headers in get.pending:
                    self.store.put(key, body, now, headers)
            if get.received:  # the forum made it just now: its footer is the forum's clock
                self.http.clocks.printed(self.ref.base, page.printed_at, min(get.received))
            # A page is as new as the newest answer it rests on.
            fresh = (o for o in (Origin.NETWORK, Origin.REVALIDATED) if o in get.origins)
            origin = next(fresh, Origin.CACHE)
            return page, origin, min(get.fetched, default=self.options.clock())
        raise AssertionError("unreachable")  # pragma: no cover


class _Get:
    """The platform's Getter for one page read: the cache where allowed, else the forum.

    Answers are written to the cache only once the whole page has been read (``pending``),
    so a page cut short never leaves half of its answers behind.
    """

    def __init__(self, reader: _PageReader, cached_ok: bool):
        self.reader = reader
        self.cached_ok = cached_ok
        self.origins: list[str] = []
        self.fetched: list[datetime] = []  # when each answer used was fetched
        self.received: list[datetime] = []  # when each new answer came, by this computer
        self.pending: list[tuple[str, bytes, dict[str, str]]] = []

    def _entry(self, request: Request) -> Entry | None:
        store, options = self.reader.store, self.reader.options
        if store is None or options.fresh:
            return None
        return store.get(request.key)

    def _trusted(self, entry: Entry) -> bool:
        not_before = self.reader.options.not_before
        return not_before is None or entry.fetched_at >= not_before

    def cached(self, request: Request) -> Answer | None:
        entry = self._entry(request)
        options = self.reader.options
        # A read that decides takes no answer from the cache (Tieba's 楼中楼 of a floor
        # whose count is unchanged would be: one deleted and one added keep the count).
        if entry is None or (options.live and not options.offline) or not self._trusted(entry):
            return None
        self.origins.append(Origin.CACHE)
        self.fetched.append(entry.fetched_at)
        return Answer(entry.body, entry.content_type, at=entry.fetched_at)

    def cookie(self, name: str, url: str) -> str | None:
        return self.reader.http.cookie(name, url)

    def allows(self, url: str) -> bool:
        return self.reader.options.offline or self.reader.http.allows(url)

    def __call__(self, request: Request) -> Answer:
        platform = self.reader.platform
        url = request.url
        cached = self._entry(request)
        offline = self.reader.options.offline
        if (self.cached_ok or offline) and cached is not None and self._trusted(cached):
            self.origins.append(Origin.CACHE)
            self.fetched.append(cached.fetched_at)
            return Answer(cached.body, cached.content_type, at=cached.fetched_at)
        if offline:
            why = "is not in the cache" if cached is None else "was cached before the close"
            raise FetchError(f"{url} {why}: --offline counts only from a whole thread cached "
                             "(after the close, for a closed day); run without it.")  # fmt: skip
        headers = dict(request.headers)
        if cached is not None and request.body is None:
            headers.update(cached.validators())

        owner = self.reader.api or platform  # the interface's answers, or the pages'

        def check(body: bytes) -> None:
            refused = owner.refusal(request, body)
            if refused is not None:
                raise refused

        response = self.reader.http.request(
            url, body=request.body, headers=headers, explain=self._explain(url), check=check,
            robots=not request.past_robots, redirects=request.redirects,
        )  # fmt: skip
        now = self.reader.options.clock()  # the forum's time, as it answered
        self.fetched.append(now)
        api = self.reader.api
        if response.status in REDIRECTS and not request.redirects:
            return Answer(b"", None, response.status, at=now)  # the interface decides
        if api is not None and response.status in (404, 410):
            # An interface says in its body why a thread is not there (gone, members only).
            body = api.scrub(response.body)
            return Answer(body, response.headers.get("content-type"), response.status, at=now)
        if response.status == 304 and cached is not None:
            self.origins.append(Origin.REVALIDATED)
            self.pending.append((request.key, cached.body, cached.headers()))
            return Answer(cached.body, cached.content_type, at=now)
        content_type = response.headers.get("content-type")
        if response.status == 200 and owner.truncated(request, response.body):
            raise TruncatedPageError(
                f"{url} ends before the forum finished the page "
                f"(after {len(response.body):,} bytes)."
            )
        if response.status != 200:
            # A missing thread is a 404 whose body is a normal forum page with the message.
            message = self._explain(url)(response.body, content_type)
            if message is not None:
                raise message
            if response.status in (404, 410) and request.page == 1:
                raise NotAThreadError(
                    f"{url} answered HTTP {response.status}: the thread does not exist or was "
                    "deleted, or it is hidden; check the tid in the URL."
                )
            raise FetchError(f"{url} answered HTTP {response.status}.")
        self.origins.append(Origin.NETWORK)
        self.received.extend(t for t in (response.received,) if t is not None)
        # No secret kept: the interface's answers echo the session's keys, and a board's
        # pages read with a member's cookies hold its form hash.
        scrubber = api or platform.api
        body = scrubber.scrub(response.body) if scrubber is not None else response.body
        self.pending.append((request.key, body, response.headers))
        return Answer(body, content_type, at=now)

    def _explain(self, url: str) -> Callable[[bytes, str | None], TallyError | None]:
        platform = self.reader.platform

        def why(body: bytes, content_type: str | None) -> TallyError | None:
            try:
                return platform.error_page(decode_page(body, content_type, source=url), url)
            except TallyError:
                return None

        return why


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
    way, why = _way(platform, ref, tz, http, options)
    try:
        thread = _fetched(url, tz, way, http=http, options=options, progress=progress,
                          held=held)  # fmt: skip
    except ApiUnavailable as exc:
        if way != API or options.offline:
            raise
        why = f"{exc}; tally reads its threads from their HTML pages"
        http.facts[(platform.name, urlsplit(ref.base).netloc)] = (PAGES, why)  # the run's others
        thread = _fetched(url, tz, PAGES, http=http, options=options, progress=progress,
                          held=held)  # fmt: skip
    if why is not None:  # said once the thread is read: a read that fails says why alone
        http.say_once(why, options.note)
    return thread


def thread_way(
    url: str, tz: tzinfo, *, http: Http, options: FetchOptions
) -> tuple[str, str | None]:
    """How the thread at ``url`` is read, and why not through the API (``_way``)."""
    platform, ref = resolve_url(url)
    return _way(platform, ref, tz, http, options)


def _way(
    platform: Platform, ref: ThreadRef, tz: tzinfo, http: Http, options: FetchOptions
) -> tuple[str, str | None]:
    """How the thread is read, and the sentence why not through the API where the platform
    has one and the board does not serve it (its profile says ``api = false``, or its answer
    to the probe). The answer is kept with the board's facts in the cache for
    ``PROBE_KEPT``; --offline reads the way the cache holds the thread."""
    api = platform.api
    if api is None:
        return PAGES, None
    wanted = api.wanted(ref, options.boards)
    probe = api.probe_request(ref)
    if wanted is not None or probe is None:
        return (PAGES if wanted is False else API), None
    host = urlsplit(ref.base).netloc
    cache = Cache(options.cache_dir, options.warn) if options.cache_dir is not None else None
    if options.offline:
        kept = cache.thread(kept_as(platform.name, API), host, ref.thread_id) if cache else None
        return (API if kept is not None and kept.page_count else PAGES), None
    known = http.facts.get((platform.name, host))  # asked already this run (a watch's polls)
    if known is not None:
        return known
    found = _probed(platform, api, probe, ref, tz, http, options, cache)
    http.facts[(platform.name, host)] = found
    return found


def _probed(
    platform: Platform, api: Api, probe: Request, ref: ThreadRef, tz: tzinfo, http: Http,
    options: FetchOptions, cache: Cache | None,
) -> tuple[str, str | None]:  # fmt: skip
    """The board's answer to the probe, asked now or kept in the cache within
    ``PROBE_KEPT``: the way, and why not through the API."""
    host = urlsplit(ref.base).netloc
    board = cache.board(platform.name, host) if cache is not None else None
    entry = board.get(probe.key) if board is not None and not options.fresh else None
    if entry is not None and options.clock() - entry.fetched_at < PROBE_KEPT:
        answer = Answer(entry.body, entry.content_type)
    else:
        get = _Get(_PageReader(platform, ref, tz, http, board, options, API), cached_ok=False)
        try:
            answer = get(probe)
        except FetchError as exc:
            return PAGES, f"{host} did not answer the probe of {api.title} ({exc})"
        if board is not None:
            for key, body, headers in get.pending:
                board.put(key, body, options.clock(), headers)
    why = api.probe(ref, answer.body, answer.content_type)
    if why is None:
        return API, None
    return PAGES, f"{host}: {why}; tally reads its threads from their HTML pages"


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
    ``held``) where trusted, unless the read shows them stale: a post of a page just read
    on another floor than before (a floor before it was deleted, and the floors after it
    numbered again), or fewer floors than the thread's replies; then every page is read
    again. A read that decides (``live``: a count, a reminder, the cards) takes every page
    from the forum: a moderator's 屏蔽 changes a page tally cached and moves no floor.
    """
    platform, ref = resolve_url(url)
    host = urlsplit(ref.base).netloc
    cache = Cache(options.cache_dir, options.warn) if options.cache_dir is not None else None
    name = kept_as(platform.name, way)
    store = cache.thread(name, host, ref.thread_id) if cache is not None else None
    reader = _PageReader(platform, ref, tz, http, store, options, way)
    if held is not None:
        held.following(way)
    known = None
    if not options.fresh:
        known = held.page_count if held and held.page_count else None
        known = known or (store.page_count if store is not None else None)
    if options.offline and known is None:
        raise FetchError(f"{url}: no page of this thread is in the cache, which --offline "
                         "counts from; run without it.")  # fmt: skip
    # What may stand in for the forum: the cache or memory, but for a read that decides.
    reuse = known is not None and (options.offline or not options.live)
    try:
        pages, read_at, total = _read_pages(url, reader, options, known, reuse, held, progress)
    except ThreadGoneError as exc:
        raise _gone(exc, store) from None
    so_far = held.history if held is not None and not options.fresh else None
    reused = not options.offline and any(
        o in (Origin.CACHE, Origin.MEMORY) for _, o in pages.values()
    )
    before = so_far if so_far is not None or not reused else _history(store)

    def built() -> Thread:
        nonlocal pages
        if reader.api is not None and (options.closes is None or options.clock() >= options.closes):
            pages = _with_edits(reader, pages, before)
        # The posts a page shows without their floor, on their floors (kept so, in the
        # history and in memory, as the forum shows them once they are placed).
        whole = set(pages) >= set(range(1, max(p.page_count for p, _ in pages.values()) + 1))
        placed = place_floating([p for p, _ in pages.values()], url, whole=whole)
        pages = {n: (placed[i], o) for i, (n, (_, o)) in enumerate(pages.items())}
        ordered = [pages[n] for n in sorted(pages)]
        # Stamped in the forum's zone at its offset then, as the posts' times are.
        stamped = instant(options.clock().astimezone(tz))
        return _build(platform.name, ref.thread_id, url, [p for p, _ in ordered],
                      [o for _, o in ordered], read_at=stamped)  # fmt: skip

    failed: ParseError | None = None  # said once the pages read are kept
    try:
        thread = built()
        stale = reused and (
            _moved(pages, before) or thread.short_of_replies() or _newest_first(pages)
        )
    except ParseError as exc:
        # Two posts on one floor: the cached pages and the live ones disagree, or the
        # forum's own do.
        stale, failed = reused, None if reused else exc
    if not stale and renumbered([page for page, _ in pages.values()]):
        # Pages the forum numbered before and after a delete, read together: read them all
        # again, page 1 first (X3.5 numbers by place from the first view of the page that
        # lost a post; the last page, read first, still showed the old numbers).
        stale, failed = True, None
    if stale:
        if held is not None:
            held.pages.clear()
        pages, read_at, total = _read_pages(url, reader, options, None, False, held, None)
        try:
            thread = built()
        except ParseError as exc:
            failed = exc
        if failed is None and (twice := renumbered([page for page, _ in pages.values()])):
            failed = numbered_again(url, *twice)
    # The posts first read in this thread before this read: its own, wherever else they
    # were read since (moved out by mistake and back).
    own = store.post_ids() if store is not None else frozenset()
    if store is not None:
        store.set_page_count(total)
        fresh = {Origin.NETWORK, Origin.REVALIDATED}
        just_read = [(n, page, read_at[n]) for n, (page, o) in pages.items() if o in fresh]
        history = keep_versions(store, just_read, f"thread {ref.thread_id}", options, before)
        if held is not None:
            held.history = history
    if held is not None:
        held.pages = {n: (page, read_at[n]) for n, (page, _) in pages.items()}
        held.page_count = total
    if failed is not None:
        raise failed
    check_complete(thread, [page for _, (page, _) in sorted(pages.items())], url)
    thread = replace(thread, read_by=way)
    if store is None or cache is None:
        return thread
    ids = frozenset(p.post_id for p in thread.posts)
    moved = cache.read_elsewhere(name, host, ref.thread_id, ids - own)
    store.note_post_ids(own | (ids - moved.keys()))  # the posts first read in it
    moved_as = cache.roles_of(name, host, moved)
    # The days whose vote thread tally read posts of that stand in this thread now: that
    # vote thread was merged into this one (合并).
    merged = frozenset(d for roles in moved_as.values() for d, r in roles if r == VOTE)
    # And the days another of whose threads (the discussion) was merged into this one.
    talk = frozenset(d for roles in moved_as.values() for d, r in roles if r not in (VOTE, UNSURE))
    new = ids - own - moved.keys()
    unseen = _came_in_unseen(thread, new, history, just_read)
    mended = _mended(cache, name, ref, store.roles() or {}, options, merged)
    kept = store.note_roles(options.roles, new, merged, unseen, talk, mended)
    read_as = {pid: roles for pid in ids - moved.keys() if (roles := first_roles(kept, pid))}
    read_as.update(moved_as)
    runs = store.note_closed(thread.closed, thread.read_at) if thread.read_at else ()
    return replace(thread, history=history, moved_in=moved, read_as=read_as, closed_runs=runs,
                   mended=mended)  # fmt: skip


def _with_edits(
    reader: _PageReader, pages: dict[int, tuple[Page, str]], before: History | None
) -> dict[int, tuple[Page, str]]:
    """The pages with the edit marks their interface hid, learnt where the count needs them
    (``tally.forums.api.learn_edits``); the answers that said them kept as the pages' are."""
    assert reader.api is not None
    before = before if before is not None else _history(reader.store)
    get = _Get(reader, cached_ok=not reader.options.live)
    learnt = learn_edits(reader.api, reader.ref, {n: p for n, (p, _) in pages.items()}, get,
                         reader.tz, before)  # fmt: skip
    if reader.store is not None:
        for key, body, headers in get.pending:
            reader.store.put(key, body, reader.options.clock(), headers)
    return {n: (learnt[n], origin) for n, (_, origin) in pages.items()}


def _mended(
    cache: Cache, platform: str, ref: ThreadRef, known: dict[int, dict[str, frozenset[str]]],
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


def _gone(exc: ThreadGoneError, store: ThreadCache | None) -> ThreadGoneError:
    """The forum says a thread tally read before does not exist: deleted, or merged into
    another thread (合并 keeps the other's tid), which the day's vote may be pointed at."""
    ids = store.post_ids() if store is not None else frozenset()
    if not ids:
        return exc
    said = str(exc).rstrip(".").removesuffix("; check the tid in the URL")
    roles = store.roles() if store is not None else None
    read_as = sorted({(d, r) for d, by in (roles or {}).items() for r in by if r != UNSURE})
    named = "、".join(f"day {d}'s {r} thread" for d, r in read_as)
    return ThreadGoneError(
        f"{said}; tally read it before ({len(ids)} posts{', as ' + named if named else ''}): "
        "a moderator deleted it, or merged it into another thread (合并: its posts go to the "
        "thread it is merged into, which keeps its own tid), so nothing is counted from it; "
        "if it was merged, point the day's URL in the game file at that thread, where tally "
        "tells the posts first read here by their ids."
    )


def _read_pages(
    url: str,
    reader: _PageReader,
    options: FetchOptions,
    known: int | None,
    reuse: bool,
    held: Held | None,
    progress: Progress | None,
) -> tuple[dict[int, tuple[Page, str]], dict[int, datetime], int]:
    """Every page of the thread: the last known one first (to learn whether it grew), from
    the forum; with ``reuse``, the pages before it from memory or the cache where trusted."""
    start = known or 1
    try:
        first, origin, when = reader.read(start, cached_ok=options.offline)
    except FetchError as exc:
        # A thread held across polls is a watch's or the desk's: they take no --offline.
        if options.offline or held is not None or not _whole_in_cache(
            url, reader.tz, reader.http, options
        ):
            raise
        said = "after the close" if options.not_before is not None else "before the close"
        raise FetchError(f"{exc} The cache holds every page of this thread as read {said}: "
                         "add --offline to count from it.") from None  # fmt: skip
    except PageMismatchError:
        # The thread lost pages since the last run: start again from the top.
        start, reuse = 1, False
        first, origin, when = reader.read(1, cached_ok=False)
        if held is not None:
            held.pages.clear()
    pages: dict[int, tuple[Page, str]] = {start: (first, origin)}
    read_at = {start: when}

    def from_memory(n: int) -> tuple[Page, datetime] | None:
        if held is None or options.fresh or not reuse or n >= start:
            return None
        kept = held.pages.get(n)
        if kept is None or (options.not_before is not None and kept[1] < options.not_before):
            return None
        return kept

    total = first.page_count
    if progress:
        progress(1, total)
    while True:
        if total > options.max_pages:
            raise FetchError(
                f"{url} has {total} pages, more than tally reads ({options.max_pages})."
            )
        wanted = [n for n in range(1, total + 1) if n not in pages]
        for n in wanted:
            kept = from_memory(n)
            if kept is not None:
                pages[n] = (kept[0], Origin.MEMORY)
                read_at[n] = kept[1]
        wanted = [n for n in wanted if n not in pages]
        if not wanted:
            break
        workers = max(1, min(reader.http.options.max_in_flight, len(wanted)))
        # The last page of a two-page thread is read here: no thread is started for it.
        pool = ThreadPoolExecutor(max_workers=workers) if len(wanted) > 1 else None
        try:
            reads = (pool.map if pool is not None else map)(
                lambda n: (n, reader.read(n, cached_ok=reuse and n < start)), wanted
            )
            for n, (page, origin, when) in reads:
                pages[n] = (page, origin)
                read_at[n] = when
                if progress:
                    progress(len(pages), total)
        finally:
            if pool is not None:
                pool.shutdown()
        # The thread can grow while it is read: go on until no page names more.
        total = max(total, max(p.page_count for p, _ in pages.values()))
    return pages, read_at, total


def _history(store: ThreadCache | None) -> History | None:
    """The thread's history as the cache holds it (None: no cache)."""
    return store.history() if store is not None else None


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


def _moved(pages: dict[int, tuple[Page, str]], before: History | None) -> bool:
    """Whether a post of a page just read stands on another floor than it last did: a floor
    before it was deleted, and the floors after it are numbered again and move up a page,
    so the pages taken from the cache or memory are not the thread as it is."""
    floor_of: dict[str, int] = {}
    for version in before.versions if before is not None else ():
        for post in version.posts:
            floor_of[post.post_id] = post.floor
    live = {Origin.NETWORK, Origin.REVALIDATED}
    return any(
        floor_of.get(p.post_id, p.floor) != p.floor
        for page, origin in pages.values()
        if origin in live
        for p in page.posts
    )


def keep_versions(
    store: ThreadCache,
    pages: Sequence[tuple[int, Page, datetime]],
    name: str,
    options: FetchOptions,
    known: History | None = None,
) -> History:
    """Keep the pages just read as versions of the thread's history, and give the history
    (``known`` and what was added to it, else all of it read from the cache)."""
    added = []
    read = uuid.uuid4().hex[:12]  # this read's own: another run's pages may come between
    for number, page, when in sorted(pages, key=lambda p: p[0]):
        kept = store.keep(number, page_data(page.posts), when, read)
        if kept == "full":
            (options.warn or logging.getLogger("tally").warning)(
                f"{name}'s history holds {MAX_VERSIONS} versions, as many as tally keeps: this "
                f"read is not kept (the history is in {store.folder})."
            )
            break
        if kept in ("kept", "same"):  # an unchanged page is a read too (cache.keep)
            added.append(Version(number, when, page.posts, read))
        elif kept == "unwritable":
            known = None
    if known is not None:
        return History((*known.versions, *added), known.capped)
    return _history(store) or History()


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
    # One thread per board and id: thread 23 of two boards are two threads.
    by_thread: dict[tuple[str, str, str], dict[int, Page]] = {}
    names: dict[tuple[str, str, str], str] = {}
    batches: dict[str, list[tuple[CommentBatch, str]]] = {}
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
            batches.setdefault(platform.name, []).append((part, str(path)))
            continue
        key = (platform.name, part.origin, part.thread_id)
        names.setdefault(key, str(path))
        pages = by_thread.setdefault(key, {})
        if part.page in pages:
            raise InputError(f"{path} is page {part.page} of thread {part.thread_id}, given twice.")
        pages[part.page] = part
    threads = []
    for (platform_name, origin, tid), pages in by_thread.items():
        count = max(p.page_count for p in pages.values())
        absent = [p for p in range(1, count + 1) if p not in pages]
        notes: list[str] = []
        if absent:
            shown = ", ".join(map(str, absent[:10])) + (" …" if len(absent) > 10 else "")
            if not partial:
                raise InputError(
                    f"thread {tid} has {count} pages but page(s) {shown} were not given "
                    f"(saved from {names[(platform_name, origin, tid)]})."
                )
            notes.append(f"page{'s' if len(absent) > 1 else ''} {shown} of {count}")
        source = os.fspath(names[(platform_name, origin, tid)])
        mine = [b for b, _ in batches.get(platform_name, []) if b.thread_id in (None, tid)]
        ordered = place_floating([pages[n] for n in sorted(pages)], source, whole=not absent)
        with_comments = by_name(platform_name).pages.attach_saved(
            ordered, mine, source=source, missing=notes if partial else None
        )
        origins = [Origin.FILE] * len(with_comments)
        thread = _build(platform_name, tid, source, with_comments, origins)
        try:
            check_complete(thread, with_comments, source, saved=True)
        except FetchError as exc:
            if not partial:
                raise
            if not absent:
                notes.append(str(exc).rsplit(". ", 1)[0])
            # else the pages not given hold the replies not read: the note above says so.
        if notes:
            thread = replace(thread, missing=tuple(notes))
        threads.append(thread)
    for platform_name, found in batches.items():
        tids = {tid for name, _, tid in by_thread if name == platform_name}
        for batch, where in found:
            if batch.thread_id is not None and batch.thread_id not in tids:
                raise InputError(
                    f"{where} holds comments of thread {batch.thread_id}, "
                    "whose pages were not given."
                )
    return threads


def _build(
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
