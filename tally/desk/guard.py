"""Who may use the desk: the browser the director opened with the address tally printed.

Every request must name the desk's own address in its Host (a DNS-rebinding page names its
own) and carry the token: in the address of the first visit (then moved to an HttpOnly,
SameSite=Strict cookie, and the address without it), or the cookie after. A request that
changes anything must be a POST whose Origin (or, without one, Referer) is the desk's own
and which carries the token itself (the X-Tally-Token header or a ``token`` form field):
a cookie alone, which a browser attaches for any page, is not enough.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs, urlencode

from tally.i18n import tr

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE = ("GET", "HEAD")
MAX_FORM = 64 * 1024  # a card or a Post: a few hundred bytes


def new_token() -> str:
    return secrets.token_urlsafe(24)


def cookie_name(port: int) -> str:
    # Cookies are per host, not per port: two desks at once keep a cookie each.
    return f"tally-desk-{port}"


class Guard:
    def __init__(self, app: ASGIApp, token: str, port: int):
        self.app, self.token, self.port = app, token, port
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{h}" for h in self.hosts}

    def _is(self, given: str | None) -> bool:
        return given is not None and secrets.compare_digest(given.encode(), self.token.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        method = scope["method"]
        if headers.get("host") not in self.hosts:
            await _refuse(send, tr("this desk answers only at its own address (127.0.0.1)."))
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        in_address = next(iter(query.get("token", [])), None)
        cookie = _cookies(headers.get("cookie", "")).get(cookie_name(self.port))
        if method in SAFE and self._is(in_address):
            rest = {k: v for k, v in query.items() if k != "token"}
            where = scope["path"] + (f"?{urlencode(rest, doseq=True)}" if rest else "")
            await _moved(send, where, self.token, self.port)
            return
        if not self._is(cookie):
            await _refuse(send, _no_key(cookie if cookie is not None else in_address))
            return
        if method in SAFE:
            await self.app(scope, receive, send)
            return
        await self._change(scope, headers, receive, send)

    async def _change(self, scope: Scope, headers: dict[str, str], receive: Receive,
                      send: Send) -> None:  # fmt: skip
        """A request that changes something, the cookie's key checked: a POST from the
        desk's own page that carries the key itself; its body read and handed on."""
        if scope["method"] != "POST":
            await _refuse(send, tr("the desk changes things by POST only."), 405)
            return
        origin = headers.get("origin")
        referer = headers.get("referer", "")
        if origin is not None:
            same = origin in self.origins
        else:
            same = any(referer.startswith(o + "/") for o in self.origins)
        if not same:
            await _refuse(send, tr("a request from another page than the desk's: refused."))
            return
        body = await _body(receive)
        if body is None:
            await _refuse(send, tr("the form is too large."), 413)
            return
        given = headers.get("x-tally-token")
        if given is None and headers.get("content-type", "").startswith(
            "application/x-www-form-urlencoded"
        ):
            given = next(iter(parse_qs(body.decode("utf-8", "replace")).get("token", [])), None)
        if given is None:
            await _refuse(send, tr("the request carries no desk key: refused."))
            return
        if not self._is(given):
            await _refuse(send, tr("the request carries a wrong desk key: refused."))
            return
        await self.app(scope, _replay(body, receive), send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """The request's body, read by the guard, given to the app as if read for the first
    time; then whatever else the server says (a disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _no_key(given: str | None) -> str:
    """Why a request without the right key is refused: no key, or a wrong one (an address
    or a cookie from an earlier run of the desk, which has a new key each time)."""
    if given is None:
        return tr("no desk key: open the address tally desk printed (the key is in it).")
    return tr("wrong desk key: it is not the key of the desk running here (each start of tally "
              "desk makes a new one); open the address tally desk printed last.")


def _cookies(header: str) -> dict[str, str]:
    found = {}
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name:
            found[name] = value
    return found


async def _body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_FORM:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _refuse(send: Send, sentence: str, status: int = 403) -> None:
    body = (tr("refused: {why}", why=sentence) + "\n").encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
    ]})  # fmt: skip
    await send({"type": "http.response.body", "body": body})


async def _moved(send: Send, where: str, token: str, port: int) -> None:
    cookie = f"{cookie_name(port)}={token}; HttpOnly; SameSite=Strict; Path=/"
    await send({"type": "http.response.start", "status": 303, "headers": [
        (b"location", where.encode("latin-1", "replace")),
        (b"set-cookie", cookie.encode()),
        (b"cache-control", b"no-store"),
        (b"content-length", b"0"),
    ]})  # fmt: skip
    await send({"type": "http.response.body", "body": b""})
