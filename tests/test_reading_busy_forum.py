"""Fetching under a busy forum: faults injected on a loopback server, a fake clock for waits."""

from __future__ import annotations

import gzip
import json
import os
import tracemalloc
import zlib
from datetime import UTC, datetime, timedelta

import pytest

from tally.cli import app
from tally.demo.localforum import LocalForum, Reply
from tally.environment import HttpOptions, cache_folder
from tally.errors import FetchError, InputError, TruncatedPageError
from tally.forums.cache import Cache, ThreadCache
from tally.forums.http import Http
from tally.forums.politeness import Robots

from .conftest import DISCUZ, FakeClock, Runner, read_one
from .localforums import local_forum
from .test_counting_whole_day import game_file, vote_thread

runner = Runner()


def serve_vote(forum: LocalForum) -> str:
    assert forum.add_discuz_thread("23", DISCUZ, "vote") == 2
    return forum.url("forum.php?mod=viewthread&tid=23")


# The vote thread's first HTML page (not the probe of the board's mobile interface, which
# asks its first floor: module=viewthread&tid=23&page=1&ppp=1).
PAGE_1 = "?mod=viewthread&tid=23&page=1"


def faults(forum: LocalForum, path_part: str, replies: list[Reply]) -> None:
    """The first requests whose path holds ``path_part`` get these replies, in order."""

    def hook(path: str) -> Reply | None:
        if path_part in path and replies:
            return replies.pop(0)
        return None

    forum.hook = hook


def test_503_503_200_gives_the_same_thread_in_three_requests(forum):
    url = serve_vote(forum)
    clean = read_one(url)
    forum.requests.clear()
    faults(forum, "page=2", [Reply(503, b"busy"), Reply(503, b"busy")])
    clock = FakeClock()
    again = read_one(url, env=clock.env(http=HttpOptions(host_delay=0, backoff=0.5)))
    assert again.posts == clean.posts
    assert forum.page_requests.count("/forum.php?mod=viewthread&tid=23&page=2") == 3
    # Exponential backoff with jitter: 0.5-1.0 s, then 1.0-2.0 s.
    waits = [s for s in clock.sleeps if s > 0]
    assert len(waits) == 2 and 0.5 <= waits[0] <= 1.0 and 1.0 <= waits[1] <= 2.0


def test_429_retry_after_is_waited_for(forum):
    url = serve_vote(forum)
    faults(forum, PAGE_1, [Reply(429, b"slow down", {"Retry-After": "7"})])
    clock = FakeClock()
    thread = read_one(url, env=clock.env())
    assert len(thread.posts) == 16
    assert 7.0 in clock.sleeps


def test_retry_after_beyond_the_ceiling_aborts(forum):
    url = serve_vote(forum)
    faults(forum, PAGE_1, [Reply(503, b"maintenance", {"Retry-After": "3600"})])
    with pytest.raises(
        FetchError,
        match=r"asks tally to come back in 3600 s \(Retry-After\), longer than the 120 s",
    ):
        read_one(url)


def test_read_timeout_is_retried(forum):
    url = serve_vote(forum)
    faults(forum, "page=2", [Reply(200, (DISCUZ / "vote-p2.html").read_bytes(), delay=0.4)])
    thread = read_one(url, http=HttpOptions(timeout=0.1))
    assert len(thread.posts) == 16
    assert forum.page_requests.count("/forum.php?mod=viewthread&tid=23&page=2") == 2


def test_connection_reset_is_retried(forum):
    url = serve_vote(forum)
    faults(forum, "page=2", [Reply(fault="reset")])
    thread = read_one(url)
    assert len(thread.posts) == 16
    assert forum.page_requests.count("/forum.php?mod=viewthread&tid=23&page=2") == 2


def test_gives_up_naming_the_url_and_the_last_failure(forum):
    url = serve_vote(forum)
    faults(forum, "page=2", [Reply(fault="reset")] * 3)
    with pytest.raises(
        FetchError,
        match=r"tid=23&page=2: gave up after 3 attempts \(last: (ReadError|RemoteProtocolError|ConnectError)",
    ):
        read_one(url, http=HttpOptions(attempts=3))


