"""One voter's writings in the order they were posted, where the forum's clock cannot tell it
(RULES V2-V5, V7; issue 48).

A Discuz! 点评 shows its minute only (and so does every floor of a page that prints no
seconds): a 点评 shown 10:00 and a floor posted at 10:00:20 by the same voter may have come in
either order, and which came first decides whether a change changed anything, or was the
second. The forum orders some writings itself: floors by their
numbers, a 点评 after the floor it is under, the 点评 under one floor oldest first. The rest
are judged in every order they could have been posted in (``tally.rules.judging.changes.sequence``
each time): where every order gives the same count, a flag says they could not be ordered;
where only a void ballot's reason differs, its row names a reason that holds in every order;
where the ballot in force differs, the count stops for a ruling. A writing the director
voids is out of every order: that ruling settles the stop. Nothing published rests on a
guessed order.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta

from tally.i18n import tr
from tally.rules.game.game import Day
from tally.rules.game.rulesets import Ruleset
from tally.rules.judging.ballots import Flag
from tally.rules.judging.changes import sequence
from tally.rules.judging.work import Work
from tally.rules.verdicts import NAMED_FIRST, RulingAction, VoidReason, named_first
from tally.times import short

# Beyond this many orders of one voter's writings, tally does not try them all: it stops.
MOST_ORDERS = 720
_INSTANT = timedelta(microseconds=1)


def in_order(
    voter: str, seq: list[Work], day: Day, rules: Ruleset
) -> tuple[list[Flag], str | None]:
    """Judge ``voter``'s writings (``seq``, sorted by ``Work.order``) in the order they were
    posted; the flags for writings that could not be ordered, and a sentence when the count
    itself rests on their order (the caller stops on it)."""
    pairs = [(a, b) for a, b in itertools.combinations(seq, 2) if _unordered(a, b)]
    if not pairs:
        sequence(voter, seq, day, rules)
        return [], None
    orders = list(itertools.islice(_orders(seq, pairs), MOST_ORDERS + 1))
    if len(orders) > MOST_ORDERS:
        sequence(voter, seq, day, rules)
        return [], _stop(voter, pairs, day, tr("more than {n} orders", n=MOST_ORDERS))
    outcomes = []
    for order in orders[1:]:
        copies = {id(w): _copy(w) for w in seq}
        sequence(voter, [copies[id(w)] for w in order], day, rules)
        outcomes.append({id(w): copies[id(w)] for w in seq})
    sequence(voter, seq, day, rules)  # the order the times give, on the writings themselves
    decided = []
    for w in seq:
        others = [o[id(w)] for o in outcomes]
        if any(_standing(o) != _standing(w) for o in others):
            decided.append(w)
            continue
        if w.reason is None or all(set(o.reasons) == set(w.reasons) for o in others):
            continue
        common = set(w.reasons).intersection(*(o.reasons for o in others))
        if not common:
            decided.append(w)
            continue
        _name_for(w, common)
    if decided:
        return [], _stop(voter, pairs, day, tr("the ballot in force or its reason"))
    return [_flag(voter, a, b) for a, b in pairs], None


def _unordered(a: Work, b: Work) -> bool:
    """Whether the forum gives no order of ``a`` and ``b`` (``a`` sorted first) that the
    count needs: neither its floors' numbers nor a 点评's floor, and their times overlap (a
    点评 shows its minute), and neither is void by the director's ruling."""
    if _ruled_void(a) or _ruled_void(b):
        # The settlement the stop proposes (``_stop``): a writing voided so counts in no
        # order and changes nothing before or after it (no vote a fix answers, no change
        # spent). Judged in every order, it was a void vote in one and a void change in the
        # other, and that alone stopped the count again (real X3.5).
        return False
    if not a.is_comment and not b.is_comment:
        return False  # floors: their numbers
    if a.post.post_id == b.post.post_id:
        return False  # a 点评 after its floor; 点评 under one floor oldest first
    if not (a.to_the_minute or b.to_the_minute):
        return False
    first, last = _window(a), _window(b)
    return first[0] < last[1] and last[0] < first[1]


