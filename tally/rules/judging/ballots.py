"""A ballot as judged, and a flag for the director: what the judge hands to the count.

``tally.rules.judging.ballot_text`` reads what a post says; ``tally.rules.judging.judge``
decides whether it counts; these are its answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from tally.i18n import tr
from tally.rules.verdicts import BallotKind, RulingAction, Status, VoidReason


@dataclass(frozen=True)
class Flag:
    """Something the director should look at; not itself a decision."""

    rule: str
    note: str
    player: str | None = None
    floor: int | None = None
    post_id: str | None = None
    # The thread the floor is in, where a check reads several (lurkers).
    thread_id: str | None = None


@dataclass(frozen=True)
class Remark:
    """A post (or a 点评/楼中楼) in the vote thread that holds no ballot ("同上，跟一票",
    a quote and a word): never counted, always listed, so that its author can be told why
    it was not a vote."""

    floor: int
    post_id: str
    author: str
    player: str | None  # the player who wrote it, when the author is one
    time: datetime
    words: str  # its first words
    comment: bool = False
    parent_post_id: str | None = None
    # NOT_A_BALLOT, or BANNED (屏蔽ed by the forum) or DELETED (gone since tally read it).
    status: Status = Status.NOT_A_BALLOT
    # Why, for a banned or deleted row: a sentence for the director.
    note: str = ""
    author_id: str | None = None
    # The forum showed its time to the minute only (a 点评; a page without seconds).
    to_the_minute: bool = False


@dataclass(frozen=True)
class Ballot:
    floor: int
    post_id: str
    author: str  # who posted it (the director, for a proxy)
    voter: str | None  # the player whose vote it is
    kind: BallotKind
    target: str | None  # a player, the abstain word, or None when unreadable
    written: str  # the target as written
    time: datetime  # the time the ballot counts from (a V7 fix keeps the original's)
    posted_at: datetime
    status: Status
    reason: VoidReason | None  # the one of ``reasons`` an announcement names
    note: str
    comment: bool = False
    parent_post_id: str | None = None
    suggestions: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    ruling: RulingAction | None = None
    superseded_at: datetime | None = None
    abstain: bool = False
    # The player's own reason (投票理由), as written.
    written_reason: str | None = None
    # The author's account id (Discuz! uid, Tieba user id), when the page shows it.
    author_id: str | None = None
    # Counted, then void because its voter or its target went out during the day (V9):
    # the player voted (L3), though the vote no longer counts.
    lapsed: bool = False
    # Every rule a void ballot breaks, ``reason`` first (tally.rules.verdicts.NAMED_FIRST).
    reasons: tuple[VoidReason, ...] = ()
    # The forum showed its time to the minute only (a 点评; a page without seconds): ``time``
    # and ``posted_at`` are the minute's start.
    to_the_minute: bool = False

    @property
    def casts_a_vote(self) -> bool:
        """Whether the ballot is a vote its voter cast, for L3: in force, replaced by a
        change, or lapsed with a death (V9)."""
        return self.status in (Status.COUNTED, Status.SUPERSEDED) or self.lapsed


def floors_text(floors: Iterable[int]) -> str:
    """ "floor 3", "floors 3, 5 and 9": where a flag points."""
    ordered = sorted(set(floors))
    shown = [str(f) for f in ordered[:10]] + (["…"] if len(ordered) > 10 else [])
    if len(shown) == 1:
        return tr("floor {floor}", floor=shown[0])
    return tr("floors {floors} and {last}", floors=tr(", ").join(shown[:-1]), last=shown[-1])
