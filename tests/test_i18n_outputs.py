"""tally's tables and sentences in the director's language (issue 52): `tally votes` on a
whole day of real-shaped Discuz! pages prints its headers, flags and outcome in Chinese under
TALLY_LANG=zh, and exactly as before under TALLY_LANG=en; the lurker check, the ledger and
the live screen likewise."""

from __future__ import annotations

import dataclasses
import re

from tally.cli import app
from tally.i18n import Language, speaking, tr

from .conftest import Runner
from .test_counting_whole_day import game_file, vote_thread

runner = Runner()
HAN = re.compile(r"[\u4e00-\u9fff]")


def votes(forum, tmp_path, language: str, *extra: str):
    url = vote_thread().serve(forum)
    args = ["votes", url, "--game", game_file(tmp_path, url), *extra]
    return runner.invoke(app, args, env={"COLUMNS": "250", "TALLY_LANG": language})


def test_votes_in_chinese_headers_flags_and_outcome(forum, tmp_path):
    said = votes(forum, tmp_path, "zh")
    assert said.exit_code == 0, said.output
    out = said.stdout
    assert out.startswith("\n第2天 投票（规则集 000），帖子 102“[测试局] 第二天投票帖”：2页，19帖\n")
    for header in ("得票", "玩家", "票数", "投票人（票重）", "加票",
                   "逐楼票型", "楼层", "投票人", "类型", "投票对象", "时间", "状态", "原因"):  # fmt: skip
        assert header in out, header
    # The statuses and kinds in the words the announcements use; the reason codes as they are.
    rows = {line.split("│")[1].strip(): line for line in out.splitlines() if line.startswith("│")}
    assert "│ 有效 " in rows["2"] and "│ 投票 " in rows["2"]
    assert "│ 已改票 " in rows["4"] and "│ 改票 " in rows["4 点评"] and "│ 废票 " in rows["4 点评"]
    assert "second_change:" in rows["4 点评"] and "│ 代投 " in rows["18"]
    assert "│ 不是票 " in rows["13"]
    assert "［提示：在关门前60分钟内编辑过，05-09 21:00］" in rows["14"]
    assert "\n提示 edited：14楼：在关门前60分钟内编辑过，05-09 21:00\n" in out
    assert "\n未投票（5人）：小眯、雪见、南瓜、长夜、Mika\n" in out
    assert "\n投票结果：白桃出局——白桃、长夜平票（6.5票）：警长冷月投给了白桃（C5）" in out
    assert out.rstrip().endswith("（规则 tie_sheriff_target）")
    for english in ("Totals", "Ballots, floor by floor", "voters (weight)", "Not voted",
                    "Outcome:", "flag edited", "counted", "superseded", "[rule"):  # fmt: skip
        assert english not in out, english


def test_votes_in_english_unchanged(forum, tmp_path):
    said = votes(forum, tmp_path, "en")
    assert said.exit_code == 0, said.output
    out = said.stdout
    assert out.startswith("\nDay 2 vote (ruleset 000), thread 102 “[测试局] 第二天投票帖”: "
                          "2 page(s), 19 posts\n")  # fmt: skip
    for header in ("Totals", "player", "votes", "voters (weight)", "bonus",
                   "Ballots, floor by floor", "floor", "voter", "kind", "target", "time",
                   "status", "why"):  # fmt: skip
        assert header in out, header
    rows = {line.split("│")[1].strip(): line for line in out.splitlines() if line.startswith("│")}
    assert "│ counted " in rows["2"] and "│ vote " in rows["2"]
    assert "│ superseded " in rows["4"] and "│ change " in rows["4 点评"]
    assert "│ void " in rows["4 点评"] and "│ proxy " in rows["18"]
    assert "│ not a ballot " in rows["13"]
    assert "[flag: edited in the last 60 minutes" in rows["14"]
    assert "\nflag edited: floor 14: edited in the last 60 minutes before the close" in out
    assert "\nNot voted (5): 小眯、雪见、南瓜、长夜、Mika\n" in out
    assert out.endswith("\nOutcome: 白桃 is out — 白桃、长夜 tie on 6.5: the sheriff 冷月 voted for "
                        "白桃 (C5) [rule tie_sheriff_target]\n")  # fmt: skip
    for chinese in ("得票", "逐楼票型", "未投票", "投票结果", "提示", "有效", "废票"):
        assert chinese not in out, chinese


