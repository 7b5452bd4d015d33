"""A voter's ballots in order (RULES V3-V5, V7-V9, V11): the vote, its one change (where
the ruleset says a change goes), the fixes of a wrongly written one, the director's rulings,
the last hour and a proxy's own deadline, the bar owner's hours, and a ballot that lapses when
its voter or its target goes out during the day."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from tally.errors import GameFileError
from tally.i18n import ntr, tr
from tally.rules.game.game import Day
from tally.rules.game.names import Roster
from tally.rules.game.rulesets import CHANGE_BUTTONS, ChangeMethod, Ruleset
from tally.rules.judging.ballots import Flag
from tally.rules.judging.minutes import after, before, shown
from tally.rules.judging.work import Work
from tally.rules.verdicts import FIXABLE, BallotKind, RulingAction, Status, VoidReason
from tally.times import clock, short


def apply_ruling(w: Work, roster: Roster) -> None:
    r = w.ruling
    if r is None:
        return
    note = (
        tr("director's ruling: {action} ({note})", action=r.action, note=r.note)
        if r.note
        else tr("director's ruling: {action}", action=r.action)
    )
    if r.action == RulingAction.VOID:
        w.status, w.reason = Status.VOID, VoidReason.RULING
        w.reasons.insert(0, VoidReason.RULING)
        w.notes.append(note)
        return
    target = r.target or w.target
    if target is None and len(w.suggestions) == 1:
        target = w.suggestions[0]
    if target is None and not w.abstain:
        raise GameFileError(
            tr(
                'the ruling accepting floor {floor} needs target = "…": tally cannot tell '
                "who that ballot is for.",
                floor=w.post.floor,
            )
        )
    if w.voter is None:
        raise GameFileError(
            tr("the ruling accepting floor {floor} names no player's ballot.", floor=w.post.floor)
        )
    w.target = target if not w.abstain else w.target
    w.status, w.reason = None, None
    w.reasons.clear()
    w.notes.append(note)


def _answers_one_of(
    w: Work, post_ids: set[str], methods: Iterable[ChangeMethod], voter_author: str
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


def sequence(voter: str, seq: list[Work], day: Day, rules: Ruleset) -> None:
    """A voter's ballots in time order: the first valid one is the vote, the rest changes."""
    ballots = _Ballots(voter, day, rules)
    for w in seq:
        forced = w.ruling is not None and w.ruling.action == RulingAction.ACCEPT
        if w.is_void:
            ballots.void(w)
        elif ballots.current is None:
            ballots.vote(w, forced)
        else:
            ballots.change(ballots.current, w, forced)


