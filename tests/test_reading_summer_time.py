"""A day across a change of summer time, on boards in New York and Berlin (issue 49 q).

The game file's opens and closes are times of the game's clock (``timezone``); a Discuz!
page prints every time at the one offset its footer says (Discuz! knows no summer time: a
board's admin moves its offset when the clocks change, and every post, whenever made, is
printed at the new one). A day that opens the Saturday before the change and closes the
Sunday after it was read an hour off: Saturday's posts, printed in summer time (or out of
it), were read on the game's clock of Saturday, so a ballot before the open counted and
five posts after it were not; the last hour before a close on the night of the change was
no hour, the 30 minutes before it put the proxy deadline after the close, and the time to
the close said 25 hours where 26 were left. A close the clock skips or shows twice was read
as one of its guesses.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tally.cli import app
from tally.environment import HttpOptions
from tally.errors import GameFileError, InputError
from tally.model import Comment, Post, Thread
from tally.rules.counting.votes import tally_day
from tally.rules.game.gamefile import parse_game
from tally.rules.judging.as_of import as_of_given

from . import gamefiles
from .conftest import FakeClock, Runner
from .discuzgen import P
from .discuzgen import Thread as Pages

runner = Runner()
PLAYERS = ["甲", "乙", "丙", "丁", "戊", "己"]
UIDS = {"导演A": 1, **{p: 100 + i for i, p in enumerate(PLAYERS)}}
FOOTER = "GMT+8, 2026-11-30 00:18"  # the footer of discuzgen's pages


def utc(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp).replace(tzinfo=UTC)


def printed(stamp: str, offset: int) -> str:
    """What a board at UTC``offset`` prints for the moment ``stamp`` (UTC)."""
    return (utc(stamp) + timedelta(hours=offset)).strftime("%Y-%m-%d %H:%M:%S")


def serve(forum, pages: Pages, offset: int, now: str) -> str:  # type: ignore[no-untyped-def]
    """The thread's pages as the board prints them now: its footer says its offset and now."""
    footer = f"GMT{offset:+d}, {printed(now, offset)[:16]}"
    for number, body in enumerate(pages.pages(), start=1):
        forum.add_discuz_page(pages.tid, number, body.replace(FOOTER.encode(), footer.encode()))
    return forum.url(f"forum.php?mod=viewthread&tid={pages.tid}")


def game_file(tmp_path: Path, zone: str, opens: str, closes: str, vote: str, talk: str) -> str:
    path = gamefiles.write_game(
        tmp_path / "game.toml",
        gamefiles.day(1, vote, opens, closes, discussion=talk, sheriff="none"),
        ruleset="000", timezone=zone, directors=[{"name": "导演A", "id": 1}],
        players=[{"name": p, "id": UIDS[p]} for p in PLAYERS],
        rules={"sheriff_election_day": "none"},
    )  # fmt: skip
    return str(path)


# The two changes: New York's clocks go forward at 02:00 on Sunday 2024-03-10 (UTC-5 to
# UTC-4), Berlin's back at 03:00 on Sunday 2024-10-27 (UTC+2 to UTC+1). Each board's admin
# moved its offset with them; the day is read on the Sunday evening.
CASES = {
    "America/New_York": {
        "opens": "2024-03-09T09:30:00", "closes": "2024-03-10T21:30:00", "offset": -4,
        "now": "2024-03-11 02:00",  # Sunday 22:00 EDT
        "open": "2024-03-09 14:30",  # Saturday 09:30 EST
    },
    "Europe/Berlin": {
        "opens": "2024-10-26T09:00:00", "closes": "2024-10-27T21:00:00", "offset": +1,
        "now": "2024-10-27 21:00",  # Sunday 22:00 CET
        "open": "2024-10-26 07:00",  # Saturday 09:00 CEST
    },
}  # fmt: skip


