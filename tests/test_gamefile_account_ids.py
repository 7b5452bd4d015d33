"""The game file's account ids against the uids the pages show (issue 49, item 5).

(i) An id the file gives that no post tally read of the game carries, while the account's
name posts under another uid, is a typo of the id: counted, the player's ballot was a
look-alike's, void, and the outcome turned with exit 0. It stops, in one sentence naming the
player, the id the file gives, the uid the name posts under and how to mend the file. The
look-alikes beside the player's own account (``bob。``, a Cyrillic ``о``, ``admin。``, the same
name on another uid) are still void. What tally read: the day's vote thread, its discussion
thread when it counts 加速 requests, the earlier days' vote threads the count reads, each as
read now and as every read tally kept of it showed it.

(j) Without ids, two accounts that swap names between days took each other's ballots and
the sheriff's weight with no word: the name carried by another uid than in tally's earlier
read is flagged (``accounts``) naming both uids.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tally.cli import app
from tally.errors import GameFileError
from tally.model import History, Thread, Version
from tally.rules.counting.state import Carried
from tally.rules.counting.votes import tally_day
from tally.rules.game.gamefile import parse_game

from . import gamefiles
from . import test_gamefile_day_add as week
from .conftest import CHINA, FIXTURES, FakeClock, Runner
from .strategies import fuzz
from .test_judging_accounts import GAME, WITH_IDS, WITHOUT_IDS, game, thread
from .votekit import at, rows, vote


def count(g, t, *earlier: Thread):  # type: ignore[no-untyped-def]
    """Day 2 counted, with ``earlier`` as the earlier days' threads the count read."""
    return tally_day(t.thread(), g, 2, carried=Carried(read=earlier))


def day_1(*posts: tuple[str, str | None, str, str]) -> Thread:
    """Day 1's vote thread (thread 101) as tally read it the evening it closed."""
    return replace(thread(*posts).thread(), thread_id="101", read_at=at("07 22:00"))


def stop(g, t, *earlier: Thread) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(
        GameFileError, match=r"^game '.+' gives the (player|director) \S+ the account id \d+, and no post in tally's reads"
    ) as stopped:
        count(g, t, *earlier)
    return str(stopped.value)


# -- (i) an id no post carries ---------------------------------------------------------------


@pytest.mark.rules("V6")
def test_an_id_that_no_post_carries_stops_naming_the_uid_the_name_posts_under():
    """bob's id typed 3 for 13: bob's ballot (uid 13) was a look-alike's, void, with exit
    0; the count stops before anything is counted, and the mended file counts it."""
    t = thread(("bob", "13", "08 10:00", vote("carol")), ("carol", "4", "08 10:05", vote("dave")),
               ("bob", "13", "08 11:00", "同上"))  # fmt: skip
    said = stop(game(), t)
    assert said == (
        "game 'game' gives the player bob the account id 3, and no post in tally's reads of "
        "thread 102 comes from it; bob's name posts under uid 13 (thread 102, floors 2 and 4): "
        "if uid 13 is bob's account, give bob that id ({ name = \"bob\", id = 13 }); if it is "
        "another account that took the name, rule on floors 2 and 4 "
        '([[rulings]], action = "void").'
    )
    mended = game(WITH_IDS.replace("id = 3 }", "id = 13 }"))
    assert rows(count(mended, t))[0] == (2, "bob", "vote", "carol", "counted", None)


def test_a_directors_id_no_post_carries_stops_too():
    """The director's id typed 11 for 1: the opening post and tally's own would be a
    stranger's."""
    said = stop(parse_game(GAME.format(players=WITH_IDS).replace("id = 1 }", "id = 11 }"),
                           source="game.toml"),
                thread(("bob", "3", "08 10:00", vote("carol"))))  # fmt: skip
    assert said.startswith("game 'game' gives the director admin the account id 11, and no "
                           "post in tally's reads of thread 102 comes from it; admin's name "
                           "posts under uid 1 (thread 102, floor 1)")  # fmt: skip


