"""tally run in a child forked from the test's own process: a process of its own (its exit
status, its stdout and stderr), tally and its libraries already imported. An interpreter
started for each run took ~0.15 s of CPU to import tally again (tests/test_help.py ran six).

    pid = forked(lambda: main(), tmp_path / "run")   # writes run.out and run.err
    done = ended(pid, tmp_path / "run")              # a CompletedProcess
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path


def forked(run: Callable[[], object], out: Path) -> int:
    """``run()`` in a child forked from this process, its stdout and stderr into
    ``out``.out and ``out``.err (UTF-8): the child's pid. The child's exit status is what
    ``run`` exits with (0 when it returns; 1, with the traceback in .err, when it raises)."""
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        for fd, ext in ((1, "out"), (2, "err")):
            with open(f"{out}.{ext}", "wb") as f:
                os.dup2(f.fileno(), fd)
        # The test's own streams are pytest's captures: the child writes to its fds.
        sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), "utf-8")
        sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), "utf-8")
        try:
            run()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
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
    deadline = time.monotonic() + timeout
    while not (ended_with := os.waitpid(pid, os.WNOHANG))[0]:
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError(f"the forked run {out.name} did not end in {timeout:g} s")
        time.sleep(0.005)
    code = os.waitstatus_to_exitcode(ended_with[1])

    def said(ext: str) -> str:
        return Path(f"{out}.{ext}").read_text(encoding="utf-8")

    return subprocess.CompletedProcess([str(out)], code, said("out"), said("err"))


def as_the_shell_runs_it(args: list[str], environ: dict[str, str], out: Path) -> int:
    """`tally ARGS` as a shell starts it, in a forked child: the program named tally,
    ``environ`` its environment (a shell's completion asks through variables)."""

    def run() -> None:
        from tally.cli import main

        os.environ.clear()
        os.environ.update(environ)
        sys.argv = ["tally", *args]
        # The shell starts the tally script, no module (`python -m pytest` is this process):
        # click names the program from argv[0] only then.
        main_module = sys.modules["__main__"]
        main_module.__spec__, main_module.__package__ = None, None
        main()

    return forked(run, out)
