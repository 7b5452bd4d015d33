"""The close line a director writes (issue 34): a weekday in any bracket, a date with or
without its year, seconds; each read, and held against the game file at the precision it
says (S2)."""

from __future__ import annotations

from datetime import datetime

import pytest

from tally.commands.votes import vote_day
from tally.errors import InputError
from tally.rules.counting.announced import announced_closes
from tally.rules.game.gamefile import load_game

from .conftest import CHINA
from .test_gamefile_checks import day2_vote, game_text, invoke, library, one_sentence, serve, write

WRITTEN = datetime(2026, 12, 1, 9, 30, tzinfo=CHINA)


@pytest.mark.rules("S2")
@pytest.mark.parametrize(
    ("line", "meant"),
    [
        ("投票截止：12月5日（周六）21:30", "2026-12-05 21:30"),
        ("投票截止：12月5日(周六)21:30", "2026-12-05 21:30"),
        ("投票截止：12月5日 (星期六) 21:30", "2026-12-05 21:30"),
        ("投票截止：12月5日【礼拜六】21:30", "2026-12-05 21:30"),
        ("投票截止：12月5日[周六] 21:30", "2026-12-05 21:30"),
        ("投票截止：12月6日〔星期日〕21:30", "2026-12-06 21:30"),
        ("投票截止：12月6日（星期天）晚上9点半", "2026-12-06 21:30"),
        ("投票截止：12月5日 周六 21:30", "2026-12-05 21:30"),
        ("投票截止：2026年12月5日（周六）21:30", "2026-12-05 21:30"),
        ("投票截止：2026-12-05（周六）21:30", "2026-12-05 21:30"),
        ("关门：12/5（禮拜六）21：30", "2026-12-05 21:30"),
        ("投票截止：12月1日 16:13:54", "2026-12-01 16:13:54"),
        ("投票截止：12月1日 16点13分54秒", "2026-12-01 16:13:54"),
        ("投票截止：12月1日（周二）16:13:54", "2026-12-01 16:13:54"),
    ],
)
def test_a_close_line_is_read_with_its_weekday_and_seconds(line, meant):
    [close] = announced_closes(line, WRITTEN, CHINA)
    assert close.at == datetime.fromisoformat(meant).replace(tzinfo=CHINA)
    assert close.seconds == (meant.count(":") == 2)


def test_a_close_in_a_year_no_game_has_is_no_close():
    assert announced_closes("投票截止：9999年12月31日 23:59", WRITTEN, CHINA) == ()
    assert announced_closes("投票截止：0001年1月1日 00:00", WRITTEN, CHINA) == ()


@pytest.mark.rules("S2")
@pytest.mark.parametrize("bracketed", ["（周二）", "(星期二)", "【礼拜二】", " 周二 "])
def test_a_close_with_a_weekday_is_held_against_the_game_file(forum, tmp_path, bracketed):
    """关门：11月26日（周二）21:30 says the close as plainly as the same line without the
    weekday: a game file typed 20:30 stops the count."""
    urls = serve(forum, day2_vote(close=f"关门：11月26日{bracketed}21:30"))
    wrong = game_text(urls).replace("closes = 2024-11-26T21:30:00", "closes = 2024-11-26T20:30:00")
    # Only the vote thread says the close: day 2's discussion thread is left out.
    wrong = wrong.replace(f'discussion = "{urls["talk2"]}"\n', "")
    game = write(tmp_path, wrong)
    with pytest.raises(InputError, match="says the close is 11-26 21:30"), library() as reader:
        vote_day(load_game(game), [urls["vote2"]], reader=reader)


@pytest.mark.rules("S2")
def test_a_close_with_seconds_is_compared_to_the_second(forum, tmp_path):
    urls = serve(forum, day2_vote(close="投票截止：11月26日 21:30:54"))
    same = game_text(urls).replace("closes = 2024-11-26T21:30:00", "closes = 2024-11-26T21:30:54")
    assert invoke("votes", urls["vote2"], "--game", str(write(tmp_path, same))).exit_code == 0
    said = one_sentence(
        invoke("votes", urls["vote2"], "--game", str(write(tmp_path, game_text(urls))))
    )
    assert said.startswith(
        "tally: the first post of thread 803 says the close is 11-26 21:30:54 (“投票截止：11月26日 "
        "21:30:54”), and "
    )
    assert said.endswith("says day 2 closes 11-26 21:30:00: fix closes, or say why they differ "
                         'with close_changed = "…" under day 2')  # fmt: skip


@pytest.mark.rules("S2")
def test_a_close_to_the_minute_is_compared_to_the_minute(forum, tmp_path):
    """投票截止：12月1日 16:13 and a game file that says 16:13:54 say the same minute."""
    urls = serve(forum)
    text = game_text(urls).replace("closes = 2024-11-26T21:30:00", "closes = 2024-11-26T21:30:54")
    assert invoke("votes", urls["vote2"], "--game", str(write(tmp_path, text))).exit_code == 0
    text = game_text(urls).replace("closes = 2024-11-26T21:30:00", "closes = 2024-11-26T21:31:00")
    said = one_sentence(invoke("votes", urls["vote2"], "--game", str(write(tmp_path, text))))
    assert "says the close is 11-26 21:30 (" in said and "closes 11-26 21:31: fix" in said
