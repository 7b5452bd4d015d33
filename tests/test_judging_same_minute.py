"""A voter's writings the forum's clock cannot put in order (issue 48, item 3): a Discuz! 点评
shows its minute only, so a 点评 shown 10:00 and a floor posted at 10:00:58 may have come in
either order. tally judges them in every order the forum allows (tally.rules.judging.ordering): the
same count either way is flagged, a void ballot's row names a reason true either way, and a
count that rests on the order stops for a ruling."""

from __future__ import annotations

import dataclasses
import re

import pytest

from tally.errors import InputError

from .votekit import T, at, game, run, vote


def minute_comment(t: T, floor: int, author: str, time: str, text: str) -> T:
    """A 点评 as Discuz! shows it: its minute only."""
    t.comment(floor, author, time, text)
    p = t.posts[floor - 1]
    last = dataclasses.replace(p.comments[-1], time=at(time), to_the_minute=True)
    t.posts[floor - 1] = dataclasses.replace(p, comments=(*p.comments[:-1], last))
    return t


def exact(t: T, author: str, stamp: str, text: str, **kw: int) -> T:
    """A floor posted at ``stamp`` ("08 10:00:58"), to the second."""
    t.post(author, stamp[:8], text, **kw)
    p = t.posts[-1]
    t.posts[-1] = dataclasses.replace(p, time=at(stamp[:8]).replace(second=int(stamp[9:])))
    return t


def closed(t: T) -> T:
    return t.post("丁", "09 21:50", "关门了")


def ballot(result, floor: int, comment: bool = False):  # type: ignore[no-untyped-def]
    return next(b for b in result.ballots if b.floor == floor and b.comment == comment)


@pytest.mark.rules("V3", "V7")
def test_a_quote_change_and_a_comment_change_in_one_minute_are_never_named_no_change():
    """The case found on the real X3.5 (000): 甲's 引用 change at 10:00:58 and a 点评 change
    shown 10:00 (posted 2 s after the floor, in the same minute). Sorted by its minute, it came
    first and the 引用 change was 改票对象未变, resting on a guessed order. Now: the 点评 counts in
    either order, the 引用 one is 改票方式不符 (true in either), and a flag says so."""
    t = T().post("甲", "08 09:40", vote("乙"))
    exact(t, "甲", "08 10:00:58", "改票对象：丙\n改票理由：改", quote=2)
    minute_comment(t, 2, "甲", "08 10:00", "改票对象：丙\n改票理由：改")
    result = run(game("000"), closed(t))
    assert ballot(result, 2, comment=True).status == "counted"
    quoted = ballot(result, 3)
    assert (quoted.status, quoted.reason) == ("void", "change_not_reply")
    # Nothing said of it rests on the guessed order (改票对象未变 holds in one order alone).
    assert quoted.reasons == ("change_not_reply",) and "same target" not in quoted.note
    [flag] = [f for f in result.flags if f.rule == "same minute"]
    assert "cannot be put in order" in flag.note and "every order gives the same count" in flag.note
    assert "the 点评 under floor 2 (shown 05-08 10:00, minutes only)" in flag.note


@pytest.mark.rules("V4")
def test_the_count_that_rests_on_the_order_stops_for_a_ruling():
    """M126 (any way, no limit): a 点评 change shown 10:00 to 丙 and a floor change at 10:00:30
    to 丁. Which stands is which came last: the count stops, saying how to settle it."""
    t = T().post("甲", "08 09:40", vote("乙"))
    exact(t, "甲", "08 10:00:30", "改票对象：丁")
    minute_comment(t, 2, "甲", "08 10:00", "改票对象：丙")
    with pytest.raises(InputError, match="cannot be put in order") as stop:
        run(game("M126"), closed(t))
    said = str(stop.value)
    assert said.startswith("day 2: the 点评 under floor 2 (shown 05-08 10:00, minutes only) and "
                           "floor 3 (05-08 10:00:30), both 甲's, cannot be put in order")
    assert "the ballot in force or its reason depends on which came first" in said
    assert '[[rulings]] day = 2, floor = 2, comment = 1, action = "void"' in said
    ruled = game("M126", extra='[[rulings]]\nday = 2\nfloor = 2\ncomment = 1\naction = "void"\n')
    result = run(ruled, closed(t))
    assert ballot(result, 3).status == "counted" and ballot(result, 3).target == "丁"


