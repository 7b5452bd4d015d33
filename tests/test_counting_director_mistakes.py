"""A director's ordinary mistakes stop tally, or are said, instead of a confident wrong answer.

Three mistakes on a real-shaped game (Discuz! pages served on loopback): a day whose close
is still ahead, the wrong thread, a misspelt name in the roster. Each is tried through the
command and through the library functions the command calls.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tally.cli import app
from tally.demo import sample_game_text
from tally.environment import Environment, HttpOptions
from tally.errors import InputError
from tally.model import Thread
from tally.rules.cards.lurkers import check
from tally.rules.cards.writings import DayThreads
from tally.rules.counting.votes import tally_day
from tally.rules.game.gamefile import load_game

from . import gamefiles
from .conftest import FakeClock, Runner, read, read_one
from .discuzgen import Comment, P
from .discuzgen import Thread as Pages
from .test_counting_whole_day import CHANGES, DAY_2, PLAYERS, game_file, vote_thread

runner = Runner()
CHINA = ZoneInfo("Asia/Shanghai")


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=CHINA)


def env(now: str) -> Environment:
    # The counts' times are asserted to the second: no politeness gap moves this clock.
    return FakeClock(at(now)).env(http=HttpOptions(host_delay=0))


def invoke(args: list[str], now: str = "2026-01-01 00:00"):
    return runner.invoke(app, [*args, "--quiet"], obj=env(now), env={"COLUMNS": "250"})


# One forum: an account has one uid in every thread (each thread numbering its own posters
# gave kiwi a uid of its own in each, two accounts under one name to a count that reads both).
UIDS = {"导演A": 100, **{p: 101 + i for i, p in enumerate(PLAYERS)}}


def vote_thread_so_far() -> Pages:
    """Day 2's vote thread as it stands at 20:07 on the closing day: floors 1-16."""
    t = vote_thread()
    t.posts, t.uids = t.posts[:16], dict(UIDS)
    return t


def discussion_thread() -> Pages:
    t = Pages("101", "[测试局] 第二天讨论帖", dict(UIDS), first_pid=1000)
    t.add(P("导演A", "2024-05-08 09:30:00", "第二天讨论帖开门"))
    for i, player in enumerate(PLAYERS[:15]):
        t.add(P(player, f"2024-05-08 {10 + i // 6:02d}:{(i % 6) * 9:02d}:00", f"{player}的发言"))
    return t


def two_day_game(tmp_path: Path, forum, players: list[str] | None = None) -> Path:
    """Day 1 (an election) and day 2, each with its discussion and vote thread."""
    day1_vote = Pages("90", "[测试局] 第一天警长竞选", dict(UIDS), first_pid=900)
    day1_vote.add(
        P("导演A", "2024-05-06 09:30:00", "投票格式：\n投票对象：\n投票理由："),
        P("kiwi", "2024-05-06 10:00:00", "投票对象：冷月\n投票理由：稳"),
    )  # 冷月 elected, as day 2's sheriff line says
    urls = {
        "v1": day1_vote.serve(forum),
        "d2": discussion_thread().serve(forum),
        "v2": vote_thread_so_far().serve(forum),
    }
    return gamefiles.write_game(
        tmp_path / "game.toml",
        gamefiles.day(1, urls["v1"], "2024-05-06T09:30:00", "2024-05-07T21:30:00"),
        DAY_2(urls["v2"], urls["d2"]),
        name="测试局", ruleset="000", directors=["导演A"], players=players or PLAYERS,
        rules=CHANGES,
    )  # fmt: skip


# -- 1. a day whose close is still ahead ---------------------------------------------------


def test_a_count_before_the_close_is_provisional(forum, tmp_path):
    game = two_day_game(tmp_path, forum)
    url = forum.url("forum.php?mod=viewthread&tid=102")
    result = invoke(["votes", url, "--game", str(game), "--json"], now="2024-05-09 20:07")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["provisional"] is True
    assert data["as_of"] == "2024-05-09T20:07:00+08:00"
    # 白桃 6.5 (冷月 2.5 + 4); 长夜 5.5 (kiwi 1.5 + 2 + slandered 2): the proxy is not in yet.
    assert data["leaders"] == ["白桃"]
    counted = [b for b in data["ballots"] if b["status"] == "counted"]
    assert counted and all("at the close" not in b["note"] for b in counted)
    assert next(b for b in counted if b["floor"] == 2)["note"] == "in force now"

    table = invoke(["votes", url, "--game", str(game)], now="2024-05-09 20:07").stdout
    assert (
        "PROVISIONAL: the day closes 05-09 21:30, 1 h 23 min after this count (05-09 20:07)"
        in table
    )
    assert "in force now" in table and "counted" not in table
    assert not any(line.startswith("Outcome:") for line in table.splitlines())
    assert (
        "Standing now (not final): 白桃 leading; if the day closed now, 白桃 would be out" in table
    )


