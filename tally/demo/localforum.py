"""A small forum on 127.0.0.1 that serves saved thread pages, for `tally demo` and the tests.

It answers the URL forms a real Discuz! answers (``forum.php?mod=viewthread&tid=N&page=P``
and ``thread-N-P-1.html``) with the pages it was given, and records every request so
that tests can count them. Nothing here reaches beyond loopback.
"""

from __future__ import annotations

import _thread
import contextlib
import email.utils
import re
import selectors
import socket
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http import HTTPStatus
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
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._wake: socket.socket | None = None  # written to by stop(): the loop ends at once

    @property
    def page_requests(self) -> list[str]:
        """The requests made, robots.txt and the probe of a board's mobile interface left
        out (a thread's first floor, asked once a run of a board, ``tally.forums.api``, and
        as the form before a post, ``tally.forums.discuz.mobile_reply``)."""
        return [r for r in self.requests if r != "/robots.txt" and "&page=1&ppp=1&" not in r]

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
        self._wake, woken = socket.socketpair()
        self._thread = threading.Thread(target=self._server.serve, args=(woken,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            assert self._wake is not None and self._thread is not None
            self._wake.send(b"x")
            self._thread.join()
            self._wake.close()
            self._wake = None
            self._server.close()
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


# The status line's words, as http.server wrote them ("" for a code it does not know).
_REASONS = {int(s): s.phrase for s in HTTPStatus}
_SERVER = f"BaseHTTP/0.6 Python/{sys.version.split()[0]}"  # as http.server named itself
# The Connection header's two tokens (HTTP's words, not tally's).
_CLOSE, _KEEP_ALIVE = "close", "keep-alive"
_HEAD_CAP = 1 << 20  # a request's line and headers: past this the client is hung up on


class _Closed(Exception):
    """The client hung up (or sent what no HTTP client sends): the connection ends."""


class _Server:
    """The listening socket of one LocalForum. Each connection is answered on a thread of
    its own (a busy forum answers several at once), read and written with plain socket
    calls. http.server's handler parsed each request's headers with the email package and
    wrote its headers and body apart, and socketserver looked up the host's name at each
    start and ran each connection through its mixins: ~40-90 µs more CPU a request, and
    ~250 µs more a connection (the quick loop's tests make ~6,500 requests on ~1,500)."""

    def __init__(self, forum: LocalForum, port: int) -> None:
        self.forum = forum
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            # The port of a forum that has stopped (its connections in TIME_WAIT) may be
            # bound again; a port another server listens on may not (no SO_REUSEPORT).
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind(("127.0.0.1", port))
            self.socket.listen(64)
        except OSError:
            self.socket.close()
            raise
        self.server_address: tuple[str, int] = self.socket.getsockname()

    def serve(self, woken: socket.socket) -> None:
        """Accepts until ``stop`` writes to ``woken``, at once (no poll interval: the tests
        start and stop hundreds of forums)."""
        with selectors.DefaultSelector() as selector, woken:
            selector.register(self.socket, selectors.EVENT_READ)
            selector.register(woken, selectors.EVENT_READ)
            while True:
                ready = [key.fileobj for key, _ in selector.select()]
                if woken in ready:
                    return
                try:
                    conn, _ = self.socket.accept()
                except OSError:
                    continue  # the client gave up before it was accepted
                _thread.start_new_thread(_Connection(self.forum, conn).run, ())

    def close(self) -> None:
        self.socket.close()


class _Connection:
    """One client's connection: its requests in turn (HTTP/1.1 keeps it open), each
    answered from the routes and hooks of the LocalForum."""

    def __init__(self, forum: LocalForum, conn: socket.socket) -> None:
        self.forum = forum
        self.conn = conn
        self.buffer = b""
        self.close_connection = False
        # Headers and body go out in one write, and nothing waits on Nagle's algorithm
        # (with delayed ACKs each answer once waited ~40 ms on loopback).
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def run(self) -> None:
        try:
            while not self.close_connection:
                self.close_connection = True  # unless the request keeps it open
                self._one_request()
        except (_Closed, ConnectionError, TimeoutError):
            pass  # a client that stops reading (tally's size caps, time-outs in the tests)
        except Exception:
            traceback.print_exc()  # a hook's own error: seen, as socketserver printed it
        finally:
            with contextlib.suppress(OSError):
                self.conn.shutdown(socket.SHUT_WR)
            self.conn.close()

    # -- reading -----------------------------------------------------------------
    def _more(self) -> None:
        chunk = self.conn.recv(65536)
        if not chunk:
            raise _Closed
        self.buffer += chunk

    def _until(self, mark: bytes) -> bytes:
        while (end := self.buffer.find(mark)) < 0:
            if len(self.buffer) > _HEAD_CAP:
                raise _Closed
            self._more()
        return self._take(end, len(mark))

    def _exactly(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self._more()
        return self._take(size, 0)

    def _take(self, size: int, skip: int) -> bytes:
        text, self.buffer = self.buffer[:size], self.buffer[size + skip :]
        return text

    def _one_request(self) -> None:
        head = self._until(b"\r\n\r\n").decode("iso-8859-1").split("\r\n")
        words = head[0].split()
        if len(words) != 3 or not words[2].startswith("HTTP/"):
            raise _Closed
        method, path, version = words
        if path.startswith("//"):  # as http.server: a path, never a scheme-relative URL
            path = "/" + path.lstrip("/")
        headers: list[tuple[str, str]] = []
        for line in head[1:]:
            if line[:1] in (" ", "\t") and headers:  # a folded line continues the last
                headers[-1] = (headers[-1][0], headers[-1][1] + "\r\n" + line)
            else:
                name, _, value = line.partition(":")
                headers.append((name, value.lstrip(" \t")))
        said = {name.lower(): value for name, value in reversed(headers)}  # the first wins
        connection = said.get("connection", "").lower()
        self.close_connection = connection == _CLOSE or (
            version != "HTTP/1.1" and connection != _KEEP_ALIVE
        )
        if said.get("expect", "").lower() == "100-continue" and version == "HTTP/1.1":
            self.conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        if method == "GET":
            self._serve(path, headers, None)
        elif method == "POST":
            self._serve(path, headers, self._body(said))
        else:
            self.close_connection = True
            self._send(b"%s 501 Not Implemented\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
                       % version.encode())  # fmt: skip

    def _body(self, said: dict[str, str]) -> bytes:
        if "chunked" not in said.get("transfer-encoding", "").lower():
            return self._exactly(int(said.get("content-length") or 0))
        body = b""
        while size := int(self._until(b"\r\n").split(b";")[0].strip() or b"0", 16):
            body += self._exactly(size)
            self._until(b"\r\n")
        while self._until(b"\r\n"):  # the trailer, to its empty line
            pass
        return body

    # -- answering ---------------------------------------------------------------
    def _serve(self, path: str, headers: list[tuple[str, str]], body: bytes | None) -> None:
        forum = self.forum
        with forum._lock:
            forum.requests.append(path)
            forum.request_headers.append(dict(headers))
            forum.in_flight += 1
            forum.max_in_flight = max(forum.max_in_flight, forum.in_flight)
        try:
            if forum.latency:
                time.sleep(forum.latency)
            self._answer(path, headers, body)
        finally:
            with forum._lock:
                forum.in_flight -= 1

    def _answer(self, path: str, headers: list[tuple[str, str]], posted: bytes | None) -> None:
        forum = self.forum
        reply = forum.hook(path) if forum.hook else None
        if reply is None and (forum.request_hook is not None or posted is not None):
            asked = {k.lower(): v for k, v in headers}
            if forum.request_hook is not None:
                reply = forum.request_hook(path, asked, posted)
            if reply is None and posted is not None and forum.post_hook is not None:
                reply = forum.post_hook(path, asked, posted)
        if reply is None:
            reply = forum.routes.get(route_key(path), forum.not_found)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.fault == "reset":
            # SO_LINGER 0: close() sends RST, the client sees "connection reset".
            self.conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.conn.close()
            raise _Closed
        if reply.fault in ("trickle", "endless"):
            self._slowly(reply)
            return
        if reply.fault == "no-length":
            self.close_connection = True
            length = ["Connection: close"]
        elif any(h.lower() == "content-length" for h in reply.headers):
            length = []
        else:
            length = [f"Content-Length: {len(reply.body)}"]
        # The client may stop reading (a size cap): then there is nothing to answer.
        self._send(self._head(reply, *length) + reply.body)

    def _head(self, reply: Reply, *more: str) -> bytes:
        """The status line, the server's own headers (the Date of the forum's own clock, or
        none), the reply's and ``more``."""
        lines = [f"HTTP/1.1 {reply.status} {_REASONS.get(reply.status, '')}", f"Server: {_SERVER}"]
        clock = self.forum.clock
        when = clock() if clock is not None else None
        if when is not None:
            lines.append(f"Date: {email.utils.format_datetime(when.astimezone(UTC), usegmt=True)}")
        lines.extend(f"{name}: {value}" for name, value in reply.headers.items())
        return ("\r\n".join([*lines, *more]) + "\r\n\r\n").encode("latin-1", "strict")

    def _send(self, data: bytes) -> None:
        try:
            self.conn.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            raise _Closed from None

    def _slowly(self, reply: Reply) -> None:
        endless = reply.fault == "endless"
        length = "Transfer-Encoding: chunked" if endless else f"Content-Length: {len(reply.body)}"
        self.close_connection = True
        # Until the client hangs up (its deadline), or the body is sent.
        with contextlib.suppress(OSError, _Closed):
            self._send(self._head(reply, length))
            position = 0
            while self.forum._server is not None:
                if endless:
                    piece = reply.body[:64] or b"x"
                    self._send(b"%x\r\n%s\r\n" % (len(piece), piece))
                elif position < len(reply.body):
                    self._send(reply.body[position : position + 1])
                    position += 1
                else:
                    return
                time.sleep(reply.interval)
