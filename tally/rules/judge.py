"""Which ballots of a vote thread count, and why (RULES V1-V11, S3).

Every post and comment that tries to be a ballot becomes a ``Ballot`` with a status:
counted (in force at the close), superseded (replaced by a valid change) or void
(never counts), a short reason code and a note a director can check floor by floor.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import NamedTuple

from tally.errors import GameFileError, InputError, NotAThreadError
from tally.model import HIDE_CODE, Post, Thread, Writing
from tally.rules.ballot_text import ParsedBallot, Reading, read_boxed
from tally.rules.ballots import Ballot, Flag, Remark
from tally.rules.game import Author, Cast, Day, Game, Ruling, Signed
from tally.rules.merges import Seen, seen_in_vote_thread, unsure_sentence
from tally.rules.names import TRAILING, Roster, author_key, normalise
from tally.rules.rulesets import CHANGE_BUTTONS, ChangeMethod, Ruleset
from tally.rules.verdicts import FIXABLE, BallotKind, RulingAction, Status, VoidReason
from tally.times import clock, compared, short

# How a post mentions a member: "@name" (Discuz! links it, Tieba writes it as text).
_MENTION = "@＠"


@dataclass
class _Work:
    """A ballot while it is being judged."""

    post: Post  # the floor (for a comment, the floor it sits under)
    comment_index: int | None
    post_id: str
    author: str
    posted_at: datetime
    reading: Reading
    parsed: ParsedBallot | None
    author_display: str | None = None
    author_id: str | None = None
    voter: str | None = None
    proxy: bool = False
    target: str | None = None
    abstain: bool = False
    time: datetime | None = None
    status: Status | None = None  # None: not judged yet
    reason: VoidReason | None = None
    notes: list[str] = field(default_factory=list)
    suggestions: tuple[str, ...] = ()
    flags: list[tuple[str, str]] = field(default_factory=list)  # (rule, note)
    ruling: Ruling | None = None
    is_change: bool = False
    superseded_at: datetime | None = None
    # The page held bytes that are not text here (read as U+FFFD): the ballot seen may not
    # be the ballot written.
    damaged: bool = False
    # Its time is shown to the minute (a Discuz! 点评): posted somewhere in that minute.
    to_the_minute: bool = False
    # What the writing says, as written (the floor's or the comment's own words).
    text: str = ""
    # The target written names no player: why, for ``_check`` to void it with unless the
    # ballot is void for its voter first.
    unknown_target: str | None = None
    # Counted, then void because its voter or its target went out during the day (V9):
    # a vote cast all the same (L3).
    lapsed: bool = False
    # What tally first read the post as (``tally.rules.merges``): UNSURE stops the count
    # unless the director ruled on it.
    seen: Seen = Seen.BALLOT

    @property
    def is_comment(self) -> bool:
        return self.comment_index is not None

    @property
    def is_void(self) -> bool:
        return self.status == Status.VOID

    def void(self, reason: VoidReason, note: str) -> None:
        self.status, self.reason = Status.VOID, reason
        self.notes.append(note)

    @property
    def earliest(self) -> datetime:
        """The earliest it can have been posted: a 点评 comes after the floor it is under,
        which the forum shows to the second while the 点评 shows its minute (one posted in
        the floor's own minute sorted before it, and read as a change before the vote)."""
        return max(self.posted_at, self.post.time) if self.is_comment else self.posted_at

    @property
    def order(self) -> tuple[datetime, int, int]:
        return (self.earliest, self.post.floor, self.comment_index or 0)


def judge(
    thread: Thread,
    game: Game,
    day: Day,
    rules: Ruleset | None = None,
    *,
    provisional: bool = False,
    cast: Cast,
) -> Judged:
    """Every ballot of ``day``'s vote thread, judged; the flags for the director; and the
    posts that hold no ballot (``remarks``), found in the same reading of each writing.

    ``provisional``: the day has not closed, so a ballot in force is in force now, not
    at the close. ``cast``: who wrote what, as the count decided it (``Game.cast``).
    """
    rules = rules or game.rules
    _readable_by_these_cookies(thread, cast)
    roster = game.roster
    rulings = [r for r in game.rulings if r.day == day.day]
    voters = _electors(game, day, rules)
    candidates, rows, shown, others, before = _sorted(thread, rules, cast, day.closes, day)
    # A renamed player's account shows its new name on every post: a voter writes that.
    renamed = Roster((), {p: names for p, names in shown.items()}) if shown else None
    # The accounts no player: a target spelled as one of them may mean it.
    strangers = Roster((), {name: (name,) for name in others}) if others else None
    works: list[_Work] = []
    # Ballots whose target is exactly the name another player's account shows now: whom
    # they name cannot be told (floor -> why), unless the director ruled on them.
    unclear: list[tuple[_Work, str]] = []
    for work in candidates:
        work.ruling = next((r for r in rulings if r.names(work.post, work.comment_index)), None)
        if work.ruling is not None:
            rulings.remove(work.ruling)
        _identify(work, cast.of(work), roster)
        if work.parsed is not None and work.voter is not None and not work.is_void:
            _read_target(work, roster, day, rules, renamed, game.ids)
            why = _shown_by_another(work, shown, game.ids, before, thread.thread_id)
            if why is not None and not _resolved(work.ruling):
                unclear.append((work, why))
            _name_of_another(work, strangers, others, game.ids)
        _check(work, day, rules, voters)
        works.append(work)
    if rulings:
        left = rulings[0]
        where = f"floor {left.floor}" + (f", comment {left.comment}" if left.comment else "")
        where += f" (post {left.post})" if left.post else ""
        there = left.post is None or any(p.post_id == left.post for p in thread.posts)
        versions = thread.history.versions if thread.history is not None else ()
        was = any(p.post_id == left.post for v in versions for p in v.posts)
        why = (
            "which holds no ballot"
            if there
            else "which the thread no longer shows: deleted since tally read it"
            if was
            else "which no post of the thread has (its post id?)"
        )
        raise GameFileError(f"a ruling for day {day.day} names {where}, {why}.")
    # A 主管 out before their vote was due, or with no vote to cast this day (V10's
    # cannot_vote, V12's election), had none to cast in time (V11).
    owner = day.bar_owner
    owner_out = owner is not None and (
        day.out_at(owner, _owner_due(day, rules))
        or owner in day.cannot_vote
        or (voters is not None and owner not in voters)
    )
    unsure = [w.post for w in works if w.seen is Seen.UNSURE and w.ruling is None
              and not cast.of(w).is_director]  # fmt: skip
    if unsure:
        raise InputError(unsure_sentence(thread, day, list(dict.fromkeys(unsure))))
    if unclear:
        raise InputError(_unclear_sentence(unclear, day))
    for work in works:
        _apply_ruling(work, roster)
    by_voter: dict[str, list[_Work]] = {}
    for work in sorted(works, key=lambda w: w.order):
        if work.voter is not None:
            by_voter.setdefault(work.voter, []).append(work)
    for voter, seq in by_voter.items():
        _sequence(voter, seq, day, rules)
    flags = _lapse_and_flag(works, day, rules, owner_out=owner_out)
    flags += [Flag("moved in", r.note, r.player, r.floor, r.post_id)
              for r in rows if r.status is Status.MOVED_IN]  # fmt: skip
    works.sort(key=lambda w: (w.post.floor, w.comment_index or 0))
    return Judged([_freeze(w, provisional) for w in works], flags, rows, voters)


def _readable_by_these_cookies(thread: Thread, cast: Cast) -> None:
    """Stop when the forum hid what a post in the vote thread holds behind [hide] (回复可见)
    from whoever read it: a ballot may be inside, and judging the placeholder would void it
    and card its voter (found on a real X3.5, read as a guest)."""
    hidden = [p for p in thread.posts if p.hidden == HIDE_CODE and not cast.of(p).is_director]
    if hidden:
        floors = "、".join(f"{p.floor}楼" for p in hidden)
        raise NotAThreadError(
            f"thread {thread.thread_id}: {floors} hide what they hold ([hide], 回复可见) from the "
            "cookies that read it (游客，如果您要查看本帖隐藏内容请回复): read the thread with the "
            "director's cookies (--cookies FILE), which the forum shows it to."
        )


class Judged(NamedTuple):
    ballots: list[Ballot]
    flags: list[Flag]
    # The posts and comments that hold no ballot (and the 屏蔽ed ones): listed, never counted.
    remarks: tuple[Remark, ...]
    # Who may vote on the day, where only some may (V12's election); None: every player.
    electors: frozenset[str] | None = None

    def barred(self, day: Day, player: str) -> bool:
        """Whether ``player`` has no vote to cast on ``day``: banned from voting (V10), or
        not among the election's voters (V12)."""
        elects = self.electors
        return player in day.cannot_vote or (elects is not None and player not in elects)


def _sorted(
    thread: Thread, rules: Ruleset, cast: Cast, closes: datetime | None = None,
    day: Day | None = None,
) -> tuple[
    list[_Work], tuple[Remark, ...], dict[str, list[str]], dict[str, str | None],
    dict[str, set[str]],
]:  # fmt: skip
    """Each writing read once: a ballot to judge, a row that holds none, or the director's
    own (the opening post, a 催票 that shows the format, a notice), which is neither; the
    names renamed players' accounts show now (player -> names); the accounts posting that
    are no player and no director (name -> uid); and the names each player's account
    showed in tally's earlier reads (player -> names)."""
    works: list[_Work] = []
    rows: list[Remark] = []
    shown: dict[str, list[str]] = {}
    others: dict[str, str | None] = {}
    # An account the forum shows banned (作者被禁止或删除) on a floor: its 点评 are shown still,
    # and are no more ballots than its floors (a banned author's change counted, real X3.5).
    # Floors posted after the close do not say the account was banned when it voted: one
    # banned after the close keeps the 点评 it cast before (its floors are put back as they
    # stood, tally.rules.standing.kept_from_the_close).
    barred = {p.author_id or p.author for p in thread.posts if p.hidden == "author_banned"
              and (closes is None or p.time <= closes)}  # fmt: skip
    # What each floor says, words alone: a quote box holding another floor's words quotes it.
    floors = [(p.post_id, "".join(p.text.split())) for p in thread.posts]
    seen_as = seen_in_vote_thread(thread, day)
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
        seen = seen_as.get(w.post.post_id, Seen.BALLOT)
        other = thread.moved_in.get(w.post.post_id)
        if seen is Seen.MOVED_IN and other is not None:
            # Posted in another thread (tally read it there), moved in since: no ballot
            # was cast in the vote thread (a merged discussion thread's 投票对象 lines were
            # counted, and the wrong player posted out, on a real X3.5).
            if not who.is_director:
                rows.append(moved_row(w, who, other))
            continue
        if seen is Seen.DISCUSSION and day is not None:
            # Posted in the discussion thread the day's vote thread was merged into (tally
            # read it there first): no ballot, as the 投票对象 lines of a discussion thread
            # are none (they were counted, on a real X3.5, and the ballots were not).
            if not who.is_director:
                rows.append(discussion_row(w, who, day))
            continue
        if not w.is_comment and banned(w.post):
            # A 屏蔽ed post is a row of its own, whoever's cookies show its words.
            if not who.is_director:
                rows.append(banned_row(w.post, who))
            continue
        if w.is_comment and (w.author_id or w.author) in barred and not who.is_director:
            row = _row(w, who)
            note = f"{BANNED['author_banned']}: its 点评 are never counted either"
            rows.append(replace(row, words=Status.BANNED.label, status=Status.BANNED, note=note))
            continue
        boxed = _typed_quote(w, floors)
        reading, text = read_boxed(w.text, boxed, require_reason=rules.require_reason,
                                   abstain_word=rules.abstain_word)  # fmt: skip
        if not reading.is_ballot:
            if not who.is_director:
                rows.append(_row(w, who))
            continue
        if not _director_note(w, reading, cast):
            parsed = reading.ballots[0] if reading.ballots else None
            works.append(_Work(
                w.post,
                w.comment_index,
                w.item_id,
                w.author,
                w.time,
                reading,
                parsed,
                time=w.time,
                author_display=w.author_display,
                author_id=w.author_id,
                damaged="\ufffd" in w.text or "\ufffd" in w.author,
                to_the_minute=w.to_the_minute,
                text=text,
                flags=[("quote box", _BOXED)] if text != w.text else [],
                seen=seen,
            ))  # fmt: skip
            if seen is Seen.FROM_VOTE and day is not None and other is not None:
                works[-1].flags.append((_FROM_VOTE, _from_vote_note(w, other, day)))
    before: dict[str, set[str]] = {}
    for version in thread.history.versions if thread.history is not None else ():
        for post in version.posts:
            player = cast.of(post).player
            if player is not None:
                before.setdefault(player, set()).add(post.author)
    return works, tuple(rows), shown, others, before


_BOXED = ("written inside a quote box that quotes no post ([quote] typed by hand, no 发表于 "
          "header, no link): read as the poster's own words; rule on it if it should not count")
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


def _director_note(w: Writing, reading: Reading, cast: Cast) -> bool:
    """Whether a director wrote it and it is no proxy ballot (not even a broken one): a 催票
    that shows the ballot format, a notice, a ruling. Neither a ballot nor a 废票 row."""
    if reading.proxy_for is not None or "代投" in w.text:
        return False
    return cast.of(w).is_director


def remarks(
    thread: Thread, game: Game, rules: Ruleset | None = None, *, cast: Cast,
    day: Day | None = None,
) -> tuple[Remark, ...]:
    """The posts and comments of ``day``'s vote thread that hold no ballot, but for the
    director's (the opening post, reminders): each one listed, none counted."""
    return _sorted(thread, rules or game.rules, cast, day=day)[1]


_FROM_VOTE = "moved in from the vote thread"


def _from_vote_note(w: Writing, other: str, day: Day) -> str:
    where = f"the 点评 under floor {w.post.floor}" if w.is_comment else f"floor {w.post.floor}"
    return (
        f"{where} was posted in thread {other}, day {day.day}'s vote thread when tally read it "
        "there, and merged into this one since (a moderator's 合并): a ballot cast in the vote "
        "thread (S2), counted as one"
    )


def discussion_row(w: Writing, who: Author, day: Day) -> Remark:
    """A post tally first read in the day's discussion thread, in the vote thread now (the
    vote thread merged into it), as its row."""
    row = _row(w, who)
    where = f"a 点评 under floor {w.post.floor}" if w.is_comment else f"floor {w.post.floor}"
    note = (
        f"{where} was posted in this thread while it was day {day.day}'s discussion thread, "
        "where tally read it, before the vote thread was merged into it (a moderator's 合并): "
        "not a ballot cast in the vote thread (S2), never counted"
    )
    return replace(row, status=Status.DISCUSSION, note=note)


def moved_row(w: Writing, who: Author, other: str) -> Remark:
    """A post tally read in thread ``other`` before, in the vote thread now, as its row."""
    row = _row(w, who)
    where = f"a 点评 under floor {w.post.floor}" if w.is_comment else f"floor {w.post.floor}"
    note = (
        f"{where} was posted in thread {other}, where tally read it, and moved into the vote "
        "thread since (a moderator's 移动 or 合并): not a ballot cast in the vote thread (S2), "
        "never counted"
    )
    return replace(row, status=Status.MOVED_IN, note=note)


def _row(w: Writing, who: Author) -> Remark:
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
        # A look-alike's post is a row of its own that names whom it looks like.
        note=lookalike_note(who, w) or "",
    )


