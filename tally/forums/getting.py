"""Getting one page of a thread: the options of a read (``FetchOptions``), the reader of a
page and its sub-requests (``PageReader``), and the platform's Getter (``Get``): the cache
where the read trusts it, else the forum; what an answer may hold of the session's secrets
taken out before anything keeps it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from tally.errors import (
    FetchError,
    NotAThreadError,
    TallyError,
    TruncatedPageError,
)
from tally.forums import Platform, ThreadRef
from tally.forums.api import API, PAGES, Api
from tally.forums.asking import Answer, Request
from tally.forums.boards import Boards
from tally.forums.cache import (
    Cache,
    ThreadCache,
)
from tally.forums.charset import decode_page
from tally.forums.http import REDIRECTS, Http
from tally.forums.page_index import Entry
from tally.i18n import tr
from tally.model import History, Page
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
class PageReader:
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
            get = Get(self, cached_ok and attempt == 0)
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


class Get:
    """The platform's Getter for one page read: the cache where allowed, else the forum.

    Answers are written to the cache only once the whole page has been read (``pending``),
    so a page cut short never leaves half of its answers behind.
    """

    def __init__(self, reader: PageReader, cached_ok: bool):
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
        return self._from_cache(entry)

    def _from_cache(self, entry: Entry) -> Answer:
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
            return self._from_cache(cached)
        if offline:
            if cached is None:
                raise FetchError(
                    tr(
                        "{url} is not in the cache: --offline counts only from a whole thread "
                        "cached (after the close, for a closed day); run without it.",
                        url=url,
                    )
                )
            raise FetchError(
                tr(
                    "{url} was cached before the close: --offline counts only from a whole "
                    "thread cached (after the close, for a closed day); run without it.",
                    url=url,
                )
            )
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
                tr(
                    "{url} ends before the forum finished the page (after {bytes} bytes).",
                    url=url,
                    bytes=format(len(response.body), ","),
                )
            )
        if response.status != 200:
            raise self._refusal(request, response.status, response.body, content_type)
        self.origins.append(Origin.NETWORK)
        self.received.extend(t for t in (response.received,) if t is not None)
        # No secret kept: the interface's answers echo the session's keys, and a board's
        # pages read with a member's cookies hold its form hash.
        scrubber = api or platform.api
        body = scrubber.scrub(response.body) if scrubber is not None else response.body
        self.pending.append((request.key, body, response.headers))
        return Answer(body, content_type, at=now)

    def _refusal(
        self, request: Request, status: int, body: bytes, content_type: str | None
    ) -> TallyError:
        """Why the forum answered ``status`` and not the page: its own message where the
        body is a forum page saying it (a missing thread is a 404 whose body is a normal
        forum page with the message), else the status."""
        url = request.url
        message = self._explain(url)(body, content_type)
        if message is not None:
            return message
        if status in (404, 410) and request.page == 1:
            return NotAThreadError(
                tr(
                    "{url} answered HTTP {status}: the thread does not exist or was deleted, "
                    "or it is hidden; check the tid in the URL.",
                    url=url,
                    status=status,
                )
            )
        return FetchError(tr("{url} answered HTTP {status}.", url=url, status=status))

    def _explain(self, url: str) -> Callable[[bytes, str | None], TallyError | None]:
        platform = self.reader.platform

        def why(body: bytes, content_type: str | None) -> TallyError | None:
            try:
                return platform.error_page(decode_page(body, content_type, source=url), url)
            except TallyError:
                return None

        return why


def stored_history(reader: PageReader) -> History | None:
    """The thread's one history as the cache holds it, whichever way each read was made
    (``Cache.history``); None: the read keeps no cache."""
    if reader.store is None or reader.options.cache_dir is None:
        return None
    return Cache(reader.options.cache_dir, reader.options.warn).history(reader.ref)
