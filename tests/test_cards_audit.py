"""Lurking cards, the ledger and the dead posting, as an audit of the rule posts found them.

Each game here is six players on real-shaped Discuz! pages (tests/discuzgen.py) served on
loopback, run through the commands as a director runs them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timedelta

import pytest

from tally.cli import app

from . import gamefiles
from .conftest import Runner
from .discuzgen import P, Thread

runner = Runner()
PLAYERS = ["甲", "乙", "丙", "丁", "戊", "己"]
UIDS = {"导演A": 1, **{p: 100 + i for i, p in enumerate(PLAYERS)}}


def at(stamp: str, minutes: int = 0) -> str:
    when = datetime.fromisoformat(stamp) + timedelta(minutes=minutes)
    return when.strftime("%Y-%m-%d %H:%M:%S")


def cli(*args: str):  # type: ignore[no-untyped-def]
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


# The day-1 sheriff election left out: these games' days have no sheriff.
NO_ELECTION = {"sheriff_election_day": "none"}


class Game:
    def __init__(self, forum, tmp_path, ruleset: str = "000",  # type: ignore[no-untyped-def]
                 rules: Mapping | None = None, roles: Mapping | None = None) -> None:  # fmt: skip
        self.forum, self.tmp_path, self.ruleset = forum, tmp_path, ruleset
        self.rules, self.roles = rules, roles
        self.blocks: list[str] = []
        self.vote_urls: dict[int, str] = {}

    def talk(self, tid: int, n: int, opens: str, posts: dict[str, int]) -> Thread:
        t = Thread(str(tid), f"第{n}天讨论帖", UIDS, first_pid=tid * 1000)
        t.add(P("导演A", at(opens), "开门"))
        minute = 1
        for player, count in posts.items():
            for i in range(count):
                t.add(P(player, at(opens, minute), f"{player}发言{i}"))
                minute += 2
        return t

    def votes(self, tid: int, n: int, opens: str, ballots: list[tuple[str, str]]) -> Thread:
        t = Thread(str(tid), f"第{n}天投票帖", UIDS, first_pid=tid * 1000)
        t.add(P("导演A", at(opens), "投票格式：\n投票对象：\n投票理由："))
        for i, (voter, target) in enumerate(ballots):
            t.add(P(voter, at(opens, 30 + i), f"投票对象：{target}\n投票理由：理由"))
        return t

    def day(self, n: int, opens: str, closes: str, talk: Thread, votes: Thread,
            **keys: object) -> None:  # fmt: skip
        keys = {"sheriff": "none", **keys}
        self.blocks.append(gamefiles.day(n, votes.serve(self.forum), f"{opens}:00", f"{closes}:00",
                                         discussion=talk.serve(self.forum), **keys))  # fmt: skip
        self.vote_urls[n] = votes.serve(self.forum)

    def write(self) -> str:
        path = gamefiles.write_game(
            self.tmp_path / "game.toml", *self.blocks, ruleset=self.ruleset,
            directors=[{"name": "导演A", "id": 1}],
            players=[{"name": p, "id": UIDS[p]} for p in PLAYERS], rules=self.rules,
            roles=self.roles,
        )  # fmt: skip
        return str(path)


def lurkers(game: str, day: int) -> dict:  # type: ignore[type-arg]
    return json.loads(cli("lurkers", "--game", game, "--day", str(day), "--json", "-q").stdout)


def _two_quiet_days(forum, tmp_path, late: bool = False) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """戊 posts twice on days 1 and 2 (L1 each) and does not vote on day 2 (L3): the third
    yellow makes a red (K1), and 戊 is sent off from day 3."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    # Day 1 votes 丁 out, day 2 丙; day 3 is not counted here, only 戊's vote on it.
    days = ((1, 201, "2024-05-06 09:30", "2024-05-07 21:30", "丁", PLAYERS),
            (2, 202, "2024-05-08 09:30", "2024-05-09 21:30", "丙", ["甲", "乙", "丙", "己"]))  # fmt: skip
    living = list(PLAYERS)
    for n, tid, opens, closes, out, voters in days:
        posts = {p: (2 if p == "戊" else 12) for p in living}
        ballots = [(p, out if p != out else "甲") for p in voters]
        votes = g.votes(tid + 100, n, opens, ballots)
        if late and n == 2:
            votes.add(P("戊", "2024-05-09 22:00:00", "我不服"))  # after the close
        g.day(n, opens, closes, g.talk(tid, n, opens, posts), votes)
        living.remove(out)
    g.day(3, "2024-05-10 09:30", "2024-05-11 21:30",
          g.talk(203, 3, "2024-05-10 09:30", dict.fromkeys(living, 12)),
          g.votes(303, 3, "2024-05-10 09:30", [("戊", "甲"), ("乙", "甲")]))
    return g.write(), g.vote_urls[3]


