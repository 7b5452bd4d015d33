"""The comments of a day stay in that day's block when `tally day add` appends the next
(issue 48): tomlkit hands the comments under a table's last key to that table, so the
placeholders day add wrote under day 2 went into day 3's block when day 3 was appended.

The game is test_day_add's (ruleset 000, six players).
"""

from __future__ import annotations

import json

import pytest

from tally.commands.day import appended
from tally.rules.gamefile import load_game

from .test_day_add import morning, run, start

PLACEHOLDER = '# deputy = "…"  # the deputy (执警)'


def name_deputy(game, day: int, who: str) -> None:  # type: ignore[no-untyped-def]
    """The director's edit: the deputy's placeholder of day ``day``'s block filled in."""
    text = game.read_text(encoding="utf-8")
    block = text.index(f"day = {day}\n")
    at = text.index(PLACEHOLDER, block)
    game.write_text(text[:at] + f'deputy = "{who}"' + text[at + len(PLACEHOLDER):], "utf-8")


def add(game, urls, day: int):  # type: ignore[no-untyped-def]
    added = run("day", "add", *urls[day], "--game", str(game), "--yes", "--json", now=morning(day))
    assert added.exit_code == 0, added.output
    return json.loads(added.stdout)


def test_the_comments_of_day_2_stay_in_day_2_when_day_3_is_appended(forum, tmp_path):
    game, urls = start(forum, tmp_path)
    add(game, urls, 2)
    name_deputy(game, 2, "小眯")
    before = game.read_text(encoding="utf-8")
    assert before.endswith("# weights = { \"…\" = 0 }  # today's weight of a vote (迷魂 0)\n")
    block = add(game, urls, 3)["block"]
    after = game.read_text(encoding="utf-8")
    assert after == before + "\n" + block
    assert [d.day for d in load_game(game).days] == [1, 2, 3]


DAY_2 = """\
[[days]]
day = 2
vote = "https://bbs.example.com/thread-2-1-1.html"
# dead = ["…"]  # out in the night
# 小眯 said she would be late

"""
NEW = '[[days]]\nday = 3\nvote = "https://bbs.example.com/thread-3-1-1.html"\n# died = {}\n'


@pytest.mark.parametrize(
    ("after_days", "expected_tail"),
    [
        # The days come last: every comment after day 2's keys is day 2's.
        ("", "\n" + NEW),
        # A comment right above what follows is its own, and stays above it.
        ("# 导演的裁定\n[[rulings]]\nday = 2\nfloor = 3\naction = \"void\"\n",
         "\n" + NEW + "\n# 导演的裁定\n[[rulings]]\nday = 2\nfloor = 3\naction = \"void\"\n"),
        # A blank line before what follows, no comment of its own.
        ("[rules]\nsheriff_weight = 2\n", "\n" + NEW + "\n[rules]\nsheriff_weight = 2\n"),
    ],
)
def test_a_days_trailing_comments_stay_with_it(after_days, expected_tail):
    text = 'players = ["冷月", "小眯"]\n\n' + DAY_2 + after_days
    head = 'players = ["冷月", "小眯"]\n\n' + DAY_2.rstrip("\n") + "\n"
    assert appended(text, NEW) == head + expected_tail
