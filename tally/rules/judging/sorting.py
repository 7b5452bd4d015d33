"""A vote thread's writings, each read once and sorted (``sort_writings``): a ballot to
judge (a ``Work``), a row that holds none (``remarks``: listed, never counted), or the
director's own, which is neither; and the names the accounts showed, for reading targets.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import NamedTuple

from tally.i18n import N_, tr
from tally.model import Thread, Writing
from tally.rules.game.cast import Author, Cast
from tally.rules.game.game import Day, Game
from tally.rules.game.rulesets import Ruleset
from tally.rules.judging.ballot_text import Reading, read_boxed
from tally.rules.judging.ballots import Flag, Remark
from tally.rules.judging.merges import Seen, seen_in_vote_thread
from tally.rules.judging.minutes import seen_by, writing_key
from tally.rules.judging.own import tallys_own
from tally.rules.judging.rows import (
    BANNED,
    FROM_VOTE,
    banned,
    banned_row,
    discussion_row,
    from_vote_note,
    moved_row,
    placed,
    plain_row,
)
from tally.rules.judging.work import Work
from tally.rules.verdicts import Status


class Sorted(NamedTuple):
    """A vote thread's writings, each read once (``sort_writings``)."""

    works: list[Work]
    rows: tuple[Remark, ...]
    # The names renamed players' accounts show now (player -> names).
    shown: dict[str, list[str]]
    # The accounts posting that are no player and no director (name -> uid).
    others: dict[str, str | None]
    # The names each player's account showed in tally's earlier reads (player -> names).
    before: dict[str, set[str]]
    # A director's posts that read as a ballot for a player but say for nobody (V8).
    flags: list[Flag]


def sort_writings(
    thread: Thread, game: Game, rules: Ruleset, cast: Cast, closes: datetime | None,
    day: Day | None, seen_as: Mapping[str, Seen],
) -> Sorted:  # fmt: skip
    """Each writing read once: a ballot to judge, a row that holds none, or the director's
    own (the opening post, a 催票 that shows the format, a notice, tally's own posts), which
    is neither."""
    works: list[Work] = []
    flags: list[Flag] = []
    rows: list[Remark] = []
    shown: dict[str, list[str]] = {}
    others: dict[str, str | None] = {}
    barred = _banned_accounts(thread, closes)
    # What each floor says, words alone: a quote box holding another floor's words quotes it.
    floors = [(p.post_id, "".join(p.text.split())) for p in thread.posts]
    # When tally's reads first showed each writing shown to the minute: posted by then.
    minutes = any(w.to_the_minute for w in thread.writings())
    reads = seen_by(thread.history) if minutes else {}
    for w in thread.writings():
        who = cast.of(w)
        if who.renamed and who.player is not None:
            names = shown.setdefault(who.player, [])
            names.extend(n for n in (w.author, w.author_display) if n and n not in names)
        if who.player is None and not who.is_director:
            others.setdefault(w.author, w.author_id)
        # The opening post is the director's header, with an empty ballot template in it;
        # a 点评 under it is a writing like any (a M126 change may be one; real X3.5).
        if w.post.floor == 1 and not w.is_comment:
            continue
        if not w.is_comment and tallys_own(w.post, game, cast):
            continue  # tally posted it (the journal, its mark): never a ballot, never a row
        seen = seen_as.get(w.post.post_id, Seen.BALLOT)
        other = thread.moved_in.get(w.post.post_id)
        apart = _set_apart(w, who, seen, other, day, barred)
        if apart is not None:
            if not who.is_director:
                rows.append(apart)
            continue
        boxed = _typed_quote(w, floors)
        reading, text = read_boxed(w.text, boxed, require_reason=rules.require_reason,
                                   abstain_word=rules.abstain_word,
                                   change_reason=rules.change_requires_reason)  # fmt: skip
        if not reading.is_ballot:
            if not who.is_director:
                rows.append(plain_row(w, who))
            continue
        if who.is_director and reading.proxy_for is None:
            # The director's own words (a 催票 that shows the format, a notice, a ruling): no
            # ballot and no row; one that reads as a ballot for a player is said.
            flag = _unnamed_proxy(w, reading, game)
            if flag is not None:
                flags.append(flag)
            continue
        work = _work(w, reading, text, seen, reads)
        if seen is Seen.FROM_VOTE and day is not None and other is not None:
            work.flags.append((FROM_VOTE, from_vote_note(w, other, day)))
        works.append(work)
    return Sorted(works, tuple(rows), shown, others, _names_before(thread, cast), flags)


def _banned_accounts(thread: Thread, closes: datetime | None) -> set[str]:
    """An account the forum shows banned (作者被禁止或删除) on a floor: its 点评 are shown still,
    and are no more ballots than its floors (a banned author's change counted, real X3.5).
    Floors posted after the close do not say the account was banned when it voted: one
    banned after the close keeps the 点评 it cast before (its floors are put back as they
    stood, tally.rules.judging.standing.kept_from_the_close)."""
    return {p.author_id or p.author for p in thread.posts if p.hidden == "author_banned"
            and (closes is None or p.time <= closes)}  # fmt: skip