@pytest.mark.rules("V3")
def test_writings_the_forum_orders_are_never_questioned():
    """Floors by their numbers, a 点评 after its own floor, the 点评 under one floor oldest
    first: no flag, even all in one minute."""
    t = T()
    exact(t, "甲", "08 10:00:05", vote("乙"))
    minute_comment(t, 2, "甲", "08 10:00", "改票对象：丙")
    minute_comment(t, 2, "甲", "08 10:00", "改票对象：丁")
    exact(t, "乙", "08 10:00:20", vote("甲"))
    exact(t, "乙", "08 10:00:40", "改票对象：丙\n改票理由：x", quote=3)
    result = run(game("000"), closed(t))
    assert not [f for f in result.flags if f.rule == "same minute"]
    assert (ballot(result, 2, comment=True).status, ballot(result, 2).status) == ("counted", "superseded")
    assert [b.reason for b in result.ballots if b.comment][1] == "second_change"


@pytest.mark.rules("V7")
def test_a_comment_a_minute_away_is_in_order():
    """A 点评 shown 10:01 came after a floor posted at 10:00:58: no question."""
    t = T().post("甲", "08 09:40", vote("乙"))
    exact(t, "甲", "08 10:00:58", "改票对象：丙\n改票理由：改", quote=2)
    minute_comment(t, 2, "甲", "08 10:01", "改票对象：丙\n改票理由：改")
    result = run(game("000"), closed(t))
    assert not [f for f in result.flags if f.rule == "same minute"]
    assert ballot(result, 3).reason == "change_not_reply"  # before the 点评: the way is wrong


def proposed(stop: pytest.ExceptionInfo[InputError]) -> str:
    """The ruling a stop proposes (``[[rulings]] day = 2, floor = 3, …action = "void"``), as
    the director adds it to the game file: one key a line."""
    found = re.search(r"\[\[rulings\]\] (day = .*?action = \"void\")", str(stop.value))
    assert found is not None, str(stop.value)
    return "[[rulings]]\n" + "\n".join(found.group(1).split(", ")) + "\n"


@pytest.mark.rules("V3", "V7")
def test_the_ruling_the_stop_proposes_settles_it():
    """The case found on a real X3.5 (000): 甲's floor void for its format, a 点评 under
    another's floor shown 10:00 and a floor at 10:00:19, in an order the forum cannot tell.
    The stop proposed voiding the 点评; with that ruling in the game file the count stopped
    the same: the 点评, void in either order, was a void vote in one and a void change in the
    other, and that difference alone stopped it. A writing the director voids counts in no
    order and changes nothing before or after it: the ruling settles it."""
    t = T().post("甲", "08 09:40", "投票对象：丙\n投票理由 没有冒号")
    t.post("乙", "08 09:50", vote("甲"))
    minute_comment(t, 3, "甲", "08 10:00", vote("乙"))
    exact(t, "甲", "08 10:00:19", vote("丙"))
    closed(t)
    with pytest.raises(InputError, match="cannot be put in order") as stop:
        run(game("000"), t)
    ruling = proposed(stop)
    assert ruling == '[[rulings]]\nday = 2\nfloor = 3\ncomment = 1\naction = "void"\n'
    result = run(game("000", extra=ruling), t)
    comment = ballot(result, 3, comment=True)
    assert (comment.status, comment.reason, comment.ruling) == ("void", "ruling", "void")
    assert (ballot(result, 4).status, ballot(result, 4).target) == ("counted", "丙")
    # Settled by the director: no flag says the two could not be ordered.
    assert not [f for f in result.flags if f.rule == "same minute"]
