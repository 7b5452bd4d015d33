"""tally spends less where a run spends it, and does the same (issue 30, item 6): the report
draws only the pictures its template can show, before the render and outside its time
bound, and renders the page it rendered when it drew them all; a picture drawn again from
the same is the one drawn before."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bench.speed import flatten_loop
from tally.cli import app
from tally.errors import InputError
from tally.outputs.written import charts, report, template_bounds
from tally.outputs.written.report import DAY_KEYS, render_report
from tally.outputs.written.template_reach import reach
from tally.rules.cards.daycount import PlayerDay

from .conftest import CHINA, FakeClock, Runner, own_folders
from .discuzgen import P
from .localforums import local_forum
from .test_counting_whole_day import game_file, vote_thread
from .test_watch import env_at

runner = Runner()


@pytest.fixture(scope="module")
def counted(tmp_path_factory) -> Iterator[dict[str, Any]]:
    """What `tally report` hands render_report on the day-2 game (read once, on loopback)."""
    tmp_path = tmp_path_factory.mktemp("reach")
    own_folders(tmp_path)
    seen: dict[str, Any] = {}

    def keep(*args: Any, **kw: Any) -> str:
        seen.update(args=args, kw=kw)
        return "page"

    with local_forum() as forum, pytest.MonkeyPatch.context() as mp:
        mp.setattr(report, "render_report", keep)
        game = game_file(tmp_path, vote_thread().serve(forum))
        made = runner.invoke(app, ["report", "--game", game, "-o", str(tmp_path / "r.html"),
                                   "--quiet"],
                             obj=env_at(FakeClock("2024-05-10 09:00:00", CHINA), tmp_path))  # fmt: skip
        assert made.exit_code == 0, made.output
    game, results, _, cards = seen["args"]
    players = list(game.players)
    # A discussion day, so that the page has its heat map too.
    posts = {2: [PlayerDay(p, n, True) for n, p in enumerate(players)]}
    yield {"game": game, "results": results, "posts": posts, "cards": cards}


def stand_in(draw: Any, args: Any, style: Any) -> str:
    """A picture's stand-in, as cheap as a string: which drawing, with which ids."""
    return f"<svg>{draw.__name__} {style['svg.hashsalt']}</svg>"


@pytest.fixture(autouse=True)
def stand_ins(monkeypatch) -> Iterator[None]:
    """Every picture a stand-in (matplotlib draws the real ones in test_report and
    test_announcing_templates), none kept from another test."""
    monkeypatch.setattr(charts, "_svg", stand_in)
    charts._drawn.clear()
    yield
    charts._drawn.clear()


def page(counted: dict[str, Any], folder: Path | None) -> str:
    return render_report(counted["game"], counted["results"], counted["posts"], counted["cards"],
                         generated=datetime(2024, 5, 10, 9, tzinfo=CHINA), template_dir=folder)  # fmt: skip


@pytest.fixture
def asked(monkeypatch) -> list[str]:
    """The pictures the report asks charts for, by their drawing's name."""
    names: list[str] = []
    real = charts.svg

    def svg(draw: Any, *args: Any, salt: str) -> str:
        names.append(draw.__name__)
        return real(draw, *args, salt=salt)

    monkeypatch.setattr(charts, "svg", svg)
    return names


