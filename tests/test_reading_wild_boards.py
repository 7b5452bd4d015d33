"""Boards in the wild (fixtures/discuz-wild/): other Discuz! versions, third-party themes and
pages kept by browsers and site copiers, each read to the exact floor, as saved files and
over HTTP. The expected floors are written by hand (fixtures/discuz-wild/expected/)."""

from __future__ import annotations

import re
import shutil
import tomllib
from datetime import datetime
from pathlib import Path

import pytest

from tally.errors import ParseError
from tally.forums import resolve_url
from tally.forums.boards import load_boards
from tally.forums.charset import decode_page
from tally.forums.discuz import Discuz
from tally.model import Thread

from .conftest import CHINA, FIXTURES, read, read_one, reader

WILD = FIXTURES / "discuz-wild"
# set → (expected, the script that serves its pages, its charset)
SETS = {
    "x35-24h": ("x35", "forum.php", "utf-8"),
    "x35-12h": ("x35", "forum.php", "utf-8"),
    "x35-rewrite": ("x35", "forum.php", "utf-8"),
    "x35-httrack": ("x35", "forum.php", "utf-8"),
    "x35-wget": ("x35", "forum.php", "utf-8"),
    "x34-browser": ("x34-browser", "forum.php", "utf-8"),
    "x34-edits": ("x34-edits", "forum.php", "utf-8"),
    "x2": ("x2", "forum.php", "utf-8"),
    "x32-gbk": ("x32-gbk", "forum.php", "gbk"),
    "d7-gbk": ("d7-gbk", "viewthread.php", "gbk"),
    "d7-gbk-pager": ("d7-gbk-pager", "viewthread.php", "gbk"),
    "d7-tc": ("d7-tc", "viewthread.php", "utf-8"),
    "comiis": ("comiis", "forum.php", "utf-8"),
    "weimei": ("weimei", "forum.php", "utf-8"),
    "viewbox": ("viewbox", "forum.php", "utf-8"),
}


def expected(name: str) -> dict:
    return tomllib.loads((WILD / "expected" / f"{name}.toml").read_text(encoding="utf-8"))


def rows(thread: Thread) -> list[list[object]]:
    return [
        [
            p.floor, p.post_id, p.author, p.author_id, p.time.replace(tzinfo=None),
            p.edited.at.replace(tzinfo=None) if p.edited else None,
        ]
        for p in thread.posts
    ]  # fmt: skip


def _when(at: str) -> datetime:
    return datetime.strptime(at, "%Y-%m-%d %H:%M:%S" if at.count(":") == 2 else "%Y-%m-%d %H:%M")


def written(want: dict) -> list[list[object]]:
    """The floors as written by hand: floor, pid, author, uid, time, and the edit mark's
    time when the post shows one."""
    out = []
    for floor, pid, author, uid, at, *edited in want["floors"]:
        # A member deleted since has a name and no uid ("").
        edit = _when(edited[0]) if edited else None
        out.append([floor, pid, author, uid or None, _when(at), edit])
    return out


def pages_of(name: str) -> list[Path]:
    return sorted(p for p in (WILD / name).iterdir() if p.suffix == ".html")


def page_number(path: Path, text: str) -> int:
    """Which page a fixture file is, from its name (p2.html, thread-1-2-1.html) — only to
    serve it; tally reads the number from the page."""
    m = re.search(r"(?:^p|thread-\d+-)(\d+)", path.name)
    return int(m.group(1)) if m else 1


def test_every_set_is_listed_in_the_readme():
    readme = (WILD / "README.md").read_text(encoding="utf-8")
    on_disk = {p.name for p in WILD.iterdir() if p.is_dir() and p.name != "expected"}
    assert on_disk == set(SETS)
    for name in SETS:
        assert f"`{name}/`" in readme


def test_every_page_made_from_a_real_board_names_its_source():
    """A set made by tools/wildpage.py says, page by page, where the real page came from
    (repository, path, commit, licence): a fixture no one can trace back is not one."""
    for name in SETS:
        readme = WILD / name / "README.md"
        if not readme.exists():
            continue  # rendered for these tests by the real X3.5, or written from templates
        rows = {
            cells[0].lstrip("| ").strip("`"): cells
            for line in readme.read_text(encoding="utf-8").splitlines()
            if line.startswith("| `") and len(cells := line.split(" | ")) >= 6
        }
        for page in pages_of(name):
            assert page.name in rows, f"{name}/{page.name} has no source row"
            _, repo, path, commit, licence = rows[page.name][:5]
            assert re.fullmatch(r"[\w.-]+/[\w.-]+", repo) and path.strip("`"), (name, page.name)
            assert re.fullmatch(r"[0-9a-f]{40}", commit) and licence, (name, page.name)