def lookalike_note(who: Author, w: Signed) -> str | None:
    """The sentence for an account named like a player (or a director) that is not that
    account (another uid, or a name that matches only once folded); None for anyone else."""
    if who.lookalike is None:
        return None
    names = " / ".join(n for n in (w.author, w.author_display) if n)
    uids = (
        f" (uid {who.lookalike_id}), posted by uid {w.author_id}"
        if who.lookalike_id and w.author_id
        else ", another account"
    )
    return f"{names} is a look-alike of {who.lookalike}{uids}: not a player of this game"


# Why the forum 屏蔽s a post (Post.hidden): a moderator's banpost, or its author banned.
BANNED = {"moderated": "屏蔽ed by a moderator", "author_banned": "屏蔽ed: its author is banned"}


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
        note=f"{BANNED[post.hidden or '']}: never counted, whoever's cookies read it",
    )


def _identify(w: _Work, who: Author, roster: Roster) -> None:
    if who.is_director:
        if w.reading.proxy_for is None:
            w.void(VoidReason.DIRECTOR, "a director's own post is not a ballot")
            return
        match = roster.match(w.reading.proxy_for)
        if match.player is None:
            w.suggestions = match.suggestions
            w.void(
                VoidReason.UNKNOWN_VOTER,
                f"the proxy names {w.reading.proxy_for!r}, who is not a player",
            )
            return
        w.voter, w.proxy = match.player, True
        return
    # The account id first, then the account name; on Tieba the nickname shown is the
    # other name a roster uses.
    player = who.player
    if player is None:
        note = lookalike_note(who, w)
        if note is not None:
            w.flags.append(("lookalike", note))
            w.void(VoidReason.NOT_A_PLAYER, note)
            return
        names = " / ".join(n for n in (w.author, w.author_display) if n)
        w.void(VoidReason.NOT_A_PLAYER, f"{names} is not a player of this game")
        return
    w.voter = player
    if w.reading.proxy_for is not None:
        w.void(VoidReason.PROXY_NOT_DIRECTOR, "only a director may post a proxy ballot (V8)")


