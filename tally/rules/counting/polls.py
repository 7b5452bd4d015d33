"""What changed between two counts of one day (``tally watch``): ballots that came, went or
changed status, and who leads; a poll (a count at a time, with what changed); and how far
the leader is from a majority (C6).

A ballot is the same ballot in both counts when its post (or 点评/楼中楼) id is: a floor
number can move when the forum deletes a floor, a post id never does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from tally.i18n import N_, tr
from tally.rules.counting.count import votes_text
from tally.rules.counting.votes import DayResult
from tally.rules.game.game import Game
from tally.rules.judging.ballots import Ballot
from tally.rules.verdicts import BallotKind, Status, VoidReason


class ChangeKind(StrEnum):
    NEW = "new"  # a ballot the last count did not have
    STATUS = "status"  # a ballot whose status changed (counted → superseded, → void, …)
    GONE = "gone"  # a ballot no longer in the thread (deleted or hidden by the forum)
    LEADERS = "leaders"  # who leads changed


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    text: str  # one line for the director, in the language of the rest of the screen
    floor: int | None = None
    comment: bool = False
    post_id: str | None = None
    voter: str | None = None
    ballot: BallotKind | None = None
    target: str | None = None
    status: Status | None = None
    was: Status | None = None  # the status in the last count (STATUS, GONE)
    reason: VoidReason | None = None
    note: str = ""


@dataclass(frozen=True)
class Poll:
    number: int  # 1, 2, …
    at: datetime  # when this poll began
    result: DayResult | None  # the last good count: this poll's when it read the thread
    changes: tuple[Change, ...]  # since the last good count
    error: str | None  # why this poll could not read the thread (the count is older)
    failing_since: datetime | None  # when reads began to fail, while they do
    last_read: datetime | None  # when the thread was last read whole
    requests: int  # HTTP requests this poll sent (robots.txt and retries included)
    full: bool  # every page was read again, none taken from memory or the cache
    final: bool  # the count after the close: the day's result
    every: float  # the seconds between polls, as the forum allows
    next_at: datetime | None  # when the next poll is due; None after the last
    # The game as the poll counted with it: the file and its ledger as they were then.
    game: Game | None = None
    # What the poll has to say beside its count (the game file changed since the last).
    notes: tuple[str, ...] = ()
    # How far the forum's clock is ahead of this computer's (its times above are the
    # forum's): a screen's countdown ticks by it between polls.
    offset: timedelta = timedelta(0)

    @property
    def ok(self) -> bool:
        return self.error is None


def _key(b: Ballot) -> tuple[str, bool]:
    return (b.post_id, b.comment)


def _where(b: Ballot) -> str:
    if b.comment:
        return tr("floor {floor} 点评", floor=b.floor)
    return tr("floor {floor}", floor=b.floor)


def _what(b: Ballot) -> str:
    """ "阿澈 vote 小眯": who, the kind of ballot, whom (each kind its own words)."""
    fields = {"voter": b.voter or b.author, "target": b.target or b.written or "?"}
    if b.kind is BallotKind.CHANGE:
        return tr("{voter} change {target}", **fields)
    if b.kind is BallotKind.ABSTAIN:
        return tr("{voter} abstain {target}", **fields)
    if b.kind is BallotKind.PROXY:
        return tr("{voter} proxy {target}", **fields)
    return tr("{voter} vote {target}", **fields)


# A status as a line of ``tally watch`` says it (its JSON value in English).
_STATUS_WORDS = {
    Status.COUNTED: N_("counted"),
    Status.SUPERSEDED: N_("superseded"),
    Status.VOID: N_("void"),
    Status.NOT_A_BALLOT: N_("not_a_ballot"),
    Status.BANNED: N_("banned"),
    Status.DELETED: N_("deleted"),
    Status.MOVED_IN: N_("moved_in"),
    Status.DISCUSSION: N_("discussion"),
}


def _change(kind: ChangeKind, b: Ballot, text: str, was: Status | None = None) -> Change:
    return Change(
        kind=kind,
        text=text,
        floor=b.floor,
        comment=b.comment,
        post_id=b.post_id,
        voter=b.voter or b.author,
        ballot=b.kind,
        target=b.target or b.written or None,
        status=b.status,
        was=was,
        reason=b.reason,
        note=b.note,
    )


def _status_text(b: Ballot) -> str:
    if b.status == Status.VOID and b.reason is not None:
        return tr("void ({reason}: {note})", reason=b.reason, note=b.note)
    return tr(_STATUS_WORDS.get(b.status, b.status))


def changes(before: DayResult | None, after: DayResult) -> tuple[Change, ...]:
    """What ``after`` says that ``before`` (the last count) did not, in floor order; the
    first count has nothing to compare with, and no changes."""
    if before is None:
        return ()
    old = {_key(b): b for b in before.ballots}
    new = {_key(b): b for b in after.ballots}
    found: list[tuple[tuple[int, bool], Change]] = []
    for key, b in new.items():
        was = old.get(key)
        if was is None:
            text = tr("{where}: new {what}, {status}", where=_where(b), what=_what(b),
                      status=_status_text(b))  # fmt: skip
            found.append(((b.floor, b.comment), _change(ChangeKind.NEW, b, text)))
        elif was.status != b.status or was.reason != b.reason or was.target != b.target:
            text = tr("{where}: {what} was {was}, now {status}", where=_where(b), what=_what(b),
                      was=_status_text(was), status=_status_text(b))  # fmt: skip
            found.append(((b.floor, b.comment), _change(ChangeKind.STATUS, b, text, was.status)))
    for key, b in old.items():
        if key not in new:
            text = tr("{where}: {what} is gone from the thread (deleted or hidden)",
                      where=_where(b), what=_what(b))  # fmt: skip
            found.append(((b.floor, b.comment), _change(ChangeKind.GONE, b, text, b.status)))
    found.sort(key=lambda item: item[0])
    result = [c for _, c in found]
    if before.leaders != after.leaders:
        result.append(
            Change(ChangeKind.LEADERS, tr("leading now: {leaders}", leaders=_leaders_text(after)))
        )
    return tuple(result)


def _leaders_text(result: DayResult) -> str:
    if not result.leaders:
        return tr("nobody (no votes)")
    top = result.totals[0].votes
    return tr("{players} on {top}", players="、".join(result.leaders), top=votes_text(top))
