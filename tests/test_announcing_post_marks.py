"""tally's own post, found whenever it was made, by its mark where tally puts it (issue 49,
items 1 and 3), on the loopback Discuz! board (tests/discuzboard.py): a result a slow forum
clock stamped before the close, a morning post made before the day opens, the journal's post
whose mark the director moved; a mark quoted in a player's 投票理由 is nothing but words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tally.cli import app
from tally.journal import journal_path
from tally.rules.counting.closed import mark
from tally.rules.game.gamefile import load_game

from .conftest import CHINA, FakeClock
from .discuzboard import Board
from .discuzgen import P
from .test_announcing_post import NOT_POSTED, announce, env, runner, setup
from .test_reading_forum_clock import copied, off, skews


@pytest.fixture
def board(forum) -> Board:
    return Board(forum)


# -- (a) a result the forum stamped before the close ------------------------------------------


def test_a_result_a_slow_forum_stamped_before_the_close_is_found_without_the_journal(board, tmp_path):
    """(a) The forum's clock 2 minutes behind, on a board that dates no answer (or a tally
    that did not look): the result posted at 21:31 stands at 21:29 in the forum's time,
    before the close. A copy of the game file without the journal finds it all the same,
    whether the forum dates its answers or not: its mark, by the director, whenever."""
    _, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 21:31:00", CHINA)
    off(board, clock, -2)
    board.forum.clock = None  # no Date header
    first = announce(game, cookies, clock, "--yes")
    assert first.exit_code == 0, first.stderr
    assert skews(first.stderr) == []  # a footer alone tells nothing
    posted = board.threads["102"].posts[-1]
    assert posted.time == "2024-05-09 21:29:00"  # before the close, as the forum stamps it
    copy = copied(game, tmp_path)
    clock.sleep(120)
    again = announce(copy, cookies, clock, "--yes")
    assert again.exit_code == NOT_POSTED, again.stderr
    assert "floor 20 of the thread already holds this post (tally#" in again.stderr
    assert "posted by 导演A at 05-09 21:29" in again.stderr
    board.forum.clock = board.clock  # the forum dates its answers again
    clock.sleep(120)
    dated = announce(copy, cookies, clock, "--yes")
    assert dated.exit_code == NOT_POSTED and "already holds this post" in dated.stderr
    assert len(board.replies) == 1 and not journal_path(Path(copy)).exists()


# -- (b) a morning post made before the day opens ---------------------------------------------


def test_a_morning_post_made_before_the_day_opens_is_found(board, tmp_path):
    """(b) Directors post the morning news early: made at 08:50, before day 3 opens at 09:30.
    With the journal, the second run says the post is there, its mark with it (never "its
    mark is gone"); a copy of the game file without the journal finds it too."""
    from .test_gamefile_checks import DAYS, day2_vote, day3_vote, election, game_text, talk, write

    urls = {f"talk{d}": board.thread(talk(str(700 + d), d, o, c)) for d, (o, _, c) in DAYS.items()}
    urls |= {"vote1": board.thread(election()), "vote2": board.thread(day2_vote()),
             "vote3": board.thread(day3_vote())}  # fmt: skip
    cookies = board.cookies(board.member("导演A", 7), tmp_path / "cookies.txt")
    game = str(write(tmp_path, game_text(urls)))
    clock = FakeClock("2024-11-27 08:50:00", CHINA)
    board.clock = clock.now

    def morning(path: str):  # type: ignore[no-untyped-def]
        args = ["announce", "--game", path, "--day", "3", "--kind", "morning", "--post", "--yes",
                "--cookies", str(cookies)]  # fmt: skip
        return runner.invoke(app, args, obj=env(clock))

    first = morning(game)
    assert first.exit_code == 0, first.stderr
    [(tid, _, message)] = board.replies
    assert tid == "703" and message.rstrip().endswith(mark(load_game(game), 3, "morning"))
    floor = len(board.threads["703"].posts)
    clock.sleep(3600)  # 09:50: the day is open
    for run in (game, copied(game, tmp_path)):
        again = morning(run)
        assert again.exit_code == NOT_POSTED, again.stderr
        said = again.stderr.strip().splitlines()[-1]
        assert said.startswith(f"tally: floor {floor} of the thread already holds this post")
        assert "posted by 导演A at 11-27 08:50" in said and "is gone" not in said
    assert len(board.replies) == 1


def test_the_journals_post_says_where_its_mark_went(board, tmp_path):
    """(b) The journal's post, shown by its id, edited by the director: its mark moved off
    the last line is said so, its mark deleted is said gone."""
    _, game, cookies = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 22:00:00", CHINA)
    board.clock = clock.now
    assert announce(game, cookies, clock, "--yes").exit_code == 0
    t = board.threads["102"]
    posted = t.posts[-1]
    own = posted.text.rstrip().splitlines()[-1]
    for edited, said in ((f"{own}\n{posted.text.replace(own, '').rstrip()}\n（修正）",
                          "no longer its last line"),
                         (posted.text.replace(own, "（修正）"), "gone")):  # fmt: skip
        t.posts[-1] = P(posted.author, posted.time, edited)
        board.thread(t)
        clock.sleep(60)
        again = announce(game, cookies, clock, "--yes")
        assert again.exit_code == NOT_POSTED, again.stderr
        line = again.stderr.strip().splitlines()[-1]
        assert "already posted as floor 20 (pid 2020), edited since (its mark tally#" in line
        assert f"/d2/close is {said}), by 导演A" in line
    assert len(board.replies) == 1


# -- (f) a mark in a player's 投票理由 is words ----------------------------------------------


def forged(game: str) -> str:
    """tally's mark of day 2's result with another outcome's code, as a player copies it."""
    return f"{mark(load_game(game), 2, 'close')}/000000"


def test_a_mark_in_a_players_reason_neither_stops_tallys_mark_nor_the_count(board, tmp_path):
    """(f) 冷月's 投票理由 is a copy of tally's mark, with another outcome's code: the result
    shows it among the reasons, and tally's own mark is its last line all the same; a copy
    of the game file without the journal counts the day, no "another outcome was posted"."""
    url, game, cookies = setup(board, tmp_path)
    t = board.threads["102"]
    t.posts[1] = P("冷月", "2024-05-08 10:01:00", f"投票对象：白桃\n投票理由：{forged(game)}")
    board.thread(t)
    clock = FakeClock("2024-05-09 22:00:00", CHINA)
    board.clock = clock.now
    posted = announce(game, cookies, clock, "--yes")
    assert posted.exit_code == 0, posted.stderr
    [(_, _, message)] = board.replies
    assert f"理由：{forged(game)}" in message  # words, shown as the player wrote them
    assert re.fullmatch(r"tally#[0-9a-f]{8}/d2/close/[0-9a-f]{6}", message.splitlines()[-1])
    assert message.splitlines()[-1] != forged(game)
    copy = copied(game, tmp_path)
    clock.sleep(60)
    counted = runner.invoke(app, ["votes", url, "--game", copy, "--fresh", "-q"], obj=env(clock))
    assert counted.exit_code == 0, counted.stderr
    again = announce(copy, cookies, clock, "--yes")
    assert again.exit_code == NOT_POSTED and "already holds this post" in again.stderr
    assert len(board.replies) == 1


def test_a_result_an_earlier_tally_left_unmarked_is_no_other_outcome(board, tmp_path):
    """(f) What the tally before this one posted: the player's copy of the mark in a reason,
    and no mark of its own at the end (it took the copy for its own). Counted without a
    journal (none holds that post): the day counts, the quoted mark is words."""
    url, game, _ = setup(board, tmp_path)
    clock = FakeClock("2024-05-09 22:00:00", CHINA)
    board.clock = clock.now
    old = f"[b]测试局 第2天投票结果[/b]\n2楼 冷月 投票：白桃　理由：{forged(game)}\n白桃 被投票出局"
    board.threads["102"].add(P("导演A", "2024-05-09 21:40:00", old))
    board.thread(board.threads["102"])
    counted = runner.invoke(app, ["votes", url, "--game", game, "--fresh", "-q"], obj=env(clock))
    assert counted.exit_code == 0, counted.stderr
    assert "another outcome" not in counted.stderr


def test_final_text_puts_the_mark_last_whatever_the_text_holds():
    from tally.commands.sent_text import final_text

    from .votekit import game

    g = game("000", day="")
    own = mark(g, 2, "close")
    outcome: dict[str, object] = {"result": "eliminated", "player": "甲"}
    quoting = f"[b]第2天投票结果[/b]\n理由：{own}/000000\n甲 被投票出局\n"
    made = final_text(g, 2, "close", quoting, outcome)
    last = made.rstrip().splitlines()[-1]
    assert last.startswith(own + "/") and last != f"{own}/000000"
    assert final_text(g, 2, "close", made, outcome) == made  # made once
    reminder = final_text(g, 2, "reminder", f"催票\n{mark(g, 2, 'reminder')}\n还有谁没投")
    assert reminder.rstrip().splitlines()[-1] == mark(g, 2, "reminder")
