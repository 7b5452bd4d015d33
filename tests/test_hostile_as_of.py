"""`--as-of` given what a keyboard can type, and a sentence with no uid to say (issue 49 p):
5,000 digits were a ValueError traceback, `٣` and `２` were read as floors 3 and 2, the
sentence about a moment before tally's first read gave that read in UTC and the moment in
the game's clock, and a look-alike of a director without an id was "uid None"."""

from __future__ import annotations

import json

import pytest

from tally.errors import InputError
from tally.rules.judging.as_of import as_of_given

from .discuzboard import Board
from .test_announcing_post import NOT_POSTED, after_close, announce, setup
from .test_reading_forum_changes import read_at
from .votekit import game


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("9" * 5000, "'99999999999999999999…' (5,000 characters) is no thread's floor"),
        ("12345678", "is no thread's floor: a floor number has at most 7 digits"),
        ("٣", "holds ٣, not a digit 0-9"),
        ("２", "holds ２, not a digit 0-9"),
        ("１２", "holds １、２, not a digit 0-9"),
        ("２０２６-12-01 20:30", "holds ０、２、６, not a digit 0-9"),
        ("20:３0", "holds ３, not a digit 0-9"),
        ("²", "holds ², not a digit 0-9"),
        ("9999-12-31 23:59", "is not a date of a forum game"),
        ("0001-01-01 00:00", "is not a date of a forum game"),
        ("-3", "is neither a floor number nor a time"),
    ],
)
def test_an_as_of_no_floor_or_time_is_one_sentence(given, says):
    g = game()
    with pytest.raises(InputError, match=r"^--as-of ") as caught:
        as_of_given(given, g, g.days[0])
    assert says in str(caught.value)
    assert len(str(caught.value)) < 200


def test_an_as_of_floor_and_times_in_ascii_are_read():
    g = game()
    day = g.days[0]
    assert as_of_given(" 3 ", g, day) == 3
    assert as_of_given("20:30", g, day).isoformat() == "2024-05-09T20:30:00+08:00"
    # An offset of its own is moved to the game's clock: every sentence names one clock.
    moved = as_of_given("2024-05-09 12:30+00:00", g, day)
    assert moved.isoformat() == "2024-05-09T20:30:00+08:00" and str(moved.tzinfo) == "Asia/Shanghai"


def test_a_mistyped_as_of_is_said_before_the_thread_is_read(forum, tmp_path):
    assert read_at(forum, tmp_path, "17:04:55", "vote-1-guest").exit_code == 0
    huge = read_at(forum, tmp_path, "17:20:00", "vote-1-guest", "--as-of", "9" * 5000)
    assert huge.exit_code == 2 and huge.exception is not None
    assert "Traceback" not in huge.output and "ValueError" not in huge.output
    assert "page(s)" not in huge.stderr  # no page read for it
    floor = read_at(forum, tmp_path, "17:20:00", "vote-1-guest", "--as-of", "٣")
    assert floor.exit_code == 2 and "not a digit 0-9" in floor.stderr


def test_a_moment_before_the_first_read_is_said_in_the_games_clock(forum, tmp_path):
    """tally's first read was 17:04:55 China time (09:04 UTC); the sentence said 09:04."""
    assert read_at(forum, tmp_path, "17:04:55", "vote-1-guest").exit_code == 0
    for given in ("2026-12-01 10:00", "2026-12-01 02:00+00:00"):
        early = read_at(forum, tmp_path, "17:20:00", "vote-1-guest", "--as-of", given)
        assert early.exit_code == 2
        assert "tally first read thread 1 12-01 17:04, after 12-01 10:00" in early.stderr
    later = read_at(forum, tmp_path, "17:20:00", "vote-1-guest", "--as-of", "2026-12-01 09:04:58Z")
    assert json.loads(later.stdout)["as_of"] == "2026-12-01T17:04:58+08:00"


def test_a_look_alike_of_a_director_without_an_id_is_no_uid_none(forum, tmp_path):
    """The game file names its director without an id; cookies of 导演A。, another account:
    the sentence said "the director 导演A is uid None"."""
    board = Board(forum)
    _, game_path, _ = setup(board, tmp_path)
    clock = after_close(board)
    look = board.cookies(board.member("导演A。", 66), tmp_path / "lookalike.txt")
    refused = announce(game_path, look, clock, "--yes")
    assert refused.exit_code == NOT_POSTED
    said = " ".join(refused.stderr.split())
    assert "None" not in said
    assert "(导演A。 is uid 66, not the director 导演A's)" in said
