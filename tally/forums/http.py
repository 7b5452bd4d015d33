"""HTTP as a busy forum at closing time needs it: polite, retried, bounded.

- at most ``max_in_flight`` requests to one host at once, and a small gap between them;
- 408, 429, 5xx, time-outs, resets and bodies cut short are retried with exponential
  backoff and jitter (tenacity), honouring ``Retry-After`` up to a ceiling;
- the body is read in a stream and decompressed by hand so that neither the bytes on
  the wire nor the decompressed bytes can pass their caps (a gzip bomb stops at the cap);
- robots.txt is respected for the paths tally asks for, and for every redirect's target;
- no request takes longer than ``deadline`` in all (a body trickled a byte a second, or an
  endless one under the size cap, is cut off and tried again), and no page longer than
  ``total_deadline``, its retries and the waits between them included;
- cookies from a Netscape cookie file go only to their own domain, and are never printed;
- every header is read totally: any value gives a value or a clean error, never a traceback.
"""

from __future__ import annotations

import logging
import random
import re
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from tally.environment import HttpOptions
from tally.errors import FetchError, InputError, TallyError
from tally.forums.client import import_httpx, new_client
from tally.forums.clocks import ForumClocks
from tally.forums.politeness import Robots, retry_after
from tally.forums.unpacking import ENCODINGS, Unpacker
from tally.i18n import ntr, tr

# httpx and tenacity are imported where a request is made (a fifth of a second): every
# command makes an Environment (its HttpOptions: tally.environment), and most never fetch a page.
# ssl and the cookie file's reader (http.cookiejar, and urllib.request with it: ~20 ms of
# CPU together) wait for a request, and for a cookie file.
if TYPE_CHECKING:
    import httpx
    from tenacity import RetryCallState

    from tally.forums.cookies import CookieFile

RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
REDIRECTS = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 10
# A warning for the director (a cookie file that covers no host asked): one sentence.
Warn = Callable[[str], None]
_log = logging.getLogger("tally")
# Reads a failed answer's body (and its content type) and says what it means, if it can.
Explain = Callable[[bytes, "str | None"], "TallyError | None"]


@dataclass(frozen=True)
class Response:
    url: str
    status: int
    headers: dict[str, str]
    body: bytes
    # When it came, by this computer's clock (its Date against it: tally.forums.clocks).
    received: datetime | None = None


class TryAgain(Exception):
    """What a ``check`` raises for a 200 answer that says "not now" (an API's rate limit):
    retried with backoff like a 429, ``retry_after`` seconds later when given."""

    def __init__(self, why: str, retry_after: float | None = None):
        super().__init__(why)
        self.retry_after = retry_after


# Reads a 200 answer's body; raises TryAgain or tally's own error when it is no answer.
Check = Callable[[bytes], None]


class _Transient(Exception):
    """A failure worth another try."""

    def __init__(self, why: str, retry_after: float | None = None, *, unreachable: bool = False):
        super().__init__(why)
        self.retry_after = retry_after
        self.unreachable = unreachable  # the host does not answer at all


def _covers(domains: frozenset[str], host: str) -> bool:
    """``tally.forums.cookies.covers``, imported with the cookie file's reader."""
    from tally.forums.cookies import covers

    return covers(domains, host)


_NO_SUCH_HOST = re.compile(
    r"Name or service not known|nodename nor servname|getaddrinfo failed|No address associated"
    r"|Temporary failure in name resolution|Errno -[235]\b"
)


def _why_not(exc: Exception) -> str:
    text = str(exc)
    if "refused" in text.lower():
        return tr("connection refused")
    if "unreachable" in text.lower():
        return tr("network unreachable")
    return text or type(exc).__name__


@dataclass
class _Host:
    slots: threading.BoundedSemaphore
    lock: threading.Lock = field(default_factory=threading.Lock)
    last: float = float("-inf")
    robots: Robots | None = None
    robots_lock: threading.Lock = field(default_factory=threading.Lock)


