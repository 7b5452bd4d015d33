"""Which ballots of a vote thread count, and why (RULES V1-V11, S3).

Every post and comment that tries to be a ballot becomes a ``Ballot`` with a status:
counted (in force at the close), superseded (replaced by a valid change) or void
(never counts), a short reason code and a note a director can check floor by floor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import NamedTuple

from tally.errors import GameFileError, InputError, NotAThreadError
from tally.i18n import ntr, tr
from tally.model import HIDE_CODE, MINUTE, Post, Thread
from tally.rules.game.cast import Author, Cast
from tally.rules.game.game import Day, Game, Ruling
from tally.rules.game.names import Roster
from tally.rules.game.rulesets import Ruleset
from tally.rules.judging.ballots import Ballot, Flag, Remark
from tally.rules.judging.changes import (
    apply_ruling,
    lapse_and_flag,
    owner_due,
    unless_ruled,
    window_text,
)
from tally.rules.judging.merges import Seen
from tally.rules.judging.minutes import READ_DOUBT, after, before, shown
from tally.rules.judging.ordering import in_order
from tally.rules.judging.rows import (
    lookalike_note,
    moderating_players,
)
from tally.rules.judging.sorting import sort_writings
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
    candidates, rows, shown, others, before, notes = sort_writings(
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
        work.ruling = _take_ruling(rulings, work)
        _identify(work, cast.of(work), roster)
        if work.parsed is not None and work.voter is not None and not work.is_void:
            read_target(work, roster, day, rules, renamed, game.ids)
            why = shown_by_another(work, shown, game.ids, before, thread.thread_id)
            if why is not None and not resolved(work.ruling):
                unclear.append((work, why))
            name_of_another(work, strangers, others, game.ids)
        works.append(work)
    if rulings:
        raise GameFileError(_left_sentence(rulings[0], thread, day))
    if unclear:
        raise InputError(unclear_sentence(unclear, day))
    _stop_on_unsure(works, thread, day, cast)
    for work in works:
        _check(work, day, rules, voters)
    for work in works:
        apply_ruling(work, roster)
    notes += _each_voter_in_order(works, day, rules)
    flags = lapse_and_flag(works, day, rules, owner_out=_owner_out(day, rules, voters)) + notes
    flags += [Flag("moved in", r.note, r.player, r.floor, r.post_id)
              for r in rows if r.status is Status.MOVED_IN]  # fmt: skip
    flags += moderating_players(thread, rows, cast)
    works.sort(key=lambda w: (w.post.floor, w.comment_index or 0))
    return Judged([_freeze(w, provisional) for w in works], flags, rows, voters)


def _take_ruling(rulings: list[Ruling], work: Work) -> Ruling | None:
    """The director's ruling on ``work``, taken from ``rulings`` (those left name no ballot)."""
    ruling = next((r for r in rulings if r.names(work.post, work.comment_index)), None)
    if ruling is not None:
        rulings.remove(ruling)
    return ruling


def _stop_on_unsure(works: Sequence[Work], thread: Thread, day: Day, cast: Cast) -> None:
    """Stop on the writings ``tally.rules.judging.merges`` cannot tell a ballot (``Seen.UNSURE``)
    that no ruling settles."""
    unsure = [(w.post, w.comment_index) for w in works if w.seen is Seen.UNSURE
              and w.ruling is None and not cast.of(w).is_director]  # fmt: skip
    if unsure:
        raise InputError(_unsure_sentence(thread, day, list(dict.fromkeys(unsure))))


def _left_sentence(left: Ruling, thread: Thread, day: Day) -> str:
    """The stop on a ruling of the day that names no ballot: where it points, and why
    nothing is there (no ballot there, deleted since, or no such post)."""
    where = (
        tr("floor {floor}, comment {comment}", floor=left.floor, comment=left.comment)
        if left.comment
        else tr("floor {floor}", floor=left.floor)
    )
    where += tr(" (post {post})", post=left.post) if left.post else ""
    there = left.post is None or any(p.post_id == left.post for p in thread.posts)
    versions = thread.history.versions if thread.history is not None else ()
    was = any(p.post_id == left.post for v in versions for p in v.posts)
    if there:
        return tr("a ruling for day {day} names {where}, which holds no ballot.",
                  day=day.day, where=where)  # fmt: skip
    if was:
        return tr("a ruling for day {day} names {where}, which the thread no longer shows: "
                  "deleted since tally read it.", day=day.day, where=where)  # fmt: skip
    return tr("a ruling for day {day} names {where}, which no post of the thread has "
              "(its post id?).", day=day.day, where=where)  # fmt: skip