@pytest.mark.rules("K1", "K2")
def test_K1_a_card_the_director_took_back_is_not_given_again(forum, tmp_path):
    """The director takes back 戊's L3 (判罚标准仅供参考，具体以判罚导演为准, seed 001); the red it
    made goes with it. Checking the day again proposed the L3 anew: the ledger got it back,
    and the red, and 戊's vote on day 3 was void (sent off). Now the card stays taken back."""
    game, day3_url = _two_quiet_days(forum, tmp_path)
    lurkers(game, 1)
    first = lurkers(game, 2)
    assert [(c["player"], c["colour"], c["rule"]) for c in first["ledger"]["new"]] == [
        ("戊", "yellow", "L1"), ("戊", "yellow", "L3"), ("戊", "red", "K1")]  # fmt: skip
    assert first["ledger"]["sent_off"] == ["戊"]
    removed = cli("cards", "remove", "--game", game, "--day", "2", "戊", "yellow", "L3")
    assert "removed: day 2 戊 黄牌 L3" in removed.stdout and "红牌 K1" in removed.stdout
    again = lurkers(game, 2)
    assert again["ledger"]["new"] == [] and again["ledger"]["sent_off"] == []
    assert again["ledger"]["totals"]["戊"] == {"blue": 0, "yellow": 2, "red": 0}
    # No longer proposed: listed as struck, so that a script giving the cards skips it.
    assert [c["rule"] for c in again["cards"] if c["player"] == "戊"] == ["L1"]
    assert [(c["player"], c["rule"]) for c in again["ledger"]["struck"]] == [("戊", "L3")]
    table = cli("lurkers", "--game", game, "--day", "2", "-q").stdout
    assert "taken back by the director: not added" in table
    listed = cli("cards", "list", "--game", game).stdout
    assert "L3" not in listed and "戊: 0 blue, 2 yellow, 0 red" in listed
    # 戊 is not sent off: the day-3 vote counts.
    day3 = json.loads(cli("votes", day3_url, "--game", game, "--json", "-q").stdout)
    [vote] = [b for b in day3["ballots"] if b["voter"] == "戊"]
    assert vote["status"] == "counted", vote
    # The morning post shows no L3 for day 2.
    morning = cli("announce", "--game", game, "--day", "3", "--kind", "morning", "-q").stdout
    assert "未投票" not in morning
    # The director may still give it by hand: then it is a card again, in force, given once.
    cli("cards", "add", "--game", game, "--day", "2", "戊", "yellow", "L3", "第2天未投票")
    given = lurkers(game, 2)
    assert given["ledger"]["sent_off"] == ["戊"] and given["ledger"]["new"] == []
    assert given["ledger"]["struck"] == [] and "L3" in [c["rule"] for c in given["cards"]]
    assert given["ledger"]["totals"]["戊"] == {"blue": 0, "yellow": 3, "red": 1}
    assert "taken back" not in cli("lurkers", "--game", game, "--day", "2", "-q").stdout
    # A K1 card is not removed on its own: one of the cards under it is.
    k1 = runner.invoke(app, ["cards", "remove", "--game", game, "--day", "2", "戊", "red", "K1"])
    assert k1.exit_code != 0 and "remove one of them" in k1.stderr


@pytest.mark.rules("L1", "L3")
def test_L1_L3_a_player_who_dies_after_the_close_is_carded_for_the_day(forum, tmp_path):
    """戊 dies at 黄昏 (21:40, after the 21:30 close) with two posts and no vote: alive all the
    day, carded like the living (L1, L3). 己 dies at noon with two posts: out during the day,
    no card. Before, a `died` time after the close passed 戊 over too."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    posts = {p: (2 if p in ("戊", "己") else 12) for p in PLAYERS}
    opens = "2024-05-08 09:30"
    g.day(1, opens, "2024-05-09 21:30", g.talk(201, 1, opens, posts),
          g.votes(301, 1, opens, [(p, "乙" if p != "乙" else "甲") for p in PLAYERS if p not in ("戊", "己")]),
          died={"戊": datetime(2024, 5, 9, 21, 40), "己": datetime(2024, 5, 9, 12)})  # fmt: skip
    game = g.write()
    cards = [(c["player"], c["rule"]) for c in lurkers(game, 1)["cards"]]
    assert cards == [("戊", "L1"), ("戊", "L3")]


@pytest.mark.rules("V11")
def test_V11_the_bar_owners_yellow_card_reaches_the_ledger(forum, tmp_path):
    """Seed 002: the 主管 "不允许弃权或投无效票，否则记作黄牌". `tally votes` flagged it, and the
    lurker check left it out: the morning post lacked it and K1 never counted it."""
    g = Game(forum, tmp_path, ruleset="023", rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    ballots = [(p, "乙" if p != "乙" else "甲") for p in PLAYERS if p != "丁"] + [("丁", "弃权")]
    g.day(1, opens, "2024-05-09 21:30", g.talk(401, 1, opens, dict.fromkeys(PLAYERS, 12)),
          g.votes(402, 1, opens, ballots), bar_owner="丁")  # fmt: skip
    later = "2024-05-10 09:30"
    g.day(2, later, "2024-05-11 21:30", g.talk(403, 2, later, {}), g.votes(404, 2, later, []),
          dead=["乙"])
    game = g.write()
    checked = lurkers(game, 1)
    assert [(c["player"], c["colour"], c["rule"]) for c in checked["cards"]] == [
        ("丁", "yellow", "V11")]  # fmt: skip
    assert checked["ledger"]["totals"]["丁"]["yellow"] == 1
    morning = cli("announce", "--game", game, "--day", "2", "--kind", "morning", "-q").stdout
    assert "丁：黄牌，第1天主管未在开门12小时内投出有效票" in morning


@pytest.mark.rules("L5")
def test_L5_a_player_voted_out_who_posts_after_the_close_is_flagged(forum, tmp_path):
    """乙 is voted out at day 1's 21:30 close, then posts in the vote thread at 21:40 and in
    the discussion thread at 23:00 (已出局角色在讨论帖、投票帖…中发言: 诈尸). Day 1's check judged
    by day 1's dead, and day 2's reads only day 2's threads: neither flagged it."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    talk = g.talk(201, 1, opens, dict.fromkeys(PLAYERS, 12))
    talk.add(P("乙", "2024-05-09 23:00:00", "我是好人，你们出错了"))
    votes = g.votes(301, 1, opens, [(p, "乙" if p != "乙" else "甲") for p in PLAYERS])
    votes.add(P("乙", "2024-05-09 21:40:00", "我是好人！"))
    votes.add(P("甲", "2024-05-09 21:45:00", "晚安"))  # the living may: no flag
    g.day(1, opens, "2024-05-09 21:30", talk, votes)
    game = g.write()
    flags = [(f["rule"], f["player"], f["note"]) for f in lurkers(game, 1)["flags"]]
    assert flags == [
        ("L5", "乙", "乙 posted while out (05-09 23:00, after the close; voted out at day 1's "
                     "close): 诈尸"),
        ("L5", "乙", "乙 posted while out (05-09 21:40, after the close; voted out at day 1's "
                     "close): 诈尸"),
    ]  # fmt: skip


