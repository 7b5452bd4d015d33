"""The director's rulings held to the floors they name (RULES S2): a delete renumbers the
floors after it, so a ruling by floor may name another post now, and a ruling that gives a
post and a floor that disagree names no ballot tally can tell. Each stops the count.
"""

from __future__ import annotations

from datetime import datetime

from tally.errors import GameFileError
from tally.model import Post, Thread
from tally.rules.game.game import Day, Game
from tally.times import short


def rulings_on_moved_floors(thread: Thread, game: Game, day: Day) -> None:
    """Stop (GameFileError) when a ruling names by its floor a post whose floor tally read
    holding another post: a floor before it was deleted and the floors after it numbered
    again, so the floor may be the one the director ruled on, or the one after it."""
    _rulings_by_post_on_their_floor(thread, game, day)
    if thread.history is None:
        return
    now = {p.floor: p for p in thread.posts}
    held: dict[int, tuple[Post, datetime]] = {}
    for version in thread.history.versions:
        for post in version.posts:
            held.setdefault(post.floor, (post, version.read_at))
            if post.floor in now and post.post_id != now[post.floor].post_id:
                held[post.floor] = (post, version.read_at)
    for r in game.rulings:
        if r.day != day.day or r.post is not None or r.floor not in now:
            continue
        before, read = held.get(r.floor, (now[r.floor], thread.read_at))
        if before.post_id == now[r.floor].post_id:
            continue
        post = now[r.floor]
        when = short(read.astimezone(game.timezone)) if read is not None else "earlier"
        raise GameFileError(
            f"the ruling for day {day.day} names floor {r.floor}, which held {before.author}'s "
            f"post (id {before.post_id}) when tally read the thread {when} and holds "
            f"{post.author}'s (id {post.post_id}) now: a floor before it was deleted and the "
            f'floors numbered again; say which post with post = "{before.post_id}" or '
            f'post = "{post.post_id}" in the ruling.'
        )


def _rulings_by_post_on_their_floor(thread: Thread, game: Game, day: Day) -> None:
    """Stop when a ruling gives both a post and a floor and the post was never on that
    floor (not now, nor in any read tally kept): one of the two is mistyped, and tally
    cannot tell which ballot the director meant. A post that a delete before it moved
    up keeps its ruling: the floor it had is in the history."""
    where = {p.post_id: p.floor for p in thread.posts}
    versions = thread.history.versions if thread.history is not None else ()
    for r in game.rulings:
        if r.day != day.day or r.post is None or where.get(r.post, r.floor) == r.floor:
            continue
        if any(p.post_id == r.post and p.floor == r.floor for v in versions for p in v.posts):
            continue
        raise GameFileError(
            f"the ruling for day {day.day} names floor {r.floor} and post {r.post}, but post "
            f"{r.post} is floor {where[r.post]} and tally never read it on floor {r.floor} (a "
            "floor deleted before tally first read the thread moves the floors after it up): "
            f"write floor = {where[r.post]} if post {r.post} is the ballot meant, or correct "
            "the post."
        )
