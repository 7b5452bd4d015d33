"""The posts of a vote thread that hold no ballot, each as its row (a ``Remark``): chat, a
post moved or merged in, a 屏蔽ed one; the look-alike of a player; and the flag for a 屏蔽
where a player moderates the board (beside the count, and beside a card that rests on the
屏蔽). Listed, never counted (RULES V6, V7, S2)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from tally.i18n import N_, tr
from tally.model import Post, Thread, Writing
from tally.rules.game.cast import Author, Cast, Signed
from tally.rules.game.game import Day
from tally.rules.judging.ballots import Flag, Remark
from tally.rules.verdicts import Status

FROM_VOTE = "moved in from the vote thread"


def placed(w: Writing, article: str = "a") -> str:
    """Where a writing stands, for a row's note: "floor 7", or "a 点评 under floor 7"."""
    if not w.is_comment:
        return tr("floor {floor}", floor=w.post.floor)
    if article == "the":
        return tr("the 点评 under floor {floor}", floor=w.post.floor)
    return tr("a 点评 under floor {floor}", floor=w.post.floor)


def from_vote_note(w: Writing, other: str, day: Day) -> str:
    return tr(
        "{where} was posted in thread {thread}, day {day}'s vote thread when tally read it "
        "there, and merged into this one since (a moderator's 合并): a ballot cast in the vote "
        "thread (S2), counted as one",
        where=placed(w, "the"),
        thread=other,
        day=day.day,
    )


def discussion_row(w: Writing, who: Author, day: Day) -> Remark:
    """A post tally first read in the day's discussion thread, in the vote thread now (the
    vote thread merged into it), as its row."""
    found = plain_row(w, who)
    note = tr(
        "{where} was posted in this thread while it was day {day}'s discussion thread, where "
        "tally read it, before the vote thread was merged into it (a moderator's 合并): not a "
        "ballot cast in the vote thread (S2), never counted",
        where=placed(w),
        day=day.day,
    )
    return replace(found, status=Status.DISCUSSION, note=note)


def moved_row(w: Writing, who: Author, other: str) -> Remark:
    """A post tally read in thread ``other`` before, in the vote thread now, as its row."""
    found = plain_row(w, who)
    note = tr(
        "{where} was posted in thread {thread}, where tally read it, and moved into the vote "
        "thread since (a moderator's 移动 or 合并): not a ballot cast in the vote thread (S2), "
        "never counted",
        where=placed(w),
        thread=other,
    )
    return replace(found, status=Status.MOVED_IN, note=note)


def plain_row(w: Writing, who: Author) -> Remark:
    words = " ".join(w.text.split())
    return Remark(
        floor=w.post.floor,
        post_id=w.item_id,
        author=w.author,
        player=who.player,
        time=w.time,
        words=words if len(words) <= 30 else words[:29] + "…",
        comment=w.is_comment,
        parent_post_id=w.post.post_id if w.is_comment else None,
        author_id=w.author_id,
        to_the_minute=w.to_the_minute,
        # A look-alike's post is a row of its own that names whom it looks like.
        note=lookalike_note(who, w) or "",
    )


def lookalike_note(who: Author, w: Signed) -> str | None:
    """The sentence for an account named like a player (or a director) that is not that
    account (another uid, or a name that matches only once folded); None for anyone else."""
    if who.lookalike is None:
        return None
    names = " / ".join(n for n in (w.author, w.author_display) if n)
    if who.lookalike_id and w.author_id:
        return tr("{names} is a look-alike of {player} (uid {uid}), posted by uid {by}: not a "
                  "player of this game", names=names, player=who.lookalike,
                  uid=who.lookalike_id, by=w.author_id)  # fmt: skip
    return tr("{names} is a look-alike of {player}, another account: not a player of this game",
              names=names, player=who.lookalike)  # fmt: skip


# Why the forum 屏蔽s a post (Post.hidden): a moderator's banpost, or its author banned.
BANNED = {"moderated": N_("屏蔽ed by a moderator"),
          "author_banned": N_("屏蔽ed: its author is banned")}  # fmt: skip


def banned(post: Post) -> bool:
    return post.hidden in BANNED


def banned_row(post: Post, who: Author) -> Remark:
    """A 屏蔽ed post as its row: the same whoever reads it. Its words are never shown (the
    forum hides them from the players; a moderator's cookies would read them)."""
    return Remark(
        floor=post.floor,
        post_id=post.post_id,
        author=post.author,
        player=who.player,
        time=post.time,
        words=Status.BANNED.label,
        status=Status.BANNED,
        author_id=post.author_id,
        to_the_minute=post.to_the_minute,
        note=tr(
            "{why}: never counted, whoever's cookies read it", why=tr(BANNED[post.hidden or ""])
        ),
    )


def moderating_players(thread: Thread, rows: Sequence[Remark], cast: Cast) -> list[Flag]:
    """A post 屏蔽ed in a thread where a player of the game is one of the board's moderators
    (the user group beside their posts): the page never says who 屏蔽ed it, and a player who
    can may have hidden another's ballot. Said once for each such player."""
    hidden = [r for r in rows if r.status is Status.BANNED and not r.comment]
    if not hidden:
        return []
    floors = "、".join(f"{r.floor}楼" for r in hidden)
    flags, seen = [], set()
    for post in thread.posts:
        player = cast.of(post).player
        if post.moderator is None or player is None or player in seen:
            continue
        seen.add(player)
        uid = tr(" (uid {uid})", uid=post.author_id) if post.author_id else ""
        note = tr(
            "{floors} 屏蔽ed by a moderator, and {player}{uid}, a player of this game, is one of "
            "the board's moderators ({group}): the page does not say who 屏蔽ed it; ask the "
            "board's administrators (管理中心 → 运行记录), and rule on the floor if a player hid "
            "another's ballot",
            floors=floors,
            player=player,
            uid=uid,
            group=post.moderator,
        )
        flags.append(Flag("moderator", note, player, hidden[0].floor, hidden[0].post_id))
    return flags


def moderated_cards(
    carded: Iterable[str], thread: Thread | None, rows: Sequence[Remark], cast: Cast
) -> list[Flag]:
    """The moderator flag (``moderating_players``) again for each player ``carded`` for not
    voting (L3) whose ballot a moderator may have hidden: the 屏蔽ed floors are theirs, and a
    player of the game moderates the board. The flag is about the card (its ``player``, the
    carded one), in the thread it rests on: a card the director confirms says why it may be
    wrong where it is offered."""
    if thread is None:
        return []
    flags = []
    for player in dict.fromkeys(carded):
        theirs = [r for r in rows if r.player == player]
        for f in moderating_players(thread, theirs, cast):
            note = tr(
                "{note} ({player}'s L3 card for not voting rests on it)", note=f.note, player=player
            )
            flags.append(replace(f, note=note, player=player, thread_id=thread.thread_id))
    return flags