def test_a_players_id_given_that_another_player_posts_under_stops():
    """bob's id typed 4, which is carol's account (the file gives carol none): carol's
    ballot would be bob's (a rename), bob's a look-alike's."""
    players = '{ name = "bob", id = 4 }, "carol", { name = "ncfrank", id = 7 }, { name = "dave", id = 5 }'
    t = thread(("bob", "3", "08 10:00", vote("dave")), ("carol", "4", "08 10:05", vote("bob")))
    said = stop(game(players), t)
    assert ("gives the player bob the account id 4, and no post in tally's reads of thread 102 "
            "comes from it but as carol, another account of the file; bob's name posts under "
            "uid 3 (thread 102, floor 2)") in said  # fmt: skip


def test_a_ruling_on_the_floor_lets_the_count_go_on():
    """The account that took bob's name is another's, and the director says so: a ruling
    on its floor, and the floor is void by it; bob has not posted."""
    ruled = GAME.format(players=WITH_IDS) + '\n[[rulings]]\nday = 2\nfloor = 2\naction = "void"\n'
    t = thread(("bob", "13", "08 10:00", vote("carol")), ("carol", "4", "08 10:05", vote("dave")))
    result = count(parse_game(ruled, source="game.toml"), t)
    assert rows(result)[0][4] == "void" and rows(result)[0][1] is None


def test_the_id_seen_in_an_earlier_read_of_the_thread_is_no_slip():
    """bob (uid 3) posted and was renamed bob_old since, and uid 13 took "bob": tally's
    earlier read of the thread shows uid 3 as bob, and the new "bob" is a look-alike."""
    before = thread(("bob", "3", "08 10:00", "我晚点投"))
    now = thread(("bob_old", "3", "08 10:00", "我晚点投"), ("bob", "13", "08 11:00", vote("carol")))
    read = replace(now.thread(), history=History((Version(1, at("08 10:30"), tuple(before.posts)),)))
    result = tally_day(read, game(), 2)
    assert rows(result)[0] == (3, None, "vote", None, "void", "not_a_player")


def test_the_id_seen_in_an_earlier_days_thread_is_no_slip():
    """bob (uid 3) voted on day 1 and not yet on day 2, where an account named bob (uid 13:
    a saved page of another board, a Tieba nickname) votes: a look-alike, void, as bob's
    own account posts in the game's threads the count read."""
    t = thread(("bob", "13", "08 10:00", vote("carol")), ("carol", "4", "08 10:05", vote("dave")))
    earlier = day_1(("bob", "3", "07 10:00", vote("carol")))
    assert rows(count(game(), t, earlier))[0] == (2, None, "vote", None, "void", "not_a_player")
    assert "uid 13" in stop(game(), t)  # the vote thread alone: a slip


@pytest.mark.parametrize(
    ("author", "uid"),
    [("bob。", "9"), ("Bob", "10"), ("bоb", "11")],  # a full stop, a capital, a Cyrillic о
)
def test_a_lookalike_spelled_otherwise_never_stops_the_count(author, uid):
    """A name the file does not write as the look-alike writes it (anyone may register
    bob。): void, whether or not bob's own account posts, never a stop, or a stranger could
    stop every count bob has not posted in yet."""
    t = thread((author, uid, "08 10:00", vote("carol")), ("carol", "4", "08 10:05", vote("dave")))
    alone = count(game(), t)
    beside = count(game(), thread(*[(author, uid, "08 10:00", vote("carol")),
                                    ("bob", "3", "08 10:30", vote("dave"))]))  # fmt: skip
    for result in (alone, beside):
        assert rows(result)[0] == (2, None, "vote", None, "void", "not_a_player")
    assert rows(beside)[1] == (3, "bob", "vote", "dave", "counted", None)


def test_the_lookalike_of_the_director_is_void_beside_the_directors_posts():
    result = count(game(), thread(("admin。", "12", "08 10:00", "代投：bob\n" + vote("carol")),
                                  ("bob", "3", "08 10:05", vote("dave"))))  # fmt: skip
    assert rows(result)[0][1:] == (None, "vote", None, "void", "not_a_player")


def test_pages_without_uids_say_nothing_of_ids():
    """Saved pages that show no uid: the names, as before; nothing to hold the ids against."""
    result = count(game(), thread(("bob", None, "08 10:00", vote("carol"))))
    assert rows(result)[0][1] == "bob"


# -- (j) a name another uid carried before, without ids -------------------------------------


