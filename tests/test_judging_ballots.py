"""RULES V1-V11 and S3, rule by rule, in each ruleset where they differ."""

from __future__ import annotations

import pytest

from tally.rules.judging.ballot_text import read_ballot

from .votekit import T, change, game, rows, run, status_of, vote

# -- V1: the ballot format ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,target,reason",
    [
        ("投票对象：冷月\n投票理由：冷月是狼", "冷月", "冷月是狼"),
        ("投票对象:冷月\n投票理由:冷月是狼", "冷月", "冷月是狼"),  # ASCII colon
        ("投票对象：冷月 投票理由：冷月是狼", "冷月", "冷月是狼"),  # one line
        ("投票对象：冷月\u3000投票理由：全角空格", "冷月", "全角空格"),  # full-width space
        ("投票对象 ： 冷月 \n 投票理由 ：x", "冷月", "x"),  # stray spaces
        ("【投票对象】：冷月\n【投票理由】：x", "冷月", "x"),  # 【】 labels
        ("[投票对象]:冷月\n[投票理由]:x", "冷月", "x"),
        ("投票对象：「冷月」。\n投票理由：x", "冷月", "x"),
        # full-width letters read as ASCII (NFKC); the reason stays as written
        ("ＫＩＷＩ说\n投票对象：ｋｉｗｉ\n投票理由：ｘ", "kiwi", "ｘ"),
        ("投票对象：冷月\n投票理由：他的投票对象很奇怪", "冷月", "他的投票对象很奇怪"),
    ],
)
def test_V1_spellings_read_alike(text, target, reason):
    reading = read_ballot(text)
    assert reading.problem is None
    assert [(b.label, b.target, b.reason) for b in reading.ballots] == [("vote", target, reason)]


@pytest.mark.parametrize(
    "text,problem",
    [
        ("投票对象 冷月\n投票理由：x", "no colon after 投票对象"),
        ("投票：冷月", "no 投票对象 label"),
        ("弃权", "no 投票对象 label"),
        ("投票对象：\n投票理由：x", "投票对象 is empty"),
        ("投票对象：冷月", "no 投票理由 (the format needs target and reason)"),
        (
            "投票对象：甲\n投票理由：x\n投票对象：乙\n投票理由：y",
            "2 ballots in one post (one vote per post)",
        ),
    ],
)
def test_V1_format_errors_are_named(text, problem):
    found = read_ballot(text).problem
    assert found is not None and found.text == problem
    several = problem.startswith("2 ballots")
    assert found.code == ("several_ballots" if several else "format")


@pytest.mark.parametrize(
    "text,reason",
    [
        ("投票对象：bob\n投票理由：发言有问题，票给bob（真的）", "发言有问题，票给bob（真的）"),
        ("投票对象：bob\n投票理由：第一行，\n代投：甲\n第二行！", "第一行，\n第二行！"),
        ("投票对象：bob 投票理由：\u3000ｅ\u0301 好\u3000", "ｅ\u0301 好"),  # marks kept with
        ("投票对象：bob\n投票理由：\u1100\u1161 x", "\uac00 x"),  # jamo: NFKC, not a guess
    ],
)
def test_V1_the_reason_is_quoted_as_written(text, reason):
    """The labels are read after NFKC, the reason is the player's own characters: an
    announcement quotes "，" and "（", not "," and "(" (seen on a real X3.5 board)."""
    [ballot] = read_ballot(text).ballots
    assert ballot.reason == reason


def test_V1_chatter_is_no_ballot():
    assert not read_ballot("同意楼上，记得投票").is_ballot


def test_V1_reason_required_except_in_M126():
    t = T().post("乙", "08 10:00", "投票对象：甲")
    assert status_of(run(game("000"), t), 2) == ("void", "format")
    assert status_of(run(game("M126"), t), 2) == ("counted", None)


def test_V1_several_ballots_in_one_post_are_void():
    t = T().post("乙", "08 10:00", vote("甲") + "\n" + vote("丙"))
    result = run(game("000"), t)
    assert status_of(result, 2) == ("void", "several_ballots")
    assert "one vote per post" in result.ballots[0].note


# -- V2: the change format -------------------------------------------------------------------


