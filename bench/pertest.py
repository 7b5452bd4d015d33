"""pytest's own CPU a test, with the suite's conftest, plugins and options: 2,000 empty tests
against 2 (the process's start), in one process and on pytest-xdist's two workers, as
configured and with pytest's optional plugins left out (``-p no:…``), in turn.

    .venv/bin/python bench/pertest.py [rounds]

The empty tests are written beside the suite's (tests/ holds the conftest) for the run and
removed after it, their bytecode too. The figure is the best of the rounds.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANY, FEW = 2000, 2
WITHOUT = {
    "as configured": [],
    "-p no:logging": ["-p", "no:logging"],
    "and the built-ins the suite does not use": [
        "-p", "no:logging", "-p", "no:unittest", "-p", "no:doctest", "-p", "no:junitxml",
        "-p", "no:pastebin", "-p", "no:stepwise", "-p", "no:legacypath", "-p", "no:subtests",
    ],
}  # fmt: skip


def cpu(args: list[str]) -> float:
    """The CPU (user + sys) of one pytest run, its workers included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [sys.executable, "-m", "pytest", "-q", *args]
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    files = {n: ROOT / "tests" / f"test_zz_bench_empty_{n}.py" for n in (MANY, FEW)}
    for n, path in files.items():
        path.write_text("".join(f"def test_{i}():\n    pass\n\n\n" for i in range(n)))
    try:
        for workers in ("0", "2"):
            best: dict[tuple[str, int], float] = {}
            for _ in range(rounds):  # in turn, so the machine's other work falls on each
                for name, extra in WITHOUT.items():
                    for n, path in files.items():
                        took = cpu([str(path.relative_to(ROOT)), "-n", workers, *extra])
                        best[name, n] = min(best.get((name, n), took), took)
            for name in WITHOUT:
                per = (best[name, MANY] - best[name, FEW]) / (MANY - FEW) * 1000
                print(f"-n {workers}, {name}: {best[name, MANY]:.2f} s of CPU for {MANY:,} tests, "
                      f"{best[name, FEW]:.2f} s for {FEW}: {per:.3f} ms a test")  # fmt: skip
    finally:
        for path in files.values():
            path.unlink(missing_ok=True)
            for pyc in (path.parent / "__pycache__").glob(f"{path.stem}.*"):
                pyc.unlink()


if __name__ == "__main__":
    main()
