"""Who is who: players and directors are forum accounts, known by their id (Discuz! uid,
Tieba user id) when the game file gives it, by their exact name (NFKC alone) when it does
not. A look-alike account (``bob。`` beside ``bob``) is never the player; a renamed account
still is."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tally.errors import GameFileError, InputError
from tally.rules.game.gamefile import parse_game
from tally.rules.game.names import author_key

from .votekit import T, at, rows, vote

# Literal TOML (not tests/gamefiles.py): the players' ids are written in each way a director
# may write them (an id, none, a quoted one), and that text is what these tests read.
GAME = """
ruleset = "000"
directors = [{{ name = "admin", id = 1 }}]
players = [{players}]
[[days]]
day = 2
opens = 2024-05-08T09:30:00
closes = 2024-05-09T21:30:00
vote = "https://bbs.example.com/thread-102-1-1.html"
"""
WITH_IDS = (
    '{ name = "bob", id = 3 }, { name = "carol", id = 4 }, { name = "ncfrank", id = 7 }, '
    '{ name = "dave", id = 5 }'
)
WITHOUT_IDS = '"bob", "carol", "ncfrank", "dave"'


def game(players: str = WITH_IDS):  # type: ignore[no-untyped-def]
    text = GAME.format(players=players)
    if players == WITHOUT_IDS:  # an old game file: no id anywhere
        text = text.replace('{ name = "admin", id = 1 }', '"admin"')
    return parse_game(text, source="game.toml")


def thread(*posts: tuple[str, str | None, str, str]) -> T:
    """A vote thread of (author, uid, time, text) posts, the director's opening by uid 1."""
    t = T()
    t.posts[0] = replace(t.posts[0], author="admin", author_id="1")
    for author, uid, when, text in posts:
        t.post(author, when, text)
        t.posts[-1] = replace(t.posts[-1], author_id=uid)
    return t


def count(g, t):  # type: ignore[no-untyped-def]
    from tally.rules.counting.votes import tally_day

    return tally_day(t.thread(), g, 2)


def test_the_game_file_gives_each_account_its_id():
    g = game()
    assert g.players == ("bob", "carol", "ncfrank", "dave") and g.directors == ("admin",)
    assert g.ids == {"admin": "1", "bob": "3", "carol": "4", "ncfrank": "7", "dave": "5"}
    mixed = parse_game(GAME.format(players='"bob", { name = "carol", id = "4" }'), source="g")
    assert mixed.ids == {"admin": "1", "carol": "4"}  # old names beside new entries


@pytest.mark.parametrize(
    ("players", "said"),
    [
        ('{ name = "bob", id = "three" }', "the id of 'bob' must be a number, like 3"),
        ('{ name = "bob", id = 3 }, { name = "carol", id = 3 }', "'carol' and 'bob' are given one id, 3"),
        ('{ id = 3 }', "has no name"),
        ('{ name = "bob", uid = 3 }', "'players.uid': is not a key tally knows"),
        ('{ name = "bob", id = 1 }', "'admin' and 'bob' are given one id, 1: one account"),
    ],
)
def test_a_wrong_id_is_one_sentence(players, said):
    with pytest.raises(GameFileError, match=said.replace("(", r"\(")):
        game(players)


def test_a_lookalike_account_is_not_the_player():
    """bob。 (uid 9) posts a ballot: not bob's, a row naming the look-alike; bob's own
    ballot (uid 3) is bob's."""
    t = thread(
        ("bob", "3", "08 10:00", vote("carol")),
        ("bob。", "9", "08 11:00", "改票对象：dave\n改票理由：x"),
    )
    result = count(game(), t)
    assert rows(result)[:2] == [
        (2, "bob", "vote", "carol", "counted", None),
        (3, None, "vote", None, "void", "not_a_player"),
    ]
    fake = result.ballots[1]
    assert fake.author == "bob。" and fake.author_id == "9"
    assert "bob。 is a look-alike of bob (uid 3), posted by uid 9" in fake.note
    assert next(f.rule for f in result.flags if f.floor == 3) == "lookalike"


def test_the_same_name_with_another_id_is_a_lookalike_too():
    """A name written exactly as the player's, by another account (a saved page of another
    board, an account renamed to take the name): never the player, while the player's own
    account (uid 3) posts in what tally read. Without it, see test_gamefile_account_ids.py."""
    t = thread(("bob", "9", "08 10:00", vote("carol")), ("bob", "3", "08 10:30", "我晚点投"))
    result = count(game(), t)
    assert rows(result)[0] == (2, None, "vote", None, "void", "not_a_player")


