"""The day's vote thread merged INTO its discussion thread (合并), on pages a real Discuz! X3.5
rendered (fixtures/discuz-x35-changes/merge-into-*).

A moderator's topicadmin action=merge keeps the target thread's tid: merged into the
discussion thread (tid 3), the vote thread (tid 4) answers "主题不存在", and the director
points the day's vote at the discussion thread. tally then counted the discussion's own
`投票对象` lines as ballots and took the real ballots, first read in the old vote thread, for
posts moved in (never counted): carol's and dave's discussion lines put alice out with exit
0 (found on the real X3.5). The cache now keeps what each thread was read as on each day;
from it the posts first read in the day's vote thread are the ballots (S2), those first read
as the discussion's are not, and where it cannot tell it stops.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tally.cli import app
from tally.environment import HttpOptions
from tally.rules.verdicts import Status

from .conftest import CHINA, FIXTURES, FakeClock, Runner
from .gamefiles import day, write_game

CHANGES = FIXTURES / "discuz-x35-changes"
runner = Runner()


def page(name: str) -> bytes:
    return (CHANGES / f"merge-into-{name}-guest.html").read_bytes()


def _game(tmp_path: Path, forum, vote: str, rulings: Sequence[Mapping] = ()) -> str:  # type: ignore[no-untyped-def]
    """Day 2: the discussion thread 3 and the vote thread ``vote`` (4, or 3 once the director
    pointed the vote at the thread it was merged into)."""
    path = write_game(
        tmp_path / f"game-{vote}.toml",
        day(2, forum.url(f"forum.php?mod=viewthread&tid={vote}"), "2026-12-02T06:00:00",
            "2026-12-02T12:00:00", discussion=forum.url("forum.php?mod=viewthread&tid=3")),
        name="反向合并局", ruleset="default", directors=[{"name": "admin", "id": 1}],
        players=[{"name": n, "id": i} for i, n in
                 enumerate(("alice", "bob", "carol", "dave", "eve"), start=2)],
        rulings=rulings,
    )  # fmt: skip
    return str(path)


CLOCK = datetime(2026, 12, 2, 12, 5, tzinfo=CHINA).astimezone(UTC)
# The runs after the merge, a quarter of an hour after the reads before it: the ballots it
# brings into the discussion thread are older than tally's last read of it.
LATER = CLOCK + timedelta(minutes=15)


def _run(*args: str, at: datetime = LATER):  # type: ignore[no-untyped-def]
    env = FakeClock(at).env(http=HttpOptions(host_delay=0))  # type: ignore[arg-type]
    return runner.invoke(app, list(args), obj=env)


def _read_then_merge(forum, tmp_path: Path, vote_page: str = "vote-later") -> list[str]:  # type: ignore[no-untyped-def]
    """`tally lurkers` reads the discussion thread (3) and the vote thread (4, as
    ``vote_page``), then the moderator merges 4 into 3: the options of a run after it."""
    cache = ["--cache-dir", str(tmp_path / "cache")]
    forum.add_discuz_page("3", 1, page("discussion-before"))
    forum.add_discuz_page("4", 1, page(vote_page))
    before = _run("lurkers", "--game", _game(tmp_path, forum, "4"), "--day", "2", "--no-write",
                  *cache, at=CLOCK)  # fmt: skip
    assert before.exit_code == 0, before.output
    forum.routes.clear()
    forum.add_discuz_page("3", 1, page("merged"))
    forum.add_discuz_page("4", 1, page("gone"), status=404)  # as the real X3.5 answers
    return cache


def _said(result) -> list[str]:  # type: ignore[no-untyped-def]
    """What tally said on standard error (its progress lines left out): one sentence."""
    return [line for line in result.stderr.splitlines() if line.startswith("tally:")]


def _votes(forum, tmp_path: Path, cache: list[str], rulings: Sequence[Mapping] = ()):  # type: ignore[no-untyped-def]
    game = _game(tmp_path, forum, "3", rulings)
    return _run("votes", forum.url("forum.php?mod=viewthread&tid=3"), "--game", game, "--json",
                *cache)  # fmt: skip


@pytest.mark.rules("S2", "V1", "C5")
def test_a_vote_thread_merged_into_the_discussion_thread_counts_its_own_ballots(forum, tmp_path):
    """The ballots first read in the vote thread (floors 6-9 now) are counted, each flagged
    `moved in from the vote thread`; carol's and dave's `投票对象：alice` lines of the
    discussion (floors 2, 4) are discussion posts, never counted: carol is out, not alice."""
    cache = _read_then_merge(forum, tmp_path)
    result = _votes(forum, tmp_path, cache)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    rows = [(b["floor"], b["author"], b["status"]) for b in data["ballots"]]
    assert rows == [(2, "carol", "discussion"), (3, "eve", "discussion"), (4, "dave", "discussion"),
                    (6, "alice", "counted"), (7, "bob", "counted"), (8, "eve", "counted"),
                    (9, "carol", "counted")]  # fmt: skip
    counted = {b["voter"]: b["target"] for b in data["ballots"] if b["status"] == "counted"}
    assert counted == {"alice": "carol", "bob": "carol", "eve": "dave", "carol": "eve"}
    assert data["outcome"] == data["outcome"] | {"result": "eliminated", "player": "carol"}
    assert data["not_voted"] == ["dave"]
    moved = [f["floor"] for f in data["flags"] if f["rule"] == "moved in from the vote thread"]
    assert moved == [6, 7, 8, 9]
    assert not [f for f in data["flags"] if f["rule"] == "moved in"]


@pytest.mark.rules("L1", "L3")
def test_ballots_merged_into_the_discussion_thread_are_no_discussion_posts(forum, tmp_path):
    """`tally lurkers` after the merge: the ballots first read in the vote thread stand in
    the discussion thread now, and are ballots (alice and bob voted; no L3 card), not
    discussion posts (alice 0, bob 0, eve 1: her chat, not her ballot)."""
    cache = _read_then_merge(forum, tmp_path)
    game = _game(tmp_path, forum, "3")
    result = _run("lurkers", "--game", game, "--day", "2", "--no-write", "--json", *cache)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    text = json.dumps(data, ensure_ascii=False)
    posts = {p["player"]: p["posts"] for p in data["players"]}
    assert posts == {"alice": 0, "bob": 0, "carol": 1, "dave": 1, "eve": 1}, text
    no_vote = sorted(c["player"] for c in data["cards"] if c["rule"] == "L3")
    assert no_vote == ["dave"], text


@pytest.mark.rules("S2", "V7")
def test_a_ballot_tally_never_read_before_the_merge_stops_until_ruled_on(forum, tmp_path):
    """carol's ballot (post 18) was posted in the vote thread after tally's last read of
    it, then merged: tally cannot tell it from a discussion post, and stops (on every run,
    not only the first) naming the floor and the ruling; ruled on, it counts."""
    cache = _read_then_merge(forum, tmp_path, vote_page="vote-before")
    for _ in range(2):
        result = _votes(forum, tmp_path, cache)
        assert result.exit_code == 2, result.output
        [said] = _said(result)
        assert "floor 9 (post 18)" in said and "[[rulings]]" in said
        assert "floor 2 " not in said and "floor 6 " not in said
    ruled = [{"day": 2, "floor": 9, "post": "18", "action": "accept"}]
    result = _votes(forum, tmp_path, cache, ruled)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    counted = {b["voter"]: b["target"] for b in data["ballots"] if b["status"] == "counted"}
    assert counted == {"alice": "carol", "bob": "carol", "eve": "dave", "carol": "eve"}
    lurk = _run("lurkers", "--game", _game(tmp_path, forum, "3", ruled), "--day", "2",
                "--no-write", "--json", *cache)  # fmt: skip
    assert lurk.exit_code == 0, lurk.output
    data = json.loads(lurk.stdout)
    assert sorted(c["player"] for c in data["cards"] if c["rule"] == "L3") == ["dave"]
    # carol's ballot, accepted as cast in the vote thread, is no discussion post (L1).
    assert {p["player"]: p["posts"] for p in data["players"]}["carol"] == 1


@pytest.mark.rules("S2")
def test_a_cache_that_never_read_the_vote_thread_stops(forum, tmp_path):
    """The discussion thread read, the vote thread never (its cache folder gone): every
    ballot of it is first read in the merged thread, and none can be told; nor can the
    discussion's `投票对象` lines (floors 2, 4), read there as the discussion's: a game file
    that named the thread so by mistake, mended since, looks the same (a cold read)."""
    cache = _read_then_merge(forum, tmp_path)
    [vote] = (tmp_path / "cache").glob("discuz-*-4")
    for kept in vote.iterdir():
        kept.unlink() if kept.is_file() else None
    result = _votes(forum, tmp_path, cache)
    assert result.exit_code == 2, result.output
    [said] = _said(result)
    for floor, post in ((2, 11), (4, 13), (6, 15), (7, 16), (8, 17), (9, 18)):
        assert f"floor {floor} (post {post})" in said
    assert "floor 3 " not in said  # eve's chat: no ballot to ask about


@pytest.mark.rules("S2")
def test_a_cache_from_before_roles_were_kept_stops(forum, tmp_path):
    """A cache written before what each thread was read as was kept (no roles.json): the
    thread is the day's discussion and vote thread and holds posts of another thread, so
    none of its ballots can be told; it stops, never counts the discussion's lines."""
    cache = _read_then_merge(forum, tmp_path)
    for kept in (tmp_path / "cache").glob("*/roles.json"):
        kept.unlink()
    result = _votes(forum, tmp_path, cache)
    assert result.exit_code == 2, result.output
    [said] = _said(result)
    assert "floor 2 (post 11)" in said and "floor 6 (post 15)" in said