@pytest.mark.rules("L5", "K2")
def test_L5_the_detective_sent_off_by_a_red_card_posts_like_the_dead(forum, tmp_path):
    """Seed 003's 侦探: "除非被红牌罚下，否则你无视开关门和生死状态的影响，在任何时候都可以发言". Sent off
    by a red card for day 1, 戊 posted on day 2 unflagged."""
    g = Game(forum, tmp_path, ruleset="M126", roles={"戊": "侦探"})
    for n, tid, opens, closes in ((1, 201, "2024-05-08 09:30", "2024-05-08 21:00"),
                                  (2, 202, "2024-05-09 09:00", "2024-05-09 21:00")):  # fmt: skip
        g.day(n, opens, closes, g.talk(tid, n, opens, {"戊": 2, "甲": 1}),
              g.votes(tid + 100, n, opens, []), **({"dead": ["戊"]} if n == 2 else {}))  # fmt: skip
    game = g.write()
    # Out on day 2 (killed at night), the 侦探 may post.
    assert [f for f in lurkers(game, 2)["flags"] if f["rule"] == "L5"] == []
    cli("cards", "add", "--game", game, "--day", "1", "戊", "red", "K2", "串号")
    flagged = [f["player"] for f in lurkers(game, 2)["flags"] if f["rule"] == "L5"]
    assert flagged == ["戊", "戊"]


@pytest.mark.rules("L1", "L2", "L3")
def test_L1_L2_a_day_the_rules_forbid_to_speak_earns_no_lurking_card(forum, tmp_path):
    """Seed 000's 信用担保 ("所有人不得参与讨论") and seed 001's 离开游戏 ("不能发言投票和被投票"):
    tally gave every quiet player an L1, and only `accelerated` (which also voids every
    change) silenced the cards. `silenced` says who may not speak; L3 still applies."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    voters = [p for p in PLAYERS if p != "戊"]
    g.day(1, opens, "2024-05-09 21:30", g.talk(201, 1, opens, {"甲": 12, "乙": 1}),
          g.votes(301, 1, opens, [(p, "乙" if p != "乙" else "甲") for p in voters]),
          silenced=True)  # fmt: skip
    later = "2024-05-10 09:30"
    g.day(2, later, "2024-05-11 21:30", g.talk(202, 2, later, {p: 12 for p in PLAYERS if p != "乙"} | {"戊": 0}),
          g.votes(302, 2, later, [(p, "甲" if p != "甲" else "丙") for p in PLAYERS if p != "乙"]),
          silenced=["戊"])  # fmt: skip
    game = g.write()
    assert [(c["player"], c["rule"]) for c in lurkers(game, 1)["cards"]] == [("戊", "L3")]
    assert lurkers(game, 2)["cards"] == []
    with open(game, encoding="utf-8") as f:
        bad = f.read().replace("silenced = true", 'silenced = "all"')
    with open(game, "w", encoding="utf-8") as f:
        f.write(bad)
    refused = runner.invoke(app, ["lurkers", "--game", game, "--day", "1"])
    assert refused.exit_code != 0 and "silenced" in refused.stderr


@pytest.mark.rules("V9", "L5")
def test_V9_a_revived_player_votes_and_posts_again(forum, tmp_path):
    """Seed 001: "若被复活将重新回到游戏". 乙, voted out on day 1, is revived for day 2: tally put
    every player a day's count had put out back among the dead, so 乙's vote was void and
    the posts were flagged as 诈尸. `revived` brings them back from that day's open."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    g.day(1, opens, "2024-05-09 21:30", g.talk(201, 1, opens, dict.fromkeys(PLAYERS, 12)),
          g.votes(301, 1, opens, [(p, "乙" if p != "乙" else "甲") for p in PLAYERS]))  # fmt: skip
    later = "2024-05-10 09:30"
    ballots = [(p, "丙" if p != "丙" else "甲") for p in PLAYERS]
    g.day(2, later, "2024-05-11 21:30", g.talk(202, 2, later, dict.fromkeys(PLAYERS, 12)),
          g.votes(302, 2, later, ballots), revived=["乙"])  # fmt: skip
    game = g.write()
    day2 = json.loads(cli("votes", g.vote_urls[2], "--game", game, "--json", "-q").stdout)
    [back] = [b for b in day2["ballots"] if b["voter"] == "乙"]
    assert back["status"] == "counted", back
    assert day2["outcome"]["player"] == "丙"
    checked = lurkers(game, 2)
    assert [f for f in checked["flags"] if f["rule"] == "L5"] == []
    assert "乙" in [p["player"] for p in checked["players"]]
    with open(game, encoding="utf-8") as f:
        text = f.read()
    with open(game, "w", encoding="utf-8") as f:
        f.write(text.replace('revived = ["乙"]', 'revived = ["乙"]\ndead = ["乙"]'))
    refused = runner.invoke(app, ["lurkers", "--game", game, "--day", "2"])
    assert refused.exit_code != 0 and "back in the game this day, or out" in refused.stderr


