"""Reading whole threads: every page, from the forum over HTTP or from saved files.

A thread is returned only when every page its pager names was read and parsed;
a missing page is an error, never a shorter thread.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path

import httpx

from tally import __version__
from tally.charset import decode_page
from tally.errors import FetchError, InputError
from tally.model import Page, Post, Thread
from tally.platforms import Platform, by_name, recognise_text, resolve_url
from tally.platforms.base import CommentBatch, Getter

USER_AGENT = f"tally/{__version__} (forum werewolf vote counter; +https://pypi.org/project/tally/)"
# Forums throttle guests hard at closing time: never more than this many requests at once.
MAX_IN_FLIGHT = 4
MAX_PAGES = 2000

_HOST_FIRST = re.compile(r"^[\w-]+(\.[\w-]+)+(:\d+)?/")

Progress = Callable[[int, int], None]  # (pages done, pages known)


@dataclass(frozen=True)
class FetchOptions:
    timeout: float = 30.0
    max_in_flight: int = MAX_IN_FLIGHT
    max_pages: int = MAX_PAGES
    user_agent: str = USER_AGENT


def is_url(source: str) -> bool:
    return "://" in source


def read_threads(
    sources: Sequence[str],
    tz: tzinfo,
    *,
    options: FetchOptions | None = None,
    progress: Progress | None = None,
) -> list[Thread]:
    """Read every thread the sources name: URLs, saved page files, or a mix.

    Saved files of one thread are put together; each thread comes back once, in the
    order it was first named.
    """
    urls: list[str] = []
    files: list[Path] = []
    for source in sources:
        if is_url(source):
            urls.append(source)
        elif Path(source).is_file():
            files.append(Path(source))
        elif _HOST_FIRST.match(source.strip()):
            resolve_url(source)  # a URL pasted without its scheme: say so
        else:
            raise InputError(f"{source!r} is neither a thread URL nor a saved page file.")
    threads: list[Thread] = []
    if urls:
        with make_client(options or FetchOptions()) as client:
            for url in urls:
                threads.append(
                    fetch_thread(url, tz, client=client, options=options, progress=progress)
                )
    if files:
        threads.extend(read_saved_thread_files(files, tz))
    return threads


def make_client(options: FetchOptions) -> httpx.Client:
    limits = httpx.Limits(max_connections=options.max_in_flight)
    return httpx.Client(
        headers={"User-Agent": options.user_agent},
        timeout=options.timeout,
        follow_redirects=True,
        limits=limits,
    )


def fetch_thread(
    url: str,
    tz: tzinfo,
    *,
    client: httpx.Client | None = None,
    options: FetchOptions | None = None,
    progress: Progress | None = None,
) -> Thread:
    """Fetch and parse every page of the thread at ``url``."""
    options = options or FetchOptions()
    platform, ref = resolve_url(url)
    own_client = client is None
    http = client or make_client(options)
    get = _getter(http, platform)
    try:
        first = platform.read_page(ref, 1, get, tz)
        pages: dict[int, Page] = {1: first}
        known = first.page_count
        if known > options.max_pages:
            raise FetchError(
                f"{url} has {known} pages, more than tally reads ({options.max_pages})."
            )
        if progress:
            progress(1, known)
        # The thread can grow while it is read (closing time is busy): keep going until
        # the last page read says there is nothing after it.
        while len(pages) < known:
            wanted = [p for p in range(1, known + 1) if p not in pages]
            with ThreadPoolExecutor(max_workers=max(1, options.max_in_flight)) as pool:
                for page in pool.map(lambda n: platform.read_page(ref, n, get, tz), wanted):
                    pages[page.page] = page
                    if progress:
                        progress(len(pages), known)
            known = max(known, max(p.page_count for p in pages.values()))
            if known > options.max_pages:
                raise FetchError(f"{url} has grown past {options.max_pages} pages.")
    finally:
        if own_client:
            http.close()
    return _build(platform.name, ref.thread_id, url, list(pages.values()), "network")


def _getter(http: httpx.Client, platform: Platform) -> Getter:
    def get(url: str) -> str:
        try:
            response = http.get(url)
        except httpx.TimeoutException:
            raise FetchError(f"{url} did not answer in time.") from None
        except httpx.HTTPError as exc:
            raise FetchError(f"could not read {url} ({type(exc).__name__}: {exc}).") from None
        text = decode_page(response.content, response.headers.get("content-type"), source=url)
        if response.status_code != 200:
            # A missing thread is a 404 whose body is a normal forum page with the message.
            message = platform.error_page(text, url)
            if message is not None:
                raise message
            raise FetchError(f"{url} answered HTTP {response.status_code}.")
        return text

    return get


def read_saved_thread_files(paths: Iterable[Path], tz: tzinfo) -> list[Thread]:
    """Parse saved pages; the pages of each thread must all be there."""
    by_thread: dict[tuple[str, str], dict[int, Page]] = {}
    names: dict[tuple[str, str], str] = {}
    batches: dict[str, list[tuple[CommentBatch, str]]] = {}
    for path in paths:
        try:
            body = path.read_bytes()
        except OSError as exc:
            raise InputError(f"{path}: cannot be read ({exc.strerror}).") from None
        text = decode_page(body, None, source=str(path))
        platform = recognise_text(text, str(path))
        part = platform.parse_saved(text, tz, source=str(path))
        if isinstance(part, CommentBatch):
            batches.setdefault(platform.name, []).append((part, str(path)))
            continue
        page = part
        key = (platform.name, page.thread_id)
        names.setdefault(key, str(path))
        pages = by_thread.setdefault(key, {})
        if page.page in pages:
            raise InputError(f"{path} is page {page.page} of thread {page.thread_id}, given twice.")
        pages[page.page] = page
    threads = []
    for (platform_name, tid), pages in by_thread.items():
        count = max(p.page_count for p in pages.values())
        missing = [p for p in range(1, count + 1) if p not in pages]
        if missing:
            shown = ", ".join(map(str, missing[:10]))
            raise InputError(
                f"thread {tid} has {count} pages but page(s) {shown} were not given "
                f"(saved from {names[(platform_name, tid)]})."
            )
        source = os.fspath(names[(platform_name, tid)])
        mine = [b for b, _ in batches.get(platform_name, []) if b.thread_id in (None, tid)]
        with_comments = by_name(platform_name).attach_saved(
            list(pages.values()), mine, source=source
        )
        threads.append(_build(platform_name, tid, source, with_comments, "file"))
    for platform_name, found in batches.items():
        tids = {tid for name, tid in by_thread if name == platform_name}
        for batch, where in found:
            if batch.thread_id is not None and batch.thread_id not in tids:
                raise InputError(
                    f"{where} holds comments of thread {batch.thread_id}, "
                    "whose pages were not given."
                )
    return threads


def _build(platform_name: str, tid: str, source: str, pages: list[Page], origin: str) -> Thread:
    pages.sort(key=lambda p: p.page)
    seen: set[str] = set()
    posts: list[Post] = []
    for page in pages:
        for post in page.posts:
            # A post can show on two pages when the thread grew between two reads.
            if post.post_id not in seen:
                seen.add(post.post_id)
                posts.append(post)
    posts.sort(key=lambda p: p.floor)
    first = pages[0]
    return Thread(
        platform=platform_name,
        thread_id=tid,
        url=source,
        title=first.title,
        page_count=len(pages),
        posts=tuple(posts),
        reply_count=first.reply_count,
        sources=(origin,) * len(pages),
    )
