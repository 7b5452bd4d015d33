"""The rules where a day's events meet them: deaths by the clock (V9, C2, C3, C5, V11), a
vote that lapsed is a vote cast (L3), a fix of a wrong target (V7), the sheriff's 宣言 with
the badge (C1), the dead posting at night (L5), days the file gives no discussion thread
(L2), and a camp's red cards (K2). Each of these gave a wrong result before it was mended.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime

import pytest

from tally.model import Thread
from tally.rules.cards.ledger import Card, add, camps_lost
from tally.rules.cards.lurkers import check
from tally.rules.cards.writings import DayThreads
from tally.rules.counting.votes import in_order
from tally.rules.game.gamefile import parse_game
from tally.rules.verdicts import Colour

from . import gamefiles
from .votekit import T, at, change, game, run, status_of, totals, vote


def _url(tid: str | None) -> str | None:
    return None if tid is None else f"https://bbs.example.com/thread-{tid}-1-1.html"


def _day(n: int, opens: str, closes: str, vote_id: str, talk_id: str | None = None,
         **keys: object) -> str:  # fmt: skip
    return gamefiles.day(n, _url(vote_id), opens, closes, discussion=_url(talk_id), **keys)


def _game(ruleset: str, *days: str, players: Sequence[object] = ("甲", "乙", "丙", "丁")):
    text = gamefiles.game_toml(*days, ruleset=ruleset, directors=["导演"], players=players)
    return parse_game(text, source="t.toml")


def _as(thread: Thread, tid: str, read: str, title: str = "讨论帖") -> Thread:
    """``thread`` as thread ``tid`` of the board, read at ``read``."""
    posts = tuple(
        dataclasses.replace(p, thread_id=tid, post_id=f"{tid}-{p.post_id}") for p in thread.posts
    )
    url = f"https://bbs.example.com/thread-{tid}-1-1.html"
    return dataclasses.replace(
        thread, thread_id=tid, url=url, posts=posts, read_at=at(read), title=title
    )


def _talk(day: str, players: str = "甲乙丙丁", posts: int = 6) -> T:
    t = T()
    for p in players:
        for i in range(posts):
            t.post(p, f"{day} 1{i}:00", f"发言{i}")
    return t


# -- deaths by the clock ------------------------------------------------------------------


def test_V9_a_death_after_the_close_leaves_the_days_ballots_standing():
    """黄昏 comes after the vote (seed 003: 黄昏属于白天): a death recorded at 21:40, after the
    21:30 close, is the next day's; the ballots by and for the player count."""
    g = game("245", day='died = { "丙" = 2024-05-09T21:40:00 }')
    t = T().post("甲", "08 10:00", vote("丙")).post("乙", "08 10:00", vote("丙"))
    t.post("丙", "08 10:00", vote("丁")).post("丁", "08 10:00", vote("甲"))
    result = run(g, t)
    assert [b.status for b in result.ballots] == ["counted"] * 4
    assert (result.outcome.code, result.outcome.player) == ("plurality", "丙")
    # At noon it is the day's own: the ballots lapse.
    noon = run(game("245", day='died = { "丙" = 2024-05-09T12:00:00 }'), t)
    assert [b.reason for b in noon.ballots] == ["dead_target", "dead_target", "dead_voter", None]


def test_C5_an_acolyte_who_is_out_dies_instead_of_nobody():
    """Out players are no target of a skill (seed 000): a day block copied forward that still
    names the 侍僧 voted out the day before, or one the file lists out, kills nobody."""
    g = _game(
        "000",
        _day(2, "2024-05-08T09:30:00", "2024-05-09T21:30:00", "102", acolyte="丙"),
        _day(3, "2024-05-10T09:30:00", "2024-05-11T21:30:00", "103", acolyte="丙"),
        players=["甲", "乙", "丙", "丁", "戊", "己"],
    )
    day2 = T().post("甲", "08 10:00", vote("丙")).post("乙", "08 10:01", vote("丙"))
    day3 = T().post("甲", "10 10:00", vote("丁")).post("乙", "10 10:01", vote("戊"))
    chain = in_order(
        g, {2: _as(day2.thread(), "102", "09 22:00"), 3: _as(day3.thread(), "103", "11 22:00")}
    )
    assert chain.results[2].outcome.player == "丙"
    third = chain.results[3]
    assert "丙" in third.day.dead
    assert (third.outcome.result, third.outcome.code) == ("none", "tie_none")
    assert ("C5", "丙") in [(f.rule, f.player) for f in third.flags]
    listed = run(game("000", day='dead = ["丙"]\nacolyte = "丙"'), T().post("甲", "08 10:00",
                 vote("弃权")))  # fmt: skip
    assert (listed.outcome.result, listed.outcome.code) == ("none", "no_votes")


def test_C3_more_than_half_of_the_trapped_still_in_at_the_close():
    """众志成城 counts the living 受困者 (seed 003): one out at noon is not among them, so 2 of
    the 3 left is more than half; the 2 get +1 each and 戊 has 4 of 7."""
    players = ["甲", "乙", "丙", "丁", "戊", "己"]
    day = 'trapped = ["甲", "乙", "丙", "丁"]\ndied = { "丁" = 2024-05-09T12:00:00 }'
    t = T().post("甲", "08 10:00", "投票对象：戊").post("乙", "08 10:00", "投票对象：戊")
    t.post("丙", "08 10:00", "投票对象：己").post("戊", "08 10:00", "投票对象：甲")
    t.post("己", "08 10:00", "投票对象：甲")
    result = run(game("M126", players=players, day=day), t)
    assert totals(result) == {"戊": "4", "甲": "2", "己": "1"}
    assert (result.outcome.code, result.outcome.player) == ("majority_of_all", "戊")


def test_V11_a_主管_out_before_the_vote_was_due_gets_no_card_flag():
    result = run(game("023", day='dead = ["甲"]\nbar_owner = "甲"'), T().post("乙", "08 10:00",
                 vote("丙")))  # fmt: skip
    assert [f for f in result.flags if f.rule == "V11"] == []


@pytest.mark.parametrize("death,carded", [("2024-05-08T12:00:00", False),
                                          ("2024-05-09T12:00:00", True)])  # fmt: skip