def _owner_out(day: Day, rules: Ruleset, voters: frozenset[str] | None) -> bool:
    """A 主管 out before their vote was due, or with no vote to cast this day (V10's
    cannot_vote, V12's election), had none to cast in time (V11)."""
    owner = day.bar_owner
    return owner is not None and (
        day.out_at(owner, owner_due(day, rules))
        or owner in day.cannot_vote
        or (voters is not None and owner not in voters)
    )


def _each_voter_in_order(works: Sequence[Work], day: Day, rules: Ruleset) -> list[Flag]:
    """Each voter's ballots judged in the order they were cast (``in_order``), and what
    that says; a voter whose order cannot be told stops the count (InputError)."""
    by_voter: dict[str, list[Work]] = {}
    for work in sorted(works, key=lambda w: w.order):
        if work.voter is not None:
            by_voter.setdefault(work.voter, []).append(work)
    notes: list[Flag] = []
    unordered: list[str] = []
    for voter, seq in by_voter.items():
        said, stop = in_order(voter, seq, day, rules)
        notes += said
        if stop is not None:
            unordered.append(stop)
    if unordered:
        raise InputError(" ".join(unordered))
    return notes


def _readable_by_these_cookies(thread: Thread, cast: Cast) -> None:
    """Stop when the forum hid what a post in the vote thread holds behind [hide] (回复可见)
    from whoever read it: a ballot may be inside, and judging the placeholder would void it
    and card its voter (found on a real X3.5, read as a guest)."""
    hidden = [p for p in thread.posts if p.hidden == HIDE_CODE and not cast.of(p).is_director]
    if hidden:
        floors = "、".join(f"{p.floor}楼" for p in hidden)
        raise NotAThreadError(
            tr(
                "thread {thread}: {floors} hide what they hold ([hide], 回复可见) from the "
                "cookies that read it (游客，如果您要查看本帖隐藏内容请回复): read the thread with "
                "the director's cookies (--cookies FILE), which the forum shows it to.",
                thread=thread.thread_id,
                floors=floors,
            )
        )


