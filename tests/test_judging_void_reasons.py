"""A ballot that breaks several rules (issue 48): its row names the one a player acts on,
and the JSON keeps every one (``Ballot.reasons``; tally.rules.verdicts.NAMED_FIRST)."""

from __future__ import annotations

import pytest

from tally.outputs.written.announce import closing_post
from tally.vocabulary import Markup

from .votekit import T, game, run, vote


def ballot(result, floor: int, comment: bool = False):  # type: ignore[no-untyped-def]
    return next(b for b in result.ballots if b.floor == floor and b.comment == comment)


def closed(t: T) -> T:
    return t.post("丁", "09 21:50", "关门了")  # the thread read after the close


@pytest.mark.rules("V1", "V2", "V3")
def test_a_change_written_wrong_and_posted_the_wrong_way_is_named_for_the_way():
    """245 (seed 001): a change replies to the vote floor and gives its 改票理由. One posted
    from the reply box without its reason breaks both: 改票方式不符 is what the player mends
    (mending the words alone, the change is void again); 格式错误 is kept in ``reasons``."""
    t = closed(T().post("甲", "08 10:00", vote("乙")).post("甲", "08 11:00", "改票对象：丙"))
    result = run(game("245"), t)
    b = ballot(result, 3)
    assert (b.status, b.reason, b.reasons) == ("void", "change_not_reply", ("format", "change_not_reply"))
    assert b.note.startswith("a change must be posted as a reply of one's own vote (V3)")
    post = closing_post(result, game("245"), Markup.TEXT)
    assert "3楼 甲：改票方式不符" in post and "格式错误" not in post


@pytest.mark.rules("V2", "V3")
def test_000_forgives_the_reason_of_a_change_not_its_way():
    """000 asks a reason of the vote alone: `改票对象：丙` as a 点评 under one's vote counts;
    the same words posted as a new floor are void for the way only."""
    t = T().post("甲", "08 10:00", vote("乙")).comment(2, "甲", "08 11:00", "改票对象：丙")
    t.post("乙", "08 10:30", vote("甲")).post("乙", "08 12:00", "改票对象：丙")
    result = run(game("000"), closed(t))
    assert ballot(result, 2, comment=True).status == "counted"
    b = ballot(result, 4)
    assert (b.status, b.reason, b.reasons) == ("void", "change_not_reply", ("change_not_reply",))


@pytest.mark.rules("S2", "V1")
def test_a_late_ballot_written_wrong_is_named_late():
    t = T().post("甲", "09 21:40", "投票对象：乙")
    result = run(game("245"), t)
    b = ballot(result, 2)
    assert (b.reason, b.reasons) == ("after_close", ("after_close", "format"))


@pytest.mark.rules("V3", "V7")
def test_a_change_to_the_same_target_posted_the_wrong_way_changes_nothing():
    """改票对象未变 first (it changed nothing, whatever its way), the way kept beside it."""
    t = T().post("甲", "08 10:00", vote("乙")).post("甲", "08 11:00", "改票对象：乙\n改票理由：再投一次")
    b = ballot(run(game("000"), closed(t)), 3)
    assert (b.reason, b.reasons) == ("no_change", ("no_change", "change_not_reply"))


@pytest.mark.rules("V1", "V3")
def test_the_json_lists_every_reason_the_named_one_first(tmp_path):
    """`tally votes --json`: `reason` is the named one, `reasons` all of them, it first."""
    from tally.outputs.shown.json_output import day_json

    t = closed(T().post("甲", "08 10:00", vote("乙")).post("甲", "08 11:00", "改票对象：丙"))
    data = day_json(run(game("245"), t))
    [row] = [r for r in data["ballots"] if r["floor"] == 3]
    assert (row["reason"], row["reasons"]) == ("change_not_reply", ["change_not_reply", "format"])
    assert row["reason_words"] == "改票方式不符"
    assert all(r["reasons"] == [] for r in data["ballots"] if r["status"] == "counted")
