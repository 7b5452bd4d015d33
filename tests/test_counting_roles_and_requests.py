"""The rules that needed more than the threads: roles (V12, L5 侦探), acceleration requests
(S3, both readings), cards by hand (L4) and K1's double escalation. On real-shaped pages
served on loopback (tests/discuzgen.py), through the commands a director runs."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tally.cli import app
from tally.environment import Environment
from tally.errors import GameFileError
from tally.outputs.written.cardfile import load
from tally.rules.cards.ledger import Card, add
from tally.rules.counting.acceleration import is_request
from tally.rules.game.gamefile import parse_game
from tally.rules.verdicts import Colour

from . import gamefiles
from . import test_counting_whole_day as votes_game
from .conftest import DISCUZ, FakeClock, Runner
from .discuzgen import Comment, P, Thread

runner = Runner()
CHINA = ZoneInfo("Asia/Shanghai")
PLAYERS = list(votes_game.PLAYERS[:12])  # 冷月 … 青山


def env(now: str) -> Environment:
    return FakeClock(now, CHINA).env()


def write_game(tmp_path: Path, ruleset: str, *days: str, **tables: object) -> Path:
    return gamefiles.write_game(tmp_path / "game.toml", *days, name="测试局", ruleset=ruleset,
                                directors=["导演A"], players=PLAYERS, **tables)  # fmt: skip


def invoke(now: str, *args: str):
    return runner.invoke(app, list(args), obj=env(now))


# -- V12: only 嫌疑人 vote and stand in the day-1 election (seed 002, ruleset 023) ----------

SUSPECTS = ["冷月", "小眯", "kiwi", "阿澈", "风铃", "老K"]
ROLES = {p: "嫌疑人" if p in SUSPECTS else ("侦探" if p == "青山" else "证人") for p in PLAYERS}


def election(forum) -> str:
    t = Thread("601", "[023] 第一天警长竞选投票帖", {}, first_pid=6000)
    t.add(P("导演A", "2024-05-06 09:30:00", "投票格式：\n投票对象：\n投票理由："))
    t.add(P("冷月", "2024-05-06 10:00:00", "投票对象：小眯\n投票理由：稳"))  # 2
    t.add(P("小眯", "2024-05-06 10:05:00", "投票对象：冷月\n投票理由：信任"))  # 3
    t.add(P("kiwi", "2024-05-06 10:10:00", "投票对象：小眯\n投票理由：跟"))  # 4
    t.add(P("阿澈", "2024-05-06 10:20:00", "投票对象：白桃\n投票理由：白桃不是嫌疑人"))  # 5
    t.add(P("青山", "2024-05-06 10:30:00", "投票对象：冷月\n投票理由：侦探也想投"))  # 6
    t.add(P("白桃", "2024-05-06 10:40:00", "投票对象：冷月\n投票理由：证人投票"))  # 7
    t.add(P("风铃", "2024-05-06 11:00:00", "投票对象：冷月\n投票理由：好人"))  # 8
    return t.serve(forum)


def test_V12_only_suspects_vote_and_are_elected(forum, tmp_path):
    url = election(forum)
    day = gamefiles.day(1, url, "2024-05-06T09:30:00", "2024-05-07T21:30:00")
    game = write_game(tmp_path, "023", day, roles=ROLES)
    result = invoke("2024-05-08 12:00", "votes", url, "--game", str(game), "--json", "-q")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    verdicts = {b["floor"]: (b["status"], b["reason"]) for b in data["ballots"]}
    assert verdicts == {
        2: ("counted", None),
        3: ("counted", None),
        4: ("counted", None),
        5: ("void", "not_electable"),  # 白桃 is no suspect: no one may elect her
        6: ("void", "not_elector"),  # the 侦探
        7: ("void", "not_elector"),  # a 证人
        8: ("counted", None),
    }
    # 冷月 2 (小眯, 风铃), 小眯 2 (冷月, kiwi): the first to reach 2 is sheriff (C4).
    assert data["kind"] == "sheriff" and data["outcome"]["player"] == "小眯"
    assert {t["player"] for t in data["totals"]} == {"冷月", "小眯"}
    # Roles never reach the public post: the void reasons name no role.
    post = invoke("2024-05-08 12:00", "announce", "--game", str(game), "--day", "1", "-q")
    assert post.exit_code == 0, post.output
    assert "无警长竞选投票权" in post.stdout and "不可当选警长" in post.stdout
    for role in ("嫌疑人", "侦探", "证人"):
        assert role not in post.stdout


def test_V12_a_023_election_without_roles_is_a_game_file_error():
    text = gamefiles.game_toml(
        gamefiles.day(1, "https://bbs.example.com/thread-1-1-1.html", "2024-05-06T09:30:00",
                      "2024-05-07T21:30:00"),
        ruleset="023", players=["甲", "乙"],
    )  # fmt: skip
    with pytest.raises(
        GameFileError, match=r"ruleset 023 lets only 嫌疑人 vote and be elected on day 1 \(V12\)"
    ) as info:
        parse_game(text, source="g.toml")
    assert str(info.value) == (
        "g.toml, key 'roles': ruleset 023 lets only 嫌疑人 vote and be elected on day 1 (V12), "
        "and no player has that role; give [roles], or [rules] election_voters = [] to let "
        "everyone."
    )
    relaxed = parse_game(text + "[rules]\nelection_voters = []\n", source="g.toml")
    assert relaxed.rules.election_voters == ()


# -- L5: seed 003's 侦探 may post after death ----------------------------------------------


def test_L5_the_dead_detective_may_post_the_dead_witness_may_not(forum, tmp_path):
    talk = Thread("611", "[M126] 第二天讨论帖", {}, first_pid=6100)
    talk.add(P("导演A", "2024-05-08 09:30:00", "讨论帖开门"))
    for i, p in enumerate(PLAYERS[:10]):
        talk.add(P(p, f"2024-05-08 10:{i:02d}:00", f"{p}的发言"))
    talk.add(P("青山", "2024-05-08 12:00:00", "侦探遗言：我查过冷月"))  # dead 侦探
    talk.add(P("长夜", "2024-05-08 12:10:00", "我还有话说"))  # dead, no such role
    vote = Thread("612", "[M126] 第二天投票帖", {}, first_pid=6200)
    vote.add(P("导演A", "2024-05-08 09:30:00", "投票格式：\n投票对象："))
    t_url, v_url = talk.serve(forum), vote.serve(forum)
    day = gamefiles.day(2, v_url, discussion=t_url, dead=["青山", "长夜"])
    game = write_game(tmp_path, "M126", day, roles={"青山": "侦探", "长夜": "证人"})
    result = invoke("2024-05-10 12:00", "lurkers", "--game", str(game), "--day", "2", "--json",
                    "--no-write", "-q")  # fmt: skip
    assert result.exit_code == 0, result.output
    dead = [
        (f["player"], f["floor"]) for f in json.loads(result.stdout)["flags"] if f["rule"] == "L5"
    ]
    assert dead == [("长夜", 13)]


# -- S3: acceleration requests --------------------------------------------------------------


@pytest.mark.parametrize(
    "text,asks",
    [
        ("申请加速", True),
        ("申请加速+1", True),
        ("加速＋１", True),
        ("【申请加速】", True),
        ("同意加速！", True),
        ("我也申请加速，谢谢导演", True),
        ("不加速", False),
        ("反对加速", False),
        ("不同意加速", False),
        ("加速吗？", False),
        ("我觉得今天不该加速，票型还没出来", False),
        ("需要加速请在本帖回复。", False),  # the director's own header, were a player to copy it
        ("+1", False),
    ],
)
def test_S3_what_reads_as_a_request(text, asks):
    assert is_request(text) == asks


def requests_thread(forum, tid: str, day_open: str, asked: list[tuple[str, str]]) -> str:
    """A discussion thread where ``asked`` (player, time) ask for 加速, among chat, a quote
    of a request (which is not one), a request from the dead and one from the director."""
    t = Thread(tid, "第三天讨论帖", {}, first_pid=int(tid) * 10)
    t.add(P("导演A", day_open + ":00", "讨论帖开门，需要加速请回复申请加速"))
    t.add(P("冷月", "2024-05-09 09:40:00", "我觉得今天不该加速，票型还没出来"))  # 2
    for player, when in asked:
        t.add(P(player, when + ":00", "申请加速+1"))
    floor = len(t.posts)
    t.add(P("白桃", "2024-05-09 13:30:00", "同意楼上", quote=floor))  # a quote of a request
    t.add(P("长夜", "2024-05-09 13:35:00", "申请加速"))  # out since day 2
    t.posts[1].comments.append(Comment("小眯", "2024-05-09 10:40", "加速"))  # a 点评 request
    return t.serve(forum)


FORUM_REQUESTS = {"acceleration_threads": ["discussion"]}  # 000: not by QQ


def s3_game(forum, tmp_path, ruleset: str, asked, accelerated: bool = False,
            rules: dict | None = FORUM_REQUESTS, **keys: object) -> tuple[Path, str]:  # fmt: skip
    t_url = requests_thread(forum, "623", "2024-05-09 09:30", asked)
    v = Thread("624", "第三天投票帖", {}, first_pid=6240)
    v.add(P("导演A", "2024-05-09 09:30:00", "投票格式：\n投票对象：\n投票理由："))
    v.add(P("冷月", "2024-05-09 11:00:00", "投票对象：白桃\n投票理由：x"))
    v_url = v.serve(forum)
    # 245 reads requests in the 进程帖 (here the discussion thread is that too); 000 takes
    # them by QQ, and this game says it reads them in the discussion thread.
    day = gamefiles.day(3, v_url, "2024-05-09T09:30:00", "2024-05-10T21:30:00", discussion=t_url,
                        progress=t_url, dead=["长夜"], accelerated=accelerated, **keys)  # fmt: skip
    return write_game(tmp_path, ruleset, day, rules=rules), v_url


# 11 living (长夜 is out). More than half: 6; at least half: 6 as well with 11, so the
# cut-off of seed 001 is what differs here: requests after 18:30 (21:30 - 3 h) do not count.
FIVE_EARLY = [("kiwi", "2024-05-09 10:00"), ("阿澈", "2024-05-09 10:05"),
              ("风铃", "2024-05-09 11:00"), ("老K", "2024-05-09 12:00"),
              ("糖糖", "2024-05-09 13:00")]  # fmt: skip


def test_S3_more_than_half_asked_in_time(forum, tmp_path):
    # Five floors and 小眯's 点评: six of eleven, more than half (000).
    game, url = s3_game(forum, tmp_path, "000", FIVE_EARLY, accelerated=True)
    result = invoke("2024-05-09 22:00", "votes", url, "--game", str(game), "--json", "-q")
    assert result.exit_code == 0, result.output
    acc = json.loads(result.stdout)["acceleration"]
    assert (acc["living"], acc["needed"], acc["accelerates"]) == (11, 6, True)
    assert [a["player"] for a in acc["asked"]] == ["kiwi", "阿澈", "小眯", "风铃", "老K", "糖糖"]
    assert acc["asked"][2]["comment"] is True
    assert "白桃" not in {a["player"] for a in acc["asked"]}  # her quote is no request
    assert result.stderr == ""  # the game file agrees


def test_S3_seed_001_counts_only_until_three_hours_before_the_close(forum, tmp_path):
    late = [*FIVE_EARLY[:4], ("糖糖", "2024-05-09 19:00")]  # after 18:30
    game, url = s3_game(forum, tmp_path, "245", late, accelerated=True)
    result = invoke("2024-05-09 22:00", "votes", url, "--game", str(game), "-q")
    assert result.exit_code == 0, result.output
    assert (
        "flag S3: 加速: 5 of 11 living asked by 05-09 18:30 (needs 6): not accelerated"
        in result.stdout
    )
    assert result.stderr == (
        "tally: warning: day 3 is marked accelerated = true, but only 5 of 11 living players "
        "asked for 加速 by 05-09 18:30 (needs 6); check the game file (S3).\n"
    )


def test_S3_at_least_half_under_seed_001(forum, tmp_path):
    # 245 reads "at least half": with 10 living, 5 is enough; 000 needs 6.
    early = FIVE_EARLY[:4]  # four floors and the 点评: five
    for ruleset, accelerates in (("245", True), ("000", False)):
        game, url = s3_game(forum, tmp_path, ruleset, early)
        text = game.read_text(encoding="utf-8").replace(
            'dead = ["长夜"]', 'dead = ["长夜", "青山"]'
        )
        game.write_text(text, encoding="utf-8")
        result = invoke("2024-05-09 22:00", "votes", url, "--game", str(game), "--json", "-q")
        acc = json.loads(result.stdout)["acceleration"]
        assert (acc["living"], len(acc["asked"]), acc["accelerates"]) == (10, 5, accelerates)
        if accelerates:  # the game file does not say so: a warning naming the day
            assert "day 3: 5 of 10 living players asked for 加速 (needs 5)" in result.stderr


def test_S3_the_real_progress_thread(forum, tmp_path):
    """fixtures/discuz/progress-p1.html, rendered by a real Discuz! X3.5: 月影 "申请加速" and
    青山 "申请加速+1" under the director's "需要加速请在本帖回复。"."""
    forum.add_discuz_page("26", 1, (DISCUZ / "progress-p1.html").read_bytes())
    v = Thread("27", "投票帖", {}, first_pid=2700)
    v.add(P("导演B", "2023-03-15 09:00:00", "投票格式：\n投票对象：\n投票理由："))
    v.add(P("月影", "2023-03-15 11:00:00", "投票对象：青山\n投票理由：x"))
    v_url = v.serve(forum)
    names = ["月影", "青山", "长夜", "白桃", "南瓜"]
    path = gamefiles.write_game(
        tmp_path / "g.toml",
        gamefiles.day(2, v_url, "2023-03-15T09:00:00", "2023-03-16T21:00:00",
                      progress=forum.url("thread-26-1-1.html")),
        ruleset="023", directors=["导演B"], players=names, outsiders=["违规者"],
    )  # fmt: skip
    result = invoke("2023-03-17 12:00", "votes", v_url, "--game", str(path), "--json", "-q")
    assert result.exit_code == 0, result.output
    acc = json.loads(result.stdout)["acceleration"]
    assert [(a["player"], a["floor"]) for a in acc["asked"]] == [("月影", 2), ("青山", 5)]
    assert (acc["living"], acc["needed"], acc["accelerates"]) == (5, 3, False)


