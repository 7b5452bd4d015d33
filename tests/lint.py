"""ruff and mypy run beside the tests (tests/test_lint.py), once a run.

Both start once the tests are chosen, when these are among them (or as pytest starts, when
its command line alone says they will be), and run beside the other tests (mypy takes ~5 s
of a core from a fresh clone, 0.2 s with its cache); the tests here wait for their verdicts.
A run that leaves them out (-k, a single file) starts neither. The process that starts them is
the one that sees what was chosen (conftest.py): pytest itself, or, when the tests run on
several workers (pytest-xdist), the controller; each writes what it said and how it ended
into a folder every worker knows (``TALLY_LINT_DIR``), so that they run once.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = {"ruff": ("ruff", "check", "tally", "tests", "bench", "docs"), "mypy": ("mypy",)}
RUNNING: list[subprocess.Popen[bytes]] = []


def tool(name: str) -> str | None:
    exe = Path(sys.executable).parent / name
    if exe.exists():
        return str(exe)
    return shutil.which(name)


def folder() -> Path:
    """Where the tools' verdicts go: the run's own folder, made once and inherited."""
    if "TALLY_LINT_DIR" not in os.environ:
        os.environ["TALLY_LINT_DIR"] = tempfile.mkdtemp(prefix="tally-lint-")
    return Path(os.environ["TALLY_LINT_DIR"])


def start_all() -> None:
    """Start both tools, once a run; each writes NAME.out, then NAME.rc when it ends."""
    where = folder()
    if (where / "started").exists():
        return
    (where / "started").touch()
    for name, (command, *args) in TOOLS.items():
        exe = tool(command)
        if exe is None:
            (where / f"{name}.rc").write_text("missing")
            continue
        with (where / f"{name}.out").open("wb") as out:
            proc = subprocess.Popen([exe, *args], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        # At the lowest priority: the tools take a core when the tests leave it (waiting on
        # Chromium, a subprocess, a socket), instead of taking it from them (from a fresh
        # clone, ~1 s less for the whole suite in six runs alternating with and without).
        with contextlib.suppress(AttributeError, OSError):  # POSIX only
            os.setpriority(os.PRIO_PROCESS, proc.pid, 19)
        RUNNING.append(proc)
        # The return code is written by a thread of the starting process, which outlives
        # the tests (a worker reads the file; only the starter can wait for the process).
        def ended(proc: subprocess.Popen[bytes] = proc, name: str = name) -> None:
            (where / f"{name}.rc.part").write_text(str(proc.wait()))
            (where / f"{name}.rc.part").rename(where / f"{name}.rc")

        threading.Thread(target=ended, daemon=True).start()


def stop_running() -> None:
    """Stop the tools started before the tests were chosen, when they were not chosen."""
    for proc in RUNNING:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def stop_all() -> None:
    """At the end of the run: nothing left running (a run stopped early, -x), no folder."""
    stop_running()
    shutil.rmtree(folder(), ignore_errors=True)


def verdict(name: str) -> None:
    start_all()
    rc = folder() / f"{name}.rc"
    deadline = time.monotonic() + 300
    while not rc.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"{name} did not finish in 300 s")
        time.sleep(0.05)
    code = rc.read_text()
    if code == "missing":
        pytest.skip(f"{name} is not installed (pip install -e '.[dev]')")
    assert code == "0", (folder() / f"{name}.out").read_text(errors="replace")
