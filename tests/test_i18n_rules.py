"""The rules speak the director's language (issue 52): a day counted in Chinese gives its
notes, flags, void reasons' sentences and outcome in Chinese, its codes (status, reason,
rule, outcome code) unchanged; a refusal is one Chinese sentence; English is as it was.

The count runs on the post model (tests/votekit.py), and once through `tally votes` on
pages a real Discuz! X3.5 rendered, served over loopback HTTP."""

from __future__ import annotations

import json
import re
from dataclasses import replace as swap

import pytest

from tally.cli import app
from tally.errors import InputError
from tally.i18n import Language, speaking, tr
from tally.model import Edit
from tally.rules.counting.guards import thread_fits_day
from tally.rules.counting.polls import changes
from tally.rules.counting.votes import DayResult, tally_day
from tally.rules.judging.ballot_text import read_ballot
from tally.rules.verdicts import OutcomeCode, ThreadRole, TieStep

from .test_reading_forum_changes import at as clock_at
from .test_reading_forum_changes import env, game_file, page, runner
from .votekit import T, at, change, game, run, vote

# The players of the pages of tests/test_forum_changes.py: names, not words.
NAMES = ("alice", "bob", "carol", "dave", "eve", "admin")


def english_words(text: str) -> list[str]:
    """The English words left in a sentence: what is not code (`…`), a rule id (V1), a
    player's name or tally's own, in lower case and three letters or more (UID, ID and Cookie
    are written so in Chinese too)."""
    plain = re.sub(r"`[^`]*`", "", text).replace("tally", "")
    return [w for w in re.findall(r"\b[a-z]{3,}\b", plain) if w not in NAMES]


def chinese(text: str) -> bool:
    return re.search(r"[\u4e00-\u9fff]", text) is not None and not english_words(text)


def a_day() -> DayResult:
    """Three votes, a ballot with no 投票理由, one by a stranger, one after the close, one for
    a name that is no player's."""
    t = (
        T()
        .post("乙", "08 10:00", vote("甲"))
        .post("丙", "08 11:00", vote("甲"))
        .post("丁", "08 12:00", vote("乙"))
        .post("戊", "08 13:00", "投票对象：甲")
        .post("路人", "08 14:00", vote("甲"))
        .post("己", "09 22:00", vote("乙"))
        .post("庚", "08 15:00", vote("壬"))
    )
    return run(game(), t)


@pytest.mark.rules("V1", "V6", "V7", "S2", "C5")
def test_a_day_counted_in_chinese_says_its_notes_flags_and_outcome_in_chinese():
    with speaking(Language.ZH):
        zh = a_day()
    en = a_day()
    # The machine's words are the same in both: statuses, reasons, rules, the outcome.
    assert [(b.floor, b.status, b.reason, b.reasons) for b in zh.ballots] == [
        (b.floor, b.status, b.reason, b.reasons) for b in en.ballots
    ]
    assert [f.rule for f in zh.flags] == [f.rule for f in en.flags] == ["roster", "accounts"]
    assert (zh.outcome.result, zh.outcome.player, zh.outcome.code) == (
        en.outcome.result, en.outcome.player, OutcomeCode.PLURALITY)  # fmt: skip
    notes = {b.floor: b.note for b in zh.ballots}
    assert notes == {
        2: "关门时有效",
        3: "关门时有效",
        4: "关门时有效",
        5: "没有投票理由（格式要求写投票对象和理由）（V1、V7）",
        6: "路人不是本局玩家",
        7: "发于05-09 22:00，在关门（05-09 21:30）之后",
        8: "'壬'不是玩家（V7）",
    }
    assert zh.outcome.note == "得票最多，2票"
    assert zh.flags[0].note == "路人不是本局玩家；6楼的票作废"
    for said in [*notes.values(), zh.outcome.note, *(f.note for f in zh.flags)]:
        assert chinese(said), said
    # English, as it always was.
    assert {b.floor: b.note for b in en.ballots} == {
        2: "in force at the close",
        3: "in force at the close",
        4: "in force at the close",
        5: "no 投票理由 (the format needs target and reason) (V1, V7)",
        6: "路人 is not a player of this game",
        7: "posted 05-09 22:00, after the close 05-09 21:30",
        8: "'壬' is not a player (V7)",
    }
    assert en.outcome.note == "the most votes, 2"
    assert en.flags[0].note == "路人 is not a player of this game; the ballot on floor 6 is void"


