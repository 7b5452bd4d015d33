"""The director's posts and tally's own are never ballots (RULES V8, issue 48): tally's 催票
("法官代投时限：…") and its result (代投超时, 代投对象不是玩家 under 废票) once read as proxy
ballots and posted as 废票 rows; a director's post is a ballot only in the proxy's form."""

from __future__ import annotations

import dataclasses
import re

import pytest

from tally.commands.sent_text import final_text
from tally.outputs.written.announce import closing_post, reminder_context, render
from tally.rules.counting.votes import tally_day
from tally.rules.judging.ballot_text import read_ballot
from tally.rules.judging.own import marked, tallys_own
from tally.vocabulary import Announcement, Markup

from .votekit import T, game, rows, run, vote

RULESETS = ("000", "245", "023", "M126")
_TAGS = re.compile(r"\[/?(?:b|i|u|url|color|size|quote|s)(?:=[^\]]*)?\]")


def shown(text: str, markup: Markup) -> str:
    """A post as the forum shows it, the words read off its page: BBCode's tags gone."""
    return _TAGS.sub("", text) if markup is Markup.BBCODE else text


BASE = (
    ("甲", "08 10:00", vote("乙")),
    ("乙", "08 11:00", vote("甲")),
    ("丁", "08 12:00", "同意楼上"),
    ("导演", "09 18:00", "代投：丙\n" + vote("乙", "丙委托")),
    ("导演", "09 21:10", "代投：戊\n" + vote("甲", "戊委托")),
    ("导演", "09 21:12", "代投：路人\n" + vote("甲", "委托")),
    ("丁", "09 21:50", "晚安"),
)


def thread(*extra: tuple[str, str, str]) -> T:
    """Day 2 of votekit's game: two votes, a chat post, a proxy ballot, one past its deadline
    (000, 023: due 21:00; 245: 20:30) and one for nobody, so that the result says 代投; and
    ``extra`` posts, each at its time among them."""
    t = T()
    for author, time, text in sorted((*BASE, *extra), key=lambda p: p[1]):
        t.post(author, time, text)
    return t


def floors_of(t: T, *times: str) -> set[int]:
    return {p.floor for p in t.posts if p.time.strftime("%d %H:%M") in times}


@pytest.mark.rules("V8")
@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("markup", list(Markup))
@pytest.mark.parametrize("with_mark", [True, False], ids=["posted", "pasted"])
def test_tallys_reminder_and_result_are_never_ballots(ruleset, markup, with_mark):
    """The texts tally itself renders, posted (with its mark, as --post sends them) or
    pasted by hand (no mark): the count with them in the thread is the count without."""
    g = game(ruleset)
    before = run(g, thread())
    # The 催票 made at 20:00 from the count then, as `watch --remind-at 90` makes it.
    early = T()
    early.posts = thread().posts[:5]
    reminder = render(Announcement.REMINDER, markup, reminder_context(tally_day(early.thread(), g, 2), g))
    assert "代投" in reminder or ruleset == "M126"  # the line once read as a proxy ballot
    result = closing_post(before, g, markup)
    assert "代投" in result  # 代投超时 / 代投对象不是玩家 among the 废票
    if with_mark:
        reminder = final_text(g, 2, Announcement.REMINDER, reminder)
        said = {"result": before.outcome.result, "player": before.outcome.player}
        result = final_text(g, 2, Announcement.CLOSE, result, said)
    posted = (("导演", "09 20:00", shown(reminder, markup)), ("导演", "09 21:31", shown(result, markup)))
    t = thread(*posted)
    after = run(g, t)
    own = floors_of(t, "09 20:00", "09 21:31")
    assert len(own) == 2
    assert not [b for b in after.ballots if b.floor in own]
    assert not [r for r in after.remarks if r.floor in own]
    assert not [f for f in after.flags if f.floor in own]
    moved = {b.floor: a.floor for b, a in zip(thread().posts, [p for p in t.posts if p.floor not in own], strict=True)}
    assert [(moved[b[0]], *b[1:]) for b in rows(before)] == rows(after)
    assert [(moved[r.floor], r.status, r.words) for r in before.remarks] == [
        (r.floor, r.status, r.words) for r in after.remarks]
    assert after.outcome == before.outcome
    # The result posted again, the first one in the thread: the same count once more.
    again = closing_post(after, g, markup)
    t2 = thread(*posted, ("导演", "09 21:40", shown(again, markup)))
    assert rows(run(g, t2)) == rows(after)


@pytest.mark.rules("V8")
@pytest.mark.parametrize(
    "line",
    ["法官代投时限：关门前30分钟（05-09 21:00）。", "法官代投截止于关门（05-09 21:30）。",
     "导演代投时限是关门前半小时", "代投请私聊导演", "代投对象：南瓜", "14楼 南瓜：代投超时", "代投对象不是玩家"],
)  # fmt: skip
def test_the_word_daitou_is_no_proxy_line(line):
    """A proxy line is a label that says whom the ballot is for; the word alone names
    nobody (the 催票's deadline line was read as 代投 for "时限：关门前30分钟…"); 代投对象 could
    name the target as well as the player: no proxy line either."""
    assert read_ballot(f"{line}\n投票对象：甲\n投票理由：x").proxy_for is None