def test_V11_a_主管_who_dies_before_the_vote_is_due_is_not_carded_one_after_is(death, carded):
    """The vote is due 12 h after the 09:30 open (seed 002): out at noon of the first natural
    day, the 主管 had no vote to cast in time; out the next noon, they had."""
    day = f'bar_owner = "甲"\ndied = {{ "甲" = {death} }}'
    result = run(game("023", day=day), T().post("乙", "08 10:00", vote("丙")))
    assert any(f.note.endswith(": yellow card") for f in result.flags if f.rule == "V11") is carded


def test_V11_a_主管_who_changes_to_弃权_abstains_and_is_carded():
    """The 主管 may not abstain (seed 002): by a change to 弃权 no more than by a first vote."""
    t = T().post("甲", "08 10:00", vote("丙")).post("甲", "08 15:00", change("弃权"), quote=2)
    result = run(game("023", day='bar_owner = "甲"'), t)
    notes = [f.note for f in result.flags if f.rule == "V11"]
    assert "the 主管 may not abstain" in notes
    assert any(n.endswith(": yellow card") for n in notes)


def test_V11_L3_a_vote_that_lapsed_with_a_death_was_cast():
    """The 主管's vote for a player out at noon lapsed (V9): it was a valid vote, no card."""
    day = 'bar_owner = "甲"\ndied = { "丙" = 2024-05-09T12:00:00 }'
    result = run(game("023", day=day), T().post("甲", "08 10:00", vote("丙")))
    assert result.ballots[0].reason == "dead_target" and result.ballots[0].lapsed
    assert [f for f in result.flags if f.rule == "V11"] == []
    assert "甲" not in result.not_voted


# -- L3: a vote cast -----------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["245", "000"])
def test_L3_a_vote_that_lapsed_when_its_target_went_out_is_no_missed_vote(ruleset):
    """甲 voted for 丙, who went out at noon: the ballot lapsed (V9), but 甲 voted; no 未投票
    card, and 甲 is not listed among those who did not vote."""
    g = _game(ruleset, _day(2, "2024-05-08T09:00:00", "2024-05-09T21:00:00", "102", "202",
                            died={"丙": datetime(2024, 5, 9, 12)}))  # fmt: skip
    votes = T().post("甲", "08 10:00", vote("丙")).post("乙", "08 10:00", vote("丁"))
    votes.post("丁", "08 10:00", vote("乙"))
    vote_thread = _as(votes.thread(), "102", "09 22:00", title="投票帖")
    history = [DayThreads(g.day(2), _as(_talk("08").thread(), "202", "09 22:00"), vote_thread)]
    checked = check(g, history, 2)
    assert [(c.player, c.rule) for c in checked.cards if c.rule == "L3"] == []
    assert {p.player: p.voted for p in checked.players}["甲"] is True
    assert "甲" not in run(g, votes).not_voted


# -- V7: a fix of a wrong target -----------------------------------------------------------


@pytest.mark.parametrize(
    "ruleset,day,fix",
    [
        ("000", 'dead = ["丙"]', "comment"),  # seed 000: 修改…投票对象错误不算改票
        ("023", 'cannot_be_voted = ["丙"]', "quote"),
    ],
)
def test_V7_a_vote_for_one_who_cannot_be_voted_for_may_be_fixed(ruleset, day, fix):
    t = T().post("甲", "08 10:00", vote("丙"))
    if fix == "comment":
        t.comment(2, "甲", "08 10:05", change("丁"))
    else:
        t.post("甲", "08 10:05", change("丁"), quote=2)
    result = run(game(ruleset, day=day), t)
    assert [(b.target, b.status) for b in result.ballots] == [("丙", "void"), ("丁", "counted")]
    assert "fixes floor 2" in result.ballots[1].note
    assert "甲" not in result.not_voted


# -- C1: the 宣言 goes with the badge ------------------------------------------------------


def test_C1_the_sheriffs_独裁_is_carried_to_a_day_that_leaves_it_out():
    players = list("甲乙丙丁戊己庚辛壬癸子丑")  # 12 alive: 独裁 is 2
    g = _game(
        "245",
        _day(2, "2024-05-08T09:00:00", "2024-05-09T21:00:00", "102",
             sheriff="甲", sheriff_declaration="独裁"),
        _day(3, "2024-05-10T09:00:00", "2024-05-11T21:00:00", "103"),
        players=players,
    )  # fmt: skip
    day2 = T().post("甲", "08 10:00", vote("乙")).post("丙", "08 10:00", vote("丁"))
    day3 = T().post("甲", "10 10:00", vote("丙")).post("丙", "10 10:00", vote("丁"))
    chain = in_order(
        g, {2: _as(day2.thread(), "102", "09 22:00"), 3: _as(day3.thread(), "103", "11 22:00")}
    )
    third = chain.results[3]
    assert third.day.sheriff == "甲" and third.day.sheriff_declaration == "独裁"
    assert third.count.weights["甲"][0] == 2
    assert totals(third) == {"丙": "2", "丁": "1"}
    assert [(f.what, f.source, f.day) for f in third.facts if f.what == "declaration"] == [
        ("declaration", "derived", 2)
    ]


def test_C1_a_new_sheriff_chooses_anew():
    players = list("甲乙丙丁戊己庚辛壬癸子丑")
    g = _game(
        "245",
        _day(2, "2024-05-08T09:00:00", "2024-05-09T21:00:00", "102",
             sheriff="甲", sheriff_declaration="独裁"),
        _day(3, "2024-05-10T09:00:00", "2024-05-11T21:00:00", "103",
             sheriff="乙", sheriff_change="甲 passed the badge"),
        players=players,
    )  # fmt: skip
    day2 = T().post("丙", "08 10:00", vote("丁"))
    day3 = T().post("乙", "10 10:00", vote("丙"))
    chain = in_order(
        g, {2: _as(day2.thread(), "102", "09 22:00"), 3: _as(day3.thread(), "103", "11 22:00")}
    )
    assert chain.results[3].day.sheriff_declaration is None
    assert chain.results[3].count.weights["乙"][0] == 1


# -- L5 and L2: what the day's threads hold ------------------------------------------------