def test_the_same_count_after_the_close_is_final(forum, tmp_path):
    game = two_day_game(tmp_path, forum)
    url = forum.url("forum.php?mod=viewthread&tid=102")
    data = json.loads(
        invoke(["votes", url, "--game", str(game), "--json"], now="2024-05-09 21:31").stdout
    )
    assert data["provisional"] is False and data["as_of"] == "2024-05-09T21:31:00+08:00"
    assert next(b for b in data["ballots"] if b["floor"] == 2)["note"] == "in force at the close"


def test_announce_refuses_a_day_not_closed_unless_provisional(forum, tmp_path):
    game = two_day_game(tmp_path, forum)
    args = ["announce", "--game", str(game), "--day", "2"]
    refused = invoke(args, now="2024-05-09 20:07")
    assert refused.exit_code == 2
    assert refused.stderr == (
        "tally: day 2 closes at 05-09 21:30, after the count's time (05-09 20:07): the result "
        "is not final; run again after the close, or pass --provisional for a mid-day standing.\n"
    )
    assert refused.stdout == ""

    standing = invoke([*args, "--provisional"], now="2024-05-09 20:07")
    assert standing.exit_code == 0, standing.output
    lines = standing.stdout.splitlines()
    assert lines[0] == "[b]测试局 第2天投票 截至 05-09 20:07 暂计（未结票）[/b]"
    assert "[color=#FF0000]" not in standing.stdout and "被投票出局" not in standing.stdout
    assert lines[-1] == "暂时领先：白桃（6.5 票）。以 05-09 21:30 关门后的结果为准。"
    assert "尚未投票：" in standing.stdout

    closed = invoke(args, now="2024-05-09 21:31")
    assert closed.exit_code == 0
    assert closed.stdout.splitlines()[-1].startswith("[color=#FF0000][b]")


def test_lurkers_write_no_card_for_a_day_not_closed(forum, tmp_path):
    game = two_day_game(tmp_path, forum)
    ledger = tmp_path / "game.cards.csv"
    refused = invoke(["lurkers", "--game", str(game), "--day", "2"], now="2024-05-09 20:07")
    assert refused.exit_code == 2
    assert "cards are written only for a closed day; pass --no-write" in refused.stderr
    assert not ledger.exists()

    looked = invoke(
        ["lurkers", "--game", str(game), "--day", "2", "--no-write", "--json"],
        now="2024-05-09 20:07",
    )
    assert looked.exit_code == 0, looked.output
    data = json.loads(looked.stdout)
    assert data["provisional"] is True and data["cards"]  # what the counts so far would give
    assert not ledger.exists()


def test_library_provisional_from_the_read_time_or_the_newest_saved_post(forum, tmp_path):
    game = load_game(two_day_game(tmp_path, forum))
    url = forum.url("forum.php?mod=viewthread&tid=102")
    thread = read_one(url, env=env("2024-05-09 20:07"))
    assert thread.read_at == at("2024-05-09 20:07")
    assert tally_day(thread, game).provisional is True
    # Saved pages say nothing of when they were saved: the newest post is all tally knows.
    saved = Thread(**{**thread.__dict__, "read_at": None})
    result = tally_day(saved, game)
    assert result.provisional is True and result.as_of == at("2024-05-09 10:00")
    after = Thread(**{**thread.__dict__, "read_at": at("2024-05-09 21:30")})
    assert tally_day(after, game).provisional is False


def test_real_saved_pages_with_a_post_after_the_close_are_final(tmp_path):
    from .conftest import DISCUZ

    game = tmp_path / "game.toml"
    game.write_text(
        sample_game_text("https://bbs.example.com/"),
        encoding="utf-8",
    )
    pages = [str(DISCUZ / "vote-p1.html"), str(DISCUZ / "vote-p2.html")]
    data = json.loads(invoke(["votes", *pages, "--game", str(game), "--json"]).stdout)
    assert data["provisional"] is False
    assert data["as_of"] == "2023-03-15T21:40:00+08:00"  # the newest post, after the close