def test_V2_a_change_needs_a_vote_before_it():
    t = T().post("乙", "08 10:00", change("甲"))
    assert status_of(run(game("000"), t), 2) == ("void", "change_without_vote")


def test_V2_M126_change_is_target_only():
    t = T().post("乙", "08 10:00", "投票对象：甲").post("乙", "08 11:00", "改票对象：丙", reply=2)
    assert rows(run(game("M126"), t)) == [
        (2, "乙", "vote", "甲", "superseded", None),
        (3, "乙", "change", "丙", "counted", None),
    ]


# -- V3: how a change is posted --------------------------------------------------------------


def _change_posted(how: str) -> T:
    t = T().post("乙", "08 10:00", vote("甲"))
    if how == "comment":
        return t.comment(2, "乙", "08 11:00", change("丙"))
    if how == "reply":
        return t.post("乙", "08 11:00", change("丙"), reply=2)
    if how == "quote":
        return t.post("乙", "08 11:00", change("丙"), quote=2)
    return t.post("乙", "08 11:00", change("丙"))


@pytest.mark.parametrize(
    "ruleset,accepted",
    [
        ("000", {"comment"}),  # seed 000: 楼中楼
        ("245", {"reply", "quote"}),  # seed 001: 回复原投票楼层 (the 回复 button quotes and links)
        ("023", {"quote"}),  # seed 002: 引用原投票帖
        ("M126", {"comment", "reply", "quote", "post"}),  # seed 003: no rule
    ],
)
@pytest.mark.parametrize("how", ["comment", "reply", "quote", "post"])
def test_V3_change_posted_as_the_ruleset_requires(ruleset, accepted, how):
    result = run(game(ruleset), _change_posted(how))
    change_ballot = next(b for b in result.ballots if b.kind == "change")
    if how in accepted:
        assert (change_ballot.status, change_ballot.target) == ("counted", "丙")
    else:
        assert (change_ballot.status, change_ballot.reason) == ("void", "change_not_reply")
        assert status_of(result, 2) == ("counted", None)


def test_V3_comment_under_someone_elses_floor_is_no_change():
    t = T().post("乙", "08 10:00", vote("甲")).post("丙", "08 10:05", vote("甲"))
    t.comment(3, "乙", "08 11:00", change("丁"))
    assert status_of(run(game("000"), t), 3, comment=True) == ("void", "change_not_reply")


# -- V4: one change --------------------------------------------------------------------------


def test_V4_second_change_void_but_M126_has_no_limit():
    t = T().post("乙", "08 10:00", vote("甲"))
    t.comment(2, "乙", "08 11:00", change("丙")).comment(2, "乙", "08 12:00", change("丁"))
    t.comment(2, "乙", "08 13:00", change("戊"))
    r000 = run(game("000"), t)
    assert [(b.target, b.status, b.reason) for b in r000.ballots] == [
        ("甲", "superseded", None),
        ("丙", "counted", None),
        ("丁", "void", "second_change"),
        ("戊", "void", "second_change"),
    ]
    r126 = run(game("M126"), t)
    assert [b.status for b in r126.ballots] == ["superseded", "superseded", "superseded", "counted"]


# -- V5: no change in the final hour ---------------------------------------------------------


@pytest.mark.parametrize(
    "ruleset,time,expected",
    [
        ("000", "09 20:29", ("counted", None)),
        ("000", "09 20:30", ("void", "change_in_final_hour")),
        ("000", "09 20:45", ("void", "change_in_final_hour")),
        ("023", "09 20:45", ("void", "change_in_final_hour")),
        ("M126", "09 21:29", ("counted", None)),  # seed 003 has no such window
    ],
)
def test_V5_final_hour(ruleset, time, expected):
    t = T().post("乙", "08 10:00", vote("甲")).post("乙", time, change("丙"), quote=2)
    result = run(game(ruleset, rules='change_via = ["quote"]'), t)
    assert status_of(result, 3) == expected


# -- V6: abstain -----------------------------------------------------------------------------


