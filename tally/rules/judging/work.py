"""A ballot while the judge weighs it (``Work``): what it says, who cast it, and what
has been decided of it so far (RULES V1-V11). ``tally.rules.judging.judge`` makes one of every
writing that tries to be a ballot and freezes each into a ``Ballot`` at the end."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from tally.model import Post, last_instant
from tally.rules.game.game import Ruling
from tally.rules.judging.ballot_text import ParsedBallot, Reading
from tally.rules.judging.merges import Seen
from tally.rules.verdicts import Status, VoidReason, named_first


@dataclass
class Work:
    """A ballot while it is being judged."""

    post: Post  # the floor (for a comment, the floor it sits under)
    comment_index: int | None
    post_id: str
    author: str
    posted_at: datetime
    reading: Reading
    parsed: ParsedBallot | None
    author_display: str | None = None
    author_id: str | None = None
    voter: str | None = None
    proxy: bool = False
    target: str | None = None
    abstain: bool = False
    time: datetime | None = None
    status: Status | None = None  # None: not judged yet
    reason: VoidReason | None = None  # the one of ``reasons`` its row names
    # Every rule the ballot breaks, as found (a change written wrong and posted the wrong way
    # breaks two): the JSON keeps them all.
    reasons: list[VoidReason] = field(default_factory=list)
    # The sentence each reason was said in, for a row named for another of them.
    said: dict[VoidReason, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    suggestions: tuple[str, ...] = ()
    flags: list[tuple[str, str]] = field(default_factory=list)  # (rule, note)
    ruling: Ruling | None = None
    is_change: bool = False
    superseded_at: datetime | None = None
    # The page held bytes that are not text here (read as U+FFFD): the ballot seen may not
    # be the ballot written.
    damaged: bool = False
    # Its time is shown to the minute (a Discuz! 点评, a floor of a page that prints no
    # seconds): posted somewhere in that minute.
    to_the_minute: bool = False
    # Posted by then: a read of tally's showed it (``tally.rules.judging.minutes.seen_by``); None:
    # no read tells, or its time says the second.
    seen_by: datetime | None = None
    # What the writing says, as written (the floor's or the comment's own words).
    text: str = ""
    # The target written names no player: why, for ``_check`` to void it with unless the
    # ballot is void for its voter first.
    unknown_target: str | None = None
    # Counted, then void because its voter or its target went out during the day (V9):
    # a vote cast all the same (L3).
    lapsed: bool = False
    # What tally first read the post as (``tally.rules.judging.merges``): UNSURE stops the count
    # unless the director ruled on it.
    seen: Seen = Seen.BALLOT

    @property
    def is_comment(self) -> bool:
        return self.comment_index is not None

    @property
    def is_void(self) -> bool:
        return self.status == Status.VOID

    def void(self, reason: VoidReason, note: str) -> None:
        """Void for ``reason`` too: the row names the first of its reasons in
        ``NAMED_FIRST``, whose note comes first."""
        self.status = Status.VOID
        if reason not in self.reasons:
            self.reasons.append(reason)
        self.said.setdefault(reason, note)
        first = named_first(self.reasons)
        if first is reason and self.reason not in (None, reason):
            self.notes.insert(0, note)
        else:
            self.notes.append(note)
        self.reason = first

    @property
    def earliest(self) -> datetime:
        """The earliest it can have been posted: a 点评 comes after the floor it is under,
        which the forum shows to the second while the 点评 shows its minute (one posted in
        the floor's own minute sorted before it, and read as a change before the vote)."""
        return max(self.posted_at, self.post.time) if self.is_comment else self.posted_at

    @property
    def latest(self) -> datetime:
        """The latest it can have been posted: the end of the minute shown, or the read of
        tally's that showed it, if sooner."""
        end = last_instant(self.posted_at, self.to_the_minute)
        if self.seen_by is None:
            return end
        return max(self.posted_at, min(end, self.seen_by))

    @property
    def order(self) -> tuple[datetime, int, int]:
        return (self.earliest, self.post.floor, self.comment_index or 0)