# -- 2. the wrong thread ---------------------------------------------------------------------


def test_discussion_thread_given_as_the_vote_thread(forum, tmp_path):
    game = two_day_game(tmp_path, forum)
    talk = forum.url("forum.php?mod=viewthread&tid=101")
    result = invoke(["votes", talk, "--game", str(game), "--day", "2"])
    assert result.exit_code == 2
    assert result.stderr == (
        "tally: thread 101 is day 2's discussion thread, not a vote thread; day 2's vote thread "
        f"is {forum.url('forum.php?mod=viewthread&tid=102')}\n"
    )
    assert result.stdout == ""
    # Without --day it is the same sentence: tally knows which thread it is.
    plain = invoke(["votes", talk, "--game", str(game)])
    assert plain.exit_code == 2 and "is day 2's discussion thread" in plain.stderr


def test_another_days_vote_thread_with_day(forum, tmp_path):
    game = two_day_game(tmp_path, forum)
    day2 = forum.url("forum.php?mod=viewthread&tid=102")
    result = invoke(["votes", day2, "--game", str(game), "--day", "1"])
    assert result.exit_code == 2
    assert result.stderr == (
        "tally: thread 102 is day 2's vote thread, not day 1's; day 1's vote thread is "
        f"{forum.url('forum.php?mod=viewthread&tid=90')}\n"
    )


def test_a_thread_of_no_day_names_the_candidate_vote_threads(forum, tmp_path):
    game = two_day_game(tmp_path, forum)
    stray = Pages("555", "闲聊", {}).add(P("导演A", "2024-05-08 11:00:00", "闲聊"))
    url = stray.serve(forum)
    result = invoke(["votes", url, "--game", str(game)])
    assert result.exit_code == 2
    # Started on day 2: day 2's vote thread is the one meant, not "--day".
    assert result.stderr == (
        f"tally: thread 555 is not the vote thread of any day in {game}; day 2's vote thread "
        f"is {forum.url('forum.php?mod=viewthread&tid=102')}\n"
    )
    assert "--day" not in result.stderr


def test_a_vote_thread_without_a_ballot_stops(forum, tmp_path):
    """The game file names the discussion thread as the vote thread by mistake."""
    talk = discussion_thread().serve(forum)
    path = Path(game_file(tmp_path, talk))
    result = invoke(["votes", talk, "--game", str(path)])
    assert result.exit_code == 2
    assert result.stderr == (
        "tally: thread 101 has 15 replies and not one ballot (投票对象：…) among them; "
        "is it the day's vote thread?\n"
    )


def test_library_refuses_the_wrong_thread(forum, tmp_path):
    game = load_game(two_day_game(tmp_path, forum))
    talk = read_one(forum.url("forum.php?mod=viewthread&tid=101"))
    with pytest.raises(InputError, match="is day 2's discussion thread"):
        tally_day(talk, game, 2)
    with pytest.raises(InputError, match="is day 2's discussion thread"):
        tally_day(talk, game)


# -- 3. a roster that does not match ---------------------------------------------------------


def misspelt(players: list[str]) -> list[str]:
    return ["小咪" if p == "小眯" else p for p in players]


def test_a_misspelt_player_stops_the_count(forum, tmp_path):
    """小咪 in the game file for 小眯, who posted ballots (floor 19 is 小眯's)."""
    t = vote_thread_so_far()
    t.add(P("小眯", "2024-05-09 11:00:00", "投票对象：长夜\n投票理由：跟票"))
    url = t.serve(forum)
    path = Path(game_file(tmp_path, url))
    path.write_text(path.read_text(encoding="utf-8").replace('"小眯"', '"小咪"'), encoding="utf-8")
    result = invoke(["votes", url, "--game", str(path)])
    assert result.exit_code == 2
    assert result.stderr == (
        f"tally: {path}: players lists 小咪, who never posted; 小眯 posted ballots and is not a "
        "player — a typo? Fix the name, or add it under [aliases] (or under outsiders if it is "
        "another person).\n"
    )
    assert result.stdout == ""
    # [aliases] says who 小眯 is: the count goes on, and the ballot is 小咪's.
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('\n[aliases]\n"小咪" = ["小眯"]\n')
    data = json.loads(invoke(["votes", url, "--game", str(path), "--json"]).stdout)
    floor17 = next(b for b in data["ballots"] if b["floor"] == 17)
    assert (floor17["voter"], floor17["status"]) == ("小咪", "counted")