def _electors(game: Game, day: Day, rules: Ruleset) -> frozenset[str] | None:
    """V12 (seed 002): on the sheriff election day, the players who may vote and be elected
    (those whose role is one of ``election_voters``); None where everyone may."""
    if not rules.election_voters or day.day != rules.sheriff_election_day:
        return None
    return frozenset(p for p in game.players if game.has_role(p, rules.election_voters))


def _check(w: _Work, day: Day, rules: Ruleset, electors: frozenset[str] | None = None) -> None:
    """What the day's rules say of a ballot on its own, before its voter's other ballots
    are seen: its time, its voter, its format, its target (read by ``_read_target``)."""
    if w.is_void or w.voter is None:
        return
    if w.earliest < day.opens:
        posted, opens = compared(w.posted_at, day.opens)
        w.void(VoidReason.BEFORE_OPEN, f"posted {posted}, before the open {opens}")
        if w.to_the_minute and day.opens < w.posted_at + timedelta(minutes=1):
            # Shown "09:30" and the open at 09:30:25: perhaps after it, perhaps not.
            note = (
                f"posted in the opening minute ({short(w.posted_at)}; the forum shows a 点评's "
                f"time to the minute): before the open {opens}, unless a ruling accepts it"
            )
            w.notes[-1] = note
            w.flags.append(("opening minute", note))
    elif w.posted_at > day.closes:
        posted, closes = compared(w.posted_at, day.closes)
        w.void(VoidReason.AFTER_CLOSE, f"posted {posted}, after the close {closes}")
    elif w.to_the_minute and day.closes < w.posted_at + timedelta(minutes=1):
        # Shown "21:30" and the close at 21:30:00: on time only in its first second.
        note = (
            f"posted in the closing minute ({short(w.posted_at)}; the forum shows a 点评's "
            f"time to the minute): after the close {short(day.closes)}, unless a ruling "
            "accepts it"
        )
        w.void(VoidReason.AFTER_CLOSE, note)
        w.flags.append(("closing minute", note))
    elif day.out_at(w.voter, w.posted_at):
        w.void(VoidReason.DEAD_VOTER, f"{w.voter} is out and cannot vote (V9)")
    elif w.voter in day.cannot_vote:
        w.void(VoidReason.BANNED_VOTER, f"{w.voter} may not vote on day {day.day} (V10)")
    elif electors is not None and w.voter not in electors:
        roles = "、".join(rules.election_voters)
        w.void(VoidReason.NOT_ELECTOR, f"only {roles} vote in the sheriff election (V12)")
    problem = w.reading.problem
    if problem is not None and not w.is_void:
        w.void(problem.code, f"{problem.text} (V1, V7)")
    if w.unknown_target is not None and not w.is_void:
        w.void(VoidReason.UNKNOWN_TARGET, w.unknown_target)
    if w.is_void:
        return
    target = w.target if not w.abstain else None
    if target is not None and day.out_at(target, w.posted_at):
        w.void(VoidReason.DEAD_TARGET, f"{target} is out and cannot be voted for (V9)")
    elif target is not None and (target in day.cannot_be_voted or target == day.bar_owner):
        w.void(VoidReason.BANNED_TARGET, f"{target} cannot be voted for on day {day.day} (V10)")
    elif electors is not None and target is not None and target not in electors:
        roles = "、".join(rules.election_voters)
        w.void(VoidReason.NOT_ELECTABLE, f"only {roles} may be elected sheriff (V12)")
    elif w.proxy and rules.proxy_deadline_minutes is not None:
        due = day.closes - timedelta(minutes=rules.proxy_deadline_minutes)
        if w.posted_at > due:
            w.void(
                VoidReason.PROXY_LATE,
                f"proxy ballots are due {window_text(rules.proxy_deadline_minutes)} before "
                f"the close, by {clock(due)} (V8)",
            )


