"""Which way a live thread is read: through its platform's interface for its own clients
where the board serves it (``tally.forums.api``), else through its HTML pages; the board's
answer to the probe kept with its facts; and the edit marks an interface hides, learnt
where a read needs them.
"""

from __future__ import annotations

from datetime import tzinfo
from urllib.parse import urlsplit

from tally.errors import (
    ApiUnavailable,
    FetchError,
    ThreadOffApi,
)
from tally.forums import Platform, ThreadRef, resolve_url
from tally.forums.api import API, PAGES, PROBE_KEPT, Api, learn_edits
from tally.forums.asking import Answer, Request
from tally.forums.cache import (
    Cache,
    cache_name,
)
from tally.forums.getting import FetchOptions, Get, PageReader, stored_history
from tally.forums.http import REDIRECTS, Http
from tally.i18n import tr
from tally.model import History, Page


def thread_way(
    url: str, tz: tzinfo, *, http: Http, options: FetchOptions
) -> tuple[str, str | None]:
    """How the thread at ``url`` is read, and why not through the API (``way_of``)."""
    platform, ref = resolve_url(url)
    return way_of(platform, ref, tz, http, options)


def way_of(
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
        kept = cache.thread(cache_name(platform.name, API), host, ref.thread_id) if cache else None
        return (API if kept is not None and kept.page_count else PAGES), None
    # Asked already this run (a watch's polls): of this thread (a 点评 only its pages tell,
    # ``ThreadOffApi``: ``fell_back``), else of the board.
    known = http.facts.get((platform.name, host, ref.thread_id)) or http.facts.get(
        (platform.name, host))
    if known is not None:
        return known
    found = probed(platform, api, probe, ref, tz, http, options, cache)
    http.facts[(platform.name, host)] = found
    return found


def probed(
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
        get = Get(PageReader(platform, ref, tz, http, board, options, API), cached_ok=False)
        try:
            answer = get(probe)
            if answer.status in REDIRECTS:  # the board numbering a thread again (Discuz!)
                answer = get(probe)
        except FetchError as exc:
            return PAGES, tr(
                "{host} did not answer the probe of {api} ({why})",
                host=host,
                api=tr(api.title),
                why=exc,
            )
        if board is not None:
            for key, body, headers in get.pending:
                board.put(key, body, options.clock(), headers)
    why = api.probe(ref, answer.body, answer.content_type)
    if why is None:
        return API, None
    return PAGES, tr(
        "{host}: {why}; tally reads its threads from their HTML pages", host=host, why=why
    )


def fell_back(
    platform: Platform, ref: ThreadRef, http: Http, options: FetchOptions, exc: ApiUnavailable
) -> str:
    """The interface failed a read the probe let through: the run's later reads of the
    thread (``ThreadOffApi``: a 点评 only its pages tell), or of every thread of the board,
    go to the pages (``way_of``); why, in the line that says so. For the board, its kept
    answer is asked again by the next run too (an admin who switched the interface off since
    is seen then, by ``tally doctor`` too, not after ``PROBE_KEPT``)."""
    host = urlsplit(ref.base).netloc
    if isinstance(exc, ThreadOffApi):  # this thread's pages; the board's answer stands
        why = tr("{why}; tally reads this thread from its HTML pages", why=exc)
        http.facts[(platform.name, host, ref.thread_id)] = (PAGES, why)
        return why
    why = tr("{why}; tally reads its threads from their HTML pages", why=exc)
    http.facts[(platform.name, host)] = (PAGES, why)
    probe = platform.api.probe_request(ref) if platform.api is not None else None
    if probe is not None and options.cache_dir is not None:  # never offline: read live
        Cache(options.cache_dir, options.warn).board(platform.name, host).forget(probe.key)
    return why


def with_edits(
    reader: PageReader, pages: dict[int, tuple[Page, str]], before: History | None
) -> dict[int, tuple[Page, str]]:
    """The pages with the edit marks their interface hid, learnt where the count needs them
    (``tally.forums.api.learn_edits``); the answers that said them kept as the pages' are."""
    assert reader.api is not None
    before = before if before is not None else stored_history(reader)
    get = Get(reader, cached_ok=not reader.options.live)
    learnt = learn_edits(reader.api, reader.ref, {n: p for n, (p, _) in pages.items()}, get,
                         reader.tz, before)  # fmt: skip
    if reader.store is not None:
        for key, body, headers in get.pending:
            reader.store.put(key, body, reader.options.clock(), headers)
    return {n: (learnt[n], origin) for n, (_, origin) in pages.items()}