def test_S3_is_said_only_where_someone_asked_or_the_file_says_so(forum, tmp_path):
    """Nobody asked and the day is not marked accelerated: no S3 line in votes or lurkers
    (it said "0 of 11 … not accelerated" on every run); the JSON still has the count."""
    talk = Thread("633", "第三天讨论帖", {}, first_pid=6330)
    talk.add(P("导演A", "2024-05-09 09:30:00", "讨论帖开门，需要加速请回复申请加速"))
    talk.add(P("冷月", "2024-05-09 09:40:00", "我觉得今天不该加速，票型还没出来"))
    vote = Thread("634", "第三天投票帖", {}, first_pid=6340)
    vote.add(P("导演A", "2024-05-09 09:30:00", "投票格式：\n投票对象：\n投票理由："))
    vote.add(P("冷月", "2024-05-09 11:00:00", "投票对象：白桃\n投票理由：x"))
    t_url, url = talk.serve(forum), vote.serve(forum)
    game = write_game(tmp_path, "000", gamefiles.day(
        3, url, "2024-05-09T09:30:00", "2024-05-10T21:30:00", discussion=t_url, dead=["长夜"]),
        rules=FORUM_REQUESTS)  # fmt: skip
    table = invoke("2024-05-10 22:00", "votes", url, "--game", str(game), "-q")
    assert table.exit_code == 0, table.output
    assert "flag S3" not in table.stdout and "加速" not in table.stdout
    data = invoke("2024-05-10 22:00", "votes", url, "--game", str(game), "--json", "-q")
    assert json.loads(data.stdout)["acceleration"]["asked"] == []
    lurk = invoke("2024-05-10 22:00", "lurkers", "--game", str(game), "--day", "3", "--no-write", "-q")
    assert lurk.exit_code == 0, lurk.output
    assert "flag S3" not in lurk.stdout and "floor None" not in lurk.stdout
    # One request is enough to say the count, without a floor it does not have.
    talk.add(P("kiwi", "2024-05-09 10:00:00", "申请加速"))
    talk.serve(forum)
    lurk = invoke("2024-05-10 22:00", "lurkers", "--game", str(game), "--day", "3", "--no-write",
                  "-q", "--fresh")  # fmt: skip
    said = [line for line in lurk.stdout.splitlines() if "flag S3" in line]
    assert said == ["flag S3: 加速: 1 of 11 living asked by 05-09 21:30 (needs 6): not accelerated"]