def _read_target(
    w: _Work,
    roster: Roster,
    day: Day,
    rules: Ruleset,
    renamed: Roster | None = None,
    ids: Mapping[str, str] | None = None,
) -> None:
    """Whom the ballot names: a player (by the roster, or an @mention; or by the name a
    renamed player's account shows now, ``renamed``), the abstain word, or nobody
    (``unknown_target``, with the closest names)."""
    assert w.parsed is not None and w.voter is not None
    written = w.parsed.target
    if w.parsed.abstains:
        w.target, w.abstain = rules.abstain_word, True
        if day.bar_owner == w.voter:
            w.flags.append(("V11", "the 主管 may not abstain"))
        return
    match = roster.match(written)
    if match.player is None and written[:1] in _MENTION:
        # "@dave" (the forum's mention, typed or linked) names dave (V1, V7); a name that
        # itself begins with @ was matched whole above.
        mentioned = roster.match(written[1:].strip())
        if mentioned.player is not None:
            match = mentioned
    if match.player is None and renamed is not None:
        now = renamed.match(written.lstrip(_MENTION).strip())
        if now.player is not None:
            w.notes.append(f"{written!r} is the name {now.player}'s account shows now (renamed)")
            if match.lookalike and match.lookalike != now.player:
                # "еve" (a Cyrillic е) as heidi's account shows now, beside the player eve:
                # as written it is heidi's name; it looks like eve's.
                w.flags.append(("lookalike", (
                    f"{written!r} is counted for {now.player}{_uid(now.player, ids)}, whose "
                    f"account shows that name now, and it looks like {match.lookalike!r}"
                    f"{_uid(match.lookalike, ids)}, another player: check whom the voter meant"
                )))  # fmt: skip
            match = now
    if match.player is None:
        w.suggestions = match.suggestions
        if match.lookalike:
            w.flags.append(
                (
                    "lookalike",
                    f"{written!r} looks like {match.lookalike!r} but is spelled differently",
                )
            )
        hint = f"; closest: {', '.join(match.suggestions)}" if match.suggestions else ""
        w.unknown_target = f"{written!r} is not a player{hint} (V7)"
        return
    w.target = match.player


