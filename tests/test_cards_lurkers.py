"""`tally lurkers` on a four-day game served on loopback: exact cards, flags and ledger.

Day 2 is accelerated (S3). The plan, per player:
  冷月  12 posts a day, votes every day; a long 楼中楼 on day 3 (L6 flag)
  小眯  4 posts on day 1 (L1); five "1" posts within minutes on day 4 (L8 flag)
  kiwi  7 posts on days 1, 3 and 4 and none on day 2 (L2 on day 4, once; nothing on day 2)
  阿澈  no vote on day 3 (L3) and none on day 2 (accelerated: nothing)
  风铃  red font on day 3 (L7 flag), and in the vote thread on day 4
  老K   out before day 4, posts on day 4 (L5), and "抵制斯大林" once (allowed, seed 000)
  糖糖  two yellow cards already in the ledger; 3 posts on day 3 (L1): the third yellow
        makes a red (K1), and a red card sends off (K2)
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from tally.cli import app
from tally.outputs.written.cardfile import load

from . import gamefiles
from .conftest import Runner
from .discuzgen import Comment, P, Thread

runner = Runner()
PLAYERS = ["冷月", "小眯", "kiwi", "阿澈", "风铃", "老K", "糖糖"]
DAYS = {  # day: (opens, closes, accelerated)
    1: ("2024-05-06 09:30", "2024-05-07 21:30", False),
    2: ("2024-05-08 09:30", "2024-05-08 21:30", True),
    3: ("2024-05-09 09:30", "2024-05-10 21:30", False),
    4: ("2024-05-11 09:30", "2024-05-12 21:30", False),
}
POSTS = {  # day: player: posts in the discussion thread
    1: {"冷月": 12, "小眯": 4, "kiwi": 7, "阿澈": 12, "风铃": 12, "老K": 12, "糖糖": 12},
    2: {"冷月": 6, "小眯": 6, "kiwi": 0, "阿澈": 6, "风铃": 6, "老K": 6, "糖糖": 6},
    3: {"冷月": 12, "小眯": 12, "kiwi": 7, "阿澈": 12, "风铃": 12, "老K": 12, "糖糖": 3},
    4: {"冷月": 12, "小眯": 12, "kiwi": 7, "阿澈": 12, "风铃": 12, "糖糖": 12},
}
NOT_VOTING = {2: {"阿澈"}, 3: {"阿澈"}, 4: {"老K"}}


def at(stamp: str, minutes: int = 0) -> str:
    return (datetime.fromisoformat(stamp) + timedelta(minutes=minutes)).strftime(
        "%Y-%m-%d %H:%M:%S"
    )


# One forum: an account has one uid in every thread (each thread numbering its own posters
# gave one name another account from one day to the next).
UIDS = {"导演A": 100, **{p: 101 + i for i, p in enumerate(PLAYERS)}}


def discussion(day: int) -> Thread:
    opens = DAYS[day][0]
    t = Thread(str(200 + day), f"第{day}天讨论帖", dict(UIDS), first_pid=100000 * day)  # ids: the board's, one a post
    t.add(P("导演A", at(opens), "讨论帖开门"))
    minute = 1
    for player, count in POSTS[day].items():
        for i in range(count):
            red = day == 3 and player == "风铃" and i == 0
            t.add(P(player, at(opens, minute), f"{player}的第{i + 1}条发言", red=red))
            minute += 3
    if day == 3:
        t.posts[1].comments.append(
            Comment("冷月", "2024-05-09 12:00", "我觉得kiwi昨天的发言很有问题，今天要重点看他")
        )
        t.posts[2].comments.append(Comment("小眯", "2024-05-09 12:05", "哈哈"))
    if day == 4:
        t.add(P("老K", at(opens, 600), "我还有话说：kiwi是狼"))
        t.add(P("老K", at(opens, 610), "抵制斯大林"))
        t.add(P("老K", at(opens, 620), "抵制斯大林"))
        for i in range(5):
            t.add(P("小眯", at(opens, 700 + i), "1"))
    return t


def vote(day: int) -> Thread:
    opens = DAYS[day][0]
    t = Thread(str(300 + day), f"第{day}天投票帖", dict(UIDS), first_pid=100000 * day + 50000)
    t.add(P("导演A", at(opens), "投票格式：\n投票对象：\n投票理由："))
    for i, player in enumerate(PLAYERS):
        if player in NOT_VOTING.get(day, set()):
            continue
        red = day == 4 and player == "风铃"  # an L7 flag in the vote thread
        # Everyone abstains: no sheriff is elected and nobody is voted out (lurking alone).
        t.add(P(player, at(opens, 30 + i), "投票对象：弃权\n投票理由：票型", red=red))
    return t


def setup(forum, tmp_path):
    days = []
    for day, (opens, closes, accelerated) in DAYS.items():
        d_url = discussion(day).serve(forum)
        v_url = vote(day).serve(forum)
        days.append(gamefiles.day(day, v_url, f"{opens}:00", f"{closes}:00", discussion=d_url,
                                  accelerated=accelerated, dead=["老K"] if day == 4 else []))  # fmt: skip
    # 000 takes requests for 加速 by QQ; this game reads them in the discussion thread.
    game = gamefiles.write_game(tmp_path / "game.toml", *days, ruleset="000",
                                directors=["导演A"], players=PLAYERS,
                                rules={"acceleration_threads": ["discussion"]})  # fmt: skip
    ledger = tmp_path / "game.cards.csv"
    ledger.write_text(
        "\ufeffday,player,colour,rule,reason,source\r\n"
        "0,糖糖,yellow,L4,missed a night action,director\r\n"
        "0,糖糖,yellow,L8,flood,director\r\n",
        encoding="utf-8",
    )
    return game, ledger


def run(game, day: int, *extra: str) -> dict:
    result = runner.invoke(
        app, ["lurkers", "--game", str(game), "--day", str(day), "--json", *extra]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def cards(data: dict) -> list[tuple[str, str, str]]:
    return [(c["player"], c["colour"], c["rule"]) for c in data["cards"]]


@pytest.mark.slow
@pytest.mark.rules("L1", "L2", "L3", "L5", "L6", "L7", "L8", "S3", "K1", "K2")
def test_four_days_of_cards_flags_and_ledger(forum, tmp_path):
    game, ledger = setup(forum, tmp_path)

    day1 = run(game, 1)
    assert cards(day1) == [("小眯", "yellow", "L1")]  # L1: 4 posts
    assert day1["cards"][0]["reason"] == "第1天发言4条（少于5条）"
    posts = {p["player"]: (p["posts"], p["voted"]) for p in day1["players"]}
    assert posts == {
        "冷月": (12, True),
        "小眯": (4, True),
        "kiwi": (7, True),
        "阿澈": (12, True),
        "风铃": (12, True),
        "老K": (12, True),
        "糖糖": (12, True),
    }

    day2 = run(game, 2)  # S3: accelerated, kiwi's 0 posts and 阿澈's missing vote earn nothing
    assert day2["accelerated"] is True and cards(day2) == []
    assert {p["player"]: (p["posts"], p["voted"]) for p in day2["players"]}["kiwi"] == (0, True)
    assert {p["player"]: p["voted"] for p in day2["players"]}["阿澈"] is False

    day3 = run(game, 3)
    assert cards(day3) == [("阿澈", "yellow", "L3"), ("糖糖", "yellow", "L1")]
    # K1: 糖糖's third yellow card is a red one, written to the ledger as its own card.
    assert [(c["player"], c["colour"], c["rule"]) for c in day3["ledger"]["new"]] == [
        ("阿澈", "yellow", "L3"),
        ("糖糖", "yellow", "L1"),
        ("糖糖", "red", "K1"),
    ]
    assert day3["ledger"]["totals"]["糖糖"] == {"blue": 0, "yellow": 3, "red": 1}
    assert day3["ledger"]["sent_off"] == ["糖糖"]  # K2
    flags3 = [(f["rule"], f["player"]) for f in day3["flags"]]
    # The long 楼中楼; red font ("哈哈" is chat). Nobody asked for 加速 and the file does
    # not say accelerated: no S3 line (it said "0 of 7 asked" on every day), though the
    # count is in the JSON. The game file gives no account ids, and the pages show them:
    # said once, as `tally votes` says it.
    assert flags3 == [("accounts", None), ("L6", "冷月"), ("L7", "风铃")]
    assert (day3["acceleration"]["asked"], day3["acceleration"]["accelerates"]) == ([], False)

    day4 = run(game, 4)
    assert cards(day4) == [("kiwi", "yellow", "L2")]  # days 1, 3, 4: day 2 does not break it
    assert day4["cards"][0]["reason"] == "第1、3、4天发言均少于10条"
    living4 = {p["player"] for p in day4["players"]}
    assert "老K" not in living4  # only the living are checked
    # K2: 糖糖's red card for day 3 sends them off, so day 4 counts them out, and every post
    # of theirs on day 4 is a dead player's (L5), their ballot too.
    assert "糖糖" not in living4
    flags4 = [(f["rule"], f["player"], f["thread_id"], f["floor"]) for f in day4["flags"]]
    # 67 floors of discussion (糖糖's on 57-68), then 老K on 69, "抵制斯大林" on 70 (allowed)
    # and 71 (not); thread by thread, floor by floor: the vote thread's comes last.
    assert flags4 == [
        ("accounts", None, "204", None),  # no account ids in the file: said once, first
        *(("L5", "糖糖", "204", floor) for floor in range(57, 69)),
        ("L5", "老K", "204", 69),
        ("L5", "老K", "204", 71),
        ("L8", "小眯", "204", 72),
        ("L7", "风铃", "304", 6),
        ("L5", "糖糖", "304", 7),
    ]

    rows = [(c.day, c.player, c.colour, c.rule) for c in load(ledger)]
    assert rows == [
        (0, "糖糖", "yellow", "L4"),
        (0, "糖糖", "yellow", "L8"),
        (1, "小眯", "yellow", "L1"),
        (3, "阿澈", "yellow", "L3"),
        (3, "糖糖", "yellow", "L1"),
        (3, "糖糖", "red", "K1"),
        (4, "kiwi", "yellow", "L2"),
    ]

    # Checking a day again changes nothing.
    before = ledger.read_bytes()
    again = run(game, 3)
    assert again["ledger"]["new"] == [] and again["ledger"]["written"] is False
    assert cards(again) == cards(day3)
    assert ledger.read_bytes() == before


def test_table_and_no_write(forum, tmp_path):
    game, ledger = setup(forum, tmp_path)
    before = ledger.read_bytes()
    result = runner.invoke(
        app, ["lurkers", "--game", str(game), "--day", "3", "--no-write"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert ledger.read_bytes() == before
    out = result.stdout
    assert "糖糖: yellow card (L1) — 第3天发言3条（少于5条） [new]" in out
    assert "糖糖: 3张黄牌折算为红牌（K1）" in out
    assert "Sent off (red card, K2): 糖糖" in out
    assert "not written (--no-write)" in out
    assert "flag L7: thread " in out and ", floor " in out and "风铃 used red font" in out


def test_streak_resets_after_a_card():
    """L2: a card spends its run; six low days make two cards (days 3 and 6), not four."""
    from tally.rules.cards.daycount import PlayerDay
    from tally.rules.cards.lurkers import _streak

    from .votekit import game

    g = game("000")
    counts = {d: {"甲": PlayerDay("甲", 7, True)} for d in range(1, 7)}
    got = {d: _streak(counts, _days(g, 6), "甲", d, 10, 3) for d in range(1, 7)}
    assert got == {1: [], 2: [], 3: [1, 2, 3], 4: [], 5: [], 6: [4, 5, 6]}


def _days(g, n):
    """A copy of the test game with days 1..n."""
    import dataclasses

    base = g.days[0]
    days = tuple(dataclasses.replace(base, day=i) for i in range(1, n + 1))
    return dataclasses.replace(g, days=days)


def test_K2_two_reds_in_one_camp_for_ruleset_245():
    from tally.rules.cards.ledger import Card, add, camps_lost, sent_off

    cards, _ = add([], [Card(1, "甲", "red", "L5", "诈尸"), Card(2, "乙", "red", "L5", "诈尸")])
    assert sent_off(cards) == ["乙", "甲"]
    assert camps_lost(cards, {"甲": "狼人", "乙": "狼人", "丙": "村民"}) == {"狼人": ["乙", "甲"]}
    assert camps_lost(cards, {"甲": "狼人", "乙": "村民"}) == {}


def test_K1_three_blues_make_a_yellow_and_chain_to_red():
    from tally.rules.cards.ledger import Card, add

    existing = [
        Card(1, "甲", "yellow", "L1", "x"),
        Card(1, "甲", "yellow", "L3", "x"),
        Card(1, "甲", "blue", "L8", "x"),
        Card(2, "甲", "blue", "L8", "y"),
    ]
    _, new = add(existing, [Card(3, "甲", "blue", "L7", "z")])
    assert [(c.colour, c.rule) for c in new] == [("blue", "L7"), ("yellow", "K1"), ("red", "K1")]


def test_no_closed_day_yet(tmp_path):
    game = gamefiles.write_game(
        tmp_path / "g.toml",
        gamefiles.day(1, "https://x.example/thread-1-1-1.html", "2099-01-01T09:30:00",
                      "2099-01-02T21:30:00", discussion="https://x.example/thread-2-1-1.html"),
        ruleset=None, players=["a"],
    )  # fmt: skip
    result = runner.invoke(app, ["lurkers", "--game", str(game)])
    assert result.exit_code == 2 and "no day of the game has closed yet" in result.stderr


def test_damaged_ledger_is_one_sentence(forum, tmp_path):
    game, ledger = setup(forum, tmp_path)
    ledger.write_text(
        "day,player,colour,rule,reason,source\nx,糖糖,yellow,L1,,\n", encoding="utf-8"
    )
    result = runner.invoke(app, ["lurkers", "--game", str(game), "--day", "1"])
    assert result.exit_code == 2
    assert "game.cards.csv, line 2: day 'x' is not a number" in result.stderr


def test_K3_the_dead_can_still_be_carded(forum, tmp_path):
    """K3: 老K is out on day 4; the director's card for his 诈尸 counts and escalates."""
    from tally.rules.cards.ledger import Card, add, totals

    game, ledger = setup(forum, tmp_path)
    day4 = run(game, 4)
    assert ("L5", "老K") in [(f["rule"], f["player"]) for f in day4["flags"]]
    existing = [
        *load(ledger),
        Card(4, "老K", "yellow", "L5", "诈尸", "director"),
        Card(4, "老K", "yellow", "L8", "刷楼", "director"),
    ]
    cards, new = add(existing, [Card(5, "老K", "yellow", "L5", "又诈尸", "director")])
    assert totals(cards)["老K"].red == 1 and [c.rule for c in new] == ["L5", "K1"]