def test_S3_a_game_without_acceleration_counts_no_request(forum, tmp_path):
    """[rules] acceleration = false: requests are not counted, the discussion thread is not
    even read for them, and no S3 line is printed."""
    game, url = s3_game(forum, tmp_path, "000", FIVE_EARLY)
    text = game.read_text(encoding="utf-8").replace("[rules]\n", "[rules]\nacceleration = false\n", 1)
    game.write_text(text, encoding="utf-8")
    forum.requests.clear()
    data = invoke("2024-05-10 22:00", "votes", url, "--game", str(game), "--json", "-q")
    assert data.exit_code == 0, data.output
    assert json.loads(data.stdout)["acceleration"] is None
    assert not [r for r in forum.requests if "tid=623" in r]
    lurk = invoke("2024-05-10 22:00", "lurkers", "--game", str(game), "--day", "3", "--no-write", "-q")
    assert lurk.exit_code == 0 and "flag S3" not in lurk.stdout


# -- L4 by hand, K1 twice in a day ------------------------------------------------------------


def test_L4_by_hand_reaches_the_morning_post(tmp_path):
    days = [
        gamefiles.day(d, f"https://bbs.example.com/thread-{d}-1-1.html",
                      f"2024-05-{4 + 2 * d:02d}T09:30:00", f"2024-05-{5 + 2 * d:02d}T21:30:00")
        for d in (2, 3)
    ]  # fmt: skip
    game = write_game(tmp_path, "000", *days)
    add = invoke("2024-05-08 22:00", "cards", "add", "--game", str(game), "--day", "2", "糖糖",
                 "黄", "L4", "第2晚未按时行动")  # fmt: skip
    assert add.exit_code == 0, add.output
    assert add.stdout == "added: day 2 糖糖 黄牌 L4 第2晚未按时行动\n"
    again = invoke("2024-05-08 22:00", "cards", "add", "--game", str(game), "--day", "2", "糖糖",
                   "yellow", "L4", "第2晚未按时行动")  # fmt: skip
    assert again.stdout == "already in the ledger; nothing written.\n"
    morning = invoke("2024-05-09 09:00", "announce", "--game", str(game), "--day", "3",
                     "--kind", "morning")  # fmt: skip
    assert morning.exit_code == 0, morning.output
    assert "[b]第2天判罚[/b]\n糖糖：黄牌，第2晚未按时行动" in morning.stdout
    listed = invoke("2024-05-09 09:00", "cards", "list", "--game", str(game))
    assert "L4" in listed.stdout and "糖糖: 0 blue, 1 yellow, 0 red" in listed.stdout
    removed = invoke("2024-05-09 09:00", "cards", "remove", "--game", str(game), "--day", "2",
                     "糖糖", "yellow", "L4")  # fmt: skip
    assert removed.stdout == "removed: day 2 糖糖 黄牌 L4 第2晚未按时行动\n"
    assert load(tmp_path / "game.cards.csv") == []