def test_provisional_votes_in_chinese(forum, tmp_path):
    said = votes(forum, tmp_path, "zh", "--as-of", "2024-05-09T20:00:00")
    assert said.exit_code == 0, said.output
    out = said.stdout
    assert "\n暂计：05-09 21:30关门，离本次计票（05-09 20:00）还有" in out
    assert "关门前还会有票和改票。\n" in out
    assert "│ 目前有效 " in out and "in force now" not in out
    assert "\n目前暂计（未结票）：白桃领先；如果现在关门，白桃出局——" in out
    assert "（规则 plurality）" in out
    english = votes(forum, tmp_path, "en", "--as-of", "2024-05-09T20:00:00").stdout
    assert "\nPROVISIONAL: the day closes 05-09 21:30, " in english
    assert "\nStanding now (not final): 白桃 leading; if the day closed now, 白桃 would be out" in english


def test_votes_on_a_narrow_terminal_in_chinese(forum, tmp_path):
    url = vote_thread().serve(forum)
    args = ["votes", url, "--game", game_file(tmp_path, url)]
    out = runner.invoke(app, args, env={"COLUMNS": "80", "TALLY_LANG": "zh"}).stdout
    assert "\n逐楼票型\n" in out
    assert re.search(r"\n +14  青山  投票 长夜  05-08 17:30  有效\n", out)


def test_an_outputs_sentence_follows_the_language():
    """The same call, two languages: the catalog moves the fields where Chinese wants them."""
    from tally.outputs.shown.console import not_voted_line

    assert not_voted_line(["甲", "乙"]) == "Not voted (2): 甲、乙"
    with speaking(Language.ZH):
        assert not_voted_line(["甲", "乙"]) == "未投票（2人）：甲、乙"
        assert HAN.search(tr("Ballots, floor by floor"))


def test_a_broken_card_ledger_is_one_chinese_sentence(tmp_path):
    import pytest

    from tally.errors import GameFileError
    from tally.outputs.written.cardfile import load

    ledger = tmp_path / "game.cards.csv"
    ledger.write_text("day,player,colour,rule,reason,source\n2,甲,green,L1,潜水,tally\n",
                      encoding="utf-8")  # fmt: skip
    with speaking(Language.ZH), pytest.raises(GameFileError) as said:
        load(ledger)
    assert str(said.value) == f"{ledger} 第2行：颜色 'green' 不是 blue、yellow 或 red。"
    with pytest.raises(GameFileError, match=r", line 2: colour 'green' is not blue, yellow or red\.$"):
        load(ledger)


def test_a_template_folder_missing_is_one_chinese_sentence(tmp_path):
    import pytest

    from tally.errors import InputError
    from tally.outputs.written.templating import environment

    with speaking(Language.ZH), pytest.raises(InputError) as said:
        environment(tmp_path / "nope", finalize=None)
    assert str(said.value) == f"模板文件夹 {tmp_path / 'nope'} 不存在。"