@pytest.mark.rules("V6", "C1")
def test_two_accounts_that_swapped_names_between_days_are_flagged_with_both_uids():
    """bob (uid 3) and carol (uid 4) on day 1; on day 2 uid 4 posts as bob and uid 3 as
    carol. By name alone each takes the other's ballot; said for each, with both uids."""
    earlier = day_1(("bob", "3", "07 10:00", vote("dave")), ("carol", "4", "07 10:05", vote("dave")))
    t = thread(("bob", "4", "08 10:00", vote("dave")), ("carol", "3", "08 10:05", vote("bob")))
    result = count(game(WITHOUT_IDS), t, earlier)
    notes = {f.player: f.note for f in result.flags if f.rule == "accounts" and f.player}
    assert notes == {
        "bob": "bob posts from uid 4 now, and tally read bob's posts from uid 3 before (tally's "
        "read of thread 101, 05-07 22:00): the forum may have renamed that account and let "
        "another take the name, or two accounts swapped names; counted as bob by the name "
        'alone, ballots and weight. Give the players\' ids (players = [{ name = "bob", id = 3 '
        "}]) to know them apart",
        "carol": notes["carol"],
    }
    assert notes["carol"].startswith("carol posts from uid 3 now, and tally read carol's posts "
                                     "from uid 4 before")  # fmt: skip
    assert "accounts" not in [f.rule for f in count(game(WITHOUT_IDS), t).flags if f.player]


def test_two_accounts_under_one_name_in_one_read_are_flagged():
    """Tieba shows a nickname beside the account, and two accounts may take one (or saved
    pages of two boards): by the name alone both are bob."""
    t = thread(("bob", "3", "08 10:00", vote("dave")), ("bob", "9", "08 10:05", vote("carol")))
    notes = [f.note for f in count(game(WITHOUT_IDS), t).flags if f.rule == "accounts" and f.player]
    assert notes == [
        "bob posts from uids 3 and 9 now: two accounts under one name; counted as bob by the "
        "name alone, ballots and weight. Give the players' ids (players = [{ name = \"bob\", "
        "id = 3 }]) to know them apart"
    ]


def test_names_that_stayed_with_their_accounts_are_not_flagged():
    earlier = day_1(("bob", "3", "07 10:00", vote("dave")), ("carol", "4", "07 10:05", vote("dave")))
    t = thread(("bob", "3", "08 10:00", vote("dave")), ("carol", "4", "08 10:05", vote("bob")))
    result = count(game(WITHOUT_IDS), t, earlier)
    assert [f.player for f in result.flags if f.rule == "accounts"] == [None]  # the advice alone


def test_a_read_after_the_count_is_no_earlier_read():
    """A thread tally read after the one counted (read again later in the run) shows names as
    they are now; only reads before the count's own say what a name was."""
    later = replace(day_1(("bob", "4", "07 10:00", vote("dave"))), read_at=at("09 23:00"))
    t = thread(("bob", "3", "08 10:00", vote("dave")))
    read = replace(t.thread(), read_at=at("09 22:00"))
    result = tally_day(read, game(WITHOUT_IDS), 2, carried=Carried(read=(later,)))
    assert [f.player for f in result.flags if f.rule == "accounts"] == [None]


# -- on the loopback forum: the week of test_gamefile_day_add, its uids 101-106 -----------------------


def test_a_typo_in_an_id_stops_the_count_and_the_mended_file_counts(forum, tmp_path):
    """tally init wrote 冷月's id, 101; the director's copy says 110. Day 2 (冷月 the sheriff,
    2.5): 冷月's ballot for 老K was a look-alike's, void, and 风铃 went out (3 to 老K's 2)
    with exit 0. Now the count stops (on day 1's thread, which day 2's count reads first),
    and once mended 老K is out, 4.5 to 3."""
    game, urls = week.start(forum, tmp_path)
    added = week.run("day", "add", *urls[2], "--game", str(game), "--yes", now=week.morning(2))
    assert added.exit_code == 0, added.output
    text = game.read_text(encoding="utf-8")
    assert '{ name = "冷月", id = 101 }' in text
    game.write_text(text.replace('{ name = "冷月", id = 101 }', '{ name = "冷月", id = 110 }'),
                    encoding="utf-8")  # fmt: skip
    url = urls[2][1]
    said = week.one_sentence(week.run("votes", url, "--game", str(game), now="2024-11-26 22:00"))
    assert said == (
        f"tally: {game} gives the player 冷月 the account id 110, and no post in tally's reads "
        "of thread 903 comes from it; 冷月's name posts under uid 101 (thread 903, floor 7): if "
        "uid 101 is 冷月's account, give 冷月 that id ({ name = \"冷月\", id = 101 }); if it is "
        'another account that took the name, rule on floor 7 ([[rulings]], action = "void").'
    )
    lurkers = week.run("lurkers", "--game", str(game), "--day", "2", "--no-write",
                       now="2024-11-26 22:00")  # fmt: skip
    assert week.one_sentence(lurkers) == said  # no card for 冷月 as a lurker either
    game.write_text(text, encoding="utf-8")
    counted = week.run("votes", url, "--game", str(game), "--json", "-q", now="2024-11-26 22:00")
    assert counted.exit_code == 0, counted.output
    assert json.loads(counted.stdout)["outcome"]["player"] == "老K"