def test_a_renamed_account_is_still_the_player_and_said_once():
    t = thread(
        ("弗兰克", "7", "08 10:00", vote("carol")),
        ("弗兰克", "7", "08 11:00", "同上"),
    )
    result = count(game(), t)
    assert rows(result)[0] == (2, "ncfrank", "vote", "carol", "counted", None)
    assert "ncfrank" not in result.not_voted
    [renamed] = [f for f in result.flags if f.rule == "renamed"]
    assert renamed.note == (
        "ncfrank (uid 7) posts as 弗兰克 now: the same account, counted as ncfrank"
    )


def test_without_ids_names_match_exactly_after_nfkc_only():
    """No punctuation fold, no case fold for authors: bob。 and Bob are other accounts;
    full-width letters are the same letters (NFKC)."""
    assert author_key("ｂｏｂ") == "bob" and author_key("bob。") != "bob"
    t = thread(
        ("bob。", "9", "08 10:00", vote("carol")),
        ("Bob", "10", "08 10:30", vote("carol")),
        ("ｃａｒｏｌ", "4", "08 11:00", vote("dave")),
        ("bob", "3", "08 12:00", vote("dave")),
    )
    result = count(game(WITHOUT_IDS), t)
    assert [r[1] for r in rows(result)[:4]] == [None, None, "carol", "bob"]
    assert "bob。 is a look-alike of bob, another account" in result.ballots[0].note
    [note] = [f for f in result.flags if f.rule == "accounts"]
    assert "the game file gives no account ids" in note.note
    assert 'players = [{ name = "bob", id = 3 }]' in note.note
    assert not [f for f in count(game(), t).flags if f.rule == "accounts"]  # with ids: quiet


def test_a_lookalike_of_the_director_is_no_director():
    """admin。 (uid 12) posts a "result": a post of a stranger, not the director's; the
    director's own account (uid 1) renamed stays the director."""
    g = game()
    assert not g.author("admin。", None, "12").is_director and not g.author("admin", None, "12").is_director
    assert g.author("管理员", None, "1").is_director and g.author("admin", None, "1").is_director
    assert g.author("admin").is_director and not g.author("admin!").is_director  # no id shown: the name
    result = count(g, thread(("admin。", "12", "08 10:00", "代投：bob\n" + vote("carol"))))
    assert rows(result)[0][1:] == (None, "vote", None, "void", "not_a_player")


def test_a_page_without_uids_falls_back_to_the_name():
    """A saved page that shows no uid: the name, exactly."""
    t = thread(("bob", None, "08 10:00", vote("carol")), ("bob。", None, "08 11:00", vote("dave")))
    result = count(game(), t)
    assert [r[1] for r in rows(result)[:2]] == ["bob", None]
    assert at("08 10:00") == result.ballots[0].posted_at


def test_a_reminder_mentions_a_renamed_player_by_the_name_it_posts_under():
    """ncfrank (uid 7), renamed 弗兰克, said something but has not voted: the 催票 @-mentions
    弗兰克, the name the forum knows now."""
    from tally.outputs.written.announce import reminder_context
    from tally.rules.counting.votes import tally_day

    t = thread(("弗兰克", "7", "08 10:00", "我晚点投"), ("bob", "3", "08 11:00", vote("carol")))
    result = tally_day(t.thread(), game(), 2)  # the thread ends 08 11:00: before the close
    assert result.provisional
    context = reminder_context(result, game())
    mentions = {n["player"]: n["mention"] for n in context["not_voted"]}
    assert mentions["ncfrank"] == "弗兰克" and mentions["carol"] == "carol"


def test_who_wrote_what_is_decided_once_per_count():
    """Game.cast decides each account once, when a stage first asks (by uid, then by name,
    the look-alike told apart), and gives every later stage that same decision."""
    from tally.rules.judging.judge import judge
    from tally.rules.judging.merges import seen_in_vote_thread

    g = game()
    t = thread(("bob", "3", "08 10:00", vote("carol")), ("bob。", "9", "08 10:00", vote("carol")),
               ("弗兰克", "5", "08 11:00", vote("bob"))).thread()  # fmt: skip
    cast = g.cast()
    for post in t.posts:
        first = cast.of(post)
        assert first == g.author(post.author, post.author_display, post.author_id)
        assert cast.of(post) is first  # asked again: the same decision, not a new one
    assert cast.of(t.posts[1]).player == "bob" and cast.of(t.posts[2]).lookalike == "bob"
    day = g.day(2)
    seen = seen_in_vote_thread(t, day)
    assert judge(t, g, day, cast=cast, seen=seen) == judge(t, g, day, cast=g.cast(), seen=seen)