@pytest.mark.rules("L1", "C1")
def test_L1_the_free_sheriffs_thread_counts_with_the_days_discussion(forum, tmp_path):
    """Seed 001's 自由 sheriff "任何时候都可以在一个专门的自由警长发言贴中发言（寡言状态依然适用且共用
    当天讨论数）": a day names no such thread, so a sheriff who spoke there earned an L1. The
    day's sheriff_thread counts the sheriff's posts there; another's do not count."""
    g = Game(forum, tmp_path, ruleset="245")
    opens = "2024-05-08 09:30"
    talk = g.talk(201, 1, opens, {p: (2 if p in ("甲", "乙") else 12) for p in PLAYERS})
    free = Thread("250", "自由警长发言贴", UIDS, first_pid=250_000)
    free.add(P("导演A", at(opens), "自由警长发言贴"))
    for who, start in (("甲", 10), ("乙", 20)):
        for i in range(4):
            free.add(P(who, at(opens, start + i), f"{who}在警长帖{i}"))
    votes = g.votes(301, 1, opens, [(p, "丙" if p != "丙" else "甲") for p in PLAYERS])
    g.day(1, opens, "2024-05-09 21:30", talk, votes,
          sheriff_thread=free.serve(forum))  # fmt: skip
    game = g.write()
    with open(game, encoding="utf-8") as f:
        text = f.read().replace('sheriff = "none"', 'sheriff = "甲"\nsheriff_declaration = "自由"')
    with open(game, "w", encoding="utf-8") as f:
        f.write(text)
    checked = lurkers(game, 1)
    posts = {p["player"]: p["posts"] for p in checked["players"]}
    assert (posts["甲"], posts["乙"]) == (6, 2)
    assert [(c["player"], c["rule"]) for c in checked["cards"]] == [("乙", "L1")]


# -- from a cold read of the fixes above ------------------------------------------------------


def _owner_day(forum, tmp_path, extra: Mapping, rules: Mapping | None = NO_ELECTION,
               owner_votes: bool = False, roles: Mapping | None = None) -> str:  # type: ignore[no-untyped-def]  # fmt: skip
    g = Game(forum, tmp_path, ruleset="023", rules=rules, roles=roles)
    opens = "2024-05-08 09:30"
    ballots = [(p, "乙" if p != "乙" else "甲") for p in PLAYERS if p != "丁"]
    g.day(1, opens, "2024-05-09 21:30", g.talk(401, 1, opens, dict.fromkeys(PLAYERS, 12)),
          g.votes(402, 1, opens, ballots + ([("丁", "弃权")] if owner_votes else [])),
          bar_owner="丁", **extra)  # fmt: skip
    return g.write()


@pytest.mark.rules("V11", "V10", "V12")
def test_V11_no_card_for_a_bar_owner_with_no_vote_to_cast(forum, tmp_path):
    """A 主管 barred from voting that day (V10), or no elector of the day-1 election (V12),
    has no vote to cast in time: no V11 card (the first version gave one)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    barred = _owner_day(forum, tmp_path / "a", {"cannot_vote": ["丁"]})
    assert lurkers(barred, 1)["cards"] == []
    roles = {p: "嫌疑人" for p in PLAYERS if p != "丁"}
    election = _owner_day(forum, tmp_path / "b", {}, rules=None, roles=roles)
    assert lurkers(election, 1)["cards"] == []


@pytest.mark.rules("V11", "K1")
def test_V11_a_card_the_director_gave_first_by_hand_is_not_given_twice(forum, tmp_path):
    """`tally votes` said "yellow card", and a director gave it by hand, in their words: the
    check's own card for the same day and rule is that card, not a second yellow."""
    game = _owner_day(forum, tmp_path, {}, owner_votes=True)
    cli("cards", "add", "--game", game, "--day", "1", "丁", "yellow", "V11", "主管弃权")
    checked = lurkers(game, 1)
    assert checked["ledger"]["new"] == [] and checked["ledger"]["totals"]["丁"]["yellow"] == 1


