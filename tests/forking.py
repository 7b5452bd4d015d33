"""tally run in a child forked from the test's own process: a process of its own (its exit
status, its stdout and stderr), tally and its libraries already imported. An interpreter
started for each run took ~0.15 s of CPU to import tally again (tests/test_cli_help.py ran six).

    pid = forked(main, tmp_path / "run")    # writes run.out and run.err
    done = ended(pid, tmp_path / "run")     # a CompletedProcess
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path


def forked(run: Callable[[], object], out: Path) -> int:
    """``run()`` in a child forked from this process, its stdout and stderr into
    ``out``.out and ``out``.err (UTF-8): the child's pid. The child ends as an interpreter
    running ``run`` would: its SystemExit's status (a message said on stderr, status 1),
    0 when it returns, 1 with the traceback on stderr when it raises."""
    with warnings.catch_warnings():
        # Python 3.12 warns of a fork in a process with threads (pytest-xdist's workers
        # have execnet's): the child may wait on a lock one of them held. ``ended`` kills
        # a child that does not end.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        for fd, ext in ((1, "out"), (2, "err")):
            with open(f"{out}.{ext}", "wb") as f:
                os.dup2(f.fileno(), fd)
        # The test's own streams are pytest's captures: the child writes to its fds, its
        # stderr unbuffered (what a hung child said is in its .err when it is killed).
        sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), "utf-8")
        raw = os.fdopen(2, "wb", buffering=0, closefd=False)
        sys.stderr = io.TextIOWrapper(raw, "utf-8", write_through=True)
        try:
            run()
            code = 0
        except SystemExit as exc:
            if isinstance(exc.code, int) or exc.code is None:
                code = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
        except BaseException:  # said in the run's .err, for the assertion's message
            traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def ended(pid: int, out: Path, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    """The forked run ``pid`` once it has ended: its exit status and what it wrote. One that
    has not ended within ``timeout`` seconds is killed, and the test fails saying so (a
    child forked from a process with threads could wait forever on a lock one of them held)."""

    def said(ext: str) -> str:
        path = Path(f"{out}.{ext}")
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    deadline = time.monotonic() + timeout
    while not (ended_with := os.waitpid(pid, os.WNOHANG))[0]:
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError(
                f"the forked run {out.name} did not end in {timeout:g} s; it said: "
                f"{said('err')[-2000:]!r}"
            )
        time.sleep(0.005)
    code = os.waitstatus_to_exitcode(ended_with[1])
    return subprocess.CompletedProcess([str(out)], code, said("out"), said("err"))


def as_the_shell_runs_it(args: list[str], environ: dict[str, str], out: Path) -> int:
    """`tally ARGS` as a shell starts it, in a forked child: the program named tally,
    ``environ`` its environment (a shell's completion asks through variables)."""

    def run() -> None:
        from tally.cli import main

        os.environ.clear()
        os.environ.update(environ)
        sys.argv = ["tally", *args]
        # The shell starts the tally script, which is no package's module; this process may
        # be `python -m pytest`'s, and click names the program from argv[0] only when
        # __main__ has no package.
        sys.modules["__main__"].__package__ = None
        main()

    return forked(run, out)