def test_each_writing_is_read_once_per_count(monkeypatch):
    """Each word once: a count reads the ballot of each writing of the vote thread once, and
    the rows that hold no ballot (V6: listed, never counted) come from that same reading,
    not from a second pass over the thread."""
    from tally.rules.judging import ballot_text

    g = game()
    t = thread(("bob", "3", "08 10:00", vote("carol")), ("carol", "4", "08 10:05", "我来了"),
               ("dave", "5", "08 11:00", vote("bob")),
               ("ncfrank", "7", "08 11:30", "没想好，晚点投"))  # fmt: skip
    read: list[str] = []
    once = ballot_text.read_ballot

    def counted(text: str, **kw: object) -> ballot_text.Reading:
        read.append(text)
        return once(text, **kw)  # type: ignore[arg-type]

    # The judge reads through read_boxed (a ballot in a quote box the poster typed).
    monkeypatch.setattr(ballot_text, "read_ballot", counted)
    result = count(g, t)
    assert sorted(read) == sorted(p.text for p in t.thread().posts[1:])
    assert [r.floor for r in result.remarks] == [3, 5]
    assert {b.voter for b in result.ballots} == {"bob", "dave"}


# A target that the page makes another player's (found on the real X3.5: heidi renamed
# "eve." beside eve; frank's and grace's names swapped in admin.php). RULES V7 (a ballot's
# target), docs/refusals.md "Renamed and look-alike accounts": the account is the person.


def ruled(floor: int, target: str):  # type: ignore[no-untyped-def]
    extra = f'\n[[rulings]]\nday = 2\nfloor = {floor}\naction = "accept"\ntarget = "{target}"\n'
    return parse_game(GAME.format(players=WITH_IDS) + extra, source="game.toml")


def test_a_target_written_as_the_name_another_players_account_shows_now_stops():
    """ncfrank (uid 7) renamed "bob."; carol's "投票对象：bob." is bob by the file (a full
    stop ends the name) and ncfrank's account by the page: counted silently for bob on main.
    tally cannot tell, so it stops, naming both accounts and the ruling that settles it."""
    from tally.errors import InputError

    t = thread(
        ("bob.", "7", "08 10:00", vote("dave")),
        ("carol", "4", "08 11:00", vote("bob.")),
    )
    with pytest.raises(InputError, match="tally cannot tell whom 1 ballot names") as stop:
        count(game(), t)
    said = str(stop.value)
    assert "tally cannot tell whom 1 ballot names (floor 3: 'bob.' reads as bob's name (uid 3)" in said
    assert "the name ncfrank's account (uid 7) shows now" in said
    assert 'floor = 3, action = "accept", target = "PLAYER"' in said
    # The director's ruling settles it.
    result = count(ruled(3, "ncfrank"), t)
    assert rows(result)[1] == (3, "carol", "vote", "ncfrank", "counted", None)


def test_swapped_names_stop_for_each_ballot_naming_one_of_them():
    """bob (3) and carol (4) swapped names: the file's bob is the page's carol. dave's
    ballot for "bob" was counted for uid 3 with no note on main, though every page shows
    "bob" on uid 4."""
    from tally.errors import InputError

    t = thread(
        ("carol", "3", "08 10:00", vote("dave")),
        ("bob", "4", "08 10:10", vote("dave")),
        ("dave", "5", "08 11:00", vote("bob")),
    )
    with pytest.raises(InputError, match=r"floor 4: 'bob' reads as bob's name \(uid 3\) in the "
                       r"game file and is the name carol's account \(uid 4\) shows now"):  # fmt: skip
        count(game(), t)


def test_a_target_only_like_another_players_name_now_is_counted_and_flagged():
    """ncfrank renamed "bob."; "bob。" (a full-width full stop) is read as bob, as the file
    names him, and flagged with both accounts (no flag on main)."""
    t = thread(
        ("bob.", "7", "08 10:00", vote("dave")),
        ("carol", "4", "08 11:00", vote("bob。")),
        ("dave", "5", "08 12:00", vote("bob")),  # bob as bob's own account shows it: no flag
    )
    result = count(game(), t)
    assert rows(result)[1:] == [
        (3, "carol", "vote", "bob", "counted", None),
        (4, "dave", "vote", "bob", "counted", None),
    ]
    notes = [f.note for f in result.flags if f.rule == "lookalike"]
    assert notes == [
        "'bob。' is counted for bob (uid 3), and it reads as 'bob.', the name ncfrank's "
        "account (uid 7) shows now (renamed): check whom the voter meant"
    ]


def test_a_renamed_players_name_that_looks_like_another_player_is_flagged():
    """ncfrank renamed "bоb" (a Cyrillic о): "bоb" as written is ncfrank's account, counted
    for ncfrank with the renamed note, and it looks like bob: flagged ``lookalike`` with both
    uids (only the note on main)."""
    t = thread(
        ("bоb", "7", "08 10:00", vote("dave")),
        ("carol", "4", "08 11:00", vote("bоb")),
    )
    result = count(game(), t)
    assert rows(result)[1] == (3, "carol", "vote", "ncfrank", "counted", None)
    assert "'bоb' is the name ncfrank's account shows now (renamed)" in result.ballots[1].note
    assert [f.note for f in result.flags if f.rule == "lookalike"] == [
        "'bоb' is counted for ncfrank (uid 7), whose account shows that name now, and it looks "
        "like 'bob' (uid 3), another player: check whom the voter meant"
    ]