@pytest.mark.rules("V8")
@pytest.mark.parametrize(
    "line,player",
    [("代投：南瓜", "南瓜"), ("代投:南瓜", "南瓜"), ("【代投】南瓜", "南瓜"), ("[代投]：南瓜", "南瓜"),
     ("导演代投：南瓜", "南瓜"), ("法官代投 ：南瓜", "南瓜")],
)  # fmt: skip
def test_a_proxy_line_in_its_forms(line, player):
    assert read_ballot(f"{line}\n投票对象：甲\n投票理由：x").proxy_for == player


@pytest.mark.rules("V8")
def test_a_directors_ballot_that_names_nobody_is_flagged_not_counted():
    """A director's post with a ballot for a player and no 代投 line (a typo in it, or no
    line at all): no ballot, no 废票 row, and a flag that says so."""
    t = (T().post("甲", "08 10:00", vote("乙"))
         .post("导演", "08 11:00", "代投 丙\n" + vote("甲", "丙委托"))
         .post("导演", "08 12:00", "投票格式：\n投票对象：某某\n投票理由：……"))  # fmt: skip
    result = run(game(), t)
    assert [b.floor for b in result.ballots] == [2]
    assert not [r for r in result.remarks if r.floor in (3, 4)]
    [flag] = [f for f in result.flags if f.rule == "proxy"]
    assert flag.floor == 3 and "reads as a ballot for 甲" in flag.note and "代投：NAME" in flag.note


def test_a_mark_is_tallys_only_on_the_last_line_of_a_directors_post():
    g = game()
    mark = final_text(g, 2, Announcement.CLOSE, "结果", {"result": "none"}).splitlines()[-1]
    assert marked(f"结果\n\n{mark}\n", g)
    assert not marked(f"{mark}\n投票对象：甲", g)  # quoted mid-post: words
    assert not marked(f"结果\n{mark.replace(mark[6:14], '0' * 8)}", g)  # another game's
    t = T().post("甲", "08 10:00", f"投票对象：乙\n投票理由：x\n{mark}").post("导演", "08 11:00", f"x\n{mark}")
    cast = g.cast()
    assert [tallys_own(p, g, cast) for p in t.posts[1:]] == [False, True]
    journal = dataclasses.replace(g, own_posts=frozenset({"2"}))
    assert tallys_own(t.posts[1], journal, journal.cast())  # the journal's pid: tally's, whoever


@pytest.mark.rules("V8")
def test_the_watchs_reminder_and_result_on_the_board_are_no_rows(forum, tmp_path):
    """`watch --remind-at --post` on the loopback Discuz! board: its 催票 (法官代投时限：…) and
    its result (代投 among the 废票) are in the thread; every later count is the count before
    them, with the journal beside the game file and without it (the marks alone)."""
    import json

    from tally.cli import app

    from .conftest import CHINA, FakeClock
    from .discuzboard import Board
    from .test_announcing_post import env, runner, setup, watch

    board = Board(forum)
    url, game, cookies = setup(board, tmp_path)
    clock, later = FakeClock("2024-05-09 20:20:00", CHINA), FakeClock("2024-05-09 22:00:00", CHINA)
    board.clock = later.now  # the forum's clock is the run's (its answers say its time)
    before = runner.invoke(app, ["votes", url, "--game", game, "--json", "-q"], obj=env(later))
    board.clock = clock.now
    result = watch(url, game, cookies, clock, "--remind-at", "60", "--post")
    assert result.exit_code == 0, result.stderr
    reminder, close = (m for _, _, m in board.replies)
    assert "法官代投时限" in reminder and "代投" in close, close
    board.clock = later.now

    def counted() -> dict[str, object]:
        again = runner.invoke(app, ["votes", url, "--game", game, "--json", "-q", "--fresh"],
                              obj=env(later))
        assert again.exit_code == 0, again.stderr
        data = json.loads(again.stdout)
        return {k: data[k] for k in ("ballots", "totals", "not_voted", "outcome")}

    expected = {k: json.loads(before.stdout)[k] for k in ("ballots", "totals", "not_voted", "outcome")}
    assert counted() == expected
    journal = next(tmp_path.glob("*.posts.jsonl"))
    journal.rename(tmp_path / "elsewhere.jsonl")  # a co-director's copy of the game file
    assert counted() == expected


@pytest.mark.rules("V8")
def test_a_proxy_for_nobody_is_a_proxy_ballot_void():
    """A director's 代投 line naming no player: a proxy ballot (kind proxy), void as
    代投对象不是玩家, never read as the director's own vote (the real X3.5 replay)."""
    t = T().post("甲", "08 10:00", vote("乙")).post("导演", "08 11:00", "代投：路人甲\n" + vote("乙"))
    b = next(b for b in run(game(), t).ballots if b.floor == 3)
    assert (b.kind, b.voter, b.status, b.reason) == ("proxy", None, "void", "unknown_voter")