@pytest.mark.rules("C5")
def test_a_tie_and_its_steps_in_chinese_and_the_announcement_left_as_it_is():
    t = T().post("乙", "08 10:00", vote("甲")).post("丙", "08 11:00", vote("乙"))
    with speaking(Language.ZH):
        zh = run(game(), t)
        steps = [tr(step.says) for step in TieStep]
    en = run(game(), t)
    assert zh.outcome.code is en.outcome.code is OutcomeCode.TIE_NONE
    assert zh.outcome.note == "甲、乙平票（1票）：无人出局（C5）"
    assert en.outcome.note == "甲、乙 tie on 1: nobody is out (C5)"
    assert steps == ["侍僧（当天的 `acolyte`）代替出局", "警长的投票对象出局", "无人出局"]
    # What the players read is Chinese already, in either language; what docs/rulesets.md
    # says is English (the doc is written under the suite's English).
    assert OutcomeCode.TIE_NONE.label == "{tied} 平票（{top} 票），无人出局。"
    assert TieStep.NONE.says == "nobody is out"


@pytest.mark.rules("V2")
def test_a_watch_line_in_chinese():
    """The glossary's example: a vote superseded by a change, as `tally watch` says it."""
    g = game()
    first = T().post("乙", "08 10:00", vote("甲")).post("丙", "08 11:00", vote("乙"))
    then = (T().post("乙", "08 10:00", vote("甲")).post("丙", "08 11:00", vote("乙"))
            .comment(2, "乙", "08 12:00", change("丙")))  # fmt: skip
    with speaking(Language.ZH):
        zh = [c.text for c in changes(run(g, first), run(g, then))]
    en = [c.text for c in changes(run(g, first), run(g, then))]
    assert zh == ["2楼：乙投甲，原为有效票，现已被改票替换", "2楼的点评：新票，乙改票投丙，有效票",
                  "目前领先：乙、丙，1票"]  # fmt: skip
    assert en == ["floor 2: 乙 vote 甲 was counted, now superseded",
                  "floor 2 点评: new 乙 change 丙, counted", "leading now: 乙、丙 on 1"]  # fmt: skip


def test_a_ballot_read_once_is_said_in_the_language_asked_later():
    """read_ballot keeps its readings (a cache): what is wrong is said when asked, in the
    language of that moment, not in the one it was first read in."""
    problem = read_ballot("投票对象：冷月\n投票对象：白桃\n投票理由：x").problem
    assert problem is not None
    assert problem.text == "2 ballots in one post (one vote per post)"
    with speaking(Language.ZH):
        assert problem.text == "一帖里有2票（一帖只能投一票）"
        again = read_ballot("投票对象：冷月\n投票对象：白桃\n投票理由：x").problem
        assert again is problem


def an_edited_day() -> None:
    t = T().post("乙", "08 10:00", vote("甲")).post("丙", "08 11:00", vote("甲"))
    edited = swap(t.posts[2], edited=Edit("丙", at("09 21:30")))
    tally_day(swap(t.thread(), posts=(*t.posts[:2], edited)), game(), 2)


@pytest.mark.rules("V5")
def test_an_edit_after_the_close_is_one_chinese_sentence():
    with speaking(Language.ZH), pytest.raises(InputError) as zh:
        an_edited_day()
    with pytest.raises(InputError) as en:
        an_edited_day()
    assert str(zh.value) == (
        "3楼（丙）在05-09 21:30编辑过，正是关门（05-09 21:30）时或关门之后（编辑记录只精确到分钟），"
        "而关门前 tally 从没读过这个帖子，不知道关门时它写的是什么。请在游戏文件里裁定"
        '（`[[rulings]] day = 2, floor = 3, action = "accept"` 或 `"void"`），或者加 '
        "`--as-edited` 按编辑后的内容计。"
    )
    assert "\n" not in str(zh.value) and str(zh.value).count("。") == 2
    assert str(en.value) == (
        "floor 3 (丙) was edited 05-09 21:30, at or after the close 05-09 21:30 (an edit mark "
        "says minutes only), and tally never read the thread before the close: what it said "
        "at the close is not known. Rule on it in the game file ([[rulings]] day = 2, floor = "
        '3, action = "accept" or "void"), or count it as edited with --as-edited.'
    )