@pytest.mark.rules("L1", "V9")
def test_L1_a_death_at_the_close_is_out_during_the_day(forum, tmp_path):
    """died at 21:30:00, the close: out by the close as V9 has it (the ballots lapse), so no
    lurking card, as for any death during the day."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    g.day(1, opens, "2024-05-09 21:30",
          g.talk(201, 1, opens, {p: (2 if p == "戊" else 12) for p in PLAYERS}),
          g.votes(301, 1, opens, [(p, "乙" if p != "乙" else "甲") for p in PLAYERS]),
          died={"戊": datetime(2024, 5, 9, 21, 30)})  # fmt: skip
    assert lurkers(g.write(), 1)["cards"] == []


@pytest.mark.rules("L5")
def test_L5_a_night_post_in_a_shared_thread_is_flagged_once(forum, tmp_path):
    """A 进程帖 both days name: 乙, voted out at day 1's close, posts in it that night. Day
    2's check has it (乙 is among its dead); day 1's no longer flags it a second time."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    o1, c1, o2, c2 = "2024-05-08 09:30", "2024-05-09 21:30", "2024-05-10 09:30", "2024-05-11 21:30"
    progress = Thread("500", "进程帖", UIDS, first_pid=500_000)
    progress.add(P("导演A", at(o1), "进程"))
    progress.add(P("乙", "2024-05-09 23:00:00", "我是好人，你们出错了"))
    url = progress.serve(forum)
    g.day(1, o1, c1, g.talk(201, 1, o1, dict.fromkeys(PLAYERS, 12)),
          g.votes(301, 1, o1, [(p, "乙" if p != "乙" else "甲") for p in PLAYERS]),
          progress=url)  # fmt: skip
    g.day(2, o2, c2, g.talk(202, 2, o2, {p: 12 for p in PLAYERS if p != "乙"}),
          g.votes(302, 2, o2, [(p, "甲" if p != "甲" else "丙") for p in PLAYERS if p != "乙"]),
          progress=url, dead=["乙"])  # fmt: skip
    game = g.write()
    day1 = [f for f in lurkers(game, 1)["flags"] if f["rule"] == "L5"]
    day2 = [f["floor"] for f in lurkers(game, 2)["flags"] if f["rule"] == "L5"]
    assert (day1, day2) == ([], [2])


