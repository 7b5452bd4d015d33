"""6. The paths a run (and the test suite, hundreds of runs in one process) spends its time
on, each against the way it was done before or the plain library call, in the same run.

    .venv/bin/python bench/run.py speed     # this section alone
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

Row = Callable[[str, str, str, str, str, bool], None]
ROOT = Path(__file__).resolve().parent.parent
CHINA = ZoneInfo("Asia/Shanghai")


def best(fn: Callable[[], object], repeat: int = 5) -> float:
    """The best of ``repeat`` timed runs of ``fn`` (every section's), after one to warm up."""
    fn()  # warm up: imports, regex compilation, caches
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def forum_start_stop(row: Row) -> None:
    """The loopback forum the tests and `tally demo` start and stop (hundreds a suite)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from tally.demo.localforum import LocalForum

    def stdlib() -> None:  # serve_forever with the 10 ms poll LocalForum used
        for _ in range(20):
            server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
            thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
            thread.start()
            server.shutdown()
            server.server_close()

    def tally() -> None:
        for _ in range(20):
            LocalForum().start().stop()

    t_std, t_tally = best(stdlib), best(tally)
    row(
        "local forum: start and stop",
        f"{t_tally / 20 * 1000:.2f} ms",
        f"{t_std / 20 * 1000:.2f} ms (serve_forever, 10 ms poll)",
        f"{t_std / t_tally:.0f}×",
        "≥ 5×",
        t_std / t_tally >= 5,
    )


def cache_put(row: Row) -> None:
    """A fetched page into the cache: its body and the index, as every page of a run, against
    the same with every file fsynced (as before: the figure depends on the disk)."""
    from tally import atomic
    from tally.forums import cache

    body = (ROOT / "fixtures" / "discuz" / "vote-p1.html").read_bytes()
    folder = Path(tempfile.mkdtemp(prefix="tally-bench-", dir=Path.home()))
    now = datetime(2024, 5, 9, 13, 30, tzinfo=UTC)

    def puts(name: str) -> Callable[[], None]:
        store = cache.Cache(folder).thread("discuz", "bbs.example.com", name)

        def put() -> None:
            for n in range(20):
                store.put(f"https://bbs.example.com/p{n}", body, now, {})

        return put

    def durable_write(path: str | Path, data: bytes, *, durable: bool = True) -> None:
        atomic.write_atomic(path, data)

    try:
        t_tally = best(puts("1"))
        cache.write_atomic = durable_write  # type: ignore[assignment]
        try:
            t_durable = best(puts("2"))
        finally:
            cache.write_atomic = atomic.write_atomic
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    row(
        "cache: a page and its index written (the home folder's disk)",
        f"{t_tally / 20 * 1000:.2f} ms",
        f"{t_durable / 20 * 1000:.2f} ms (both fsynced)",
        f"{t_tally / t_durable:.0%}",
        "-",
        True,
    )


def templates_in_a_new_folder(row: Row) -> None:
    """What each run does before it reads a page: compile its templates, in the director's
    folder (each run a new environment: here a copy of the built-ins, one of them changed),
    the built-ins behind it."""
    from jinja2 import Environment

    from tally.outputs.written.announce import check_templates

    folder = Path(tempfile.mkdtemp(prefix="tally-bench-"))
    sources = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "templates").glob("*.j2"))]
    n = [0]
    try:

        def tally() -> None:
            n[0] += 1
            house = folder / f"house{n[0]}"
            shutil.copytree(ROOT / "templates", house)  # a director's own copy of them all
            (house / "morning.text.j2").write_text("早上好\n", encoding="utf-8")
            for kind in ("close", "morning", "reminder", "elevator"):
                check_templates(kind, house)
            check_templates("report", house, html=True)

        def jinja() -> None:  # every template compiled from its text, as a new environment does
            env = Environment(trim_blocks=True, lstrip_blocks=True)
            for source in sources:
                env.from_string(source)

        t_tally, t_jinja = best(tally), best(jinja)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    row(
        "templates: checked in a new folder vs Jinja compiling them",
        f"{t_tally * 1000:.1f} ms",
        f"{t_jinja * 1000:.1f} ms",
        f"{t_tally / t_jinja:.0%}",
        "≤ 50 %",
        t_tally / t_jinja <= 0.5,
    )


def page_read_again(row: Row) -> None:
    """A page whose text did not change, read again in the same process (a watch's poll, the
    cache's copy read by the next command of a script)."""
    from tally.forums.base import forget_parsed
    from tally.forums.discuz import Discuz

    pages = [
        p.read_text(encoding="utf-8")
        for p in sorted((ROOT / "fixtures" / "discuz").glob("*.html"))
        if not p.name.startswith(("missing", "readperm"))
    ]
    discuz = Discuz().pages

    def first() -> None:
        for p in pages:
            forget_parsed()
            discuz.parse_page(p, CHINA, source="bench")

    def again() -> None:
        for p in pages:
            discuz.parse_page(p, CHINA, source="bench")

    t_first, t_again = best(first), best(again)
    row(
        "parse: an unchanged page read again vs its first parse",
        f"{t_again / len(pages) * 1000:.2f} ms a page",
        f"{t_first / len(pages) * 1000:.2f} ms a page",
        f"{t_again / t_first:.0%}",
        "≤ 10 %",
        t_again / t_first <= 0.1,
    )


def version_read_again(row: Row) -> None:
    """A run's reading back of the thread's history: each stored version's posts."""
    from tally.forums.discuz import Discuz
    from tally.forums.history import page_data, page_posts

    stored = [
        page_data(
            Discuz().pages.parse_page(p.read_text(encoding="utf-8"), CHINA, source=p.name).posts
        )
        for p in sorted((ROOT / "fixtures" / "discuz").glob("*.html"))
        if not p.name.startswith(("missing", "readperm"))
    ]

    def first() -> None:
        for data in stored:
            page_posts.__wrapped__(data)

    def again() -> None:
        for data in stored:
            page_posts(bytes(data))  # the file read again: other bytes, the same text

    t_first, t_again = best(first), best(again)
    row(
        "history: a stored version read again vs its first read",
        f"{t_again / len(stored) * 1e6:.1f} µs a version",
        f"{t_first / len(stored) * 1e6:.0f} µs a version",
        f"{t_again / t_first:.0%}",
        "≤ 10 %",
        t_again / t_first <= 0.1,
    )


def bench_speed(row: Row) -> None:
    print("6. the paths a run and the test suite spend their time on", flush=True)
    forum_start_stop(row)
    cache_put(row)
    templates_in_a_new_folder(row)
    page_read_again(row)
    version_read_again(row)