def test_the_impostor_beside_the_player_is_still_void_on_the_forum(forum, tmp_path):
    """An account registered as 小眯。 (uid 150) votes in day 1's election beside 小眯
    (uid 102): its ballot is a look-alike's, void; the count goes on."""
    game, urls = week.start(forum, tmp_path)
    _, poll = week.threads(1)
    poll.uids = {**week.UIDS, "小眯。": 150}
    poll.add(week.P("小眯。", "2024-11-23 17:00:00", "投票对象：kiwi\n投票理由：跟票"))
    poll.serve(forum)
    counted = week.run("votes", urls[1][1], "--game", str(game), "--json", "-q", now="2024-11-24 22:00")
    assert counted.exit_code == 0, counted.output
    data = json.loads(counted.stdout)
    fake = next(b for b in data["ballots"] if b["author"] == "小眯。")
    assert (fake["author_id"], fake["status"], fake["reason"]) == ("150", "void", "not_a_player")
    assert "小眯。 is a look-alike of 小眯 (uid 102), posted by uid 150" in fake["note"]
    assert data["outcome"]["player"] == "冷月"


def swapped(day: int):  # type: ignore[no-untyped-def]
    """Day ``day``'s threads once 冷月's account (101) and 小眯's (102) swapped names: the
    forum shows every post of each account under its new name, the old posts too."""
    threads = week.threads(day)
    for t in threads:
        t.uids = {**week.UIDS, "冷月": 102, "小眯": 101}
    return threads


@pytest.mark.rules("V6", "C1")
def test_a_swap_of_names_between_days_is_flagged_naming_both_uids(forum, tmp_path):
    """A game file without ids. 冷月 (101) is elected on day 1, read that evening; then 冷月's
    and 小眯's accounts swap names. Day 2's count, by names, gives uid 102 冷月's ballot and
    the sheriff's 2.5: exit 0 with no word before; now both names are flagged with both
    uids."""
    game, urls = week.start(forum, tmp_path)
    text = re.sub(r'\{ name = "([^"]+)", id = \d+ \}', r'"\1"', game.read_text(encoding="utf-8"))
    game.write_text(text, encoding="utf-8")
    first = week.run("votes", urls[1][1], "--game", str(game), "-q", now="2024-11-24 22:00")
    assert first.exit_code == 0, first.output
    for t in (*swapped(1), *swapped(2)):
        t.serve(forum)
    added = week.run("day", "add", *urls[2], "--game", str(game), "--yes", now=week.morning(2))
    assert added.exit_code == 0, added.output
    counted = week.run("votes", urls[2][1], "--game", str(game), "--json", "-q", now="2024-11-26 22:00")
    assert counted.exit_code == 0, counted.output
    notes = {f["player"]: f["note"] for f in json.loads(counted.stdout)["flags"]
             if f["rule"] == "accounts" and f["player"]}  # fmt: skip
    assert sorted(notes) == ["冷月", "小眯"]
    assert notes["冷月"] == (  # the last read of day 1's vote thread before the swap
        "冷月 posts from uid 102 now, and tally read 冷月's posts from uid 101 before (tally's "
        "read of thread 903, 11-24 22:00): the forum may have renamed that account and let "
        "another take the name, or two accounts swapped names; counted as 冷月 by the name "
        "alone, ballots and weight. Give the players' ids (players = [{ name = \"冷月\", id = "
        "101 }]) to know them apart"
    )
    assert notes["小眯"].startswith("小眯 posts from uid 101 now, and tally read 小眯's posts from "
                                   "uid 102 before")  # fmt: skip
    lurkers = week.run("lurkers", "--game", str(game), "--day", "2", "--no-write", "--json",
                       "-q", now="2024-11-26 22:00")  # fmt: skip
    assert lurkers.exit_code == 0, lurkers.output
    flagged = {f["player"]: f["note"] for f in json.loads(lurkers.stdout)["flags"]
               if f["rule"] == "accounts" and f["player"]}  # fmt: skip
    assert flagged == notes


