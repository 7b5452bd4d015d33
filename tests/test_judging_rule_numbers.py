"""Every sentence that states a rule's number takes it from the ruleset in force (issue 35),
and times a sentence compares carry seconds when their minutes are equal.

A game of ruleset 000 whose [rules] set a 10-minute change window: a change 5 minutes before
the close is void, and the console, the JSON and the announcement all say 10 minutes (the
preset's words were "关门前一小时内改票" whatever the window).
"""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tally.cli import app

from . import gamefiles
from .conftest import FakeClock, Runner
from .discuzgen import P
from .discuzgen import Thread as Pages

runner = Runner()
CHINA = ZoneInfo("Asia/Shanghai")


def game(forum, tmp_path, window: int = 10):
    t = Pages("611", "[测试局] 第二天投票帖", {})
    t.add(P("导演A", "2024-05-08 09:30:00", "投票格式：\n投票对象：\n投票理由：\n关门：5月9日 21:30"))
    t.add(P("甲", "2024-05-08 10:00:00", "投票对象：乙\n投票理由：狼"))  # 2
    t.add(P("乙", "2024-05-08 10:05:00", "投票对象：甲\n投票理由：狼"))  # 3
    t.add(P("丙", "2024-05-08 10:10:00", "投票对象：乙\n投票理由：狼"))  # 4
    t.add(P("甲", "2024-05-09 21:25:00", "改票对象：丙\n改票理由：改主意", reply=2))  # 5
    t.add(P("丁", "2024-05-08 09:30:10", "投票对象：乙\n投票理由：抢先"))  # 6
    t.add(P("乙", "2024-05-08 12:00:00", "改票对象：丙\n改票理由：从回帖框"))  # 7: links no floor
    url = t.serve(forum)
    path = gamefiles.write_game(
        tmp_path / "game.toml", gamefiles.day(2, url, opens="2024-05-08T09:30:40"),
        name="测试局", ruleset="000", directors=["导演A"], players=["甲", "乙", "丙", "丁"],
        rules={"change_via": ["reply"], "change_window_minutes": window},
    )  # fmt: skip
    return url, path


def run(*args: str):
    return runner.invoke(app, list(args), obj=FakeClock("2024-05-10 09:00", CHINA).env(), env={"COLUMNS": "250"})


@pytest.mark.rules("V5")
def test_V5_the_change_window_of_the_game_is_the_one_every_output_states(forum, tmp_path):
    url, path = game(forum, tmp_path)
    data = json.loads(run("votes", url, "--game", str(path), "--json", "-q").stdout)
    [change] = [b for b in data["ballots"] if b["floor"] == 5]
    assert (change["status"], change["reason"]) == ("void", "change_in_final_hour")
    assert change["note"] == "no change in the last 10 minutes before the close, after 21:20 (V5)"
    assert change["reason_words"] == "关门前10分钟内改票"
    table = run("votes", url, "--game", str(path), "-q").stdout
    assert "no change in the last 10 minutes before the close" in table
    post = run("announce", "--game", str(path), "--day", "2", "-q").stdout
    assert "5楼[/url] 甲：关门前10分钟内改票" in post and "一小时" not in post
    # The preset's own hour still reads as the rule posts say it.
    url, path = game(forum, tmp_path, window=60)
    post = run("announce", "--game", str(path), "--day", "2", "-q").stdout
    assert "5楼[/url] 甲：关门前一小时内改票" in post


def test_templates_get_the_rules_numbers_as_values(forum, tmp_path):
    _url, path = game(forum, tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "close.bbcode.j2").write_text(
        "关门前{{ change_window }}（{{ change_window_minutes }} 分钟）内不得改票；代投截止关门前"
        "{{ proxy_deadline_minutes }}分钟；发言少于{{ min_posts }}条记黄牌\n",
        encoding="utf-8",
    )
    post = run("announce", "--game", str(path), "--day", "2", "-q", "--template-dir", str(mine))
    assert post.exit_code == 0, post.output
    assert post.stdout == "关门前10分钟（10 分钟）内不得改票；代投截止关门前30分钟；发言少于5条记黄牌\n"


@pytest.mark.rules("V3")
def test_V3_a_change_that_links_no_floor_says_which_button_posts_one(forum, tmp_path):
    url, path = game(forum, tmp_path)
    data = json.loads(run("votes", url, "--game", str(path), "--json", "-q").stdout)
    [change] = [b for b in data["ballots"] if b["floor"] == 7]
    assert change["reason"] == "change_not_reply"
    assert change["note"] == (
        "a change must be posted as a reply of one's own vote (V3): the vote floor's 回复 button"
    )


@pytest.mark.rules("S2")
def test_S2_times_compared_in_one_minute_carry_their_seconds(forum, tmp_path):
    url, path = game(forum, tmp_path)
    data = json.loads(run("votes", url, "--game", str(path), "--json", "-q").stdout)
    [early] = [b for b in data["ballots"] if b["floor"] == 6]
    assert early["reason"] == "before_open"
    assert early["note"] == "posted 05-08 09:30:10, before the open 05-08 09:30:40"


def test_compared_gives_seconds_only_where_the_minutes_are_equal():
    from tally.times import compared

    a = datetime(2026, 12, 1, 15, 33, 10, tzinfo=CHINA)
    b = datetime(2026, 12, 1, 15, 33, 40, tzinfo=CHINA)
    c = datetime(2026, 12, 1, 15, 40, 0, tzinfo=CHINA)
    assert compared(a, b) == ("12-01 15:33:10", "12-01 15:33:40")
    assert compared(a, c) == ("12-01 15:33", "12-01 15:40")
    assert compared(a, a) == ("12-01 15:33", "12-01 15:33")  # one instant: no contradiction
    assert compared(c, a, b) == ("12-01 15:40:00", "12-01 15:33:10", "12-01 15:33:40")
