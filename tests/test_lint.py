"""ruff and mypy stay clean: run as part of the suite so that CI holds the line.

Both start when this module is collected and run beside the other tests (mypy takes ~6 s
from a clean clone, on the second core); the tests here wait for their verdicts.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def tool(name: str) -> str | None:
    exe = Path(sys.executable).parent / name
    if exe.exists():
        return str(exe)
    return shutil.which(name)


def start(*command: str) -> subprocess.Popen[str] | None:
    exe = tool(command[0])
    if exe is None:
        return None
    return subprocess.Popen(
        [exe, *command[1:]], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


RUFF = start("ruff", "check", "tally", "tests", "bench", "docs")
MYPY = start("mypy")


def verdict(proc: subprocess.Popen[str] | None, name: str) -> None:
    if proc is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[dev]')")
    output, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, output


def test_ruff():
    verdict(RUFF, "ruff")


def test_mypy():
    verdict(MYPY, "mypy")
