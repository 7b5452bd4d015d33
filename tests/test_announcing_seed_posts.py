"""`tally announce`'s posts against the seed rule posts: the morning post's order of the out
(A1), the reminder of an accelerated day (S3) and its proxy deadline (V8), the elevator's
order and links (A2), and the morning post's wording (C2, K1, the sheriff line).

Each game is served as real-shaped Discuz! X3.5 pages (tests/discuzgen.py) on the local
forum and run through the command line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from tally.cli import app

from . import gamefiles
from .conftest import CHINA, FakeClock, Runner
from .discuzgen import P, Thread

runner = Runner()
PLAYERS = ["甲", "乙", "丙", "丁", "戊", "己"]
UIDS = {"导演A": 1, **{p: 200 + i for i, p in enumerate(PLAYERS)}}


def announce(*args: str, now: str | None = None) -> str:
    obj = FakeClock(now, CHINA).env() if now else FakeClock().env()
    result = runner.invoke(app, ["announce", *args, "--quiet"], obj=obj)
    assert result.exit_code == 0, result.output + result.stderr
    return result.stdout


def vote(tid: int, opens: str, ballots: list[tuple[str, str]]) -> Thread:
    t = Thread(str(tid), f"第{tid}号投票帖", dict(UIDS), first_pid=tid * 1000)
    t.add(P("导演A", f"{opens}:00", "投票格式：\n投票对象：\n投票理由："))
    for minute, (voter, target) in enumerate(ballots, start=31):
        t.add(P(voter, f"{opens[:-2]}{minute}:00", f"投票对象：{target}\n投票理由：理由"))
    return t


def talk(tid: int, opens: str, speakers: list[str]) -> Thread:
    t = Thread(str(tid), f"第{tid}号讨论帖", dict(UIDS), first_pid=tid * 1000)
    t.add(P("导演A", f"{opens}:00", "开门"))
    for minute, who in enumerate(speakers, start=31):
        t.add(P(who, f"{opens[:-2]}{minute}:00", f"{who}的发言"))
    return t


def game(
    tmp_path: Path,
    forum,  # type: ignore[no-untyped-def]
    ruleset: str,
    *,
    rules: Mapping[str, object] | None = None,
    day2: Mapping[str, object] | None = None,
    day3: Mapping[str, object] | None = None,
    talk3: list[str] | None = None,
) -> str:
    """Days 2 and 3 of a game with accounts by uid: day 2's vote puts 乙 out (everyone votes
    乙, 乙 votes 甲), and day 3's block says 丙 died in the night."""
    v2 = vote(302, "2024-05-08 09:30", [(p, "甲" if p == "乙" else "乙") for p in PLAYERS])
    v3 = vote(303, "2024-05-10 09:30", [("甲", "丁")])
    d3 = talk(203, "2024-05-10 09:30", talk3 or [])
    sheriff = "甲" if ruleset != "M126" else None
    path = gamefiles.write_game(
        tmp_path / "game.toml",
        gamefiles.day(2, v2.serve(forum), sheriff=sheriff, **(day2 or {})),
        gamefiles.day(3, v3.serve(forum), "2024-05-10T09:30:00", "2024-05-11T21:30:00",
                      discussion=d3.serve(forum), **({"dead": ["丙"]} if day3 is None else day3)),
        name="种子局", ruleset=ruleset, directors=[{"name": "导演A", "id": 1}],
        players=[{"name": p, "id": UIDS[p]} for p in PLAYERS], rules=rules,
    )  # fmt: skip
    return str(path)


def ledger(path: str, *rows: str) -> None:
    Path(path).with_name("game.cards.csv").write_text(
        "day,player,colour,rule,reason,source\n" + "".join(r + "\n" for r in rows),
        encoding="utf-8",
    )


MORNING = ("--day", "3", "--kind", "morning")
# 戊 red-carded for day 2 (the director's card): sent off from day 3 (K2).
RED = "2,戊,red,L7,第2天恶意破坏游戏,director"


