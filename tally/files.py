"""Files a user names, read within bounds: only a regular file (a FIFO would block the run,
/dev/zero never end), and never more than a cap (the whole file is read before it is
parsed: a 300 MB "config" would take memory and time before it is found not to be one).

Each cap is far above what the file really holds (README, *What tally trusts*).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tally.environment import home_expanded, home_user
from tally.errors import InputError
from tally.i18n import N_, tr

MB = 1 << 20
# A hand-written TOML file (config, game file, board profiles), a cookie file, the card ledger.
SMALL = 4 * MB
# One saved page of a thread (the largest real Discuz! page seen is under 1 MB).
PAGE = 64 * MB
# An archive CSV (10,000 posts are about 5 MB).
ARCHIVE = 1024 * MB
# The journal of posts beside a game file: a line a post, a few hundred bytes each.
JOURNAL = 16 * MB
# What a file is named as in a sentence about it (``read_capped``'s ``what``), marked here for
# the catalog whichever module names it.
KINDS = (N_("game file"), N_("config file"), N_("board profile file"), N_("saved page"),
         N_("cookie file"), N_("archive"), N_("template"), N_("card ledger"),
         N_("journal of posts"))  # fmt: skip


def user_path(value: str | Path, where: str, error: type[InputError] = InputError) -> Path:
    """``value`` with ``~`` and ``~user`` made the home folder, or one sentence naming
    ``where`` it was given when there is no such user (Python raises RuntimeError)."""
    path = home_expanded(value)
    if path is None:
        raise error(tr("{where}: {value!r} starts with the home folder of {user}, and there "
                       "is no such user here.", where=where, value=str(value),
                       user=home_user(value)))  # fmt: skip
    return path


def read_own(path: Path, limit: int) -> bytes | None:
    """The bytes of one of tally's own files (the cache's), or None where there is none to
    read as one: missing, not a regular file, larger than ``limit``, unreadable. Opened
    without blocking and checked on the open file: a FIFO put in its place never hangs the
    run, /dev/zero is never read (a damaged cache is an empty one)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        data = _read_upto(fd, info.st_size, limit)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= limit else None


def _read_upto(fd: int, size: int, limit: int) -> bytes:
    """What ``fd`` holds, read to its end or to ``limit`` + 1 bytes (past the cap: the
    caller's to refuse), ``size`` (fstat's) and one byte at first. Asked for the whole cap at
    once, Python made a buffer of the cap's size (4 or 64 MB: an mmap, a mremap and a munmap)
    for every file, however small: 30 µs of each of the cache's ~20,000 reads in the tests'
    quick loop. A file that grew since its size was taken is read on, in pieces."""
    pieces = [os.read(fd, min(size, limit) + 1)]
    left = limit + 1 - len(pieces[0])
    while pieces[-1] and left > 0:
        pieces.append(os.read(fd, min(left, 1 << 16)))
        left -= len(pieces[-1])
    return b"".join(pieces)


def read_capped(
    path: Path, what: str, limit: int = SMALL, error: type[InputError] = InputError
) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes, or one sentence
    naming it and ``what`` it should be (marked where it is named: ``N_("game file")``)."""
    what = tr(what)
    try:
        info = os.stat(path)
        mode = info.st_mode
    except FileNotFoundError:
        raise error(tr("{path}: no such {what}.", path=path, what=what)) from None
    except OSError as exc:
        raise error(unreadable(path, what, exc)) from None
    if stat.S_ISDIR(mode):
        raise error(tr("{path} is a folder, not a {what}.", path=path, what=what))
    if not stat.S_ISREG(mode):
        if stat.S_ISFIFO(mode):
            raise error(tr("{path} is a named pipe (FIFO), not a {what}; give a file.",
                           path=path, what=what))  # fmt: skip
        raise error(tr("{path} is a device or special file, not a {what}; give a file.",
                       path=path, what=what))  # fmt: skip
    try:
        with open(path, "rb", buffering=0) as f:
            data = _read_upto(f.fileno(), info.st_size, limit)
    except OSError as exc:
        raise error(unreadable(path, what, exc)) from None
    if len(data) > limit:
        raise error(tr("{path} is larger than {mb} MB, more than any {what}; is it the "
                       "right file?", path=path, mb=format(limit // MB, ","),
                       what=what))  # fmt: skip
    return data


def unreadable(path: Path, what: str, exc: OSError) -> str:
    return tr("{path}: the {what} cannot be read ({reason}).", path=path, what=what,
              reason=exc.strerror)  # fmt: skip
