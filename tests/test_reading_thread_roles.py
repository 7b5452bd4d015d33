"""What the cache keeps of each thread's role (roles.json, tally/rules/judging/merges.py) tells a merged
thread's posts apart, and nothing else: a game file that named a thread wrongly, mended since,
is no merge. Found by a cold read: a discussion URL pasted for the vote's, the two swapped, a
day-1 vote URL left on day 2, or `discussion` added to the file later each left the thread's
posts "first read" in the wrong role for good: ballots dropped as discussion rows (the wrong
player out, exit 0), discussion posts taken for ballots (L1 cards for everyone), or a false
"not one ballot" stop. And where a merge did happen: the stop on what tally cannot tell names
the 点评 it means, a run with the old game file after the merge does not hide a ballot, and a
thread first read without --game is no thread whose posts tally knows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tally.cli import app
from tally.environment import HttpOptions

from .conftest import CHINA, FakeClock, Runner
from .discuzgen import Comment, P, Thread
from .gamefiles import day, write_game
from .test_reading_merged_into_discussion import _game as merge_game
from .test_reading_merged_into_discussion import _read_then_merge, _said, _votes, page

runner = Runner()
PLAYERS = ["alice", "bob", "carol", "dave", "eve"]


def run(clock: str, *args: str):  # type: ignore[no-untyped-def]
    start = datetime.fromisoformat(f"2026-12-01 {clock}").replace(tzinfo=CHINA)
    env = FakeClock(start.astimezone(UTC)).env(http=HttpOptions(host_delay=0))  # type: ignore[arg-type]
    return runner.invoke(app, list(args), obj=env)


def game(tmp_path: Path, name: str, vote: str, discussion: str | None,
         day_one: str | None = None, rulings: Sequence[Mapping] = (), **keys: object) -> str:
    """The game file's day 2 (with ``keys``, and the director's ``rulings``), and with
    ``day_one`` its day 1 (that vote thread) before it, as a real one names it."""
    days = [day(2, vote, "2026-12-01T09:00:00", "2026-12-01T21:00:00", discussion=discussion,
                **keys)]  # fmt: skip
    if day_one is not None:
        days.insert(0, day(1, day_one, "2026-11-30T09:00:00", "2026-11-30T21:00:00"))
    path = write_game(tmp_path / f"game-{name}.toml", *days, ruleset="000",
                      directors=["admin"], players=PLAYERS, rulings=rulings)  # fmt: skip
    return str(path)


def counted(result) -> dict[str, str]:  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    return {b["voter"]: b["target"] for b in data["ballots"] if b["status"] == "counted"}


def lurking(result) -> tuple[dict[str, int], list[tuple[str, str]]]:  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    cards = sorted((c["player"], c["rule"]) for c in data["cards"])
    return {p["player"]: p["posts"] for p in data["players"]}, cards


def close(tmp_path: Path, cache: str, vote: str, fixed: str):  # type: ignore[no-untyped-def]
    """The count and the lurker check at the close, from ``cache`` and from a fresh one."""
    out = []
    for folder in (cache, str(tmp_path / "fresh")):
        where = ["--cache-dir", folder]
        v = run("21:05:00", "votes", vote, "--game", fixed, "--json", *where)
        lurk = run("21:05:00", "lurkers", "--game", fixed, "--day", "2", "--no-write", "--json",
                   *where)  # fmt: skip
        out.append((counted(v), lurking(lurk)))
    return out


# -- separate threads, the URLs swapped at noon ---------------------------------------------


def talk_thread(late: bool) -> Thread:
    t = Thread("20", "[局] 第二天 讨论帖", {}, first_pid=5000)
    t.add(P("admin", "2026-12-01 09:00:00", "第二天开门。"))
    minute = 1
    for who in PLAYERS:
        for i in range(6):
            t.add(P(who, f"2026-12-01 10:{minute:02d}:00", f"{who}发言{i}"))
            minute += 1
    for who in PLAYERS if late else ():
        t.add(P(who, f"2026-12-01 14:{minute:02d}:00", f"{who}再发言"))
        minute += 1
    return t


def vote_thread(late: bool) -> Thread:
    t = Thread("21", "[局] 第二天 投票帖", {}, first_pid=6000)
    t.add(P("admin", "2026-12-01 09:00:00", "第二天投票。投票对象：\n投票理由："))
    ballots = [("alice", "dave", "11:01"), ("bob", "dave", "11:02"), ("carol", "dave", "11:03")]
    ballots += [("dave", "carol", "15:01"), ("eve", "carol", "15:02")] if late else []
    for who, target, at in ballots:
        t.add(P(who, f"2026-12-01 {at}:00", f"投票对象：{target}\n投票理由：一"))
    return t


@pytest.mark.rules("S2", "C5", "L1", "L3")
def test_swapped_urls_mended_count_the_ballots_and_the_posts(forum, tmp_path):
    """At noon the file named the vote thread the discussion's and the other way round
    (`tally lurkers` read both so); mended, the close counts dave out with 3 votes and cards
    no one, as from a fresh cache: was carol out with 2 (floors 2-4 discussion rows), L1 for
    all five, after a stop naming the two ballots posted since as merged."""
    talk, vote = talk_thread(False).serve(forum), vote_thread(False).serve(forum)
    cache = str(tmp_path / "cache")
    swapped = game(tmp_path, "swapped", vote=talk, discussion=vote)
    noon = run("12:00:00", "lurkers", "--game", swapped, "--day", "2", "--no-write", "--json",
               "--cache-dir", cache)  # fmt: skip
    assert noon.exit_code == 0, noon.output
    talk_thread(True).serve(forum)
    vote_thread(True).serve(forum)
    fixed = game(tmp_path, "fixed", vote=vote, discussion=talk)
    warm, fresh = close(tmp_path, cache, vote, fixed)
    assert warm == fresh
    ballots, (posts, cards) = warm
    assert ballots == {"alice": "dave", "bob": "dave", "carol": "dave", "dave": "carol",
                       "eve": "carol"}  # fmt: skip
    assert posts == dict.fromkeys(PLAYERS, 7) and cards == []


# -- one thread for the day's discussion and vote ---------------------------------------------


def one_thread(late: bool) -> Thread:
    t = Thread("8", "[局] 第二天 讨论投票帖", {}, first_pid=3000)
    t.add(P("admin", "2026-12-01 09:00:00", "第二天开门，本帖讨论与投票。投票对象：\n投票理由："))
    minute = 1
    for who in ("alice", "bob"):
        for i in range(6):
            t.add(P(who, f"2026-12-01 10:{minute:02d}:00", f"{who}发言{i}"))
            minute += 1
    t.add(P("alice", "2026-12-01 11:00:00", "投票对象：carol\n投票理由：一"))
    t.add(P("bob", "2026-12-01 11:01:00", "投票对象：carol\n投票理由：一"))
    if late:
        for who in ("carol", "dave", "eve"):
            for i in range(6):
                t.add(P(who, f"2026-12-01 14:{minute:02d}:00", f"{who}发言{i}"))
                minute += 1
        for who, target in (("carol", "alice"), ("dave", "carol"), ("eve", "carol")):
            t.add(P(who, f"2026-12-01 15:{minute:02d}:00", f"投票对象：{target}\n投票理由：二"))
            minute += 1
    return t


def day_one_vote() -> Thread:
    t = Thread("9", "[局] 第一天 投票帖", {}, first_pid=4000)
    t.add(P("admin", "2026-11-30 09:00:00", "第一天投票。投票对象：\n投票理由："))
    t.add(P("alice", "2026-11-30 10:00:00", "投票对象：bob\n投票理由：x"))
    return t


@pytest.mark.rules("L1")
def test_L1_discussion_added_to_the_file_later_counts_every_post(forum, tmp_path):
    """At noon the file named the day's one thread its vote thread only (`discussion` is
    optional); at the close `tally lurkers` asks for it and the director adds it: alice and
    bob posted 7 times each, not 0 (two L1 cards, exit 0)."""
    url = one_thread(False).serve(forum)
    cache = str(tmp_path / "cache")
    noon = run("12:00:00", "votes", url, "--game", game(tmp_path, "vote-only", url, None),
               "--json", "--cache-dir", cache)  # fmt: skip
    assert counted(noon) == {"alice": "carol", "bob": "carol"}
    one_thread(True).serve(forum)
    warm, fresh = close(tmp_path, cache, url, game(tmp_path, "both", url, url))
    assert warm == fresh
    posts, cards = warm[1]
    assert posts == dict.fromkeys(PLAYERS, 7) and cards == []


@pytest.mark.rules("S2", "L3")
def test_a_day_one_vote_url_left_on_day_two_and_mended(forum, tmp_path):
    """At noon the file's vote URL was day 1's (copied); mended to the day's one thread, the
    count has every ballot, alice's and bob's too (they were discussion rows and L3 cards),
    and no noon count stops on "not one ballot"."""
    url = one_thread(False).serve(forum)
    old = day_one_vote().serve(forum)
    cache = str(tmp_path / "cache")
    noon = run("12:00:00", "lurkers", "--game", game(tmp_path, "wrong", old, url), "--day", "2",
               "--no-write", "--json", "--cache-dir", cache)  # fmt: skip
    # Day 1's thread is refused for day 2 (its title), once both threads are read.
    assert noon.exit_code == 2 and "is titled for day 1" in noon.stderr, noon.output
    # Mended, the file names day 1's thread as day 1's: what says the mend (a file that names
    # the thread no more is asked about: test_a_mend_the_game_file_does_not_say_is_asked…).
    fixed = game(tmp_path, "fixed", url, url, day_one=old)
    later = run("12:30:00", "votes", url, "--game", fixed, "--json", "--cache-dir", cache)
    assert counted(later) == {"alice": "carol", "bob": "carol"}
    one_thread(True).serve(forum)
    warm, fresh = close(tmp_path, cache, url, fixed)
    assert warm == fresh
    assert warm[0] == {"alice": "carol", "bob": "carol", "carol": "alice", "dave": "carol",
                       "eve": "carol"}  # fmt: skip
    assert warm[1][1] == []


@pytest.mark.rules("L1")
def test_L1_a_discussion_url_pasted_for_the_vote_and_mended(forum, tmp_path):
    """On the real X3.5's pages: the file named the discussion thread (3) the vote thread
    and no discussion thread; mended, carol, dave and eve posted once each there, not 0."""
    from .test_reading_merged_into_discussion import CLOCK
    from .test_reading_merged_into_discussion import _run as merge_run

    forum.add_discuz_page("3", 1, page("discussion-before"))
    forum.add_discuz_page("4", 1, page("vote-later"))
    cache = ["--cache-dir", str(tmp_path / "cache")]
    talk = forum.url("forum.php?mod=viewthread&tid=3")
    mended = merge_game(tmp_path, forum, "4")
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(Path(mended).read_text(encoding="utf-8").replace(
        f'discussion = "{talk}"\n', "").replace("tid=4", "tid=3"), encoding="utf-8")  # fmt: skip
    assert "discussion" not in wrong.read_text(encoding="utf-8")
    first = merge_run("votes", talk, "--game", str(wrong), *cache, at=CLOCK)
    assert first.exit_code == 0, first.output
    lurk = merge_run("lurkers", "--game", mended, "--day", "2", "--no-write", "--json", *cache)
    posts, _ = lurking(lurk)
    assert [posts[p] for p in ("carol", "dave", "eve")] == [1, 1, 1]


# -- where a merge did happen ----------------------------------------------------------------


@pytest.mark.rules("S2", "L3")
def test_a_run_with_the_old_file_after_the_merge_hides_no_ballot(forum, tmp_path):
    """After the merge the director's first run is `tally lurkers` with the old file: it
    reads the discussion thread (the vote thread's ballots in it now) and stops on the gone
    vote thread. carol's ballot, posted after tally's last read of the vote thread, was kept
    as a discussion post by that read: a discussion row, carol carded L3, exit 0. It stops."""
    cache = _read_then_merge(forum, tmp_path, vote_page="vote-before")  # post 18 unread in 4
    old = merge_game(tmp_path, forum, "4")
    from .test_reading_merged_into_discussion import _run as merge_run

    gone = merge_run("lurkers", "--game", old, "--day", "2", "--no-write", *cache)
    assert gone.exit_code == 4, gone.output
    result = _votes(forum, tmp_path, cache)
    assert result.exit_code == 2, result.output
    [said] = _said(result)
    assert "floor 9 (post 18)" in said


@pytest.mark.rules("S2")
def test_a_discussion_thread_first_read_without_the_game_file_is_not_known(forum, tmp_path):
    """`tally archive` (no game file) read the discussion thread, `tally votes` the vote
    thread; merged, carol's and dave's 投票对象 lines of the discussion were counted (a tie,
    nobody out, exit 0): read without the game file, they cannot be told. It stops."""
    from .test_reading_merged_into_discussion import _run as merge_run

    cache = ["--cache-dir", str(tmp_path / "cache")]
    forum.add_discuz_page("3", 1, page("discussion-before"))
    forum.add_discuz_page("4", 1, page("vote-later"))
    archived = merge_run("archive", forum.url("forum.php?mod=viewthread&tid=3"), "-o",
                         str(tmp_path / "a.csv"), *cache)  # fmt: skip
    assert archived.exit_code == 0, archived.output
    before = merge_run("votes", forum.url("forum.php?mod=viewthread&tid=4"), "--game",
                       merge_game(tmp_path, forum, "4"), *cache)  # fmt: skip
    assert before.exit_code == 0, before.output
    forum.routes.clear()
    forum.add_discuz_page("3", 1, page("merged"))
    forum.add_discuz_page("4", 1, page("gone"), status=404)
    result = _votes(forum, tmp_path, cache)
    assert result.exit_code == 2, result.output
    [said] = _said(result)
    assert "floor 2 (post 11)" in said and "floor 4 (post 13)" in said
    assert "floor 6 " not in said  # alice's ballot, read in the vote thread


def combined(merged: bool) -> Thread:
    t = Thread("40", "[局] 第二天 讨论投票帖", {}, first_pid=9000)
    posts = [(9001, P("admin", "2026-12-01 09:00:00", "第二天。投票对象：\n投票理由：")),
             (9002, P("alice", "2026-12-01 10:00:00", "投票对象：dave\n投票理由：一")),
             (9003, P("bob", "2026-12-01 10:01:00", "投票对象：dave\n投票理由：一"))]  # fmt: skip
    if merged:
        posts.append((9501, P("carol", "2026-12-01 11:00:00", "投票对象：dave\n投票理由：发错帖了")))
    for pid, post in posts:
        post.post_id = pid
        t.posts.append(post)
    return t


@pytest.mark.rules("S2")
def test_a_stray_thread_merged_into_the_days_one_thread_names_only_its_post(forum, tmp_path):
    """A stray thread (read once by `tally archive`) merged into the day's one thread, named
    so from the start: the stop names the stray post alone, never alice's and bob's ballots,
    which tally read in this thread as the vote thread."""
    url = combined(False).serve(forum)
    stray = Thread("41", "投票", {}, first_pid=9500)
    stray.add(P("carol", "2026-12-01 11:00:00", "投票对象：dave\n投票理由：发错帖了"))
    stray_url = stray.serve(forum)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    both = game(tmp_path, "combined", url, url)
    assert counted(run("12:00:00", "votes", url, "--game", both, "--json", *cache)) == {
        "alice": "dave", "bob": "dave"}  # fmt: skip
    assert run("12:01:00", "archive", stray_url, "-o", str(tmp_path / "s.csv"),
               *cache).exit_code == 0  # fmt: skip
    forum.routes.clear()
    combined(True).serve(forum)
    result = run("21:05:00", "votes", url, "--game", both, "--json", *cache)
    assert result.exit_code == 2, result.output
    [said] = _said(result)
    assert "(post 9501)" in said and "post 9002" not in said and "post 9003" not in said


def merged_with_a_comment() -> Thread:
    t = Thread("30", "[局] 第二天 讨论帖", {}, first_pid=7000)
    posts = [
        (7001, P("admin", "2026-12-01 08:59:00", "第二天开门。")),
        (8001, P("admin", "2026-12-01 09:00:00", "第二天投票。投票对象：\n投票理由：")),
        (7002, P("carol", "2026-12-01 10:00:00", "我觉得alice是狼",
                 comments=[Comment("dave", "2026-12-01 10:05", "投票对象：alice")])),
        (8002, P("alice", "2026-12-01 11:00:00", "投票对象：dave\n投票理由：一")),
        (8003, P("bob", "2026-12-01 11:01:00", "投票对象：dave\n投票理由：一")),
    ]
    for pid, post in posts:
        post.post_id = pid
        t.posts.append(post)
    return t


@pytest.mark.rules("S2", "V7")
def test_the_stop_names_the_点评_and_its_ruling_settles_it(forum, tmp_path):
    """A 点评 that reads as a ballot, under a discussion floor tally never read: the stop
    names 点评 1 under floor 3 and gives the ruling with comment = 1 (the floor's ruling it
    gave was refused: "holds no ballot"); ruled so, alice and bob's count stands."""
    vote = Thread("31", "[局] 第二天 投票帖", {}, first_pid=8000)
    vote.add(P("admin", "2026-12-01 09:00:00", "第二天投票。投票对象：\n投票理由："))
    vote.add(P("alice", "2026-12-01 11:00:00", "投票对象：dave\n投票理由：一"))
    vote.add(P("bob", "2026-12-01 11:01:00", "投票对象：dave\n投票理由：一"))
    v = vote.serve(forum)
    talk = forum.url("forum.php?mod=viewthread&tid=30")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert run("12:00:00", "votes", v, "--game", game(tmp_path, "before", v, talk), "--json",
               *cache).exit_code == 0  # fmt: skip
    forum.routes.clear()
    merged_with_a_comment().serve(forum)
    after = game(tmp_path, "after", talk, talk)
    result = run("21:05:00", "votes", talk, "--game", after, "--json", *cache)
    assert result.exit_code == 2, result.output
    [said] = _said(result)
    assert "点评 1 under floor 3 (post 7002)" in said
    assert 'post = "7002", comment = 1, action = "accept"' in said
    with open(after, "a", encoding="utf-8") as f:
        f.write('\n[[rulings]]\nday = 2\nfloor = 3\npost = "7002"\ncomment = 1\naction = "void"\n')
    assert counted(run("21:05:00", "votes", talk, "--game", after, "--json", *cache)) == {
        "alice": "dave", "bob": "dave"}  # fmt: skip


def sorted_thread(tid: str, title: str, posts: list[tuple[int, P]]) -> Thread:
    t = Thread(tid, title, {})
    for pid, post in sorted(posts, key=lambda x: x[1].time):
        post.post_id = pid
        t.posts.append(post)
    return t


@pytest.mark.rules("S2", "C5")
def test_a_discussion_post_tally_never_read_merged_into_the_vote_thread_stops(forum, tmp_path):
    """The other way round: the discussion thread merged INTO the vote thread. carol's
    `投票对象` line in the discussion, posted after tally's last read of it and before its
    last read of the vote thread, came into the vote thread unseen: it was counted as her
    ballot (alice out of a tie, exit 0). The vote thread holding the discussion's posts, a
    post older than tally's last read of it is one it cannot tell: it stops."""
    talk = [(7101, P("admin", "2026-12-01 09:00:00", "第二天讨论。")),
            (7102, P("eve", "2026-12-01 10:00:00", "闲聊"))]  # fmt: skip
    late_talk = [(7104, P("carol", "2026-12-01 12:30:00", "投票对象：alice\n投票理由：我想投alice"))]
    vote = [(7201, P("admin", "2026-12-01 09:00:01", "第二天投票。投票对象：\n投票理由：")),
            (7202, P("alice", "2026-12-01 11:00:00", "投票对象：dave\n投票理由：一")),
            (7203, P("bob", "2026-12-01 11:01:00", "投票对象：dave\n投票理由：一"))]  # fmt: skip
    d = sorted_thread("50", "[局] 第二天 讨论帖", talk).serve(forum)
    v = sorted_thread("51", "[局] 第二天 投票帖", vote).serve(forum)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    g = game(tmp_path, "g", v, d)
    noon = run("12:00:00", "lurkers", "--game", g, "--day", "2", "--no-write", "--json", *cache)
    assert noon.exit_code == 0, noon.output
    assert counted(run("13:00:00", "votes", v, "--game", g, "--json", *cache)) == {
        "alice": "dave", "bob": "dave"}  # fmt: skip
    forum.routes.clear()
    sorted_thread("51", "[局] 第二天 投票帖", vote + talk + late_talk).serve(forum)
    result = run("21:05:00", "votes", v, "--game", g, "--json", *cache)
    assert result.exit_code == 2, result.output
    [said] = _said(result)
    assert "(post 7104)" in said and "post 7202" not in said
    with open(g, "a", encoding="utf-8") as f:
        f.write('\n[[rulings]]\nday = 2\nfloor = 6\npost = "7104"\naction = "void"\n')
    assert counted(run("21:05:00", "votes", v, "--game", g, "--json", *cache)) == {
        "alice": "dave", "bob": "dave"}  # fmt: skip


# -- what `tally lurkers` says of the posts it counts ----------------------------------------


@pytest.mark.rules("L1")
def test_L1_posts_that_came_into_the_discussion_thread_are_counted_and_flagged(forum, tmp_path):
    """eve posted 3 floors in the discussion and 2 in a side thread tally never read; a
    moderator merged it in (合并) after tally's noon read: her 2 floors, older than that read,
    come into the discussion thread. Counted (5 posts, no L1 card), and each flagged `came
    in` for the director: on a real X3.5 the L1 card vanished without a word."""
    def talk(merged: bool) -> Thread:
        posts = [(5001, P("admin", "2026-12-01 09:00:00", "第二天开门。"))]
        posts += [(5002 + i, P("eve", f"2026-12-01 10:0{i}:00", f"发言{i}")) for i in range(3)]
        if merged:
            posts += [(5102 + i, P("eve", f"2026-12-01 11:0{i}:00", f"侧帖{i}")) for i in range(2)]
        posts += [(5200, P("alice", "2026-12-01 13:00:00", "下午发言"))]
        return sorted_thread("20", "[局] 第二天 讨论帖", posts)

    d = talk(False).serve(forum)
    v = vote_thread(False).serve(forum)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    g = game(tmp_path, "g", v, d)
    noon = run("12:00:00", "lurkers", "--game", g, "--day", "2", "--no-write", "--json", *cache)
    assert lurking(noon)[0]["eve"] == 3
    talk(True).serve(forum)
    close = run("21:05:00", "lurkers", "--game", g, "--day", "2", "--no-write", "--json", *cache)
    posts, cards = lurking(close)
    assert posts["eve"] == 5 and ("eve", "L1") not in cards
    flags = json.loads(close.stdout)["flags"]
    came = [(f["player"], f["floor"]) for f in flags if f["rule"] == "came in"]
    assert came == [("eve", 5), ("eve", 6)]  # not alice's 13:00 post, made after the read
    [note] = {f["note"].split(") ", 1)[1] for f in flags if f["rule"] == "came in"}
    assert note.startswith("was not in the thread when tally read it 12-01 12:00")


@pytest.mark.rules("L1")
def test_L1_a_game_file_without_ids_is_said_by_lurkers_too(forum, tmp_path):
    """Without account ids a look-alike's posts are counted as the player's and a renamed
    player's are lost: `tally votes` said so, `tally lurkers` did not (a real X3.5)."""
    d, v = talk_thread(False).serve(forum), vote_thread(False).serve(forum)
    g = game(tmp_path, "g", v, d)
    result = run("21:05:00", "lurkers", "--game", g, "--day", "2", "--no-write", "--json",
                 "--cache-dir", str(tmp_path / "cache"))  # fmt: skip
    assert result.exit_code == 0, result.output
    rules = [f["rule"] for f in json.loads(result.stdout)["flags"]]
    assert rules.count("accounts") == 1  # once, though both threads show uids


@pytest.mark.rules("V9", "K2")
def test_V9_a_ballot_accepted_for_a_player_out_before_the_day_says_so(forum, tmp_path):
    """A ruling accepts a ballot for carol, out before day 2 opened (sent off at day 1's
    close): it lapses all the same, and its note says she was out before the day, not that
    she "went out during the day" (a real X3.5 session)."""
    t = Thread("21", "[局] 第二天 投票帖", {}, first_pid=6000)
    t.add(P("admin", "2026-12-01 09:00:00", "第二天投票。投票对象：\n投票理由："))
    t.add(P("alice", "2026-12-01 11:01:00", "投票对象：carol\n投票理由：一"))
    t.add(P("bob", "2026-12-01 11:02:00", "投票对象：dave\n投票理由：一"))
    url = t.serve(forum)
    path = game(tmp_path, "g", url, None, dead=["carol"],
                rulings=[{"day": 2, "floor": 2, "action": "accept"}])  # fmt: skip
    result = run("21:05:00", "votes", url, "--game", str(path), "--json")
    assert result.exit_code == 0, result.output
    [ballot] = [b for b in json.loads(result.stdout)["ballots"] if b["floor"] == 2]
    assert ballot["status"] == "void"
    assert "carol was out before the day opened; the ballot lapsed (V9)" in ballot["note"]


@pytest.mark.rules("L7")
def test_L7_red_font_in_a_点评_is_flagged_and_kept_in_the_cache(forum, tmp_path):
    """alice's 点评 under bob's discussion floor, written [color=Red] (rendered as a real X3.5
    renders it, <font color="Red">): flagged L7 by `tally lurkers`, from the page and again
    from the cache's history (a second run reads the same versions)."""
    t = talk_thread(False)
    t.posts[1].comments = [Comment("alice", "2026-12-01 10:30", "红字点评")]
    for number, body in enumerate(t.pages(), start=1):
        red = body.replace("红字点评".encode(), '<font color="Red">红字点评</font>'.encode(), 1)
        forum.add_discuz_page(t.tid, number, red)
    d = forum.url(f"forum.php?mod=viewthread&tid={t.tid}")
    v = vote_thread(False).serve(forum)
    g = game(tmp_path, "g", v, d)
    for clock in ("21:05:00", "21:06:00"):
        result = run(clock, "lurkers", "--game", g, "--day", "2", "--no-write", "--json",
                     "--cache-dir", str(tmp_path / "cache"))  # fmt: skip
        assert result.exit_code == 0, result.output
        l7 = [(f["player"], f["floor"], f["note"]) for f in json.loads(result.stdout)["flags"]
              if f["rule"] == "L7"]  # fmt: skip
        assert l7 == [("alice", 2, "alice used red font in 点评 1 under floor 2")]


@pytest.mark.rules("S2", "C5")
def test_swapped_urls_mended_with_a_ballot_approved_late_count_every_ballot(forum, tmp_path):
    """As the swapped-URL test, and eve's ballot of 11:40, held for 审核 at noon, approved
    since: it came into the vote thread older than tally's noon read of it, as a merged
    vote thread's posts would. The game file says the mend (the thread tally read as the
    day's vote thread at noon is its discussion thread now): no stop, dave out with 3, as
    from a fresh cache. (Two mends before this one went wrong on a cold read: the rulings
    their stop asked for turned the thread's old ballots into discussion rows, carol out
    with 2, exit 0; and another game's day-2 vote thread in the board's shared cache passed
    for the mend, and a real merge's discussion lines counted.)"""
    talk, vote = talk_thread(False).serve(forum), vote_thread(False).serve(forum)
    cache = str(tmp_path / "cache")
    swapped = game(tmp_path, "swapped", vote=talk, discussion=vote)
    noon = run("12:00:00", "lurkers", "--game", swapped, "--day", "2", "--no-write", "--json",
               "--cache-dir", cache)  # fmt: skip
    assert noon.exit_code == 0, noon.output
    talk_thread(True).serve(forum)
    late_vote(forum)
    fixed = game(tmp_path, "fixed", vote=vote, discussion=talk)
    warm, fresh = close(tmp_path, cache, vote, fixed)
    assert warm == fresh
    assert warm[0] == {"alice": "dave", "bob": "dave", "carol": "dave", "dave": "carol",
                       "eve": "carol"}  # fmt: skip


def late_vote(forum) -> None:  # type: ignore[no-untyped-def]
    """The vote thread at the close, eve's ballot of 11:40 approved after the noon read."""
    late = vote_thread(True)
    [eve] = [p for p in late.posts if p.author == "eve"]
    eve.time = "2026-12-01 11:40:00"
    late.posts.sort(key=lambda p: p.time)
    late.serve(forum)


@pytest.mark.rules("S2", "C5")
def test_a_mend_the_game_file_does_not_say_is_asked_and_the_rulings_count(forum, tmp_path):
    """The thread tally read as the day's vote thread at noon is in the file no more (a
    mistyped URL, since corrected): a merge of a vote thread tally never read looks the same
    (a cold read: its ballots, newer than the last read, were counted with the discussion's
    lines, exit 0). It asks about each ballot read at noon as the discussion's and each that
    came in, and accepted as asked, they count."""
    import re

    talk, vote = talk_thread(False).serve(forum), vote_thread(False).serve(forum)
    draft = Thread("29", "[局] 第二天 投票帖（草稿）", {}, first_pid=6900)
    draft.add(P("admin", "2026-12-01 09:00:00", "草稿"))
    typo = draft.serve(forum)
    cache = str(tmp_path / "cache")
    wrong = game(tmp_path, "wrong", vote=typo, discussion=vote)
    run("12:00:00", "lurkers", "--game", wrong, "--day", "2", "--no-write", "--json",
        "--cache-dir", cache)  # fmt: skip
    talk_thread(True).serve(forum)
    late_vote(forum)
    fixed = game(tmp_path, "fixed", vote=vote, discussion=talk)
    asked = run("21:05:00", "votes", vote, "--game", fixed, "--json", "--cache-dir", cache)
    assert asked.exit_code == 2, asked.output
    [said] = _said(asked)
    named = re.findall(r"floor (\d+) \(post (\d+)\)", said.split("): ")[0])
    assert len(named) == 5  # alice's, bob's, carol's (read at noon), eve's and dave's
    assert "by mistake before, each is a ballot: accept each" in said
    with open(fixed, "a", encoding="utf-8") as f:
        for floor, post in named:
            f.write(f'\n[[rulings]]\nday = 2\nfloor = {floor}\npost = "{post}"\naction = "accept"\n')
    ruled = run("21:06:00", "votes", vote, "--game", fixed, "--json", "--cache-dir", cache)
    assert counted(ruled) == {"alice": "dave", "bob": "dave", "carol": "dave", "dave": "carol",
                              "eve": "carol"}  # fmt: skip


@pytest.mark.rules("S2")
def test_another_games_vote_thread_in_the_cache_does_not_hide_a_merge(forum, tmp_path):
    """The cache is the board's, shared by its games: another game's day-2 vote thread read
    into it, and this game's vote thread (never read) merged into its discussion thread.
    It stops, naming the ballots and the discussion's 投票对象 lines alike, never counts the
    lines (they were counted, exit 0, when another thread read as "a day-2 vote thread"
    passed for a mended game file)."""
    from .test_reading_merged_into_discussion import _run as merge_run

    cache = _read_then_merge(forum, tmp_path)
    [vote] = (tmp_path / "cache").glob("discuz-*-4")
    for kept in vote.iterdir():
        kept.unlink() if kept.is_file() else None
    other = Thread("99", "[旧局] 第二天 投票帖", {}, first_pid=99000)
    other.add(P("admin", "2026-11-02 09:00:00", "投票对象：\n投票理由："))
    other.add(P("alice", "2026-11-02 10:00:00", "投票对象：bob\n投票理由：一"))
    url = other.serve(forum)
    g = write_game(tmp_path / "other.toml",
                   day(2, url, "2026-11-02T09:00:00", "2026-11-02T21:00:00"), ruleset="000",
                   directors=["admin"], players=["alice", "bob"])  # fmt: skip
    assert merge_run("votes", url, "--game", str(g), "--json", *cache).exit_code == 0
    result = _votes(forum, tmp_path, cache)
    assert result.exit_code == 2, result.output
    [said] = _said(result)
    assert "floor 2 (post 11)" in said and "floor 9 (post 18)" in said


@pytest.mark.rules("S2", "C5")
def test_a_vote_thread_never_read_merged_in_with_ballots_newer_than_the_last_read(forum, tmp_path):
    """08:30: `tally lurkers` with a mistyped vote URL (an old draft thread): the discussion
    thread read, the real vote thread never; its ballots, newer than that read, merged into
    the discussion thread, where the director points the vote. Nothing came in older than
    the last read, no post was read in the vote thread: the discussion's 投票对象 lines were
    counted (alice and carol tied, nobody out, exit 0; a cold read). It asks."""
    from .test_reading_merged_into_discussion import CLOCK, _game
    from .test_reading_merged_into_discussion import _run as merge_run

    draft = Thread("9", "[局] 第二天 投票帖（草稿，作废）", {}, first_pid=900)
    draft.add(P("admin", "2026-12-02 06:00:00", "第二天投票。投票对象：\n投票理由："))
    draft.serve(forum)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    forum.add_discuz_page("3", 1, page("discussion-before"))
    forum.add_discuz_page("4", 1, page("vote-later"))
    early = CLOCK.replace(hour=0, minute=30)  # 08:30 in the forum's clock
    merge_run("lurkers", "--game", _game(tmp_path, forum, "9"), "--day", "2", "--no-write",
              *cache, at=early)  # fmt: skip
    forum.routes.clear()
    forum.add_discuz_page("3", 1, page("merged"))
    forum.add_discuz_page("4", 1, page("gone"), status=404)
    for _ in range(2):
        result = _votes(forum, tmp_path, cache)
        assert result.exit_code == 2, result.output
        [said] = _said(result)
        assert "floor 2 (post 11)" in said and "floor 4 (post 13)" in said


@pytest.mark.rules("S2", "C5")
def test_a_discussion_line_newer_than_every_read_merged_into_the_vote_thread_is_asked(
    forum, tmp_path
):  # fmt: skip
    """The discussion merged INTO the vote thread: carol's `投票对象` line in the discussion
    at 14:00, after tally's last reads of both threads (12:00, 13:00), and dave's ballot at
    15:00. carol's line counted as her ballot (a tie, nobody out, exit 0; a cold read): the
    first read to find the discussion merged in asks about every post new to it."""
    talk = [(7101, P("admin", "2026-12-01 09:00:00", "第二天讨论。")),
            (7102, P("eve", "2026-12-01 10:00:00", "闲聊"))]  # fmt: skip
    later = [(7104, P("carol", "2026-12-01 14:00:00", "投票对象：alice\n投票理由：我想投alice"))]
    vote = [(7201, P("admin", "2026-12-01 09:00:01", "第二天投票。投票对象：\n投票理由：")),
            (7202, P("alice", "2026-12-01 11:00:00", "投票对象：dave\n投票理由：一")),
            (7203, P("bob", "2026-12-01 11:01:00", "投票对象：dave\n投票理由：一"))]  # fmt: skip
    dave = [(7204, P("dave", "2026-12-01 15:00:00", "投票对象：alice\n投票理由：二"))]
    d = sorted_thread("50", "[局] 第二天 讨论帖", talk).serve(forum)
    v = sorted_thread("51", "[局] 第二天 投票帖", vote).serve(forum)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    g = game(tmp_path, "g", v, d)
    assert run("12:00:00", "lurkers", "--game", g, "--day", "2", "--no-write", "--json",
               *cache).exit_code == 0  # fmt: skip
    assert run("13:00:00", "votes", v, "--game", g, "--json", *cache).exit_code == 0
    forum.routes.clear()
    sorted_thread("51", "[局] 第二天 投票帖", vote + dave + talk + later).serve(forum)
    result = run("21:05:00", "votes", v, "--game", g, "--json", *cache)
    assert result.exit_code == 2, result.output
    [said] = _said(result)
    assert "(post 7104)" in said and "(post 7204)" in said and "post 7202" not in said