@pytest.mark.rules("A1", "K2")
@pytest.mark.parametrize("ruleset", ["000", "023"])
def test_A1_morning_lists_the_day_in_order_then_the_night_seeds_000_002(forum, tmp_path, ruleset):
    """Seeds 000 and 002: "前一天因投票出局角色名单、夜晚出局角色名单", the day's out (voted out)
    and the night's listed apart, in the order they went out (A1; seed 001's words:
    "公示出局名单时按角色出局的顺序排序"), and "白天红牌罚下在被投票出局之前": 戊's red card for day 2, then
    乙 voted out at day 2's close, then 丙 killed in the night (day 3's `dead`). The old code
    said 丙、戊、乙: the game file's dead first."""
    path = game(tmp_path, forum, ruleset)
    ledger(path, RED)
    out = announce("--game", path, *MORNING, "--format", "text")
    assert "昨日白天出局（按出局顺序）：戊、乙\n昨夜出局（按出局顺序）：丙\n" in out
    bbcode = announce("--game", path, *MORNING)
    assert "昨日白天出局（按出局顺序）：[b]戊、乙[/b]\n昨夜出局（按出局顺序）：[b]丙[/b]\n" in bbcode


@pytest.mark.rules("A1", "K2")
@pytest.mark.parametrize("ruleset", ["245", "M126"])
def test_A1_morning_red_card_after_the_vote_out_seeds_001_003(forum, tmp_path, ruleset):
    """Seeds 001 and 003: "白天红牌罚下导致的出局结算在投票结算之后执行", and one list of the
    out: 乙 voted out, then 戊's red card, then 丙 in the night."""
    path = game(tmp_path, forum, ruleset)
    ledger(path, RED)
    out = announce("--game", path, *MORNING, "--format", "text")
    assert "昨日出局（按出局顺序）：乙、戊、丙\n" in out


@pytest.mark.rules("A1")
def test_A1_morning_a_night_with_nobody_out_says_so(forum, tmp_path):
    """Seed 000: the night's list is its own line, 无 when nobody died in the night."""
    path = game(tmp_path, forum, "000", day3={})
    ledger(path)
    out = announce("--game", path, *MORNING, "--format", "text")
    assert "昨日白天出局（按出局顺序）：乙\n昨夜出局（按出局顺序）：无\n" in out


@pytest.mark.rules("S3")
@pytest.mark.parametrize("ruleset", ["000", "245", "023"])
def test_S3_reminder_on_an_accelerated_day_says_no_change(forum, tmp_path, ruleset):
    """Seeds 000/002: "进程加速后不允许改票，所有改票作废"; seed 001: "执行加速时不允许改票".
    The old reminder told the players how to change (改票请…，限改票一次) on such a day."""
    path = game(tmp_path, forum, ruleset, day2={"accelerated": True})
    ledger(path)
    for markup in ("bbcode", "text"):
        out = announce("--game", path, "--day", "2", "--kind", "reminder", "--format", markup,
                       now="2024-05-09 19:45:00")  # fmt: skip
        assert "今日已加速，不得改票。" in out
        assert "改票请" not in out and "限改票" not in out
    shown = announce("--game", path, "--day", "2", "--kind", "reminder", "--show-rules",
                     now="2024-05-09 19:45:00")  # fmt: skip
    assert "今日已加速，不得改票（S3）。" in shown


@pytest.mark.rules("V8")
def test_V8_reminder_says_the_proxy_deadline_seed_000(forum, tmp_path):
    """Seed 000: "提醒玩家投票（注意法官代投时限是关门前30分钟）"; 245 (seed 001) has an hour;
    M126 (seed 003) has no deadline: no line."""
    for ruleset, line in (
        ("000", "法官代投时限：关门前30分钟（05-09 21:00）。"),
        ("245", "法官代投时限：关门前一小时（05-09 20:30）。"),
        ("M126", None),
    ):
        path = game(tmp_path, forum, ruleset)
        ledger(path)
        for markup in ("bbcode", "text"):
            out = announce("--game", path, "--day", "2", "--kind", "reminder", "--format",
                           markup, now="2024-05-09 19:45:00")  # fmt: skip
            if line is None:
                assert "代投" not in out
            else:
                assert out.endswith(line + "\n"), out
                assert "改票请" in out  # a day not accelerated keeps its change line


