"""A small forum on 127.0.0.1 that serves saved thread pages, for `tally demo` and the tests.

It answers the URL forms a real Discuz! answers (``forum.php?mod=viewthread&tid=N&page=P``
and ``thread-N-P-1.html``) with the pages it was given, and records every request so
that tests can count them. Nothing here reaches beyond loopback.
"""

from __future__ import annotations

import contextlib
import email.utils
import re
import selectors
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qs, urlsplit


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(
        default_factory=lambda: {"Content-Type": "text/html; charset=utf-8"}
    )
    # Faults for the tests: "reset" drops the connection with a TCP reset before answering;
    # "no-length" sends the body without Content-Length and closes, as old servers do;
    # "trickle" sends the body a byte at a time, ``interval`` seconds apart; "endless" sends
    # chunks of the body, chunked, ``interval`` seconds apart, and never ends.
    fault: str | None = None
    interval: float = 0.05
    delay: float = 0.0  # seconds to wait before answering (a slow forum, a time-out)


# A hook may answer a request itself (fault injection); None lets the routes answer.
Hook = Callable[[str], Reply | None]
# Answers a POST (path and query, request headers, body): an API double.
PostHook = Callable[[str, dict[str, str], bytes], Reply]
# Answers any request (path and query, headers with lower-case names, the body or None for
# a GET) or lets the routes answer (None): a board whose pages depend on who asks.
RequestHook = Callable[[str, dict[str, str], bytes | None], Reply | None]
_REWRITE = re.compile(r"^/thread-(\d+)-(\d+)-\d+\.html$")


def route_key(path_and_query: str) -> str:
    """The canonical key of a request: Discuz! thread URLs in every form map to one key."""
    parts = urlsplit(path_and_query)
    query = parse_qs(parts.query)
    # forum.php?mod=viewthread (X), viewthread.php (Discuz! 6/7)
    if (
        parts.path.endswith("/forum.php") and query.get("mod") == ["viewthread"]
    ) or parts.path.endswith("/viewthread.php"):
        tid = query.get("tid", [""])[0]
        page = query.get("page", ["1"])[0]
        return f"discuz:{tid}:{page}"
    m = _REWRITE.match(parts.path)
    if m:
        return f"discuz:{m.group(1)}:{m.group(2)}"
    return path_and_query.lstrip("/")