def test_a_players_name_that_another_account_took_is_flagged():
    """bob (3) renamed bob_real, and uid 11 (no player) renamed bob: "投票对象：bob" is counted
    for bob, the player, and flagged with uid 11 (no flag on main: the names were equal)."""
    t = thread(
        ("bob_real", "3", "08 10:00", vote("dave")),
        ("bob", "11", "08 10:10", vote("dave")),
        ("dave", "5", "08 11:00", vote("bob")),
    )
    result = count(game(), t)
    assert rows(result)[2] == (4, "dave", "vote", "bob", "counted", None)
    assert (
        "floor 4",
        "'bob' is counted for bob (uid 3), and it reads as 'bob', another account posting here "
        "(uid 11), no player: check whom the voter meant",
    ) in [(f"floor {f.floor}", f.note) for f in result.flags if f.rule == "lookalike"]


def test_init_leaves_out_a_homoglyph_account_as_it_leaves_out_bob_dot():
    """tally init kept "сarol" (a Cyrillic с, uid 11) beside carol (uid 4) as a player with
    no word, while tally votes flags that name as a look-alike: it is left out like "bob。"."""
    from tally.outputs.written.draft import draft

    t = thread(
        ("carol", "4", "08 10:00", vote("dave")),
        ("сarol", "11", "08 10:05", vote("dave")),
        ("bob。", "9", "08 10:06", vote("dave")),
        ("bob", "3", "08 10:07", vote("dave")),
    )
    made = draft([t.thread()], [None], "Asia/Shanghai")
    assert "carol" in made.players and "сarol" not in made.players
    assert '# left out: { name = "сarol", id = 11 } reads as carol to tally' in made.text
    assert any("сarol" in item for item in made.todo)


def test_an_account_posting_under_a_players_name_is_named_by_its_uid_in_the_posts():
    """uid 11 (no player) renamed bob, bob (3) renamed bob_real: the closing post said
    "3楼 bob：非玩家" and lurkers "bob posted on … and is not a player of this game", as if
    player bob were voided. Both name the account's uid now (RULES V6: one vote per player)."""
    from tally.outputs.written.announce import close_context
    from tally.rules.cards.lurkers import check
    from tally.rules.cards.writings import DayThreads

    t = thread(
        ("bob_real", "3", "08 10:00", vote("dave")),
        ("bob", "11", "08 10:10", vote("dave")),
    )
    g = parse_game(GAME.format(players=WITH_IDS).replace(
        'vote = "', 'discussion = "https://bbs.example.com/thread-102-1-1.html"\nvote = "'
    ), source="game.toml")  # fmt: skip
    result = count(g, t)
    said = close_context(result, g, provisional=True)
    assert [b["voter"] for b in said["counted"]] == ["bob"]
    assert [(b["floor"], b["voter"], b["void_reason"]) for b in said["void"]] == [
        (3, "bob（uid 11）", "非玩家")
    ]
    read = t.thread()
    flags = check(g, [DayThreads(g.day(2), read, read)], 2).flags
    assert [f.note for f in flags if f.rule == "roster"] == [
        "bob (uid 11) posted on floor 3 and is not a player of this game: not the player bob (uid 3)"
    ]


@pytest.mark.rules("V6", "V7")
def test_a_target_that_another_players_account_showed_before_stops():
    """From the second real-forum session: bob (uid 3) was renamed "bobby" and three voted
    "bobby"; then bob was renamed "bob2" and carol (uid 4) "bobby": the ballots counted for
    carol, exit 0, as the page shows the name now. tally's earlier read showed "bobby" on
    bob's account: whom they name cannot be told from the page now."""
    from tally.model import History, Version

    from .votekit import at

    then = thread(("bobby", "3", "08 10:00", vote("dave")), ("dave", "5", "08 11:00", vote("bobby")))
    now = thread(("bob2", "3", "08 10:00", vote("dave")), ("dave", "5", "08 11:00", vote("bobby")),
                 ("bobby", "4", "08 12:00", vote("dave")))  # fmt: skip
    earlier = then.thread()
    read = replace(now.thread(), history=History((Version(1, at("08 11:30"), earlier.posts),)))
    from tally.rules.counting.votes import tally_day

    with pytest.raises(InputError, match=r"'bobby' is counted for carol \(uid 4\), and it was the name bob's account \(uid 3\) showed"):
        tally_day(read, game(), 2)
    # Without the earlier read, the page alone: carol's name now (renamed), as before.
    assert any(b.target == "carol" for b in tally_day(now.thread(), game(), 2).ballots)
