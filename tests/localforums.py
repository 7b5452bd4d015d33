"""Local forums for the tests, each on the lowest of this worker's ports that is free.

tally keeps a page it parsed by the page's text and its address (``Pages.parse_page``), so a
test that serves a page at the address a test before it served the same text reads it
without parsing it again. On a port of its own each forum was a new address: each worker of
the quick loop parsed ~1,100 of its ~3,000 pages again, the same fixture at the same path
on another port, 0.7 s of its CPU. A page is parsed as before wherever its text or its
address is new (the first test to serve a fixture, every page a test makes).

The ports lie below the system's ephemeral range (Linux: 32768 and up), so no connection
takes one; a port another process serves on is passed over, and with every port taken a
forum takes any free one.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from tally.demo.localforum import LocalForum

FIRST_PORT = 21000
PER_WORKER = 100  # a test holds a few forums at once; past a hundred, any free port


def ports(worker: str | None = None) -> range:
    """This process's ports: pytest-xdist's worker gwN (or the single process) takes its own
    hundred, so two workers never try the same one."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "") if worker is None else worker
    index = int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0
    start = FIRST_PORT + PER_WORKER * index
    return range(start, min(start + PER_WORKER, 32768))


_HELD: set[int] = set()  # the ports of this process's forums still serving
_LOCK = threading.Lock()


def _start_on_a_port() -> tuple[LocalForum, int | None]:
    for port in ports():
        with _LOCK:
            if port in _HELD:
                continue
            _HELD.add(port)
        forum = LocalForum(port)
        try:
            return forum.start(), port
        except OSError as exc:
            with _LOCK:
                _HELD.discard(port)
            if exc.errno != errno.EADDRINUSE:
                raise
    return LocalForum().start(), None


@contextmanager
def local_forum() -> Iterator[LocalForum]:
    """``with local_forum() as forum:``, as ``with LocalForum() as forum:``."""
    forum, port = _start_on_a_port()
    try:
        yield forum
    finally:
        try:
            forum.stop()
        finally:
            if port is not None:
                with _LOCK:
                    _HELD.discard(port)
