"""Which ballots of a vote thread count, and why (RULES V1-V11, S3).

Every post and comment that tries to be a ballot becomes a ``Ballot`` with a status:
counted (in force at the close), superseded (replaced by a valid change) or void
(never counts), a short reason code and a note a director can check floor by floor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import NamedTuple

from tally.errors import GameFileError, InputError, NotAThreadError
from tally.model import HIDE_CODE, MINUTE, Post, Thread, Writing
from tally.rules.game.game import Author, Cast, Day, Game
from tally.rules.game.names import Roster
from tally.rules.game.rulesets import Ruleset
from tally.rules.judging.ballot_text import Reading, read_boxed
from tally.rules.judging.ballots import Ballot, Flag, Remark
from tally.rules.judging.changes import apply_ruling, lapse_and_flag, owner_due, window_text
from tally.rules.judging.merges import Seen, seen_in_vote_thread
from tally.rules.judging.minutes import READ_DOUBT, after, before, seen_by, shown, writing_key
from tally.rules.judging.ordering import in_order
from tally.rules.judging.own import tallys_own
from tally.rules.judging.rows import (
    BANNED,
    FROM_VOTE,
    banned,
    banned_row,
    discussion_row,
    from_vote_note,
    lookalike_note,
    moderating_players,
    moved_row,
    placed,
    plain_row,
)
from tally.rules.judging.targets import (
    name_of_another,
    read_target,
    resolved,
    shown_by_another,
    unclear_sentence,
)
from tally.rules.judging.work import Work
from tally.rules.verdicts import BallotKind, Status, VoidReason
from tally.times import clock, compared


def judge(
    thread: Thread,
    game: Game,
    day: Day,
    rules: Ruleset | None = None,
    *,
    provisional: bool = False,
    cast: Cast,
    seen: Mapping[str, Seen],
) -> Judged:
    """Every ballot of ``day``'s vote thread, judged; the flags for the director; and the
    posts that hold no ballot (``remarks``), found in the same reading of each writing.

    ``provisional``: the day has not closed, so a ballot in force is in force now, not
    at the close. ``cast``: who wrote what, as the count decided it (``Game.cast``).
    ``seen``: what each post was when tally first read it (``merges.seen_in_vote_thread``).
    """
    rules = rules or game.rules
    _readable_by_these_cookies(thread, cast)
    roster = game.roster
    rulings = [r for r in game.rulings if r.day == day.day]
    voters = _electors(game, day, rules)
    candidates, rows, shown, others, before, notes = _sorted(
        thread, game, rules, cast, day.closes, day, seen
    )
    # A renamed player's account shows its new name on every post: a voter writes that.
    renamed = Roster((), {p: names for p, names in shown.items()}) if shown else None
    # The accounts no player: a target spelled as one of them may mean it.
    strangers = Roster((), {name: (name,) for name in others}) if others else None
    works: list[Work] = []
    # Ballots whose target is exactly the name another player's account shows now: whom
    # they name cannot be told (floor -> why), unless the director ruled on them.
    unclear: list[tuple[Work, str]] = []
    for work in candidates:
        work.ruling = next((r for r in rulings if r.names(work.post, work.comment_index)), None)
        if work.ruling is not None:
            rulings.remove(work.ruling)
        _identify(work, cast.of(work), roster)
        if work.parsed is not None and work.voter is not None and not work.is_void:
            read_target(work, roster, day, rules, renamed, game.ids)
            why = shown_by_another(work, shown, game.ids, before, thread.thread_id)
            if why is not None and not resolved(work.ruling):
                unclear.append((work, why))
            name_of_another(work, strangers, others, game.ids)
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
    if unclear:
        raise InputError(unclear_sentence(unclear, day))
    unsure = [(w.post, w.comment_index) for w in works if w.seen is Seen.UNSURE
              and w.ruling is None and not cast.of(w).is_director]  # fmt: skip
    if unsure:
        raise InputError(_unsure_sentence(thread, day, list(dict.fromkeys(unsure))))
    for work in works:
        _check(work, day, rules, voters)
    # A 主管 out before their vote was due, or with no vote to cast this day (V10's
    # cannot_vote, V12's election), had none to cast in time (V11).
    owner = day.bar_owner
    owner_out = owner is not None and (
        day.out_at(owner, owner_due(day, rules))
        or owner in day.cannot_vote
        or (voters is not None and owner not in voters)
    )
    for work in works:
        apply_ruling(work, roster)
    by_voter: dict[str, list[Work]] = {}
    for work in sorted(works, key=lambda w: w.order):
        if work.voter is not None:
            by_voter.setdefault(work.voter, []).append(work)
    unordered: list[str] = []
    for voter, seq in by_voter.items():
        said, stop = in_order(voter, seq, day, rules)
        notes += said
        if stop is not None:
            unordered.append(stop)
    if unordered:
        raise InputError(" ".join(unordered))
    flags = lapse_and_flag(works, day, rules, owner_out=owner_out) + notes
    flags += [Flag("moved in", r.note, r.player, r.floor, r.post_id)
              for r in rows if r.status is Status.MOVED_IN]  # fmt: skip
    flags += moderating_players(thread, rows, cast)
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


def _unsure_sentence(
    thread: Thread, day: Day, writings: Sequence[tuple[Post, int | None]]
) -> str:
    """One sentence for the stop on writings ``tally.rules.judging.merges`` cannot tell
    (``Seen.UNSURE``; a floor, or the 点评 numbered so under it): where they are, why tally
    cannot tell, and the ruling that settles each."""
    def named(post: Post, comment: int | None) -> str:
        under = f"点评 {comment} under " if comment is not None else ""
        return f"{under}floor {post.floor} (post {post.post_id})"

    where = "、".join(named(p, c) for p, c in writings)
    first, comment = writings[0]
    many = len(writings) > 1
    ruling = f'[[rulings]] day = {day.day}, floor = {first.floor}, post = "{first.post_id}", '
    ruling += f"comment = {comment}, " if comment is not None else ""
    return (
        f"day {day.day}: tally cannot tell whether {len(writings)} post{'s' if many else ''} "
        f"of thread {thread.thread_id} {'are ballots' if many else 'is a ballot'} ({where}): "
        f"the game file names it day {day.day}'s vote thread, and another of the day's "
        "threads was merged into it (合并), or it was read as another of them before, and tally "
        "did not read these where they were posted with the game file (never, without it, "
        "before its cache kept what each thread was, or they came in older than its last read: "
        "a merge, a post approved late (审核), or a forum clock behind this computer's): a "
        "ballot cast in the vote thread and a 投票对象 line of the discussion look the same; "
        "ask the voter, then add a ruling "
        f'for each, like {ruling}action = "accept" (cast in the vote thread; or action = '
        '"void": posted in the discussion thread). If nothing was merged and the game file '
        "named this thread another role by mistake before, each is a ballot: accept each."
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


class _Sorted(NamedTuple):
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


def _sorted(
    thread: Thread, game: Game, rules: Ruleset, cast: Cast, closes: datetime | None,
    day: Day | None, seen_as: Mapping[str, Seen],
) -> _Sorted:  # fmt: skip
    """Each writing read once: a ballot to judge, a row that holds none, or the director's
    own (the opening post, a 催票 that shows the format, a notice, tally's own posts), which
    is neither."""
    works: list[Work] = []
    flags: list[Flag] = []
    rows: list[Remark] = []
    shown: dict[str, list[str]] = {}
    others: dict[str, str | None] = {}
    # An account the forum shows banned (作者被禁止或删除) on a floor: its 点评 are shown still,
    # and are no more ballots than its floors (a banned author's change counted, real X3.5).
    # Floors posted after the close do not say the account was banned when it voted: one
    # banned after the close keeps the 点评 it cast before (its floors are put back as they
    # stood, tally.rules.judging.standing.kept_from_the_close).
    barred = {p.author_id or p.author for p in thread.posts if p.hidden == "author_banned"
              and (closes is None or p.time <= closes)}  # fmt: skip
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
            found = plain_row(w, who)
            note = f"{BANNED['author_banned']}: its 点评 are never counted either"
            rows.append(replace(found, words=Status.BANNED.label, status=Status.BANNED, note=note))
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
        else:
            parsed = reading.ballots[0] if reading.ballots else None
            works.append(Work(
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
                seen_by=reads.get(writing_key(w)) if w.to_the_minute else None,
                text=text,
                flags=[("quote box", _BOXED)] if text != w.text else [],
                seen=seen,
            ))  # fmt: skip
            if seen is Seen.FROM_VOTE and day is not None and other is not None:
                works[-1].flags.append((FROM_VOTE, from_vote_note(w, other, day)))
    before: dict[str, set[str]] = {}
    for version in thread.history.versions if thread.history is not None else ():
        for post in version.posts:
            player = cast.of(post).player
            if player is not None:
                before.setdefault(player, set()).add(post.author)
    return _Sorted(works, tuple(rows), shown, others, before, flags)


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


def _unnamed_proxy(w: Writing, reading: Reading, game: Game) -> Flag | None:
    """A director's post that holds a ballot for a player and says for nobody: a proxy
    ballot with its 代投 line missing or misspelt, or the director's example. Never counted
    (a director's post is a ballot only in the proxy's form); said, not dropped unseen."""
    named = [b.target for b in reading.ballots if game.roster.match(b.target).player]
    if not named:
        return None
    note = (
        f"{placed(w)} by the director {w.author} reads as a ballot for {named[0]} but names "
        "no player it is cast for: not counted. A proxy ballot says whom it is for on a line of "
        "its own, 代投：NAME (V8); post it again so, or rule on it"
    )
    return Flag("proxy", note, None, w.post.floor, w.item_id)


def remarks(
    thread: Thread, game: Game, rules: Ruleset | None = None, *, cast: Cast,
    day: Day | None = None, seen_as: Mapping[str, Seen] | None = None,
) -> tuple[Remark, ...]:
    """The posts and comments of ``day``'s vote thread that hold no ballot, but for the
    director's (the opening post, reminders): each one listed, none counted."""
    seen = seen_in_vote_thread(thread, day)
    return _sorted(thread, game, rules or game.rules, cast, None, day, seen).rows


def _identify(w: Work, who: Author, roster: Roster) -> None:
    if who.is_director:
        if w.reading.proxy_for is None:
            w.void(VoidReason.DIRECTOR, "a director's own post is not a ballot")
            return
        match = roster.match(w.reading.proxy_for)
        if match.player is None:
            w.proxy = True  # a proxy ballot still, for nobody tally knows
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


def _check(w: Work, day: Day, rules: Ruleset, electors: frozenset[str] | None = None) -> None:
    """What the day's rules say of a ballot on its own, before its voter's other ballots
    are seen: its time, its voter, its format, its target (read by ``read_target``)."""
    if w.is_void or w.voter is None:
        return
    if not _in_the_day(w, day):
        pass  # void for when it was posted
    elif day.out_at(w.voter, w.posted_at):
        w.void(VoidReason.DEAD_VOTER, f"{w.voter} is out and cannot vote (V9)")
    elif w.voter in day.cannot_vote:
        w.void(VoidReason.BANNED_VOTER, f"{w.voter} may not vote on day {day.day} (V10)")
    elif electors is not None and w.voter not in electors:
        roles = "、".join(rules.election_voters)
        w.void(VoidReason.NOT_ELECTOR, f"only {roles} vote in the sheriff election (V12)")
    problem = w.reading.problem
    if problem is not None:  # void for its time or voter already: a reason more, kept
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
        _proxy_in_time(w, day, rules.proxy_deadline_minutes)


def _in_the_day(w: Work, day: Day) -> bool:
    """Whether ``w`` was posted from the open to the close; void if not, or if shown in the
    minute of either (a time to the minute may be on either side), unless a ruling accepts
    it (S2)."""
    early = before(w.earliest, w.latest, day.opens)
    late = after(w.posted_at, w.latest, day.closes)
    if early is not False:
        posted, opens = compared(w.posted_at, day.opens)
        w.void(VoidReason.BEFORE_OPEN, f"posted {posted}, before the open {opens}")
        if early is None:
            # Shown "09:30" and the open at 09:30:25: perhaps after it, perhaps not.
            note = (f"posted in the opening minute ({shown(w)}): before the open {opens}, "
                    "unless a ruling accepts it")  # fmt: skip
            w.notes[-1] = note
            w.flags.append(("opening minute", note))
    elif late:
        posted, closes = compared(w.posted_at, day.closes)
        w.void(VoidReason.AFTER_CLOSE, f"posted {posted}, after the close {closes}")
    elif late is None:
        # Shown "21:30" and the close at 21:30:00: on time only in its first second.
        closes = compared(w.posted_at, day.closes)[1]  # to the second where it has one
        note = (f"posted in the closing minute ({shown(w)}): after the close {closes}, unless "
                "a ruling accepts it")  # fmt: skip
        w.void(VoidReason.AFTER_CLOSE, note)
        w.flags.append(("closing minute", note))
    elif w.seen_by is not None and day.closes < w.posted_at + MINUTE:
        read = clock((w.seen_by - READ_DOUBT).astimezone(day.closes.tzinfo), seconds=True)
        w.notes.append(f"shown in the closing minute ({shown(w)}), and tally's read of {read} "
                       "showed it: before the close")  # fmt: skip
    return not w.is_void


def _proxy_in_time(w: Work, day: Day, minutes: int) -> None:
    """V8: a proxy ballot posted by its deadline, some minutes before the close; one shown in
    the deadline's minute is late unless a ruling accepts it."""
    due = day.closes - timedelta(minutes=minutes)
    note = f"proxy ballots are due {window_text(minutes)} before the close, by {clock(due)} (V8)"
    late = after(w.posted_at, w.latest, due)
    if late is None:
        note = f"posted in the minute of the deadline ({shown(w)}): {note}, unless a ruling "
        note += "accepts it"
        w.flags.append(("deadline minute", note))
    if late is not False:
        w.void(VoidReason.PROXY_LATE, note)


def _freeze(w: Work, provisional: bool = False) -> Ballot:
    if w.status is None:  # every ballot with a voter went through sequence
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
        reasons=tuple(w.reasons),
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
