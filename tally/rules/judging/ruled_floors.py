"""The director's rulings held to the floors they name (RULES S2): a delete renumbers the
floors after it, so a ruling by floor may name another post now, and a ruling that gives a
post and a floor that disagree names no ballot tally can tell. Each stops the count.
"""

from __future__ import annotations

from datetime import datetime

from tally.errors import GameFileError
from tally.i18n import tr
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
        when = short(read.astimezone(game.timezone)) if read is not None else tr("earlier")
        raise GameFileError(
            tr(
                "the ruling for day {day} names floor {floor}, which held {author}'s post (id "
                "{post}) when tally read the thread {when} and holds {now_author}'s (id "
                "{now_post}) now: a floor before it was deleted and the floors numbered again; "
                'say which post with post = "{post}" or post = "{now_post}" in the ruling.',
                day=day.day,
                floor=r.floor,
                author=before.author,
                post=before.post_id,
                when=when,
                now_author=post.author,
                now_post=post.post_id,
            )
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
            tr(
                "the ruling for day {day} names floor {floor} and post {post}, but post {post} "
                "is floor {now} and tally never read it on floor {floor} (a floor deleted before "
                "tally first read the thread moves the floors after it up): write floor = {now} "
                "if post {post} is the ballot meant, or correct the post.",
                day=day.day,
                floor=r.floor,
                post=r.post,
                now=where[r.post],
            )
        )
