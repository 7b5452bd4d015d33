"""The game file of shared CONTRACT.md; every mistake is one sentence naming file and key."""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal

import pytest

from tally.errors import GameFileError
from tally.rules.game.gamefile import load_game, parse_game

from . import gamefiles
from .conftest import CHINA

# Literal TOML (not tests/gamefiles.py): the mistakes below are made in this text itself.
GOOD = """
name = "[023] 明星大侦探"
ruleset = "023"
timezone = "Asia/Shanghai"
directors = ["导演A"]
players = ["冷月", "小眯", "kiwi"]

[aliases]
"kiwi" = ["Kiwi"]

[[days]]
day = 2
opens = 2024-05-08T09:30:00
closes = 2024-05-09T21:30:00
discussion = "https://bbs.example.com/forum.php?mod=viewthread&tid=101"
vote = "https://bbs.example.com/forum.php?mod=viewthread&tid=102"
accelerated = false
dead = ["小眯"]
sheriff = "冷月"
deputy = "kiwi"
slandered = []
cannot_vote = []
cannot_be_voted = []
weights = { "kiwi" = 0 }
immune = []
acolyte = ""
sheriff_declaration = ""
bar_owner = ""
trapped = []

[[rulings]]
day = 2
floor = 17
action = "void"
note = "asked to withdraw"
"""


def test_contract_example_loads():
    game = parse_game(GOOD, source="g.toml")
    assert game.name == "[023] 明星大侦探" and game.ruleset == "023"
    assert game.players == ("冷月", "小眯", "kiwi")
    assert game.aliases == {"kiwi": ("Kiwi",)}
    day = game.day(2)
    assert day.opens == datetime(2024, 5, 8, 9, 30, tzinfo=CHINA)
    assert day.closes.utcoffset().total_seconds() == 8 * 3600
    assert day.dead == ("小眯",) and day.sheriff == "冷月" and day.deputy == "kiwi"
    assert day.weights == {"kiwi": Decimal("0")}
    assert day.acolyte is None and day.sheriff_declaration is None
    assert game.rulings[0].floor == 17 and game.rulings[0].action == "void"
    assert game.thread_urls() == (
        "https://bbs.example.com/forum.php?mod=viewthread&tid=101",
        "https://bbs.example.com/forum.php?mod=viewthread&tid=102",
    )


def test_defaults(tmp_path):
    path = gamefiles.write_game(
        tmp_path / "my-game.toml",
        gamefiles.day(1, "https://x.example/thread-1-1-1.html", closes="2024-05-08T21:30:00"),
        ruleset=None, players=["a", "b"],
    )
    game = load_game(path)
    assert (game.name, game.ruleset, game.timezone.key) == ("my-game", "default", "Asia/Shanghai")
    assert (
        game.directors == ()
        and game.days[0].accelerated is False
        and game.days[0].discussion is None
    )


def test_a_file_loaded_again_is_parsed_again_only_when_it_changed(tmp_path):
    """A process (a desk, a watch, the tests) loads a game file at each run or poll: the same
    text at the same path is the same Game; the file edited, or the same text named another
    way or on another clock, is parsed again; a mistake is said at every load."""
    path = tmp_path / "g.toml"
    path.write_text(GOOD, encoding="utf-8")
    first = load_game(path)
    assert load_game(path) is first and load_game(str(path)) is first
    assert load_game(path, default_timezone="Europe/Paris") is not first
    path.write_text(GOOD.replace('"小眯"', '"小眯", "新人"'), encoding="utf-8")
    edited = load_game(path)
    assert edited is not first and "新人" in edited.players and "新人" not in first.players
    moved = tmp_path / "h.toml"
    moved.write_text(GOOD, encoding="utf-8")
    assert load_game(moved).path == moved and load_game(moved).name == first.name
    path.write_text(GOOD.replace("ruleset = \"023\"", "ruleset = \"999\""), encoding="utf-8")
    for _ in range(2):
        with pytest.raises(GameFileError, match="999"):
            load_game(path)


def test_offset_times_are_converted_to_the_forum_zone():
    text = GOOD.replace("opens = 2024-05-08T09:30:00", "opens = 2024-05-08T01:30:00Z")
    assert parse_game(text).day(2).opens == datetime(2024, 5, 8, 9, 30, tzinfo=CHINA)