class LocalForum:
    """``with LocalForum() as forum: forum.add_discuz_thread(...); forum.url(...)``.

    ``port`` is the port it serves on, 0 for any that is free; a port taken is an OSError
    at ``start``."""

    def __init__(self, port: int = 0) -> None:
        self._port = port
        self.routes: dict[str, Reply] = {}
        self.requests: list[str] = []
        self.request_headers: list[dict[str, str]] = []
        self.hook: Hook | None = None
        self.post_hook: PostHook | None = None
        self.request_hook: RequestHook | None = None
        # The forum's clock, sent as each answer's Date header; None (or None from it): no
        # Date, as tally learns the forum's clock from it (the tests run on a clock of
        # their own, the saved pages were made long ago).
        self.clock: Callable[[], datetime | None] | None = None
        # Seconds added to every answer (a busy forum), and how many were served at once.
        self.latency = 0.0
        self.in_flight = 0
        self.max_in_flight = 0
        self.not_found: Reply = Reply(404, b"not found", {"Content-Type": "text/plain"})
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._wake: socket.socket | None = None  # written to by stop(): the loop ends at once

    @property
    def page_requests(self) -> list[str]:
        """The requests made, robots.txt and the probes of a board's mobile interface left
        out (a thread's first floor, asked once a run of a board: ``tally.forums.api``; its
        check, before a post)."""
        probes = ("module=check", "&page=1&ppp=1&")
        return [r for r in self.requests if r != "/robots.txt" and not any(p in r for p in probes)]

    # -- content -----------------------------------------------------------------
    def add(self, path_and_query: str, reply: Reply) -> None:
        self.routes[route_key(path_and_query)] = reply

    def add_discuz_page(
        self,
        tid: str,
        page: int,
        body: bytes,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
    ) -> None:
        reply = Reply(status, body) if headers is None else Reply(status, body, headers)
        self.routes[f"discuz:{tid}:{page}"] = reply

    def add_discuz_thread(self, tid: str, folder: Path, stem: str) -> int:
        """Serve ``{stem}-p1.html``, ``{stem}-p2.html``… from ``folder`` as thread ``tid``."""
        pages = sorted(folder.glob(f"{stem}-p*.html"), key=lambda p: int(p.stem.rsplit("-p", 1)[1]))
        for path in pages:
            number = int(path.stem.rsplit("-p", 1)[1])
            self.add_discuz_page(tid, number, path.read_bytes())
        return len(pages)

    # -- server ------------------------------------------------------------------
    @property
    def base(self) -> str:
        if self._server is None:
            raise RuntimeError("the local forum is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/"

    def url(self, path_and_query: str) -> str:
        return self.base + path_and_query.lstrip("/")

    def start(self) -> LocalForum:
        self._server = _Server(self, self._port)
        self._server.daemon_threads = True
        self._server.timeout = 0  # handle_request is asked only when a client waits
        self._wake, woken = socket.socketpair()
        self._thread = threading.Thread(target=_serve, args=(self._server, woken), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            assert self._wake is not None and self._thread is not None
            self._wake.send(b"x")
            self._thread.join()
            self._wake.close()
            self._wake = None
            self._server.server_close()
            self._server = None

    def __enter__(self) -> LocalForum:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class _Handler(BaseHTTPRequestHandler):
    """Answers a request from the routes and hooks of the server's LocalForum."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: with Nagle's algorithm and delayed ACKs
    # each answer waited ~40 ms on loopback.
    disable_nagle_algorithm = True

    @property
    def forum(self) -> LocalForum:
        assert isinstance(self.server, _Server)
        return self.server.forum

    def send_response(self, code: int, message: str | None = None) -> None:
        # As the standard one, with the Date of the forum's own clock, or none.
        self.log_request(code)
        self.send_response_only(code, message)
        self.send_header("Server", self.version_string())
        clock = self.forum.clock
        when = clock() if clock is not None else None
        if when is not None:
            date = email.utils.format_datetime(when.astimezone(UTC), usegmt=True)
            self.send_header("Date", date)

    def do_GET(self) -> None:
        self._serve(None)

    def do_POST(self) -> None:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            body = b""
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                body += self.rfile.read(size)
                self.rfile.readline()
            self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._serve(body)

    def _serve(self, body: bytes | None) -> None:
        forum = self.forum
        with forum._lock:
            forum.requests.append(self.path)
            forum.request_headers.append(dict(self.headers.items()))
            forum.in_flight += 1
            forum.max_in_flight = max(forum.max_in_flight, forum.in_flight)
        try:
            if forum.latency:
                time.sleep(forum.latency)
            self._answer(body)
        finally:
            with forum._lock:
                forum.in_flight -= 1

    def _answer(self, posted: bytes | None) -> None:
        forum = self.forum
        reply = forum.hook(self.path) if forum.hook else None
        if reply is None and forum.request_hook is not None:
            asked = {k.lower(): v for k, v in self.headers.items()}
            reply = forum.request_hook(self.path, asked, posted)
        if reply is None and posted is not None:
            headers = {k.lower(): v for k, v in self.headers.items()}
            reply = forum.post_hook(self.path, headers, posted) if forum.post_hook else None
        if reply is None:
            reply = forum.routes.get(route_key(self.path), forum.not_found)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.fault == "reset":
            # SO_LINGER 0: close() sends RST, the client sees "connection reset".
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return
        if reply.fault in ("trickle", "endless"):
            self._slowly(reply)
            return
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.fault == "no-length":
            self.send_header("Connection", "close")
            self.close_connection = True
        elif not any(h.lower() == "content-length" for h in reply.headers):
            self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        # The client may stop reading (a size cap): then there is nothing to answer.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(reply.body)

    def _slowly(self, reply: Reply) -> None:
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        endless = reply.fault == "endless"
        if endless:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        self.close_connection = True
        # Until the client hangs up (its deadline), or the body is sent.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError, OSError):
            position = 0
            while self.forum._server is not None:
                if endless:
                    piece = reply.body[:64] or b"x"
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                elif position < len(reply.body):
                    self.wfile.write(reply.body[position : position + 1])
                    position += 1
                else:
                    return
                self.wfile.flush()
                time.sleep(reply.interval)

    def log_message(self, format: str, *args: object) -> None:
        pass  # the tests and the demo print what matters themselves


class _Server(ThreadingHTTPServer):
    """The server of one LocalForum, which its handlers answer from."""

    # A port asked for and held by another server is an error, never shared with it
    # (HTTPServer lets the port be bound again while its last connections close).
    allow_reuse_port = False

    def __init__(self, forum: LocalForum, port: int) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.forum = forum

    def handle_error(self, request: object, client_address: object) -> None:
        # A client that stops reading (tally's size caps, time-outs in the tests)
        # is expected here; the default prints a traceback for it.
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


def _serve(server: ThreadingHTTPServer, woken: socket.socket) -> None:
    """``serve_forever`` without its poll: serve_forever looks for a shutdown every
    poll_interval, so each stop waited half of one (5 ms, the tests start and stop hundreds
    of forums); this loop sleeps until a client connects or ``stop`` writes to ``woken``."""
    with selectors.DefaultSelector() as selector, woken:
        selector.register(server, selectors.EVENT_READ)
        selector.register(woken, selectors.EVENT_READ)
        while True:
            ready = [key.fileobj for key, _ in selector.select()]
            if woken in ready:
                return
            server.handle_request()
