"""A board is one with or without ``www.`` (docs/reading.md: thread URLs are pasted either way): tally's
mark on its posts names the game by its board without it, so a co-director's copy of the game
file whose URLs were pasted from www.… finds the post the other copy made, and stops. On a
real X3.5 such a copy (its own journal, another template) posted day 1's result a second time:
its mark named the game by www.… and the first post's did not."""

from __future__ import annotations

import hashlib
from pathlib import Path

from tally.rules.counting.closed import mark, marked_post, marks
from tally.rules.game.gamefile import load_game
from tally.vocabulary import Announcement

from . import gamefiles
from .conftest import read_one
from .test_announcing_post import after_close, announce, board, setup  # noqa: F401 (board: a fixture)


def test_a_copy_of_the_game_file_with_www_finds_the_post_and_stops(board, tmp_path):  # noqa: F811
    url, game, cookies = setup(board, tmp_path)
    clock = after_close(board)
    first = announce(game, cookies, clock, "--yes")
    assert first.exit_code == 0, first.stderr
    host = url.split("//")[1].split("/")[0]
    copy = tmp_path / "co" / "game.toml"
    copy.parent.mkdir()
    text = Path(game).read_text(encoding="utf-8")
    copy.write_text(text.replace(f"//{host}/", f"//www.{host}/"), encoding="utf-8")
    bare, www = load_game(game), load_game(copy)
    assert "www." in www.days[-1].vote_ref.base and "www." not in bare.days[-1].vote_ref.base
    assert mark(bare, 2, Announcement.CLOSE) == mark(www, 2, Announcement.CLOSE)
    # The thread as tally reads it (the copy's URLs name no host this machine can resolve):
    # the post the first copy made is the copy's post too.
    thread = read_one(url)
    [day2] = [d for d in www.days if d.day == 2]
    found = marked_post(www, day2, Announcement.CLOSE, thread, cast=www.cast())
    assert found is not None and (found.floor, found.author) == (20, "导演A")


def test_a_mark_an_earlier_tally_posted_from_a_www_copy_is_found():
    """A tally before this one named the game by the board with its ``www.``: its mark on a
    post already made is looked for too, so an upgrade mid-game posts nothing twice."""
    text = gamefiles.game_toml(
        gamefiles.day(2, "https://www.bbs.example.com/forum.php?mod=viewthread&tid=102"),
        name="g", ruleset=None, directors=["admin"], players=["alice", "bob"],
    )
    from tally.rules.game.gamefile import parse_game

    game = parse_game(text)
    before = hashlib.sha256(b"www.bbs.example.com/discuz:102").hexdigest()[:8]
    now = hashlib.sha256(b"bbs.example.com/discuz:102").hexdigest()[:8]
    assert marks(game, 2, Announcement.CLOSE) == (
        f"tally#{now}/d2/close", f"tally#{before}/d2/close")  # fmt: skip
    # And from the file without www.: the copy with it posted with an earlier tally.
    bare = parse_game(text.replace("https://www.", "https://"))
    assert marks(bare, 2, Announcement.CLOSE) == marks(game, 2, Announcement.CLOSE)
