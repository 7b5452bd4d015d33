"""HTTP as a busy forum at closing time needs it: polite, retried, bounded.

- at most ``max_in_flight`` requests to one host at once, and a small gap between them;
- 408, 429, 5xx, time-outs, resets and bodies cut short are retried with exponential
  backoff and jitter (tenacity), honouring ``Retry-After`` up to a ceiling;
- the body is read in a stream and decompressed by hand so that neither the bytes on
  the wire nor the decompressed bytes can pass their caps (a gzip bomb stops at the cap);
- robots.txt is respected for the paths tally asks for;
- cookies from a Netscape cookie file go only to their own domain, and are never printed.
"""

from __future__ import annotations

import email.utils
import os
import random
import re
import stat
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.cookiejar import LoadError, MozillaCookieJar
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from tally import __version__
from tally.errors import FetchError, InputError, TallyError

USER_AGENT = f"tally/{__version__} (forum werewolf vote counter)"
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
# Reads a failed answer's body (and its content type) and says what it means, if it can.
Explain = Callable[[bytes, "str | None"], "TallyError | None"]


@dataclass(frozen=True)
class HttpOptions:
    timeout: float = 30.0
    # Forums throttle guests hard at closing time: never more than this at once per host.
    max_in_flight: int = 4
    # Seconds between the starts of two requests to one host.
    host_delay: float = 0.025
    attempts: int = 4
    backoff: float = 0.5
    # A Retry-After longer than this aborts: the director would rather know now.
    retry_after_ceiling: float = 120.0
    max_bytes: int = 16 * 2**20  # on the wire
    max_decoded: int = 64 * 2**20  # after gzip/deflate
    user_agent: str = USER_AGENT
    respect_robots: bool = True
    cookies: Path | None = None


@dataclass(frozen=True)
class Response:
    url: str
    status: int
    headers: dict[str, str]
    body: bytes


class _Transient(Exception):
    """A failure worth another try."""

    def __init__(self, why: str, retry_after: float | None = None):
        super().__init__(why)
        self.retry_after = retry_after