def test_L5_the_dead_posting_before_the_open_or_after_the_close_is_flagged():
    """The nights around the day: from the close of the day before to the open of the day
    after (before it, one out now may have been alive)."""
    g = _game("000", _day(1, "2024-05-06T09:30:00", "2024-05-07T21:30:00", "101"),
              _day(2, "2024-05-08T09:30:00", "2024-05-09T21:30:00", "102", "202",
                   dead=["丙"], sheriff="none"))  # fmt: skip
    talk = _talk("08", "甲乙丁")
    talk.post("丙", "09 21:45", "我是预言家，甲是狼").post("丙", "08 09:00", "早上好")
    talk.post("丙", "08 10:30", "抵制斯大林")  # seed 000's one post a natural day
    votes = T().post("甲", "08 10:00", vote("丁")).post("乙", "08 10:00", vote("丁"))
    day1 = T().post("甲", "06 10:00", vote("丙")).post("乙", "06 10:00", vote("丙"))
    history = [
        DayThreads(g.day(1), None, _as(day1.thread(), "101", "07 22:00", title="投票帖")),
        DayThreads(
            g.day(2),
            _as(talk.thread(), "202", "09 23:00"),
            _as(votes.thread(), "102", "09 23:00", title="投票帖"),
        ),
    ]
    notes = sorted(f.note for f in check(g, history, 2).flags if f.rule == "L5")
    assert notes == [
        "丙 posted while out (05-08 09:00, before the day opened): 诈尸",
        "丙 posted while out (05-09 21:45, after the close): 诈尸",
    ]


def test_L5_a_thread_shared_by_two_days_flags_no_post_made_while_alive():
    """One discussion thread for days 1 and 2 (only vote threads must be a day's own): 丙,
    voted out on day 1, posted on day 1 while alive; day 2's check flagged it 诈尸 (found
    in a cold read)."""
    g = _game(
        "000",
        _day(1, "2024-05-06T09:30:00", "2024-05-07T21:30:00", "101", "200"),
        _day(2, "2024-05-08T09:30:00", "2024-05-09T21:30:00", "102", "200",
             dead=["丙"], sheriff="none"),
    )
    talk = T()
    for p in "甲乙丙丁":
        for i in range(6):
            talk.post(p, f"06 1{i}:00", f"day 1 发言{i}")
    for p in "甲乙丁":
        for i in range(6):
            talk.post(p, f"08 1{i}:00", f"day 2 发言{i}")
    v1 = T()
    for p, q in (("甲", "丙"), ("乙", "丙"), ("丙", "甲"), ("丁", "丙")):
        v1.post(p, "06 10:00", vote(q))
    v2 = T()
    for p, q in (("甲", "乙"), ("乙", "甲"), ("丁", "乙")):
        v2.post(p, "08 10:00", vote(q))
    shared = _as(talk.thread(), "200", "09 23:00")
    history = [
        DayThreads(g.day(1), shared, _as(v1.thread(), "101", "07 22:00", title="投票帖")),
        DayThreads(g.day(2), shared, _as(v2.thread(), "102", "09 23:00", title="投票帖")),
    ]
    notes = [f.note for f in check(g, history, 2).flags if f.rule == "L5"]
    assert notes == []


def test_L5_a_dead_player_posting_in_a_days_own_thread_after_the_next_day_opened():
    """丙 is out; on day 3 they post in day 2's own discussion thread, which day 3 does not
    read: day 2's check flags it (a cold read found that a window ending at day 3's open
    left it to nobody)."""
    g = _game(
        "000",
        _day(2, "2024-05-08T09:30:00", "2024-05-09T21:30:00", "102", "202",
             dead=["丙"], sheriff="none"),
        _day(3, "2024-05-10T09:30:00", "2024-05-11T21:30:00", "103", "203",
             dead=["丙"], sheriff="none"),
    )  # fmt: skip
    talk2 = _talk("08", "甲乙丁").post("丙", "10 12:00", "我是预言家，甲是狼")
    v2 = T().post("甲", "08 10:00", vote("丁")).post("乙", "08 10:00", vote("甲"))
    v3 = T().post("甲", "10 10:00", vote("丁")).post("乙", "10 10:00", vote("丁"))
    history = [
        DayThreads(g.day(2), _as(talk2.thread(), "202", "11 23:00"),
                   _as(v2.thread(), "102", "09 23:00", title="投票帖")),
        DayThreads(g.day(3), _as(_talk("10", "甲乙丁").thread(), "203", "11 23:00"),
                   _as(v3.thread(), "103", "11 23:00", title="投票帖")),
    ]  # fmt: skip
    assert [f.note for f in check(g, history, 2).flags if f.rule == "L5"] == [
        "丙 posted while out (05-10 12:00, after the close): 诈尸"
    ]


def test_L2_a_day_without_a_discussion_thread_is_no_low_day():
    """Day 1 (the election) names no discussion thread: its posts are not known, so it is
    neither a low day of an L2 run nor a guess of 0; the check says so."""
    g = _game(
        "000",
        _day(1, "2024-05-06T09:30:00", "2024-05-07T21:30:00", "101"),
        _day(2, "2024-05-08T09:30:00", "2024-05-09T21:30:00", "102", "202"),
        _day(3, "2024-05-10T09:30:00", "2024-05-11T21:30:00", "103", "203"),
    )

    def votes(d: str, tid: str, read: str) -> Thread:
        t = T()
        for p, q in (("甲", "乙"), ("乙", "甲"), ("丙", "甲"), ("丁", "乙")):
            t.post(p, f"{d} 10:00", vote(q))
        return _as(t.thread(), tid, read, title="投票帖")

    history = [
        DayThreads(g.day(1), None, votes("06", "101", "07 22:00")),
        DayThreads(g.day(2), _as(_talk("08").thread(), "202", "09 22:00"),
                   votes("08", "102", "09 22:00")),
        DayThreads(g.day(3), _as(_talk("10").thread(), "203", "11 22:00"),
                   votes("10", "103", "11 22:00")),
    ]  # fmt: skip
    checked = check(g, history, 3)
    assert [c for c in checked.cards if c.rule == "L2"] == []
    assert [f.note for f in checked.flags if f.rule == "L2"] == [
        "day 1 names no discussion thread in the game file: its posts are not counted, and a "
        "run of low days (L2) passes over it"
    ]


# -- K2: red cards, not players ------------------------------------------------------------