@pytest.mark.rules("L5")
def test_L5_a_day_whose_discussion_is_its_vote_thread_flags_a_post_once(forum, tmp_path):
    """One thread for talk and votes: it was looked at twice, each post flagged twice."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    t = g.votes(301, 1, opens, [(p, "乙" if p != "乙" else "甲") for p in PLAYERS])
    t.add(P("乙", "2024-05-09 22:00:00", "我是好人"))
    g.day(1, opens, "2024-05-09 21:30", t, t)
    flags = [f["floor"] for f in lurkers(g.write(), 1)["flags"] if f["rule"] == "L5"]
    assert flags == [8]


@pytest.mark.rules("L5", "K1", "K2")
def test_L5_the_check_that_gives_the_red_flags_the_posts_after_the_close(forum, tmp_path):
    """戊's third yellow (day 2's L3) makes a red, which sends 戊 off at day 2's close: a post
    after it is 诈尸 in the flags of that very run (the first version said so only when the
    day was checked again)."""
    game, _ = _two_quiet_days(forum, tmp_path, late=True)
    lurkers(game, 1)
    first = [f["note"] for f in lurkers(game, 2)["flags"] if f["rule"] == "L5"]
    assert first == ["戊 posted while out (05-09 22:00, after the close; sent off at day 2's "
                     "close (red card, K2)): 诈尸"]  # fmt: skip
    assert [f["note"] for f in lurkers(game, 2)["flags"] if f["rule"] == "L5"] == first


# -- from a second cold read: revived, the morning post, the new day keys --------------------


def _revival(forum, tmp_path, extra2: Mapping, progress: Thread | None = None,
             ruleset: str = "245", day1: Mapping | None = None) -> tuple[Game, str]:  # type: ignore[no-untyped-def]  # fmt: skip
    """乙 is voted out at day 1's close; day 2's block says ``extra2`` (day 1's ``day1``)."""
    g = Game(forum, tmp_path, ruleset=ruleset, rules=NO_ELECTION)
    more = {"progress": progress.serve(forum)} if progress is not None else {}
    opens = "2024-05-08 09:30"
    g.day(1, opens, "2024-05-09 21:30", g.talk(201, 1, opens, dict.fromkeys(PLAYERS, 12)),
          g.votes(301, 1, opens, [(p, "乙" if p != "乙" else "甲") for p in PLAYERS]),
          **more, **(day1 or {}))  # fmt: skip
    later = "2024-05-10 09:30"
    g.day(2, later, "2024-05-11 21:30", g.talk(202, 2, later, dict.fromkeys(PLAYERS, 12)),
          g.votes(302, 2, later, [(p, "丙" if p != "丙" else "甲") for p in PLAYERS]),
          **extra2, **more)  # fmt: skip
    return g, g.write()


def _morning(game: str, day: int) -> str:
    return cli("announce", "--game", game, "--day", str(day), "--kind", "morning", "-q",
               "--format", "text").stdout  # fmt: skip


@pytest.mark.rules("V9", "A1")
def test_V9_revived_at_the_open_and_out_again_at_noon(forum, tmp_path):
    """Seed 001: revived at the open, killed at 正午: `revived` beside `died` (refused before);
    the morning's ballot counts, and the post says who went out and who came back."""
    g, game = _revival(forum, tmp_path, {"revived": ["乙"], "died": {"乙": datetime(2024, 5, 10, 12)}})
    day2 = json.loads(cli("votes", g.vote_urls[2], "--game", game, "--json", "-q").stdout)
    [back] = [b for b in day2["ballots"] if b["voter"] == "乙"]
    assert (back["status"], back["reason"]) == ("void", "dead_voter")  # lapsed at noon


@pytest.mark.rules("A1", "V9")
def test_A1_the_morning_says_the_vote_out_and_the_revival(forum, tmp_path):
    """乙, voted out on day 1, revived for day 2: the morning post said 昨日无人出局."""
    _, game = _revival(forum, tmp_path, {"revived": ["乙"]})
    text = _morning(game, 2)
    assert "昨日出局（按出局顺序）：乙" in text and "今日复活：乙" in text
    assert "存活玩家（6）" in text


@pytest.mark.rules("V9")
def test_V9_revived_names_one_no_day_put_out(forum, tmp_path):
    _, game = _revival(forum, tmp_path, {"revived": ["丁"]})
    refused = runner.invoke(app, ["lurkers", "--game", game, "--day", "2", "-q"])
    assert refused.exit_code != 0 and "no day before put 丁 out" in refused.stderr


@pytest.mark.rules("L5", "V9")
def test_L5_a_night_post_before_the_revival_is_flagged(forum, tmp_path):
    """乙, voted out at day 1's close, posts that night in the 进程帖 both days share and is
    revived at day 2's open: out that night, so 诈尸 (no day flagged it)."""
    progress = Thread("500", "进程帖", UIDS, first_pid=500_000)
    progress.add(P("导演A", at("2024-05-08 09:30"), "进程"))
    progress.add(P("乙", "2024-05-09 23:00:00", "我还会回来"))
    _, game = _revival(forum, tmp_path, {"revived": ["乙"]}, progress)
    flags = [(f["player"], f["floor"]) for f in lurkers(game, 2)["flags"] if f["rule"] == "L5"]
    assert flags == [("乙", 2)]


@pytest.mark.rules("A1")
def test_A1_a_death_after_the_close_is_the_nights_where_the_ruleset_lists_it_apart(
    forum, tmp_path
):
    """Ruleset 000 lists the day's out and the night's apart: 丁, died at 02:00 after day 1's
    close (a night death written as died), is the night's, not the day's."""
    _, game = _revival(forum, tmp_path, {}, ruleset="000",
                       day1={"died": {"丁": datetime(2024, 5, 10, 2)}})  # fmt: skip
    said = _morning(game, 2)
    assert "昨日白天出局（按出局顺序）：乙" in said and "昨夜出局（按出局顺序）：丁" in said


@pytest.mark.rules("A1")
def test_A1_after_a_day_not_counted_the_post_does_not_claim_an_order(forum, tmp_path):
    """Day 1's vote thread cannot be read and no result was posted: the out are the game
    file's, in its order, and the post no longer says 按出局顺序."""
    _, game = _revival(forum, tmp_path, {"dead": ["乙", "丙"]})
    forum.routes.pop(next(k for k in forum.routes if k.startswith("discuz:301:")))
    said = _morning(game, 2)
    assert "昨日出局：乙、丙" in said and "按出局顺序" not in said


@pytest.mark.rules("L1")
def test_L1_a_sheriff_thread_that_is_a_vote_thread_is_refused(forum, tmp_path):
    """The sheriff's ballots and chat in the day's vote thread would count as discussion."""
    g = Game(forum, tmp_path, ruleset="245")
    opens = "2024-05-08 09:30"
    votes = g.votes(301, 1, opens, [(p, "丙" if p != "丙" else "甲") for p in PLAYERS])
    g.day(1, opens, "2024-05-09 21:30", g.talk(201, 1, opens, dict.fromkeys(PLAYERS, 12)), votes,
          sheriff_thread=votes.serve(forum))  # fmt: skip
    refused = runner.invoke(app, ["lurkers", "--game", g.write(), "--day", "1", "-q"])
    assert refused.exit_code != 0 and "day 1.sheriff_thread" in " ".join(refused.stderr.split())
    assert "is day 1's vote thread, not a sheriff thread" in " ".join(refused.stderr.split())


@pytest.mark.rules("L1")
def test_L1_a_sheriff_thread_that_is_the_discussion_thread_counts_once(forum, tmp_path):
    g = Game(forum, tmp_path, ruleset="245")
    opens = "2024-05-08 09:30"
    talk = g.talk(201, 1, opens, {p: (3 if p == "甲" else 12) for p in PLAYERS})
    g.day(1, opens, "2024-05-09 21:30", talk,
          g.votes(301, 1, opens, [(p, "丙" if p != "丙" else "甲") for p in PLAYERS]),
          sheriff_thread=talk.serve(forum), sheriff="甲")  # fmt: skip
    game = g.write()
    posts = {p["player"]: p["posts"] for p in lurkers(game, 1)["players"]}
    assert posts["甲"] == 3


@pytest.mark.rules("L2")
def test_L2_a_run_passes_over_a_day_the_player_was_silenced(forum, tmp_path):
    """Three low days with a silenced one between: no run of three (the silenced day neither
    counts nor breaks it); a fourth low day makes the run, over the silenced one."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    starts = ("2024-05-06", "2024-05-08", "2024-05-10", "2024-05-12")
    for n, date in enumerate(starts, start=1):
        opens = f"{date} 09:30"
        closes = f"{date[:-2]}{int(date[-2:]) + 1:02d} 21:30"
        posts = {p: (6 if p == "戊" else 12) for p in PLAYERS}  # 戊: 6, no L1, under 10
        g.day(n, opens, closes, g.talk(200 + n, n, opens, posts),
              g.votes(300 + n, n, opens, [(p, "甲" if p != "甲" else "乙") for p in PLAYERS]),
              **({"silenced": ["戊"]} if n == 2 else {}))  # fmt: skip
    game = g.write()
    assert [c for c in lurkers(game, 3)["cards"] if c["rule"] == "L2"] == []
    [l2] = [c for c in lurkers(game, 4)["cards"] if c["rule"] == "L2"]
    assert (l2["player"], l2["reason"]) == ("戊", "第1、3、4天发言均少于10条")


# -- what the forum takes away after the close (found on a real Discuz! X3.5) -----------------


@pytest.mark.rules("S2", "L1", "L3")
def test_L1_L3_posts_deleted_after_the_close_stood_at_the_close(forum, tmp_path):
    """乙's ballot and two of its five posts are deleted after the close (on the real X3.5 an
    author deletes their own post from the edit form): checked again, 乙 was carded L1 and
    L3 for a day on which 乙 had posted five times and voted."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    talk = g.talk(201, 1, opens, {p: (5 if p == "乙" else 12) for p in PLAYERS})
    votes = g.votes(301, 1, opens, [(p, "丙" if p != "丙" else "甲") for p in PLAYERS])
    g.day(1, opens, "2024-05-09 21:30", talk, votes)
    game = g.write()
    assert [c for c in lurkers(game, 1)["cards"] if c["player"] == "乙"] == []
    for floor in sorted((n for n, p in enumerate(talk.posts, start=1) if p.author == "乙"),
                        reverse=True)[:2]:  # fmt: skip
        talk.delete(floor)
    votes.delete(next(n for n, p in enumerate(votes.posts, start=1) if p.author == "乙"))
    talk.serve(forum)
    votes.serve(forum)
    again = lurkers(game, 1)
    assert [c for c in again["cards"] if c["player"] == "乙"] == []
    assert {p["player"]: p["posts"] for p in again["players"]}["乙"] == 5


