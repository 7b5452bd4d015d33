"""Files a user names, read within bounds: only a regular file (a FIFO would block the run,
/dev/zero never end), and never more than a cap (the whole file is read before it is
parsed: a 300 MB "config" would take memory and time before it is found not to be one).

Each cap is far above what the file really holds (README, *What tally trusts*).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tally.errors import InputError

MB = 1 << 20
# A hand-written TOML file (config, game file, board profiles), a cookie file, the card ledger.
SMALL = 4 * MB
# One saved page of a thread (the largest real Discuz! page seen is under 1 MB).
PAGE = 64 * MB
# An archive CSV (10,000 posts are about 5 MB).
ARCHIVE = 1024 * MB
# The journal of posts beside a game file: a line a post, a few hundred bytes each.
JOURNAL = 16 * MB


def user_path(value: str | Path, where: str, error: type[InputError] = InputError) -> Path:
    """``value`` with ``~`` and ``~user`` made the home folder, or one sentence naming
    ``where`` it was given when there is no such user (Python raises RuntimeError)."""
    path = Path(value)
    try:
        return path.expanduser()
    except RuntimeError:
        user = str(value).split("/", 1)[0].split("\\", 1)[0]
        raise error(f"{where}: {str(value)!r} starts with the home folder of {user}, and there "
                    "is no such user here.") from None  # fmt: skip


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
        with os.fdopen(fd, "rb") as f:
            fd = -1  # closed with f
            data = f.read(limit + 1)
    except OSError:
        return None
    finally:
        if fd != -1:
            os.close(fd)
    return data if len(data) <= limit else None


def read_capped(
    path: Path, what: str, limit: int = SMALL, error: type[InputError] = InputError
) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes, or one sentence
    naming it and ``what`` it should be."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise error(f"{path}: no such {what}.") from None
    except OSError as exc:
        raise error(f"{path}: the {what} cannot be read ({exc.strerror}).") from None
    if stat.S_ISDIR(mode):
        raise error(f"{path} is a folder, not a {what}.")
    if not stat.S_ISREG(mode):
        kind = "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a device or special file"
        raise error(f"{path} is {kind}, not a {what}; give a file.")
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise error(f"{path}: the {what} cannot be read ({exc.strerror}).") from None
    if len(data) > limit:
        raise error(f"{path} is larger than {limit // MB:,} MB, more than any {what}; is it the "
                    "right file?")  # fmt: skip
    return data