def _set_apart(
    w: Writing, who: Author, seen: Seen, other: str | None, day: Day | None, barred: set[str]
) -> Remark | None:
    """The row of a writing that is no ballot whatever it says, or None: moved in from
    another thread, posted in the discussion thread merged in, 屏蔽ed, or a banned account's
    点评. A director's is no row (the caller drops it)."""
    if seen is Seen.MOVED_IN and other is not None:
        # Posted in another thread (tally read it there), moved in since: no ballot
        # was cast in the vote thread (a merged discussion thread's 投票对象 lines were
        # counted, and the wrong player posted out, on a real X3.5).
        return moved_row(w, who, other)
    if seen is Seen.DISCUSSION and day is not None:
        # Posted in the discussion thread the day's vote thread was merged into (tally
        # read it there first): no ballot, as the 投票对象 lines of a discussion thread
        # are none (they were counted, on a real X3.5, and the ballots were not).
        return discussion_row(w, who, day)
    if not w.is_comment and banned(w.post):
        # A 屏蔽ed post is a row of its own, whoever's cookies show its words.
        return banned_row(w.post, who)
    if w.is_comment and (w.author_id or w.author) in barred and not who.is_director:
        found = plain_row(w, who)
        note = tr("{why}: its 点评 are never counted either", why=tr(BANNED["author_banned"]))
        return replace(found, words=Status.BANNED.label, status=Status.BANNED, note=note)
    return None


def _work(
    w: Writing, reading: Reading, text: str, seen: Seen, reads: Mapping[Hashable, datetime]
) -> Work:
    """A writing that reads as a ballot, to be judged."""
    return Work(
        w.post,
        w.comment_index,
        w.item_id,
        w.author,
        w.time,
        reading,
        reading.ballots[0] if reading.ballots else None,
        time=w.time,
        author_display=w.author_display,
        author_id=w.author_id,
        damaged="\ufffd" in w.text or "\ufffd" in w.author,
        to_the_minute=w.to_the_minute,
        seen_by=reads.get(writing_key(w)) if w.to_the_minute else None,
        text=text,
        flags=[("quote box", tr(_BOXED))] if text != w.text else [],
        seen=seen,
    )


def _names_before(thread: Thread, cast: Cast) -> dict[str, set[str]]:
    """The names each player's account showed in tally's earlier reads of the thread."""
    before: dict[str, set[str]] = {}
    for version in thread.history.versions if thread.history is not None else ():
        for post in version.posts:
            player = cast.of(post).player
            if player is not None:
                before.setdefault(player, set()).add(post.author)
    return before


_BOXED = N_(
    "written inside a quote box that quotes no post ([quote] typed by hand, no 发表于 "
    "header, no link): read as the poster's own words; rule on it if it should not "
    "count"
)
_QUOTED_HEADER = ("发表于", "發表於", "原帖由", "posted on")


def _typed_quote(w: Writing, floors: Sequence[tuple[str, str]] = ()) -> str:
    """The words of the quote boxes of a floor that quote no post (a [quote] typed around
    one's own ballot): no link to a post, no author, no 发表于 header, and not the words of
    another's floor (pasted, or a 引用 box with its header line deleted); "" for none."""
    if w.is_comment:
        return ""

    def elsewhere(text: str) -> bool:  # another floor's words, the poster's own too
        words = "".join(text.split())
        return bool(words) and any(words in said for pid, said in floors if pid != w.post.post_id)

    own = [q.text for q in w.post.quotes if q.post_id is None and q.author is None
           and not any(h in q.text for h in _QUOTED_HEADER) and not elsewhere(q.text)]  # fmt: skip
    return "\n".join(own).strip()


def _unnamed_proxy(w: Writing, reading: Reading, game: Game) -> Flag | None:
    """A director's post that holds a ballot for a player and says for nobody: a proxy
    ballot with its 代投 line missing or misspelt, or the director's example. Never counted
    (a director's post is a ballot only in the proxy's form); said, not dropped unseen."""
    named = [b.target for b in reading.ballots if game.roster.match(b.target).player]
    if not named:
        return None
    note = tr(
        "{where} by the director {author} reads as a ballot for {player} but names no player it "
        "is cast for: not counted. A proxy ballot says whom it is for on a line of its own, "
        "代投：NAME (V8); post it again so, or rule on it",
        where=placed(w),
        author=w.author,
        player=named[0],
    )
    return Flag("proxy", note, None, w.post.floor, w.item_id)


def remarks(
    thread: Thread,
    game: Game,
    rules: Ruleset | None = None,
    *,
    cast: Cast,
    day: Day | None = None,
    seen_as: Mapping[str, Seen] | None = None,
) -> tuple[Remark, ...]:
    """The posts and comments of ``day``'s vote thread that hold no ballot, but for the
    director's (the opening post, reminders): each one listed, none counted."""
    seen = seen_in_vote_thread(thread, day)
    return sort_writings(thread, game, rules or game.rules, cast, None, day, seen).rows