def test_K2_two_red_cards_of_one_player_lose_the_camp_for_ruleset_245():
    """同一阵营的角色累计获得两张或以上红牌 (seed 001): cards; one who is out can be carded
    again (K3)."""
    red = Colour.RED
    cards, _ = add([], [Card(2, "甲", red, "L5", "诈尸", source="director"),
                        Card(3, "甲", red, "L5", "再次诈尸", source="director")])  # fmt: skip
    assert camps_lost(cards, {"甲": "狼人", "乙": "狼人"}) == {"狼人": ["甲"]}
    one, _ = add([], [Card(2, "甲", red, "L5", "诈尸", source="director")])
    assert camps_lost(one, {"甲": "狼人", "乙": "狼人"}) == {}


# -- what a page shows to the minute, and edits to another target ---------------------------


def _with_comment(t: T, floor: int, author: str, time: str, text: str, *, minute: bool) -> T:
    t.comment(floor, author, time, text)
    post = t.posts[floor - 1]
    last = dataclasses.replace(post.comments[-1], to_the_minute=minute)
    t.posts[floor - 1] = dataclasses.replace(post, comments=(*post.comments[:-1], last))
    return t


@pytest.mark.parametrize(
    "time,minute,expected",
    [
        ("09 21:30", True, ("void", "after_close")),  # shown 21:30: 21:30:00-21:30:59
        ("09 21:29", True, ("counted", None)),
        ("09 21:30", False, ("counted", None)),  # 21:30:00 to the second: on time
    ],
)
def test_V5_a_点评_shown_in_the_closing_minute_is_after_the_close_unless_ruled(
    time, minute, expected
):
    """M126 has no final hour: a change as a 点评 shown "21:30" with the close at 21:30:00
    was posted after it in 59 of its 60 seconds (found on the real X3.5: one 59 s late
    decided the day). Void, flagged, and a ruling may accept it."""
    t = T().post("甲", "08 10:00", "投票对象：乙").post("丙", "08 10:00", "投票对象：丁")
    _with_comment(t, 2, "甲", time, "改票对象：丁", minute=minute)
    result = run(game("M126"), t)
    change = next(b for b in result.ballots if b.comment)
    assert (change.status, change.reason) == expected
    flagged = [f for f in result.flags if f.rule == "closing minute"]
    assert bool(flagged) is (expected[0] == "void")
    if flagged:
        ruled = run(game("M126", extra='[[rulings]]\nday = 2\nfloor = 2\ncomment = 1\n'
                         'action = "accept"'), t)  # fmt: skip
        assert next(b for b in ruled.ballots if b.comment).status == "counted"


def test_V3_V4_an_edit_to_another_player_before_the_final_hour_is_flagged():
    """eve voted 甲, tally read it, then she edited it to 乙: an edit is no change (V3), so
    the one change (V4) would go unspent unseen; flagged with both texts (found on the real
    X3.5). A typo mended into a player's name is a fix (V7) and is not flagged."""
    from tally.model import Edit, History, Version

    def read_then_edited(first: str, now: str):
        before = T().post("乙", "08 10:00", vote(first))
        after = T().post("乙", "08 10:00", vote(now))
        edited = dataclasses.replace(after.posts[1], edited=Edit("乙", at("08 12:00")))
        history = History((Version(1, at("08 11:00"), tuple(before.posts)),))
        return dataclasses.replace(
            after.thread(), posts=(after.posts[0], edited), history=history,
            read_at=at("09 22:00"),
        )  # fmt: skip

    from tally.rules.counting.votes import tally_day

    result = tally_day(read_then_edited("甲", "丙"), game("000"), 2)
    assert result.ballots[0].target == "丙"  # counted as it reads now
    [flag] = [f for f in result.flags if f.rule == "edited"]
    assert flag.note.startswith("edited to another target (edit mark 05-08 12:00)")
    mended = tally_day(read_then_edited("甲甲", "甲"), game("000"), 2)
    assert [f for f in mended.flags if f.rule == "edited"] == []


def test_V5_an_edit_mark_in_the_first_minute_of_the_final_hour_is_in_it():
    """The close at 21:30:30: the final hour starts 20:30:30, and a mark "20:30" may be an
    edit at 20:30:45, inside it; one that changed the target is taken back (V5)."""
    from tally.model import Edit, History, Version
    from tally.rules.counting.votes import tally_day

    before = T().post("乙", "08 10:00", vote("甲"))
    after = T().post("乙", "08 10:00", vote("丙"))
    edited = dataclasses.replace(after.posts[1], edited=Edit("乙", at("09 20:30")))
    history = History((Version(1, at("09 20:00"), tuple(before.posts)),))
    thread = dataclasses.replace(after.thread(), posts=(after.posts[0], edited),
                                 history=history, read_at=at("09 22:00"))  # fmt: skip
    g = _game("000", _day(2, "2024-05-08T09:30:00", "2024-05-09T21:30:30", "102"))
    [ballot] = tally_day(thread, g, 2).ballots
    assert (ballot.target, ballot.status) == ("甲", "counted")


# -- who is who when the forum renames an account (found on the real X3.5) -----------------


def _by(t: T, floor: int, author: str, uid: str) -> T:
    t.posts[floor - 1] = dataclasses.replace(t.posts[floor - 1], author=author, author_id=uid)
    return t


def test_V7_a_target_written_as_the_name_a_renamed_players_account_shows_now():
    """carol's account (uid 4) was renamed carol_new: every post of it shows that name, so
    bob writes it; the game file knows carol by her id, and the ballot is for her."""
    players = [{"name": n, "id": i} for n, i in (("alice", 11), ("bob", 2), ("carol", 4))]
    g = _game("000", _day(2, "2024-05-08T09:30:00", "2024-05-09T21:30:00", "102"),
              players=players)  # fmt: skip
    t = T().post("carol_new", "08 10:00", vote("alice")).post("bob", "08 10:05", vote("carol_new"))
    _by(_by(t, 2, "carol_new", "4"), 3, "bob", "2")
    result = run(g, t)
    assert [(b.voter, b.target, b.status) for b in result.ballots] == [
        ("carol", "alice", "counted"),
        ("bob", "carol", "counted"),
    ]
    assert "the name carol's account shows now (renamed)" in result.ballots[1].note


