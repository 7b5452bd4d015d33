"""Posts per living player inside a day's window, and whether they voted (RULES L1, L3,
V9-V12): what the lurker check's cards rest on, a day at a time (``count_day``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from tally.model import Thread, Writing
from tally.rules.cards.writings import DayThreads, by_players
from tally.rules.game.cast import Cast
from tally.rules.game.game import Day, Game
from tally.rules.judging.judge import judge
from tally.rules.judging.merges import cast_in_vote_thread, seen_in_vote_thread
from tally.rules.judging.minutes import in_window
from tally.rules.verdicts import Status, void_words


@dataclass(frozen=True)
class PlayerDay:
    player: str
    posts: int
    voted: bool | None  # None: the vote thread was not read, or the player may not vote (V10, V12)
    first: datetime | None = None
    last: datetime | None = None
    # Out during the day: counted up to this time.
    until: datetime | None = None
    # The void ballots the player posted that day, as an L3 card names them.
    void: tuple[str, ...] = ()
    # What the count says earns the player a card (V11: the 主管 without a valid vote).
    vote_flags: tuple[str, ...] = ()
    # Posts shown in the minute of the open or of the close (a time to the minute): perhaps
    # in the day, perhaps not; not counted, and said where a card rests on them.
    doubtful: tuple[Writing, ...] = ()


def count_day(game: Game, threads: DayThreads, cast: Cast) -> tuple[PlayerDay, ...]:
    """Posts per living player inside the day's window, and whether they voted; ``cast``
    says who wrote what in the day's threads (``Game.cast``)."""
    day = threads.day
    times: dict[str, list[datetime]] = {p: [] for p in game.players if p not in day.dead}
    comments = game.rules.count_comments_as_posts
    # A ballot first read in the day's vote thread is no discussion post, in whichever
    # thread it stands now (the vote thread merged into the discussion thread, 合并); nor is
    # one the director ruled cast there (accepted) where tally could not tell.
    said = [(p, w) for p, w in by_players(cast, day, threads.discussion, comments=comments)
            if not cast_in_vote_thread(game, day, threads.discussion, w)]  # fmt: skip
    # The 自由 sheriff's thread counts with the day's discussion ("共用当天讨论数"): the
    # sheriff's posts there, not another's.
    said += [(p, w) for p, w in by_players(cast, day, threads.sheriff, comments=comments)
             if p == day.sheriff and not _same(threads.sheriff, threads.discussion)]  # fmt: skip
    doubtful: dict[str, list[Writing]] = {}
    for player, w in said:
        death = day.died.get(player)
        if player in times and (death is None or w.time < death):
            if in_window(w, day.opens, day.closes):
                times[player].append(w.time)
            else:
                doubtful.setdefault(player, []).append(w)
    voted: set[str] | None = None
    void: dict[str, list[str]] = {}
    # Who may not vote this day (V10, and V12 on the election day) has no vote to miss (L3).
    barred: set[str] = set()
    carded: dict[str, list[str]] = {}
    if threads.vote is not None:
        judged = judge(threads.vote, game, day, cast=cast,
                       seen=seen_in_vote_thread(threads.vote, day))  # fmt: skip
        for flag in judged.flags:
            if flag.rule == "V11" and flag.player is not None and flag.floor is None:
                carded.setdefault(flag.player, []).append(flag.rule)
        ballots = judged.ballots
        voted = {b.voter for b in ballots if b.casts_a_vote and b.voter}
        barred = {p for p in times if judged.barred(day, p)}
        for b in ballots:
            if b.status is Status.VOID and b.voter and b.reason is not None:
                words = void_words(b.reason, game.rules)
                void.setdefault(b.voter, []).append(f"{b.floor}楼的票作废：{words}")
    return tuple(
        PlayerDay(
            player=p,
            posts=len(ts),
            voted=None if voted is None or p in barred else p in voted,
            first=min(ts) if ts else None,
            last=max(ts) if ts else None,
            until=_out_during(day, p),
            void=tuple(void.get(p, ())),
            vote_flags=tuple(carded.get(p, ())),
            doubtful=tuple(doubtful.get(p, ())),
        )
        for p, ts in times.items()
    )


def _same(a: Thread | None, b: Thread | None) -> bool:
    return a is not None and b is not None and a.key == b.key


def _out_during(day: Day, player: str) -> datetime | None:
    """When ``player`` went out during the day (by the close, as V9 has it), or None: a
    death after the close (黄昏, a hunter's shot at dusk) leaves them alive for the whole
    day, carded like the living."""
    death = day.died.get(player)
    return death if death is not None and death <= day.closes else None