def test_an_anonymous_post_from_the_players_uid_is_the_player_seen():
    """Read with a moderator's cookies, bob's anonymous post (匿名) shows uid 3: bob's account
    posts, so an account named bob on uid 13 is a look-alike, not a slip of the file."""
    t = thread(("匿名", "3", "08 10:00", vote("carol")), ("bob", "13", "08 10:05", vote("dave")))
    assert rows(count(game(), t))[1] == (3, None, "vote", None, "void", "not_a_player")


# -- every mix of accounts, as a hostile player would post them ------------------------------

FUZZ = fuzz()
OWN = {"bob": "3", "carol": "4", "ncfrank": "7"}  # dave (5) posts each ballot's target
# (name, uid) of every kind of account: the player's own, renamed; look-alikes of every
# spelling; the exact name on a stranger's uid (a saved page of another board, a nickname).
ACCOUNTS = st.sampled_from(
    [(n, u) for n, u in OWN.items()]
    + [(f"{n}_new", u) for n, u in OWN.items()]
    + [(v, str(20 + i)) for i, v in enumerate(["bob。", "Bob", "bоb", "сarol", "carol!", "NCFRANK"])]
    + [(n, str(40 + i)) for i, n in enumerate(OWN)]
)
EXACT = {(n, str(40 + i)) for i, n in enumerate(OWN)}


@FUZZ
@given(st.lists(ACCOUNTS, min_size=1, max_size=8), st.booleans())
def test_a_lookalike_never_stops_while_the_players_account_posts(accounts, on_day_1):
    """Whatever look-alikes post, the count stops only for a player whose own uid no post
    carries while the name as the file writes it posts under another: every other mix is
    counted, each look-alike's ballot void."""
    posts = [(n, u, f"08 1{i % 10}:00", vote("dave")) for i, (n, u) in enumerate(accounts)]
    earlier = day_1(*[(n, u, "07 10:00", "我来了") for n, u in OWN.items()]) if on_day_1 else None
    shown = {u for _, u in accounts} | (set(OWN.values()) if on_day_1 else set())
    slips = sorted(n for n, u in EXACT if (n, u) in accounts and OWN[n] not in shown)
    t = thread(*posts)
    if slips:
        said = stop(game(), t, *([earlier] if earlier else []))
        assert re.search(rf"gives the player ({'|'.join(slips)}) the account id", said)
        return
    result = count(game(), t, *([earlier] if earlier else []))
    for b in result.ballots[: len(accounts)]:
        own = OWN.get(b.author.removesuffix("_new")) == b.author_id
        assert (b.voter is not None) == own, (b.author, b.author_id, b.voter)


@FUZZ
@given(st.lists(ACCOUNTS, min_size=1, max_size=8), st.sampled_from(sorted(OWN)))
def test_a_players_id_no_post_carries_always_stops(accounts, player):
    """The file's id for ``player`` typed as a uid no post carries, and the player posting
    under the name as the file writes it: always the one sentence, naming both uids."""
    others = {(n, u) for n, u in EXACT if n != player}  # another player's slip: not this one
    accounts = [a for a in accounts if a not in others and a[1] != OWN[player]]
    accounts.append((player, OWN[player]))
    posts = [(n, u, f"08 1{i % 10}:00", vote("dave")) for i, (n, u) in enumerate(accounts)]
    typo = game(WITH_IDS.replace(f'"{player}", id = {OWN[player]} ', f'"{player}", id = 99 '))
    said = stop(typo, thread(*posts))
    assert said.startswith(f"game 'game' gives the player {player} the account id 99, and no "
                           "post in tally's reads of thread 102 comes from it; ")  # fmt: skip
    assert re.search(rf"; {player}'s name posts under uids? ([\d and]* )?{OWN[player]}\b", said)


# -- on pages a real Discuz! X3.5 rendered (fixtures/discuz-accounts, swap-*) ----------------

REAL = FIXTURES / "discuz-accounts"
real = Runner()
VIEW = "forum.php?mod=viewthread&tid="