def _ruled_void(w: Work) -> bool:
    return w.ruling is not None and w.ruling.action == RulingAction.VOID


def _window(w: Work) -> tuple[datetime, datetime]:
    """When ``w`` may have been posted: its minute, for one shown to the minute (after the
    floor it is under; by a read of tally's that showed it), else its second."""
    return w.earliest, w.latest + _INSTANT


def _orders(seq: Sequence[Work], pairs: Sequence[tuple[Work, Work]]) -> Iterator[list[Work]]:
    """Every order of ``seq`` the forum allows, the given order first: only the pairs it
    cannot order may swap."""
    loose = {frozenset((id(a), id(b))) for a, b in pairs}
    index = {id(w): i for i, w in enumerate(seq)}

    def allowed(order: tuple[Work, ...]) -> bool:
        return all(
            index[id(x)] < index[id(y)] or frozenset((id(x), id(y))) in loose
            for x, y in itertools.combinations(order, 2)
        )

    # Only the writings of an unordered pair move; the others keep their places.
    moving = sorted({index[id(w)] for pair in pairs for w in pair})
    for chosen in itertools.permutations([seq[i] for i in moving]):
        order = list(seq)
        for place, w in zip(moving, chosen, strict=True):
            order[place] = w
        if allowed(tuple(order)):
            yield order


def _copy(w: Work) -> Work:
    made = copy.copy(w)
    made.notes, made.flags, made.reasons = list(w.notes), list(w.flags), list(w.reasons)
    made.said = dict(w.said)
    return made


def _standing(w: Work) -> tuple[object, ...]:
    return (w.status, w.target, w.time, w.is_change)


def _name_for(w: Work, common: set[VoidReason]) -> None:
    """Name ``w``'s row for a reason it is void for in every order: only those reasons'
    sentences are said of it (one that holds in one order alone rests on a guess)."""
    w.reason = named_first(common)
    w.reasons = [r for r in w.reasons if r in common]
    w.notes = [w.said[r] for r in sorted(common, key=NAMED_FIRST.index) if r in w.said]
    w.notes.append(
        tr(
            "posted in a minute shared with another of its voter's ballots, in an order the "
            "forum cannot tell: its row says {reason}, which holds in either order",
            reason=w.reason,
        )
    )


def _where(w: Work) -> str:
    at = short(w.posted_at, seconds=not w.to_the_minute)
    shown = tr("shown {at}, minutes only", at=at) if w.to_the_minute else at
    if w.is_comment:
        return tr("the 点评 under floor {floor} ({shown})", floor=w.post.floor, shown=shown)
    return tr("floor {floor} ({shown})", floor=w.post.floor, shown=shown)


def _flag(voter: str, a: Work, b: Work) -> Flag:
    note = tr(
        "{first} and {second}, both {player}'s, cannot be put in order (the forum shows a "
        "minute only): every order gives the same count",
        first=_where(a),
        second=_where(b),
        player=voter,
    )
    return Flag("same minute", note, voter, a.post.floor, a.post_id)


def _stop(voter: str, pairs: Sequence[tuple[Work, Work]], day: Day, what: str) -> str:
    a, b = pairs[0]
    more = tr(" (and {n} more such pairs)", n=len(pairs) - 1) if len(pairs) > 1 else ""
    ruling = f"[[rulings]] day = {day.day}, floor = {a.post.floor}, "
    ruling += f"comment = {a.comment_index}, " if a.comment_index is not None else ""
    return tr(
        "day {day}: {first} and {second}{more}, both {player}'s, cannot be put in order (the "
        "forum shows a minute only), and {what} depends on which came first: ask the forum's "
        "moderators or the player which came first, then void the one that must not count, "
        'like {ruling}action = "void".',
        day=day.day,
        first=_where(a),
        second=_where(b),
        more=more,
        player=voter,
        what=what,
        ruling=ruling,
    )