def test_accounts_a_players_name_taken_by_another_account_is_flagged_without_ids():
    """No ids in the game file: carol's account (uid 4) was renamed, and a new account
    (uid 9) registered as carol votes. Counted as carol by the name, and said, with the uid
    tally read carol's posts from before."""
    from tally.model import History, Version
    from tally.rules.counting.votes import tally_day

    g = game("000", players=["alice", "bob", "carol"])
    before = _by(T().post("carol", "08 10:00", vote("alice")), 2, "carol", "4")
    now = T().post("carol_new", "08 10:00", vote("alice")).post("carol", "08 11:00", vote("bob"))
    _by(_by(now, 2, "carol_new", "4"), 3, "carol", "9")
    history = History((Version(1, at("08 10:30"), tuple(before.posts)),))
    thread = dataclasses.replace(now.thread(), history=history, read_at=at("09 22:00"))
    result = tally_day(thread, g, 2)
    notes = [f.note for f in result.flags if f.rule == "accounts"]
    assert any(n.startswith("carol posts from uid 9 now, and tally read carol's posts from "
                            "uid 4 before") for n in notes)  # fmt: skip


def test_L3_a_card_for_a_player_whose_only_ballot_was_屏蔽ed_names_the_floor():
    """A moderator 屏蔽ed 丁's ballot (floor 4): never counted, so 丁 did not vote; the card
    says why no vote is seen, as it does for a void ballot (found on the real X3.5)."""
    g = _game("000", _day(2, "2024-05-08T09:30:00", "2024-05-09T21:30:00", "102", "202"))
    votes = T().post("甲", "08 10:00", vote("乙")).post("乙", "08 10:00", vote("甲"))
    votes.post("丁", "08 10:00", vote("乙")).post("丙", "08 10:00", vote("甲"))
    votes.posts[3] = dataclasses.replace(votes.posts[3], hidden="moderated")
    history = [DayThreads(g.day(2), _as(_talk("08").thread(), "202", "09 22:00"),
                          _as(votes.thread(), "102", "09 22:00", title="投票帖"))]  # fmt: skip
    [card] = [c for c in check(g, history, 2).cards if c.rule == "L3"]
    assert (card.player, card.reason) == ("丁", "第2天未投票（投票帖4楼被屏蔽）")


def test_V7_a_target_that_is_the_exact_name_of_a_look_alike_account_is_flagged():
    """bob。 (uid 7) is another account than bob (uid 2): a ballot for "bob。" is counted
    for bob, as a name folded, and flagged, since the voter may mean the look-alike."""
    players = [{"name": n, "id": i} for n, i in (("alice", 11), ("bob", 2), ("carol", 4))]
    g = _game("000", _day(2, "2024-05-08T09:30:00", "2024-05-09T21:30:00", "102"),
              players=players)  # fmt: skip
    t = T().post("bob。", "08 09:40", "大家好").post("alice", "08 10:00", vote("bob。"))
    t.post("carol", "08 10:05", vote("bob"))
    _by(_by(_by(t, 2, "bob。", "7"), 3, "alice", "11"), 4, "carol", "4")
    result = run(g, t)
    assert [(b.voter, b.target, b.status) for b in result.ballots] == [
        ("alice", "bob", "counted"),
        ("carol", "bob", "counted"),
    ]
    [flag] = [f for f in result.flags if f.rule == "lookalike"]
    assert (flag.floor, flag.player) == (3, "alice")
    assert "reads as 'bob。', another account posting here (uid 7), no player" in flag.note


@pytest.mark.parametrize("between", ["乙", "乙乙"])  # out (dead_target), or no player
def test_V7_a_fix_answers_its_own_void_ballot_whatever_void_ballot_came_after(between):
    """floor 2 lacks its reason; floor 3 votes for one who is out (or no one); a 楼中楼 under
    floor 2 fixes it: the fix of floor 2 counts, keeping its time (found in a cold read: only
    the last void ballot could be fixed)."""
    t = T().post("甲", "08 10:00", "投票对象：丙").post("甲", "08 11:00", vote(between))
    t.comment(2, "甲", "08 12:00", change("丁"))
    result = run(game("000", day='dead = ["乙"]'), t)
    fix = next(b for b in result.ballots if b.comment)
    assert (fix.target, fix.status, fix.time) == ("丁", "counted", at("08 10:00"))
    assert "甲" not in result.not_voted


@pytest.mark.rules("V6")
def test_V6_a_banned_authors_comments_are_no_ballots_either():
    """Discuz! hides a banned author's floors (作者被禁止或删除 内容自动屏蔽) and still shows their
    点评: 戊's ballot 点评'd under the banned floor counted and shaped a tie (real X3.5)."""
    import dataclasses

    from .votekit import T, game, run, vote

    t = T().post("甲", "08 10:00", vote("丙")).post("戊", "08 10:05", vote("丙"))
    t.post("乙", "08 10:10", vote("甲")).comment(3, "戊", "08 11:00", vote("甲"))
    t.posts[2] = dataclasses.replace(t.posts[2], hidden="author_banned", text="")
    result = run(game(), t)
    assert [(b.voter, b.status) for b in result.ballots if b.voter == "戊"] == []
    banned = [r for r in result.remarks if r.author == "戊"]
    assert [(r.comment, r.status) for r in banned] == [(False, "banned"), (True, "banned")]


# -- what the forum took away after the close, on the post model (a fourth cold read) ---------


def _after_close(t, history_posts):  # type: ignore[no-untyped-def]
    from dataclasses import replace as swap

    from tally.model import History, Version

    from .votekit import at

    close_read = History((Version(1, at("09 21:35"), tuple(history_posts)),))
    return swap(t.thread(), history=close_read, read_at=at("09 23:00"))


@pytest.mark.rules("S2", "V6")
def test_S2_one_banned_after_the_close_keeps_the_comment_ballot_cast_before():
    """戊's 点评 ballot stood at the close; 戊 chats after it and is banned: the floors put
    back as they stood, the 点评 is 戊's ballot still (it was a banned row)."""
    from dataclasses import replace as swap

    from tally.rules.counting.votes import tally_day

    from .votekit import T, game, vote

    t = T().post("甲", "08 10:00", vote("丙")).post("戊", "08 10:05", "闲聊")
    t.post("乙", "08 10:10", vote("甲")).comment(4, "戊", "09 11:00", vote("甲"))
    before = tuple(t.posts)
    t.post("戊", "09 22:00", "闲聊")
    t.posts[2] = swap(t.posts[2], hidden="author_banned", text="")
    t.posts[4] = swap(t.posts[4], hidden="author_banned", text="")
    result = tally_day(_after_close(t, before), game(), 2)
    assert [(b.voter, b.target, b.status) for b in result.ballots if b.voter == "戊"] == [
        ("戊", "甲", "counted")]  # fmt: skip