def missing(want: dict) -> tuple[str, ...]:
    """What a set that holds some pages of a longer thread lacks, as tally says it."""
    absent = [n for n in range(1, want["pages"] + 1) if n not in want.get("given", [])]
    if "given" not in want or not absent:
        return ()
    # The first ten named, the rest as "…" (page 1 of 281 alone: "pages 2, 3, …, 11 … of 281").
    shown = ", ".join(map(str, absent[:10])) + (" …" if len(absent) > 10 else "")
    return (f"page{'s' if len(absent) > 1 else ''} {shown} of {want['pages']}",)


@pytest.mark.parametrize("name", SETS)
def test_every_floor_exact_as_saved_files(name):
    want_name, _, _ = SETS[name]
    want = expected(want_name)
    profile = WILD / name / "boards.toml"
    [thread] = read(
        [str(p) for p in pages_of(name)],
        boards=profile if profile.exists() else None,
        partial="given" in want,  # one real page of a longer thread: what is there
    )
    assert thread.thread_id == want["thread_id"]
    assert thread.page_count == want["pages"]
    assert thread.missing == missing(want)
    if "replies" in want:
        assert thread.reply_count == want["replies"]
    assert rows(thread) == written(want)


@pytest.mark.parametrize("name", SETS)
def test_every_floor_exact_over_http(name, forum, tmp_path):
    want_name, script, charset = SETS[name]
    want = expected(want_name)
    tid = want["thread_id"]
    for path in pages_of(name):
        body = path.read_bytes()
        number = page_number(path, body.decode(charset))
        forum.add_discuz_page(
            tid, number, body, headers={"Content-Type": f"text/html; charset={charset}"}
        )
    profile = WILD / name / "boards.toml"
    boards = None
    if profile.exists():
        # The director's profile names the board's host; over HTTP the board is this one.
        boards = tmp_path / "boards.toml"
        boards.write_text(
            re.sub(r"hosts = \[[^]]*\]", 'hosts = ["127.0.0.1"]', profile.read_text("utf-8")),
            encoding="utf-8",
        )
    if script == "viewthread.php":
        url = forum.url(f"bbs/viewthread.php?tid={tid}")
    else:
        url = forum.url(f"forum.php?mod=viewthread&tid={tid}")
    if "given" in want:
        # The board's other pages are not here: each page given, read over HTTP alone.
        with reader(boards=boards) as r:
            for number in want["given"]:
                answer = r.page(f"{url}&page={number}")
                text = decode_page(answer.body, answer.headers.get("content-type"))
                page = Discuz().pages.parse_page(text, CHINA, source=url, boards=r.boards)
                assert (page.page, page.page_count) == (number, want["pages"])
                got = Thread("discuz", page.thread_id, url, page.title, page.page_count,
                             page.posts, page.reply_count)  # fmt: skip
                assert rows(got) == written(want)
        return
    thread = read_one(url, boards=boards)
    assert thread.page_count == want["pages"]
    assert rows(thread) == written(want)


@pytest.mark.rules("S2")
def test_a_12_hour_page_gives_the_times_of_its_24_hour_twin():
    """The real X3.5 with its clock set to 12 hours: 12:30 AM is 00:30, 01:05 PM is 13:05,
    12:00 AM the next day is midnight; an evening's ballots stay in the evening (S2: the
    forum's post times decide)."""
    [twelve] = read([str(p) for p in pages_of("x35-12h")])
    [twenty_four] = read([str(p) for p in pages_of("x35-24h")])
    assert "PM" in (WILD / "x35-12h" / "p1.html").read_text(encoding="utf-8")
    assert [(p.post_id, p.time) for p in twelve.posts] == [
        (p.post_id, p.time) for p in twenty_four.posts
    ]
    assert [p.time.hour for p in twelve.posts][:3] == [0, 12, 13]


@pytest.mark.parametrize("name", ["x35-httrack", "x35-wget", "x34-browser"])
def test_saved_copies_need_no_file_name(name, tmp_path):
    """Renamed to say nothing, a copier's pages still say which thread and page they are."""
    want = expected(SETS[name][0])
    copies = []
    for i, path in enumerate(reversed(pages_of(name))):
        copy = tmp_path / f"saved-{i}.htm"
        shutil.copy(path, copy)
        copies.append(str(copy))
    [thread] = read(copies, partial="given" in want)
    assert rows(thread) == written(want)