def test_cards_by_hand_refuse_what_is_not_a_card(tmp_path):
    days = gamefiles.day(2, "https://bbs.example.com/thread-2-1-1.html")
    game = str(write_game(tmp_path, "000", days))
    for args, says in [
        (["--day", "2", "糖糖", "purple", "L4", "x"], "'purple' is no card colour"),
        (["--day", "2", "某人", "yellow", "L4", "x"], "'某人' is not a player of"),
        (["--day", "9", "糖糖", "yellow", "L4", "x"], "day 9 is not a day of"),
        (["--day", "2", "糖糖", "yellow", "L4", " "], "give the card a reason"),
    ]:
        result = invoke("2024-05-10 09:00", "cards", "add", "--game", game, *args)
        assert result.exit_code == 2 and says in result.stderr, (args, result.stderr)


def test_K1_two_escalations_of_one_colour_on_one_day_both_stand():
    yellow = [Card(1, "糖糖", Colour.YELLOW, "L1", "第1天发言少于5条")]
    by_hand = [
        Card(3, "糖糖", Colour.YELLOW, rule, reason, source="director")
        for rule, reason in (
            ("L4", "未行动"),
            ("L8", "刷屏"),
            ("L7", "红字"),
            ("L8", "又刷屏"),
            ("L6", "楼中楼讨论"),
        )
    ]
    cards, new = add(yellow, by_hand)
    reds = [(c.day, c.rule, c.reason) for c in cards if c.colour == Colour.RED]
    # The third and the sixth yellow are both on day 3: two reds, both stand.
    assert reds == [(3, "K1", "3张黄牌折算为红牌（K1）"), (3, "K1", "6张黄牌折算为红牌（K1）")]
    assert len(new) == 7
    # Checking again adds nothing twice; the same card by hand is one card.
    again, more = add(cards, [*yellow, *by_hand])
    assert more == [] and again == cards


