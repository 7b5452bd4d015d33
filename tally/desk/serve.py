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
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
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
