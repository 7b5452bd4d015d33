"""Two runs reading one thread at once (a watch and a count, a co-director's count beside the
director's): each keeps its pages in the thread's history, and neither is taken for the
other's (issue 49 l). Two counts reading a two-page vote thread for the first time after the
close interleaved their pages' times, and the third count took the first run's page 1 alone
for a whole read: every ballot on page 2 was "approved late"."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import replace as swap
from datetime import UTC, datetime
from pathlib import Path

import pytest
import typer.main

from tally.cli import app
from tally.environment import Environment, HttpOptions
from tally.forums.cache import Cache, ThreadCache
from tally.model import History, Thread, Version

from .conftest import FOLDERS, quiet_environ, read_one
from .discuzgen import P
from .forking import ended, forked
from .test_cards_audit import NO_ELECTION, PLAYERS, Game, at, cli
from .test_reading_busy_forum import serve_vote
from .votekit import T, game, vote
from .votekit import at as when


def two_pages(forum, tmp_path):  # type: ignore[no-untyped-def]
    """A closed day whose vote thread fills two pages (10 floors a page): 甲's and 乙's
    ballots on page 2."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    votes = g.votes(301, 1, opens, [("丙", "甲"), ("丁", "甲"), ("戊", "丙"), ("己", "甲")])
    for i in range(6):
        votes.add(P("丙", at(opens, 60 + i), f"闲聊{i}"))
    votes.add(P("甲", at(opens, 90), "投票对象：丙\n投票理由：page 2"))
    votes.add(P("乙", at(opens, 91), "投票对象：丙\n投票理由：page 2"))
    talk = g.talk(201, 1, opens, dict.fromkeys(PLAYERS, 12))
    g.day(1, opens, "2024-05-09 21:30", talk, votes)
    return g, g.write()


def test_two_counts_at_once_keep_both_reads_and_raise_no_approved_late(forum, tmp_path):
    g, game_file = two_pages(forum, tmp_path)
    # Each run reads page 1 before either reads page 2: their pages' times interleave.
    firsts, both_read_page_1 = [], threading.Event()

    def hold(path, headers, body):  # type: ignore[no-untyped-def]
        if "tid=301" in path:
            if "page=" not in path or "page=1&" in path or path.endswith("page=1"):
                firsts.append(path)
                if len(firsts) >= 2:
                    both_read_page_1.set()
            else:
                both_read_page_1.wait(10)
        return None

    forum.request_hook = hold
    own = Environment(config_dir=FOLDERS.config, cache_dir=FOLDERS.cache,
                      environ=quiet_environ(NO_COLOR="1"))  # fmt: skip
    command = typer.main.get_command(app)
    args = ["votes", g.vote_urls[1], "--game", game_file, "--json", "-q"]
    pids = [forked(lambda: command(args, prog_name="tally", obj=own), tmp_path / f"run{i}")
            for i in range(2)]  # fmt: skip
    done = [ended(pid, tmp_path / f"run{i}") for i, pid in enumerate(pids)]
    assert [d.returncode for d in done] == [0, 0], [d.stderr for d in done]
    assert both_read_page_1.is_set()
    for d in done:
        assert "approved late" not in d.stdout
    # Both reads are in the history, each with both its pages.
    [folder] = [f for f in FOLDERS.cache.iterdir() if f.name.endswith("-301")]
    listed = json.loads((folder / "history.json").read_text(encoding="utf-8"))
    reads = {e[3] for e in listed}
    assert len(reads) == 2 and sorted(e[0] for e in listed) == [1, 1, 2, 2]
    # And a count after them finds nothing approved late either.
    forum.request_hook = None
    data = json.loads(cli(*args).stdout)
    assert [f for f in data["flags"] if f["rule"] == "approved late"] == []
    [jia] = [b for b in data["ballots"] if b["voter"] == "甲"]
    assert jia["status"] == "counted"


def test_two_reads_at_once_each_lose_nothing_of_the_history(forum, tmp_path):
    """Thirty runs keeping their pages at once, each through its own cache (as processes
    do): every listing lands."""
    store = [Cache(tmp_path).thread("discuz", "bbs.example.com", "7") for _ in range(30)]
    start = threading.Barrier(30)

    def keep(i: int) -> None:
        start.wait()
        for page in (1, 2):
            store[i].store_version(page, f'[{{"post": {i}, "page": {page}}}]'.encode(),
                          when(f"09 22:{i:02d}"), f"read{i}")  # fmt: skip

    runs = [threading.Thread(target=keep, args=(i,)) for i in range(30)]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    listed = json.loads((Path(tmp_path) / store[0].folder.name / "history.json").read_text())
    assert sorted((e[3], e[0]) for e in listed) == sorted(
        (f"read{i}", page) for i in range(30) for page in (1, 2)
    )


def test_interleaved_reads_are_told_apart_by_their_ids():
    """The rule on a history as two runs keep it: run A's and run B's pages interleave in
    time, and each is a whole read; a ballot on page 2 is in both."""
    from tally.rules.counting.votes import tally_day

    t = T()
    for i in range(12):
        t.post("甲" if i == 11 else "乙", f"08 10:{i:02d}", vote("丙") if i == 11 else "聊")
    posts = tuple(swap(p, page=1 if p.floor <= 10 else 2) for p in t.posts)
    one, two = posts[:10], posts[10:]
    history = History((
        Version(1, when("09 21:40:00"), one, "a"), Version(1, when("09 21:40:01"), one, "b"),
        Version(2, when("09 21:40:02"), two, "a"), Version(2, when("09 21:40:03"), two, "b"),
        Version(1, when("09 23:00"), one, "c"), Version(2, when("09 23:00"), two, "c"),
    ))  # fmt: skip
    thread = swap(t.thread(), posts=posts, page_count=2, history=history, read_at=when("09 23:00"))
    assert "approved late" not in [f.rule for f in tally_day(thread, game(), 2).flags]
    # Held at both reads and approved since: flagged, as before.
    held = tuple(p for p in two if p.author != "甲")
    history = History((
        Version(1, when("09 21:40:00"), one, "a"), Version(1, when("09 21:40:01"), one, "b"),
        Version(2, when("09 21:40:02"), held, "a"), Version(2, when("09 21:40:03"), held, "b"),
        Version(1, when("09 23:00"), one, "c"), Version(2, when("09 23:00"), two, "c"),
    ))  # fmt: skip
    thread = swap(thread, history=history)
    flags = [f for f in tally_day(thread, game(), 2).flags if f.rule == "approved late"]
    assert [f.player for f in flags] == ["甲"]


