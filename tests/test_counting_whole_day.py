"""A whole day of a 16-player game, on real-shaped Discuz! pages served on loopback.

The expected JSON below was worked out by hand from the thread, floor by floor
(ruleset "000" on a Discuz! board, where a change may be a 点评, a reply or a quote).
"""

from __future__ import annotations

import json

from tally.cli import app
from tally.demo import sample_game_text

from . import gamefiles
from .conftest import Runner
from .discuzgen import Comment, P, Thread

runner = Runner()
PLAYERS = [
    "冷月",
    "小眯",
    "kiwi",
    "阿澈",
    "风铃",
    "老K",
    "糖糖",
    "雪见",
    "南瓜",
    "白桃",
    "长夜",
    "青山",
    "Mika",
    "小鹿",
    "月影",
    "橘子",
]


def game_file(tmp_path, vote_url: str) -> str:
    path = gamefiles.write_game(
        tmp_path / "game.toml", DAY_2(vote_url), name="测试局", ruleset="000",
        directors=["导演A"], players=PLAYERS, rules=CHANGES,
    )  # fmt: skip
    return str(path)


# Comments, replies and quotes change a ballot too; day 2 as the tests' game file has it.
CHANGES = {"change_via": ["comment", "reply", "quote"]}


def DAY_2(vote_url: str, discussion: str | None = None) -> str:
    return gamefiles.day(2, vote_url, discussion=discussion, dead=["橘子"], sheriff="冷月",
                         deputy="kiwi", slandered=["长夜"])  # fmt: skip


def vote_thread() -> Thread:
    t = Thread("102", "[测试局] 第二天投票帖", {})
    t.add(
        P("导演A", "2024-05-08 09:30:00", "投票格式：\n投票对象：\n投票理由："),  # 1
        P("冷月", "2024-05-08 10:01:00", "投票对象：白桃\n投票理由：狼面大"),  # 2 sheriff 2.5
        P("kiwi", "2024-05-08 10:05:00", "投票对象：长夜\n投票理由：发言划水"),  # 3 deputy 1.5
        P(
            "阿澈",
            "2024-05-08 10:20:00",
            "投票对象：小眯\n投票理由：先挂票",  # 4
            comments=[Comment("阿澈", "2024-05-08 16:00", "改票对象：长夜 改票理由：再改一次")],
        ),
        P("风铃", "2024-05-08 11:00:00", "投票对象:长夜\u3000投票理由:半角冒号"),  # 5
        P("老K", "2024-05-08 11:30:00", "【投票对象】：白桃\n【投票理由】：带括号"),  # 6
        P("橘子", "2024-05-08 12:00:00", "投票对象：白桃\n投票理由：诈尸"),  # 7 dead voter
        P("糖糖", "2024-05-08 12:30:00", "投票对象：橘子\n投票理由：投个死人"),  # 8 dead target
        P(
            "雪见",
            "2024-05-08 13:00:00",
            "投票对象：月彰\n投票理由：打错字",  # 9 typo
            comments=[Comment("冷月", "2024-05-08 13:05", "你打错字了")],
        ),
        P("阿澈", "2024-05-08 15:00:00", "改票对象：白桃\n改票理由：被说服了", quote=4),  # 10
        P("南瓜", "2024-05-08 15:30:00", "投票对象 白桃\n投票理由：没写冒号"),  # 11 format
        P("小鹿", "2024-05-08 16:30:00", "投票对象：弃权\n投票理由：没把握"),  # 12 abstain
        P("Mika", "2024-05-08 17:00:00", "同意冷月", quote=2),  # 13 a ballot inside a quote
        P(
            "青山",
            "2024-05-08 17:30:00",
            "投票对象：长夜\n投票理由：站边",  # 14 edited in the final hour, same target
            edited=("青山", "2024-05-09 21:00"),
        ),
        P("月影", "2024-05-08 18:00:00", "投票对象：白桃\n投票理由：跟警长"),  # 15
        P("糖糖", "2024-05-09 10:00:00", "投票对象：白桃\n投票理由：重新投"),  # 16
        P("月影", "2024-05-09 20:45:00", "改票对象：长夜\n改票理由：临时改", reply=15),  # 17
        P(
            "导演A", "2024-05-09 20:50:00", "代投：白桃\n投票对象：长夜\n投票理由：白桃委托代投"
        ),  # 18
        P("小眯", "2024-05-09 21:40:00", "投票对象：长夜\n投票理由：来晚了"),  # 19
    )
    return t


