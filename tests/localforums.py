"""Local forums for the tests, each on the lowest of its worker's ports that is free.

tally keeps a page it parsed by the page's text and its address (``Pages.parse_page``), so a
test that serves a page at the address a test before it served the same text reads it
without parsing it again. On a port of its own each forum was a new address: each worker of
the quick loop parsed ~1,100 of its ~3,000 pages again, the same fixture at the same path
on another port, 0.7 s of its CPU. A page is parsed as before wherever its text or its
address is new (the first test to serve a fixture, every page a test makes).

The ports a session's forums take are its own. Its first process (pytest, or the controller
of pytest-xdist's workers) claims a block of them by listening on the block's first port
for the whole run; the workers inherit which (``TALLY_TEST_PORTS``), and worker gwN serves
on the N-th fifty after it. A second session beside it (another checkout's tests, CI's run
in a fresh clone) finds that port taken and claims the next block: no forum of one session
answers at an address the other's tests just stopped serving ("the forum is down").
The blocks lie below the system's ephemeral range (Linux: 32768 and up), where no
connection takes a port. Without a block (all taken), or past a worker's fifty, a forum
takes any free port, as ``LocalForum()`` does.

A port is used again only by a later forum of the same process. What a test leaves behind
for the next one at that address: its cache, in folders of its own (conftest.py,
``private_folders``; a fixture of scope="module" calls ``own_folders``), and the pages
parsed, kept by their whole text. A test that changes how a page is read (a parser's
function patched) calls ``tally.forums.base.forget_parsed()`` first, or a page an earlier
test parsed at the same address is not read again.
"""

from __future__ import annotations

import errno
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager

from tally.demo.localforum import LocalForum

FIRST_PORT = 20000
BLOCK = 1000  # a session's ports: the port that marks the block taken, then its workers'
BLOCKS = 12  # 20000-31999
PER_WORKER = 50
VARIABLE = "TALLY_TEST_PORTS"

_CLAIM: list[socket.socket] = []  # the listening socket that holds the session's block


def claim_a_block() -> None:
    """In the session's first process, before the workers start: the first block no other
    session holds, named in the environment the workers inherit (never a block named in the
    environment it was started with: another session's, which that one holds)."""
    if _CLAIM:
        return
    os.environ.pop(VARIABLE, None)
    for start in range(FIRST_PORT, FIRST_PORT + BLOCK * BLOCKS, BLOCK):
        marker = socket.socket()
        try:
            marker.bind(("127.0.0.1", start))
            marker.listen(1)
        except OSError:
            marker.close()
            continue
        _CLAIM.append(marker)
        os.environ[VARIABLE] = str(start)
        return


def release_the_block() -> None:
    while _CLAIM:
        _CLAIM.pop().close()
    os.environ.pop(VARIABLE, None)


def ports(worker: str | None = None) -> range:
    """This process's ports: the worker gwN of pytest-xdist (or the single process) takes
    the N-th fifty of the session's block; none without a block."""
    block = os.environ.get(VARIABLE, "")
    if not block.isdigit():
        return range(0)
    name = os.environ.get("PYTEST_XDIST_WORKER", "") if worker is None else worker
    index = int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0
    start = int(block) + 1 + PER_WORKER * index
    return range(start, min(start + PER_WORKER, int(block) + BLOCK))


def _started() -> LocalForum:
    # A port this process's own forum still serves on is taken too: the bind says so (the
    # forum lets its port be bound again only once it has stopped listening).
    for port in ports():
        try:
            return LocalForum(port).start()
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                break  # not a port taken (a port policy, say): any port will do
    return LocalForum().start()


@contextmanager
def local_forum() -> Iterator[LocalForum]:
    """``with local_forum() as forum:``, as ``with LocalForum() as forum:``."""
    forum = _started()
    try:
        yield forum
    finally:
        forum.stop()
