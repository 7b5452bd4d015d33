import os
import sys
import tempfile

# The suite writes its bytecode even where the environment says not to
# (PYTHONDONTWRITEBYTECODE=1): pytest rewrites the asserts of every test module, and of
# its plugins' whole packages (hypothesis, anyio), at each import, and without the cached
# result each run paid ~6 s of it again in every xdist worker, as every tally the tests
# start in another process compiled tally again. This package is imported before conftest
# and the test modules; the workers and those processes inherit the variable's absence.
# __pycache__/ is ignored by git.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def _in_memory(folder: str = "/dev/shm", room: int = 1 << 30) -> str | None:
    """A folder in memory (Linux's tmpfs) with room to spare, or None."""
    try:
        fs = os.statvfs(folder)
    except OSError:
        return None
    writable = os.access(folder, os.W_OK | os.X_OK)
    # Mounted noexec (hardened hosts): the install tests' virtual environment could not run
    # the python it copies there.
    runnable = not fs.f_flag & os.ST_NOEXEC
    return folder if writable and runnable and fs.f_bavail * fs.f_frsize >= room else None


# The tests' temporary folders (tmp_path, the folders of every test, the pages' caches) in
# memory when the machine has it to spare and no TMPDIR was chosen: tally writes each file
# atomically, with an fsync, and thousands of those on a disk the machine's other work
# shares cost a fifth of the quick loop (83 s against 66 s here). The same files, the same
# calls; only where they are.
if "TMPDIR" not in os.environ and (_memory := _in_memory()) is not None:
    os.environ["TMPDIR"] = tempfile.tempdir = _memory
