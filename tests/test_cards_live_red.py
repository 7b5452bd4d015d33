"""A red card given while a count runs (K2): `tally watch` and the desk read the card ledger
at each poll and each action, not once at their start. Before, a player sent off by a card
confirmed in the desk (or by `tally cards` in another terminal) still voted, and was counted,
in the live count and in the closing post, until the watch or the desk was started again."""

from __future__ import annotations

import pytest

from tally.commands.run import with_ledger
from tally.commands.watch import Schedule, read_polls
from tally.rules.counting.state import Source
from tally.rules.game.gamefile import load_game
from tally.rules.verdicts import Status, VoidReason

from .desk_game import Setup

RED = "\ufeffday,player,colour,rule,reason,source\r\n1,冷月,red,L8,刷屏,director\r\n"


@pytest.fixture
def setup(forum, tmp_path):
    return Setup(forum, tmp_path)


def _ledger(setup: Setup):  # type: ignore[no-untyped-def]
    return setup.game_path.with_name("game.cards.csv")


def _lengyue(result):  # type: ignore[no-untyped-def]
    [ballot] = [b for b in result.ballots if b.voter == "冷月"]
    return ballot


@pytest.mark.rules("K2", "V9")
def test_a_red_card_given_during_a_watch_voids_the_ballot_at_the_next_poll(setup):
    game = with_ledger(load_game(setup.game_path))
    polls = read_polls(game, setup.vote_url(), day=2, schedule=Schedule(every=60, polls=3),
                       reader=setup.reader())  # fmt: skip
    first = next(polls)
    assert _lengyue(first.result).status is Status.COUNTED
    _ledger(setup).write_text(RED, encoding="utf-8")  # `tally cards` in another terminal
    second = next(polls)
    assert second.ok, second.error
    ballot = _lengyue(second.result)
    assert (ballot.status, ballot.reason) == (Status.VOID, VoidReason.DEAD_VOTER)
    # Said where it comes from, and shown to the director as a change of the live count.
    assert any(f.player == "冷月" and f.source is Source.LEDGER for f in second.result.facts)
    assert any(c.floor == 2 and c.was is Status.COUNTED for c in second.changes)


@pytest.mark.rules("K2")
def test_a_ledger_broken_during_a_watch_keeps_the_last_count_until_it_is_mended(setup):
    game = with_ledger(load_game(setup.game_path))
    polls = read_polls(game, setup.vote_url(), day=2, schedule=Schedule(every=60, polls=3),
                       reader=setup.reader())  # fmt: skip
    first = next(polls)
    _ledger(setup).write_text("day,player\r\n1\r\n", encoding="utf-8")
    broken = next(polls)
    # No count without the ledger (it may hold a red card): the last good one, and why.
    assert not broken.ok and "game.cards.csv" in (broken.error or "")
    assert broken.result is first.result
    _ledger(setup).write_text(RED, encoding="utf-8")
    mended = next(polls)
    assert mended.ok and _lengyue(mended.result).reason is VoidReason.DEAD_VOTER


@pytest.mark.rules("K2")
def test_the_desk_counts_with_a_red_card_given_after_it_started(setup):
    desk = setup.desk(every=5.0)
    try:
        assert "白桃：1 票（冷月）" in desk.announcement(2, _close()).text
        _ledger(setup).write_text(RED, encoding="utf-8")  # `tally cards`, after the start
        after = desk.announcement(2, _close()).text
        assert "冷月：已出局者投票" in after and "白桃：1 票" not in after
    finally:
        desk.close()


def _close():  # type: ignore[no-untyped-def]
    from tally.vocabulary import Announcement

    return Announcement.CLOSE


@pytest.mark.rules("K2")
def test_the_archive_library_function_loads_the_game_with_its_ledger(setup, tmp_path):
    """`archive(game=path)` called as a library loaded the game without the card ledger, so
    its database counted a sent-off player's ballot that `tally archive --db` voided."""
    import sqlite3

    from tally.commands.archive import archive

    setup.close()
    _ledger(setup).write_text(RED, encoding="utf-8")
    db = tmp_path / "game.db"
    archive(None, None, db=db, game=setup.game_path, reader=setup.reader())
    with sqlite3.connect(db) as con:
        [(status, reason)] = con.execute(
            "select status, reason from ballots where day = 2 and voter = '冷月'"
        ).fetchall()
    assert (status, reason) == ("void", "dead_voter")