@pytest.mark.rules("S2")
def test_S2_a_deleted_comments_flag_names_its_author_and_two_in_one_minute_keep_their_order():
    from dataclasses import replace as swap

    from tally.rules.counting.votes import tally_day
    from tally.rules.judging.standing import kept_from_the_close

    from .votekit import T, change, game, vote

    t = T().post("甲", "08 10:00", vote("丙")).post("乙", "08 10:10", vote("甲"))
    t.comment(3, "丙", "09 11:00", vote("乙"))
    before = tuple(t.posts)
    t.posts[2] = swap(t.posts[2], comments=())
    [flag] = [f for f in tally_day(_after_close(t, before), game(), 2).flags
              if f.rule == "deleted"]  # fmt: skip
    assert (flag.player, flag.post_id) == ("丙", "3.1")
    # Two 点评 shown in one minute (15:00), the first deleted: it comes back first, as 3.1.
    t = T().post("甲", "08 10:00", vote("丙")).post("丁", "08 10:10", vote("甲"))
    t.comment(3, "丁", "09 15:00", change("乙")).comment(3, "甲", "09 15:00", "你改得好")
    before = tuple(t.posts)
    chat = t.posts[2].comments[1]
    t.posts[2] = swap(t.posts[2], comments=(swap(chat, comment_id="3.1"),))
    g = game()
    kept, _ = kept_from_the_close(_after_close(t, before), g, g.days[0])
    assert [(c.comment_id, c.author) for c in kept.posts[2].comments] == [("3.1", "丁"),
                                                                          ("3.2", "甲")]  # fmt: skip


@pytest.mark.rules("S2")
def test_S2_approved_late_is_flagged_when_the_thread_grew_a_page_after_the_close():
    from dataclasses import replace as swap

    from tally.model import History, Version
    from tally.rules.counting.votes import tally_day

    from .votekit import T, at, game, vote

    t = T().post("甲", "08 10:00", vote("丙")).post("乙", "08 10:10", vote("甲"))
    first = tuple(t.posts)
    t.post("丙", "09 20:00", vote("甲"))  # held for 审核 at the read after the close
    t.post("丁", "09 22:00", "结票了")
    posts = tuple(swap(p, page=1 if p.floor <= 4 else 2) for p in t.posts)
    now = (Version(1, at("09 23:00"), posts[:4]), Version(2, at("09 23:00"), posts[4:]))
    history = History((Version(1, at("09 21:35"), first), *now))
    thread = swap(t.thread(), posts=posts, page_count=2, history=history, read_at=at("09 23:00"))
    assert "approved late" in [f.rule for f in tally_day(thread, game(), 2).flags]


@pytest.mark.rules("S2")
@pytest.mark.parametrize(
    ("posted", "flagged"),
    [("09 11:00", True),  # an hour older than the read that did not show it: it came in since
     ("09 11:58", False),  # posted while that read was under way, or a clock 2 min apart
     ("09 12:30", False)],  # posted after it: a reply like any other
)  # fmt: skip
def test_S2_a_ballot_that_came_in_after_a_read_before_the_close_is_flagged(posted, flagged):
    """From the watch's merge tests (a real X3.5: a merged thread's ballot lines put the wrong
    player out): a ballot dated before a read that did not show it came into the thread
    since, moved or merged in (移动, 合并) or approved (审核). The reads after it show it, and
    `tally votes` counted it without a word while `tally watch --post` stopped for it.
    Counted, and flagged, naming the read that did not show it."""
    from dataclasses import replace as swap

    from tally.model import History, Version
    from tally.rules.counting.votes import tally_day

    from .votekit import T, at, game, vote

    t = T().post("甲", "08 10:00", vote("丙")).post("乙", "08 10:10", vote("甲"))
    before = tuple(t.posts)
    t.post("丙", posted, vote("甲"))
    t.post("丁", "09 13:00", vote("甲"))
    posts = tuple(t.posts)
    history = History((Version(1, at("09 12:00"), before), Version(1, at("09 23:00"), posts)))
    thread = swap(t.thread(), posts=posts, history=history, read_at=at("09 23:00"))
    result = tally_day(thread, game(), 2)
    came = [f for f in result.flags if f.rule == "came in"]
    assert [(f.floor, f.player) for f in came] == ([(4, "丙")] if flagged else [])
    if flagged:
        assert f"floor 4 (丙, 05-{posted}) was not in the thread when tally read it 05-09 12:00" \
            in came[0].note
    assert {t.player: t.votes for t in result.totals}["甲"] == 3  # counted all the same


@pytest.mark.rules("S2")
def test_S2_a_read_begun_before_the_close_and_ended_after_it_is_one_read_for_came_in():
    """A read reads the last page it knew first, then the rest (a page the thread grew since
    among them): one begun a few seconds before the close ends after it. Taken apart at the
    close, its first page alone stood for the thread, and the floors of the page it read
    after the close, posted since the read before it, were flagged "came in" though that
    very read showed them."""
    from dataclasses import replace as swap

    from tally.model import History, Version
    from tally.rules.counting.votes import tally_day

    from .votekit import T, at, game, vote

    t = T().post("甲", "08 10:00", vote("丙")).post("乙", "08 10:10", vote("甲"))
    first = tuple(t.posts)
    t.post("丙", "09 21:00", vote("甲")).post("丁", "09 21:10", vote("甲"))
    posts = tuple(swap(p, page=2) if p.floor > 3 else p for p in t.posts)
    ours = (Version(1, at("09 21:29").replace(second=58), first, "b"),
            Version(2, at("09 21:30").replace(second=1), posts[3:], "b"))  # fmt: skip
    history = History((Version(1, at("09 20:00"), first, "a"), *ours))
    thread = swap(t.thread(), posts=posts, history=history, read_at=ours[-1].read_at)
    result = tally_day(thread, game(), 2)
    assert [f.note for f in result.flags if f.rule == "came in"] == []
    assert {t.player: t.votes for t in result.totals}["甲"] == 3


