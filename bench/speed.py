"""6. The paths a run (and the test suite, hundreds of runs in one process) spends its time
on, each against the way it was done before or the plain library call, in the same run.

    .venv/bin/python bench/run.py speed     # this section alone
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any
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


def best_pair(
    fn: Callable[[], object], baseline: Callable[[], object], repeat: int = 7
) -> tuple[float, float]:
    """``best`` of ``fn`` and of ``baseline``, their runs taken in turn: a burst of the
    machine's other work falls on both sides, not on one."""
    fn(), baseline()  # warm up
    ours, theirs = [], []
    for _ in range(repeat):
        for f, times in ((fn, ours), (baseline, theirs)):
            start = time.perf_counter()
            f()
            times.append(time.perf_counter() - start)
    return min(ours), min(theirs)


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


def _counted_day() -> tuple[object, list[object]]:
    """A game and its closed day as `tally report` hands them to the page: a 30-floor vote
    thread of 16 players, read from the loopback forum and counted."""
    from bench.run import big_thread
    from tally.demo.localforum import LocalForum
    from tally.forums.reader import Reader, Reading
    from tally.rules.counting.votes import tally_day
    from tally.rules.game.gamefile import parse_game

    thread, players = big_thread(3, tid="601")
    with LocalForum() as forum:
        url = thread.serve(forum)
        names = ", ".join(f'"{p}"' for p in players)
        game = parse_game(
            f'name = "基准"\nruleset = "M126"\ndirectors = ["导演A"]\nplayers = [{names}]\n'
            f"[[days]]\nday = 2\nopens = 2024-05-08T09:00:00\ncloses = 2024-05-09T21:30:00\n"
            f'vote = "{url}"\n'
        )
        with Reader(how=Reading(use_cache=False)) as reader:
            [read] = reader.read([url], CHINA, closes=game.days[0].closes)
    return game, [tally_day(read, game)]


def report_pictures(row: Row) -> None:
    """`tally report` with a director's template that shows no picture (a table of the days,
    as a forum post would have it): nothing drawn, against every picture drawn (as before)."""
    from tally.outputs.written import charts, report

    game, results = _counted_day()
    folder = Path(tempfile.mkdtemp(prefix="tally-bench-"))
    (folder / "report.html.j2").write_text(
        "<h1>{{ game }}</h1>{% for d in days %}<p>第{{ d.day }}天 {{ d.sentence }}</p>"
        "{% for b in d.ballots %}{{ b.voter }}→{{ b.target }} {% endfor %}{% endfor %}\n",
        encoding="utf-8",
    )
    when = datetime(2024, 5, 10, 9, tzinfo=CHINA)

    def page() -> None:
        charts._drawn.clear()  # a run is a process: nothing drawn before
        report.render_report(game, results, {}, [], generated=when, template_dir=folder)  # type: ignore[arg-type]

    def every_picture() -> None:
        real = report.reach
        report.reach = lambda *a: None  # type: ignore[assignment]
        try:
            page()
        finally:
            report.reach = real

    try:
        t_tally, t_all = best(page, repeat=3), best(every_picture, repeat=3)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    row(
        "report: a template that shows no picture vs every picture drawn",
        f"{t_tally * 1000:.1f} ms",
        f"{t_all * 1000:.0f} ms",
        f"{t_tally / t_all:.0%}",
        "≤ 10 %",
        t_tally / t_all <= 0.1,
    )


def pictures_again(row: Row) -> None:
    """A day's three pictures asked again (the desk's page of a day at every visit, the
    report after it), against their first drawing."""
    from tally.outputs.written import charts

    _, [result] = _counted_day()

    def three() -> None:
        for draw in (charts.totals_figure, charts.flow_figure, charts.timeline_figure):
            charts.svg(draw, result, salt="bench")

    def first() -> None:
        charts._drawn.clear()
        three()

    t_first = best(first, repeat=3)
    three()
    t_again = best(three)
    row(
        "charts: a day's three pictures again vs their first drawing",
        f"{t_again * 1000:.2f} ms",
        f"{t_first * 1000:.0f} ms",
        f"{t_again / t_first:.1%}",
        "≤ 5 %",
        t_again / t_first <= 0.05,
    )


def flatten_loop(text: str, limit: int) -> str:
    """flatten_deep as it was: a Python loop over every tag (the reference
    tests/test_house_speed_runs.py holds flatten_deep to)."""
    from tally.forums.htmltext import _TAG, _VOID

    depth = 0
    drop: list[tuple[int, int]] = []
    for m in _TAG.finditer(text):
        closing, name, selfclosing = m.group(1), m.group(2).lower(), m.group(3)
        if name in _VOID or selfclosing:
            continue
        if closing:
            if depth > limit:
                drop.append(m.span())
            depth = max(0, depth - 1)
        else:
            depth += 1
            if depth > limit:
                drop.append(m.span())
    parts, last = [], 0
    for start, end in drop:
        parts.append(text[last:start])
        last = end
    parts.append(text[last:])
    return "".join(parts)