def _without_scripts(text: str) -> str:
    """What a saver that blocks scripts keeps: no <script>, no event handler attributes."""
    text = re.sub(r"<script\b.*?</script>", "", text, flags=re.S | re.I)
    return re.sub(r'\son\w+="[^"]*"', "", text)


def test_a_singlefile_page_names_its_thread_in_its_url_mark(tmp_path):
    """SingleFile drops the page's scripts (and so Discuz!'s tid variable); its header keeps
    the URL. Built from the real X3.5 page as SingleFile writes one: scripts removed, its
    comment first in <html>."""
    text = (WILD / "x35-rewrite" / "p2.html").read_text(encoding="utf-8")
    text = _without_scripts(text)
    text = re.sub(r'<link href="[^"]*" rel="canonical" />', "", text)
    text = re.sub(r'(href|action)="[^"]*(?:tid=1|thread-1-)[^"]*"', r'\1="#"', text)
    text = re.sub(r"(<html[^>]*>)", r"\1<!--\n Page saved with SingleFile \n url: "
                  r"http://127.0.0.1:8601/thread-1-2-1.html \n saved date: Mon Nov 30 2026\n-->",
                  text, count=1)  # fmt: skip
    rest = re.sub(r"Page saved with SingleFile.*?-->", "", text, flags=re.S)
    assert not re.search(r"tid=|tid = |thread-1-", rest)
    page = Discuz().pages.parse_saved(text, CHINA, source="singlefile.html")
    assert (page.thread_id, page.page) == ("1", 2)
    assert [p.floor for p in page.posts] == [11, 12, 13]


def test_a_browser_saved_page_names_its_thread_in_its_saved_from_mark():
    text = _without_scripts(pages_of("x34-browser")[0].read_text(encoding="utf-8"))
    text = re.sub(r"(href|action)=\"[^\"]*tid=[^\"]*\"", r'\1="#"', text)
    text = re.sub(r'<link href="[^"]*" rel="canonical"[^>]*>', "", text)
    page = Discuz().pages.parse_saved(text, CHINA, source="saved.html")
    assert page.thread_id == "117429"


def test_a_theme_without_floor_numbers_needs_the_boards_posts_per_page():
    """Without a profile's posts_per_page a floor is never guessed: the sentence names the
    theme tally recognised and what to add."""
    with pytest.raises(
        ParseError, match="has no floor number: the board's theme prints none"
    ) as caught:
        read([str(p) for p in pages_of("comiis")])
    said = str(caught.value)
    assert "has no floor number" in said and "comiis" in said and "posts_per_page" in said


def test_floors_by_place_stop_at_a_page_short_of_a_post(tmp_path):
    """A full page missing a post (deleted, hidden) would shift every floor after it."""
    text = pages_of("comiis")[0].read_text(encoding="utf-8")
    start = text.index('<div class="comiis_viewbox"><div id="post_15504"')
    end = text.index('<div class="comiis_viewbox"><div id="post_15507"')
    short = tmp_path / "p1.html"
    short.write_text(text[:start] + text[end:], encoding="utf-8")
    shutil.copy(pages_of("comiis")[1], tmp_path / "p2.html")
    with pytest.raises(ParseError, match="shows 4 posts where the board shows 5"):
        read([str(short), str(tmp_path / "p2.html")], boards=WILD / "comiis" / "boards.toml")


def test_a_profile_that_gives_too_few_posts_a_page_is_refused(tmp_path):
    boards = tmp_path / "boards.toml"
    boards.write_text(
        '[board.b]\nhosts = ["bbs.qingcheng.example"]\nposts_per_page = 4\n', encoding="utf-8"
    )
    with pytest.raises(ParseError, match="more than the 4 a page"):
        read([str(p) for p in pages_of("comiis")], boards=boards)