@dataclass
class _Ballots:
    """One voter's ballots as ``sequence`` walks them, and what the walk has seen so far:
    each ballot is judged by the ones before it (the vote it changes, the changes spent)."""

    voter: str
    day: Day
    rules: Ruleset
    current: Work | None = None
    own_floors: set[str] = field(default_factory=set)
    # The void first ballots a fix may answer, oldest first.
    fixables: list[Work] = field(default_factory=list)
    # A void ballot that answers an earlier one is a fix of it that failed: the ballot a
    # fix of it fixes is that earlier one, whose time it keeps (V7, seed 000: "此类修改的
    # 投票时间算作修改前的发贴时间"; a fix of a fix kept the failed fix's time).
    roots: dict[int, Work] = field(default_factory=dict)
    changes: int = 0
    extra_used: bool = False
    # The target whose death during the day gave one more change.
    went_out: str | None = None

    def void(self, w: Work) -> None:
        if self.current is None and w.reason in FIXABLE:
            earlier = _answered(w, self.fixables, self.rules)
            self.roots[id(w)] = self.roots[id(earlier)] if earlier is not None else w
            self.fixables.append(w)
        elif self.current is not None and w.reason in FIXABLE:
            # A second ballot written wrong: posted the wrong way too, it is that first
            # (a player who mends the words alone posts a void change again).
            _posted_as_a_change(w, self.own_floors, self.rules)
        w.is_change = self.current is not None

    def vote(self, w: Work, forced: bool) -> None:
        """The first valid ballot: the vote, or the fix of a void one (V7)."""
        fixable = _answered(w, self.fixables, self.rules)
        change = w.parsed is not None and w.parsed.label == BallotKind.CHANGE
        if change and fixable is None and not forced:
            w.void(VoidReason.CHANGE_WITHOUT_VOTE, tr("a change with no vote before it (V2)"))
            return
        if fixable is not None:
            if self.rules.fix_keeps_time:
                root = self.roots[id(fixable)]
                w.time = root.time
                w.notes.append(tr("fixes floor {floor}: no change, keeps its time (V7)",
                                  floor=root.post.floor))  # fmt: skip
            else:
                w.notes.append(tr("replaces the void ballot on floor {floor} (V7)",
                                  floor=fixable.post.floor))  # fmt: skip
        self.current = _count(w, self.own_floors)

    def change(self, current: Work, w: Work, forced: bool) -> None:
        """A valid ballot after the vote: a change of it, if the rules let it be one."""
        w.is_change = True
        if forced:
            self.current = _supersede(current, w, self.own_floors)
            return
        if w.target == current.target:
            w.void(
                VoidReason.NO_CHANGE,
                tr("same target as floor {floor}: not a change (V7)", floor=current.post.floor),
            )
            _posted_as_a_change(w, self.own_floors, self.rules)
            return
        if self.day.accelerated:
            w.void(
                VoidReason.CHANGE_UNDER_ACCELERATION,
                tr("the day is accelerated: no change counts (S3)"),
            )
            return
        if not _posted_as_a_change(w, self.own_floors, self.rules):
            return
        death = self.day.died.get(current.target or "")
        if self.rules.change_after_target_death and death is not None and w.posted_at >= death:
            # The target went out during the day (正午): one more change, even inside the
            # last hour (V9, seed 001: "即使在禁止改票的时间内也可以进行一次改票").
            self.went_out = self.went_out or current.target
        extra = self.extra(w)
        if extra is None:
            return
        if extra:
            self.extra_used = True
            w.notes.append(tr("{player} went out during the day: one more change (V9)",
                              player=self.went_out))  # fmt: skip
        else:
            self.changes += 1
        self.current = _supersede(current, w, self.own_floors)

    def extra(self, w: Work) -> bool | None:
        """Whether the change ``w`` is the one more a target's death gives (V9); None, and
        ``w`` void, where it comes too late: past the changes allowed (V4), in the last hour
        or past a proxy's own deadline (V5, V8), the 主管's past their hours (V11)."""
        day, rules = self.day, self.rules
        window = timedelta(minutes=rules.change_window_minutes)
        final = day.closes - window
        deadline = final
        if w.proxy and rules.proxy_change_deadline_minutes is not None:
            deadline = min(
                final, day.closes - timedelta(minutes=rules.proxy_change_deadline_minutes)
            )
        spent = rules.max_changes is not None and self.changes >= rules.max_changes
        # Shown in the minute the window begins (a time to the minute): perhaps in it.
        side = before(w.posted_at, w.latest, deadline) if window else True
        late = side is not True
        # The one more change is the one the ordinary change cannot be: a change after the
        # death, outside the last hour, is the ordinary one while it is left, and the one
        # more is kept for the change after it, or the one inside the last hour (V4, V5, V9:
        # spent first, it refused the final-hour change it exists for).
        v9 = self.went_out is not None and not self.extra_used and (spent or late)
        if not v9 and spent:
            w.void(
                VoidReason.SECOND_CHANGE,
                tr("only {max} change(s) allowed (V4)", max=rules.max_changes),
            )
            return None
        if not v9 and late:
            # V8 only for a proxy change (its own, earlier deadline, seed 001).
            rule = "V5, V8" if w.proxy else "V5"
            minutes = int((day.closes - deadline).total_seconds() // 60)
            note = tr("no change in the last {window} before the close, after {deadline} "
                      "({rule})", window=window_text(minutes), deadline=clock(deadline),
                      rule=rule)  # fmt: skip
            w.void(VoidReason.CHANGE_IN_FINAL_HOUR, _in_its_minute(w, side, note))
            return None
        if day.bar_owner == self.voter:
            limit = day.opens + timedelta(hours=bar_owner_hours(day, rules)[1])
            side = after(w.posted_at, w.latest, limit)
            if side is not False:
                note = tr("the 主管 may not change after {limit} (V11)", limit=short(limit))
                w.void(VoidReason.BAR_OWNER_LATE_CHANGE, _in_its_minute(w, side, note))
                return None
        return v9


def _in_its_minute(w: Work, side: bool | None, note: str) -> str:
    """``note``, or where ``w`` is shown in the minute that holds the deadline (its time to
    the minute: ``side`` None), that, flagged for the director to rule on."""
    if side is not None:
        return note
    note = unless_ruled(shown(w), note)
    w.flags.append(("deadline minute", note))
    return note


def unless_ruled(shown: str, note: str) -> str:
    """``note`` of a ballot shown in the minute that holds a deadline: void unless ruled."""
    return tr("posted in the minute of the deadline ({shown}): {note}, unless a ruling "
              "accepts it", shown=shown, note=note)  # fmt: skip


def _posted_as_a_change(w: Work, own_floors: set[str], rules: Ruleset) -> bool:
    """Whether ``w`` is posted the way a change must be (V3; a proxy's any way): if not, it
    is void for it, with the way said."""
    if w.proxy or _answers_one_of(w, own_floors, rules.change_via, w.author):
        return True
    how = tr(" or ").join(rules.change_via)
    buttons = CHANGE_BUTTONS.get(w.post.platform, {})
    # The buttons' words are the ruleset's table's (tally.rules.game.rulesets), marked there.
    hint = tr(" or ").join(tr(buttons[m]) for m in rules.change_via if m in buttons)
    said = (
        tr("a change must be posted as a {how} of one's own vote (V3): {hint}", how=how, hint=hint)
        if hint
        else tr("a change must be posted as a {how} of one's own vote (V3)", how=how)
    )
    w.void(VoidReason.CHANGE_NOT_REPLY, said)
    return False


def _answered(w: Work, fixables: list[Work], rules: Ruleset) -> Work | None:
    """The void ballot ``w`` answers the way a change must be posted (V3, V7), the latest
    first: another void one posted after it (a vote for one who is out) does not take its
    fix away."""
    return next(
        (f for f in reversed(fixables)
         if _answers_one_of(w, {f.post.post_id}, rules.change_via, f.author)),
        None,
    )  # fmt: skip


def _count(w: Work, own_floors: set[str]) -> Work:
    w.status = Status.COUNTED
    own_floors.add(w.post.post_id)
    return w


def _supersede(current: Work, w: Work, own_floors: set[str]) -> Work:
    current.status = Status.SUPERSEDED
    current.superseded_at = w.time
    current.notes.append(tr("replaced by the change on floor {floor}", floor=w.post.floor))
    return _count(w, own_floors)


def window_text(minutes: int) -> str:
    """ "10 minutes", "1 minute": a rule's span in a sentence."""
    return ntr("{n} minute", "{n} minutes", minutes)


def bar_owner_hours(day: Day, rules: Ruleset) -> tuple[int, int]:
    """V11: the hours after the open by which the 主管 votes, and after which they may not
    change (fewer on an accelerated day)."""
    return rules.bar_owner_hours_accelerated if day.accelerated else rules.bar_owner_hours


def owner_due(day: Day, rules: Ruleset) -> datetime:
    """V11: when the 主管's valid vote is due."""
    return day.opens + timedelta(hours=bar_owner_hours(day, rules)[0])


def lapse_and_flag(
    works: list[Work], day: Day, rules: Ruleset, *, owner_out: bool = False
) -> list[Flag]:
    flags: list[Flag] = []
    out = day.out_by_close
    for w in works:
        # A death by the close takes the ballots by and for the dead with it (V9); one
        # after the close (黄昏) is the next day's, and the vote stands.
        if w.status == Status.COUNTED and w.voter in out:
            w.void(
                VoidReason.DEAD_VOTER,
                tr("{out}; the ballot lapsed (V9)", out=_went_out(w.voter, day)),
            )
            w.lapsed = True
        elif w.status == Status.COUNTED and w.target in out:
            w.void(
                VoidReason.DEAD_TARGET,
                tr("{out}; the ballot lapsed (V9)", out=_went_out(w.target, day)),
            )
            w.lapsed = True
        if w.damaged:
            w.flags.append(
                (
                    "damaged",
                    tr(
                        "the page held bytes here that are not text (shown as �); "
                        "check this ballot on the forum"
                    ),
                )
            )
        edited = _edited(w, day, rules)
        if edited is not None:
            w.flags.append(("edited", edited))
        for rule, text in w.flags:
            flags.append(Flag(rule, text, w.voter, w.post.floor, w.post_id))
    hours, due = bar_owner_hours(day, rules)[0], owner_due(day, rules)
    if day.bar_owner and not owner_out:
        owner = [w for w in works if w.voter == day.bar_owner]
        valid = [
            w
            for w in owner
            if (w.status in (Status.COUNTED, Status.SUPERSEDED) or w.lapsed)
            and not w.abstain
            and _owner_in_time(w, due, hours, flags)
        ]
        # Abstaining, also by a change to 弃权, and a void ballot are what V11 cards; a
        # ballot that lapsed with a death was a valid vote.
        abstained = any(w.abstain and not w.is_void for w in owner)
        if not valid or abstained or any(w.is_void and not w.lapsed for w in owner):
            flags.append(
                Flag(
                    "V11",
                    tr(
                        "the 主管 {player} did not cast a valid vote within {hours} h "
                        "of the open, abstained or cast a void ballot: yellow card",
                        player=day.bar_owner,
                        hours=hours,
                    ),
                    day.bar_owner,
                )
            )
    return flags


def _edited(w: Work, day: Day, rules: Ruleset) -> str | None:
    """What the flag says of ``w`` edited late, or None: the vote seen now may not be the
    vote cast (V5), for the forum keeps no history."""
    edit = w.post.edited
    if edit is None or w.is_comment:
        return None
    window = timedelta(minutes=rules.change_window_minutes)
    if edit.at > day.closes:
        return tr("edited after the close, {at}", at=short(edit.at))
    if edit.at >= _minute(day.closes):
        # A mark says minutes only: 21:30 may be before the 21:30:00 close or after.
        return tr("edited in the closing minute, {at}: perhaps after the close", at=short(edit.at))
    if window and edit.at >= _minute(day.closes - window):
        # A mark says minutes only: one in the minute the final hour begins may be in it.
        return tr(
            "edited in the last {window} before the close, {at}",
            window=window_text(rules.change_window_minutes),
            at=short(edit.at),
        )
    return None


def _owner_in_time(w: Work, due: datetime, hours: int, flags: list[Flag]) -> bool:
    """V11: whether the 主管's ballot was cast within ``hours`` of the open, by ``due``; one
    shown in that minute (its time to the minute) is not, unless a ruling accepts it."""
    if w.time is None:
        return False
    # A fix keeps the time of the ballot it fixes (V7): that time, to the second.
    side = after(w.time, w.latest if w.time == w.posted_at else w.time, due)
    if side is None and not (w.ruling is not None and w.ruling.action == RulingAction.ACCEPT):
        note = tr("the 主管's ballot was posted in the minute its {hours} h end ({shown}): "
                  "not within them, unless a ruling accepts it (V11)",
                  hours=hours, shown=shown(w))  # fmt: skip
        flags.append(Flag("deadline minute", note, w.voter, w.post.floor, w.post_id))
        return False
    return side is not True


def _minute(when: datetime) -> datetime:
    return when.replace(second=0, microsecond=0)


def _went_out(player: str, day: Day) -> str:
    """How ``player`` is out by the close: during the day, or before it opened (a ballot a
    ruling accepted, for a player sent off at the day before's close: K2)."""
    if day.out_at(player, day.opens):
        return tr("{player} was out before the day opened", player=player)
    return tr("{player} went out during the day", player=player)
