"""`tally votes`: one day's vote thread in, the decision and every reason for it out.

``tally_day`` is the library entry point; ``tally.outputs.json_output`` writes its JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from tally.model import Thread
from tally.rules.acceleration import Acceleration, count_requests
from tally.rules.ballots import Ballot, Flag
from tally.rules.count import Count, Outcome, Total, count
from tally.rules.game import Day, Game
from tally.rules.guards import check_roster, ensure_ballots, floors_text, vote_day_of
from tally.rules.judge import judge
from tally.rules.verdicts import DayKind, Status, VoidReason


@dataclass(frozen=True)
class DayResult:
    day: Day
    ruleset: str
    thread: Thread
    ballots: tuple[Ballot, ...]
    count: Count
    not_voted: tuple[str, ...]
    flags: tuple[Flag, ...]
    # The time the count stands at: when the thread was read, or for saved pages the
    # newest post in them. Before the close the count is provisional: more may come.
    as_of: datetime
    provisional: bool
    # S3: the acceleration requests of the day, when its discussion or progress thread
    # was read with the vote thread.
    acceleration: Acceleration | None = None

    @property
    def kind(self) -> DayKind:
        return self.count.kind

    @property
    def totals(self) -> tuple[Total, ...]:
        return self.count.totals

    @property
    def outcome(self) -> Outcome:
        return self.count.outcome

    @property
    def warnings(self) -> tuple[str, ...]:
        """What the director should hear besides the count (S3: the requests disagree with
        the game file)."""
        warning = self.acceleration.warning if self.acceleration is not None else None
        return (warning,) if warning else ()

    @property
    def leaders(self) -> tuple[str, ...]:
        """The players on the most votes (none when nobody has a vote)."""
        return self.count.leaders


def tally_day(
    thread: Thread,
    game: Game,
    day_number: int | None = None,
    *,
    requests: Sequence[Thread] | None = None,
) -> DayResult:
    """Judge and count the ballots of one day's vote thread; with ``requests`` (the day's
    discussion and progress threads), count the acceleration requests too (S3).

    Refuses (InputError) a thread that is not the day's vote thread, a vote thread without
    a ballot, and a roster that misspells a player (see ``tally.rules.guards``).
    """
    started = thread.posts[0].time if thread.posts else None
    day = vote_day_of(game, thread.key, day_number, started=started)
    # In the forum's clock, as every time tally shows (a read is stamped in UTC).
    as_of = (thread.as_of or day.opens).astimezone(game.timezone)
    provisional = as_of < day.closes
    ruled = {(r.floor, r.comment) for r in game.rulings if r.day == day.day}
    check_roster(game, [thread], exempt=lambda _t, w: (w.post.floor, w.comment_index) in ruled)
    ballots, flags = judge(thread, game, day, provisional=provisional)
    ensure_ballots(game, thread, ballots)
    counted = count(ballots, game, day)
    acceleration = count_requests(game, day, requests) if requests is not None else None
    s3 = [] if acceleration is None else [Flag("S3", acceleration.text)]
    if acceleration is not None and acceleration.warning:
        s3.append(Flag("S3", "warning: " + acceleration.warning))
    voted = {b.voter for b in ballots if b.status == Status.COUNTED}
    not_voted = tuple(
        p
        for p in game.players
        if p not in voted and not day.out_at(p, day.closes) and p not in day.cannot_vote
    )
    return DayResult(
        day=day,
        ruleset=game.rules.name,
        thread=thread,
        ballots=tuple(ballots),
        count=counted,
        not_voted=not_voted,
        flags=(*flags, *_stranger_flags(ballots), *counted.flags, *s3),
        as_of=as_of,
        provisional=provisional,
        acceleration=acceleration,
    )


def _stranger_flags(ballots: list[Ballot]) -> list[Flag]:
    """One flag per author whose ballots are void because they are no player."""
    theirs: dict[str, list[Ballot]] = {}
    for b in ballots:
        if b.reason == VoidReason.NOT_A_PLAYER:
            theirs.setdefault(b.author, []).append(b)
    flags = []
    for author, mine in theirs.items():
        many = len(mine) > 1
        where = floors_text(b.floor for b in mine)
        note = (
            f"{author} is not a player of this game; the ballot{'s' if many else ''} on {where} "
            f"{'are' if many else 'is'} void"
        )
        flags.append(Flag("roster", note, None, mine[0].floor, mine[0].post_id))
    return flags