@pytest.mark.rules("S2")
def test_the_vote_thread_gone_after_a_merge_says_so(forum, tmp_path):
    """Before the director edits the game file: the vote thread answers 主题不存在 (HTTP 404 on
    the real X3.5). One sentence, exit 4, that says tally read it before and that a merge
    leaves this too, and where to point the day's vote; never a count of nothing."""
    cache = _read_then_merge(forum, tmp_path)
    game = _game(tmp_path, forum, "4")
    result = _run("votes", forum.url("forum.php?mod=viewthread&tid=4"), "--game", game, *cache)
    assert result.exit_code == 4, result.output
    [said] = _said(result)
    assert "主题不存在" in said and "合并" in said
    assert "tally read it before (5 posts, as day 2's vote thread)" in said
    lurk = _run("lurkers", "--game", game, "--day", "2", "--no-write", *cache)
    assert lurk.exit_code == 4 and "合并" in lurk.stderr


@pytest.mark.rules("S2", "V1", "C5")
def test_a_ballot_posted_in_the_merged_thread_after_counts(forum, tmp_path):
    """Once tally has read the merged thread as the day's vote thread, what is posted in it
    after is a ballot: dave's `投票对象：carol` (post 19, floor 10), posted after the merge,
    counts; the stop is for what no read could tell, not for every post after the switch."""
    cache = _read_then_merge(forum, tmp_path)
    assert _votes(forum, tmp_path, cache).exit_code == 0
    forum.add_discuz_page("3", 1, page("merged-later"))
    result = _votes(forum, tmp_path, cache)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    counted = {b["voter"]: b["target"] for b in data["ballots"] if b["status"] == "counted"}
    assert counted == {"alice": "carol", "bob": "carol", "eve": "dave", "carol": "eve",
                       "dave": "carol"}  # fmt: skip
    assert [b["floor"] for b in data["ballots"] if b["status"] == "discussion"] == [2, 3, 4]
    assert data["outcome"] == data["outcome"] | {"result": "eliminated", "player": "carol"}