def test_init_writes_the_game_files_comments_in_chinese_and_the_same_keys(forum, tmp_path):
    """The director reads the comments tally init writes; the keys and values are the file
    format's, the same in either language."""
    import tomllib

    from .test_cli_first_hour import day_one

    talk, vote = day_one(forum)
    written = {}
    for language in ("zh", "en"):
        out = tmp_path / f"{language}.toml"
        said = runner.invoke(app, ["init", talk, vote, "-o", str(out)],
                             env={"TALLY_LANG": language})  # fmt: skip
        assert said.exit_code == 0, said.output
        written[language] = (out.read_text(encoding="utf-8"), said.stderr)
    zh, en = written["zh"][0], written["en"][0]
    assert tomllib.loads(zh) == tomllib.loads(en)
    assert zh.startswith("# tally init 从2个帖子写出的游戏文件；每个键的说明见 docs/game-file.md。\n")
    assert '\ntimezone = "Asia/Shanghai"  # 论坛时间\n' in zh
    assert "# 讨论帖1楼\n" in zh or "# 讨论帖的开门时间：" in zh
    assert en.startswith("# The game file tally init wrote from 2 thread(s); every key is in\n")
    # What is left to do, said in Chinese after the file is written.
    assert "还要做：写游戏名（name）；选规则集（ruleset，见 docs/rulesets.md）" in written["zh"][1]
    comments = [ln for ln in zh.splitlines() if ln.startswith("#") and not ln.startswith("#   ")]
    assert comments and all(HAN.search(ln) for ln in comments), comments


def test_the_live_screen_in_chinese(forum, tmp_path):
    """tally watch's screen: the poll, the clocks, the changes, who has not voted and the
    standing, in Chinese (the same poll as tests/test_watch.py's live screen)."""
    from datetime import timedelta

    from tally.commands.watch import Schedule
    from tally.rules.game.gamefile import load_game

    from .discuzgen import P
    from .test_watch import Clock, screen_text, setup, watching

    t, url, game_path = setup(forum, tmp_path)
    game = load_game(game_path)
    clock = Clock("2024-05-09 19:00:00")
    polls = watching(game, url, clock, tmp_path, Schedule(every=600, full_every=0))
    next(polls)
    t.add(P("kiwi", "2024-05-09 19:06:00", "投票对象：长夜\n投票理由：划水"))
    t.serve(forum)
    poll = next(polls)
    with speaking(Language.ZH):
        text = screen_text(poll, game, clock.now() + timedelta(seconds=5))
    assert "第2天 投票（规则集 000），帖子 102“[测试局] 第二天投票帖”" in text
    assert "第2次轮询：最后读于 19:10:00（请求1次）；下次轮询 19:20:00" in text
    assert "05-09 21:30关门（还有" in text
    assert "关门前60分钟内不得改票（V5）：20:30起不能改票（还有" in text
    assert "上次轮询以来的变化：" in text and "未投票（12人）：小眯、风铃、老K、" in text
    assert "目前暂计（未结票）：长夜领先" in text and "（催票帖：tally announce" in text
    for english in ("Poll 2", "Closes", "No change", "Changes since", "Not voted", "Standing"):
        assert english not in text, english