def real_game(tmp_path, forum, players: list[object]) -> str:  # type: ignore[no-untyped-def]
    """The real board's two days (uids 7, 8 and 9 the players, admin the director)."""
    path = gamefiles.write_game(
        tmp_path / "game.toml",
        gamefiles.day(1, forum.url(VIEW + "7"), "2026-12-06T10:25:00", "2026-12-06T10:34:00"),
        gamefiles.day(2, forum.url(VIEW + "8"), "2026-12-06T10:34:30", "2026-12-06T10:37:00"),
        name="[i49账号]", ruleset="default", directors=["admin"], players=players,
    )  # fmt: skip
    return str(path)


def real_votes(forum, game: str, tid: str, now: str, *extra: str):  # type: ignore[no-untyped-def]
    clock = FakeClock(f"2026-12-06 {now}", CHINA)
    return real.invoke(app, ["votes", forum.url(VIEW + tid), "--game", game, *extra],
                       obj=clock.env())  # fmt: skip


@pytest.mark.rules("V6", "C1")
def test_the_real_boards_swap_is_flagged_and_the_sheriffs_weight_named(forum, tmp_path):
    """Day 1 read that evening; the admin swaps i49lan's and i49mi's names; day 2 by names
    gives uid 8 i49lan's ballots and the sheriff i49kiwi's 2.5 puts i49lan (now uid 8, who
    played as i49mi) out: each name flagged with both uids; the look-alike is void."""
    game = real_game(tmp_path, forum, ["i49lan", "i49mi", "i49kiwi"])
    forum.add_discuz_thread("7", REAL, "swap-day1-before")
    day_one = real_votes(forum, game, "7", "10:34:40", "--json", "-q")
    assert day_one.exit_code == 0, day_one.output
    assert json.loads(day_one.stdout)["outcome"]["player"] == "i49kiwi"  # sheriff
    forum.add_discuz_thread("7", REAL, "swap-day1-after")
    forum.add_discuz_thread("8", REAL, "swap-day2")
    day_two = real_votes(forum, game, "8", "10:37:20", "--json", "-q")
    assert day_two.exit_code == 0, day_two.output
    data = json.loads(day_two.stdout)
    assert (data["outcome"]["player"], data["totals"][0]["votes"]) == ("i49lan", 2.5)
    notes = {f["player"]: f["note"] for f in data["flags"] if f["rule"] == "accounts" and f["player"]}
    assert notes["i49lan"].startswith("i49lan posts from uid 8 now, and tally read i49lan's "
                                      "posts from uid 7 before (tally's read of thread 7, ")  # fmt: skip
    assert notes["i49mi"].startswith("i49mi posts from uid 7 now, and tally read i49mi's posts "
                                     "from uid 8 before")  # fmt: skip
    fake = next(b for b in data["ballots"] if b["author"] == "i49kiwi。")
    assert (fake["author_id"], fake["reason"]) == ("10", "not_a_player")


def test_the_real_boards_typed_id_stops_and_the_right_one_counts(forum, tmp_path):
    """i49kiwi's uid, 9, typed 59: exit 0 and i49kiwi's ballot void as a look-alike of itself
    before; one sentence now."""
    players = [{"name": n, "id": i} for n, i in (("i49lan", 7), ("i49mi", 8), ("i49kiwi", 59))]
    game = real_game(tmp_path, forum, players)
    forum.add_discuz_thread("7", REAL, "swap-day1-before")
    said = week.one_sentence(real_votes(forum, game, "7", "10:34:40"))
    assert said == (
        f"tally: {game} gives the player i49kiwi the account id 59, and no post in tally's reads "
        "of thread 7 comes from it; i49kiwi's name posts under uid 9 (thread 7, floor 4): if uid "
        "9 is i49kiwi's account, give i49kiwi that id ({ name = \"i49kiwi\", id = 9 }); if it is "
        'another account that took the name, rule on floor 4 ([[rulings]], action = "void").'
    )
    Path(game).write_text(Path(game).read_text(encoding="utf-8").replace("id = 59", "id = 9"),
                          encoding="utf-8")  # fmt: skip
    counted = real_votes(forum, game, "7", "10:34:40", "--json", "-q")
    assert counted.exit_code == 0, counted.output
    assert json.loads(counted.stdout)["outcome"]["player"] == "i49kiwi"