@pytest.mark.rules("S2")
def test_S2_a_read_the_history_keeps_cut_short_is_not_whole_for_came_in():
    """The cache lists a read's pages in order up to one it could not write (a full disk) or
    the one that filled the history (``ThreadCache.store_versions`` stops at the first
    "full"): the read kept ends before the thread's last page, which the read before it
    found. Taken for the whole thread, it flagged the floors posted since on the page it
    did not keep "came in"; the read after it shows them where they stood."""
    from dataclasses import replace as swap

    from tally.model import History, Version
    from tally.rules.counting.votes import tally_day

    from .votekit import T, at, game, vote

    t = T().post("甲", "08 10:00", vote("丙")).post("乙", "08 10:10", vote("甲"))
    t.post("丁", "09 19:00", vote("甲")).post("丙", "09 20:30", vote("甲"))
    posts = tuple(swap(p, page=2) if p.floor > 3 else p for p in t.posts)
    # 甲's reason mended at 20:10: page 1 as read at 21:00 is a content of its own.
    then = (posts[0], swap(posts[1], text=vote("丙", "理由，补充")), posts[2])
    posts = (*then, *posts[3:])
    history = History((Version(1, at("09 20:00"), tuple(t.posts[:3]), "a"),
                       Version(2, at("09 20:00"), posts[3:4], "a"),
                       Version(1, at("09 21:00"), then, "b"),  # its page 2 not kept
                       Version(1, at("09 21:40"), then, "c"), Version(2, at("09 21:40"), posts[3:], "c")))  # fmt: skip
    thread = swap(t.thread(), posts=posts, history=history, read_at=at("09 21:40"))
    result = tally_day(thread, game(), 2)
    assert [f.note for f in result.flags if f.rule == "came in"] == []
    assert {t.player: t.votes for t in result.totals}["甲"] == 3


@pytest.mark.rules("S2")
def test_S2_a_ballot_that_came_in_is_flagged_in_a_count_before_the_close():
    """A count made during the day (provisional, as `tally votes` and each poll of `tally
    watch` make) reads no version after the close: the flag was said only once a read after
    the close stood in the history, so the standings of the day counted a merged ballot
    without a word until then."""
    from dataclasses import replace as swap

    from tally.model import History, Version
    from tally.rules.counting.votes import tally_day

    from .votekit import T, at, game, vote

    t = T().post("甲", "08 10:00", vote("丙")).post("乙", "08 10:10", vote("甲"))
    before = tuple(t.posts)
    t.post("丙", "09 11:00", vote("甲"))
    posts = tuple(t.posts)
    history = History((Version(1, at("09 12:00"), before, "a"), Version(1, at("09 20:00"), posts, "b")))
    thread = swap(t.thread(), posts=posts, history=history, read_at=at("09 20:00"))
    result = tally_day(thread, game(), 2)
    assert [(f.floor, f.player) for f in result.flags if f.rule == "came in"] == [(4, "丙")]


@pytest.mark.rules("S2")
def test_S2_a_page_lost_from_a_read_across_the_close_could_show_a_ballot_that_came_in():
    """A read begun before the close whose page read after it was lost from the cache (its
    file damaged): the page could have shown the floors on it, as a lost page before the
    close could (``History.lost_could_show``), and is not said to have left them out."""
    from dataclasses import replace as swap

    from tally.model import History, Lost, Version
    from tally.rules.counting.votes import tally_day

    from .votekit import T, at, game, vote

    t = T().post("甲", "08 10:00", vote("丙")).post("乙", "08 10:10", vote("甲"))
    first = tuple(t.posts)
    t.post("丙", "09 21:00", vote("甲")).post("丁", "09 21:10", vote("甲"))
    posts = tuple(swap(p, page=2) if p.floor > 3 else p for p in t.posts)
    across = at("09 21:29").replace(second=58), at("09 21:30").replace(second=1)
    history = History((Version(1, at("09 20:00"), first, "a"), Version(1, across[0], first, "b"),
                       Version(1, at("09 21:40"), first, "c"), Version(2, at("09 21:40"), posts[3:], "c")),
                      lost=(Lost(2, across[1], "b"),))  # fmt: skip
    thread = swap(t.thread(), posts=posts, history=history, read_at=at("09 21:40"))
    result = tally_day(thread, game(), 2)
    assert [f.note for f in result.flags if f.rule == "came in"] == []


@pytest.mark.rules("S2")
def test_S2_a_ballot_that_came_in_is_flagged_after_deletes_took_the_threads_last_page():
    """Deletes can take a page from the thread (X3.5 numbers its floors by place): a read
    after them ends before a page a read before it found, as a read the history kept cut
    short does, but on a page that is not full, which only a thread's last page is. It
    shows the whole thread, and a ballot it did not show that came in since is flagged."""
    from dataclasses import replace as swap

    from tally.model import History, Version
    from tally.rules.counting.votes import tally_day

    from .votekit import T, at, game, vote

    t = T().post("甲", "08 10:00", vote("丙")).post("乙", "08 10:10", vote("甲"))
    t.post("丁", "09 11:00", vote("甲"))
    was = tuple(t.posts)
    came = swap(was[3], post_id="90", floor=3, author="丙", time=at("09 13:00"))
    posts = (was[0], was[1], came)  # 乙 and 丁 deleted theirs; 丙's merged in at 15:00
    history = History((Version(1, at("09 12:00"), was[:3], "a"), Version(2, at("09 12:00"), was[3:], "a"),
                       Version(1, at("09 14:00"), was[:2], "b"), Version(1, at("09 21:40"), posts, "c")))  # fmt: skip
    thread = swap(t.thread(), posts=posts, history=history, read_at=at("09 21:40"))
    result = tally_day(thread, game(), 2)
    assert [(f.floor, f.player) for f in result.flags if f.rule == "came in"] == [(3, "丙")]
    assert "tally read it 05-09 14:00" in next(f.note for f in result.flags if f.rule == "came in")


# -- found by a differential count (an independent counter from RULES.md and the seeds) ----


