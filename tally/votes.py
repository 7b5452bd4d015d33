"""`tally votes`: one day's vote thread in, the decision and every reason for it out.

``tally_day`` is the library entry point; ``to_json`` gives the JSON of shared CONTRACT.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tally.count import Count, Outcome, Total, count
from tally.errors import InputError
from tally.game import Day, Game
from tally.model import Thread
from tally.platforms import resolve_url
from tally.validate import Ballot, Flag, judge


@dataclass(frozen=True)
class DayResult:
    day: Day
    ruleset: str
    thread: Thread
    ballots: tuple[Ballot, ...]
    count: Count
    not_voted: tuple[str, ...]
    flags: tuple[Flag, ...]

    @property
    def kind(self) -> str:
        return self.count.kind

    @property
    def totals(self) -> tuple[Total, ...]:
        return self.count.totals

    @property
    def outcome(self) -> Outcome:
        return self.count.outcome


def _day_voting_in(game: Game, platform: str, thread_id: str) -> Day | None:
    """The day whose vote thread is this one, by forum and thread id (URL forms vary)."""
    for day in game.days:
        try:
            _, ref = resolve_url(day.vote)
        except InputError:
            continue
        if (ref.platform, ref.thread_id) == (platform, thread_id):
            return day
    return None


def day_of_thread(game: Game, thread: Thread) -> Day:
    """The day whose vote thread this is."""
    day = _day_voting_in(game, thread.platform, thread.thread_id)
    if day is not None:
        return day
    raise InputError(
        f"thread {thread.thread_id} is not the vote thread of any day in the game file; "
        "name the day with --day N."
    )


def day_of_sources(game: Game, sources: list[str], day_number: int | None) -> Day | None:
    """The day a `tally votes` run is about, known before anything is fetched when it can be."""
    if day_number is not None:
        return game.day(day_number)
    for source in sources:
        if "://" in source:
            _, ref = resolve_url(source)
            day = _day_voting_in(game, ref.platform, ref.thread_id)
            if day is not None:
                return day
    return None


def tally_day(thread: Thread, game: Game, day_number: int | None = None) -> DayResult:
    """Judge and count the ballots of one day's vote thread."""
    day = game.day(day_number) if day_number is not None else day_of_thread(game, thread)
    ballots, flags = judge(thread, game, day)
    counted = count(ballots, game, day)
    voted = {b.voter for b in ballots if b.status == "counted"}
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
        flags=(*flags, *counted.flags),
    )


def number(value: Decimal) -> int | float:
    """A Decimal as a JSON number: 3 stays 3, 3.5 stays 3.5."""
    return int(value) if value == value.to_integral() else float(value)


def to_json(result: DayResult) -> dict[str, Any]:
    o = result.outcome
    return {
        "day": result.day.day,
        "kind": result.kind,
        "ruleset": result.ruleset,
        "thread": {
            "platform": result.thread.platform,
            "thread_id": result.thread.thread_id,
            "pages": result.thread.page_count,
            "posts": len(result.thread.posts),
        },
        "ballots": [
            {
                "floor": b.floor,
                "post_id": b.post_id,
                "voter": b.voter,
                "kind": b.kind,
                "target": b.target,
                "time": b.time.isoformat(timespec="seconds"),
                "status": b.status,
                "reason": b.reason,
                "author": b.author,
                "comment": b.comment,
                "parent_post_id": b.parent_post_id,
                "posted_at": b.posted_at.isoformat(timespec="seconds"),
                "written": b.written,
                "weight": number(result.count.weights[b.voter][0])
                if b.voter in result.count.weights
                else None,
                "note": b.note,
                "suggestions": list(b.suggestions),
                "flags": list(b.flags),
                "ruling": b.ruling,
            }
            for b in result.ballots
        ],
        "totals": [
            {
                "player": t.player,
                "votes": number(t.votes),
                "voters": list(t.voters),
                "bonuses": [
                    {"votes": number(a), "why": why, "rule": rule} for a, why, rule in t.bonuses
                ],
            }
            for t in result.totals
        ],
        "abstained": number(result.count.abstained),
        "not_voted": list(result.not_voted),
        "outcome": {"result": o.result, "player": o.player, "rule": o.rule, "note": o.note},
        "flags": [
            {
                "rule": f.rule,
                "player": f.player,
                "floor": f.floor,
                "post_id": f.post_id,
                "note": f.note,
            }
            for f in result.flags
        ],
    }