def _uid(player: str | None, ids: Mapping[str, str] | None) -> str:
    """" (uid 3)": a player's account, when the game file gives it."""
    uid = (ids or {}).get(player or "")
    return f" (uid {uid})" if uid else ""


def _shown_by_another(
    w: _Work,
    shown: Mapping[str, list[str]],
    ids: Mapping[str, str],
    before: Mapping[str, set[str]] | None = None,
    thread_id: str = "",
) -> str | None:
    """A target counted for one player that the page makes another player's: the name
    another player's account shows now (the forum renamed it). Written exactly so (heidi
    renamed ``eve.`` beside eve; frank's and grace's names swapped), whom it names cannot be
    told: the file gives the name to one account, the page to another (the account is the
    person): the sentence that says so, for a stop. Written only like it (``eve。`` beside
    heidi's ``eve.``), it is counted for the player the file names, flagged ``lookalike``.
    ``before``: the names players' accounts showed in tally's earlier reads; a target that
    was another player's name then cannot be told either (bob renamed "bobby", ballots for
    "bobby", then bob renamed again and eve "bobby": they went to eve, on a real X3.5)."""
    if w.target is None or w.abstain or w.parsed is None or not (shown or before):
        return None
    written = w.parsed.target
    if written[:1] in _MENTION and w.target not in (written, written[1:].strip()):
        written = written[1:].strip()
    # The ballot reader drops what ends a sentence ("eve." is read as eve): as written, the
    # target runs on to the punctuation after it.
    text = unicodedata.normalize("NFKC", w.text)
    after = re.search(rf"对象\s*:\s*@?\s*{re.escape(written)}([{re.escape(TRAILING)}]*)", text)
    raw = author_key(written + (after.group(1) if after else ""))

    def as_written(name: str) -> bool:
        return author_key(name) == raw

    for other, earlier in (before or {}).items():
        if other != w.target and any(as_written(n) for n in earlier):
            return (
                f"{raw!r} is counted for {w.target}{_uid(w.target, ids)}, and it was the name "
                f"{other}'s account{_uid(other, ids)} showed when tally read thread "
                f"{thread_id} before (renamed since)"
            )

    # As the target's own account shows now: that account, whatever else reads alike.
    if any(as_written(n) for n in shown.get(w.target, [w.target])):
        return None
    for other, names in shown.items():
        if other == w.target:
            continue
        for name in names:
            if as_written(name):
                return (
                    f"{raw!r} reads as {w.target}'s name{_uid(w.target, ids)} in the game "
                    f"file and is the name {other}'s account{_uid(other, ids)} shows now"
                )
            # Punctuation, case, an invisible character: what a copy may lose or gain. (A
            # Latin "eve" is no copy of a Cyrillic "еve": its voter typed eve's name.)
            if normalise(name) == normalise(raw):
                w.flags.append(("lookalike", (
                    f"{raw!r} is counted for {w.target}{_uid(w.target, ids)}, and it reads "
                    f"as {name!r}, the name {other}'s account{_uid(other, ids)} shows "
                    "now (renamed): check whom the voter meant"
                )))  # fmt: skip
                return None
    return None