def ballot(floor, voter, kind, target, time, status, reason=None, post_id=None):
    return {
        "floor": floor,
        "post_id": post_id or str(2000 + floor),
        "voter": voter,
        "kind": kind,
        "target": target,
        "time": f"2024-05-{time}+08:00",
        "status": status,
        "reason": reason,
    }


EXPECTED_BALLOTS = [
    ballot(2, "冷月", "vote", "白桃", "08T10:01:00", "counted"),
    ballot(3, "kiwi", "vote", "长夜", "08T10:05:00", "counted"),
    ballot(4, "阿澈", "vote", "小眯", "08T10:20:00", "superseded"),
    ballot(4, "阿澈", "change", "长夜", "08T16:00:00", "void", "second_change", post_id="2004.1"),
    ballot(5, "风铃", "vote", "长夜", "08T11:00:00", "counted"),
    ballot(6, "老K", "vote", "白桃", "08T11:30:00", "counted"),
    ballot(7, "橘子", "vote", "白桃", "08T12:00:00", "void", "dead_voter"),
    ballot(8, "糖糖", "vote", "橘子", "08T12:30:00", "void", "dead_target"),
    ballot(9, "雪见", "vote", None, "08T13:00:00", "void", "unknown_target"),
    # A 点评 and a post that hold no ballot: listed, never counted.
    ballot(9, "冷月", None, None, "08T13:05:00", "not_a_ballot", post_id="2009.1"),
    ballot(10, "阿澈", "change", "白桃", "08T15:00:00", "counted"),
    ballot(11, "南瓜", "vote", None, "08T15:30:00", "void", "format"),
    ballot(12, "小鹿", "abstain", "弃权", "08T16:30:00", "counted"),
    ballot(13, "Mika", None, None, "08T17:00:00", "not_a_ballot"),
    ballot(14, "青山", "vote", "长夜", "08T17:30:00", "counted"),
    ballot(15, "月影", "vote", "白桃", "08T18:00:00", "counted"),
    ballot(16, "糖糖", "vote", "白桃", "09T10:00:00", "counted"),
    ballot(17, "月影", "change", "长夜", "09T20:45:00", "void", "change_in_final_hour"),
    ballot(18, "白桃", "proxy", "长夜", "09T20:50:00", "counted"),
    ballot(19, "小眯", "vote", "长夜", "09T21:40:00", "void", "after_close"),
]
# 白桃: 冷月 2.5 (sheriff) + 老K 1 + 阿澈 1 + 月影 1 + 糖糖 1 = 6.5
# 长夜: kiwi 1.5 (deputy) + 风铃 1 + 青山 1 + 白桃 1 (proxy) + 2 (slandered) = 6.5
# A tie: the sheriff 冷月 voted 白桃, so 白桃 is out (C5).
EXPECTED_TOTALS = [
    {"player": "白桃", "votes": 6.5, "voters": ["冷月", "老K", "阿澈", "月影", "糖糖"]},
    {"player": "长夜", "votes": 6.5, "voters": ["kiwi", "风铃", "青山", "白桃"]},
]


def run(forum, tmp_path, *extra):
    url = vote_thread().serve(forum)
    args = ["votes", url, "--game", game_file(tmp_path, url), *extra]
    return runner.invoke(app, args, env={"COLUMNS": "250"})


