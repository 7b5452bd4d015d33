"""The fetch path over real HTTP on loopback, against the real Discuz! pages."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tally.demo.localforum import Reply
from tally.environment import HttpOptions
from tally.errors import FetchError, InputError, NotAThreadError, ParseError, TruncatedPageError

from .conftest import DISCUZ, FakeClock, read, read_one


def serve_talk(forum):
    assert forum.add_discuz_thread("24", DISCUZ, "talk") == 7


@pytest.mark.parametrize(
    "path",
    [
        "forum.php?mod=viewthread&tid=24",
        "forum.php?mod=viewthread&tid=24&extra=page%3D1&page=5",
        "forum.php?mod=viewthread&tid=24&authorid=20",
        "thread-24-1-1.html",
        "thread-24-7-1.html",
    ],
)
def test_every_page_of_the_thread_is_read(forum, path):
    serve_talk(forum)
    progress = []
    thread = read_one(forum.url(path), progress=lambda d, t: progress.append((d, t)))
    assert thread.thread_id == "24" and thread.page_count == 7
    assert [p.floor for p in thread.posts] == list(range(1, 66))
    assert len({p.post_id for p in thread.posts}) == 65
    assert sum(len(p.comments) for p in thread.posts) == 1
    assert sorted(forum.page_requests) == sorted(
        f"/forum.php?mod=viewthread&tid=24&page={n}" for n in range(1, 8)
    )
    assert progress[0] == (1, 7) and progress[-1] == (7, 7)


def test_user_agent_names_tally(forum):
    serve_talk(forum)
    read_one(forum.url("thread-24-1-1.html"))
    agents = {h["User-Agent"] for h in forum.request_headers}
    assert len(agents) == 1 and agents.pop().startswith("tally/")


def test_gbk_page_with_meta_charset_only(forum):
    """A GBK board: the HTTP header names no charset, the <meta> does; decoded as GB18030."""
    html = (DISCUZ / "vote-p1.html").read_text(encoding="utf-8")
    html = html.replace(
        '<meta charset="utf-8" />',
        '<meta http-equiv="Content-Type" content="text/html; charset=gbk" />',
    )
    # 㐀 is outside GBK but inside GB18030, as on real GBK boards.
    html = html.replace("投票理由：看发言", "投票理由：看发言㐀", 1)
    for page, text in ((1, html), (2, (DISCUZ / "vote-p2.html").read_text(encoding="utf-8"))):
        forum.add_discuz_page(
            "23",
            page,
            text.replace('<meta charset="utf-8" />', '<meta charset="gbk" />').encode("gb18030"),
            headers={"Content-Type": "text/html"},
        )
    thread = read_one(forum.url("forum.php?mod=viewthread&tid=23"))
    assert thread.posts[1].text == "投票对象：长夜\n投票理由：看发言㐀"
    assert thread.posts[-1].author == "老K"


def test_header_charset_wins_over_meta(forum):
    html = (DISCUZ / "progress-p1.html").read_text(encoding="utf-8")
    forum.add_discuz_page(
        "26", 1, html.encode("gb18030"), headers={"Content-Type": "text/html; charset=GBK"}
    )
    thread = read_one(forum.url("thread-26-1-1.html"))
    assert thread.posts[1].text == "申请加速"


def test_missing_thread_404_is_one_sentence(forum):
    forum.add_discuz_page("99999", 1, (DISCUZ / "missing-p1.html").read_bytes(), status=404)
    with pytest.raises(NotAThreadError, match="does not exist or was deleted"):
        read_one(forum.url("forum.php?mod=viewthread&tid=99999"))


def test_permission_page(forum):
    forum.add_discuz_page("27", 1, (DISCUZ / "readperm-p1.html").read_bytes())
    with pytest.raises(NotAThreadError, match="guest"):
        read_one(forum.url("thread-27-1-1.html"))


def test_login_redirect(forum):
    login = (
        (DISCUZ / "readperm-p1.html")
        .read_text(encoding="utf-8")
        .replace("抱歉，本帖要求阅读权限高于 100 才能浏览", "您需要先登录才能继续本操作")
    )
    forum.add("member.php?mod=logging&action=login", Reply(200, login.encode()))
    forum.add_discuz_page(
        "28", 1, b"", status=302, headers={"Location": "/member.php?mod=logging&action=login"}
    )
    with pytest.raises(NotAThreadError, match="logged-in account"):
        read_one(forum.url("thread-28-1-1.html"))


def test_challenge_page(forum):
    forum.add_discuz_page(
        "29",
        1,
        b"<html><title>Just a moment...</title><body>"
        b"<div id=challenge-platform></div></body></html>",
        status=503,
    )
    with pytest.raises(NotAThreadError, match="anti-scraping"):
        read_one(forum.url("thread-29-1-1.html"))


def test_missing_middle_page_aborts(forum):
    serve_talk(forum)
    del forum.routes["discuz:24:4"]
    with pytest.raises(FetchError, match=r"page=4 answered HTTP 404"):
        read_one(forum.url("thread-24-1-1.html"))


def test_server_error_names_the_page(forum):
    serve_talk(forum)
    forum.add_discuz_page("24", 3, b"oops", status=500)
    with pytest.raises(
        FetchError, match=r"tid=24&page=3: gave up after 2 attempts \(last: HTTP 500\)"
    ):
        read_one(forum.url("thread-24-1-1.html"), http=HttpOptions(attempts=2))


def test_page_past_the_end_served_as_last_page_is_refused(forum):
    serve_talk(forum)
    forum.add_discuz_page("24", 6, (DISCUZ / "talk-p7.html").read_bytes())
    with pytest.raises(ParseError, match="returned page 7 instead of page 6"):
        read_one(forum.url("thread-24-1-1.html"))


def test_truncated_page_aborts(forum):
    serve_talk(forum)
    body = (DISCUZ / "talk-p3.html").read_bytes()
    forum.add_discuz_page("24", 3, body[: len(body) // 2])
    with pytest.raises(TruncatedPageError, match="page=3"):
        read_one(forum.url("thread-24-1-1.html"))


def test_unreachable_forum():
    fast = FakeClock().env(http=HttpOptions(attempts=2))
    with pytest.raises(
        FetchError,
        match=r"^cannot reach 127\.0\.0\.1:9 \(connection refused\); check the address, and that "
        r"the forum is up \(tried 2 times\)\.$",
    ):
        read_one("http://127.0.0.1:9/thread-1-1-1.html", env=fast)


def test_saved_files_are_read_like_urls(tmp_path):
    paths = [str(DISCUZ / "vote-p2.html"), str(DISCUZ / "vote-p1.html")]
    [thread] = read(paths)
    assert thread.thread_id == "23" and thread.page_count == 2
    assert [p.floor for p in thread.posts] == list(range(1, 17))
    assert thread.sources == ("file", "file")


def test_saved_files_missing_a_page(tmp_path):
    with pytest.raises(InputError, match=r"thread 24 has 7 pages but page\(s\) 2, 3, 4, 5, 6, 7"):
        read([str(DISCUZ / "talk-p1.html")])


def test_neither_url_nor_file():
    with pytest.raises(InputError, match="neither a thread URL nor a saved page"):
        read(["no-such-file.html"])


def test_offline_stands_as_of_the_read_the_cache_holds_not_the_run(forum, tmp_path):
    """--offline counts the pages an earlier read kept: the thread is known up to that read
    (its as_of, which decides whether a count is provisional and what a standing is headed
    "截至"), not up to the moment --offline runs, an hour later with no page read since."""
    serve_talk(forum)
    url = forum.url("thread-24-1-1.html")
    clock = FakeClock()
    live = read_one(url, env=clock.env(cache_dir=tmp_path), cache_dir=tmp_path)
    assert live.as_of is not None and abs((live.as_of - clock.t).total_seconds()) < 5
    later = FakeClock(clock.t + timedelta(hours=1))
    offline = read_one(url, env=later.env(cache_dir=tmp_path), cache_dir=tmp_path, offline=True)
    assert set(offline.sources) == {"cache"} and offline.posts == live.posts
    assert offline.as_of == live.as_of
