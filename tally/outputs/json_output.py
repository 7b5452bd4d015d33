"""The JSON tally prints (`--json`): the interface directors' scripts rely on.

The fields of the contract (README, *JSON*) come first and never change; more may follow.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from tally.rules.count import votes_number

if TYPE_CHECKING:
    from tally.rules.acceleration import Acceleration
    from tally.rules.changes import Poll
    from tally.rules.ledger import LedgerView
    from tally.rules.lurkers import DayCheck
    from tally.rules.votes import DayResult


def day_json(result: DayResult) -> dict[str, Any]:
    o = result.outcome
    return {
        "day": result.day.day,
        "kind": result.kind,
        "provisional": result.provisional,
        "as_of": result.as_of.isoformat(timespec="seconds"),
        "closes": result.day.closes.isoformat(timespec="seconds"),
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
                "weight": votes_number(result.count.weights[b.voter][0])
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
                "votes": votes_number(t.votes),
                "voters": list(t.voters),
                "bonuses": [
                    {"votes": votes_number(a), "why": why, "rule": rule}
                    for a, why, rule in t.bonuses
                ],
            }
            for t in result.totals
        ],
        "abstained": votes_number(result.count.abstained),
        "not_voted": list(result.not_voted),
        "outcome": {"result": o.result, "player": o.player, "rule": o.code, "note": o.note},
        "leaders": list(result.leaders),
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
        "acceleration": acceleration_json(result.acceleration),
    }


def acceleration_json(acc: Acceleration | None) -> dict[str, Any] | None:
    if acc is None:
        return None
    return {
        "living": acc.living,
        "needed": acc.needed,
        "asked": [
            {
                "player": r.player,
                "thread_id": r.thread_id,
                "floor": r.floor,
                "comment": r.comment,
                "time": r.time.isoformat(timespec="seconds"),
            }
            for r in acc.asked
        ],
        "deadline": acc.deadline.isoformat(timespec="seconds"),
        "accelerates": acc.accelerates,
        "marked": acc.marked,
        "warning": acc.warning,
    }


def lurkers_json(result: DayCheck, view: LedgerView) -> dict[str, Any]:
    return {
        "day": result.day.day,
        "provisional": result.provisional,
        "accelerated": result.day.accelerated,
        "players": [
            {
                "player": p.player,
                "posts": p.posts,
                "voted": p.voted,
                "first": p.first.isoformat(timespec="seconds") if p.first else None,
                "last": p.last.isoformat(timespec="seconds") if p.last else None,
            }
            for p in result.players
        ],
        "days": {
            str(n): [{"player": p.player, "posts": p.posts, "voted": p.voted} for p in players]
            for n, players in sorted(result.days.items())
        },
        "cards": [
            {"player": c.player, "colour": c.colour, "rule": c.rule, "reason": c.reason}
            for c in result.cards
        ],
        "flags": [
            {
                "player": f.player,
                "rule": f.rule,
                "floor": f.floor,
                "post_id": f.post_id,
                "thread_id": f.thread_id,
                "note": f.note,
            }
            for f in result.flags
        ],
        "ledger": {
            "path": str(view.path),
            "written": view.written,
            "new": [
                {
                    "day": c.day,
                    "player": c.player,
                    "colour": c.colour,
                    "rule": c.rule,
                    "reason": c.reason,
                }
                for c in view.new
            ],
            "totals": {
                p: {"blue": t.blue, "yellow": t.yellow, "red": t.red}
                for p, t in sorted(view.totals.items())
            },
            "sent_off": list(view.sent_off),
            "camps_lost": view.camps_lost,
        },
        "acceleration": acceleration_json(result.acceleration),
    }


def poll_json(poll: Poll) -> dict[str, Any]:
    """One line of `tally watch --json`: the count (as `tally votes --json`, of the last
    good read), what changed since the last poll, and the poll itself."""

    def stamp(value: datetime | None) -> str | None:
        return value.isoformat(timespec="seconds") if value is not None else None

    data: dict[str, Any] = day_json(poll.result) if poll.result is not None else {}
    data["changes"] = [
        {
            "kind": c.kind,
            "text": c.text,
            "floor": c.floor,
            "comment": c.comment,
            "post_id": c.post_id,
            "voter": c.voter,
            "ballot": c.ballot,
            "target": c.target,
            "status": c.status,
            "was": c.was,
            "reason": c.reason,
        }
        for c in poll.changes
    ]
    data["poll"] = {
        "number": poll.number,
        "at": stamp(poll.at),
        "final": poll.final,
        "requests": poll.requests,
        "full": poll.full,
        "error": poll.error,
        "failing_since": stamp(poll.failing_since),
        "last_read": stamp(poll.last_read),
        "next_at": stamp(poll.next_at),
        "every": poll.every,
    }
    return data
