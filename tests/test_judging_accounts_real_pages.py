"""Accounts by their id on pages a real Discuz! X3.5 rendered (fixtures/discuz-accounts):
the uid in each post's markup decides who wrote it — a renamed account is still the player
(and its closed day's result stands), a look-alike (`bob。`) is not bob, an impostor named
like the director (`admin。`) is no director and its fake 催票 carrying tally's mark stops
nothing."""

from __future__ import annotations

import json

import pytest

from tally.cli import app
from tally.demo.localforum import LocalForum

from . import gamefiles
from .conftest import CHINA, FIXTURES, FakeClock, Runner

runner = Runner()
PAGES = FIXTURES / "discuz-accounts"
THREAD = "forum.php?mod=viewthread&tid="


@pytest.fixture
def board(forum: LocalForum) -> LocalForum:
    """The two saved threads served again over HTTP as the board had them (tids 11 and 14),
    so that day 3's count reads day 2's thread as a director's run would."""
    forum.add_discuz_thread("11", PAGES, "day2-vote")
    forum.add_discuz_thread("14", PAGES, "day3-vote")
    return forum


def game(tmp_path, board: LocalForum, ids: bool = True) -> str:  # type: ignore[no-untyped-def]
    uids = {"alice": 2, "bob": 3, "dave": 5, "carol": 4, "ncfrank32": 10}
    players = [{"name": p, "id": uid} if ids else p for p, uid in uids.items()]
    director = {"name": "admin", "id": 1} if ids else "admin"
    path = gamefiles.write_game(
        tmp_path / "game.toml",
        gamefiles.day(2, board.url(THREAD + "11"), "2026-12-01T17:22:29", "2026-12-01T17:27:00"),
        gamefiles.day(3, board.url(THREAD + "14"), "2026-12-01T17:27:20", "2026-12-01T17:37:00"),
        name="[I32局]", ruleset="M126", directors=[director], players=players,
    )  # fmt: skip
    return str(path)


def votes(game_path: str, board: LocalForum, tid: str) -> dict:  # type: ignore[type-arg]
    clock = FakeClock("2026-12-01 18:00:00", CHINA)
    result = runner.invoke(app, ["votes", board.url(THREAD + tid), "--game", game_path, "--json", "-q"],
                           obj=clock.env())  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def rows(data: dict) -> dict[int, tuple]:  # type: ignore[type-arg]
    return {b["floor"]: (b["author"], b["author_id"], b["voter"], b["status"], b["reason"])
            for b in data["ballots"]}  # fmt: skip


def test_the_renamed_account_and_the_lookalike_by_their_uids(tmp_path, board):
    data = votes(game(tmp_path, board), board, "14")
    floors = rows(data)
    assert floors[2] == ("弗兰克32", "10", "ncfrank32", "counted", None)  # renamed: still the player
    assert floors[4] == ("bob", "3", "bob", "counted", None)
    assert floors[5] == ("bob。", "7", None, "void", "not_a_player")  # the look-alike
    assert floors[6][:4] == ("admin。", "9", None, "not_a_ballot")  # the fake 催票
    fake = next(b for b in data["ballots"] if b["floor"] == 6)
    # A look-alike's post that holds no ballot is a row naming whom it looks like (uid 1).
    assert fake["note"] == "admin。 is a look-alike of admin (uid 1), posted by uid 9: not a player of this game"
    assert 7 not in floors  # the director's own reminder: no row at all (issue 31)
    assert "ncfrank32" not in data["not_voted"] and data["not_voted"] == ["dave"]
    assert data["outcome"]["player"] == "dave"
    look = next(b for b in data["ballots"] if b["floor"] == 5)
    assert "bob。 is a look-alike of bob (uid 3), posted by uid 7" in look["note"]


def test_the_closed_day_counts_as_announced_after_the_rename(tmp_path, board):
    """Day 2, read after ncfrank32 became 弗兰克32: carol out, 4 of 5, as the director's
    post on floor 7 (with tally's mark) said."""
    data = votes(game(tmp_path, board), board, "11")
    assert data["outcome"]["result"] == "eliminated" and data["outcome"]["player"] == "carol"
    assert [t["votes"] for t in data["totals"]] == [4, 1]


def test_without_ids_the_names_alone_and_the_advice_once(tmp_path, board):
    data = votes(game(tmp_path, board, ids=False), board, "14")
    floors = rows(data)
    assert floors[5][2:4] == (None, "void")  # bob。 is not bob, even without ids
    assert floors[2][2:4] == (None, "void")  # the renamed account is lost without its id
    [advice] = [f for f in data["flags"] if f["rule"] == "accounts"]
    assert "the game file gives no account ids" in advice["note"]


def test_the_lookalike_is_named_once_on_its_row(tmp_path, board):
    """The terminal's row for the look-alike's ballot says who it looks like once: its note
    is also its flag, and a flag that repeats the note is not said again."""
    clock = FakeClock("2026-12-01 18:00:00", CHINA)
    result = runner.invoke(app, ["votes", board.url(THREAD + "14"), "--game", game(tmp_path, board)],
                           obj=clock.env())  # fmt: skip
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "not_a_player: bob。 is a look-alike of bob (uid 3)" in text  # the row
    assert "[flag: bob。 is a look-alike" not in text  # not said again on it
    assert "flag lookalike: floor 5: bob。 is a look-alike of bob (uid 3)" in text  # the list