def test_V6_abstain_is_the_vote_and_a_change_from_it_is_a_change():
    t = T().post("乙", "08 10:00", vote("弃权")).post("丙", "08 10:05", vote("弃权"))
    t.comment(2, "乙", "08 11:00", change("甲"))
    result = run(game("000"), t)
    assert rows(result) == [
        (2, "乙", "abstain", "弃权", "superseded", None),
        (2, "乙", "change", "甲", "counted", None),
        (3, "丙", "abstain", "弃权", "counted", None),
    ]
    assert "丙" not in result.not_voted and "乙" not in result.not_voted
    assert result.count.abstained == 1


# -- V7: void ballots, fixes, restatements --------------------------------------------------


def test_V7_000_fix_by_comment_is_no_change_and_keeps_the_time():
    t = T().post("乙", "08 10:00", vote("甲甲"))  # a typo: no such player
    t.comment(2, "乙", "08 12:00", vote("甲", "修正格式"))
    t.comment(2, "乙", "08 13:00", change("丙"))  # the one change is still there
    result = run(game("000"), t)
    assert [(b.target, b.status, b.reason) for b in result.ballots] == [
        (None, "void", "unknown_target"),
        ("甲", "superseded", None),
        ("丙", "counted", None),
    ]
    fix = result.ballots[1]
    assert fix.kind == "vote" and fix.time.hour == 10 and fix.posted_at.hour == 12
    assert "keeps its time (V7)" in fix.note


def test_V7_245_fix_by_posting_anew_counts_from_its_own_time():
    t = (
        T()
        .post("乙", "08 10:00", "投票对象 甲\n投票理由：没冒号")
        .post("乙", "08 12:00", vote("甲"))
    )
    result = run(game("245"), t)
    assert rows(result) == [
        (2, "乙", "vote", None, "void", "format"),
        (3, "乙", "vote", "甲", "counted", None),
    ]
    assert result.ballots[1].time.hour == 12


def test_V7_restating_the_same_target_is_not_a_change():
    t = (
        T()
        .post("乙", "08 10:00", vote("甲", "错别字"))
        .post("乙", "08 11:00", change("甲", "修改错别字"), quote=2)
    )
    t.post("乙", "08 12:00", change("丙"), quote=2)
    result = run(game("023"), t)
    assert [(b.status, b.reason) for b in result.ballots] == [
        ("superseded", None),
        ("void", "no_change"),
        ("counted", None),
    ]


# -- V8: proxy votes -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ruleset,time,expected",
    [
        ("000", "09 20:59", ("counted", None)),  # due 30 min before the close
        ("000", "09 21:01", ("void", "proxy_late")),
        ("245", "09 20:31", ("void", "proxy_late")),  # seed 001: no proxy in the final hour
        ("245", "09 20:29", ("counted", None)),
    ],
)
def test_V8_proxy_deadline(ruleset, time, expected):
    t = T().post("导演", time, "代投：乙\n" + vote("甲", "乙委托"))
    result = run(game(ruleset), t)
    assert status_of(result, 2) == expected
    assert (result.ballots[0].voter, result.ballots[0].kind) == ("乙", "proxy")


def test_V8_023_proxy_change_due_an_hour_before_close():
    t = (
        T()
        .post("导演", "08 10:00", "代投：乙\n" + vote("甲"))
        .post("导演", "09 20:35", "代投：乙\n" + change("丙"))
    )
    result = run(game("023"), t)
    assert [(b.kind, b.status, b.reason) for b in result.ballots] == [
        ("proxy", "counted", None),
        ("proxy", "void", "change_in_final_hour"),
    ]
    assert result.ballots[1].note == "no change in the last 60 minutes before the close, after 20:30 (V5, V8)"


def test_V5_a_players_own_late_change_cites_V5_alone():
    """V8 is the proxy rule: a player's own change in the final hour is void under V5 only."""
    t = T().post("乙", "08 10:00", vote("甲")).post("乙", "09 20:45", change("丙"))
    result = run(game("000", rules='change_via = ["reply", "quote", "comment", "post"]'), t)
    late = result.ballots[-1]
    assert (late.kind, late.reason, late.note) == (
        "change", "change_in_final_hour", "no change in the last 60 minutes before the close, after 20:30 (V5)")  # fmt: skip