# Suffixes under which a site's own name is the third label from the end (bbs.foo.com.cn).
_SECOND_LEVEL = {"com", "net", "org", "edu", "gov", "co", "ac"}


def site_of(host: str) -> str:
    """The site a host belongs to, for saying things once a site: its last two labels
    (three under com.cn, co.uk, …), the port dropped; an address as it is."""
    name = host.lower().rsplit(":", 1)[0] if host.count(":") == 1 else host.lower()
    labels = name.split(".")
    if name.replace(".", "").isdigit() or ":" in name or len(labels) <= 2:
        return name
    keep = 3 if labels[-2] in _SECOND_LEVEL and len(labels[-1]) == 2 else 2
    return ".".join(labels[-keep:])


class Http:
    """The one place tally talks HTTP. Thread-safe; use as a context manager."""

    def __init__(
        self,
        options: HttpOptions | None = None,
        *,
        cookies: Path | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        warn: Warn | None = None,
        clocks: ForumClocks | None = None,
    ):
        """``sleep``, ``clock`` (monotonic seconds) and ``now`` (the wall clock, for a
        Retry-After date) come from the run's environment; tests pass fake ones. ``clocks``
        learns each forum's clock from the answers (the Reader's own)."""
        self.options = options or HttpOptions()
        if self.options.max_in_flight < 1:
            raise InputError(tr("at least one request must be allowed in flight."))
        self._sleep, self._clock, self._now = sleep, clock, now
        self._warn = warn or _log.warning
        self.clocks = clocks or ForumClocks(now, warn)
        self.cookie_file = cookies
        self._cookies: CookieFile | None = None
        if cookies:
            from tally.forums.cookies import load_cookies

            self._cookies = load_cookies(cookies)
        if self._cookies is not None and self._cookies.expired and not self._cookies.domains:
            self._warn(
                tr(
                    "every cookie in {path} has expired ({n}); export them again from a "
                    "logged-in browser.",
                    path=cookies,
                    n=self._cookies.expired,
                )
            )
        # The httpx client is made for the first request (``_client``): a run that reads
        # every page from the cache (--offline) or from saved files, or a command that reads
        # no forum, makes none and never imports httpx (~60 ms of a fresh process).
        self._made: httpx.Client | None = None
        self._made_lock = threading.Lock()
        self._closed = False
        self._hosts: dict[str, _Host] = {}
        self._hosts_lock = threading.Lock()
        self._guest_sites: set[str] = set()  # sites warned of: read as a guest
        self._said: set[str] = set()  # what say_once said
        # What a run learnt of each board (platform, host), or of one thread of it (platform,
        # host, thread id): how its threads, or that one, are read.
        self.facts: dict[tuple[str, ...], tuple[str, str | None]] = {}
        # Requests sent so far, robots.txt and retries included (tally watch reports them).
        self.requests = 0

    def __enter__(self) -> Http:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._made_lock:
            self._closed = True
            if self._made is not None:
                self._made.close()

    @property
    def _client(self) -> httpx.Client:
        """The run's one httpx client, made at the first request (the requests of a read's
        threads share it, its connections and limits)."""
        made = self._made
        if made is not None:
            return made
        with self._made_lock:
            if self._made is None:
                if self._closed:  # as httpx says it of a client closed
                    raise RuntimeError("Cannot send a request, as the client has been closed.")
                self._made = self._new_client()
            return self._made

    def _new_client(self) -> httpx.Client:
        return new_client(self.options, self._cookies.jar if self._cookies is not None else None)

    def _host(self, url: str) -> _Host:
        key = urlsplit(url).netloc.lower()
        with self._hosts_lock:
            if key not in self._hosts:
                self._hosts[key] = _Host(threading.BoundedSemaphore(self.options.max_in_flight))
                site = site_of(key)
                if (self._cookies is not None and not _covers(self._cookies.domains, key)
                        and site not in self._guest_sites):  # fmt: skip
                    # Once a site: tieba.baidu.com and its API host, a board and its www.,
                    # are one warning (a run said it twice).
                    self._guest_sites.add(site)
                    self._warn(
                        tr(
                            "the cookie file {path} holds no cookie for {site}; tally reads it "
                            "as a guest.",
                            path=self.cookie_file,
                            site=site,
                        )
                    )
            return self._hosts[key]

    @contextmanager
    def _slot(self, url: str) -> Iterator[None]:
        host = self._host(url)
        with host.slots:
            with host.lock:
                wait = host.last + self.options.host_delay - self._clock()
                if wait > 0:
                    self._sleep(wait)
                host.last = self._clock()
            yield

    def get(
        self,
        url: str,
        headers: dict[str, str] | None = None,
        explain: Explain | None = None,
    ) -> Response:
        """GET with retries and redirects; a status that is not retried comes back as it is."""
        return self.request(url, headers=headers, explain=explain)

    def request(
        self,
        url: str,
        *,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        explain: Explain | None = None,
        check: Check | None = None,
        robots: bool = True,
        redirects: bool = True,
    ) -> Response:
        """A GET (or, with ``body``, a POST) with retries and redirects (``redirects=False``:
        the redirect comes back as it is, an interface answering one where it should answer).

        A status that is not retried comes back as it is. ``explain`` turns the body of a
        retried status into tally's own error when the body says why (an anti-scraping
        check answers 503 and will answer it again). ``check`` reads a 200 answer and may
        raise ``TryAgain`` (an API's "too frequent" in a 200) or tally's own error.
        ``robots=False`` skips robots.txt for ``url`` alone, never a redirect's target: the
        board's admin lets tally read it (a board profile's ``comment_pages``).
        """
        for _ in range(MAX_REDIRECTS + 1):
            if self.options.respect_robots and robots:
                self._check_robots(url)
            response = self._retried(url, body, headers, explain, check)
            location = response.headers.get("location")
            if response.status not in REDIRECTS or not location or not redirects:
                return response
            try:
                url = urljoin(url, location.strip())
                urlsplit(url).port  # noqa: B018 - a bad port or IPv6 host raises here
            except ValueError:
                raise FetchError(
                    tr("{url} redirects to an address that is not a URL.", url=url)
                ) from None
            headers = None  # validators belong to the URL first asked for
            robots = True  # leave to read past robots.txt is for the URL asked for alone
            if response.status not in (307, 308):
                body = None  # as browsers do: a POST redirected is a GET
        raise FetchError(
            tr("{url}: more than {most} redirects; tally stops there.", url=url, most=MAX_REDIRECTS)
        )

    def submit(
        self, url: str, body: bytes, headers: dict[str, str], explain: Explain | None = None
    ) -> Response:
        """One POST a person makes (a reply to a thread): sent once, never retried and never
        redirected, since a forum that took it and failed to answer would show it twice. Not
        asked of robots.txt, which speaks to crawlers, not to a member's own form (Discuz!'s
        disallows forum.php?mod=post for them). ``explain`` turns a 5xx answer's body into
        tally's own error."""
        try:
            return self._once(url, headers, explain, body, None, None)
        except _Transient as exc:
            host = urlsplit(url).netloc
            raise FetchError(
                tr(
                    "the post to {host} got no answer ({why}); it may or may not have been "
                    "made: look at the thread before posting again.",
                    host=host,
                    why=exc,
                )
            ) from None

    def say_once(self, sentence: str, to: Callable[[str], None] | None) -> None:
        """``sentence`` said ``to`` once a run however many threads it reads (how a board is
        read: its API off, its pages read instead)."""
        if sentence not in self._said and to is not None:
            self._said.add(sentence)
            to(sentence)

    def cookie(self, name: str, url: str) -> str | None:
        """The value of the cookie ``name`` the cookie file holds for ``url``'s host."""
        if self._cookies is None:
            return None
        host = urlsplit(url).hostname or ""
        for c in self._cookies.jar:
            if c.name == name and c.value and _covers(frozenset({c.domain}), host):
                return c.value
        return None

    def _retried(
        self,
        url: str,
        body: bytes | None,
        headers: dict[str, str] | None,
        explain: Explain | None,
        check: Check | None,
    ) -> Response:
        from tenacity import Retrying, retry_if_exception_type

        begun = self._clock()
        total = self.options.total_deadline
        attempts = max(1, self.options.attempts)
        tries = 0

        def stop(state: RetryCallState) -> bool:
            return state.attempt_number >= attempts or self._clock() - begun >= total

        def wait(state: RetryCallState) -> float:
            # Never past the page's deadline: the last attempt gets what is left.
            return max(0.0, min(self._wait(state), total - (self._clock() - begun)))

        def once(*args: Any) -> Response:
            nonlocal tries
            tries += 1
            return self._once(*args)

        retrying = Retrying(
            stop=stop,
            wait=wait,
            retry=retry_if_exception_type(_Transient),
            sleep=self._sleep,
            reraise=True,
        )
        try:
            return retrying(once, url, headers or {}, explain, body, check, begun)
        except _Transient as exc:
            if exc.unreachable:
                raise FetchError(
                    ntr("{why} (tried {n} time).", "{why} (tried {n} times).", tries, why=exc)
                ) from None
            spent = self._clock() - begun
            if spent >= total:
                raise FetchError(
                    ntr(
                        "could not read {url}: gave up after {n} attempt, {seconds} s in all "
                        "(last: {why}).",
                        "could not read {url}: gave up after {n} attempts, {seconds} s in all "
                        "(last: {why}).",
                        tries,
                        url=url,
                        seconds=format(spent, ".0f"),
                        why=exc,
                    )
                ) from None
            raise FetchError(
                ntr(
                    "could not read {url}: gave up after {n} attempt (last: {why}).",
                    "could not read {url}: gave up after {n} attempts (last: {why}).",
                    tries,
                    url=url,
                    why=exc,
                )
            ) from None

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, _Transient) and exc.retry_after is not None:
            return float(exc.retry_after)
        base = float(self.options.backoff * 2.0 ** (state.attempt_number - 1))
        return base + random.uniform(0, base)  # jitter: directors all run at 21:30

    def _once(
        self,
        url: str,
        headers: dict[str, str],
        explain: Explain | None = None,
        body: bytes | None = None,
        check: Check | None = None,
        begun: float | None = None,
    ) -> Response:
        import_httpx()
        import httpx

        method = "GET" if body is None else "POST"
        with self._slot(url):
            with self._hosts_lock:
                self.requests += 1
            started = self._clock()
            # This attempt's deadline, and what is left of the page's in all.
            limit = self.options.deadline
            if begun is not None:
                limit = min(limit, self.options.total_deadline - (started - begun))
            try:
                with self._client.stream(method, url, headers=headers, content=body) as r:
                    received = self._now()
                    self.clocks.heard(url, r.headers, received)
                    if r.status_code in RETRY_STATUSES:
                        if explain is not None:
                            failed = self._read_body(url, r, started, limit)
                            known = explain(failed, r.headers.get("content-type"))
                            if known is not None:
                                raise known
                        raise _Transient(f"HTTP {r.status_code}", self._retry_after(url, r))
                    answer = self._read_body(url, r, started, limit)
                    if check is not None and r.status_code == 200:
                        try:
                            check(answer)
                        except TryAgain as again:
                            raise _Transient(str(again), again.retry_after) from None
                    return Response(str(r.url), r.status_code, dict(r.headers), answer, received)
            except httpx.TimeoutException as exc:
                raise _Transient(tr("time-out ({kind})", kind=type(exc).__name__)) from None
            except httpx.ConnectError as exc:
                host = urlsplit(url).netloc
                if _NO_SUCH_HOST.search(str(exc)):
                    # A name that does not resolve will not resolve in a second either.
                    raise FetchError(
                        tr("cannot find {host}: no such host name; check the address.", host=host)
                    ) from None
                raise _Transient(
                    tr(
                        "cannot reach {host} ({why}); check the address, and that the forum is up",
                        host=host,
                        why=_why_not(exc),
                    ),
                    unreachable=True,
                ) from None
            except (httpx.NetworkError, httpx.RemoteProtocolError) as exc:
                raise _Transient(f"{type(exc).__name__}: {exc}") from None
            except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
                why = f"{type(exc).__name__}: {exc}"
                raise FetchError(tr("could not read {url} ({why}).", url=url, why=why)) from None

    def _retry_after(self, url: str, r: httpx.Response) -> float | None:
        value = r.headers.get("retry-after")
        if value is None:
            return None
        seconds = retry_after(value, self.clocks.now(url))  # a date by the forum's clock
        if seconds is None:
            return None
        if seconds > self.options.retry_after_ceiling:
            raise FetchError(
                tr(
                    "{url} asks tally to come back in {seconds} s (Retry-After), longer than the "
                    "{most} s tally waits; try again later.",
                    url=url,
                    seconds=format(seconds, ".0f"),
                    most=format(self.options.retry_after_ceiling, ".0f"),
                )
            )
        return seconds

    def _read_body(
        self, url: str, r: httpx.Response, started: float, limit: float | None = None
    ) -> bytes:
        limit = self.options.deadline if limit is None else limit
        encoding = r.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ENCODINGS:
            shown = encoding[:40].encode("ascii", "replace").decode()
            raise FetchError(
                tr(
                    "{url} came back in an encoding tally does not read ({encoding}).",
                    url=url,
                    encoding=shown,
                )
            )
        unpacker = Unpacker(encoding, self.options.max_decoded)
        wire_cap = self.options.max_bytes
        wire = 0
        try:
            for chunk in r.iter_raw():
                wire += len(chunk)
                if wire > wire_cap:
                    raise FetchError(
                        tr(
                            "{url} is larger than {bytes} bytes; tally stops there.",
                            url=url,
                            bytes=format(wire_cap, ","),
                        )
                    )
                if self._clock() - started > limit:
                    raise _Transient(
                        tr(
                            "no whole answer within {seconds} s ({bytes} bytes so far)",
                            seconds=format(limit, ".0f"),
                            bytes=format(wire, ","),
                        )
                    )
                if not unpacker.feed(chunk):
                    raise FetchError(
                        tr(
                            "{url} unpacks to more than {bytes} bytes; tally stops there.",
                            url=url,
                            bytes=format(unpacker.cap, ","),
                        )
                    )
        except zlib.error as exc:
            raise _Transient(
                tr("damaged {encoding} body ({why})", encoding=encoding, why=exc)
            ) from None
        if not unpacker.whole:
            raise _Transient(tr("{encoding} body cut short", encoding=encoding))
        return bytes(unpacker.out)

    def _robots(self, url: str) -> Robots:
        """The robots.txt rules of ``url``'s host, read once per host."""
        host = self._host(url)
        with host.robots_lock:
            if host.robots is None:
                host.robots = self._fetch_robots(url)
            return host.robots

    def allows(self, url: str) -> bool:
        """Whether the host's robots.txt lets tally read ``url`` (always, when robots.txt
        is not respected)."""
        if not self.options.respect_robots:
            return True
        parts = urlsplit(url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        return self._robots(url).allows(path or "/")

    def _check_robots(self, url: str) -> None:
        if not self.allows(url):
            raise FetchError(
                tr(
                    "the forum's robots.txt does not allow tally to read {url}; save the pages "
                    "from a browser and run tally on the saved files.",
                    url=url,
                )
            )

    def crawl_delay(self, url: str) -> float | None:
        """The seconds the forum's robots.txt asks between requests, if it asks."""
        if not self.options.respect_robots:
            return None
        return self._robots(url).crawl_delay

    def _fetch_robots(self, url: str) -> Robots:
        parts = urlsplit(url)
        robots_url = f"{parts.scheme}://{parts.netloc}/robots.txt"
        try:
            got = self._once(robots_url, {})
            text = got.body.decode("utf-8", "replace") if got.status == 200 else ""
        except (_Transient, FetchError):
            text = ""  # no answer about robots.txt is no rule; the page request will tell
        return Robots(text, "tally")