def test_body_cut_short_without_length_is_rejected(forum):
    url = serve_vote(forum)
    body = (DISCUZ / "vote-p2.html").read_bytes()
    cut = Reply(200, body[: len(body) // 2], fault="no-length")
    faults(forum, "page=2", [cut, cut, cut])
    with pytest.raises(TruncatedPageError, match=r"page=2 ends before the forum finished the page"):
        read_one(url)
    # Read three times (two retries), then refused.
    assert forum.page_requests.count("/forum.php?mod=viewthread&tid=23&page=2") == 3


def test_body_cut_short_once_is_read_again(forum):
    url = serve_vote(forum)
    body = (DISCUZ / "vote-p2.html").read_bytes()
    faults(forum, "page=2", [Reply(200, body[:5000], fault="no-length")])
    assert len(read_one(url).posts) == 16


def test_page_without_the_threads_markers_is_truncated(forum):
    url = serve_vote(forum)
    text = (DISCUZ / "vote-p2.html").read_text(encoding="utf-8").replace('id="postlist"', 'id="x"')
    forum.add_discuz_page("23", 2, text.encode())
    with pytest.raises(TruncatedPageError, match=r"lacks the thread's post list"):
        read_one(url)


def test_gzip_bomb_stops_at_the_cap_in_bounded_memory(forum):
    url = serve_vote(forum)
    # 64 MB of zeros in ~300 KB: sixteen times the cap, twice the memory the test allows.
    bomb = gzip.compress(b"\0" * (64 * 2**20), compresslevel=1)
    assert len(bomb) < 2**20
    forum.add_discuz_page(
        "23", 2, bomb, headers={"Content-Type": "text/html", "Content-Encoding": "gzip"}
    )
    tracemalloc.start()
    try:
        with pytest.raises(
            FetchError, match=r"page=2 unpacks to more than 4,194,304 bytes; tally stops there"
        ):
            read_one(url, http=HttpOptions(max_decoded=4 * 2**20))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20


def test_gzip_pages_are_read(forum):
    url = serve_vote(forum)
    for n in (1, 2):
        body = (DISCUZ / f"vote-p{n}.html").read_bytes()
        forum.add_discuz_page(
            "23",
            n,
            gzip.compress(body),
            headers={"Content-Type": "text/html; charset=utf-8", "Content-Encoding": "gzip"},
        )
    deflated = zlib.compress((DISCUZ / "vote-p2.html").read_bytes())
    forum.add_discuz_page(
        "23",
        2,
        deflated,
        headers={"Content-Type": "text/html; charset=utf-8", "Content-Encoding": "deflate"},
    )
    assert len(read_one(url).posts) == 16


def test_response_size_cap(forum):
    url = serve_vote(forum)
    with pytest.raises(FetchError, match=r"is larger than 10,000 bytes"):
        read_one(url, http=HttpOptions(max_bytes=10_000))


def test_page_count_cap(forum):
    url = serve_vote(forum)
    with pytest.raises(FetchError, match=r"has 2 pages, more than tally reads \(1\)"):
        read_one(url, max_pages=1)


@pytest.mark.parametrize("limit,seen", [(None, 4), (2, 2)])
def test_never_more_than_the_limit_in_flight(forum, limit, seen):
    assert forum.add_discuz_thread("24", DISCUZ, "talk") == 7
    forum.latency = 0.05
    options = HttpOptions() if limit is None else HttpOptions(max_in_flight=limit)
    read_one(forum.url("thread-24-1-1.html"), http=options)
    assert forum.max_in_flight == seen  # 4 by default, never more than the limit


def test_requests_to_one_host_are_spaced(forum):
    url = serve_vote(forum)
    clock = FakeClock()
    read_one(url, env=clock.env(http=HttpOptions(host_delay=0.5)))
    # robots.txt, the mobile interface's probe, page 1, page 2: each start waits for the one
    # before.
    assert clock.sleeps == [0.5, 0.5, 0.5]


# -- robots.txt ------------------------------------------------------------------------------


def test_discuz_default_robots_allows_thread_pages(forum):
    forum.add(
        "robots.txt",
        Reply(200, (DISCUZ / "robots.txt").read_bytes(), {"Content-Type": "text/plain"}),
    )
    url = serve_vote(forum)
    assert len(read_one(url).posts) == 16
    assert forum.requests.count("/robots.txt") == 1


def test_robots_disallow_is_respected(forum):
    forum.add(
        "robots.txt",
        Reply(200, b"User-agent: *\nDisallow: /forum.php\n", {"Content-Type": "text/plain"}),
    )
    url = serve_vote(forum)
    with pytest.raises(
        FetchError, match=r"robots.txt does not allow tally to read .*save the pages"
    ):
        read_one(url)
    assert forum.page_requests == []


def test_robots_rules():
    discuz = Robots((DISCUZ / "robots.txt").read_text(encoding="utf-8"))
    assert discuz.allows("/forum.php?mod=viewthread&tid=23&page=1")
    assert discuz.allows("/thread-23-1-1.html")
    assert not discuz.allows("/api/mobile/index.php?version=4&module=viewthread&tid=23")
    assert not discuz.allows("/forum.php?mod=redirect&goto=findpost&pid=1")
    assert not discuz.allows("/forum.php?mod=misc&action=commentmore&tid=23&pid=1")
    tieba = Robots("User-agent: Baiduspider\nAllow: /\n\nUser-agent: *\nDisallow: /\n")
    assert not tieba.allows("/p/8800123456?pn=1")
    own = Robots("User-agent: *\nDisallow: /\n\nUser-agent: tally\nAllow: /p/\nDisallow: /\n")
    assert own.allows("/p/1?pn=2") and not own.allows("/f?kw=x")


# -- cookies ---------------------------------------------------------------------------------


def cookie_file(tmp_path, domain: str, mode: int = 0o600):
    path = tmp_path / "cookies.txt"
    path.write_text(
        "# Netscape HTTP Cookie File\n"
        f"{domain}\tFALSE\t/\tFALSE\t2147483647\tcdb_auth\tsecret-login-token\n",
        encoding="utf-8",
    )
    os.chmod(path, mode)
    return path


def test_cookies_go_only_to_their_own_host_even_across_a_redirect(forum, tmp_path):
    with local_forum() as other:
        other.add_discuz_thread("23", DISCUZ, "vote")
        other_url = other.url("forum.php?mod=viewthread&tid=23&page=1").replace(
            "127.0.0.1", "localhost"
        )
        forum.add_discuz_page("23", 1, b"", status=302, headers={"Location": other_url})
        forum.add_discuz_page("23", 2, (DISCUZ / "vote-p2.html").read_bytes())
        cookies = cookie_file(tmp_path, "127.0.0.1")
        thread = read_one(forum.url("thread-23-1-1.html"), cookies=cookies)
        assert len(thread.posts) == 16
        sent_here = [h.get("Cookie") for h in forum.request_headers]
        assert sent_here and all(c == "cdb_auth=secret-login-token" for c in sent_here)
        assert other.request_headers and all("Cookie" not in h for h in other.request_headers)


def test_cookie_file_readable_by_others_is_refused(tmp_path):
    path = cookie_file(tmp_path, "127.0.0.1", mode=0o644)
    with pytest.raises(InputError, match=r"can be read by other users .* chmod 600"):
        Http(HttpOptions(), cookies=path)


def test_cookies_never_printed(forum, tmp_path):
    url = serve_vote(forum)
    path = cookie_file(tmp_path, "127.0.0.1")
    result = runner.invoke(
        app, ["archive", url, "-o", str(tmp_path / "x.csv"), "--cookies", str(path)]
    )
    assert result.exit_code == 0
    assert "secret-login-token" not in result.output and "secret-login-token" not in result.stderr


# -- the cache and re-runs ------------------------------------------------------------------


def test_rerun_on_an_unchanged_thread_downloads_at_most_two_pages(forum, tmp_path):
    assert forum.add_discuz_thread("24", DISCUZ, "talk") == 7
    cache = tmp_path / "cache"
    first = read_one(forum.url("thread-24-1-1.html"), cache_dir=cache)
    assert first.sources == ("network",) * 7
    forum.requests.clear()
    again = read_one(forum.url("thread-24-1-1.html"), cache_dir=cache)
    assert len(forum.page_requests) <= 2
    assert forum.page_requests == ["/forum.php?mod=viewthread&tid=24&page=7"]
    assert again.posts == first.posts
    assert again.sources.count("cache") == 6 and again.sources.count("network") == 1


def test_rerun_reads_new_pages_when_the_thread_grew(forum, tmp_path):
    url = vote_thread().serve(forum)  # 19 floors: 2 pages
    cache = tmp_path / "cache"
    read_one(url, cache_dir=cache)
    grown = vote_thread()
    from .discuzgen import P

    for i in range(5):
        grown.add(P("冷月", f"2024-05-09 21:0{i}:00", "顶"))
    grown.serve(forum)  # 24 floors: 3 pages
    forum.requests.clear()
    thread = read_one(url, cache_dir=cache)
    assert len(thread.posts) == 24
    assert sorted(forum.page_requests) == [
        "/forum.php?mod=viewthread&tid=102&page=2",
        "/forum.php?mod=viewthread&tid=102&page=3",
    ]


def test_pages_cached_before_the_close_are_fetched_again(forum, tmp_path):
    assert forum.add_discuz_thread("24", DISCUZ, "talk") == 7
    root = tmp_path / "cache"
    read_one(forum.url("thread-24-1-1.html"), cache_dir=root)
    forum.requests.clear()
    close = datetime.now(UTC) + timedelta(seconds=1)  # every page was cached before it
    thread = read_one(forum.url("thread-24-1-1.html"), cache_dir=root, not_before=close)
    assert len(forum.page_requests) == 7 and thread.sources == ("network",) * 7


def test_fresh_ignores_the_cache(forum, tmp_path):
    url = serve_vote(forum)
    read_one(url, cache_dir=tmp_path / "c")
    forum.requests.clear()
    read_one(url, cache_dir=tmp_path / "c", fresh=True)
    assert len(forum.page_requests) == 2


def test_conditional_requests_when_the_forum_supports_them(forum, tmp_path):
    url = serve_vote(forum)
    for n in (1, 2):
        forum.routes[f"discuz:23:{n}"].headers["ETag"] = f'"v{n}"'

    def hook(path: str) -> Reply | None:
        return None

    forum.hook = hook
    root = tmp_path / "c"
    read_one(url, cache_dir=root)
    seen: list[dict[str, str]] = []

    def not_modified(path: str) -> Reply | None:
        seen.append(dict(forum.request_headers[-1]))
        return Reply(304, b"") if "page=2" in path else None

    forum.hook = not_modified
    thread = read_one(url, cache_dir=root)
    assert thread.sources == ("cache", "revalidated")
    assert any(h.get("If-None-Match") == '"v2"' for h in seen)


def test_damaged_cache_is_never_used(forum, tmp_path):
    url = serve_vote(forum)
    root = tmp_path / "c"
    read_one(url, cache_dir=root)
    folder = next(root.iterdir())
    for body in folder.glob("*.body"):
        body.write_bytes(b"garbage")
    forum.requests.clear()
    thread = read_one(url, cache_dir=root)
    assert len(thread.posts) == 16 and len(forum.page_requests) == 2
    index = json.loads((folder / "index.json").read_text())
    assert index[""]["page_count"] == 2


@pytest.fixture
def written(monkeypatch):
    """The cache's files written, as folder/name, in order."""
    import tally.forums.cache as cache

    names: list[str] = []
    real = cache.write_atomic

    def write_atomic(path, data, *, durable=True):  # type: ignore[no-untyped-def]
        names.append(f"{path.parent.name}/{path.name}")
        real(path, data, durable=durable)

    monkeypatch.setattr(cache, "write_atomic", write_atomic)
    return names


def test_a_read_writes_its_threads_cache_index_once(forum, tmp_path, written):
    """Each page put in the cache changes the index; it is written once, at the read's end,
    with every page's entry and the page count."""
    url = serve_vote(forum)
    read_one(url, cache_dir=tmp_path)
    folder = next(f for f in tmp_path.iterdir() if not f.name.startswith("discuz~board"))
    assert written.count(f"{folder.name}/index.json") == 1
    index = json.loads((folder / "index.json").read_text())
    assert index[""]["page_count"] == 2
    assert sum(k.endswith(("page=1", "page=2")) for k in index) == 2
    assert len(list(folder.glob("*.body"))) == 2


def test_a_read_that_fails_keeps_the_pages_it_read_in_the_cache_index(forum, tmp_path):
    url = serve_vote(forum)
    faults(forum, "page=2", [Reply(404, b"gone")])
    with pytest.raises(FetchError, match=r"page=2 answered HTTP 404\."):
        read_one(url, cache_dir=tmp_path)
    folder = next(f for f in tmp_path.iterdir() if not f.name.startswith("discuz~board"))
    index = json.loads((folder / "index.json").read_text())
    [page_1] = [k for k in index if k.endswith("page=1")]
    kept = ThreadCache(folder).get(page_1)  # its body as the index's checksum says
    assert kept is not None and kept.body.startswith(b"<!DOCTYPE html>")


def test_a_page_fetched_again_unchanged_is_not_written_again_but_a_damaged_one_is(
    forum, tmp_path, written
):
    url = serve_vote(forum)
    read_one(url, cache_dir=tmp_path)
    folder = next(f for f in tmp_path.iterdir() if not f.name.startswith("discuz~board"))
    assert sum(w.startswith(f"{folder.name}/") and w.endswith(".body") for w in written) == 2
    later = datetime(2100, 1, 1, tzinfo=UTC)  # every page fetched again
    written.clear()
    forum.requests.clear()
    assert len(read_one(url, cache_dir=tmp_path, not_before=later).posts) == 16
    assert len(forum.page_requests) == 2
    assert not [w for w in written if w.endswith(".body")]
    assert written.count(f"{folder.name}/index.json") == 1  # the pages' new times
    for body in folder.glob("*.body"):
        body.write_bytes(b"garbage")
    read_one(url, cache_dir=tmp_path, not_before=later)
    assert sum(w.endswith(".body") for w in written) == 2
    index = json.loads((folder / "index.json").read_text())
    assert all(ThreadCache(folder).get(k) is not None for k in index if k)


def test_cache_folder_follows_xdg(tmp_path):
    assert cache_folder({"XDG_CACHE_HOME": str(tmp_path)}, "linux") == tmp_path / "tally"
    assert (
        Cache(tmp_path).thread("discuz", "bbs.example.com:8080", "23").folder.name
        == "discuz-bbs.example.com_8080-23"
    )


def test_cli_says_where_pages_came_from(forum, tmp_path):
    url = vote_thread().serve(forum)
    game = game_file(tmp_path, url)
    args = ["votes", url, "--game", game, "--cache-dir", str(tmp_path / "c")]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "thread 102: 2 page(s), 2 from the network" in first.stderr
    second = runner.invoke(app, args)
    # A count of a closed day reads every page from the forum, cached or not: a moderator
    # may have deleted or 屏蔽ed a floor of any page since.
    assert "thread 102: 2 page(s), 2 from the network" in second.stderr
    # The archive decides nothing: cached after the 2024 close, page 1 is reused; the last
    # page is always read.
    archive = runner.invoke(
        app, ["archive", url, "-o", str(tmp_path / "a.csv"), "--cache-dir", str(tmp_path / "c")]
    )
    assert "thread 102: 2 page(s), 1 from the network, 1 from the cache" in archive.stderr
    quiet = runner.invoke(app, [*args, "--quiet"])
    assert quiet.stderr == ""


def test_reply_count_mismatch_names_the_page(forum):
    url = serve_vote(forum)
    text = (DISCUZ / "vote-p1.html").read_text(encoding="utf-8")
    forum.add_discuz_page(
        "23", 1, text.replace('<span class="xi1">17</span>', '<span class="xi1">30</span>').encode()
    )
    with pytest.raises(
        FetchError,
        match=r"says it has 30 replies but tally read 15 \(and 2 comments\); page 2 may be incomplete",
    ):
        read_one(url)