@pytest.mark.rules("S2", "V3")
def test_S2_a_change_deleted_after_the_close_stood_at_the_close(forum, tmp_path):
    """A moderator deletes eve's 点评 change after the close: it vanished without a trace, and
    the result turned. It is counted as it stood at the close, and flagged."""
    from .discuzgen import Comment

    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    votes = g.votes(301, 1, opens, [("甲", "丙"), ("乙", "丙"), ("丙", "甲"), ("丁", "甲"),
                                    ("戊", "丙")])  # fmt: skip
    votes.posts[4].comments.append(Comment("丁", "2024-05-08 15:00", "改票对象：乙 改票理由：想想"))
    g.day(1, opens, "2024-05-09 21:30", g.talk(201, 1, opens, dict.fromkeys(PLAYERS, 12)), votes)
    game = g.write()
    first = json.loads(cli("votes", g.vote_urls[1], "--game", game, "--json", "-q").stdout)
    assert first["outcome"]["player"] == "丙", [(b["voter"], b["status"], b["reason"]) for b in first["ballots"]]
    votes.posts[4].comments.clear()
    votes.serve(forum)
    again = json.loads(cli("votes", g.vote_urls[1], "--game", game, "--json", "-q").stdout)
    assert again["outcome"]["player"] == "丙"
    [change] = [b for b in again["ballots"] if b["kind"] == "change"]
    [before] = [b for b in first["ballots"] if b["kind"] == "change"]
    assert (change["voter"], change["target"], change["status"]) == ("丁", "乙", "counted"), (
        before, change)
    [flag] = [f for f in again["flags"] if f["rule"] == "deleted"]
    assert flag["note"].startswith("a 点评 by 丁 under floor 5 (“改票对象：乙 改票理由：想想”")


@pytest.mark.rules("V3", "V4")
def test_V3_a_change_in_the_minute_of_its_own_floor_comes_after_it(forum, tmp_path):
    """A 点评 shows its minute, its floor the second: 丁's change 点评'd in the minute of 丁's
    own vote sorted before the vote, and was void as a change with no vote (real X3.5)."""
    from .discuzgen import Comment

    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    votes = g.votes(301, 1, opens, [("甲", "丙"), ("乙", "丙")])
    votes.add(P("丁", "2024-05-08 10:01:30", "投票对象：甲\n投票理由：先投",
                comments=[Comment("丁", "2024-05-08 10:01", "改票对象：乙 改票理由：手滑")]))  # fmt: skip
    g.day(1, opens, "2024-05-09 21:30", g.talk(201, 1, opens, dict.fromkeys(PLAYERS, 12)), votes)
    data = json.loads(cli("votes", g.vote_urls[1], "--game", g.write(), "--json", "-q").stdout)
    mine = [(b["kind"], b["target"], b["status"]) for b in data["ballots"] if b["voter"] == "丁"]
    assert mine == [("vote", "甲", "superseded"), ("change", "乙", "counted")]


@pytest.mark.rules("V2")
def test_V2_a_comment_in_the_opening_minute_under_a_floor_after_the_open_is_on_time(
    forum, tmp_path
):
    """The open at 09:30:25 (a time tally init takes from a post has seconds): a 点评 shown
    09:30 under a floor posted 09:30:40 was void before_open; under a floor of 09:30:10 it
    still is, with an "opening minute" flag the director can rule on."""
    from .discuzgen import Comment

    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    votes = Thread("301", "第1天投票帖", UIDS, first_pid=301_000)
    votes.add(P("导演A", "2024-05-08 09:30:00", "投票格式：\n投票对象：\n投票理由："))
    votes.add(P("甲", "2024-05-08 09:30:10", "投票对象：丙\n投票理由：早",
                comments=[Comment("甲", "2024-05-08 09:30", "改票对象：乙 改票理由：改")]))  # fmt: skip
    votes.add(P("乙", "2024-05-08 09:30:40", "投票对象：丙\n投票理由：x",
                comments=[Comment("乙", "2024-05-08 09:30", "改票对象：甲 改票理由：改")]))  # fmt: skip
    g.day(1, opens, "2024-05-09 21:30", g.talk(201, 1, opens, dict.fromkeys(PLAYERS, 12)), votes)
    game = g.write()
    with open(game, encoding="utf-8") as f:
        text = f.read().replace("opens = 2024-05-08T09:30:00", "opens = 2024-05-08T09:30:25")
    with open(game, "w", encoding="utf-8") as f:
        f.write(text)
    data = json.loads(cli("votes", g.vote_urls[1], "--game", game, "--json", "-q").stdout)
    by = {(b["voter"], b["comment"]): (b["status"], b["reason"]) for b in data["ballots"]}
    assert by[("乙", True)] == ("counted", None)
    assert by[("甲", True)] == ("void", "before_open")
    assert [f["rule"] for f in data["flags"] if f["player"] == "甲"] == ["opening minute"]