def test_V8_only_directors_post_proxies_and_only_for_players():
    t = (
        T()
        .post("乙", "08 10:00", "代投：丙\n" + vote("甲"))
        .post("导演", "08 10:05", "代投：路人\n" + vote("甲"))
    )
    t.post("导演", "08 10:10", vote("甲"))
    result = run(game("000"), t)
    assert [(b.status, b.reason) for b in result.ballots] == [
        ("void", "proxy_not_director"),
        ("void", "unknown_voter"),
    ]


@pytest.mark.rules("V8")
def test_V8_the_directors_own_posts_are_no_ballot_and_no_row():
    """The 催票 shows the format (投票对象：…); a director's notice holds a target: neither is
    a ballot, a 废票 or a not_a_ballot row (issue 31: "11楼 admin：导演帖" in the 废票)."""
    t = T().post("乙", "08 10:00", vote("甲"))
    t.post("导演", "09 20:00", "催票：还没投票的请按格式投票\n投票对象：\n投票理由：")
    t.post("导演", "09 20:05", vote("甲"))
    t.post("导演", "09 20:06", "公告：请大家注意时间")
    result = run(game("000"), t)
    assert [(b.floor, b.status) for b in result.ballots] == [(2, "counted")]
    assert result.remarks == ()


@pytest.mark.rules("V1", "V7")
@pytest.mark.parametrize("written", ["@甲", "＠甲", "@ 甲"])
def test_V7_a_mention_is_its_target(written):
    """`投票对象：@dave`, as players type it (Discuz! links the mention): the player named."""
    t = T().post("乙", "08 10:00", f"投票对象：{written}\n投票理由：x")
    result = run(game("000"), t)
    assert [(b.status, b.target) for b in result.ballots] == [("counted", "甲")]


@pytest.mark.rules("V7")
def test_V7_a_name_that_begins_with_at_is_matched_whole_first():
    t = T().post("乙", "08 10:00", "投票对象：@甲\n投票理由：x")
    t.post("丙", "08 10:01", "投票对象：@路人\n投票理由：x")
    result = run(game("000", players=["@甲", "甲", "乙", "丙"]), t)
    assert [(b.status, b.target) for b in result.ballots] == [
        ("counted", "@甲"),
        ("void", None),
    ]


# -- V9: the dead ----------------------------------------------------------------------------


def test_V9_dead_voters_and_targets():
    t = T().post("丁", "08 10:00", vote("甲")).post("乙", "08 10:05", vote("丁"))
    result = run(game("000", day='dead = ["丁"]'), t)
    assert [(b.status, b.reason) for b in result.ballots] == [
        ("void", "dead_voter"),
        ("void", "dead_target"),
    ]
    assert "丁" not in result.not_voted


def test_V9_245_one_more_change_when_the_target_dies_at_noon():
    t = T().post("乙", "08 10:00", vote("甲")).post("乙", "08 11:00", change("丙"), quote=2)
    t.post("乙", "09 21:00", change("丁"), quote=2)  # final hour, second change: allowed by V9
    day = 'died = { "丙" = 2024-05-09T12:00:00 }'
    r245 = run(game("245", day=day), t)
    assert [(b.target, b.status) for b in r245.ballots] == [
        ("甲", "superseded"),
        ("丙", "superseded"),
        ("丁", "counted"),
    ]
    assert "one more change (V9)" in r245.ballots[2].note
    # Seed 002 has no such exception: the change is void and the ballot for the dead lapses.
    r023 = run(game("023", day=day), t)
    assert [(b.target, b.status, b.reason) for b in r023.ballots] == [
        ("甲", "superseded", None),
        ("丙", "void", "dead_target"),
        ("丁", "void", "second_change"),
    ]


def test_V9_V7_a_ballot_void_for_its_voter_gives_that_reason_alone_whatever_it_names():
    """A ballot is judged first by who cast it and when (before the open, out, V9), then by
    its format and whom it names (V7): one reason each, the first that applies, and the
    closest names kept for the director even where the voter's reason came first."""
    t = T().post("丁", "08 10:00", vote("甲甲"))  # out, and names nobody
    t.post("乙", "08 09:00", vote("丁"))  # before the open, and names the dead
    t.post("丙", "08 10:05", "投票对象：甲甲")  # no reason, and names nobody
    t.post("戊", "08 10:06", vote("甲甲"))  # names nobody
    result = run(game("000", day='dead = ["丁"]'), t)
    assert [(b.floor, b.reason) for b in result.ballots] == [
        (2, "dead_voter"),
        (3, "before_open"),
        (4, "format"),
        (5, "unknown_target"),
    ]
    dead, early, unformatted, unknown = result.ballots
    assert dead.note == "丁 is out and cannot vote (V9)"
    assert dead.suggestions == unknown.suggestions == ("甲",)
    assert dead.target is None and early.target == "丁"
    assert unformatted.note == "no 投票理由 (the format needs target and reason) (V1, V7)"
    assert unknown.note == "'甲甲' is not a player; closest: 甲 (V7)"