def _order(text: str) -> list[str]:
    return re.findall(r"^\d+\. (?:\[url=[^\]]*\])?([^\[（\n]+)", text, flags=re.M)


@pytest.mark.rules("A2")
def test_A2_elevator_order_is_the_games_at_every_run(forum, tmp_path):
    """The elevator's order is part of the game (seed 002: the nearest in the elevator; 001,
    003: its neighbours): without --seed two runs, and day 2's and day 3's, give one order.
    The old code shuffled anew at every run."""
    path = game(tmp_path, forum, "000")
    ledger(path)
    first = announce("--game", path, "--day", "3", "--kind", "elevator")
    again = announce("--game", path, "--day", "3", "--kind", "elevator")
    assert first == again
    day2 = announce("--game", path, "--day", "2", "--kind", "elevator")
    assert _order(day2) == _order(first) and sorted(_order(first)) == sorted(PLAYERS)
    seeded = [_order(announce("--game", path, "--day", "3", "--kind", "elevator", "--seed", s))
              for s in ("1", "2", "3")]  # fmt: skip
    assert any(o != _order(first) for o in seeded)  # --seed still chooses another


@pytest.mark.rules("A2")
def test_A2_elevator_at_the_open_links_each_player_by_uid(forum, tmp_path):
    """Seed 002: "点击电梯贴中任一角色的i贴吧链接可以只看到这名角色的历史发言". At the open nobody
    has posted; the game file's uid makes the 只看该作者 link of the discussion thread
    anyway (the old code printed 甲（尚未发言） with no link)."""
    path = game(tmp_path, forum, "023", talk3=["丁"])
    ledger(path)
    out = announce("--game", path, "--day", "3", "--kind", "elevator")
    assert "尚未发言" not in out
    for p in PLAYERS:
        assert f"forum.php?mod=viewthread&tid=203&authorid={UIDS[p]}]{p}[/url]" in out


@pytest.mark.rules("C2")
def test_C2_morning_says_the_games_slander_bonus(forum, tmp_path):
    """The slandered player receives the ruleset's slander_bonus; the old post always said
    多计两票."""
    path = game(tmp_path, forum, "023", rules={"slander_bonus": 1},
                day3={"dead": ["丙"], "slandered": ["丁"]})  # fmt: skip
    ledger(path)
    assert "被诽谤：丁（今日投票时多计一票）\n" in announce("--game", path, *MORNING)
    path = game(tmp_path, forum, "023", rules={"slander_bonus": 1.5},
                day3={"dead": ["丙"], "slandered": ["丁"]})  # fmt: skip
    assert "被诽谤：丁（今日投票时多计1.5票）\n" in announce("--game", path, *MORNING)


@pytest.mark.rules("A1")
def test_A1_morning_of_a_ruleset_without_a_sheriff_has_no_sheriff_line(forum, tmp_path):
    """M126 (seed 003) elects no sheriff: no 警长：无 line; 000 keeps its line."""
    path = game(tmp_path, forum, "M126")
    ledger(path)
    assert "警长" not in announce("--game", path, *MORNING)
    path = game(tmp_path, forum, "000")
    assert "警长：甲\n" in announce("--game", path, *MORNING)


@pytest.mark.rules("K1")
def test_K1_morning_shows_the_rule_id_only_with_show_rules(forum, tmp_path):
    """A K1 escalation's reason in the ledger ends with its id (3张黄牌折算为红牌（K1）): the
    players' post leaves it out; --show-rules prints it once, in its place."""
    path = game(tmp_path, forum, "000")
    ledger(path, "2,丁,yellow,K1,3张蓝牌折算为黄牌（K1）,tally")
    out = announce("--game", path, *MORNING)
    assert "丁：黄牌，3张蓝牌折算为黄牌\n" in out and "K1" not in out
    shown = announce("--game", path, *MORNING, "--show-rules")
    assert "丁：黄牌，K1，3张蓝牌折算为黄牌\n" in shown
