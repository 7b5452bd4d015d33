"""`tally report` says what `tally votes` says of each day it counts besides the count (the
day's notices: replies the forum hid from the players, on a real Discuz! X3.5 thread with
回帖仅作者可见 read by its author), in the same sentences, once each, in both languages; and
the page says, under the day's result, that its count takes replies the players could not
see, in the page's Chinese; and what `tally votes` says of a day's acceleration requests
that disagree with the game file (S3), which the report's counts do not take.

The thread is tests/test_reading_forum_changes.py's (fixtures/discuz-x35-changes), served on
loopback HTTP: day 2 of five players, closing 2026-12-01 17:30, read at 17:40; the requests
are tests/test_counting_roles_and_requests.py's (a generated discussion thread).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tally.cli import app

from .conftest import Runner
from .test_counting_roles_and_requests import FIVE_EARLY, invoke, s3_game
from .test_gamefile_checks import day2_vote, game_text, serve, talk, write
from .test_gamefile_checks import invoke as late_invoke
from .test_i18n_rules import english_words
from .test_reading_forum_changes import at, env, game_file, page

# The report, its pictures drawn (docs/contributing.md: the slow tests).
pytestmark = pytest.mark.slow

runner = Runner()

HIDDEN = ("thread 2's replies are hidden from the players (回帖仅作者可见); these cookies read "
          "all 3 of them, and all are counted.")  # fmt: skip
ON_THE_PAGE = ("注意：投票帖设置了回帖仅作者可见，玩家在帖子里看不到这3条回帖；tally 读到了全部3条，"
               "都已计入。")  # fmt: skip


# A page of the fixtures: its thread, the close its game file gives, the clock it is read at.
HIDDEN_BY_AUTHOR = ("hidden-author", "2", "17:30:00", "17:40:00")
ALL_SHOWN = ("vote-1-guest", "1", "17:05:00", "17:10:00")


def _runs(forum, tmp_path: Path, read: tuple[str, str, str, str], language: str = "en"):  # type: ignore[no-untyped-def]
    """`tally votes` and `tally report` of day 2 as the page ``read`` shows it, each in its
    own cache: the runs and the page."""
    name, tid, closes, clock = read
    url = forum.url(f"forum.php?mod=viewthread&tid={tid}")
    forum.add_discuz_page(tid, 1, page(name))
    game = game_file(tmp_path, url, closes=closes)
    lang = {"TALLY_LANG": language}
    votes = runner.invoke(app, ["votes", url, "--game", game, "--cache-dir",
                                str(tmp_path / "votes")], obj=env(at(clock)), env=lang)  # fmt: skip
    out = tmp_path / "report.html"
    report = runner.invoke(app, ["report", "--game", game, "-o", str(out), "--cache-dir",
                                 str(tmp_path / "report")], obj=env(at(clock)), env=lang)  # fmt: skip
    assert votes.exit_code == 0, votes.output
    assert report.exit_code == 0, report.output
    return votes, report, out.read_text(encoding="utf-8")


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(("tally: warning:",
                                                                      "tally: 警告"))]  # fmt: skip


def _notes(page: str, day: int = 2) -> list[str]:
    day_section = page.split(f'<section id="day-{day}">')[1].split("</section>")[0]
    return re.findall(r'<p class="lost">(.*?)</p>', day_section)


def test_a_report_over_hidden_replies_says_them_as_votes_does_and_on_the_page(forum, tmp_path):
    """The replies hidden from the players, read and counted: `tally votes` says so; the
    report says the same sentence once, and under day 2's result that the players could not
    see the 3 replies it counts."""
    votes, report, html = _runs(forum, tmp_path, HIDDEN_BY_AUTHOR)
    assert _warnings(votes.stderr) == [f"tally: warning: {HIDDEN}"]
    assert _warnings(report.stderr) == _warnings(votes.stderr)
    assert _notes(html) == [ON_THE_PAGE]


def test_a_report_over_hidden_replies_says_them_in_chinese(forum, tmp_path):
    """In Chinese: the report's warning is `tally votes`'s, word for word, with no English."""
    votes, report, html = _runs(forum, tmp_path, HIDDEN_BY_AUTHOR, "zh")
    said = _warnings(report.stderr)
    assert said == _warnings(votes.stderr) and len(said) == 1
    assert "回帖仅作者可见" in said[0] and not english_words(said[0].removeprefix("tally: "))
    assert _notes(html) == [ON_THE_PAGE]


def test_a_report_over_replies_all_shown_says_nothing_votes_does_not(forum, tmp_path):
    """A thread whose replies the players see: neither run warns, the page has no note."""
    votes, report, html = _runs(forum, tmp_path, ALL_SHOWN)
    assert _warnings(votes.stderr) == _warnings(report.stderr) == []
    assert _notes(html) == []


@pytest.mark.rules("S3")
def test_a_report_says_acceleration_requests_that_disagree_with_the_game_file(forum, tmp_path):
    """Day 3 marked accelerated, five of eleven asked for 加速 in time under 245 (needs six):
    `tally votes` warns that the game file's mark is not what the requests make; the report
    of the same day says the same sentence, where it said nothing (it counts no requests), and
    under day 3's result that its count takes the game file's close, which they gainsay."""
    game, url = s3_game(forum, tmp_path, "245", [*FIVE_EARLY[:4], ("糖糖", "2024-05-09 19:00")],
                        accelerated=True)  # fmt: skip
    votes = invoke("2024-05-10 22:00", "votes", url, "--game", str(game))
    out = tmp_path / "report.html"
    report = invoke("2024-05-10 22:00", "report", "--game", str(game), "-o", str(out))
    assert votes.exit_code == 0, votes.output
    assert report.exit_code == 0, report.output
    assert _warnings(votes.stderr) == [
        "tally: warning: day 3 is marked accelerated = true, but only 5 of 11 living players "
        "asked for 加速 by 05-09 18:30 (needs 6); check the game file (S3)."
    ]
    assert _warnings(report.stderr) == _warnings(votes.stderr)
    assert _notes(out.read_text(encoding="utf-8"), 3) == [
        "注意：截至 05-09 18:30，11名存活玩家中有5名申请加速（需要6名）；游戏文件把这一天标为加速，和申请"
        "不符。这一天按游戏文件的关门时间计票，结果可能因此不同。"
    ]


def _late_game(forum, tmp_path: Path, days: int) -> tuple[Path, str]:
    """tests/test_gamefile_checks.py's game to day ``days``, day 2's close typed 11-25 15:30
    (its discussion thread says so too): 4 of its 10 ballots come after it. The game file, and
