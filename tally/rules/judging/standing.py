"""The thread as it stood: at the close, at a moment asked for, and what the forum took away.

A board changes a vote thread during the day and keeps no history; tally's reads do
(``tally.forums.history``). From them:

- a ballot whose post changed after the close (an edit mark after the close, one in the
  closing minute, which cannot be told apart from it, or words that differ from a version
  read before the close) is counted as the last version read before the close showed it
  (RULES V5: what was cast by the close is the vote), named in a flag with both texts; with
  no such version the count stops, unless the director ruled on the floor or said
  ``--as-edited``;
- an edit in the final hour that changes the target is a change in the final hour (V5),
  where the ruleset has that rule;
- a post (or a 点评) a read at or after the close showed, that the forum deleted or 屏蔽ed
  since, is put back as it stood at the close (S2, ``kept_from_the_close``), flagged;
- a post tally read before and the forum no longer shows is a ``deleted`` row;
- replies the forum hides from the reader (回帖仅作者可见) stop the count;
- a ruling whose floor a delete renumbered stops the count (``ruled_floors``).

The history is read as of a moment by ``tally.rules.judging.as_of``, which holds ``--as-of``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from tally.errors import InputError, NotAThreadError
from tally.i18n import tr
from tally.model import HIDE_CODE, Comment, History, Post, Thread
from tally.rules.game.cast import Cast
from tally.rules.game.game import Day, Game
from tally.rules.game.names import normalise
from tally.rules.judging.approved import came_in_late
from tally.rules.judging.as_of import (
    Seen,
    first_read,
    last_seen,
    lost_at,
    seen_after,
    stood_at,
)
from tally.rules.judging.ballot_text import read_ballot
from tally.rules.judging.ballots import Flag, Remark, floors_text
from tally.rules.judging.changes import window_text
from tally.rules.judging.rows import banned
from tally.rules.verdicts import Status
from tally.times import short

HIDDEN_REPLY = "hidden_reply"


def _words(text: str, n: int = 30) -> str:
    words = " ".join(text.split())
    return words if len(words) <= n else words[: n - 1] + "…"


def _minute(when: datetime) -> datetime:
    return when.replace(second=0, microsecond=0)


def hidden_replies(thread: Thread) -> str | None:
    """Stop (NotAThreadError) when the forum hid replies from whoever read the thread; the
    line to say when they were all shown (to the thread's author or a moderator)."""
    hidden = [p for p in thread.posts if p.hidden == HIDDEN_REPLY]
    if not hidden:
        return None
    author = thread.posts[0].author if thread.posts else tr("the thread's author")
    unread = [p for p in hidden if not p.text.strip() and not p.comments]
    if unread:
        raise NotAThreadError(
            tr(
                "thread {thread}'s replies are hidden (回帖仅作者可见): the forum showed "
                "{floors} only as 此帖仅作者可见 to the cookies that read it; only their authors, "
                "the thread's author {author} and moderators can read them: read the thread with "
                "{author}'s or a moderator's cookies (--cookies FILE).",
                thread=thread.thread_id,
                floors=floors_text(p.floor for p in unread),
                author=author,
            )
        )
    return tr(
        "thread {thread}'s replies are hidden from the players (回帖仅作者可见); "
        "these cookies read all {n} of them, and all are counted.",
        thread=thread.thread_id,
        n=len(hidden),
    )


def kept_from_the_close(
    thread: Thread, game: Game, day: Day, cast: Cast | None = None
) -> tuple[Thread, list[Flag]]:
    """The thread with what the forum took away after the close put back as a read at or
    after the close showed it: a post deleted (by its author's own 删除, or a moderator), one
    屏蔽ed or whose author was banned since (and one 屏蔽ed then and shown since stays as it
    stood), a 点评 deleted. The day is counted as it stood at the close (S2): without this
    any player could take back a ballot, or a moderator a change, after the close, and turn
    the result. Each is flagged. A version that could not show the words ([hide] read by
    one who may not see it) puts nothing back."""
    history = thread.history
    if history is None or not history.versions:
        return thread, []
    cast = cast or game.cast()
    seen = seen_after(history, day.closes - timedelta(microseconds=1))
    # What a read after the close showed: a 屏蔽 as a 屏蔽 (its words hidden), else the words.
    at_close = {pid: then for pid, then in seen.items()
                if banned(then.post) or _readable(then) is not None}  # fmt: skip
    if not at_close:  # nothing read after the close: a ballot may have come in before it
        return thread, came_in_late(thread, history, day, game, cast)
    now = {p.post_id: p for p in thread.posts}
    stood = stood_at(history, day.closes)  # the reads by the close (once: it walks them all)
    flags: list[Flag] = []
    posts: list[Post] = []
    for post in thread.posts:
        then = at_close.get(post.post_id)
        if then is None or post.floor == 1 or then.post.time > day.closes:
            posts.append(post)
            continue
        kept = post
        before = stood.get(post.post_id)
        # 屏蔽ed when read after the close, shown now: it stood 屏蔽ed unless a read before
        # the close showed it shown (then the 屏蔽 came after the close, and was lifted).
        lifted = banned(then.post) and before is not None and not banned(before.post)
        if banned(post) != banned(then.post) and not lifted:
            kept = replace(then.post, floor=post.floor, page=post.page)
            what = "banned" if banned(post) else "shown"
            flags.append(_kept(kept, then, what, game, cast))
        comments, gone = _comments_as_they_stood(then.post, kept, day)
        if gone:
            kept = replace(kept, comments=comments)
            for c in gone:
                note = tr("a 点评 by {author} under floor {floor} (“{words}”, {time}) was "
                          "deleted after the close; counted as it stood at the close (S2), as "
                          "tally read it {read}", author=c.author, floor=post.floor,
                          words=_words(c.text), time=short(c.time),
                          read=_read(then, game))  # fmt: skip
                flags.append(Flag("deleted", note, cast.of(c).player, post.floor,
                                  c.comment_id))  # fmt: skip
        posts.append(kept)
    flags.extend(came_in_late(thread, history, day, game, cast))
    for pid, then in at_close.items():
        if pid in now or then.post.floor == 1 or then.post.time > day.closes:
            continue
        if banned(then.post):
            continue  # 屏蔽ed at the close, then deleted: no ballot either way (a deleted row)
        # Put back where it stood: before the first post now shown that came after it.
        at = next((i for i, p in enumerate(posts) if p.time > then.post.time), len(posts))
        posts.insert(at, then.post)
        flags.append(_kept(then.post, then, "deleted", game, cast, before_delete=True))
    return replace(thread, posts=tuple(posts)), flags


def _comments_as_they_stood(
    then: Post, now: Post, day: Day
) -> tuple[tuple[Comment, ...], list[Comment]]:
    """The 点评 under ``now`` with those a read after the close showed under ``then`` and the
    forum deleted since (posted by the close) put back; and those put back. They are matched
    by author, time and words (Discuz! numbers them by position: a delete renumbers the
    rest), kept in the order that read showed them (it shows their minutes only: two in one
    minute keep that order), those posted since by their time, and numbered again as the
    forum numbered them then."""
    live: dict[tuple[str, object, str], list[Comment]] = {}
    for c in now.comments:
        live.setdefault((c.author, c.time, c.text), []).append(c)
    gone: list[Comment] = []
    order: list[Comment] = []
    for c in then.comments:
        key = (c.author, c.time, c.text)
        if live.get(key):
            order.append(live[key].pop(0))
        elif c.time <= day.closes:
            gone.append(c)
            order.append(c)
    if not gone:
        return now.comments, []
    for c in (c for left in live.values() for c in left):  # posted after that read
        at = next((i for i, o in enumerate(order) if o.time > c.time), len(order))
        order.insert(at, c)
    positional = all(c.comment_id == f"{then.post_id}.{i}"
                     for i, c in enumerate(then.comments, start=1))  # fmt: skip
    return tuple(replace(c, comment_id=f"{then.post_id}.{i}") if positional else c
                 for i, c in enumerate(order, start=1)), gone  # fmt: skip


def _read(then: Seen, game: Game) -> str:
    return short(then.read_at.astimezone(game.timezone))


def _kept(post: Post, then: Seen, what: str, game: Game, cast: Cast, *,
          before_delete: bool = False) -> Flag:  # fmt: skip
    # A post put back keeps the floor it had; the floors after it are numbered again.
    fields = {"floor": post.floor, "author": post.author, "read": _read(then, game),
              "words": _words(then.post.text)}  # fmt: skip
    if what == "deleted":
        note = tr("floor {floor} ({author}, its number before the delete) was deleted after "
                  "the close; counted as it stood at the close (S2), as tally read it {read}: "
                  "“{words}”", **fields)  # fmt: skip
    elif what == "banned":
        note = tr("floor {floor} ({author}) was 屏蔽ed (or its author banned) after the close; "
                  "counted as it stood at the close (S2), as tally read it {read}: “{words}”",
                  **fields)  # fmt: skip
    else:
        note = tr("floor {floor} ({author}) was 屏蔽ed when tally read it and is shown after "
                  "the close; counted as it stood at the close (S2), as tally read it {read}: "
                  "“{words}”", **fields)  # fmt: skip
    rule = "deleted" if before_delete else "banned"  # a 屏蔽 (or its lifting) after the close
    return Flag(rule, note, cast.of(post).player, post.floor, post.post_id)


def deleted_rows(
    thread: Thread, game: Game, *, cast: Cast, kept: Iterable[str] = ()
) -> tuple[list[Remark], list[Flag]]:
    """The posts tally read earlier that the thread no longer shows, matched by post id
    (the floors after a deleted one are numbered again); ``kept``: those put back as they
    stood at the close (``kept_from_the_close``)."""
    history = thread.history
    if history is None:
        return [], []
    shown = {p.post_id for p in thread.posts} | set(kept)
    rows, flags = [], []
    for pid, seen in sorted(last_seen(history).items(), key=lambda kv: kv[1].post.floor):
        post = seen.post
        if pid in shown or post.floor == 1:
            continue
        who = cast.of(post)
        if who.is_director:
            continue
        player = who.player
        said = _words(post.text) if not banned(post) else Status.BANNED.label
        read = short(seen.read_at.astimezone(game.timezone))
        gone = tr(
            "gone from the thread since tally read it {read}; it said “{words}”",
            read=read,
            words=said,
        )
        note = tr("floor {floor} ({author}) was deleted: {gone}", floor=post.floor,
                  author=post.author, gone=gone)  # fmt: skip
        flags.append(Flag("deleted", note, player, post.floor, pid))
        if not (banned(post) or read_ballot(post.text, require_reason=False).is_ballot):
            continue  # chat a moderator deleted: flagged, but no row among the ballots
        rows.append(
            Remark(
                floor=post.floor,
                post_id=pid,
                author=post.author,
                player=player,
                time=post.time,
                words=Status.DELETED.label,
                author_id=post.author_id,
                to_the_minute=post.to_the_minute,
                status=Status.DELETED,
                # Its floor is the one it had: the floors after it are numbered again, and
                # another post may hold that number now (the console, the report, the JSON).
                note=tr(
                    "floor {floor} before it was deleted; {gone}: never counted",
                    floor=post.floor,
                    gone=gone,
                ),
            )
        )
    return rows, flags


def as_it_stood(
    thread: Thread,
    game: Game,
    day: Day,
    *,
    as_edited: bool = False,
    cast: Cast,
) -> tuple[Thread, list[Flag]]:
    """The thread with each ballot as it stood at the close (or before the final hour, for
    an edit that changed the target inside it, V5), and a flag for each one taken back."""
    history = thread.history or History()
    closing = stood_at(history, day.closes)
    first = seen_after(history, _EVER)  # each post as tally first read it
    window = timedelta(minutes=game.rules.change_window_minutes)
    ruled = [r for r in game.rulings if r.day == day.day]
    posts: list[Post] = []
    flags: list[Flag] = []
    for post in thread.posts:
        kept = post
        if _may_be_a_ballot(post, cast, day):
            earlier = _readable(closing.get(post.post_id))
            if earlier is not None and _changed_after(post, earlier, day):
                # No mark after the close (a moderator's edit, one within a minute of posting,
                # or a mark older than tally's read): the words changed after that read,
                # which may be before the close or after it.
                when = (
                    tr("after the close")
                    if _edited_at_close(post, day)
                    else tr("after tally's last read before the close, and no edit mark says when")
                )
                kept = _taken_back(post, earlier, when, flags, game, cast)
            elif earlier is None and (_edited_at_close(post, day) or post.edit_unknown):
                # A mark at or after the close, or none the forum would show (its mobile
                # interface hides them, and neither its other version said): not known.
                if any(r.names(post, None) for r in ruled):
                    pass  # the ruling is the director's word, said where it is applied
                elif as_edited:
                    flags.append(Flag("edited", _counted_as_edited(post), cast.of(post).player,
                                      post.floor, post.post_id))  # fmt: skip
                else:
                    raise InputError(_unknown_at_close(thread, post, day))
            elif window and post.edited is not None:
                start = day.closes - window
                # A mark says minutes only: one in the window's first minute may be in it.
                if _minute(start) <= post.edited.at < day.closes:
                    before = _readable(stood_at(history, start).get(post.post_id))
                    if before is None:  # first read inside the window, before the edit
                        before = _first_read(history, post.post_id, start, post.edited.at)
                    if before is not None and _target(before.post) != _target(post):
                        minutes = window_text(game.rules.change_window_minutes)
                        when = tr("in the last {window} before the close (V5)", window=minutes)
                        kept = _taken_back(post, before, when, flags, game, cast)
            if kept is post and post.post_id in first:
                _retargeted(post, first[post.post_id], flags, game, cast)
        posts.append(kept)
    return replace(thread, posts=tuple(posts)), flags


def _retargeted(post: Post, seen: Seen, flags: list[Flag], game: Game, cast: Cast) -> None:
    """Flag a ballot whose target an edit changed since tally first read it, before the
    final hour: an edit is no change (V3, V4: one change, posted as the rules say), so the
    director should see it (it is counted as it reads now)."""
    old = _readable(seen)
    if old is None or old.post.text == post.text:
        return
    # One player for another; a name mended into a player's is a fix (V7), not this.
    was, now = (game.roster.match(t).player if t else None for t in (_target(old.post),
                                                                      _target(post)))  # fmt: skip
    if was is None or now is None or was == now:
        return
    read = short(seen.read_at.astimezone(game.timezone))
    mark = _mark(post)
    note = tr("edited to another target{mark}: “{then}” when tally read it {read}, “{now}” now; "
              "an edit is no change (V3): counted as it reads now, rule on it ([[rulings]]) if "
              "it should not be", mark=mark, then=_words(old.post.text, 60), read=read,
              now=_words(post.text, 60))  # fmt: skip
    flags.append(Flag("edited", note, cast.of(post).player, post.floor, post.post_id))


_EVER = datetime.min.replace(tzinfo=UTC)  # before any read


def _may_be_a_ballot(post: Post, cast: Cast, day: Day) -> bool:
    if post.floor == 1 or post.time > day.closes or banned(post):
        return False
    # A director's post is a ballot only as a proxy ballot (代投：NAME), tally's never.
    return not cast.of(post).is_director or read_ballot(post.text).proxy_for is not None


def _first_read(history: History, pid: str, start: datetime, edited: datetime) -> Seen | None:
    """The post as tally first read it from ``start`` on, when that read came before the
    edit mark's minute (marks say minutes only: a read in that minute may be after it)."""
    seen = seen_after(history, start - timedelta(microseconds=1)).get(pid)
    if seen is None or seen.read_at >= _minute(edited):
        return None
    return _readable(seen)


def _readable(seen: Seen | None) -> Seen | None:
    """A version that showed the post's words: one read with cookies the forum hid them
    from (a hidden reply read as a guest) says nothing of them."""
    if seen is None or (seen.post.hidden and not seen.post.text.strip()):
        return None
    if seen.post.hidden == HIDE_CODE:  # [hide]: the placeholder, not the words
        return None
    return seen


def _changed_after(post: Post, earlier: Seen, day: Day) -> bool:
    """Whether the words now are not those read before the close, and no edit mark shows
    the change was made before the close (after that read)."""
    if earlier.post.text == post.text:
        return False
    mark = post.edited
    if mark is None:
        return True  # an edit with no mark (a moderator's, or within a minute of posting)
    return not (_minute(earlier.read_at) <= mark.at < _minute(day.closes))


def _edited_at_close(post: Post, day: Day) -> bool:
    """An edit mark in the closing minute or after (marks say minutes only)."""
    return post.edited is not None and post.edited.at >= _minute(day.closes)


def _target(post: Post) -> str | None:
    reading = read_ballot(post.text, require_reason=False)
    return normalise(reading.ballots[0].target) if reading.ballots else None


def _taken_back(
    post: Post, earlier: Seen, when: str, flags: list[Flag], game: Game, cast: Cast
) -> Post:
    old = earlier.post
    player = cast.of(post).player
    read = short(earlier.read_at.astimezone(game.timezone))
    flags.append(
        Flag(
            "edited",
            tr(
                "changed {when}{mark}: counted as tally read it {read}, “{then}”, not as it "
                "reads now, “{now}”",
                when=when,
                mark=_mark(post),
                read=read,
                then=_words(old.text, 60),
                now=_words(post.text, 60),
            ),
            player,
            post.floor,
            post.post_id,
        )
    )
    return replace(post, text=old.text, quotes=old.quotes, reply_to=old.reply_to, edited=old.edited)


def _mark(post: Post) -> str:
    """ " (edit mark 12-01 21:35)": the forum's edit mark, where it shows one."""
    return tr(" (edit mark {at})", at=short(post.edited.at)) if post.edited is not None else ""


def _counted_as_edited(post: Post) -> str:
    """The flag of a ballot whose words at the close are not known, counted as it reads now
    because the director said so (--as-edited): the choice is seen in the count."""
    return tr("edited{mark} at or after the close, and no read before the close shows it: "
              "counted as it reads now, as --as-edited says", mark=_mark(post))  # fmt: skip


def _unknown_at_close(thread: Thread, post: Post, day: Day) -> str:
    read = first_read(thread.history)
    lost = [v for v, _ in lost_at(thread.history, day.closes)
            if v.read_at <= day.closes and v.page == post.page]  # fmt: skip
    never = (
        tr("tally's read of page {page} {read} is missing or damaged in the cache",
           page=post.page, read=short(lost[-1].read_at.astimezone(day.closes.tzinfo)))
        if lost
        else tr("tally never read the thread before the close")
        if read is None or read > day.closes
        else tr("no read before the close shows it")
    )  # fmt: skip
    edited = (
        tr(
            "was edited {at}, at or after the close {close} (an edit mark says minutes only)",
            at=short(post.edited.at),
            close=short(day.closes),
        )
        if post.edited is not None
        else tr(
            "was read through the board's mobile interface, which shows no edit mark, and "
            "tally could not learn from the board whether or when it was edited"
        )
    )
    return tr(
        "floor {floor} ({author}) {edited}, and {never}: what it said at the close is not "
        "known. Rule on it in the game file ([[rulings]] day = {day}, floor = {floor}, "
        'action = "accept" or "void"), or count it as edited with --as-edited.',
        floor=post.floor,
        author=post.author,
        edited=edited,
        never=never,
        day=day.day,
    )