def test_the_card_ledger_in_chinese(tmp_path):
    from rich.console import Console

    from tally.outputs.shown.ledger import print_cards
    from tally.rules.cards.ledger import Card
    from tally.rules.verdicts import Colour

    cards = [Card(1, "甲", Colour.YELLOW, "L1", "发言不足", "tally"),
             Card(2, "甲", Colour.RED, "K1", "三张黄牌", "director")]  # fmt: skip
    for language, words in ((Language.ZH, ("判牌", "天", "玩家", "牌", "规则", "原因", "判牌人",
                                           "甲：蓝牌0张，黄牌1张，红牌1张", "红牌罚下（K2）：甲")),
                            (Language.EN, ("Cards", "day", "player", "card", "rule", "reason",
                                           "by", "甲: 0 blue, 1 yellow, 1 red",
                                           "Sent off (red card, K2): 甲"))):  # fmt: skip
        console = Console(width=120, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
        with speaking(language):
            print_cards(console, cards)
        text = console.export_text()
        for word in words:
            assert word in text, (language, word)


def test_a_reminder_after_the_close_is_one_chinese_sentence(forum, tmp_path):
    from .test_watch import Clock, env_at, setup

    _, _url, game_path = setup(forum, tmp_path)
    after = env_at(Clock("2024-05-09 22:00:00"), tmp_path)
    args = ["announce", "--game", str(game_path), "--day", "2", "--kind", "reminder"]
    refused = runner.invoke(app, args, obj=after, env={"TALLY_LANG": "zh"})
    assert refused.exit_code == 2
    # The last line: the sentence (the lines before it say where the pages came from).
    assert refused.stderr.splitlines()[-1] + "\n" == ("tally: 第2天已于05-09 21:30关门：投票提醒是关门前发的；现在该发的是关门公告"
                              "（tally announce --kind close）。\n")  # fmt: skip
    english = runner.invoke(app, args, obj=after, env={"TALLY_LANG": "en"})
    assert english.stderr.splitlines()[-1] + "\n" == ("tally: day 2 closed at 05-09 21:30: a reminder is for before the "
                              "close; the day's post now is tally announce --kind close.\n")  # fmt: skip


def test_the_lurker_check_in_chinese(forum, tmp_path):
    """tally lurkers on tests/test_lurkers.py's game: the check, the cards with where each
    stands, the flags, who is sent off and the ledger not written, in Chinese."""
    from .test_cards_lurkers import setup as lurking_game

    game, ledger = lurking_game(forum, tmp_path)
    before = ledger.read_bytes()
    said = runner.invoke(app, ["lurkers", "--game", str(game), "--day", "3", "--no-write"],
                         env={"COLUMNS": "200", "TALLY_LANG": "zh"})  # fmt: skip
    assert said.exit_code == 0, said.output
    assert ledger.read_bytes() == before
    out = said.stdout
    assert "\n第3天潜水检查" in out and "每天发言数（是否投票）" in out
    assert "当天的牌：" in out
    assert "糖糖：黄牌（L1）——第3天发言3条（少于5条）［新判］" in out
    assert "红牌罚下（K2）：糖糖" in out
    assert "判牌记录没有写入（--no-write）：" in out
    assert "提示 L7：帖子 " in out and "楼：" in out
    for english in ("Lurker check", "Cards for this day", "[new]", "Sent off", "not written",
                    "flag L7"):  # fmt: skip
        assert english not in out, english


def test_the_demo_in_chinese():
    """tally demo's summary (the sample game served on loopback, read through the real fetch
    path) in Chinese; the announcement it prints is the players', as before."""
    said = runner.invoke(app, ["demo"], env={"TALLY_LANG": "zh", "COLUMNS": "80"})
    assert said.exit_code == 0, said.output
    lines = said.stdout.splitlines()
    assert re.match(r"示例游戏 \[D01\] 月下古堡（示例），由 http://127\.0\.0\.1:\d+/ 提供", lines[0])
    assert "  读了帖子 23“[D01] 月下古堡 第二天投票帖”：2页，16帖，2条点评" in lines
    assert ("第2天（规则集 245）：共15票——有效10票，改票1票，废票4票"
            "（change_not_reply、proxy_late、change_in_final_hour、after_close）") in lines  # fmt: skip
    assert "得票：月影 3 · 长夜 3 · 白桃 2 · Mika 1；未投票：老K、南瓜" in lines
    assert any(line.startswith("投票结果：无人出局——") for line in lines)
    assert "要贴的公告（bbcode），和 `tally announce` 打印的一样：" in lines
    assert "[color=#FF0000][b]最高票有多人，无人出局。[/b][/color]" in lines


def test_a_sheriff_election_that_elects_nobody_says_no_sheriff_in_both_languages():
    """From a real X3.5 run: a day-1 election whose ballots were all void ended "投票结果：无人
    出局" (nobody out) in Chinese, the words of a day that puts a player out. It says that no
    sheriff was elected, in both languages; a closed elimination day still says nobody is out
    (the demo's test above)."""
    from tally.outputs.shown.console import outcome_line
    from tally.rules.counting.votes import tally_day

    from .votekit import T, at, game

    t = T().post("甲", "08 10:00", "投票对象：乙")  # no reason line: void (V1)
    thread = dataclasses.replace(t.thread(), read_at=at("09 23:00"))  # after the close
    result = tally_day(thread, game("000", number=1), 1)
    assert not result.provisional and result.outcome.player is None
    assert outcome_line(result).startswith("Outcome: no sheriff — ")
    with speaking(Language.ZH):
        assert outcome_line(result).startswith("投票结果：没有选出警长——")