day 2's vote thread."""
    urls = serve(forum, day2_vote(close=""))
    urls["talk2"] = talk("712", 2, "2024-11-25 09:30", "11月25日 15:30").serve(forum)
    text = game_text(urls).replace("closes = 2024-11-26T21:30:00", "closes = 2024-11-25T15:30:00")
    blocks = text.split("[[days]]")
    return write(tmp_path, "[[days]]".join(blocks[: days + 1])), urls["vote2"]


@pytest.mark.rules("S2")
def test_a_report_with_late_ok_draws_a_last_day_of_late_ballots_as_votes_counts_it(forum, tmp_path):
    """Day 2, the last whose posts the report counts, has late ballots: without --late-ok
    the report stops with `tally votes`'s sentence; with it, it draws the day as `votes
    --late-ok` counts it, where the posts' count stopped and told the director to pass the
    --late-ok given."""
    game, vote = _late_game(forum, tmp_path, 2)
    out = tmp_path / "report.html"
    refused = late_invoke("report", "--game", str(game), "-o", str(out))
    votes = late_invoke("votes", vote, "--game", str(game))
    assert refused.exit_code == votes.exit_code == 2
    assert refused.stderr.splitlines()[-1] == votes.stderr.splitlines()[-1]
    assert "pass --late-ok" in refused.stderr and not out.exists()
    votes = late_invoke("votes", vote, "--game", str(game), "--late-ok")
    report = late_invoke("report", "--game", str(game), "-o", str(out), "--late-ok")
    assert report.exit_code == 0, report.output
    assert _warnings(report.stderr) == _warnings(votes.stderr) == []
    assert '<section id="day-2">' in out.read_text(encoding="utf-8")

