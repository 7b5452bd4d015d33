"""The JSON tally prints (`--json`): the interface directors' scripts rely on.

The fields of the contract (README, *JSON*) come first and never change; more may follow.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from tally.outputs.results import Announced, Counted, DayAdded, Diagnosed, Lurked
from tally.outputs.shown.json_ledger import ledger_json
from tally.rules.counting.count import votes_number
from tally.rules.counting.state import Fact, FactKind
from tally.rules.counting.votes import DayResult
from tally.rules.judging.ballots import Ballot, Remark
from tally.rules.verdicts import void_words
from tally.settings import Settings
from tally.times import iso

if TYPE_CHECKING:
    from tally.outputs.results import Posted
    from tally.rules.cards.ledger import LedgerView
    from tally.rules.cards.lurkers import DayCheck
    from tally.rules.counting.acceleration import Acceleration, Request
    from tally.rules.counting.polls import Poll


def day_json(result: DayResult) -> dict[str, Any]:
    o = result.outcome
    return {
        "day": result.day.day,
        "kind": result.kind,
        "provisional": result.provisional,
        "as_of": iso(result.as_of),
        "closes": iso(result.day.closes),
        "ruleset": result.ruleset,
        "thread": {
            "platform": result.thread.platform,
            "thread_id": result.thread.thread_id,
            "pages": result.thread.page_count,
            "posts": len(result.thread.posts),
            # How it was read: "api" (the forum's interface for its clients), "pages" (its
            # HTML pages), "" (saved pages, an archive).
            "read_by": result.thread.read_by,
        },
        "ballots": sorted(
            [_ballot(b, result) for b in result.ballots]
            + [_remark(r) for r in result.remarks],
            # In the thread's order: floor by floor, each floor before its 点评.
            key=lambda row: (row["floor"], row["comment"], row["posted_at"]),
        ),
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
        "facts": facts_json(result),
        # Ballots after the close taken as late, as the director said (--late-ok, late_ok),
        # and why the close differs from the one the thread announced (close_changed).
        "late_ok": result.late_ok,
        "close_changed": result.day.close_changed,
    }


def _ballot(b: Ballot, result: DayResult) -> dict[str, Any]:
    """A ballot as a row of ``ballots``: its verdict, every rule it breaks, its weight."""
    return {
        "floor": b.floor,
        "post_id": b.post_id,
        "voter": b.voter,
        "kind": b.kind,
        "target": b.target,
        "time": iso(b.time),
        "status": b.status,
        "reason": b.reason,
        # Every rule it breaks, the one the announcement names first.
        "reasons": [b.reason, *(r for r in b.reasons if r != b.reason)] if b.reason else [],
        # As the announcement words it, with the ruleset's numbers.
        "reason_words": void_words(b.reason, result.rules) if b.reason else None,
        "author": b.author,
        "author_id": b.author_id,
        "comment": b.comment,
        "parent_post_id": b.parent_post_id,
        "posted_at": iso(b.posted_at),
        # The forum showed the time to the minute only: "time" and "posted_at" are the
        # minute's start, not the second it was posted.
        "to_the_minute": b.to_the_minute,
        "written": b.written,
        "weight": votes_number(result.count.weights[b.voter][0])
        if b.voter in result.count.weights
        else None,
        "note": b.note,
        "suggestions": list(b.suggestions),
        "flags": list(b.flags),
        "ruling": b.ruling,
    }


def _remark(r: Remark) -> dict[str, Any]:
    """A post of the vote thread that holds no ballot, as a row of ``ballots`` (status
    "not_a_ballot"; "banned" and "deleted" for a post the forum 屏蔽s or no longer shows,
    "moved_in" for one tally read in another thread before, "discussion" for one it read
    in the discussion thread the vote thread was merged into):
    its floor, author and first words, and for banned and deleted rows why."""
    return {
        "floor": r.floor,
        "post_id": r.post_id,
        "voter": r.player,
        "kind": None,
        "target": None,
        "time": iso(r.time),
        "status": r.status,
        "reason": None,
        "reasons": [],
        "author": r.author,
        "author_id": r.author_id,
        "comment": r.comment,
        "parent_post_id": r.parent_post_id,
        "posted_at": iso(r.time),
        "to_the_minute": r.to_the_minute,
        "written": "",
        "weight": None,
        "note": r.note or r.words,
        "words": r.words,
        "suggestions": [],
        "flags": [],
        "ruling": None,
    }


def facts_json(result: DayResult) -> dict[str, Any]:
    """What the day rests on and where each came from: the game file, or tally's own count
    of an earlier day ("derived", with that day)."""

    def fact(f: Fact) -> dict[str, Any]:
        return {"player": f.player, "from": f.source, "day": f.day, "note": f.note}

    sheriff = next((f for f in result.facts if f.what is FactKind.SHERIFF), None)
    deputy = next((f for f in result.facts if f.what is FactKind.DEPUTY), None)
    declaration = next((f for f in result.facts if f.what is FactKind.DECLARATION), None)
    return {
        "sheriff": fact(sheriff) if sheriff is not None else None,
        # The deputy (执警), named or carried from the day whose block named them (C1).
        "deputy": fact(deputy) if deputy is not None else None,
        # The sheriff's 宣言 when it is carried from the day that named it (C1's 独裁).
        "declaration": fact(declaration) if declaration is not None else None,
        "dead": [fact(f) for f in result.facts if f.what is FactKind.DEAD],
        "unchecked": list(result.unchecked),
    }


def acceleration_json(acc: Acceleration | None) -> dict[str, Any] | None:
    if acc is None:
        return None

    def requests(found: tuple[Request, ...]) -> list[dict[str, Any]]:
        return [
            {
                "player": r.player,
                "thread_id": r.thread_id,
                "floor": r.floor,
                "comment": r.comment,
                "time": iso(r.time),
            }
            for r in found
        ]

    return {
        "living": acc.living,
        "needed": acc.needed,
        "asked": requests(acc.asked),
        # Asked only in the minute of the open or the deadline, shown to the minute: not
        # counted, perhaps in time.
        "doubtful": requests(acc.doubtful),
        "deadline": iso(acc.deadline),
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
                "first": iso(p.first) or None,
                "last": iso(p.last) or None,
            }
            for p in result.players
        ],
        "days": {
            str(n): [{"player": p.player, "posts": p.posts, "voted": p.voted} for p in players]
            for n, players in sorted(result.days.items())
        },
        # A card the director took back (`tally cards remove`) is no proposal: it is under
        # the ledger's "struck", so that a script giving the cards does not give it again.
        "cards": [
            {"player": c.player, "colour": c.colour, "rule": c.rule, "reason": c.reason}
            for c in result.cards
            if not view.was_struck(c)
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
        "ledger": ledger_json(view, result.cards),
        "acceleration": acceleration_json(result.acceleration),
    }


def poll_json(poll: Poll) -> dict[str, Any]:
    """One line of `tally watch --json`: the count (as `tally votes --json`, of the last
    good read), what changed since the last poll, and the poll itself."""

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
        "at": iso(poll.at) or None,
        "final": poll.final,
        "requests": poll.requests,
        "full": poll.full,
        "error": poll.error,
        "failing_since": iso(poll.failing_since) or None,
        "last_read": iso(poll.last_read) or None,
        "next_at": iso(poll.next_at) or None,
        "every": poll.every,
        "notes": list(poll.notes),
    }
    return data


@functools.singledispatch
def to_json(result: object) -> dict[str, Any]:
    raise TypeError(f"tally has no JSON for a {type(result).__name__}")  # pragma: no cover


@to_json.register(DayResult)
def _(result: DayResult) -> dict[str, Any]:
    return day_json(result)


@to_json.register(Counted)
def _(done: Counted) -> dict[str, Any]:
    return day_json(done.result)


@to_json.register(Lurked)
def _(done: Lurked) -> dict[str, Any]:
    return lurkers_json(done.check, done.ledger)


@to_json.register(DayAdded)
def _(done: DayAdded) -> dict[str, Any]:
    p = done.proposal
    return {
        "game_file": str(done.path),
        "written": done.written,
        "day": p.day,
        "discussion": p.discussion,
        "vote": p.vote,
        "opens": iso(p.opens),
        "opens_from": p.opens_from,
        "closes": iso(p.closes) or None,
        "closes_from": p.closes_from or None,
        "accelerated_closes": iso(p.accelerated_close.at) if p.accelerated_close else None,
        "sheriff": {"player": p.sheriff, "from": p.sheriff_how or None},
        "deputy": {"player": p.deputy, "from": p.deputy_how or None},
        "out": [{"player": who, "how": how} for who, how in p.out],
        "unchecked": list(p.unchecked),
        "todo": list(p.todo),
        "block": p.block,
    }


@to_json.register(Diagnosed)
def _(done: Diagnosed) -> dict[str, Any]:
    d = done.diagnosis
    return {
        "source": d.source,
        "status": d.status,
        "url_known": d.url_known,
        "read_instead": d.read_instead or None,
        "read_by": d.read_by or None,
        "read_by_why": d.read_by_why,
        "software": d.software or None,
        "board": {"name": d.board.name, "origin": d.board.origin, "about": d.board.about},
        "readable": d.readable,
        "problem": d.problem,
        "posts": d.posts,
        "fields": [
            {
                "name": f.name,
                "essential": f.essential,
                "found": f.found,
                "of": f.of,
                "where": [{"place": w, "posts": n} for w, n in f.where],
                "example": f.example,
                "missing": list(f.missing),
            }
            for f in d.fields
        ],
    }


@to_json.register(Settings)
def _(settings: Settings) -> dict[str, Any]:
    return {
        "config_file": str(settings.config),
        "config_found": settings.config_found,
        "settings": {
            name: {
                "value": s.value if s.value is None or isinstance(s.value, bool | int | float | str)
                else str(s.value),
                "from": s.source,
            }
            for name, s in settings.values.items()
        },
        "language": {"value": settings.language.language.value, "from": settings.language.source},
    }


def posted_json(posted: Posted) -> dict[str, Any]:
    """A post tally made: what, where and when, and whether it reads back as sent."""
    return {
        "kind": str(posted.kind),
        "day": posted.day,
        "pid": posted.pid,
        "url": posted.url,
        "thread_url": posted.thread_url,
        "floor": posted.floor,
        "member": posted.member,
        "at": iso(posted.at),
        "read_back": posted.read_back,
        "difference": posted.difference,
        "via": posted.via,
    }


@to_json.register(Announced)
def _(done: Announced) -> dict[str, Any]:
    return {
        "text": done.text,
        "posted": posted_json(done.posted) if done.posted is not None else None,
        "error": str(done.failure) if done.failure is not None else None,
    }
