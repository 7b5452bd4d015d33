"""Atomic file writes: a reader sees the old file or the whole new one, never half of it.

The new file gets the old one's permissions, or for a new file what the umask allows
(a co-director may read the ledger), not the 0600 a temporary file is made with.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import IO

from tally.errors import OutputError
from tally.i18n import tr

# Read once, at import: os.umask can only be read by setting it.
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def _mode_for(target: Path) -> int:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        return 0o666 & ~_UMASK


def write_atomic(path: str | Path, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename.

    ``durable``: the data is on the disk before the rename (fsync), so that a power cut
    leaves the old file or the new one, never an empty one. Only a file that can be made
    again may pass False (a page of the cache, fetched again if lost): the fsync is ~3 ms
    on a real disk, most of the cost of writing a page. Without it the rename still keeps
    a running reader from seeing half a file."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(
            tr("cannot write {path}: the folder {folder} does not exist.", path=target,
               folder=folder)
        )
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".part")
    except OSError as exc:
        raise OutputError(unwritable(target, exc)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        if os.name == "posix":
            os.chmod(tmp, _mode_for(target))
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(unwritable(target, exc)) from None
        raise


def unwritable(target: Path, exc: OSError) -> str:
    return tr("cannot write {path} ({reason}).", path=target, reason=exc.strerror)


def try_lock(handle: IO[bytes]) -> bool:
    """Take an exclusive lock of the open file ``handle`` without waiting: whether it was
    taken. The lock is the open file's: another process, or another open of the same file
    in this one, is kept out until ``unlock`` or the handle is closed."""
    try:
        if sys.platform == "win32":  # pragma: no cover - Windows
            import msvcrt

            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def unlock(handle: IO[bytes]) -> None:
    with contextlib.suppress(OSError):
        if sys.platform == "win32":  # pragma: no cover - Windows
            import msvcrt

            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