def _unsure_sentence(thread: Thread, day: Day, writings: Sequence[tuple[Post, int | None]]) -> str:
    """One sentence for the stop on writings ``tally.rules.judging.merges`` cannot tell
    (``Seen.UNSURE``; a floor, or the 点评 numbered so under it): where they are, why tally
    cannot tell, and the ruling that settles each."""

    def named(post: Post, comment: int | None) -> str:
        if comment is not None:
            return tr("点评 {comment} under floor {floor} (post {post})",
                      comment=comment, floor=post.floor, post=post.post_id)  # fmt: skip
        return tr("floor {floor} (post {post})", floor=post.floor, post=post.post_id)

    where = "、".join(named(p, c) for p, c in writings)
    first, comment = writings[0]
    ruling = f'[[rulings]] day = {day.day}, floor = {first.floor}, post = "{first.post_id}", '
    ruling += f"comment = {comment}, " if comment is not None else ""
    return ntr(
        "day {day}: tally cannot tell whether {n} post of thread {thread} is a ballot "
        "({where}): the game file names it day {day}'s vote thread, and another of the day's "
        "threads was merged into it (合并), or it was read as another of them before, and tally "
        "did not read these where they were posted with the game file (never, without it, "
        "before its cache kept what each thread was, or they came in older than its last read: "
        "a merge, a post approved late (审核), or a forum clock behind this computer's): a "
        "ballot cast in the vote thread and a 投票对象 line of the discussion look the same; "
        'ask the voter, then add a ruling for each, like {ruling}action = "accept" (cast in '
        'the vote thread; or action = "void": posted in the discussion thread). If nothing '
        "was merged and the game file named this thread another role by mistake before, each "
        "is a ballot: accept each.",
        "day {day}: tally cannot tell whether {n} posts of thread {thread} are ballots "
        "({where}): the game file names it day {day}'s vote thread, and another of the day's "
        "threads was merged into it (合并), or it was read as another of them before, and tally "
        "did not read these where they were posted with the game file (never, without it, "
        "before its cache kept what each thread was, or they came in older than its last read: "
        "a merge, a post approved late (审核), or a forum clock behind this computer's): a "
        "ballot cast in the vote thread and a 投票对象 line of the discussion look the same; "
        'ask the voter, then add a ruling for each, like {ruling}action = "accept" (cast in '
        'the vote thread; or action = "void": posted in the discussion thread). If nothing '
        "was merged and the game file named this thread another role by mistake before, each "
        "is a ballot: accept each.",
        len(writings),
        day=day.day,
        thread=thread.thread_id,
        where=where,
        ruling=ruling,
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


def _identify(w: Work, who: Author, roster: Roster) -> None:
    if who.is_director:
        if w.reading.proxy_for is None:
            w.void(VoidReason.DIRECTOR, tr("a director's own post is not a ballot"))
            return
        match = roster.match(w.reading.proxy_for)
        if match.player is None:
            w.proxy = True  # a proxy ballot still, for nobody tally knows
            w.suggestions = match.suggestions
            w.void(
                VoidReason.UNKNOWN_VOTER,
                tr("the proxy names {name}, who is not a player", name=repr(w.reading.proxy_for)),
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
        w.void(VoidReason.NOT_A_PLAYER, tr("{names} is not a player of this game", names=names))
        return
    w.voter = player
    if w.reading.proxy_for is not None:
        w.void(VoidReason.PROXY_NOT_DIRECTOR, tr("only a director may post a proxy ballot (V8)"))


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
        w.void(VoidReason.DEAD_VOTER, tr("{player} is out and cannot vote (V9)", player=w.voter))
    elif w.voter in day.cannot_vote:
        w.void(
            VoidReason.BANNED_VOTER,
            tr("{player} may not vote on day {day} (V10)", player=w.voter, day=day.day),
        )
    elif electors is not None and w.voter not in electors:
        roles = "、".join(rules.election_voters)
        w.void(
            VoidReason.NOT_ELECTOR,
            tr("only {roles} vote in the sheriff election (V12)", roles=roles),
        )
    problem = w.reading.problem
    if problem is not None:  # void for its time or voter already: a reason more, kept
        w.void(problem.code, tr("{problem} (V1, V7)", problem=problem.text))
    if w.unknown_target is not None and not w.is_void:
        w.void(VoidReason.UNKNOWN_TARGET, w.unknown_target)
    if w.is_void:
        return
    target = w.target if not w.abstain else None
    if target is not None and day.out_at(target, w.posted_at):
        w.void(
            VoidReason.DEAD_TARGET,
            tr("{player} is out and cannot be voted for (V9)", player=target),
        )
    elif target is not None and (target in day.cannot_be_voted or target == day.bar_owner):
        w.void(
            VoidReason.BANNED_TARGET,
            tr("{player} cannot be voted for on day {day} (V10)", player=target, day=day.day),
        )
    elif electors is not None and target is not None and target not in electors:
        roles = "、".join(rules.election_voters)
        w.void(
            VoidReason.NOT_ELECTABLE, tr("only {roles} may be elected sheriff (V12)", roles=roles)
        )
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
        w.void(
            VoidReason.BEFORE_OPEN,
            tr("posted {posted}, before the open {opens}", posted=posted, opens=opens),
        )
        if early is None:
            # Shown "09:30" and the open at 09:30:25: perhaps after it, perhaps not.
            note = tr("posted in the opening minute ({shown}): before the open {opens}, "
                      "unless a ruling accepts it", shown=shown(w), opens=opens)  # fmt: skip
            w.notes[-1] = note
            w.flags.append(("opening minute", note))
    elif late:
        posted, closes = compared(w.posted_at, day.closes)
        w.void(
            VoidReason.AFTER_CLOSE,
            tr("posted {posted}, after the close {closes}", posted=posted, closes=closes),
        )
    elif late is None:
        # Shown "21:30" and the close at 21:30:00: on time only in its first second.
        closes = compared(w.posted_at, day.closes)[1]  # to the second where it has one
        note = tr("posted in the closing minute ({shown}): after the close {closes}, unless "
                  "a ruling accepts it", shown=shown(w), closes=closes)  # fmt: skip
        w.void(VoidReason.AFTER_CLOSE, note)
        w.flags.append(("closing minute", note))
    elif w.seen_by is not None and day.closes < w.posted_at + MINUTE:
        read = clock((w.seen_by - READ_DOUBT).astimezone(day.closes.tzinfo), seconds=True)
        w.notes.append(tr("shown in the closing minute ({shown}), and tally's read of {read} "
                          "showed it: before the close", shown=shown(w), read=read))  # fmt: skip
    return not w.is_void


def _proxy_in_time(w: Work, day: Day, minutes: int) -> None:
    """V8: a proxy ballot posted by its deadline, some minutes before the close; one shown in
    the deadline's minute is late unless a ruling accepts it."""
    due = day.closes - timedelta(minutes=minutes)
    note = tr("proxy ballots are due {window} before the close, by {due} (V8)",
              window=window_text(minutes), due=clock(due))  # fmt: skip
    late = after(w.posted_at, w.latest, due)
    if late is None:
        note = unless_ruled(shown(w), note)
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
        tr("; ").join(w.notes)
        if w.notes
        else (
            (tr("in force now") if provisional else tr("in force at the close"))
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
        to_the_minute=w.to_the_minute,
        written_reason=w.parsed.reason if w.parsed else None,
        lapsed=w.lapsed,
    )