def test_a_read_whose_unchanged_page_a_later_read_moved_on_is_still_whole():
    """A page unchanged at three reads keeps its first listing and its last (cache.keep):
    the middle read lost its listing of page 1 and still read it as the two around it."""
    from tally.rules.counting.votes import tally_day

    t = T()
    for i in range(12):
        t.post("乙", f"08 10:{i:02d}", "聊")
    t.post("甲", "09 21:00", vote("丙"))  # held for 审核 at the read of 21:40
    posts = tuple(swap(p, page=1 if p.floor <= 10 else 2) for p in t.posts)
    one, two = posts[:10], posts[10:]
    history = History((
        Version(1, when("09 20:00"), one, "before"), Version(2, when("09 20:00"), two[:-1], "before"),
        Version(2, when("09 21:40"), two[:-1], "a"),  # its page 1 listing moved on to c's
        Version(1, when("09 23:00"), one, "c"), Version(2, when("09 23:00"), two, "c"),
    ))  # fmt: skip
    thread = swap(t.thread(), posts=posts, page_count=2, history=history, read_at=when("09 23:00"))
    flags = [f for f in tally_day(thread, game(), 2).flags if f.rule == "approved late"]
    assert [f.player for f in flags] == ["甲"]
    assert "tally read it 05-09 21:40" in flags[0].note


@pytest.mark.parametrize("held_at", ["its last page", "the posts it found"])
def test_a_read_ending_after_another_keeps_the_others_pages_in_the_cache_index(
    forum, tmp_path, monkeypatch, held_at
):
    """A poll (page 2 from the forum, page 1 from the cache as read before the close) and a
    count after the close (every page from the forum) at once, the poll ending last, held
    at the forum's answer of its last page or once its pages are read, at the posts first
    read in the thread: the index the poll writes at its end keeps the count's pages as the
    count read them, and --offline counts from them (it said page 1 "was cached before the
    close")."""
    url = serve_vote(forum)
    root = tmp_path / "c"
    # Before the close: stamped by a clock that no wait between requests moves on.
    read_one(url, cache_dir=root, http=HttpOptions(host_delay=0))
    time.sleep(0.01)
    close = datetime.now(UTC)
    asked, counted = threading.Event(), threading.Event()
    polled: list[Thread] = []
    poll = threading.Thread(target=lambda: polled.append(read_one(url, cache_dir=root)))

    def hold(path, headers, body):  # type: ignore[no-untyped-def]
        if path.endswith("tid=23&page=2") and not asked.is_set():  # the poll's, the first
            asked.set()
            counted.wait(10)
        return None

    real = ThreadCache.note_post_ids

    def note_post_ids(self, ids):  # type: ignore[no-untyped-def]
        if threading.current_thread() is poll:
            asked.set()
            counted.wait(10)
        real(self, ids)

    if held_at == "its last page":
        forum.request_hook = hold
    else:
        monkeypatch.setattr(ThreadCache, "note_post_ids", note_post_ids)
    poll.start()
    assert asked.wait(10)
    count = read_one(url, cache_dir=root, not_before=close)
    counted.set()
    poll.join(10)
    assert [p.sources for p in polled] == [("cache", "network")]
    assert count.sources == ("network", "network")
    offline = read_one(url, cache_dir=root, offline=True, not_before=close)
    assert len(offline.posts) == 16 and offline.sources == ("cache", "cache")


def test_of_a_page_two_runs_fetched_the_index_keeps_the_later_fetch_and_its_body(tmp_path):
    """The index a read writes at its end keeps, of a page another run fetched and kept in
    the meantime, the later fetch, whose body is the one on disk; a page no other run
    changed since is this read's, whatever the clocks say (a run after it on a clock set
    back keeps its own)."""
    cache, url = Cache(tmp_path), "https://bbs.example.com/forum.php?mod=viewthread&tid=7&page=1"
    one, two = (cache.thread("discuz", "bbs.example.com", "7") for _ in range(2))
    one.put(url, b"<html>as read first</html>", when("09 21:00"), {})
    with one.index_held():
        one.put(url + "2", b"<html>page 2</html>", when("09 21:59"), {})
        one.put(url, b"<html>as the poll read it</html>", when("09 22:00"), {})
        two.put(url, b"<html>as the count read it</html>", when("09 22:01"), {})
        two.set_page_count(3)
        one.set_page_count(2)
    again = cache.thread("discuz", "bbs.example.com", "7")
    [kept, second] = again.get(url), again.get(url + "2")
    assert kept is not None and kept.body == b"<html>as the count read it</html>"
    assert second is not None and again.page_count == 2
    later = cache.thread("discuz", "bbs.example.com", "7")
    later.put(url, b"<html>read on a clock set back</html>", when("09 21:30"), {})
    kept = cache.thread("discuz", "bbs.example.com", "7").get(url)
    assert kept is not None and kept.body == b"<html>read on a clock set back</html>"