def day_of(forum, tmp_path, zone: str):  # type: ignore[no-untyped-def]
    """Saturday: the director's header 10 minutes before the open; 乙's ballot 10 minutes
    before it (void, before_open); 丙's 15 minutes after; each player's five posts in the
    discussion thread within the day's first hour. Sunday evening: the others' ballots."""
    case = CASES[zone]
    opened = utc(case["open"])

    def at(minutes: int) -> str:
        return printed((opened + timedelta(minutes=minutes)).strftime("%Y-%m-%d %H:%M:%S"),
                       case["offset"])  # fmt: skip

    sunday = utc(case["now"]) - timedelta(hours=2)  # Sunday 20:00 on the game's clock
    votes = Pages("301", "第1天投票帖", UIDS, first_pid=301_000)
    votes.add(P("导演A", at(-20), "投票格式：\n投票对象：\n投票理由："))
    votes.add(P("乙", at(-10), "投票对象：甲\n投票理由：抢跑"))
    votes.add(P("丙", at(15), "投票对象：甲\n投票理由：早"))
    for i, voter in enumerate(("丁", "戊", "己", "甲")):
        when = printed((sunday + timedelta(minutes=i)).strftime("%Y-%m-%d %H:%M:%S"),
                       case["offset"])  # fmt: skip
        votes.add(P(voter, when, f"投票对象：{'乙' if voter != '甲' else '丙'}\n投票理由：晚"))
    talk = Pages("201", "第1天讨论帖", UIDS, first_pid=201_000)
    talk.add(P("导演A", at(-20), "开门"))
    minute = 1
    for player in PLAYERS:
        for n in range(5):
            talk.add(P(player, at(minute), f"{player}发言{n}"))
            minute += 1
    vote_url = serve(forum, votes, case["offset"], case["now"])
    talk_url = serve(forum, talk, case["offset"], case["now"])
    game = game_file(tmp_path, zone, case["opens"], case["closes"], vote_url, talk_url)
    env = FakeClock(utc(case["now"])).env(http=HttpOptions(host_delay=0))
    return game, vote_url, env