def folder_with(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "house"
    folder.mkdir(exist_ok=True)
    (folder / "report.html.j2").write_text(text, encoding="utf-8")
    return folder


def every_picture(monkeypatch, counted: dict[str, Any], folder: Path | None) -> str:
    """The page as it was made before: every picture drawn whatever the template shows."""
    with monkeypatch.context() as mp:
        mp.setattr(report, "reach", lambda *a: None)
        return page(counted, folder)


DAY = ["totals_figure", "flow_figure", "timeline_figure"]


def test_the_built_in_report_draws_every_picture(counted, asked):
    html = page(counted, None)
    assert sorted(asked) == sorted(DAY * len(counted["results"]) + ["heatmap_figure"])
    assert html.count("<svg") == len(asked)


@pytest.mark.parametrize(
    ("text", "drawn"),
    [
        ("<h1>{{ game }}</h1>{% for d in days %}<p>{{ d.sentence }}</p>{% endfor %}\n", []),
        ("{% if days %}{{ days|length }}{% endif %}{{ generated }}", []),
        ("{% for d in days %}{{ d.flow_svg|safe }}{{ loop.index }}{% endfor %}", ["flow_figure"]),
        ('{% for d in days if d["totals_svg"] %}{{ d.day }}{% endfor %}', ["totals_figure"]),
        ("{{ heatmap }}", ["heatmap_figure"]),
    ],
)
def test_a_template_gets_only_the_pictures_it_can_show_and_the_same_page(
    counted, asked, monkeypatch, tmp_path, text, drawn
):
    folder = folder_with(tmp_path, text)
    html = page(counted, folder)
    days = len(counted["results"])
    assert sorted(asked) == sorted(d for d in drawn for _ in range(days if d in DAY else 1))
    assert html == every_picture(monkeypatch, counted, folder)


@pytest.mark.parametrize(
    "text",
    [
        "{% for d in days %}{{ d }}{% endfor %}",  # an item printed whole
        "{% for d in days %}{{ d|tojson }}{% endfor %}",
        "{% for d in days %}{% for k, v in d.items() %}{{ v }}{% endfor %}{% endfor %}",
        '{% for d in days %}{{ d["flow" ~ "_svg"]|length }}{% endfor %}',  # a key computed
        "{{ (days|first).totals_svg|length }}",
        "{{ days[0].totals_svg|length }}",
        "{% for d in days %}{% if not loop.first %}{{ loop.previtem.flow_svg }}{% endif %}{% endfor %}",
        "{% set all = days %}{% for d in all %}{{ d.timeline_svg|length }}{% endfor %}",
        "{% macro m(x) %}{{ x.flow_svg|length }}{% endmacro %}"
        "{% for d in days %}{{ m(d) }}{% endfor %}",
        "{% for a in days %}{% with b = a %}{{ b.totals_svg|length }}{% endwith %}{% endfor %}",
        "{% include 'part.j2' %}",
    ],
)
def test_a_template_that_may_reach_any_picture_gets_them_all(
    counted, asked, monkeypatch, tmp_path, text
):
    folder = folder_with(tmp_path, text)
    (folder / "part.j2").write_text("{% for d in days %}{{ d.flow_svg|length }}{% endfor %}")
    html = page(counted, folder)
    assert len(asked) == 3 * len(counted["results"]) + 1
    assert html == every_picture(monkeypatch, counted, folder)


def test_the_reach_of_a_template_is_read_from_its_tree():
    from jinja2 import Environment

    def of(text: str) -> object:
        return reach(Environment().parse(text), "days", DAY_KEYS)

    found = of("{% for d in days %}{{ d.day }}{{ d['flow_svg'] }}{% endfor %}{{ game }}")
    assert found is not None and found.keys == {"day", "flow_svg"} and "game" in found.names
    assert of("{% for d in days recursive %}{{ loop(d.ballots) }}{% endfor %}") is None
    assert of("{% for d in days %}{{ d.get('flow_svg') }}{% endfor %}") is None
    assert of("{% extends 'base.j2' %}") is None
    assert of("{% for d, e in days %}{{ d }}{% endfor %}") is None


def test_a_broken_report_template_is_the_same_sentence(counted, tmp_path):
    folder = folder_with(tmp_path, "{% for d in days %}{{ d.sentence }\n")
    with pytest.raises(InputError, match=r"report\.html\.j2, line 1: the template is broken"):
        page(counted, folder)


def test_drawing_is_outside_the_time_bound_and_a_hostile_template_still_stopped(
    counted, monkeypatch, tmp_path
):
    """Pictures that take longer to draw than a render may take: the page is made (the
    drawing is before the render); a template that loops without end over a picture is
    stopped all the same, and asks for no more pictures than the page has."""
    monkeypatch.setattr(template_bounds, "RENDER_SECONDS", 0.05)
    drawn: list[str] = []

    def slow(draw: Any, args: Any, style: Any) -> str:
        drawn.append(draw.__name__)
        time.sleep(0.03)  # four pictures or more: more than the render may take
        return stand_in(draw, args, style)

    monkeypatch.setattr(charts, "_svg", slow)
    html = page(counted, None)
    assert len(drawn) == 3 * len(counted["results"]) + 1 and "<svg>flow_figure d2f</svg>" in html
    del drawn[:]
    loops = ("{% for d in days %}{% for i in range(100000) %}{% for j in range(100000) %}"
             "{{ d.totals_svg|length }}{% endfor %}{% endfor %}{% endfor %}")  # fmt: skip
    with pytest.raises(InputError, match=r"the template was stopped, it ran for more than 0\.05 "):
        page(counted, folder_with(tmp_path, loops))
    assert drawn == []  # drawn already, kept: a template cannot make the report draw more


@pytest.fixture
def drawn(monkeypatch) -> list[str]:
    """The pictures charts draws, by their drawing's name (not those it keeps); each a
    stand-in that differs with the style it is drawn in."""
    names: list[str] = []

    def counting(draw: Any, args: Any, style: Any) -> str:
        names.append(draw.__name__)
        return f"<svg>{draw.__name__} {sorted(style.items())}</svg>"

    monkeypatch.setattr(charts, "_svg", counting)
    return names


def test_a_picture_drawn_again_from_the_same_is_the_one_drawn(counted, drawn, monkeypatch):
    result = counted["results"][0]
    first = charts.svg(charts.flow_figure, result, salt="a")
    assert charts.svg(charts.flow_figure, result, salt="a") == first and len(drawn) == 1
    other = charts.svg(charts.flow_figure, result, salt="b")  # another salt: other ids
    assert other != first and len(drawn) == 2
    charts.svg(charts.totals_figure, result, salt="a")
    assert len(drawn) == 3
    # Another style (another font than the one found, whichever this machine has): drawn again.
    other_font = "Another Sans" if charts.cjk_font() is None else None
    monkeypatch.setattr(charts, "cjk_font", lambda: other_font)
    charts.svg(charts.flow_figure, result, salt="a")
    assert len(drawn) == 4
    # A drawing that cannot be named (a local function) is drawn every time.
    local = lambda r: charts.flow_figure(r)  # noqa: E731
    assert charts.svg(local, result, salt="a") == charts.svg(local, result, salt="a")
    assert len(drawn) == 6


PIECES = ["<div>", "</div>", "<P class='a>b'>", "</p >", "<br>", "<BR/>", "<img src=x />",
          "<span/>", "</span/>", "<a href='<b>'>", "</a>", "<<", "< div>", "</ div>", "<!-- c -->",
          "<font color=red>", "</FONT>", "字", " ", "<x:y-z>", "</x:y-z>", "<hr", ">", "</>",
          "<wbrx>", "</wbrx>", "<Col>", "<td>", "</td>"]  # fmt: skip


@pytest.mark.parametrize("seed", range(40))
def test_deep_tags_are_cut_as_before(seed):
    import random

    from tally.forums.htmltext import flatten_deep

    rng = random.Random(seed)
    weights = [8, 6] + [1] * (len(PIECES) - 2)  # mostly <div>s: deep enough to be cut
    for limit in (0, 1, 3, 7):
        text = "".join(rng.choices(PIECES, weights, k=rng.randrange(10, 400)))
        assert flatten_deep(text, limit) == flatten_loop(text, limit), (limit, text)


def test_the_hostile_deep_page_is_cut_as_before():
    from tally.forums.htmltext import MAX_DEPTH, flatten_deep

    page = (Path(__file__).parent.parent / "fixtures" / "discuz" / "vote-p2.html").read_text(
        encoding="utf-8"
    )
    at = page.index(">", page.index('id="postmessage_')) + 1
    deep = page[:at] + "<div><br>" * 5_000 + "深" + "</div>" * 4_000 + page[at:]
    assert flatten_deep(deep) == flatten_loop(deep, MAX_DEPTH) != deep


# -- the render's time bound, looked at in each turn of a loop and each call ----------------

ENDLESS = {
    # Loops of loops over a text: no call in them, nothing but the loop itself would look.
    "text": "{% set s = 'x' * 100000 %}{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}",
    # A macro that calls itself twice: no loop at all, 2 ** 60 calls.
    "macro": "{% macro m(n) %}{% if n %}{{ m(n - 1) }}{{ m(n - 1) }}{% endif %}{% endmacro %}"
    "{{ m(60) }}",
    "recursive": "{% for x in range(100000) recursive %}{% if loop.depth < 4 %}"
    "{{ loop(range(100000)) }}{% endif %}{% endfor %}",
    "filter block": "{% filter upper %}{% for i in range(100000) %}{% for j in range(100000) %}"
    "{% endfor %}{% endfor %}{% endfilter %}",
    "set block": "{% set x %}{% for i in range(100000) %}{% for j in 'y' * 100000 %}{% endfor %}"
    "{% endfor %}{% endset %}{{ x }}",
    "call block": "{% macro m() %}{{ caller() }}{% endmacro %}{% call m() %}"
    "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}{% endcall %}",
    # Loops of 63 turns, nested six deep: no one loop reaches the 64th turn it looks at
    # (found in a cold read: the turns are the render's, counted together).
    "short loops": "{% set r = 'x' * 63 %}" + "".join(f"{{% for v{i} in r %}}" for i in range(6))
    + "{{ '' }}" + "{% endfor %}" * 6,
    # A chain of filters over a range: no template loop and no call of the template's.
    "filters": "{{ range(20000)|map('string')|map('center', 200000)|map('trim')|map('length')"
    "|sum }}",
}


@pytest.mark.parametrize("kind", list(ENDLESS))
def test_a_template_that_would_not_end_is_stopped_on_its_line(tmp_path, monkeypatch, kind):
    from tally.outputs.written.announce import render
    from tally.vocabulary import Announcement, Markup

    # A fiftieth of a second of work each: the stop and its sentence are the same at any bound.
    monkeypatch.setattr(template_bounds, "RENDER_SECONDS", 0.02)
    folder = tmp_path / "house"
    folder.mkdir()
    (folder / "close.bbcode.j2").write_text("{{ game }}\n\n" + ENDLESS[kind], encoding="utf-8")
    with pytest.raises(
        InputError, match="line 3: the template was stopped, it ran for more than"
    ) as info:
        render(Announcement.CLOSE, Markup.BBCODE, {"game": "局"}, folder)
    assert str(info.value).startswith(
        f"{folder / 'close.bbcode.j2'}, line 3: the template was stopped, it ran for more than "
        "0.02 seconds"
    ), str(info.value)


def test_a_template_rendered_outside_a_bound_runs_its_loops_as_written(tmp_path):
    """The loops' clock is the render's: a template of tally's environment rendered by
    Jinja's own render (no bound under way) gives what Jinja gives."""
    from tally.outputs.written.templating import environment

    env = environment(None, finalize=None)
    text = "{% for i in range(3) %}{{ loop.index }}{{ loop.length }}{% endfor %}"
    assert env.from_string(text).render() == "132333"


# What of a day's result its pictures keep them by (charts._pictured): all they read of it,
# and of its day (the game file's Day) the number, the open and the close.
PICTURED = {"day", "count", "ballots", "totals", "kind", "outcome", "leaders"}  # the last four: count's
PICTURED_OF_THE_DAY = {"day", "opens", "closes"}


class OnlyPictured:
    """A day's result (or the day in it, ``nested``) that lets a picture read what charts
    keeps it by alone. Reads that pass by attribute access (==, hash, an f-string of the
    whole object) it cannot see; the drawings below read fields."""

    def __init__(self, of: Any, allowed: set[str] = PICTURED,
                 nested: dict[str, set[str]] | None = None) -> None:  # fmt: skip
        self._of, self._allowed = of, allowed
        self._nested = {"day": PICTURED_OF_THE_DAY} if nested is None else nested

    def __getattr__(self, name: str) -> Any:
        assert name in self._allowed, f"a picture reads {name}, which charts keeps it not by"
        got = getattr(self._of, name)
        return OnlyPictured(got, self._nested[name], {}) if name in self._nested else got


def test_a_day_s_pictures_read_only_what_they_are_kept_by(counted):
    result = counted["results"][0]
    day = result.day
    key = ("day", (day.day, day.opens, day.closes), result.count, result.ballots)
    assert charts._pictured(result) == key
    for draw in (charts.totals_figure, charts.flow_figure, charts.timeline_figure):
        draw(OnlyPictured(result))  # builds the figure, reading through the guard


def test_a_day_whose_threads_moved_keeps_its_pictures(counted, drawn):
    """The same day read from another address (the desk's next forum, a mended game file)
    is the same picture: drawn once; another close is another picture."""
    result = counted["results"][0]
    elsewhere = result.day.vote + "&moved=1"
    threads = {role: dataclasses.replace(ref, base=ref.base + "moved/")
               for role, ref in result.day.threads.items()}  # fmt: skip
    moved = dataclasses.replace(
        result, day=dataclasses.replace(result.day, vote=elsewhere, threads=threads))  # fmt: skip
    charts.svg(charts.flow_figure, result, salt="a")
    charts.svg(charts.flow_figure, moved, salt="a")
    assert drawn == ["flow_figure"]
    later = result.day.closes + timedelta(minutes=1)
    charts.svg(charts.flow_figure,
               dataclasses.replace(result, day=dataclasses.replace(result.day, closes=later)),
               salt="a")  # fmt: skip
    assert drawn == ["flow_figure", "flow_figure"]


def test_the_keys_the_reach_knows_are_a_day_s_keys(counted):
    """A key added to a day and not to DAY_KEYS would make every template draw everything
    (safe, and slow): the two are one list."""
    day = report._day(counted["results"][0], counted["game"])
    assert list(day) == [k for k in day if k in DAY_KEYS] and set(day) == DAY_KEYS


def test_a_forum_started_after_another_serves_at_its_address(tmp_path):
    """The tests' forums (tests/localforums.py) take the lowest of their worker's ports that
    is free: the next forum after one stopped has its address, so a page it serves again is
    read from the parse kept by the first, and a page changed there is read anew; a port
    something else serves on is passed over."""
    import socket

    from tally.forums import base
    from tally.forums.discuz import DiscuzPages

    from .localforums import ports

    with local_forum() as forum:
        url = vote_thread().serve(forum)
        base_url = forum.base
    parsed: list[str] = []
    real = DiscuzPages._parse_page

    def counting(self, text, tz, source, thread_id, boards):  # type: ignore[no-untyped-def]
        parsed.append(source)
        return real(self, text, tz, source, thread_id, boards)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(DiscuzPages, "_parse_page", counting)
        base.forget_parsed()
        changed = vote_thread()  # 冷月's ballot names 长夜, not 白桃
        changed.posts[1] = P("冷月", "2024-05-08 10:01:00", "投票对象：长夜\n投票理由：换人")
        after, totals = [], []
        for run, thread in enumerate([vote_thread(), vote_thread(), changed]):
            with local_forum() as forum:  # each run its own cache: each reads the forum
                assert forum.base == base_url
                assert thread.serve(forum) == url
                game = game_file(tmp_path, url)
                made = runner.invoke(app, ["votes", url, "--game", game, "--json",
                                           "--cache-dir", str(tmp_path / f"cache{run}")])  # fmt: skip
                assert made.exit_code == 0, made.output
                assert forum.page_requests
                after.append(len(parsed))
                totals.append(json.loads(made.stdout)["totals"])
    assert after[0] > 0 and after[1] == after[0]  # the second forum's pages: the first's parse
    assert after[2] > after[1] and totals[2] != totals[1] == totals[0]  # a changed page, read anew

    taken = int(base_url.rsplit(":", 1)[1].rstrip("/"))
    assert taken in ports()
    with socket.socket() as elsewhere:
        elsewhere.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past its last connections
        elsewhere.bind(("127.0.0.1", taken))
        elsewhere.listen()
        with local_forum() as forum:
            assert forum.base != base_url


def test_a_second_session_s_forums_take_ports_of_their_own(monkeypatch):
    """A session beside this one (another checkout's tests, or one started from this one's
    environment, which names this one's block) claims the next block of ports: this
    session's stays claimed while it runs, and the other's workers take their own."""
    from . import localforums

    assert localforums.VARIABLE in os.environ, "this session claimed no block of ports"
    mine = int(os.environ[localforums.VARIABLE])
    assert localforums.ports("gw0").start == mine + 1
    assert localforums.ports("gw1").start == mine + 1 + localforums.PER_WORKER
    monkeypatch.setenv(localforums.VARIABLE, str(mine))  # inherited: put back afterwards
    monkeypatch.setattr(localforums, "_CLAIM", [])  # the other session's first process
    localforums.claim_a_block()
    try:
        theirs = int(os.environ[localforums.VARIABLE])
        assert theirs != mine and (theirs - localforums.FIRST_PORT) % localforums.BLOCK == 0
    finally:
        localforums.release_the_block()


@pytest.mark.parametrize(("markexpr", "quick"), [
    ("not slow", True), ("rules and not slow", True), (None, False), ("", False),
    ("slow", False), ("not rules", False), ("not (", False),
])  # fmt: skip
def test_only_a_run_that_leaves_the_slow_tests_out_draws_fewer_examples(markexpr, quick):
    """The quick loop's property tests draw a quarter of the examples; the whole suite (CI's
    run, no -m) and any run that may hold a slow test draw them all (tests/runner.py)."""
    from types import SimpleNamespace

    from . import strategies
    from .runner import QUICK_EXAMPLES, _quick_loop

    config = SimpleNamespace(option=SimpleNamespace(markexpr=markexpr))
    assert _quick_loop(config) is quick  # type: ignore[arg-type]
    assert QUICK_EXAMPLES < strategies.EXAMPLES == 80
    asked = os.environ.get("TALLY_FUZZ_EXAMPLES")
    assert strategies.fuzz().max_examples == (int(asked) if asked else strategies.EXAMPLES)
