"""Whose code the test suite's CPU runs: tally's own, or the libraries and the test machinery
around it. py-spy samples every process of the run (pytest, pytest-xdist's workers) while a
thread of it holds the GIL (``--gil``), and each sample goes to the family of its deepest frame
that belongs to one: a frame of tally (the standard library it calls counted with it), of the
tests, of a library (httpx, pytest, typer …), or of the import system.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python bench/suite_cpu.py              # the quick loop (-m "not slow")
    .venv/bin/python bench/suite_cpu.py --whole      # the whole suite
    .venv/bin/python bench/suite_cpu.py --raw FILE   # samples py-spy wrote before (-f raw)

With ``--cpu`` (the run's CPU in seconds, user + sys of ``/usr/bin/time`` without the
profiler) and ``--start`` (the seconds before the first test), it says the least wall time
the run could take on ``--cores`` cores if tally's own code took no CPU at all: what the
rest takes, shared perfectly between the cores. Not a test: timings are no test's business.
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRAME = re.compile(r"^(?P<name>.*) \((?P<path>.*?):\d+\)$")
LIBRARIES = {
    "http library": ("httpx", "httpcore", "h11", "certifi"),
    "pytest and xdist": ("_pytest", "pluggy", "execnet", "xdist", "py"),
    "typer": ("typer", "click", "pydantic", "pydantic_core", "annotated_types"),
    "matplotlib": ("matplotlib", "PIL", "numpy", "kiwisolver", "contourpy"),
    "hypothesis": ("hypothesis", "sortedcontainers"),
    "rich": ("rich", "markdown_it", "pygments"),
    "jinja2": ("jinja2", "markupsafe"),
    "babel": ("babel",),
    "tenacity": ("tenacity",),
    "the desk's server": ("starlette", "uvicorn", "anyio", "sse_starlette"),
    "aiotieba": ("aiotieba", "google", "yarl", "aiohttp"),
    "pandas": ("pandas",),
    "tomlkit": ("tomlkit",),
}
FAMILY = {top: family for family, tops in LIBRARIES.items() for top in tops}
TALLY = "tally's own code"


def family(paths: list[str]) -> str:
    """The family of a sample: that of its deepest frame that has one."""
    for path in reversed(paths):
        top = path.split("/", 1)[0]
        if "importlib" in path:
            return "imports"
        if top in FAMILY:
            return FAMILY[top]
        if path.startswith("tally/demo/localforum"):
            return "the loopback forum"  # the tests' server, which `tally demo` serves too
        if top == "tally":
            return TALLY
        if top == "tests":
            return "the tests' own code"
    return "other"


def shares(raw: Path) -> tuple[collections.Counter[str], int]:
    counted: collections.Counter[str] = collections.Counter()
    for line in raw.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, n = line.rpartition(" ")
        if not n.isdigit():
            continue
        paths = [m["path"] if (m := FRAME.match(f)) else "" for f in stack.split(";")]
        counted[family(paths)] += int(n)
    return counted, sum(counted.values())


def record(whole: bool, rate: int) -> Path:
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if spy is None:
        sys.exit("py-spy is not installed: .venv/bin/pip install -e '.[bench]'")
    raw = Path(tempfile.mkdtemp(prefix="tally-suite-cpu-")) / "samples.txt"
    chosen = [] if whole else ["-m", "not slow"]
    command = [spy, "record", "--gil", "-r", str(rate), "-s", "-f", "raw", "-o", str(raw), "--",
               sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *chosen]  # fmt: skip
    subprocess.run(command, cwd=ROOT, check=False)
    if not raw.exists():
        sys.exit("py-spy wrote no samples (it needs to read other processes' memory: ptrace)")
    return raw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--whole", action="store_true", help="the whole suite, not -m 'not slow'")
    parser.add_argument("--raw", type=Path, help="samples py-spy wrote before (-f raw)")
    parser.add_argument("--rate", type=int, default=250, help="samples a second (250)")
    parser.add_argument("--cpu", type=float, help="the run's CPU seconds, measured apart")
    parser.add_argument("--start", type=float, default=0.0, help="seconds before the first test")
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()
    counted, total = shares(args.raw or record(args.whole, args.rate))
    if not total:
        sys.exit("no samples")
    for name, n in counted.most_common():
        print(f"{n / total:6.1%}  {name}")
    own = counted[TALLY] / total
    print(f"{total} samples; tally's own code {own:.1%}, the rest {1 - own:.1%}")
    if args.cpu:
        rest = args.cpu * (1 - own)
        least = rest / args.cores + args.start
        print(f"without tally's own code: {rest:.1f} s of CPU, at least {least:.1f} s on "
              f"{args.cores} cores")  # fmt: skip


if __name__ == "__main__":
    main()