def test_json_matches_the_hand_count(forum, tmp_path):
    """V1-V9, C1, C2, C5 together: the JSON of CONTRACT.md, ballot by ballot."""
    result = run(forum, tmp_path, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["day"], data["kind"]) == (2, "elimination")
    contract = ["floor", "post_id", "voter", "kind", "target", "time", "status", "reason"]
    assert [{k: b[k] for k in contract} for b in data["ballots"]] == EXPECTED_BALLOTS
    assert [
        {k: t[k] for k in ("player", "votes", "voters")} for t in data["totals"]
    ] == EXPECTED_TOTALS
    assert data["totals"][1]["bonuses"] == [{"votes": 2, "why": "slandered (诽谤)", "rule": "C2"}]
    assert data["not_voted"] == ["小眯", "雪见", "南瓜", "长夜", "Mika"]
    assert data["outcome"] == {
        "result": "eliminated",
        "player": "白桃",
        "rule": "tie_sheriff_target",
        "note": "白桃、长夜 tie on 6.5: the sheriff 冷月 voted for 白桃 (C5)",
    }
    by_floor = {(b["floor"], b["post_id"]): b for b in data["ballots"]}
    # The typo: void, and the director is shown who was probably meant (V7).
    assert by_floor[(9, "2009")]["suggestions"] == ["月影"]
    assert by_floor[(9, "2009")]["written"] == "月彰"
    # The edit in the final hour is flagged (V5): tally never read the ballot before it.
    assert by_floor[(14, "2014")]["flags"] == ["edited in the last 60 minutes before the close, 05-09 21:00"]
    assert {
        "rule": "edited",
        "player": "青山",
        "floor": 14,
        "post_id": "2014",
        "note": "edited in the last 60 minutes before the close, 05-09 21:00",
    } in data["flags"]
    # Weights are shown per ballot (C1).
    assert by_floor[(2, "2002")]["weight"] == 2.5 and by_floor[(3, "2003")]["weight"] == 1.5
    # Floor 13 quotes 冷月's ballot: text inside a quote is never a ballot; the post is
    # listed as no ballot, with its first words, so Mika can be told why.
    [mika] = [b for b in data["ballots"] if b["floor"] == 13]
    assert (mika["status"], mika["kind"], mika["words"]) == ("not_a_ballot", None, "同意冷月")


def test_table_explains_every_ballot(forum, tmp_path):
    result = run(forum, tmp_path)
    assert result.exit_code == 0, result.output
    out = result.stdout
    for phrase in (
        "second_change: only 1 change(s) allowed (V4)",
        "change_in_final_hour: no change in the last 60 minutes before the close, after 20:30 (V5)",  # no proxy: V8 is not cited
        "unknown_target: '月彰' is not a player; closest: 月影 (V7)",
        "format: no colon after 投票对象 (V1, V7)",
        "dead_voter: 橘子 is out and cannot vote (V9)",
        "dead_target: 橘子 is out and cannot be voted for (V9)",
        "after_close: posted 05-09 21:40, after the close 05-09 21:30",
        "replaced by the change on floor 10",
        "Not voted (5): 小眯、雪见、南瓜、长夜、Mika",
        "Outcome: 白桃 is out — 白桃、长夜 tie on 6.5: the sheriff 冷月 voted for 白桃 (C5) [rule tie_sheriff_target]",
    ):
        assert phrase in out, phrase
    assert "冷月 ×2.5" in out and "kiwi ×1.5" in out and "+2 slandered (诽谤) (C2)" in out