@pytest.mark.parametrize(
    "change,message",
    [
        (
            ('ruleset = "023"', 'rulset = "023"'),
            "key 'rulset': is not a key tally knows (did you mean 'ruleset'?)",
        ),
        (
            ('dead = ["小眯"]', 'dead = ["小咪"]'),
            "key 'day 2.dead': '小咪' is not one of the players (did you mean '小眯'?)",
        ),
        (
            ('sheriff = "冷月"', 'sheriff = "冷夜"'),
            "key 'day 2.sheriff': '冷夜' is not one of the players",
        ),
        (
            ("closes = 2024-05-09T21:30:00", "closes = 2024-05-08T09:00:00"),
            "key 'day 2.closes': 2024-05-08 09:00 is not after opens 2024-05-08 09:30",
        ),
        (
            ('ruleset = "023"', 'ruleset = "024"'),
            "key 'ruleset': '024' is not one of default, 000, 245, 023, M126",
        ),
        (
            ('timezone = "Asia/Shanghai"', 'timezone = "China"'),
            "key 'timezone': 'China' is not a time zone",
        ),
        (
            ('vote = "https://bbs.example.com/forum.php?mod=viewthread&tid=102"', ""),
            "key 'day 2.vote': is required",
        ),
        (("opens = 2024-05-08T09:30:00", "opens = 2024-05-08"), "has no time of day"),
        (('"kiwi" = ["Kiwi"]', '"kiwi" = ["冷月"]'), "'冷月' is already a player"),
        (('"kiwi" = ["Kiwi"]', '"kiwl" = ["Kiwi"]'), "key 'aliases.kiwl'"),
        (("accelerated = false", 'accelerated = "no"'), "must be true or false"),
        (
            ('weights = { "kiwi" = 0 }', 'weights = { "kiwi" = -1 }'),
            "must be between 0 and 100, not -1",
        ),
        (
            ('action = "void"', 'action = "cancel"'),
            'key \'rulings #1.action\': must be "void" or "accept"',
        ),
        (("floor = 17", 'floor = "17"'), "key 'rulings #1.floor'"),
        (
            ('sheriff_declaration = ""', 'sheriff_declaration = "民主"'),
            "must be one of 独裁, 自由, 秩序",
        ),
        (
            ('players = ["冷月", "小眯", "kiwi"]', 'players = ["冷月", "小眯", "kiwi", "冷月"]'),
            "'冷月' is already a player",
        ),
        (
            ("trapped = []", 'trapped = ["nobody"]'),
            "key 'day 2.trapped': 'nobody' is not one of the players",
        ),
        (
            ("day = 2\nopens", "day = 2\nfoo = 1\nopens"),
            "key 'day 2.foo': is not a key tally knows",
        ),
    ],
)
def test_mistakes_are_one_sentence_naming_file_and_key(change, message):
    old, new = change
    assert old in GOOD
    with pytest.raises(GameFileError, match=re.escape(message)) as info:
        parse_game(GOOD.replace(old, new, 1), source="game.toml")
    text = str(info.value)
    assert text.startswith("game.toml, key ") or text.startswith("game.toml: ")
    assert message in text
    assert "\n" not in text


def test_not_toml():
    with pytest.raises(GameFileError, match=r"^g.toml: not valid TOML"):
        parse_game("players = [", source="g.toml")


def test_missing_file(tmp_path):
    with pytest.raises(GameFileError, match="no such game file"):
        load_game(tmp_path / "nope.toml")


def test_unknown_day():
    with pytest.raises(GameFileError, match=r"has no day 5 \(days: 2\)"):
        parse_game(GOOD, source="g.toml").day(5)


def test_sample_game_file_is_valid():
    from tally.demo import sample_game_text

    game = parse_game(sample_game_text("http://127.0.0.1:1/"))
    assert len(game.players) == 12 and game.directors == ("导演B",)


def test_S2_the_forum_clock_is_china_time_by_default(tmp_path):
    """S2: "时间以小镇发贴时间为准": a day's open and close are read on the forum's clock."""
    path = gamefiles.write_game(tmp_path / "g.toml",
                                gamefiles.day(2, "https://x.example/thread-1-1-1.html"),
                                ruleset=None, players=["a"])  # fmt: skip
    day = load_game(path).day(2)
    assert day.closes.isoformat() == "2024-05-09T21:30:00+08:00"