@pytest.mark.rules("S2", "V6")
def test_S2_a_ballot_approved_after_the_close_is_flagged(forum, tmp_path):
    """A forum that holds new replies for a moderator (审核): 丁's ballot, posted before the
    close, was not in tally's read after it; approved later, it is there with its time, and
    the floors after it are numbered again. It turned the result without a word on a real
    X3.5: it is counted, and flagged."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    votes = g.votes(301, 1, opens, [("甲", "丙"), ("乙", "丙"), ("丙", "甲"), ("戊", "甲")])
    g.day(1, opens, "2024-05-09 21:30", g.talk(201, 1, opens, dict.fromkeys(PLAYERS, 12)), votes)
    game = g.write()
    first = json.loads(cli("votes", g.vote_urls[1], "--game", game, "--json", "-q").stdout)
    assert [f for f in first["flags"] if f["rule"] == "approved late"] == []
    for n, post in enumerate(votes.posts, start=1):
        post.post_id = votes.pid(n)  # the forum's ids stay
    held = P("丁", "2024-05-08 10:01:30", "投票对象：甲\n投票理由：审核中", post_id=301_999)
    votes.posts.insert(3, held)  # floor 4, between 乙's and 丙's
    votes.serve(forum)
    again = json.loads(cli("votes", g.vote_urls[1], "--game", game, "--json", "-q").stdout)
    [flag] = [f for f in again["flags"] if f["rule"] == "approved late"]
    assert flag["post_id"] == "301999" and flag["floor"] == 4
    assert "held for a moderator (审核) and approved since?" in flag["note"]
    [ding] = [b for b in again["ballots"] if b["voter"] == "丁"]
    assert ding["status"] == "counted"


@pytest.mark.rules("V6")
def test_V6_an_anonymous_ballot_says_so_not_that_the_player_was_renamed(forum, tmp_path):
    """Discuz!'s 匿名: players see 匿名, a moderator the account's uid. Read with the
    director's cookies, tally counted 戊's anonymous ballot as 戊 and said "戊 posts as 匿名
    now", as if the account were renamed, in the post that players may be shown."""
    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    votes = Thread("301", "第1天投票帖", {**UIDS, "匿名": UIDS["戊"]}, first_pid=301_000)
    votes.add(P("导演A", at(opens), "投票格式：\n投票对象：\n投票理由："))
    votes.add(P("甲", at(opens, 10), "投票对象：丙\n投票理由：x"))
    votes.add(P("匿名", at(opens, 20), "投票对象：甲\n投票理由：匿名投票"))
    g.day(1, opens, "2024-05-09 21:30", g.talk(201, 1, opens, dict.fromkeys(PLAYERS, 12)), votes)
    game = g.write()
    data = json.loads(cli("votes", g.vote_urls[1], "--game", game, "--json", "-q").stdout)
    [anon] = [b for b in data["ballots"] if b["floor"] == 3]
    assert (anon["voter"], anon["status"]) == ("戊", "counted")
    rules = [f["rule"] for f in data["flags"] if f["player"] == "戊"]
    assert rules == ["anonymous"]
    # The players' post names it as the forum shows it to them (it named 戊).
    text = cli("announce", "--game", game, "--day", "1", "-q", "--format", "text").stdout
    assert "戊" not in text and "匿名" in text


@pytest.mark.rules("S2", "V3")
def test_S2_an_older_change_deleted_after_the_close_is_the_one_put_back(forum, tmp_path):
    """Discuz! numbers 点评 by position: deleting 丁's change renumbered 甲's chat under it,
    and the chat was judged twice while the change was lost (a cold read)."""
    from .discuzgen import Comment

    g = Game(forum, tmp_path, rules=NO_ELECTION)
    opens = "2024-05-08 09:30"
    votes = g.votes(301, 1, opens, [("甲", "丙"), ("乙", "丙"), ("丙", "甲"), ("丁", "甲"),
                                    ("戊", "丙")])  # fmt: skip
    votes.posts[4].comments.append(Comment("丁", "2024-05-08 15:00", "改票对象：乙 改票理由：想想"))
    votes.posts[4].comments.append(Comment("甲", "2024-05-08 16:00", "你改得好"))
    g.day(1, opens, "2024-05-09 21:30", g.talk(201, 1, opens, dict.fromkeys(PLAYERS, 12)), votes)
    game = g.write()
    assert cli("votes", g.vote_urls[1], "--game", game, "--json", "-q").exit_code == 0
    del votes.posts[4].comments[0]
    votes.serve(forum)
    again = json.loads(cli("votes", g.vote_urls[1], "--game", game, "--json", "-q").stdout)
    assert [(b["voter"], b["target"], b["status"]) for b in again["ballots"]
            if b["kind"] == "change"] == [("丁", "乙", "counted")]  # fmt: skip
    chat = [b for b in again["ballots"] if b["voter"] == "甲" and b["comment"]]
    assert len(chat) == 1
    [flag] = [f for f in again["flags"] if f["rule"] == "deleted"]
    assert "a 点评 by 丁 under floor 5" in flag["note"]
