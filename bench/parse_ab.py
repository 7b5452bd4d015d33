"""Section 1's parse by one commit's code against the work tree's, in turn.

    .venv/bin/python bench/parse_ab.py REV [ROUNDS] [fresh]   # e.g. HEAD~1 10

On a machine shared with other work, two runs minutes apart differ by more than most
changes to the parser save. Here ``REV``'s tally/ is unpacked beside the work tree, and
round after round a process of each times tally's parse of the real pages by process time
(the best of six, after warming up: ``bench/parse_ratio.py``), one right after the other;
``fresh`` as there, a new copy of each text for every parse.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# One side's process: its tally imported first, so that bench/'s imports find it.
CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
import tally.forums.discuz
from bench.parse_ratio import cpu, sides
from tally.heap import keep_freed_heap
keep_freed_heap()
tally, bare = sides(sys.argv[2] == "fresh")
for fn in (tally, bare, tally):
    cpu(fn)
print(min(cpu(tally) for _ in range(6)))
"""


def side(source: Path, fresh: bool) -> float:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(source), "fresh" if fresh else "same"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return float(out.split()[-1])


def main() -> None:
    rev = sys.argv[1]
    rounds = int(sys.argv[2]) if sys.argv[2:] else 8
    fresh = "fresh" in sys.argv[3:]
    archive = subprocess.run(
        ["git", "archive", rev, "tally"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        before, after = [], []
        for _ in range(rounds):
            before.append(side(Path(folder), fresh))
            after.append(side(ROOT, fresh))
    pairs = statistics.median(b / a for a, b in zip(before, after, strict=True))
    print(
        f"{rev}: {min(before) * 1000:.1f} ms (median {statistics.median(before) * 1000:.1f}); "
        f"work tree: {min(after) * 1000:.1f} ms (median {statistics.median(after) * 1000:.1f}); "
        f"median of the pairs {pairs:.3f}"
    )


if __name__ == "__main__":
    main()
