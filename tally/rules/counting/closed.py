"""A closed day keeps its result: once tally posted a day's result, a recount that comes out
otherwise stops, saying what changed, unless the game file says why (``result_changed``).

What was announced is what the journal of posts kept of the closing post (``record``): the
outcome, and each ballot's floor, account, voter, status and target. A recount is compared
with it (``compare``): the same outcome passes; another outcome is an error naming the
floors and accounts whose ballots read otherwise now (a renamed player, a ballot edited or
deleted, a ruling added).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tally.errors import GameFileError
from tally.i18n import tr
from tally.rules.judging.own import last_mark
from tally.vocabulary import Announcement

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tally.model import Post, Thread
    from tally.rules.counting.count import Outcome
    from tally.rules.game.cast import Cast
    from tally.rules.game.game import Day, Game
    from tally.rules.judging.ballots import Ballot


def mark(game: Game, day: int, kind: Announcement) -> str:
    """tally's mark for this game, day and kind, the last line of every post it makes: what
    "this post again" is known by in the thread (a director's template may change every
    other line). ASCII, so that every board's charset holds it. A closing post's mark ends
    with its outcome's code (``outcome_code``)."""
    return marks(game, day, kind)[0]


def marks(game: Game, day: int, kind: Announcement) -> tuple[str, ...]:
    """``mark``, and the marks an earlier tally put on the same post (``Game.post_keys``):
    what a post already made is found by."""
    hashes = (hashlib.sha256(key.encode("utf-8")).hexdigest()[:8] for key in game.post_keys)
    return tuple(f"tally#{h}/d{day}/{Announcement(kind).value}" for h in hashes)


def outcome_code(result: object, player: object) -> str:
    return hashlib.sha256(f"{result}:{player or ''}".encode()).hexdigest()[:6]


def marked_post(
    game: Game, day: Day, kind: Announcement, thread: Thread, *, cast: Cast
) -> Post | None:
    """The post in ``thread`` that is this one: by a director's account (by its id when the
    game file gives it), with the mark of this day and kind as its last line, where tally
    puts it (``tally.rules.judging.own.last_mark``). Whenever it was posted: a morning post made
    before the day opens, a result the forum's slow clock stamped before the close."""
    own = (p for p in thread.posts if _own_mark(p, game, day.day, kind) is not None)
    return next((p for p in own if cast.of(p).is_director), None)


def _own_mark(post: Post, game: Game, day: int, kind: Announcement) -> re.Match[str] | None:
    """tally's mark of this game, day and kind as the last line of ``post``, if it is."""
    m = last_mark(post.text, game)
    if m is None or int(m["day"]) != day or m["kind"] != Announcement(kind).value:
        return None
    return m


def check_posted(game: Game, day: Day, thread: Thread, outcome: Outcome, *, cast: Cast) -> None:
    """Without the journal (another machine, a co-director): the director's closing post in
    the vote thread says by its mark's code what was posted; a recount that comes out
    otherwise stops (which floors changed the journal alone could say)."""
    found = marked_post(game, day, Announcement.CLOSE, thread, cast=cast)
    if found is None:
        return
    said = _own_mark(found, game, day.day, Announcement.CLOSE)
    if said is None or said["code"] in (None, outcome_code(outcome.result, outcome.player)):
        return
    now = f"{outcome.result}" + (f" {outcome.player}" if outcome.player else "")
    raise GameFileError(
        tr(
            "day {day}'s result was posted on floor {floor} by {author}, and counts now as "
            "{now}, another outcome (the journal of posts, which would say which floors changed, "
            "is not beside this game file). A closed day keeps its result: if the change is "
            'right, say why under day {day}, result_changed = "…", and count again.',
            day=day.day,
            floor=found.floor,
            author=found.author,
            now=now,
        )
    )


def record(ballots: Sequence[Ballot], outcome: Outcome) -> dict[str, Any]:
    """What the journal keeps of a closing post's count (a day's ballots and outcome)."""
    return {
        "result": str(outcome.result),
        "player": outcome.player,
        "ballots": [
            {
                "floor": b.floor,
                "post_id": b.post_id,
                "author": b.author,
                "author_id": b.author_id,
                "voter": b.voter,
                "status": str(b.status),
                "target": b.target,
            }
            for b in ballots
        ],
    }


def _said(outcome: Mapping[str, Any]) -> str:
    player = outcome.get("player")
    return f"{outcome.get('result')}" + (f" {player}" if player else "")


def _row(b: Mapping[str, Any]) -> str:
    who = b.get("voter") or tr("no player")
    uid = tr(" (uid {uid})", uid=b["author_id"]) if b.get("author_id") else ""
    return tr(
        "{author}{uid} as {voter}: {status} {target}",
        author=b.get("author"),
        uid=uid,
        voter=who,
        status=b.get("status"),
        target=b.get("target") or "",
    ).strip()


def compare(
    announced: Mapping[str, Any],
    ballots: Sequence[Ballot],
    outcome: Outcome,
    day: Day,
    *,
    why: str | None,
) -> None:
    """Stop when the recount (``ballots``, ``outcome``) comes out otherwise than what was
    ``announced``, unless the game file says ``why``."""
    if not announced or why:
        return
    now = record(ballots, outcome)
    before, after = _said(announced), _said(now)
    if before == after:
        return
    then = {b["post_id"]: b for b in announced.get("ballots", [])}
    changed = []
    for b in now["ballots"]:
        old = then.pop(b["post_id"], None)
        keys = ("author_id", "voter", "status", "target")
        if old is None or any(old.get(k) != b.get(k) for k in keys):
            was = _row(old) if old else tr("not there")
            changed.append(tr("floor {floor}: {row} (announced: {was})", floor=b["floor"],
                              row=_row(b), was=was))  # fmt: skip
    changed += [tr("floor {floor}: gone (announced: {row})", floor=b["floor"], row=_row(b))
                for b in then.values()]  # fmt: skip
    what = tr("; ").join(changed[:5]) or tr("no ballot reads otherwise; the rules or the file did")
    more = tr(" and {n} more", n=len(changed) - 5) if len(changed) > 5 else ""
    raise GameFileError(
        tr(
            "day {day}'s result was announced as {before}, and counts now as {after}: {what}"
            "{more}. A closed day keeps its result: if the change is right, say why under day "
            '{day}, result_changed = "…", and count again.',
            day=day.day,
            before=before,
            after=after,
            what=what,
            more=more,
        )
    )