def deep_page(row: Row) -> None:
    """A hostile page, 100,000 <div>s nested in a post, cut to a depth lexbor parses in
    time, against the Python loop over its tags that cut it before."""
    from tally.forums.htmltext import MAX_DEPTH, flatten_deep

    page = (ROOT / "fixtures" / "discuz" / "vote-p2.html").read_text(encoding="utf-8")
    at = page.index(">", page.index('id="postmessage_')) + 1
    deep = page[:at] + "<div>" * 100_000 + "深" + "</div>" * 100_000 + page[at:]
    assert flatten_deep(deep) == flatten_loop(deep, MAX_DEPTH)
    t_tally = best(lambda: flatten_deep(deep))
    t_loop = best(lambda: flatten_loop(deep, MAX_DEPTH))
    row(
        "htmltext: 200,000 nested tags cut vs the loop over them",
        f"{t_tally * 1000:.0f} ms",
        f"{t_loop * 1000:.0f} ms",
        f"{t_tally / t_loop:.0%}",
        "≤ 60 %",
        t_tally / t_loop <= 0.6,
    )


def _traced_render(chunks: Iterator[str], limit: int, seconds: float = 10.0) -> str:
    """bounded_render as it was: sys.settrace on every call, a line event in each line of
    a template's code, the clock looked at every 256th."""
    import sys

    deadline = time.monotonic() + seconds
    lines = [0]

    def local(frame: FrameType, event: str, arg: object) -> object:
        lines[0] += 1
        if lines[0] % 256 == 0 and time.monotonic() > deadline:
            raise RuntimeError("too long")
        return local

    def calls(frame: FrameType, event: str, arg: object) -> object:
        if "environment" in frame.f_globals and "__file__" in frame.f_globals:
            return local
        return None

    previous = sys.gettrace()
    out: list[str] = []
    size = 0
    sys.settrace(calls)
    try:
        for chunk in chunks:
            size += len(chunk)
            if size > limit:
                raise RuntimeError("too large")
            out.append(chunk)
    finally:
        sys.settrace(previous)
    return "".join(out)


def bounded_page(row: Row) -> None:
    """The report's built-in template rendered within its time bound (its pictures drawn
    before), against the bound as it was kept: a trace of every line."""
    from tally.outputs.written import report, template_bounds

    game, results = _counted_day()
    seen: dict[str, object] = {}

    def keep(template: object, name: str, context: object, *, html: bool) -> str:
        seen.update(template=template, context=context)
        return ""

    real = report.render
    report.render = keep  # type: ignore[assignment]
    try:
        when = datetime(2024, 5, 10, 9, tzinfo=CHINA)
        report.render_report(game, results, {}, [], generated=when)  # type: ignore[arg-type]
    finally:
        report.render = real
    template: Any = seen["template"]
    context: Any = seen["context"]
    limit = template_bounds.PAGE_CHARS
    assert template_bounds.bounded_render(template.generate(**context), limit) == _traced_render(
        template.generate(**context), limit
    )

    def pages(render: Callable[[Iterator[str], int], str]) -> Callable[[], None]:
        def twenty() -> None:
            for _ in range(20):
                render(template.generate(**context), limit)

        return twenty

    t_tally, t_traced = best_pair(pages(template_bounds.bounded_render), pages(_traced_render))
    row(
        "templates: the report page rendered within its bound vs traced line by line",
        f"{t_tally / 20 * 1000:.2f} ms",
        f"{t_traced / 20 * 1000:.2f} ms",
        f"{t_tally / t_traced:.0%}",
        "≤ 60 %",
        t_tally / t_traced <= 0.6,
    )


def two_pages(row: Row) -> None:
    """A two-page thread read on loopback (no gap between requests): its second page read
    in the run's own thread, against a pool of one thread started for it (as before)."""
    from concurrent.futures import ThreadPoolExecutor

    from bench.run import big_thread
    from tally.demo.localforum import LocalForum
    from tally.environment import Environment, HttpOptions
    from tally.forums import fetch
    from tally.forums.base import forget_parsed
    from tally.forums.reader import Reader, Reading

    thread, _ = big_thread(2, tid="602")

    def pooled(read: Callable[[int], object], wanted: list[int]) -> list[object]:
        with ThreadPoolExecutor(max_workers=1) as pool:
            return list(pool.map(read, wanted))

    with LocalForum() as forum:
        url = thread.serve(forum)

        def reads() -> None:
            for _ in range(20):
                forget_parsed()  # a run is a process: no page parsed before
                env = Environment(http=HttpOptions(host_delay=0))
                with Reader(env, Reading(use_cache=False)) as reader:
                    reader.read([url], CHINA)

        def by_a_pool() -> None:
            fetch.map = pooled  # type: ignore[attr-defined]
            try:
                reads()
            finally:
                del fetch.map  # type: ignore[attr-defined]

        t_tally, t_pool = best_pair(reads, by_a_pool)
    row(
        "fetch: a two-page thread, its last page read here vs by a pool of one",
        f"{t_tally / 20 * 1000:.1f} ms",
        f"{t_pool / 20 * 1000:.1f} ms",
        f"{t_tally / t_pool:.0%}",
        "≤ 90 %",
        t_tally / t_pool <= 0.9,
    )


def bench_speed(row: Row) -> None:
    print("6. the paths a run and the test suite spend their time on", flush=True)
    forum_start_stop(row)
    cache_put(row)
    templates_in_a_new_folder(row)
    page_read_again(row)
    version_read_again(row)
    report_pictures(row)
    pictures_again(row)
    deep_page(row)
    bounded_page(row)
    two_pages(row)
