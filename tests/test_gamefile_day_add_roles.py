"""The roles that last, carried by `tally day add` or asked, never lost (issue 48): the deputy
(执警) a day's block names weighs 1.5 on the days after (seed 000, C1) until they are out or
the badge passes; a sheriff who is out passes the badge (殉职: to whom they name; sent off
by a red card: at random), and the block asks who has it. And the comments of a day stay
in that day's block when the next is appended.

The game is test_gamefile_day_add's (ruleset 000, six players; 冷月 elected on day 1, 老K voted out
on day 2); the director writes the deputy into day 2's block, as on a real X3.5.
"""

from __future__ import annotations

import json

import pytest

from tally.rules.game.gamefile import load_game, parse_game
from tally.tomlfile import appended

from .test_gamefile_day_add import PLAYERS, VOTES, morning, one_sentence, run, start

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


def count(game, urls, day: int):  # type: ignore[no-untyped-def]
    return run("votes", urls[day][1], "--game", str(game), "--json", "-q", now="2024-12-01 10:00")


@pytest.mark.rules("C1")
def test_the_deputy_day_2_names_is_carried_to_day_3_and_weighs_1_5(forum, tmp_path):
    game, urls = start(forum, tmp_path)
    add(game, urls, 2)
    name_deputy(game, 2, "小眯")
    data = add(game, urls, 3)
    assert data["deputy"] == {"player": "小眯", "from": "day 2's game file"}
    assert data["todo"] == []
    assert ("# deputy: 小眯, from day 2's game file (tally derives it; write deputy = \"…\" if "
            "the sheriff named another)\n") in data["block"]
    assert PLACEHOLDER not in data["block"]  # asked once, as derived
    assert load_game(game).day(3).deputy is None  # a comment: the file leaves it to tally
    counted = count(game, urls, 3)
    assert counted.exit_code == 0, counted.output
    result = json.loads(counted.stdout)
    assert result["facts"]["deputy"] == {"player": "小眯", "from": "derived", "day": 2,
                                         "note": "day 2's game file"}  # fmt: skip
    weights = {b["voter"]: b["weight"] for b in result["ballots"] if b["status"] == "counted"}
    assert weights == {"冷月": 2.5, "小眯": 1.5, "kiwi": 1, "阿澈": 1, "风铃": 1}
    # kiwi: 小眯 1.5 + 阿澈 + 风铃; 风铃: 冷月 2.5; 小眯: kiwi (老K is out since day 2)
    assert [(t["player"], t["votes"]) for t in result["totals"]] == [("kiwi", 3.5), ("风铃", 2.5), ("小眯", 1)]
    shown = run("votes", urls[3][1], "--game", str(game), now="2024-12-01 10:00")
    assert "deputy 小眯 (day 2's game file)" in shown.stdout
    # Day 4 carries 小眯 still, from day 2.
    assert add(game, urls, 4)["deputy"] == {"player": "小眯", "from": "day 2's game file"}


@pytest.mark.rules("C1", "C5")
def test_a_deputy_voted_out_on_day_2_is_not_carried_and_day_3_asks(forum, tmp_path):
    game, urls = start(forum, tmp_path)
    add(game, urls, 2)
    name_deputy(game, 2, "老K")  # voted out on day 2
    data = add(game, urls, 3)
    asked = (f"day 2's game file made 老K deputy, and 老K is out; day 3 in {game} names no "
             'deputy — add deputy = "…" (whom the sheriff named 执警) or deputy = "none" (none '
             "named yet)")  # fmt: skip
    assert data["deputy"] == {"player": None, "from": None}
    assert data["todo"] == [asked]
    assert ('# deputy = "…"  # 老K, the deputy, is out (voted out on day 2): whom did the sheriff '
            'name 执警? (deputy = "none" if nobody yet)\n') in data["block"]
    refused = count(game, urls, 3)
    assert one_sentence(refused) == f"tally: {asked}"
    game.write_text(game.read_text("utf-8").replace('# deputy = "…"  # 老K', 'deputy = "none"  # 老K'),
                    "utf-8")  # fmt: skip
    counted = count(game, urls, 3)
    assert counted.exit_code == 0, counted.output
    result = json.loads(counted.stdout)
    assert result["facts"]["deputy"] == {"player": None, "from": "game file", "day": 3, "note": "no deputy"}
    assert {b["weight"] for b in result["ballots"] if b["status"] == "counted"} == {2.5, 1}