DAY_1 = """
[[days]]
day = 1
opens = 2024-05-07T09:30:00
closes = 2024-05-08T09:00:00
vote = "https://bbs.example.com/thread-101-1-1.html"
"""


def a_thread_of_day_1() -> None:
    two = game(day=DAY_1)
    t = T().post("乙", "08 10:00", vote("甲")).thread()
    thread = swap(t, title="[A01] 月下古堡 第一天 投票帖")
    day = next(d for d in two.days if d.day == 2)
    thread_fits_day(two, thread, day, ThreadRole.VOTE, cast=two.cast())


def test_a_thread_of_another_day_is_one_chinese_sentence():
    with speaking(Language.ZH), pytest.raises(InputError) as zh:
        a_thread_of_day_1()
    with pytest.raises(InputError) as en:
        a_thread_of_day_1()
    assert str(zh.value) == (
        "帖子 102“[A01] 月下古堡 第一天 投票帖”的标题是第1天的，不是第2天的；游戏 'game' 里第1天的"
        "投票帖是 https://bbs.example.com/thread-101-1-1.html"
    )
    assert str(en.value) == (
        "thread 102 “[A01] 月下古堡 第一天 投票帖” is titled for day 1, not day 2; day 1's vote "
        "thread in game 'game' is https://bbs.example.com/thread-101-1-1.html"
    )


def votes(forum, tmp_path, clock: str, language: str, *args: str):
    url = forum.url("forum.php?mod=viewthread&tid=1")
    game = game_file(tmp_path, url)
    cache = str(tmp_path / "cache")
    return runner.invoke(app, ["votes", url, "--game", game, "--cache-dir", cache, *args],
                         obj=env(clock_at(clock)), env={"TALLY_LANG": language})  # fmt: skip


@pytest.mark.rules("V5")
def test_tally_votes_in_chinese_refuses_an_edit_after_the_close_in_one_sentence(forum, tmp_path):
    forum.add_discuz_page("1", 1, page("vote-5-edited-guest"))
    zh = votes(forum, tmp_path / "zh", "17:10:00", "zh", "--json")
    assert zh.exit_code == 2
    said = zh.stderr.strip().splitlines()[-1]
    assert said.startswith("tally: 2楼（alice）在12-01 17:05编辑过，") and said.endswith(
        "或者加 `--as-edited` 按编辑后的内容计。")  # fmt: skip
    assert not english_words(said.removeprefix("tally: ")), said


@pytest.mark.rules("S2")
def test_tally_votes_json_in_chinese_keeps_its_keys_and_codes(forum, tmp_path):
    forum.add_discuz_page("1", 1, page("vote-1-guest"))
    zh = votes(forum, tmp_path / "zh", "17:10:00", "zh", "--json")
    en = votes(forum, tmp_path / "en", "17:10:00", "en", "--json")
    assert zh.exit_code == en.exit_code == 0, zh.output
    zh_data, en_data = json.loads(zh.stdout), json.loads(en.stdout)
    assert zh_data.keys() == en_data.keys()
    codes = ("floor", "author", "status", "reason", "reasons", "kind", "target")
    assert [{k: b[k] for k in codes} for b in zh_data["ballots"]] == [
        {k: b[k] for k in codes} for b in en_data["ballots"]
    ]
    outcome = zh_data["outcome"]
    assert {k: v for k, v in outcome.items() if k != "note"} == {
        k: v for k, v in en_data["outcome"].items() if k != "note"
    }
    assert chinese(outcome["note"]) and not chinese(en_data["outcome"]["note"])
    for b in zh_data["ballots"]:
        assert b["note"] == b["status"] or chinese(b["note"]), b["note"]


def test_every_sentence_of_the_rules_is_translated():
    """The rules' own share of the untranslated-sentence test (test_i18n), named by where the
    sentence is written: none of judging's, counting's or the verdicts' lacks its Chinese."""
    from tally import catalogs

    from .test_i18n import extracted

    rules = ("tally/rules/judging/", "tally/rules/counting/", "tally/rules/verdicts.py")
    where = {}
    for message in extracted():
        if message.id:
            said = message.id if isinstance(message.id, str) else message.id[0]
            where[said] = {path for path, _ in message.locations}
    ours = [str(f) for f in catalogs.faults(template=extracted())
            if any(p.startswith(rules) for p in where[f.sentence])]  # fmt: skip
    assert ours == []
    assert sum(1 for paths in where.values() if any(p.startswith(rules) for p in paths)) > 250