@pytest.mark.rules("A1", "S2")
def test_the_closing_post_after_the_merge_names_the_right_player_and_no_discussion_post(
    forum, tmp_path
):
    """The announcement to paste: carol out with alice's and bob's votes; the discussion's
    posts in the merged thread are not listed as the vote thread's (讨论帖发言)."""
    cache = _read_then_merge(forum, tmp_path)
    game = _game(tmp_path, forum, "3")
    result = _run("announce", "--game", game, "--day", "2", *cache)
    assert result.exit_code == 0, result.output
    post = result.stdout
    assert "carol 以 2 票被投票出局" in post and "未投票：dave" in post
    assert Status.DISCUSSION.label not in post
    assert not [f for f in ("2楼", "3楼", "4楼") if f"]{f}[/url]" in post]  # the discussion's


@pytest.mark.rules("S2", "V7")
def test_a_discussion_thread_never_read_before_the_merge_stops(forum, tmp_path):
    """Only `tally votes` ran during the day (the vote thread read, the discussion thread
    never): after the merge, carol's and dave's `投票对象` lines of the discussion are posts
    tally never saw, in the thread that holds the vote thread's ballots; it cannot tell them
    from ballots and stops, naming them; ruled void, carol is out."""
    cache = ["--cache-dir", str(tmp_path / "cache")]
    forum.add_discuz_page("4", 1, page("vote-later"))
    before = _run("votes", forum.url("forum.php?mod=viewthread&tid=4"), "--game",
                  _game(tmp_path, forum, "4"), *cache, at=CLOCK)  # fmt: skip
    assert before.exit_code == 0, before.output
    forum.routes.clear()
    forum.add_discuz_page("3", 1, page("merged"))
    for _ in range(2):
        result = _votes(forum, tmp_path, cache)
        assert result.exit_code == 2, result.output
        [said] = _said(result)
        assert "floor 2 (post 11)、floor 4 (post 13))" in said  # not eve's chat, not floor 6
    ruled = [{"day": 2, "floor": f, "post": p, "action": "void"} for f, p in ((2, "11"), (4, "13"))]
    result = _votes(forum, tmp_path, cache, ruled)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["outcome"] == data["outcome"] | {"result": "eliminated", "player": "carol"}