def _resolved(ruling: Ruling | None) -> bool:
    """The director ruled whom the ballot names (or voided it)."""
    return ruling is not None and (ruling.action == RulingAction.VOID or bool(ruling.target))


def _unclear_sentence(unclear: list[tuple[_Work, str]], day: Day) -> str:
    """One sentence for the stop: each floor, why, and the ruling that settles it."""
    where = [
        f"floor {w.post.floor}" + (f" (comment {w.comment_index})" if w.comment_index else "")
        + f": {why}"
        for w, why in unclear
    ]
    first = unclear[0][0]
    return (
        f"day {day.day}: tally cannot tell whom {len(unclear)} ballot"
        f"{'s name' if len(unclear) > 1 else ' names'} ({'; '.join(where)}): a voter who copies "
        "the name from the page means the account that shows it, one who knows the game "
        "file's name means the other. Ask the voter, then add a ruling for each floor, like "
        f'[[rulings]] day = {day.day}, floor = {first.post.floor}'
        + (f", comment = {first.comment_index}" if first.comment_index else "")
        + ', action = "accept", target = "PLAYER" (or action = "void").'
    )


def _name_of_another(
    w: _Work,
    strangers: Roster | None,
    others: dict[str, str | None],
    ids: Mapping[str, str] | None = None,
) -> None:
    """Flag a ballot counted for a player whose target reads as the name of another account
    posting in the thread, no player (``bob。`` beside bob; ``bob`` on another uid than
    bob's, after the forum renamed both): the voter may mean it."""
    if strangers is None or w.target is None or w.abstain or w.parsed is None:
        return
    other = strangers.match(w.parsed.target).player
    if other is None:
        return
    uid = others[other]
    mine = (ids or {}).get(w.target)
    # Another account: another name, or the same name on another uid.
    another = other != w.target or (uid is not None and mine is not None and uid != mine)
    # As written: "bob。" is read as bob (a full stop ends a sentence), "bob" is bob.
    if another and other in w.text:
        theirs = f" (uid {uid})" if uid else ""
        w.flags.append(("lookalike", (
            f"{w.parsed.target!r} is counted for {w.target}{_uid(w.target, ids)}, and it reads "
            f"as {other!r}, another account posting here{theirs}, no player: check whom the "
            "voter meant"
        )))  # fmt: skip


def _apply_ruling(w: _Work, roster: Roster) -> None:
    r = w.ruling
    if r is None:
        return
    note = f"director's ruling: {r.action}" + (f" ({r.note})" if r.note else "")
    if r.action == RulingAction.VOID:
        w.status, w.reason = Status.VOID, VoidReason.RULING
        w.notes.append(note)
        return
    target = r.target or w.target
    if target is None and len(w.suggestions) == 1:
        target = w.suggestions[0]
    if target is None and not w.abstain:
        raise GameFileError(
            f'the ruling accepting floor {w.post.floor} needs target = "…": tally cannot tell '
            "who that ballot is for."
        )
    if w.voter is None:
        raise GameFileError(f"the ruling accepting floor {w.post.floor} names no player's ballot.")
    w.target = target if not w.abstain else w.target
    w.status, w.reason = None, None
    w.notes.append(note)


def _answers_one_of(
    w: _Work, post_ids: set[str], methods: Iterable[ChangeMethod], voter_author: str
) -> bool:
    """Whether ``w`` is posted the way a change must be (RULES V3)."""
    for method in methods:
        if method is ChangeMethod.COMMENT and w.is_comment and w.post.post_id in post_ids:
            return True
        if method is ChangeMethod.POST:
            # Any new post: a floor, or a 点评/楼中楼 under any floor, another player's too
            # (seed 003 names no way to post a change; docs/rulesets.md: "any new post
            # (回复, 引用, 点评 or the reply box)").
            return True
        if w.is_comment:
            continue
        if method is ChangeMethod.REPLY and any(pid in post_ids for pid in w.post.answers):
            return True
        if method is ChangeMethod.QUOTE:
            for q in w.post.quotes:
                if q.post_id in post_ids or (q.post_id is None and q.author == voter_author):
                    return True
    return False


