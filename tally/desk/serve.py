"""Where the desk listens: 127.0.0.1 only, on ``--port`` or a free port (`tally desk` itself
is ``tally.commands.desk``)."""

from __future__ import annotations

import socket
from typing import Protocol

from tally.errors import InputError

HOST = "127.0.0.1"  # never another interface: the desk posts as the director


class Shows(Protocol):
    def note(self, message: str) -> None: ...

    def text(self, text: str) -> None: ...


def bind(port: int | None) -> socket.socket:
    """A listening socket on 127.0.0.1: ``port``, or one the system picks."""
    # IPPROTO_TCP named, not 0: asyncio turns Nagle's algorithm off only on a connection
    # whose socket says TCP (base_events._set_nodelay), and a response's body written after
    # its head then waited for the browser's delayed ACK: 40 ms a request on a kept-alive
    # connection (measured on loopback: 44 ms a page, 6 ms with it).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port or 0))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {HOST}:{port} ({exc.strerror}): give another "
                         "--port, or none for a free one.") from None  # fmt: skip
    sock.listen(64)
    sock.set_inheritable(True)
    return sock