def test_V6_V11_an_abstention_is_read_as_written_and_the_主管_flagged_even_when_void():
    """弃权 however spelled (full-width, wrapped) is the abstain word (V6); the 主管's own
    abstention is flagged (V11) also when the ballot is void for its time."""
    t = T().post("乙", "10 09:00", vote("「弃权」"))  # after the close
    t.post("丙", "08 10:00", vote("弃权"))
    result = run(game("023", day='bar_owner = "乙"'), t)
    assert [(b.voter, b.kind, b.target, b.reason) for b in result.ballots] == [
        ("乙", "abstain", "弃权", "after_close"),
        ("丙", "abstain", "弃权", None),
    ]
    assert ("V11", "the 主管 may not abstain", 2) in [(f.rule, f.note, f.floor) for f in result.flags]


# -- V10: day bans ---------------------------------------------------------------------------


def test_V10_cannot_vote_and_cannot_be_voted():
    t = T().post("乙", "08 10:00", vote("甲")).post("丙", "08 10:05", vote("丁"))
    result = run(game("000", day='cannot_vote = ["乙"]\ncannot_be_voted = ["丁"]'), t)
    assert [(b.status, b.reason) for b in result.ballots] == [
        ("void", "banned_voter"),
        ("void", "banned_target"),
    ]
    assert "乙" not in result.not_voted


# -- V11: the 主管 ----------------------------------------------------------------------------


def test_V11_bar_owner():
    t = (
        T().post("乙", "08 10:00", vote("甲")).post("乙", "08 21:00", change("丙"), quote=2)
    )  # > 11 h
    t.post("丙", "08 10:10", vote("乙"))  # the 主管 cannot be voted for (V10)
    result = run(game("023", day='bar_owner = "乙"'), t)
    assert [(b.floor, b.status, b.reason) for b in result.ballots] == [
        (2, "counted", None),
        (3, "void", "bar_owner_late_change"),
        (4, "void", "banned_target"),
    ]
    assert [f.rule for f in result.flags if f.rule != "accounts"] == ["V11"]  # a void ballot: yellow card


def test_V11_bar_owner_late_first_vote_is_flagged():
    t = T().post("乙", "08 22:00", vote("甲"))
    result = run(game("023", day='bar_owner = "乙"'), t)
    assert status_of(result, 2) == ("counted", None)
    assert [f.rule for f in result.flags if f.rule != "accounts"] == ["V11"]
    on_time = run(game("023", day='bar_owner = "乙"'), T().post("乙", "08 21:00", vote("甲")))
    assert [f for f in on_time.flags if f.rule != "accounts"] == []


# -- S3: acceleration ------------------------------------------------------------------------


def test_S3_no_change_under_acceleration():
    t = T().post("乙", "08 10:00", vote("甲")).comment(2, "乙", "08 11:00", change("丙"))
    result = run(game("000", day="accelerated = true"), t)
    assert status_of(result, 2, comment=True) == ("void", "change_under_acceleration")
    assert status_of(result, 2) == ("counted", None)


# -- times and edits -------------------------------------------------------------------------


def test_before_open_and_after_close():
    t = (
        T()
        .post("乙", "08 09:00", vote("甲"))
        .post("丙", "09 21:31", vote("甲"))
        .post("丁", "09 21:30", vote("甲"))
    )
    result = run(game("000"), t)
    assert [(b.status, b.reason) for b in result.ballots] == [
        ("void", "before_open"),
        ("void", "after_close"),
        ("counted", None),
    ]


def test_not_a_player():
    result = run(game("000"), T().post("路人", "08 10:00", vote("甲")))
    assert status_of(result, 2) == ("void", "not_a_player")