@pytest.mark.rules("V7", "C4")
def test_V7_C4_a_fix_of_a_failed_fix_keeps_the_time_of_the_first_ballot():
    """Seed 000: "修改投票格式或投票对象错误不算改票，且此类修改的投票时间算作修改前的发贴时间".
    Floor 2 has no reason line (10:00); its 点评 fix names two players (14:00, void); the
    second 点评 fixes it (15:00). The fix is floor 2's, at 10:00, so 乙 reached 1 before 丁
    (12:00) and is sheriff (C4: "最先获得投票数最多"); tally kept the failed fix's 14:00 and
    elected 丁."""
    t = T().post("甲", "08 10:00", "投票对象：乙").post("丙", "08 12:00", vote("丁"))
    t.comment(2, "甲", "08 14:00", change("乙、丁")).comment(2, "甲", "08 15:00", change("乙"))
    result = run(game("000", number=1), t, day=1)
    fix = [b for b in result.ballots if b.comment][1]
    assert (fix.target, fix.status, fix.time) == ("乙", "counted", at("08 10:00"))
    assert "fixes floor 2" in fix.note
    assert (result.outcome.result, result.outcome.player) == ("sheriff", "乙")


@pytest.mark.rules("C2", "V10")
@pytest.mark.parametrize("ban", ['cannot_be_voted = ["丁"]', 'bar_owner = "丁"'])
def test_C2_V10_one_who_cannot_be_voted_for_is_not_voted_out_by_the_slander_alone(ban):
    """Seed 002 on the 凶手's targets: "被选择的角色第二天失去投票权，且不会被投票出局"; on the
    主管: "不能成为投票对象". 丁 is slandered (C2, +2) and cannot be voted for (V10): the +2
    put 丁 out with no ballot for them. Without it 乙 and 丙 tie on 1, there is no sheriff,
    and 023's tie chain ends in nobody (C5)."""
    t = T().post("甲", "08 10:00", vote("乙")).post("乙", "08 11:00", vote("丙"))
    result = run(game("023", day=f'slandered = ["丁"]\n{ban}'), t)
    assert totals(result) == {"乙": "1", "丙": "1"}
    assert (result.outcome.result, result.outcome.code) == ("none", "tie_none")
    [flag] = [f for f in result.flags if f.rule == "C2"]
    assert flag.player == "丁" and "cannot be voted for" in flag.note
    # One who may be voted for keeps the +2 with no ballot (C2: "被投票数多计两票").
    plain = run(game("023", day='slandered = ["丁"]'), t)
    assert (plain.outcome.code, plain.outcome.player) == ("plurality", "丁")


@pytest.mark.rules("V3", "V4")
def test_V3_a_M126_change_may_be_a_comment_under_another_players_floor():
    """Seed 003 names no way to post a change ("投票完成后允许改票"; 【改票格式】改票对象：包子),
    and docs/rulesets.md says of M126 "any new post (回复, 引用, 点评 or the reply box)": 甲's
    change 点评'd under 乙's floor counts (it was void change_not_reply), and 丙 has 2 of 2
    (C6)."""
    t = T().post("甲", "08 10:00", "投票对象：乙").post("乙", "08 10:30", "投票对象：丙")
    t.comment(3, "甲", "08 11:00", "改票对象：丙")
    result = run(game("M126"), t)
    assert status_of(result, 3, comment=True) == ("counted", None)
    assert totals(result) == {"丙": "2"}
    assert (result.outcome.code, result.outcome.player) == ("majority_of_all", "丙")
    # Under one's own void first floor too: the last change is the one in force.
    t = T().post("甲", "08 10:00", "投票对象：某某").post("甲", "08 10:30", "改票对象：乙", reply=2)
    t.comment(2, "甲", "08 11:00", "改票对象：丙")
    assert totals(run(game("M126"), t)) == {"丙": "1"}


@pytest.mark.rules("V9", "V4", "V5")
@pytest.mark.parametrize("last", ["09 21:00", "09 16:00"])
def test_V9_the_one_more_change_is_kept_for_the_change_in_the_last_hour(last):
    """Seed 001: "如果投票的角色在正午就已出局，即使在禁止改票的时间内也可以进行一次改票"; RULES
    V9: "the voter may change once more, even inside the last hour". 甲 voted 乙, who went out
    at noon; 甲 changed at 14:00 and again at 21:00 (or 16:00). tally took both at 16:00 but
    spent the one more on the 14:00 change, so the 21:00 one was void in the final hour and
    nobody was out: the 14:00 change is the ordinary one (V4), the 21:00 one the one more."""
    g = game("245", day='died = { "乙" = 2024-05-09T12:00:00 }')
    t = T().post("甲", "08 10:00", vote("乙")).post("戊", "08 11:00", vote("丁"))
    t.post("甲", "09 14:00", change("丙"), reply=2).post("甲", last, change("丁"), reply=2)
    result = run(g, t)
    assert [b.status for b in result.ballots] == ["superseded", "counted", "superseded", "counted"]
    assert "one more change (V9)" in result.ballots[3].note
    assert (result.outcome.code, result.outcome.player) == ("plurality", "丁")
    # A third change has neither left (V4).
    t.post("甲", "09 17:00" if last == "09 16:00" else "09 21:10", change("戊"), reply=2)
    assert status_of(run(g, t), 6) == ("void", "second_change")


@pytest.mark.rules("V7", "V12")
def test_V7_V12_a_vote_for_one_who_may_not_be_elected_may_be_fixed():
    """Seed 002: "修改错别字不算做改票"; V12: only 嫌疑人 stand in the day-1 election. 甲 voted for
    乙, no 嫌疑人 (void not_electable), and fixed it by quoting it: the fix counts, as the fix
    of a vote for one out or no player does (it was void change_without_vote: no sheriff)."""
    g = game("023", number=1, extra='[roles]\n"甲" = "嫌疑人"\n"丙" = "嫌疑人"')
    t = T().post("甲", "08 10:00", vote("乙")).post("甲", "08 11:00", change("丙"), quote=2)
    result = run(g, t, day=1)
    assert [(b.status, b.reason) for b in result.ballots] == [
        ("void", "not_electable"), ("counted", None)
    ]  # fmt: skip
    assert "fixes floor 2" in result.ballots[1].note
    assert result.ballots[1].time == at("08 10:00")
    assert (result.outcome.result, result.outcome.player) == ("sheriff", "丙")