@pytest.mark.rules("S2", "V6")
@pytest.mark.parametrize("zone", sorted(CASES))
def test_S2_saturdays_posts_are_read_at_the_offset_the_board_prints_them_at(
    forum, tmp_path, zone
):
    game, url, env = day_of(forum, tmp_path, zone)
    result = runner.invoke(app, ["votes", url, "--game", game, "--json", "-q"], obj=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    by = {b["voter"]: b for b in data["ballots"]}
    assert (by["乙"]["status"], by["乙"]["reason"]) == ("void", "before_open")
    assert by["丙"]["status"] == "counted"
    # Shown on the game's clock of Saturday, not on the board's of today.
    case = CASES[zone]
    opened = utc(case["open"]).astimezone(ZoneInfo(zone))
    assert by["丙"]["time"] == (opened + timedelta(minutes=15)).isoformat()
    assert data["provisional"] is False


@pytest.mark.rules("L1")
@pytest.mark.parametrize("zone", sorted(CASES))
def test_L1_the_days_window_holds_the_five_posts_of_its_first_hour(forum, tmp_path, zone):
    game, _, env = day_of(forum, tmp_path, zone)
    result = runner.invoke(app, ["lurkers", "--game", game, "--day", "1", "--json", "-q",
                                 "--no-write"], obj=env)  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {p["player"]: p["posts"] for p in data["players"]} == dict.fromkeys(PLAYERS, 5)
    assert [c for c in data["cards"] if c["rule"] == "L1"] == []


def test_the_time_left_to_the_close_is_elapsed_time(forum, tmp_path):
    """Saturday 20:00 CEST to Sunday 21:00 CET is 26 hours: the clock went back one."""
    game, url, _ = day_of(forum, tmp_path, "Europe/Berlin")
    env = FakeClock(utc("2024-10-26 18:00")).env(http=HttpOptions(host_delay=0))
    result = runner.invoke(app, ["votes", url, "--game", game, "--fresh"], obj=env)
    assert result.exit_code == 0, result.output
    assert "the day closes 10-27 21:00, 1 d 2 h after this count (10-26 20:00)" in " ".join(
        result.stdout.split())


# -- the night of the change: the last hour, the proxy deadline ---------------------------------


def night_game(closes: str, zone: str = "America/New_York") -> object:
    text = gamefiles.game_toml(
        gamefiles.day(2, opens="2024-03-09T09:30:00", closes=closes, sheriff="none"),
        ruleset="000", timezone=zone, directors=["导演A"], players=PLAYERS,
        rules={"sheriff_election_day": "none"},
    )  # fmt: skip
    return parse_game(text, source="game.toml")


def post(floor: int, author: str, when: str, text: str, *comments: Comment) -> Post:
    return Post("discuz", "102", str(floor), floor, author, None, utc(when), text,
                comments=comments)  # fmt: skip


@pytest.mark.rules("V5", "V8")
def test_V5_V8_the_last_hour_and_the_proxy_deadline_across_the_change_are_elapsed_time():
    """The day closes 03:10 EDT on the night New York's clocks skip 02:00 to 03:00: the last
    hour began 01:10 EST, the proxy deadline was 01:40 EST. On the clock face both were in
    the hour that never came (02:10, 02:40), read as 07:10 and 07:40 UTC: no last hour at
    all, and a deadline 30 minutes after the close. 甲's change at 01:45 EST and 导演A's
    proxy for 丁 at 01:50 EST were counted."""
    game = night_game("2024-03-10T03:10:00")
    change = Comment("2.1", "甲", None, utc("2024-03-10 06:45"), "改票对象：乙 改票理由：最后一刻",
                     to_the_minute=True)  # fmt: skip
    thread = Thread("discuz", "102", "https://bbs.example.com/thread-102-1-1.html", "投票帖", 1, (
        post(1, "导演A", "2024-03-09 14:00", "投票格式：\n投票对象：\n投票理由："),
        post(2, "甲", "2024-03-09 15:00", "投票对象：丙\n投票理由：早", change),
        post(3, "乙", "2024-03-09 16:00", "投票对象：丙\n投票理由：早"),
        post(4, "导演A", "2024-03-10 06:50", "代投：丁\n投票对象：甲\n投票理由：托管"),
    ))  # fmt: skip
    result = tally_day(thread, game, 2)
    jia = [b for b in result.ballots if b.voter == "甲"]
    assert [(b.target, b.status.value) for b in jia] == [("丙", "counted"), ("乙", "void")]
    ding = [b for b in result.ballots if b.voter == "丁"]
    assert [b.status.value for b in ding] == ["void"]
    assert result.outcome.player == "丙"


# -- a time the game's clock skips or shows twice ------------------------------------------------


@pytest.mark.parametrize(
    ("zone", "closes", "says"),
    [
        ("America/New_York", "2024-03-10T02:30:00",
         "2024-03-10 02:30 is no time in America/New_York: its clocks go forward an hour that "
         "night (summer time begins) and never show it"),
        ("Europe/Berlin", "2024-03-31T02:30:00", "2024-03-31 02:30 is no time in Europe/Berlin"),
        ("America/New_York", "2024-11-03T01:30:00",
         "2024-11-03 01:30 comes twice in America/New_York: its clocks go back an hour that night "
         "(summer time ends); say which with its offset, 2024-11-03T01:30:00-04:00 (the first) "
         "or 2024-11-03T01:30:00-05:00 (the second)"),
        ("Europe/Berlin", "2024-10-27T02:30:00",
         "2024-10-27 02:30 comes twice in Europe/Berlin"),
    ],
)  # fmt: skip
def test_a_close_the_clock_skips_or_shows_twice_is_one_sentence(zone, closes, says):
    with pytest.raises(GameFileError, match=re.escape(says)) as caught:
        night_game(closes, zone)
    said = str(caught.value)
    assert "key 'day 2.closes'" in said and says in said and "\n" not in said


def test_a_close_the_clock_shows_twice_given_with_its_offset_is_that_moment():
    first = night_game("2024-11-03T01:30:00-04:00").days[0].closes
    second = night_game("2024-11-03T01:30:00-05:00").days[0].closes
    assert second - first == timedelta(hours=1)
    assert (first.isoformat(), second.isoformat()) == (
        "2024-11-03T01:30:00-04:00", "2024-11-03T01:30:00-05:00")
    # A day's length is elapsed time: Saturday 09:30 EST to Sunday 03:10 EDT is 16 h 40 min.
    day = night_game("2024-03-10T03:10:00").days[0]
    assert day.closes - day.opens == timedelta(hours=16, minutes=40)


def test_an_as_of_the_clock_shows_twice_is_one_sentence():
    game = night_game("2024-11-03T21:30:00")
    with pytest.raises(InputError, match=r"^--as-of 2024-11-03 01:30 comes twice in "
                       r"America/New_York.*-04:00 \(the first\)"):  # fmt: skip
        as_of_given("2024-11-03 01:30", game, game.days[0])
    assert as_of_given("2024-11-03 01:30-05:00", game, game.days[0]).isoformat() == (
        "2024-11-03T01:30:00-05:00")


def test_init_writes_the_days_times_on_the_games_clock(forum, tmp_path):
    """`tally init` wrote a Saturday's open as the board prints it on Sunday, an hour off."""
    _, vote_url, env = day_of(forum, tmp_path, "Europe/Berlin")
    talk_url = vote_url.replace("tid=301", "tid=201")
    out = tmp_path / "new.toml"
    made = runner.invoke(app, ["init", talk_url, vote_url, "-o", str(out), "--timezone",
                               "Europe/Berlin", "-q"], obj=env)  # fmt: skip
    assert made.exit_code == 0, made.output
    text = out.read_text(encoding="utf-8")
    assert "opens = 2024-10-26T08:40:00" in text  # the director's 开门 post, 08:40 CEST