def load_cookies(path: Path) -> MozillaCookieJar:
    """A browser-exported cookie file; refused when others may read it."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError(f"{path}: no such cookie file.") from None
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InputError(
            f"{path} can be read by other users and holds your login; run: chmod 600 {path}"
        )
    jar = MozillaCookieJar(str(path))
    try:
        jar.load(ignore_discard=True, ignore_expires=True)
    except (LoadError, OSError) as exc:
        raise InputError(f"{path} is not a Netscape cookie file ({exc}).") from None
    return jar


class Robots:
    """robots.txt rules for one host, with the * and $ wildcards search engines accept."""

    def __init__(self, text: str, agent: str = "tally"):
        groups: list[tuple[list[str], list[tuple[bool, str]]]] = []
        agents: list[str] = []
        rules: list[tuple[bool, str]] = []
        for raw in text.splitlines():
            line = raw.split("#", 1)[0].strip()
            if ":" not in line:
                continue
            key, value = (part.strip() for part in line.split(":", 1))
            key = key.lower()
            if key == "user-agent":
                if rules:
                    groups.append((agents, rules))
                    agents, rules = [], []
                agents.append(value.lower())
            elif key in ("allow", "disallow") and agents and value:
                # An empty Disallow allows everything: it adds no rule.
                rules.append((key == "allow", value))
        if agents:
            groups.append((agents, rules))
        mine = [r for a, r in groups if any(x != "*" and x in agent.lower() for x in a)]
        if not mine:
            mine = [r for a, r in groups if "*" in a]
        self.rules = [rule for group in mine for rule in group]

    def allows(self, path_and_query: str) -> bool:
        best: tuple[int, bool] = (-1, True)
        for allow, pattern in self.rules:
            if not pattern:
                continue
            regex = re.escape(pattern).replace(r"\*", ".*")
            if regex.endswith(r"\$"):
                regex = regex[:-2] + "$"
            # The longest matching rule wins; on a tie, Allow does.
            longer = len(pattern) > best[0] or (len(pattern) == best[0] and allow)
            if longer and re.match(regex, path_and_query):
                best = (len(pattern), allow)
        return best[1]


@dataclass
class _Host:
    slots: threading.BoundedSemaphore
    lock: threading.Lock = field(default_factory=threading.Lock)
    last: float = float("-inf")
    robots: Robots | None = None
    robots_lock: threading.Lock = field(default_factory=threading.Lock)


class Http:
    """The one place tally talks HTTP. Thread-safe; use as a context manager."""

    def __init__(
        self,
        options: HttpOptions | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.options = options or HttpOptions()
        if self.options.max_in_flight < 1:
            raise InputError("at least one request must be allowed in flight.")
        self._sleep, self._clock = sleep, clock
        jar = load_cookies(self.options.cookies) if self.options.cookies else None
        self._client = httpx.Client(
            headers={"User-Agent": self.options.user_agent, "Accept-Encoding": "gzip, deflate"},
            timeout=self.options.timeout,
            follow_redirects=True,
            cookies=jar,
            limits=httpx.Limits(max_connections=self.options.max_in_flight * 4),
        )
        self._hosts: dict[str, _Host] = {}
        self._hosts_lock = threading.Lock()

    def __enter__(self) -> Http:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def _host(self, url: str) -> _Host:
        key = urlsplit(url).netloc.lower()
        with self._hosts_lock:
            if key not in self._hosts:
                self._hosts[key] = _Host(threading.BoundedSemaphore(self.options.max_in_flight))
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
        """GET with retries; any status that is not retried comes back to the caller.

        ``explain`` turns the body of a retried status into tally's own error when the body
        says why (an anti-scraping check answers 503 and will answer it again).
        """
        if self.options.respect_robots:
            self._check_robots(url)
        retrying = Retrying(
            stop=stop_after_attempt(max(1, self.options.attempts)),
            wait=self._wait,
            retry=retry_if_exception_type(_Transient),
            sleep=self._sleep,
            reraise=True,
        )
        try:
            return retrying(self._once, url, headers or {}, explain)
        except _Transient as exc:
            raise FetchError(
                f"could not read {url}: gave up after {self.options.attempts} attempts "
                f"(last: {exc})."
            ) from None

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, _Transient) and exc.retry_after is not None:
            return float(exc.retry_after)
        base = float(self.options.backoff * 2.0 ** (state.attempt_number - 1))
        return base + random.uniform(0, base)  # jitter: directors all run at 21:30

    def _once(self, url: str, headers: dict[str, str], explain: Explain | None = None) -> Response:
        with self._slot(url):
            try:
                with self._client.stream("GET", url, headers=headers) as r:
                    if r.status_code in RETRY_STATUSES:
                        if explain is not None:
                            known = explain(self._read_body(url, r), r.headers.get("content-type"))
                            if known is not None:
                                raise known
                        raise _Transient(f"HTTP {r.status_code}", self._retry_after(url, r))
                    body = self._read_body(url, r)
                    return Response(str(r.url), r.status_code, dict(r.headers), body)
            except httpx.TimeoutException as exc:
                raise _Transient(f"time-out ({type(exc).__name__})") from None
            except (httpx.NetworkError, httpx.RemoteProtocolError) as exc:
                raise _Transient(f"{type(exc).__name__}: {exc}") from None
            except httpx.HTTPError as exc:
                raise FetchError(f"could not read {url} ({type(exc).__name__}: {exc}).") from None

    def _retry_after(self, url: str, r: httpx.Response) -> float | None:
        value = r.headers.get("retry-after")
        if value is None:
            return None
        seconds: float
        if value.strip().isdigit():
            seconds = float(value.strip())
        else:
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError):
                return None
            seconds = max(0.0, (when - datetime.now(UTC)).total_seconds())
        if seconds > self.options.retry_after_ceiling:
            raise FetchError(
                f"{url} asks tally to come back in {seconds:.0f} s (Retry-After), longer than "
                f"the {self.options.retry_after_ceiling:.0f} s tally waits; try again later."
            )
        return seconds

    def _read_body(self, url: str, r: httpx.Response) -> bytes:
        encoding = r.headers.get("content-encoding", "identity").strip().lower()
        if encoding in ("identity", ""):
            decoder = None
        elif encoding in ("gzip", "x-gzip"):
            decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            decoder = zlib.decompressobj(32 + zlib.MAX_WBITS)  # zlib or raw, as servers send
        else:
            raise FetchError(f"{url} came back in an encoding tally does not read ({encoding}).")
        cap, wire_cap = self.options.max_decoded, self.options.max_bytes
        out = bytearray()
        wire = 0
        try:
            for chunk in r.iter_raw():
                wire += len(chunk)
                if wire > wire_cap:
                    raise FetchError(f"{url} is larger than {wire_cap:,} bytes; tally stops there.")
                if decoder is None:
                    out += chunk
                else:
                    data = chunk
                    while data:
                        # Never more than the cap at once: a bomb is cut off in bounded memory.
                        piece = decoder.decompress(data, cap - len(out) + 1)
                        out += piece
                        if len(out) > cap:
                            break
                        data = decoder.unconsumed_tail
                if len(out) > cap:
                    raise FetchError(
                        f"{url} unpacks to more than {cap:,} bytes; tally stops there."
                    )
        except zlib.error as exc:
            raise _Transient(f"damaged {encoding} body ({exc})") from None
        if decoder is not None and not decoder.eof:
            raise _Transient(f"{encoding} body cut short")
        return bytes(out)

    def _check_robots(self, url: str) -> None:
        host = self._host(url)
        with host.robots_lock:
            if host.robots is None:
                host.robots = self._fetch_robots(url)
        parts = urlsplit(url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        if not host.robots.allows(path or "/"):
            raise FetchError(
                f"the forum's robots.txt does not allow tally to read {url}; save the pages "
                "from a browser and run tally on the saved files."
            )

    def _fetch_robots(self, url: str) -> Robots:
        parts = urlsplit(url)
        robots_url = f"{parts.scheme}://{parts.netloc}/robots.txt"
        try:
            got = self._once(robots_url, {})
            text = got.body.decode("utf-8", "replace") if got.status == 200 else ""
        except (_Transient, FetchError):
            text = ""  # no answer about robots.txt is no rule; the page request will tell
        return Robots(text, "tally")