@pytest.mark.rules("C1", "C5")
def test_a_sheriff_voted_out_passes_the_badge_and_the_deputy_is_asked_too(forum, tmp_path, monkeypatch):
    """Day 2 votes out 冷月, the sheriff, whose deputy was 小眯: day 3's block asks who has the
    badge (殉职: 冷月 names the successor) and who the deputy is (the new sheriff names one);
    the console says both. Once the director writes them, day 3 counts with them."""
    monkeypatch.setitem(VOTES, 2, [(p, "冷月") for p in PLAYERS if p != "冷月"] + [("冷月", "kiwi")])
    game, urls = start(forum, tmp_path)
    add(game, urls, 2)
    name_deputy(game, 2, "小眯")
    added = run("day", "add", *urls[3], "--game", str(game), "--yes", now=morning(3))
    assert added.exit_code == 0, added.output
    assert ('# sheriff = "…"  # 冷月, the sheriff, is out: who has the badge? (voted out on day 2; '
            'it passes to whom 冷月 names (殉职); sheriff = "none" if it is gone)\n') in added.stdout
    assert ('# deputy = "…"  # 小眯 was the deputy under 冷月: the badge passed, and its new holder '
            'names the deputy anew (deputy = "none" if nobody yet)\n') in added.stdout
    todo = [line for line in added.stderr.splitlines() if line.startswith("still to do:")]
    assert todo == [
        f"still to do: day 1's election made 冷月 sheriff, and 冷月 is out; day 3 in {game} names no "
        'sheriff — add sheriff = "…" (who holds the badge now) or sheriff = "none" (the badge is gone)',
        f"still to do: day 2's game file made 小眯 deputy under 冷月, and the badge passes: a new "
        f"sheriff names the deputy anew; day 3 in {game} names no deputy — add deputy = \"…\" "
        '(whom the sheriff named 执警) or deputy = "none" (none named yet)',
    ]
    text = game.read_text("utf-8")
    text = text.replace('# sheriff = "…"  # 冷月', 'sheriff = "kiwi"  # 冷月')
    game.write_text(text.replace('# deputy = "…"  # 小眯 was', 'deputy = "阿澈"  # 小眯 was'), "utf-8")
    counted = count(game, urls, 3)
    assert counted.exit_code == 0, counted.output
    weights = {b["voter"]: b["weight"] for b in json.loads(counted.stdout)["ballots"]
               if b["status"] == "counted"}  # fmt: skip
    assert weights == {"小眯": 1, "kiwi": 2.5, "阿澈": 1.5, "风铃": 1, "老K": 1}
    assert add(game, urls, 4)["deputy"] == {"player": "阿澈", "from": "day 3's game file"}


@pytest.mark.rules("K2")
def test_a_sheriff_sent_off_by_a_red_card_passes_the_badge_at_random(forum, tmp_path):
    game, urls = start(forum, tmp_path)
    add(game, urls, 2)
    carded = run("cards", "add", "--game", str(game), "--day", "2", "冷月", "red", "L8", "刷屏",
                 now=morning(3))  # fmt: skip
    assert carded.exit_code == 0, carded.output
    data = add(game, urls, 3)
    assert data["sheriff"] == {"player": None, "from": None}
    assert ('# sheriff = "…"  # 冷月, the sheriff, is out: who has the badge? (sent off by a red '
            "card for day 2 (K2, the card ledger); it passes at random (a red card's send-off); "
            'sheriff = "none" if it is gone)\n') in data["block"]
    assert {o["player"]: o["how"] for o in data["out"]} == {
        "冷月": "sent off by a red card for day 2 (K2, the card ledger)", "老K": "voted out on day 2"}
    assert data["todo"][0].startswith("day 1's election made 冷月 sheriff, and 冷月 is out;")


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