def test_lurkers_stop_before_writing_a_card_for_a_misspelt_player(forum, tmp_path):
    game = two_day_game(tmp_path, forum, players=misspelt(PLAYERS))
    ledger = tmp_path / "game.cards.csv"
    result = invoke(["lurkers", "--game", str(game), "--day", "2"], now="2024-05-10 09:00")
    assert result.exit_code == 2
    assert "players lists 小咪, who never posted; 小眯 posted 1 time and is not a player" in (
        result.stderr
    )
    assert not ledger.exists()


def test_strangers_not_like_any_player_are_void_and_flagged(forum, tmp_path):
    t = vote_thread_so_far()
    t.add(P("路过的观众", "2024-05-09 11:00:00", "投票对象：长夜\n投票理由：看戏"))
    url = t.serve(forum)
    path = game_file(tmp_path, url)
    data = json.loads(invoke(["votes", url, "--game", path, "--json"]).stdout)
    stranger = next(b for b in data["ballots"] if b["floor"] == 17)
    assert (stranger["status"], stranger["reason"]) == ("void", "not_a_player")
    assert {
        "rule": "roster",
        "player": None,
        "floor": 17,
        "post_id": "2017",
        "note": "路过的观众 is not a player of this game; the ballot on floor 17 is void",
    } in data["flags"]


def test_outsiders_and_rulings_are_not_taken_for_typos(forum, tmp_path):
    """Another person named like a silent player: the director says so, and tally goes on."""
    t = vote_thread_so_far()
    t.add(P("小咪", "2024-05-09 11:00:00", "投票对象：长夜\n投票理由：我不是玩家"))
    url = t.serve(forum)
    path = Path(game_file(tmp_path, url))
    assert invoke(["votes", url, "--game", str(path)]).exit_code == 2  # like 小眯, who is silent
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('ruleset = "000"', 'ruleset = "000"\noutsiders = ["小咪"]'))
    data = json.loads(invoke(["votes", url, "--game", str(path), "--json"]).stdout)
    assert next(b for b in data["ballots"] if b["floor"] == 17)["reason"] == "not_a_player"
    path.write_text(text + '\n[[rulings]]\nday = 2\nfloor = 17\naction = "void"\n')
    data = json.loads(invoke(["votes", url, "--game", str(path), "--json"]).stdout)
    assert next(b for b in data["ballots"] if b["floor"] == 17)["reason"] == "ruling"


def test_library_stops_on_the_misspelt_roster(forum, tmp_path):
    game = load_game(two_day_game(tmp_path, forum, players=misspelt(PLAYERS)))
    urls = [game.day(2).discussion or "", game.day(2).vote]
    talk, vote = read(urls, env=env("2024-05-10 09:00"))
    with pytest.raises(InputError, match="players lists 小咪, who never posted"):
        check(game, [DayThreads(game.day(2), talk, vote)], 2)


def test_name_likeness():
    from tally.rules.game.names import likely_same

    assert likely_same("小咪", "小眯")
    assert likely_same("Mika", "Mlka") and likely_same("Mika", "Мika")  # Cyrillic М
    assert likely_same("月 影", "月影") and likely_same("ｍｉｋａ", "Mika")
    assert not likely_same("冷月", "月影")
    assert not likely_same("甲", "乙")
    assert not likely_same("路过的观众", "长夜")


def test_a_player_who_only_commented_has_posted(forum, tmp_path):
    """小眯's only writing is a 点评: 小眯 posted, so 小咪 is another person, not a typo."""
    t = vote_thread_so_far()
    t.posts[1].comments.append(Comment("小眯", "2024-05-08 12:00", "同意"))
    t.add(P("小咪", "2024-05-09 11:00:00", "投票对象：长夜\n投票理由：路过"))
    url = t.serve(forum)
    result = invoke(["votes", url, "--game", game_file(tmp_path, url), "--json"])
    assert result.exit_code == 0, result.output
    ballots = json.loads(result.stdout)["ballots"]
    assert next(b for b in ballots if b["floor"] == 17)["reason"] == "not_a_player"
