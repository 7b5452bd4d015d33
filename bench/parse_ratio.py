"""Section 1's parse against the bare lexbor loop by process time, the two sides in turn.

    .venv/bin/python bench/parse_ratio.py [ROUNDS] [fresh]  # the ratio, best and median
    .venv/bin/python bench/parse_ratio.py profile           # where tally's time goes (cProfile)

``bench/run.py`` times each side by the wall clock, minutes apart: on a machine shared with
other work the ratio moves with the load. Here each round times tally's parse of the real
pages, then the bare loop's, by the process's own CPU time, one after the other in one
process; the best of each side is the figure, the median says how steady it was.

``fresh``: tally parses a new copy of each page's text every time, made before the clock
starts, as a run decodes each page it reads afresh. A ``str`` keeps its hash once computed,
so the same text objects round after round would flatter anything keyed by the text.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.run import CHINA, lexbor_bare, real_pages  # noqa: E402
from tally.forums.base import forget_parsed  # noqa: E402
from tally.forums.discuz import Discuz  # noqa: E402
from tally.heap import keep_freed_heap  # noqa: E402

REPEAT = 5  # rounds of the pages in one timed run


def sides(fresh: bool = False) -> tuple[object, object]:
    pages = real_pages()
    discuz = Discuz().pages
    texts: list[list[str]] = [pages] * REPEAT

    def prepare() -> None:
        if fresh:
            texts[:] = [[p.encode().decode() for p in pages] for _ in range(REPEAT)]

    def tally() -> None:
        for round_ in texts:
            for p in round_:
                forget_parsed()  # the parsing itself, not the memo of a page seen
                discuz.parse_page(p, CHINA, source="bench")

    tally.prepare = prepare  # type: ignore[attr-defined]

    def bare() -> None:
        for _ in range(REPEAT):
            for p in pages:
                lexbor_bare(p)

    return tally, bare


def cpu(fn) -> float:  # type: ignore[no-untyped-def]
    getattr(fn, "prepare", lambda: None)()  # before the clock starts
    start = time.process_time()
    fn()
    return time.process_time() - start


def ratio(rounds: int, fresh: bool = False) -> None:
    tally, bare = sides(fresh)
    for fn in (tally, bare, tally, bare):  # warm: imports, the heap, the caches
        cpu(fn)
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(cpu(tally))
        theirs.append(cpu(bare))
    best = min(theirs) / min(ours)
    per_round = statistics.median(b / t for t, b in zip(ours, theirs, strict=True))
    print(
        f"tally {min(ours) * 1000:.1f} ms (median {statistics.median(ours) * 1000:.1f}), "
        f"bare lexbor {min(theirs) * 1000:.1f} ms (median {statistics.median(theirs) * 1000:.1f}); "
        f"best against best {best:.1%}, median of the rounds {per_round:.1%}; "
        f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )


def profile() -> None:
    import cProfile
    import pstats

    tally, _ = sides()
    tally()  # type: ignore[operator]
    prof = cProfile.Profile(time.process_time)
    prof.runcall(tally)  # type: ignore[arg-type]
    pstats.Stats(prof).sort_stats("tottime").print_stats(35)


if __name__ == "__main__":
    keep_freed_heap()
    if sys.argv[1:2] == ["profile"]:
        profile()
    else:
        ratio(int(sys.argv[1]) if sys.argv[1:] else 12, "fresh" in sys.argv[2:])