# Literal TOML (not tests/gamefiles.py): the comments `tally day add` keeps are in the text.
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


# -- the deputy in the counts' own terms (tally.rules.counting.state) -----------------------------------

# Literal TOML (not tests/gamefiles.py): the days' keys are given as the lines a director adds.
GAME = """ruleset = "000"
players = ["甲", "乙", "丙", "丁"]
[[days]]
day = 1
opens = 2024-05-06T09:30:00
closes = 2024-05-07T21:30:00
vote = "https://bbs.example.com/thread-1-1-1.html"
{one}
[[days]]
day = 2
opens = 2024-05-08T09:30:00
closes = 2024-05-09T21:30:00
vote = "https://bbs.example.com/thread-2-1-1.html"
{two}
"""


def day_2(one: str = "", two: str = ""):  # type: ignore[no-untyped-def]
    """Day 2 as it stands after day 1 elected 甲 (with day 1's block ``one``)."""
    from tally.rules.counting.state import Carried, resolve
    from tally.rules.verdicts import OutcomeResult

    g = parse_game(GAME.format(one=one, two=two), source="g.toml")
    after = Carried().after(resolve(g, g.day(1), Carried())[0], OutcomeResult.SHERIFF, "甲")
    return resolve(g, g.day(2), after)


@pytest.mark.rules("C1", "C4")
def test_a_deputy_named_in_the_election_days_block_stands_under_the_sheriff_it_elected():
    day, facts = day_2('deputy = "乙"')
    assert (day.sheriff, day.deputy) == ("甲", "乙")
    assert [(f.what, f.player, f.source, f.day) for f in facts] == [
        ("sheriff", "甲", "derived", 1), ("deputy", "乙", "derived", 1)]


@pytest.mark.rules("C1", "V9")
def test_a_day_naming_a_deputy_who_is_out_is_refused():
    from tally.errors import GameFileError

    with pytest.raises(GameFileError, match="names 乙 deputy, but 乙 is out") as refused:
        day_2('dead = ["乙"]', 'deputy = "乙"')
    assert str(refused.value) == "day 2 in game 'game' names 乙 deputy, but 乙 is out"
    day, facts = day_2('deputy = "乙"', 'deputy = "none"')
    assert day.deputy is None and facts[-1].note == "no deputy"


@pytest.mark.rules("C1")
def test_the_same_deputy_named_again_under_a_new_sheriff_stands_from_that_day():
    from tally.rules.counting.state import Carried, resolve
    from tally.rules.verdicts import OutcomeResult

    two = 'sheriff = "丙"\nsheriff_change = "明察：侦探强制成为警长"\ndeputy = "乙"'
    g = parse_game(GAME.format(one='deputy = "乙"', two=two), source="g.toml")
    first = Carried().after(resolve(g, g.day(1), Carried())[0], OutcomeResult.SHERIFF, "甲")
    day, facts = resolve(g, g.day(2), first)
    assert (day.sheriff, day.deputy, facts[-1].note) == ("丙", "乙", "named in the game file")
    after = first.after(day, OutcomeResult.NONE, None)
    assert (after.deputy, after.deputy_how, after.deputy_under) == ("乙", "day 2's game file", "丙")


def test_the_help_says_the_deputy_is_carried_and_a_role_in_question_asked():
    """`tally day add --help` said only that the sheriff and who is out are derived, while
    day add carries the deputy too and asks a role in question as a commented key."""
    shown = run("day", "add", "--help", now="2024-12-01 10:00")
    assert shown.exit_code == 0, shown.output
    said = " ".join(shown.stdout.split())
    assert "the sheriff, the deputy (执警) and who is out are carried from the days before" in said
    assert "a role in question (a sheriff out, a deputy whose badge passed) is asked as a " in said