def test_S3_the_living_are_counted_when_the_requests_are(forum, tmp_path):
    """Seed 001 counts the requests three hours before the close: one out at noon (died) is
    not among the living then (11 living at the open, 10 at 18:30: at least half is 5)."""
    game, url = s3_game(forum, tmp_path, "245", FIVE_EARLY, accelerated=True,
                        died={"青山": datetime(2024, 5, 9, 12)})  # fmt: skip
    result = invoke("2024-05-10 22:00", "votes", url, "--game", str(game), "--json", "-q")
    assert result.exit_code == 0, result.output
    acc = json.loads(result.stdout)["acceleration"]
    assert (acc["living"], acc["needed"]) == (10, 5)


def test_S3_requests_are_read_where_the_ruleset_takes_them(forum, tmp_path):
    """Seed 000: "过半数的玩家通过QQ私聊法官申请加速" — no request is in a thread, so none is
    counted, and an accelerated day draws no "only 0 asked" warning. Seed 002 (023): "在进程
    帖中申请加速" — a request in the discussion thread is none."""
    game, url = s3_game(forum, tmp_path, "000", FIVE_EARLY, accelerated=True, rules=None)
    result = invoke("2024-05-10 22:00", "votes", url, "--game", str(game), "--json", "-q")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["acceleration"] is None and "S3" not in result.stderr
    talk = requests_thread(forum, "641", "2024-05-09 09:30", FIVE_EARLY)
    progress = requests_thread(forum, "642", "2024-05-09 09:30", FIVE_EARLY[:2])
    v = Thread("643", "第三天投票帖", {}, first_pid=6430)
    v.add(P("导演A", "2024-05-09 09:30:00", "投票格式：\n投票对象：\n投票理由："))
    v_url = v.serve(forum)
    seed_002 = write_game(tmp_path, "023", gamefiles.day(
        3, v_url, "2024-05-09T09:30:00", "2024-05-10T21:30:00", discussion=talk,
        progress=progress, dead=["长夜"]))  # fmt: skip
    result = invoke("2024-05-10 22:00", "votes", v_url, "--game", str(seed_002), "--json", "-q")
    asked = json.loads(result.stdout)["acceleration"]["asked"]
    assert [a["player"] for a in asked] == ["kiwi", "阿澈", "小眯"]  # the 进程帖's alone
