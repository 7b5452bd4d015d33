"""The forum's clock against this computer's (issue 49, item 1): what each answer's Date
header and each Discuz! page's footer say of it (tally.forums.clocks), and, on the loopback
Discuz! board (tests/discuzboard.py), whose clock set behind or ahead of the one tally runs
on is a forum whose clock is off: the result counted and posted once the forum's clock has
passed the close, once however far either clock is off, and the watch's final read after
the close as the forum stamps the ballots."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

import pytest

from tally.demo.localforum import Reply
from tally.environment import HttpOptions
from tally.forums.clocks import ForumClocks, date_of, skew_sentence
from tally.forums.http import Http
from tally.journal import journal_path

from .conftest import CHINA, FakeClock
from .discuzboard import Board
from .discuzgen import P
from .test_announcing_post import NOT_POSTED, announce, setup, watch

BBS = "http://bbs.example.com/forum.php?mod=viewthread&tid=102"
AT = datetime(2024, 5, 9, 13, 30, tzinfo=UTC)  # 21:30 in GMT+8


@pytest.fixture
def board(forum) -> Board:
    return Board(forum)


def off(board: Board, clock: FakeClock, minutes: float) -> None:
    """The board's clock ``minutes`` ahead of the run's (behind: negative)."""
    board.clock = lambda: clock.now() + timedelta(minutes=minutes)


def copied(game: str, tmp_path: Path) -> str:
    """The game file copied to another folder, as a co-director keeps it: no journal."""
    elsewhere = tmp_path / "co-director"
    elsewhere.mkdir(exist_ok=True)
    copy = elsewhere / "game.toml"
    copy.write_text(Path(game).read_text(encoding="utf-8"), encoding="utf-8")
    return str(copy)


def skews(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if "this computer's (" in ln]


# -- the clock, as the answers tell it --------------------------------------------------------


def test_the_date_of_each_answer_says_how_far_the_forums_clock_is_off():
    said: list[str] = []
    clocks = ForumClocks(now=lambda: AT, warn=said.append)
    assert clocks.offset(BBS) == timedelta(0) and clocks.now(BBS) == AT  # nothing heard yet
    clocks.heard(BBS, {"Date": "Thu, 09 May 2024 13:27:55 GMT"}, AT)
    assert clocks.offset(BBS) == timedelta(minutes=-2, seconds=-5)
    assert clocks.now(BBS) == AT - timedelta(minutes=2, seconds=5)
    # Each Date is when the answer was made: the latest bound heard is the clock.
    clocks.heard(BBS, {"date": "Thu, 09 May 2024 13:28:00 GMT"}, AT + timedelta(seconds=1))
    assert clocks.offset(BBS) == timedelta(minutes=-2, seconds=-1)
    # The same server by www., another forum not at all; without a URL: the one furthest
    # behind of those heard (a close is past when each forum read says so).
    assert clocks.offset("http://www.bbs.example.com/thread-1-1-1.html") == clocks.offset(BBS)
    assert clocks.offset("http://tieba.example.com/p/1") == timedelta(0)
    clocks.heard("http://ahead.example.com/", {"Date": "Thu, 09 May 2024 13:33:00 GMT"}, AT)
    assert clocks.offset() == timedelta(minutes=-2, seconds=-1)
    assert said == [
        skew_sentence("bbs.example.com", timedelta(minutes=-2, seconds=-5)),
        skew_sentence("ahead.example.com", timedelta(minutes=3)),
    ]
    assert said[0] == (
        "bbs.example.com's clock is 2 min 05 s behind this computer's (the Date of its "
        "answers): tally goes by the forum's, which stamps the posts and closes the day, and "
        "waits for the close by it; set this computer's clock right if it is the one that is "
        "off."
    )


def test_without_a_url_the_forum_furthest_behind_and_one_in_time_is_no_skew():
    clocks = ForumClocks(now=lambda: AT)
    clocks.heard("http://ahead.example.com/", {"Date": "Thu, 09 May 2024 13:33:00 GMT"}, AT)
    assert clocks.offset() == timedelta(minutes=3)
    clocks.heard(BBS, {"Date": "Thu, 09 May 2024 13:29:59 GMT"}, AT)
    assert clocks.offset() == timedelta(0) and clocks.now() == AT


def test_a_retry_after_date_is_read_by_the_forums_clock(forum):
    """A forum 5 minutes behind asks to come back at a time 10 s on by its clock: tally
    waits 10 s, not none (the date is long past by this computer's)."""
    clock = FakeClock("2024-05-09 21:30:00", CHINA)
    forum.clock = lambda: clock.now() - timedelta(minutes=5)
    back = lambda: format_datetime(forum.clock().astimezone(UTC) + timedelta(seconds=10), usegmt=True)  # noqa: E731
    answers = iter([Reply(503, b"busy", {"Retry-After": back()}), Reply(200, b"ok")])
    forum.hook = lambda path: None if path == "/robots.txt" else next(answers)
    with Http(HttpOptions(host_delay=0), sleep=clock.sleep, clock=clock.monotonic, now=clock.now) as http:
        assert http.get(forum.url("forum.php")).status == 200
        assert http.clocks.offset(forum.base) == timedelta(minutes=-5)
    assert clock.sleeps == [10.0]


def test_seconds_off_are_no_skew_and_a_minute_is_not_said():
    said: list[str] = []
    clocks = ForumClocks(now=lambda: AT, warn=said.append)
    clocks.heard(BBS, {"Date": "Thu, 09 May 2024 13:29:59 GMT"}, AT + timedelta(seconds=0.4))
    assert clocks.offset(BBS) == timedelta(0)  # a Date counts whole seconds
    clocks.heard(BBS, {"Date": "Thu, 09 May 2024 13:31:00 GMT"}, AT)
    assert clocks.offset(BBS) == timedelta(minutes=1) and said == []  # a minute: not said


def test_a_footer_counts_beside_a_date_and_a_cached_page_is_older_never_newer():
    clocks = ForumClocks(now=lambda: AT)
    made = datetime(2024, 5, 9, 21, 40, tzinfo=timezone(timedelta(hours=8)))  # 10 min ahead
    clocks.printed(BBS, made, AT)
    assert clocks.offset(BBS) == timedelta(0)  # a footer alone: a page from anywhere
    clocks.heard(BBS, {"Date": "Thu, 09 May 2024 13:30:00 GMT"}, AT)
    assert clocks.offset(BBS) == timedelta(minutes=10)  # its server dates its answers
    clocks.printed(BBS, made - timedelta(minutes=30), AT)  # a page kept in a cache: older
    clocks.printed(BBS, None, AT)
    assert clocks.offset(BBS) == timedelta(minutes=10)


@pytest.mark.parametrize("headers", [
    {}, {"Date": ""}, {"Date": "yesterday"}, {"Date": "Thu, 99 May 2024 13:30:00 GMT"},
    {"Date": "Thu, 09 May 99999 13:30:00 GMT"}, {"Date": "9" * 5000},
])  # fmt: skip
def test_a_date_tally_cannot_read_tells_nothing(headers):
    assert date_of(headers) is None


def test_an_age_is_how_long_a_cache_kept_the_answer():
    made = date_of({"Date": "Thu, 09 May 2024 13:29:00 GMT", "Age": "50"})
    assert made == AT - timedelta(seconds=10)
    assert date_of({"Date": "Thu, 09 May 2024 13:29:00 GMT", "Age": "٥"}) == AT - timedelta(minutes=1)


def test_a_discuz_page_says_when_the_forum_made_it():
    from tally.forums.discuz import DiscuzPages

    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "discuz" / "vote-p1.html"
    page = DiscuzPages().parse_page(fixture.read_text("utf-8"), CHINA, source=str(fixture))
    assert page.printed_at == datetime(2026, 11, 30, 0, 18, tzinfo=timezone(timedelta(hours=8)))


# -- posted once, whichever clock is off ------------------------------------------------------


@pytest.mark.parametrize("minutes", [-5, 5])
def test_no_double_post_with_the_forums_clock_five_minutes_off(board, tmp_path, minutes):
    """Done when: the forum's clock 5 minutes behind or ahead of this computer's. The result
    is counted and posted once the forum's clock has passed the close (behind: not at 21:32
    here, 21:27 there; ahead: at 21:27 here, 21:32 there), and never again: not by the same file, a copy without the journal, nor a
    watch of the copy."""
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 21:32:00" if minutes < 0 else "2024-05-09 21:27:00", CHINA)
    off(board, clock, minutes)
    early = announce(game, cookies, clock, "--yes")
    if minutes < 0:
        assert early.exit_code == 2, early.stderr
        assert "day 2 closes at 05-09 21:30, after the count's time (05-09 21:27)" in early.stderr
        assert board.replies == []
        clock.sleep(240)
        early = announce(game, cookies, clock, "--yes")
    assert early.exit_code == 0, early.stderr
    way = "behind" if minutes < 0 else "ahead of"
    [said] = skews(early.stderr)
    assert f"'s clock is 5 min 00 s {way} this computer's (the Date of its answers)" in said
    stamped = "21:31:00" if minutes < 0 else "21:32:00"  # by the forum's clock
    assert board.threads["102"].posts[-1].time == f"2024-05-09 {stamped}"
    for run in (game, copied(game, tmp_path)):
        clock.sleep(60)
        again = announce(run, cookies, clock, "--yes")
        assert again.exit_code == NOT_POSTED, again.stderr
        assert "floor 20 of the thread already holds this post" in again.stderr
    clock.sleep(60)
    watched = watch(url, copied(game, tmp_path), cookies, clock, "--post")
    assert watched.exit_code == NOT_POSTED, watched.stderr
    assert "already holds this post" in watched.stderr
    assert len(board.replies) == 1


# -- (e) the watch waits for the close by the forum's clock ---------------------------------


def test_the_watch_waits_for_the_close_by_the_forums_clock(board, tmp_path):
    """(e) The forum's clock 2 minutes behind: a ballot the forum stamps 21:29:30 comes at
    21:31:30 by this computer's, after the grace minute by its clock. The watch reads for
    the last time at 21:31 by the forum's, and the posted result holds the ballot."""
    url, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 21:20:00", CHINA)
    off(board, clock, -2)
    thread = board.threads["102"]
    late = P("小鹿", "2024-05-09 21:29:30", "投票对象：白桃\n投票理由：最后一刻改主意")

    def sent_before_the_close(path: str) -> None:
        if board.clock() >= datetime(2024, 5, 9, 21, 29, 30, tzinfo=CHINA) and late not in thread.posts:
            thread.add(late)  # the forum stamps it as it comes
            board.thread(thread)

    board.forum.hook = sent_before_the_close  # type: ignore[assignment]
    result = watch(url, game, cookies, clock, "--post")
    assert result.exit_code == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    polls = [line["poll"] for line in lines if "poll" in line]
    assert polls[-1]["final"] and polls[-1]["at"][11:19] >= "21:31:00"  # the forum's time
    assert clock.now() >= datetime(2024, 5, 9, 21, 33, tzinfo=CHINA)  # this computer's
    [said] = skews(result.stderr)
    assert "'s clock is 2 min 00 s behind this computer's" in said
    [(_, _, message)] = board.replies
    assert "小鹿" in message.split("[b]投票明细[/b]")[1].split("[b]废票[/b]")[0]
    [entry] = [json.loads(ln) for ln in journal_path(Path(game)).read_text("utf-8").splitlines()]
    assert any(b["voter"] == "小鹿" and b["floor"] == 20 for b in entry["outcome"]["ballots"])