def test_ruling_accepts_the_typo(forum, tmp_path):
    """The director accepts floor 9 for 月影 (the suggestion): 长夜 then wins outright."""
    url = vote_thread().serve(forum)
    path = game_file(tmp_path, url)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('\n[[rulings]]\nday = 2\nfloor = 9\naction = "accept"\nnote = "meant 月影"\n')
    result = runner.invoke(app, ["votes", url, "--game", path, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    typo = next(b for b in data["ballots"] if b["floor"] == 9)
    assert (typo["status"], typo["target"], typo["ruling"]) == ("counted", "月影", "accept")
    assert "director's ruling: accept (meant 月影)" in typo["note"]
    assert "雪见" not in data["not_voted"]


def test_ruling_voids_a_floor(forum, tmp_path):
    url = vote_thread().serve(forum)
    path = game_file(tmp_path, url)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('\n[[rulings]]\nday = 2\nfloor = 2\naction = "void"\nnote = "withdrawn"\n')
    data = json.loads(runner.invoke(app, ["votes", url, "--game", path, "--json"]).stdout)
    sheriff = next(b for b in data["ballots"] if b["floor"] == 2)
    assert (sheriff["status"], sheriff["reason"]) == ("void", "ruling")
    # Without the sheriff's 2.5, 长夜 leads 6.5 to 4.
    assert data["outcome"]["player"] == "长夜" and data["outcome"]["rule"] == "plurality"


def test_ruling_on_an_empty_floor_is_an_error(forum, tmp_path):
    url = vote_thread().serve(forum)
    path = game_file(tmp_path, url)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('\n[[rulings]]\nday = 2\nfloor = 13\naction = "void"\n')
    result = runner.invoke(app, ["votes", url, "--game", path])
    assert result.exit_code == 2
    assert "a ruling for day 2 names floor 13, which holds no ballot" in result.stderr


def test_day_is_found_from_the_thread_in_any_url_form(forum, tmp_path):
    url = vote_thread().serve(forum)
    path = game_file(tmp_path, url)
    result = runner.invoke(
        app, ["votes", forum.url("thread-102-2-1.html"), "--game", path, "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["day"] == 2


def test_thread_of_no_day_is_refused_even_with_day(forum, tmp_path):
    """--day cannot make another thread the day's vote thread (the game file names it)."""
    url = vote_thread().serve(forum)
    other = forum.url("thread-999-1-1.html")
    path = game_file(tmp_path, other)
    result = runner.invoke(app, ["votes", url, "--game", path])
    assert result.exit_code == 2
    assert f"day 2's vote thread is {other}" in result.stderr
    assert "--day" not in result.stderr
    result = runner.invoke(app, ["votes", url, "--game", path, "--day", "2"])
    assert result.exit_code == 2
    assert f"thread 102 is not day 2's vote thread in {path}; day 2's vote thread is {other}" in (
        result.stderr
    )


def test_votes_from_saved_pages_offline(tmp_path):
    """The real vote thread saved from a browser, counted with the sample game's rules."""
    from .conftest import DISCUZ

    game = tmp_path / "game.toml"
    game.write_text(
        sample_game_text("https://bbs.example.com/"),
        encoding="utf-8",
    )
    result = runner.invoke(
        app,
        [
            "votes",
            str(DISCUZ / "vote-p2.html"),
            str(DISCUZ / "vote-p1.html"),
            "--game",
            str(game),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["day"] == 2 and data["thread"] == {
        "platform": "discuz",
        "thread_id": "23",
        "pages": 2,
        "posts": 16,
        "read_by": "",  # saved pages: neither the forum's pages nor its API, live
    }
    reasons = {b["floor"]: b["reason"] for b in data["ballots"] if b["status"] == "void"}
    assert reasons == {
        5: "change_not_reply",
        14: "proxy_late",
        15: "change_in_final_hour",
        16: "after_close",
    }
    assert [(t["player"], t["votes"]) for t in data["totals"]] == [
        ("月影", 3),
        ("长夜", 3),
        ("白桃", 2),
        ("Mika", 1),
    ]
    # 阿澈's ballot was edited after the 21:00 close.
    assert next(b for b in data["ballots"] if b["floor"] == 8)["flags"] == [
        "edited after the close, 03-15 21:05"
    ]


def test_edit_in_the_final_hour_is_flagged():
    from .votekit import T, game, run, vote

    t = T().post("乙", "08 10:00", vote("甲"))
    p = t.posts[1]
    from tally.model import Edit

    t.posts[1] = p.__class__(
        **{**p.__dict__, "edited": Edit("乙", p.time.replace(day=9, hour=21, minute=0))}
    )
    result = run(game("000"), t)
    assert result.ballots[0].flags == ("edited in the last 60 minutes before the close, 05-09 21:00",)
    assert result.ballots[0].status == "counted"