def test_a_board_profile_selector_is_tried_first(tmp_path):
    """A theme that writes the author where nothing of Discuz!'s own is left: the profile's
    selector reads it."""
    text = pages_of("x35-24h")[0].read_text(encoding="utf-8")
    # The theme shows the name in a span of its own and no profile link at all.
    text = re.sub(
        r'<a href="home\.php\?mod=space&amp;uid=\d+" target="_blank" class="xw1">([^<]+)</a>',
        r'<span class="nick">\1</span>',
        text,
    )
    text = re.sub(r'<div class="p_pop blk bui[^"]*" id="userinfo\d+".*?</div>\s*</div>\s*</div>',
                  "", text, flags=re.S)  # fmt: skip
    text = re.sub(r'<a href="home\.php\?mod=space[^"]*"[^>]*>[^<]*</a>', "", text)
    page_file = tmp_path / "p1.html"
    page_file.write_text(text, encoding="utf-8")
    boards = tmp_path / "boards.toml"
    boards.write_text(
        '[board.nick]\nhosts = ["127.0.0.1"]\n[board.nick.selectors]\nauthor = ["span.nick"]\n',
        encoding="utf-8",
    )
    page = Discuz().pages.parse_saved(
        text, CHINA, source=str(page_file), boards=load_boards(boards)
    )
    assert [p.author for p in page.posts][:3] == ["admin", "alice", "bob"]
    assert [p.author_id for p in page.posts][:3] == [None, None, None]


def test_discuz_6_and_7_urls_resolve_to_their_own_pages():
    _, ref = resolve_url("http://www.gulou.example/bbs/viewthread.php?tid=30517&extra=&page=2")
    platform = Discuz()
    assert (ref.thread_id, ref.page) == ("30517", 2)
    assert (
        platform.page_url(ref, 3) == "http://www.gulou.example/bbs/viewthread.php?tid=30517&page=3"
    )
    assert "redirect.php?goto=findpost" in platform.post_url(ref, "401007")


def test_a_gbk_page_is_read_as_gbk():
    path = pages_of("d7-gbk")[0]
    assert "田西千生五" not in path.read_bytes().decode("latin-1")
    text = decode_page(path.read_bytes(), None, source=str(path))
    assert "田西千生五" in text


@pytest.mark.rules("S2")
def test_a_board_whose_clock_shows_another_zone(tmp_path):
    """A board that prints its times in UTC (its footer says "GMT, …"): its profile says
    so, and the times are the same wall clock read 8 hours later than China's (S2: the
    forum's post times, read in the zone the forum shows)."""
    boards = tmp_path / "boards.toml"
    boards.write_text('[board.utc]\nhosts = ["127.0.0.1"]\ntimezone = "UTC"\n', "utf-8")
    pages = []
    for page in pages_of("x35-24h"):
        copy = tmp_path / page.name
        copy.write_text(page.read_text("utf-8").replace("GMT+8, ", "GMT, "), "utf-8")
        pages.append(str(copy))
    [utc] = read(pages, boards=boards)
    [china] = read([str(p) for p in pages_of("x35-24h")])
    first_utc, first_china = utc.posts[0].time, china.posts[0].time
    assert first_utc.replace(tzinfo=None) == first_china.replace(tzinfo=None)
    assert (first_utc - first_china).total_seconds() == 8 * 3600


@pytest.mark.rules("S2")
@pytest.mark.parametrize(
    ("shown", "meant"),
    [
        ("2026-3-5 12:30 AM", "2026-03-05 00:30:00"),
        ("2026-3-5 12:10 PM", "2026-03-05 12:10:00"),
        ("2026-3-5 01:05 PM", "2026-03-05 13:05:00"),
        ("2026-3-5 11:55 pm", "2026-03-05 23:55:00"),
        ("2010-5-21 01:43:58 PM", "2010-05-21 13:43:58"),
        ("2010-5-21 下午 01:43", "2010-05-21 13:43:00"),
        ("2024年5月6日 上午9:31", "2024-05-06 09:31:00"),
        ("2026-3-5 09:10 P.M.", "2026-03-05 21:10:00"),
        ("发表于 2026-3-5 20:05", "2026-03-05 20:05:00"),
    ],
)
def test_twelve_hour_clocks_are_read_for_the_moment_they_mean(shown, meant):
    from tally.forums.timeparse import parse_forum_time

    assert parse_forum_time(shown, CHINA) == datetime.fromisoformat(meant).replace(tzinfo=CHINA)


@pytest.mark.parametrize(
    "shown", ["2026-3-5 13:05 PM", "2026-3-5 00:30 AM", "2026-3-5 下午 01:05 PM"]
)
def test_a_twelve_hour_time_that_cannot_be_is_refused(shown):
    from tally.forums.timeparse import parse_forum_time

    with pytest.raises(
        ParseError, match=r"can name on a 12-hour clock|names the half of the day twice"
    ):
        parse_forum_time(shown, CHINA)
