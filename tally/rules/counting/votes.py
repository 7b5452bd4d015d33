"""`tally votes`: one day's vote thread in, the decision and every reason for it out.

``tally_day`` is the library entry point; ``tally.outputs.shown.json_output`` writes its JSON.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from tally.i18n import tr
from tally.model import Thread, Writing
from tally.rules.counting.acceleration import Acceleration, count_requests
from tally.rules.counting.count import Count, Outcome, Total, count
from tally.rules.counting.guards import (
    check_roster,
    ensure_ballots,
    late_ballots,
    renamed_flags,
    stranger_flags,
    thread_fits_day,
)
from tally.rules.counting.state import Carried, Fact, resolve
from tally.rules.counting.uids import accounts_note, check_ids
from tally.rules.game.cast import Cast
from tally.rules.game.game import Day, Game
from tally.rules.game.rulesets import Ruleset
from tally.rules.judging.as_of import lost_notes
from tally.rules.judging.ballots import Ballot, Flag, Remark
from tally.rules.judging.judge import Judged, judge
from tally.rules.judging.merges import seen_in_vote_thread
from tally.rules.judging.ruled_floors import rulings_on_moved_floors
from tally.rules.judging.standing import (
    as_it_stood,
    deleted_rows,
    hidden_replies,
    kept_from_the_close,
)
from tally.rules.verdicts import DayKind, OutcomeResult, ThreadRole, VoidReason
from tally.times import short


@dataclass(frozen=True)
class DayResult:
    day: Day
    ruleset: str
    thread: Thread
    ballots: tuple[Ballot, ...]
    count: Count
    not_voted: tuple[str, ...]
    flags: tuple[Flag, ...]
    # The time the count stands at: when the thread was read, or for saved pages the
    # newest post in them. Before the close the count is provisional: more may come.
    as_of: datetime
    provisional: bool
    # S3: the acceleration requests of the day, when its discussion or progress thread
    # was read with the vote thread.
    acceleration: Acceleration | None = None
    # What the day rests on (its sheriff, who is out) and where each came from: the game
    # file, or tally's own count of an earlier day (tally.rules.counting.state).
    facts: tuple[Fact, ...] = ()
    # Earlier days that could not be counted, so nothing was carried from them.
    unchecked: tuple[str, ...] = ()
    # Ballots after the close were taken as late, as the director said (--late-ok).
    late_ok: bool = False
    # The posts of the vote thread that hold no ballot: listed, never counted (and those
    # the forum 屏蔽s or no longer shows: banned and deleted rows).
    remarks: tuple[Remark, ...] = ()
    # Lines the director should read with the count (the replies are hidden from players).
    notices: tuple[str, ...] = ()
    # The rules it was counted by (the preset with the game file's [rules]): what a
    # sentence about the count takes its numbers from (the change window, the deadlines).
    rules: Ruleset | None = None

    @property
    def kind(self) -> DayKind:
        return self.count.kind

    @property
    def totals(self) -> tuple[Total, ...]:
        return self.count.totals

    @property
    def outcome(self) -> Outcome:
        return self.count.outcome

    @property
    def warnings(self) -> tuple[str, ...]:
        """What the director should hear besides the count (S3: the requests disagree with
        the game file)."""
        warning = self.acceleration.warning if self.acceleration is not None else None
        return (*self.unchecked, *((warning,) if warning else ()), *self.notices)

    @property
    def leaders(self) -> tuple[str, ...]:
        """The players on the most votes (none when nobody has a vote)."""
        return self.count.leaders


def tally_day(
    thread: Thread,
    game: Game,
    number: int | None = None,
    *,
    requests: Sequence[Thread] | None = None,
    carried: Carried | None = None,
    late_ok: bool = False,
    as_edited: bool = False,
) -> DayResult:
    """Judge and count the ballots of one day's vote thread; with ``requests`` (the day's
    discussion and progress threads), count the acceleration requests too (S3); with
    ``carried`` (what the earlier days' counts made), the day's sheriff and who is out as
    they stand after them (``tally.rules.counting.state``).

    Refuses (InputError) a thread that is not the day's vote thread (another day's, by its
    title or its times), a vote thread without a ballot, a close that is not the one the
    thread announced or that leaves a real share of the ballots late (unless ``late_ok``),
    a roster that misspells a player (see ``tally.rules.counting.guards``), an account id of the
    game file no post carries (``tally.rules.counting.uids``: over this thread, ``requests`` and the
    earlier days' threads in ``carried``), and a game file the earlier days' counts
    contradict. Each ballot is judged as it stood at the close
    (``tally.rules.judging.standing``): one edited at or after it that tally never read before it
    stops the count, unless ruled on or ``as_edited``; replies the forum hid from the
    reader stop it too.
    """
    started = thread.posts[0].time if thread.posts else None
    day = game.vote_day(thread.key, number, started=started)
    cast = game.cast()  # who wrote what: decided once, for every stage below
    facts: tuple[Fact, ...] = ()
    if carried is not None:
        day, facts = resolve(game, day, carried)
    talk = day.ref(ThreadRole.DISCUSSION)
    talks = [t for t in requests or () if talk and t.key == talk.key]
    thread_fits_day(game, thread, day, ThreadRole.VOTE, cast=cast, announced=[thread, *talks])
    # In the forum's clock, as every time tally shows (a read is stamped in UTC).
    as_of = (thread.as_of or day.opens).astimezone(game.timezone)
    provisional = as_of < day.closes
    # Whose account is whose, by what tally read of the game's threads in this count.
    known = (*(requests or ()), *(carried.read if carried is not None else ()))
    _check_accounts(game, day, thread, known, cast)
    stood = _Stood.of(thread, game, day, cast, as_edited=as_edited)
    judged = judge(stood.thread, game, day, provisional=provisional, cast=cast,
                   seen=seen_in_vote_thread(stood.thread, day))  # fmt: skip
    ballots = judged.ballots
    ensure_ballots(game, thread, [*ballots, *stood.gone], cast=cast)
    # Who is behind the posts: strangers, renamed accounts, a game file without ids.
    strangers = [*stranger_flags(ballots), *renamed_flags(thread, cast),
                 *accounts_note(game, thread, known, cast=cast)]  # fmt: skip
    late = [b for b in ballots if b.reason == VoidReason.AFTER_CLOSE]
    late_ok = late_ok or day.late_ok
    if late and not late_ok:
        late_ballots(game, day, thread, ballots)
    counted = count(ballots, game, day)
    acceleration = count_requests(game, day, requests) if requests is not None else None
    if not provisional and not day.result_changed:  # a closed day keeps its result
        _as_announced(game, day, thread, ballots, counted.outcome, cast)
    return DayResult(
        day=day,
        ruleset=game.rules.name,
        thread=thread,
        ballots=tuple(ballots),
        count=counted,
        not_voted=_not_voted(game, day, judged),
        flags=(*stood.flags, *judged.flags, *strangers, *counted.flags,
               *_closed_flags(thread, day, game), *_request_flags(acceleration)),
        as_of=as_of,
        provisional=provisional,
        acceleration=acceleration,
        facts=facts,
        unchecked=carried.unchecked if carried is not None else (),
        late_ok=bool(late and late_ok),
        remarks=tuple(sorted((*judged.remarks, *stood.gone), key=lambda r: r.floor)),
        notices=(*((stood.notice,) if stood.notice else ()),
                 *lost_notes(thread, min(as_of, day.closes))),
        rules=game.rules,
    )


def _not_voted(game: Game, day: Day, judged: Judged) -> tuple[str, ...]:
    """Who had a vote to cast and did not: not the dead, not those banned from voting (V10),
    and on an election day where only some roles vote, not the others (V12)."""
    voted = {b.voter for b in judged.ballots if b.casts_a_vote}
    return tuple(
        p
        for p in game.players
        if p not in voted and p not in day.out_by_close and not judged.barred(day, p)
    )


def _check_accounts(
    game: Game, day: Day, thread: Thread, known: Sequence[Thread], cast: Cast
) -> None:
    """The roster spelled as the thread's authors are (``check_roster``), and the game
    file's account ids carried by its posts (``check_ids``): a floor the director ruled on
    is theirs to judge, not a stop."""
    ruled = [r for r in game.rulings if r.day == day.day]

    def exempt(_t: Thread, w: Writing) -> bool:
        return any(r.names(w.post, w.comment_index) for r in ruled)

    check_roster(game, [thread], cast=cast, exempt=exempt)
    check_ids(game, thread, known, cast=cast, exempt=exempt)


@dataclass(frozen=True)
class _Stood:
    """The vote thread as the forum changed it, each change said: what it hides (a line
    for the director), what was edited (each ballot as it stood at the close), what is
    gone (rows, listed and never counted)."""

    thread: Thread
    flags: tuple[Flag, ...]
    gone: tuple[Remark, ...]
    notice: str | None

    @classmethod
    def of(cls, thread: Thread, game: Game, day: Day, cast: Cast, *, as_edited: bool) -> _Stood:
        notice = hidden_replies(thread)
        kept, kept_flags = kept_from_the_close(thread, game, day, cast)
        stood, edits = as_it_stood(kept, game, day, as_edited=as_edited, cast=cast)
        rulings_on_moved_floors(thread, game, day)
        gone, gone_flags = deleted_rows(thread, game, cast=cast,
                                        kept=(p.post_id for p in kept.posts))  # fmt: skip
        return cls(stood, (*kept_flags, *edits, *gone_flags), tuple(gone), notice)


def _closed_flags(thread: Thread, day: Day, game: Game) -> list[Flag]:
    """The vote thread found closed (关闭) inside the day: a ballot or a change not in it
    may not have been anyone's choice."""
    closed = thread.closed_during(day.opens, day.closes)
    if closed is None:
        return []
    first, last = (short(t.astimezone(game.timezone)) for t in closed[:2])
    when = first if first == last else tr("{first} to {last}", first=first, last=last)
    back = closed[2]
    again = (tr(", and open when it read it {at} (when it was opened between, no read tells)",
                at=short(back.astimezone(game.timezone))) if back is not None else "")  # fmt: skip
    return [Flag("closed", tr(
        "the vote thread was closed (关闭) when tally read it {when}{again}; the day opens "
        "{opens} and closes {closes}: while it was closed only a moderator could post in it, "
        "so a ballot or a change not in it may not have been anyone's choice (L3: rule on "
        "those who did not vote)", when=when, again=again, opens=short(day.opens),
        closes=short(day.closes),
    ))]  # fmt: skip


def _request_flags(acceleration: Acceleration | None) -> list[Flag]:
    """S3: the requests said where someone asked or the file says accelerated, and their
    disagreement with the game file."""
    flags = []
    if acceleration is not None and (acceleration.asked or acceleration.marked):
        flags.append(Flag("S3", acceleration.text))
    if acceleration is not None and acceleration.warning:
        flags.append(Flag("S3", tr("warning: {warning}", warning=acceleration.warning)))
    return flags


def _as_announced(
    game: Game, day: Day, thread: Thread, ballots: Sequence[Ballot], outcome: Outcome, cast: Cast
) -> None:
    """A closed day's count against what was announced of it (in the journal, or in the
    thread): a count that differs stops (``tally.rules.counting.closed``)."""
    from tally.rules.counting.closed import check_posted, compare

    if day.day in game.announced:
        compare(game.announced[day.day], ballots, outcome, day, why=None)
    else:
        check_posted(game, day, thread, outcome, cast=cast)


@dataclass(frozen=True)
class Chain:
    """The days counted in order: each closed day's count, each day as it stands after the
    days before it (its sheriff, who is out), and what the next day inherits."""

    results: Mapping[int, DayResult]
    days: Mapping[int, Day]
    carried: Carried

    def outcome(self, number: int) -> tuple[OutcomeResult, str | None] | None:
        """Day ``number``'s result as tally counted it (result, player); None when not
        counted here."""
        counted = self.results.get(number)
        return (counted.outcome.result, counted.outcome.player) if counted is not None else None


def in_order(
    game: Game,
    threads: Mapping[int, Thread | str],
    *,
    until: int | None = None,
    strict: bool = False,
    late_ok: bool = False,
) -> Chain:
    """Count the days of the game in order (up to ``until``), each with what the days before
    it made; ``threads`` gives each day's vote thread, or why it could not be had. A count
    before a close carries nothing.

    A day that cannot be counted carries only what its game-file entry says, and the days
    after it say so (``Carried.unchecked``); with ``strict`` (every day is wanted, as in the
    report) its error stops the count. A game file the counts contradict always stops
    (GameFileError).
    """
    from tally.errors import GameFileError, TallyError

    state = Carried()
    counted: dict[int, DayResult] = {}
    days: dict[int, Day] = {}
    for day in game.days:
        if until is not None and day.day > until:
            break
        got = threads.get(day.day, tr("its vote thread was not read"))
        why = got if isinstance(got, str) else None
        if isinstance(got, Thread):
            try:
                result = tally_day(got, game, day.day, carried=state, late_ok=late_ok)
            except GameFileError:
                raise
            except TallyError as exc:
                if strict:
                    raise
                why = tr("its vote thread could not be counted ({why})", why=str(exc).rstrip(".。"))
            else:
                if not result.provisional:
                    counted[day.day], days[day.day] = result, result.day
                    state = state.after(result.day, result.outcome.result,
                                        result.outcome.player, game.sent_off)  # fmt: skip
                    state = dataclasses.replace(state, read=(*state.read, got))
                    continue
                why = tr("it has not closed (read {at})", at=short(result.as_of))
        days[day.day], _ = resolve(game, day, state)
        state = state.uncounted(game, days[day.day], why or "")
        if isinstance(got, Thread):  # read, though not counted: its accounts are known
            state = dataclasses.replace(state, read=(*state.read, got))
    return Chain(counted, days, state)