def _sequence(voter: str, seq: list[_Work], day: Day, rules: Ruleset) -> None:
    """A voter's ballots in time order: the first valid one is the vote, the rest changes."""
    current: _Work | None = None
    own_floors: set[str] = set()
    fixables: list[_Work] = []  # the void first ballots a fix may answer, oldest first
    # A void ballot that answers an earlier one is a fix of it that failed: the ballot a
    # fix of it fixes is that earlier one, whose time it keeps (V7, seed 000: "此类修改的
    # 投票时间算作修改前的发贴时间"; a fix of a fix kept the failed fix's time).
    roots: dict[int, _Work] = {}
    changes = 0
    extra_used = False
    went_out: str | None = None  # the target whose death during the day gave one more change
    window = timedelta(minutes=rules.change_window_minutes)
    for w in seq:
        forced = w.ruling is not None and w.ruling.action == RulingAction.ACCEPT
        if w.is_void:
            if current is None and w.reason in FIXABLE:
                earlier = _answered(w, fixables, rules)
                roots[id(w)] = roots[id(earlier)] if earlier is not None else w
                fixables.append(w)
            w.is_change = current is not None
            continue
        if current is None:
            fixable = _answered(w, fixables, rules)
            fix = fixable is not None
            change = w.parsed is not None and w.parsed.label == BallotKind.CHANGE
            if change and not fix and not forced:
                w.void(VoidReason.CHANGE_WITHOUT_VOTE, "a change with no vote before it (V2)")
                continue
            if fix and fixable is not None:
                if rules.fix_keeps_time:
                    root = roots[id(fixable)]
                    w.time = root.time
                    w.notes.append(
                        f"fixes floor {root.post.floor}: no change, keeps its time (V7)"
                    )
                else:
                    w.notes.append(f"replaces the void ballot on floor {fixable.post.floor} (V7)")
            current = _count(w, own_floors)
            continue
        w.is_change = True
        if forced:
            current = _supersede(current, w, own_floors)
            continue
        if w.target == current.target:
            w.void(
                VoidReason.NO_CHANGE,
                f"same target as floor {current.post.floor}: not a change (V7)",
            )
            continue
        if day.accelerated:
            w.void(
                VoidReason.CHANGE_UNDER_ACCELERATION,
                "the day is accelerated: no change counts (S3)",
            )
            continue
        if not w.proxy and not _answers_one_of(w, own_floors, rules.change_via, w.author):
            how = " or ".join(rules.change_via)
            buttons = CHANGE_BUTTONS.get(w.post.platform, {})
            hint = " or ".join(buttons[m] for m in rules.change_via if m in buttons)
            w.void(
                VoidReason.CHANGE_NOT_REPLY,
                f"a change must be posted as a {how} of one's own vote (V3)"
                + (f": {hint}" if hint else ""),
            )
            continue
        death = day.died.get(current.target or "")
        if rules.change_after_target_death and death is not None and w.posted_at >= death:
            # The target went out during the day (正午): one more change, even inside the
            # last hour (V9, seed 001: "即使在禁止改票的时间内也可以进行一次改票").
            went_out = went_out or current.target
        final = day.closes - window
        deadline = final
        if w.proxy and rules.proxy_change_deadline_minutes is not None:
            deadline = min(
                final, day.closes - timedelta(minutes=rules.proxy_change_deadline_minutes)
            )
        spent = rules.max_changes is not None and changes >= rules.max_changes
        late = bool(window) and w.posted_at >= deadline
        # The one more change is the one the ordinary change cannot be: a change after the
        # death, outside the last hour, is the ordinary one while it is left, and the one
        # more is kept for the change after it, or the one inside the last hour (V4, V5, V9:
        # spent first, it refused the final-hour change it exists for).
        v9 = went_out is not None and not extra_used and (spent or late)
        if not v9 and spent:
            w.void(VoidReason.SECOND_CHANGE, f"only {rules.max_changes} change(s) allowed (V4)")
            continue
        if not v9 and late:
            # V8 only for a proxy change (its own, earlier deadline, seed 001).
            rule = "V5, V8" if w.proxy else "V5"
            minutes = int((day.closes - deadline).total_seconds() // 60)
            w.void(
                VoidReason.CHANGE_IN_FINAL_HOUR,
                f"no change in the last {window_text(minutes)} before the close, after "
                f"{clock(deadline)} ({rule})",
            )
            continue
        if day.bar_owner == voter:
            limit = day.opens + timedelta(hours=bar_owner_hours(day, rules)[1])
            if w.posted_at > limit:
                w.void(
                    VoidReason.BAR_OWNER_LATE_CHANGE,
                    f"the 主管 may not change after {short(limit)} (V11)",
                )
                continue
        if v9:
            extra_used = True
            w.notes.append(f"{went_out} went out during the day: one more change (V9)")
        else:
            changes += 1
        current = _supersede(current, w, own_floors)


def _answered(w: _Work, fixables: list[_Work], rules: Ruleset) -> _Work | None:
    """The void ballot ``w`` answers the way a change must be posted (V3, V7), the latest
    first: another void one posted after it (a vote for one who is out) does not take its
    fix away."""
    return next(
        (f for f in reversed(fixables)
         if _answers_one_of(w, {f.post.post_id}, rules.change_via, f.author)),
        None,
    )  # fmt: skip


def _count(w: _Work, own_floors: set[str]) -> _Work:
    w.status = Status.COUNTED
    own_floors.add(w.post.post_id)
    return w


def _supersede(current: _Work, w: _Work, own_floors: set[str]) -> _Work:
    current.status = Status.SUPERSEDED
    current.superseded_at = w.time
    current.notes.append(f"replaced by the change on floor {w.post.floor}")
    return _count(w, own_floors)


def window_text(minutes: int) -> str:
    """ "10 minutes", "1 minute": a rule's span in a sentence."""
    return f"{minutes} minute{'s' * (minutes != 1)}"


def bar_owner_hours(day: Day, rules: Ruleset) -> tuple[int, int]:
    """V11: the hours after the open by which the 主管 votes, and after which they may not
    change (fewer on an accelerated day)."""
    return rules.bar_owner_hours_accelerated if day.accelerated else rules.bar_owner_hours


def _owner_due(day: Day, rules: Ruleset) -> datetime:
    """V11: when the 主管's valid vote is due."""
    return day.opens + timedelta(hours=bar_owner_hours(day, rules)[0])


def _lapse_and_flag(
    works: list[_Work], day: Day, rules: Ruleset, *, owner_out: bool = False
) -> list[Flag]:
    flags: list[Flag] = []
    window = timedelta(minutes=rules.change_window_minutes)
    out = day.out_by_close
    for w in works:
        # A death by the close takes the ballots by and for the dead with it (V9); one
        # after the close (黄昏) is the next day's, and the vote stands.
        if w.status == Status.COUNTED and w.voter in out:
            w.void(
                VoidReason.DEAD_VOTER, f"{w.voter} went out during the day; the ballot lapsed (V9)"
            )
            w.lapsed = True
        elif w.status == Status.COUNTED and w.target in out:
            w.void(
                VoidReason.DEAD_TARGET,
                f"{w.target} went out during the day; the ballot lapsed (V9)",
            )
            w.lapsed = True
        if w.damaged:
            w.flags.append(
                (
                    "damaged",
                    "the page held bytes here that are not text (shown as �); "
                    "check this ballot on the forum",
                )
            )
        # The vote seen now may not be the vote cast (V5): the forum keeps no history.
        edit = w.post.edited
        if edit is not None and not w.is_comment:
            if edit.at > day.closes:
                w.flags.append(("edited", f"edited after the close, {short(edit.at)}"))
            elif edit.at >= day.closes.replace(second=0, microsecond=0):
                # A mark says minutes only: 21:30 may be before the 21:30:00 close or after.
                note = f"edited in the closing minute, {short(edit.at)}: perhaps after the close"
                w.flags.append(("edited", note))
            elif window and edit.at >= day.closes - window:
                w.flags.append(
                    (
                        "edited",
                        f"edited in the last {window_text(rules.change_window_minutes)} before "
                        f"the close, {short(edit.at)}",
                    )
                )
        for rule, text in w.flags:
            flags.append(Flag(rule, text, w.voter, w.post.floor, w.post_id))
    hours, due = bar_owner_hours(day, rules)[0], _owner_due(day, rules)
    if day.bar_owner and not owner_out:
        owner = [w for w in works if w.voter == day.bar_owner]
        valid = [
            w
            for w in owner
            if (w.status in (Status.COUNTED, Status.SUPERSEDED) or w.lapsed)
            and not w.abstain
            and w.time
            and w.time <= due
        ]
        # Abstaining, also by a change to 弃权, and a void ballot are what V11 cards; a
        # ballot that lapsed with a death was a valid vote.
        abstained = any(w.abstain and not w.is_void for w in owner)
        if not valid or abstained or any(w.is_void and not w.lapsed for w in owner):
            flags.append(
                Flag(
                    "V11",
                    f"the 主管 {day.bar_owner} did not cast a valid vote within {hours} h "
                    "of the open, abstained or cast a void ballot: yellow card",
                    day.bar_owner,
                )
            )
    return flags


def _freeze(w: _Work, provisional: bool = False) -> Ballot:
    if w.status is None:  # every ballot with a voter went through _sequence
        raise AssertionError(f"ballot on floor {w.post.floor} was never judged")
    kind = (
        BallotKind.PROXY
        if w.proxy
        else BallotKind.ABSTAIN
        if w.abstain
        else BallotKind.CHANGE
        if w.is_change
        else BallotKind.VOTE
    )
    note = (
        "; ".join(w.notes)
        if w.notes
        else (
            ("in force now" if provisional else "in force at the close")
            if w.status == Status.COUNTED
            else w.status
        )
    )
    return Ballot(
        floor=w.post.floor,
        post_id=w.post_id,
        author=w.author,
        voter=w.voter,
        kind=kind,
        target=w.target,
        written=w.parsed.target if w.parsed else "",
        time=w.time or w.posted_at,
        posted_at=w.posted_at,
        author_id=w.author_id,
        status=w.status,
        reason=w.reason,
        note=note,
        comment=w.is_comment,
        parent_post_id=w.post.post_id if w.is_comment else None,
        suggestions=w.suggestions,
        flags=tuple(text for _, text in w.flags),
        ruling=w.ruling.action if w.ruling else None,
        superseded_at=w.superseded_at,
        abstain=w.abstain,
        written_reason=w.parsed.reason if w.parsed else None,
        lapsed=w.lapsed,
    )
