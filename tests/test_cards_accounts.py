"""A person is an account, in the card ledger too (issue 48): `tally cards add|remove|keep|list`
take the name a player's account posts under now (a rename tally read in the game's
threads), or the account's id as ``uid:N``, and the ledger records the player as the game
file names them. A name that is nobody's is refused as before, with the closest names; one
tally cannot tell (a player's name in the file that another account posts under now, two
players' accounts under one name) is refused with the uids to give.

The game is test_gamefile_day_add's (ruleset 000, uids 101-106, the director 100), where 小眯's account
(uid 102) posts as 小眯眯 from day 2, as bob's posted as bobby on a real X3.5.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tally.errors import InputError
from tally.model import History, Post, Version
from tally.outputs.written import cardfile
from tally.rules.game.accounts import Shown, named_player, names_now
from tally.rules.game.gamefile import parse_game

from . import test_gamefile_day_add as week
from .discuzgen import P

CHINA = ZoneInfo("Asia/Shanghai")


def renamed(day: int):  # type: ignore[no-untyped-def]
    """Day ``day``'s two threads as the forum shows them once uid 102 is called 小眯眯: every
    post of the account under its new name, the old posts too."""
    threads = week.threads(day)
    for thread in threads:
        thread.uids = {**week.UIDS, "小眯眯": 102}
        thread.posts = [P("小眯眯", p.time, p.text) if p.author == "小眯" else p for p in thread.posts]
    return threads


def renamed_on_day_2(forum, tmp_path):  # type: ignore[no-untyped-def]
    """The game after `tally init`, and `tally day add` of day 2 once uid 102 was renamed
    (tally read the threads then: its cache holds what they showed)."""
    game, _ = week.start(forum, tmp_path)
    for thread in renamed(1):
        thread.serve(forum)
    added = week.run("day", "add", *(t.serve(forum) for t in renamed(2)), "--game", str(game),
                     "--yes", now=week.morning(2))  # fmt: skip
    assert added.exit_code == 0, added.output
    return game


def cards(game, *args: str):  # type: ignore[no-untyped-def]
    return week.run("cards", *args[:1], "--game", str(game), *args[1:], now="2024-11-27 10:00")


def test_a_card_by_the_name_an_account_posts_under_now_or_by_its_uid(forum, tmp_path):
    game = renamed_on_day_2(forum, tmp_path)
    by_name = cards(game, "add", "--day", "2", "小眯眯", "yellow", "L4", "第2晚未按时行动")
    assert by_name.exit_code == 0, by_name.output
    assert ("小眯眯 is the name 小眯's account (uid 102) posts under now (tally's read of thread 903, "
            "11-25 10:00): the ledger names the player as the game file does.") in by_name.stderr
    assert "added: day 2 小眯 黄牌 L4 第2晚未按时行动" in by_name.stdout
    by_uid = cards(game, "add", "--day", "2", "uid:102", "blue", "L8", "刷屏")
    assert by_uid.exit_code == 0, by_uid.output
    assert "uid 102 is 小眯's account in" in by_uid.stderr
    by_file = cards(game, "add", "--day", "2", "冷月", "blue", "L8", "刷屏")
    assert by_file.exit_code == 0 and "account" not in by_file.stderr  # the file's name: said nothing
    ledger = cardfile.load(cardfile.ledger_path(game))
    assert [(c.player, c.rule) for c in ledger] == [("小眯", "L4"), ("小眯", "L8"), ("冷月", "L8")]
    listed = cards(game, "list", "--player", "UID：102")  # a Chinese input method's colon
    assert listed.exit_code == 0, listed.output
    assert "第2晚未按时行动" in listed.stdout and "冷月" not in listed.stdout
    removed = cards(game, "remove", "--day", "2", "小眯眯", "blue", "L8")
    assert removed.exit_code == 0, removed.output
    assert [(c.player, c.rule) for c in cardfile.load(cardfile.ledger_path(game))] == [
        ("小眯", "L4"), ("冷月", "L8")]


def test_a_name_or_uid_that_is_nobodys_is_refused_in_one_sentence(forum, tmp_path):
    game = renamed_on_day_2(forum, tmp_path)
    before = cardfile.ledger_path(game).exists()
    for typed, said in [
        ("小咪", f"tally: '小咪' is not a player of {game} (did you mean 小眯?)."),
        ("小眯眯眯", f"tally: '小眯眯眯' is not a player of {game} (did you mean 小眯?)."),
        ("uid:100", f"tally: uid 100 is 导演A's account in {game}, a director, not a player."),
        ("uid:999", f"tally: uid 999 is no player's account in {game}: the file gives no player "
                    "that id; no read of the game's threads by tally shows it."),
        ("102", f"tally: '102' is not a player of {game}."),  # a bare number is a name
    ]:
        refused = cards(game, "add", "--day", "2", typed, "yellow", "L4", "x")
        assert week.one_sentence(refused) == said, typed
    assert cardfile.ledger_path(game).exists() == before


# -- who a name or a uid names, from tally's reads (tally.rules.game.accounts) --------------------

# Literal TOML (not tests/gamefiles.py): the players' ids are given as the file's text.
GAME = """directors = [{{ name = "admin", id = 1 }}]
players = [{players}]
[[days]]
day = 2
opens = 2024-05-08T09:30:00
closes = 2024-05-09T21:30:00
vote = "https://bbs.example.com/thread-102-1-1.html"
"""
IDS = '{ name = "bob", id = 3 }, { name = "carol", id = 4 }, { name = "dave", id = 5 }'


def seen(uid: str, name: str, hour: int, thread: str = "102") -> Shown:
    return Shown(uid, (name,), datetime(2024, 5, 8, hour, tzinfo=CHINA), thread)


def named(typed: str, *shown: Shown, players: str = IDS) -> tuple[str, str]:
    g = parse_game(GAME.format(players=players), source="game.toml")
    found = named_player(g, typed, {s.uid: s for s in shown})
    return found.player, found.how


def refused(typed: str, *shown: Shown, players: str = IDS) -> str:
    with pytest.raises(InputError, match=r"^('[^']+'|uid \d+) is ") as said:
        named(typed, *shown, players=players)
    return str(said.value)


def test_the_newest_read_gives_each_accounts_name_now():
    def version(hour: int, *posts: tuple[str, str]) -> Version:
        when = datetime(2024, 5, 8, hour, tzinfo=CHINA)
        return Version(1, when, tuple(Post("discuz", "102", f"{hour}{i}", i, name, uid, when, "")
                                      for i, (name, uid) in enumerate(posts)))  # fmt: skip

    early = History((version(10, ("bob", "3"), ("carol", "4")),))
    late = History((version(9, ("dave", "5")), version(12, ("bobby", "3"), ("匿名", "5"))))
    now = names_now([("101", early), ("102", late)])
    assert {uid: (s.names, s.read_at.hour, s.thread_id) for uid, s in now.items()} == {
        "3": (("bobby",), 12, "102"), "4": (("carol",), 10, "101"), "5": (("dave",), 9, "102")}


def test_a_rename_tally_read_names_the_player_by_the_files_name():
    assert named("bobby", seen("3", "bobby", 10)) == (
        "bob", "bobby is the name bob's account (uid 3) posts under now (tally's read of thread "
        "102, 05-08 10:00)")
    assert named("uid:4") == ("carol", "uid 4 is carol's account in game 'game'")
    assert named("bob") == ("bob", "")


def test_a_name_that_cannot_be_told_is_refused_with_the_uids_to_give():
    """On a real X3.5: bob (uid 3) renamed "bobby", then "bob2", and carol (uid 4) "bob"."""
    assert refused("bob", seen("3", "bob2", 12), seen("4", "bob", 12)) == (
        "'bob' is bob's name in game 'game' (uid 3), and the name uid 4 posts under "
        "now (tally's read of thread 102, 05-08 12:00): give the account's id, uid:3 for bob, "
        "or uid:4.")
    # Two players' accounts under one name, as two reads at two times showed them.
    assert refused("bobby", seen("3", "bobby", 10), seen("4", "bobby", 12, "104")) == (
        "'bobby' is the name of 2 players' accounts in tally's reads (bob's, uid 3 (tally's "
        "read of thread 102, 05-08 10:00); carol's, uid 4 (tally's read of thread 104, 05-08 "
        "12:00)); give the account's id: uid:3 or uid:4.")


def test_a_file_without_ids_knows_no_rename_and_says_how_to_give_them():
    plain = '"bob", "carol", "dave"'
    assert refused("bobby", seen("3", "bobby", 10), players=plain) == (
        "'bobby' is not a player of game 'game' (did you mean bob?); uid 3 posts under "
        "it now, and the file gives its players no ids to say whose account that is: give each "
        'player its id, players = [{ name = "bob", id = 3 }], or name the player as the file does.')
    # A uid is the player whose name its account posts under now, the file's way without ids.
    assert named("uid:4", seen("4", "carol", 10), players=plain)[0] == "carol"
    assert refused("uid:3", seen("3", "bobby", 10), players=plain) == (
        "uid 3 is no player's account in game 'game': the file gives its players no account ids; "
        "tally's read of thread 102, 05-08 10:00 shows it as bobby.")
